//! Snapshot tests: `v4t enrich` output and rendered diagnostics, so that a
//! change in output shows up as a diff to review, not as a silent change.
//! After an intended change: `UPDATE_EXPECT=1 cargo test -p v4t-cli --test
//! snapshots`, then review the diff of the snapshots.

mod common;

use common::{text, v4t_in, TempDir};
use expect_test::{expect, expect_file, Expect};
use std::path::Path;

/// The repository's example (not under `../shared`).
fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web-app/template.yaml")
}

/// Runs `v4t` with `args` in a directory holding `files` (name, text);
/// standard output and standard error.
fn run(files: &[(&str, &str)], args: &[&str]) -> (String, String) {
    let dir = TempDir::new("snapshot");
    for (name, text) in files {
        dir.write(name, text);
    }
    let out = v4t_in(dir.path(), args, &[]);
    (text(&out.stdout), text(&out.stderr))
}

#[test]
fn enrich_of_the_example() {
    let path = example();
    let out = v4t_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["enrich", path.to_str().expect("UTF-8 path")],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    expect_file!["snapshots/enrich-web-app.yaml"].assert_eq(&text(&out.stdout));
}

/// Conditions, a group, generated defaults and pruning, technologies.
const CONDITIONS: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      mode: {type: string, default: small}
    options:
      mode: loose
      technology_rules: true
  node_templates:
    app:
      type: tosca.nodes.SoftwareComponent
      conditions: {equal: [{variability_input: mode}, large]}
      requirements:
        - host: vm
    vm:
      type: tosca.nodes.Compute
      properties:
        - num_cpus:
            value: 1
            conditions: {equal: [{variability_input: mode}, small]}
        - num_cpus:
            value: 4
            default_alternative: true
  groups:
    large:
      type: variability.groups.ConditionalMembers
      members: [app]
      conditions: {equal: [{variability_input: mode}, large]}
";

#[test]
fn enrich_of_conditions_groups_and_properties() {
    let (out, err) = run(&[("t.yaml", CONDITIONS)], &["enrich", "t.yaml"]);
    assert_eq!(err, "");
    expect_file!["snapshots/enrich-conditions.yaml"].assert_eq(&out);
}

/// A constraint that needs a node whose condition the input makes false.
const UNSATISFIABLE: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string}
    constraints:
      - {node_presence: db}
  node_templates:
    app:
      type: tosca.nodes.Root
    db:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, prod]}
";

/// Wrong shapes in three places (all reported).
const SHAPES: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a:
      type: tosca.nodes.Root
      properties: 3
    b:
      type: tosca.nodes.Root
      default_alternative: maybe
  groups:
    g:
      type: tosca.groups.Root
      members: a
";

fn diagnostics(template: &str, format: &str, expected: Expect) {
    let (out, err) = run(
        &[("t.yaml", template), ("in.yaml", "env: dev\n")],
        &[
            "resolve", "t.yaml", "--inputs", "in.yaml", "--color", "never", "--format", format,
        ],
    );
    assert_eq!(out, "");
    expected.assert_eq(&err);
}

#[test]
fn could_not_solve_as_text() {
    diagnostics(
        UNSATISFIABLE,
        "text",
        expect![[r#"
            error: Could not solve
            note: constraint node_presence(db)
             --> t.yaml:7:9
              |
            7 |       - {node_presence: db}
              |         ^^^^^^^^^^^^^^^^^^^
            note: condition of node "db" is false for input env = "dev"
              --> t.yaml:13:19
               |
            13 |       conditions: {equal: [{variability_input: env}, prod]}
               |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
              = code: V4T040
        "#]],
    );
}

#[test]
fn could_not_solve_as_json() {
    diagnostics(
        UNSATISFIABLE,
        "json",
        expect![[r#"
            {"severity":"error","code":"V4T040","message":"Could not solve","notes":[{"message":"constraint node_presence(db)","file":"t.yaml","line":7,"column":9},{"message":"condition of node \"db\" is false for input env = \"dev\"","file":"t.yaml","line":13,"column":19}]}
        "#]],
    );
}

#[test]
fn every_wrong_shape_as_text() {
    diagnostics(
        SHAPES,
        "text",
        expect![[r#"
            error: Expected "properties" of node template "a" to be a map or a list, but it is a number
             --> t.yaml:6:19
              |
            6 |       properties: 3
              |                   ^
              = code: V4T011
            error: Expected "default_alternative" of node template "b" to be a boolean, but it is a string
             --> t.yaml:9:28
              |
            9 |       default_alternative: maybe
              |                            ^^^^^
              = code: V4T011
            error: Expected "members" of group "g" to be a list, but it is a string
              --> t.yaml:13:16
               |
            13 |       members: a
               |                ^
              = code: V4T011
        "#]],
    );
}

#[test]
fn every_wrong_shape_as_json() {
    diagnostics(
        SHAPES,
        "json",
        expect![[r#"
            {"severity":"error","code":"V4T011","message":"Expected \"properties\" of node template \"a\" to be a map or a list, but it is a number","file":"t.yaml","line":6,"column":19,"end_line":6,"end_column":20,"notes":[]}
            {"severity":"error","code":"V4T011","message":"Expected \"default_alternative\" of node template \"b\" to be a boolean, but it is a string","file":"t.yaml","line":9,"column":28,"end_line":9,"end_column":33,"notes":[]}
            {"severity":"error","code":"V4T011","message":"Expected \"members\" of group \"g\" to be a list, but it is a string","file":"t.yaml","line":13,"column":16,"end_line":13,"end_column":17,"notes":[]}
        "#]],
    );
}

/// Runs `v4t` on the example from its directory (so that locations read
/// `template.yaml:..`), without colour; standard output.
fn on_example(args: &[&str]) -> String {
    let dir = example();
    let dir = dir.parent().expect("the example's directory");
    let mut all = vec!["--color", "never"];
    all.extend_from_slice(args);
    let out = v4t_in(dir, &all, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn explain_of_the_example_in_production() {
    let out = on_example(&["explain", "template.yaml", "--presets", "prod"]);
    expect_file!["snapshots/explain-web-app-prod.txt"].assert_eq(&out);
}

#[test]
fn explain_of_the_example_as_json() {
    let out = on_example(&[
        "explain",
        "template.yaml",
        "--presets",
        "prod",
        "dev_vm",
        "--format",
        "json",
    ]);
    expect_file!["snapshots/explain-web-app-dev-vm.json"].assert_eq(&out);
}

#[test]
fn analyze_of_the_example() {
    let out = on_example(&["analyze", "template.yaml"]);
    expect_file!["snapshots/analyze-web-app.txt"].assert_eq(&out);
}

#[test]
fn graph_of_the_example_in_every_text_format() {
    for (format, file) in [
        ("dot", expect_file!["snapshots/graph-web-app.dot"]),
        ("mermaid", expect_file!["snapshots/graph-web-app.mmd"]),
        ("plantuml", expect_file!["snapshots/graph-web-app.puml"]),
    ] {
        file.assert_eq(&on_example(&["graph", "template.yaml", "--format", format]));
    }
}
