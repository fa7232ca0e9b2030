//! Enumerating the distinct projections of the models, in order.
//!
//! Each model found is blocked on the projection (a clause saying "differ
//! from it somewhere"), so every projection appears once. The blocking
//! clauses are guarded by a fresh literal assumed during enumeration and
//! made false at the end, which leaves the clauses' models as they were.
//! Each model is the lexicographically smallest one left (false before
//! true, in projection order), so the list is sorted and does not depend on
//! the backend's search.
//!
//! Each search walks the whole problem, and on a template of many
//! independent components each finds the next projection position by
//! position: quadratic. On a split problem ([`Split::enumerate`]) the
//! projections are combinations of one per part, and the next one after
//! `x` changes `x` first at the last position where some part can (its
//! part's next projection after its share of `x`); the parts with later
//! positions then take their smallest projection after the fixed prefix.
//! Each part keeps that last position until its share changes.

use crate::part_counts::{Shares, Slot};
use crate::split::Split;
use crate::{Lit, Solver};

/// The result of [`Solver::enumerate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enumeration {
    /// The distinct values of the projection literals in the models, in
    /// lexicographic order (`false < true`, earlier literals first).
    pub models: Vec<Vec<bool>>,
    /// Whether `models` holds all of them (`false`: the limit stopped it).
    pub complete: bool,
}

impl Solver {
    /// Up to `limit` distinct values of `projection` in the models, the
    /// smallest first (see the module documentation).
    ///
    /// The models of the clauses do not change, but the solver keeps one new
    /// variable (fixed false) and the blocking clauses it satisfies; the
    /// current model may change.
    pub fn enumerate(&mut self, projection: &[Lit], limit: usize) -> Enumeration {
        if !self.ensure_model() {
            return Enumeration {
                models: Vec::new(),
                complete: true,
            };
        }
        let guard = self.new_var();
        let mut models = Vec::new();
        let complete = loop {
            if !self.prefer_false_assuming_on_order(&[guard], projection) {
                break true;
            }
            if models.len() == limit {
                break false;
            }
            let model: Vec<bool> = projection.iter().map(|&l| self.value(l)).collect();
            let mut block = Vec::with_capacity(projection.len() + 1);
            block.push(!guard);
            block.extend(
                projection
                    .iter()
                    .zip(&model)
                    .map(|(&l, &v)| if v { !l } else { l }),
            );
            self.add_clause(&block);
            models.push(model);
        };
        self.require(!guard);
        Enumeration { models, complete }
    }
}

impl Split {
    /// [`Solver::enumerate`] of the split problem, each search asked of
    /// one part (the module documentation).
    pub fn enumerate(&mut self, projection: &[Lit], limit: usize) -> Enumeration {
        if !self.satisfiable() {
            return Enumeration {
                models: Vec::new(),
                complete: true,
            };
        }
        let shares = Shares::new(self, projection);
        let n = shares.parts.len();
        // Per part: the global positions of its share.
        let mut positions: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (at, slot) in shares.slots.iter().enumerate() {
            if let Slot::In(i, _) = *slot {
                positions[i].push(at);
            }
        }
        let mut x: Vec<bool> = shares
            .slots
            .iter()
            .map(|slot| matches!(slot, Slot::Const(true)))
            .collect();
        // Every part's smallest share first.
        for (i, at) in positions.iter().enumerate() {
            self.complete_from(&shares, at, i, (0, None), &mut x);
        }
        // Per part: the last position its next share changes (`None`: its
        // share is its largest), where known.
        let mut last: Vec<Option<Option<usize>>> = vec![None; n];
        let mut models = Vec::new();
        loop {
            if models.len() == limit {
                return Enumeration {
                    models,
                    complete: false,
                };
            }
            models.push(x.clone());
            for (i, slot) in last.iter_mut().enumerate() {
                if slot.is_none() {
                    *slot = Some(self.last_change(&shares, &positions[i], i, &x));
                }
            }
            // The part that changes last, and where.
            let Some((j, p)) = (last.iter().enumerate())
                .filter_map(|(i, d)| d.flatten().map(|j| (j, i)))
                .max()
            else {
                return Enumeration {
                    models,
                    complete: true,
                };
            };
            for i in 0..n {
                let from = positions[i].partition_point(|&at| at < j);
                if from == positions[i].len() {
                    continue;
                }
                let flip = (i == p).then_some(from);
                let before: Vec<bool> = positions[i].iter().map(|&at| x[at]).collect();
                self.complete_from(&shares, &positions[i], i, (from, flip), &mut x);
                if positions[i].iter().zip(&before).any(|(&at, &b)| x[at] != b) {
                    last[i] = None;
                }
            }
        }
    }

    /// Part `i`'s smallest share that keeps `x` before its `from`-th
    /// position (and makes that position true if `flip` says so), written
    /// into `x`.
    fn complete_from(
        &mut self,
        shares: &Shares,
        positions: &[usize],
        i: usize,
        (from, flip): (usize, Option<usize>),
        x: &mut [bool],
    ) {
        let share = &shares.of_part[i];
        let mut base: Vec<Lit> = (share[..from].iter().zip(positions))
            .map(|(&l, &at)| if x[at] { l } else { !l })
            .collect();
        base.extend(flip.map(|k| share[k]));
        let sat = &mut self.part_mut(shares.parts[i]).sat;
        if sat.prefer_false_assuming_on_order(&base, share) {
            for (&l, &at) in share.iter().zip(positions) {
                x[at] = sat.value(l);
            }
        }
        sat.release_backend();
    }

    /// The last of part `i`'s positions at which some share of it agrees
    /// with `x` before it and is true where `x` is false.
    fn last_change(
        &mut self,
        shares: &Shares,
        positions: &[usize],
        i: usize,
        x: &[bool],
    ) -> Option<usize> {
        let share = &shares.of_part[i];
        let fixed: Vec<Lit> = (share.iter().zip(positions))
            .map(|(&l, &at)| if x[at] { l } else { !l })
            .collect();
        let sat = &mut self.part_mut(shares.parts[i]).sat;
        let found = (0..share.len()).rev().find(|&k| {
            if x[positions[k]] {
                return false;
            }
            let mut assumptions = fixed[..k].to_vec();
            assumptions.push(share[k]);
            sat.solve_raw(&assumptions)
        });
        sat.release_backend();
        found.map(|k| positions[k])
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        blocks_instance, eval_lit, exercised, models, random_instance, random_lit, Rng,
    };
    use crate::Lit;
    use std::collections::BTreeSet;

    #[test]
    fn enumeration_matches_brute_force() {
        let mut rng = Rng::new(17);
        for round in 0..300 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 14, (2, 1));
            let n = vars.len();
            let projection: Vec<Lit> = (0..rng.below(n as u64 + 2))
                .map(|_| {
                    let v = vars[rng.below(n as u64) as usize];
                    if rng.below(3) == 0 {
                        !v
                    } else {
                        v
                    }
                })
                .collect();
            let all: BTreeSet<Vec<bool>> = models(&vars, &cnf)
                .iter()
                .map(|m| projection.iter().map(|&l| eval_lit(l, &vars, m)).collect())
                .collect();
            let all: Vec<Vec<bool>> = all.into_iter().collect();
            let limit = rng.below(all.len() as u64 + 3) as usize;
            let got = s.enumerate(&projection, limit);
            let want = &all[..limit.min(all.len())];
            assert_eq!(got.models, want, "round {round}");
            assert_eq!(got.complete, limit >= all.len(), "round {round}");
            // The models of the clauses are unchanged.
            let again = s.enumerate(&projection, usize::MAX);
            assert_eq!(again.models, all, "round {round}");
            assert!(again.complete);
        }
    }

    /// Instances of independent blocks, some literals fixed at level 0:
    /// the split problem enumerates what the whole one does.
    #[test]
    fn enumeration_part_by_part_matches_the_whole_problem() {
        let mut rng = Rng::new(19);
        let (mut several, mut cut) = (0, 0);
        for round in 0..700 {
            let (mut s, vars, cnf) = blocks_instance(&mut rng);
            for c in &cnf {
                s.add_clause(c);
            }
            let truth = s.truth();
            let projection: Vec<Lit> = (0..rng.below(vars.len() as u64 + 3))
                .map(|_| match rng.below(12) {
                    0 => truth,
                    1 => !truth,
                    _ => random_lit(&mut rng, &vars),
                })
                .collect();
            let limit = rng.below(12) as usize;
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            let got = split.enumerate(&projection, limit);
            let want = s.enumerate(&projection, limit);
            assert_eq!(
                got, want,
                "round {round}: cnf {cnf:?} projection {projection:?}"
            );
            cut += usize::from(!want.complete && !want.models.is_empty());
        }
        exercised!(several > 100, "too few split instances: {several}");
        exercised!(cut > 50, "too few enumerations cut by the limit: {cut}");
    }
}
