//! Encoding a condition term gives the same literal as encoding its YAML
//! form ([`Cond::to_node`]) in the element's own context (the invariant of
//! `graph/cond.rs`), checked on randomly generated small templates under
//! many option combinations: for every entry of every final condition list,
//! both encodings go into one [`Encoder`] and the solver must find no
//! assignment where they differ (with every other variable free).

use super::Encoder;
use crate::config::Version;
use crate::graph::{self, Cond, ElementId, Graph};
use crate::types::TypeSystem;
use crate::{enrich, inputs, load, normalize, validate, NoFiles, Node, Sources};
use v4t_sat::Lit;
use v4t_yaml::json::to_json;

/// [`crate::testing::Rng`] with the draws these tests use.
struct Rng(crate::testing::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(crate::testing::Rng::new(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.0.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const VERSIONS: [&str; 3] = [
    "tosca_variability_1_0",
    "tosca_variability_1_0_rc_2",
    "tosca_variability_1_0_rc_3",
];

const MODES: [&str; 8] = [
    "manual",
    "strict",
    "consistent-strict",
    "consistent-loose",
    "default",
    "semantic-strict",
    "semantic-loose",
    "loose",
];

const NODE_TOKENS: [&str; 8] = [
    "host",
    "source",
    "incoming",
    "incomingnaive",
    "outgoing",
    "outgoingnaive",
    "artifact",
    "artifactnaive",
];

/// A `-`-joined selection of 1-3 tokens.
fn mode_of(rng: &mut Rng, tokens: &[&str]) -> String {
    let n = 1 + rng.below(3);
    let mut picked: Vec<&str> = Vec::new();
    for _ in 0..n {
        let t = *rng.pick(tokens);
        if !picked.contains(&t) {
            picked.push(t);
        }
    }
    picked.join("-")
}

/// The global options (a YAML flow map body).
fn options(rng: &mut Rng) -> String {
    // (No technology rules: enriching technologies would find no candidates.)
    let mut o: Vec<String> = vec!["enrich_technologies: false".into()];
    if rng.chance(70) {
        o.push("anchor_check: false".into());
    }
    if rng.chance(60) {
        o.push(format!("mode: {}", rng.pick(&MODES)));
    }
    for (key, percent) in [
        ("pruning", 30),
        ("default_condition", 30),
        ("type_pruning", 30),
        ("node_pruning", 15),
        ("relation_pruning", 15),
        ("artifact_pruning", 15),
        ("property_pruning", 15),
        ("technology_pruning", 15),
        ("group_pruning", 15),
        ("policy_pruning", 15),
        ("input_pruning", 15),
        ("output_pruning", 15),
        ("node_default_condition", 15),
        ("input_default_condition", 15),
        ("output_default_condition", 15),
        ("enrich_input_condition", 20),
    ] {
        if rng.chance(percent) {
            o.push(format!("{key}: {}", rng.chance(80)));
        }
    }
    if rng.chance(50) {
        o.push(format!(
            "node_default_condition_mode: {}",
            mode_of(rng, &NODE_TOKENS)
        ));
    }
    for (kind, tokens) in [
        ("relation", &["source", "target", "default"][..]),
        ("artifact", &["container", "managed", "default"][..]),
        ("property", &["container", "consuming", "default"][..]),
        (
            "technology",
            &["container", "other", "scenario", "default"][..],
        ),
        ("output", &["produced", "default"][..]),
    ] {
        if rng.chance(25) {
            o.push(format!(
                "{kind}_default_condition_mode: {}",
                mode_of(rng, tokens)
            ));
        }
    }
    o.join(", ")
}

/// A manual condition about the template's elements.
fn manual_condition(rng: &mut Rng, nodes: &[String]) -> String {
    let n = rng.pick(nodes);
    match rng.below(6) {
        0 => "false".into(),
        1 => "{variability_input: flag}".into(),
        2 => "{not: {variability_input: flag}}".into(),
        3 => format!("{{node_presence: {n}}}"),
        4 => format!("{{or: [{{variability_input: flag}}, {{node_presence: {n}}}]}}"),
        _ => "true".into(),
    }
}

/// Element-level option keys (a YAML flow map fragment, maybe empty).
fn element_options(rng: &mut Rng, node: bool) -> String {
    let mut o = String::new();
    if rng.chance(10) {
        o.push_str(&format!(", pruning: {}", rng.chance(70)));
    }
    if rng.chance(10) {
        o.push_str(&format!(", default_condition: {}", rng.chance(70)));
    }
    if node && rng.chance(15) {
        o.push_str(&format!(
            ", default_condition_mode: {}",
            mode_of(rng, &NODE_TOKENS)
        ));
    }
    o
}

/// `, conditions: ...` sometimes, `, default_alternative: true` sometimes.
fn extras(rng: &mut Rng, nodes: &[String], node: bool) -> String {
    let mut s = String::new();
    if rng.chance(30) {
        s.push_str(&format!(", conditions: {}", manual_condition(rng, nodes)));
    }
    if !node && rng.chance(15) {
        s.push_str(", default_alternative: true");
    }
    s.push_str(&element_options(rng, node));
    s
}

const TYPES: &str = "node_types:
  t0: {derived_from: tosca.nodes.Root}
  t1: {derived_from: tosca.nodes.Root}
artifact_types:
  at: {derived_from: tosca.artifacts.Root}
group_types:
  gt: {derived_from: tosca.groups.Root}
policy_types:
  pt: {derived_from: tosca.policies.Root}
";

/// A random small template.
fn template(rng: &mut Rng) -> String {
    let version = *rng.pick(&VERSIONS);
    let count = 1 + rng.below(5);
    let mut nodes: Vec<String> = (0..count).map(|i| format!("n{i}")).collect();
    // Keyword names (`SELF` and `CONTAINER` are rejected for nodes): the
    // encoder cannot skip the lookup for these elements.
    if rng.chance(10) {
        nodes[rng.below(count)] = rng.pick(&["SOURCE", "TARGET"]).to_string();
    }
    let inputs: Vec<String> = (0..rng.below(3)).map(|i| format!("in{}", i % 2)).collect();
    let mut s = format!(
        "tosca_definitions_version: {version}\n{TYPES}topology_template:\n  variability:\n    options: {{{}}}\n    inputs:\n      flag: {{type: boolean, default: {}}}\n",
        options(rng),
        rng.chance(50)
    );
    if !inputs.is_empty() {
        s.push_str("  inputs:\n");
        for name in &inputs {
            s.push_str(&format!(
                "    - {name}: {{type: string{}}}\n",
                extras(rng, &nodes, false)
            ));
        }
    }
    s.push_str("  node_templates:\n");
    for name in &nodes {
        s.push_str(&format!("    {name}:\n      type: t{}\n", rng.below(2)));
        if rng.chance(15) {
            s.push_str("      anchor: true\n");
        }
        if rng.chance(35) {
            s.push_str(&format!(
                "      conditions: {}\n",
                manual_condition(rng, &nodes)
            ));
        }
        let opts = element_options(rng, true);
        for o in opts.split(", ").filter(|o| !o.is_empty()) {
            s.push_str(&format!("      {o}\n"));
        }
        if rng.chance(70) {
            s.push_str("      requirements:\n");
            for _ in 0..1 + rng.below(3) {
                let target = rng.pick(&nodes);
                let kind = *rng.pick(&["host", "host", "uses", "connects_to"]);
                if rng.chance(50) {
                    s.push_str(&format!("        - {kind}: {target}\n"));
                } else {
                    s.push_str(&format!(
                        "        - {kind}: {{node: {target}{}}}\n",
                        extras(rng, &nodes, false)
                    ));
                }
            }
        }
        if rng.chance(40) {
            s.push_str("      artifacts:\n");
            for _ in 0..1 + rng.below(3) {
                s.push_str(&format!(
                    "        - a{}: {{type: at, file: f{}}}\n",
                    rng.below(2),
                    extras(rng, &nodes, false)
                ));
            }
        }
        if rng.chance(50) {
            s.push_str("      properties:\n");
            for _ in 0..1 + rng.below(3) {
                let value = if !inputs.is_empty() && rng.chance(40) {
                    format!("{{get_input: {}}}", rng.pick(&inputs))
                } else {
                    rng.below(10).to_string()
                };
                s.push_str(&format!(
                    "        - p{}: {{value: {value}{}}}\n",
                    rng.below(2),
                    extras(rng, &nodes, false)
                ));
            }
        }
        if rng.chance(30) {
            s.push_str("      technology:\n");
            for _ in 0..1 + rng.below(2) {
                s.push_str(&format!(
                    "        - {}: {{x: 1{}}}\n",
                    rng.pick(&["ansible", "terraform"]),
                    extras(rng, &nodes, false)
                ));
            }
        }
    }
    if rng.chance(40) {
        s.push_str("  groups:\n");
        for i in 0..1 + rng.below(2) {
            let name = if rng.chance(10) {
                rng.pick(&["SELF", "CONTAINER", "SOURCE", "TARGET"])
                    .to_string()
            } else {
                format!("g{i}")
            };
            let members: Vec<&String> = (0..rng.below(3)).map(|_| rng.pick(&nodes)).collect();
            let members: Vec<&str> = members.iter().map(|m| m.as_str()).collect();
            s.push_str(&format!(
                "    {name}: {{type: gt, members: [{}]{}}}\n",
                members.join(", "),
                extras(rng, &nodes, false)
            ));
        }
    }
    if rng.chance(40) {
        s.push_str("  policies:\n");
        for i in 0..1 + rng.below(2) {
            let targets: Vec<&str> = (0..rng.below(3))
                .map(|_| rng.pick(&nodes).as_str())
                .collect();
            s.push_str(&format!(
                "    - pol{}: {{type: pt, targets: [{}]{}}}\n",
                i % 2,
                targets.join(", "),
                extras(rng, &nodes, false)
            ));
        }
    }
    if rng.chance(40) {
        s.push_str("  outputs:\n");
        for i in 0..1 + rng.below(2) {
            let n = rng.pick(&nodes);
            let value = if rng.chance(50) {
                format!("{{get_property: [{n}, p0]}}")
            } else {
                format!("{{get_attribute: [{n}, a]}}")
            };
            s.push_str(&format!(
                "    - out{}: {{value: {value}{}}}\n",
                i % 2,
                extras(rng, &nodes, false)
            ));
        }
    }
    s
}

/// What one template contributed.
#[derive(Default)]
struct Counts {
    templates: usize,
    elements: usize,
    terms: usize,
    /// Terms whose two literals differ syntactically (checked by the solver).
    solved: usize,
    /// Terms about an element that is not found by its own name or index.
    not_self: usize,
}

/// Runs the resolver's pipeline up to encoding and compares, for every
/// condition entry, the term's literal with its YAML form's. Fails with the
/// message when the template is rejected before solving (or keeps no graph).
fn check_template(text: &str, counts: &mut Counts) -> Result<(), String> {
    let mut sources = Sources::new();
    let sid = sources.add("template.yaml", text);
    let (mut doc, _, grammar) =
        load::load(&mut sources, sid, &mut NoFiles).map_err(|e| e.message.clone())?;
    let version = Version::of(&doc).map_err(|e| e.message.clone())?;
    validate::validate(&doc).map_err(|e| e.message.clone())?;
    let files = crate::types::TypeFiles::load(&mut doc, grammar, &mut sources, sid, &mut NoFiles)
        .map_err(|e| e.message.clone())?;
    let types = files.system();
    let (config, g2) =
        enrich::enrich_for_resolving(&mut doc, version, &types, enrich::Constraints::Kept)
            .map_err(|e| e.message.clone())?;
    let g2 = g2.ok_or("no graph kept")?;
    let assigned =
        inputs::assign(&doc, &[], None, &mut Vec::new()).map_err(|e| e.message.clone())?;
    normalize::normalize(&mut doc, false, normalize::TypeShape::List)
        .map_err(|e| e.message.clone())?;
    let options = config.resolver;
    let graph = graph::rebuild(&doc, &types, g2, options).map_err(|e| e.message.clone())?;
    compare(&doc, &graph, &types, assigned, text, counts);
    Ok(())
}

fn compare(
    doc: &Node,
    graph: &Graph,
    types: &TypeSystem,
    assigned: v4t_yaml::Map,
    text: &str,
    counts: &mut Counts,
) {
    let mut enc = Encoder::new(graph, doc, types, assigned, 0.0, |_| super::mode::Resolve);
    let order: Vec<ElementId> = graph.ordered().collect();
    for &id in &order {
        enc.presence(id);
    }
    counts.templates += 1;
    // Control: the check does tell different literals apart.
    if let [x, y, ..] = order[..] {
        let (a, b) = (enc.presence(x), enc.presence(y));
        assert!(a == b || !equivalent(&mut enc, a, b));
    }
    for &id in &order {
        let conditions = &graph.get(id).conditions;
        if conditions.is_empty() {
            continue;
        }
        counts.elements += 1;
        for c in conditions {
            if matches!(c, Cond::Yaml(_) | Cond::Written(_)) {
                continue;
            }
            counts.terms += 1;
            if mentions(c)
                .iter()
                .any(|&x| !graph.presence_resolves_to_self(x))
            {
                counts.not_self += 1;
            }
            let yaml = c.to_node(graph);
            let term = enc.cond(c, Some(id)).map_err(|e| e.message.clone());
            let written = enc
                .cond(&Cond::yaml(yaml.clone()), Some(id))
                .map_err(|e| e.message.clone());
            let describe = || {
                format!(
                    "template:\n{text}\nelement: {}\nterm: {c:?}\nYAML form: {}",
                    graph.id(id),
                    to_json(&yaml)
                )
            };
            match (term, written) {
                (Ok(a), Ok(b)) => {
                    if a == b {
                        continue;
                    }
                    counts.solved += 1;
                    assert!(
                        equivalent(&mut enc, a, b),
                        "the term and its YAML form differ\n{}",
                        describe()
                    );
                }
                (Err(x), Err(y)) => assert_eq!(x, y, "different errors\n{}", describe()),
                (a, b) => panic!(
                    "one form fails: term {:?}, YAML form {:?}\n{}",
                    a.err(),
                    b.err(),
                    describe()
                ),
            }
        }
    }
}

/// Whether `a` and `b` agree in every model of the encoding so far.
fn equivalent(enc: &mut Encoder<'_, '_, super::mode::Resolve>, a: Lit, b: Lit) -> bool {
    !enc.sat.solve(&[a, !b]) && !enc.sat.solve(&[!a, b])
}

/// The elements a term is about.
fn mentions(c: &Cond) -> Vec<ElementId> {
    match c {
        Cond::Yaml(_) | Cond::Written(_) => Vec::new(),
        Cond::Presence(id) | Cond::Op(_, id) => vec![*id],
        Cond::Bratan(ids) => ids.to_vec(),
        Cond::And(items) | Cond::Or(items) => items.iter().flat_map(mentions).collect(),
        Cond::Generated(inner, _) => mentions(inner),
    }
}

#[test]
fn terms_encode_like_their_yaml_form() {
    let mut rng = Rng::new(0x5eed_1234_abcd_ef01);
    let mut counts = Counts::default();
    let mut rejected = 0;
    const TEMPLATES: usize = 600;
    for _ in 0..TEMPLATES {
        let text = template(&mut rng);
        if check_template(&text, &mut counts).is_err() {
            rejected += 1;
        }
    }
    eprintln!(
        "{} templates, {} elements with conditions, {} terms ({} checked by the solver, {} not self-resolving), {rejected} rejected",
        counts.templates, counts.elements, counts.terms, counts.solved, counts.not_self
    );
    // Most templates must get through to encoding, with many generated terms.
    assert!(
        counts.templates >= TEMPLATES * 2 / 3,
        "only {} of {TEMPLATES} templates encoded ({rejected} rejected)",
        counts.templates
    );
    assert!(
        counts.terms >= 10 * counts.templates,
        "{} terms",
        counts.terms
    );
    assert!(counts.not_self > 0, "no term takes the lookup path");
}
