//! End-to-end tests of `v4t analyze`: the report, JSON output and exit codes.

use crate::common::{arg, example_template as example, text, v4t, v4t_with_stdin, TempDir};

/// The bundled example: one input `env` whose `valid_values` are its
/// domain; both configurations resolve, each to its own topology.
#[test]
fn example_resolves_in_every_configuration() {
    let out = v4t(&["analyze", &example()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("  env: \"dev\", \"prod\"\n"), "{stdout}");
    assert!(stdout.contains("configurations: 2\n"), "{stdout}");
    assert!(stdout.contains("valid configurations: 2\n"), "{stdout}");
    assert!(
        stdout.contains("topologies: 2 (determined by the inputs)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("failing configurations: none\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("core elements: ") && stdout.contains("  node.shop\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("presets:\n  dev: resolves\n  prod: resolves\n"),
        "{stdout}"
    );

    let out = v4t(&[
        "analyze",
        &example(),
        "--format",
        "json",
        "--enumerate",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json = text(&out.stdout);
    assert!(
        json.starts_with("{\"inputs\":[{\"name\":\"env\",\"values\":[\"dev\",\"prod\"]}]"),
        "{json}"
    );
    assert!(
        json.contains("\"configurations\":2,\"valid\":{\"count\":2,\"exact\":true}"),
        "{json}"
    );
    assert!(json.contains("\"failures\":[]"), "{json}");
    assert!(
        json.contains("\"topologies_listed\":{\"topologies\":[["),
        "{json}"
    );
    assert!(json.contains("],\"complete\":false}"), "{json}");
}

/// A semantic check that fails in one configuration, only with a value
/// the template does not declare for `env` (`other`): its message, count
/// and example in a group of its own, a failure only with `--strict`.
#[test]
fn a_failing_check_is_reported_with_an_example() {
    let template = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      env: {type: string}
  node_templates:
    shop:
      type: app
      requirements:
        - host: {node: dev_vm, conditions: {equal: [{variability_input: env}, dev]}}
        - host: {node: prod_vm, conditions: {equal: [{variability_input: env}, prod]}}
    dev_vm: {type: vm, conditions: {equal: [{variability_input: env}, dev]}}
    prod_vm: {type: vm, conditions: {equal: [{variability_input: env}, prod]}}
";
    let out = v4t_with_stdin(&["analyze", "-"], template);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let strict = v4t_with_stdin(&["analyze", "-", "--strict"], template);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        stdout.contains("  env: \"dev\", \"prod\", \"other\"\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "failing configurations: none\nfailing only with values the template does not declare"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  1 with \"Node \"shop\" expected to have a hosting relation\"\n    for example: env=\"other\"\n"
        ),
        "{stdout}"
    );
    let out = v4t_with_stdin(&["analyze", "-", "--format", "json"], template);
    let json = text(&out.stdout);
    assert!(
        json.contains("\"witness\":{\"env\":\"other\"},\"conflict\":null,\"undeclared\":true}]"),
        "{json}"
    );
}

/// A constraint no configuration with `env: dev` and `debug` can meet:
/// that configuration is excluded by the template's own model, no failure
/// (exit code 0), with an example and why (the constraint with its
/// location, the values).
#[test]
fn excluded_configurations_are_reported_with_why() {
    let template = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      env: {type: string}
      debug: {type: boolean}
    constraints:
      - {not: {and: [node.vm, {variability_input: debug}]}}
  node_templates:
    vm:
      type: vm
      conditions: {equal: [{variability_input: env}, dev]}
";
    let out = v4t_with_stdin(&["analyze", "-"], template);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("configurations: 4\n"), "{stdout}");
    assert!(stdout.contains("valid configurations: 3\n"), "{stdout}");
    assert!(
        stdout.contains("excluded configurations (the template's model rules them out):\n  1 by the constraints\n    for example: env=\"dev\" debug=true\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    because: constraint `not (node.vm and debug)` (<stdin>:9:9)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("failing configurations: none\n"),
        "{stdout}"
    );
    let out = v4t_with_stdin(&["analyze", "-", "--format", "json"], template);
    assert_eq!(out.status.code(), Some(0));
    let json = text(&out.stdout);
    assert!(
        json.contains("\"failures\":[],\"excluded\":[{\"by\":\"constraints\",\"configurations\":{\"count\":1,\"exact\":true},\"witness\":{\"env\":\"dev\",\"debug\":true},\"reasons\":[{\"kind\":\"input value\""),
        "{json}"
    );
}

#[test]
fn invalid_templates_fail_with_a_diagnostic() {
    let out = v4t_with_stdin(&["analyze", "-"], "topology_template: [\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("error: "),
        "{}",
        text(&out.stderr)
    );
    let out = v4t(&["analyze", "/no/such/template.yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Without inputs there is one configuration; a failing check is reported
/// for it, and the consistency check's message is the resolver's.
#[test]
fn a_template_without_inputs_has_one_configuration() {
    let template = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    app:
      type: app
      requirements:
        - host: a
        - host: b
    a: {type: vm}
    b: {type: vm}
";
    let out = v4t_with_stdin(&["analyze", "-"], template);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("inputs: 0\nconfigurations: 1\nvalid configurations: 0\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  1 with \"Node \"app\" has more than one hosting relations\"\n    (the only configuration: the template has no inputs)\n"
        ),
        "{stdout}"
    );
}

/// `--validate`: a variant whose resolved template is no valid TOSCA fails
/// the analysis (exit code 1) with the validator's message and an example.
#[test]
fn validate_finds_variants_that_are_no_valid_tosca() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      fast: {type: boolean}
  node_templates:
    app:
      type: tosca.nodes.Compute
    cache:
      type: tosca.nodes.Cache
      conditions: {variability_input: fast}
";
    let plain = v4t_with_stdin(&["analyze", "-"], template);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stdout));
    let out = v4t_with_stdin(&["analyze", "-", "--validate"], template);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "failing configurations:\n  1 with \"unknown node type `tosca.nodes.Cache`\"\n    for example: fast=true\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("validated: 2 topologies, one configuration each\n"),
        "{stdout}"
    );
    // The bundled example is valid in every variant.
    let example = v4t(&["analyze", &example(), "--validate"]);
    assert_eq!(example.status.code(), Some(0), "{}", text(&example.stdout));
}

/// `--sample` with `--write-tests`: one test per sampled configuration,
/// which `v4t test` passes (the variants pinned); the JSON lists the sample
/// as input → value maps.
#[test]
fn sampled_configurations_become_tests() {
    let dir = TempDir::new("analyze-sample");
    let tests = dir.path().join("tests");
    let out = v4t(&[
        "analyze",
        &example(),
        "--sample",
        "--write-tests",
        arg(&tests),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("sample: 2 configurations\n  1: env=\"dev\"\n  2: env=\"prod\"\n"),
        "{stdout}"
    );
    let run = v4t(&["test", arg(&tests)]);
    let report = text(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{report}{}", text(&run.stderr));
    assert!(report.ends_with("2 passed, 0 failed\n"), "{report}");
    let json = text(&v4t(&["analyze", &example(), "--sample", "--format", "json"]).stdout);
    assert!(
        json.contains("\"sample\":[{\"env\":\"dev\"},{\"env\":\"prod\"}]"),
        "{json}"
    );
}

/// `--export`: the variability model instead of the report.
#[test]
fn the_variability_model_is_exported() {
    let uvl = text(&v4t(&["analyze", &example(), "--export", "uvl"]).stdout);
    assert!(uvl.starts_with("features\n    Configuration {abstract}\n        mandatory\n            \"env\" {abstract}\n                alternative\n                    \"env_dev\"\n                    \"env_prod\"\n"), "{uvl}");
    assert!(uvl.contains("\nconstraints\n"), "{uvl}");
    let dimacs = text(&v4t(&["analyze", &example(), "--export", "dimacs"]).stdout);
    assert!(dimacs.contains("c input env = \"dev\" is variable 1\nc input env = \"prod\" is variable 2\nc p show 1 2 0\np cnf "), "{dimacs}");
}
