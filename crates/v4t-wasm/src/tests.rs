//! The commands on the host, as the page calls them.

use super::*;

const TEMPLATE: &str = include_str!("../../../examples/web-app/template.yaml");

/// The answer as a tree.
fn answer(json: &str) -> v4t_yaml::Node {
    v4t_yaml::parse(json, v4t::SourceId(0)).expect("an answer is JSON")
}

fn ok(json: &str) -> bool {
    answer(json)
        .get("ok")
        .and_then(|o| o.as_bool())
        .expect("ok")
}

#[test]
fn resolve_selects_the_preset() {
    let dev = answer(&resolve(TEMPLATE, r#"{"presets": ["dev"]}"#));
    let prod = answer(&resolve(TEMPLATE, r#"{"presets": ["prod"]}"#));
    let output = |a: &v4t_yaml::Node| {
        a.get("output")
            .and_then(|o| o.as_str())
            .unwrap()
            .to_string()
    };
    assert!(!output(&dev).contains("db_server"), "{}", output(&dev));
    assert!(output(&prod).contains("db_server"), "{}", output(&prod));
}

#[test]
fn inputs_are_a_text_of_their_own() {
    let by_input = resolve(TEMPLATE, r#"{"inputs": "{\"env\": \"prod\"}"}"#);
    let by_preset = resolve(TEMPLATE, r#"{"presets": ["prod"]}"#);
    assert_eq!(by_input, by_preset);
    let wrong = answer(&resolve(TEMPLATE, r#"{"inputs": "[1]"}"#));
    let d = &wrong.get("diagnostics").unwrap().as_seq().unwrap()[0];
    assert_eq!(d.get("file").and_then(|f| f.as_str()), Some("inputs"));
}

#[test]
fn errors_are_located_in_the_template() {
    let broken = TEMPLATE.replace("pruning: true", "pruning: [true");
    let a = answer(&resolve(&broken, "{}"));
    assert!(!a.get("ok").unwrap().as_bool().unwrap());
    let d = &a.get("diagnostics").unwrap().as_seq().unwrap()[0];
    assert_eq!(d.get("code").and_then(|c| c.as_str()), Some("V4T001"));
    assert_eq!(
        d.get("file").and_then(|f| f.as_str()),
        Some("template.yaml")
    );
    assert!(d.get("line").and_then(|l| l.as_f64()).unwrap() > 1.0);
}

#[test]
fn an_unknown_preset_is_an_error() {
    let a = resolve(TEMPLATE, r#"{"presets": ["staging"]}"#);
    assert!(!ok(&a));
    assert!(a.contains("V4T030"), "{a}");
}

#[test]
fn too_large_texts_are_refused() {
    let large = "#".repeat(request::MAX_TEXT_BYTES + 1);
    let a = resolve(&large, "{}");
    assert!(!ok(&a));
    assert!(a.contains("too large"), "{a}");
}

#[test]
fn files_beside_the_template_are_read_from_the_request() {
    let template = "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [types.yaml]\ntopology_template:\n  node_templates:\n    a: {type: my.Node}\n";
    let types = "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Node: {derived_from: tosca.nodes.Root}\n";
    let request = format!(
        "{{\"files\": {{\"types.yaml\": {}}}}}",
        v4t_yaml::json::to_json(&v4t_yaml::Node::string(types))
    );
    assert!(
        ok(&validate(template, &request)),
        "{}",
        validate(template, &request)
    );
    let without = validate(template, "{}");
    assert!(!ok(&without));
    assert!(without.contains("types.yaml"), "{without}");
}

#[test]
fn enrich_explain_analyze_and_graph_answer() {
    assert!(answer(&enrich(TEMPLATE, "{}")).get("output").is_some());
    let explained = answer(&explain(
        TEMPLATE,
        r#"{"presets": ["prod"], "elements": ["shop_db"]}"#,
    ));
    let elements = explained
        .get("explanation")
        .and_then(|e| e.get("elements"))
        .unwrap();
    assert_eq!(elements.as_seq().unwrap().len(), 1);
    let analysis = answer(&analyze(TEMPLATE, "{}"));
    let analysis = analysis.get("analysis").unwrap();
    assert_eq!(
        analysis.get("configurations").and_then(|c| c.as_f64()),
        Some(2.0)
    );
    assert!(!analysis.get("core").unwrap().as_seq().unwrap().is_empty());
    let mermaid = answer(&graph(TEMPLATE, r#"{"format": "mermaid"}"#));
    assert!(mermaid
        .get("graph")
        .and_then(|g| g.as_str())
        .unwrap()
        .starts_with("flowchart"));
    let dot = answer(&graph(
        TEMPLATE,
        r#"{"format": "dot", "resolved": true, "presets": ["dev"]}"#,
    ));
    let dot = dot.get("graph").and_then(|g| g.as_str()).unwrap();
    assert!(
        dot.starts_with("digraph") && !dot.contains("db_server"),
        "{dot}"
    );
}

#[test]
fn variability_lists_presets_and_inputs() {
    expect_test::expect![[r#"{"presets":[{"name":"dev","title":"Development","description":"Everything on one small virtual machine."},{"name":"prod","title":"Production","description":"A larger machine and a database server."}],"inputs":[{"name":"env","type":"string","default":"dev","values":["dev","prod"]}]}"#]]
        .assert_eq(&variability(TEMPLATE));
    assert_eq!(variability("a: [\n"), r#"{"presets":[],"inputs":[]}"#);
}

#[test]
fn csar_entry_reads_tosca_meta() {
    let meta = "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: x\nEntry-Definitions: st.yaml\n";
    let files = format!(
        "{{\"TOSCA-Metadata/TOSCA.meta\": {}, \"st.yaml\": \"\", \"lib/a.yaml\": \"\"}}",
        v4t_yaml::json::to_json(&v4t_yaml::Node::string(meta))
    );
    assert!(
        csar_entry(&files).contains(r#""entry":"st.yaml""#),
        "{}",
        csar_entry(&files)
    );
    assert!(!ok(&csar_entry(r#"{"a.yaml": "", "b.yaml": ""}"#)));
}
