//! The YAML examples of the Variability4TOSCA specification (1.0 release
//! candidate), completed into small templates where the spec shows a
//! fragment, resolve as the spec describes. Written from the spec text; the
//! comments name the section each example comes from.

use v4t::{resolve, NoFiles, Node, ResolveOptions, Sources};
use v4t_yaml::json::to_json;

/// Resolves `template` with `presets` and direct `inputs` (YAML map text).
fn resolved(template: &str, presets: &[&str], inputs: Option<&str>) -> Result<Node, String> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        presets: presets.iter().map(|s| s.to_string()).collect(),
        inputs: inputs.map(|i| v4t_yaml::parse(i, v4t_yaml::SourceId(9)).expect("inputs parse")),
        ..ResolveOptions::default()
    };
    resolve(&mut sources, id, &mut NoFiles, &options)
        .map(|r| r.template)
        .map_err(|e| e.message.clone())
}

/// The names of the node templates of a resolved template.
fn nodes(out: &Node) -> Vec<String> {
    out.get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(Node::as_map)
        .map(|m| m.keys().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A section of the resolved topology template (`groups`, `policies`, ...).
fn section<'a>(out: &'a Node, key: &str) -> Option<&'a Node> {
    out.get("topology_template").and_then(|t| t.get(key))
}

fn node<'a>(out: &'a Node, name: &str) -> &'a Node {
    out.get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(|n| n.get(name))
        .unwrap_or_else(|| panic!("node {name}"))
}

/// "Variability Definition" (presets `dev` and `prod`, expressions `is_dev`
/// and `is_prod`), "Variability Condition" (`my_prod_node`), "Node
/// Template" (`prod_database`), "Type Assignment" (`database`) and
/// "Requirement Assignment" (`host` of `dev_runtime` under `is_dev`).
const DEV_PROD: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      mode:
        type: string
    presets:
      dev:
        name: Development
        description: Deploy the application on a private cloud
        inputs:
          mode: dev
      prod:
        name: Production
        description: Deploy the application on a public cloud
        inputs:
          mode: prod
    expressions:
      is_dev: { equal: [ { variability_input: mode }, dev ] }
      is_prod: { equal: [ { variability_input: mode }, prod ] }
  node_templates:
    my_prod_node:
      type: my.prod.node
      conditions: {logic_expression: is_prod}
    prod_database:
      type: my.prod.db
      conditions: {logic_expression: is_prod}
    database:
      type:
        - my.dev.db:
            conditions: {logic_expression: is_dev}
        - my.prod.db:
            conditions: {logic_expression: is_prod}
    application:
      type: my.app
      requirements:
        - host:
            node: dev_runtime
            conditions: {logic_expression: is_dev}
        - host:
            node: prod_runtime
            conditions: {logic_expression: is_prod}
    dev_runtime:
      type: my.runtime
      conditions: {logic_expression: is_dev}
    prod_runtime:
      type: my.runtime
      conditions: {logic_expression: is_prod}
";

#[test]
fn presets_conditions_conditional_types_and_requirements() {
    let dev = resolved(DEV_PROD, &["dev"], None).expect("dev resolves");
    assert_eq!(nodes(&dev), ["database", "application", "dev_runtime"]);
    assert_eq!(to_json(node(&dev, "database")), r#"{"type":"my.dev.db"}"#);
    assert_eq!(
        to_json(node(&dev, "application")),
        r#"{"type":"my.app","requirements":[{"host":"dev_runtime"}]}"#
    );
    let prod = resolved(DEV_PROD, &["prod"], None).expect("prod resolves");
    assert_eq!(
        nodes(&prod),
        [
            "my_prod_node",
            "prod_database",
            "database",
            "application",
            "prod_runtime"
        ]
    );
    assert_eq!(to_json(node(&prod, "database")), r#"{"type":"my.prod.db"}"#);
    assert_eq!(
        to_json(node(&prod, "application")),
        r#"{"type":"my.app","requirements":[{"host":"prod_runtime"}]}"#
    );
}

/// "Retrieve Variability Inputs Assignments": presets `dev` then `prod`,
/// then `mode` assigned directly give `mode: override`, `another_input:
/// prod`, `another_another_input: dev`.
#[test]
fn presets_merge_in_order_and_direct_inputs_win() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      mode:
        type: string
      another_input:
        type: string
      another_another_input:
        type: string
    presets:
      dev:
        name: Development
        description: Deploy the application on a private cloud
        inputs:
          mode: dev
          another_input: dev
          another_another_input: dev
      prod:
        name: Production
        description: Deploy the application on a public cloud
        inputs:
          mode: prod
          another_input: prod
  node_templates:
    mode_override:
      type: t
      conditions: {equal: [{variability_input: mode}, override]}
    another_prod:
      type: t
      conditions: {equal: [{variability_input: another_input}, prod]}
    another_another_dev:
      type: t
      conditions: {equal: [{variability_input: another_another_input}, dev]}
";
    let out = resolved(template, &["dev", "prod"], Some("mode: override")).expect("resolves");
    assert_eq!(
        nodes(&out),
        ["mode_override", "another_prod", "another_another_dev"]
    );
}

/// "Variability Input" (`default_expression`) and "Variability Expression"
/// (`my_expression` adds two costs), used against a budget.
#[test]
fn default_expressions_and_value_expressions() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      costs_offering_a: {type: integer, default: 30}
      costs_offering_b: {type: integer, default: 50}
      budget:
        type: integer
        default_expression: {mul: [{variability_input: costs_offering_a}, 3]}
    expressions:
      my_expression: {add: [{variability_input: costs_offering_a}, {variability_input: costs_offering_b}]}
  node_templates:
    affordable:
      type: t
      conditions: {less_or_equal: [{value_expression: my_expression}, {variability_input: budget}]}
";
    assert_eq!(
        nodes(&resolved(template, &[], None).expect("resolves")),
        ["affordable"]
    );
    let expensive = resolved(template, &[], Some("costs_offering_b: 61")).expect("resolves");
    assert!(nodes(&expensive).is_empty());
}

/// "Variability Options": with `mode: manual`, `node_pruning: true` still
/// prunes nodes.
#[test]
fn specific_options_override_the_mode() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options:
      mode: manual
      node_pruning: true
  node_templates:
    frontend:
      type: t
      conditions: false
      requirements:
        - backend: {node: backend, conditions: false}
    backend:
      type: t
";
    assert!(nodes(&resolved(template, &[], None).expect("resolves")).is_empty());
    // Without, `backend` stays and fails the spec's check 11.
    let unpruned = template.replace("      node_pruning: true\n", "");
    assert_eq!(
        resolved(&unpruned, &[], None).unwrap_err(),
        "Node \"backend\" expected to have an incoming relation"
    );
}

/// "Type-Specific Default Conditions": `scenario.monitor` is present only
/// with its host.
#[test]
fn type_specific_default_conditions() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      monitoring: {type: boolean}
    options: {pruning: true}
    type_specific_conditions:
        node_types:
            scenario.monitor:
                conditions: {host_presence: SELF}
                semantic: true
  node_templates:
    app: {type: my.app}
    monitor:
      type: scenario.monitor
      requirements:
        - host: monitoring_vm
    monitoring_vm:
      type: my.vm
      anchor: true
      conditions: {variability_input: monitoring}
";
    let on = resolved(template, &[], Some("monitoring: true")).expect("resolves");
    assert_eq!(nodes(&on), ["app", "monitor", "monitoring_vm"]);
    let off = resolved(template, &[], Some("monitoring: false")).expect("resolves");
    assert_eq!(nodes(&off), ["app"]);
}

/// "Technology Rules": `application` gets `terraform` where its host is a
/// `terraform_host`.
#[test]
fn technology_rules() {
    let template = "tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
  application: {}
  terraform_host: {}
topology_template:
  variability:
    qualities:
      terraform:
        - component: application
          hosting: terraform_host
  node_templates:
    app:
      type: application
      anchor: true
      requirements:
        - host: vm
    vm:
      type: terraform_host
      managed: false
";
    let out = resolved(template, &[], None).expect("resolves");
    assert_eq!(
        node(&out, "app").get("type").and_then(Node::as_str),
        Some("application~application::terraform@terraform_host")
    );
}

/// "Relationship Templates", "Property Assignment" and "Artifact Template":
/// conditional properties of a relationship template and of a node, a
/// wrapped `{value: the_value}`, and conditional artifacts.
#[test]
fn conditional_properties_and_artifacts() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      first: {type: boolean, default: true}
  node_templates:
    my_node:
      type: my.node
      properties:
        - key_one:
            value: {value: the_value}
        - conditional_property:
            value: conditional_value
            conditions: {variability_input: first}
      artifacts:
        - artifact_a:
            file: a.tar
            conditions: {variability_input: first}
        - artifact_b:
            file: b.tar
            conditions: {not: {variability_input: first}}
      requirements:
        - connection:
            node: other
            relationship: my_relationship
    other:
      type: my.other
  relationship_templates:
    my_relationship:
        type: my.relationship
        properties:
            -   property_one:
                    value: value_one
                    conditions: {variability_input: first}
            -   property_two:
                    value: value_two
                    conditions: {not: {variability_input: first}}
";
    let out = resolved(template, &[], None).expect("resolves");
    assert_eq!(
        to_json(node(&out, "my_node")),
        r#"{"type":"my.node","properties":{"key_one":{"value":"the_value"},"conditional_property":"conditional_value"},"artifacts":{"artifact_a":{"file":"a.tar","type":"tosca.artifacts.File"}},"requirements":[{"connection":{"node":"other","relationship":"my_relationship"}}]}"#
    );
    let relationship = section(&out, "relationship_templates").map(to_json);
    assert_eq!(
        relationship.as_deref(),
        Some(
            r#"{"my_relationship":{"type":"my.relationship","properties":{"property_one":"value_one"}}}"#
        )
    );
    let other = resolved(template, &[], Some("first: false")).expect("resolves");
    let my_node = to_json(node(&other, "my_node"));
    assert!(my_node.contains("artifact_b") && !my_node.contains("conditional_property"));
}

/// "Group Template": a conditional group, and a variability group whose
/// conditions go to its members (a node and a requirement assignment).
#[test]
fn conditional_and_variability_groups() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      mode: {type: string}
    expressions:
      is_prod: {equal: [{variability_input: mode}, prod]}
  node_templates:
    prod_database:
      type: my.db
    application:
      type: my.app
      requirements:
        - prod_connects_to: prod_database
  groups:
    GROUP:
      type: GROUP_TYPE
      members: [prod_database, [application, prod_connects_to]]
      conditions: {logic_expression: is_prod}
";
    let conditional = template
        .replace("GROUP:", "conditional_group:")
        .replace("GROUP_TYPE", "tosca.groups.Root");
    let prod = resolved(&conditional, &[], Some("mode: prod")).expect("resolves");
    assert!(section(&prod, "groups")
        .and_then(|g| g.get("conditional_group"))
        .is_some());
    let dev = resolved(&conditional, &[], Some("mode: dev")).expect("resolves");
    assert_eq!(nodes(&dev), ["prod_database", "application"]);
    assert!(section(&dev, "groups").is_none());

    let variability = template
        .replace("GROUP:", "variability_group:")
        .replace("GROUP_TYPE", "variability.groups.ConditionalMembers");
    let dev = resolved(&variability, &[], Some("mode: dev")).expect("resolves");
    assert_eq!(nodes(&dev), ["application"]);
    assert_eq!(to_json(node(&dev, "application")), r#"{"type":"my.app"}"#);
    let prod = resolved(&variability, &[], Some("mode: prod")).expect("resolves");
    assert_eq!(nodes(&prod), ["prod_database", "application"]);
    assert!(section(&prod, "groups").is_none());
}

/// "Policy Template": the `anticollocation` policy under `is_prod`.
#[test]
fn conditional_policies() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      prod: {type: boolean}
    expressions:
      is_prod: {variability_input: prod}
  node_templates:
    wordpress_server: {type: tosca.nodes.Compute}
    mysql: {type: tosca.nodes.DBMS.MySQL}
  policies:
    - anticollocation:
          type: tosca.policies.AntiCollocation
          targets: [wordpress_server, mysql]
          conditions: {logic_expression: is_prod}
";
    let prod = resolved(template, &[], Some("prod: true")).expect("resolves");
    assert_eq!(
        section(&prod, "policies").map(to_json).as_deref(),
        Some(
            r#"[{"anticollocation":{"type":"tosca.policies.AntiCollocation","targets":["wordpress_server","mysql"]}}]"#
        )
    );
    let dev = resolved(template, &[], Some("prod: false")).expect("resolves");
    assert!(section(&dev, "policies").is_none());
}

/// "Topology Template Input", "Topology Template Output" and "Import
/// Definition" with conditions.
#[test]
fn conditional_inputs_outputs_and_imports() {
    let template = "tosca_definitions_version: tosca_variability_1_0
imports:
   - file: some_file
     conditions: {variability_input: ssh}
topology_template:
  variability:
    inputs:
      ssh: {type: boolean}
  inputs:
    ssh_key_file:
      type: string
      conditions: {variability_input: ssh}
  node_templates:
    vm: {type: tosca.nodes.Compute}
  outputs:
    vm_address:
      type: string
      value: {get_attribute: [vm, public_address]}
      conditions: {variability_input: ssh}
";
    let on = resolved(template, &[], Some("ssh: true")).expect("resolves");
    assert_eq!(
        on.get("imports").map(to_json).as_deref(),
        Some(r#"["some_file"]"#)
    );
    let tt = on.get("topology_template").expect("topology");
    assert!(tt
        .get("inputs")
        .and_then(|i| i.get("ssh_key_file"))
        .is_some());
    assert!(tt
        .get("outputs")
        .and_then(|o| o.get("vm_address"))
        .is_some());
    let off = resolved(template, &[], Some("ssh: false")).expect("resolves");
    assert!(off.get("imports").is_none());
    let tt = off.get("topology_template").expect("topology");
    assert!(tt.get("inputs").is_none() && tt.get("outputs").is_none());
}

/// "Element Identifier System": `property.my_property@0.node.my_node` and
/// `artifact.my_artifact@1.node.my_node` name the first property and the
/// second artifact; a variability input named by an element id is a
/// condition of that element.
#[test]
fn element_identifiers() {
    let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      property.my_property@0.node.my_node: {type: boolean}
      artifact.my_artifact@1.node.my_node: {type: boolean}
  node_templates:
    my_node:
        type: my.node
        properties:
           - my_property:
                value: first
           - my_property:
                value: second
                conditions: {not: {node_property_presence: [my_node, 0]}}
        artifacts:
           - my_artifact:
                file: path/to/my_artifact_first
                conditions: {not: {artifact_presence: [my_node, 1]}}
           - my_artifact:
                file: path/to/my_artifact_second
";
    let first =
        "{property.my_property@0.node.my_node: true, artifact.my_artifact@1.node.my_node: false}";
    let out = resolved(template, &[], Some(first)).expect("resolves");
    assert_eq!(
        to_json(node(&out, "my_node")),
        r#"{"type":"my.node","properties":{"my_property":"first"},"artifacts":{"my_artifact":{"file":"path/to/my_artifact_first","type":"tosca.artifacts.File"}}}"#
    );
    let second =
        "{property.my_property@0.node.my_node: false, artifact.my_artifact@1.node.my_node: true}";
    let out = resolved(template, &[], Some(second)).expect("resolves");
    assert_eq!(
        to_json(node(&out, "my_node")),
        r#"{"type":"my.node","properties":{"my_property":"second"},"artifacts":{"my_artifact":{"file":"path/to/my_artifact_second","type":"tosca.artifacts.File"}}}"#
    );
}
