//! Level-0 unit propagation on the clause store, without a search backend.
//!
//! [`Solver::split`] needs the facts implied by unit propagation before it can
//! drop them and partition the rest. When the problem was only built (no
//! batsat instance exists yet), building one just to propagate would cost a
//! watcher list per literal and an allocation per clause for a problem that is
//! then thrown away. Here each clause not already satisfied gets a counter of
//! literals not yet known false; when it drops to one, the clause is scanned
//! for its last open literal. Every occurrence is visited at most once, so the
//! cost is linear in the size of the clauses. The same propagation follows
//! the choices of a lexicographic search ([`Implications`]), deciding the
//! literals they imply without asking the backend.

use crate::store::Clauses;
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
        Implications::new(&self.clauses, self.assigned.clone()).map(|i| i.value)
    }

    /// Runs `f` on this solver with its clause store lent out (for an
    /// [`Implications`] beside questions
    /// to the backend); the solver has no stored clauses meanwhile, so `f`
    /// must not add any, nor drop the backend.
    pub(crate) fn lending_store<R>(&mut self, f: impl FnOnce(&mut Solver, Store<'_>) -> R) -> R {
        let clauses = std::mem::take(&mut self.clauses);
        let r = f(self, &clauses);
        self.clauses = clauses;
        r
    }
}

/// A clause store, borrowed.
pub(crate) type Store<'s> = &'s Clauses;

/// Unit propagation over a clause store that only grows: the first facts,
/// then literals assumed one at a time ([`Implications::assume`]). Each
/// clause not satisfied by the first facts has a counter of literals not yet
/// known false; when it drops to one, the clause is scanned for its last
/// open literal, so all assumptions together cost the size of the clauses.
pub(crate) struct Implications<'s> {
    store: Store<'s>,
    /// Per variable: 0 unknown, 1 true, -1 false.
    value: Vec<i8>,
    /// Per clause: its literals not known false (distinct ones).
    open: Vec<u32>,
    /// The clauses not satisfied by the first facts, by literal:
    /// `occurs[start[l]..start[l + 1]]`.
    start: Vec<u32>,
    occurs: Vec<u32>,
    /// Facts not yet propagated.
    queue: Vec<Lit>,
}

impl<'s> Implications<'s> {
    /// The propagation of the facts `value` (per variable, as above) over
    /// `store`; `None` on a conflict.
    pub(crate) fn new(store: Store<'s>, mut value: Vec<i8>) -> Option<Implications<'s>> {
        let is_true = |value: &[i8], l: Lit| {
            let v = value[l.var_index() as usize];
            v != 0 && (v > 0) != l.is_negated()
        };

        // Occurrence lists (by literal) of the clauses not satisfied by the
        // initial facts; only those can still propagate.
        let lits = 2 * value.len();
        // First the number of occurrences of each literal, then (prefix
        // sums) where its list ends; filling backwards leaves where it starts.
        let mut start = vec![0u32; lits + 1];
        // A clause the facts satisfy keeps no open literal; every other
        // one has one at least, unless it is empty.
        let mut open = vec![0u32; store.len()];
        let mut seen = Vec::new();
        for (c, open) in open.iter_mut().enumerate() {
            let clause = store.get(c);
            if clause.iter().any(|&l| is_true(&value, l)) {
                continue;
            }
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
        for c in (0..store.len() as u32)
            .rev()
            .filter(|&c| open[c as usize] > 0)
        {
            let clause = store.get(c as usize);
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
        let mut queue: Vec<Lit> = (0..value.len() as u32)
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
        for (c, &n) in open.iter().enumerate() {
            if n == 1 || (n == 0 && store.get(c).is_empty()) {
                last_open(store.get(c), &mut value, &mut queue)?;
            }
        }
        let mut i = Implications {
            store,
            value,
            open,
            start,
            occurs,
            queue,
        };
        i.propagate()?;
        Some(i)
    }

    /// Propagates the queued facts (each already in `value`).
    fn propagate(&mut self) -> Option<()> {
        let mut next = 0;
        while let Some(&fact) = self.queue.get(next) {
            next += 1;
            let falsified = lit_index(!fact);
            for i in self.start[falsified]..self.start[falsified + 1] {
                let c = self.occurs[i as usize] as usize;
                self.open[c] -= 1;
                if self.open[c] == 1 {
                    last_open(self.store.get(c), &mut self.value, &mut self.queue)?;
                }
            }
        }
        self.queue.clear();
        Some(())
    }

    /// The value of `lit` the facts and assumptions imply, if any.
    pub(crate) fn value(&self, lit: Lit) -> Option<bool> {
        match self.value[lit.var_index() as usize] {
            0 => None,
            v => Some((v > 0) != lit.is_negated()),
        }
    }

    /// Assumes `lit` from now on and propagates it; `false` on a conflict
    /// (the state is then spoilt: assume only what some model has).
    pub(crate) fn assume(&mut self, lit: Lit) -> bool {
        if let Some(known) = self.value(lit) {
            return known;
        }
        self.value[lit.var_index() as usize] = if lit.is_negated() { -1 } else { 1 };
        self.queue.push(lit);
        self.propagate().is_some()
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
    use crate::store::Clauses;
    use crate::testutil::{random_cnf, Rng};
    use crate::{Lit, Solver};

    /// An empty clause in a store is a conflict; satisfied clauses are not.
    #[test]
    fn empty_clauses_conflict() {
        let a = Lit::from_var(0);
        // [a], [] and [], [a]; then [a] alone, satisfied by the fact `a`.
        let store = |clauses: &[&[Lit]]| {
            let mut s = Clauses::default();
            clauses.iter().for_each(|c| s.push(c));
            s
        };
        let (first, second) = (store(&[&[a], &[]]), store(&[&[], &[a]]));
        assert!(super::Implications::new(&first, vec![0]).is_none());
        assert!(super::Implications::new(&second, vec![0]).is_none());
        let unit = store(&[&[a]]);
        let i = super::Implications::new(&unit, vec![1]).expect("no conflict");
        assert_eq!(i.value(a), Some(true));
    }

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
