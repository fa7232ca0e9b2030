//! Which of several groups of literals can fail while all the others hold,
//! part by part.
//!
//! `analyze` reports a declared constraint as redundant when no solution
//! violates it while the other constraints hold. Asked of the whole
//! problem, each question assumes every other constraint: on a template
//! of many components with a constraint each, quadratic. In a split
//! problem the other constraints hold in a part the group does not touch
//! exactly when they hold there at all, which is asked once per part; only
//! the parts the group touches are asked about it.

use crate::propagate::Propagator;
use crate::split::Place;
use crate::{Lit, Solver, Split};
use std::collections::BTreeMap;
use std::ops::Range;

impl Split {
    /// For each of `groups`: whether some model makes every literal of the
    /// other groups true and some literal of this group false.
    pub fn each_violable(&mut self, groups: &[Vec<Lit>]) -> Vec<bool> {
        if !self.satisfiable() {
            return vec![false; groups.len()];
        }
        // Per group: its literals in parts, and whether one is false in
        // every model (then it fails whenever the others hold).
        let mut local: Vec<Vec<(u32, Lit)>> = vec![Vec::new(); groups.len()];
        let mut has_false = vec![false; groups.len()];
        // Per part: its literals of all groups, with their group.
        let mut in_part: BTreeMap<u32, Vec<(usize, Lit)>> = BTreeMap::new();
        for (g, group) in groups.iter().enumerate() {
            for &lit in group {
                match self.place(lit) {
                    Place::Const(true) => {}
                    Place::Const(false) => has_false[g] = true,
                    Place::In(p, l) => {
                        local[g].push((p, l));
                        in_part.entry(p).or_default().push((g, l));
                    }
                }
            }
        }
        let false_groups = has_false.iter().filter(|&&f| f).count();
        // Whether each part has a model with all its literals true.
        let mut holds: BTreeMap<u32, bool> = BTreeMap::new();
        for (&p, lits) in &in_part {
            let all: Vec<Lit> = lits.iter().map(|&(_, l)| l).collect();
            holds.insert(p, self.solve_in(p, &all));
            self.part_mut(p).sat.release_backend();
        }
        let failing = holds.values().filter(|&&h| !h).count();
        // Per group in one part that holds: its answer where propagation
        // decides it.
        let mut decided: Vec<Option<bool>> = vec![None; groups.len()];
        for (&p, lits) in &in_part {
            let mut mine: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
            for &(g, l) in lits {
                if local[g].iter().all(|&(q, _)| q == p) && !has_false[g] {
                    mine.entry(g).or_default().push(l);
                }
            }
            if mine.len() < 2 || !holds[&p] {
                continue;
            }
            // The literals here of the groups that reach into other parts
            // hold for every question.
            let always: Vec<Lit> = (lits.iter())
                .filter(|(g, _)| !mine.contains_key(g))
                .map(|&(_, l)| l)
                .collect();
            let (gs, lists): (Vec<usize>, Vec<Vec<Lit>>) = mine.into_iter().unzip();
            let sat = &mut self.part_mut(p).sat;
            let answers = violable_by_propagation(sat, &always, &lists);
            sat.release_backend();
            for (g, answer) in gs.into_iter().zip(answers) {
                decided[g] = answer;
            }
        }
        // The groups in one part are asked part by part, each part's
        // backend kept between its questions; the others one by one.
        let mut by_part: BTreeMap<Option<u32>, Vec<usize>> = BTreeMap::new();
        for (g, mine) in local.iter().enumerate() {
            let first = mine.first().map(|&(p, _)| p);
            let one = mine.iter().all(|&(p, _)| Some(p) == first);
            by_part.entry(first.filter(|_| one)).or_default().push(g);
        }
        let mut out = vec![false; groups.len()];
        for (part, gs) in by_part {
            for g in gs {
                let mine = &local[g];
                let mut touched: Vec<u32> = mine.iter().map(|&(p, _)| p).collect();
                touched.sort_unstable();
                touched.dedup();
                let failing_touched = touched.iter().filter(|p| !holds[*p]).count();
                if false_groups > usize::from(has_false[g]) || failing > failing_touched {
                    // Another group cannot hold (in a part this one leaves alone).
                    continue;
                }
                // In each part it touches, the other groups' literals there.
                let others = |p: u32| -> Vec<Lit> {
                    (in_part[&p].iter())
                        .filter(|&&(h, _)| h != g)
                        .map(|&(_, l)| l)
                        .collect()
                };
                // With one part touched, whether the others hold there is
                // part of the next question (one of this group's literals
                // false while they hold).
                let mut violable = (part.is_some() && !has_false[g])
                    || touched.iter().all(|&p| self.solve_in(p, &others(p)));
                if let (true, false, Some(answer)) = (violable, has_false[g], decided[g]) {
                    violable = answer;
                } else if violable && !has_false[g] {
                    violable = mine.iter().any(|&(p, l)| {
                        let mut assumptions = others(p);
                        assumptions.push(!l);
                        self.solve_in(p, &assumptions)
                    });
                }
                out[g] = violable;
                if part.is_none() {
                    touched
                        .iter()
                        .for_each(|&p| self.part_mut(p).sat.release_backend());
                }
            }
            if let Some(p) = part {
                self.part_mut(p).sat.release_backend();
            }
        }
        out
    }

    /// Whether part `p` has a model in which the local `assumptions` hold
    /// (its backend kept: the caller releases it).
    fn solve_in(&mut self, p: u32, assumptions: &[Lit]) -> bool {
        self.part_mut(p).sat.solve_raw(assumptions)
    }
}

/// Per group of `groups` (literals of `sat`, which has a model making them
/// and `always` true): whether some model makes `always` and every literal
/// of the other groups true and one of this group's false, where
/// propagation decides it. Asked with one solve per group, each assumes every other
/// group: as long as the part per group. Here the groups are halved again
/// and again and each half's literals assumed once for all the groups of
/// the other half (O(n log n) assumptions, as in `flips.rs`); a group is
/// not violable if each of its literals, taken false, conflicts, and
/// violable if the facts with the first model's values elsewhere are a
/// model ([`Propagator::repairing`]).
fn violable_by_propagation(
    sat: &mut Solver,
    always: &[Lit],
    groups: &[Vec<Lit>],
) -> Vec<Option<bool>> {
    let mut answers = vec![None; groups.len()];
    let all: Vec<Lit> = always
        .iter()
        .chain(groups.iter().flatten())
        .copied()
        .collect();
    if !sat.solve_raw(&all) {
        return answers;
    }
    let model = sat.model.clone();
    let Some(facts) = sat.level0() else {
        return answers;
    };
    sat.lending_store(|_, store| {
        let mut p = Propagator::new(store, &facts).repairing(model);
        // The first model makes them all true: no conflict.
        if !p.conflicts() && always.iter().all(|&l| p.assume(l)) {
            halves(&mut p, groups, 0..groups.len(), &mut answers);
        }
    });
    answers
}

/// [`violable_by_propagation`] for the groups `range`, the literals of
/// every group outside it assumed.
fn halves(
    p: &mut Propagator,
    groups: &[Vec<Lit>],
    range: Range<usize>,
    answers: &mut [Option<bool>],
) {
    if range.len() == 1 {
        let g = range.start;
        let mut open = false;
        for &l in &groups[g] {
            let mark = p.mark();
            let consistent = p.assume(!l);
            let repaired = consistent && p.repairs();
            p.undo(mark);
            if repaired {
                answers[g] = Some(true);
                return;
            }
            open |= consistent;
        }
        answers[g] = (!open).then_some(false);
        return;
    }
    let mid = range.start + range.len() / 2;
    for (half, other) in [
        (range.start..mid, mid..range.end),
        (mid..range.end, range.start..mid),
    ] {
        let mark = p.mark();
        // The first model makes them all true: no conflict.
        if groups[other].iter().flatten().all(|&l| p.assume(l)) {
            halves(p, groups, half, answers);
        }
        p.undo(mark);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        blocks_instance, eval_lit, exercised, models, random_instance, random_lit, Rng,
    };
    use crate::Lit;

    /// A group that lies in two parts still holds in the part where the
    /// others are decided: `b` implies `a`, and `b` belongs to a group
    /// that also has `c` in another part, so `a` cannot fail while it holds.
    #[test]
    fn groups_in_several_parts_hold_where_the_others_are_decided() {
        let mut s = crate::Solver::new();
        let (a, b, c, d, e) = (
            s.new_var(),
            s.new_var(),
            s.new_var(),
            s.new_var(),
            s.new_var(),
        );
        s.add_clause(&[a, !b]);
        s.add_clause(&[d, a]);
        s.add_clause(&[c, e]);
        let mut split = s.split_copy();
        assert!(split.num_parts() >= 2);
        let groups = vec![vec![a], vec![b, c], vec![d]];
        assert_eq!(split.each_violable(&groups), vec![false, true, true]);
    }

    /// What propagation decides of many groups in one problem equals
    /// brute force, and it decides both ways often.
    #[test]
    fn groups_decided_by_propagation_match_brute_force() {
        let mut rng = Rng::new(72);
        let (mut yes, mut no, mut open) = (0, 0, 0);
        for round in 0..6000 {
            // Clauses of three literals as well: a literal taken false
            // need not decide the others.
            let (mut s, vars, mut cnf) = random_instance(&mut rng, 12, (1, 2));
            for _ in 0..rng.below(3 * vars.len() as u64 + 1) {
                let clause: Vec<Lit> = (0..3).map(|_| random_lit(&mut rng, &vars)).collect();
                s.add_clause(&clause);
                cnf.push(clause);
            }
            let groups: Vec<Vec<Lit>> = (0..2 + rng.below(7))
                .map(|_| {
                    (0..1 + rng.below(2))
                        .map(|_| random_lit(&mut rng, &vars))
                        .collect()
                })
                .collect();
            let all: Vec<Lit> = groups.iter().flatten().copied().collect();
            let ms = models(&vars, &cnf);
            let holds = |l: Lit, m: &[bool]| eval_lit(l, &vars, m);
            if !ms.iter().any(|m| all.iter().all(|&l| holds(l, m))) {
                continue;
            }
            let got = super::violable_by_propagation(&mut s, &[], &groups);
            for (g, answer) in got.into_iter().enumerate() {
                let want = ms.iter().any(|m| {
                    let others = (groups.iter().enumerate())
                        .filter(|&(h, _)| h != g)
                        .all(|(_, group)| group.iter().all(|&l| holds(l, m)));
                    others && groups[g].iter().any(|&l| !holds(l, m))
                });
                match answer {
                    Some(v) => {
                        assert_eq!(v, want, "round {round}: group {g} of {groups:?}, {cnf:?}")
                    }
                    None => open += 1,
                }
                yes += usize::from(answer == Some(true));
                no += usize::from(answer == Some(false));
            }
        }
        assert!(
            yes > 700 && no > 250,
            "decided: {yes} violable, {no} not ({open} open)"
        );
    }

    /// Instances of independent blocks, some literals fixed at level 0:
    /// which groups can fail while the others hold equals brute force.
    #[test]
    fn violable_groups_match_brute_force() {
        let mut rng = Rng::new(71);
        let (mut several, mut yes, mut no) = (0, 0, 0);
        for round in 0..600 {
            let (mut s, vars, cnf) = blocks_instance(&mut rng);
            for c in &cnf {
                s.add_clause(c);
            }
            let truth = s.truth();
            let groups: Vec<Vec<Lit>> = (0..1 + rng.below(4))
                .map(|_| {
                    (0..1 + rng.below(2))
                        .map(|_| match rng.below(16) {
                            0 => truth,
                            1 => !truth,
                            _ => random_lit(&mut rng, &vars),
                        })
                        .collect()
                })
                .collect();
            let all = models(&vars, &cnf);
            let holds = |l: Lit, m: &[bool]| l == truth || (l != !truth && eval_lit(l, &vars, m));
            let want: Vec<bool> = (0..groups.len())
                .map(|g| {
                    all.iter().any(|m| {
                        let others = (groups.iter().enumerate())
                            .filter(|&(h, _)| h != g)
                            .all(|(_, group)| group.iter().all(|&l| holds(l, m)));
                        others && groups[g].iter().any(|&l| !holds(l, m))
                    })
                })
                .collect();
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            let got = split.each_violable(&groups);
            assert_eq!(got, want, "round {round}: groups {groups:?} cnf {cnf:?}");
            yes += want.iter().filter(|&&v| v).count();
            no += want.iter().filter(|&&v| !v).count();
        }
        exercised!(several > 100, "too few split instances: {several}");
        exercised!(yes > 300 && no > 300, "violable {yes}, not {no}");
    }
}
