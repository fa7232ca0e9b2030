//! Which of an ordered list of literals can be the first true one.
//!
//! `analyze` groups failing configurations by the first check they violate.
//! Encoding "the first violation is the i-th" for every i takes a chain of
//! two gates per violation, which on a template with 120,000 possible
//! violations doubles the problem that every later question solves. The
//! positions that can come first are usually few: they are found by
//! splitting the list at each one found, one solve per position and range
//! ([`Solver::possible_firsts`]), and only those get a literal
//! ([`Solver::first_of`]).
//!
//! Every solve assigns every variable, so on a template of many
//! independent components (each with its own violations) the solves
//! together are quadratic. [`Split::possible_firsts`] asks each part about
//! its own literals and combines the answers.

use crate::split::{by_part, Place};
use crate::{Lit, Solver, Split};

impl Solver {
    /// The positions `i` (ascending) at which `lits[i]` can be true while
    /// every earlier one is false, in some model of the clauses.
    ///
    /// Each range `lo..hi` is asked once: "one of these true, all before
    /// `lo` false"; the first true literal of a model is such a position,
    /// and the ranges before and after it are asked next. So the number of
    /// solves is twice the number of positions plus one. The ranges'
    /// clauses are guarded by a fresh literal each, made false afterwards
    /// (the models of the clauses do not change; the current model may).
    pub fn possible_firsts(&mut self, lits: &[Lit]) -> Vec<usize> {
        // Literals propagation refutes on their own never come first. In a
        // range's clause, each could cost the search a conflict as long as
        // the range (hundreds of element checks that can never fail).
        let refuted = self.refuted(lits);
        let mut found = Vec::new();
        let mut ranges = vec![(0, lits.len())];
        let mut assumptions = Vec::new();
        let mut clause = Vec::new();
        while let Some((lo, hi)) = ranges.pop() {
            // Literals fixed false can never come first; nothing before
            // one fixed true can come after it.
            let open: Vec<usize> = (lo..hi)
                .filter(|&i| !refuted[i] && self.fixed(lits[i]) != Some(false))
                .collect();
            if open.is_empty() {
                continue;
            }
            let guard = self.new_var();
            clause.clear();
            clause.push(!guard);
            clause.extend(open.iter().map(|&i| lits[i]));
            self.add_clause(&clause);
            assumptions.clear();
            assumptions.push(guard);
            assumptions.extend(lits[..lo].iter().map(|&l| !l));
            let first = if self.solve_raw(&assumptions) {
                open.iter().copied().find(|&i| self.value(lits[i]))
            } else {
                None
            };
            self.require(!guard);
            let Some(i) = first else {
                continue;
            };
            found.push(i);
            // Later ranges first on the stack, so the earlier is asked next.
            ranges.push((i + 1, hi));
            ranges.push((lo, i));
        }
        found.sort_unstable();
        found
    }

    /// A literal equivalent to "`lits[i]` is the first true literal, for
    /// some `i` in `positions`" (ascending). One conjunction per position
    /// when that is smaller than a chain of "some earlier one is true"
    /// over the prefix up to the last position; otherwise the chain.
    pub fn first_of(&mut self, lits: &[Lit], positions: &[usize]) -> Lit {
        let Some(&last) = positions.last() else {
            return self.constant(false);
        };
        let direct: usize = positions.iter().map(|&i| i + 1).sum();
        let mut firsts = Vec::with_capacity(positions.len());
        if direct <= 2 * (last + 1) {
            let mut conjunction = Vec::new();
            for &i in positions {
                conjunction.clear();
                conjunction.push(lits[i]);
                conjunction.extend(lits[..i].iter().map(|&l| !l));
                firsts.push(self.and(&conjunction));
            }
        } else {
            let mut earlier = self.constant(false);
            let mut next = positions.iter().peekable();
            for (i, &l) in lits[..=last].iter().enumerate() {
                if next.peek() == Some(&&i) {
                    next.next();
                    firsts.push(self.and(&[l, !earlier]));
                }
                earlier = self.or(&[earlier, l]);
            }
        }
        self.or(&firsts)
    }
}

impl Split {
    /// [`Solver::possible_firsts`] part by part.
    ///
    /// Models are combinations of one model per part, so `lits[i]` of part
    /// `p` can come first iff it can come first among the literals of `p`
    /// and every other part `q` has a model with its literals before `i`
    /// false: iff `i` is below `q`'s latest first position (the largest
    /// position that comes first in some model of `q`; none if a model of
    /// `q` makes all its literals false). A literal true in every model
    /// acts as a part of its own.
    pub fn possible_firsts(&mut self, lits: &[Lit]) -> Vec<usize> {
        if !self.satisfiable() {
            return Vec::new();
        }
        // Positions after a literal true in every model never come first.
        let mut end = lits.len();
        let mut local = Vec::new();
        for (i, &lit) in lits.iter().enumerate() {
            match self.place(lit) {
                Place::Const(true) => {
                    end = i;
                    break;
                }
                Place::Const(false) => {}
                Place::In(p, l) => local.push((p, (i, l))),
            }
        }
        // Per part: its first positions and its latest one (`usize::MAX`
        // if all its literals can be false together).
        let mut firsts: Vec<(Vec<usize>, usize)> = Vec::new();
        if end < lits.len() {
            firsts.push((vec![end], end));
        }
        for (p, items) in by_part(local) {
            let sat = &mut self.part_mut(p).sat;
            let part_lits: Vec<Lit> = items.iter().map(|&(_, l)| l).collect();
            let found: Vec<usize> = (sat.possible_firsts(&part_lits).into_iter())
                .map(|k| items[k].0)
                .collect();
            let negated: Vec<Lit> = part_lits.iter().map(|&l| !l).collect();
            let latest = match found.last() {
                Some(&last) if !sat.solve_raw(&negated) => last,
                _ => usize::MAX,
            };
            sat.release_backend();
            if !found.is_empty() {
                firsts.push((found, latest));
            }
        }
        // The two smallest latest positions: the bound of every other part.
        let (mut low, mut second) = (usize::MAX, usize::MAX);
        for &(_, latest) in &firsts {
            if latest < low {
                (low, second) = (latest, low);
            } else if latest < second {
                second = latest;
            }
        }
        let mut possible: Vec<usize> = Vec::new();
        for (found, latest) in &firsts {
            let bound = if *latest == low { second } else { low };
            possible.extend(found.iter().copied().filter(|&i| i < bound));
        }
        possible.sort_unstable();
        possible
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        blocks_instance, eval_lit, exercised, models, random_instance, random_lit, Rng,
    };
    use crate::Lit;

    #[test]
    fn possible_firsts_and_their_literal_match_brute_force() {
        let mut rng = Rng::new(29);
        let mut nonempty = 0;
        for _ in 0..300 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 10, (2, 1));
            let order: Vec<Lit> = (0..1 + rng.below(8))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let all = models(&vars, &cnf);
            let first_in = |bits: &[bool]| order.iter().position(|&l| eval_lit(l, &vars, bits));
            let mut expected: Vec<usize> = all.iter().filter_map(|m| first_in(m)).collect();
            expected.sort_unstable();
            expected.dedup();
            let found = s.possible_firsts(&order);
            assert_eq!(found, expected, "order {order:?} cnf {cnf:?}");
            nonempty += usize::from(!found.is_empty());
            // The models are unchanged (the guards are made false).
            for bits in crate::testutil::assignments(vars.len()) {
                let fix = crate::testutil::fixing(&vars, &bits);
                assert_eq!(s.solve(&fix), all.contains(&bits));
            }
            // Some positions (a random subset of the found ones): the
            // literal holds exactly where the first true one is among them.
            let chosen: Vec<usize> = found
                .iter()
                .copied()
                .filter(|_| rng.below(2) == 0)
                .collect();
            let g = s.first_of(&order, &chosen);
            for bits in &all {
                let fix = crate::testutil::fixing(&vars, bits);
                let holds = first_in(bits).is_some_and(|i| chosen.contains(&i));
                assert!(s.solve(&fix));
                assert_eq!(s.value(g), holds, "chosen {chosen:?} bits {bits:?}");
            }
        }
        exercised!(
            nonempty > 100,
            "too few instances with a first position: {nonempty}"
        );
    }

    /// Instances of independent blocks, some literals fixed: the split's
    /// positions are those of brute force, and so the whole problem's.
    #[test]
    fn possible_firsts_part_by_part_match_brute_force() {
        let mut rng = Rng::new(57);
        let (mut several, mut nonempty) = (0, 0);
        for round in 0..600 {
            let (mut s, vars, cnf) = blocks_instance(&mut rng);
            let n = vars.len();
            for c in &cnf {
                s.add_clause(c);
            }
            let mut order: Vec<Lit> = (0..rng.below(2 * n as u64 + 2))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            if rng.below(4) == 0 {
                order.insert(rng.below(order.len() as u64 + 1) as usize, s.truth());
            }
            let all = models(&vars, &cnf);
            let truth = s.truth();
            let value = |l: Lit, m: &[bool]| l == truth || (l != !truth && eval_lit(l, &vars, m));
            let mut want: Vec<usize> = (all.iter())
                .filter_map(|m| order.iter().position(|&l| value(l, m)))
                .collect();
            want.sort_unstable();
            want.dedup();
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            nonempty += usize::from(!want.is_empty());
            let ctx = format!("round {round}: order {order:?} cnf {cnf:?}");
            assert_eq!(split.possible_firsts(&order), want, "{ctx}");
            assert_eq!(s.possible_firsts(&order), want, "{ctx}");
        }
        exercised!(several > 100, "too few split instances: {several}");
        exercised!(nonempty > 200, "too few with a first position: {nonempty}");
    }
}
