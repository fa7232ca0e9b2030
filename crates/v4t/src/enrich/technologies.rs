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

use crate::document;
use crate::error::{bail, Result};
use crate::graph::{strings, Cond, ElementId, Graph, Loc, PlacedScenarios, Scenario};
use crate::options::Options;
use crate::types::{Collection, TypeSystem};
use std::cmp::Ordering;
use v4t_yaml::number::format_js;
use v4t_yaml::{Map, MapRef, Node, NodeRef, ValueRef};

/// Rewrites the raw `technology` lists of managed nodes from the rules
/// (`enrich_implementations`, then `enrich_technologies`), on graph #1.
/// The candidates' scenarios go into the document, or with `placing` (when
/// resolving) only into the result, for graph #2.
pub(crate) fn enrich_technologies(
    doc: &mut Node,
    graph: &Graph,
    types: &TypeSystem,
    placing: bool,
) -> Result<PlacedScenarios> {
    let rules = read_rules((&*doc).into());
    let groups = scenarios(&rules);
    let edits = {
        let ctx = Context {
            doc,
            graph,
            types,
            rules: &rules,
            scenarios: &groups,
            placing,
        };
        let mut edits = Vec::new();
        if graph.options().enrich_implementations && !rules.is_empty() {
            edits.extend(implementation_edits(&ctx)?);
        }
        if graph.options().enrich_technologies {
            edits.extend(technology_edits(&ctx)?);
        }
        edits
    };
    let mut placed = PlacedScenarios::default();
    let written = (!placing).then_some(groups.as_slice());
    for edit in edits {
        apply(doc, graph, edit, written, &mut placed)?;
    }
    if placing && !placed.at.is_empty() {
        placed.scenarios = groups.into_iter().map(|g| g.scenario).collect();
    }
    Ok(placed)
}

/// Whether [`enrich_technologies`] can change `doc` under `options`:
/// technology enrichment is on, or implementation enrichment is on and there
/// are rules. Otherwise the enricher skips graph #1.
pub(crate) fn may_edit(doc: NodeRef<'_>, options: &Options) -> bool {
    options.enrich_technologies || (options.enrich_implementations && !read_rules(doc).is_empty())
}

/// The `scenario` token's condition of a rule-derived technology: one
/// alternative per match of its stored scenario, or `None` without scenario.
pub(crate) fn scenario_condition(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    id: ElementId,
) -> Result<Option<Cond>> {
    let Some(scenario) = graph.scenario(id) else {
        return Ok(None);
    };
    let Some(node) = graph.get(id).container() else {
        return Ok(None);
    };
    let matches = matches(graph, doc, types, node, scenario)?;
    let alternatives = matches
        .iter()
        .map(|elements| Cond::And(elements.iter().map(|&e| Cond::Presence(e)).collect()))
        .collect();
    Ok(Some(Cond::Or(alternatives)))
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
    fn from_node(n: NodeRef<'_>) -> Rule {
        let string = |k: &str| {
            n.get_defined(k)
                .and_then(NodeRef::as_str)
                .map(str::to_string)
        };
        Rule {
            component: string("component").unwrap_or_default(),
            technology: n
                .get("technology")
                .map_or_else(|| "undefined".to_string(), js_join),
            artifact: string("artifact"),
            operations: n.get_defined("operations").map(strings),
            hosting: n.get("hosting").map(strings).unwrap_or_default(),
            weight: n.get("weight").and_then(NodeRef::as_f64).unwrap_or(1.0),
            conditions: n.get_defined("conditions").map(NodeRef::to_node),
            assign: string("assign"),
        }
    }
}

/// The rules of the document, sorted (8.1).
fn read_rules(doc: NodeRef<'_>) -> Vec<Rule> {
    let list = document::variability_entry(doc, "qualities").and_then(NodeRef::as_seq);
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
///
/// The comparator is not transitive (artifacts only count if both rules have
/// one), so the result depends on the algorithm: like V8's `Array.sort`, small
/// lists (< 64 entries, a single run) are sorted by run detection plus binary
/// insertion; longer lists fall back to Rust's stable sort.
fn sort_rules(rules: &mut [Rule]) {
    if rules.len() >= 64 {
        rules.sort_by(compare_rules);
        return;
    }
    let run = leading_run(rules);
    binary_insertion_sort(rules, run);
}

/// V8's `CountAndMakeRun`: the length of the ascending (or strictly
/// descending, then reversed) run at the start.
fn leading_run(rules: &mut [Rule]) -> usize {
    if rules.len() < 2 {
        return rules.len();
    }
    let descending = compare_rules(&rules[1], &rules[0]) == Ordering::Less;
    let mut run = 2;
    while run < rules.len() {
        let order = compare_rules(&rules[run], &rules[run - 1]);
        if (order == Ordering::Less) != descending {
            break;
        }
        run += 1;
    }
    if descending {
        rules[..run].reverse();
    }
    run
}

/// V8's `BinaryInsertionSort` of `rules[sorted..]` into the sorted prefix.
fn binary_insertion_sort(rules: &mut [Rule], sorted: usize) {
    for start in sorted.max(1)..rules.len() {
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + (right - left) / 2;
            if compare_rules(&rules[start], &rules[mid]) == Ordering::Less {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        rules[left..=start].rotate_right(1);
    }
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
fn js_join(n: NodeRef<'_>) -> String {
    match n.value() {
        ValueRef::String(s) => s.to_string(),
        ValueRef::Number(x) => format_js(x),
        ValueRef::Bool(b) => b.to_string(),
        ValueRef::Seq(items) => items
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
        ValueRef::Null => "undefined".to_string(),
        _ => "[object Object]".to_string(),
    }
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

/// Rules with the same component, artifact and hosting: the scenario a
/// candidate stores, and the technologies the rules assess.
#[derive(Clone, Debug)]
struct RuleGroup {
    scenario: Scenario,
    assessments: Vec<Assessment>,
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
fn scenarios(rules: &[Rule]) -> Vec<RuleGroup> {
    let mut out: Vec<RuleGroup> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let key = scenario_key(rule);
        let assessment = Assessment {
            technology: rule.technology.clone(),
            quality: rule.weight,
            rule: i,
        };
        match out.iter_mut().find(|s| s.scenario.key == key) {
            Some(s) => s.assessments.push(assessment),
            None => out.push(RuleGroup {
                scenario: Scenario {
                    key,
                    component: rule.component.clone(),
                    operations: rule.operations.clone(),
                    artifact: rule.artifact.clone(),
                    hosting: rule.hosting.clone(),
                },
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
    doc: NodeRef<'_>,
    types: &TypeSystem,
    node: ElementId,
    scenario: &Scenario,
) -> Result<Vec<Vec<ElementId>>> {
    let node_type = g.single_type(node)?;
    if !types.is_a(Collection::Node, node_type, &scenario.component)? {
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
        if artifacts.is_empty() && !type_has_artifact(types, node_type, artifact_type)? {
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
    doc: NodeRef<'_>,
    types: &TypeSystem,
    node: ElementId,
    op: &str,
) -> Result<bool> {
    if let Some(interfaces) = g.raw(doc, node).and_then(|r| r.get_defined("interfaces")) {
        let Some(management) = interfaces.get_defined("management") else {
            bail!(
                interfaces.span(),
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
    let node_type = g.single_type(node)?;
    let Some(t) = types.resolve(Collection::Node, node_type) else {
        return Ok(false);
    };
    let mut chain = types.chain_of(t);
    Ok(chain.any(|t| {
        types
            .definition(t)
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
    types: &TypeSystem,
    node: ElementId,
    artifact_type: &str,
) -> Result<Vec<ElementId>> {
    let mut out = Vec::new();
    for &a in g.get(node).artifacts() {
        let own = g.single_type(a)?;
        if types.is_a(Collection::Artifact, own, artifact_type)? {
            out.push(a);
        }
    }
    Ok(out)
}

/// Whether an artifact definition on the node type chain has a type that
/// is-a `artifact_type` (string definitions are `tosca.artifacts.File`);
/// the artifact types are named as the file defining the node type writes
/// them.
fn type_has_artifact(types: &TypeSystem<'_>, node_type: &str, artifact_type: &str) -> Result<bool> {
    let Some(start) = types.resolve(Collection::Node, node_type) else {
        return Ok(false);
    };
    for t in types.chain_of(start) {
        let Some(defs) = types.definition(t).and_then(|d| d.get("artifacts")) else {
            continue;
        };
        for def in artifact_definitions(defs) {
            let own = match def.as_str() {
                Some(_) => "tosca.artifacts.File",
                None => match def.get("type").and_then(NodeRef::as_str) {
                    Some(t) => t,
                    None => continue,
                },
            };
            if types.named_is_a(Collection::Artifact, Some(t), own, artifact_type)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The definitions of an `artifacts` collection in map or list form.
fn artifact_definitions(defs: NodeRef<'_>) -> Vec<NodeRef<'_>> {
    match defs.value() {
        ValueRef::Map(m) => m.values().collect(),
        ValueRef::Seq(l) => l
            .iter()
            .filter_map(|i| i.as_map().and_then(MapRef::first).map(|(_, v)| v))
            .collect(),
        _ => Vec::new(),
    }
}

/// The hosting relations of a node with their targets, in requirement order;
/// for each host the first hosting relation targeting it.
fn hosts(g: &Graph, node: ElementId) -> Vec<(ElementId, ElementId)> {
    let mut hosting: Vec<(ElementId, ElementId)> = g
        .get(node)
        .outgoing()
        .iter()
        .filter(|&&r| g.get(r).hosting())
        .filter_map(|&r| g.get(r).target().map(|t| (r, t)))
        .collect();
    // In place: the first entry of a host keeps its own relation.
    for i in 0..hosting.len() {
        let h = hosting[i].1;
        if let Some(&(first, _)) = hosting[..i].iter().find(|&&(_, t)| t == h) {
            hosting[i].0 = first;
        }
    }
    hosting
}

/// Collects every hosting path of `node` that realises `pattern` (node type
/// names, `*` skips any number of hosting levels) into `paths`. A hosting
/// relation back to a node of the path is a hosting cycle, an error (the
/// reference recurses without end there).
fn search(
    g: &Graph,
    types: &TypeSystem,
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
        if let Some(cycle) = cycle_through(g, history, relation, host) {
            return Err(g.hosting_cycle(&cycle));
        }
        let matched = types.is_a(Collection::Node, g.single_type(host)?, searched)?;
        if !matched && !wildcard {
            continue;
        }
        let mut extended = Vec::with_capacity(history.len() + 2);
        extended.extend_from_slice(history);
        extended.extend([relation, host]);
        if matched {
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

/// The hosting relations of the cycle closed by `relation` (to `host`) at
/// the end of the path `history` (`[relation, host, ...]` pairs), if `host`
/// is already on the path.
fn cycle_through(
    g: &Graph,
    history: &[ElementId],
    relation: ElementId,
    host: ElementId,
) -> Option<Vec<ElementId>> {
    let relations: Vec<ElementId> = history.iter().step_by(2).copied().collect();
    let start = relations
        .iter()
        .position(|&r| g.get(r).source() == Some(host))
        .or_else(|| (g.get(relation).source() == Some(host)).then_some(relations.len()))?;
    let mut cycle = relations[start..].to_vec();
    cycle.push(relation);
    Some(cycle)
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
    /// Its rule group, by position.
    scenario: u32,
}

/// A candidate as YAML, and its rule group (by position).
struct Technology {
    /// `<technology>: {conditions, weight, assign, prio}`, without the
    /// scenario, which [`apply`] writes or places.
    node: Node,
    scenario: u32,
}

impl Candidate {
    /// The single-entry technology map `<technology>: {conditions, weight,
    /// assign, prio}`, with room for the scenario unless it is `placing`.
    ///
    /// In the template `v4t enrich` writes (not `placing`), `conditions`
    /// comes first even without rule conditions: the reference creates the
    /// key (undefined) there, and the transformer's final list takes its
    /// place. A null value reads as no conditions ([`crate::graph`]).
    fn into_technology(self, conditions: Option<Node>, placing: bool) -> Technology {
        // Exactly sized: a large template has tens of thousands of candidates.
        let entries = 2
            + usize::from(conditions.is_some() || !placing)
            + usize::from(self.prio.is_some())
            + usize::from(!placing);
        let mut m = Map::with_capacity(entries);
        match conditions {
            Some(c) => m.insert("conditions", c),
            None if !placing => m.insert("conditions", Node::null()),
            None => {}
        }
        m.insert("weight", Node::number(self.weight));
        m.insert("assign", Node::string(self.assign));
        if let Some(p) = self.prio {
            m.insert("prio", Node::number(p));
        }
        Technology {
            node: super::single(&self.technology, Node::map(m)),
            scenario: self.scenario,
        }
    }
}

/// Everything the candidate computation reads.
struct Context<'a> {
    doc: &'a Node,
    graph: &'a Graph,
    types: &'a TypeSystem<'a>,
    rules: &'a [Rule],
    scenarios: &'a [RuleGroup],
    /// The candidates' scenarios are placed, not written ([`apply`]).
    placing: bool,
}

/// The candidates of a node from all matching scenarios, in scenario order.
fn candidates(ctx: &Context<'_>, node: ElementId) -> Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for (position, group) in ctx.scenarios.iter().enumerate() {
        let scenario = &group.scenario;
        if matches(ctx.graph, ctx.doc.into(), ctx.types, node, scenario)?.is_empty() {
            continue;
        }
        let node_type = ctx.graph.single_type(node)?;
        let prio = if ctx.graph.options().solver.scenarios {
            Some(scenario_prio(ctx, node, node_type, scenario)?)
        } else {
            None
        };
        let best = group
            .assessments
            .iter()
            .map(|a| a.quality)
            .fold(f64::NEG_INFINITY, f64::max);
        let best_only = ctx.graph.options().enrich_technologies_best_only;
        let kept = group
            .assessments
            .iter()
            .filter(|a| !(best_only && a.quality < best));
        for assessment in kept {
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
                scenario: position as u32,
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
    let types = ctx.types;
    match types.chain_position(Collection::Node, node_type, &scenario.component) {
        Some(i) => Ok(i as f64),
        None => {
            let chain = types.chain(Collection::Node, node_type);
            bail!(
                ctx.graph.get(node).span,
                "Expected to find target type \"{}\" in inheritance of source type \"{}\" which is \"{}\"",
                scenario.component,
                node_type,
                v4t_yaml::json::to_json(&Node::seq(
                    chain.iter().map(|&t| Node::string(t)).collect()
                ))
            )
        }
    }
}

/// `{and: [<conditions as list>]}`.
fn and_of_rule_conditions(conditions: &Node) -> Node {
    let list = match conditions.as_seq() {
        Some(l) => l.clone(),
        None => vec![conditions.clone()],
    };
    super::single_flagged("and", Node::seq(list))
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
    technologies: Vec<Technology>,
}

/// The managed flag of every node (evaluated for all nodes, 4.5).
fn managed_nodes(ctx: &Context<'_>) -> Result<Vec<(ElementId, bool)>> {
    ctx.graph
        .nodes()
        .iter()
        .map(|&n| {
            let raw = ctx.graph.raw_map(ctx.doc, n);
            Ok((n, ctx.graph.is_managed(ctx.types, raw, n)?))
        })
        .collect()
}

/// `enrich_implementations` (8.5): manual technologies of managed nodes are
/// replaced by the rule candidates of the same name.
fn implementation_edits(ctx: &Context<'_>) -> Result<Vec<Edit>> {
    let g = ctx.graph;
    let mut edits = Vec::new();
    for (node, managed) in managed_nodes(ctx)? {
        let technologies = g.get(node).technologies();
        if !managed || technologies.is_empty() {
            continue;
        }
        let mut replacement = Vec::new();
        let all = candidates(ctx, node)?;
        for &t in technologies {
            let manual = &g.get(t).conditions;
            let kept: Vec<&Candidate> = all.iter().filter(|c| c.technology == g.name(t)).collect();
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
                    let mut list: Vec<Node> = manual.iter().map(|c| c.to_node(g)).collect();
                    list.push(rule_conditions.clone());
                    Some(Node::seq(list))
                };
                replacement.push(candidate.clone().into_technology(conditions, ctx.placing));
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
        if !managed || !g.get(node).technologies().is_empty() {
            continue;
        }
        let found = candidates(ctx, node)?;
        if found.is_empty() {
            if g.options().required_technology_check {
                bail!(
                    g.get(node).span,
                    "{} has no technology candidates",
                    g.Display(node)
                );
            }
            continue;
        }
        let technologies = found
            .into_iter()
            .map(|mut c| {
                let conditions = c.conditions.take().map(generated);
                c.into_technology(conditions, ctx.placing)
            })
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

/// Writes an edit into the node's raw `technology` list, normalised (the
/// rest of the document stays as the first normalisation left it), with
/// the candidates' scenarios from `written` (the rule groups), or without
/// them: then they go into `placed`, where the candidates stand.
fn apply(
    doc: &mut Node,
    g: &Graph,
    edit: Edit,
    written: Option<&[RuleGroup]>,
    placed: &mut PlacedScenarios,
) -> Result<()> {
    let Loc::Node(position) = g.get(edit.node).loc else {
        return Ok(());
    };
    let Some(node) = g.raw_mut(doc, edit.node).filter(|n| n.as_map().is_some()) else {
        return Ok(());
    };
    let Some(raw) = node.as_map_mut() else {
        return Ok(());
    };
    let start = match raw.get("technology").and_then(Node::as_seq) {
        Some(list) if !edit.replace => list.len(),
        _ => 0,
    };
    let mut added = Vec::with_capacity(edit.technologies.len());
    for (i, Technology { mut node, scenario }) in edit.technologies.into_iter().enumerate() {
        let Some(groups) = written else {
            placed.at.insert((position, (start + i) as u32), scenario);
            added.push(node);
            continue;
        };
        let technology = node.as_map_mut().and_then(Map::first_mut);
        let stored = groups.get(scenario as usize).map(|g| g.scenario.to_node());
        if let (Some(m), Some(stored)) = (technology.and_then(|(_, t)| t.as_map_mut()), stored) {
            m.insert("scenario", stored);
        }
        added.push(node);
    }
    match raw.get_mut("technology").and_then(Node::as_seq_mut) {
        Some(list) if !edit.replace => list.extend(added),
        _ => raw.insert("technology", Node::seq(added)),
    }
    crate::normalize::node_technologies(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::normalize;
    use v4t_yaml::json::to_json;
    use v4t_yaml::SourceId;

    fn load(text: &str) -> Node {
        let mut doc = v4t_yaml::parse(text, SourceId(0)).expect("parses");
        normalize(&mut doc).expect("normalises");
        doc
    }

    #[test]
    fn hosts_pair_each_host_with_its_first_hosting_relation() {
        let doc = load(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    n: {type: t, requirements: [{host: a}, {db: a}, {host: b}, {host: a}]}\n    a: {type: t}\n    b: {type: t}\n",
        );
        let g = crate::testing::build(&doc).expect("builds");
        let (n, a, b) = (
            g.node("n").unwrap(),
            g.node("a").unwrap(),
            g.node("b").unwrap(),
        );
        let r = g.get(n).outgoing();
        assert_eq!(hosts(&g, n), vec![(r[0], a), (r[2], b), (r[0], a)]);
        assert!(hosts(&g, a).is_empty());
    }

    fn rule(component: &str, artifact: Option<&str>, hosting: &[&str], technology: &str) -> Rule {
        Rule {
            component: component.to_string(),
            technology: technology.to_string(),
            artifact: artifact.map(str::to_string),
            operations: None,
            hosting: hosting.iter().map(|h| h.to_string()).collect(),
            weight: 1.0,
            conditions: None,
            assign: None,
        }
    }

    #[test]
    fn collation_is_case_insensitive_first_then_lower_before_upper() {
        assert_eq!(collate("a", "B"), Ordering::Less);
        assert_eq!(collate("B", "a"), Ordering::Greater);
        assert_eq!(collate("a", "A"), Ordering::Less);
        assert_eq!(collate("A", "b"), Ordering::Less);
        assert_eq!(collate("Ab", "aC"), Ordering::Less);
        assert_eq!(collate("ab", "Ab"), Ordering::Less);
        assert_eq!(collate("abc", "abc"), Ordering::Equal);
        assert_eq!(collate("ab", "abc"), Ordering::Less);
        assert_eq!(collate("", "a"), Ordering::Less);
    }

    #[test]
    fn collation_orders_punctuation_before_digits_before_letters() {
        let mut words = vec!["a", "1", ".", "-", "_", "Z", "9", "z"];
        words.sort_by(|a, b| collate(a, b));
        assert_eq!(words, vec!["_", "-", ".", "1", "9", "a", "z", "Z"]);
        assert_eq!(collate("a_b", "a-b"), Ordering::Less);
        assert_eq!(collate("a-b", "a.b"), Ordering::Less);
        assert_eq!(collate("a.b", "ab"), Ordering::Less);
        assert_eq!(collate("x2", "x10"), Ordering::Greater);
    }

    #[test]
    fn rules_sort_stably_by_component_artifact_and_hosting() {
        let mut rules = vec![
            rule("b", None, &[], "first"),
            rule("a", None, &["z"], "second"),
            rule("a", Some("y"), &["a"], "third"),
            rule("a", None, &["a"], "fourth"),
            rule("a", Some("x"), &["z"], "fifth"),
            rule("B", None, &[], "sixth"),
            rule("b", None, &[], "seventh"),
        ];
        sort_rules(&mut rules);
        let order: Vec<&str> = rules.iter().map(|r| r.technology.as_str()).collect();
        // as `Array.sort` with `localeCompare` orders them in Node.js
        assert_eq!(
            order,
            vec!["third", "fourth", "second", "fifth", "first", "seventh", "sixth"]
        );
    }

    #[test]
    fn scenarios_group_rules_by_component_artifact_and_hosting() {
        let rules = vec![
            rule("app", None, &["h", "k"], "ansible"),
            rule("app", Some("zip"), &[], "terraform"),
            rule("app", None, &["h", "k"], "terraform"),
        ];
        let found = scenarios(&rules);
        let keys: Vec<&str> = found.iter().map(|s| s.scenario.key.as_str()).collect();
        assert_eq!(keys, vec!["app@h->k", "app#zip"]);
        let techs: Vec<&str> = found[0]
            .assessments
            .iter()
            .map(|a| a.technology.as_str())
            .collect();
        assert_eq!(techs, vec!["ansible", "terraform"]);
        assert_eq!(
            implementation_name("my_app", &rules[0]),
            "my_app~app::ansible@h->k"
        );
        assert_eq!(
            implementation_name("my_app", &rules[1]),
            "my_app~app#zip::terraform"
        );
    }

    const STACK: &str = r#"
tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
    tosca.nodes.Root: {}
    app: {}
    runtime: {}
    vm: {}
    cloud: {}
topology_template:
    node_templates:
        app:
            type: app
            requirements:
                - host: runtime
        runtime:
            type: runtime
            requirements:
                - host: vm
        vm:
            type: vm
            requirements:
                - host: cloud
        cloud:
            type: cloud
"#;

    /// The hosting paths of node `app` for a pattern, as element ids.
    fn paths(doc: &Node, pattern: &[&str]) -> Result<Vec<Vec<String>>> {
        let g = crate::testing::build(doc).expect("builds");
        let type_files = crate::testing::type_files(doc);
        let types = type_files.system();
        let pattern: Vec<String> = pattern.iter().map(|p| p.to_string()).collect();
        let mut out = Vec::new();
        search(&g, &types, g.node("app").unwrap(), &pattern, &[], &mut out)?;
        Ok(out
            .iter()
            .map(|p| p.iter().map(|&e| g.id(e).to_string()).collect())
            .collect())
    }

    #[test]
    fn hosting_paths_follow_the_pattern_level_by_level() {
        let doc = load(STACK);
        let found = paths(&doc, &["runtime", "vm"]).unwrap();
        assert_eq!(
            found,
            vec![vec![
                "relation.host@0.node.app",
                "node.runtime",
                "relation.host@0.node.runtime",
                "node.vm"
            ]]
        );
        assert!(paths(&doc, &["vm"]).unwrap().is_empty());
        assert!(paths(&doc, &["runtime", "cloud"]).unwrap().is_empty());
    }

    #[test]
    fn hosting_wildcards_skip_any_number_of_levels() {
        let doc = load(STACK);
        let found = paths(&doc, &["*", "cloud"]).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].len(), 6);
        assert_eq!(found[0][5], "node.cloud");
        let found = paths(&doc, &["*", "runtime"]).unwrap();
        assert_eq!(
            found,
            vec![vec!["relation.host@0.node.app", "node.runtime"]]
        );
        let found = paths(&doc, &["runtime", "*", "cloud"]).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0][1], "node.runtime");
        assert_eq!(found[0][5], "node.cloud");
        assert!(paths(&doc, &["*", "app"]).unwrap().is_empty());
        let err = paths(&doc, &["*"]).unwrap_err();
        assert_eq!(err.message, "Unexpected error");
    }

    const RULES: &str = r#"
tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
    tosca.nodes.Root: {}
    app: {}
    db: {}
    vm:
        metadata: {vintner_abstract: 'true'}
topology_template:
    variability:
        qualities:
            - component: app
              technology: ansible
              hosting: [vm]
              conditions: {variability_input: fast}
              weight: 0.5
            - component: app
              technology: terraform
              hosting: [vm]
              weight: 0.5
            - component: db
              technology: Helm
              conditions: [true, false]
    node_templates:
        app:
            type: app
            requirements:
                - host: vm
        db:
            type: db
            technology:
                - helm:
                      conditions: {variability_input: db}
        vm:
            type: vm
"#;

    /// The rules read from a `Doc` of the normalised document are the
    /// rules read from the tree, in the same order, and so is whether
    /// graph #1 can edit the document.
    #[test]
    fn rules_of_a_document_are_those_of_its_tree() {
        let odd = RULES.replace(
            "technology: Helm",
            "technology: [Helm, null, 3]\n              artifact: chart\n              operations: [deploy]",
        );
        let prio = PRIO.replace("BEST", "true");
        for text in [RULES, prio.as_str(), odd.as_str()] {
            let tree = load(text);
            let read = v4t_yaml::Doc::from_node(&tree, SourceId(0));
            let rules = |doc| format!("{:?}", read_rules(doc));
            let from_tree = rules((&tree).into());
            assert_eq!(from_tree, rules(read.root()), "{text}");
            assert!(from_tree.contains("component"), "{from_tree}");
            let options = crate::testing::options(&tree).expect("options");
            assert_eq!(
                may_edit((&tree).into(), &options),
                may_edit(read.root(), &options)
            );
        }
    }

    /// The raw technology list of a node after the enrichment passes.
    fn enriched_technologies(text: &str, node: &str) -> Result<String> {
        let mut doc = load(text);
        let g = crate::testing::build(&doc).expect("builds");
        let type_files = crate::testing::type_files(&doc);
        let types = type_files.system();
        enrich_technologies(&mut doc, &g, &types, false)?;
        let id = g.node(node).unwrap();
        Ok(to_json(
            g.raw(&doc, id).and_then(|r| r.get("technology")).unwrap(),
        ))
    }

    fn lower_case_rules() -> String {
        RULES.replace("technology: Helm", "technology: helm")
    }

    /// As the reference writes them (8.3, 8.4): `conditions` first, also
    /// where the rule has none (null until the transformer writes the final
    /// list), and the scenario with an empty list of assessments.
    #[test]
    fn technology_candidates_carry_generated_and_conditions() {
        let json = enriched_technologies(&lower_case_rules(), "app").unwrap();
        assert_eq!(
            json,
            r#"[{"ansible":{"conditions":{"and":[{"variability_input":"fast"}],"_generated":true},"weight":0.5,"assign":"app~app::ansible@vm","scenario":{"key":"app@vm","component":"app","hosting":["vm"],"assessments":[]}}},{"terraform":{"conditions":null,"weight":0.5,"assign":"app~app::terraform@vm","scenario":{"key":"app@vm","component":"app","hosting":["vm"],"assessments":[]}}}]"#
        );
    }

    #[test]
    fn implementations_prepend_manual_conditions() {
        let json = enriched_technologies(&lower_case_rules(), "db").unwrap();
        assert_eq!(
            json,
            r#"[{"helm":{"conditions":[{"variability_input":"db"},{"and":[true,false]}],"weight":1,"assign":"db~db::helm","scenario":{"key":"db","component":"db","hosting":[],"assessments":[]}}}]"#
        );
    }

    #[test]
    fn implementations_match_rule_technologies_case_sensitively() {
        let err = enriched_technologies(RULES, "db").unwrap_err();
        assert_eq!(
            err.message,
            r#"Node "db" has no implementation for technology "helm@0" of node "db""#
        );
    }

    #[test]
    fn manual_conditions_need_rule_conditions() {
        let text = lower_case_rules().replace("conditions: [true, false]", "weight: 1");
        let err = enriched_technologies(&text, "db").unwrap_err();
        assert_eq!(err.message, "Unexpected error");
    }

    #[test]
    fn scenario_condition_lists_the_matching_paths() {
        let mut doc = load(&lower_case_rules());
        let g1 = crate::testing::build(&doc).expect("builds");
        let type_files = crate::testing::type_files(&doc);
        let types = type_files.system();
        let manual = g1.get(g1.node("db").unwrap()).technologies()[0];
        assert!(scenario_condition((&doc).into(), &g1, &types, manual)
            .unwrap()
            .is_none());
        enrich_technologies(&mut doc, &g1, &types, false).unwrap();
        normalize(&mut doc).unwrap();
        let g2 = crate::testing::build(&doc).expect("builds");
        let type_files = crate::testing::type_files(&doc);
        let types = type_files.system();
        let condition = |node: &str| {
            let tech = g2.get(g2.node(node).unwrap()).technologies()[0];
            to_json(
                &scenario_condition((&doc).into(), &g2, &types, tech)
                    .unwrap()
                    .unwrap()
                    .to_node(&g2),
            )
        };
        assert_eq!(
            condition("app"),
            r#"{"or":[{"and":[{"relation_presence":["app",0]},{"node_presence":"vm"}]}]}"#
        );
        assert_eq!(condition("db"), r#"{"or":[{"and":[]}]}"#);
    }

    const PRIO: &str = r#"
tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
    tosca.nodes.Root: {}
    grandparent: {}
    parent: {derived_from: grandparent}
    container: {derived_from: parent}
topology_template:
    variability:
        options: {optimization_scenarios: true, enrich_technologies_best_only: BEST}
        qualities:
            - {component: parent, technology: ansible, weight: 0}
            - {component: grandparent, technology: chef, weight: 0.5}
            - {component: parent, technology: terraform, weight: 1}
    node_templates:
        container:
            type: container
"#;

    /// `technology:prio` of every candidate of `container`.
    fn prio_candidates(best_only: bool) -> Vec<String> {
        let doc = load(&PRIO.replace("BEST", &best_only.to_string()));
        let g = crate::testing::build(&doc).expect("builds");
        let type_files = crate::testing::type_files(&doc);
        let types = type_files.system();
        let rules = read_rules((&doc).into());
        let scenarios = scenarios(&rules);
        let ctx = Context {
            doc: &doc,
            graph: &g,
            types: &types,
            rules: &rules,
            scenarios: &scenarios,
            placing: false,
        };
        candidates(&ctx, g.node("container").unwrap())
            .unwrap()
            .iter()
            .map(|c| format!("{}:{}", c.technology, c.prio.unwrap_or(-1.0)))
            .collect()
    }

    #[test]
    fn candidates_keep_the_best_assessments_with_scenario_prio() {
        assert_eq!(prio_candidates(true), vec!["chef:2", "terraform:1"]);
        assert_eq!(
            prio_candidates(false),
            vec!["chef:2", "ansible:1", "terraform:1"]
        );
    }

    /// A wildcard hosting rule over a hosting cycle ends with an error that
    /// names the cycle instead of searching forever (issue 17, item 1).
    #[test]
    fn hosting_cycles_in_rule_search_are_errors() {
        let template = "tosca_definitions_version: tosca_variability_1_0
node_types: {a.type: {derived_from: tosca.nodes.Root}, b.type: {derived_from: tosca.nodes.Root}}
topology_template:
  variability:
    qualities:
      - {component: a.type, technology: ansible, hosting: ['*', c.type]}
  node_templates:
    a: {type: a.type, technology: ansible, requirements: [{host: b}]}
    b: {type: b.type, requirements: [{host: a}]}
";
        let mut sources = crate::Sources::new();
        let id = sources.add("template.yaml", template);
        let e = crate::resolve(
            &mut sources,
            id,
            &mut crate::NoFiles,
            &crate::ResolveOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.message, "Hosting relations form a cycle: a → b → a");
        let at = |span| sources.locate(span).unwrap_or_default();
        assert_eq!(at(e.span).start(), (8, 60), "a's host requirement");
        assert_eq!(e.element.as_deref(), Some("relation.host@0.node.a"));
        let notes: Vec<(&str, u32)> = e
            .notes
            .iter()
            .map(|n| (n.message.as_str(), at(n.span).line))
            .collect();
        assert_eq!(notes, vec![("node \"b\" is hosted on node \"a\" here", 9)]);

        // Without a wildcard the pattern runs into the cycle as well.
        let doc = load(&template.replace("['*', c.type]", "[b.type, a.type, b.type]"));
        let g = crate::testing::build(&doc).expect("builds");
        let type_files = crate::testing::type_files(&doc);
        let types = type_files.system();
        let a = g.node("a").unwrap();
        let pattern: Vec<String> = ["b.type", "a.type", "b.type"].map(String::from).to_vec();
        let e = search(&g, &types, a, &pattern, &[], &mut Vec::new()).unwrap_err();
        assert_eq!(e.message, "Hosting relations form a cycle: a → b → a");
    }
}
