//! Why something holds, for people: the parts of a problem that decide an
//! element's presence or take part in a conflict, each with its location,
//! the inputs it reads and the elements it depends on. `v4t explain` prints
//! them; the notes of "Could not solve" and of a violated input feature
//! model are their messages.

use v4t_yaml::{Span, Value};

/// What a [`Reason`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasonKind {
    /// A condition written in the template (on the element, or on a
    /// variability group it belongs to).
    ManualCondition,
    /// The condition of a default alternative (`default_alternative:
    /// true`): no other alternative is present.
    DefaultAlternative,
    /// The condition of an element named like a variability input
    /// (`enrich_input_condition`).
    InputCondition,
    /// A generated default condition (the element has no manual conditions).
    DefaultCondition,
    /// A generated pruning condition (it holds besides the manual conditions).
    PruningCondition,
    /// The type-specific condition of the element's type.
    TypeSpecificCondition,
    /// A type assignment's condition: its container is present.
    ContainerCondition,
    /// A generated condition of unknown origin (written `_generated: true`).
    GeneratedCondition,
    /// An element is present when all its conditions hold (always, if it
    /// has none).
    Presence,
    /// An entry of `variability.constraints`.
    Constraint,
    /// An implication generated for an `implied` element: its manual
    /// conditions (and its container or ends) imply it.
    Implied,
    /// Another generated constraint (containment, hosting, uniqueness, ...).
    GeneratedConstraint,
    /// An entry of an element's `implies`.
    Implies,
    /// A rule of the input feature model (`requires`, `alternatives`, ...).
    FeatureRule,
    /// The value of a variability input.
    InputValue,
    /// A consistency, semantic or reference check: the configurations
    /// that violate it fail (`v4t analyze --why`).
    Check,
    /// A value expression whose evaluation fails: the configurations
    /// under which it fails fail (`v4t analyze --why`).
    EvaluationError,
}

impl ReasonKind {
    /// The kind in words (`pruning condition`), as the JSON output names it.
    pub fn word(self) -> &'static str {
        match self {
            ReasonKind::ManualCondition => "manual condition",
            ReasonKind::DefaultAlternative => "default alternative",
            ReasonKind::InputCondition => "input condition",
            ReasonKind::DefaultCondition => "default condition",
            ReasonKind::PruningCondition => "pruning condition",
            ReasonKind::TypeSpecificCondition => "type-specific condition",
            ReasonKind::ContainerCondition => "container condition",
            ReasonKind::GeneratedCondition => "generated condition",
            ReasonKind::Presence => "presence",
            ReasonKind::Constraint => "constraint",
            ReasonKind::Implied => "implied",
            ReasonKind::GeneratedConstraint => "generated constraint",
            ReasonKind::Implies => "implies",
            ReasonKind::FeatureRule => "feature model rule",
            ReasonKind::InputValue => "input value",
            ReasonKind::Check => "check",
            ReasonKind::EvaluationError => "evaluation error",
        }
    }
}

/// One part of a decision or a conflict.
#[derive(Clone, Debug)]
pub struct Reason {
    /// What it is.
    pub kind: ReasonKind,
    /// The id of the element whose condition, presence or `implies` it is
    /// (the implied element of an implication).
    pub element: Option<String>,
    /// What it says, for people (`condition of node "db" is false for input
    /// env = "dev"`).
    pub message: String,
    /// The condition or constraint it is about, readable (`env = "prod"`).
    pub condition: Option<String>,
    /// The condition's value in the variant, where it has one.
    pub value: Option<bool>,
    /// Where it is written; for a generated condition, the element.
    pub span: Span,
    /// The variability inputs it reads, with their values.
    pub inputs: Vec<(String, Value)>,
    /// The elements it depends on, with their values in the variant.
    pub reads: Vec<Read>,
}

/// An element a reason depends on.
#[derive(Clone, Debug)]
pub struct Read {
    /// The element's id.
    pub element: String,
    /// Whether the reason reads the element's manual conditions (a pruning
    /// condition asks whether a relation is wanted, not whether it is
    /// present), else its presence.
    pub manual: bool,
    /// Its value in the variant (presence, or whether its manual conditions
    /// hold); unknown where the variant has no solution.
    pub value: Option<bool>,
    /// For a read of manual conditions: those conditions, readable (`None`
    /// if there are none).
    pub condition: Option<String>,
    /// For a read of manual conditions: the variability inputs they read,
    /// with their values.
    pub inputs: Vec<(String, Value)>,
}

impl Reason {
    /// A reason with a message at `span` and nothing else known yet.
    pub(crate) fn new(kind: ReasonKind, message: String, span: Span) -> Reason {
        Reason {
            kind,
            element: None,
            message,
            condition: None,
            value: None,
            span,
            inputs: Vec::new(),
            reads: Vec::new(),
        }
    }
}

/// ` for input a = 1, b = "x"` for the values read, or nothing.
pub(crate) fn for_inputs(values: &[(String, Value)]) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|(name, v)| format!("{name} = {}", show(v)))
        .collect();
    match shown.len() {
        0 => String::new(),
        1 => format!(" for input {}", shown[0]),
        _ => format!(" for inputs {}", shown.join(", ")),
    }
}

/// A value for messages: JSON for strings and scalars alike.
pub(crate) fn show(v: &Value) -> String {
    v4t_yaml::json::to_json(&v4t_yaml::Node::new(v.clone(), Span::NONE))
}
