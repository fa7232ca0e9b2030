//! The models in which each literal of a list is the first to hold,
//! counted and with the smallest of them, part by part.
//!
//! `analyze` groups failing configurations by the first check they
//! violate, and reports each group's number of configurations and its
//! smallest one. Asked of the whole problem, each group's count and search
//! walk every part, and each group's literal ("the first violation is one
//! of these") ties all parts together: on a template of many components
//! that each fail a check of their own, quadratic at best. Here the list is
//! walked in order: the `i`-th event is "`lits[i]` holds, no earlier one
//! does", so after asking about `lits[i]` it is fixed false
//! ([`Extensions::fix`]). Each count asks the literal's part alone, and the
//! smallest model of a product of parts is the product of each part's
//! smallest one, so each part keeps its smallest model under its fixed
//! literals and only the literal's part searches again (the others once
//! another part's question needs them: [`Stale`]).

use crate::count::{Count, CountBudget};
use crate::part_counts::{Extensions, Shares, Slot, Stale};
use crate::split::{by_part, Place};
use crate::{Lit, Solver, Split};

/// The models in which one literal of a list is the first to hold
/// ([`Split::first_events`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstEvent {
    /// Their number, projected onto the projection (as
    /// [`crate::Solver::count`]).
    pub count: Count,
    /// The projection's values in the smallest of them (lexicographically
    /// over the projection, `false < true`, as
    /// [`crate::Solver::prefer_false_assuming_on_order`]); `None` if there
    /// is none.
    pub smallest: Option<Vec<bool>>,
}

impl Split {
    /// For each of `lits` in turn, the models in which it holds and no
    /// earlier one of `lits` does: their number projected onto
    /// `projection`, and the smallest of them over `projection`. Each
    /// question asks the literal's part alone.
    pub fn first_events(
        &mut self,
        lits: &[Lit],
        projection: &[Lit],
        budget: &CountBudget,
    ) -> Vec<FirstEvent> {
        if lits.is_empty() {
            return Vec::new();
        }
        let mut extensions = self.extensions(projection, budget);
        let n = extensions.shares.parts.len();
        // Each live part's smallest model under its fixed literals, searched
        // once another part's event needs it and again after a fix.
        let mut smallest: Vec<Option<Vec<bool>>> = vec![None; n];
        let mut stale = Stale::new(n);
        (0..n).for_each(|j| stale.mark(j));
        let mut events = Vec::with_capacity(lits.len());
        for &lit in lits {
            let count = extensions.count_with(lit);
            let place = match extensions.split.place(lit) {
                Place::In(p, l) => Some((extensions.shares.index(p), l)),
                Place::Const(_) => None,
            };
            let found = if (count.exact && count.value.is_zero()) || extensions.none {
                None
            } else {
                let own = place.map(|(i, _)| i);
                for j in stale.take_except(own) {
                    smallest[j] = extensions.smallest_in(j, None);
                }
                match place {
                    None => assemble(&extensions.shares.slots, &smallest, None),
                    Some((i, l)) => extensions.smallest_in(i, Some(l)).and_then(|values| {
                        assemble(&extensions.shares.slots, &smallest, Some((i, &values)))
                    }),
                }
            };
            events.push(FirstEvent {
                count,
                smallest: found,
            });
            extensions.fix(!lit);
            if let Some((i, _)) = place {
                stale.mark(i);
            }
        }
        events
    }

    /// The smallest model (over `projection`, as in [`FirstEvent`]) in
    /// which some of `lits` holds: the smallest of each part's smallest
    /// model in which one of its literals holds, the other parts taking
    /// their smallest model. One search per part with literals.
    pub fn smallest_of_any(&mut self, lits: &[Lit], projection: &[Lit]) -> Option<Vec<bool>> {
        if !self.satisfiable() {
            return None;
        }
        let shares = Shares::new(self, projection);
        let mut local = Vec::new();
        let mut always = false;
        for &lit in lits {
            match self.place(lit) {
                Place::Const(b) => always |= b,
                Place::In(p, l) => local.push((p, l)),
            }
        }
        // Each part's smallest model, searched once another part needs it.
        let n = shares.parts.len();
        let mut smallest: Vec<Option<Vec<bool>>> = vec![None; n];
        let mut unsearched = Stale::new(n);
        (0..n).for_each(|j| unsearched.mark(j));
        let mut search = |split: &mut Split, smallest: &mut [Option<Vec<bool>>], own| {
            for j in unsearched.take_except(own) {
                let sat = &mut split.part_mut(shares.parts[j]).sat;
                smallest[j] = smallest_model(sat, &[], &shares.of_part[j]);
            }
        };
        let mut best = None;
        if always {
            search(self, &mut smallest, None);
            best = assemble(&shares.slots, &smallest, None);
        }
        for (p, any) in by_part(local) {
            let i = shares.index(p);
            let sat = &mut self.part_mut(p).sat;
            // "One of `any` holds", behind a fresh literal assumed true.
            let guard = sat.new_var();
            let mut clause = any;
            clause.push(!guard);
            sat.add_clause(&clause);
            let own = smallest_model(sat, &[guard], &shares.of_part[i]);
            sat.add_clause(&[!guard]);
            let Some(own) = own else { continue };
            search(self, &mut smallest, Some(i));
            let candidate = assemble(&shares.slots, &smallest, Some((i, &own)));
            if candidate.is_some() && (best.is_none() || candidate < best) {
                best = candidate;
            }
        }
        best
    }
}

/// The projection's values from each part's smallest model, part `i`'s
/// replaced by `own`; `None` if some part has none.
fn assemble(
    slots: &[Slot],
    smallest: &[Option<Vec<bool>>],
    own: Option<(usize, &[bool])>,
) -> Option<Vec<bool>> {
    slots
        .iter()
        .map(|&slot| match slot {
            Slot::Const(b) => Some(b),
            Slot::In(i, k) => match own {
                Some((j, values)) if j == i => Some(values[k]),
                _ => smallest[i].as_ref().map(|values| values[k]),
            },
        })
        .collect()
}

/// The smallest model of `sat` in which `base` holds, as the values of
/// `share`.
fn smallest_model(sat: &mut Solver, base: &[Lit], share: &[Lit]) -> Option<Vec<bool>> {
    let found = sat.prefer_false_assuming_on_order(base, share);
    let values = found.then(|| share.iter().map(|&l| sat.value(l)).collect());
    sat.release_backend();
    values
}

impl Extensions<'_> {
    /// The smallest model of live part `i` under its fixed literals and
    /// `extra`, as the values of its share of the projection.
    fn smallest_in(&mut self, i: usize, extra: Option<Lit>) -> Option<Vec<bool>> {
        let sat = &mut self.split.part_mut(self.shares.parts[i]).sat;
        let fixed = &mut self.fixed[i];
        fixed.extend(extra);
        let values = smallest_model(sat, fixed, &self.shares.of_part[i]);
        if extra.is_some() {
            fixed.pop();
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use crate::natural::Natural;
    use crate::testutil::{blocks_instance, eval_lit, exercised, models, random_lit, Rng};
    use crate::{CountBudget, Lit};
    use std::collections::BTreeSet;

    /// Instances of independent blocks, some literals fixed at level 0:
    /// each event's count and smallest model, and the smallest model in
    /// which any of the literals holds, equal brute force.
    #[test]
    fn first_events_match_brute_force() {
        let mut rng = Rng::new(67);
        let (mut several, mut found, mut empty) = (0, 0, 0);
        for round in 0..600 {
            let (mut s, vars, cnf) = blocks_instance(&mut rng);
            for c in &cnf {
                s.add_clause(c);
            }
            let n = vars.len() as u64;
            let projection: Vec<Lit> = (0..rng.below(n + 1))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let truth = s.truth();
            let lits: Vec<Lit> = (0..1 + rng.below(6))
                .map(|_| match rng.below(12) {
                    0 => truth,
                    1 => !truth,
                    _ => random_lit(&mut rng, &vars),
                })
                .collect();
            let all = models(&vars, &cnf);
            let holds = |l: Lit, m: &[bool]| l == truth || (l != !truth && eval_lit(l, &vars, m));
            let image =
                |m: &Vec<bool>| -> Vec<bool> { projection.iter().map(|&l| holds(l, m)).collect() };
            let ctx = format!("round {round}: lits {lits:?} cnf {cnf:?} projection {projection:?}");
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            let events = split.first_events(&lits, &projection, &CountBudget::default());
            assert_eq!(events.len(), lits.len());
            for (i, event) in events.iter().enumerate() {
                let images: BTreeSet<Vec<bool>> = (all.iter())
                    .filter(|m| holds(lits[i], m) && !lits[..i].iter().any(|&l| holds(l, m)))
                    .map(image)
                    .collect();
                assert!(event.count.exact, "{ctx}");
                let want = Natural::from(images.len() as u64);
                assert_eq!(event.count.value, want, "event {i} {ctx}");
                assert_eq!(event.smallest.as_ref(), images.first(), "event {i} {ctx}");
                found += usize::from(event.smallest.is_some());
                empty += usize::from(event.smallest.is_none());
            }
            let any = (all.iter())
                .filter(|m| lits.iter().any(|&l| holds(l, m)))
                .map(image)
                .min();
            let got = s.split_copy().smallest_of_any(&lits, &projection);
            assert_eq!(got, any, "any: {ctx}");
        }
        exercised!(several > 100, "too few split instances: {several}");
        assert!(found > 500 && empty > 100, "found {found}, empty {empty}");
    }
}
