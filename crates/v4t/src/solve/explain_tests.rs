//! "Could not solve" and the violated feature model name the parts that
//! conflict, each at its location.

use crate::testing::resolve_error;
use v4t_source::Code;

const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string}
    constraints:
      - {node_presence: db}
      - {node_presence: app}
  node_templates:
    app:
      type: tosca.nodes.Root
    db:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, prod]}
";

/// (message, line, column) of each note, a note of `template`.
fn notes(e: &crate::Error, template: &str) -> Vec<(String, u32, u32)> {
    e.notes
        .iter()
        .map(|n| {
            let at = n.span.locate(template);
            (n.message.clone(), at.line, at.col)
        })
        .collect()
}

#[test]
fn could_not_solve_names_the_constraint_and_the_condition() {
    let e = resolve_error(TEMPLATE, Some("env: dev")).expect("fails");
    assert_eq!(e.message, "Could not solve");
    assert_eq!(e.code, Code::Unsatisfiable);
    assert_eq!(
        notes(&e, TEMPLATE),
        vec![
            ("constraint node_presence(db)".to_string(), 7, 9),
            (
                "condition of node \"db\" is false for input env = \"dev\"".to_string(),
                14,
                19
            ),
        ]
    );
}

#[test]
fn the_conflict_is_minimal() {
    // Two conditions and two constraints; only one pair conflicts.
    let template = TEMPLATE.replace(
        "    app:\n      type: tosca.nodes.Root\n",
        "    app:\n      type: tosca.nodes.Root\n      conditions: {equal: [{variability_input: env}, dev]}\n",
    );
    let e = resolve_error(&template, Some("env: dev")).expect("fails");
    let lines: Vec<u32> = notes(&e, &template).iter().map(|n| n.1).collect();
    assert_eq!(lines, vec![7, 15], "{:?}", notes(&e, &template));
}

#[test]
fn a_solvable_template_has_no_conflict() {
    assert!(resolve_error(TEMPLATE, Some("env: prod")).is_none());
}

#[test]
fn a_violated_feature_model_names_rules_and_values() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      root: {type: boolean, default: true, mandatory: [db]}
      db: {type: boolean, requires: cache}
      cache: {type: boolean}
      other: {type: boolean, default: true, optional: [cache]}
  node_templates:
    app:
      type: tosca.nodes.Root
";
    let e = resolve_error(template, Some("{db: true, cache: false}")).expect("fails");
    assert_eq!(e.message, "Variability inputs constraints are violated");
    let messages: Vec<String> = notes(&e, template).into_iter().map(|n| n.0).collect();
    assert_eq!(
        messages,
        vec![
            "`mandatory` of variability input \"root\"",
            "`requires` of variability input \"db\"",
            "variability input \"root\" is true",
            "variability input \"cache\" is false",
        ]
    );
}
