//! Which single changes of a model's inputs change its outputs, by unit
//! propagation (the cheap answers of [`crate::Split::can_differ_each`]).
//!
//! A change of one group of inputs in a model, the part's other inputs
//! kept, changes an output if the problem with those values has a model
//! with other outputs. Asked with one solve per change, every other input
//! is assumed each time: as long as the part per change, quadratic in a
//! part of many inputs (a long `and`). Here the changes are halved again
//! and again, and the inputs that a half leaves alone are assumed once
//! for all the changes in the other half: each input is assumed once per
//! level, O(n log n) assumptions in all, each undone on the way back. A
//! change is decided by propagation where its outputs are known and, if
//! one differs, every clause holds; the rest are left for a solve.

use crate::propagate::{Propagator, Store};
use crate::Lit;

/// What [`changes_by_propagation`] found.
pub(crate) struct Flips {
    /// Per group: some change of it changes an output.
    pub(crate) changed: Vec<bool>,
    /// Changes propagation could not decide: the group's position and the
    /// literal it takes.
    pub(crate) open: Vec<(usize, Lit)>,
}

/// For each group of `groups` (literals whose variables are changed
/// together): whether taking one of its literals false in `model` (or, if
/// the model makes them all true, one of their negations), every other
/// variable of `inputs` kept, gives a model whose `outputs` differ from
/// the model's, as far as propagation from `p`'s facts decides it.
///
/// `model` must be a model of `p`'s clauses; `p` is left as it was.
pub(crate) fn changes_by_propagation(
    p: &mut Propagator,
    store: Store<'_>,
    model: &[bool],
    (inputs, outputs): (&[Lit], &[Lit]),
    groups: &[&[Lit]],
) -> Flips {
    let vars = model.len();
    let mut is_input = vec![false; vars];
    inputs
        .iter()
        .for_each(|l| is_input[l.var_index() as usize] = true);
    let mut is_output = vec![false; vars];
    outputs
        .iter()
        .for_each(|l| is_output[l.var_index() as usize] = true);
    let mut walk = Walk {
        p,
        store,
        model,
        is_input,
        is_output,
        outputs,
        groups,
        stamp: vec![0; vars],
        stamps: 0,
        flips: Flips {
            changed: vec![false; groups.len()],
            open: Vec::new(),
        },
    };
    let start = walk.p.mark();
    // The inputs of no group are kept for every change.
    walk.stamps += 1;
    for lit in groups.iter().flat_map(|g| g.iter()) {
        walk.stamp[lit.var_index() as usize] = walk.stamps;
    }
    let kept: Vec<u32> = (0..vars as u32)
        .filter(|&v| walk.is_input[v as usize] && walk.stamp[v as usize] != walk.stamps)
        .collect();
    if kept.iter().all(|&v| walk.keep(v)) {
        walk.range(0, groups.len());
    } else {
        walk.leave_open(0, groups.len());
    }
    walk.p.undo(start);
    walk.flips
}

/// The state of [`changes_by_propagation`].
struct Walk<'a, 's> {
    p: &'a mut Propagator,
    store: Store<'s>,
    model: &'a [bool],
    is_input: Vec<bool>,
    is_output: Vec<bool>,
    outputs: &'a [Lit],
    groups: &'a [&'a [Lit]],
    /// Per variable: the last marking that touched it (`stamps` is the
    /// newest), to tell the variables of one half from the other's.
    stamp: Vec<u32>,
    stamps: u32,
    flips: Flips,
}

/// A change, as propagation decides it.
enum Outcome {
    Changed,
    Same,
    Open,
}

impl Walk<'_, '_> {
    /// The model's value of variable `v`, as a literal.
    fn model_lit(&self, v: u32) -> Lit {
        let l = Lit::from_var(v);
        if self.model[v as usize] {
            l
        } else {
            !l
        }
    }

    /// Assumes variable `v` at the model's value; `false` on a conflict.
    fn keep(&mut self, v: u32) -> bool {
        let lit = self.model_lit(v);
        self.p.assume(lit)
    }

    /// The groups `lo..hi`, with every input outside them assumed at the
    /// model's value.
    fn range(&mut self, lo: usize, hi: usize) {
        match hi - lo {
            0 => return,
            1 => return self.leaf(lo),
            _ => {}
        }
        let mid = lo + (hi - lo) / 2;
        for ((a, b), (c, d)) in [((lo, mid), (mid, hi)), ((mid, hi), (lo, mid))] {
            let mark = self.p.mark();
            if self.keep_other_half((a, b), (c, d)) {
                self.range(a, b);
            } else {
                // The model holds these values: a conflict means that
                // propagation went wrong; the solves decide instead.
                self.leave_open(a, b);
            }
            self.p.undo(mark);
        }
    }

    /// Assumes the inputs of groups `c..d` that no group of `a..b` has.
    fn keep_other_half(&mut self, (a, b): (usize, usize), (c, d): (usize, usize)) -> bool {
        self.stamps += 1;
        for g in a..b {
            for lit in self.groups[g] {
                self.stamp[lit.var_index() as usize] = self.stamps;
            }
        }
        for g in c..d {
            for lit in self.groups[g] {
                let v = lit.var_index();
                if self.is_input[v as usize]
                    && self.stamp[v as usize] != self.stamps
                    && !self.keep(v)
                {
                    return false;
                }
            }
        }
        true
    }

    /// Every change of the groups `lo..hi`, for the solves.
    fn leave_open(&mut self, lo: usize, hi: usize) {
        for g in lo..hi {
            let flips = changes(self.groups[g], |l| self.model_value(l));
            self.flips.open.extend(flips.into_iter().map(|l| (g, l)));
        }
    }

    fn model_value(&self, l: Lit) -> bool {
        self.model[l.var_index() as usize] != l.is_negated()
    }

    /// The changes of group `g`, every other input assumed.
    fn leaf(&mut self, g: usize) {
        for lit in changes(self.groups[g], |l| self.model_value(l)) {
            let mark = self.p.mark();
            let outcome = if self.p.assume(lit) {
                self.outcome(mark)
            } else {
                Outcome::Same
            };
            self.p.undo(mark);
            match outcome {
                Outcome::Changed => {
                    self.flips.changed[g] = true;
                    return;
                }
                Outcome::Same => {}
                Outcome::Open => self.flips.open.push((g, lit)),
            }
        }
    }

    /// Whether the facts since `mark` (a change and what it implies) give
    /// a model with other outputs.
    fn outcome(&self, mark: usize) -> Outcome {
        if self.p.complete() {
            // The facts are a model; the outputs known before the change
            // were implied by the model's values, so only the facts since
            // can differ from it (an output in no clause is left for the
            // exact questions).
            let differs = |f: &Lit| self.is_output[f.var_index() as usize] && !self.model_value(*f);
            return if self.p.facts_since(mark).iter().any(differs) {
                Outcome::Changed
            } else {
                Outcome::Same
            };
        }
        let mut differs = false;
        for &o in self.outputs {
            match self.p.known(o) {
                None => return Outcome::Open,
                Some(v) => differs |= v != self.model_value(o),
            }
        }
        match (differs, self.p.satisfied(self.store)) {
            (false, _) => Outcome::Same,
            (true, true) => Outcome::Changed,
            (true, false) => Outcome::Open,
        }
    }
}

/// For each group of `groups` not marked in `changed`: marks it if two
/// models that propagation finds over `p`'s model ([`Propagator::repairing`])
/// differ among `inputs` in it alone and differ in an output. One makes a
/// literal of the group false, the other makes it true with the first one's
/// other inputs; each is the facts of its side with the model's values
/// elsewhere, where [`Propagator::repairs`] says that is a model.
///
/// A change tried in one model alone ([`changes_by_propagation`]) finds no
/// such pair where the model's neighbours forbid it (in a chain of `or`s,
/// an input true between two false ones); here each side moves its
/// neighbours first. Propagation stops, leaving the rest unmarked, once it
/// has visited four times the clauses' literal occurrences: all groups
/// together cost at most linear time. `p` is left as it was.
pub(crate) fn changes_by_repair(
    p: &mut Propagator,
    (inputs, outputs): (&[Lit], &[Lit]),
    groups: &[&[Lit]],
    changed: &mut [bool],
) {
    let vars = p.vars();
    let mut role = vec![0u8; vars];
    const INPUT: u8 = 1;
    const OUTPUT: u8 = 2;
    const IN_GROUP: u8 = 4;
    inputs
        .iter()
        .for_each(|l| role[l.var_index() as usize] |= INPUT);
    outputs
        .iter()
        .for_each(|l| role[l.var_index() as usize] |= OUTPUT);
    let budget = p.visited() + 4 * p.occurrences_total();
    // The first side's facts on inputs outside the group and on outputs,
    // by variable (1 true, -1 false), and those variables.
    let mut first = vec![0i8; vars];
    let mut kept: Vec<Lit> = Vec::new();
    let mut first_outputs: Vec<Lit> = Vec::new();
    let first_value = |first: &[i8], f: Lit| match first[f.var_index() as usize] {
        0 => None,
        v => Some((v > 0) != f.is_negated()),
    };
    for (g, group) in groups.iter().enumerate() {
        if changed[g] {
            continue;
        }
        group
            .iter()
            .for_each(|l| role[l.var_index() as usize] |= IN_GROUP);
        for &lit in group.iter() {
            if p.visited() > budget {
                return;
            }
            let mark = p.mark();
            let first_holds = p.assume(!lit) && p.repairs();
            for &fact in p.facts_since(mark).iter().filter(|_| first_holds) {
                let r = role[fact.var_index() as usize];
                let inputs_kept = r & (INPUT | IN_GROUP) == INPUT;
                if inputs_kept {
                    kept.push(fact);
                }
                if r & OUTPUT != 0 {
                    first_outputs.push(fact);
                }
                if inputs_kept || r & OUTPUT != 0 {
                    first[fact.var_index() as usize] = if fact.is_negated() { -1 } else { 1 };
                }
            }
            p.undo(mark);
            let second =
                first_holds && p.assume(lit) && kept.iter().all(|&k| p.assume(k)) && p.repairs();
            // The second side keeps the first one's other inputs: those it
            // did not assume are the model's, as in the first.
            let same_inputs = second
                && (p.facts_since(mark).iter()).all(|&f| {
                    role[f.var_index() as usize] & (INPUT | IN_GROUP) != INPUT
                        || first_value(&first, f).unwrap_or(p.in_model(f))
                });
            let differs = same_inputs
                && (first_outputs
                    .iter()
                    .any(|&o| !p.known(o).unwrap_or(p.in_model(o)))
                    || (p.facts_since(mark).iter()).any(|&f| {
                        role[f.var_index() as usize] & OUTPUT != 0
                            && !first_value(&first, f).unwrap_or(p.in_model(f))
                    }));
            p.undo(mark);
            for f in kept.drain(..).chain(first_outputs.drain(..)) {
                first[f.var_index() as usize] = 0;
            }
            if differs {
                changed[g] = true;
                break;
            }
        }
        group
            .iter()
            .for_each(|l| role[l.var_index() as usize] &= !IN_GROUP);
    }
}

/// The changes tried for a group: its literals false in the model, or, if
/// the model makes them all true, their negations.
fn changes(group: &[Lit], value: impl Fn(Lit) -> bool) -> Vec<Lit> {
    let flips: Vec<Lit> = group.iter().copied().filter(|&l| !value(l)).collect();
    if flips.is_empty() {
        group.iter().map(|&l| !l).collect()
    } else {
        flips
    }
}

#[cfg(test)]
mod tests {
    use super::{changes, changes_by_propagation, changes_by_repair, Flips};
    use crate::propagate::Propagator;
    use crate::testutil::{eval_lit, models, random_instance, random_lit, Rng};
    use crate::{Lit, Solver};

    /// The changes of `groups` in the solver's model, by propagation;
    /// checks that the propagator is left as it was.
    fn flips(s: &mut Solver, inputs: &[Lit], outputs: &[Lit], groups: &[&[Lit]]) -> Flips {
        let facts = s.level0().expect("satisfiable");
        let model = s.model.clone();
        s.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts);
            assert!(!p.conflicts());
            let (mark, known) = (p.mark(), p.complete());
            let flips = changes_by_propagation(&mut p, store, &model, (inputs, outputs), groups);
            assert_eq!((p.mark(), p.complete()), (mark, known));
            flips
        })
    }

    /// Random inputs, outputs and groups of inputs.
    type Roles = (Vec<Lit>, Vec<Lit>, Vec<Vec<Lit>>);

    /// A solver, its variables and clauses, and roles of its literals.
    type WithRoles = (Solver, Vec<Lit>, Vec<Vec<Lit>>, Roles);

    /// A satisfiable random instance (with a model: the solver, its
    /// variables and clauses) and random roles of its literals.
    fn random_roles(rng: &mut Rng) -> Option<WithRoles> {
        let (mut s, vars, cnf) = random_instance(rng, 10, (2, 2));
        if !s.solve_raw(&[]) {
            return None;
        }
        let n = vars.len() as u64;
        let pick = |rng: &mut Rng, max: u64| -> Vec<Lit> {
            (0..rng.below(max + 1))
                .map(|_| random_lit(rng, &vars))
                .collect()
        };
        let inputs = pick(rng, n);
        let outputs = pick(rng, n);
        let groups: Vec<Vec<Lit>> = (0..1 + rng.below(4))
            .map(|_| (inputs.iter().copied().filter(|_| rng.below(3) == 0)).collect())
            .filter(|g: &Vec<Lit>| !g.is_empty())
            .collect();
        Some((s, vars, cnf, (inputs, outputs, groups)))
    }

    /// A group marked changed has a change with a model (the other inputs
    /// kept) whose outputs differ; a change every such model of which has
    /// other outputs is marked or left open, never dropped.
    #[test]
    fn changes_match_brute_force() {
        let mut rng = Rng::new(41);
        let (mut changed, mut decided, mut open) = (0, 0, 0);
        for round in 0..800 {
            let Some((mut s, vars, cnf, (inputs, outputs, groups))) = random_roles(&mut rng) else {
                continue;
            };
            let group_refs: Vec<&[Lit]> = groups.iter().map(|g| &g[..]).collect();
            let found = flips(&mut s, &inputs, &outputs, &group_refs);
            let model = s.model.clone();
            let in_model = |l: Lit| model[l.var_index() as usize] != l.is_negated();
            let bits: Vec<bool> = vars.iter().map(|&v| in_model(v)).collect();
            let ms = models(&vars, &cnf);
            let same_outputs = |m: &Vec<bool>| {
                (outputs.iter()).all(|&o| eval_lit(o, &vars, m) == eval_lit(o, &vars, &bits))
            };
            for (g, group) in groups.iter().enumerate() {
                let mut some = false;
                for lit in changes(group, in_model) {
                    let kept = |l: &Lit| !group.iter().any(|f| f.var_index() == l.var_index());
                    let fits = |m: &&Vec<bool>| {
                        eval_lit(lit, &vars, m)
                            && (inputs.iter().copied().filter(kept))
                                .all(|l| eval_lit(l, &vars, m) == in_model(l))
                    };
                    let with: Vec<&Vec<bool>> = ms.iter().filter(fits).collect();
                    some |= with.iter().any(|m| !same_outputs(m));
                    if !with.is_empty() && with.iter().all(|m| !same_outputs(m)) {
                        let left = found.open.contains(&(g, lit));
                        assert!(found.changed[g] || left, "round {round}: change dropped");
                    }
                }
                assert!(!found.changed[g] || some, "round {round}: not a change");
                changed += usize::from(found.changed[g]);
            }
            for &(g, lit) in &found.open {
                assert!(
                    changes(&groups[g], in_model).contains(&lit),
                    "round {round}"
                );
            }
            open += found.open.len();
            decided += usize::from(found.open.is_empty());
        }
        assert!(
            changed > 100 && decided > 200 && open > 0,
            "{changed} {decided} {open}"
        );
    }

    /// A group marked by the pairs of repaired models has two models that
    /// agree on the other inputs and differ on an output (brute force);
    /// the marks are frequent.
    #[test]
    fn changes_by_repair_have_witnesses() {
        let mut rng = Rng::new(43);
        let mut marked = 0;
        for round in 0..800 {
            let Some((mut s, vars, cnf, (inputs, outputs, groups))) = random_roles(&mut rng) else {
                continue;
            };
            let group_refs: Vec<&[Lit]> = groups.iter().map(|g| &g[..]).collect();
            let facts = s.level0().expect("satisfiable");
            let model = s.model.clone();
            let mut changed = vec![false; groups.len()];
            s.lending_store(|_, store| {
                let mut p = Propagator::new(store, &facts).repairing(model);
                let mark = p.mark();
                changes_by_repair(&mut p, (&inputs, &outputs), &group_refs, &mut changed);
                assert_eq!(p.mark(), mark, "round {round}: left as it was");
            });
            let ms = models(&vars, &cnf);
            let key = |m: &Vec<bool>, ls: &[Lit]| -> Vec<bool> {
                ls.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            for (g, group) in groups.iter().enumerate().filter(|&(g, _)| changed[g]) {
                let shared: Vec<Lit> = (inputs.iter().copied())
                    .filter(|l| !group.iter().any(|f| f.var_index() == l.var_index()))
                    .collect();
                let witnessed = ms.iter().any(|a| {
                    ms.iter().any(|b| {
                        key(a, &shared) == key(b, &shared) && key(a, &outputs) != key(b, &outputs)
                    })
                });
                assert!(witnessed, "round {round}: group {g} {group:?} of {cnf:?}");
                marked += 1;
            }
        }
        assert!(marked > 200, "{marked} marked");
    }

    /// `x` implies `y`, and the output follows `y` alone: changing `x`
    /// with `y` kept never changes it, though making `x` true from a model
    /// where `y` is false drags `y` (and the output) along. Such a pair
    /// changes another input and marks nothing.
    #[test]
    fn a_pair_keeps_the_other_inputs() {
        let mut s = Solver::new();
        let (x, y, o) = (s.new_var(), s.new_var(), s.new_var());
        s.add_clause(&[!x, y]);
        s.add_clause(&[!o, y]);
        s.add_clause(&[o, !y]);
        assert!(s.solve_raw(&[!x, !y]));
        let facts = s.level0().expect("satisfiable");
        let model = s.model.clone();
        let mut changed = vec![false];
        s.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts).repairing(model);
            changes_by_repair(&mut p, (&[x, y], &[o]), &[&[x]], &mut changed);
        });
        assert_eq!(changed, vec![false]);
    }

    /// A chain of `or`s over the inputs: in a model where an input is true
    /// between two false ones no single change is possible, but each side
    /// of the pair moves its neighbours first: every input is marked.
    #[test]
    fn a_chain_of_ors_is_marked_by_repair() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..300).map(|_| s.new_var()).collect();
        for w in xs.windows(2) {
            s.add_clause(&[w[0], w[1]]);
        }
        // Alternating: each true input has false neighbours.
        let alternating: Vec<Lit> = (xs.iter().enumerate())
            .map(|(i, &x)| if i % 2 == 0 { !x } else { x })
            .collect();
        assert!(s.solve_raw(&alternating));
        let groups: Vec<&[Lit]> = xs.iter().map(std::slice::from_ref).collect();
        let facts = s.level0().expect("satisfiable");
        let model = s.model.clone();
        let mut changed = vec![false; xs.len()];
        s.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts).repairing(model);
            changes_by_repair(&mut p, (&xs, &xs), &groups, &mut changed);
        });
        assert_eq!(changed, vec![true; xs.len()]);
    }

    /// A long `and` of inputs: every change is decided by propagation; in
    /// a model where it is true, each input changes it; where it is false
    /// because of several inputs, none does.
    #[test]
    fn a_long_and_is_decided_by_propagation() {
        for all_true in [true, false] {
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..300).map(|_| s.new_var()).collect();
            let and = s.and(&xs);
            let assumptions: Vec<Lit> = if all_true {
                vec![and]
            } else {
                vec![!xs[7], !xs[200]]
            };
            assert!(s.solve_raw(&assumptions));
            let groups: Vec<&[Lit]> = xs.iter().map(std::slice::from_ref).collect();
            let found = flips(&mut s, &xs, &[and], &groups);
            assert!(found.open.is_empty());
            assert_eq!(found.changed, vec![all_true; xs.len()]);
        }
    }
}
