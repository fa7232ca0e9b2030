//! Diagnostics: what is wrong, where it was written, which element of the
//! template it belongs to and which section of the specification it enforces.
//!
//! The element path (`node_templates.db.properties.port`) is kept as a stack
//! of borrowed segments while checking and only rendered when a diagnostic is
//! emitted, so walking a large template costs no string building.

use std::fmt;

use v4t_yaml::Span;

/// How bad a finding is: errors make a file invalid, warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about a TOSCA file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short, stable, machine-readable name of the rule (`unknown-type`).
    pub code: &'static str,
    pub message: String,
    /// Where the offending YAML node starts ([`Span::NONE`] if unknown).
    pub span: Span,
    /// The element path, e.g. `service_template.node_templates.db.properties.port`
    /// (empty for file-level findings).
    pub path: String,
    /// The section of the TOSCA specification the rule comes from (`9.5`);
    /// for TOSCA 1.3 files, the 1.3 section prefixed with `1.3 `.
    pub section: &'static str,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " (at {})", self.path)?;
        }
        Ok(())
    }
}

/// One step of an element path.
#[derive(Clone, Copy, Debug)]
pub enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The element path of the node being checked, as a stack of borrowed segments.
#[derive(Clone, Debug, Default)]
pub struct ElementPath<'a> {
    segs: Vec<Seg<'a>>,
}

impl<'a> ElementPath<'a> {
    pub fn push(&mut self, key: &'a str) {
        self.segs.push(Seg::Key(key));
    }

    pub fn push_index(&mut self, i: usize) {
        self.segs.push(Seg::Index(i));
    }

    pub fn pop(&mut self) {
        self.segs.pop();
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

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

/// Collects diagnostics, deduplicated and in a deterministic order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.list.push(d);
    }

    pub fn error(
        &mut self,
        code: &'static str,
        section: &'static str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.push(Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            path,
            section,
        });
    }

    pub fn warning(
        &mut self,
        code: &'static str,
        section: &'static str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.push(Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
            span,
            path,
            section,
        });
    }

    /// Drops the diagnostics found after the first `len` (a tentative check).
    pub fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.list.extend(other.list);
    }

    /// The diagnostics sorted by source, line and column (unknown locations
    /// last, in the order they were found), without exact duplicates.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        // A stable sort keeps the discovery order among equal locations.
        self.list.sort_by_key(|d| {
            let known = d.span.is_known();
            (!known, d.span.source, d.span.line, d.span.col, d.severity)
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
        ds.error("b", "1", at(5), String::new(), "later");
        ds.error("a", "1", at(2), String::new(), "earlier");
        ds.error("a", "1", at(2), String::new(), "earlier");
        ds.error("c", "1", Span::NONE, String::new(), "nowhere");
        let sorted = ds.into_sorted();
        let messages: Vec<_> = sorted.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["earlier", "later", "nowhere"]);
    }
}
