//! Data comparison of resolved and expected documents, with readable diffs.
//!
//! Equality follows [`v4t_yaml::deep_equal`] (the reference test harness's
//! chai deep equal): map key order is ignored, list order matters, types must
//! match and numbers compare numerically. When documents differ, [`diff`]
//! explains where, one line per difference with a dotted path, so a failing
//! conformance test can be understood without a diff tool.

use v4t_yaml::number::format_js;
use v4t_yaml::{deep_equal, Value};

/// Longest rendering of a value inside a diff line.
const MAX_VALUE_LEN: usize = 80;

/// The differences between `expected` and `actual`, at most `limit` lines
/// (plus one line saying how many were left out). Empty iff the values are
/// deep-equal.
pub fn diff(expected: &Value, actual: &Value, limit: usize) -> Vec<String> {
    let mut lines = Vec::new();
    walk(&mut Vec::new(), expected, actual, &mut lines);
    if lines.len() > limit {
        let more = lines.len() - limit;
        lines.truncate(limit);
        lines.push(format!(
            "... and {more} more difference{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    lines
}

fn walk(path: &mut Vec<String>, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Map(e), Value::Map(a)) => {
            for (key, ev) in e.iter() {
                match a.get(&key.name) {
                    Some(av) => {
                        path.push(segment(&key.name, path.is_empty()));
                        walk(path, &ev.value, &av.value, out);
                        path.pop();
                    }
                    None => out.push(format!(
                        "{}: missing key {} (expected {})",
                        show_path(path),
                        quote(&key.name),
                        render(&ev.value)
                    )),
                }
            }
            for (key, av) in a.iter() {
                if !e.contains_key(&key.name) {
                    out.push(format!(
                        "{}: unexpected key {} (got {})",
                        show_path(path),
                        quote(&key.name),
                        render(&av.value)
                    ));
                }
            }
        }
        (Value::Seq(e), Value::Seq(a)) => {
            if e.len() != a.len() {
                out.push(format!(
                    "{}: expected {} item{}, got {}",
                    show_path(path),
                    e.len(),
                    if e.len() == 1 { "" } else { "s" },
                    a.len()
                ));
            }
            for (i, (ev, av)) in e.iter().zip(a.iter()).enumerate() {
                path.push(format!("[{i}]"));
                walk(path, &ev.value, &av.value, out);
                path.pop();
            }
            if e.len() > a.len() {
                for (i, ev) in e.iter().enumerate().skip(a.len()) {
                    path.push(format!("[{i}]"));
                    out.push(format!(
                        "{}: missing item {}",
                        show_path(path),
                        render(&ev.value)
                    ));
                    path.pop();
                }
            } else {
                for (i, av) in a.iter().enumerate().skip(e.len()) {
                    path.push(format!("[{i}]"));
                    out.push(format!(
                        "{}: unexpected item {}",
                        show_path(path),
                        render(&av.value)
                    ));
                    path.pop();
                }
            }
        }
        _ => {
            if !deep_equal(expected, actual) {
                out.push(format!(
                    "{}: expected {}, got {}",
                    show_path(path),
                    render(expected),
                    render(actual)
                ));
            }
        }
    }
}

/// One path segment: `.key`, or `["odd key"]` for keys that would not read
/// well in a dotted path.
fn segment(key: &str, first: bool) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'));
    match (plain, first) {
        (true, true) => key.to_string(),
        (true, false) => format!(".{key}"),
        (false, _) => format!("[{}]", quote(key)),
    }
}

fn show_path(path: &[String]) -> String {
    if path.is_empty() {
        "(document)".to_string()
    } else {
        path.concat()
    }
}

/// A string as a JSON string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    v4t_yaml::json::write_json_string(&mut out, s);
    out
}

/// A compact, JSON-like rendering of a value, cut at [`MAX_VALUE_LEN`] characters.
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    render_into(value, &mut out);
    if out.chars().count() > MAX_VALUE_LEN {
        let cut: String = out.chars().take(MAX_VALUE_LEN - 3).collect();
        format!("{cut}...")
    } else {
        out
    }
}

fn render_into(value: &Value, out: &mut String) {
    // Stop early on huge values; the result is cut anyway.
    if out.len() > MAX_VALUE_LEN * 4 {
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&format_js(*n)),
        Value::String(s) => out.push_str(&quote(s)),
        Value::Timestamp(t) => out.push_str(&format!("timestamp({})", format_js(*t))),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_into(&item.value, out);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&quote(&key.name));
                out.push_str(": ");
                render_into(&item.value, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{Map, Node};

    fn equal(expected: &Node, actual: &Node) -> bool {
        deep_equal(&expected.value, &actual.value)
    }

    fn map(entries: &[(&str, Node)]) -> Node {
        let mut m = Map::new();
        for (k, v) in entries {
            m.insert(*k, v.clone());
        }
        Node::map(m)
    }

    #[test]
    fn equal_maps_in_different_key_order() {
        let a = map(&[("a", Node::number(1.0)), ("b", Node::string("x"))]);
        let b = map(&[("b", Node::string("x")), ("a", Node::number(1.0))]);
        assert!(equal(&a, &b));
        assert!(diff(&a.value, &b.value, 20).is_empty());
    }

    #[test]
    fn list_order_matters() {
        let a = Node::seq(vec![Node::number(1.0), Node::number(2.0)]);
        let b = Node::seq(vec![Node::number(2.0), Node::number(1.0)]);
        assert!(!equal(&a, &b));
        assert_eq!(
            diff(&a.value, &b.value, 20),
            ["[0]: expected 1, got 2", "[1]: expected 2, got 1"]
        );
    }

    #[test]
    fn types_must_match_but_numbers_compare_numerically() {
        let one = map(&[("port", Node::number(1.0))]);
        let text = map(&[("port", Node::string("1"))]);
        assert_eq!(
            diff(&one.value, &text.value, 20),
            [r#"port: expected 1, got "1""#]
        );
        let four = Node::number(4.0);
        let four_float = Node::number(4.0 + 0.0);
        assert!(equal(&four, &four_float));
    }

    #[test]
    fn nested_diff_paths() {
        let expected = map(&[(
            "topology_template",
            map(&[(
                "node_templates",
                map(&[
                    ("web", map(&[("type", Node::string("a"))])),
                    ("x", Node::null()),
                ]),
            )]),
        )]);
        let actual = map(&[(
            "topology_template",
            map(&[(
                "node_templates",
                map(&[
                    ("web", map(&[("type", Node::string("b"))])),
                    ("y", Node::null()),
                    ("db.1", map(&[("l", Node::seq(vec![Node::bool(true)]))])),
                ]),
            )]),
        )]);
        assert_eq!(
            diff(&expected.value, &actual.value, 20),
            [
                r#"topology_template.node_templates.web.type: expected "a", got "b""#,
                r#"topology_template.node_templates: missing key "x" (expected null)"#,
                r#"topology_template.node_templates: unexpected key "y" (got null)"#,
                r#"topology_template.node_templates: unexpected key "db.1" (got {"l": [true]})"#,
            ]
        );
    }

    #[test]
    fn list_length_differences_and_limit() {
        let e = Node::seq((0..30).map(|i| Node::number(i as f64)).collect());
        let a = Node::seq(vec![Node::string("x")]);
        let lines = diff(&e.value, &a.value, 5);
        assert_eq!(lines[0], "(document): expected 30 items, got 1");
        assert_eq!(lines[1], r#"[0]: expected 0, got "x""#);
        assert_eq!(lines[2], "[1]: missing item 1");
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[5], "... and 26 more differences");
    }
}
