//! Variability4TOSCA on a TOSCA 2.0 base grammar (issue 15): base grammar
//! detection, output as written, TOSCA 2.0 functions, the references V4T
//! does not cover, counts, hosting, relationship templates, attributes,
//! conditional imports. Each test resolves a small template with the
//! library (bundled profiles only).

use v4t::{resolve_with_warnings, Diagnostic, Error, NoFiles, Node, ResolveOptions, Sources};
use v4t_yaml::json::to_json;

/// Resolves `template` with direct `inputs` (YAML map text), validating
/// the result if `validate`; the warnings go to `warnings`.
fn resolve_warned(
    template: &str,
    inputs: &str,
    validate: bool,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Node, Error> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        inputs: Some(v4t_yaml::parse(inputs, v4t_yaml::SourceId(9)).expect("inputs")),
        validate,
        ..ResolveOptions::default()
    };
    resolve_with_warnings(&mut sources, id, &mut NoFiles, &options, warnings).map(|r| r.template)
}

/// Resolves a template whose results are valid TOSCA 2.0 (checked).
fn resolve(template: &str, inputs: &str) -> Result<Node, Error> {
    resolve_warned(template, inputs, true, &mut Vec::new())
}

/// Resolves a template without validating the result (templates that show
/// one Variability4TOSCA rule and leave out what TOSCA needs besides).
fn resolve_unchecked(template: &str, inputs: &str) -> Result<Node, Error> {
    resolve_warned(template, inputs, false, &mut Vec::new())
}

fn message(template: &str, inputs: &str) -> String {
    match resolve_unchecked(template, inputs) {
        Ok(out) => panic!("resolved: {}", v4t::to_yaml(&out)),
        Err(e) => e.message.clone(),
    }
}

/// The JSON of `path` (keys) in `out`, `null` if absent.
fn at(out: &Node, path: &[&str]) -> String {
    let mut cur = Some(out);
    for key in path {
        cur = cur.and_then(|n| n.get(key));
    }
    cur.map_or_else(|| "null".to_string(), to_json)
}

/// The keys of the map at `path`.
fn keys(out: &Node, path: &[&str]) -> Vec<String> {
    let mut cur = Some(out);
    for key in path {
        cur = cur.and_then(|n| n.get(key));
    }
    cur.and_then(Node::as_map)
        .map(|m| m.keys().map(str::to_string).collect())
        .unwrap_or_default()
}

const HEAD: &str = "tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
";

#[test]
fn the_base_grammar_comes_from_the_topology_key() {
    let both = "tosca_definitions_version: tosca_variability_1_0\ntopology_template: {}\nservice_template: {node_templates: {}}\n";
    assert_eq!(
        message(both, "{}"),
        "A template has either \"topology_template\" (TOSCA 1.3) or \"service_template\" (TOSCA 2.0), not both"
    );
    for (key, shown) in [
        ("profile: my.profile:1.0", "The key \"profile\""),
        ("functions: {}", "The key \"functions\""),
        ("imports: [{url: types.yaml}]", "An import with \"url\""),
    ] {
        let t = format!(
            "tosca_definitions_version: tosca_variability_1_0\n{key}\ntopology_template: {{}}\n"
        );
        assert_eq!(
            message(&t, "{}"),
            format!("{shown} is TOSCA 2.0, but the template's topology is \"topology_template\" (TOSCA 1.3): write \"service_template\" instead")
        );
    }
    let old = "tosca_definitions_version: tosca_simple_yaml_1_3\nservice_template: {node_templates: {}}\n";
    assert_eq!(
        message(old, "{}"),
        "\"service_template\" is TOSCA 2.0, but the definitions version is \"tosca_simple_yaml_1_3\" (TOSCA 1.3)"
    );
    // A V4T version with `service_template` is TOSCA 2.0 too.
    let v4t = "tosca_definitions_version: tosca_variability_1_0\nservice_template: {node_templates: {}}\n";
    let out = resolve(v4t, "{}").expect("resolves");
    assert_eq!(
        v4t::to_yaml(&out),
        "tosca_definitions_version: tosca_2_0\nservice_template:\n  node_templates: {}\n"
    );
}

#[test]
fn values_stay_as_written_and_no_tosca_1_3_artefacts_appear() {
    let t = "description: first\ntosca_definitions_version: tosca_variability_1_0
metadata: {version: 1.0, date: 2024-01-02, n: 0o17}
node_types:
  Plain: {}
service_template:
  inputs: {}
  node_templates:
    a:
      type: Plain
      metadata: {ratio: 1.0, when: 2024-01-02}
      managed: false
      artifacts:
        zip: /data/site.zip
";
    let out = resolve(t, "{}").expect("resolves");
    let written = v4t::to_yaml(&out);
    assert!(
        written.starts_with("tosca_definitions_version: tosca_2_0\ndescription: first\n"),
        "{written}"
    );
    assert!(written.contains("version: 1.0\n"), "{written}");
    assert!(written.contains("date: '2024-01-02'\n"), "{written}");
    assert!(written.contains("ratio: 1.0\n"), "{written}");
    assert!(!written.contains("tosca."), "{written}");
    assert!(!written.contains("derived_from"), "{written}");
    // An empty section stays, the short artifact form too.
    assert_eq!(at(&out, &["service_template", "inputs"]), "{}");
    assert_eq!(
        at(
            &out,
            &["service_template", "node_templates", "a", "artifacts"]
        ),
        r#"{"zip":"/data/site.zip"}"#
    );
}

/// The options of [`INPUTS`]: the default mode (manual) leaves inputs and
/// outputs to their own keys.
const PRUNING: &str = "    options: {pruning: true, input_pruning: true, output_pruning: true}\n";

const INPUTS: &str = "tosca_definitions_version: tosca_2_0
node_types:
  Web:
    properties:
      url: {type: string, required: false}
    attributes:
      tosca_name: {type: string}
service_template:
  variability:
    inputs:
      web: {type: boolean, default: true}
    options: {pruning: true, input_pruning: true, output_pruning: true}
  inputs:
    host: {type: string, default: example.org}
    replicas: {type: integer, default: 2}
    unused: {type: string, default: x}
  node_templates:
    web:
      type: Web
      conditions: {variability_input: web}
      count: {$get_input: replicas}
      properties:
        url: {$concat: [https://, {$get_input: host}, /]}
  outputs:
    name:
      type: string
      value: {$get_attribute: [web, tosca_name]}
";

#[test]
fn get_input_anywhere_consumes_and_get_attribute_produces() {
    let out = resolve(INPUTS, "{}").expect("resolves");
    // `$get_input` inside `$concat` and in `count:` keep their inputs.
    assert_eq!(
        keys(&out, &["service_template", "inputs"]),
        ["host", "replicas"]
    );
    assert_eq!(
        at(
            &out,
            &[
                "service_template",
                "node_templates",
                "web",
                "properties",
                "url"
            ]
        ),
        r#"{"$concat":["https://",{"$get_input":"host"},"/"]}"#
    );
    assert_eq!(keys(&out, &["service_template", "outputs"]), ["name"]);
    // Without the node, its inputs and the output it produces go.
    let out = resolve(INPUTS, "web: false").expect("resolves");
    assert!(keys(&out, &["service_template", "inputs"]).is_empty());
    assert!(keys(&out, &["service_template", "outputs"]).is_empty());
}

#[test]
fn present_elements_may_not_read_absent_inputs_or_nodes() {
    let manual = INPUTS.replace(PRUNING, "").replace(
        "    host: {type: string, default: example.org}",
        "    host: {type: string, default: example.org, conditions: false}",
    );
    assert_eq!(
        message(&manual, "{}"),
        "Property \"url@0\" of node \"web\" reads input \"host\", which is absent"
    );
    let output = INPUTS.replace(PRUNING, "");
    assert_eq!(
        message(&output, "web: false"),
        "Output \"name@0\" refers to node \"web\", which is absent"
    );
    let copy = "tosca_definitions_version: tosca_2_0
node_types: {T: {}}
service_template:
  node_templates:
    a: {type: T, conditions: false}
    b: {type: T, copy: a}
";
    assert_eq!(
        message(copy, "{}"),
        "Node \"b\" refers to node \"a\", which is absent"
    );
}

#[test]
fn substitution_mappings_and_workflows_name_present_elements() {
    let t = "tosca_definitions_version: tosca_2_0
node_types:
  T: {capabilities: {c: {type: C}}}
capability_types: {C: {}}
service_template:
  variability:
    inputs: {x: {type: boolean, default: true}}
  substitution_mappings:
    node_type: T
    capabilities:
      c: [a, c]
  node_templates:
    a: {type: T, conditions: {variability_input: x}}
  workflows:
    w:
      steps:
        s: {target: a, activities: [{set_state: started}]}
";
    assert!(resolve(t, "{}").is_ok());
    assert_eq!(
        message(t, "x: false"),
        "Substitution mapping \"capabilities.c\" maps to node \"a\", which is absent"
    );
    let no_mapping = t.replace(
        "  substitution_mappings:\n    node_type: T\n    capabilities:\n      c: [a, c]\n",
        "",
    );
    assert_eq!(
        message(&no_mapping, "x: false"),
        "Step \"s\" of workflow \"w\" targets \"a\", which is absent"
    );
}

#[test]
fn expression_values_are_escaped_and_written_ones_are_not() {
    let t = "tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties:
      made: {type: string}
      kept: {type: string}
      call: {type: string}
service_template:
  variability:
    inputs:
      secret: {type: string, default: $token}
  node_templates:
    a:
      type: T
      properties:
        - made: {expression: {variability_input: secret}}
        - kept: $$literal
        - call: {$concat: [a, b]}
";
    let out = resolve(t, "{}").expect("resolves");
    let props = ["service_template", "node_templates", "a", "properties"];
    assert_eq!(
        at(&out, &props),
        r#"{"made":"$$token","kept":"$$literal","call":{"$concat":["a","b"]}}"#
    );
}

const HOSTED: &str = "  node_templates:
    app:
      type: SoftwareComponent
      requirements:
        - host: {node: vm, count: COUNT}
    vm: {type: Compute}
";

#[test]
fn hosting_checks_count_relationships() {
    let template = |count: &str, checks: &str| {
        format!(
            "{HEAD}service_template:\n  variability: {{options: {{{checks}}}}}\n{}",
            HOSTED.replace("COUNT", count)
        )
    };
    assert!(resolve(&template("1", "ambiguous_hosting_check: true"), "{}").is_ok());
    let two = template("2", "ambiguous_hosting_check: true");
    let e = resolve(&two, "{}").unwrap_err();
    assert_eq!(
        e.message,
        "Node \"app\" has more than one hosting relations"
    );
    let none = template("0", "expected_hosting_check: true");
    let e = resolve(&none, "{}").unwrap_err();
    assert_eq!(
        e.message,
        "Node \"app\" expected to have a hosting relation"
    );
    // A count known only at deployment counts as one.
    let function = template("{$get_input: n}", "ambiguous_hosting_check: true").replace(
        "service_template:\n",
        "service_template:\n  inputs: {n: {type: integer}}\n",
    );
    assert!(resolve(&function, "{}").is_ok());
}

#[test]
fn pruning_below_a_count_range_minimum_warns() {
    let t = format!(
        "{HEAD}service_template:
  variability:
    inputs: {{cloud: {{type: boolean, default: false}}}}
    options: {{hosting_stack_constraint: false}}
  node_templates:
    app:
      type: SoftwareComponent
      requirements:
        - host: {{node: vm, conditions: {{variability_input: cloud}}}}
    vm: {{type: Compute}}
"
    );
    let mut warnings = Vec::new();
    // The result is valid TOSCA: the processor adds the assignment.
    resolve_warned(&t, "{}", true, &mut warnings).expect("resolves");
    let shown: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        shown.contains(&"Node \"app\" keeps 0 of the at least 1 relationships of requirement \"host\" (count_range of its type): a TOSCA 2.0 processor adds the missing ones at deployment (§8.5.4)"),
        "{shown:?}"
    );
    let mut warnings = Vec::new();
    resolve_warned(&t, "cloud: true", true, &mut warnings).expect("resolves");
    assert!(warnings.iter().all(|w| !w.message.contains("count_range")));
}

const HOSTING: &str = "tosca_definitions_version: tosca_2_0
relationship_types:
  Runs: {METADATA}
  RunsOnVm: {derived_from: Runs}
  Other: {}
node_types:
  N: {}
service_template:
  variability:
    options: {ambiguous_hosting_check: true, hosting_stack_constraint: false OPTION}
  node_templates:
    app:
      type: N
      requirements:
        - on: {node: a, relationship: RunsOnVm}
        - on: {node: b, relationship: RunsOnVm}
    a: {type: N}
    b: {type: N}
";

#[test]
fn hosting_relationship_types_by_option_or_containment() {
    let plain = HOSTING.replace("METADATA", "").replace(" OPTION", "");
    assert!(
        resolve_unchecked(&plain, "{}").is_ok(),
        "no hosting relations"
    );
    let ambiguous = "Node \"app\" has more than one hosting relations";
    let option = HOSTING
        .replace("METADATA", "")
        .replace(" OPTION", ", hosting_relationship_types: [Runs]");
    assert_eq!(message(&option, "{}"), ambiguous);
    let containment = HOSTING
        .replace("METADATA", "metadata: {relationship_kind: Containment}")
        .replace(" OPTION", "");
    assert_eq!(message(&containment, "{}"), ambiguous);
    // The option replaces the default: containment alone no longer hosts.
    let replaced = HOSTING
        .replace("METADATA", "metadata: {relationship_kind: Containment}")
        .replace(" OPTION", ", hosting_relationship_types: [Other]");
    assert!(
        resolve_unchecked(&replaced, "{}").is_ok(),
        "only Other hosts"
    );
    let undefined = HOSTING
        .replace("METADATA", "")
        .replace(" OPTION", ", hosting_relationship_types: [Nope]");
    assert_eq!(
        message(&undefined, "{}"),
        "Hosting relationship type \"Nope\" is not defined"
    );
}

#[test]
fn relationship_templates_may_be_shared_or_unreferenced() {
    let t = "tosca_definitions_version: tosca_2_0
relationship_types: {R: {properties: {p: {type: integer, required: false}}}}
node_types: {N: {}}
service_template:
  variability:
    inputs: {x: {type: boolean, default: true}, y: {type: boolean, default: true}}
  node_templates:
    a:
      type: N
      requirements:
        - r: {node: c, relationship: shared, conditions: {variability_input: x}}
    b:
      type: N
      requirements:
        - r: {node: c, relationship: shared, conditions: {variability_input: y}}
    c: {type: N}
  relationship_templates:
    shared: {type: R, properties: {p: 1}}
    alone: {type: R}
";
    let out = resolve_unchecked(t, "{}").expect("resolves");
    let rts = ["service_template", "relationship_templates"];
    assert_eq!(
        at(&out, &rts),
        r#"{"shared":{"type":"R","properties":{"p":1}},"alone":{"type":"R"}}"#
    );
    let out = resolve_unchecked(t, "x: false").expect("resolves");
    assert_eq!(keys(&out, &rts), ["shared", "alone"]);
    let out = resolve_unchecked(t, "{x: false, y: false}").expect("resolves");
    assert_eq!(keys(&out, &rts), ["alone"]);
    let conditional = t.replace(
        "shared: {type: R, properties: {p: 1}}",
        "shared: {type: R, properties: [{p: {value: 1, conditions: true}}]}",
    );
    assert_eq!(
        message(&conditional, "{}"),
        "Relationship template \"shared\" has conditional types or properties, but only a template exactly one requirement names can have them"
    );
}

#[test]
fn conditional_imports_and_the_types_they_define() {
    let t = "tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
    namespace: s
    conditions: {variability_input: simple}
node_types:
  Own: {}
service_template:
  variability:
    inputs: {simple: {type: boolean, default: true}}
  node_templates:
    a:
      type:
        - s:Compute: {conditions: {variability_input: simple}}
        - Own: {default_alternative: true}
";
    let out = resolve(t, "{}").expect("resolves");
    assert_eq!(
        at(&out, &["service_template", "node_templates", "a", "type"]),
        r#""s:Compute""#
    );
    let out = resolve(t, "simple: false").expect("resolves");
    assert_eq!(at(&out, &["imports"]), "[]");
    assert_eq!(
        at(&out, &["service_template", "node_templates", "a", "type"]),
        r#""Own""#
    );
    let wrong = t
        .replace(
            "- s:Compute: {conditions: {variability_input: simple}}",
            "- s:Compute: {}",
        )
        .replace("        - Own: {default_alternative: true}\n", "");
    assert_eq!(
        message(&wrong, "simple: false"),
        "Type \"s:Compute@0\" of node \"a\" is \"Compute\", which only an absent import defines"
    );
    let derived = t.replace("  Own: {}", "  Own: {derived_from: s:Root}");
    assert_eq!(
        message(&derived, "simple: false"),
        "Type \"Own\" derives from \"Root\", which only an absent import defines"
    );
}

#[test]
fn attributes_in_list_form_are_conditional() {
    let t = "tosca_definitions_version: tosca_2_0
node_types:
  N: {attributes: {state: {type: string}}}
service_template:
  variability:
    inputs: {up: {type: boolean, default: false}}
  node_templates:
    a:
      type: N
      attributes:
        - state: {value: running, conditions: {variability_input: up}}
        - state: {value: stopped, default_alternative: true}
";
    let path = ["service_template", "node_templates", "a", "attributes"];
    assert_eq!(
        at(&resolve(t, "{}").unwrap(), &path),
        r#"{"state":"stopped"}"#
    );
    assert_eq!(
        at(&resolve(t, "up: true").unwrap(), &path),
        r#"{"state":"running"}"#
    );
}

#[test]
fn variability_groups_of_the_bundled_profile_in_a_namespace() {
    let t = "tosca_definitions_version: tosca_2_0
imports:
  - profile: variability4tosca:1.0
    namespace: v4t
node_types: {N: {}}
service_template:
  variability:
    inputs: {extra: {type: boolean, default: false}}
  node_templates:
    a: {type: N}
    b: {type: N}
  groups:
    optional:
      type: v4t:variability.groups.ConditionalMembers
      members: [b]
      conditions: {variability_input: extra}
";
    let out = resolve(t, "{}").expect("resolves");
    assert_eq!(keys(&out, &["service_template", "node_templates"]), ["a"]);
    assert_eq!(at(&out, &["service_template", "groups"]), "{}");
    let out = resolve(t, "extra: true").expect("resolves");
    assert_eq!(
        keys(&out, &["service_template", "node_templates"]),
        ["a", "b"]
    );
    // A group that stays may not have a relation as a member.
    let tuple = t
        .replace("type: v4t:variability.groups.ConditionalMembers", "type: G")
        .replace("members: [b]", "members: [b, [a, r]]")
        .replace("      conditions: {variability_input: extra}\n", "")
        .replace(
            "    a: {type: N}",
            "    a: {type: N, requirements: [{r: b}]}",
        )
        .replace(
            "node_types: {N: {}}",
            "node_types: {N: {}}\ngroup_types: {G: {}}",
        );
    assert_eq!(
        message(&tuple, "{}"),
        "Group \"optional\" has the member relation \"r@0\" of node \"a\", but in TOSCA 2.0 only node templates and groups are group members"
    );
}

#[test]
fn requirement_targets_by_index_type_or_none() {
    let t = format!(
        "{HEAD}service_template:
  node_templates:
    app:
      type: SoftwareComponent
      requirements:
        - host: [vm, 0]
        - dependency: {{node: Compute}}
        - dependency: {{capability: Node}}
    vm: {{type: Compute}}
"
    );
    let out = resolve(&t, "{}").expect("resolves");
    assert_eq!(
        at(
            &out,
            &["service_template", "node_templates", "app", "requirements"]
        ),
        r#"[{"host":["vm",0]},{"dependency":{"node":"Compute"}},{"dependency":{"capability":"Node"}}]"#
    );
    let unknown = t.replace("{node: Compute}", "{node: Nothing}");
    assert_eq!(
        message(&unknown, "{}"),
        "Target \"Nothing\" of relation \"dependency@1\" of node \"app\" does not exist"
    );
}
