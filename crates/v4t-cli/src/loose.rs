//! Values read from plain text (environment variables, FeatureIDE
//! attributes, `--input` values) rather than from a source file.

use v4t_yaml::{Node, SourceId, Span, Value};

/// JavaScript's "loose parse": the JSON value if `text` is JSON, otherwise
/// the raw string.
pub(crate) fn loose_parse(text: &str) -> Node {
    if looks_like_json(text.trim()) {
        if let Ok(node) = v4t_yaml::parse(text, SourceId(u32::MAX)) {
            // JSON has no dates; anything else the YAML reader produced from
            // JSON-looking text is what JSON.parse would produce.
            if !matches!(node.value, Value::Timestamp(_)) {
                return unspanned(node);
            }
        }
    }
    Node::string(text)
}

/// Whether `text` (trimmed) could be a JSON document.
fn looks_like_json(text: &str) -> bool {
    match text.chars().next() {
        Some('{' | '[' | '"') => true,
        Some('-' | '0'..='9') => is_json_number(text),
        _ => matches!(text, "true" | "false" | "null"),
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
pub(crate) fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Removes the spans of a node parsed from text that is not a source file.
pub(crate) fn unspanned(mut node: Node) -> Node {
    fn walk(node: &mut Node) {
        node.span = Span::NONE;
        match &mut node.value {
            Value::Seq(items) => items.iter_mut().for_each(walk),
            Value::Map(map) => map.iter_mut().for_each(|(_, v)| walk(v)),
            _ => {}
        }
    }
    walk(&mut node);
    node
}
