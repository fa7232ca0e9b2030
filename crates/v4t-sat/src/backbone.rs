//! Backbones: which literals every model makes true, or false.
//!
//! For a product-line analysis these are the core (present in every
//! configuration) and dead (absent in every one) elements. Each literal is
//! decided by at most one solve: the current model is a witness for one
//! value of every literal, a solve forcing the other value either fails (the
//! literal is implied) or finds a model that also frees every other literal
//! it flips (model-based filtering). Literals fixed at level 0 need no solve,
//! also those fixed by what an earlier solve learnt.

use crate::{Lit, Solver};

/// What every model says about a literal ([`Solver::backbone`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Implied {
    /// True in every model.
    True,
    /// False in every model.
    False,
    /// True in some model and false in another.
    Free,
}

impl Solver {
    /// For each literal of `lits`: true in every model, false in every
    /// model, or free. `None` if the clauses are unsatisfiable.
    ///
    /// The clauses do not change; the current model may change to another
    /// model of them.
    pub fn backbone(&mut self, lits: &[Lit]) -> Option<Vec<Implied>> {
        if self.sat.is_none() {
            // Without a search backend yet: where propagation decides
            // every variable (a template without variability inputs), its
            // facts are the one model, and no backend is built.
            let facts = self.level0()?;
            if self.adopt_propagated(&facts) {
                let implied = |l: Lit| match self.value(l) {
                    true => Implied::True,
                    false => Implied::False,
                };
                return Some(lits.iter().map(|&l| implied(l)).collect());
            }
        }
        if !self.ensure_model() {
            return None;
        }
        self.propagate_units();
        let mut result: Vec<Option<Implied>> = lits
            .iter()
            .map(|&l| match self.fixed(l) {
                Some(true) => Some(Implied::True),
                Some(false) => Some(Implied::False),
                None => None,
            })
            .collect();
        // The value each open literal has in every model found so far.
        let witness: Vec<bool> = lits.iter().map(|&l| self.value(l)).collect();
        for i in 0..lits.len() {
            if result[i].is_some() {
                continue;
            }
            // A failed solve often leaves a fact that decides later
            // literals (each solve costs the backend time in the number of
            // variables, however quickly it fails).
            if let Some(b) = self.fixed(lits[i]) {
                result[i] = Some(if b { Implied::True } else { Implied::False });
                continue;
            }
            let other = if witness[i] { !lits[i] } else { lits[i] };
            if self.solve_raw(&[other]) {
                for (j, r) in result.iter_mut().enumerate() {
                    if r.is_none() && self.value(lits[j]) != witness[j] {
                        *r = Some(Implied::Free);
                    }
                }
            } else {
                result[i] = Some(if witness[i] {
                    Implied::True
                } else {
                    Implied::False
                });
            }
        }
        Some(
            result
                .into_iter()
                .map(|r| r.expect("every literal decided"))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Implied;
    use crate::testutil::{eval_lit, fixing, models, random_instance, random_lit, Rng};
    use crate::{Lit, Solver};

    fn brute_force(vars: &[Lit], ms: &[Vec<bool>], lits: &[Lit]) -> Vec<Implied> {
        lits.iter()
            .map(|&l| {
                let values: Vec<bool> = ms.iter().map(|m| eval_lit(l, vars, m)).collect();
                if values.iter().all(|&v| v) {
                    Implied::True
                } else if values.iter().all(|&v| !v) {
                    Implied::False
                } else {
                    Implied::Free
                }
            })
            .collect()
    }

    /// Random CNFs up to 16 variables, asked about random literals (both
    /// polarities, repeats), directly and through a split.
    #[test]
    fn backbones_match_brute_force() {
        let mut rng = Rng::new(4242);
        for round in 0..400 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 16, (3, 2));
            let n = vars.len();
            let lits: Vec<Lit> = (0..rng.below(2 * n as u64 + 1))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let ms = models(&vars, &cnf);
            let mut split = Solver::new();
            for _ in 0..n {
                split.new_var();
            }
            for c in &cnf {
                split.add_clause(c);
            }
            let mut split = split.split();
            if ms.is_empty() {
                assert_eq!(s.backbone(&lits), None, "round {round}");
                assert_eq!(split.backbone(&lits), None, "round {round}");
                continue;
            }
            let want = brute_force(&vars, &ms, &lits);
            assert_eq!(s.backbone(&lits).as_ref(), Some(&want), "round {round}");
            assert_eq!(split.backbone(&lits).as_ref(), Some(&want), "round {round}");
            // The clauses are unchanged: every model is still a model.
            let m = &ms[rng.below(ms.len() as u64) as usize];
            let assume = fixing(&vars, m);
            assert!(s.solve(&assume), "round {round}");
        }
    }

    #[test]
    fn propagated_problems_need_no_search_backend() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_var(), s.new_var(), s.new_var());
        s.require(a);
        s.add_clause(&[!a, !b]);
        s.add_clause(&[b, c]);
        use Implied::*;
        assert_eq!(
            s.backbone(&[a, b, c, !c]),
            Some(vec![True, False, True, False])
        );
        assert_eq!(
            s.count(&[], &[a, b, c], &Default::default()).value,
            1u64.into()
        );
        assert!(s.sat.is_none(), "no backend was built");
        // One open variable: the backend decides.
        let d = s.new_var();
        assert_eq!(s.backbone(&[d]), Some(vec![Free]));
    }

    #[test]
    fn fixed_and_constant_literals() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_var(), s.new_var(), s.new_var());
        s.require(a);
        s.add_clause(&[!a, b]);
        let t = s.truth();
        let got = s.backbone(&[a, !b, c, t, !t]).expect("satisfiable");
        use Implied::*;
        assert_eq!(got, vec![True, False, Free, True, False]);
        s.require(!b);
        assert_eq!(s.backbone(&[c]), None);
    }
}
