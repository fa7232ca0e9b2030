//! What a drawing shows, independent of its format: boxes, arrows
//! between them (by box key) and clusters of boxes.

/// One box of the drawing.
pub(super) struct Shape {
    /// A stable identifier (`n0`, `a3`, ...).
    pub(super) key: String,
    /// Lines of its label: name, type(s), condition.
    pub(super) lines: Vec<String>,
}

/// An arrow of the drawing.
pub(super) struct Arrow {
    /// The keys of its tail and head boxes.
    pub(super) from: String,
    pub(super) to: String,
    pub(super) label: String,
    /// A hosting relation (drawn with a wider pen).
    pub(super) hosting: bool,
    /// One of several alternatives of a requirement (dashed): the number
    /// that names the set of alternatives (`None`: not an alternative).
    pub(super) alternatives: Option<usize>,
}

/// A cluster (a group) of boxes.
pub(super) struct Cluster {
    pub(super) key: String,
    pub(super) label: String,
    /// The keys of its boxes.
    pub(super) members: Vec<String>,
}

/// What is drawn, independent of the format.
pub(super) struct Picture {
    pub(super) boxes: Vec<Shape>,
    pub(super) arrows: Vec<Arrow>,
    pub(super) clusters: Vec<Cluster>,
}
