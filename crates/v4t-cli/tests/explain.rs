//! End-to-end tests of `v4t explain`: the report on the bundled example,
//! JSON output, variants that do not resolve, element names and exit codes.

use crate::common::{example_template as example, text, v4t, v4t_in, TempDir};

#[test]
fn the_example_explains_every_element() {
    let out = v4t(&[
        "explain",
        &example(),
        "--presets",
        "prod",
        "--color",
        "never",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("inputs:\n  env = \"prod\" (preset \"prod\", "),
        "{stdout}"
    );
    for line in [
        "node.dev_vm: absent: its pruning condition is false\n",
        "node.prod_vm: present: its pruning condition holds\n",
        "relation.host@0.node.web_server: absent: its manual condition is false\n",
        "note: condition of relation \"host@0\" of node \"web_server\" is false for input env = \"prod\"\n",
        "  = reads: relation.host@0.node.web_server (manual conditions false: is_dev for input env = \"prod\"), node.web_server (present)\n",
    ] {
        assert!(stdout.contains(line), "{line:?} missing in\n{stdout}");
    }
    // Internal fallback properties are never shown.
    assert!(!stdout.contains("context_root@3"), "{stdout}");
    // Every element once, in the order nodes, relations, properties, types.
    // (Each element's explanation follows an empty line.)
    let lines: Vec<&str> = stdout.lines().collect();
    let headers: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0].is_empty())
        .map(|w| w[1].split(':').next().unwrap_or(""))
        .collect();
    let mut unique = headers.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), headers.len(), "{headers:?}");
    assert_eq!(headers.first(), Some(&"node.shop"), "{headers:?}");
    assert!(
        headers.last().is_some_and(|h| h.starts_with("type.")),
        "{headers:?}"
    );
}

#[test]
fn json_names_the_decision_and_its_reasons() {
    let out = v4t(&[
        "explain",
        &example(),
        "--input",
        "env=dev",
        "shop_db",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = v4t_yaml::parse(&text(&out.stdout), v4t_yaml::SourceId(0)).expect("JSON");
    assert_eq!(json.get("resolves").and_then(|r| r.as_bool()), Some(true));
    let input = json
        .get("inputs")
        .and_then(|i| i.as_seq())
        .and_then(|i| i.first());
    assert_eq!(
        input.and_then(|i| i.get("origin")).and_then(|o| o.as_str()),
        Some("assigned")
    );
    let elements = json
        .get("elements")
        .and_then(|e| e.as_seq())
        .expect("elements");
    assert_eq!(elements.len(), 1);
    let db = &elements[0];
    assert_eq!(db.get("id").and_then(|i| i.as_str()), Some("node.shop_db"));
    assert_eq!(db.get("present").and_then(|p| p.as_bool()), Some(false));
    let by = db
        .get("decision")
        .and_then(|d| d.get("by"))
        .and_then(|b| b.as_str());
    assert_eq!(by, Some("conditions"));
    let reason = db
        .get("reasons")
        .and_then(|r| r.as_seq())
        .and_then(|r| r.first())
        .expect("a reason");
    assert_eq!(
        reason.get("kind").and_then(|k| k.as_str()),
        Some("pruning condition")
    );
    assert!(reason.get("line").and_then(|l| l.as_f64()).is_some());
}

#[test]
fn a_variant_without_solution_is_explained_by_its_conflict() {
    let dir = TempDir::new("explain");
    dir.write(
        "t.yaml",
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string}
    constraints:
      - {node_presence: db}
  node_templates:
    db:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, prod]}
",
    );
    let out = v4t_in(
        dir.path(),
        &[
            "explain", "t.yaml", "--input", "env=dev", "--color", "never",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("error: Could not solve\n"), "{stdout}");
    assert!(
        stdout.contains("note: constraint node_presence(db)\n --> t.yaml:7:9\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "note: condition of node \"db\" is false for input env = \"dev\"\n  --> t.yaml:11:19\n"
        ),
        "{stdout}"
    );
    let json = v4t_in(
        dir.path(),
        &[
            "explain", "t.yaml", "--input", "env=dev", "--format", "json",
        ],
        &[],
    );
    assert_eq!(json.status.code(), Some(1));
    let json = text(&json.stdout);
    assert!(json.contains("\"resolves\":false"), "{json}");
    assert!(
        json.contains("\"conflict\":[{\"kind\":\"constraint\""),
        "{json}"
    );
}

#[test]
fn an_unknown_element_is_an_error() {
    let out = v4t(&["explain", &example(), "web_sever"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("No element \"web_sever\" in the template; did you mean \"web_server\"?"),
        "{stderr}"
    );
}
