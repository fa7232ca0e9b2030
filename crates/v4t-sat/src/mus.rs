//! Minimal unsatisfiable cores over assumption literals.
//!
//! A caller that wants to explain *why* a problem has no solution guards
//! each part it can name (a condition, a constraint, an input value) by an
//! assumption literal (`guard -> part`) and asks which guards conflict.
//! The backend's final conflict gives some unsatisfiable subset; deletion
//! shrinks it to a subset-minimal one: drop one assumption, and if the rest
//! is still unsatisfiable continue with the (smaller) core of that solve,
//! otherwise the dropped assumption is necessary. An assumption found
//! necessary stays necessary in every smaller unsatisfiable subset, so each
//! assumption is tested at most once.

use crate::{Lit, Solver};

impl Solver {
    /// A subset-minimal list of `assumptions` that is unsatisfiable together
    /// with the clauses, in the order of `assumptions` (empty if the clauses
    /// alone are unsatisfiable); `None` if all of them are satisfiable together.
    ///
    /// Removing any one literal of the result makes it satisfiable. The
    /// clauses do not change; the current model may.
    pub fn minimal_core(&mut self, assumptions: &[Lit]) -> Option<Vec<Lit>> {
        let mut core: Vec<Lit> = Vec::with_capacity(assumptions.len());
        for &l in assumptions {
            if l != self.truth && !core.contains(&l) {
                core.push(l);
            }
        }
        if self.solve_raw(&core) {
            return None;
        }
        self.keep_core(&mut core);
        let mut necessary = 0;
        let mut candidate = Vec::with_capacity(core.len());
        while necessary < core.len() {
            candidate.clear();
            candidate.extend_from_slice(&core[..necessary]);
            candidate.extend_from_slice(&core[necessary + 1..]);
            if self.solve_raw(&candidate) {
                necessary += 1;
            } else {
                self.keep_core(&mut candidate);
                std::mem::swap(&mut core, &mut candidate);
            }
        }
        Some(core)
    }

    /// Keeps the literals of `list` that the last failed solve's core names.
    fn keep_core(&self, list: &mut Vec<Lit>) {
        list.retain(|l| self.core.binary_search(l).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{exercised, random_cnf, Rng};
    use crate::{Lit, Solver};

    fn satisfiable(s: &mut Solver, assumptions: &[Lit]) -> bool {
        s.solve(assumptions)
    }

    /// Random CNFs and random assumption sets: the core is unsatisfiable,
    /// a subset of the assumptions, and minimal (each literal removed makes
    /// it satisfiable); `None` exactly when the assumptions are satisfiable.
    #[test]
    fn minimal_cores_are_unsatisfiable_and_minimal() {
        let mut rng = Rng::new(606);
        let mut nonempty = 0;
        for round in 0..400 {
            let mut s = Solver::new();
            let n = 2 + rng.below(14) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = rng.below(2 * n as u64) as usize;
            let mut cnf = random_cnf(&mut rng, &vars, k);
            // Guarded clauses: guard -> clause, the guards as assumptions.
            let guards: Vec<Lit> = (0..1 + rng.below(8))
                .map(|_| {
                    let g = s.new_var();
                    let mut c = random_cnf(&mut rng, &vars, 1).remove(0);
                    c.push(!g);
                    cnf.push(c);
                    g
                })
                .collect();
            let mut copy = Solver::new();
            for _ in 1..s.num_vars() {
                copy.new_var();
            }
            for c in &cnf {
                s.add_clause(c);
                copy.add_clause(c);
            }
            let mut split = copy.split();
            let mut assumptions = guards.clone();
            assumptions.extend(random_cnf(&mut rng, &vars, 1).remove(0));
            let sat = satisfiable(&mut s, &assumptions);
            let split_core = split.minimal_core(&assumptions);
            let Some(core) = s.minimal_core(&assumptions) else {
                assert!(sat, "round {round}");
                assert_eq!(split_core, None, "round {round}");
                continue;
            };
            assert!(!sat, "round {round}");
            for core in [&core, &split_core.expect("unsatisfiable")] {
                assert!(
                    core.iter().all(|l| assumptions.contains(l)),
                    "round {round}"
                );
                assert!(!satisfiable(&mut s, core), "round {round}");
                for i in 0..core.len() {
                    let mut less = core.clone();
                    less.remove(i);
                    assert!(
                        satisfiable(&mut s, &less),
                        "round {round}: {core:?} without {i}"
                    );
                }
            }
            // In the order of the assumptions.
            let positions: Vec<usize> = core
                .iter()
                .map(|l| assumptions.iter().position(|a| a == l).expect("member"))
                .collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "round {round}");
            nonempty += usize::from(core.len() > 1);
        }
        exercised!(nonempty > 20, "too few interesting cores: {nonempty}");
    }

    #[test]
    fn cores_of_small_problems() {
        let mut s = Solver::new();
        let (a, b, c, d) = (s.new_var(), s.new_var(), s.new_var(), s.new_var());
        s.add_clause(&[!a, !b]);
        s.add_clause(&[!c, d]);
        assert_eq!(s.minimal_core(&[a, c, d]), None);
        assert_eq!(s.minimal_core(&[c, a, d, b, a]), Some(vec![a, b]));
        let t = s.truth();
        assert_eq!(s.minimal_core(&[t, c, !d]), Some(vec![c, !d]));
        assert_eq!(s.minimal_core(&[t, !t, a]), Some(vec![!t]));
        s.add_clause(&[]);
        assert_eq!(s.minimal_core(&[a]), Some(vec![]));
    }
}
