//! The enricher's generated conditions and constraints, per mode token and
//! per constraint kind, checked on small templates in their exact shapes.

use crate::testing::{doc, enrich, version};
use v4t_yaml::json::to_json;
use v4t_yaml::Node;

/// Enriches `template` and returns the enriched document.
fn enriched(template: &str) -> Node {
    let mut d = doc(template);
    enrich(&mut d).expect("enriches");
    d
}

fn enrich_error(template: &str) -> String {
    let mut d = doc(template);
    enrich(&mut d).expect_err("fails").message.clone()
}

/// The definition of node template `name` in the (normalised) list.
fn node<'a>(d: &'a Node, name: &str) -> &'a Node {
    let nodes = d
        .get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .expect("nodes");
    nodes
        .as_seq()
        .expect("list")
        .iter()
        .find_map(|n| n.get(name))
        .expect("node")
}

/// The conditions of the definition of a single-entry map (an entry of a
/// normalised list).
fn entry_conditions(entry: &Node) -> String {
    let (_, definition) = entry.as_map().unwrap().first().unwrap();
    to_json(definition.get("conditions").unwrap())
}

/// The conditions written to node `name`.
fn node_conditions(d: &Node, name: &str) -> String {
    to_json(node(d, name).get("conditions").expect("conditions"))
}

fn constraints(d: &Node) -> String {
    d.get("topology_template")
        .and_then(|t| t.get("variability"))
        .and_then(|v| v.get("constraints"))
        .map(to_json)
        .unwrap_or_default()
}

fn template(options: &str, nodes: &str) -> String {
    format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    options: {{{options}}}\n  node_templates:\n{nodes}")
}

const NODES: &str = "    a:
      type: t
      requirements:
        - host: b
        - uses: c
      artifacts:
        - art: {file: f}
    b:
      type: t
    c:
      type: t
      anchor: true
";

#[test]
fn node_mode_tokens() {
    for (mode, expected) in [
        (
            "incoming",
            r#"[{"has_incoming_relation":"b","_generated":true}]"#,
        ),
        (
            "incomingnaive",
            r#"[{"has_incoming_relation_naive":"b","_generated":true}]"#,
        ),
        ("outgoing", r#"[{"and":[],"_generated":true}]"#),
        ("host", r#"[{"and":[],"_generated":true}]"#),
        // `source` looks at incoming relations (the reference: outgoing).
        ("source", r#"[{"has_source":"b","_generated":true}]"#),
        // `relation`: the spec's per-node name of `incoming`.
        (
            "relation",
            r#"[{"has_incoming_relation":"b","_generated":true}]"#,
        ),
        ("artifact", r#"[{"and":[],"_generated":true}]"#),
    ] {
        let d = enriched(&template(
            &format!("node_pruning: true, node_default_condition_mode: {mode}"),
            NODES,
        ));
        assert_eq!(node_conditions(&d, "b"), expected, "{mode}");
    }
    for (mode, expected) in [
        ("host", r#"[{"host_presence":"SELF","_generated":true}]"#),
        ("source", r#"[{"and":[],"_generated":true}]"#),
        (
            "outgoing",
            r#"[{"has_outgoing_relation":"a","_generated":true}]"#,
        ),
        (
            "outgoingnaive",
            r#"[{"has_outgoing_relation_naive":"a","_generated":true}]"#,
        ),
        ("artifact", r#"[{"has_artifact":"a","_generated":true}]"#),
        (
            "artifactnaive",
            r#"[{"has_artifact_naive":"a","_generated":true}]"#,
        ),
        (
            "host-artifact",
            r#"[{"and":[{"host_presence":"SELF"},{"has_artifact":"a"}],"_generated":true}]"#,
        ),
    ] {
        let d = enriched(&template(
            &format!("node_pruning: true, node_default_condition_mode: {mode}"),
            NODES,
        ));
        assert_eq!(node_conditions(&d, "a"), expected, "{mode}");
    }
    // anchors are never pruned
    let d = enriched(&template("node_pruning: true", NODES));
    assert_eq!(node_conditions(&d, "c"), "[]");
    assert_eq!(
        enrich_error(&template(
            "node_pruning: true, node_default_condition_mode: bogus",
            NODES
        )),
        "Node \"a\" has unknown mode \"bogus\" as default condition"
    );
}

#[test]
fn default_conditions_apply_only_without_manual_conditions() {
    let nodes = "    a: {type: t, requirements: [{r: b}]}\n    b: {type: t}\n    d: {type: t, conditions: true, requirements: [{r: b}]}\n";
    let d = enriched(&template(
        "node_default_condition: true, node_default_condition_mode: incoming",
        nodes,
    ));
    assert_eq!(
        node_conditions(&d, "b"),
        r#"[{"has_incoming_relation":"b","_generated":true}]"#
    );
    assert_eq!(node_conditions(&d, "d"), "[true]");
    let d = enriched(&template(
        "node_pruning: true, node_default_condition_mode: outgoing",
        nodes,
    ));
    assert_eq!(
        node_conditions(&d, "d"),
        r#"[{"has_outgoing_relation":"d","_generated":true},true]"#
    );
}

fn relation_conditions(d: &Node, name: &str, index: usize) -> String {
    let requirements = node(d, name).get("requirements").unwrap();
    entry_conditions(&requirements.as_seq().unwrap()[index])
}

#[test]
fn relation_mode_tokens_and_default_alternatives() {
    let nodes = "    a:\n      type: t\n      requirements:\n        - r: {node: b, conditions: false}\n        - r: {node: c, default_alternative: true}\n    b: {type: t}\n    c: {type: t}\n";
    let d = enriched(&template("relation_pruning: true", nodes));
    assert_eq!(
        relation_conditions(&d, "a", 0),
        r#"[{"and":[{"node_presence":"a"},{"node_presence":"b"}],"_generated":true},false]"#
    );
    assert_eq!(
        relation_conditions(&d, "a", 1),
        r#"[{"and":[{"node_presence":"a"},{"node_presence":"c"}],"_generated":true},{"not":{"or":[{"relation_presence":["a",0]}]},"_bratan":true}]"#
    );
    let d = enriched(&template(
        "relation_pruning: true, relation_default_condition_mode: target",
        nodes,
    ));
    assert_eq!(
        relation_conditions(&d, "a", 0),
        r#"[{"node_presence":"b","_generated":true},false]"#
    );
    let plain = "    a:\n      type: t\n      requirements:\n        - r: {node: b, conditions: false}\n        - r: {node: c}\n    b: {type: t}\n    c: {type: t}\n";
    let d = enriched(&template(
        "relation_pruning: true, relation_default_condition_mode: default",
        plain,
    ));
    assert_eq!(
        relation_conditions(&d, "a", 1),
        r#"[{"not":{"or":[{"relation_presence":["a",0]}]},"_bratan":true,"_generated":true}]"#
    );
}

fn property_conditions(d: &Node, name: &str) -> Vec<String> {
    let properties = node(d, name).get("properties").unwrap();
    properties
        .as_seq()
        .unwrap()
        .iter()
        .map(entry_conditions)
        .collect()
}

#[test]
fn property_mode_tokens_and_fallbacks() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  inputs:
    port: {type: integer}
  variability:
    options: {property_pruning: true}
  node_templates:
    a:
      type: t
      properties:
        - p: {get_input: port}
";
    let d = enriched(t);
    let props = property_conditions(&d, "a");
    assert_eq!(
        props[0],
        r#"[{"and":[{"node_presence":"a"},{"input_presence":0}],"_generated":true}]"#
    );
    // the fallback of mode A: a default alternative, absent when `p` is present
    assert_eq!(
        props[1],
        r#"[{"node_presence":"a","_generated":true},{"not":{"or":[{"node_property_presence":["a",0]}]},"_bratan":true}]"#
    );
}

#[test]
fn type_artifact_technology_and_output_tokens() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_pruning: true, artifact_pruning: true, artifact_default_condition_mode: container-technology, technology_pruning: true, output_pruning: true, output_semantic_pruning: false}
  node_templates:
    a:
      type: t
      artifacts: [{art: f}]
      technology: [{ansible: {}}, {terraform: {}}]
  outputs:
    o: {value: {get_property: [a, p]}}
";
    let d = enriched(t);
    let a = node(&d, "a");
    let ty = &a.get("type").unwrap().as_seq().unwrap()[0];
    assert_eq!(
        to_json(ty),
        r#"{"t":{"conditions":[{"node_presence":"a","_generated":true}]}}"#
    );
    let art = &a.get("artifacts").unwrap().as_seq().unwrap()[0];
    assert_eq!(
        to_json(art.get("art").unwrap().get("conditions").unwrap()),
        r#"[{"and":[{"node_presence":"a"},{"is_managed":"SELF"}],"_generated":true}]"#
    );
    let tech = &a.get("technology").unwrap().as_seq().unwrap()[0];
    assert_eq!(
        to_json(tech.get("ansible").unwrap().get("conditions").unwrap()),
        r#"[{"and":[{"node_presence":"a"},{"not":{"or":[{"technology_presence":["a",1]}]},"_bratan":true}],"_generated":true}]"#
    );
    let o = &d
        .get("topology_template")
        .unwrap()
        .get("outputs")
        .unwrap()
        .as_seq()
        .unwrap()[0];
    // `produced` is a consistency condition (the spec's table; the
    // reference makes it semantic).
    assert_eq!(
        to_json(o.get("o").unwrap().get("conditions").unwrap()),
        r#"[{"is_produced":0,"_generated":true}]"#
    );
}

#[test]
fn input_name_conditions() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      node.a: {type: boolean}
  node_templates:
    a: {type: t}
";
    let d = enriched(t);
    assert_eq!(
        node_conditions(&d, "a"),
        r#"[{"variability_input":"node.a"}]"#
    );
}

#[test]
fn constraint_kinds() {
    let nodes = "    a:\n      type: t\n      requirements: [{host: b}, {host: c}]\n      artifacts: [{x: f}, {x: g}]\n    b: {type: t}\n    c: {type: t}\n";
    for (option, expected) in [
        (
            "relation_source_constraint",
            r#"{"implies":["relation.host@0.node.a","node.b"]}"#,
        ),
        (
            "relation_target_constraint",
            r#"{"implies":["relation.host@0.node.a","node.a"]}"#,
        ),
        (
            "unique_artifact_constraint",
            r#"{"amo":["artifact.x@0.node.a","artifact.x@1.node.a"]}"#,
        ),
        (
            "artifact_container_constraint",
            r#"{"implies":["artifact.x@0.node.a","node.a"]}"#,
        ),
        (
            "type_container_constraint",
            r#"{"implies":["type.t@0.node.a","node.a"]}"#,
        ),
        (
            "required_hosting_constraint",
            r#"{"implies":["node.a",{"exo":["relation.host@0.node.a","relation.host@1.node.a"]}]}"#,
        ),
        (
            "single_hosting_constraint",
            r#"{"amo":["relation.host@0.node.a","relation.host@1.node.a"]}"#,
        ),
        (
            "required_incoming_relation_constraint",
            r#"{"implies":["node.b",{"or":["relation.host@0.node.a"]}]}"#,
        ),
        (
            "required_artifact_constraint",
            r#"{"implies":["node.a",{"exo":["artifact.x@0.node.a","artifact.x@1.node.a"]}]}"#,
        ),
        (
            "unique_relation_constraint",
            r#"{"implies":["node.a",{"amo":["relation.host@0.node.a","relation.host@1.node.a"]}]}"#,
        ),
    ] {
        let d = enriched(&template(&format!("{option}: true"), nodes));
        assert!(
            constraints(&d).contains(expected),
            "{option}: {}",
            constraints(&d)
        );
    }
}

#[test]
fn implication_constraints() {
    let nodes = "    a: {type: t, implied: true, conditions: x, requirements: [{r: {node: b, implied: true}}]}\n    b: {type: t}\n";
    let d = enriched(&template("relation_default_implied: false", nodes));
    let c = constraints(&d);
    assert!(
        c.contains(r#"{"implies":["manual.node.a","node.a"]}"#),
        "{c}"
    );
    assert!(
        c.contains(r#"{"implies":[{"and":["node.a","manual.relation.r@0.node.a","manual.node.b"]},"relation.r@0.node.a"]}"#),
        "{c}"
    );
}

#[test]
fn variability_groups_add_their_conditions_and_disappear() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t}
  groups:
    g:
      type: variability.groups.ConditionalMembers
      members: [a]
      conditions: {not: true}
";
    let d = enriched(t);
    assert_eq!(node_conditions(&d, "a"), r#"[{"not":true}]"#);
    assert!(d.get("topology_template").unwrap().get("groups").is_none());
}

/// A type-specific default condition replaces the generic one (the
/// reference adds it to the generic one).
#[test]
fn type_specific_conditions_override_generic_ones() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {node_pruning: true, node_default_condition_mode: incoming}
    type_specific_conditions:
      node_types:
        monitor:
          conditions: {host_presence: SELF}
  node_templates:
    m: {type: monitor, requirements: [{host: h}]}
    h: {type: vm}
";
    let d = enriched(t);
    assert_eq!(
        node_conditions(&d, "m"),
        r#"[{"host_presence":"SELF","_generated":true}]"#
    );
    let missing = t.replace("conditions: {host_presence: SELF}", "semantic: true");
    assert_eq!(
        enrich_error(&missing),
        "Node \"m\" holds type-specific condition without any condition"
    );
}

#[test]
fn technology_and_uniqueness_constraints() {
    let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {required_technology_constraint: true, unique_technology_constraint: true, unique_property_constraint: true, unique_input_constraint: true, unique_output_constraint: true}
  inputs:
    i: {type: string}
  node_templates:
    a:
      type: t
      properties: [{p: {get_input: i}}]
      technology: [{ansible: {}}, {terraform: {}}]
    b: {type: t, managed: false}
  outputs:
    o: {value: 1}
";
    let c = constraints(&enriched(t));
    for expected in [
        r#"{"implies":["node.a",{"exo":["technology.ansible@0.node.a","technology.terraform@1.node.a"]}]}"#,
        r#"{"amo":["technology.ansible@0.node.a","technology.terraform@1.node.a"]}"#,
        r#"{"amo":["property.p@0.node.a","property.p@1.node.a"]}"#,
        r#"{"amo":["input.i@0"]}"#,
        r#"{"amo":["output.o@0"]}"#,
    ] {
        assert!(c.contains(expected), "{expected} in {c}");
    }
    assert!(
        !c.contains("node.b\",{\"exo"),
        "unmanaged nodes need no technology: {c}"
    );
}

/// The resolver graph reused from the enricher (conditions kept in the
/// graph, [`crate::graph::rebuild`]) equals a fresh build of the enriched
/// document, including relation defaults whose option the enricher deletes.
#[test]
fn reused_resolver_graph_equals_a_fresh_build() {
    use crate::graph::{build_moving_conditions, rebuild, Cond};
    use crate::testing::{normalize, options};
    for template in [
        "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs: {x: {type: boolean}}
    options: {relation_default_implied: true, node_default_condition: true, relation_default_condition: true}
  node_templates:
    a:
      type: t
      conditions: {variability_input: x}
      requirements: [{db: b}, {host: {node: b, conditions: false}}]
      properties: [{p: 1}, {p: {value: 2, default_alternative: true}}]
    b: {type: [{u: {conditions: true}}, {v: {default_alternative: true}}]}
  groups:
    g: {type: tosca.groups.Root, members: [a]}
",
        "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs: {x: {type: boolean}}
  node_templates:
    a: {type: t, conditions: {variability_input: x}}
",
        // A null definition and element option keys: the write-back edits
        // these definitions for the resolver too.
        "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: [{u: null}], default_condition: true, pruning: false}
",
        // Rule-derived technologies, from both passes and in an order other
        // than the rules': their scenarios are placed into graph #2 when
        // resolving and read from the document otherwise.
        "
tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
  tosca.nodes.Root: {}
  app: {}
  db: {}
  vm: {metadata: {vintner_abstract: 'true'}}
topology_template:
  variability:
    inputs: {fast: {type: boolean}, db: {type: boolean}}
    qualities:
      - {component: app, technology: ansible, hosting: [vm], conditions: {variability_input: fast}, weight: 0.5}
      - {component: app, technology: terraform, hosting: [vm], weight: 0.5}
      - {component: db, technology: helm, conditions: {variability_input: db}}
      - {component: app, technology: compose}
  node_templates:
    app2: {type: app}
    db: {type: db, technology: [{helm: {conditions: {variability_input: db}}}]}
    app: {type: app, requirements: [{host: vm}]}
    vm: {type: vm}
",
    ] {
        // What the reference does: build anew from the enriched document,
        // re-reading its options with `bratans_unknown` set.
        let mut fresh = doc(template);
        enrich(&mut fresh).expect("enriches");
        let variability = crate::document::topology_map_mut(&mut fresh)
            .and_then(|t| t.map_entry("variability"))
            .expect("topology");
        if let Some(o) = variability.map_entry("options") {
            o.insert("bratans_unknown", Node::bool(true));
        }
        normalize(&mut fresh).expect("normalizes");
        let written = options(&fresh).expect("options");
        let type_files = crate::testing::type_files(&fresh);
        let types = type_files.system();
        let expected =
            build_moving_conditions(&mut fresh, &written, &types, false, None).expect("builds");
        let mut reused = doc(template);
        let v = version(&reused);
        let reused_files = crate::testing::type_files(&reused);
        let reused_types = reused_files.system();
        let (config, g2) = super::enrich_for_resolving(&mut reused, v, &reused_types, super::Constraints::Kept)
            .expect("enriches");
        let g2 = g2.expect("keeps the elements");
        normalize(&mut reused).expect("normalizes");
        let resolver = config.resolver;
        let mut g = rebuild(&reused, &reused_types, g2, resolver).expect("rebuilds");
        // Generated conditions are compact terms in the reused graph and YAML
        // in the fresh one: compare their YAML forms.
        let yaml: Vec<crate::graph::CondList> = g
            .elements()
            .iter()
            .map(|e| e.conditions.iter().map(|c| Cond::yaml(c.to_node(&g))).collect())
            .collect();
        for (i, list) in yaml.into_iter().enumerate() {
            g.set_conditions(crate::graph::ElementId(i as u32), list);
        }
        // The reused graph added its fallback properties itself (the fresh
        // one read them from the enriched document): the same elements, with
        // the same definitions.
        let elements: Vec<_> = g
            .elements()
            .iter()
            .cloned()
            .map(|mut e| {
                if let crate::graph::Fallback::Added(_) = e.fallback {
                    e.fallback = crate::graph::Fallback::Written;
                }
                e
            })
            .collect();
        assert_eq!(format!("{elements:?}"), format!("{:?}", expected.elements()));
        let value = |g: &crate::graph::Graph, d: &Node, id| {
            g.raw(d, id).and_then(|r| r.get("value")).map(to_json)
        };
        for id in g.ordered() {
            assert_eq!(value(&g, &reused, id), value(&expected, &fresh, id), "{}", g.id(id));
        }
        assert_eq!(format!("{:?}", g.options()), format!("{:?}", expected.options()));
        let scenario = |g: &crate::graph::Graph, t| g.scenario(t).map(|s| format!("{s:?}"));
        for &t in g.technologies() {
            assert_eq!(scenario(&g, t), scenario(&expected, t), "{}", g.id(t));
        }
        if template.contains("qualities") {
            let stored = g.technologies().iter().filter(|&&t| g.scenario(t).is_some());
            assert_eq!(stored.count(), 5, "app2: compose; db: helm; app: ansible, terraform, compose");
        }
    }
}

/// A removed variability group moves elements: the enricher writes the
/// conditions into the document and the resolver builds anew.
#[test]
fn removed_variability_groups_rebuild_the_graph() {
    let mut d = doc("
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t}
  groups:
    g: {type: variability.groups.ConditionalMembers, members: [a], conditions: false}
");
    let v = version(&d);
    let files = crate::testing::type_files(&d);
    assert!(
        super::enrich_for_resolving(&mut d, v, &files.system(), super::Constraints::Kept)
            .expect("enriches")
            .1
            .is_none()
    );
    assert!(node_conditions(&d, "a").contains("false"));
}

/// Conditions are computed in arena order, but of several errors the one of
/// the element first in element order (nodes before relations) is reported.
#[test]
fn the_first_error_in_element_order_wins() {
    let message = enrich_error(
        "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a:
      type: t
      requirements: [{db: {node: b, default_condition_mode: bogus}}]
    b: {type: t, default_condition_mode: wrong}
",
    );
    assert_eq!(
        message,
        "Node \"b\" has unknown mode \"wrong\" as default condition"
    );
}

#[test]
fn every_element_option_key_passes_the_quick_test() {
    for key in super::ELEMENT_OPTION_KEYS {
        let mut m = v4t_yaml::Map::new();
        m.insert(key, Node::bool(true));
        assert!(super::may_hold_options(&m), "{key}");
    }
    let mut m = v4t_yaml::Map::new();
    m.insert("conditions", Node::bool(true));
    m.insert("type", Node::string("t"));
    assert!(!super::may_hold_options(&m));
}

/// Resolving normalises the document once: where the enricher keeps its
/// graph for the resolver, the document it leaves is already normalised
/// with single types as written (another such normalisation changes
/// nothing), on the all-elements fixture and on random templates with
/// technologies and hosting.
#[test]
fn the_document_kept_for_the_resolver_is_normalised() {
    use crate::testing::{random_template, type_files, Rng, ALL_ELEMENTS};
    let mut rng = Rng::new(0x5eed_0023_0000_0001);
    let mut texts = vec![ALL_ELEMENTS.to_string()];
    for round in 0..40 {
        let deployment = round % 2 == 1;
        texts.push(random_template(&mut rng, 2, &['b', 'f'], 4, deployment));
    }
    let mut kept = 0;
    for text in texts {
        let mut d = doc(&text);
        let files = type_files(&d);
        let types = files.system();
        let v = version(&d);
        let Ok((_, graph)) =
            super::enrich_for_resolving(&mut d, v, &types, super::Constraints::Kept)
        else {
            continue;
        };
        if graph.is_none() {
            continue;
        }
        kept += 1;
        let mut again = d.clone();
        crate::normalize::normalize(&mut again, false, crate::normalize::TypeShape::Written)
            .expect("normalises");
        assert_eq!(to_json(&again), to_json(&d), "{text}");
        // Single types stay as written: the graph reads them as lists.
        let mut lists = d.clone();
        crate::normalize::canonical_shape(&mut lists);
        let mut canonical = d.clone();
        crate::normalize::normalize(&mut canonical, false, crate::normalize::TypeShape::List)
            .expect("normalises");
        assert_eq!(to_json(&lists), to_json(&canonical), "{text}");
    }
    assert!(kept > 20, "{kept}");
}

/// The enricher moves `implies` lists into its graph and puts them back
/// where they were written, for the template `v4t enrich` prints.
#[test]
fn enriched_templates_keep_their_implies_lists() {
    let d = enriched(
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t, implies: [[node.b, {variability_input: x}]]}
    b: {type: t, properties: [{p: {value: 1, implies: [[node.a]]}}]}
",
    );
    let a = node(&d, "a");
    assert_eq!(
        to_json(a.get("implies").expect("implies")),
        r#"[["node.b",{"variability_input":"x"}]]"#
    );
    // In its place.
    let keys: Vec<&str> = a.as_map().expect("map").keys().collect();
    assert_eq!(keys[..2], ["type", "implies"]);
    let p = node(&d, "b").get("properties").expect("properties");
    assert_eq!(entry_key(p, "implies"), r#"[["node.a"]]"#);
}

/// Key `key` of the definition of the first entry of list `list`.
fn entry_key(list: &Node, key: &str) -> String {
    let (_, definition) = list.as_seq().unwrap()[0].as_map().unwrap().first().unwrap();
    to_json(definition.get(key).unwrap())
}

/// The enricher reads the document through [`v4t_yaml::NodeRef`] (the
/// variability section, type-specific conditions, inputs named like
/// elements, the definitions of managed nodes and their operations): on a
/// `Doc` of the normalised document it derives the condition lists and
/// constraints it derives from the tree, or the same error.
#[test]
fn the_enricher_reads_a_document_as_its_tree() {
    use crate::testing::{normalize, options, random_template, type_files, Rng};
    let managed = "tosca_definitions_version: tosca_variability_1_0
node_types:
  t: {derived_from: tosca.nodes.Root}
  monitor: {derived_from: tosca.nodes.Root}
topology_template:
  variability:
    inputs:
      node.b: {type: boolean}
    options: {node_default_condition: true, required_technology_constraint: true, unique_technology_constraint: true, technology_default_condition: true, technology_default_condition_mode: container-scenario}
    type_specific_conditions:
      node_types:
        monitor:
          conditions: [{host_presence: SELF}, {node_presence: b}]
          consistency: true
  node_templates:
    a:
      type: t
      requirements: [{host: b}]
      interfaces: {management: {operations: {create: c.sh}}}
      technology:
        - ansible: {scenario: {key: k, component: t, operations: [create], hosting: []}}
        - terraform: {}
    b: {type: t, managed: false}
    m: {type: monitor, requirements: [{host: b}]}
";
    let broken = managed.replace(
        "conditions: [{host_presence: SELF}, {node_presence: b}]",
        "semantic: true",
    );
    let mut texts = vec![managed.to_string(), broken];
    let mut rng = Rng::new(0xe1);
    for k in 0..8 {
        texts.push(random_template(&mut rng, 2, &['b', 'f'], 4, k % 2 == 0));
    }
    let mut enriched = 0;
    for text in &texts {
        let mut d = doc(text);
        normalize(&mut d).expect("normalizes");
        let opts = options(&d).expect("options");
        let files = type_files(&d);
        let types = files.system();
        let mut g = crate::graph::build_moving_conditions(&mut d, &opts, &types, true, None)
            .expect("builds");
        let manual = g.take_conditions();
        let read = v4t_yaml::Doc::from_node(&d, v4t_yaml::SourceId(0));
        let conditions = |doc| {
            super::conditions::enrich_conditions(doc, &g, &types, manual.clone())
                .map(|e| format!("{:?} {:?}", e.lists, e.edit))
                .map_err(|e| format!("{e:?}"))
        };
        let tree = conditions((&d).into());
        assert_eq!(tree, conditions(read.root()), "{text}");
        enriched += usize::from(tree.is_ok());
        let constraints = |doc| {
            let kept = super::Constraints::Kept;
            format!(
                "{:?}",
                super::constraints::enrich_constraints(doc, &g, &types, kept)
            )
        };
        assert_eq!(constraints((&d).into()), constraints(read.root()), "{text}");
    }
    assert!(enriched >= 8, "{enriched} of {}", texts.len());
}
