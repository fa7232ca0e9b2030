//! TOSCA Simple Profile 1.3 parameter types and constraint clauses (3.3, 3.6.3),
//! for the values of variability inputs: variability inputs are input
//! parameters, so their declared `type`, `entry_schema` and `constraints`
//! hold for the values assigned to them. The reference ignores all three.
//!
//! Input: a parameter definition and a value. Output: the first violated rule,
//! as text (`type "integer"`, `{less_or_equal: 65535}`) with its location.

use std::cmp::Ordering;
use v4t_yaml::json::to_json;
use v4t_yaml::{Node, Span, Value};

/// A rule of a parameter definition that a value violates.
#[derive(Debug, PartialEq)]
pub(crate) struct Violation {
    /// The rule as written: `type "integer"` or a constraint clause as JSON.
    pub rule: String,
    /// Where the rule is written.
    pub span: Span,
}

/// The first rule of `definition` (`type`, `entry_schema`, `constraints`)
/// that `value` violates, if any. Types other than the TOSCA 1.3 primitive
/// and special types (data types) are not checked.
pub(crate) fn violation(definition: &Node, value: &Value) -> Option<Violation> {
    let ty = definition.get_defined("type").and_then(Node::as_str);
    if let Some(t) = definition.get_defined("type") {
        if let Some(name) = t.as_str() {
            if !has_type(name, value) {
                return Some(Violation {
                    rule: format!("type \"{name}\""),
                    span: t.span,
                });
            }
        }
    }
    if let (Some("list" | "map"), Some(schema)) = (ty, definition.get_defined("entry_schema")) {
        // `entry_schema: integer` or `{type: integer, constraints: [...]}`.
        let entries: Vec<&Value> = match value {
            Value::Seq(items) => items.iter().map(|n| &n.value).collect(),
            Value::Map(m) => m.iter().map(|(_, n)| &n.value).collect(),
            _ => Vec::new(),
        };
        let schema = match schema.as_str() {
            Some(name) => Node::new(
                Value::Map(single(
                    "type",
                    Node::new(Value::String(name.to_string()), schema.span),
                )),
                schema.span,
            ),
            None => schema.clone(),
        };
        for entry in entries {
            if let Some(v) = violation(&schema, entry) {
                return Some(Violation {
                    rule: format!("entry_schema {}", v.rule),
                    span: v.span,
                });
            }
        }
    }
    for clause in definition
        .get_defined("constraints")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
    {
        let Some((operator, argument)) = clause.as_map().and_then(|m| m.first()) else {
            continue;
        };
        if let Some(false) = holds(&operator.name, argument, value, ty) {
            return Some(Violation {
                rule: to_json(clause),
                span: clause.span,
            });
        }
    }
    None
}

fn single(key: &str, value: Node) -> v4t_yaml::Map {
    let mut m = v4t_yaml::Map::with_capacity(1);
    m.insert(key, value);
    m
}

/// Whether `value` has the TOSCA type `name`; unknown types accept anything.
fn has_type(name: &str, value: &Value) -> bool {
    match name {
        "string" => matches!(value, Value::String(_)),
        "integer" => matches!(value, Value::Number(n) if n.fract() == 0.0),
        "float" => matches!(value, Value::Number(n) if n.is_finite()),
        "boolean" => matches!(value, Value::Bool(_)),
        "null" => matches!(value, Value::Null),
        "timestamp" => match value {
            Value::Timestamp(_) => true,
            Value::String(s) => v4t_yaml::timestamp::parse_yaml_timestamp(s).is_some(),
            _ => false,
        },
        "version" => version(value).is_some(),
        "range" => range(value).is_some(),
        "list" => matches!(value, Value::Seq(_)),
        "map" => matches!(value, Value::Map(_)),
        _ => match scalar_unit_kind(name) {
            Some(kind) => scalar_unit(kind, value).is_some(),
            None => true,
        },
    }
}

/// `major.minor[.fix[.qualifier[-build]]]` (3.3.2), as comparable parts.
fn version(value: &Value) -> Option<(Vec<u64>, String, u64)> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) if *n >= 0.0 => v4t_yaml::number::format_js(*n),
        _ => return None,
    };
    let parts: Vec<&str> = text.splitn(4, '.').collect();
    let number = |p: &str| -> Option<u64> {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let numbers = vec![
        number(parts.first()?)?,
        number(parts.get(1)?)?,
        parts.get(2).map_or(Some(0), |p| number(p))?,
    ];
    let (qualifier, build) = match parts.get(3) {
        None => (String::new(), 0),
        Some(rest) => match rest.split_once('-') {
            Some((q, b)) => (q.to_string(), b.parse().ok()?),
            None => (rest.to_string(), 0),
        },
    };
    Some((numbers, qualifier, build))
}

/// `[lower, upper]` with `upper` a number or `UNBOUNDED` (3.3.3).
fn range(value: &Value) -> Option<(f64, f64)> {
    let Value::Seq(items) = value else {
        return None;
    };
    let [lo, hi] = items.as_slice() else {
        return None;
    };
    let lo = lo.as_f64().filter(|n| n.fract() == 0.0)?;
    let hi = match &hi.value {
        Value::String(s) if s == "UNBOUNDED" => f64::INFINITY,
        Value::Number(n) if n.fract() == 0.0 => *n,
        _ => return None,
    };
    (lo <= hi).then_some((lo, hi))
}

/// The units of the scalar-unit types (3.3.6), in their base unit.
const SIZE: &[(&str, f64)] = &[
    ("b", 1.0),
    ("kb", 1e3),
    ("kib", 1024.0),
    ("mb", 1e6),
    ("mib", 1_048_576.0),
    ("gb", 1e9),
    ("gib", 1_073_741_824.0),
    ("tb", 1e12),
    ("tib", 1_099_511_627_776.0),
];
const TIME: &[(&str, f64)] = &[
    ("d", 86_400.0),
    ("h", 3600.0),
    ("m", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("ns", 1e-9),
];
const FREQUENCY: &[(&str, f64)] = &[("hz", 1.0), ("khz", 1e3), ("mhz", 1e6), ("ghz", 1e9)];
const BITRATE: &[(&str, f64)] = &[
    ("bps", 1.0),
    ("kbps", 1e3),
    ("kibps", 1024.0),
    ("mbps", 1e6),
    ("mibps", 1_048_576.0),
    ("gbps", 1e9),
    ("gibps", 1_073_741_824.0),
    ("tbps", 1e12),
    ("tibps", 1_099_511_627_776.0),
];

fn scalar_unit_kind(name: &str) -> Option<&'static [(&'static str, f64)]> {
    Some(match name {
        "scalar-unit.size" => SIZE,
        "scalar-unit.time" => TIME,
        "scalar-unit.frequency" => FREQUENCY,
        "scalar-unit.bitrate" => BITRATE,
        _ => return None,
    })
}

/// `<number> <unit>` in the base unit (units are case-insensitive).
fn scalar_unit(units: &[(&str, f64)], value: &Value) -> Option<f64> {
    let Value::String(s) = value else {
        return None;
    };
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic())?;
    let number: f64 = s[..split].trim().parse().ok()?;
    let unit = s[split..].trim().to_ascii_lowercase();
    let factor = units.iter().find(|(u, _)| *u == unit)?.1;
    Some(number * factor)
}

/// Compares two values of type `ty` (numbers, strings, timestamps,
/// versions, scalar units); `None` if they are not comparable.
fn compare(a: &Value, b: &Value, ty: Option<&str>) -> Option<Ordering> {
    if let Some(units) = ty.and_then(scalar_unit_kind) {
        return scalar_unit(units, a)?.partial_cmp(&scalar_unit(units, b)?);
    }
    if ty == Some("version") {
        return Some(version(a)?.cmp(&version(b)?));
    }
    let time = |v: &Value| match v {
        Value::Timestamp(t) => Some(*t),
        Value::String(s) if ty == Some("timestamp") => v4t_yaml::timestamp::parse_yaml_timestamp(s),
        _ => None,
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.partial_cmp(y),
        (Value::String(x), Value::String(y)) if ty != Some("timestamp") => Some(x.cmp(y)),
        _ => time(a)?.partial_cmp(&time(b)?),
    }
}

/// Whether `value` satisfies the constraint clause `operator: argument`;
/// `None` for clauses that cannot be decided (unknown operator, bad argument).
fn holds(operator: &str, argument: &Node, value: &Value, ty: Option<&str>) -> Option<bool> {
    let cmp = |bound: &Node| compare(value, &bound.value, ty);
    let length = || -> Option<f64> {
        Some(match value {
            Value::String(s) => s.chars().count() as f64,
            Value::Seq(items) => items.len() as f64,
            Value::Map(m) => m.len() as f64,
            _ => return None,
        })
    };
    Some(match operator {
        "equal" => cmp(argument).map_or(
            v4t_yaml::deep_equal(value, &argument.value),
            Ordering::is_eq,
        ),
        "greater_than" => cmp(argument)?.is_gt(),
        "greater_or_equal" => cmp(argument)?.is_ge(),
        "less_than" => cmp(argument)?.is_lt(),
        "less_or_equal" => cmp(argument)?.is_le(),
        "in_range" => {
            let [lo, hi] = argument.as_seq()?.as_slice() else {
                return None;
            };
            let above = cmp(lo)?.is_ge();
            let below = match hi.as_str() {
                Some("UNBOUNDED") => true,
                _ => cmp(hi)?.is_le(),
            };
            above && below
        }
        "valid_values" => argument
            .as_seq()?
            .iter()
            .any(|v| cmp(v).map_or(v4t_yaml::deep_equal(value, &v.value), Ordering::is_eq)),
        "length" => length()? == argument.as_f64()?,
        "min_length" => length()? >= argument.as_f64()?,
        "max_length" => length()? <= argument.as_f64()?,
        "pattern" => {
            let Value::String(s) = value else {
                return Some(false);
            };
            let re = regex_lite::Regex::new(&format!("^(?:{})$", argument.as_str()?)).ok()?;
            re.is_match(s)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::doc;

    fn check(definition: &str, value: &str) -> Option<String> {
        violation(&doc(definition), &doc(value).value).map(|v| v.rule)
    }

    #[test]
    fn types() {
        for (ty, good, bad) in [
            ("string", "abc", "1"),
            ("integer", "80", "abc"),
            ("integer", "-3", "1.5"),
            ("float", "1.5", "'1.5'"),
            ("boolean", "true", "'true'"),
            ("timestamp", "2024-01-01", "yesterday"),
            ("version", "'1.2.3.beta-4'", "'1'"),
            ("version", "1.2", "'1.x'"),
            ("range", "[1, UNBOUNDED]", "[3, 1]"),
            ("list", "[1]", "{a: 1}"),
            ("map", "{a: 1}", "[1]"),
            ("scalar-unit.size", "4 GiB", "4 GHz"),
            ("scalar-unit.time", "10 ms", "10"),
            ("scalar-unit.frequency", "2.4GHz", "fast"),
            ("scalar-unit.bitrate", "10 Mbps", "10 MB"),
        ] {
            let def = format!("{{type: {ty}}}");
            assert_eq!(check(&def, good), None, "{ty} {good}");
            assert_eq!(
                check(&def, bad),
                Some(format!("type \"{ty}\"")),
                "{ty} {bad}"
            );
        }
        assert_eq!(check("{type: my.DataType}", "whatever"), None);
        assert_eq!(
            check("{type: list, entry_schema: integer}", "[1, a]"),
            Some("entry_schema type \"integer\"".into())
        );
        assert_eq!(
            check(
                "{type: map, entry_schema: {type: integer, constraints: [{less_than: 5}]}}",
                "{a: 1, b: 7}"
            ),
            Some("entry_schema {\"less_than\":5}".into())
        );
    }

    #[test]
    fn constraints() {
        for (constraint, good, bad) in [
            ("{equal: 5}", "5", "6"),
            ("{greater_than: 5}", "6", "5"),
            ("{greater_or_equal: 5}", "5", "4"),
            ("{less_than: 5}", "4", "5"),
            ("{less_or_equal: 65535}", "80", "70000"),
            ("{in_range: [1, 10]}", "10", "11"),
            ("{in_range: [1, UNBOUNDED]}", "1000", "0"),
            ("{valid_values: [dev, prod]}", "dev", "test"),
            ("{length: 3}", "abc", "ab"),
            ("{min_length: 2}", "[1, 2]", "[1]"),
            ("{max_length: 2}", "ab", "abc"),
            ("{pattern: '[a-z]+'}", "abc", "abc1"),
        ] {
            let def = format!("{{constraints: [{constraint}]}}");
            assert_eq!(check(&def, good), None, "{constraint} {good}");
            assert!(check(&def, bad).is_some(), "{constraint} {bad}");
        }
        assert_eq!(
            check(
                "{type: integer, constraints: [{greater_than: 0}, {less_or_equal: 65535}]}",
                "70000"
            ),
            Some("{\"less_or_equal\":65535}".into())
        );
        // Scalar units and versions compare by meaning, not as text.
        assert_eq!(
            check(
                "{type: scalar-unit.size, constraints: [{greater_or_equal: 1 GB}]}",
                "2000 MB"
            ),
            None
        );
        assert!(check(
            "{type: scalar-unit.size, constraints: [{greater_or_equal: 1 GB}]}",
            "900 MB"
        )
        .is_some());
        assert_eq!(
            check(
                "{type: version, constraints: [{greater_than: '1.9'}]}",
                "'1.10'"
            ),
            None
        );
    }
}
