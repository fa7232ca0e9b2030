//! [`Node`] tree to YAML text, deterministically and safely for every reader.
//!
//! The layout follows js-yaml's `dump` (block style, two-space indentation,
//! sequences indented under their key, maps inside sequences starting on the
//! dash line, `{}`/`[]` for empty collections, keys in map order). Strings are
//! written plain only when neither a YAML 1.2 reader (js-yaml) nor a YAML 1.1
//! reader (PyYAML-based orchestrators) could take them for anything else:
//! everything that looks like a null, boolean (`yes`, `on`, `y` ...), number
//! (`0x1F`, `017`, `1:20`, `.5` ...) or date is quoted.

use std::fmt::Write as _;

use crate::number::format_js;
use crate::timestamp::format_iso;
use crate::value::{Map, Node, Value};

/// How scalars are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Like js-yaml's `dump` (the reference implementation's output): one
    /// number type, so `1.0` is written `1`.
    #[default]
    JsYaml,
    /// Values keep the type they were written with (TOSCA 2.0 output, read
    /// with [`crate::parse::Schema::Core`]): a number read as a float
    /// ([`crate::value::Form::is_float`]) keeps a fractional part (`1.0`
    /// stays `1.0`, not `1`); strings, dates among them, stay strings.
    AsWritten,
}

/// Implicit keys longer than this are written as explicit `? key` entries
/// (YAML limits implicit keys to 1024 characters).
const MAX_IMPLICIT_KEY: usize = 1000;

/// Writes `node` as a YAML document (ending with a newline).
pub fn emit(node: &Node) -> String {
    emit_with(node, Style::JsYaml)
}

/// [`emit`] with the scalar style `style`.
pub fn emit_with(node: &Node, style: Style) -> String {
    let mut out = String::with_capacity(1 << 16);
    match &node.value {
        Value::Seq(items) if !items.is_empty() => write_seq(&mut out, items, 0, false, style),
        Value::Map(map) if !map.is_empty() => write_map(&mut out, map, 0, false, style),
        _ => {
            write_scalar(&mut out, node, 2, style);
            out.push('\n');
        }
    }
    out
}

fn push_indent(out: &mut String, indent: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = indent;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.push_str(SPACES.get(..n).unwrap_or_default());
        left -= n;
    }
}

/// A block sequence at `indent`; with `inline` the first dash is already positioned.
fn write_seq(out: &mut String, items: &[Node], indent: usize, inline: bool, style: Style) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline {
            push_indent(out, indent);
        }
        out.push('-');
        match &item.value {
            Value::Seq(inner) if !inner.is_empty() => {
                out.push(' ');
                write_seq(out, inner, indent + 2, true, style);
            }
            Value::Map(map) if !map.is_empty() => {
                out.push(' ');
                write_map(out, map, indent + 2, true, style);
            }
            _ => {
                out.push(' ');
                write_scalar(out, item, indent + 2, style);
                out.push('\n');
            }
        }
    }
}

/// A block mapping at `indent`; with `inline` the first key is already positioned.
fn write_map(out: &mut String, map: &Map, indent: usize, inline: bool, style: Style) {
    for (i, (key, item)) in map.iter().enumerate() {
        if i > 0 || !inline {
            push_indent(out, indent);
        }
        if let Some(complex) = key.tree() {
            write_complex_key(out, complex, indent, style);
        } else if key.name.len().saturating_mul(6).saturating_add(2) <= MAX_IMPLICIT_KEY {
            // A quoted key is at most six characters per character plus quotes.
            write_quoted(out, &key.name, false);
        } else {
            let key_text = quote_scalar(&key.name);
            if key_text.chars().count() > MAX_IMPLICIT_KEY {
                out.push_str("? ");
                out.push_str(&key_text);
                out.push('\n');
                push_indent(out, indent);
            } else {
                out.push_str(&key_text);
            }
        }
        out.push(':');
        match &item.value {
            Value::Seq(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, indent + 2, false, style);
            }
            Value::Map(inner) if !inner.is_empty() => {
                out.push('\n');
                write_map(out, inner, indent + 2, false, style);
            }
            _ => {
                out.push(' ');
                write_scalar(out, item, indent + 2, style);
                out.push('\n');
            }
        }
    }
}

/// A complex key (a collection) in flow style: implicit (`[a, b]: ...`)
/// when short enough, explicit (`? [a, b]` and `:` on the next line)
/// otherwise.
fn write_complex_key(out: &mut String, key: &Node, indent: usize, style: Style) {
    let text = flow_text(key, style);
    if text.chars().count() > MAX_IMPLICIT_KEY {
        out.push_str("? ");
        out.push_str(&text);
        out.push('\n');
        push_indent(out, indent);
    } else {
        out.push_str(&text);
    }
}

/// `node` as a flow node on one line (`[a, {b: 1}]`): how complex keys are
/// written, and their name under [`crate::parse::Schema::Core`].
pub fn flow_text(node: &Node, style: Style) -> String {
    let mut out = String::new();
    write_flow(&mut out, node, style);
    out
}

fn write_flow(out: &mut String, node: &Node, style: Style) {
    match &node.value {
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow(out, item, style);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match key.tree() {
                    Some(complex) => write_flow(out, complex, style),
                    None => write_quoted(out, &key.name, true),
                }
                out.push_str(": ");
                write_flow(out, item, style);
            }
            out.push('}');
        }
        Value::String(s) => write_quoted(out, s, true),
        // Numbers, booleans, null, timestamps: one line, no indicators.
        _ => write_scalar(out, node, 0, style),
    }
}

/// A scalar or empty collection, without the final newline. Block scalars
/// put their content lines at `content_indent`.
fn write_scalar(out: &mut String, node: &Node, content_indent: usize, style: Style) {
    match &node.value {
        // js-yaml's dump writes `null` (both YAML versions read it as null).
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 1e15 && !(*n == 0.0 && n.is_sign_negative()) {
                // Integers: what `format_js` writes, without allocating.
                let _ = write!(out, "{}", *n as i64);
                if style == Style::AsWritten && node.form.is_float() {
                    out.push_str(".0");
                }
            } else {
                out.push_str(&format_number(*n));
            }
        }
        Value::Timestamp(t) => {
            if t.is_finite() {
                out.push_str(&format_iso(*t));
            } else {
                out.push_str("null");
            }
        }
        Value::String(s) => write_string(out, s, content_indent),
        Value::Seq(_) => out.push_str("[]"),
        Value::Map(_) => out.push_str("{}"),
    }
}

/// A number both YAML 1.2 and YAML 1.1 read back as the same float.
fn format_number(n: f64) -> String {
    if n.is_nan() {
        return ".nan".to_string();
    }
    if n.is_infinite() {
        return if n > 0.0 { ".inf" } else { "-.inf" }.to_string();
    }
    if n == 0.0 && n.is_sign_negative() {
        return "-0.0".to_string();
    }
    let s = format_js(n);
    // YAML 1.1 floats need a `.` in the mantissa (`1e+21` would be a string).
    match s.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => s,
    }
}

fn write_string(out: &mut String, s: &str, content_indent: usize) {
    if s.contains('\n') && !s.chars().any(needs_escape) && literal_ok(s) {
        write_literal(out, s, content_indent);
    } else {
        write_quoted(out, s, false);
    }
}

/// Whether a multi-line string can be written as a literal block scalar
/// without an indentation indicator and without whitespace-only lines.
fn literal_ok(s: &str) -> bool {
    !s.starts_with(' ')
        && !s.starts_with('\n')
        && s.split('\n')
            .all(|line| line.is_empty() || !line.chars().all(|c| c == ' '))
}

fn write_literal(out: &mut String, s: &str, content_indent: usize) {
    let body = s.strip_suffix('\n');
    let (header, body) = match body {
        None => ("|-", s),
        Some(b) if b.ends_with('\n') => ("|+", b),
        Some(b) => ("|", b),
    };
    out.push_str(header);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            push_indent(out, content_indent);
            out.push_str(line);
        }
    }
}

/// Characters that can only be written escaped in a double-quoted scalar
/// (control characters, YAML 1.1 line breaks, non-printables, BOM).
fn needs_escape(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{9}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// A single-line representation of a string scalar (used for keys and values).
pub fn quote_scalar(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_quoted(&mut out, s, false);
    out
}

/// Appends [`quote_scalar`]`(s)` to `out`; inside a flow collection
/// (`flow`), also quotes strings with flow indicators, `:` or `#`.
fn write_quoted(out: &mut String, s: &str, flow: bool) {
    let special = if s.is_ascii() {
        // Branch-free, so that the compiler vectorises it.
        s.bytes()
            .fold(false, |any, b| any | (b < 0x20) | (b == 0x7f))
    } else {
        s.chars().any(|c| needs_escape(c) || c == '\n')
    };
    let flow_unsafe = || flow && s.bytes().any(|b| b",[]{}:#".contains(&b));
    if special {
        out.push_str(&double_quoted(s));
    } else if plain_ok(s) && !flow_unsafe() {
        out.push_str(s);
    } else {
        out.push('\'');
        for (i, part) in s.split('\'').enumerate() {
            if i > 0 {
                out.push_str("''");
            }
            out.push_str(part);
        }
        out.push('\'');
    }
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{a0}' => out.push_str("\\_"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if (c as u32) < 0x100 && needs_escape(c) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `s` can be written as a plain scalar that YAML 1.2 and YAML 1.1
/// readers both read back as exactly this string.
fn plain_ok(s: &str) -> bool {
    let (Some(first), Some(last)) = (s.chars().next(), s.chars().last()) else {
        return false; // empty
    };
    // Indicators, and starts of numbers, dates and `.inf`/`.nan`/`...`.
    if "-?:,[]{}#&*!|>'\"%@`~=+.".contains(first) || first.is_ascii_digit() {
        return false;
    }
    if first == ' ' || last == ' ' || last == ':' {
        return false;
    }
    // `: `, ` #`, tabs and carriage returns (all ASCII, so none occurs inside
    // a multi-byte character). Few scalars have any of these bytes: a
    // branch-free pass that the compiler vectorises rules most out.
    let bytes = s.as_bytes();
    if bytes.iter().fold(false, |any, &b| {
        any | matches!(b, b'\t' | b'\r' | b':' | b'#')
    }) {
        let mut prev = 0;
        for &b in bytes {
            if b == b'\t'
                || b == b'\r'
                || (prev == b':' && b == b' ')
                || (prev == b' ' && b == b'#')
            {
                return false;
            }
            prev = b;
        }
    }
    if s == "<<" {
        return false;
    }
    s.len() > 5
        || !["y", "n", "yes", "no", "true", "false", "on", "off", "null"]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deep_equal;
    use crate::parse::parse;
    use crate::value::SourceId;

    fn p(text: &str) -> Node {
        match parse(text, SourceId(0)) {
            Ok(n) => n,
            Err(e) => panic!("unexpected error {e} for {text:?}"),
        }
    }

    const RISKY: &[&str] = &[
        "",
        " ",
        "  lead",
        "trail ",
        "null",
        "Null",
        "NULL",
        "~",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "y",
        "Y",
        "n",
        "N",
        "yEs",
        "1",
        "-1",
        "+1",
        "1.0",
        "1_000",
        "0x1F",
        "0o17",
        "017",
        "0b11",
        "1:20",
        "-1:20",
        "190:20:30",
        ".5",
        "-.5",
        "+.5",
        "1e3",
        "1E3",
        "1.5e-3",
        ".inf",
        "-.inf",
        "+.inf",
        ".Inf",
        ".nan",
        ".NaN",
        ".",
        "...",
        "---",
        "2023-01-01",
        "2023-1-1",
        "2023-01-01T10:00:00Z",
        "2001-12-14 21:59:43.10 -5",
        "- item",
        "-",
        "?",
        "? q",
        ":",
        ":x",
        "a:",
        "a: b",
        "a #b",
        "#c",
        "&a",
        "*a",
        "!tag",
        "|",
        ">",
        "'",
        "''",
        "\"",
        "%x",
        "@x",
        "`x",
        "[a]",
        "]",
        "{a}",
        "}",
        ",",
        "a,b",
        "<<",
        "=",
        "a\tb",
        "\ttab",
        "line1\nline2",
        "line1\nline2\n",
        "a\n\n",
        "\n",
        "\nx",
        " x\ny",
        "a\n  b\n",
        "a\r\nb",
        "a\u{85}b",
        "a\u{2028}b",
        "bell\u{7}",
        "nul\u{0}",
        "\u{feff}bom",
        "del\u{7f}",
        "é",
        "naïve café",
        "x: y: z",
        "it's",
        "say \"hi\"",
        "back\\slash",
        "a'b\"c",
        "NaN",
        "Infinity",
        "0",
        "-0",
        "00",
        "0.",
        "1__2",
        "http://example.com/a#b",
        "a:b",
        "k: |",
        "x\n  - y\n",
        "trailing\n ",
        "sp \n x",
    ];

    #[test]
    fn plain_scalars_avoid_comment_and_mapping_indicators() {
        for ok in ["a:b", "a#b", "ab:", "é:x", "x é#", "a- b"] {
            assert_eq!(plain_ok(ok), !ok.ends_with(':'), "{ok}");
        }
        for not_ok in ["a: b", "a #b", "é: x", "x é #", "a\tb", "a\rb", "ab: "] {
            assert!(!plain_ok(not_ok), "{not_ok}");
        }
    }

    #[test]
    fn risky_strings_round_trip_as_values_and_keys() {
        for s in RISKY {
            let mut map = Map::new();
            map.insert(*s, Node::string(*s));
            let node = Node::seq(vec![Node::string(*s), Node::map(map.clone())]);
            let text = emit(&node);
            let back = p(&text);
            assert!(
                deep_equal(&back.value, &node.value),
                "{s:?} emitted as {text:?} read back as {back:?}"
            );
            let top = emit(&Node::string(*s));
            assert!(
                deep_equal(&p(&top).value, &Value::String(s.to_string())),
                "{s:?} at top level emitted as {top:?}"
            );
        }
    }

    #[test]
    fn yaml_1_1_lookalikes_are_quoted() {
        for s in [
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "Y",
            "N",
            "YES",
            "Off",
            "017",
            "1:20",
            "0o17",
            "1_000",
            ".5",
            "2023-01-01",
            "=",
            "<<",
            "~",
            "null",
            "",
        ] {
            let q = quote_scalar(s);
            assert!(q.starts_with('\''), "{s:?} written as {q}");
        }
        assert_eq!(quote_scalar("it's"), "it's");
        assert_eq!(quote_scalar("'x'"), "'''x'''");
        assert_eq!(quote_scalar("a\tb"), "\"a\\tb\"");
        assert_eq!(quote_scalar("a\nb"), "\"a\\nb\"");
        assert_eq!(quote_scalar("nul\u{0}\u{85}"), "\"nul\\0\\N\"");
        assert_eq!(quote_scalar("hello world"), "hello world");
        assert_eq!(quote_scalar("naïve"), "naïve");
    }

    #[test]
    fn layout_follows_js_yaml_dump() {
        let doc = p(concat!(
            "name: x\n",
            "list:\n  - a\n  - b: 1\n    c: [1, 2]\n  - []\n  - {}\n  - - n1\n    - n2\n",
            "empty_map: {}\n",
            "empty_list: []\n",
            "nothing:\n",
            "nested:\n  deeper:\n    deepest: true\n",
            "num: 1e21\n",
            "small: 1.5e-7\n",
            "neg: -0.0\n",
            "inf: -.inf\n",
            "nan: .nan\n",
            "date: 2023-01-01\n",
            "text: \"line1\\nline2\\n\"\n",
            "keep: \"a\\n\\n\"\n",
            "strip: \"a\\nb\"\n",
        ));
        let expected = concat!(
            "name: x\n",
            "list:\n  - a\n  - b: 1\n    c:\n      - 1\n      - 2\n  - []\n  - {}\n  - - n1\n    - n2\n",
            "empty_map: {}\n",
            "empty_list: []\n",
            "nothing: null\n",
            "nested:\n  deeper:\n    deepest: true\n",
            "num: 1.0e+21\n",
            "small: 1.5e-7\n",
            "neg: -0.0\n",
            "inf: -.inf\n",
            "nan: .nan\n",
            "date: 2023-01-01T00:00:00.000Z\n",
            "text: |\n  line1\n  line2\n",
            "keep: |+\n  a\n\n",
            "strip: |-\n  a\n  b\n",
        );
        let text = emit(&doc);
        assert_eq!(text, expected);
        assert_eq!(emit(&Node::null()), "null\n");
        assert_eq!(emit(&Node::seq(vec![])), "[]\n");
        assert_eq!(emit(&Node::map(Map::new())), "{}\n");
        assert_eq!(emit(&Node::number(3.0)), "3\n");
        assert_eq!(emit(&Node::string("a\nb")), "|-\n  a\n  b\n");
    }

    #[test]
    fn rich_documents_round_trip() {
        let text = concat!(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n",
            "metadata:\n  template_name: 'yes'\n  version: '1.0'\n  date: 2023-01-01\n",
            "topology_template:\n",
            "  inputs:\n    region: {type: string, default: \"eu-west\\tx\"}\n",
            "  node_templates:\n",
            "    server: &srv\n",
            "      type: tosca.nodes.Compute\n",
            "      conditions: [{has_presence: [node, true]}, {not: ~}]\n",
            "      properties:\n        ports: [80, 443, 0x1F, 1.5, -2e-9, .inf, .nan]\n",
            "        script: |\n          #!/bin/sh\n          echo \"hi\" # x\n\n          exit 0\n",
            "        folded: >\n          a\n          b\n",
            "        odd keys: {'1': one, 'null': n, 'a: b': c, '': empty, yes: no}\n",
            "    copy:\n      <<: *srv\n      type: other\n",
            "    list_of_lists: [[1, [2, []]], {}, '', ' ', null]\n",
            "    when: 2001-12-14t21:59:43.10-05:00\n",
            "    unicode: \"é\\u2028\\x85 ☃\"\n",
        );
        let first = p(text);
        let emitted = emit(&first);
        let second = p(&emitted);
        assert!(
            deep_equal(&first.value, &second.value),
            "round trip changed the document:\n{emitted}"
        );
        // Deterministic, and stable after one round trip.
        assert_eq!(emit(&first), emitted);
        assert_eq!(emit(&second), emitted);
    }

    #[test]
    fn numbers_read_back_identically() {
        for n in [
            0.0,
            1.0,
            -7.0,
            0.1,
            1e21,
            1e-7,
            1.5e300,
            123456789012345680000.0,
            2.5,
            1e100,
            -1e-300,
            5e-324,
        ] {
            let text = emit(&Node::number(n));
            assert_eq!(p(&text).as_f64(), Some(n), "{n:e} emitted as {text:?}");
        }
    }

    #[test]
    fn as_written_keeps_the_types_values_were_written_with() {
        use crate::parse::{parse_with, Schema};
        let text = "i: 1\nf: 1.0\ng: 2.50\ne: 1e3\nt: !!float 7\nd: 2024-01-02\n\
                    s: '1.0'\nl: [1, 1.0, -0.0]\n";
        let doc = parse_with(text, SourceId(0), Schema::Core).unwrap_or_else(|e| panic!("{e}"));
        let out = emit_with(&doc, Style::AsWritten);
        assert_eq!(
            out,
            "i: 1\nf: 1.0\ng: 2.5\ne: 1000.0\nt: 7.0\nd: '2024-01-02'\ns: '1.0'\nl:\n  - 1\n  - 1.0\n  - -0.0\n"
        );
        // Read back with the same schema: the same values and number kinds.
        let back = parse_with(&out, SourceId(0), Schema::Core).unwrap_or_else(|e| panic!("{e}"));
        assert!(deep_equal(&back.value, &doc.value));
        for key in ["i", "f", "g", "e", "t"] {
            let (a, b) = (doc.get(key), back.get(key));
            assert_eq!(
                a.map(|n| n.form.is_float()),
                b.map(|n| n.form.is_float()),
                "{key}"
            );
        }
        // The reference's style writes one number type.
        assert_eq!(emit(&doc).lines().nth(1), Some("f: 1"));
    }

    #[test]
    fn long_keys_use_explicit_entries() {
        let key = "k".repeat(2000);
        let mut m = Map::new();
        m.insert(key.clone(), Node::seq(vec![Node::number(1.0)]));
        m.insert("b", Node::string("x"));
        let node = Node::map(m);
        let text = emit(&node);
        assert!(text.starts_with("? kkk"));
        assert!(deep_equal(&p(&text).value, &node.value));
    }

    /// Names and trees of the keys of every map in `node`, depth first.
    fn keys_of(node: &Node, style: Style, out: &mut Vec<(String, Option<String>)>) {
        match &node.value {
            Value::Seq(items) => items.iter().for_each(|n| keys_of(n, style, out)),
            Value::Map(map) => {
                for (k, v) in map.iter() {
                    let tree = k.tree().map(|c| flow_text(c, style));
                    out.push((k.name.to_string(), tree));
                    keys_of(v, style, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn complex_keys_are_written_back_as_collections() {
        use crate::parse::{parse_with, Schema};
        let text = "requirements:\n- [ service, 2 ]: [ software, service ]\n\
                    - ? {$keygen: [UUID], 'a, b': [x: 1, '#']}\n  : 34\n\
                    - ? [\"multi\\nline\", '', null, 1.0, {}]\n  : {[nested]: key}\n";
        for (schema, style) in [
            (Schema::JsYaml, Style::JsYaml),
            (Schema::Core, Style::AsWritten),
        ] {
            let doc = parse_with(text, SourceId(0), schema).unwrap_or_else(|e| panic!("{e}"));
            let out = emit_with(&doc, style);
            let back =
                parse_with(&out, SourceId(0), schema).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert!(deep_equal(&back.value, &doc.value), "{out}");
            let (mut before, mut after) = (Vec::new(), Vec::new());
            keys_of(&doc, style, &mut before);
            keys_of(&back, style, &mut after);
            assert_eq!(before, after, "{out}");
            assert!(before.iter().filter(|(_, tree)| tree.is_some()).count() >= 4);
        }
        let doc = parse_with(text, SourceId(0), Schema::Core).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            emit_with(&doc, Style::AsWritten),
            "requirements:\n  - [service, 2]:\n      - software\n      - service\n  \
             - {$keygen: [UUID], 'a, b': [{x: 1}, '#']}: 34\n  \
             - [\"multi\\nline\", '', null, 1.0, {}]:\n      [nested]: key\n"
        );
        // Too long for an implicit key: an explicit one.
        let long = format!("? [{}]\n: x\n", "k".repeat(1200));
        let doc = p(&long);
        let out = emit(&doc);
        assert!(
            out.starts_with("? [kkk") && out.contains("\n: x\n"),
            "{out}"
        );
        assert!(deep_equal(&p(&out).value, &doc.value));
    }
}
