//! Snapshot tests: `v4t enrich` output and rendered diagnostics, so that a
//! change in output shows up as a diff to review, not as a silent change.
//! After an intended change: `UPDATE_EXPECT=1 cargo test -p v4t-cli --test
//! snapshots`, then review the diff of the snapshots.

use crate::common::{example_dir, example_template, text, v4t_in, TempDir};
use expect_test::{expect, expect_file, Expect};
use std::path::Path;

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
    let out = v4t_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["enrich", &example_template()],
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

/// Unsatisfiable through a generated condition: resolving drops those once
/// encoded, so the notes come from a graph built again.
const UNSATISFIABLE_PRUNED: &str = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  variability:
    inputs:
      env: {type: string}
    constraints:
      - relation_presence: [a, 0]
  node_templates:
    a:
      type: tosca.nodes.Root
      requirements:
        - host: b
    b:
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
fn could_not_solve_names_generated_conditions() {
    diagnostics(
        UNSATISFIABLE_PRUNED,
        "text",
        expect![[r#"
        error: Could not solve
        note: constraint relation_presence(a, 0)
         --> t.yaml:7:9
          |
        7 |       - relation_presence: [a, 0]
          |         ^^^^^^^^^^^^^^^^^^^^^^^^^
        note: condition of node "b" is false for input env = "dev"
          --> t.yaml:15:19
           |
        15 |       conditions: {equal: [{variability_input: env}, prod]}
           |                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        note: pruning condition of relation "host@0" of node "a" node_presence(a) and node_presence(b)
          --> t.yaml:12:11
           |
        12 |         - host: b
           |           ^^^^
          = code: V4T040
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

/// `v4t validate FILE` in a directory holding `files`: nothing on standard
/// output, the diagnostics on standard error.
fn validate_diagnostics(files: &[(&str, &str)], format: &str, expected: Expect) {
    let entry = files[0].0;
    let (out, err) = run(
        files,
        &["validate", entry, "--color", "never", "--format", format],
    );
    assert_eq!(out, "");
    expected.assert_eq(&err);
}

/// Typical mistakes in a TOSCA 1.3 file (the normative types implied): a
/// property the type does not define, a value of the wrong kind, a
/// requirement pointing at a node of the wrong type. Citations are of TOSCA
/// 1.3, types named as written.
const MISTAKES_13: &str = "tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    web:
      type: tosca.nodes.WebServer
      properties:
        port: 80
    db:
      type: tosca.nodes.Database
      properties:
        name: shop
        port: eighty
    app:
      type: tosca.nodes.WebApplication
      requirements:
        - host: db
";

#[test]
fn validate_mistakes_in_tosca_13_as_text() {
    validate_diagnostics(
        &[("t.yaml", MISTAKES_13)],
        "text",
        expect![[r#"
            error: `port` is not a defined property
             --> t.yaml:7:9
              |
            7 |         port: 80
              |         ^^^^
              = note: in element topology_template.node_templates.web.properties
              = note: defined: `admin_credential`, `component_version`
              = note: TOSCA 1.3 §3.6.11
              = code: V4T012
            error: expected an integer, got a string "eighty"
              --> t.yaml:12:15
               |
            12 |         port: eighty
               |               ^^^^^^
              = note: in element topology_template.node_templates.db.properties.port
              = note: TOSCA 1.3 §3.3
              = code: V4T104
            error: node template `db` is a `tosca.nodes.Database`, not a `tosca.nodes.WebServer`
              --> t.yaml:16:17
               |
            16 |         - host: db
               |                 ^^
              = note: in element topology_template.node_templates.app.requirements[0].host
              = note: requirement `host` targets `tosca.nodes.WebServer` nodes
              = note: TOSCA 1.3 §3.8.2
              = code: V4T130
            3 errors: "t.yaml" is not valid TOSCA
        "#]],
    );
}

#[test]
fn validate_mistakes_in_tosca_13_as_json() {
    validate_diagnostics(
        &[("t.yaml", MISTAKES_13)],
        "json",
        expect![[r#"
            {"severity":"error","code":"V4T012","message":"`port` is not a defined property","file":"t.yaml","line":7,"column":9,"end_line":7,"end_column":13,"element":"topology_template.node_templates.web.properties","notes":[{"message":"defined: `admin_credential`, `component_version`"},{"message":"TOSCA 1.3 §3.6.11"}]}
            {"severity":"error","code":"V4T104","message":"expected an integer, got a string \"eighty\"","file":"t.yaml","line":12,"column":15,"end_line":12,"end_column":21,"element":"topology_template.node_templates.db.properties.port","notes":[{"message":"TOSCA 1.3 §3.3"}]}
            {"severity":"error","code":"V4T130","message":"node template `db` is a `tosca.nodes.Database`, not a `tosca.nodes.WebServer`","file":"t.yaml","line":16,"column":17,"end_line":16,"end_column":19,"element":"topology_template.node_templates.app.requirements[0].host","notes":[{"message":"requirement `host` targets `tosca.nodes.WebServer` nodes"},{"message":"TOSCA 1.3 §3.8.2"}]}
        "#]],
    );
}

/// Typical mistakes in a TOSCA 2.0 file: a misspelled keyname, type and
/// input, a value its validation clause rejects, a 1.3 normative type
/// without a profile.
const MISTAKES_20: &str = "tosca_definitions_version: tosca_2_0
node_types:
  Server:
    properties:
      port:
        type: integer
        validation: { $greater_than: [ $value, 0 ] }
    requirement:
      - host: { capability: Host }
service_template:
  inputs:
    web_port: { type: integer }
  node_templates:
    web:
      type: Sever
    api:
      type: Server
      properties:
        port: -1
    app:
      type: Server
      properties:
        port: { $get_input: webport }
    vm:
      type: tosca.nodes.Compute
";

#[test]
fn validate_mistakes_in_tosca_20_as_text() {
    validate_diagnostics(
        &[("t.yaml", MISTAKES_20)],
        "text",
        expect![[r#"
            error: unknown keyname `requirement` in a node type definition
             --> t.yaml:8:5
              |
            8 |     requirement:
              |     ^^^^^^^^^^^
              = note: in element node_types.Server
              = note: did you mean `requirements`?
              = note: TOSCA 2.0 §7.1
              = code: V4T101
            error: unknown node type `Sever`
              --> t.yaml:15:13
               |
            15 |       type: Sever
               |             ^^^^^
              = note: in element service_template.node_templates.web.type
              = note: did you mean `Server`?
              = note: TOSCA 2.0 §7.2
              = code: V4T140
            error: -1 does not satisfy its validation clause
              --> t.yaml:19:15
               |
            19 |         port: -1
               |               ^^
              = note: in element service_template.node_templates.api.properties.port
              = note: TOSCA 2.0 §9.11
            note: the validation clause
             --> t.yaml:7:21
              |
            7 |         validation: { $greater_than: [ $value, 0 ] }
              |                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
              = code: V4T105
            error: `$get_input` names `webport`, which is not a declared input
              --> t.yaml:23:29
               |
            23 |         port: { $get_input: webport }
               |                             ^^^^^^^
              = note: in element service_template.node_templates.app.properties.port
              = note: did you mean `web_port`?
              = note: TOSCA 2.0 §10.2.1.1
              = code: V4T012
            error: unknown node type `tosca.nodes.Compute`
              --> t.yaml:25:13
               |
            25 |       type: tosca.nodes.Compute
               |             ^^^^^^^^^^^^^^^^^^^
              = note: in element service_template.node_templates.vm.type
              = note: TOSCA 2.0 has no implicit normative types: define it, or import a profile (`org.oasis-open.simple:2.0` names its types without the `tosca.nodes.` prefix)
              = note: TOSCA 2.0 §7.2
              = code: V4T140
            5 errors: "t.yaml" is not valid TOSCA
        "#]],
    );
}

#[test]
fn validate_mistakes_in_tosca_20_as_json() {
    validate_diagnostics(
        &[("t.yaml", MISTAKES_20)],
        "json",
        expect![[r#"
            {"severity":"error","code":"V4T101","message":"unknown keyname `requirement` in a node type definition","file":"t.yaml","line":8,"column":5,"end_line":8,"end_column":16,"element":"node_types.Server","notes":[{"message":"did you mean `requirements`?"},{"message":"TOSCA 2.0 §7.1"}]}
            {"severity":"error","code":"V4T140","message":"unknown node type `Sever`","file":"t.yaml","line":15,"column":13,"end_line":15,"end_column":18,"element":"service_template.node_templates.web.type","notes":[{"message":"did you mean `Server`?"},{"message":"TOSCA 2.0 §7.2"}]}
            {"severity":"error","code":"V4T105","message":"-1 does not satisfy its validation clause","file":"t.yaml","line":19,"column":15,"end_line":19,"end_column":17,"element":"service_template.node_templates.api.properties.port","notes":[{"message":"the validation clause","file":"t.yaml","line":7,"column":21},{"message":"TOSCA 2.0 §9.11"}]}
            {"severity":"error","code":"V4T012","message":"`$get_input` names `webport`, which is not a declared input","file":"t.yaml","line":23,"column":29,"end_line":23,"end_column":36,"element":"service_template.node_templates.app.properties.port","notes":[{"message":"did you mean `web_port`?"},{"message":"TOSCA 2.0 §10.2.1.1"}]}
            {"severity":"error","code":"V4T140","message":"unknown node type `tosca.nodes.Compute`","file":"t.yaml","line":25,"column":13,"end_line":25,"end_column":32,"element":"service_template.node_templates.vm.type","notes":[{"message":"TOSCA 2.0 has no implicit normative types: define it, or import a profile (`org.oasis-open.simple:2.0` names its types without the `tosca.nodes.` prefix)"},{"message":"TOSCA 2.0 §7.2"}]}
        "#]],
    );
}

/// Mistakes across files: a missing import in a file that imports a
/// file importing it (a cycle, which is no mistake), and a value of a type
/// the template cannot name (defined in a file it does not import), whose
/// origin is a note.
const ACROSS_FILES: [(&str, &str); 3] = [
    (
        "main.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: types.yaml
    namespace: t
service_template:
  node_templates:
    s:
      type: t:Server
      properties:
        size: big
",
    ),
    (
        "types.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: base.yaml
    namespace: b
node_types:
  Server:
    properties:
      size: { type: b:Size }
",
    ),
    (
        "base.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: types.yaml
  - url: units.yaml
data_types:
  Size:
    derived_from: integer
",
    ),
];

#[test]
fn validate_mistakes_across_files_as_text() {
    validate_diagnostics(
        &ACROSS_FILES,
        "text",
        expect![[r#"
            error: expected an integer (type `Size`), got a string "big"
              --> main.yaml:10:15
               |
            10 |         size: big
               |               ^^^
              = note: in element service_template.node_templates.s.properties.size
              = note: TOSCA 2.0 §9.1
            note: `Size` is defined in `base.yaml`
             --> base.yaml:6:3
              |
            6 |   Size:
              |   ^^^^
              = code: V4T104
            error: imported file `units.yaml` does not exist
             --> base.yaml:4:5
              |
            4 |   - url: units.yaml
              |     ^^^^^^^^^^^^^^^
              = note: in element imports[1]
              = note: TOSCA 2.0 §6.8.2.2
              = code: V4T100
            2 errors: "main.yaml" is not valid TOSCA
        "#]],
    );
}

#[test]
fn validate_mistakes_across_files_as_json() {
    validate_diagnostics(
        &ACROSS_FILES,
        "json",
        expect![[r#"
            {"severity":"error","code":"V4T104","message":"expected an integer (type `Size`), got a string \"big\"","file":"main.yaml","line":10,"column":15,"end_line":10,"end_column":18,"element":"service_template.node_templates.s.properties.size","notes":[{"message":"`Size` is defined in `base.yaml`","file":"base.yaml","line":6,"column":3},{"message":"TOSCA 2.0 §9.1"}]}
            {"severity":"error","code":"V4T100","message":"imported file `units.yaml` does not exist","file":"base.yaml","line":4,"column":5,"end_line":4,"end_column":20,"element":"imports[1]","notes":[{"message":"TOSCA 2.0 §6.8.2.2"}]}
        "#]],
    );
}

/// Runs `v4t` on the example from its directory (so that locations read
/// `template.yaml:..`), without colour; standard output.
fn on_example(args: &[&str]) -> String {
    let mut all = vec!["--color", "never"];
    all.extend_from_slice(args);
    let out = v4t_in(&example_dir(), &all, &[]);
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

/// A constraint that kills two nodes, a condition that always holds, and
/// inputs that never change the topology (one read only by a dead node).
const WHY: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      eu: {type: boolean, default: false}
      legacy: {type: boolean, default: false}
      debug: {type: boolean, default: false}
    constraints:
      - {not: {and: [{variability_input: legacy}, {variability_input: eu}]}}
  node_templates:
    web:
      type: tosca.nodes.Compute
    old_eu:
      type: tosca.nodes.Compute
      conditions: {and: [{variability_input: legacy}, {variability_input: eu}]}
    everywhere:
      type: tosca.nodes.Compute
      conditions: {or: [{variability_input: eu}, {not: {variability_input: eu}}]}
    trace:
      type: tosca.nodes.Compute
      conditions: {and: [{variability_input: debug}, {variability_input: legacy}, {variability_input: eu}]}
    logger:
      type: tosca.nodes.Compute
      conditions: {variability_input: legacy}
";

#[test]
fn analyze_why_in_text_and_json() {
    let (out, err) = run(&[("t.yaml", WHY)], &["analyze", "t.yaml", "--why"]);
    assert_eq!(err, "");
    expect_file!["snapshots/analyze-why.txt"].assert_eq(&out);
    let (out, err) = run(
        &[("t.yaml", WHY)],
        &["analyze", "t.yaml", "--why", "--format", "json"],
    );
    assert_eq!(err, "");
    expect_file!["snapshots/analyze-why.json"].assert_eq(&out);
}
