//! A TOSCA view of YAML values: the distinctions TOSCA's "no implicit
//! coercion" rules need (integer vs float, string vs everything else).
//!
//! Every place that asks what kind of YAML value a node holds goes through
//! [`classify`], so the mapping from the YAML tree lives in one function.

use v4t_yaml::{MapRef, NodeRef, SeqRef, Tag, ValueRef};

/// The kind of a YAML value as TOSCA sees it.
#[derive(Clone, Copy, Debug)]
pub enum Scalar<'a> {
    /// A YAML null.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer (not `1.0`).
    Int(i64),
    /// A float (also `1.0` and `.inf`).
    Float(f64),
    /// A string.
    Str(&'a str),
    /// A YAML `!!timestamp` (an unquoted date): TOSCA 2.0 rejects it, TOSCA
    /// 1.3 accepts it where a timestamp is expected.
    Timestamp,
    /// A sequence.
    Seq(SeqRef<'a>),
    /// A mapping.
    Map(MapRef<'a>),
}

/// Classifies a node's value; integers and floats are told apart by how
/// the number was written (`1.0` is a float, §9.1.1.3). Integers beyond
/// 2^53 are not exact here: [`classify_written`] reads them from the text.
pub fn classify(node: NodeRef<'_>) -> Scalar<'_> {
    classify_written(node, None)
}

/// [`classify`] given the text the node was written as
/// (`Sources::text_of`): an integer is the written one, exactly, from
/// −2^63 to 2^63−1 (TOSCA 2.0 §9.1.1.2, 1.3 §3.3.1); an integer written
/// beyond that range is no TOSCA integer (see [`out_of_range_integer`]).
pub fn classify_written<'n>(node: NodeRef<'n>, written: Option<&str>) -> Scalar<'n> {
    match node.value() {
        ValueRef::Null => Scalar::Null,
        ValueRef::Bool(b) => Scalar::Bool(b),
        ValueRef::Number(n) => {
            if reads_written(node) {
                if let Some(text) = written.map(int_text) {
                    return match v4t_yaml::parse::core_int_exact(text) {
                        Some(i) => Scalar::Int(i),
                        None => Scalar::Float(n),
                    };
                }
            }
            // 2^63 as a float: the first integral value beyond `i64`.
            let integral = n.fract() == 0.0 && n.abs() < 9_223_372_036_854_775_808.0;
            if node.form().is_float() || !integral {
                Scalar::Float(n)
            } else {
                Scalar::Int(n as i64)
            }
        }
        ValueRef::String(_) if node.form().tag() == Some(Tag::Timestamp) => Scalar::Timestamp,
        ValueRef::String(s) => Scalar::Str(s),
        ValueRef::Timestamp(_) => Scalar::Timestamp,
        ValueRef::Seq(items) => Scalar::Seq(items),
        ValueRef::Map(m) => Scalar::Map(m),
    }
}

/// Whether [`classify_written`] reads the node's text: an integer.
pub fn reads_written(node: NodeRef<'_>) -> bool {
    node.form().is_int() && matches!(node.value(), ValueRef::Number(_))
}

/// The integer of a scalar's text: without its node properties (an
/// anchor `&a`, a tag `!!int`) and surrounding space.
fn int_text(written: &str) -> &str {
    let mut w = written.trim();
    while w.starts_with(['&', '!']) {
        w = w
            .find(char::is_whitespace)
            .map_or("", |i| w[i..].trim_start());
    }
    w
}

/// Whether a value written as an integer lies outside the 64-bit range
/// (so it is no TOSCA integer), given its text as written.
pub fn out_of_range_integer(node: NodeRef<'_>, written: Option<&str>) -> bool {
    reads_written(node)
        && written.is_some_and(|w| v4t_yaml::parse::core_int_exact(int_text(w)).is_none())
}

/// Whether a boolean was written `true` or `false` (TOSCA 2.0 accepts no
/// other spelling, §9.1.1.4), given its text as written.
pub fn bool_written_lowercase(written: Option<&str>) -> Option<bool> {
    written.map(|w| w == "true" || w == "false")
}

/// Whether a scalar map key was written as a string (quoted, or a plain
/// scalar YAML reads as a string: `99:` and `1.0:` are numbers), given its
/// text as written.
pub fn key_written_as_string(written: Option<&str>) -> bool {
    let Some(w) = written else { return true };
    if w.starts_with(['"', '\'', '?', '!', '&', '*']) {
        return true;
    }
    matches!(
        v4t_yaml::parse::resolve_plain_form(w.trim_end(), v4t_yaml::Schema::Core).0,
        v4t_yaml::Value::String(_)
    )
}

/// A short name of a value's YAML kind for messages (`a string`, `an integer`).
pub fn describe(node: NodeRef<'_>) -> &'static str {
    match classify(node) {
        Scalar::Null => "null",
        Scalar::Bool(_) => "a boolean",
        Scalar::Int(_) => "an integer",
        Scalar::Float(_) => "a float",
        Scalar::Str(_) => "a string",
        Scalar::Timestamp => "a YAML timestamp",
        Scalar::Seq(_) => "a list",
        Scalar::Map(_) => "a map",
    }
}

/// The node as a string, if it is one.
pub fn as_str(node: NodeRef<'_>) -> Option<&str> {
    match node.value() {
        ValueRef::String(s) => Some(s),
        _ => None,
    }
}

/// The node as a non-negative integer that fits `u64`, if it is one.
pub fn as_count(node: NodeRef<'_>) -> Option<u64> {
    match classify(node) {
        Scalar::Int(i) if i >= 0 => Some(i as u64),
        _ => None,
    }
}

/// A short rendering of a value for messages (JSON, cut after 60 characters).
pub fn show(node: NodeRef<'_>) -> String {
    let mut s = v4t_yaml::json::to_json(node);
    if s.chars().count() > 60 {
        s = s.chars().take(57).collect::<String>() + "...";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms_tell_floats_booleans_and_keys_apart() {
        let text = "a: 1.0\nb: 1\nc: False\nd: 0x1F\n99: x\n'7': y\ne: !!timestamp 2001-01-01\nf: &m !!int 9223372036854775807\ng: 9007199254740993\nh: 9223372036854775808\n";
        let mut sources = v4t_source::Sources::new();
        let id = sources.add("t.yaml", text);
        let doc = v4t_yaml::parse_with(text, id, v4t_yaml::Schema::Core).unwrap();
        let get = |k: &str| NodeRef::from(doc.get(k).unwrap());
        assert!(matches!(classify(get("a")), Scalar::Float(_)));
        assert!(matches!(classify(get("b")), Scalar::Int(1)));
        assert!(matches!(classify(get("d")), Scalar::Int(31)));
        let written = |k: &str| sources.text_of(get(k).span());
        assert!(matches!(
            classify_written(get("f"), written("f")),
            Scalar::Int(i64::MAX)
        ));
        assert!(matches!(
            classify_written(get("g"), written("g")),
            Scalar::Int(9_007_199_254_740_993)
        ));
        assert!(matches!(
            classify_written(get("h"), written("h")),
            Scalar::Float(_)
        ));
        assert!(out_of_range_integer(get("h"), written("h")));
        assert!(!out_of_range_integer(get("f"), written("f")));
        assert!(matches!(classify(get("e")), Scalar::Timestamp));
        assert_eq!(
            bool_written_lowercase(sources.text_of(get("c").span())),
            Some(false)
        );
        let keys: Vec<_> = doc
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| key_written_as_string(sources.text_of(k.span)))
            .collect();
        assert_eq!(
            keys,
            [true, true, true, true, false, true, true, true, true, true]
        );
    }

    #[test]
    fn classify_distinguishes_the_yaml_kinds() {
        let doc = v4t_yaml::parse(
            "[1, 1.5, '1', true, null, [], {}, 2001-01-01]",
            v4t_yaml::SourceId(0),
        )
        .unwrap();
        let kinds: Vec<_> = doc
            .as_seq()
            .unwrap()
            .iter()
            .map(|n| describe(n.into()))
            .collect();
        assert_eq!(
            kinds,
            [
                "an integer",
                "a float",
                "a string",
                "a boolean",
                "null",
                "a list",
                "a map",
                "a YAML timestamp"
            ]
        );
    }
}
