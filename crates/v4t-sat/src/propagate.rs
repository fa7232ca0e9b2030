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
//!
//! [`Propagator`] can also undo its facts: the walks over few variables
//! (`few.rs`), the single changes of a part's inputs (`flips.rs`) and the
//! literals refuted on their own ([`Solver::refuted`]) assume and retract
//! literals on one propagator instead of solving.

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

    /// Per literal of `lits`: whether assuming it makes unit propagation
    /// from the level-0 facts conflict, so that no model has it (failed
    /// literals). Probing stops, leaving the rest `false`, once propagation
    /// has visited four times the clauses' literal occurrences: the probes
    /// cost at most linear time.
    pub(crate) fn refuted(&mut self, lits: &[Lit]) -> Vec<bool> {
        let mut refuted = vec![false; lits.len()];
        if lits.is_empty() {
            return refuted;
        }
        let Some(facts) = self.level0() else {
            return vec![true; lits.len()];
        };
        self.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts);
            if p.conflicts() {
                refuted.fill(true);
                return;
            }
            let budget = 4 * p.occurrences_total() + 1024;
            for (refuted, &lit) in refuted.iter_mut().zip(lits) {
                if p.visited() > budget {
                    break;
                }
                let mark = p.mark();
                *refuted = !p.assume(lit);
                p.undo(mark);
            }
        });
        refuted
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

/// Unit propagation that can undo its facts: per clause, the literals not
/// known false; a clause with one literal left and none true makes it a
/// fact. Undoing a fact restores the counters of the clauses its negation
/// occurs in, so a depth-first walk costs the occurrences of the negations
/// of the facts it visits. Without a conflict, a clause whose variables
/// are all known is satisfied, so a leaf needs no look at the clauses
/// unless some variable is left unknown ([`Propagator::satisfied`]).
pub(crate) struct Propagator {
    /// The clauses of the store not satisfied by the level-0 facts, by
    /// position in the store.
    kept: Vec<u32>,
    /// Kept clauses containing each literal not false at level 0 (by code):
    /// `occurs[first[l]..first[l + 1]]`.
    first: Vec<u32>,
    occurs: Vec<u32>,
    /// Per variable: 0 unknown, 1 true, -1 false.
    value: Vec<i8>,
    /// Per clause: literals not known false.
    open: Vec<u32>,
    /// Per clause: the codes of the literals counted in `open`, XORed: the
    /// last one when one is left, without a look at the clause (a long
    /// clause would be scanned once per propagation that reaches it).
    rest: Vec<u32>,
    /// Variables that occur in the clauses and are not known.
    free: usize,
    /// Facts since the level-0 ones, in order; the first `done` have
    /// updated the counters of the clauses they occur in.
    trail: Vec<Lit>,
    done: usize,
    /// A clause has no literal left that is not false.
    conflict: bool,
    /// Clause occurrences visited by propagation, and literals looked at
    /// by [`Propagator::flip_to_repair`] (the budget's steps).
    visited: u64,
    /// A model the facts are compared with ([`Propagator::repairing`]).
    repair: Option<Box<Repair>>,
    /// The literals a walk reads at each leaf ([`Propagator::watch`]).
    watch: Option<Box<Watch>>,
}

/// Which literals of an image are true with the facts (a variable without
/// a fact counts as false), kept as facts come and go: a walk over n
/// values reads each leaf's image in the time of its true literals, not n
/// ([`Propagator::watch`]).
struct Watch {
    /// Per variable: its literal's position in the image, [`NOT_WATCHED`]
    /// if it has none.
    slot: Vec<u32>,
    /// The image's literals.
    lits: Vec<Lit>,
    /// The positions of the true ones, in no order.
    ones: Vec<u32>,
    /// Per position: where it is in `ones`, [`NOT_WATCHED`] if not there.
    at: Vec<u32>,
}

/// No position: a variable outside the image, a literal that is false.
const NOT_WATCHED: u32 = u32::MAX;

impl Watch {
    /// The watch of `lits` under `values`; `None` if a variable occurs
    /// twice.
    fn new(lits: &[Lit], values: &[i8]) -> Option<Watch> {
        let mut w = Watch {
            slot: vec![NOT_WATCHED; values.len()],
            lits: lits.to_vec(),
            ones: Vec::new(),
            at: vec![NOT_WATCHED; lits.len()],
        };
        for (i, l) in lits.iter().enumerate() {
            let slot = &mut w.slot[l.var_index() as usize];
            if *slot != NOT_WATCHED {
                return None;
            }
            *slot = i as u32;
        }
        for l in lits {
            w.update(l.var_index(), values[l.var_index() as usize]);
        }
        Some(w)
    }

    /// Takes the new value of variable `v` (1 true, -1 false, 0 unknown)
    /// into account.
    fn update(&mut self, v: u32, value: i8) {
        let i = self.slot[v as usize];
        if i == NOT_WATCHED {
            return;
        }
        let lit = self.lits[i as usize];
        let true_now = (value > 0) != lit.is_negated();
        let at = self.at[i as usize];
        if true_now && at == NOT_WATCHED {
            self.at[i as usize] = self.ones.len() as u32;
            self.ones.push(i);
        } else if !true_now && at != NOT_WATCHED {
            let last = self.ones.pop().expect("a position is there");
            if last != i {
                self.ones[at as usize] = last;
                self.at[last as usize] = at;
            }
            self.at[i as usize] = NOT_WATCHED;
        }
    }
}

/// The facts over a model: per kept clause, its literals true when each
/// variable takes its fact's value if it has one and the model's
/// otherwise, and how many clauses have none.
struct Repair {
    model: Vec<bool>,
    true_lits: Vec<u32>,
    broken: usize,
    /// Kept clauses as they became broken, some since repaired (dropped
    /// when looked at): every broken clause is among them.
    breaks: Vec<u32>,
}

impl Propagator {
    /// The propagation of the level-0 `facts` over `store`: its clauses
    /// not satisfied by them (a clause's repeated literals count as often
    /// as they occur, which delays its propagation but never makes it wrong:
    /// a leaf with an unsatisfied clause is asked of the backend).
    pub(crate) fn new(store: Store<'_>, facts: &[i8]) -> Propagator {
        let value = facts.to_vec();
        let truth = |l: Lit| match value[l.var_index() as usize] {
            0 => None,
            v => Some((v > 0) != l.is_negated()),
        };
        let codes = 2 * value.len();
        let mut first = vec![0u32; codes + 1];
        let mut kept = Vec::new();
        let mut open = Vec::new();
        let mut rest = Vec::new();
        for (c, clause) in store.iter().enumerate() {
            let mut free = 0;
            let mut codes = 0;
            for &l in clause {
                match truth(l) {
                    None => {
                        free += 1;
                        codes ^= l.0;
                        first[l.0 as usize + 1] += 1;
                    }
                    Some(true) => {
                        // Satisfied: take back what it counted.
                        for &m in clause {
                            if truth(m).is_none() {
                                first[m.0 as usize + 1] -= 1;
                            }
                            if m == l {
                                break;
                            }
                        }
                        free = u32::MAX;
                        break;
                    }
                    Some(false) => {}
                }
            }
            if free != u32::MAX {
                kept.push(c as u32);
                open.push(free);
                rest.push(codes);
            }
        }
        for i in 0..codes {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut occurs = vec![0u32; first[codes] as usize];
        for (k, &c) in kept.iter().enumerate() {
            for &l in store.get(c as usize) {
                if truth(l).is_none() {
                    let slot = &mut fill[l.0 as usize];
                    occurs[*slot as usize] = k as u32;
                    *slot += 1;
                }
            }
        }
        let clauses = kept.len();
        let conflict = open.contains(&0);
        let mut p = Propagator {
            kept,
            first,
            occurs,
            value,
            free: 0,
            open,
            rest,
            trail: Vec::new(),
            done: 0,
            conflict,
            visited: 0,
            repair: None,
            watch: None,
        };
        // Clauses of one literal (the backend may not have propagated a
        // clause added without folding).
        p.free = (0..p.value.len() as u32)
            .filter(|&v| p.value[v as usize] == 0 && p.occurs_at_all(v))
            .count();
        for c in 0..clauses {
            if p.open[c] == 1 {
                p.unit(c);
            }
        }
        p.propagate();
        p
    }

    /// Compares the facts from now on with `model`, a model of the store's
    /// clauses (and so of the facts so far): [`Propagator::repairs`] then
    /// tells, without a look at the clauses, whether the facts with the
    /// model's values elsewhere are a model. Each fact that differs from
    /// the model costs the occurrences of both its literals, when set and
    /// when undone.
    pub(crate) fn repairing(mut self, mut model: Vec<bool>) -> Propagator {
        // A variable the model does not cover counts as false.
        model.resize(self.value.len(), false);
        let mut true_lits = vec![0u32; self.kept.len()];
        let is_true = |l: Lit| match self.value[l.var_index() as usize] {
            0 => model[l.var_index() as usize] != l.is_negated(),
            v => (v > 0) != l.is_negated(),
        };
        for code in 0..self.first.len() as u32 - 1 {
            let l = Lit(code);
            if is_true(l) {
                for i in self.occurrences(l) {
                    true_lits[self.occurs[i] as usize] += 1;
                }
            }
        }
        let broken = true_lits.iter().filter(|&&n| n == 0).count();
        let breaks = (0..true_lits.len() as u32)
            .filter(|&c| true_lits[c as usize] == 0)
            .collect();
        self.repair = Some(Box::new(Repair {
            model,
            true_lits,
            broken,
            breaks,
        }));
        self
    }

    /// Whether the facts, with [`Propagator::repairing`]'s model's values
    /// for the variables they leave unknown, satisfy every clause (then
    /// there is a model with these facts). `false` without a model.
    pub(crate) fn repairs(&self) -> bool {
        !self.conflict && self.repair.as_ref().is_some_and(|r| r.broken == 0)
    }

    /// Whether `lit` is true in the model the facts are compared with
    /// ([`Propagator::repairing`]); `false` if there is none.
    pub(crate) fn in_model(&self, lit: Lit) -> bool {
        (self.repair.as_ref())
            .and_then(|r| r.model.get(lit.var_index() as usize))
            .is_some_and(|&v| v != lit.is_negated())
    }

    /// Compares the facts with `model` from now on for the variables
    /// without a fact ([`Propagator::repairing`]); `model` must be a model
    /// of the clauses that agrees with the facts. Costs a look at each
    /// variable and the occurrences of those whose value changes.
    pub(crate) fn rebase(&mut self, model: &[bool]) {
        for v in 0..self.value.len() {
            // The literal the new model makes true.
            let positive = Lit::from_var(v as u32);
            self.adopt(match model.get(v) {
                Some(true) => positive,
                _ => !positive,
            });
        }
    }

    /// The model compared with ([`Propagator::repairing`]) takes `lit`'s
    /// value if its variable has no fact. The counters stay exact whatever
    /// the values; [`Propagator::repairs`] certifies a model only as long
    /// as the facts over these values are one. Costs the occurrences of
    /// the variable if its value changes.
    fn adopt(&mut self, lit: Lit) {
        let v = lit.var_index() as usize;
        if self.repair.is_none() || self.value[v] != 0 || self.in_model(lit) {
            return;
        }
        self.count_flip(lit, !lit);
        if let Some(r) = self.repair.as_mut() {
            r.model[v] = !lit.is_negated();
        }
    }

    /// One step of local search toward a model with the facts
    /// ([`Propagator::repairing`]): a clause false with the facts over the
    /// model, if any, has each of its literals still unknown assumed in
    /// turn (at most `tries`, from where `cursor` last succeeded in the
    /// same clause), until the facts over the model are a model. The
    /// consequences of the first such literal become the model's values,
    /// not facts, and are returned; `None` if no literal tried repairs.
    pub(crate) fn flip_to_repair(
        &mut self,
        store: Store<'_>,
        cursor: &mut (usize, usize),
        mut tries: usize,
    ) -> Option<Vec<Lit>> {
        if self.conflict || self.repairs() {
            return None;
        }
        let c = self.broken_clause()?;
        let clause = store.get(c);
        let start = if cursor.0 == c { cursor.1 } else { 0 }.min(clause.len());
        for k in (start..clause.len()).chain(0..start) {
            let lit = clause[k];
            if tries == 0 {
                break;
            }
            // The literals looked at count as steps, as propagation's do.
            self.visited += 1;
            if self.known(lit).is_some() {
                continue;
            }
            tries -= 1;
            let mark = self.mark();
            if self.assume(lit) && self.repairs() {
                *cursor = (c, k);
                return Some(self.adopt_since(mark));
            }
            self.undo(mark);
        }
        None
    }

    /// Makes the facts since `mark`, which repair the model compared with
    /// ([`Propagator::repairs`]), that model's values instead of facts, and
    /// returns them: the model moves to the one they certify.
    pub(crate) fn adopt_since(&mut self, mark: usize) -> Vec<Lit> {
        let facts = self.facts_since(mark).to_vec();
        self.undo(mark);
        facts.iter().for_each(|&l| self.adopt(l));
        facts
    }

    /// A clause false with the facts over the model
    /// ([`Propagator::repairing`]), by position in the store.
    fn broken_clause(&mut self) -> Option<usize> {
        let r = self.repair.as_mut()?;
        while let Some(&c) = r.breaks.last() {
            if r.true_lits[c as usize] == 0 {
                return Some(self.kept[c as usize] as usize);
            }
            r.breaks.pop();
        }
        None
    }

    /// Counts `lit`, a fact set or undone (`set`), in the repair counters
    /// if it differs from the model. Out of line: `set`, on every
    /// propagation's path, then pays only for the check whether there is a
    /// model to compare with.
    #[inline(never)]
    fn count_repair(&mut self, lit: Lit, set: bool) {
        if self.repair.is_none() || self.in_model(lit) {
            return;
        }
        if set {
            self.count_flip(lit, !lit);
        } else {
            self.count_flip(!lit, lit);
        }
    }

    /// The repair counters after a variable's value changes: the
    /// occurrences of `gains` gain a true literal, those of `loses` lose one.
    fn count_flip(&mut self, gains: Lit, loses: Lit) {
        let Some(r) = self.repair.as_mut() else {
            return;
        };
        let range =
            |l: Lit| self.first[l.0 as usize] as usize..self.first[l.0 as usize + 1] as usize;
        for i in range(gains) {
            let c = self.occurs[i] as usize;
            r.true_lits[c] += 1;
            if r.true_lits[c] == 1 {
                r.broken -= 1;
                if r.broken == 0 {
                    r.breaks.clear();
                }
            }
        }
        for i in range(loses) {
            let c = self.occurs[i] as usize;
            r.true_lits[c] -= 1;
            if r.true_lits[c] == 0 {
                r.broken += 1;
                r.breaks.push(c as u32);
            }
        }
    }

    /// Whether variable `v` occurs in a kept clause.
    fn occurs_at_all(&self, v: u32) -> bool {
        let l = Lit::from_var(v);
        !self.occurrences(l).is_empty() || !self.occurrences(!l).is_empty()
    }

    /// Whether every clause has a true literal, given no conflict: a
    /// clause whose variables are all known has one (else it would have
    /// been a conflict), so only the clauses of unknown variables are
    /// looked at, and only if there are any.
    pub(crate) fn satisfied(&self, store: Store<'_>) -> bool {
        if self.free == 0 {
            return true;
        }
        let is_true = |l: Lit| match self.value[l.var_index() as usize] {
            0 => false,
            v => (v > 0) != l.is_negated(),
        };
        (0..self.value.len() as u32)
            .filter(|&v| self.value[v as usize] == 0)
            .flat_map(|v| [Lit::from_var(v), !Lit::from_var(v)])
            .flat_map(|l| self.occurrences(l))
            .all(|i| {
                let c = self.kept[self.occurs[i] as usize] as usize;
                store.get(c).iter().any(|&l| is_true(l))
            })
    }

    /// The number of variables.
    pub(crate) fn vars(&self) -> usize {
        self.value.len()
    }

    /// Per variable: 0 unknown, 1 true, -1 false.
    pub(crate) fn values(&self) -> &[i8] {
        &self.value
    }

    /// The number of literal occurrences in the kept clauses.
    pub(crate) fn occurrences_total(&self) -> u64 {
        self.occurs.len() as u64
    }

    /// Steps so far: clause occurrences visited by propagation, literals
    /// looked at by [`Propagator::flip_to_repair`].
    pub(crate) fn visited(&self) -> u64 {
        self.visited
    }

    /// Keeps track of which literals of `image` are true with the facts
    /// (a variable without a fact counts as false) until
    /// [`Propagator::unwatch`], for [`Propagator::watched_ones`]; `false`
    /// (and no watch) if a variable occurs in it twice.
    pub(crate) fn watch(&mut self, image: &[Lit]) -> bool {
        self.watch = Watch::new(image, &self.value).map(Box::new);
        self.watch.is_some()
    }

    /// Stops [`Propagator::watch`].
    pub(crate) fn unwatch(&mut self) {
        self.watch = None;
    }

    /// The positions in the watched image of its literals true with the
    /// facts, in no order.
    pub(crate) fn watched_ones(&self) -> Option<&[u32]> {
        self.watch.as_ref().map(|w| &w.ones[..])
    }

    /// The number of facts so far, to [`Propagator::undo`] back to.
    pub(crate) fn mark(&self) -> usize {
        self.trail.len()
    }

    /// The facts since `mark`, in order.
    pub(crate) fn facts_since(&self, mark: usize) -> &[Lit] {
        &self.trail[mark..]
    }

    /// Whether the level-0 facts conflict.
    pub(crate) fn conflicts(&self) -> bool {
        self.conflict
    }

    /// Whether every variable that occurs in a clause is known (without a
    /// conflict, the facts are then a model).
    pub(crate) fn complete(&self) -> bool {
        self.free == 0
    }

    /// The value of `lit`, if known.
    pub(crate) fn known(&self, lit: Lit) -> Option<bool> {
        match self.value[lit.var_index() as usize] {
            0 => None,
            v => Some((v > 0) != lit.is_negated()),
        }
    }

    fn occurrences(&self, l: Lit) -> std::ops::Range<usize> {
        self.first[l.0 as usize] as usize..self.first[l.0 as usize + 1] as usize
    }

    /// Makes `lit` a fact and propagates; `false` on a conflict (undo to
    /// before it to go on).
    pub(crate) fn assume(&mut self, lit: Lit) -> bool {
        match self.value[lit.var_index() as usize] {
            0 => {}
            v => return (v > 0) != lit.is_negated() && !self.conflict,
        }
        self.set(lit);
        self.propagate();
        !self.conflict
    }

    fn set(&mut self, lit: Lit) {
        let value = if lit.is_negated() { -1 } else { 1 };
        self.value[lit.var_index() as usize] = value;
        if let Some(w) = &mut self.watch {
            w.update(lit.var_index(), value);
        }
        if self.repair.is_some() {
            self.count_repair(lit, true);
        }
        self.trail.push(lit);
        if self.occurs_at_all(lit.var_index()) {
            self.free -= 1;
        }
    }

    /// Clause `c` has at most one literal not known false: a conflict if
    /// none, else a fact if it is unknown (nothing if it is true; if it is
    /// false but not yet counted, counting it finds the conflict).
    fn unit(&mut self, c: usize) {
        if self.open[c] == 0 {
            self.conflict = true;
            return;
        }
        let last = Lit(self.rest[c]);
        if self.value[last.var_index() as usize] == 0 {
            self.set(last);
        }
    }

    /// Counts the facts not yet counted, each completely (so that undoing
    /// restores exactly), until a conflict.
    fn propagate(&mut self) {
        while !self.conflict && self.done < self.trail.len() {
            let fact = self.trail[self.done];
            self.done += 1;
            self.visited += self.occurrences(!fact).len() as u64;
            for i in self.occurrences(!fact) {
                let c = self.occurs[i] as usize;
                self.open[c] -= 1;
                self.rest[c] ^= (!fact).0;
                if self.open[c] <= 1 && !self.conflict {
                    self.unit(c);
                }
            }
        }
    }

    /// Undoes every fact after the first `mark` of the trail.
    pub(crate) fn undo(&mut self, mark: usize) {
        if self.repair.is_some() {
            for i in mark..self.trail.len() {
                self.count_repair(self.trail[i], false);
            }
        }
        if let Some(w) = &mut self.watch {
            for fact in &self.trail[mark.min(self.trail.len())..] {
                w.update(fact.var_index(), 0);
            }
        }
        while self.trail.len() > mark {
            let fact = self.trail.pop().expect("longer than mark");
            if self.trail.len() < self.done {
                for i in self.occurrences(!fact) {
                    let c = self.occurs[i] as usize;
                    self.open[c] += 1;
                    self.rest[c] ^= (!fact).0;
                }
            }
            self.value[fact.var_index() as usize] = 0;
            if self.occurs_at_all(fact.var_index()) {
                self.free += 1;
            }
        }
        self.done = self.done.min(mark);
        self.conflict = false;
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Clauses;
    use crate::testutil::{
        eval_lit, exercised, models, random_cnf, random_instance, random_lit, Rng,
    };
    use crate::{Lit, Solver};

    /// Through random assumptions and undos, the watched image's true
    /// literals are those true with the facts (a variable without a fact
    /// false); an image that names a variable twice is not watched.
    #[test]
    fn a_watched_image_knows_its_true_literals() {
        let mut rng = Rng::new(606);
        for round in 0..300 {
            let mut s = Solver::new();
            let vars: Vec<Lit> = (0..3 + rng.below(10)).map(|_| s.new_var()).collect();
            let clauses = rng.below(12) as usize;
            for c in random_cnf(&mut rng, &vars, clauses) {
                s.add_clause(&c);
            }
            let mut image = Vec::new();
            for &v in &vars {
                match rng.below(3) {
                    0 => {}
                    1 => image.push(v),
                    _ => image.push(!v),
                }
            }
            let Some(facts) = s.level0() else {
                continue;
            };
            s.lending_store(|_, store| {
                let mut p = super::Propagator::new(store, &facts);
                let truth = |p: &super::Propagator| -> Vec<u32> {
                    let on = |(i, l): (usize, &Lit)| {
                        ((p.values()[l.var_index() as usize] > 0) != l.is_negated())
                            .then_some(i as u32)
                    };
                    image.iter().enumerate().filter_map(on).collect()
                };
                let sorted = |p: &super::Propagator| {
                    let mut ones = p.watched_ones().expect("watched").to_vec();
                    ones.sort_unstable();
                    ones
                };
                assert!(p.watch(&image), "round {round}");
                assert_eq!(sorted(&p), truth(&p), "round {round}");
                let mut marks = Vec::new();
                for _ in 0..8 {
                    if rng.below(3) == 0 && !marks.is_empty() {
                        p.undo(marks.pop().unwrap());
                    } else {
                        marks.push(p.mark());
                        if !p.assume(random_lit(&mut rng, &vars)) {
                            p.undo(marks.pop().unwrap());
                        }
                    }
                    assert_eq!(sorted(&p), truth(&p), "round {round}");
                }
                let twice = [vars[0], !vars[0]];
                assert!(!p.watch(&twice));
                assert!(p.watched_ones().is_none());
            });
        }
    }

    /// Through random assumptions and undos, `repairs` says whether the
    /// facts, with the first model's values elsewhere, satisfy every clause.
    #[test]
    fn repairs_tells_whether_the_facts_over_the_model_are_a_model() {
        let mut rng = Rng::new(404);
        let (mut yes, mut no, mut flips) = (0, 0, 0);
        for round in 0..800 {
            // Clauses of three literals: a fact that breaks one need not
            // propagate.
            let mut s = Solver::new();
            let vars: Vec<Lit> = (0..4 + rng.below(9)).map(|_| s.new_var()).collect();
            let cnf: Vec<Vec<Lit>> = (0..rng.below(3 * vars.len() as u64))
                .map(|_| (0..3).map(|_| random_lit(&mut rng, &vars)).collect())
                .collect();
            cnf.iter().for_each(|c| s.add_clause(c));
            if !s.solve(&[]) {
                continue;
            }
            let mut model = s.model.clone();
            let facts = s.level0().expect("satisfiable");
            s.lending_store(|s, store| {
                let mut p = super::Propagator::new(store, &facts).repairing(model.clone());
                let mut marks = Vec::new();
                let mut cursor = (usize::MAX, 0);
                for _ in 0..12 {
                    if rng.below(5) == 0 {
                        // One flip of the model's values, the facts kept.
                        let facts = p.facts_since(0).to_vec();
                        if let Some(flipped) = p.flip_to_repair(store, &mut cursor, 4) {
                            assert_eq!(p.facts_since(0), facts, "round {round}");
                            for l in flipped {
                                assert!(p.known(l).is_none(), "round {round}");
                                model[l.var_index() as usize] = !l.is_negated();
                            }
                            assert!(p.repairs(), "round {round}");
                            flips += 1;
                        }
                    } else if rng.below(4) == 0 {
                        // Another model with the facts, compared with from
                        // now on where there is no fact.
                        if s.solve(p.facts_since(0)) {
                            for (v, base) in model.iter_mut().enumerate() {
                                if p.known(Lit::from_var(v as u32)).is_none() {
                                    *base = s.model[v];
                                }
                            }
                            p.rebase(&s.model);
                        }
                    } else if rng.below(3) == 0 {
                        if let Some(mark) = marks.pop() {
                            p.undo(mark);
                        }
                    } else {
                        marks.push(p.mark());
                        if !p.assume(random_lit(&mut rng, &vars)) {
                            // A conflict repairs nothing (a literal known
                            // false is refused without one).
                            assert!(!p.conflicts() || !p.repairs(), "round {round}");
                            p.undo(marks.pop().expect("just pushed"));
                            continue;
                        }
                    }
                    let hybrid: Vec<bool> = (vars.iter())
                        .map(|&v| p.known(v).unwrap_or(model[v.var_index() as usize]))
                        .collect();
                    let want = cnf
                        .iter()
                        .all(|c| c.iter().any(|&l| eval_lit(l, &vars, &hybrid)));
                    assert_eq!(p.repairs(), want, "round {round}: {cnf:?}");
                    yes += usize::from(want);
                    no += usize::from(!want);
                }
            });
        }
        exercised!(
            yes > 4000 && no > 400 && flips > 80,
            "too one-sided: {yes} repaired, {no} not, {flips} flips"
        );
    }

    /// A refuted literal holds in no model; a literal whose assumption
    /// propagates to a conflict at once (`x` implying `y` and `!y`) is
    /// refuted, and so is every literal of a problem without models.
    #[test]
    fn refuted_literals_have_no_model() {
        let mut rng = Rng::new(53);
        let mut refuted = 0;
        for round in 0..500 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 9, (2, 2));
            let lits: Vec<Lit> = (0..6).map(|_| random_lit(&mut rng, &vars)).collect();
            let ms = models(&vars, &cnf);
            for (&lit, &r) in lits.iter().zip(&s.refuted(&lits)) {
                let possible = ms.iter().any(|m| eval_lit(lit, &vars, m));
                assert!(!(r && possible), "round {round}: {lit:?} has a model");
                refuted += usize::from(r);
            }
        }
        assert!(refuted > 100, "{refuted}");
        let mut s = Solver::new();
        let (x, y, z) = (s.new_var(), s.new_var(), s.new_var());
        s.add_clause(&[!x, y]);
        s.add_clause(&[!x, !y]);
        s.add_clause(&[y, z]);
        assert_eq!(s.refuted(&[x, !x, y, z]), vec![true, false, false, false]);
        s.add_clause(&[!z]);
        s.add_clause(&[!y]);
        assert_eq!(s.refuted(&[x, !x]), vec![true, true]);
    }

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
