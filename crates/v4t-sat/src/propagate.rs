//! Level-0 unit propagation on the clause store, without a search backend.
//!
//! [`Solver::split`] needs the facts implied by unit propagation before it can
//! drop them and partition the rest. When the problem was only built (no
//! batsat instance exists yet), building one just to propagate would cost a
//! watcher list per literal and an allocation per clause for a problem that is
//! then thrown away. Here each clause not already satisfied gets a counter of
//! literals not yet known false; when it drops to one, the clause is scanned
//! for its last open literal. Every occurrence is visited at most once, so the
//! cost is linear in the size of the clauses.

use crate::{Lit, Solver};

impl Solver {
    /// The level-0 value of every variable (0 unknown, 1 true, -1 false), or
    /// `None` if the clauses are known to be unsatisfiable: from the backend
    /// if there is one, else propagated in the store.
    pub(crate) fn level0(&mut self) -> Option<Vec<i8>> {
        if self.sat.is_none() {
            return self.store_level0();
        }
        self.propagate_units();
        if self.is_known_unsat() {
            return None;
        }
        let facts = (0..self.num_vars())
            .map(|v| match self.fixed(Lit::from_var(v)) {
                None => 0,
                Some(true) => 1,
                Some(false) => -1,
            })
            .collect();
        Some(facts)
    }

    /// The level-0 value of every variable (0 unknown, 1 true, -1 false) after
    /// unit propagation over the stored clauses, or `None` on a conflict.
    ///
    /// Propagation reaches the same fixpoint as the backend's, so the result
    /// equals what [`Solver::fixed`] reports after `propagate_units`.
    pub(crate) fn store_level0(&self) -> Option<Vec<i8>> {
        if self.store_unsat {
            return None;
        }
        let mut value = self.assigned.clone();
        let is_true = |value: &[i8], l: Lit| {
            let v = value[l.var_index() as usize];
            v != 0 && (v > 0) != l.is_negated()
        };
        let ends = &self.clause_ends;
        let range = |c: usize| if c == 0 { 0 } else { ends[c - 1] }..ends[c];

        // Occurrence lists (by literal) of the clauses not satisfied by the
        // initial facts; only those can still propagate.
        let lits = 2 * self.vars as usize;
        // First the number of occurrences of each literal, then (prefix
        // sums) where its list ends; filling backwards leaves where it starts.
        let mut start = vec![0u32; lits + 1];
        let mut open = vec![0u32; ends.len()];
        let mut watched = Vec::new();
        let mut seen = Vec::new();
        for (c, open) in open.iter_mut().enumerate() {
            let clause = &self.clause_lits[range(c)];
            if clause.iter().any(|&l| is_true(&value, l)) {
                continue;
            }
            watched.push(c as u32);
            for (i, &l) in clause.iter().enumerate() {
                if first_occurrence(clause, i, c as u32, &mut seen, lits) {
                    *open += 1;
                    start[lit_index(l)] += 1;
                }
            }
        }
        for i in 1..lits {
            start[i] += start[i - 1];
        }
        start[lits] = start[lits - 1];
        seen.fill(0);
        let mut occurs = vec![0u32; start[lits] as usize];
        for &c in watched.iter().rev() {
            let clause = &self.clause_lits[range(c as usize)];
            for (i, &l) in clause.iter().enumerate() {
                if first_occurrence(clause, i, c, &mut seen, lits) {
                    let slot = &mut start[lit_index(l)];
                    *slot -= 1;
                    occurs[*slot as usize] = c;
                }
            }
        }
        drop(seen);

        // Every known fact falsifies its negation's occurrences once.
        let mut queue: Vec<Lit> = (0..self.vars)
            .filter(|&v| value[v as usize] != 0)
            .map(|v| {
                let l = Lit::from_var(v);
                if value[v as usize] > 0 {
                    l
                } else {
                    !l
                }
            })
            .collect();
        // Clauses of one literal (or none) propagate without any falsification.
        for &c in &watched {
            if open[c as usize] <= 1 {
                let clause = &self.clause_lits[range(c as usize)];
                last_open(clause, &mut value, &mut queue)?;
            }
        }
        let mut next = 0;
        while let Some(&fact) = queue.get(next) {
            next += 1;
            let falsified = lit_index(!fact);
            for i in start[falsified]..start[falsified + 1] {
                let c = occurs[i as usize] as usize;
                open[c] -= 1;
                if open[c] == 1 {
                    let clause = &self.clause_lits[range(c)];
                    last_open(clause, &mut value, &mut queue)?;
                }
            }
        }
        Some(value)
    }
}

/// Clauses up to this length find repeated literals by scanning.
const SHORT: usize = 16;

/// Whether `clause[i]` is the first occurrence of its literal in clause `c`
/// (repeated literals count once, as in the backend's normalised clauses).
/// Short clauses are scanned; longer ones mark literals in `seen`
/// (`seen[lit] == c + 1`), a table of `lits` entries allocated on first use.
fn first_occurrence(clause: &[Lit], i: usize, c: u32, seen: &mut Vec<u32>, lits: usize) -> bool {
    if clause.len() <= SHORT {
        return !clause[..i].contains(&clause[i]);
    }
    if seen.is_empty() {
        seen.resize(lits, 0);
    }
    let mark = &mut seen[lit_index(clause[i])];
    let first = *mark != c + 1;
    *mark = c + 1;
    first
}

/// Handles a clause with at most one literal not known false: nothing if a
/// literal is true, a new fact if one is open, `None` (conflict) otherwise.
fn last_open(clause: &[Lit], value: &mut [i8], queue: &mut Vec<Lit>) -> Option<()> {
    let mut open = None;
    for &l in clause {
        match value[l.var_index() as usize] {
            0 => open = Some(l),
            v if (v > 0) != l.is_negated() => return Some(()),
            _ => {}
        }
    }
    let l = open?;
    value[l.var_index() as usize] = if l.is_negated() { -1 } else { 1 };
    queue.push(l);
    Some(())
}

fn lit_index(l: Lit) -> usize {
    l.0 as usize
}

#[cfg(test)]
mod tests {
    use crate::testutil::{random_cnf, Rng};
    use crate::{Lit, Solver};

    /// Propagation in the store finds exactly the backend's level-0 facts.
    #[test]
    fn store_propagation_matches_backend() {
        let mut rng = Rng::new(11);
        for round in 0..400 {
            let mut s = Solver::new();
            let n = 1 + rng.below(15) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = rng.below(2 * n as u64 + 2) as usize;
            for c in random_cnf(&mut rng, &vars, k) {
                // Unfolded clauses, with repeats, as gates and merges add them.
                s.raw_clause(&c);
            }
            if round % 4 == 0 {
                // A long clause (repeats found through the marking table).
                let long: Vec<Lit> = (0..super::SHORT + 1 + rng.below(8) as usize)
                    .map(|_| {
                        let v = vars[rng.below(n as u64) as usize];
                        if rng.below(2) == 0 {
                            v
                        } else {
                            !v
                        }
                    })
                    .collect();
                s.raw_clause(&long);
            }
            let store = s.store_level0();
            s.pending_units = true;
            s.propagate_units();
            if s.is_known_unsat() {
                assert_eq!(store, None, "round {round}");
                continue;
            }
            let Some(store) = store else {
                // Propagation found a conflict the backend finds when solving.
                assert!(!s.solve(&[]), "round {round}");
                continue;
            };
            for v in 0..s.num_vars() {
                let want = match s.fixed(Lit::from_var(v)) {
                    None => 0,
                    Some(b) => {
                        if b {
                            1
                        } else {
                            -1
                        }
                    }
                };
                assert_eq!(store[v as usize], want, "round {round}, x{v}");
            }
        }
    }
}
