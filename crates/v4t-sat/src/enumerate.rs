//! Enumerating the distinct projections of the models, in order.
//!
//! Each model found is blocked on the projection (a clause saying "differ
//! from it somewhere"), so every projection appears once. The blocking
//! clauses are guarded by a fresh literal assumed during enumeration and
//! made false at the end, which leaves the clauses' models as they were.
//! Each model is the lexicographically smallest one left (false before
//! true, in projection order), so the list is sorted and does not depend on
//! the backend's search.

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

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_instance, Rng};
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
}
