//! Satisfiability under switches, searched near the assumptions
//! ([`Split::solve_switched`]).
//!
//! A *switch* is a variable that occurs in clauses only negated: a guard
//! `g` of clauses `!g | …` (`g -> …`). A switch that is not assumed is off
//! (false), which satisfies its clauses, so they drop out. Of what
//! remains, only the part connected to the assumptions matters, and a gate
//! (a fresh variable `g <-> f(inputs)`) that nothing reaches can always take
//! the value of its inputs: its definition is followed from the gate to
//! its inputs, never back. So a question about the neighbourhood of a few
//! elements searches that neighbourhood, not the whole problem:
//!
//! * start from the assumed variables, the clauses of the assumed switches
//!   (those whose switches are all on) and the clauses that are always on
//!   (no switch, not a definition);
//! * take in every clause of a reached variable that is always on or
//!   switched on, and the definition of a reached gate;
//! * solve those clauses under the assumptions on a small solver of their
//!   own.
//!
//! Exact: a model of the clauses taken in extends to every clause by
//! setting the switches that are off to false and every gate not reached
//! to the value of its inputs (gates are defined over older variables, so
//! in variable order), every other variable not reached taking any value.

use crate::{Lit, Solver, NO_GATE};

/// A part's clauses indexed by variable for [`Near::solve`].
#[derive(Debug)]
pub(crate) struct Near {
    /// How many clauses are indexed (a part that has gained clauses since
    /// is indexed again).
    clauses: usize,
    /// Whether each variable is a switch.
    switch: Vec<bool>,
    /// The clauses that are always on: no switch, no definition.
    always: Vec<u32>,
    /// By variable (`start[v]..start[v + 1]` in `list`): the clauses of a
    /// switch, or the definition of a gate.
    start: Vec<u32>,
    list: Vec<u32>,
    /// Visit stamps of variables and clauses, and the current stamp.
    var_seen: Vec<u32>,
    clause_seen: Vec<u32>,
    on: Vec<u32>,
    stamp: u32,
    /// The small solver's variable of each visited variable.
    sub_var: Vec<u32>,
}

impl Near {
    /// Indexes the clauses of `sat`, whose switches `is_switch` tells (a
    /// variable that occurs positively is not one).
    pub(crate) fn build(sat: &Solver, is_switch: impl Fn(u32) -> bool) -> Near {
        let n = sat.num_vars() as usize;
        let mut switch: Vec<bool> = (0..n as u32).map(is_switch).collect();
        for &l in &sat.clause_lits {
            if !l.is_negated() {
                switch[l.var_index() as usize] = false;
            }
        }
        let clauses = sat.clause_ends.len();
        let mut always = Vec::new();
        let mut owners: Vec<(u32, u32)> = Vec::new();
        for c in 0..clauses {
            let gate = sat.clause_gate(c);
            if gate != NO_GATE {
                owners.push((gate, c as u32));
                continue;
            }
            let mut switched = false;
            for l in clause(sat, c) {
                if switch[l.var_index() as usize] {
                    owners.push((l.var_index(), c as u32));
                    switched = true;
                }
            }
            if !switched {
                always.push(c as u32);
            }
        }
        let mut start = vec![0u32; n + 1];
        for &(v, _) in &owners {
            start[v as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; owners.len()];
        for (v, c) in owners {
            list[fill[v as usize] as usize] = c;
            fill[v as usize] += 1;
        }
        Near {
            clauses,
            switch,
            always,
            start,
            list,
            var_seen: vec![0; n],
            clause_seen: vec![0; clauses],
            on: vec![0; n],
            stamp: 0,
            sub_var: vec![0; n],
        }
    }

    /// Whether the index covers every clause of `sat`.
    pub(crate) fn is_current(&self, sat: &Solver) -> bool {
        self.clauses == sat.clause_ends.len() && self.switch.len() == sat.num_vars() as usize
    }

    /// Whether the clauses of `sat` have a model with `lits` true and every
    /// switch not among them false, given that they have one with every
    /// switch false (see the module documentation).
    pub(crate) fn solve(&mut self, sat: &Solver, lits: &[Lit]) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.var_seen.fill(0);
            self.clause_seen.fill(0);
            self.on.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        for &l in lits {
            if !l.is_negated() {
                self.on[l.var_index() as usize] = stamp;
            }
        }
        let mut vars: Vec<u32> = Vec::new();
        let mut taken: Vec<u32> = Vec::new();
        let mut next = 1u32;
        // The constant of the part is the small solver's constant.
        self.var_seen[0] = stamp;
        self.sub_var[0] = 0;
        let mut visit = |near: &mut Near, v: u32, vars: &mut Vec<u32>| {
            if near.var_seen[v as usize] != stamp {
                near.var_seen[v as usize] = stamp;
                near.sub_var[v as usize] = next;
                next += 1;
                vars.push(v);
            }
        };
        for &l in lits {
            visit(self, l.var_index(), &mut vars);
        }
        let mut pending: Vec<u32> = self.always.clone();
        loop {
            for c in std::mem::take(&mut pending) {
                if self.clause_seen[c as usize] == stamp {
                    continue;
                }
                self.clause_seen[c as usize] = stamp;
                taken.push(c);
                for l in clause(sat, c as usize) {
                    visit(self, l.var_index(), &mut vars);
                }
            }
            let Some(v) = vars.pop() else {
                break;
            };
            let owned = self.start[v as usize] as usize..self.start[v as usize + 1] as usize;
            if !self.switch[v as usize] {
                pending.extend_from_slice(&self.list[owned]);
            } else if self.on[v as usize] == stamp {
                // A clause of several switches is on when all of them are.
                for &c in &self.list[owned] {
                    let all_on = clause(sat, c as usize).iter().all(|l| {
                        !self.switch[l.var_index() as usize]
                            || self.on[l.var_index() as usize] == stamp
                    });
                    if all_on {
                        pending.push(c);
                    }
                }
            }
        }
        let mut small = Solver::new();
        for _ in 1..next {
            small.new_var();
        }
        let map = |near: &Near, l: Lit| l.with_var(near.sub_var[l.var_index() as usize]);
        taken.sort_unstable();
        let mut buf = Vec::new();
        for c in taken {
            buf.clear();
            buf.extend(clause(sat, c as usize).iter().map(|&l| map(self, l)));
            small.add_clause(&buf);
        }
        let assumptions: Vec<Lit> = lits.iter().map(|&l| map(self, l)).collect();
        small.solve(&assumptions)
    }
}

/// Clause `c` of `sat`.
fn clause(sat: &Solver, c: usize) -> &[Lit] {
    let start = if c == 0 { 0 } else { sat.clause_ends[c - 1] };
    &sat.clause_lits[start..sat.clause_ends[c]]
}

#[cfg(test)]
mod tests {
    use crate::{Lit, Solver};

    /// `solve_switched` answers as `solve` with the switches not assumed
    /// assumed false, on random guarded problems over gates, with the
    /// gate definitions recorded (every other problem) or not.
    #[test]
    fn switched_answers_match_full_solving() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            let mut s = Solver::new();
            if round % 2 == 0 {
                s.record_gates();
            }
            let vars: Vec<Lit> = (0..8).map(|_| s.new_var()).collect();
            let mut pool = vars.clone();
            for _ in 0..6 {
                let a = pool[rand(pool.len() as u64) as usize];
                let b = pool[rand(pool.len() as u64) as usize];
                let g = match rand(3) {
                    0 => s.and(&[a, !b]),
                    1 => s.or(&[a, b]),
                    _ => s.xor(&[a, b]),
                };
                pool.push(g);
            }
            // One unguarded clause, several guarded ones.
            let x = pool[rand(pool.len() as u64) as usize];
            let y = pool[rand(pool.len() as u64) as usize];
            s.add_clause(&[x, !y]);
            let mut guards = Vec::new();
            for _ in 0..6 {
                let g = s.new_var();
                let a = pool[rand(pool.len() as u64) as usize];
                let b = pool[rand(pool.len() as u64) as usize];
                let a = if rand(2) == 0 { a } else { !a };
                s.add_clause(&[!g, a, b]);
                guards.push(g);
            }
            let mut copy = Solver::new();
            for _ in 1..s.num_vars() {
                copy.new_var();
            }
            for c in s.clauses() {
                copy.add_clause(c);
            }
            let mut split = s.split();
            if !split.satisfiable() {
                continue;
            }
            split.declare_switches(&guards);
            for _ in 0..8 {
                let mut on = Vec::new();
                let mut full = Vec::new();
                for &g in &guards {
                    if rand(2) == 0 {
                        on.push(g);
                        full.push(g);
                    } else {
                        full.push(!g);
                    }
                }
                let extra = pool[rand(pool.len() as u64) as usize];
                let extra = if rand(2) == 0 { extra } else { !extra };
                on.push(extra);
                full.push(extra);
                assert_eq!(split.solve_switched(&on), copy.solve(&full));
            }
        }
    }
}
