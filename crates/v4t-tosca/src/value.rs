//! A TOSCA view of YAML values: the distinctions TOSCA's "no implicit
//! coercion" rules need (integer vs float, string vs everything else).
//!
//! Every place that asks what kind of YAML value a node holds goes through
//! [`classify`], so the mapping from the YAML tree lives in one function.

use v4t_yaml::{Map, Node, Value};

/// The kind of a YAML value as TOSCA sees it.
#[derive(Clone, Copy, Debug)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    /// A YAML `!!timestamp` (an unquoted date): TOSCA 2.0 rejects it, TOSCA
    /// 1.3 accepts it where a timestamp is expected.
    Timestamp,
    Seq(&'a [Node]),
    Map(&'a Map),
}

/// Classifies a node's value.
pub fn classify(node: &Node) -> Scalar<'_> {
    match &node.value {
        Value::Null => Scalar::Null,
        Value::Bool(b) => Scalar::Bool(*b),
        Value::Number(n) => {
            // Integral values are YAML `!!int` unless written as floats; the
            // parser keeps one number type, so integral numbers count as
            // integers here.
            if n.fract() == 0.0 && n.abs() < 9.2e18 {
                Scalar::Int(*n as i64)
            } else {
                Scalar::Float(*n)
            }
        }
        Value::String(s) => Scalar::Str(s),
        Value::Timestamp(_) => Scalar::Timestamp,
        Value::Seq(items) => Scalar::Seq(items),
        Value::Map(m) => Scalar::Map(m),
    }
}

/// A short name of a value's YAML kind for messages (`a string`, `an integer`).
pub fn describe(node: &Node) -> &'static str {
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
pub fn as_str(node: &Node) -> Option<&str> {
    match &node.value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The node as a non-negative integer that fits `u64`, if it is one.
pub fn as_count(node: &Node) -> Option<u64> {
    match classify(node) {
        Scalar::Int(i) if i >= 0 => Some(i as u64),
        _ => None,
    }
}

/// A short rendering of a value for messages (JSON, cut after 60 characters).
pub fn show(node: &Node) -> String {
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
            .map(describe)
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
