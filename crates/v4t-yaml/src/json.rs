//! JSON renderings of a tree with JavaScript's `JSON.stringify` semantics.
//!
//! The reference implementation prints values in messages with
//! `JSON.stringify(x)` and `JSON.stringify(x, null, 4)`; matching it keeps
//! our messages and outputs identical. Numbers print as JavaScript prints them,
//! non-finite numbers become `null`, and dates become quoted ISO strings.

use crate::doc::{NodeRef, ValueRef};
use crate::number::format_js;
use crate::timestamp::format_iso;

/// `JSON.stringify(x)`: compact JSON (of a [`crate::Node`] or a [`NodeRef`]).
pub fn to_json<'a>(node: impl Into<NodeRef<'a>>) -> String {
    let mut out = String::new();
    write_value(&mut out, node.into(), None, 0);
    out
}

/// `JSON.stringify(x, null, 4)`: JSON indented with four spaces.
pub fn to_json_pretty<'a>(node: impl Into<NodeRef<'a>>) -> String {
    let mut out = String::new();
    write_value(&mut out, node.into(), Some(4), 0);
    out
}

/// Appends `s` as a JSON string literal, escaped like JavaScript does.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn newline(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(step) = indent {
        out.push('\n');
        for _ in 0..step * level {
            out.push(' ');
        }
    }
}

fn write_value(out: &mut String, node: NodeRef<'_>, indent: Option<usize>, level: usize) {
    match node.value() {
        ValueRef::Null => out.push_str("null"),
        ValueRef::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        ValueRef::Number(n) => {
            if n.is_finite() {
                out.push_str(&format_js(n));
            } else {
                out.push_str("null");
            }
        }
        ValueRef::String(s) => write_json_string(out, s),
        ValueRef::Timestamp(t) => {
            if t.is_finite() {
                write_json_string(out, &format_iso(t));
            } else {
                out.push_str("null");
            }
        }
        ValueRef::Seq(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                write_value(out, item, indent, level + 1);
            }
            newline(out, indent, level);
            out.push(']');
        }
        ValueRef::Map(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                write_json_string(out, key.name());
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, item, indent, level + 1);
            }
            newline(out, indent, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Map, Node, Value};

    fn sample() -> Node {
        let mut inner = Map::new();
        inner.insert("x", Node::number(1.5));
        let mut m = Map::new();
        m.insert("s", Node::string("a\"b\\c\nd\te\u{1f}é"));
        m.insert("n", Node::number(f64::NAN));
        m.insert("i", Node::number(f64::INFINITY));
        m.insert("z", Node::null());
        m.insert("b", Node::bool(true));
        m.insert("t", Node::synth(Value::Timestamp(0.0)));
        m.insert("l", Node::seq(vec![Node::number(1.0), Node::number(1e21)]));
        m.insert("e", Node::seq(vec![]));
        m.insert("o", Node::map(Map::new()));
        m.insert("m", Node::map(inner));
        Node::map(m)
    }

    #[test]
    fn compact_matches_json_stringify() {
        assert_eq!(
            to_json(&sample()),
            r#"{"s":"a\"b\\c\nd\te\u001fé","n":null,"i":null,"z":null,"b":true,"t":"1970-01-01T00:00:00.000Z","l":[1,1e+21],"e":[],"o":{},"m":{"x":1.5}}"#
        );
        assert_eq!(to_json(&Node::string("x")), "\"x\"");
    }

    #[test]
    fn pretty_matches_json_stringify_with_four_spaces() {
        let expected = r#"{
    "s": "a\"b\\c\nd\te\u001fé",
    "n": null,
    "i": null,
    "z": null,
    "b": true,
    "t": "1970-01-01T00:00:00.000Z",
    "l": [
        1,
        1e+21
    ],
    "e": [],
    "o": {},
    "m": {
        "x": 1.5
    }
}"#;
        assert_eq!(to_json_pretty(&sample()), expected);
        assert_eq!(to_json_pretty(&Node::seq(vec![])), "[]");
    }
}
