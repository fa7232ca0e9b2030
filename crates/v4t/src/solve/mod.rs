//! Solving: encodes every element's conditions, the constraints and element
//! `implies` into SAT, solves, optimises and evaluates property expressions
//! (part 2, sections 5 and 6).
//!
//! Input: the resolver graph (enriched conditions) and the variability inputs.
//! Output: a [`Solution`] with the presence of every element and the values of
//! present properties with an `expression`.
//!
//! Where several optimal solutions remain, the earliest-listed of
//! alternatives (see [`alternatives`]) is present where it can be, and
//! otherwise absence is preferred in element order (documented in
//! ARCHITECTURE.md), so results never depend on solver internals.
//!
//! After encoding, the problem is split into independent parts
//! ([`v4t_sat::Split`]): inputs fix most literals, and what remains is usually
//! one small part per group of components sharing hosts. Optimisation stages,
//! uniqueness checks and tie-breaking then run per part with the same results
//! as on the whole problem; the stages that need no disjunction across parts
//! are asked together, so each part builds its search backend once for them.

pub(crate) mod alternative;
mod encode;
#[cfg(test)]
mod equivalence_tests;
pub(crate) mod explain;
#[cfg(test)]
mod explain_tests;
pub(crate) mod family;
mod mode;
mod problem;
#[cfg(test)]
mod tests;

pub(crate) use encode::Encoder;
pub(crate) use mode::Part;
use mode::{Family, Guard, GuardedFamily, Guarding, Resolve};
use problem::{encode_problem, RawDefs};

use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph, Kind};
use crate::options::{Optimize, TechnologiesMode};
use crate::reason::Reason;
use crate::types::TypeSystem;
use v4t_sat::{Answer, Lit, Question, Solver, Split};
use v4t_source::Code;
use v4t_yaml::number::format_js;
use v4t_yaml::{Map, NodeRef, Span, Value};

/// The outcome of solving.
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    /// Presence per element, indexed by [`ElementId`].
    pub present: Vec<bool>,
    /// Evaluated `expression`s of present properties, by element id.
    pub values: Vec<(ElementId, Value)>,
    /// Optimisation objective values, in stage order (name, value).
    pub objectives: Vec<(String, u64)>,
    /// The variability inputs after defaults were applied.
    pub inputs: Map,
}

impl Solution {
    pub(crate) fn is_present(&self, id: ElementId) -> bool {
        self.present.get(id.0 as usize).copied().unwrap_or(false)
    }

    pub(crate) fn value_of(&self, id: ElementId) -> Option<&Value> {
        let at = self.values.binary_search_by_key(&id, |(p, _)| *p).ok()?;
        self.values.get(at).map(|(_, v)| v)
    }
}

/// Solves the resolver graph of `doc` under the assigned `inputs`. Without
/// a solution, the error's notes name a minimal set of conflicting parts
/// ([`explain`]).
pub(crate) fn solve<'d>(
    doc: impl Into<NodeRef<'d>>,
    graph: &Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
) -> Result<Solution> {
    solve_or_conflict(doc.into(), graph, types, inputs, now_ms)
        .map_err(|(e, conflict)| explain::with_notes(e, &conflict))
}

/// [`solve`], failing with the error and, for "Could not solve", a
/// subset-minimal set of conflicting parts ([`explain::conflict_reasons`])
/// instead of notes.
pub(crate) fn solve_or_conflict(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
) -> std::result::Result<Solution, (Error, Vec<Reason>)> {
    let kept = inputs.clone();
    solve_assigned(doc, Solving::Shared(graph), types, inputs, now_ms, None).map_err(|e| {
        if e.code != Code::Unsatisfiable {
            return (e, Vec::new());
        }
        let conflict = explain::conflict_reasons(doc, graph, types, kept, now_ms);
        (e, conflict)
    })
}

/// The best solution in which element `fixed.0` has presence `fixed.1`
/// (the same optimisation and tie-breaking, no uniqueness checks): what
/// the optimiser rejected, for `v4t explain`.
pub(crate) fn solve_fixed(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
    fixed: (ElementId, bool),
) -> Result<Solution> {
    solve_assigned(
        doc,
        Solving::Shared(graph),
        types,
        inputs,
        now_ms,
        Some(fixed),
    )
}

/// [`solve`] for resolving one variant, letting the graph drop what only
/// encoding reads once the problem is encoded ([`Graph::release_encoded`]).
/// An unsatisfiable problem fails without notes: the conditions they would
/// name are gone, and [`solve`] on a graph built again gives them.
pub(crate) fn solve_releasing(
    doc: NodeRef<'_>,
    graph: &mut Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
) -> Result<Solution> {
    solve_assigned(doc, Solving::Releasing(graph), types, inputs, now_ms, None)
}

/// The graph a solve reads: shared with the caller, or one whose
/// encoding-only data the solve may drop.
enum Solving<'g> {
    Shared(&'g Graph),
    Releasing(&'g mut Graph),
}

impl Solving<'_> {
    fn get(&self) -> &Graph {
        match self {
            Solving::Shared(g) => g,
            Solving::Releasing(g) => g,
        }
    }
}

fn solve_assigned(
    doc: NodeRef<'_>,
    mut graph: Solving<'_>,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
    fixed: Option<(ElementId, bool)>,
) -> Result<Solution> {
    let (order, encoded) = {
        let mut enc = Encoder::new(graph.get(), doc, types, inputs, now_ms, |_| Resolve);
        let order = encode_problem(&mut enc)?;
        if let Some((id, present)) = fixed {
            let l = enc.presence(id);
            enc.sat.require(if present { l } else { !l });
        }
        (order, enc.detach())
    };
    if let Solving::Releasing(g) = &mut graph {
        g.release_encoded();
    }
    let graph = graph.get();
    let mut enc = encoded.attach(graph);
    let raw = RawDefs::new(doc);

    // From here on every question is answered per independent part.
    let mut sat = std::mem::take(&mut enc.sat).split();
    let objectives = optimize(&mut enc, &mut sat, fixed.is_none())?;
    let Preferred { present, .. } = tie_break(&mut enc, &mut sat, &order);

    let mut values = Vec::new();
    for &p in graph.properties() {
        if !present[p.0 as usize] {
            continue;
        }
        if let Some(v) = property_value(&mut enc, &raw, p)? {
            values.push((p, v));
        }
    }
    // Each property once; looked up by id (`Solution::value_of`).
    values.sort_unstable_by_key(|(p, _)| *p);
    Ok(Solution {
        present,
        values,
        objectives,
        inputs: enc.eval.assigned().clone(),
    })
}

/// The value of property `p`'s `expression`, if it has one; an error if it
/// has none (null). It depends on the inputs only, not on which elements
/// are present.
fn property_value(
    enc: &mut Encoder<'_, '_, Resolve>,
    raw: &RawDefs<'_>,
    p: ElementId,
) -> Result<Option<Value>> {
    let graph = enc.graph;
    let Some(expr) = expression_of(graph, raw, p) else {
        return Ok(None);
    };
    let v = enc
        .eval
        .evaluate(expr)
        .map_err(|e| Error::from(e).in_element(graph.id(p)))?;
    if matches!(v, Value::Null) {
        return Err(no_value(graph, p));
    }
    Ok(Some(v))
}

/// The error of a present property whose `expression` gives no value.
fn no_value(graph: &Graph, p: ElementId) -> Error {
    Error::at(
        format!("{} has no value", graph.Display(p)),
        graph.get(p).span,
    )
    .in_element(graph.id(p))
}

/// The `expression` of property `p`, if it has one.
fn expression_of<'d>(graph: &Graph, raw: &RawDefs<'d>, p: ElementId) -> Option<NodeRef<'d>> {
    raw.get(graph, p)
        .and_then(|r| r.get("expression"))
        .filter(|e| e.is_defined())
}

/// The family problem: the resolver's clauses over input variables.
pub(crate) struct FamilyProblem {
    pub sat: Solver,
    pub inputs: Vec<family::InputDomain>,
    /// Every element's presence literal, in element order.
    pub presence: Vec<(ElementId, Lit)>,
    /// Failing combinations in the order resolving meets them (a
    /// configuration fails with the first it agrees with); consecutive
    /// ones with the same message share an entry.
    pub failures: Vec<family::Failure>,
    /// The requirements of the declared `variability.constraints`, not
    /// required: (index of the constraint, literal), in order.
    pub declared: Vec<(u32, Lit)>,
    /// Per property with an `expression` (in resolving's order): the
    /// combinations under which it fails once present, after solving and
    /// before the checks, as resolving evaluates it.
    pub values: Vec<(ElementId, Vec<family::Failure>)>,
}

/// Encodes `graph` for every configuration of the inputs (see the module
/// documentation); nothing is solved.
pub(crate) fn family_problem(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    now_ms: f64,
) -> Result<FamilyProblem> {
    let mut enc = Encoder::new(graph, doc, types, Map::new(), now_ms, |sat| Family {
        inputs: family::FamilyInputs::new(doc, graph, types, sat, now_ms),
        declared: Vec::new(),
    });
    let order = encode_problem(&mut enc)?;
    let presence = order.iter().map(|&id| (id, enc.presence(id))).collect();
    let raw = RawDefs::new(doc);
    let mut values = Vec::new();
    for &p in graph.properties() {
        let Some(expr) = expression_of(graph, &raw, p) else {
            continue;
        };
        let failures =
            (enc.mode.inputs).value_failures(expr, &graph.id(p), &|| no_value(graph, p))?;
        if !failures.is_empty() {
            values.push((p, failures));
        }
    }
    let (inputs, failures) = enc.mode.inputs.into_parts();
    Ok(FamilyProblem {
        sat: enc.sat,
        inputs,
        presence,
        failures,
        declared: enc.mode.declared,
        values,
    })
}

/// The family problem with every part guarded (the declared constraints
/// guarded like the others instead of collected): why an element is dead
/// or core (`v4t analyze --why`).
pub(crate) fn guarded_family_problem(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    now_ms: f64,
) -> Result<(FamilyProblem, Vec<Guard>)> {
    let mut enc = Encoder::new(graph, doc, types, Map::new(), now_ms, |sat| {
        // `analyze --why` asks near each element (`minimal_switched_core`),
        // following the gates' definitions.
        sat.record_gates();
        GuardedFamily {
            inputs: family::FamilyInputs::new(doc, graph, types, sat, now_ms),
            guarding: Guarding::default(),
        }
    });
    let order = encode_problem(&mut enc)?;
    let presence = order.iter().map(|&id| (id, enc.presence(id))).collect();
    let (inputs, failures) = enc.mode.inputs.into_parts();
    let problem = FamilyProblem {
        sat: enc.sat,
        inputs,
        presence,
        failures,
        declared: Vec::new(),
        // `--why` asks about dead and core elements only.
        values: Vec::new(),
    };
    Ok((problem, enc.mode.guarding.guards))
}

/// The optimised problem after tie-breaking ([`alternatives`]).
struct Preferred {
    /// The presence of the elements, in element order.
    presence: Vec<Lit>,
    /// The members of the groups of alternatives, one group after another,
    /// and each group's range in them.
    members: Vec<Lit>,
    groups: Vec<std::ops::Range<usize>>,
    /// Presence by element id, as preferred.
    present: Vec<bool>,
}

/// Prefers, among the optimal models of `sat`, the earliest-listed
/// alternatives, then absence in element order (`order`).
fn tie_break(
    enc: &mut Encoder<'_, '_, Resolve>,
    sat: &mut Split,
    order: &[ElementId],
) -> Preferred {
    let graph = enc.graph;
    let presence: Vec<Lit> = order.iter().map(|&id| enc.presence(id)).collect();
    let (members, groups) = alternatives(graph, order);
    let members: Vec<Lit> = members.iter().map(|&id| enc.presence(id)).collect();
    let firsts: Vec<&[Lit]> = groups.iter().map(|g| &members[g.clone()]).collect();
    sat.prefer(&firsts, &presence);
    let mut present = vec![false; graph.elements().len()];
    for (&id, &l) in order.iter().zip(&presence) {
        present[id.0 as usize] = sat.value(l);
    }
    Preferred {
        presence,
        members,
        groups,
        present,
    }
}

/// Per element id: whether it belongs to a group of alternatives (see
/// [`alternatives`]).
pub(crate) fn in_alternatives(graph: &Graph) -> Vec<bool> {
    let order: Vec<ElementId> = graph.ordered().collect();
    let mut member = vec![false; graph.elements().len()];
    for id in alternatives(graph, &order).0 {
        member[id.0 as usize] = true;
    }
    member
}

/// The groups of alternatives for tie-breaking: elements of which at most
/// one may be present, each group in list order, the groups in element
/// order of their first member. Alternatives are the elements of one kind
/// and container that share a name (list-form alternatives such as two
/// `image` artifacts of a node or two `host` requirements), the types of
/// an element (it has one), and the technologies of a node where the
/// `unique_technology_constraint` allows one. Where optimisation leaves a
/// choice, the earliest-listed alternative that can be present is.
///
/// Returns the members of all groups one after another, and each group's
/// range in them.
fn alternatives(
    graph: &Graph,
    order: &[ElementId],
) -> (Vec<ElementId>, Vec<std::ops::Range<usize>>) {
    let mut members: Vec<ElementId> = Vec::new();
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    let mut by_name: Vec<ElementId> = Vec::new();
    let name = |id: ElementId| graph.name(id);
    // `whole`: the list is one group, whatever the names.
    let mut add = |list: &[ElementId], whole: bool| match *list {
        [] | [_] => {}
        _ if whole => {
            groups.push(members.len()..members.len() + list.len());
            members.extend_from_slice(list);
        }
        // The common case: a property and its fallback.
        [a, b] => {
            if name(a) == name(b) {
                groups.push(members.len()..members.len() + 2);
                members.extend([a, b]);
            }
        }
        _ => {
            // Stable: list order within a name.
            by_name.clear();
            by_name.extend_from_slice(list);
            by_name.sort_by(|&a, &b| name(a).cmp(name(b)));
            for run in by_name.chunk_by(|&a, &b| name(a) == name(b)) {
                if run.len() > 1 {
                    groups.push(members.len()..members.len() + run.len());
                    members.extend_from_slice(run);
                }
            }
        }
    };
    let one_technology = graph.options().constraints.unique_technology;
    for &n in graph.nodes() {
        let e = graph.get(n);
        add(e.types(), true);
        for list in [e.outgoing(), e.properties(), e.attributes(), e.artifacts()] {
            add(list, false);
        }
        add(e.technologies(), one_technology);
    }
    for &c in graph
        .relations()
        .iter()
        .chain(graph.groups())
        .chain(graph.policies())
        .chain(graph.artifacts())
    {
        let e = graph.get(c);
        add(e.types(), true);
        add(e.properties(), false);
        add(e.attributes(), false);
    }
    add(graph.policies(), false);
    add(graph.inputs(), false);
    add(graph.outputs(), false);
    if groups.len() > 1 {
        let mut position = vec![0u32; graph.elements().len()];
        for (i, &id) in order.iter().enumerate() {
            position[id.0 as usize] = i as u32;
        }
        groups.sort_by_key(|g| position[members[g.start].0 as usize]);
    }
    (members, groups)
}

/// Weights as whole numbers for the optimiser: scaled by 100 (as the
/// reference) or by the power of ten that makes the most decimal places
/// whole (up to six), then rounded, so that 0.07, 0.29 and 0.333 work (the
/// reference fails on `0.07 * 100 = 7.000000000000001`).
fn scaled_weights(weights: &[f64]) -> Result<Vec<u64>> {
    let places = weights
        .iter()
        .map(|w| {
            let text = format_js(*w);
            match text.split_once('.') {
                Some((_, fraction)) if !text.contains('e') => fraction.len(),
                _ => 0,
            }
        })
        .max()
        .unwrap_or(0)
        .clamp(2, 6);
    let scale = 10f64.powi(places as i32);
    weights
        .iter()
        .map(|w| {
            let scaled = (w * scale).round();
            // Within f64's exact integers: sums stay exact.
            if !(0.0..=9.0e15).contains(&scaled) {
                return Err(Error::new(format!(
                    "Weight \"{}\" is too large to optimise",
                    format_js(*w)
                )));
            }
            Ok(scaled as u64)
        })
        .collect()
}

/// Checks that weights are whole numbers once multiplied by 100.
fn whole_weights(weights: &[f64]) -> Result<Vec<u64>> {
    if weights.iter().all(|w| w.fract() == 0.0 && *w >= 0.0) {
        return Ok(weights.iter().map(|w| *w as u64).collect());
    }
    let shown: Vec<String> = weights.iter().map(|w| format_js(*w)).collect();
    Err(Error::new(format!(
        "{} is not an array of a whole number (integer >= 0)",
        shown.join(",")
    )))
}

/// The error of a problem without a solution.
pub(crate) fn unsatisfiable() -> Error {
    Error::coded(Code::Unsatisfiable, "Could not solve", Span::NONE)
}

fn run(sat: &mut Split, direction: Optimize, terms: &[(Lit, u64)]) -> Result<u64> {
    let r = match direction {
        Optimize::Max => sat.maximize(terms),
        _ => sat.minimize(terms),
    };
    r.ok_or_else(unsatisfiable)
}

/// An optimisation stage that needs no disjunction across parts.
enum Stage {
    /// An objective: its name, direction and terms.
    Objective(&'static str, Optimize, Vec<(Lit, u64)>),
    /// A uniqueness check: its error if another model (of the problem
    /// optimised so far) differs on the literals. Independent of the model
    /// in hand, unlike the reference's forward-only checks.
    Unique(String, Vec<Lit>),
}

/// The nodes' weights in the topology objective, in node order.
fn node_weights(graph: &Graph) -> Result<Vec<u64>> {
    let weights: Vec<f64> = graph
        .nodes()
        .iter()
        .map(|&n| graph.get(n).weight())
        .collect();
    scaled_weights(&weights)
}

/// The technologies' priorities in the scenarios objective, in technology
/// order.
fn technology_prios(graph: &Graph) -> Result<Vec<u64>> {
    let prios: Vec<f64> = (graph.technologies().iter())
        .map(|&t| graph.get(t).prio())
        .collect();
    whole_weights(&prios)
}

/// The technologies' weights in the technologies objective, in technology
/// order.
fn technology_weights(graph: &Graph) -> Result<Vec<u64>> {
    let weights: Vec<f64> = (graph.technologies().iter())
        .map(|&t| graph.get(t).weight())
        .collect();
    scaled_weights(&weights)
}

/// The stages before the technology count (5.6), in order. Building stops at
/// the first error, which counts after the answers of the stages before it.
fn stages(enc: &mut Encoder<'_, '_, Resolve>, stages: &mut Vec<Stage>) -> Result<()> {
    let graph = enc.graph;
    let opts = &graph.options().solver;
    if opts.topology != Optimize::Off {
        let weights = if opts.topology_by_weight {
            node_weights(graph)?
        } else {
            vec![1; graph.nodes().len()]
        };
        let terms = presence_terms(enc, graph.nodes(), &weights);
        stages.push(Stage::Objective("topology", opts.topology, terms));
    }
    if opts.topology_unique {
        let optimized = opts.topology != Optimize::Off;
        let message = format!(
            "The result is ambiguous considering nodes ({} optimization)",
            if optimized { "besides" } else { "without" }
        );
        // Both directions whatever `optimization_topology_unique_backward`
        // says: "unique" must not depend on the model the solver found first.
        let vars = enc.unique_vars(Kind::Node);
        stages.push(Stage::Unique(message, vars));
    }
    if opts.scenarios {
        let prios = technology_prios(graph)?;
        let terms = presence_terms(enc, graph.technologies(), &prios);
        stages.push(Stage::Objective("scenarios", Optimize::Min, terms));
    }
    if opts.scenarios_unique {
        let lits: Vec<Lit> = graph
            .technologies()
            .iter()
            .map(|&t| enc.presence(t))
            .collect();
        let message =
            "There are multiple scenarios of the same priority for one node template possible";
        stages.push(Stage::Unique(message.to_string(), lits));
    }
    if opts.technologies != Optimize::Off && opts.technologies_mode.weighs() {
        let weights = technology_weights(graph)?;
        let terms = presence_terms(enc, graph.technologies(), &weights);
        let dir = if opts.technologies_mode == TechnologiesMode::WeightCount {
            Optimize::Max
        } else {
            opts.technologies
        };
        stages.push(Stage::Objective("technologies_weight", dir, terms));
    }
    Ok(())
}

/// The optimisation stages and uniqueness checks (5.6); also finds out
/// whether the problem is satisfiable at all.
///
/// The stages before the technology count are answered together, part by
/// part ([`Split::ask`]): each part then builds its search backend once for
/// all of them.
fn optimize(
    enc: &mut Encoder<'_, '_, Resolve>,
    sat: &mut Split,
    check_unique: bool,
) -> Result<Vec<(String, u64)>> {
    let mut list = Vec::new();
    let built = stages(enc, &mut list);
    if !check_unique {
        list.retain(|stage| !matches!(stage, Stage::Unique(..)));
    }
    let mut objectives = ask_stages(sat, &list)?;
    built?;

    let graph = enc.graph;
    let opts = &graph.options().solver;
    if let Some((dir, names)) = technology_count(graph) {
        let (v, _) = count_technologies(enc, sat, dir, &names)?;
        objectives.push((TECHNOLOGIES_COUNT.to_string(), v));
    }
    if opts.technologies_unique && check_unique {
        let optimized = opts.technologies != Optimize::Off;
        if ambiguous(enc, sat, Kind::Technology) {
            let message = format!(
                "The result is ambiguous considering technologies ({} optimization)",
                if optimized { "besides" } else { "without" }
            );
            return Err(Error::coded(Code::Ambiguous, message, Span::NONE));
        }
    }
    Ok(objectives)
}

/// Asks the stages `list` together ([`Split::ask`]): the objective values,
/// or the first uniqueness error.
fn ask_stages(sat: &mut Split, list: &[Stage]) -> Result<Vec<(String, u64)>> {
    let questions: Vec<Question<'_>> = list
        .iter()
        .map(|stage| match stage {
            Stage::Objective(_, Optimize::Max, terms) => Question::Maximize(terms),
            Stage::Objective(_, _, terms) => Question::Minimize(terms),
            Stage::Unique(_, lits) => Question::Unchanged(lits, true),
        })
        .collect();
    let answers = sat.ask(&questions).ok_or_else(unsatisfiable)?;
    let mut objectives = Vec::new();
    for (stage, answer) in list.iter().zip(answers) {
        match (stage, answer) {
            (Stage::Objective(name, ..), Answer::Optimum(v)) => {
                let v = v.ok_or_else(unsatisfiable)?;
                objectives.push((name.to_string(), v));
            }
            (Stage::Unique(message, ..), Answer::Unchanged(false)) => {
                return Err(Error::coded(Code::Ambiguous, message.clone(), Span::NONE));
            }
            _ => {}
        }
    }
    Ok(objectives)
}

/// The technology count's optimum over the disjunctions of `names`
/// ([`technology_count`]), and each name's technologies' presence.
fn count_technologies(
    enc: &mut Encoder<'_, '_, Resolve>,
    sat: &mut Split,
    direction: Optimize,
    names: &[Vec<ElementId>],
) -> Result<(u64, Vec<Vec<Lit>>)> {
    let mut terms = Vec::with_capacity(names.len());
    let mut lits = Vec::with_capacity(names.len());
    for ids in names {
        let of: Vec<Lit> = ids.iter().map(|&t| enc.presence(t)).collect();
        terms.push((sat.or(&of), 1));
        lits.push(of);
    }
    Ok((run(sat, direction, &terms)?, lits))
}

/// The objective that counts distinct technologies.
const TECHNOLOGIES_COUNT: &str = "technologies_count";

/// The direction of the technology count (5.6) and the technologies of
/// each name, names in order of first appearance; `None` if it does not
/// count.
fn technology_count(graph: &Graph) -> Option<(Optimize, Vec<Vec<ElementId>>)> {
    let opts = &graph.options().solver;
    if opts.technologies == Optimize::Off || !opts.technologies_mode.counts() {
        return None;
    }
    let mut names: Vec<(&str, Vec<ElementId>)> = Vec::new();
    for &t in graph.technologies() {
        let n = graph.name(t);
        match names.iter_mut().find(|(name, _)| *name == n) {
            Some((_, ids)) => ids.push(t),
            None => names.push((n, vec![t])),
        }
    }
    let dir = if opts.technologies_mode == TechnologiesMode::WeightCount {
        Optimize::Min
    } else {
        opts.technologies
    };
    Some((dir, names.into_iter().map(|(_, ids)| ids).collect()))
}

/// The weight of each element's presence in each objective (as in
/// [`Solution::objectives`], in the same scaled units), computed once for
/// the many questions of `v4t explain`.
pub(crate) struct ObjectiveWeights {
    /// Per node, in node order (`None`: each counts 1).
    topology: Option<Vec<u64>>,
    /// Per technology, in technology order, if the weights are valid.
    scenarios: Option<Vec<u64>>,
    technologies: Option<Vec<u64>>,
    /// By element id: its position among the nodes or the technologies.
    position: Vec<u32>,
}

impl ObjectiveWeights {
    pub(crate) fn new(graph: &Graph) -> ObjectiveWeights {
        let by_weight = graph.options().solver.topology_by_weight;
        let topology = by_weight.then(|| node_weights(graph).unwrap_or_default());
        let scenarios = technology_prios(graph).ok();
        let technologies = technology_weights(graph).ok();
        let mut position = vec![u32::MAX; graph.elements().len()];
        for list in [graph.nodes(), graph.technologies()] {
            for (i, &x) in list.iter().enumerate() {
                let at = &mut position[x.0 as usize];
                if *at == u32::MAX {
                    *at = i as u32;
                }
            }
        }
        ObjectiveWeights {
            topology,
            scenarios,
            technologies,
            position,
        }
    }

    /// The weight of `id`'s presence in objective `name`, if it is a term.
    pub(crate) fn of(&self, graph: &Graph, name: &str, id: ElementId) -> Option<u64> {
        let kind = graph.get(id).kind;
        let at = self.position.get(id.0 as usize).copied()? as usize;
        let list = match name {
            "topology" if kind == Kind::Node => match &self.topology {
                Some(weights) => weights,
                None => return Some(1),
            },
            "scenarios" if kind == Kind::Technology => self.scenarios.as_ref()?,
            "technologies_weight" if kind == Kind::Technology => self.technologies.as_ref()?,
            TECHNOLOGIES_COUNT if kind == Kind::Technology => return Some(1),
            _ => return None,
        };
        list.get(at).copied()
    }
}

/// Objective terms: each element's presence with its weight.
fn presence_terms(
    enc: &mut Encoder<'_, '_, Resolve>,
    ids: &[ElementId],
    weights: &[u64],
) -> Vec<(Lit, u64)> {
    ids.iter()
        .zip(weights)
        .map(|(&e, &w)| (enc.presence(e), w))
        .collect()
}

/// Whether another solution exists that changes a variable of the
/// uniqueness check over `kind` ([`Encoder::unique_vars`]). The current
/// model may change to another model of the unchanged problem.
fn ambiguous(enc: &mut Encoder<'_, '_, Resolve>, sat: &mut Split, kind: Kind) -> bool {
    let vars = enc.unique_vars(kind);
    let keep: Vec<Lit> = vars
        .into_iter()
        .map(|l| if sat.value(l) { l } else { !l })
        .collect();
    !sat.implied(&keep)
}
