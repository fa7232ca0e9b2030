//! End-to-end tests of `v4t graph`: the DOT output parses (with the DOT
//! parser of `layout-rs`), SVG is laid out without external programs, and
//! a resolved variant shows only what is present.

use std::path::PathBuf;
use std::process::{Command, Output};

fn v4t(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_v4t"))
        .args(args)
        .output()
        .expect("run v4t")
}

fn example() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/web-app/template.yaml")
        .to_string_lossy()
        .into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn dot_output_parses() {
    // The parser rejects what is not DOT (an unclosed string, a dangling edge).
    for bad in [
        "digraph g {\n  n0 [label=\"a\\\"b];\n}\n",
        "digraph g {\n  n0 -> ;\n}\n",
    ] {
        assert!(layout::gv::DotParser::new(bad).process().is_err(), "{bad}");
    }
    for args in [
        vec!["graph", "EXAMPLE"],
        vec!["graph", "EXAMPLE", "--presets", "prod", "--artifacts"],
        vec!["graph", "EXAMPLE", "--input", "env=dev", "--format", "dot"],
    ] {
        let example = example();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "EXAMPLE" { example.as_str() } else { a })
            .collect();
        let out = v4t(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let dot = text(&out.stdout);
        assert!(dot.starts_with("digraph topology {\n"), "{dot}");
        let parsed = layout::gv::DotParser::new(&dot).process();
        assert!(parsed.is_ok(), "{:?}\n{dot}", parsed.err());
    }
}

#[test]
fn variants_show_only_what_is_present() {
    let variable = text(&v4t(&["graph", &example()]).stdout);
    assert!(
        variable.contains("dev_vm") && variable.contains("prod_vm"),
        "{variable}"
    );
    assert!(variable.contains("style=\"bold,dashed\""), "{variable}");
    let prod = text(
        &v4t(&[
            "graph",
            &example(),
            "--presets",
            "prod",
            "--format",
            "mermaid",
        ])
        .stdout,
    );
    assert!(prod.starts_with("flowchart BT\n"), "{prod}");
    assert!(
        prod.contains("prod_vm") && !prod.contains("dev_vm"),
        "{prod}"
    );
    assert!(!prod.contains(" if "), "{prod}");
    let dev = text(&v4t(&["graph", &example(), "--resolved", "--format", "plantuml"]).stdout);
    assert!(
        dev.starts_with("@startuml\n") && dev.ends_with("@enduml\n"),
        "{dev}"
    );
    assert!(dev.contains("dev_vm") && !dev.contains("prod_vm"), "{dev}");
}

#[test]
fn svg_without_external_programs() {
    let out = v4t(&["graph", &example(), "--format", "svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    assert!(svg.starts_with("<?xml"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.contains("<svg") && svg.contains("shop") && svg.contains("prod_vm"));
}

#[test]
fn a_variant_that_does_not_resolve_fails() {
    // `env` only takes `dev` or `prod`.
    let out = v4t(&["graph", &example(), "--input", "env=other"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("violates"),
        "{}",
        text(&out.stderr)
    );
}
