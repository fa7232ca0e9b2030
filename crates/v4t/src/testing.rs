//! Test helpers shared by the unit tests of the pipeline stages.

use crate::config::Version;
use crate::graph::Graph;
use crate::options::Options;
use crate::{document, resolve, NoFiles, Node, ResolveOptions, Sources};
use std::fmt::Write;

/// A template with every kind of element (types, nodes, relations,
/// properties, policies, groups, inputs, artifacts, imports, technologies,
/// outputs), conditions, `implies` and `implied`, shared by the unit tests
/// of the graph and the solver.
pub(crate) const ALL_ELEMENTS: &str = "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  inputs:
    port: {type: integer, conditions: true}
  node_templates:
    web:
      type: [{web.a: {}}, {web.b: {conditions: false}}]
      properties:
        - p: 1
        - p: {value: 2, conditions: false, implied: false, implies: [[node.vm]]}
      requirements:
        - host: vm
        - db: {node: vm, relationship: r, conditions: true}
      artifacts:
        - image: {file: a.tar, properties: [{size: 1}]}
      technology: [{ansible: {assign: x, conditions: true}}]
    vm:
      type: vm
      implies: [[node.web]]
  relationship_templates:
    r:
      type: rt
      properties: {q: x}
  groups:
    g: {type: tosca.groups.Root, members: [web, [web, db]], properties: {gp: 1}}
  policies:
    - pol: {type: p, targets: [g], properties: {pp: 2}}
  outputs:
    url: {value: {get_property: [web, p]}}
imports:
  - a.yaml
";

/// Parses a YAML fixture.
pub(crate) fn doc(yaml: &str) -> Node {
    v4t_yaml::parse(yaml, v4t_yaml::SourceId(0)).expect("fixture parses")
}

/// Reads a YAML fixture as a [`v4t_yaml::Doc`] (as `v4t validate` reads
/// files): the stages that read the template through [`v4t_yaml::NodeRef`]
/// must read it as they read its tree ([`doc`]).
pub(crate) fn read_doc(yaml: &str) -> v4t_yaml::Doc {
    let schema = v4t_yaml::parse::Schema::JsYaml;
    v4t_yaml::parse_doc_reporting_duplicates(yaml, v4t_yaml::SourceId(0), schema)
        .expect("fixture parses")
        .0
}

/// The version of a fixture (`tosca_variability_1_0` if it has none).
pub(crate) fn version(doc: &Node) -> Version {
    Version::of(doc).unwrap_or(Version::V1)
}

/// The first normalisation of `doc`, as the enricher does it (with the
/// option `automatic_default_alternatives` as written).
pub(crate) fn normalize(doc: &mut Node) -> crate::Result<()> {
    let automatic = crate::options::automatic_default_alternatives(document::options(&*doc))?;
    crate::normalize::normalize(doc, automatic, crate::normalize::TypeShape::List)
}

/// The options of `doc` as written.
pub(crate) fn options(doc: &Node) -> crate::Result<Options> {
    let grammar = crate::version::grammar_of(doc);
    Options::read(
        version(doc),
        grammar,
        document::options(doc),
        crate::options::View::Written,
    )
}

/// The graph of the normalised `doc` under its options as written (the
/// condition lists moved out of a copy, so that `doc` keeps them).
pub(crate) fn build(doc: &Node) -> crate::Result<Graph> {
    let type_files = type_files(doc);
    let types = type_files.system();
    crate::graph::build_moving_conditions(&mut doc.clone(), &options(doc)?, &types, false, None)
}

/// Enriches `doc` in place (`v4t enrich` without loading).
pub(crate) fn enrich(doc: &mut Node) -> crate::Result<()> {
    let type_files = type_files(doc);
    let types = type_files.system();
    crate::enrich::enrich(doc, version(doc), &types).map(drop)
}

/// The type files of a fixture (no files beside it), from a copy of it:
/// loading moves the type collections out of the document.
pub(crate) fn type_files(doc: &Node) -> crate::types::TypeFiles {
    let grammar = crate::version::grammar_of(doc);
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", "");
    let mut copy = doc.clone();
    crate::types::TypeFiles::load(&mut copy, grammar, &mut sources, id, &mut NoFiles)
        .expect("types load")
}

/// [`crate::prepare`] of the template `text` added to `sources` as
/// `template.yaml`: enriched, no files beside it, no inputs assigned (the
/// tests assign each configuration's inputs themselves).
pub(crate) fn prepare(sources: &mut Sources, text: &str) -> crate::Result<crate::Prepared> {
    let id = sources.add("template.yaml", text);
    crate::prepare(
        sources,
        id,
        &mut NoFiles,
        Some(crate::enrich::Constraints::Kept),
        &mut |_, _| Ok(()),
        &mut |_| {},
        &mut Vec::new(),
    )
}

/// Resolves a template text with the given presets and inputs (YAML map
/// text), keeping the whole error.
pub(crate) fn resolve_error(template: &str, inputs: Option<&str>) -> Option<crate::Error> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        // Not the template's source id: values are read as the input text writes them.
        inputs: inputs.map(|i| v4t_yaml::parse(i, v4t_yaml::SourceId(9)).expect("inputs parse")),
        ..ResolveOptions::default()
    };
    resolve(&mut sources, id, &mut NoFiles, &options).err()
}

/// Resolves a template text with the given presets and inputs (YAML map text).
pub(crate) fn resolve_text(
    template: &str,
    presets: &[&str],
    inputs: Option<&str>,
) -> Result<Node, String> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        presets: presets.iter().map(|s| s.to_string()).collect(),
        // Not the template's source id: values are read as the input text writes them.
        inputs: inputs.map(|i| v4t_yaml::parse(i, v4t_yaml::SourceId(9)).expect("inputs parse")),
        ..ResolveOptions::default()
    };
    resolve(&mut sources, id, &mut NoFiles, &options)
        .map(|r| r.template)
        .map_err(|e| e.message.clone())
}

/// xorshift64*, deterministic.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed` mixed with [`test_seed`]: the same numbers
    /// on every run, other ones under another `V4T_TEST_SEED`.
    pub(crate) fn new(seed: u64) -> Rng {
        let mixed = seed ^ test_seed().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Rng(if mixed == 0 { seed } else { mixed })
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// `V4T_TEST_SEED` (0 when unset or not a number): the random property
/// tests draw other templates and instances under another value, where
/// their counters of what they exercised are not checked ([`exercised`]).
pub(crate) fn test_seed() -> u64 {
    std::env::var("V4T_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A random assignment of the boolean inputs `b0` .. `b{n-1}` of
/// [`random_template`], as a YAML flow map.
pub(crate) fn random_assignment(rng: &mut Rng, n: usize) -> String {
    let assignment: Vec<String> = (0..n)
        .map(|k| format!("b{k}: {}", rng.below(2) == 0))
        .collect();
    format!("{{{}}}", assignment.join(", "))
}

/// A random condition over the inputs and the nodes before node `i`.
/// Inputs are boolean (`b`), string (`s`) or untyped (`u`: compared with
/// numbers and strings, and added to a number, which fails for strings);
/// `f` is no input but a free variable (a term nothing decides, left to
/// the optimiser).
fn condition(rng: &mut Rng, inputs: &[(String, char)], i: usize, depth: u32) -> String {
    let pick = rng.below(if depth > 1 { 4 } else { 7 });
    match pick {
        0 | 1 if !inputs.is_empty() => {
            let (name, kind) = &inputs[rng.below(inputs.len() as u64) as usize];
            let read = format!("{{variability_input: {name}}}");
            match (kind, rng.below(3)) {
                ('f', _) => name.clone(),
                ('b', _) => read,
                ('s', _) | ('u', 0) => {
                    let v = ["a", "b"][rng.below(2) as usize];
                    format!("{{equal: [{read}, {v}]}}")
                }
                ('u', 1) => format!("{{greater: [{read}, 1]}}"),
                _ => format!("{{greater: [{{add: [{read}, 1]}}, 2]}}"),
            }
        }
        2 if i > 0 => format!("{{node_presence: n{}}}", rng.below(i as u64)),
        3 => "true".to_string(),
        4 => format!("{{not: {}}}", condition(rng, inputs, i, depth + 1)),
        5 | 6 => {
            let op = if pick == 5 { "and" } else { "or" };
            let a = condition(rng, inputs, i, depth + 1);
            let b = condition(rng, inputs, i, depth + 1);
            format!("{{{op}: [{a}, {b}]}}")
        }
        _ => "false".to_string(),
    }
}

/// A random template: inputs of the given kinds (see [`condition`]),
/// nodes with conditions, relations, and sometimes a constraint; with
/// `deployment` also hosting requirements (sometimes two alternative
/// hosts) and conditional deployment technologies, with options that
/// prune and constrain them.
pub(crate) fn random_template(
    rng: &mut Rng,
    inputs: usize,
    kinds: &[char],
    nodes: usize,
    deployment: bool,
) -> String {
    let inputs: Vec<(String, char)> = (0..inputs)
        .map(|k| {
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            (format!("{kind}{k}"), kind)
        })
        .collect();
    // Default conditions in half of them; without, relations and types
    // outlive their nodes and the consistency checks fail.
    let options = ["{default_condition: true}", "{}"][rng.below(2) as usize];
    let options = if deployment {
        let more = [
            "technology_pruning: true, unique_technology_constraint: true",
            "pruning: true, node_default_condition_mode: incoming-host, anchor_check: false",
            "technology_default_condition: true, required_technology_constraint: true, required_hosting_constraint: true",
        ][rng.below(3) as usize];
        options
            .replacen('{', &format!("{{{more}, "), 1)
            .replace(", }", "}")
    } else {
        options.to_string()
    };
    let mut s = "tosca_definitions_version: tosca_variability_1_0\n".to_string();
    if deployment {
        // Whether a node is managed asks its type.
        s.push_str("node_types:\n");
        for i in 0..nodes {
            let _ = writeln!(s, "  t{i}: {{}}");
        }
    }
    let _ = write!(
        s,
        "topology_template:\n  variability:\n    options: {options}\n    inputs:\n"
    );
    let declared = inputs.iter().filter(|(_, kind)| *kind != 'f').count();
    if declared == 0 {
        s.push_str("      {}\n");
    }
    // Sometimes a feature model: the first input requires, or chooses
    // among, the others.
    let all_inputs = inputs.iter().all(|(_, kind)| *kind != 'f');
    let feature = match (inputs.len() * usize::from(all_inputs), rng.below(4)) {
        (2.., 0) => format!(", requires: {}", inputs[1].0),
        (3.., 1) => format!(", alternatives: [{}, {}]", inputs[1].0, inputs[2].0),
        _ => String::new(),
    };
    for (k, (name, kind)) in inputs.iter().enumerate() {
        let extra = if k == 0 { feature.as_str() } else { "" };
        match kind {
            'f' => Ok(()),
            'b' => writeln!(s, "      {name}: {{type: boolean{extra}}}"),
            's' => writeln!(s, "      {name}: {{type: string{extra}}}"),
            _ => writeln!(s, "      {name}: {{description: untyped{extra}}}"),
        }
        .expect("writes to a string");
    }
    if rng.below(3) == 0 {
        let a = rng.below(nodes as u64);
        let b = rng.below(nodes as u64);
        let _ = writeln!(
            s,
            "    constraints:\n      - {{or: [{{not: node.n{a}}}, {{not: node.n{b}}}]}}"
        );
        // Sometimes a second one (without drawing, so that the templates
        // of a seed stay as they were but for it).
        if (a + b) % 2 == 1 {
            let c = (a + 1) % nodes as u64;
            let _ = writeln!(s, "      - {{or: [node.n{c}, {{not: node.n{b}}}]}}");
        }
    }
    s.push_str("  node_templates:\n");
    for i in 0..nodes {
        node_template(&mut s, rng, &inputs, i, &format!("t{i}"));
        if deployment {
            deployment_of(&mut s, rng, &inputs, i);
        } else if i > 0 && rng.below(2) == 0 {
            let t = rng.below(i as u64);
            let _ = writeln!(s, "      requirements:\n        - uses: n{t}");
        }
    }
    s
}

/// Requirements (a use, a host, or two alternative hosts) and deployment
/// technologies of node `n{i}`, each sometimes conditional.
fn deployment_of(s: &mut String, rng: &mut Rng, inputs: &[(String, char)], i: usize) {
    let cond = |rng: &mut Rng| match rng.below(2) {
        0 => String::new(),
        _ => format!(", conditions: {}", condition(rng, inputs, i, 1)),
    };
    if i > 0 && rng.below(3) != 0 {
        s.push_str("      requirements:\n");
        let (a, b) = (rng.below(i as u64), rng.below(i as u64));
        match rng.below(3) {
            0 => {
                let _ = writeln!(s, "        - uses: n{a}");
            }
            1 => {
                let c = cond(rng);
                let _ = writeln!(s, "        - host: {{node: n{a}{c}}}");
            }
            _ => {
                let (ca, cb) = (cond(rng), cond(rng));
                let _ = writeln!(s, "        - host: {{node: n{a}{ca}}}");
                let _ = writeln!(s, "        - host: {{node: n{b}{cb}}}");
            }
        }
    }
    let count = rng.below(4) as usize;
    if count > 0 {
        s.push_str("      technology:\n");
        for name in ["ansible", "terraform", "compose"].iter().take(count) {
            let c = cond(rng);
            let weight = ["0.5", "1"][rng.below(2) as usize];
            let _ = writeln!(s, "        - {name}: {{weight: {weight}{c}}}");
        }
    }
}

/// Node template `n{i}` of type `ty`, in three of four cases with a random
/// condition.
fn node_template(s: &mut String, rng: &mut Rng, inputs: &[(String, char)], i: usize, ty: &str) {
    let _ = writeln!(s, "    n{i}:\n      type: {ty}");
    if rng.below(4) != 0 {
        let _ = writeln!(s, "      conditions: {}", condition(rng, inputs, i, 0));
    }
}

/// A random TOSCA 2.0 template: boolean variability inputs, conditional
/// nodes (conditions as in [`random_template`]), and what the TOSCA 2.0
/// reference checks look at: TOSCA inputs read with `$get_input`, outputs
/// reading nodes, a substitution mapping and workflow steps naming nodes.
pub(crate) fn random_tosca2_template(rng: &mut Rng, inputs: usize, nodes: usize) -> String {
    let inputs: Vec<(String, char)> = (0..inputs).map(|k| (format!("b{k}"), 'b')).collect();
    let options = ["{pruning: true}", "{default_condition: true}", "{}"][rng.below(3) as usize];
    let mut s = format!(
        "tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties:
      p: {{type: string, required: false}}
    capabilities: {{c: {{type: C}}}}
capability_types: {{C: {{}}}}
service_template:
  variability:
    options: {options}
    inputs:
"
    );
    if inputs.is_empty() {
        s.push_str("      {}\n");
    }
    for (name, _) in &inputs {
        let _ = writeln!(s, "      {name}: {{type: boolean}}");
    }
    let node = |rng: &mut Rng| format!("n{}", rng.below(nodes as u64));
    s.push_str("  inputs:\n    i0: {type: string, default: x}\n");
    let _ = writeln!(
        s,
        "    i1: {{type: string, default: y, conditions: {}}}",
        condition(rng, &inputs, 0, 1)
    );
    if rng.below(2) == 0 {
        let n = node(rng);
        let _ = writeln!(
            s,
            "  substitution_mappings:\n    node_type: T\n    capabilities:\n      c: [{n}, c]"
        );
    }
    s.push_str("  node_templates:\n");
    for i in 0..nodes {
        node_template(&mut s, rng, &inputs, i, "T");
        if rng.below(2) == 0 {
            let read = rng.below(2);
            let _ = writeln!(s, "      properties: {{p: {{$get_input: i{read}}}}}");
        }
    }
    if rng.below(2) == 0 {
        let n = node(rng);
        let _ = writeln!(
            s,
            "  outputs:\n    o: {{type: string, value: {{$get_property: [{n}, p]}}}}"
        );
    }
    if rng.below(2) == 0 {
        let (a, b) = (node(rng), node(rng));
        let _ = writeln!(
            s,
            "  workflows:\n    w:\n      steps:\n        s0: {{target: {a}, activities: [{{set_state: started}}]}}\n        s1: {{target: {b}, activities: [{{set_state: started}}]}}"
        );
    }
    s
}

/// Asserts a counter of what a random test exercised. The counters are
/// tuned to the tests' own seeds, so under `V4T_TEST_SEED` they are not
/// checked (a wrong answer still fails the test).
macro_rules! exercised {
    ($($arg:tt)+) => {
        if $crate::testing::test_seed() == 0 {
            assert!($($arg)+);
        }
    };
}
pub(crate) use exercised;
