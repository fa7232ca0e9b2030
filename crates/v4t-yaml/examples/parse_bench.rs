//! Times `parse` and `emit` on a large generated TOSCA-like template.
//!
//! Usage: `cargo run -p v4t-yaml --release --example parse_bench [n | file.yaml]`.

use std::time::Instant;

use v4t_yaml::{deep_equal, emit, parse, SourceId};

/// The benchmark template with `n` components (about 1.1 KB per component).
fn generate(n: usize) -> String {
    let mut s = String::with_capacity(n * 1100 + 1000);
    s.push_str("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n    variability:\n        inputs:\n            mode: {type: string}\n        expressions:\n");
    for i in 0..n {
        s.push_str(&format!("            condition_{i}_present: {{equal: [{{variability_input: mode}}, present]}}\n"));
        s.push_str(&format!(
            "            condition_{i}_removed: {{equal: [{{variability_input: mode}}, absent]}}\n"
        ));
    }
    s.push_str("        options:\n            type_default_condition: true\n    node_templates:\n");
    for i in 0..n {
        let j = (i + 1) % n.max(1);
        s.push_str(&format!(
            "        component_{i}_present:
            type: component_type_{i}_present
            conditions: {{logic_expression: condition_{i}_present}}
            requirements:
                - relation_present:
                      node: component_{j}_present
                      conditions: {{logic_expression: condition_{i}_present}}
                      relationship: relationship_{i}_present
                - relation_removed:
                      node: component_{j}_removed
                      conditions: {{logic_expression: condition_{i}_removed}}
                      relationship: relationship_{i}_removed
        component_{i}_removed:
            type: component_type_{i}_removed
            conditions: {{logic_expression: condition_{i}_removed}}
"
        ));
    }
    s.push_str("    relationship_templates:\n");
    for i in 0..n {
        s.push_str(&format!("        relationship_{i}_present:\n            type: relationship_type_{i}_present\n        relationship_{i}_removed:\n            type: relationship_type_{i}_removed\n"));
    }
    s
}

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
    let arg = std::env::args().nth(1).unwrap_or_else(|| "10000".into());
    let text = match arg.parse::<usize>() {
        Ok(n) => generate(n),
        Err(_) => std::fs::read_to_string(&arg).unwrap_or_else(|e| panic!("{arg}: {e}")),
    };
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
    let (t_slow, slow) = best(2, || v4t_yaml::parse::parse_saphyr(&text, SourceId(0)));
    let slow = slow.unwrap_or_else(|e| panic!("saphyr parse failed: {e}"));
    println!(
        "saphyr path: {t_slow:.1} ms; equal: {}",
        deep_equal(&node.value, &slow.value)
    );
    let (t_emit, out) = best(5, || emit(&node));
    println!("emit {:.2} MB: {t_emit:.1} ms", out.len() as f64 / 1e6);
}
