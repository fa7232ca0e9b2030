//! Diagnostics: what is wrong, where it was written, which element of the
//! template it belongs to and which section of the specification it enforces.
//!
//! The element path (`node_templates.db.properties.port`) is kept as a stack
//! of borrowed segments while checking and only rendered when a diagnostic is
//! emitted, so walking a large template costs no string building.

use v4t_source::{Code, Diagnostic, Severity, Span};

/// The note that names the section of the specification a rule comes
/// from: `TOSCA 2.0 §9.5`, or `TOSCA 1.3 §3.6.10` for sections written
/// `1.3 3.6.10`.
pub fn section_note(section: &str) -> String {
    match section.strip_prefix("1.3 ") {
        Some(s) => format!("TOSCA 1.3 §{s}"),
        None => format!("TOSCA 2.0 §{section}"),
    }
}

/// One step of an element path.
#[derive(Clone, Copy, Debug)]
pub enum Seg<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A sequence index.
    Index(usize),
}

/// The element path of the node being checked, as a stack of borrowed segments.
#[derive(Clone, Debug, Default)]
pub struct ElementPath<'a> {
    segs: Vec<Seg<'a>>,
}

impl<'a> ElementPath<'a> {
    /// Enters the value of mapping key `key`.
    pub fn push(&mut self, key: &'a str) {
        self.segs.push(Seg::Key(key));
    }

    /// Enters sequence item `i`.
    pub fn push_index(&mut self, i: usize) {
        self.segs.push(Seg::Index(i));
    }

    /// Leaves the innermost segment.
    pub fn pop(&mut self) {
        self.segs.pop();
    }

    /// The number of segments (a depth [`ElementPath::truncate`] restores).
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    /// Whether the path is the document root.
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Drops segments down to `len` (restores a saved depth).
    pub fn truncate(&mut self, len: usize) {
        self.segs.truncate(len);
    }

    /// Renders the path: keys joined with `.`, indices as `[i]`; keys that
    /// contain `.` are quoted so the path stays unambiguous.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for seg in &self.segs {
            match seg {
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    if k.contains('.') || k.contains('[') {
                        out.push('"');
                        out.push_str(k);
                        out.push('"');
                    } else {
                        out.push_str(k);
                    }
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// Collects diagnostics; [`Diagnostics::into_sorted`] gives them
/// deduplicated and in a deterministic order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// No diagnostics yet.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.list.push(d);
    }

    /// A finding of `severity` at `span`, about the element at `path`
    /// (omitted if empty), citing `section` of the specification.
    pub fn report(
        &mut self,
        severity: Severity,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        let mut d = Diagnostic::new(severity, code, message)
            .at(span)
            .with_note(section_note(section), None);
        if !path.is_empty() {
            d.element = Some(path);
        }
        self.push(d);
    }

    /// An error finding (see [`Diagnostics::report`]).
    pub fn error(
        &mut self,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.report(Severity::Error, code, section, span, path, message);
    }

    /// A warning finding (see [`Diagnostics::report`]).
    pub fn warning(
        &mut self,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.report(Severity::Warning, code, section, span, path, message);
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    /// How many diagnostics there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Drops the diagnostics found after the first `len` (a tentative check).
    pub fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    /// The diagnostics in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// Appends the diagnostics of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.list.extend(other.list);
    }

    /// The diagnostics sorted by source, line and column (unknown locations
    /// last, in the order they were found), without exact duplicates.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        // A stable sort keeps the discovery order among equal locations.
        self.list.sort_by_key(|d| {
            let s = d.span;
            (
                !s.is_known(),
                s.source,
                s.line,
                s.col,
                d.severity == Severity::Warning,
            )
        });
        self.list.dedup_by(|a, b| a == b);
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_keys_indices_and_quote_dotted_keys() {
        let mut p = ElementPath::default();
        p.push("service_template");
        p.push("node_templates");
        p.push("db");
        p.push("requirements");
        p.push_index(2);
        p.push("Endpoint.Database");
        assert_eq!(
            p.render(),
            "service_template.node_templates.db.requirements[2].\"Endpoint.Database\""
        );
        p.truncate(3);
        assert_eq!(p.render(), "service_template.node_templates.db");
    }

    #[test]
    fn diagnostics_sort_by_location_and_drop_duplicates() {
        let mut ds = Diagnostics::new();
        let at = |line| Span::new(v4t_yaml::SourceId(0), line, 1);
        ds.error(Code::Template, "1", at(5), String::new(), "later");
        ds.error(Code::Template, "1", at(2), "a.b".to_string(), "earlier");
        ds.error(Code::Template, "1", at(2), "a.b".to_string(), "earlier");
        ds.error(
            Code::Template,
            "1.3 3.1",
            Span::NONE,
            String::new(),
            "nowhere",
        );
        let sorted = ds.into_sorted();
        let messages: Vec<_> = sorted.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["earlier", "later", "nowhere"]);
        assert_eq!(sorted[0].element.as_deref(), Some("a.b"));
        assert_eq!(sorted[0].notes[0].message, "TOSCA 2.0 §1");
        assert_eq!(sorted[2].notes[0].message, "TOSCA 1.3 §3.1");
    }
}
