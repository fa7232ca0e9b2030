//! End-to-end tests of the `v4t` binary: argument handling, exit codes,
//! error output, atomic `--output` and the `v4t test` report format.
//!
//! Failures are provoked with YAML syntax errors, which fail the same way
//! whatever the resolver does; the success paths use small templates and the
//! bundled example.

use std::fs;
use std::path::Path;

use crate::common::{text, v4t, TempDir};

/// A template with a YAML syntax error (an unclosed flow sequence).
const BROKEN_TEMPLATE: &str =
    "tosca_definitions_version: tosca_variability_1_0\ntopology_template: [\n";

#[test]
fn help_works() {
    let out = v4t(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("resolve"), "{stdout}");
    assert!(stdout.contains("test"), "{stdout}");
    assert!(stdout.contains("Exit codes"), "{stdout}");

    let out = v4t(&["resolve", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    for flag in ["--inputs", "--presets", "--input", "--output"] {
        assert!(stdout.contains(flag), "{flag} missing in {stdout}");
    }
    assert_eq!(v4t(&["test", "--help"]).status.code(), Some(0));
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let out = v4t(&["resolve", "--no-such-flag", "t.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--no-such-flag"));
    assert_eq!(v4t(&[]).status.code(), Some(2));
}

#[test]
fn missing_template_names_the_file() {
    let dir = TempDir::new("missing");
    let missing = dir.path().join("does-not-exist.yaml");
    let out = v4t(&["resolve", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("does-not-exist.yaml"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn resolution_errors_are_rendered_rustc_style() {
    let dir = TempDir::new("syntax");
    let template = dir.path().join("template.yaml");
    fs::write(&template, "a: 1\na: 2\n").unwrap();
    let out = v4t(&["resolve", template.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    let mut lines = stderr.lines();
    assert!(lines.next().unwrap().starts_with("error: "), "{stderr}");
    // Where the error has a location, it points into the template.
    if let Some(pointer) = lines.next() {
        assert!(pointer.contains("--> "), "{stderr}");
        assert!(pointer.contains("template.yaml:2:"), "{stderr}");
        assert!(stderr.contains('^'), "{stderr}");
    }
}

#[test]
fn failed_resolution_writes_no_output_file() {
    let dir = TempDir::new("output");
    let template = dir.path().join("template.yaml");
    fs::write(&template, BROKEN_TEMPLATE).unwrap();

    // No file is created.
    let output = dir.path().join("out.yaml");
    let out = v4t(&[
        "resolve",
        template.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!output.exists());

    // An existing file is left untouched.
    fs::write(&output, "old: content\n").unwrap();
    let out = v4t(&[
        "resolve",
        template.to_str().unwrap(),
        "--presets",
        "a,b",
        "--input",
        "port=80",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&output).unwrap(), "old: content\n");

    // And no temporary files are left behind.
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn invalid_input_assignment_is_a_usage_error() {
    let out = v4t(&["resolve", "t.yaml", "--input", "novalue"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("NAME=VALUE"));
}

#[test]
fn test_command_reports_error_mismatch() {
    let dir = TempDir::new("test");
    let case = dir.path().join("broken");
    fs::create_dir_all(&case).unwrap();
    fs::write(case.join("template.yaml"), BROKEN_TEMPLATE).unwrap();
    fs::write(case.join("test.yaml"), "error: Some other error message\n").unwrap();

    let out = v4t(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL "), "{stdout}");
    assert!(stdout.contains("broken"), "{stdout}");
    assert!(
        stdout.contains("expected error \"Some other error message\" but got \""),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().last(),
        Some("0 passed, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn test_command_counts_disabled_tests_as_skipped() {
    let dir = TempDir::new("skip");
    for name in ["a", "b---disabled"] {
        let case = dir.path().join(name);
        fs::create_dir_all(&case).unwrap();
        fs::write(case.join("template.yaml"), BROKEN_TEMPLATE).unwrap();
        fs::write(case.join("expected.yaml"), "{}\n").unwrap();
    }
    let out = v4t(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("resolution failed: "), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("0 passed, 1 failed, 1 skipped"),
        "{stdout}"
    );
}

#[test]
fn test_command_reports_missing_template() {
    let dir = TempDir::new("notemplate");
    let case = dir.path().join("t");
    fs::create_dir_all(&case).unwrap();
    fs::write(case.join("test.yaml"), "presets: [a]\n").unwrap();
    let out = v4t(&["test", case.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "Did not find variable service template in directory \"{}\"",
            case.display()
        )),
        "{stdout}"
    );
}

#[test]
fn test_command_on_a_missing_path_is_a_usage_error() {
    let dir = TempDir::new("nopath");
    let out = v4t(&["test", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

/// A small template with one conditional node.
const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      big: {type: boolean, default: false}
    options: {type_pruning: true}
  node_templates:
    small: {type: s}
    large: {type: l, conditions: {variability_input: big}}
";

#[test]
fn resolve_with_input_and_report() {
    let dir = TempDir::new("report");
    let template = dir.path().join("t.yaml");
    fs::write(&template, TEMPLATE).unwrap();
    let report = dir.path().join("r.json");
    let out = v4t(&[
        "resolve",
        template.to_str().unwrap(),
        "--input",
        "big=true",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("large:") && stdout.contains("small:"),
        "{stdout}"
    );
    let json = fs::read_to_string(&report).unwrap();
    assert!(json.contains("\"id\": \"node.large\""), "{json}");
    assert!(json.contains("\"big\": true"), "{json}");
}

#[test]
fn enrich_makes_conditions_explicit() {
    let dir = TempDir::new("enrich");
    let template = dir.path().join("t.yaml");
    fs::write(&template, TEMPLATE).unwrap();
    let out = v4t(&["enrich", template.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("node_presence: large"), "{stdout}");
    assert!(stdout.contains("_generated: true"), "{stdout}");
}

#[test]
fn bundled_example_passes_its_tests() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web-app");
    let out = v4t(&["test", example.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout).lines().last(), Some("2 passed, 0 failed"));
}

/// A template with an unused variability input, an unknown node key and a
/// type from `lib/`.
const WARNED_TEMPLATE: &str = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      unused: {type: boolean}
  node_templates:
    a:
      type: lib.A
      colour: blue
";

#[test]
fn warnings_are_reported_separately_and_do_not_change_the_result() {
    let dir = TempDir::new("warnings");
    let template = dir.path().join("t.yaml");
    fs::write(&template, WARNED_TEMPLATE).unwrap();
    let out = v4t(&["resolve", template.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "warning: Variability input \"unused\" is never used by a condition or an expression\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("t.yaml:5:7"), "{stderr}");
    assert!(
        stderr.contains("warning: Unknown key \"colour\" in node template \"a\""),
        "{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");

    // The same result without the warnings.
    let clean = dir.path().join("clean.yaml");
    fs::write(
        &clean,
        WARNED_TEMPLATE
            .replace(
                "    inputs:\n      unused: {type: boolean}\n",
                "    options: {}\n",
            )
            .replace("      colour: blue\n", ""),
    )
    .unwrap();
    let clean_out = v4t(&["resolve", clean.to_str().unwrap()]);
    assert_eq!(clean_out.status.code(), Some(0));
    assert!(clean_out.stderr.is_empty(), "{}", text(&clean_out.stderr));
    let strip = |s: &str| s.replace("      colour: blue\n", "");
    assert_eq!(strip(&text(&out.stdout)), text(&clean_out.stdout));

    // JSON: one object per line.
    let out = v4t(&["resolve", template.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    let lines: Vec<_> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with(
            "{\"severity\":\"warning\",\"code\":\"V4T080\",\"message\":\"Variability input"
        ),
        "{stderr}"
    );
    assert!(
        lines[0]
            .ends_with("\"line\":5,\"column\":7,\"end_line\":5,\"end_column\":13,\"notes\":[]}"),
        "{stderr}"
    );
}

#[test]
fn errors_as_json() {
    let dir = TempDir::new("json");
    let template = dir.path().join("template.yaml");
    fs::write(&template, "a: 1\na: 2\n").unwrap();
    for command in ["resolve", "enrich"] {
        let out = v4t(&[command, template.to_str().unwrap(), "--format", "json"]);
        assert_eq!(out.status.code(), Some(1));
        let expected = format!(
            "{{\"severity\":\"error\",\"code\":\"V4T001\",\"message\":\"duplicated mapping key\",\"file\":{},\"line\":2,\"column\":1,\"end_line\":2,\"end_column\":2,\"notes\":[]}}\n",
            json_string(template.to_str().unwrap())
        );
        assert_eq!(text(&out.stderr), expected);
    }
    let out = v4t(&["resolve", "/nonexistent/t.yaml", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with(
        "{\"severity\":\"error\",\"code\":\"V4T003\",\"message\":\"could not read template"
    ));
}

fn json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `lib/` types written in different orders, twice each: byte-identical output.
#[test]
fn resolution_is_deterministic() {
    let files = [
        (
            "lib/b/types.yaml",
            "node_types:\n  lib.B: {derived_from: tosca.nodes.Root}\n",
        ),
        (
            "lib/a.yaml",
            "node_types:\n  lib.A: {derived_from: tosca.nodes.Root}\n",
        ),
        ("lib/c.yml", "node_types:\n  lib.C: {derived_from: lib.A}\n"),
    ];
    let template = WARNED_TEMPLATE.replace(
        "      colour: blue\n",
        "    b: {type: lib.B}\n    c: {type: lib.C}\n",
    );
    let mut outputs = Vec::new();
    for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
        let dir = TempDir::new("determinism");
        for i in order {
            let (path, content) = files[i];
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, content).unwrap();
        }
        let t = dir.path().join("t.yaml");
        fs::write(&t, &template).unwrap();
        for _ in 0..2 {
            let out = v4t(&["resolve", t.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            outputs.push(out.stdout);
        }
    }
    assert!(text(&outputs[0]).contains("lib.C"), "{}", text(&outputs[0]));
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}

/// A symlink loop under `lib/` neither hangs nor fails the run.
#[cfg(unix)]
#[test]
fn symlink_loops_in_lib_do_not_hang() {
    let dir = TempDir::new("symlink-loop");
    let lib = dir.path().join("lib");
    fs::create_dir_all(lib.join("x")).unwrap();
    fs::write(
        lib.join("a.yaml"),
        "node_types:\n  lib.A: {derived_from: tosca.nodes.Root}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&lib, lib.join("x/loop")).unwrap();
    std::os::unix::fs::symlink(lib.join("self.yaml"), lib.join("self.yaml")).unwrap();
    let t = dir.path().join("t.yaml");
    fs::write(&t, WARNED_TEMPLATE).unwrap();
    let out = v4t(&["resolve", t.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("lib.A"));
}

#[test]
fn json_diagnostics_name_the_element() {
    let dir = TempDir::new("json-element");
    let template = dir.path().join("t.yaml");
    fs::write(
        &template,
        "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a: {type: t, properties: [{p: 1}, {p: 2}]}\n",
    )
    .unwrap();
    let out = v4t(&["resolve", template.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(r#""message":"Property \"p@1\" of node \"a\" is ambiguous""#)
            && stderr.contains(r#""line":4,"column":40"#)
            && stderr.contains(r#""element":"property.p@1.node.a""#),
        "{stderr}"
    );
}

/// Unknown presets list the defined ones; unknown operators keep the
/// reference's message and get a note at the key with the closest operator.
#[test]
fn typos_get_notes_with_suggestions() {
    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web-app/template.yaml");
    let out = v4t(&["resolve", example.to_str().unwrap(), "--presets", "prdo"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: Did not find variability preset \"prdo\"\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "note: the template defines the presets \"dev\", \"prod\"; did you mean \"prod\"?"
        ),
        "{stderr}"
    );

    let dir = TempDir::new("equals");
    let template = dir.path().join("t.yaml");
    fs::write(
        &template,
        "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      conditions: {equals: [1, 1]}\n",
    )
    .unwrap();
    let out = v4t(&["resolve", template.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(r#""message":"Unknown value expression \"{\n    \"equals\": [\n        1,\n        1\n    ]\n}\"""#),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            r#""notes":[{"message":"unknown operator \"equals\"; did you mean \"equal\"?","file":"#
        ) && stderr.contains(r#""line":6,"column":20}]"#),
        "{stderr}"
    );
}

/// A reader that stops early (`v4t analyze t.yaml | head`) is no error: the
/// write to the closed pipe ends the process quietly, with no panic report.
#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly() {
    use std::process::{Command, Stdio};
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let template =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web-app/template.yaml");
    for command in ["analyze", "explain", "graph", "resolve"] {
        let out = Command::new(env!("CARGO_BIN_EXE_v4t"))
            .arg(command)
            .arg(&template)
            .args(if command == "resolve" {
                &["--presets", "prod"][..]
            } else {
                &[]
            })
            .stdin(Stdio::null())
            .stdout(writer.try_clone().expect("clone the pipe"))
            .output()
            .expect("run v4t");
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{command}: {:?} {stderr}", out.status);
        assert!(!stderr.contains("panic"), "{command}: {stderr}");
    }
}
