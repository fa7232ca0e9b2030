//! Why: the parts of the resolver's problem that decide something.
//!
//! The problem is encoded once more with every part (an element's
//! condition, its presence when its conditions hold, a constraint, an
//! `implies` entry) guarded by a literal of its own ([`Guarded`]). Parts
//! that conflict are shrunk to a subset-minimal set
//! ([`v4t_sat::Solver::minimal_core`]): switch off any one and the rest has
//! a solution. "Could not solve" names the parts that conflict under the
//! assigned inputs ([`conflict_reasons`]); `v4t explain` names the parts that
//! conflict with an element's other value, which are what decide it. Each
//! part becomes a [`Reason`] with its location, the inputs it reads and the
//! elements it depends on.

use super::encode::Encoder;
use super::mode::{Guard, Guarding, Part};
use super::problem::encode_problem;
use crate::document;
use crate::error::{Error, Result};
use crate::graph::{Cond, Constraint, ElementId, Graph, Origin};
use crate::logic::NameRef;
use crate::readable;
use crate::reason::{for_inputs, Read, Reason, ReasonKind};
use crate::types::TypeSystem;
use std::collections::HashMap;
use v4t_expr::ValueOp;
use v4t_sat::{Lit, Split};
use v4t_yaml::hash::SeededSet;
use v4t_yaml::{Map, Node, NodeRef, Span, Value};

/// At most this many notes; a longer conflict ends with a count of the rest.
const MAX_NOTES: usize = 12;

/// Longer conditions and constraints are not quoted in a message (its
/// location shows them).
const MAX_QUOTED: usize = 80;

/// Generated conditions and constraints, which have no location, are
/// quoted up to this length.
const MAX_UNLOCATED: usize = 200;

/// An element more parts than this belong to or read is a hub (the host
/// of many components), and a part that reads more elements than this is
/// wide (the host's pruning condition, which reads every relation to it):
/// [`Guarded::conflict_near`] switches both on after the narrow parts one
/// step further, so that a conflict without them is found without the
/// hub's whole neighbourhood, and the questions about a hub's neighbours
/// cost what their own neighbourhoods do, not what the hub's does.
const HUB: usize = 32;

/// The parts switched on without a conflict after which
/// [`Guarded::conflict_near`] asks whether there is one at all.
const ASK_AFTER: usize = 2 * HUB;

/// The resolver's problem under one input assignment with every part
/// guarded, split into independent parts (questions about an element
/// search only the parts its neighbourhood lies in).
pub(crate) struct Guarded<'a> {
    /// The encoder, for the literals of elements (its solver is `sat`).
    enc: Encoder<'a, 'a, Guarding>,
    sat: Split,
    guards: Vec<Guard>,
    /// Guard literal → index in `guards`.
    index: HashMap<Lit, usize>,
    /// Per part: the element it belongs to ([`Guarded::element_of`]).
    owners: Vec<Option<ElementId>>,
    /// Per element (by id): the parts that belong to it or read it.
    touching: Vec<Vec<usize>>,
    /// The assigned inputs (`None`: every configuration, for naming the
    /// parts of the family problem; reasons then show no input values).
    inputs: Option<Map>,
    /// Whether the solver holds a model of [`Guarded::fix`].
    fixed: bool,
    /// [`Guarded::conflict_near`]'s marks (all clear between calls): the
    /// layer of each part switched on, whether each element was reached.
    layer: Vec<usize>,
    reached: Vec<bool>,
}

/// The element a part belongs to: whose condition, presence or `implies`
/// it is, or which element an implication implies.
fn owner(g: &Graph, part: Part) -> Option<ElementId> {
    match part {
        Part::Condition { id, .. } | Part::Presence(id) | Part::Implies(id, _) => Some(id),
        Part::Generated(c) => g
            .constraints()
            .get(c as usize)
            .and_then(|c| implication(g, c))
            .map(|(x, _)| x),
        Part::Constraint(_) => None,
    }
}

impl<'a> Guarded<'a> {
    /// Encodes `graph` under `inputs` with every part guarded.
    pub(crate) fn new(
        doc: NodeRef<'a>,
        graph: &'a Graph,
        types: &'a TypeSystem,
        inputs: Map,
        now_ms: f64,
    ) -> Result<Guarded<'a>> {
        // Questions are answered near their elements (`solve_switched`),
        // which follows the gates' definitions.
        let mut enc = Encoder::new(graph, doc, types, inputs.clone(), now_ms, |sat| {
            sat.record_gates();
            Guarding::default()
        });
        let order = encode_problem(&mut enc)?;
        // Every element's literals exist before the solver is split off.
        for &id in &order {
            enc.manual(id);
        }
        enc.take_reads();
        let guards = std::mem::take(&mut enc.mode.guards);
        let index = guards.iter().enumerate().map(|(i, g)| (g.lit, i)).collect();
        let mut sat = std::mem::take(&mut enc.sat).split();
        sat.satisfiable();
        let switches: Vec<Lit> = guards.iter().map(|g: &Guard| g.lit).collect();
        sat.declare_switches(&switches);
        let mut guarded = Guarded {
            enc,
            sat,
            guards,
            index,
            owners: Vec::new(),
            touching: vec![Vec::new(); graph.elements().len()],
            inputs: Some(inputs),
            fixed: false,
            layer: Vec::new(),
            reached: Vec::new(),
        };
        guarded.owners = guarded
            .guards
            .iter()
            .map(|g| owner(graph, g.part))
            .collect();
        for i in 0..guarded.guards.len() {
            let mut ids: Vec<ElementId> = guarded.guards[i].reads.iter().map(|r| r.id).collect();
            ids.extend(guarded.element_of(i));
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                guarded.touching[id.0 as usize].push(i);
            }
        }
        Ok(guarded)
    }

    /// Names the parts of the family problem (`v4t analyze --why`) with
    /// [`Guarded::describe`]: nothing is encoded, and no input has a value.
    pub(crate) fn naming(doc: NodeRef<'a>, graph: &'a Graph, types: &'a TypeSystem) -> Guarded<'a> {
        Guarded {
            enc: Encoder::new(graph, doc, types, Map::new(), 0.0, |_| Guarding::default()),
            sat: v4t_sat::Solver::new().split(),
            guards: Vec::new(),
            index: HashMap::new(),
            owners: Vec::new(),
            touching: Vec::new(),
            inputs: None,
            fixed: false,
            layer: Vec::new(),
            reached: Vec::new(),
        }
    }

    /// Part `i`.
    pub(crate) fn part(&self, i: usize) -> Part {
        self.guards[i].part
    }

    /// The element part `i` belongs to: whose condition, presence or
    /// `implies` it is, or which element an implication implies.
    pub(crate) fn element_of(&self, i: usize) -> Option<ElementId> {
        self.owners[i]
    }

    /// The variables the searches near elements have taken in so far
    /// ([`v4t_sat::Split::searched`]).
    #[cfg(test)]
    pub(crate) fn searched(&self) -> u64 {
        self.sat.searched()
    }

    /// The presence literal of an element.
    pub(crate) fn presence(&mut self, id: ElementId) -> Lit {
        self.enc.presence(id)
    }

    /// Whether the parts `on` (indices) and the literals `extra` have a
    /// solution together (every other part switched off). Searches only
    /// near them, so the questions about each element cost what its
    /// neighbourhood does, not the whole problem.
    pub(crate) fn satisfiable(&mut self, on: &[usize], extra: &[Lit]) -> bool {
        let mut assumptions: Vec<Lit> = on.iter().map(|&i| self.guards[i].lit).collect();
        assumptions.extend_from_slice(extra);
        self.sat.solve_switched(&assumptions)
    }

    /// With every part on: a subset-minimal set of parts (indices, in part
    /// order) that has no solution together with `extra`; `None` if every
    /// part has one with it. `extra` itself is never dropped.
    pub(crate) fn conflict(&mut self, extra: &[Lit]) -> Option<Vec<usize>> {
        // `extra` first: the deletion tries them first and finds them
        // necessary (all parts together have a solution), so what remains
        // is minimal among the parts.
        let mut assumptions = extra.to_vec();
        assumptions.extend(self.guards.iter().map(|g| g.lit));
        self.fixed = false;
        let core = self.sat.minimal_core(&assumptions)?;
        let mut parts: Vec<usize> = core
            .iter()
            .filter_map(|l| self.index.get(l).copied())
            .collect();
        parts.sort_unstable();
        Some(parts)
    }

    /// With every part on: the conflict with `extra` (the other value of
    /// element `id`) that lies nearest to `id`, parts ordered by distance.
    ///
    /// The search grows a neighbourhood of `id` layer by layer: first the
    /// parts that belong to `id` or read it, then those of the elements
    /// these read or belong to, and so on (a hub's parts and wide parts a
    /// layer later, see [`HUB`]), until the parts switched on
    /// conflict with `extra`; the conflict is shrunk to a subset-minimal
    /// one there, keeping the element's own parts and written conditions
    /// over generated ones where it can. So the explanation is the
    /// shortest chain from the element, not whatever conflict the solver
    /// meets first. `None` if every part has a solution with `extra`.
    ///
    /// Once more than [`ASK_AFTER`] parts are on without a conflict, it
    /// asks `solvable` whether the whole problem has a solution with
    /// `extra` (which the caller asks anyway of an element the optimiser
    /// decided); if it has, there is no conflict (`None`) and the growth
    /// stops, instead of growing through everything connected to the
    /// element and then asking the whole problem.
    pub(crate) fn conflict_near(
        &mut self,
        id: ElementId,
        extra: &[Lit],
        solvable: &mut dyn FnMut() -> bool,
    ) -> Option<Vec<usize>> {
        // Scratch marks kept across elements and cleared where set, so an
        // element costs what its neighbourhood does.
        let mut layer = std::mem::take(&mut self.layer);
        let mut reached = std::mem::take(&mut self.reached);
        layer.resize(self.guards.len(), usize::MAX);
        reached.resize(self.touching.len(), false);
        let mut seen = vec![id];
        let found = self.grow(id, extra, &mut layer, &mut reached, &mut seen, solvable);
        for e in seen {
            reached[e.0 as usize] = false;
        }
        for i in found.1 {
            layer[i] = usize::MAX;
        }
        self.layer = layer;
        self.reached = reached;
        found.0
    }

    /// [`Guarded::conflict_near`] with its marks: the conflict, and the
    /// parts whose `layer` is set; `seen` collects the elements whose
    /// `reached` is set.
    ///
    /// Layers by distance from `id`, in half steps: an element's parts lie
    /// at its distance (even), a hub's or a wide part (see [`HUB`]) one
    /// step and a half further, after the next layer of narrow parts; the
    /// elements a part switched on reads or belongs to lie at the next
    /// even distance. Without hubs and wide parts, layer `2k` holds what
    /// is `k` steps away.
    fn grow(
        &mut self,
        id: ElementId,
        extra: &[Lit],
        layer: &mut [usize],
        reached: &mut [bool],
        seen: &mut Vec<ElementId>,
        solvable: &mut dyn FnMut() -> bool,
    ) -> (Option<Vec<usize>>, Vec<usize>) {
        reached[id.0 as usize] = true;
        let mut asked = false;
        // By distance: the elements to expand and the parts to switch on
        // (a part may wait in a farther bucket than its layer, which a
        // nearer element lowered: it is switched on at its layer).
        let mut elements: Vec<Vec<ElementId>> = vec![vec![id]];
        let mut parts: Vec<Vec<usize>> = Vec::new();
        let mut marked: Vec<usize> = Vec::new();
        let mut on: Vec<usize> = Vec::new();
        let mut k = 0;
        while k < elements.len().max(parts.len()) {
            for e in elements.get_mut(k).map(std::mem::take).unwrap_or_default() {
                let touching = &self.touching[e.0 as usize];
                let hub = touching.len() > HUB;
                for &i in touching {
                    let far = hub || self.guards[i].reads.len() > HUB;
                    let at = k + if far { 3 } else { 0 };
                    if at < layer[i] {
                        if layer[i] == usize::MAX {
                            marked.push(i);
                        }
                        layer[i] = at;
                        if parts.len() <= at {
                            parts.resize_with(at + 1, Vec::new);
                        }
                        parts[at].push(i);
                    }
                }
            }
            let start = on.len();
            for i in parts.get_mut(k).map(std::mem::take).unwrap_or_default() {
                if layer[i] == k {
                    on.push(i);
                }
            }
            if on.len() > start {
                if !self.satisfiable(&on, extra) {
                    return (Some(self.shrink(id, &on, layer, extra)), marked);
                }
                if on.len() > ASK_AFTER && !std::mem::replace(&mut asked, true) && solvable() {
                    return (None, marked);
                }
                let next_layer = (k + 2) & !1;
                for &i in &on[start..] {
                    let next = self.guards[i].reads.iter().map(|r| r.id);
                    for e in next.chain(self.owners[i]) {
                        if !std::mem::replace(&mut reached[e.0 as usize], true) {
                            if elements.len() <= next_layer {
                                elements.resize_with(next_layer + 1, Vec::new);
                            }
                            elements[next_layer].push(e);
                            seen.push(e);
                        }
                    }
                }
            }
            k += 1;
        }
        // Parts that read no element take part too (a constraint `false`).
        let conflict = self
            .conflict(extra)
            .map(|all| self.shrink(id, &all, layer, extra));
        (conflict, marked)
    }

    /// A subset-minimal conflict among `parts` (which conflict with
    /// `extra`): the parts tried for removal first are the farthest (by
    /// `layer`) and least telling (generated before written, other
    /// elements' before `id`'s), so the conflict kept is the most telling
    /// one; the result in order of distance, `id`'s own parts first.
    ///
    /// Deletion by chunks, on satisfiability answers only (the solver's
    /// own conflicts would pick a conflict by its internals): a chunk of
    /// the least telling parts is dropped whole if the rest still
    /// conflicts, else halved; a single part that cannot go is necessary.
    fn shrink(
        &mut self,
        id: ElementId,
        parts: &[usize],
        layer: &[usize],
        extra: &[Lit],
    ) -> Vec<usize> {
        let rank = |this: &Self, i: usize| -> (std::cmp::Reverse<usize>, u8, usize) {
            let own = this.element_of(i) == Some(id);
            let written = match this.guards[i].part {
                Part::Condition { id: x, index, .. } => this
                    .enc
                    .graph
                    .get(x)
                    .conditions
                    .get(index as usize)
                    .is_some_and(|c| !c.is_generated()),
                Part::Constraint(_) | Part::Implies(..) => true,
                _ => false,
            };
            let shown = this
                .element_of(i)
                .is_none_or(|x| !this.enc.graph.is_internal(x));
            let telling = 4 * u8::from(shown) + 2 * u8::from(own) + u8::from(written);
            (std::cmp::Reverse(layer[i]), telling, i)
        };
        let mut chosen = parts.to_vec();
        chosen.sort_by_key(|&i| rank(self, i));
        let (mut at, mut chunk) = (0, chosen.len());
        let mut rest = Vec::with_capacity(chosen.len());
        while at < chosen.len() {
            let end = (at + chunk.max(1)).min(chosen.len());
            rest.clear();
            rest.extend_from_slice(&chosen[..at]);
            rest.extend_from_slice(&chosen[end..]);
            if !self.satisfiable(&rest, extra) {
                chosen.drain(at..end);
            } else if end - at > 1 {
                chunk = (end - at) / 2;
            } else {
                at += 1;
                chunk = chosen.len() - at;
            }
        }
        chosen.sort_by_key(|&i| (layer[i], self.element_of(i) != Some(id), i));
        chosen
    }

    /// Fixes a model for the values of reasons: every part on and every
    /// element present as in `present`. `false` if there is none.
    pub(crate) fn fix(&mut self, present: &[bool]) -> bool {
        let graph = self.enc.graph;
        let mut assumptions: Vec<Lit> = self.guards.iter().map(|g| g.lit).collect();
        for id in graph.ordered() {
            let p = self.enc.presence(id);
            let want = present.get(id.0 as usize).copied().unwrap_or(false);
            assumptions.push(if want { p } else { !p });
        }
        self.enc.take_reads();
        self.fixed = self.sat.solve(&assumptions);
        self.fixed
    }

    /// The reason of part `i`, with values from the model of
    /// [`Guarded::fix`] if there is one.
    pub(crate) fn reason(&mut self, i: usize) -> Reason {
        let g = self.enc.graph;
        let guard = self.guards[i].clone();
        let fixed = self.fixed;
        let value = guard.about.and_then(|l| {
            let known = self.sat.fixed(l);
            known.or_else(|| fixed.then(|| self.sat.value(l)))
        });
        let mut reason = self.describe(guard.part, value);
        reason.reads = guard
            .reads
            .iter()
            .filter(|r| !g.is_internal(r.id))
            .map(|r| {
                let value = if !self.fixed {
                    None
                } else if r.manual {
                    let l = self.enc.manual(r.id);
                    Some(self.sat.value(l))
                } else {
                    let l = self.enc.presence(r.id);
                    Some(self.sat.value(l))
                };
                let manual: Vec<&Cond> = g
                    .get(r.id)
                    .conditions
                    .iter()
                    .filter(|c| !c.is_generated())
                    .collect();
                let (condition, inputs) = if r.manual && !manual.is_empty() {
                    let nodes: Vec<Node> = manual.iter().map(|c| c.to_node(g)).collect();
                    let text = readable::all_of(&manual, g);
                    (Some(text), self.inputs_read_all(&nodes))
                } else {
                    (None, Vec::new())
                };
                Read {
                    element: g.id(r.id).to_string(),
                    manual: r.manual,
                    value,
                    condition,
                    inputs,
                }
            })
            .collect();
        self.enc.take_reads();
        reason
    }

    /// The reason of a part without its reads; `value` is the value of
    /// what the part is about (a condition's), if known.
    pub(crate) fn describe(&self, part: Part, value: Option<bool>) -> Reason {
        match part {
            Part::Condition { id, index, .. } => self.condition(id, index, value),
            Part::Presence(id) => self.presence_reason(id),
            Part::Constraint(i) => self.constraint(i),
            Part::Generated(i) => self.generated(i),
            Part::Implies(id, i) => self.implies(id, i),
        }
    }

    /// How an element is called in messages: [`Graph::display`], but a
    /// fallback property by what it stands for (it is internal).
    fn display(&self, id: ElementId) -> String {
        let g = self.enc.graph;
        if !g.is_internal(id) {
            return g.display(id);
        }
        let e = g.get(id);
        let of = e.container().map(|c| format!(" of {}", g.display(c)));
        format!(
            "the \"no value\" alternative of property \"{}\"{}",
            g.name(id),
            of.unwrap_or_default()
        )
    }

    /// [`Guarded::display`] with the first character upper-cased.
    #[allow(non_snake_case)]
    fn Display(&self, id: ElementId) -> String {
        crate::graph::capitalize(&self.display(id))
    }

    /// Entry `index` of the condition list of `id`.
    fn condition(&self, id: ElementId, index: u32, value: Option<bool>) -> Reason {
        let g = self.enc.graph;
        let e = g.get(id);
        let cond = e.conditions.get(index as usize);
        let kind = cond.map_or(ReasonKind::ManualCondition, |c| condition_kind(g, id, c));
        let node = cond.map(|c| c.to_node(g));
        let written = cond.and_then(Cond::written_span);
        let span = written.unwrap_or(e.span);
        let readable = cond.map(|c| readable::cond(c, g));
        let mut m = format!("{} of {}", condition_word(kind), self.display(id));
        if written.is_none() {
            m.push_str(&unlocated(readable.as_deref()));
        }
        match value {
            Some(false) => m.push_str(" is false"),
            Some(true) if self.fixed => m.push_str(" holds"),
            _ => {}
        }
        let inputs = self.inputs_read(node.as_ref().map(NodeRef::from));
        m.push_str(&for_inputs(&inputs));
        Reason {
            element: Some(g.id(id).to_string()),
            condition: readable,
            value,
            inputs,
            ..Reason::new(kind, m, span)
        }
    }

    /// `id` is present when all its conditions hold.
    fn presence_reason(&self, id: ElementId) -> Reason {
        let g = self.enc.graph;
        let e = g.get(id);
        let all: Vec<&Cond> = e.conditions.iter().collect();
        let m = if all.is_empty() {
            format!("{} has no conditions, so it is present", self.Display(id))
        } else if self.fixed {
            // In a solution: which of them hold.
            format!(
                "{} is present: {}",
                self.Display(id),
                conditions_hold(g, id)
            )
        } else {
            format!(
                "{} is present when all its conditions hold",
                self.Display(id)
            )
        };
        let nodes: Vec<Node> = all.iter().map(|c| c.to_node(g)).collect();
        Reason {
            element: Some(g.id(id).to_string()),
            condition: (!all.is_empty()).then(|| readable::all_of(&all, g)),
            inputs: self.inputs_read_all(&nodes),
            ..Reason::new(ReasonKind::Presence, m, e.span)
        }
    }

    /// Entry `i` of `variability.constraints`.
    fn constraint(&self, i: u32) -> Reason {
        let node = document::variability_of(self.enc.doc)
            .and_then(|v| v.get("constraints"))
            .and_then(NodeRef::as_seq)
            .and_then(|list| list.get(i as usize));
        let readable = node.map(readable::logic);
        let inputs = self.inputs_read(node);
        let m = format!(
            "constraint{}{}",
            quoted(readable.as_deref()),
            for_inputs(&inputs)
        );
        let span = node.map_or(Span::NONE, NodeRef::span);
        Reason {
            condition: readable,
            inputs,
            ..Reason::new(ReasonKind::Constraint, m, span)
        }
    }

    /// Generated constraint `i`: an implication of an implied element, or
    /// another one.
    fn generated(&self, i: u32) -> Reason {
        let g = self.enc.graph;
        let c = g.constraints().get(i as usize);
        let readable = c.map(|c| readable::constraint(c, g));
        let Some((x, how)) = c.and_then(|c| implication(g, c)) else {
            let m = format!("generated constraint{}", unlocated(readable.as_deref()));
            return Reason {
                condition: readable,
                ..Reason::new(ReasonKind::GeneratedConstraint, m, Span::NONE)
            };
        };
        let e = g.get(x);
        let span = match g.implied(x) {
            Some(n) if n.span.is_known() => n.span,
            _ => e.span,
        };
        let m = format!("{} is implied: it is present where {how}", self.Display(x));
        Reason {
            element: Some(g.id(x).to_string()),
            condition: readable,
            ..Reason::new(ReasonKind::Implied, m, span)
        }
    }

    /// Entry `i` of the `implies` of `id`.
    fn implies(&self, id: ElementId, i: u32) -> Reason {
        let g = self.enc.graph;
        let node = g
            .implies(id)
            .and_then(Node::as_seq)
            .and_then(|list| list.get(i as usize));
        let inputs = self.inputs_read(node.map(NodeRef::from));
        let m = format!("implies of {}{}", g.display(id), for_inputs(&inputs));
        let span = match node {
            Some(n) if n.span.is_known() => n.span,
            _ => g.get(id).span,
        };
        let readable = node.and_then(Node::as_seq).map(|items| {
            let shown: Vec<String> = items.iter().map(readable::logic).collect();
            shown.join(", ")
        });
        Reason {
            element: Some(g.id(id).to_string()),
            condition: readable,
            inputs,
            ..Reason::new(ReasonKind::Implies, m, span)
        }
    }

    /// [`Guarded::inputs_read`] of several nodes, each input once.
    fn inputs_read_all(&self, nodes: &[Node]) -> Vec<(String, Value)> {
        let mut inputs: Vec<(String, Value)> = Vec::new();
        let mut seen: SeededSet<String> = SeededSet::default();
        for n in nodes {
            for read in self.inputs_read(Some(n.into())) {
                if seen.insert(read.0.clone()) {
                    inputs.push(read);
                }
            }
        }
        inputs
    }

    /// The assigned variability inputs that `node` reads, directly or
    /// through named expressions (in order of first reading, each once),
    /// with their values (assigned, else the default).
    fn inputs_read(&self, node: Option<NodeRef<'_>>) -> Vec<(String, Value)> {
        let Some(assigned) = &self.inputs else {
            return Vec::new();
        };
        let doc = self.enc.doc;
        let names = inputs_named(doc, node);
        let definitions = document::variability_entry(doc, "inputs");
        names
            .iter()
            .filter_map(|&name| {
                if let Some(v) = assigned.get(name).filter(|v| v.is_defined()) {
                    return Some((name.to_string(), v.value.clone()));
                }
                let d = definitions?.get(name)?;
                let v = d.get("default").filter(|v| v.is_defined())?;
                Some((name.to_string(), v.to_node().value))
            })
            .collect()
    }
}

/// The variability inputs `node` reads, directly or through named
/// expressions of `doc`, in order of first reading, each once.
pub(crate) fn inputs_named<'d>(
    doc: impl Into<NodeRef<'d>>,
    node: Option<NodeRef<'d>>,
) -> Vec<&'d str> {
    let mut names: Vec<&str> = Vec::new();
    // Membership by hash: a condition may read thousands of inputs.
    let mut named: SeededSet<&str> = SeededSet::default();
    let mut expressions: SeededSet<&str> = SeededSet::default();
    let mut pending: Vec<NodeRef<'d>> = node.into_iter().collect();
    let defined = document::variability_entry(doc, "expressions");
    let mut visited = 0;
    while let Some(n) = pending.pop() {
        visited += 1;
        if visited > 10_000 {
            break;
        }
        if let Some(m) = n.as_map() {
            for (k, v) in m.iter().rev() {
                match (NameRef::of_key(k.name()), v.as_str()) {
                    (Some(NameRef::Input), Some(name)) => {
                        if named.insert(name) {
                            names.push(name);
                        }
                    }
                    (Some(NameRef::Expression), Some(name)) => {
                        if expressions.insert(name) {
                            pending.extend(defined.and_then(|d| d.get(name)));
                        }
                    }
                    _ => pending.push(v),
                }
            }
        } else if let Some(items) = n.as_seq() {
            pending.extend(items.iter().rev());
        }
    }
    names
}

/// What kind of condition entry `c` of element `id` is.
pub(crate) fn condition_kind(g: &Graph, id: ElementId, c: &Cond) -> ReasonKind {
    match c {
        Cond::Generated(_, Origin::Default) => ReasonKind::DefaultCondition,
        Cond::Generated(_, Origin::Pruning) => ReasonKind::PruningCondition,
        Cond::Generated(_, Origin::TypeSpecific) => ReasonKind::TypeSpecificCondition,
        Cond::Generated(_, Origin::Container) => ReasonKind::ContainerCondition,
        Cond::Bratan(_) => ReasonKind::DefaultAlternative,
        c if c.is_generated() => ReasonKind::GeneratedCondition,
        // The enricher's `{variability_input: <the element's id>}`.
        Cond::Yaml(n)
            if !n.span.is_known()
                && n.get(ValueOp::VariabilityInput.name())
                    .and_then(Node::as_str)
                    .is_some_and(|s| g.id(id) == s) =>
        {
            ReasonKind::InputCondition
        }
        _ => ReasonKind::ManualCondition,
    }
}

/// `its condition and pruning condition hold`: the kinds of an element's
/// conditions (written ones first), for an element that is present.
pub(crate) fn conditions_hold(g: &Graph, id: ElementId) -> String {
    let all = &g.get(id).conditions;
    if all.is_empty() {
        return "it has no conditions".to_string();
    }
    let mut words: Vec<&str> = Vec::new();
    for c in all
        .iter()
        .filter(|c| !c.is_generated())
        .chain(all.iter().filter(|c| c.is_generated()))
    {
        let w = condition_word(condition_kind(g, id, c));
        if !words.contains(&w) {
            words.push(w);
        }
    }
    let verb = if all.len() == 1 { "holds" } else { "hold" };
    let plural = if all.len() > 1 && words.len() == 1 {
        "s"
    } else {
        ""
    };
    let last = words.pop().unwrap_or("condition");
    let list = match words.is_empty() {
        true => last.to_string(),
        false => format!("{} and {last}", words.join(", ")),
    };
    format!("its {list}{plural} {verb}")
}

/// How a condition of `kind` is called in messages.
fn condition_word(kind: ReasonKind) -> &'static str {
    match kind {
        ReasonKind::ManualCondition => "condition",
        ReasonKind::DefaultAlternative => "default-alternative condition",
        other => other.word(),
    }
}

/// For an implication generated for an implied element (10.2): the element
/// and what implies it, in words.
fn implication(g: &Graph, c: &Constraint) -> Option<(ElementId, String)> {
    let (left, right) = c.implication()?;
    let Constraint::Var(x) = right else {
        return None;
    };
    let items: &[Constraint] = match &left {
        Constraint::And(items) => items,
        one => std::slice::from_ref(one),
    };
    if !items.contains(&Constraint::Manual(x)) {
        return None;
    }
    let words: Vec<String> = items
        .iter()
        .map(|item| match item {
            Constraint::Manual(y) if *y == x => "its manual conditions hold".to_string(),
            Constraint::Manual(y) => format!("the manual conditions of {} hold", g.display(*y)),
            Constraint::Var(y) => format!("{} is present", g.display(*y)),
            other => readable::constraint(other, g),
        })
        .collect();
    Some((x, words.join(" and ")))
}

/// ` <text>` if it is short (its location shows it).
fn quoted(text: Option<&str>) -> String {
    match text {
        Some(t) if t.chars().count() <= MAX_QUOTED => format!(" {t}"),
        _ => String::new(),
    }
}

/// ` <text>` for what has no location to show it (generated), cut with
/// `…` if very long.
fn unlocated(text: Option<&str>) -> String {
    match text {
        Some(t) if t.chars().count() > MAX_UNLOCATED => {
            let cut: String = t.chars().take(MAX_UNLOCATED - 1).collect();
            format!(" {cut}…")
        }
        Some(t) => format!(" {t}"),
        None => String::new(),
    }
}

/// Why `graph` has no solution under `inputs`: a subset-minimal set of
/// conflicting parts, what is required first (constraints, `implies`),
/// then the elements it meets; empty if no conflict of parts is found
/// (then the clauses that make no part conflict by themselves).
pub(crate) fn conflict_reasons(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
) -> Vec<Reason> {
    let Ok(mut guarded) = Guarded::new(doc, graph, types, inputs, now_ms) else {
        return Vec::new();
    };
    let Some(mut parts) = guarded.conflict(&[]) else {
        return Vec::new();
    };
    parts.sort_by_key(|&i| match guarded.part(i) {
        Part::Constraint(_) | Part::Generated(_) | Part::Implies(..) => 0,
        Part::Presence(_) => 1,
        Part::Condition { .. } => 2,
    });
    parts.into_iter().map(|i| guarded.reason(i)).collect()
}

/// `error` with a note per reason, at most [`MAX_NOTES`] of them.
pub(crate) fn with_notes(error: Error, reasons: &[Reason]) -> Error {
    let mut error = reasons
        .iter()
        .take(MAX_NOTES)
        .fold(error, |e, r| e.with_note(r.message.clone(), r.span));
    if reasons.len() > MAX_NOTES {
        let more = format!(
            "and {} more parts of the conflict",
            reasons.len() - MAX_NOTES
        );
        error = error.with_note(more, Span::NONE);
    }
    error
}
