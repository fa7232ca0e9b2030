//! `v4t explain`: the deciding condition of elements removed by a manual
//! condition, by pruning, by a default condition, kept by an implication,
//! decided by the optimiser; minimal conflicts of variants that do not
//! resolve; and, on random templates, that every explanation by
//! conditions is a conflict with the element's other value and a minimal
//! one, and that the optimiser decides exactly the others.

use super::{explain, Decision, ElementExplanation, ExplainOptions, Explanation, InputOrigin};
use crate::reason::ReasonKind;
use crate::solve::explain::Guarded;
use crate::testing::{doc, random_assignment, random_template, Rng};
use crate::{NoFiles, ResolveOptions, Sources};

/// Explains `template` with the inputs `inputs` (YAML map text) and the
/// presets `presets`.
fn explained(template: &str, presets: &[&str], inputs: Option<&str>) -> Explanation {
    try_explained(template, presets, inputs, &[]).unwrap_or_else(|e| panic!("{}", e.message))
}

fn try_explained(
    template: &str,
    presets: &[&str],
    inputs: Option<&str>,
    elements: &[&str],
) -> crate::Result<Explanation> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ExplainOptions {
        variant: ResolveOptions {
            presets: presets.iter().map(|p| p.to_string()).collect(),
            inputs: inputs.map(doc),
            ..ResolveOptions::default()
        },
        elements: elements.iter().map(|e| e.to_string()).collect(),
    };
    explain(&mut sources, id, &mut NoFiles, &options)
}

fn element<'e>(e: &'e Explanation, id: &str) -> &'e ElementExplanation {
    e.elements
        .iter()
        .find(|x| x.id == id)
        .unwrap_or_else(|| panic!("no explanation of {id}"))
}

/// The line where `needle` first occurs in `text` (1-based).
fn line_of(text: &str, needle: &str) -> u32 {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the template"));
    text[..at].lines().count() as u32 + u32::from(text[..at].ends_with('\n'))
}

/// A shop like the bundled example: hosting alternatives chosen by `env`,
/// everything else pruned.
const SHOP: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string, default: dev}
    presets:
      prod: {inputs: {env: prod}}
    expressions:
      is_dev: {equal: [{variability_input: env}, dev]}
      is_prod: {equal: [{variability_input: env}, prod]}
    options:
      pruning: true
  node_templates:
    shop:
      type: tosca.nodes.WebApplication
      requirements:
        - host: web_server
    web_server:
      type: tosca.nodes.WebServer
      requirements:
        - host:
            node: dev_vm
            conditions: {logic_expression: is_dev}
        - host:
            node: prod_vm
            conditions: {logic_expression: is_prod}
    dev_vm:
      type: tosca.nodes.Compute
    prod_vm:
      type: tosca.nodes.Compute
";

#[test]
fn an_element_removed_by_its_manual_condition() {
    let e = explained(SHOP, &["prod"], None);
    assert!(e.error.is_none());
    let r = element(&e, "relation.host@0.node.web_server");
    assert!(!r.present);
    assert!(matches!(r.decision, Decision::Conditions));
    assert_eq!(r.summary, "absent: its manual condition is false");
    // The one reason: the condition as written, where it is written, with
    // the input it reads.
    assert_eq!(r.reasons.len(), 1, "{:?}", r.reasons);
    let why = &r.reasons[0];
    assert_eq!(why.kind, ReasonKind::ManualCondition);
    assert_eq!(
        why.message,
        "condition of relation \"host@0\" of node \"web_server\" is false for input env = \"prod\""
    );
    assert_eq!(why.condition.as_deref(), Some("is_dev"));
    assert_eq!(why.value, Some(false));
    assert_eq!(
        why.span.locate(SHOP).line,
        line_of(SHOP, "conditions: {logic_expression: is_dev}")
    );
    assert_eq!(why.span.locate(SHOP).col, 25);
    // The input's value and where it comes from.
    assert_eq!(e.inputs.len(), 1);
    assert_eq!(e.inputs[0].origin, InputOrigin::Preset("prod".to_string()));
    assert_eq!(
        e.inputs[0].span.locate(SHOP).line,
        line_of(SHOP, "prod: {inputs")
    );
}

#[test]
fn an_element_removed_by_pruning() {
    let e = explained(SHOP, &["prod"], None);
    let vm = element(&e, "node.dev_vm");
    assert!(!vm.present);
    assert_eq!(vm.summary, "absent: its pruning condition is false");
    let why = &vm.reasons[0];
    assert_eq!(why.kind, ReasonKind::PruningCondition);
    assert_eq!(
        why.message,
        "pruning condition of node \"dev_vm\" has_incoming_relation(dev_vm) is false"
    );
    // Generated: located at the element it belongs to.
    assert_eq!(why.span.locate(SHOP).line, line_of(SHOP, "    dev_vm:"));
    // It reads the manual conditions of the hosting relation (false, with
    // the input they read) and the presence of its source.
    let reads: Vec<(&str, bool, Option<bool>)> = why
        .reads
        .iter()
        .map(|r| (r.element.as_str(), r.manual, r.value))
        .collect();
    assert_eq!(
        reads,
        vec![
            ("relation.host@0.node.web_server", true, Some(false)),
            ("node.web_server", false, Some(true)),
        ]
    );
    assert_eq!(why.reads[0].condition.as_deref(), Some("is_dev"));
    assert_eq!(why.reads[0].inputs.len(), 1);
    // In the other variant the same node is kept by the same condition.
    let dev = explained(SHOP, &[], None);
    let vm = element(&dev, "node.dev_vm");
    assert!(vm.present);
    assert_eq!(vm.summary, "present: its pruning condition holds");
    assert_eq!(dev.inputs[0].origin, InputOrigin::Default);
}

#[test]
fn an_element_removed_by_a_default_condition() {
    // No pruning: only elements without manual conditions get one.
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      big: {type: boolean}
    options: {default_condition: true}
  node_templates:
    app:
      type: tosca.nodes.Root
      requirements:
        - uses: store
    store:
      type: tosca.nodes.Root
      conditions: {variability_input: big}
";
    let e = explained(template, &[], Some("big: false"));
    let r = element(&e, "relation.uses@0.node.app");
    assert!(!r.present);
    assert_eq!(r.summary, "absent: its default condition is false");
    let kinds: Vec<ReasonKind> = r.reasons.iter().map(|r| r.kind).collect();
    // Its default condition (source and target present), and why the
    // target is absent: its manual condition.
    assert_eq!(
        kinds,
        vec![ReasonKind::DefaultCondition, ReasonKind::ManualCondition]
    );
    assert_eq!(
        r.reasons[0].span.locate(template).line,
        line_of(template, "- uses: store")
    );
    assert_eq!(
        r.reasons[0].condition.as_deref(),
        Some("node_presence(app) and node_presence(store)")
    );
    assert_eq!(r.reasons[1].element.as_deref(), Some("node.store"));
    assert_eq!(
        r.reasons[1].span.locate(template).line,
        line_of(template, "conditions: {variability_input: big}")
    );
    // The store's own explanation: its manual condition.
    let store = element(&e, "node.store");
    assert_eq!(store.reasons[0].kind, ReasonKind::ManualCondition);
    assert_eq!(store.reasons.len(), 1);
}

#[test]
fn an_element_kept_by_an_implication() {
    // Pruning would remove `monitor` (nothing points at it), but it is
    // implied by its manual condition.
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      watch: {type: boolean}
    options: {pruning: true}
  node_templates:
    monitor:
      type: tosca.nodes.Root
      implied: true
      conditions: {variability_input: watch}
";
    let e = explained(template, &[], Some("watch: true"));
    let m = element(&e, "node.monitor");
    assert!(m.present);
    assert_eq!(m.summary, "present: it is implied by its manual conditions");
    assert_eq!(m.reasons[0].kind, ReasonKind::Implied);
    assert_eq!(
        m.reasons[0].span.locate(template).line,
        line_of(template, "implied: true")
    );
    assert_eq!(
        m.reasons[0].message,
        "Node \"monitor\" is implied: it is present where its manual conditions hold"
    );
}

/// Two of three nodes can go; the optimiser keeps the lightest.
const WEIGHTS: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options:
      type_pruning: true
      optimization_topology: min
      optimization_topology_mode: weight
      optimization_topology_unique: false
    constraints:
      - {or: [node.heavy, node.light, node.other]}
  node_templates:
    heavy: {type: t, weight: 1, conditions: h}
    light: {type: t, weight: 0.5, conditions: l}
    other: {type: t, weight: 0.5, conditions: o}
";

#[test]
fn an_element_removed_by_optimisation() {
    let e = explained(WEIGHTS, &[], None);
    assert_eq!(e.objectives, vec![("topology".to_string(), 50)]);
    let heavy = element(&e, "node.heavy");
    assert!(!heavy.present);
    assert!(heavy.reasons.is_empty());
    let Decision::Objective {
        name,
        weight,
        value,
        alternative_value,
        alternative,
        goal,
        option,
    } = &heavy.decision
    else {
        panic!("{:?}", heavy.decision);
    };
    assert_eq!(name, "topology");
    assert_eq!(
        option.locate(WEIGHTS).line,
        line_of(WEIGHTS, "optimization_topology: min")
    );
    assert_eq!(
        goal,
        "minimises the sum of the weights of the present nodes (optimization_topology)"
    );
    assert_eq!((*weight, *value, *alternative_value), (Some(100), 50, 100));
    // The alternative it beat: itself present instead of the one kept.
    assert_eq!(
        alternative,
        &vec![
            ("node.heavy".to_string(), true),
            ("node.other".to_string(), false)
        ]
    );
    assert_eq!(
        heavy.summary,
        "absent: the optimiser minimises the sum of the weights of the present nodes \
         (optimization_topology): 50 here, 100 with it present"
    );
    // `light` and `other` weigh the same: a tie, broken in element order.
    let light = element(&e, "node.light");
    assert!(!light.present);
    assert!(matches!(&light.decision, Decision::Tie { alternative, .. }
        if alternative == &vec![("node.light".to_string(), true), ("node.other".to_string(), false)]));
    assert!(element(&e, "node.other").present);
}

/// The conflict of "Could not solve".
const CONFLICT: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string}
    constraints:
      - {node_presence: app}
      - {node_presence: db}
  node_templates:
    app:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, dev]}
    db:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, prod]}
";

#[test]
fn an_unsatisfiable_variant_has_a_minimal_conflict() {
    let e = explained(CONFLICT, &[], Some("env: dev"));
    let error = e.error.as_ref().expect("fails");
    assert_eq!(error.message, "Could not solve");
    assert!(e.elements.is_empty());
    let parts: Vec<(ReasonKind, u32)> = e
        .conflict
        .iter()
        .map(|r| (r.kind, r.span.locate(CONFLICT).line))
        .collect();
    assert_eq!(
        parts,
        vec![
            (
                ReasonKind::Constraint,
                line_of(CONFLICT, "- {node_presence: db}")
            ),
            (
                ReasonKind::ManualCondition,
                line_of(
                    CONFLICT,
                    "conditions: {equal: [{variability_input: env}, prod]}"
                )
            ),
        ]
    );
    assert_eq!(e.conflict[1].inputs.len(), 1);
    // The notes of the error are the conflict's messages.
    let notes: Vec<&str> = error.notes.iter().map(|n| n.message.as_str()).collect();
    let messages: Vec<&str> = e.conflict.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(notes, messages);

    // A conflict: removing any one part from the template (its line)
    // makes the variant resolve; removing a line that is no part does not.
    for r in &e.conflict {
        let without: String = CONFLICT
            .lines()
            .enumerate()
            .filter(|(i, _)| *i as u32 + 1 != r.span.locate(CONFLICT).line)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let again = explained(&without, &[], Some("env: dev"));
        assert!(
            again.error.is_none(),
            "without {}: {:?}",
            r.message,
            again.error
        );
    }
    let without_app_constraint = CONFLICT.replace("      - {node_presence: app}\n", "");
    assert!(explained(&without_app_constraint, &[], Some("env: dev"))
        .error
        .is_some());
}

#[test]
fn a_violated_feature_model_is_explained_by_rules_and_values() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      db: {type: boolean, requires: cache}
      cache: {type: boolean}
  node_templates:
    app: {type: tosca.nodes.Root}
";
    let e = explained(template, &[], Some("{db: true, cache: false}"));
    assert_eq!(
        e.error.as_ref().map(|e| e.message.as_str()),
        Some("Variability inputs constraints are violated")
    );
    let kinds: Vec<ReasonKind> = e.conflict.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ReasonKind::FeatureRule,
            ReasonKind::InputValue,
            ReasonKind::InputValue
        ]
    );
    assert_eq!(e.conflict[0].span.locate(template).line, 5);
}

#[test]
fn elements_are_named_by_id_or_node_name() {
    let e = try_explained(
        SHOP,
        &["prod"],
        None,
        &["dev_vm", "relation.host@1.node.web_server"],
    )
    .expect("explains");
    let ids: Vec<&str> = e.elements.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, vec!["node.dev_vm", "relation.host@1.node.web_server"]);
    let err = try_explained(SHOP, &[], None, &["dev_wm"]).expect_err("unknown");
    assert_eq!(
        err.message,
        "No element \"dev_wm\" in the template; did you mean \"dev_vm\"?"
    );
    assert_eq!(err.code, crate::Code::UndefinedReference);
    // All: no internal fallback properties, types after the rest.
    let all = explained(
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t, properties: [{p: 1}]}
",
        &[],
        None,
    );
    let ids: Vec<&str> = all.elements.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["node.a", "property.p@0.node.a", "type.t@0.node.a"]
    );
}

/// On random templates and assignments (half of them with hosting and
/// technologies): an element is decided by conditions exactly when no
/// solution gives it its other value; then its reasons, with that other
/// value, have no solution, and without any one of them they have one (a
/// minimal conflict); every conflict of a variant without solution is
/// minimal too.
#[test]
fn explanations_are_minimal_conflicts_on_random_templates() {
    let mut rng = Rng::new(0x5eed_e5e1_a1b0_0001);
    let (mut by_conditions, mut by_optimiser, mut unsatisfiable) = (0, 0, 0);
    // Technologies and hosting relations decided by conditions.
    let (mut technologies, mut hosts) = (0, 0);
    for round in 0..240 {
        let inputs = 1 + rng.below(4) as usize;
        let nodes = 2 + rng.below(5) as usize;
        // Every other round with hosting and technologies (issue 21).
        let deployment = round % 2 == 1;
        let mut text = random_template(&mut rng, inputs, &['b', 'b', 'f'], nodes, deployment);
        if rng.below(2) == 0 {
            text = text.replace(
                "    options: {",
                "    options: {optimization_topology: min, optimization_topology_unique: false, ",
            );
        }
        let inputs_text = random_assignment(&mut rng, inputs);
        let ctx = format!("round {round}\n{text}\ninputs {inputs_text}");
        let mut sources = Sources::new();
        let prepared = crate::testing::prepare(&mut sources, &text)
            .unwrap_or_else(|e| panic!("{ctx}\n{}", e.message));
        let types = prepared.files.system();
        let (d, g, types) = (&prepared.doc, &prepared.graph, &types);
        let assigned = match doc(&inputs_text).value {
            v4t_yaml::Value::Map(m) => m,
            _ => unreachable!("a map"),
        };
        let Ok(mut guarded) = Guarded::new(d.into(), g, types, assigned.clone(), 0.0) else {
            continue;
        };
        let solution = crate::solve::solve(d, g, types, assigned.clone(), 0.0);
        let Ok(solution) = solution else {
            // No solution: the conflict is one, and minimal.
            if let Some(parts) = guarded.conflict(&[]) {
                assert_minimal_conflict(&mut guarded, &parts, &[], &ctx);
                unsatisfiable += 1;
            }
            continue;
        };
        for x in g.ordered() {
            let present = solution.is_present(x);
            let other = other_value(&mut guarded, &solution, x);
            let fixed =
                crate::solve::solve_fixed(d.into(), g, types, assigned.clone(), 0.0, (x, !present));
            match guarded.conflict_near(x, &[other], &mut || false) {
                Some(parts) => {
                    by_conditions += 1;
                    let e = g.get(x);
                    technologies += usize::from(e.kind == crate::graph::Kind::Technology);
                    hosts +=
                        usize::from(e.kind == crate::graph::Kind::Relation && g.name(x) == "host");
                    let unsat = matches!(&fixed, Err(e) if e.code == crate::Code::Unsatisfiable);
                    assert!(unsat, "{ctx}: {} has another value", g.id(x));
                    let at = format!("{ctx}: {}", g.id(x));
                    assert_minimal_conflict(&mut guarded, &parts, &[other], &at);
                }
                None => {
                    by_optimiser += 1;
                    assert!(fixed.is_ok(), "{ctx}: {} decided by nothing", g.id(x));
                }
            }
        }
    }
    assert!(by_conditions > 300, "{by_conditions}");
    assert!(by_optimiser > 20, "{by_optimiser}");
    assert!(unsatisfiable > 3, "{unsatisfiable}");
    assert!(technologies > 100 && hosts > 50, "{technologies} {hosts}");
}

/// Asking whether the element's other value has a solution once many
/// parts are on (as `explain` does, to stop growing around an element the
/// optimiser decided) changes no answer: on a hosting chain (whose far
/// end is present because of its first node, beyond many parts) and on
/// larger random templates, the conflict is the same as without asking;
/// both answers of the question occur.
#[test]
fn asking_for_a_solution_changes_no_conflict() {
    let mut rng = Rng::new(0x5eed_e5e1_a1b0_0002);
    let mut chain = format!(
        "{RC3_QUALITIES}      - {{component: tosca.nodes.Root, technology: t, weight: 1}}
  node_templates:
    n0: {{type: tosca.nodes.Root, anchor: true, requirements: [{{host: n1}}]}}
"
    );
    for i in 1..30 {
        let host = i + 1;
        chain.push_str(&format!(
            "    n{i}: {{type: tosca.nodes.Root, requirements: [{{host: n{host}}}]}}\n"
        ));
    }
    chain.push_str("    n30: {type: tosca.nodes.Root}\n");
    let mut templates = vec![chain];
    for round in 0..40 {
        let nodes = 12 + rng.below(12) as usize;
        let text = random_template(&mut rng, 3, &['b'], nodes, round % 2 == 0);
        templates.push(text.replace(
            "    options: {",
            "    options: {optimization_topology: min, optimization_topology_unique: false, ",
        ));
    }
    let (mut solvable_asked, mut unsolvable_asked) = (0, 0);
    for (k, text) in templates.iter().enumerate() {
        // The chain (first) must be explained; a random template may not
        // resolve.
        let fails = |e: crate::Error| assert!(k > 0, "{}", e.message);
        let mut sources = Sources::new();
        let prepared = match crate::testing::prepare(&mut sources, text) {
            Ok(p) => p,
            Err(e) => {
                fails(e);
                continue;
            }
        };
        let types = prepared.files.system();
        let (d, g) = (&prepared.doc, &prepared.graph);
        let v4t_yaml::Value::Map(inputs) = doc("{b0: true, b1: false, b2: true}").value else {
            unreachable!("a map")
        };
        let inputs = if k == 0 { v4t_yaml::Map::new() } else { inputs };
        let found = crate::solve::solve(d, g, &types, inputs.clone(), 0.0)
            .and_then(|s| Ok((s, Guarded::new(d.into(), g, &types, inputs.clone(), 0.0)?)));
        let (solution, mut guarded) = match found {
            Ok(found) => found,
            Err(e) => {
                fails(e);
                continue;
            }
        };
        for x in g.ordered() {
            let present = solution.is_present(x);
            let other = other_value(&mut guarded, &solution, x);
            let fixed =
                crate::solve::solve_fixed(d.into(), g, &types, inputs.clone(), 0.0, (x, !present));
            let unsolvable = matches!(&fixed, Err(e) if e.code == crate::Code::Unsatisfiable);
            let plain = guarded.conflict_near(x, &[other], &mut || false);
            let mut asked = false;
            let asking = guarded.conflict_near(x, &[other], &mut || {
                asked = true;
                fixed.is_ok()
            });
            assert_eq!(asking, plain, "{}\n{text}", g.id(x));
            // A conflict exactly where the other value has no solution.
            assert_eq!(asking.is_some(), unsolvable, "{}\n{text}", g.id(x));
            if asked {
                *if fixed.is_ok() {
                    &mut solvable_asked
                } else {
                    &mut unsolvable_asked
                } += 1;
            }
        }
    }
    assert!(
        solvable_asked > 20 && unsolvable_asked > 50,
        "{solvable_asked} {unsolvable_asked}"
    );
}

/// The start of a `tosca_variability_1_0_rc_3` template up to its
/// technology rules (`qualities`).
const RC3_QUALITIES: &str = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  variability:
    qualities:
";

/// `n` anchored components on one host, with the technology rules of
/// `tosca_variability_1_0_rc_3`: the host is a hub (every relation to it
/// reads it) and its pruning condition a wide part (it reads every one).
fn fan(n: usize) -> String {
    let mut text = format!(
        "{RC3_QUALITIES}      - {{component: tosca.nodes.Compute, technology: terraform, weight: 1}}
      - {{component: tosca.nodes.SoftwareComponent, technology: ansible, hosting: [tosca.nodes.Compute], weight: 1}}
  node_templates:
    h: {{type: tosca.nodes.Compute}}
"
    );
    for i in 0..n {
        text.push_str(&format!(
            "    n{i}: {{type: tosca.nodes.SoftwareComponent, anchor: true, requirements: [{{host: h}}]}}\n"
        ));
    }
    text
}

/// Explains every element of [`fan`]`(n)`; returns the work of the
/// searches ([`Guarded::searched`]). Each explanation is checked to be a
/// conflict with the element's other value, and a minimal one.
fn explain_fan(n: usize, check: bool) -> u64 {
    let text = fan(n);
    let mut sources = Sources::new();
    let prepared =
        crate::testing::prepare(&mut sources, &text).unwrap_or_else(|e| panic!("{}", e.message));
    let types = prepared.files.system();
    let (d, g) = (&prepared.doc, &prepared.graph);
    let inputs = v4t_yaml::Map::new();
    let solution = crate::solve::solve(d, g, &types, inputs.clone(), 0.0).expect("a solution");
    let mut guarded = Guarded::new(d.into(), g, &types, inputs, 0.0).expect("encoded");
    let mut explained = 0;
    for x in g.ordered() {
        let other = other_value(&mut guarded, &solution, x);
        let Some(parts) = guarded.conflict_near(x, &[other], &mut || false) else {
            continue;
        };
        explained += 1;
        if check {
            assert_minimal_conflict(&mut guarded, &parts, &[other], &g.id(x).to_string());
        }
    }
    // The host, its type and technology, and per component itself, its
    // type, technology and relation.
    assert_eq!(explained, 3 + 4 * n);
    guarded.searched()
}

/// The explanations of a fan are minimal conflicts, and the work of
/// finding them grows with the fan, not with its square: a question about
/// a component searches the component's neighbourhood, not the host's
/// (which reads every component).
#[test]
fn explaining_a_fan_costs_what_its_neighbourhoods_do() {
    let small = explain_fan(40, true);
    let large = explain_fan(160, false);
    // Linear is 4 times as much; one search of the host's neighbourhood
    // per component made it about 16.
    assert!(large < 7 * small, "{small} then {large}");
}

/// The literal of element `x` having the other value than in `solution`.
fn other_value(
    guarded: &mut Guarded<'_>,
    solution: &crate::solve::Solution,
    x: crate::graph::ElementId,
) -> v4t_sat::Lit {
    let p = guarded.presence(x);
    if solution.is_present(x) {
        !p
    } else {
        p
    }
}

/// `parts` have no solution with `extra`, and each one is needed: without
/// it, the rest has one.
fn assert_minimal_conflict(
    guarded: &mut Guarded<'_>,
    parts: &[usize],
    extra: &[v4t_sat::Lit],
    at: &str,
) {
    assert!(!guarded.satisfiable(parts, extra), "{at}");
    for k in 0..parts.len() {
        let mut rest = parts.to_vec();
        rest.remove(k);
        assert!(
            guarded.satisfiable(&rest, extra),
            "{at}: part {k} not needed"
        );
    }
}

/// The explanation of every element of `template`'s variant (`presets`,
/// `inputs`) read from its prepared document as a tree and as a
/// [`v4t_yaml::Doc`]: the input values and their origins, the conflicts,
/// the reasons and the objectives' options must come out the same.
fn explanations_alike(template: &str, presets: &[&str], inputs: Option<&str>) -> String {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let variant = ResolveOptions {
        presets: presets.iter().map(|p| p.to_string()).collect(),
        inputs: inputs.map(doc),
        ..ResolveOptions::default()
    };
    let (prepared, assigned) = crate::prepare_variant(
        &mut sources,
        id,
        &mut NoFiles,
        &variant,
        &mut |_| {},
        &mut Vec::new(),
    )
    .expect("prepares");
    let types = prepared.files.system();
    let wanted = super::select(&prepared.graph, &[]).expect("selects");
    let arena = v4t_yaml::Doc::from_node(&prepared.doc, id);
    let readings = [v4t_yaml::NodeRef::from(&prepared.doc), arena.root()];
    let [tree, arena] = readings.map(|d| {
        let parts = (&prepared.graph, &types, &sources);
        let e = super::explain_prepared(d, parts, assigned.clone(), &variant, &wanted);
        format!("{e:?}")
    });
    assert_eq!(tree, arena, "{template}");
    tree
}

#[test]
fn explaining_reads_a_document_as_its_tree() {
    let shop = explanations_alike(SHOP, &["prod"], None);
    assert!(shop.contains("Preset(\"prod\")"), "{shop}");
    let weights = explanations_alike(WEIGHTS, &[], None);
    assert!(weights.contains("Objective {"), "{weights}");
    let rules = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      db: {type: boolean, requires: cache}
      cache: {type: boolean, default: false}
  node_templates:
    app: {type: tosca.nodes.Root}
";
    let violated = explanations_alike(rules, &[], Some("{db: true}"));
    assert!(
        violated.contains("FeatureRule") && violated.contains("Default"),
        "{violated}"
    );
    let mut rng = Rng::new(0x5eed_e5e1_d0c5_0023);
    for _ in 0..30 {
        let inputs = 1 + rng.below(4) as usize;
        let nodes = 2 + rng.below(4) as usize;
        let text = random_template(&mut rng, inputs, &['b', 'b', 'f'], nodes, true);
        let inputs = random_assignment(&mut rng, inputs);
        explanations_alike(&text, &[], Some(&inputs));
    }
}
