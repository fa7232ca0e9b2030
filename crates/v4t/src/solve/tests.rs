//! Logic-mode operators end to end: each test resolves a tiny template and
//! asserts which node templates are present, or the exact error.

use crate::testing::resolve_text;

/// The names of the present node templates after resolving.
fn present(template: &str, inputs: Option<&str>) -> Result<Vec<String>, String> {
    let out = resolve_text(template, &[], inputs)?;
    Ok(out
        .get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(|n| n.as_map())
        .map(|m| m.keys().map(str::to_string).collect())
        .unwrap_or_default())
}

/// A template with node `a` (unconditional) and node `x` with `condition`.
/// Free variables leave `x` open: the uniqueness check is off, so the tie
/// is broken (absence preferred).
fn with_condition(condition: &str) -> String {
    format!(
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {{type_pruning: true, expected_artifact_check: false, optimization_topology_unique: false}}
    inputs:
      on: {{type: boolean, default: true}}
      off: {{type: boolean, default: false}}
      n: {{type: integer, default: 3}}
    expressions:
      yes_expr: true
      input_expr: {{variability_input: on}}
      self_expr: {{node_presence: SELF}}
      loop_a: {{logic_expression: loop_b}}
      loop_b: {{logic_expression: loop_a}}
      text: some text
  node_templates:
    a:
      type: t
      requirements:
        - host: b
      artifacts:
        - art: {{file: f, conditions: false}}
    b:
      type: t
    x:
      type: t
      conditions: {condition}
"
    )
}

fn x_present(condition: &str) -> Result<bool, String> {
    Ok(present(&with_condition(condition), None)?.contains(&"x".to_string()))
}

#[test]
fn boolean_operators() {
    for (c, expected) in [
        ("true", true),
        ("false", false),
        ("{and: []}", true),
        ("{and: [true, false]}", false),
        ("{or: []}", false),
        ("{or: [false, true]}", true),
        ("{not: false}", true),
        ("{xor: [true, true, true]}", true),
        ("{xor: [true, true]}", false),
        ("{xor: []}", false),
        ("{exo: [true, false, false]}", true),
        ("{exo: [true, true, false, false]}", false),
        ("{exo: []}", false),
        ("{amo: []}", true),
        ("{amo: [true, true]}", false),
        ("{implies: [true, false]}", false),
        ("{implies: [false, false]}", true),
        ("[true, {not: false}]", true),
        ("[true, false]", false),
    ] {
        assert_eq!(x_present(c), Ok(expected), "{c}");
    }
}

#[test]
fn value_fallback_coerces_to_constants() {
    for (c, expected) in [
        ("1", true),
        ("0", false),
        ("{and: [-1]}", false),
        ("{variability_input: on}", true),
        ("{variability_input: off}", false),
        ("{equal: [{variability_input: n}, 3]}", true),
        ("{greater: [{variability_input: n}, 3]}", false),
        ("{logic_expression: yes_expr}", true),
        ("{logic_expression: input_expr}", true),
    ] {
        assert_eq!(x_present(c), Ok(expected), "{c}");
    }
}

#[test]
fn strings_are_variables() {
    assert_eq!(x_present("node.a"), Ok(true));
    assert_eq!(x_present("'-node.a'"), Ok(false));
    // A free variable is false unless something forces it.
    assert_eq!(x_present("free_variable"), Ok(false));
    assert_eq!(
        x_present("'123'").unwrap_err(),
        "\"123\" is not a Formula or Term"
    );
    assert_eq!(
        x_present("'$x'").unwrap_err(),
        "Only generated variable names can start with $"
    );
}

#[test]
fn manual_variables_are_terms() {
    // `manual.<id>` is the conjunction of the element's manual conditions.
    assert_eq!(x_present("manual.node.a"), Ok(true));
    assert_eq!(x_present("'-manual.node.b'"), Ok(false));
    assert_eq!(x_present("[manual.node.a, manual.node.b]"), Ok(true));
    // Its own manual variable: free, so absence is preferred.
    assert_eq!(x_present("manual.node.x"), Ok(false));
    // manual.x <-> !manual.x
    assert_eq!(
        x_present("'-manual.node.x'"),
        Err("Could not solve".to_string())
    );
    // Not an element: an ordinary free variable.
    assert_eq!(x_present("manual.node.nothing"), Ok(false));
}

#[test]
fn presence_operators() {
    for (c, expected) in [
        ("{node_presence: a}", true),
        ("{node_presence: SELF}", false),
        ("{host_presence: a}", true),
        ("{has_source: b}", true),
        ("{has_incoming_relation: b}", true),
        ("{has_incoming_relation_naive: b}", true),
        ("{has_outgoing_relation: a}", true),
        ("{has_outgoing_relation_naive: b}", false),
        ("{has_artifact: a}", false),
        ("{has_artifact_naive: a}", false),
        ("{relation_presence: [a, host]}", true),
        ("{relation_presence: [a, 0]}", true),
        ("{artifact_presence: [a, art]}", false),
        ("{node_type_presence: [a, 0]}", true),
        ("{logic_expression: self_expr}", false),
    ] {
        assert_eq!(x_present(c), Ok(expected), "{c}");
    }
}

#[test]
fn reference_errors_are_exact() {
    for (c, message) in [
        ("{node_presence: nope}", "Node \"nope\" not found"),
        (
            "{relation_presence: [a, 5]}",
            "Relation \"[\n    \"a\",\n    5\n]\" not found",
        ),
        (
            "{artifact_presence: [SELF, 0]}",
            "Artifact \"[\n    \"SELF\",\n    0\n]\" not found",
        ),
        ("{group_presence: g}", "Group \"g\" not found"),
        ("{policy_presence: 0}", "Policy \"0\" not found"),
        ("{input_presence: i}", "Input \"i\" not found"),
        ("{output_presence: 0}", "Output \"0\" not found"),
        ("{import_presence: 0}", "Import \"0\" not found"),
        ("{container_presence: SELF}", "Node \"x\" has no container"),
        ("{container_presence: a}", "Unexpected error"),
        (
            "{technology_presence: [a, 0]}",
            "Technology \"[\n    \"a\",\n    0\n] not found",
        ),
        (
            "{logic_expression: missing}",
            "Did not find logic expression \"missing\"",
        ),
        (
            "{logic_expression: text}",
            "Logic expression \"{\n    \"logic_expression\": \"text\"\n}\" must not be a string",
        ),
        (
            "{variability_input: nope}",
            "Variability input \"nope\" is not defined",
        ),
        (
            "[[true]]",
            "Unexpected value expression treated as logic \"[\n    true\n]\"",
        ),
    ] {
        assert_eq!(x_present(c).unwrap_err(), message, "{c}");
    }
}

#[test]
fn cyclic_named_expressions_are_errors() {
    assert_eq!(
        x_present("{logic_expression: loop_a}").unwrap_err(),
        "Logic expression \"loop_a\" is cyclic"
    );
}

#[test]
fn unsatisfiable_constraints_cannot_be_solved() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    constraints:
      - node.a
      - {not: node.a}
  node_templates:
    a: {type: t}
";
    assert_eq!(present(t, None).unwrap_err(), "Could not solve");
}

#[test]
fn element_implies() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_pruning: true}
  node_templates:
    a:
      type: t
      implies:
        - [{not: node.b}]
    b: {type: t, conditions: free}
";
    assert_eq!(present(t, None), Ok(vec!["a".to_string()]));
    let bad = t.replace("[{not: node.b}]", "[x, y, z]");
    assert_eq!(
        present(&bad, None).unwrap_err(),
        "Node \"a\" has an implies with more than 2 elements"
    );
}

#[test]
fn topology_optimisation_picks_the_lightest_alternative() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options:
      type_pruning: true
      optimization_topology: min
      optimization_topology_unique: false
    constraints:
      - {or: [node.heavy, node.light]}
  node_templates:
    heavy: {type: t, weight: 1, conditions: h}
    light: {type: t, weight: 0.5, conditions: l}
";
    assert_eq!(present(t, None), Ok(vec!["light".to_string()]));
    let max = t.replace("optimization_topology: min", "optimization_topology: max");
    assert_eq!(
        present(&max, None),
        Ok(vec!["heavy".to_string(), "light".to_string()])
    );
}

#[test]
fn uniqueness_check_detects_ambiguous_results() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_pruning: true}
    constraints:
      - {exo: [node.one, node.two]}
  node_templates:
    one: {type: t, conditions: a}
    two: {type: t, conditions: b}
";
    assert_eq!(
        present(t, None).unwrap_err(),
        "The result is ambiguous considering nodes (without optimization)"
    );
}

/// Whether the result is unique does not depend on the model the solver
/// finds first: a node that may be present or absent makes it ambiguous
/// whichever way the first model has it (issue 17, item 4).
#[test]
fn uniqueness_does_not_depend_on_the_model_found() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_pruning: true}
  node_templates:
    one: {type: t}
    maybe: {type: t, conditions: free}
";
    assert_eq!(
        present(t, None).unwrap_err(),
        "The result is ambiguous considering nodes (without optimization)"
    );
    // A node without weight may be present in an optimal result or not.
    let weightless = t
        .replace(
            "{type_pruning: true}",
            "{type_pruning: true, optimization_topology: min}",
        )
        .replace("conditions: free}", "conditions: free, weight: 0}");
    assert_eq!(
        present(&weightless, None).unwrap_err(),
        "The result is ambiguous considering nodes (besides optimization)"
    );
    let decided = t.replace("conditions: free}", "conditions: {not: node.one}}");
    assert_eq!(present(&decided, None), Ok(vec!["one".to_string()]));
}

/// The technology chosen for the single node `app`.
fn technology(template: &str) -> Result<String, String> {
    let out = resolve_text(template, &[], None)?;
    let app = out
        .get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(|n| n.get("app"))
        .ok_or("no app")?;
    Ok(app
        .get("type")
        .and_then(|t| t.as_str())
        .unwrap_or_default()
        .to_string())
}

fn technologies(options: &str, techs: &str) -> String {
    format!(
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {{technology_pruning: true, {options}}}
  node_templates:
    app:
      type: app
      technology:
{techs}"
    )
}

const THREE: &str = "        - ansible: {conditions: true, weight: 0.5}
        - terraform: {conditions: true, weight: 1}
        - puppet: {conditions: true, weight: 0.2}
";

#[test]
fn technology_optimisation_modes() {
    // count (v1 default, minimise): every choice uses one technology: a tie,
    // broken by preferring absence in element order (the last one remains).
    assert_eq!(
        technology(&technologies("optimization_technologies: true", THREE)).as_deref(),
        Ok("app~app::puppet")
    );
    // weight, minimised
    assert_eq!(
        technology(&technologies(
            "optimization_technologies: true, optimization_technologies_mode: weight",
            THREE
        ))
        .as_deref(),
        Ok("app~app::puppet")
    );
    // weight, maximised
    assert_eq!(
        technology(&technologies(
            "optimization_technologies: max, optimization_technologies_mode: weight",
            THREE
        ))
        .as_deref(),
        Ok("app~app::terraform")
    );
}

/// Where nothing else decides, the earlier-listed of equally named
/// alternatives is present (issue 17, item 5): here both artifacts `image`
/// and both `host` requirements tie.
#[test]
fn ties_between_alternatives_keep_the_earlier_listed_one() {
    let t = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  variability:
    options: {mode: consistent-strict}
  node_templates:
    app:
      type: tosca.nodes.Root
      managed: false
      artifacts:
        - image: {file: first.tar}
        - image: {file: second.tar, default_alternative: true}
      requirements:
        - host: {node: vm_a, conditions: free}
        - host: vm_b
    vm_b: {type: tosca.nodes.Root, managed: false}
    vm_a: {type: tosca.nodes.Root, managed: false}
";
    let out = resolve_text(t, &[], None).expect("resolves");
    let app = out
        .get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(|n| n.get("app"))
        .expect("app");
    let file = app
        .get("artifacts")
        .and_then(|a| a.get("image"))
        .and_then(|i| i.get("file"))
        .and_then(|f| f.as_str());
    assert_eq!(file, Some("first.tar"));
    let host = app
        .get("requirements")
        .and_then(|r| r.as_seq())
        .and_then(|r| r.first())
        .and_then(|r| r.get("host"))
        .and_then(|h| h.as_str());
    assert_eq!(host, Some("vm_a"));
}

/// Ties prefer the earlier-listed alternative for every kind (issue 21):
/// also differently named types of an element, and the technologies of a
/// node where `unique_technology_constraint` allows one of them (without
/// it they are no alternatives: absence in element order decides, the
/// last remains, as the conformance test `technologies/unique-disabled`
/// expects).
#[test]
fn ties_keep_the_earlier_listed_type_and_technology() {
    let types = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    app:
      type:
        - first: {conditions: free}
        - second: {conditions: {not: free}}
";
    assert_eq!(technology(types).as_deref(), Ok("first"));
    let equal = "        - ansible: {conditions: true}
        - terraform: {conditions: true}
        - puppet: {conditions: true}
";
    let unique = "optimization_technologies: true, unique_technology_constraint: true";
    assert_eq!(
        technology(&technologies(unique, equal)).as_deref(),
        Ok("app~app::ansible")
    );
    assert_eq!(
        technology(&technologies("optimization_technologies: true", equal)).as_deref(),
        Ok("app~app::puppet")
    );
    // rc_3's defaults: the constraint is on, technologies are maximised.
    let rc3 = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  node_templates:
    app:
      type: app
      technology: [terraform, ansible, puppet]
";
    assert_eq!(technology(rc3).as_deref(), Ok("app~app::terraform"));
}

#[test]
fn technology_uniqueness_and_weights() {
    assert_eq!(
        technology(&technologies(
            "optimization_technologies: true, optimization_technologies_unique: true",
            THREE
        ))
        .unwrap_err(),
        "The result is ambiguous considering technologies (besides optimization)"
    );
    let negative = "        - ansible: {conditions: true, weight: -2}\n";
    assert_eq!(
        technology(&technologies("optimization_technologies: true", negative)).unwrap_err(),
        "Weight \"-2\" of technology \"ansible@0\" of node \"app\" is a negative number"
    );
    // Weights are booleans or non-negative numbers, any decimals (issue 12;
    // the reference rejects 2, true and 0.07).
    let weights = "        - ansible: {conditions: true, weight: 0.07}
        - terraform: {conditions: true, weight: 2}
        - puppet: {conditions: true, weight: true}
";
    let minimum = "optimization_technologies: min, optimization_technologies_mode: weight";
    assert_eq!(
        technology(&technologies(minimum, weights)).as_deref(),
        Ok("app~app::ansible")
    );
    let maximum = "optimization_technologies: max, optimization_technologies_mode: weight";
    assert_eq!(
        technology(&technologies(maximum, weights)).as_deref(),
        Ok("app~app::terraform")
    );
    let thirds = weights
        .replace("weight: 2}", "weight: 0.333}")
        .replace("weight: true", "weight: 0.334");
    assert_eq!(
        technology(&technologies(maximum, &thirds)).as_deref(),
        Ok("app~app::puppet")
    );
}

#[test]
fn node_weights_are_validated() {
    let t = |w: &str| {
        format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    n: {{type: t, weight: {w}}}\n")
    };
    assert_eq!(
        present(&t("-1"), None).unwrap_err(),
        "Weight \"-1\" of node \"n\" is a negative number"
    );
    assert_eq!(
        present(&t("abc"), None).unwrap_err(),
        "Weight \"abc\" of node \"n\" is not a number or boolean"
    );
    // Booleans and numbers above 1 are weights (issue 12).
    for w in ["1.5", "true", "false", "0.29"] {
        assert_eq!(present(&t(w), None), Ok(vec!["n".to_string()]), "{w}");
    }
}

/// `SELF` in a named logic expression is the element that uses it, for
/// every user (the reference binds it to the first one; issue 12).
#[test]
fn self_in_named_expressions_binds_to_each_user() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {expected_artifact_check: false}
    expressions:
      has_art: {has_artifact_naive: SELF}
      wrapped: {logic_expression: has_art}
  node_templates:
    a:
      type: t
      conditions: {logic_expression: has_art}
      artifacts: [{art: {file: f}}]
    b:
      type: t
      conditions: {logic_expression: wrapped}
      artifacts: [{art: {file: f, conditions: false}}]
    c:
      type: t
      conditions: {logic_expression: has_art}
";
    assert_eq!(present(t, None), Ok(vec!["a".to_string()]));
}

/// `artifact_presence: [SELF, x]` takes the node from the context, and a
/// property is found by name although every name has a hidden fallback
/// property (the reference fails on both; issue 12).
#[test]
fn self_artifacts_and_properties_by_name() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      on: {type: boolean}
  node_templates:
    a:
      type: t
      conditions: {artifact_presence: [SELF, image]}
      artifacts: [{image: {file: f, conditions: {variability_input: on}}}]
      properties: [{p: {value: 1, conditions: {variability_input: on}}}]
    b:
      type: t
      conditions: {node_property_presence: [a, p]}
";
    let on = present(t, Some("on: true"));
    assert_eq!(on, Ok(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(present(t, Some("on: false")), Ok(vec![]));
}

/// Solving reads the template's variability section (inputs, named
/// expressions, constraints) and the properties' `expression`s through
/// [`v4t_yaml::NodeRef`]: solving the normalised template read as a
/// [`v4t_yaml::Doc`] gives the solution the tree gives, the same conflict
/// (its parts and places) and the same family problem.
#[test]
fn a_document_solves_as_its_tree() {
    use crate::testing::{build, doc, normalize};
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string, default: prod}
      size: {type: integer, default: 2}
    expressions:
      is_prod: {equal: [{variability_input: env}, prod]}
      big: {greater: [{variability_input: size}, 1]}
    constraints:
      - {or: [{logic_expression: is_prod}, {node_presence: dev}]}
  node_templates:
    app:
      type: tosca.nodes.Root
      properties:
        - p: {expression: {concat: [{variability_input: env}, '-', {variability_input: size}]}}
    prod: {type: tosca.nodes.Root, conditions: {logic_expression: is_prod}}
    dev: {type: tosca.nodes.Root, conditions: {not: {logic_expression: is_prod}}}
    large: {type: tosca.nodes.Root, conditions: {logic_expression: big}}
";
    let mut tree = doc(template);
    normalize(&mut tree).expect("normalizes");
    let read = v4t_yaml::Doc::from_node(&tree, v4t_yaml::SourceId(0));
    let g = build(&tree).expect("builds");
    let files = crate::testing::type_files(&tree);
    let types = files.system();
    let shown = |r: &dyn std::fmt::Debug| format!("{r:?}");
    for inputs in ["{}", "{env: dev, size: 0}", "{env: dev}"] {
        let inputs = doc(inputs).as_map().cloned().unwrap_or_default();
        let solve = |d| super::solve_or_conflict(d, &g, &types, inputs.clone(), 0.0);
        let (a, b) = (solve((&tree).into()), solve(read.root()));
        assert_eq!(shown(&a), shown(&b));
        assert!(format!("{a:?}").contains("present"), "{a:?}");
    }
    // A conflict: `dev` is required absent by nothing, but prod is off and
    // the constraint needs one of them; forcing `dev` out conflicts.
    let dev = g.ordered().find(|&e| g.id(e) == "node.dev").expect("dev");
    let inputs = doc("{env: dev}").as_map().cloned().unwrap_or_default();
    let fixed = |d| super::solve_fixed(d, &g, &types, inputs.clone(), 0.0, (dev, false));
    let (a, b) = (fixed((&tree).into()), fixed(read.root()));
    assert_eq!(shown(&a), shown(&b));
    assert!(a.is_err(), "{a:?}");
    let family = |d| super::family_problem(d, &g, &types, 0.0).map(|p| (p.inputs, p.failures));
    let (a, b) = (family((&tree).into()), family(read.root()));
    assert_eq!(shown(&a), shown(&b));
}
