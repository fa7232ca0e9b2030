//! Prints how [`v4t_yaml::parse`] reads each document of a file, one line
//! per document, in the canonical form `scripts/js-yaml-differential.py`
//! compares with js-yaml's reading: maps as `{"#map": [[key, value], ...]}`
//! in their order, numbers and timestamps as the bits of their `f64`
//! (`"#n:..."`, `"#d:..."`, so that `-0` and `NaN` compare exactly), a
//! failed read as `"#error"`.
//!
//! Usage: `cargo run -p v4t-yaml --release --example canonical_json FILE`,
//! where FILE holds the documents separated by NUL bytes.

use v4t_yaml::json::write_json_string;
use v4t_yaml::{parse, Node, SourceId, Value};

fn bits(out: &mut String, tag: &str, x: f64) {
    out.push_str(&format!("\"#{tag}:{:016x}\"", x.to_bits()));
}

fn canonical(out: &mut String, node: &Node) {
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(x) => bits(out, "n", *x),
        Value::Timestamp(x) => bits(out, "d", *x),
        Value::String(s) => write_json_string(out, s),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(out, item);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push_str("{\"#map\":[");
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                write_json_string(out, &key.name);
                out.push(',');
                canonical(out, value);
                out.push(']');
            }
            out.push_str("]}");
        }
    }
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: canonical_json FILE (documents separated by NUL bytes)");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let mut out = String::new();
    for document in text.split('\0') {
        match parse(document, SourceId(0)) {
            Ok(node) => canonical(&mut out, &node),
            Err(_) => out.push_str("\"#error\""),
        }
        out.push('\n');
    }
    print!("{out}");
}
