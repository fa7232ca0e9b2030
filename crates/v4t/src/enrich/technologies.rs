//! Element enrichment: deployment technologies and implementations from
//! technology rules ("qualities"), and the `scenario` default condition of
//! rule-derived technologies (part 1, section 8).
//!
//! The rules (`variability.qualities`) are sorted (8.1) and grouped into
//! scenarios; a scenario matches a node (8.2) if the node's type, operations,
//! artifacts and hosting stack fit. Every matching scenario yields candidate
//! technology templates (8.3) that either replace a node's manual
//! technologies (`enrich_implementations`, 8.5) or become the technologies of
//! a managed node without any (`enrich_technologies`, 8.4).

use crate::error::{bail, Result};
use crate::graph::{ElementId, Graph};
use crate::types::TypeSystem;
use std::cmp::Ordering;
use v4t_yaml::number::format_js;
use v4t_yaml::{Map, Node, Value};

/// Rewrites the raw `technology` lists of managed nodes from the rules
/// (`enrich_implementations`, then `enrich_technologies`), on graph #1.
pub fn enrich_technologies(doc: &mut Node, graph: &Graph) -> Result<()> {
    let edits = {
        let doc: &Node = doc;
        let types = TypeSystem::new(doc, graph);
        let rules = read_rules(doc);
        let scenarios = scenarios(&rules);
        let ctx = Context {
            doc,
            graph,
            types: &types,
            rules: &rules,
            scenarios: &scenarios,
        };
        let mut edits = Vec::new();
        if graph.options.enrich_implementations && !rules.is_empty() {
            edits.extend(implementation_edits(&ctx)?);
        }
        if graph.options.enrich_technologies {
            edits.extend(technology_edits(&ctx)?);
        }
        edits
    };
    for edit in edits {
        apply(doc, graph, edit);
    }
    Ok(())
}

/// The `scenario` token's condition of a rule-derived technology: one
/// alternative per match of its stored scenario, or `None` without scenario.
pub fn scenario_condition(
    doc: &Node,
    graph: &Graph,
    types: &TypeSystem<'_>,
    id: ElementId,
) -> Result<Option<Node>> {
    let Some(stored) = graph.raw(doc, id).and_then(|r| r.get_defined("scenario")) else {
        return Ok(None);
    };
    let Some(node) = graph.get(id).container else {
        return Ok(None);
    };
    let scenario = Scenario::from_node(stored);
    let matches = matches(graph, doc, types, node, &scenario)?;
    let alternatives = matches
        .iter()
        .map(|elements| {
            let presences = elements
                .iter()
                .map(|&e| graph.presence_condition(e))
                .collect();
            Node::single("and", Node::seq(presences))
        })
        .collect();
    Ok(Some(Node::single("or", Node::seq(alternatives))))
}

// ---------------------------------------------------------------------------
// Rules and their order (8.1)

/// One technology rule of `variability.qualities` (validated by the normaliser).
#[derive(Clone, Debug)]
struct Rule {
    component: String,
    technology: String,
    artifact: Option<String>,
    operations: Option<Vec<String>>,
    hosting: Vec<String>,
    weight: f64,
    conditions: Option<Node>,
    assign: Option<String>,
}

impl Rule {
    fn from_node(n: &Node) -> Rule {
        let string = |k: &str| n.get_defined(k).and_then(Node::as_str).map(str::to_string);
        Rule {
            component: string("component").unwrap_or_default(),
            technology: n.get("technology").map(js_join).unwrap_or_default(),
            artifact: string("artifact"),
            operations: n.get_defined("operations").map(strings),
            hosting: n.get("hosting").map(strings).unwrap_or_default(),
            weight: n.get("weight").and_then(Node::as_f64).unwrap_or(1.0),
            conditions: n.get_defined("conditions").cloned(),
            assign: string("assign"),
        }
    }
}

/// The rules of the document, sorted (8.1).
fn read_rules(doc: &Node) -> Vec<Rule> {
    let list = doc
        .get("topology_template")
        .and_then(|t| t.get("variability"))
        .and_then(|v| v.get("qualities"))
        .and_then(Node::as_seq);
    let mut rules: Vec<Rule> = list
        .map(|l| {
            l.iter()
                .filter(|r| r.as_map().is_some())
                .map(Rule::from_node)
                .collect()
        })
        .unwrap_or_default();
    sort_rules(&mut rules);
    rules
}

/// Stable sort by component, artifact (if both have one) and hosting.
fn sort_rules(rules: &mut [Rule]) {
    rules.sort_by(compare_rules);
}

fn compare_rules(a: &Rule, b: &Rule) -> Ordering {
    collate(&a.component, &b.component)
        .then_with(|| match (&a.artifact, &b.artifact) {
            (Some(x), Some(y)) => collate(x, y),
            _ => Ordering::Equal,
        })
        .then_with(|| collate(&a.hosting.join(","), &b.hosting.join(",")))
}

/// ASCII punctuation and symbols in ICU root collation order.
const PUNCTUATION: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// The primary collation weight of a character: punctuation < digits < letters,
/// letters case-insensitive.
fn primary(c: char) -> (u8, u32) {
    if let Some(i) = PUNCTUATION.find(c) {
        (0, i as u32)
    } else if c.is_ascii_digit() {
        (2, c as u32)
    } else if c.is_alphabetic() {
        (3, c.to_lowercase().next().unwrap_or(c) as u32)
    } else if c.is_ascii() {
        (1, c as u32)
    } else {
        (4, c as u32)
    }
}

/// Approximates JavaScript's `localeCompare` (ICU root collation): compares
/// case-insensitively first, then lower case before upper case.
fn collate(a: &str, b: &str) -> Ordering {
    let primaries = |s: &str| s.chars().map(primary).collect::<Vec<_>>();
    primaries(a).cmp(&primaries(b)).then_with(|| {
        let case = |s: &str| s.chars().map(char::is_uppercase).collect::<Vec<_>>();
        case(a).cmp(&case(b))
    })
}

/// A value as JavaScript's `String(value)` renders a name (lists comma-joined).
fn js_join(n: &Node) -> String {
    match &n.value {
        Value::String(s) => s.clone(),
        Value::Number(x) => format_js(*x),
        Value::Bool(b) => b.to_string(),
        Value::Seq(items) => items
            .iter()
            .map(|i| {
                if i.is_null() {
                    String::new()
                } else {
                    js_join(i)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Null => "undefined".to_string(),
        _ => "[object Object]".to_string(),
    }
}

/// The string entries of a list (anything else yields an empty list).
fn strings(n: &Node) -> Vec<String> {
    n.as_seq()
        .map(|l| {
            l.iter()
                .filter_map(Node::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Scenarios (8.1)

/// One technology of a scenario, with the rule it came from.
#[derive(Clone, Debug)]
struct Assessment {
    technology: String,
    quality: f64,
    rule: usize,
}

/// Rules with the same component, artifact and hosting.
#[derive(Clone, Debug)]
struct Scenario {
    key: String,
    component: String,
    operations: Option<Vec<String>>,
    artifact: Option<String>,
    hosting: Vec<String>,
    assessments: Vec<Assessment>,
}

impl Scenario {
    /// The scenario as stored in a technology template (without assessments).
    fn to_node(&self) -> Node {
        let list = |l: &[String]| Node::seq(l.iter().map(|s| Node::string(s.clone())).collect());
        let mut m = Map::new();
        m.insert("key", Node::string(self.key.clone()));
        m.insert("component", Node::string(self.component.clone()));
        if let Some(ops) = &self.operations {
            m.insert("operations", list(ops));
        }
        if let Some(a) = &self.artifact {
            m.insert("artifact", Node::string(a.clone()));
        }
        m.insert("hosting", list(&self.hosting));
        Node::map(m)
    }

    /// Reads a stored scenario back.
    fn from_node(n: &Node) -> Scenario {
        let string = |k: &str| n.get_defined(k).and_then(Node::as_str).map(str::to_string);
        Scenario {
            key: string("key").unwrap_or_default(),
            component: string("component").unwrap_or_default(),
            operations: n.get_defined("operations").map(strings),
            artifact: string("artifact"),
            hosting: n.get("hosting").map(strings).unwrap_or_default(),
            assessments: Vec::new(),
        }
    }
}

/// `component[#artifact][@hosting joined with ->]`.
fn scenario_key(rule: &Rule) -> String {
    let mut key = rule.component.clone();
    if let Some(a) = &rule.artifact {
        key.push('#');
        key.push_str(a);
    }
    if !rule.hosting.is_empty() {
        key.push('@');
        key.push_str(&rule.hosting.join("->"));
    }
    key
}

/// Groups the (sorted) rules into scenarios, in order of first occurrence.
fn scenarios(rules: &[Rule]) -> Vec<Scenario> {
    let mut out: Vec<Scenario> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let key = scenario_key(rule);
        let assessment = Assessment {
            technology: rule.technology.clone(),
            quality: rule.weight,
            rule: i,
        };
        match out.iter_mut().find(|s| s.key == key) {
            Some(s) => s.assessments.push(assessment),
            None => out.push(Scenario {
                key,
                component: rule.component.clone(),
                operations: rule.operations.clone(),
                artifact: rule.artifact.clone(),
                hosting: rule.hosting.clone(),
                assessments: vec![assessment],
            }),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Matching a scenario against a node (8.2)

/// The element sets (relations, hosts, artifacts) whose joint presence
/// realises `scenario` for `node`; empty if the scenario does not match.
fn matches(
    g: &Graph,
    doc: &Node,
    types: &TypeSystem<'_>,
    node: ElementId,
    scenario: &Scenario,
) -> Result<Vec<Vec<ElementId>>> {
    let node_type = types.single_type(node)?;
    if !types.is_a("node_types", node_type, &scenario.component)? {
        return Ok(Vec::new());
    }
    if let Some(ops) = &scenario.operations {
        for op in ops {
            if !has_operation(g, doc, types, node, op)? {
                return Ok(Vec::new());
            }
        }
    }
    let mut artifacts = Vec::new();
    if let Some(artifact_type) = &scenario.artifact {
        artifacts = matching_artifacts(g, types, node, artifact_type)?;
        if artifacts.is_empty() && !type_has_artifact(doc, types, node_type, artifact_type)? {
            return Ok(Vec::new());
        }
    }
    let mut paths = Vec::new();
    if !scenario.hosting.is_empty() {
        search(g, types, node, &scenario.hosting, &[], &mut paths)?;
        if paths.is_empty() {
            return Ok(Vec::new());
        }
    }
    Ok(combine(&artifacts, &paths))
}

/// The four result shapes of 8.2 step 5.
fn combine(artifacts: &[ElementId], paths: &[Vec<ElementId>]) -> Vec<Vec<ElementId>> {
    match (artifacts.is_empty(), paths.is_empty()) {
        (true, true) => vec![Vec::new()],
        (true, false) => paths.to_vec(),
        (false, true) => artifacts.iter().map(|&a| vec![a]).collect(),
        (false, false) => artifacts
            .iter()
            .flat_map(|&a| {
                paths.iter().map(move |p| {
                    let mut elements = p.clone();
                    elements.push(a);
                    elements
                })
            })
            .collect(),
    }
}

/// Whether the management operation `op` is defined on the node template or
/// on a type of its inheritance chain.
fn has_operation(
    g: &Graph,
    doc: &Node,
    types: &TypeSystem<'_>,
    node: ElementId,
    op: &str,
) -> Result<bool> {
    if let Some(interfaces) = g.raw(doc, node).and_then(|r| r.get_defined("interfaces")) {
        let Some(management) = interfaces.get_defined("management") else {
            bail!(
                interfaces.span,
                "Cannot read properties of undefined (reading 'operations')"
            );
        };
        if management
            .get_defined("operations")
            .is_some_and(|ops| ops.get(op).is_some())
        {
            return Ok(true);
        }
    }
    let node_types = doc.get("node_types");
    let node_type = types.single_type(node)?;
    Ok(types.chain("node_types", node_type).iter().any(|t| {
        node_types
            .and_then(|m| m.get(t))
            .and_then(|d| d.get("interfaces"))
            .and_then(|i| i.get("management"))
            .and_then(|m| m.get("operations"))
            .and_then(|o| o.get(op))
            .is_some()
    }))
}

/// The node's template artifacts whose type is-a `artifact_type`.
fn matching_artifacts(
    g: &Graph,
    types: &TypeSystem<'_>,
    node: ElementId,
    artifact_type: &str,
) -> Result<Vec<ElementId>> {
    let mut out = Vec::new();
    for &a in &g.get(node).artifacts {
        let own = types.single_type(a)?;
        if types.is_a("artifact_types", own, artifact_type)? {
            out.push(a);
        }
    }
    Ok(out)
}

/// Whether an artifact definition on the node type chain has a type that
/// is-a `artifact_type` (string definitions are `tosca.artifacts.File`).
fn type_has_artifact(
    doc: &Node,
    types: &TypeSystem<'_>,
    node_type: &str,
    artifact_type: &str,
) -> Result<bool> {
    let node_types = doc.get("node_types");
    for t in types.chain("node_types", node_type) {
        let Some(defs) = node_types
            .and_then(|m| m.get(&t))
            .and_then(|d| d.get("artifacts"))
        else {
            continue;
        };
        for def in artifact_definitions(defs) {
            let own = match def.as_str() {
                Some(_) => "tosca.artifacts.File",
                None => match def.get("type").and_then(Node::as_str) {
                    Some(t) => t,
                    None => continue,
                },
            };
            if types.is_a("artifact_types", own, artifact_type)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The definitions of an `artifacts` collection in map or list form.
fn artifact_definitions(defs: &Node) -> Vec<&Node> {
    match &defs.value {
        Value::Map(m) => m.iter().map(|(_, v)| v).collect(),
        Value::Seq(l) => l
            .iter()
            .filter_map(|i| i.as_map().and_then(Map::first).map(|(_, v)| v))
            .collect(),
        _ => Vec::new(),
    }
}

/// The hosting relations of a node with their targets, in requirement order;
/// for each host the first hosting relation targeting it.
fn hosts(g: &Graph, node: ElementId) -> Vec<(ElementId, ElementId)> {
    let hosting: Vec<(ElementId, ElementId)> = g
        .get(node)
        .outgoing
        .iter()
        .filter(|&&r| g.get(r).hosting)
        .filter_map(|&r| g.get(r).target.map(|t| (r, t)))
        .collect();
    hosting
        .iter()
        .map(|&(_, h)| {
            let first = hosting
                .iter()
                .find(|&&(_, t)| t == h)
                .map_or(h, |&(r, _)| r);
            (first, h)
        })
        .collect()
}

/// Collects every hosting path of `node` that realises `pattern` (node type
/// names, `*` skips any number of hosting levels) into `paths`.
fn search(
    g: &Graph,
    types: &TypeSystem<'_>,
    node: ElementId,
    pattern: &[String],
    history: &[ElementId],
    paths: &mut Vec<Vec<ElementId>>,
) -> Result<()> {
    let wildcard = pattern.first().is_some_and(|p| p == "*");
    let searched = if wildcard {
        pattern.get(1)
    } else {
        pattern.first()
    };
    let Some(searched) = searched else {
        bail!(g.get(node).span, "Unexpected error");
    };
    let rest = &pattern[if wildcard { 2 } else { 1 }..];
    for (relation, host) in hosts(g, node) {
        let mut extended = history.to_vec();
        extended.extend([relation, host]);
        if types.is_a("node_types", types.single_type(host)?, searched)? {
            if rest.is_empty() {
                paths.push(extended);
                continue;
            }
            search(g, types, host, rest, &extended, paths)?;
        }
        if wildcard {
            search(g, types, host, pattern, &extended, paths)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Candidates (8.3)

/// A rule-derived technology template for a node.
#[derive(Clone, Debug)]
struct Candidate {
    technology: String,
    /// `{and: [<rule conditions>]}`, if the rule has conditions.
    conditions: Option<Node>,
    weight: f64,
    prio: Option<f64>,
    assign: String,
    scenario: Node,
}

impl Candidate {
    /// The single-entry technology map `<technology>: {conditions, weight, assign, prio, scenario}`.
    fn to_node(&self, conditions: Option<Node>) -> Node {
        let mut m = Map::new();
        if let Some(c) = conditions {
            m.insert("conditions", c);
        }
        m.insert("weight", Node::number(self.weight));
        m.insert("assign", Node::string(self.assign.clone()));
        if let Some(p) = self.prio {
            m.insert("prio", Node::number(p));
        }
        m.insert("scenario", self.scenario.clone());
        Node::single(self.technology.clone(), Node::map(m))
    }
}

/// Everything the candidate computation reads.
struct Context<'a> {
    doc: &'a Node,
    graph: &'a Graph,
    types: &'a TypeSystem<'a>,
    rules: &'a [Rule],
    scenarios: &'a [Scenario],
}

/// The candidates of a node from all matching scenarios, in scenario order.
fn candidates(ctx: &Context<'_>, node: ElementId) -> Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for scenario in ctx.scenarios {
        if matches(ctx.graph, ctx.doc, ctx.types, node, scenario)?.is_empty() {
            continue;
        }
        let node_type = ctx.types.single_type(node)?;
        let prio = if ctx.graph.options.solver.scenarios {
            Some(scenario_prio(ctx, node, node_type, scenario)?)
        } else {
            None
        };
        let best = scenario
            .assessments
            .iter()
            .map(|a| a.quality)
            .fold(f64::NEG_INFINITY, f64::max);
        let stored = scenario.to_node();
        for assessment in &scenario.assessments {
            if ctx.graph.options.enrich_technologies_best_only && assessment.quality < best {
                continue;
            }
            let rule = &ctx.rules[assessment.rule];
            out.push(Candidate {
                technology: assessment.technology.clone(),
                conditions: rule.conditions.as_ref().map(and_of_rule_conditions),
                weight: rule.weight,
                prio,
                assign: rule
                    .assign
                    .clone()
                    .unwrap_or_else(|| implementation_name(node_type, rule)),
                scenario: stored.clone(),
            });
        }
    }
    Ok(out)
}

/// The position of the scenario's component in the node type's inheritance chain.
fn scenario_prio(
    ctx: &Context<'_>,
    node: ElementId,
    node_type: &str,
    scenario: &Scenario,
) -> Result<f64> {
    let chain = ctx.types.chain("node_types", node_type);
    match chain.iter().position(|t| *t == scenario.component) {
        Some(i) => Ok(i as f64),
        None => bail!(
            ctx.graph.get(node).span,
            "Expected to find target type \"{}\" in inheritance of source type \"{}\" which is \"{}\"",
            scenario.component,
            node_type,
            v4t_yaml::json::to_json(&Node::seq(
                chain.iter().map(|t| Node::string(t.clone())).collect()
            ))
        ),
    }
}

/// `{and: [<conditions as list>]}`.
fn and_of_rule_conditions(conditions: &Node) -> Node {
    let list = match conditions.as_seq() {
        Some(l) => l.clone(),
        None => vec![conditions.clone()],
    };
    Node::single("and", Node::seq(list))
}

/// `<node type>~<component>[#<artifact>]::<technology>[@<hosting joined with ->]`.
fn implementation_name(node_type: &str, rule: &Rule) -> String {
    let mut name = format!("{node_type}~{}", rule.component);
    if let Some(a) = &rule.artifact {
        name.push('#');
        name.push_str(a);
    }
    name.push_str("::");
    name.push_str(&rule.technology);
    if !rule.hosting.is_empty() {
        name.push('@');
        name.push_str(&rule.hosting.join("->"));
    }
    name
}

// ---------------------------------------------------------------------------
// The two enrichment passes (8.4, 8.5)

/// A rewrite of a node's raw technology list.
struct Edit {
    node: ElementId,
    /// Replace the list (implementations) or append to it (technologies).
    replace: bool,
    technologies: Vec<Node>,
}

/// The managed flag of every node (evaluated for all nodes, 4.5).
fn managed_nodes(ctx: &Context<'_>) -> Result<Vec<(ElementId, bool)>> {
    ctx.graph
        .nodes
        .iter()
        .map(|&n| Ok((n, ctx.types.is_managed(n)?)))
        .collect()
}

/// `enrich_implementations` (8.5): manual technologies of managed nodes are
/// replaced by the rule candidates of the same name.
fn implementation_edits(ctx: &Context<'_>) -> Result<Vec<Edit>> {
    let g = ctx.graph;
    let mut edits = Vec::new();
    for (node, managed) in managed_nodes(ctx)? {
        let technologies = &g.get(node).technologies;
        if !managed || technologies.is_empty() {
            continue;
        }
        let mut replacement = Vec::new();
        for &t in technologies {
            let manual = &g.get(t).conditions;
            let kept: Vec<Candidate> = candidates(ctx, node)?
                .into_iter()
                .filter(|c| c.technology == g.get(t).name)
                .collect();
            if kept.is_empty() {
                bail!(
                    g.get(t).span,
                    "{} has no implementation for {}",
                    g.Display(node),
                    g.display(t)
                );
            }
            for candidate in kept {
                let conditions = if manual.is_empty() {
                    candidate.conditions.clone()
                } else {
                    let Some(rule_conditions) = &candidate.conditions else {
                        bail!(g.get(t).span, "Unexpected error");
                    };
                    let mut list = manual.clone();
                    list.push(rule_conditions.clone());
                    Some(Node::seq(list))
                };
                replacement.push(candidate.to_node(conditions));
            }
        }
        edits.push(Edit {
            node,
            replace: true,
            technologies: replacement,
        });
    }
    Ok(edits)
}

/// `enrich_technologies` (8.4): managed nodes without technologies get all
/// their candidates, with generated conditions.
fn technology_edits(ctx: &Context<'_>) -> Result<Vec<Edit>> {
    let g = ctx.graph;
    let mut edits = Vec::new();
    for (node, managed) in managed_nodes(ctx)? {
        if !managed || !g.get(node).technologies.is_empty() {
            continue;
        }
        let found = candidates(ctx, node)?;
        if found.is_empty() {
            if g.options.required_technology_check {
                bail!(
                    g.get(node).span,
                    "{} has no technology candidates",
                    g.Display(node)
                );
            }
            continue;
        }
        let technologies = found
            .iter()
            .map(|c| c.to_node(c.conditions.clone().map(generated)))
            .collect();
        edits.push(Edit {
            node,
            replace: false,
            technologies,
        });
    }
    Ok(edits)
}

/// Marks a condition map as generated (`_generated: true`).
fn generated(mut condition: Node) -> Node {
    if let Some(m) = condition.as_map_mut() {
        m.insert("_generated", Node::bool(true));
    }
    condition
}

/// Writes an edit into the node's raw `technology` list.
fn apply(doc: &mut Node, g: &Graph, edit: Edit) {
    let Some(raw) = g.raw_mut(doc, edit.node).and_then(Node::as_map_mut) else {
        return;
    };
    match raw.get_mut("technology").and_then(Node::as_seq_mut) {
        Some(list) if !edit.replace => list.extend(edit.technologies),
        _ => raw.insert("technology", Node::seq(edit.technologies)),
    }
}
