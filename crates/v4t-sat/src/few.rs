//! Questions over few variables: every assignment, by unit propagation.
//!
//! Most templates have a handful of inputs, and the analyses ask about
//! them again and again: how many configurations are solvable, allowed or
//! failing, which check a configuration fails first, which is the smallest
//! failing one. The general answers (the counter of [`Solver::count`], one
//! solve per question) cost as much for three input literals as for three
//! hundred: the counter copies and simplifies the whole problem, and every
//! solve assigns every variable. With at most [`FEW`] free variables to
//! branch on, trying every assignment is cheaper: a propagator over the
//! clauses that can undo its facts walks the assignments depth first, and
//! almost every leaf is decided by propagation alone (a conflict, or every
//! clause satisfied). A leaf that is not is asked of the search backend, a
//! few times at most ([`FALLBACK_SOLVES`]); beyond that the caller answers
//! the general way. The answers are the same either way.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;

use crate::count::CountBudget;
use crate::gates::FxHasher;
use crate::natural::Natural;
use crate::propagate::Store;
use crate::{Lit, Solver};

/// At most this many free variables are branched on (1,024 leaves).
const FEW: usize = 10;

/// Branch literals (counted with repeats) the level-0 facts leave free
/// beyond [`FEW`] that the assumptions may still fix before the
/// enumeration is not tried at all.
const FEW_FIXED: usize = 54;

/// Leaves propagation leaves open that may be asked of the backend before
/// the enumeration gives up.
const FALLBACK_SOLVES: usize = 8;

/// What a walk does on each assignment that has a model, given the value
/// of every variable in one: go on, or stop.
type OnLeaf<'a> = dyn FnMut(&dyn Fn(u32) -> bool) -> ControlFlow<()> + 'a;

/// Distinct value vectors, as packed bits.
type Images = HashSet<Vec<u64>, BuildHasherDefault<FxHasher>>;

impl Solver {
    /// The number of distinct assignments of `image` over the models in
    /// which `assumptions` hold (`facts`: the level-0 value of every
    /// variable, as [`Solver::level0`] gives them), found by trying every
    /// assignment of the variables of `branch` the assumptions leave free,
    /// if there are at most [`FEW`]; `None` if there are more, if too many
    /// leaves need the backend, or if the walk exceeds the budget's
    /// decisions, steps or conflicts (then the caller counts another way,
    /// within the budget).
    ///
    /// Exact only where every model that agrees on `branch` agrees on
    /// `image` (with `image == branch`: always; otherwise the caller knows
    /// that `branch` determines `image`). Signs and repeats in `branch` and
    /// `image` do not matter.
    pub(crate) fn count_few(
        &mut self,
        facts: &[i8],
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        image: &[Lit],
    ) -> Option<Natural> {
        let images = self.images_few(facts, budget, assumptions, branch, image)?;
        Some(Natural::from(images.len() as u128))
    }

    /// The distinct assignments of `image` ([`Solver::count_few`]).
    fn images_few(
        &mut self,
        facts: &[i8],
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        image: &[Lit],
    ) -> Option<Images> {
        let mut images = Images::default();
        let mut vars: Vec<Lit> = branch
            .iter()
            .map(|l| Lit::from_var(l.var_index()))
            .collect();
        vars.sort_unstable();
        let walked = self.walk_few(facts, budget, assumptions, &vars, &mut |value| {
            images.insert(bits(image, value));
            ControlFlow::Continue(())
        })?;
        debug_assert!(walked.is_continue());
        Some(images)
    }

    /// [`Solver::possible_firsts`] where the caller knows that `inputs`
    /// determine `lits` (models that agree on the inputs agree on every
    /// literal of `lits`): each assignment of the inputs has one first
    /// true literal, so where the inputs are few, trying each assignment
    /// finds them all without a solve.
    pub fn possible_firsts_determined(&mut self, inputs: &[Lit], lits: &[Lit]) -> Vec<usize> {
        let few = self
            .level0()
            .and_then(|facts| self.images_few(&facts, &CountBudget::default(), &[], inputs, lits));
        let Some(images) = few else {
            return self.possible_firsts(lits);
        };
        let mut found: Vec<usize> = images
            .iter()
            .filter_map(|bits| {
                let word = bits.iter().position(|&w| w != 0)?;
                Some(64 * word + bits[word].trailing_zeros() as usize)
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The smallest model in which `base` holds, lexicographically over
    /// `order` with false before true, as its values on `order`
    /// ([`Solver::prefer_false_assuming_on_order`]), if `order` has few
    /// free variables and such a model exists; the stored model becomes
    /// one that agrees with it on `order`. `None` otherwise (nothing
    /// changed but the backend's state).
    pub(crate) fn prefer_false_few(&mut self, base: &[Lit], order: &[Lit]) -> Option<()> {
        let facts = self.level0()?;
        let n = self.num_vars();
        let mut smallest = None;
        let budget = CountBudget::default();
        let walked = self.walk_few(&facts, &budget, base, order, &mut |value| {
            smallest = Some((0..n).map(value).collect::<Vec<bool>>());
            ControlFlow::Break(())
        })?;
        let model = smallest.filter(|_| walked.is_break())?;
        self.model = model;
        self.model_valid = true;
        Some(())
    }

    /// Walks the assignments of the variables of `branch` that the
    /// assumptions leave free (at most [`FEW`]) depth first, in the order
    /// given, each literal false before true, and calls `leaf` with the
    /// values of a model (every variable) on each assignment that has
    /// one, until it breaks. `None` if the walk is not tried or gives up
    /// ([`Solver::count_few`]); `Continue` if it visited every assignment.
    fn walk_few(
        &mut self,
        facts: &[i8],
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        leaf: &mut OnLeaf<'_>,
    ) -> Option<ControlFlow<()>> {
        // Not worth a propagator if the assumptions would have to fix
        // almost every branch variable.
        let free = |l: &Lit| facts[l.var_index() as usize] == 0;
        if branch
            .iter()
            .filter(|l| free(l))
            .nth(FEW + FEW_FIXED)
            .is_some()
        {
            return None;
        }
        // A leaf propagation leaves open is asked of the backend while the
        // store is lent to the propagator: build it first.
        self.backend();
        self.lending_store(|sat, store| {
            let mut p = Propagator::new(store, facts);
            if p.conflict || !assumptions.iter().all(|&l| p.assume(l)) {
                return Some(ControlFlow::Continue(()));
            }
            let mut vars: Vec<Lit> = Vec::with_capacity(FEW + 1);
            for &l in branch {
                let v = l.var_index();
                if p.value[v as usize] == 0 && !vars.iter().any(|x| x.var_index() == v) {
                    vars.push(l);
                    if vars.len() > FEW {
                        return None;
                    }
                }
            }
            let mut walk = Walk {
                budget,
                decisions: 0,
                leaf: Vec::with_capacity(assumptions.len() + vars.len()),
                solves: 0,
                on_leaf: leaf,
            };
            walk.leaf.extend_from_slice(assumptions);
            walk.visit(sat, &mut p, &vars)
        })
    }
}

/// The depth-first walk over the assignments of the branch variables.
struct Walk<'a> {
    budget: &'a CountBudget,
    /// Branching decisions made.
    decisions: u64,
    /// The assumptions and the decisions so far (for the backend).
    leaf: Vec<Lit>,
    solves: usize,
    on_leaf: &'a mut OnLeaf<'a>,
}

impl Walk<'_> {
    /// Visits every assignment of `vars` under the current facts; `None`
    /// if the walk gives up.
    fn visit(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator<'_>,
        vars: &[Lit],
    ) -> Option<ControlFlow<()>> {
        let Some((&l, rest)) = vars.split_first() else {
            return self.leaf(sat, p);
        };
        self.decisions += 1;
        if self.decisions > self.budget.decisions || p.visited > self.budget.steps {
            return None;
        }
        for lit in [!l, l] {
            let mark = p.trail.len();
            if p.assume(lit) {
                self.leaf.push(lit);
                let flow = self.visit(sat, p, rest);
                self.leaf.pop();
                if flow?.is_break() {
                    p.undo(mark);
                    return Some(ControlFlow::Break(()));
                }
            }
            p.undo(mark);
        }
        Some(ControlFlow::Continue(()))
    }

    /// A full assignment of the branch variables without conflict: the
    /// leaf callback on a model, if it has one.
    fn leaf(&mut self, sat: &mut Solver, p: &Propagator<'_>) -> Option<ControlFlow<()>> {
        if p.unsatisfied == 0 {
            // Every clause holds: the facts with the rest false are a model.
            return Some((self.on_leaf)(&|v| p.value[v as usize] > 0));
        }
        self.solves += 1;
        if self.solves > FALLBACK_SOLVES {
            return None;
        }
        if !sat.solve_limited(&self.leaf, self.budget.conflicts)? {
            return Some(ControlFlow::Continue(()));
        }
        let model = &sat.model;
        Some((self.on_leaf)(&|v| model[v as usize]))
    }
}

/// The values of the variables of `lits`, packed.
fn bits(lits: &[Lit], value: &dyn Fn(u32) -> bool) -> Vec<u64> {
    let mut out = vec![0u64; lits.len().div_ceil(64)];
    for (i, l) in lits.iter().enumerate() {
        if value(l.var_index()) != l.is_negated() {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

/// Unit propagation that can undo its facts: per clause, the literals not
/// known false and the literals known true; a clause with one literal left
/// and none true makes it a fact. Undoing a fact restores both counters,
/// so a depth-first walk costs the occurrences of the facts it visits.
struct Propagator<'s> {
    store: Store<'s>,
    /// The clauses of the store not satisfied by the level-0 facts, by
    /// position in the store.
    kept: Vec<u32>,
    /// Kept clauses containing each literal not false at level 0 (by code):
    /// `occurs[first[l]..first[l + 1]]`.
    first: Vec<u32>,
    occurs: Vec<u32>,
    /// Per variable: 0 unknown, 1 true, -1 false.
    value: Vec<i8>,
    /// Per clause: literals not known false, and literals known true.
    open: Vec<u32>,
    trues: Vec<u32>,
    /// Clauses without a true literal.
    unsatisfied: usize,
    /// Facts since the level-0 ones, in order; the first `done` have
    /// updated the counters of the clauses they occur in.
    trail: Vec<Lit>,
    done: usize,
    /// A clause has no literal left that is not false.
    conflict: bool,
    /// Clause occurrences visited by propagation (the budget's steps).
    visited: u64,
}

impl<'s> Propagator<'s> {
    /// The propagation of the level-0 `facts` over `store`: its clauses
    /// not satisfied by them (a clause's repeated literals count as often
    /// as they occur, which delays its propagation but never makes it wrong:
    /// a leaf with an unsatisfied clause is asked of the backend).
    fn new(store: Store<'s>, facts: &[i8]) -> Propagator<'s> {
        let (clause_lits, ends) = store;
        let value = facts.to_vec();
        let truth = |l: Lit| match value[l.var_index() as usize] {
            0 => None,
            v => Some((v > 0) != l.is_negated()),
        };
        let codes = 2 * value.len();
        let mut first = vec![0u32; codes + 1];
        let mut kept = Vec::new();
        let mut open = Vec::new();
        let mut begin = 0;
        for (c, &end) in ends.iter().enumerate() {
            let clause = &clause_lits[begin..end];
            begin = end;
            let mut free = 0;
            for &l in clause {
                match truth(l) {
                    None => {
                        free += 1;
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
            }
        }
        for i in 0..codes {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut occurs = vec![0u32; first[codes] as usize];
        for (k, &c) in kept.iter().enumerate() {
            for &l in &clause_lits[clause_range(ends, c as usize)] {
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
            store,
            kept,
            first,
            occurs,
            value,
            trues: vec![0; clauses],
            unsatisfied: clauses,
            open,
            trail: Vec::new(),
            done: 0,
            conflict,
            visited: 0,
        };
        // Clauses of one literal (the backend may not have propagated a
        // clause added without folding).
        for c in 0..clauses {
            if p.open[c] == 1 {
                p.unit(c);
            }
        }
        p.propagate();
        p
    }

    fn occurrences(&self, l: Lit) -> std::ops::Range<usize> {
        self.first[l.0 as usize] as usize..self.first[l.0 as usize + 1] as usize
    }

    /// Makes `lit` a fact and propagates; `false` on a conflict (undo to
    /// before it to go on).
    fn assume(&mut self, lit: Lit) -> bool {
        match self.value[lit.var_index() as usize] {
            0 => {}
            v => return (v > 0) != lit.is_negated() && !self.conflict,
        }
        self.set(lit);
        self.propagate();
        !self.conflict
    }

    fn set(&mut self, lit: Lit) {
        self.value[lit.var_index() as usize] = if lit.is_negated() { -1 } else { 1 };
        self.trail.push(lit);
    }

    /// Clause `c` has at most one literal not known false and none counted
    /// true: a fact from its open literal, or a conflict.
    fn unit(&mut self, c: usize) {
        let (clause_lits, ends) = self.store;
        let mut open = None;
        for &l in &clause_lits[clause_range(ends, self.kept[c] as usize)] {
            match self.value[l.var_index() as usize] {
                0 => open = Some(l),
                // True but not yet counted: satisfied.
                v if (v > 0) != l.is_negated() => return,
                _ => {}
            }
        }
        match open {
            Some(l) => self.set(l),
            None => self.conflict = true,
        }
    }

    /// Counts the facts not yet counted, each completely (so that undoing
    /// restores exactly), until a conflict.
    fn propagate(&mut self) {
        while !self.conflict && self.done < self.trail.len() {
            let fact = self.trail[self.done];
            self.done += 1;
            self.visited += (self.occurrences(fact).len() + self.occurrences(!fact).len()) as u64;
            for i in self.occurrences(fact) {
                let c = self.occurs[i] as usize;
                self.trues[c] += 1;
                if self.trues[c] == 1 {
                    self.unsatisfied -= 1;
                }
            }
            for i in self.occurrences(!fact) {
                let c = self.occurs[i] as usize;
                self.open[c] -= 1;
                if self.open[c] <= 1 && self.trues[c] == 0 && !self.conflict {
                    self.unit(c);
                }
            }
        }
    }

    /// Undoes every fact after the first `mark` of the trail.
    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let fact = self.trail.pop().expect("longer than mark");
            if self.trail.len() < self.done {
                for i in self.occurrences(fact) {
                    let c = self.occurs[i] as usize;
                    self.trues[c] -= 1;
                    if self.trues[c] == 0 {
                        self.unsatisfied += 1;
                    }
                }
                for i in self.occurrences(!fact) {
                    self.open[self.occurs[i] as usize] += 1;
                }
            }
            self.value[fact.var_index() as usize] = 0;
        }
        self.done = self.done.min(mark);
        self.conflict = false;
    }
}

/// The literals of clause `c` of a store are `lits[clause_range(ends, c)]`.
fn clause_range(ends: &[usize], c: usize) -> std::ops::Range<usize> {
    (if c == 0 { 0 } else { ends[c - 1] })..ends[c]
}
