//! Exact projected model counting (sharpSAT-style).
//!
//! [`Solver::count`] counts the assignments of a set of *projection*
//! variables (for v4t: the inputs, or the element presences) that extend to
//! a model of the clauses. It is a DPLL search over the projection variables
//! only, with the three ideas of sharpSAT:
//!
//! * **unit propagation** after each decision (two watched literals);
//! * **component decomposition**: the clauses not yet satisfied fall apart
//!   into parts sharing no unassigned variable, whose counts multiply;
//! * **component caching**: a part is identified by its unassigned variables
//!   and the ids of its clauses of three or more literals (a binary clause
//!   of two unassigned variables is always in the part; a longer clause's
//!   remainder depends on what falsified its other literals), so a part met
//!   again under another assignment is not counted twice.
//!
//! **Projection.** Only projection variables are decided, so two branches
//! never count the same projected assignment. A part without projection
//! variables counts 1 if it is satisfiable and 0 if not; the counter keeps
//! the invariant that the clauses together with the current decisions are
//! satisfiable (checked by the solver's CDCL backend after each decision,
//! skipped when the last model found already agrees with the decisions).
//! Since the parts under the decisions share no variable, every part is
//! then satisfiable: a part without projection variables counts 1, any part
//! at least 1, and a decision the backend refutes makes its branch 0.
//! Decisions in a part made of projection variables only skip the check:
//! every part below it has projection variables, so the search counts it
//! exactly (a conflict gives 0) and never needs the invariant. (Plain model
//! counting, where every variable is projected, needs no check at all.)
//!
//! **Budget.** The search stops deciding after [`CountBudget::decisions`]
//! decisions or [`CountBudget::steps`] steps (a clause visited by
//! propagation or decomposition, a literal propagated or a conflict in a
//! satisfiability check: a measure of work that does not depend on the
//! machine); every part not counted by then contributes 1
//! (it is satisfiable), so the result is a lower bound, reported as not
//! exact. A
//! satisfiability check that exceeds [`CountBudget::conflicts`] makes its
//! branch contribute 0, again inexact. The cache stops growing at
//! [`CountBudget::cache_words`] (slower, never wrong).
//!
//! The search is iterative (an explicit stack), so deep decision paths
//! cannot overflow the call stack.

use crate::eliminate;
use crate::gates::FxHashMap;
use crate::natural::Natural;
use crate::{Lit, Solver};

/// Limits of [`Solver::count`]; none of them is measured in time, so the
/// same problem always gives the same answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountBudget {
    /// Branching decisions on projection variables; once used up, the
    /// parts not yet counted count 1 and the result is a lower bound.
    pub decisions: u64,
    /// Clauses visited by propagation and decomposition plus the work of
    /// satisfiability checks (a literal propagated, a hundred per
    /// conflict); once used up, like `decisions`. Decisions on large parts
    /// cost more steps.
    pub steps: u64,
    /// Conflicts one satisfiability check may take; a check that runs out
    /// makes its branch count 0 and the result a lower bound.
    pub conflicts: u64,
    /// Size of the component cache in 32-bit words of keys (about four
    /// bytes each); a full cache only makes counting slower.
    pub cache_words: usize,
}

impl Default for CountBudget {
    /// A budget that stops after a few seconds of work on the 2-core
    /// development machine (issue 27: exact counts within 5 s where the
    /// search can finish, a lower bound beyond): ten million decisions or
    /// 60 million steps, a hundred thousand conflicts per check, 64 M words
    /// (256 MB) of cache keys. Decisions are cheap on wide product lines
    /// (many small parts), so they get the larger share.
    fn default() -> Self {
        CountBudget {
            decisions: 10_000_000,
            steps: 60_000_000,
            conflicts: 100_000,
            cache_words: 1 << 26,
        }
    }
}

/// The result of [`Solver::count`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// The number of distinct projected models, or a lower bound of it.
    pub value: Natural,
    /// Whether `value` is exact (`false`: the budget ran out, `value` is a
    /// lower bound).
    pub exact: bool,
}

/// The sum of counts of disjoint sets of models: exact if every one is.
impl std::iter::Sum for Count {
    fn sum<I: Iterator<Item = Count>>(counts: I) -> Count {
        counts.fold(
            Count {
                value: Natural::ZERO,
                exact: true,
            },
            |sum, c| Count {
                value: sum.value.add(&c.value),
                exact: sum.exact && c.exact,
            },
        )
    }
}

impl Solver {
    /// The number of assignments of the variables of `projection` that
    /// extend to a model of the clauses in which all of `assumptions` are
    /// true (see the module documentation).
    ///
    /// Signs in `projection` are ignored and repeated variables count once;
    /// an empty projection counts 1 if there is such a model, 0 if not.
    /// The clauses do not change; the current model may change to another
    /// model, and the search backend keeps what it learnt.
    pub fn count(
        &mut self,
        assumptions: &[Lit],
        projection: &[Lit],
        budget: &CountBudget,
    ) -> Count {
        self.count_branching_on(assumptions, Some(projection), projection, budget)
    }

    /// [`Solver::count`] of `projection` without assumptions, where the
    /// caller knows that `inputs` determine it (models that agree on the
    /// variables of `inputs` agree on those of `projection`): where the
    /// inputs are few, every assignment of them is tried instead.
    pub fn count_determined(
        &mut self,
        inputs: &[Lit],
        projection: &[Lit],
        budget: &CountBudget,
    ) -> Count {
        self.count_branching_on(&[], Some(inputs), projection, budget)
    }

    /// [`Solver::count`] by the general counter only (for tests that
    /// compare it with brute force).
    #[cfg(test)]
    fn count_general(&mut self, assumptions: &[Lit], projection: &[Lit]) -> Count {
        self.count_branching_on(assumptions, None, projection, &CountBudget::default())
    }

    /// [`Solver::count`], trying every assignment of `branch` if there is
    /// one and it has few free variables ([`Solver::count_few`]).
    fn count_branching_on(
        &mut self,
        assumptions: &[Lit],
        branch: Option<&[Lit]>,
        projection: &[Lit],
        budget: &CountBudget,
    ) -> Count {
        let exact = |value| Count { value, exact: true };
        if let Some(branch) = branch.filter(|_| !projection.is_empty()) {
            if let Some(value) = self.count_few(budget, assumptions, branch, projection) {
                return exact(value);
            }
        }
        let Some(facts) = self.level0() else {
            return exact(Natural::ZERO);
        };
        if assumptions.is_empty() && self.adopt_propagated(&facts) {
            // The one model, found without a search backend (a template
            // without variability inputs).
            return exact(Natural::ONE);
        }
        let satisfiable = if assumptions.is_empty() {
            self.ensure_model()
        } else {
            self.solve_raw(assumptions)
        };
        if !satisfiable {
            return exact(Natural::ZERO);
        }
        if projection.is_empty() {
            // Satisfiable: what the counter finds without branching (and
            // without a copy of the clauses).
            return exact(Natural::ONE);
        }
        match Counter::new(self, facts, assumptions, projection, *budget) {
            Some(mut counter) => {
                let (value, exact) = counter.run(self);
                Count { value, exact }
            }
            None => exact(Natural::ZERO),
        }
    }
}

/// How many models [`Counter::remember`] keeps.
const MODELS: usize = 4;

/// Decisions after which a count starts again, branching by an
/// elimination order ([`Counter::rank`]).
const RANK_AFTER: u64 = 4096;

/// Parts of at least this many variables in binary clauses only branch
/// near the middle of their search order ([`Counter::decompose`]).
const HALVE_FROM: usize = 64;

/// Decisions that assign all of their part which are checked all the
/// same before the rest are not ([`Counter::decide`]).
const FIXING_BEFORE_SKIP: u32 = 16;

/// No variable (a part without projection variables has no branch variable).
const NONE: u32 = u32::MAX;

/// One part of the clauses under the current assignment.
struct Part {
    /// Sorted unassigned variables, [`NONE`], sorted ids of long clauses.
    key: Box<[u32]>,
    /// Number of variables at the start of `key`.
    vars: usize,
    /// The projection variable to branch on ([`NONE`] if there is none).
    branch: u32,
    /// It has a variable outside the projection (so deciding in it needs
    /// satisfiability checks; see [`Counter::decide`]).
    mixed: bool,
}

impl Part {
    fn vars(&self) -> &[u32] {
        &self.key[..self.vars]
    }
}

/// A product of parts being counted: one branch of a [`Frame`], or the root.
struct Product {
    parts: Vec<Part>,
    next: usize,
    value: Natural,
    exact: bool,
}

impl Product {
    /// Multiplies a part's count in; after a zero the other parts need no counting.
    fn multiply(&mut self, value: &Natural, exact: bool) {
        self.value = self.value.mul(value);
        self.exact &= exact;
        if self.value.is_zero() {
            self.next = self.parts.len();
        }
    }

    fn new(parts: Vec<Part>, free: u32) -> Product {
        Product {
            parts,
            next: 0,
            value: Natural::pow2(free),
            exact: true,
        }
    }
}

/// A part being counted by branching on one projection variable.
struct Frame {
    part: Part,
    /// Value of the first branch (the last model's, so it needs no check).
    first: bool,
    /// The branch being counted (0 or 1; 2 when both are done).
    branch: u8,
    /// Sum of the finished branches.
    sum: Natural,
    exact: bool,
    /// Trail length before the branch's decision.
    trail_len: usize,
    /// The open branch's decision was not checked for satisfiability.
    unchecked: bool,
    /// The open branch's product.
    product: Product,
}

/// What entering a part gives: its count (and whether it is exact), or a
/// frame branching on it.
enum Entered {
    Counted(Natural, bool),
    Branching(Frame),
}

/// The search state: the simplified clauses, the assignment and the cache.
struct Counter {
    /// Clause literals; clause `c` is `lits[start[c]..start[c + 1]]`, the
    /// first two are watched.
    lits: Vec<Lit>,
    start: Vec<u32>,
    /// Clauses watching each literal (indexed by the literal's code).
    watches: Vec<Vec<u32>>,
    /// Clauses containing each variable: `occurs[occ_start[v]..occ_start[v + 1]]`.
    occ_start: Vec<u32>,
    occurs: Vec<u32>,
    /// Value per variable: 0 unassigned, 1 true, -1 false.
    value: Vec<i8>,
    trail: Vec<Lit>,
    projected: Vec<bool>,
    /// Decisions of the open branches, in order (the backend's assumptions).
    decisions: Vec<Lit>,
    /// Decomposition marks (`== stamp`: seen in the current decomposition).
    var_mark: Vec<u32>,
    clause_mark: Vec<u32>,
    stamp: u32,
    /// Unsatisfied clauses per variable, counted while decomposing.
    degree: Vec<u32>,
    /// Per variable, its rank in an elimination order ([`crate::order`]):
    /// the higher, the earlier it is decided; empty for the plain heuristic.
    rank: Vec<u32>,
    /// The order was computed (see [`Counter::rank`]).
    ranked: bool,
    cache: FxHashMap<Box<[u32]>, Natural>,
    cache_words: usize,
    budget: CountBudget,
    decisions_made: u64,
    /// Clauses visited so far (see [`CountBudget::steps`]).
    steps: u64,
    /// Open branches whose decision was not checked (see [`Counter::decide`]).
    unchecked: u32,
    /// Decisions so far whose propagation assigned all of their part.
    fixing: u32,
    /// The last few models the backend found (its own holds only the last).
    models: Vec<Vec<bool>>,
    next_model: usize,
    /// A check or the decision budget ran out somewhere.
    exhausted: bool,
}

impl Counter {
    /// The clauses of `solver` without the level-0 `facts`, with the units
    /// that remain and the `assumptions` propagated and the variables
    /// outside the projection eliminated where that is cheap
    /// ([`eliminate::simplify`]); `None` if that finds a conflict.
    fn new(
        solver: &Solver,
        facts: Vec<i8>,
        assumptions: &[Lit],
        projection: &[Lit],
        budget: CountBudget,
    ) -> Option<Counter> {
        let n = facts.len();
        let mut lits = Vec::new();
        let mut start = vec![0u32];
        let mut clause = Vec::new();
        let mut units = Vec::new();
        let is_true = |l: Lit| {
            let v = facts[l.var_index() as usize];
            v != 0 && (v > 0) != l.is_negated()
        };
        for original in solver.clauses.iter() {
            if original.iter().any(|&l| is_true(l)) {
                continue;
            }
            clause.clear();
            clause.extend(
                original
                    .iter()
                    .copied()
                    .filter(|l| facts[l.var_index() as usize] == 0),
            );
            clause.sort_unstable();
            clause.dedup();
            if clause.windows(2).any(|w| w[0] == !w[1]) {
                continue;
            }
            match clause[..] {
                // The backend may not have propagated every unit (a clause
                // added without folding can become one).
                [] => return None,
                [unit] => {
                    units.push(unit);
                    continue;
                }
                _ => {}
            }
            lits.extend_from_slice(&clause);
            start.push(lits.len() as u32);
        }
        let mut projected = vec![false; n];
        for l in projection {
            if let Some(p) = projected.get_mut(l.var_index() as usize) {
                *p = true;
            }
        }
        let mut value = facts;
        let mut steps = 0;
        units.extend_from_slice(assumptions);
        let simplified = eliminate::simplify(
            eliminate::Clauses { lits, start },
            &mut value,
            &units,
            &projected,
            &mut steps,
        )?;
        let (lits, start) = (simplified.lits, simplified.start);
        let clauses = start.len() - 1;
        let mut watches = vec![Vec::new(); 2 * n];
        let mut occ_start = vec![0u32; n + 1];
        for c in 0..clauses {
            let cl = &lits[start[c] as usize..start[c + 1] as usize];
            watches[cl[0].0 as usize].push(c as u32);
            watches[cl[1].0 as usize].push(c as u32);
            for l in cl {
                occ_start[l.var_index() as usize + 1] += 1;
            }
        }
        for v in 0..n {
            occ_start[v + 1] += occ_start[v];
        }
        let mut fill = occ_start.clone();
        let mut occurs = vec![0u32; occ_start[n] as usize];
        for c in 0..clauses {
            for l in &lits[start[c] as usize..start[c + 1] as usize] {
                let slot = &mut fill[l.var_index() as usize];
                occurs[*slot as usize] = c as u32;
                *slot += 1;
            }
        }
        let counter = Counter {
            lits,
            start,
            watches,
            occ_start,
            occurs,
            value,
            trail: Vec::new(),
            projected,
            // Every satisfiability check assumes them.
            decisions: assumptions.to_vec(),
            var_mark: vec![0; n],
            clause_mark: vec![0; clauses],
            stamp: 0,
            degree: vec![0; n],
            rank: Vec::new(),
            ranked: false,
            cache: FxHashMap::default(),
            cache_words: 0,
            budget,
            decisions_made: 0,
            steps,
            unchecked: 0,
            fixing: 0,
            models: Vec::new(),
            next_model: 0,
            exhausted: false,
        };
        Some(counter)
    }

    /// Counts every part of the clauses and multiplies the counts.
    fn run(&mut self, oracle: &mut Solver) -> (Natural, bool) {
        let all: Vec<u32> = (0..self.value.len() as u32).collect();
        let (parts, free) = self.decompose(&all);
        let mut root = Product::new(parts, free);
        let mut frames: Vec<Frame> = Vec::new();
        loop {
            if !self.ranked && self.decisions_made >= RANK_AFTER && self.rank() {
                // A hard count: start again, deciding by the elimination
                // order (the cache keeps what was counted).
                while let Some(frame) = frames.pop() {
                    self.close_branch(&frame);
                }
                debug_assert!(self.trail.is_empty(), "back at the root");
                let (parts, free) = self.decompose(&all);
                root = Product::new(parts, free);
            }
            let product = frames.last_mut().map_or(&mut root, |f| &mut f.product);
            if product.next < product.parts.len() {
                let part = std::mem::replace(
                    &mut product.parts[product.next],
                    Part {
                        key: Box::new([]),
                        vars: 0,
                        branch: NONE,
                        mixed: false,
                    },
                );
                product.next += 1;
                match self.enter(part, oracle) {
                    Entered::Counted(value, exact) => {
                        let product = frames.last_mut().map_or(&mut root, |f| &mut f.product);
                        product.multiply(&value, exact);
                    }
                    Entered::Branching(frame) => frames.push(frame),
                }
                continue;
            }
            // The top product is complete: its branch is done.
            let Some(frame) = frames.last_mut() else {
                return (root.value, root.exact && !self.exhausted);
            };
            frame.sum = frame.sum.add(&frame.product.value);
            frame.exact &= frame.product.exact;
            self.close_branch(frame);
            frame.branch += 1;
            if self.open_branch(frame, oracle) {
                continue;
            }
            let frame = frames.pop().expect("top frame exists");
            let (value, exact) = self.finish(frame);
            let product = frames.last_mut().map_or(&mut root, |f| &mut f.product);
            product.multiply(&value, exact);
        }
    }

    /// Ranks the variables by an elimination order of the clauses
    /// ([`crate::order`]) for the search to start again; `false` if the
    /// clauses are too large for one (the search goes on as it is). Most
    /// counts (`analyze --details` makes one per element) end within
    /// [`RANK_AFTER`] decisions and never pay for the order.
    fn rank(&mut self) -> bool {
        self.ranked = true;
        match crate::order::elimination_ranks(&self.lits, &self.start, &self.projected) {
            Some(rank) => {
                self.rank = rank;
                true
            }
            None => false,
        }
    }

    /// The count of `part` if it is known without branching, else a frame
    /// that branches on it (its first branch open).
    fn enter(&mut self, part: Part, oracle: &mut Solver) -> Entered {
        if part.branch == NONE {
            return Entered::Counted(Natural::ONE, true);
        }
        if let Some(v) = self.cache.get(&part.key) {
            return Entered::Counted(v.clone(), true);
        }
        if self.decisions_made >= self.budget.decisions || self.steps >= self.budget.steps {
            // Satisfiable if checked (the invariant): at least one projected model.
            self.exhausted = true;
            // Unchecked: one check tells whether every part is satisfiable.
            let satisfiable = self.unchecked == 0
                || self.known_satisfiable(oracle)
                || oracle.solve_limited(&self.decisions, self.budget.conflicts) == Some(true);
            let bound = if satisfiable {
                Natural::ONE
            } else {
                Natural::ZERO
            };
            return Entered::Counted(bound, false);
        }
        debug_assert!(
            !part.mixed || self.unchecked == 0,
            "mixed parts are entered checked"
        );
        let var = Lit::from_var(part.branch);
        let first = oracle.has_model() && oracle.value(var);
        let mut frame = Frame {
            part,
            first,
            branch: 0,
            sum: Natural::ZERO,
            exact: true,
            trail_len: self.trail.len(),
            unchecked: false,
            product: Product::new(Vec::new(), 0),
        };
        if self.open_branch(&mut frame, oracle) {
            Entered::Branching(frame)
        } else {
            let (value, exact) = self.finish(frame);
            Entered::Counted(value, exact)
        }
    }

    /// Opens `frame.branch` or the first later branch whose decision is
    /// consistent; `false` if none is left.
    fn open_branch(&mut self, frame: &mut Frame, oracle: &mut Solver) -> bool {
        while frame.branch < 2 {
            let positive = frame.first == (frame.branch == 0);
            let var = Lit::from_var(frame.part.branch);
            let lit = if positive { var } else { !var };
            self.decisions_made += 1;
            if let Some(unchecked) = self.decide(lit, &frame.part, oracle) {
                frame.unchecked = unchecked;
                self.unchecked += u32::from(unchecked);
                let (parts, free) = self.decompose(frame.part.vars());
                frame.product = Product::new(parts, free);
                return true;
            }
            frame.branch += 1;
        }
        false
    }

    /// Assigns and propagates `lit` in `part` and checks that the clauses
    /// stay satisfiable under the decisions where that is needed; `None`
    /// (nothing left assigned) if they do not, else whether the decision
    /// went unchecked.
    ///
    /// A part of projection variables only needs no check: its sub-parts
    /// have projection variables too, so the search counts them exactly
    /// (possibly 0) without the invariant. Only a part with other variables
    /// relies on it (its sub-parts without projection variables count 1).
    /// Nor does a decision whose propagation assigns every variable of its
    /// part (one value of an input of many values, which fixes the others):
    /// without a conflict that is a model of the part, and the parts beside
    /// it keep theirs. Such decisions are checked all the same until they
    /// recur: a check's model serves the decisions after it too, and on
    /// family 2 skipping its four such checks cost 143 more later on.
    fn decide(&mut self, lit: Lit, part: &Part, oracle: &mut Solver) -> Option<bool> {
        let at = self.trail.len();
        self.assign(lit);
        if !self.propagate(at) {
            self.undo(at);
            return None;
        }
        self.decisions.push(lit);
        let unchecked = !part.mixed;
        let known = unchecked || self.known_satisfiable(oracle) || self.fixes(part);
        if !known {
            #[cfg(test)]
            tests::CHECKS.with(|n| n.set(n.get() + 1));
            let before = oracle.search_work();
            let answer = oracle.solve_limited(&self.decisions, self.budget.conflicts);
            self.steps += oracle.search_work().saturating_sub(before);
            match answer {
                Some(true) => self.remember(oracle),
                answer => {
                    self.exhausted |= answer.is_none();
                    self.decisions.pop();
                    self.undo(at);
                    return None;
                }
            }
        }
        Some(unchecked)
    }

    /// Whether the last decision's propagation assigned every variable of
    /// `part`, once such decisions have recurred [`FIXING_BEFORE_SKIP`]
    /// times in this count (see [`Counter::decide`]).
    fn fixes(&mut self, part: &Part) -> bool {
        if !(part.vars().iter()).all(|&v| self.value[v as usize] != 0) {
            return false;
        }
        self.fixing += 1;
        self.fixing > FIXING_BEFORE_SKIP
    }

    /// Whether the backend's model or a remembered one agrees with every decision.
    fn known_satisfiable(&self, oracle: &Solver) -> bool {
        let agrees = |value: &dyn Fn(Lit) -> bool| self.decisions.iter().all(|&d| value(d));
        (oracle.has_model() && agrees(&|d| oracle.value(d)))
            || self.models.iter().any(|m| {
                agrees(&|d: Lit| {
                    m.get(d.var_index() as usize)
                        .is_some_and(|&b| b != d.is_negated())
                })
            })
    }

    /// Keeps a copy of the backend's model among the last few.
    fn remember(&mut self, oracle: &Solver) {
        if self.models.len() < MODELS {
            self.models.push(oracle.model.clone());
        } else {
            let slot = &mut self.models[self.next_model];
            slot.clear();
            slot.extend_from_slice(&oracle.model);
        }
        self.next_model = (self.next_model + 1) % MODELS;
    }

    /// Takes back the decision of the open branch of `frame`.
    fn close_branch(&mut self, frame: &Frame) {
        self.decisions.pop();
        self.unchecked -= u32::from(frame.unchecked);
        self.undo(frame.trail_len);
    }

    /// The count of a frame whose branches are done; cached if exact.
    fn finish(&mut self, frame: Frame) -> (Natural, bool) {
        if frame.exact {
            let words = frame.part.key.len();
            if self.cache_words + words <= self.budget.cache_words {
                self.cache_words += words;
                self.cache.insert(frame.part.key, frame.sum.clone());
            }
        }
        (frame.sum, frame.exact)
    }

    fn assign(&mut self, l: Lit) {
        self.value[l.var_index() as usize] = if l.is_negated() { -1 } else { 1 };
        self.trail.push(l);
    }

    fn lit_value(&self, l: Lit) -> i8 {
        let v = self.value[l.var_index() as usize];
        if l.is_negated() {
            -v
        } else {
            v
        }
    }

    fn undo(&mut self, len: usize) {
        for l in self.trail.drain(len..) {
            self.value[l.var_index() as usize] = 0;
        }
    }

    /// Unit propagation of the trail from position `head` (two watched
    /// literals); `false` on a conflict.
    fn propagate(&mut self, mut head: usize) -> bool {
        while let Some(&p) = self.trail.get(head) {
            head += 1;
            let falsified = !p;
            let mut watchers = std::mem::take(&mut self.watches[falsified.0 as usize]);
            self.steps += watchers.len() as u64;
            let mut keep = 0;
            let mut i = 0;
            let mut ok = true;
            while i < watchers.len() {
                let c = watchers[i];
                i += 1;
                let (s, e) = (
                    self.start[c as usize] as usize,
                    self.start[c as usize + 1] as usize,
                );
                if self.lits[s] == falsified {
                    self.lits.swap(s, s + 1);
                }
                let other = self.lits[s];
                if self.lit_value(other) > 0 {
                    watchers[keep] = c;
                    keep += 1;
                    continue;
                }
                if let Some(k) = (s + 2..e).find(|&k| self.lit_value(self.lits[k]) >= 0) {
                    self.lits.swap(s + 1, k);
                    self.watches[self.lits[s + 1].0 as usize].push(c);
                    continue;
                }
                watchers[keep] = c;
                keep += 1;
                if self.lit_value(other) < 0 {
                    // Conflict: keep the remaining watchers.
                    while i < watchers.len() {
                        watchers[keep] = watchers[i];
                        keep += 1;
                        i += 1;
                    }
                    ok = false;
                } else {
                    self.assign(other);
                }
            }
            watchers.truncate(keep);
            self.watches[falsified.0 as usize] = watchers;
            if !ok {
                return false;
            }
        }
        true
    }

    /// The projection variable of `members` (in breadth-first order) in
    /// most open clauses, the nearest to the middle of that order on a
    /// tie; resets their degrees.
    fn near_the_middle(&mut self, members: &[u32]) -> u32 {
        let middle = members.len() / 2;
        let mut branch = NONE;
        let mut best = (0, 0);
        for (k, &m) in members.iter().enumerate() {
            let d = std::mem::take(&mut self.degree[m as usize]);
            let score = (d, usize::MAX - k.abs_diff(middle));
            if self.projected[m as usize] && score > best {
                best = score;
                branch = m;
            }
        }
        branch
    }

    /// The parts of the clauses not yet satisfied among the unassigned
    /// variables of `vars`, and the number of unassigned projection
    /// variables of `vars` in no such clause (each doubles the count).
    fn decompose(&mut self, vars: &[u32]) -> (Vec<Part>, u32) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.var_mark.fill(0);
            self.clause_mark.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut parts = Vec::new();
        let mut free = 0;
        let mut members: Vec<u32> = Vec::new();
        let mut long: Vec<u32> = Vec::new();
        for &root in vars {
            if self.value[root as usize] != 0 || self.var_mark[root as usize] == stamp {
                continue;
            }
            self.var_mark[root as usize] = stamp;
            members.clear();
            long.clear();
            members.push(root);
            let mut next = 0;
            while let Some(&x) = members.get(next) {
                next += 1;
                let occ =
                    self.occ_start[x as usize] as usize..self.occ_start[x as usize + 1] as usize;
                for i in occ {
                    let c = self.occurs[i] as usize;
                    if self.clause_mark[c] == stamp {
                        continue;
                    }
                    self.clause_mark[c] = stamp;
                    let clause = &self.lits[self.start[c] as usize..self.start[c + 1] as usize];
                    self.steps += clause.len() as u64;
                    if clause.iter().any(|&l| self.lit_value(l) > 0) {
                        continue;
                    }
                    if clause.len() >= 3 {
                        long.push(c as u32);
                    }
                    for &l in clause {
                        let y = l.var_index() as usize;
                        if self.value[y] != 0 {
                            continue;
                        }
                        self.degree[y] += 1;
                        if self.var_mark[y] != stamp {
                            self.var_mark[y] = stamp;
                            members.push(y as u32);
                        }
                    }
                }
            }
            if self.degree[root as usize] == 0 {
                // In no open clause (so alone): a free variable.
                free += u32::from(self.projected[root as usize]);
                continue;
            }
            // Branch on the projection variable in most open clauses, the
            // first by elimination rank, then by number. In a long part of
            // binary clauses (a chain of `or`s or implications) the first
            // by number, or by rank, is an end of the chain, and each
            // decision there decomposes the rest again (quadratic): there,
            // the tie goes to the variable nearest the middle of the
            // breadth-first order, which on a chain is its middle.
            let mut branch = NONE;
            if long.is_empty() && members.len() >= HALVE_FROM {
                branch = self.near_the_middle(&members);
            } else {
                let mut best = (0, 0);
                for &m in &members {
                    let d = std::mem::take(&mut self.degree[m as usize]);
                    let score = (self.rank.get(m as usize).copied().unwrap_or(0), d);
                    if self.projected[m as usize] && (score > best || (score == best && m < branch))
                    {
                        best = score;
                        branch = m;
                    }
                }
            }
            let key = if branch == NONE {
                Box::new([]) as Box<[u32]>
            } else {
                members.sort_unstable();
                long.sort_unstable();
                let mut key = Vec::with_capacity(members.len() + 1 + long.len());
                key.extend_from_slice(&members);
                key.push(NONE);
                key.extend_from_slice(&long);
                key.into_boxed_slice()
            };
            let mixed = members.iter().any(|&m| !self.projected[m as usize]);
            parts.push(Part {
                key,
                vars: if branch == NONE { 0 } else { members.len() },
                branch,
                mixed,
            });
        }
        (parts, free)
    }
}

#[cfg(test)]
mod tests {
    use super::CountBudget;
    use crate::natural::Natural;
    use crate::testutil::{assignments, fixing, models, random_cnf, random_lit, Rng};
    use crate::{Lit, Solver};
    use std::cell::Cell;
    use std::collections::BTreeSet;

    thread_local! {
        /// Satisfiability checks of a decision ([`super::Counter::decide`]) on this thread.
        pub(super) static CHECKS: Cell<usize> = const { Cell::new(0) };
    }

    /// The number of distinct restrictions of the models to `projection`.
    fn brute_force(vars: &[Lit], cnf: &[Vec<Lit>], projection: &[usize]) -> u128 {
        let set: BTreeSet<Vec<bool>> = models(vars, cnf)
            .into_iter()
            .map(|m| projection.iter().map(|&i| m[i]).collect())
            .collect();
        set.len() as u128
    }

    /// Random CNFs of up to 18 variables, sometimes in independent blocks
    /// (components), with random projections: counts equal brute force.
    #[test]
    fn projected_counts_match_brute_force() {
        let mut rng = Rng::new(31);
        for round in 0..600 {
            let mut s = Solver::new();
            let n = 1 + rng.below(18) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let blocks = 1 + rng.below(4) as usize;
            let mut cnf = Vec::new();
            for b in 0..blocks {
                let members: Vec<Lit> = vars.iter().copied().skip(b).step_by(blocks).collect();
                if members.is_empty() {
                    continue;
                }
                let k = rng.below(2 * members.len() as u64 + 2) as usize;
                cnf.extend(random_cnf(&mut rng, &members, k));
            }
            // Longer clauses too (component keys with long clause ids).
            for _ in 0..rng.below(3) {
                let long: Vec<Lit> = (0..3 + rng.below(3))
                    .map(|_| random_lit(&mut rng, &vars))
                    .collect();
                cnf.push(long);
            }
            for c in &cnf {
                s.add_clause(c);
            }
            let projection: Vec<usize> = (0..n).filter(|_| rng.below(3) != 0).collect();
            let lits: Vec<Lit> = projection.iter().map(|&i| vars[i]).collect();
            if round % 5 == 0 {
                s.solve(&[]);
            }
            // Sometimes under assumptions: like unit clauses.
            let assumptions: Vec<Lit> = (0..rng.below(3))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let got = s.count(&assumptions, &lits, &CountBudget::default());
            assert_eq!(s.count_general(&assumptions, &lits), got, "round {round}");
            let mut constrained = cnf.clone();
            constrained.extend(assumptions.iter().map(|&a| vec![a]));
            let want = brute_force(&vars, &constrained, &projection);
            assert!(got.exact, "round {round}");
            assert_eq!(
                got.value.to_u128(),
                Some(want),
                "round {round}: {cnf:?} on {projection:?}"
            );
        }
    }

    /// Few projection variables over dense 3-CNFs near the satisfiability
    /// threshold: the parts left without projection variables are often
    /// unsatisfiable without propagation noticing, so the count depends on
    /// the satisfiability checks.
    #[test]
    fn hidden_conflicts_beyond_the_projection() {
        let mut rng = Rng::new(1234);
        for round in 0..300 {
            let mut s = Solver::new();
            let n = 8 + rng.below(9) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = 3 * n + rng.below(2 * n as u64) as usize;
            let cnf: Vec<Vec<Lit>> = (0..k)
                .map(|_| (0..3).map(|_| random_lit(&mut rng, &vars)).collect())
                .collect();
            for c in &cnf {
                s.add_clause(c);
            }
            let projection: Vec<usize> = (0..1 + rng.below(4) as usize)
                .map(|_| rng.below(n as u64) as usize)
                .collect();
            let lits: Vec<Lit> = projection.iter().map(|&i| vars[i]).collect();
            let got = s.count(&[], &lits, &CountBudget::default());
            assert_eq!(s.count_general(&[], &lits), got, "round {round}");
            let want = brute_force(&vars, &cnf, &projection);
            assert!(got.exact);
            assert_eq!(got.value.to_u128(), Some(want), "round {round}");
        }
    }

    /// One input of many values, each value a projected element, and one
    /// value without an element: deciding an element true fixes every
    /// other value by propagation, so after the first few such decisions
    /// only the branches that leave values open are checked, not one per
    /// value.
    #[test]
    fn one_value_of_many_is_counted_without_a_check_each() {
        let n = 400;
        let mut s = Solver::new();
        let values: Vec<Lit> = (0..=n).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&values);
        s.require(one);
        let elements: Vec<Lit> = values[..n].iter().map(|&v| s.and(&[v, v])).collect();
        CHECKS.with(|c| c.set(0));
        let got = s.count(&[], &elements, &CountBudget::default());
        let checks = CHECKS.with(Cell::get);
        assert!(got.exact);
        assert_eq!(got.value.to_u128(), Some(n as u128 + 1));
        assert!(checks < 40, "{checks} checks");
    }

    /// Gates add auxiliary variables outside the projection: the count over
    /// the inputs is the number of input assignments making the formula true.
    #[test]
    fn counts_through_gates() {
        let mut rng = Rng::new(8);
        for round in 0..200 {
            let mut s = Solver::new();
            let n = 2 + rng.below(12) as usize;
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let mut fs = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let pick = |rng: &mut Rng| random_lit(rng, &xs);
                let (a, b, c) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
                let g = match rng.below(4) {
                    0 => s.and(&[a, b]),
                    1 => s.or(&[a, b, c]),
                    2 => s.xor(&[a, b]),
                    _ => s.exactly_one(&[a, b, c]),
                };
                fs.push((g, [a, b, c], round));
            }
            let all: Vec<Lit> = fs.iter().map(|f| f.0).collect();
            let top = s.or(&all);
            s.require(top);
            let got = s.count(&[], &xs, &CountBudget::default());
            assert_eq!(s.count_general(&[], &xs), got, "round {round}");
            // Brute force over the inputs: evaluate through a fresh solve.
            let mut want = 0u128;
            for bits in assignments(n) {
                want += u128::from(s.solve(&fixing(&xs, &bits)));
            }
            assert!(got.exact);
            assert_eq!(got.value.to_u128(), Some(want), "round {round}");
        }
    }

    /// Presences defined by hidden inputs (gates over variables outside
    /// the projection, a few constraints among them), projected on a
    /// random subset of the gates: the number of distinct gate values over
    /// all input assignments that satisfy the constraints.
    #[test]
    fn counts_images_of_hidden_inputs() {
        let mut rng = Rng::new(77);
        for round in 0..300 {
            let mut s = Solver::new();
            let n = 1 + rng.below(12) as usize;
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let mut pool = xs.clone();
            let mut gates = Vec::new();
            for _ in 0..1 + rng.below(10) {
                let pick = |rng: &mut Rng, pool: &[Lit]| {
                    let l = pool[rng.below(pool.len() as u64) as usize];
                    if rng.below(2) == 0 {
                        !l
                    } else {
                        l
                    }
                };
                let (a, b, c) = (
                    pick(&mut rng, &pool),
                    pick(&mut rng, &pool),
                    pick(&mut rng, &pool),
                );
                let g = match rng.below(5) {
                    0 => s.and(&[a, b]),
                    1 => s.or(&[a, b, c]),
                    2 => s.xor(&[a, b]),
                    3 => s.iff(a, b),
                    _ => s.ite(a, b, c),
                };
                pool.push(g);
                gates.push(g);
            }
            if rng.below(3) == 0 {
                let (a, b) = (gates[rng.below(gates.len() as u64) as usize], xs[0]);
                s.add_clause(&[!a, b]);
            }
            let projection: Vec<Lit> = gates
                .iter()
                .copied()
                .filter(|_| rng.below(3) != 0)
                .collect();
            let mut want = BTreeSet::new();
            for bits in assignments(n) {
                if s.solve(&fixing(&xs, &bits)) {
                    want.insert(
                        projection
                            .iter()
                            .map(|&g| s.value(g))
                            .collect::<Vec<bool>>(),
                    );
                }
            }
            let got = s.count(&[], &projection, &CountBudget::default());
            assert!(got.exact, "round {round}");
            assert_eq!(
                got.value.to_u128(),
                Some(want.len() as u128),
                "round {round}"
            );
            assert_eq!(s.count_general(&[], &projection), got, "round {round}");
            // The inputs determine the gates: their images by enumeration.
            let images = s.count_determined(&xs, &projection, &CountBudget::default());
            assert_eq!(images, got, "round {round}");
        }
    }

    /// A chain of presences `p_i = x_i xor x_(i+1)` over hidden inputs: every
    /// presence vector occurs (2^(n-1) of them), counted exactly although
    /// decisions on the presences never split the formula (the inputs are
    /// eliminated first).
    #[test]
    fn xor_chain_over_hidden_inputs() {
        for n in [60, 200] {
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let ps: Vec<Lit> = xs.windows(2).map(|w| s.xor(&[w[0], w[1]])).collect();
            let got = s.count(&[], &ps, &CountBudget::default());
            assert!(got.exact);
            assert_eq!(got.value, Natural::pow2(n as u32 - 1));
            // One end fixed: still all of them (one input vector each).
            let got = s.count(&[xs[0]], &ps, &CountBudget::default());
            assert!(got.exact);
            assert_eq!(got.value, Natural::pow2(n as u32 - 1));
        }
    }

    /// A chain and a ring of `or`s, each variable with an equal literal
    /// beside it (as an element's presence beside its input): long parts
    /// of binary clauses, split in the middle, are counted exactly within
    /// a budget that deciding from one end runs out of (each decision
    /// decomposed the rest again: steps grew with the square). For 3,000
    /// variables, halving takes under 10 million steps, deciding from one
    /// end over 60 million.
    #[test]
    fn chains_of_binary_clauses_are_counted_by_halves() {
        let budget = CountBudget {
            steps: 20_000_000,
            ..CountBudget::default()
        };
        for ring in [false, true] {
            let n = 3000;
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let mut projection = xs.clone();
            for &x in &xs {
                let y = s.new_var();
                s.add_clause(&[!x, y]);
                s.add_clause(&[x, !y]);
                projection.push(y);
            }
            for i in 0..if ring { n } else { n - 1 } {
                s.add_clause(&[xs[i], xs[(i + 1) % n]]);
            }
            // Strings without two zeros next to each other: Fibonacci
            // numbers on a chain, Lucas numbers on a ring.
            let mut fib = vec![Natural::ZERO, Natural::ONE];
            for k in 2..n + 3 {
                let next = fib[k - 1].add(&fib[k - 2]);
                fib.push(next);
            }
            let want = if ring {
                fib[n - 1].add(&fib[n + 1])
            } else {
                fib[n + 2].clone()
            };
            let got = s.count(&[], &projection, &budget);
            assert!(got.exact, "ring: {ring}");
            assert_eq!(got.value, want, "ring: {ring}");
        }
    }

    /// Random chains of binary clauses between neighbours (long enough to
    /// be halved), some variables left out of the projection, some with
    /// an equal literal beside them that is projected or not: the count
    /// equals the one along the chain (per prefix of projected values, the
    /// values the last variable can take).
    #[test]
    fn random_chains_match_their_transfer_counts() {
        let mut rng = Rng::new(2718);
        for round in 0..80 {
            let n = 64 + rng.below(150) as usize;
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let mut projected: Vec<bool> = (0..n).map(|_| rng.below(5) != 0).collect();
            let mut projection: Vec<Lit> =
                (0..n).filter(|&i| projected[i]).map(|i| xs[i]).collect();
            let mut allowed = Vec::new();
            for i in 0..n - 1 {
                // One or two clauses between x_i and x_(i+1), random signs.
                let mut ok = [[true; 2]; 2];
                for _ in 0..1 + rng.below(2) {
                    let (a, b) = (rng.below(2) == 0, rng.below(2) == 0);
                    let lit = |x: Lit, positive: bool| if positive { x } else { !x };
                    s.add_clause(&[lit(xs[i], a), lit(xs[i + 1], b)]);
                    ok[usize::from(!a)][usize::from(!b)] = false;
                }
                allowed.push(ok);
            }
            for (i, &x) in xs.iter().enumerate() {
                if rng.below(2) == 0 {
                    let y = s.new_var();
                    s.add_clause(&[!x, y]);
                    s.add_clause(&[x, !y]);
                    if rng.below(2) == 0 {
                        // Projecting y projects x.
                        projection.push(y);
                        projected[i] = true;
                    }
                }
            }
            // By the set of values (bit 0: false, bit 1: true) the last
            // variable can take, the projected prefixes that lead to it.
            let start = |i: usize| -> Vec<usize> {
                if projected[i] {
                    vec![1, 2]
                } else {
                    vec![3]
                }
            };
            let mut by_set = vec![Natural::ZERO; 4];
            start(0)
                .into_iter()
                .for_each(|set| by_set[set] = Natural::ONE);
            for (i, ok) in allowed.iter().enumerate() {
                let mut next = vec![Natural::ZERO; 4];
                for (set, prefixes) in by_set.iter().enumerate().skip(1) {
                    let reach = (0..2)
                        .filter(|&b| (0..2).any(|a| set & (1 << a) != 0 && ok[a][b]))
                        .fold(0, |r, b| r | (1 << b));
                    for keep in start(i + 1) {
                        if reach & keep != 0 {
                            next[reach & keep] = next[reach & keep].add(prefixes);
                        }
                    }
                }
                by_set = next;
            }
            let want = by_set[1..].iter().fold(Natural::ZERO, |sum, c| sum.add(c));
            let got = s.count(&[], &projection, &CountBudget::default());
            assert!(got.exact, "round {round}");
            assert_eq!(got.value, want, "round {round}");
        }
    }

    #[test]
    fn large_counts_do_not_overflow() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..200).map(|_| s.new_var()).collect();
        // 100 independent pairs, each with 3 models of (a | b).
        for pair in xs.chunks(2) {
            s.add_clause(pair);
        }
        let got = s.count(&[], &xs, &CountBudget::default());
        assert!(got.exact);
        let mut want = Natural::ONE;
        for _ in 0..100 {
            want = want.mul(&Natural::from(3u64));
        }
        assert_eq!(got.value, want);
        // Unconstrained variables double the count; fixed ones do not.
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..130).map(|_| s.new_var()).collect();
        s.require(xs[0]);
        assert_eq!(
            s.count(&[], &xs, &CountBudget::default()).value,
            Natural::pow2(129)
        );
    }

    /// A gate over more inputs than elimination looks at otherwise, its
    /// output outside the projection and in nothing but its definition
    /// (a presence defined by a long `and` of inputs): eliminated, so the
    /// inputs count without a decision.
    #[test]
    fn a_large_unused_gate_is_eliminated() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..1000).map(|_| s.new_var()).collect();
        let g = s.and(&xs);
        assert_ne!(g, s.truth());
        let budget = CountBudget {
            decisions: 10,
            ..CountBudget::default()
        };
        let got = s.count(&[], &xs, &budget);
        assert!(got.exact, "{got:?}");
        assert_eq!(got.value, Natural::pow2(1000));
    }

    #[test]
    fn unsatisfiable_and_empty_projections() {
        let mut s = Solver::new();
        let (a, b) = (s.new_var(), s.new_var());
        s.add_clause(&[a, b]);
        let budget = CountBudget::default();
        assert_eq!(s.count(&[], &[], &budget).value, Natural::ONE);
        assert_eq!(
            s.count(&[], &[a, !a, b], &budget).value,
            Natural::from(3u64)
        );
        s.add_clause(&[!a]);
        s.add_clause(&[!b]);
        let got = s.count(&[], &[a, b], &budget);
        assert_eq!(got.value, Natural::ZERO);
        assert!(got.exact);
        assert_eq!(s.count(&[], &[], &budget).value, Natural::ZERO);
    }

    /// With a tiny budget the count is a lower bound, flagged inexact, and
    /// never above the true count; the solver still works afterwards.
    #[test]
    fn budget_gives_lower_bounds() {
        let mut rng = Rng::new(3);
        for round in 0..100 {
            let mut s = Solver::new();
            let n = 6 + rng.below(10) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let cnf = random_cnf(&mut rng, &vars, n);
            for c in &cnf {
                s.add_clause(c);
            }
            let all: Vec<usize> = (0..n).collect();
            let want = brute_force(&vars, &cnf, &all);
            let budget = if round % 2 == 0 {
                CountBudget {
                    decisions: rng.below(4),
                    ..CountBudget::default()
                }
            } else {
                CountBudget {
                    steps: rng.below(60),
                    ..CountBudget::default()
                }
            };
            let got = s.count(&[], &vars, &budget);
            let value = got.value.to_u128().expect("small");
            assert!(value <= want, "round {round}");
            if got.exact {
                assert_eq!(value, want, "round {round}");
            }
            if want > 0 {
                // Whatever was not counted is known satisfiable.
                assert!(value >= 1, "round {round}");
            }
            let full = s.count(&[], &vars, &CountBudget::default());
            assert_eq!(full.value.to_u128(), Some(want), "round {round}");
        }
        // A budget of zero decisions on a problem that needs some.
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..4).map(|_| s.new_var()).collect();
        s.add_clause(&[xs[0], xs[1]]);
        s.add_clause(&[xs[2], xs[3]]);
        let none = CountBudget {
            decisions: 0,
            ..CountBudget::default()
        };
        let got = s.count(&[], &xs, &none);
        assert!(!got.exact);
        assert_eq!(got.value, Natural::ONE);
    }
}
