//! Times `parse` (fast path and saphyr path), reading into a `Doc`, and
//! `emit` on a YAML file.
//!
//! Usage: `cargo run -p v4t-yaml --release --example parse_bench FILE.yaml`;
//! generate a large template with `v4t-bench generate --family 1 --size 10000
//! --out DIR`.

use std::time::Instant;

use v4t_yaml::{deep_equal, emit, parse, SourceId};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        out = Some(r);
    }
    match out {
        Some(r) => (best, r),
        None => panic!("no runs"),
    }
}

fn main() {
    let Some(arg) = std::env::args().nth(1) else {
        eprintln!("usage: parse_bench FILE.yaml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&arg).unwrap_or_else(|e| panic!("{arg}: {e}"));
    let mb = text.len() as f64 / 1e6;
    let (t_cold, cold) = best(1, || parse(&text, SourceId(0)));
    println!("first parse (cold process): {t_cold:.1} ms");
    drop(cold);
    let (t_parse, node) = best(5, || parse(&text, SourceId(0)));
    let node = node.unwrap_or_else(|e| panic!("parse failed: {e}"));
    println!("input {mb:.2} MB: parse {t_parse:.1} ms");
    if std::env::var_os("PARSE_ONLY").is_some() {
        let (t, _) = best(30, || parse(&text, SourceId(0)));
        println!("parse again: {t:.1} ms");
        return;
    }
    let (t_doc, doc) = best(5, || {
        v4t_yaml::parse_doc_reporting_duplicates(&text, SourceId(0), v4t_yaml::Schema::JsYaml)
    });
    let doc = doc
        .unwrap_or_else(|e| panic!("document parse failed: {e}"))
        .0;
    println!(
        "into a Doc: {t_doc:.1} ms; equal: {}",
        deep_equal(&node.value, &doc.root().to_node().value)
    );
    let (t_slow, slow) = best(2, || v4t_yaml::parse::parse_saphyr(&text, SourceId(0)));
    let slow = slow.unwrap_or_else(|e| panic!("saphyr parse failed: {e}"));
    println!(
        "saphyr path: {t_slow:.1} ms; equal: {}",
        deep_equal(&node.value, &slow.value)
    );
    let (t_emit, out) = best(5, || emit(&node));
    println!("emit {:.2} MB: {t_emit:.1} ms", out.len() as f64 / 1e6);
}
