//! The JSON object every command answers with.

use v4t::{Diagnostic, Sources};
use v4t_yaml::json::{to_json, write_json_string};
use v4t_yaml::Node;

/// An answer under construction: `{"ok": ..., fields..., "diagnostics": [...]}`.
pub(crate) struct Response {
    out: String,
}

impl Response {
    /// An answer that says whether the command succeeded.
    pub(crate) fn new(ok: bool) -> Response {
        Response {
            out: format!("{{\"ok\":{ok}"),
        }
    }

    /// Adds the string field `key`.
    pub(crate) fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        write_json_string(&mut self.out, value);
    }

    /// Adds the field `key` with a tree as its value.
    pub(crate) fn node(&mut self, key: &str, value: &Node) {
        self.key(key);
        self.out.push_str(&to_json(value));
    }

    fn key(&mut self, key: &str) {
        self.out.push(',');
        write_json_string(&mut self.out, key);
        self.out.push(':');
    }

    /// The answer, completed with `diagnostics` (files named as in `sources`).
    pub(crate) fn diagnostics(mut self, sources: &Sources, diagnostics: &[Diagnostic]) -> String {
        self.key("diagnostics");
        self.out.push('[');
        for (i, d) in diagnostics.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push_str(&d.to_json(sources));
        }
        self.out.push_str("]}");
        self.out
    }
}
