//! A small SAT facade for v4t: literals, Tseitin gates, clauses, solving under
//! assumptions, weighted-sum optimisation and deterministic tie-breaking.
//!
//! The crate knows nothing about TOSCA. It wraps the pure-Rust MiniSat port
//! `batsat` behind a tiny API so the rest of v4t can encode presence
//! conditions as formulas and ask questions about them without caring about CNF.
//!
//! Overview:
//! * [`Solver::new_var`], [`Solver::truth`] and [`Solver::constant`] create
//!   literals; [`Lit`] supports `!` for negation.
//! * Gates ([`Solver::and`], [`Solver::or`], [`Solver::xor`], ...) return a
//!   literal *equivalent* to the formula, so it may be used in either polarity
//!   and as an assumption. Constants are folded and identical gates are shared.
//! * [`Solver::add_clause`] / [`Solver::require`] add permanent constraints;
//!   [`Solver::solve`] checks satisfiability under temporary assumptions.
//! * [`Solver::minimize`] / [`Solver::maximize`] optimise a weighted sum and
//!   then permanently restrict the problem to the optimal solutions.
//! * [`Solver::prefer_false`] picks the lexicographically smallest model with
//!   respect to a literal order, which makes results independent of search
//!   order; [`Solver::prefer`] first makes the earliest possible literal of
//!   each given list true.
//! * [`Solver::split`] turns the solver into a [`Split`]: one small solver per
//!   independent part of the problem, with the same optimisation, tie-breaking
//!   and entailment questions answered part by part.
//!
//! Questions about *all* models, for analyses of a whole product family:
//! * [`Solver::count`]: the number of distinct assignments of a set of
//!   projection variables in the models (sharpSAT-style exact counting with
//!   a time-free [`CountBudget`]; a [`Count`] says whether it is exact), as a
//!   [`Natural`] that cannot overflow;
//! * [`Solver::backbone`] (and [`Split::backbone`]): which literals are
//!   true in every model, false in every model, or free ([`Implied`]);
//! * [`Solver::minimal_core`] (and [`Split::minimal_core`]): a
//!   subset-minimal set of assumption literals that has no model;
//! * [`Solver::enumerate`]: the distinct projections of the models in
//!   lexicographic order, up to a limit ([`Enumeration`]);
//! * [`Solver::can_differ`] and [`Solver::differ`]: whether some literals
//!   are determined by others (two models agreeing on these, differing on
//!   those), several such questions on one pair of copies ([`Differ`]).
//!
//! All literals passed to a [`Solver`] must come from that same solver; a
//! literal from another solver whose variable does not exist here may panic.
//!
//! ```
//! use v4t_sat::Solver;
//!
//! let mut s = Solver::new();
//! let (db, cache) = (s.new_var(), s.new_var());
//! let both = s.and(&[db, cache]);
//! s.add_clause(&[!cache, db]); // the cache needs the database
//! assert!(s.solve(&[cache]));
//! assert!(s.value(db));
//! assert!(!s.solve(&[cache, !db]));
//! // Fewest present: neither.
//! assert_eq!(s.minimize(&[(db, 1), (cache, 1)]), Some(0));
//! assert!(!s.value(both));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod backbone;
mod count;
mod csr;
mod defined;
mod differ;
mod eliminate;
mod enumerate;
mod equivalent;
mod few;
mod first_events;
mod firsts;
mod flips;
mod gates;
mod mus;
mod natural;
mod order;
mod part_counts;
mod pb;
mod prefer;
mod propagate;
mod split;
mod store;
mod switched;
#[cfg(test)]
mod testutil;
mod violable;

use batsat::{lbool, Callbacks, SolverInterface, SolverOpts};
use std::fmt;

pub use backbone::Implied;
pub use count::{Count, CountBudget};
pub use differ::Differ;
pub use enumerate::Enumeration;
pub use first_events::FirstEvent;
pub use natural::Natural;
pub use part_counts::Extensions;
pub use split::{Answer, OrRecord, Question, Split};

/// A literal: a variable or its negation.
///
/// Internally `2 * variable + negated`, so ordering groups a variable's two
/// literals together (positive first).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(u32);

impl Lit {
    /// Index of the underlying variable (0-based, in creation order).
    pub fn var_index(self) -> u32 {
        self.0 >> 1
    }

    /// Whether this literal is the negation of its variable.
    pub fn is_negated(self) -> bool {
        self.0 & 1 == 1
    }

    /// The positive literal of the same variable.
    fn positive(self) -> Lit {
        Lit(self.0 & !1)
    }

    /// The literal of variable `var` with this literal's sign.
    fn with_var(self, var: u32) -> Lit {
        Lit((var << 1) | (self.0 & 1))
    }

    fn from_var(var: u32) -> Lit {
        Lit(var << 1)
    }

    fn to_bs(self) -> batsat::Lit {
        batsat::Lit::new(
            batsat::Var::unsafe_from_idx(self.var_index()),
            !self.is_negated(),
        )
    }

    fn from_bs(lit: batsat::Lit) -> Lit {
        Lit((lit.var().idx() << 1) | u32::from(!lit.sign()))
    }
}

/// Optional literals by index, four bytes an entry (`Option<Lit>` takes
/// eight): an encoder's per-element variables, which a large problem has
/// hundreds of thousands of.
#[derive(Clone, Debug, Default)]
pub struct LitTable(Vec<u32>);

/// The entry of [`LitTable`] without a literal (no variable has the index
/// it would stand for: variables are counted in `u32` and a literal doubles
/// the index).
const NO_LIT: u32 = u32::MAX;

impl LitTable {
    /// `len` entries, none with a literal.
    pub fn new(len: usize) -> LitTable {
        LitTable(vec![NO_LIT; len])
    }

    /// The literal at `i`, if set (`None` also past the end).
    pub fn get(&self, i: usize) -> Option<Lit> {
        self.0.get(i).filter(|&&l| l != NO_LIT).map(|&l| Lit(l))
    }

    /// Sets the literal at `i` (`i < len`).
    pub fn set(&mut self, i: usize, l: Lit) {
        self.0[i] = l.0;
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

impl fmt::Debug for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_negated() {
            write!(f, "!x{}", self.var_index())
        } else {
            write!(f, "x{}", self.var_index())
        }
    }
}

/// Callbacks that only enforce a conflict budget (unlike batsat's `Basic`,
/// this keeps the solver `Send`).
struct Quiet {
    /// Conflicts the current search may still learn from before it gives up.
    conflicts_left: u64,
}

impl Callbacks for Quiet {
    fn on_new_clause(&mut self, _: &[batsat::Lit], kind: batsat::clause::Kind) {
        if kind == batsat::clause::Kind::Learnt {
            self.conflicts_left = self.conflicts_left.saturating_sub(1);
        }
    }

    fn stop(&self) -> bool {
        self.conflicts_left == 0
    }
}

/// Solver with a formula builder (Tseitin gates with constant folding).
///
/// Clauses are recorded in a plain clause store; the `batsat` instance is only
/// created when a question needs search (solving, optimisation, level-0
/// propagation), from the stored clauses. Until then, [`Solver::fixed`] knows
/// the facts batsat would know: literals of unit clauses, after dropping the
/// literals already false when the clause was added. A problem that is only
/// built and then [`Solver::split`] never pays for a batsat instance.
///
/// Literals passed in must have been created by this solver.
pub struct Solver {
    /// The search backend, built on demand from the stored clauses.
    sat: Option<batsat::Solver<Quiet>>,
    /// Number of variables (the backend has as many once built).
    vars: u32,
    /// Level-0 value of each variable while there is no backend:
    /// 0 unknown, 1 true, -1 false.
    assigned: Vec<i8>,
    /// An added clause was empty after dropping false literals (no backend yet).
    store_unsat: bool,
    truth: Lit,
    /// Last model, indexed by variable (empty if none).
    model: Vec<bool>,
    /// Whether `model` satisfies every clause added so far.
    model_valid: bool,
    /// Unit clauses were added but not yet propagated.
    pending_units: bool,
    /// Hash-consing tables.
    gates: gates::Gates,
    /// Reused buffer for the normalised inputs of a conjunction.
    gate_inputs: Vec<Lit>,
    /// Reused buffer for [`Solver::add_clause`].
    clause_buf: Vec<Lit>,
    /// Failed assumptions of the last unsatisfiable `solve`.
    core: Vec<Lit>,
    scratch: Vec<batsat::Lit>,
    /// Every clause added so far (read by [`Solver::split`]).
    clauses: store::Clauses,
    /// Per clause, once [`Solver::record_gates`] asked for it: the gate
    /// variable whose definition it is part of (a clause of
    /// `g <-> f(inputs)` for a gate with a fresh variable `g`), or
    /// [`NO_GATE`]; read by [`Split::solve_switched`]. `None` otherwise:
    /// a problem that is only solved does not pay for it.
    clause_gates: Option<Vec<u32>>,
    /// The gate whose defining clauses are being added ([`NO_GATE`] otherwise).
    defining: u32,
    /// The propagator of the last walk over few variables ([`few`]).
    few: Option<Box<few::Cached>>,
    /// The images the last complete walk found ([`few`]): `count` and
    /// `backbone` of the same presences walk the same inputs.
    few_images: Option<Box<few::Remembered>>,
}

/// No gate: a clause that is not part of a gate's definition.
const NO_GATE: u32 = u32::MAX;

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("vars", &self.num_vars())
            .field("clauses", &self.num_clauses())
            .finish()
    }
}

impl Solver {
    /// Creates an empty solver containing only the constant-true variable.
    pub fn new() -> Solver {
        let truth = Lit::from_var(0);
        let mut s = Solver {
            sat: None,
            vars: 1,
            assigned: vec![0],
            store_unsat: false,
            truth,
            model: Vec::new(),
            model_valid: false,
            pending_units: false,
            gates: gates::Gates::default(),
            gate_inputs: Vec::new(),
            clause_buf: Vec::new(),
            core: Vec::new(),
            scratch: Vec::new(),
            clauses: store::Clauses::default(),
            clause_gates: None,
            defining: NO_GATE,
            few: None,
            few_images: None,
        };
        s.raw_clause(&[truth]);
        // Recorded as a fact; nothing to propagate.
        s.pending_units = false;
        s
    }

    /// Every clause added so far, in order (as written, before any
    /// simplification), for exporting the problem (DIMACS).
    pub fn clauses(&self) -> impl Iterator<Item = &[Lit]> {
        self.clauses.iter()
    }

    /// The constant-true literal (a variable fixed true at creation); `!truth()` is false.
    pub fn truth(&self) -> Lit {
        self.truth
    }

    /// The literal for a Boolean constant.
    pub fn constant(&self, b: bool) -> Lit {
        if b {
            self.truth
        } else {
            !self.truth
        }
    }

    /// A fresh variable. Decisions on it prefer `false`.
    pub fn new_var(&mut self) -> Lit {
        let v = self.vars;
        self.vars += 1;
        match &mut self.sat {
            Some(sat) => {
                sat.new_var(lbool::FALSE, true);
            }
            None => self.assigned.push(0),
        }
        self.model_valid = false;
        Lit::from_var(v)
    }

    /// Number of variables created so far (including the constant and gate variables).
    pub fn num_vars(&self) -> u32 {
        self.vars
    }

    /// Number of clauses added so far (after folding; including unit clauses).
    pub fn num_clauses(&self) -> u64 {
        self.clauses.len() as u64
    }

    /// Permanently requires the clause (disjunction of `lits`).
    ///
    /// Clauses containing a literal known true are dropped, literals known false are
    /// removed; an empty clause makes the problem unsatisfiable.
    pub fn add_clause(&mut self, lits: &[Lit]) {
        // Units and binary clauses (most of them) without the buffer.
        match *lits {
            [a] => {
                match self.fixed(a) {
                    Some(true) => {}
                    Some(false) => self.raw_clause(&[]),
                    None => self.raw_clause(&[a]),
                }
                return;
            }
            [a, b] => {
                match (self.fixed(a), self.fixed(b)) {
                    (Some(true), _) | (_, Some(true)) => {}
                    (Some(false), Some(false)) => self.raw_clause(&[]),
                    (Some(false), None) => self.raw_clause(&[b]),
                    (None, Some(false)) => self.raw_clause(&[a]),
                    (None, None) if a == b => self.raw_clause(&[a]),
                    (None, None) if a == !b => {}
                    (None, None) => self.raw_clause(&[a.min(b), a.max(b)]),
                }
                return;
            }
            _ => {}
        }
        let mut clause = std::mem::take(&mut self.clause_buf);
        clause.clear();
        for &l in lits {
            match self.fixed(l) {
                Some(true) => {
                    self.clause_buf = clause;
                    return;
                }
                Some(false) => {}
                None => clause.push(l),
            }
        }
        clause.sort_unstable();
        clause.dedup();
        if !clause.windows(2).any(|w| w[0] == !w[1]) {
            self.raw_clause(&clause);
        }
        self.clause_buf = clause;
    }

    /// Permanently requires `lit` to be true (a unit clause).
    pub fn require(&mut self, lit: Lit) {
        self.add_clause(&[lit]);
    }

    /// Whether the clauses added so far are known to be unsatisfiable
    /// (only detected by propagation or a failed [`Solver::solve`]).
    pub fn is_known_unsat(&self) -> bool {
        match &self.sat {
            Some(sat) => !sat.is_ok(),
            None => self.store_unsat,
        }
    }

    /// Solves under `assumptions`. Returns `true` if satisfiable; the model is then
    /// available through [`Solver::value`]. On `false` the stored model is cleared
    /// and [`Solver::unsat_core`] lists failed assumptions. Assumptions do not persist.
    pub fn solve(&mut self, assumptions: &[Lit]) -> bool {
        if self.solve_raw(assumptions) {
            true
        } else {
            self.model.clear();
            self.model_valid = false;
            false
        }
    }

    /// Value of `lit` in the last model; `false` if there is no model or the
    /// variable was created after the last successful solve.
    pub fn value(&self, lit: Lit) -> bool {
        match self.model.get(lit.var_index() as usize) {
            Some(&b) => b != lit.is_negated(),
            None => false,
        }
    }

    /// Whether a model is stored (the last `solve` succeeded).
    pub fn has_model(&self) -> bool {
        !self.model.is_empty()
    }

    /// The value of `lit` if it is fixed at decision level 0 (implied by the clauses
    /// through unit propagation or learnt facts), `None` otherwise.
    pub fn fixed(&self, lit: Lit) -> Option<bool> {
        let Some(sat) = &self.sat else {
            return match self.assigned[lit.var_index() as usize] {
                0 => None,
                v => Some((v > 0) != lit.is_negated()),
            };
        };
        let v = sat.value_lvl_0(lit.to_bs());
        if v == lbool::TRUE {
            Some(true)
        } else if v == lbool::FALSE {
            Some(false)
        } else {
            None
        }
    }

    /// A subset of the assumptions of the last unsatisfiable [`Solver::solve`]
    /// that is already contradictory with the clauses (empty if the clauses alone are).
    pub fn unsat_core(&self) -> &[Lit] {
        &self.core
    }

    // ----- internals -----

    /// Adds a clause without folding (caller has normalised it).
    pub(crate) fn raw_clause(&mut self, lits: &[Lit]) {
        if self.model_valid && !lits.iter().any(|&l| self.model_has(l)) {
            self.model_valid = false;
        }
        if lits.len() == 1 {
            self.pending_units = true;
        }
        self.clauses.push(lits);
        if let Some(gates) = &mut self.clause_gates {
            gates.push(self.defining);
        }
        match &mut self.sat {
            Some(sat) => Self::add_to_backend(sat, &mut self.scratch, lits),
            None => self.add_to_store(lits),
        }
    }

    /// Adds a clause to a solver without backend, model or facts, as
    /// [`Solver::split`] fills its parts: only a clause of fewer than two
    /// literals can then change anything beyond the store.
    /// `gate`: the gate variable the clause defines, or [`NO_GATE`].
    pub(crate) fn push_clause(&mut self, lits: &[Lit], gate: u32) {
        if lits.len() < 2 || self.sat.is_some() || self.model_valid {
            self.defining = gate;
            self.raw_clause(lits);
            self.defining = NO_GATE;
            return;
        }
        debug_assert!(lits.iter().all(|&l| self.fixed(l).is_none()));
        self.clauses.push(lits);
        if let Some(gates) = &mut self.clause_gates {
            gates.push(gate);
        }
    }

    /// Takes the level-0 `facts` as the current model if they decide every
    /// variable: propagation then found the one model without a conflict,
    /// and no search backend is needed. Whether they did.
    pub(crate) fn adopt_propagated(&mut self, facts: &[i8]) -> bool {
        if facts.contains(&0) {
            return false;
        }
        self.model = facts.iter().map(|&v| v > 0).collect();
        self.model_valid = true;
        true
    }

    /// Makes room in the clause store for `clauses` more clauses of `lits`
    /// literals in all (exactly: [`Solver::split`] knows each part's size).
    pub(crate) fn reserve_store(&mut self, lits: usize, clauses: usize) {
        self.clauses.reserve_exact(lits, clauses);
        if let Some(gates) = &mut self.clause_gates {
            gates.reserve_exact(clauses);
        }
    }

    /// Records from now on which clauses define which gate, so that
    /// [`Split::solve_switched`] follows a gate's definition only from the
    /// gate to its inputs and a question stays near its assumptions (the
    /// parts of [`Solver::split`] inherit the record). Without it, every
    /// definition counts as a clause that is always on: the same answers,
    /// searched on more clauses. Clauses added before count as no definition.
    pub fn record_gates(&mut self) {
        if self.clause_gates.is_none() {
            self.clause_gates = Some(vec![NO_GATE; self.clauses.len()]);
        }
    }

    /// The gate whose definition clause `c` is part of ([`NO_GATE`] if
    /// none, or if gates are not recorded).
    pub(crate) fn clause_gate(&self, c: usize) -> u32 {
        self.clause_gates
            .as_ref()
            .and_then(|gates| gates.get(c).copied())
            .unwrap_or(NO_GATE)
    }

    /// What batsat does when a clause is added: drop it if a literal is true,
    /// drop false literals, record a unit, note an empty clause.
    fn add_to_store(&mut self, lits: &[Lit]) {
        if self.store_unsat {
            return;
        }
        let mut open = None;
        let mut count = 0;
        for &l in lits {
            match self.fixed(l) {
                Some(true) => return,
                Some(false) => {}
                None => {
                    if open != Some(l) {
                        count += 1;
                    }
                    open = Some(l);
                }
            }
        }
        match (open, count) {
            (None, _) => self.store_unsat = true,
            (Some(l), 1) => {
                self.assigned[l.var_index() as usize] = if l.is_negated() { -1 } else { 1 }
            }
            _ => {}
        }
    }

    fn add_to_backend(
        sat: &mut batsat::Solver<Quiet>,
        scratch: &mut Vec<batsat::Lit>,
        lits: &[Lit],
    ) {
        scratch.clear();
        scratch.extend(lits.iter().map(|l| l.to_bs()));
        sat.add_clause_reuse(scratch);
    }

    /// The batsat instance, built from the stored clauses on first use.
    fn backend(&mut self) -> &mut batsat::Solver<Quiet> {
        if self.sat.is_none() {
            let mut sat = batsat::Solver::new(
                SolverOpts::default(),
                Quiet {
                    conflicts_left: u64::MAX,
                },
            );
            sat.new_var(lbool::TRUE, false);
            for _ in 1..self.vars {
                sat.new_var(lbool::FALSE, true);
            }
            for clause in self.clauses.iter() {
                Self::add_to_backend(&mut sat, &mut self.scratch, clause);
            }
            self.assigned = Vec::new();
            self.sat = Some(sat);
        }
        self.sat.as_mut().expect("just built")
    }

    /// Drops the batsat instance, keeping clauses, model and level-0 facts.
    ///
    /// A batsat instance reserves 4 MB up front; a split problem with hundreds
    /// of parts would hold them all at once. The next question rebuilds it
    /// from the clause store (learnt clauses are lost, the facts they implied
    /// are kept).
    pub(crate) fn release_backend(&mut self) {
        let Some(sat) = self.sat.take() else {
            return;
        };
        self.store_unsat = !sat.is_ok();
        self.assigned = (0..self.vars)
            .map(|v| {
                let b = sat.value_lvl_0(Lit::from_var(v).to_bs());
                if b == lbool::TRUE {
                    1
                } else if b == lbool::FALSE {
                    -1
                } else {
                    0
                }
            })
            .collect();
        self.pending_units = false;
    }

    /// Whether the stored model makes `lit` true (and knows its variable).
    fn model_has(&self, lit: Lit) -> bool {
        (lit.var_index() as usize) < self.model.len() && self.value(lit)
    }

    /// Propagates pending unit clauses at level 0 so `fixed` sees their consequences.
    pub(crate) fn propagate_units(&mut self) {
        if self.pending_units {
            self.pending_units = false;
            self.backend().simplify();
        }
    }

    /// The backend's work so far (0 without one): literals propagated plus
    /// a hundred per conflict, a machine-independent measure of searching.
    pub(crate) fn search_work(&self) -> u64 {
        self.sat
            .as_ref()
            .map_or(0, |s| s.num_propagations() + 100 * s.num_conflicts())
    }

    /// Solves; on success stores the model, on failure keeps the previous model.
    pub(crate) fn solve_raw(&mut self, assumptions: &[Lit]) -> bool {
        self.solve_limited(assumptions, u64::MAX) == Some(true)
    }

    /// [`Solver::solve_raw`] that gives up (`None`, previous model kept)
    /// after `conflicts` conflicts.
    pub(crate) fn solve_limited(&mut self, assumptions: &[Lit], conflicts: u64) -> Option<bool> {
        self.backend();
        let sat = self.sat.as_mut().expect("built above");
        self.scratch.clear();
        self.scratch.extend(
            assumptions
                .iter()
                .filter(|&&l| l != self.truth)
                .map(|l| l.to_bs()),
        );
        sat.cb_mut().conflicts_left = conflicts;
        let res = sat.solve_limited(&self.scratch);
        sat.cb_mut().conflicts_left = u64::MAX;
        self.pending_units = false;
        if res == lbool::UNDEF {
            return None;
        }
        if res == lbool::TRUE {
            self.core.clear();
            self.model.clear();
            self.model
                .extend(sat.get_model().iter().map(|&v| v == lbool::TRUE));
            self.model_valid = true;
            Some(true)
        } else {
            // batsat reports the final conflict clause, i.e. negated assumptions.
            self.core.clear();
            self.core
                .extend(sat.unsat_core().iter().map(|&l| !Lit::from_bs(l)));
            self.core.sort_unstable();
            self.core.dedup();
            Some(false)
        }
    }

    /// Ensures the stored model satisfies all clauses; `false` if unsatisfiable.
    pub(crate) fn ensure_model(&mut self) -> bool {
        if self.model_valid && self.model.len() == self.num_vars() as usize {
            return true;
        }
        if self.solve_raw(&[]) {
            true
        } else {
            self.model.clear();
            self.model_valid = false;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unconstrained_vars_are_false() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..20).map(|_| s.new_var()).collect();
        assert!(s.solve(&[]));
        for &x in &xs {
            assert!(!s.value(x));
            assert!(s.value(!x));
        }
        assert!(s.value(s.truth()));
        assert!(!s.value(s.constant(false)));
    }

    /// A solver may move to another thread (`Quiet` keeps the backend
    /// `Send`): what it keeps between questions must be `Send` too.
    #[test]
    fn a_solver_is_send() {
        fn send<T: Send>() {}
        send::<Solver>();
        send::<Split>();
    }

    #[test]
    fn released_backend_keeps_facts_model_and_clauses() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_var(), s.new_var(), s.new_var());
        s.add_clause(&[a, b]);
        s.add_clause(&[!a, c]);
        s.require(!b);
        assert!(s.solve(&[]));
        assert_eq!(s.fixed(a), Some(true));
        s.release_backend();
        assert!(s.sat.is_none());
        // Level-0 facts and the model survive; the clauses are rebuilt.
        assert_eq!(s.fixed(a), Some(true));
        assert_eq!(s.fixed(c), Some(true));
        assert!(s.value(a) && s.value(c) && !s.value(b));
        assert!(!s.solve(&[!c]));
        s.release_backend();
        assert!(s.solve(&[]));
        s.require(!c);
        s.release_backend();
        assert!(s.is_known_unsat() || !s.solve(&[]));
    }

    #[test]
    fn lit_basics() {
        let mut s = Solver::new();
        let x = s.new_var();
        assert!(!x.is_negated());
        assert!((!x).is_negated());
        assert_eq!(!!x, x);
        assert_eq!(x.var_index(), (!x).var_index());
        assert_eq!(s.num_vars(), 2);
        assert_eq!(format!("{:?} {:?}", x, !x), "x1 !x1");
        assert_eq!(Lit::from_bs(x.to_bs()), x);
        assert_eq!(Lit::from_bs((!x).to_bs()), !x);
    }

    #[test]
    fn clauses_are_listed_in_order() {
        let mut s = Solver::new();
        let (a, b) = (s.new_var(), s.new_var());
        s.add_clause(&[a, !b]);
        s.add_clause(&[b]);
        let listed: Vec<Vec<Lit>> = s.clauses().map(<[Lit]>::to_vec).collect();
        // The first clause fixes the constant-true variable.
        assert_eq!(listed, vec![vec![s.truth()], vec![a, !b], vec![b]]);
    }

    #[test]
    fn clauses_and_unsat() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        s.add_clause(&[a, b]);
        assert!(s.solve(&[]));
        assert!(s.value(a) || s.value(b));
        s.add_clause(&[!a]);
        assert!(s.solve(&[]));
        assert!(s.value(b) && !s.value(a));
        assert_eq!(s.fixed(b), Some(true));
        s.add_clause(&[!b, a]);
        assert!(!s.solve(&[]));
        assert!(!s.has_model());
        assert!(!s.value(s.truth()));
        assert!(s.is_known_unsat());
        assert!(!s.solve(&[]));
    }

    #[test]
    fn empty_clause_is_unsat() {
        let mut s = Solver::new();
        let f = s.constant(false);
        s.add_clause(&[f]);
        assert!(!s.solve(&[]));
        let mut s = Solver::new();
        s.add_clause(&[]);
        assert!(!s.solve(&[]));
    }

    #[test]
    fn tautologies_and_true_literals_are_dropped() {
        let mut s = Solver::new();
        let a = s.new_var();
        let before = s.num_clauses();
        s.add_clause(&[a, !a]);
        let t = s.truth();
        s.add_clause(&[a, t]);
        assert_eq!(s.num_clauses(), before);
        assert!(s.solve(&[]));
        assert!(!s.value(a));
    }

    #[test]
    fn assumptions_do_not_persist() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        s.add_clause(&[!a, !b]);
        assert!(s.solve(&[a]));
        assert!(s.value(a) && !s.value(b));
        assert!(!s.solve(&[a, b]));
        let core = s.unsat_core().to_vec();
        assert!(!core.is_empty());
        assert!(core.iter().all(|l| *l == a || *l == b));
        assert!(s.solve(&[b]));
        assert!(s.value(b) && !s.value(a));
        assert!(s.solve(&[]));
        assert!(!s.value(a) && !s.value(b));
        let f = s.constant(false);
        assert!(!s.solve(&[f]));
        assert!(s.solve(&[]));
    }
}
