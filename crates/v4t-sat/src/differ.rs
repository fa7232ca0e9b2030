//! Whether some literals are determined by others (Padoa's method).
//!
//! Outputs are *determined* by some inputs when every two models that agree
//! on the inputs agree on the outputs too. Two copies of the clauses, an
//! "equal" literal per input variable (its two copies have the same value)
//! and a disjunction "some output differs" decide it with one solve:
//! assuming every input equal asks whether the outputs are determined,
//! leaving some inputs free asks whether changing only those can change
//! the outputs. The copies are built once ([`Solver::differ`]) for any
//! number of such questions. For v4t: whether the inputs decide every
//! element's presence, and whether one input can change the topology while
//! the others stay fixed.

use crate::{Lit, Solver};

/// Two copies of a problem for [`Differ::can_differ`] ([`Solver::differ`]).
#[derive(Debug)]
pub struct Differ {
    twice: Solver,
    /// Per input variable (of the original problem): "its copies are equal".
    equal: Vec<(u32, Lit)>,
    /// Some output differs between the copies.
    some_output: Lit,
}

impl Solver {
    /// The two copies of this problem for questions about `inputs` and
    /// `outputs` (signs are ignored; literals must come from this solver).
    /// This solver is unchanged.
    pub fn differ(&self, inputs: &[Lit], outputs: &[Lit]) -> Differ {
        let n = self.num_vars();
        let mut twice = Solver::new();
        for _ in 1..n {
            twice.new_var();
        }
        // The second copy of each variable (the constant is shared).
        let mut copy: Vec<u32> = vec![0];
        for _ in 1..n {
            copy.push(twice.new_var().var_index());
        }
        let second = |l: Lit| l.with_var(copy[l.var_index() as usize]);
        let mut start = 0;
        let mut clause = Vec::new();
        for &end in &self.clause_ends {
            let original = &self.clause_lits[start..end];
            start = end;
            twice.add_clause(original);
            clause.clear();
            clause.extend(original.iter().map(|&l| second(l)));
            twice.add_clause(&clause);
        }
        let mut equal: Vec<(u32, Lit)> = Vec::new();
        for l in inputs.iter().filter(|l| l.var_index() < n) {
            let v = l.var_index();
            if !equal.iter().any(|&(w, _)| w == v) {
                let a = Lit::from_var(v);
                let e = twice.iff(a, second(a));
                equal.push((v, e));
            }
        }
        let differences: Vec<Lit> = outputs
            .iter()
            .filter(|l| l.var_index() < n)
            .map(|&l| twice.xor(&[l, second(l)]))
            .collect();
        let some_output = twice.or(&differences);
        Differ {
            twice,
            equal,
            some_output,
        }
    }

    /// Whether two models exist that agree on the variables of `shared`
    /// and differ on at least one literal of `outputs`
    /// (`self.differ(shared, outputs).can_differ(&[])`).
    pub fn can_differ(&self, shared: &[Lit], outputs: &[Lit]) -> bool {
        self.differ(shared, outputs).can_differ(&[])
    }
}

impl Differ {
    /// Whether two models exist that agree on every input except those of
    /// `free` and differ on at least one output.
    pub fn can_differ(&mut self, free: &[Lit]) -> bool {
        let mut assumptions: Vec<Lit> = self
            .equal
            .iter()
            .filter(|&&(v, _)| !free.iter().any(|l| l.var_index() == v))
            .map(|&(_, e)| e)
            .collect();
        assumptions.push(self.some_output);
        self.twice.solve(&assumptions)
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_instance, random_lit, Rng};
    use crate::Lit;
    use std::collections::BTreeMap;

    #[test]
    fn can_differ_matches_brute_force() {
        let mut rng = Rng::new(91);
        for round in 0..400 {
            let (s, vars, cnf) = random_instance(&mut rng, 12, (2, 2));
            let n = vars.len();
            let pick = |rng: &mut Rng| -> Vec<Lit> {
                (0..rng.below(n as u64 + 1))
                    .map(|_| random_lit(rng, &vars))
                    .collect()
            };
            let inputs = pick(&mut rng);
            let outputs = pick(&mut rng);
            // Some inputs may differ too.
            let free: Vec<Lit> = inputs
                .iter()
                .copied()
                .filter(|_| rng.below(3) == 0)
                .collect();
            let shared: Vec<Lit> = inputs
                .iter()
                .copied()
                .filter(|l| !free.iter().any(|f| f.var_index() == l.var_index()))
                .collect();
            let ms = models(&vars, &cnf);
            let key = |m: &Vec<bool>, ls: &[Lit]| -> Vec<bool> {
                ls.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            // Models grouped by their shared values: some group has two
            // different output values.
            let want = |shared: &[Lit]| {
                let mut first: BTreeMap<Vec<bool>, Vec<bool>> = BTreeMap::new();
                ms.iter().any(|m| {
                    let out = key(m, &outputs);
                    *first.entry(key(m, shared)).or_insert_with(|| out.clone()) != out
                })
            };
            assert_eq!(
                s.can_differ(&inputs, &outputs),
                want(&inputs),
                "round {round}"
            );
            let mut differ = s.differ(&inputs, &outputs);
            assert_eq!(differ.can_differ(&free), want(&shared), "round {round}");
            assert_eq!(differ.can_differ(&[]), want(&inputs), "round {round}");
        }
    }
}
