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

/// [`classify`], telling integers from floats by how the number was written
/// (`1.0` is a float) when the source text is at hand.
///
/// The YAML tree keeps one number type; until it keeps the written form,
/// the plain scalar at the node's position is read again here.
pub fn classify_written<'a>(node: &'a Node, src: Option<Src<'_>>) -> Scalar<'a> {
    let c = classify(node);
    if let (Scalar::Int(i), Some(raw)) = (c, src.and_then(|t| plain_token(t, node))) {
        let lower = raw.to_ascii_lowercase();
        let hex_or_octal = lower.starts_with("0x")
            || lower.starts_with("0o")
            || lower.starts_with("-0x")
            || lower.starts_with("+0x");
        if !hex_or_octal && (lower.contains('.') || lower.contains('e')) {
            return Scalar::Float(i as f64);
        }
    }
    c
}

/// Whether a boolean was written `true` or `false` (TOSCA 2.0 accepts no
/// other spelling, §9.1.1.4). `None` if the source is not at hand.
pub fn bool_written_lowercase(node: &Node, src: Option<Src<'_>>) -> Option<bool> {
    let raw = plain_token(src?, node)?;
    Some(raw == "true" || raw == "false")
}

/// Whether a map key was written as a string: quoted, or a plain scalar
/// that YAML reads as a string (`99:` and `1.0:` are numbers).
pub fn key_written_as_string(key: &v4t_yaml::Key, src: Option<Src<'_>>) -> bool {
    let Some(line) = src.and_then(|t| line_from(t, key.span)) else {
        return true;
    };
    if line.starts_with(['"', '\'', '?', '[', '{', '!', '&', '*']) {
        return true;
    }
    let end = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(str::len))
        .unwrap_or(line.len());
    let token = line[..end].trim_end();
    matches!(v4t_yaml::parse::resolve_plain(token), Value::String(_))
}

/// A source text with the offsets of its lines, to read back how a value
/// was written.
#[derive(Clone, Copy, Debug)]
pub struct Src<'t> {
    pub text: &'t str,
    /// Byte offset of each line's start.
    pub lines: &'t [u32],
}

/// The byte offsets of the starts of the lines of `text`.
pub fn line_starts(text: &str) -> Vec<u32> {
    let mut out = vec![0u32];
    out.extend(
        text.bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i as u32 + 1),
    );
    out
}

/// The rest of the source line from where `span` starts.
fn line_from<'t>(src: Src<'t>, span: v4t_yaml::Span) -> Option<&'t str> {
    if !span.is_known() {
        return None;
    }
    let i = span.line as usize - 1;
    let start = *src.lines.get(i)? as usize;
    let end = src.lines.get(i + 1).map_or(src.text.len(), |&e| e as usize);
    let line = src.text.get(start..end)?.trim_end_matches(['\n', '\r']);
    let start = line
        .char_indices()
        .nth(span.col as usize - 1)
        .map(|(i, _)| i)?;
    Some(&line[start..])
}

/// The characters of a plain (unquoted) number or word at the node's
/// position, `None` for quoted, block or tagged scalars.
fn plain_token<'t>(src: Src<'t>, node: &Node) -> Option<&'t str> {
    let rest = line_from(src, node.span)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
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
    fn written_forms_tell_floats_booleans_and_keys_apart() {
        let text = "a: 1.0\nb: 1\nc: False\nd: 0x1F\n99: x\n'7': y\n";
        let lines = line_starts(text);
        let text = Src {
            text,
            lines: &lines,
        };
        let doc = v4t_yaml::parse(text.text, v4t_yaml::SourceId(0)).unwrap();
        let get = |k: &str| doc.get(k).unwrap();
        assert!(matches!(
            classify_written(get("a"), Some(text)),
            Scalar::Float(_)
        ));
        assert!(matches!(
            classify_written(get("b"), Some(text)),
            Scalar::Int(1)
        ));
        assert!(matches!(
            classify_written(get("d"), Some(text)),
            Scalar::Int(31)
        ));
        assert_eq!(bool_written_lowercase(get("c"), Some(text)), Some(false));
        let keys: Vec<_> = doc
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| key_written_as_string(k, Some(text)))
            .collect();
        assert_eq!(keys, [true, true, true, true, false, true]);
    }

    #[test]
    fn classify_distinguishes_the_yaml_kinds() {
        let doc = v4t_yaml::parse(
            "[1, 1.5, '1', true, null, [], {}, 2001-01-01]",
            v4t_yaml::SourceId(0),
        )
        .unwrap();
        let kinds: Vec<_> = doc.as_seq().unwrap().iter().map(describe).collect();
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
