//! Variables that others define: a cheap, syntactic half of Padoa's
//! question ([`crate::differ`]).
//!
//! Every gate v4t encodes is a conjunction in some polarity (`or`, `iff`
//! and the presence definitions included): `g ↔ a_1 ∧ ... ∧ a_k` is the
//! clauses `¬g ∨ a_i` and `g ∨ ¬a_1 ∨ ... ∨ ¬a_k` (an equivalence is the
//! case `k = 1`). Wherever the clauses hold such a definition, `g` is a
//! function of the `a_i`: two models that agree on the `a_i` agree on `g`.
//! Starting from some variables (the inputs of the question), the
//! variables defined by them, by those, and so on, are determined by them;
//! so are the variables fixed at level 0. What this finds is always right;
//! what it misses (other gate shapes, definitions through several clauses
//! that are not of this form) is left to the search.

use crate::{Lit, Solver};

impl Solver {
    /// Per variable: whether it is determined by the variables of `base`
    /// through conjunction definitions in the clauses (see the module
    /// documentation), or fixed at level 0. The constant is determined.
    pub(crate) fn determined_by(&self, base: &[Lit]) -> Vec<bool> {
        let n = self.num_vars() as usize;
        let mut known = vec![false; n];
        known[0] = true;
        for l in base {
            if let Some(k) = known.get_mut(l.var_index() as usize) {
                *k = true;
            }
        }
        for (v, k) in known.iter_mut().enumerate() {
            *k |= self.fixed(Lit::from_var(v as u32)).is_some();
        }
        let binary = Binary::new(self, n);
        let defs = Definitions::find(self, &binary);
        defs.close(&mut known);
        known
    }
}

/// The binary clauses by literal: `partners(l)` are the literals `m` of the
/// clauses `l ∨ m`, sorted.
struct Binary {
    start: Vec<u32>,
    partners: Vec<Lit>,
}

impl Binary {
    fn new(s: &Solver, n: usize) -> Binary {
        let mut start = vec![0u32; 2 * n + 1];
        for clause in s.clauses.iter() {
            if let &[a, b] = clause {
                start[a.0 as usize + 1] += 1;
                start[b.0 as usize + 1] += 1;
            }
        }
        for i in 0..2 * n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut partners = vec![Lit(0); start[2 * n] as usize];
        for clause in s.clauses.iter() {
            if let &[a, b] = clause {
                for (x, y) in [(a, b), (b, a)] {
                    let slot = &mut fill[x.0 as usize];
                    partners[*slot as usize] = y;
                    *slot += 1;
                }
            }
        }
        for i in 0..2 * n {
            partners[start[i] as usize..start[i + 1] as usize].sort_unstable();
        }
        Binary { start, partners }
    }

    fn partners(&self, l: Lit) -> &[Lit] {
        let i = l.0 as usize;
        &self.partners[self.start[i] as usize..self.start[i + 1] as usize]
    }

    fn has(&self, a: Lit, b: Lit) -> bool {
        self.partners(a).binary_search(&b).is_ok()
    }
}

/// The conjunction definitions found: definition `d` makes variable
/// `output[d]` a function of the variables `inputs[start[d]..start[d + 1]]`.
struct Definitions {
    output: Vec<u32>,
    start: Vec<u32>,
    inputs: Vec<u32>,
}

impl Definitions {
    /// Every clause `g ∨ c_1 ∨ ... ∨ c_k` whose literal `g` has the binary
    /// clauses `¬g ∨ ¬c_i` for every `i` defines `g` by the `c_i`.
    fn find(s: &Solver, binary: &Binary) -> Definitions {
        let mut defs = Definitions {
            output: Vec::new(),
            start: vec![0],
            inputs: Vec::new(),
        };
        for clause in s.clauses.iter() {
            let k = clause.len().saturating_sub(1);
            if k == 0 {
                continue;
            }
            for &g in clause {
                // Cheap filter first: `¬g` needs k binary clauses.
                if binary.partners(!g).len() < k {
                    continue;
                }
                if clause.iter().all(|&c| c == g || binary.has(!g, !c)) {
                    defs.output.push(g.var_index());
                    let ins = clause.iter().filter(|&&c| c != g);
                    defs.inputs.extend(ins.map(|c| c.var_index()));
                    defs.start.push(defs.inputs.len() as u32);
                }
            }
        }
        defs
    }

    /// Extends `known` by every variable a definition makes a function of
    /// known variables, until nothing changes.
    fn close(&self, known: &mut [bool]) {
        let n = known.len();
        // Per definition, how many of its inputs are not known yet.
        let mut missing: Vec<u32> = (0..self.output.len())
            .map(|d| {
                let ins = &self.inputs[self.start[d] as usize..self.start[d + 1] as usize];
                ins.iter().filter(|&&v| !known[v as usize]).count() as u32
            })
            .collect();
        // The definitions each variable is an input of.
        let mut used_start = vec![0u32; n + 1];
        for &v in &self.inputs {
            used_start[v as usize + 1] += 1;
        }
        for v in 0..n {
            used_start[v + 1] += used_start[v];
        }
        let mut fill = used_start.clone();
        let mut used = vec![0u32; self.inputs.len()];
        for d in 0..self.output.len() {
            for &v in &self.inputs[self.start[d] as usize..self.start[d + 1] as usize] {
                used[fill[v as usize] as usize] = d as u32;
                fill[v as usize] += 1;
            }
        }
        let mut queue: Vec<u32> = Vec::new();
        for (d, &m) in missing.iter().enumerate() {
            let out = self.output[d] as usize;
            if m == 0 && !known[out] {
                known[out] = true;
                queue.push(out as u32);
            }
        }
        while let Some(v) = queue.pop() {
            let range = used_start[v as usize] as usize..used_start[v as usize + 1] as usize;
            for &d in &used[range] {
                let m = &mut missing[d as usize];
                *m -= 1;
                let out = self.output[d as usize] as usize;
                if *m == 0 && !known[out] {
                    known[out] = true;
                    queue.push(out as u32);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{assignments, random_lit, Rng};
    use crate::{Lit, Solver};

    /// Random gates (`and`, `or`, `define_and`, equivalences) over random
    /// inputs and each other, among random clauses: every variable found
    /// determined by the inputs takes one value per input assignment in
    /// the models (brute force).
    #[test]
    fn determined_variables_are_functions_of_the_base() {
        let mut rng = Rng::new(17);
        let mut found = 0;
        for round in 0..300 {
            let mut s = Solver::new();
            let mut vars: Vec<Lit> = (0..2 + rng.below(4)).map(|_| s.new_var()).collect();
            let inputs: Vec<Lit> = vars[..1 + rng.below(2) as usize].to_vec();
            for _ in 0..rng.below(7) {
                let xs: Vec<Lit> = (0..1 + rng.below(3))
                    .map(|_| random_lit(&mut rng, &vars))
                    .collect();
                let out = s.new_var();
                match rng.below(4) {
                    0 => s.require_equal(out, xs[0]),
                    1 => s.define_and(out, &xs),
                    2 => {
                        let g = s.or(&xs);
                        s.require_equal(out, g);
                    }
                    _ => {
                        let g = s.and(&xs);
                        s.add_clause(&[out, g]);
                    }
                }
                vars.push(out);
            }
            for _ in 0..rng.below(3) {
                let c: Vec<Lit> = (0..1 + rng.below(3))
                    .map(|_| random_lit(&mut rng, &vars))
                    .collect();
                s.add_clause(&c);
            }
            let known = s.determined_by(&inputs);
            let n = s.num_vars() as usize;
            let clauses: Vec<Vec<Lit>> = s.clauses().map(|c| c.to_vec()).collect();
            // Models over every variable (the constant true).
            let ms: Vec<Vec<bool>> = assignments(n - 1)
                .map(|bits| std::iter::once(true).chain(bits).collect::<Vec<bool>>())
                .filter(|m| {
                    let holds = |l: Lit| m[l.var_index() as usize] != l.is_negated();
                    clauses.iter().all(|c| c.iter().any(|&l| holds(l)))
                })
                .collect();
            for v in 0..n {
                let base = v == 0 || inputs.iter().any(|x| x.var_index() as usize == v);
                if !known[v] || base {
                    continue;
                }
                found += 1;
                for a in &ms {
                    for b in &ms {
                        let agree = inputs
                            .iter()
                            .all(|x| a[x.var_index() as usize] == b[x.var_index() as usize]);
                        assert!(
                            !agree || a[v] == b[v],
                            "round {round}: x{v} differs with equal inputs in {clauses:?}"
                        );
                    }
                }
            }
        }
        assert!(found > 300, "the test finds defined variables ({found})");
    }
}
