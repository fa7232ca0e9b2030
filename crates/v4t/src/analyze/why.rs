//! Why an element is dead or core, why an input never changes the
//! topology, and which written conditions always or never hold
//! (`v4t analyze --why`, issue 27).
//!
//! The family problem is encoded once more with every *part* guarded by a
//! literal of its own, as `v4t explain` guards the problem of one variant:
//! each condition of an element, its presence when its conditions hold,
//! each declared and generated constraint, each `implies` entry — and here
//! also each rule of the input feature model, each check a configuration
//! can fail (consistency, semantic, TOSCA 2.0 references) and each value
//! expression that fails to evaluate under some values. With every part
//! switched on the problem's solutions are those of the valid
//! configurations; switching a part off drops it from the model.
//!
//! * **Why dead, why core.** A subset-minimal set of parts under which the
//!   element is absent (present) in every configuration: with only these
//!   parts it cannot be present (absent), and without any one of them it
//!   can ([`ElementWhy`]).
//! * **Why an input never changes the topology** ([`InputWhy`]): nothing
//!   reads it; or no two valid configurations differ in it alone, with a
//!   subset-minimal set of parts that makes it so; or each part that reads
//!   it, with why it cannot change the topology ([`Verdict`]).
//! * **Conditions that always or never hold** in the valid configurations
//!   ([`ConditionFact`]): the written conditions of elements only (the
//!   enricher's generated ones are not the user's to change).

use super::{ElementIds, Symbolic};
use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph};
use crate::reason::{Reason, ReasonKind};
use crate::solve::explain::{inputs_named, Guarded};
use crate::solve::{guarded_family_problem, Part};
use crate::types::TypeSystem;
use v4t_sat::{Implied, Lit, Solver, Split};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::{Node, NodeRef};

/// Why an element is absent (dead) or present (core) in every valid
/// configuration.
#[derive(Clone, Debug)]
pub struct ElementWhy {
    /// The element's id.
    pub element: String,
    /// Dead (absent in every valid configuration), else core.
    pub dead: bool,
    /// A subset-minimal set of parts of the model (conditions, presence
    /// rules, constraints, `implies`, feature-model rules, failing checks
    /// and evaluations) under which the element is dead (core): with only
    /// these parts it is, and without any one of them it is present
    /// (absent) in some configuration. The element's own parts first.
    pub reasons: Vec<Reason>,
}

/// Why a variability input never changes the topology.
#[derive(Clone, Debug)]
pub struct InputWhy {
    /// The input's name.
    pub input: String,
    /// Why.
    pub because: Irrelevance,
}

/// Why an input never changes the topology (the first that applies).
#[derive(Clone, Debug)]
pub enum Irrelevance {
    /// No condition, constraint, `implies` entry or feature-model rule
    /// reads it (directly or through named expressions).
    Unread,
    /// No two valid configurations differ in this input alone: the other
    /// inputs decide its value, by this subset-minimal set of parts (with
    /// only these parts it is so, and without any one of them two
    /// configurations differ in the input alone).
    Determined(Vec<Reason>),
    /// Every part that reads it, with why it cannot change the topology.
    Readers(Vec<(Reason, Verdict)>),
}

/// Why a part that reads an input cannot change the topology (for a
/// condition, the first that applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A condition that holds in every valid configuration.
    AlwaysHolds,
    /// A condition that holds in no valid configuration.
    NeverHolds,
    /// A condition of a dead element.
    DeadElement,
    /// A condition of an element whose presence never changes with the
    /// input alone (the other inputs fixed, among valid configurations),
    /// although the condition's value may.
    Masked,
    /// A constraint, `implies` entry or feature-model rule: it restricts
    /// the valid configurations and decides no presence.
    Restricts,
}

impl Verdict {
    /// The verdict in words, as the JSON output names it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::AlwaysHolds => "always holds",
            Verdict::NeverHolds => "never holds",
            Verdict::DeadElement => "dead element",
            Verdict::Masked => "masked",
            Verdict::Restricts => "restricts",
        }
    }
}

/// A written condition that holds in every valid configuration (it can
/// go) or in none (its element is dead).
#[derive(Clone, Debug)]
pub struct ConditionFact {
    /// The element's id.
    pub element: String,
    /// Holds in every valid configuration, else in none.
    pub holds: bool,
    /// The condition, with its location.
    pub condition: Reason,
}

/// What `--why` finds.
#[derive(Clone, Debug, Default)]
pub struct Why {
    /// Dead elements, then core ones, each in element order.
    pub elements: Vec<ElementWhy>,
    /// The inputs that never change the topology, in definition order.
    pub inputs: Vec<InputWhy>,
    /// The written conditions that always or never hold, in element order.
    pub conditions: Vec<ConditionFact>,
}

/// What a guard switches on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    /// A part of the resolver's problem.
    Part(Part),
    /// Rule `i` of the input feature model.
    Rule(usize),
    /// Check violation `i`: configurations violating it fail.
    Check(usize),
    /// Failing evaluation `i`: configurations under which it fails fail.
    Failure(usize),
}

/// The family problem with every part guarded, and the problem of the
/// valid configurations (every guard required) beside it.
struct Explainer<'a> {
    doc: NodeRef<'a>,
    graph: &'a Graph,
    /// The guarded problem, its guards declared as switches: questions
    /// about one element search near it (`Split::minimal_switched_core`).
    sat: Split,
    /// Every configuration's solutions with every part on.
    valid: Solver,
    guards: Vec<Lit>,
    pieces: Vec<Piece>,
    /// Guard literal → index.
    index: SeededMap<Lit, usize>,
    /// Presence literals by element id.
    by_id: Vec<Lit>,
    /// Per guard of a condition: the condition's literal.
    about: Vec<Option<Lit>>,
    rules: Vec<Reason>,
    checks: Vec<Error>,
    failures: Vec<Error>,
    names: Guarded<'a>,
    /// The variability inputs: name and value literals.
    inputs: Vec<(String, Vec<Lit>)>,
    /// The guarded problem before splitting, kept for the questions about
    /// two configurations at once ([`Explainer::determined`]).
    whole: Solver,
}

/// Answers `--why` for the dead and core elements and the irrelevant
/// inputs the analysis found (ids and names); the conditions that always
/// or never hold only if `conditions`.
pub(super) fn why(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem<'_>,
    now_ms: f64,
    (dead, core, irrelevant): (&ElementIds, &ElementIds, &[String]),
) -> Result<Why> {
    let mut x = Explainer::new(doc, graph, types, now_ms)?;
    let mut out = Why::default();
    let backbone = x.condition_backbone();
    out.conditions = x.condition_facts(&backbone);
    let mut wanted = Vec::new();
    for (ids, dead) in [(dead, true), (core, false)] {
        let ids: std::collections::HashSet<&str> = ids.iter().collect();
        wanted.extend(
            graph
                .ordered()
                .filter(|&e| ids.contains(graph.id(e).to_string().as_str()))
                .map(|e| (e, dead)),
        );
    }
    let found = x.element_reasons(&wanted, &backbone);
    for (&(e, dead), parts) in wanted.iter().zip(found) {
        out.elements.push(ElementWhy {
            element: graph.id(e).to_string(),
            dead,
            reasons: x.reasons(parts, e),
        });
    }
    if !irrelevant.is_empty() {
        let dead: std::collections::HashSet<&str> = dead.iter().collect();
        let readers = x.readers(&backbone, &dead);
        for name in irrelevant {
            let mine: Vec<(Reason, Verdict)> = readers
                .iter()
                .filter(|(names, _, _)| names.iter().any(|n| n == name))
                .map(|(_, r, v)| (r.clone(), *v))
                .collect();
            let because = if mine.is_empty() {
                Irrelevance::Unread
            } else if let Some(parts) = x.determined(name) {
                Irrelevance::Determined(parts.into_iter().map(|i| x.reason(i)).collect())
            } else {
                Irrelevance::Readers(mine)
            };
            out.inputs.push(InputWhy {
                input: name.clone(),
                because,
            });
        }
    }
    Ok(out)
}

impl<'a> Explainer<'a> {
    fn new(
        doc: NodeRef<'a>,
        graph: &'a Graph,
        types: &'a TypeSystem<'a>,
        now_ms: f64,
    ) -> Result<Explainer<'a>> {
        let (problem, parts) = guarded_family_problem(doc, graph, types, now_ms)
            .map_err(crate::code(crate::Code::InvalidCondition))?;
        let mut sat = problem.sat;
        let mut by_id = vec![sat.constant(false); graph.elements().len()];
        for &(id, l) in &problem.presence {
            by_id[id.0 as usize] = l;
        }
        let mut guards = Vec::new();
        let mut pieces = Vec::new();
        let mut about = Vec::new();
        for g in &parts {
            guards.push(g.lit);
            pieces.push(Piece::Part(g.part));
            about.push(g.about);
        }
        let mut guard = |sat: &mut Solver, clause: &[Lit], piece: Piece| {
            let g = sat.new_var();
            let mut c = vec![!g];
            c.extend_from_slice(clause);
            sat.add_clause(&c);
            guards.push(g);
            pieces.push(piece);
            about.push(None);
        };
        let lits: Vec<Vec<Lit>> = problem.inputs.iter().map(|d| d.lits.clone()).collect();
        let rules = super::feature_rules(doc, &mut sat, &lits, &problem.inputs)?;
        for (i, (l, _)) in rules.iter().enumerate() {
            guard(&mut sat, &[*l], Piece::Rule(i));
        }
        let mut failures = Vec::new();
        for f in &problem.failures {
            let i = failures.len();
            failures.push(f.error.clone());
            for combination in &f.combinations {
                let clause: Vec<Lit> = combination
                    .iter()
                    .map(|&(i, v)| !problem.inputs[i].lits[v])
                    .collect();
                guard(&mut sat, &clause, Piece::Failure(i));
            }
        }
        let mut symbolic = Symbolic {
            sat: &mut sat,
            by_id: &by_id,
            violations: Vec::new(),
        };
        crate::check::checks(graph, &mut symbolic)?;
        crate::references::checks(doc, graph, types, &mut symbolic)?;
        let mut checks = Vec::new();
        for (found, when) in symbolic.violations {
            guard(&mut sat, &[!when], Piece::Check(checks.len()));
            checks.push(found.error(graph).or_code(crate::Code::Inconsistent));
        }
        let valid = copy_requiring(&sat, &guards);
        let whole = copy_requiring(&sat, &[]);
        let mut sat = sat.split();
        sat.declare_switches(&guards);
        let index = guards.iter().enumerate().map(|(i, &g)| (g, i)).collect();
        Ok(Explainer {
            doc,
            graph,
            sat,
            valid,
            guards,
            pieces,
            index,
            by_id,
            about,
            rules: rules.into_iter().map(|(_, r)| r).collect(),
            checks,
            failures,
            names: Guarded::naming(doc, graph, types),
            inputs: problem
                .inputs
                .iter()
                .map(|d| (d.name.clone(), d.lits.clone()))
                .collect(),
            whole,
        })
    }

    /// Per guard of a condition, whether it holds in every valid
    /// configuration, in none, or varies (`Free` also for other guards);
    /// asked part by part (one solve of the whole problem per condition
    /// was quadratic in a template of many independent components).
    fn condition_backbone(&mut self) -> Vec<Implied> {
        let lits: Vec<Lit> = self.about.iter().flatten().copied().collect();
        let Some(answers) = self.valid.split_copy().backbone(&lits) else {
            return vec![Implied::Free; self.about.len()];
        };
        let mut answers = answers.into_iter();
        self.about
            .iter()
            .map(|a| match a {
                Some(_) => answers.next().unwrap_or(Implied::Free),
                None => Implied::Free,
            })
            .collect()
    }

    /// The written conditions (of elements people see) that hold in every
    /// valid configuration or in none.
    fn condition_facts(&self, backbone: &[Implied]) -> Vec<ConditionFact> {
        let g = self.graph;
        let mut out = Vec::new();
        for (i, implied) in backbone.iter().enumerate() {
            let Piece::Part(part @ Part::Condition { id, index, .. }) = self.pieces[i] else {
                continue;
            };
            let written = g
                .get(id)
                .conditions
                .get(index as usize)
                .is_some_and(|c| !c.is_generated());
            if !written || g.is_internal(id) {
                continue;
            }
            let holds = match implied {
                Implied::True => true,
                Implied::False => false,
                Implied::Free => continue,
            };
            out.push(ConditionFact {
                element: g.id(id).to_string(),
                holds,
                condition: self.names.describe(part, None),
            });
        }
        out
    }

    /// For each element and whether it is dead (else core): a
    /// subset-minimal set of guards under which it is so.
    ///
    /// Candidates are composed from facts about literals, memoised: an
    /// element is dead because one of its conditions never holds (that
    /// condition, and why its literal is false in every valid
    /// configuration), core because its conditions always hold (its
    /// presence rule, and why each holds); a literal that is another
    /// element's presence is false (true) because that element is dead
    /// (core); any other literal by a minimal core of the whole problem.
    /// A candidate suffices by construction; whether it is minimal is then
    /// checked for all of them at once ([`Explainer::minimal`]), and the
    /// few that are not are shrunk.
    fn element_reasons(
        &mut self,
        wanted: &[(ElementId, bool)],
        backbone: &[Implied],
    ) -> Vec<Vec<usize>> {
        let mut memo = Memo::default();
        for (i, a) in self.about.iter().enumerate() {
            if let (Some(_), Piece::Part(Part::Condition { id, .. })) = (a, self.pieces[i]) {
                memo.conditions.entry(id).or_default().push(i);
            }
        }
        for (id, &l) in self.by_id.iter().enumerate() {
            memo.element_of.entry(l).or_insert(ElementId(id as u32));
        }
        for g in 0..self.guards.len() {
            if let Piece::Part(Part::Presence(id)) = self.pieces[g] {
                memo.presence.insert(id, g);
            }
        }
        let candidates: Vec<Vec<usize>> = wanted
            .iter()
            .map(|&(id, dead)| self.element_candidate(id, dead, backbone, &mut memo, 0))
            .collect();
        let goals: Vec<Lit> = wanted
            .iter()
            .map(|&(id, dead)| {
                let p = self.by_id[id.0 as usize];
                if dead {
                    p
                } else {
                    !p
                }
            })
            .collect();
        let owners: Vec<ElementId> = wanted.iter().map(|&(id, _)| id).collect();
        let failing = self.minimal(&candidates, &goals, &owners);
        let mut out = candidates;
        for k in failing {
            let mut assumptions = vec![goals[k]];
            assumptions.extend(out[k].iter().map(|&g| self.guards[g]));
            let index = &self.index;
            let candidate = &out[k];
            let allowed = |g: Lit| index.get(&g).is_some_and(|i| candidate.contains(i));
            let core = match self
                .sat
                .minimal_switched_core(goals[k], &allowed, &|_| true)
            {
                Some(core) => core,
                None => self.sat.minimal_core(&assumptions).unwrap_or_default(),
            };
            out[k] = core
                .iter()
                .filter_map(|l| self.index.get(l).copied())
                .collect();
        }
        out
    }

    /// A sufficient set of guards under which `id` is dead (core).
    fn element_candidate(
        &mut self,
        id: ElementId,
        dead: bool,
        backbone: &[Implied],
        memo: &mut Memo,
        depth: usize,
    ) -> Vec<usize> {
        if let Some(found) = memo.elements.get(&(id, dead)) {
            return found
                .clone()
                .unwrap_or_else(|| self.core_of(self.goal(id, dead)));
        }
        memo.elements.insert((id, dead), None);
        let conditions = memo.conditions.get(&id).cloned().unwrap_or_default();
        let composed = if depth > 64 {
            None
        } else if dead {
            // A condition that never holds, written ones first.
            let mut never: Vec<usize> = conditions
                .iter()
                .copied()
                .filter(|&g| backbone[g] == Implied::False)
                .collect();
            never.sort_by_key(|&g| std::cmp::Reverse(self.rank(g, id).0));
            never.first().and_then(|&g| {
                let l = self.about[g]?;
                let mut set = self.literal_false(l, backbone, memo, depth)?;
                set.push(g);
                Some(set)
            })
        } else {
            memo.presence.get(&id).copied().and_then(|p| {
                let mut set = vec![p];
                for &g in &conditions {
                    let l = self.about[g]?;
                    set.extend(self.literal_false(!l, backbone, memo, depth)?);
                }
                Some(set)
            })
        };
        let mut found = composed.unwrap_or_else(|| self.core_of(self.goal(id, dead)));
        found.sort_unstable();
        found.dedup();
        memo.elements.insert((id, dead), Some(found.clone()));
        found
    }

    /// Guards under which `l` is false in every valid configuration
    /// (`None` where composing finds none, e.g. in a cycle).
    fn literal_false(
        &mut self,
        l: Lit,
        backbone: &[Implied],
        memo: &mut Memo,
        depth: usize,
    ) -> Option<Vec<usize>> {
        if self.sat.fixed(l) == Some(false) {
            return Some(Vec::new());
        }
        for (lit, dead) in [(l, true), (!l, false)] {
            if let Some(&x) = memo.element_of.get(&lit) {
                if memo.elements.get(&(x, dead)).is_some_and(Option::is_none) {
                    return None;
                }
                return Some(self.element_candidate(x, dead, backbone, memo, depth + 1));
            }
        }
        if let Some(found) = memo.literals.get(&l) {
            return Some(found.clone());
        }
        let found = self.core_of(l);
        memo.literals.insert(l, found.clone());
        Some(found)
    }

    /// The literal "`id` is present" if `dead`, else "absent".
    fn goal(&self, id: ElementId, dead: bool) -> Lit {
        let p = self.by_id[id.0 as usize];
        if dead {
            p
        } else {
            !p
        }
    }

    /// A subset-minimal set of guards with which `l` has no solution,
    /// searched near `l`: the failing checks and evaluations only where the
    /// other parts found there do not suffice (they tell least).
    fn core_of(&mut self, l: Lit) -> Vec<usize> {
        let (index, pieces) = (&self.index, &self.pieces);
        let telling = |g: Lit| {
            index
                .get(&g)
                .is_some_and(|&i| matches!(pieces[i], Piece::Part(_) | Piece::Rule(_)))
        };
        let core = self
            .sat
            .minimal_switched_core(l, &|_| true, &telling)
            .or_else(|| {
                let mut all = vec![l];
                all.extend_from_slice(&self.guards);
                self.sat.minimal_core(&all)
            })
            .unwrap_or_default();
        core.iter()
            .filter_map(|l| self.index.get(l).copied())
            .collect()
    }

    /// A subset-minimal set of guards under which no two configurations
    /// differ in input `name` alone (the others decide it), if there is one
    /// with every guard on: the failing checks and evaluations only where
    /// the other parts do not suffice. Two copies of the problem share the
    /// guards, so each part holds in both.
    fn determined(&self, name: &str) -> Option<Vec<usize>> {
        let (_, free) = self.inputs.iter().find(|(n, _)| n == name)?;
        let every: Vec<Lit> = self
            .inputs
            .iter()
            .flat_map(|(_, l)| l.iter().copied())
            .collect();
        let telling: Vec<Lit> = self
            .guards
            .iter()
            .zip(&self.pieces)
            .filter(|(_, p)| matches!(p, Piece::Part(_) | Piece::Rule(_)))
            .map(|(&g, _)| g)
            .collect();
        let core = [telling, self.guards.clone()].into_iter().find_map(|on| {
            self.whole
                .differ_sharing(&self.guards, &every, free)
                .minimal_core(free, &on)
        })?;
        Some(
            core.iter()
                .filter_map(|l| self.index.get(l).copied())
                .collect(),
        )
    }

    /// The candidates (guard sets, each sufficient for its goal literal to
    /// have no solution) that are not minimal: for which dropping some
    /// guard still leaves no solution with the goal. Checked in batches:
    /// one solve assumes, for each (candidate, dropped guard) of a batch,
    /// the candidate without that guard and its goal; if it has a solution, each dropped
    /// guard of the batch is necessary; if not, the batch is halved.
    /// Batches drop each element's own guards together, or one shared
    /// guard from every candidate that has it.
    fn minimal(
        &mut self,
        candidates: &[Vec<usize>],
        goals: &[Lit],
        owners: &[ElementId],
    ) -> Vec<usize> {
        // (candidate, dropped guard) pairs by batch key.
        let mut batches: SeededMap<Option<usize>, Vec<(usize, usize)>> = SeededMap::default();
        let mut keys = Vec::new();
        for (k, set) in candidates.iter().enumerate() {
            for &g in set {
                let own = matches!(self.pieces[g], Piece::Part(p) if owner(p) == Some(owners[k]));
                let key = if own { None } else { Some(g) };
                if !batches.contains_key(&key) {
                    keys.push(key);
                }
                batches.entry(key).or_default().push((k, g));
            }
        }
        let mut failing = Vec::new();
        for key in keys {
            let pairs = batches.remove(&key).unwrap_or_default();
            let mut pending = vec![pairs];
            while let Some(batch) = pending.pop() {
                if batch.is_empty() {
                    continue;
                }
                let mut assumptions: Vec<Lit> = Vec::new();
                for &(k, dropped) in &batch {
                    assumptions.push(goals[k]);
                    assumptions.extend(
                        candidates[k]
                            .iter()
                            .filter(|&&g| g != dropped)
                            .map(|&g| self.guards[g]),
                    );
                }
                assumptions.sort_unstable();
                assumptions.dedup();
                if self.sat.solve_switched(&assumptions) {
                    continue;
                }
                if batch.len() == 1 {
                    failing.push(batch[0].0);
                    continue;
                }
                let (a, b) = batch.split_at(batch.len() / 2);
                pending.push(a.to_vec());
                pending.push(b.to_vec());
            }
        }
        failing.sort_unstable();
        failing.dedup();
        failing
    }

    /// The reasons of guards `parts` for element `id`, its own first.
    fn reasons(&self, mut parts: Vec<usize>, id: ElementId) -> Vec<Reason> {
        parts.sort_by_key(|&i| (std::cmp::Reverse(self.rank(i, id).0), i));
        parts.into_iter().map(|i| self.reason(i)).collect()
    }

    /// Every part that reads variability inputs: the inputs it reads,
    /// its reason and why it cannot change the topology if they never do
    /// (conditions, then constraints, `implies` entries, feature rules).
    fn readers(
        &self,
        backbone: &[Implied],
        dead: &std::collections::HashSet<&str>,
    ) -> Vec<(Vec<String>, Reason, Verdict)> {
        let (g, doc) = (self.graph, self.doc);
        let mut out = Vec::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            let Piece::Part(part @ Part::Condition { id, index, .. }) = *piece else {
                continue;
            };
            let Some(c) = g.get(id).conditions.get(index as usize) else {
                continue;
            };
            let node = c.to_node(g);
            let names: Vec<String> = inputs_named(doc, Some((&node).into()))
                .into_iter()
                .map(str::to_string)
                .collect();
            if names.is_empty() {
                continue;
            }
            let verdict = match backbone[i] {
                Implied::True => Verdict::AlwaysHolds,
                Implied::False => Verdict::NeverHolds,
                Implied::Free if dead.contains(g.id(id).to_string().as_str()) => {
                    Verdict::DeadElement
                }
                Implied::Free => Verdict::Masked,
            };
            out.push((names, self.names.describe(part, None), verdict));
        }
        for (i, piece) in self.pieces.iter().enumerate() {
            let node = match *piece {
                Piece::Part(Part::Constraint(c)) => {
                    crate::document::variability_entry(doc, "constraints")
                        .and_then(NodeRef::as_seq)
                        .and_then(|l| l.get(c as usize))
                }
                Piece::Part(Part::Implies(id, k)) => g
                    .implies(id)
                    .and_then(Node::as_seq)
                    .and_then(|l| l.get(k as usize))
                    .map(NodeRef::from),
                _ => continue,
            };
            let names: Vec<String> = inputs_named(doc, node)
                .into_iter()
                .map(str::to_string)
                .collect();
            if !names.is_empty() {
                out.push((names, self.reason(i), Verdict::Restricts));
            }
        }
        let defs = crate::inputs::definitions(doc);
        for (k, d) in defs.into_iter().flat_map(v4t_yaml::MapRef::iter) {
            for key in crate::inputs::FEATURE_KEYS {
                let Some(n) = d.get(key).filter(|n| n.is_defined()) else {
                    continue;
                };
                let Some(reason) = self.rules.iter().find(|r| r.span == n.span()) else {
                    continue;
                };
                let mut names = vec![k.name().to_string()];
                names.extend(n.as_str().map(str::to_string));
                names.extend(
                    n.as_seq()
                        .into_iter()
                        .flatten()
                        .filter_map(v4t_yaml::NodeRef::as_str)
                        .map(str::to_string),
                );
                out.push((names, reason.clone(), Verdict::Restricts));
            }
        }
        // One entry per reason (rules for several targets share theirs).
        let mut seen = std::collections::HashSet::new();
        out.retain(|(names, r, _)| seen.insert(format!("{names:?} {} {:?}", r.message, r.span)));
        out
    }

    /// How telling part `i` is about `id` (least first): the element's own
    /// parts, then written ones, then the rest.
    fn rank(&self, i: usize, id: ElementId) -> (u8, usize) {
        let g = self.graph;
        let telling = match self.pieces[i] {
            Piece::Part(p) => {
                let own = owner(p) == Some(id);
                let written = match p {
                    Part::Condition { id: x, index, .. } => g
                        .get(x)
                        .conditions
                        .get(index as usize)
                        .is_some_and(|c| !c.is_generated()),
                    Part::Constraint(_) | Part::Implies(..) => true,
                    _ => false,
                };
                2 * u8::from(own) + u8::from(written)
            }
            Piece::Rule(_) => 1,
            Piece::Check(_) | Piece::Failure(_) => 0,
        };
        (telling, i)
    }

    /// The reason of guard `i`.
    fn reason(&self, i: usize) -> Reason {
        match self.pieces[i] {
            Piece::Part(p) => self.names.describe(p, None),
            Piece::Rule(r) => self.rules[r].clone(),
            Piece::Check(c) => {
                let e = &self.checks[c];
                let message = format!("configurations fail where \"{}\"", e.message);
                let mut reason = Reason::new(ReasonKind::Check, message, e.span);
                reason.element = e.element.clone();
                reason
            }
            Piece::Failure(f) => {
                let e = &self.failures[f];
                let message = format!("configurations fail where \"{}\"", e.message);
                let mut reason = Reason::new(ReasonKind::EvaluationError, message, e.span);
                reason.element = e.element.clone();
                reason
            }
        }
    }
}

/// What composing candidates remembers ([`Explainer::element_reasons`]).
#[derive(Default)]
struct Memo {
    /// Per element and dead (else core): its candidate (`None` while it
    /// is being composed).
    elements: SeededMap<(ElementId, bool), Option<Vec<usize>>>,
    /// Per literal: guards under which it is false.
    literals: SeededMap<Lit, Vec<usize>>,
    /// The guards of each element's conditions.
    conditions: SeededMap<ElementId, Vec<usize>>,
    /// The guard of each element's presence rule.
    presence: SeededMap<ElementId, usize>,
    /// Presence literal → its (first) element.
    element_of: SeededMap<Lit, ElementId>,
}

/// The element a part belongs to (its condition, presence or `implies`).
fn owner(p: Part) -> Option<ElementId> {
    match p {
        Part::Condition { id, .. } | Part::Presence(id) | Part::Implies(id, _) => Some(id),
        Part::Constraint(_) | Part::Generated(_) => None,
    }
}

/// A copy of `sat`'s clauses with `required` required.
fn copy_requiring(sat: &Solver, required: &[Lit]) -> Solver {
    let mut copy = Solver::new();
    for _ in 1..sat.num_vars() {
        copy.new_var();
    }
    for clause in sat.clauses() {
        copy.add_clause(clause);
    }
    for &l in required {
        copy.require(l);
    }
    copy
}

#[cfg(test)]
mod tests;
