//! Whether some literals are determined by others (Padoa's method).
//!
//! Outputs are *determined* by a set of shared literals when every two
//! models that agree on the shared literals agree on the outputs too. A
//! second copy of the clauses, sharing only the variables of the shared
//! literals with the first, and a disjunction "some output differs"
//! decide it with one solve. For v4t: whether the inputs decide every
//! element's presence (then every configuration has exactly one topology,
//! and counting topologies counts what resolution produces), and whether
//! one input can change the topology while the others stay fixed.

use crate::{Lit, Solver};

impl Solver {
    /// Whether two models exist that agree on the variables of `shared`
    /// and differ on at least one literal of `outputs`.
    ///
    /// Builds a separate solver of twice the clauses; this one is unchanged.
    pub fn can_differ(&self, shared: &[Lit], outputs: &[Lit]) -> bool {
        let n = self.num_vars();
        let mut twice = Solver::new();
        for _ in 1..n {
            twice.new_var();
        }
        // The second copy's variable of each variable (shared ones and the
        // constant map to themselves).
        let mut copy: Vec<u32> = (0..n).collect();
        let mut is_shared = vec![false; n as usize];
        is_shared[0] = true;
        for l in shared {
            if let Some(s) = is_shared.get_mut(l.var_index() as usize) {
                *s = true;
            }
        }
        for v in 1..n {
            if !is_shared[v as usize] {
                copy[v as usize] = twice.new_var().var_index();
            }
        }
        let mut start = 0;
        let mut clause = Vec::new();
        for &end in &self.clause_ends {
            let original = &self.clause_lits[start..end];
            start = end;
            twice.add_clause(original);
            clause.clear();
            clause.extend(
                original
                    .iter()
                    .map(|&l| l.with_var(copy[l.var_index() as usize])),
            );
            twice.add_clause(&clause);
        }
        let differences: Vec<Lit> = outputs
            .iter()
            .filter(|l| l.var_index() < n)
            .map(|&l| {
                let other = l.with_var(copy[l.var_index() as usize]);
                twice.xor(&[l, other])
            })
            .collect();
        let some = twice.or(&differences);
        twice.solve(&[some])
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_cnf, random_lit, Rng};
    use crate::{Lit, Solver};

    #[test]
    fn can_differ_matches_brute_force() {
        let mut rng = Rng::new(91);
        for round in 0..400 {
            let mut s = Solver::new();
            let n = 1 + rng.below(12) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = rng.below(2 * n as u64 + 2) as usize;
            let cnf = random_cnf(&mut rng, &vars, k);
            for c in &cnf {
                s.add_clause(c);
            }
            let pick = |rng: &mut Rng| -> Vec<Lit> {
                (0..rng.below(n as u64 + 1))
                    .map(|_| random_lit(rng, &vars))
                    .collect()
            };
            let shared = pick(&mut rng);
            let outputs = pick(&mut rng);
            let ms = models(&vars, &cnf);
            let key = |m: &Vec<bool>, ls: &[Lit]| -> Vec<bool> {
                ls.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            let want = ms.iter().any(|a| {
                ms.iter().any(|b| {
                    key(a, &shared) == key(b, &shared) && key(a, &outputs) != key(b, &outputs)
                })
            });
            assert_eq!(s.can_differ(&shared, &outputs), want, "round {round}");
        }
    }
}
