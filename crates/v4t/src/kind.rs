//! The kinds of conditional elements (part 1, section 4): the one list that
//! element ids, options and display names share.

/// The eleven kinds of conditional elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Type,
    Node,
    Relation,
    Property,
    Policy,
    Group,
    Input,
    Artifact,
    Import,
    Technology,
    Output,
}

impl Kind {
    /// Every kind, in element order (the order of [`Kind`]'s variants).
    pub(crate) const ALL: [Kind; 11] = [
        Kind::Type,
        Kind::Node,
        Kind::Relation,
        Kind::Property,
        Kind::Policy,
        Kind::Group,
        Kind::Input,
        Kind::Artifact,
        Kind::Import,
        Kind::Technology,
        Kind::Output,
    ];

    /// The word used in ids and display names.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Type => "type",
            Kind::Node => "node",
            Kind::Relation => "relation",
            Kind::Property => "property",
            Kind::Policy => "policy",
            Kind::Group => "group",
            Kind::Input => "input",
            Kind::Artifact => "artifact",
            Kind::Import => "import",
            Kind::Technology => "technology",
            Kind::Output => "output",
        }
    }
}
