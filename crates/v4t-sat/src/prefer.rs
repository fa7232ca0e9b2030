//! Deterministic tie-breaking: the lexicographically smallest model.
//!
//! After optimisation many models may remain; which one the CDCL search finds
//! depends on its internal heuristics. `prefer_false` walks a caller-given
//! literal order and fixes each literal to `false` whenever that is still
//! possible, so the chosen model depends only on the clauses and the order.

use crate::{Lit, Solver};

impl Solver {
    /// Makes the current model the lexicographically smallest model of the current
    /// clauses with respect to `order` (`false < true`, earlier literals first).
    ///
    /// The choices are not permanent: only the stored model changes. Does nothing
    /// if the clauses are unsatisfiable (the stored model is then cleared).
    pub fn prefer_false(&mut self, order: &[Lit]) {
        self.prefer_false_assuming(&[], order);
    }

    /// [`Solver::prefer_false`] among the models in which all of `base` are
    /// true; `false` if there is none (the stored model is then cleared if
    /// `base` is empty, else kept).
    pub fn prefer_false_assuming(&mut self, base: &[Lit], order: &[Lit]) -> bool {
        let found = if base.is_empty() {
            self.ensure_model()
        } else {
            self.solve_raw(base)
        };
        if !found {
            return false;
        }
        self.propagate_units();
        let mut assumptions: Vec<Lit> = base.to_vec();
        for &lit in order {
            if self.fixed(lit).is_some() {
                continue;
            }
            if self.value(lit) {
                assumptions.push(!lit);
                if !self.solve_raw(&assumptions) {
                    assumptions.pop();
                    assumptions.push(lit);
                }
            } else {
                // The current model already satisfies the assumptions plus `!lit`.
                assumptions.push(!lit);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_cnf, Rng};
    use crate::{Lit, Solver};

    #[test]
    fn prefer_false_gives_lexicographic_minimum() {
        let mut rng = Rng::new(99);
        for round in 0..200 {
            let mut s = Solver::new();
            let n = 1 + rng.below(12) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = rng.below(3 * n as u64 + 1) as usize;
            let cnf = random_cnf(&mut rng, &vars, k);
            for c in &cnf {
                s.add_clause(c);
            }
            // A random order of random-polarity literals, possibly with repeats.
            let order: Vec<Lit> = (0..n + 2)
                .map(|_| {
                    let v = vars[rng.below(n as u64) as usize];
                    if rng.below(3) == 0 {
                        !v
                    } else {
                        v
                    }
                })
                .collect();
            let ms = models(&vars, &cnf);
            if round % 2 == 0 {
                // Also works without a prior solve.
                assert_eq!(s.solve(&[]), !ms.is_empty());
            }
            s.prefer_false(&order);
            if ms.is_empty() {
                assert!(!s.has_model());
                continue;
            }
            let key = |m: &Vec<bool>| -> Vec<bool> {
                order.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            let best = ms.iter().map(key).min().unwrap();
            let got: Vec<bool> = order.iter().map(|&l| s.value(l)).collect();
            assert_eq!(got, best, "round {round}");
            let model: Vec<bool> = vars.iter().map(|&v| s.value(v)).collect();
            assert!(ms.contains(&model));
        }
    }

    #[test]
    fn prefer_false_respects_optimum_constraints() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..5).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&xs[..3]);
        s.require(one);
        s.add_clause(&[xs[3], xs[4]]);
        assert!(s.solve(&[]));
        assert_eq!(s.maximize(&[(xs[3], 1), (xs[4], 1)]), Some(2));
        s.prefer_false(&xs);
        let got: Vec<bool> = xs.iter().map(|&x| s.value(x)).collect();
        assert_eq!(got, vec![false, false, true, true, true]);
        s.prefer_false(&[xs[2], xs[1]]);
        let got: Vec<bool> = xs.iter().map(|&x| s.value(x)).collect();
        assert_eq!(got, vec![true, false, false, true, true]);
        // Not permanent.
        assert!(s.solve(&[xs[1]]));
    }
}
