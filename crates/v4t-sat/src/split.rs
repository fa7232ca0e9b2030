//! Independent parts: one small solver per connected component of the clauses.
//!
//! Once the facts fixed at level 0 are removed, a problem often falls apart
//! into many parts that share no variable. Every model is then a combination
//! of one model per part, so the questions v4t asks after encoding can be
//! answered part by part on small solvers, which keeps their cost linear in
//! the number of parts instead of quadratic in the problem size:
//!
//! * the optimum of a weighted sum is the sum of the per-part optima, and
//!   "sum == optimum" is equivalent to "part sum == part optimum" in every
//!   part ([`Split::minimize`], [`Split::maximize`]);
//! * the lexicographically smallest model (with respect to a literal order) is
//!   the combination of the smallest models of the parts, each with respect to
//!   the order restricted to the part ([`Split::prefer_false`]);
//! * literals are true in every model iff the ones in each part are true in
//!   every model of that part ([`Split::implied`]).
//!
//! A disjunction over several parts ([`Split::or`]) is the only thing that
//! couples parts. Parts whose share of the disjunction is decided (true or
//! false in every model of the part) do not take part; the others are merged
//! into one part, which stays merged.
//!
//! Variables keep the numbering of the [`Solver`] that was split, so literals
//! created before [`Solver::split`] remain valid; literals fixed at level 0
//! become constants. Parts are numbered by their smallest variable, so the
//! result never depends on hashing or solver internals.

use crate::switched::Near;
use crate::{Implied, Lit, Solver};

/// No global variable (a part's own constant or auxiliary variable).
const NONE: u32 = u32::MAX;

/// Where a variable of the split solver lives.
#[derive(Clone, Copy, Debug)]
enum Loc {
    /// Fixed at level 0 before splitting.
    Fixed(bool),
    /// Variable `var` of part `part`.
    In { part: u32, var: u32 },
}

/// Where a literal lives: a constant, or a literal of a part.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place {
    Const(bool),
    In(u32, Lit),
}

/// One independent part: its own solver and the global number of each local variable.
#[derive(Debug)]
pub(crate) struct Part {
    pub(crate) sat: Solver,
    /// Global variable of each local variable ([`NONE`] if it has none).
    globals: Vec<u32>,
    /// The part of the unconstrained variables (in no clause).
    loose: bool,
    /// The index [`Split::solve_switched`] searches by, built on first use.
    near: Option<Box<crate::switched::Near>>,
}

/// A question for [`Split::ask`].
#[derive(Clone, Copy, Debug)]
pub enum Question<'a> {
    /// Like [`Split::minimize`].
    Minimize(&'a [(Lit, u64)]),
    /// Like [`Split::maximize`].
    Maximize(&'a [(Lit, u64)]),
    /// Whether every model agrees with the current one on the literals true
    /// in it (and, if the flag is set, on the false ones): [`Split::implied`]
    /// of those literals, or of their negations.
    Unchanged(&'a [Lit], bool),
}

/// The answer to a [`Question`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The optimum (`None` if there is none).
    Optimum(Option<u64>),
    /// Whether the model cannot change on the literals asked about.
    Unchanged(bool),
}

/// One preference of [`Split::prefer`] within a part.
enum Step {
    /// The earliest literal that can be true of a list (its position in a
    /// buffer of lists).
    First(usize, usize),
    /// The literal false if possible.
    False(Lit),
}

/// A problem split into independent parts (see the module documentation).
///
/// Literals passed in must come from the [`Solver`] that was split or from
/// [`Split::or`].
#[derive(Debug)]
pub struct Split {
    truth: Lit,
    /// The clauses are known to be unsatisfiable.
    unsat: bool,
    /// Location of every global variable.
    locs: Vec<Loc>,
    /// Parts by number; merged parts leave `None` behind.
    parts: Vec<Option<Part>>,
    /// By global variable: whether it is a switch ([`Split::declare_switches`]).
    switches: Vec<bool>,
    /// The variables the searches of [`Split::solve_switched`] took in so
    /// far ([`Split::searched`]).
    searched: u64,
    /// What each [`Split::or`] found, once [`Split::record_ors`] asked.
    ors: Option<Vec<OrRecord>>,
    /// The part a fork re-solves ([`Split::fork`]): the others read as
    /// the constants of their current models.
    scope: Option<u32>,
    /// What [`Split::unfork`] puts back.
    forked: Option<Box<Forked>>,
    /// A fork met a question that couples its part with a frozen one
    /// ([`Split::fork_exact`]).
    inexact: bool,
}

/// What one [`Split::or`] found about the parts it looked at, in the
/// order it looked at them: each part's share of the disjunction, `Some`
/// if every model of the part gave it that value, `None` if it was open.
/// The parts after a share true in every model were not looked at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrRecord {
    /// Each part looked at and its share.
    pub shares: Vec<(u32, Option<bool>)>,
}

/// The state a fork replaced.
#[derive(Debug)]
struct Forked {
    part: u32,
    original: Part,
    locs: usize,
    unsat: bool,
}

impl Solver {
    /// Splits the problem into independent parts, dropping facts fixed at level 0.
    ///
    /// Unconstrained variables share one part. If the solver holds a model, the
    /// parts start from it, so no part needs an initial search.
    pub fn split(mut self) -> Split {
        let facts = self.level0();
        // What the split keeps of this solver is its clauses: the gate
        // tables and the backend go before the parts are filled (the peak
        // of a large resolve is here).
        self.gates = crate::gates::Gates::default();
        self.sat = None;
        self.few = None;
        self.few_images = None;
        self.split_with(facts)
    }

    /// The independent parts of this problem as it is now, this solver
    /// unchanged ([`Solver::split`]): questions about many literals each
    /// (`analyze`'s backbone, first violations, inputs that change the
    /// topology) are asked part by part, in time linear in the number of
    /// parts, while the solver goes on with questions that couple them.
    pub fn split_copy(&mut self) -> Split {
        let facts = self.level0();
        self.split_with(facts)
    }

    /// The parts of this solver's clauses, given its level-0 `facts`.
    fn split_with(&self, facts: Option<Vec<i8>>) -> Split {
        let n = self.num_vars() as usize;
        let mut split = Split {
            truth: self.truth,
            unsat: facts.is_none(),
            locs: Vec::with_capacity(n),
            parts: Vec::new(),
            switches: Vec::new(),
            searched: 0,
            ors: None,
            scope: None,
            forked: None,
            inexact: false,
        };
        let Some(fixed) = facts else {
            split.locs.resize(n, Loc::Fixed(false));
            return split;
        };
        let fixed_var = |v: u32| match fixed[v as usize] {
            0 => None,
            f => Some(f > 0),
        };
        let is_fixed = |l: Lit| fixed_var(l.var_index()).map(|b| b != l.is_negated());
        if fixed.iter().all(|&f| f != 0) {
            // Propagation decided every variable (a resolve whose inputs
            // decide the topology): no part, and no components to find,
            // whose tables would be the largest part of the peak.
            split.locs.extend(fixed.iter().map(|&f| Loc::Fixed(f > 0)));
            return split;
        }

        let Some((mut roots, active)) = self.components(&is_fixed) else {
            // A falsified clause: propagation would have found it, but be safe.
            split.unsat = true;
            split.locs.resize(n, Loc::Fixed(false));
            return split;
        };

        // Parts in order of their smallest variable; unconstrained variables share one.
        let mut part_of_root = vec![NONE; n];
        let mut loose = NONE;
        for v in 0..n as u32 {
            if let Some(b) = fixed_var(v) {
                split.locs.push(Loc::Fixed(b));
                continue;
            }
            let slot = if active[v as usize] {
                &mut part_of_root[roots.find(v) as usize]
            } else {
                &mut loose
            };
            if *slot == NONE {
                *slot = split.parts.len() as u32;
                let mut sat = Solver::new();
                if self.clause_gates.is_some() {
                    sat.record_gates();
                }
                split.parts.push(Some(Part {
                    sat,
                    globals: vec![NONE],
                    loose: !active[v as usize],
                    near: None,
                }));
            }
            let part = split.parts[*slot as usize]
                .as_mut()
                .expect("parts are only taken when merging");
            let var = part.sat.new_var().var_index();
            part.globals.push(v);
            split.locs.push(Loc::In { part: *slot, var });
        }

        if split.parts.is_empty() {
            // Every variable is fixed: no clause is left to distribute.
            return split;
        }

        self.distribute(&mut split);

        // Start every part from the solver's model, if it has a current one.
        if self.model_valid && self.model.len() == n {
            for part in split.parts.iter_mut().flatten() {
                let model: Vec<bool> = part
                    .globals
                    .iter()
                    .map(|&g| g == NONE || self.model[g as usize])
                    .collect();
                part.sat.model = model;
                part.sat.model_valid = true;
            }
        }
        split
    }
}

/// The literals of `clause` that are not fixed, renamed into their part
/// (into `local`, cleared first), and that part ([`NONE`] if every literal
/// is fixed false); `None` if a fixed literal satisfies the clause.
fn localise(locs: &[Loc], clause: &[Lit], local: &mut Vec<Lit>) -> Option<u32> {
    local.clear();
    let mut part = NONE;
    for &l in clause {
        match locs[l.var_index() as usize] {
            Loc::In { part: p, var } => {
                part = p;
                local.push(l.with_var(var));
            }
            Loc::Fixed(b) if b != l.is_negated() => return None,
            Loc::Fixed(_) => {}
        }
    }
    Some(part)
}

impl Solver {
    /// Adds every clause that no level-0 fact satisfies to its part of
    /// `split`, without its false literals, renamed into the part.
    fn distribute(&self, split: &mut Split) {
        // Each part's store at its exact size: a large problem has hundreds
        // of parts, whose stores would otherwise grow by doubling at the
        // peak of a resolve.
        let mut sizes = vec![(0usize, 0usize); split.parts.len()];
        let mut local = Vec::new();
        for clause in self.clauses.iter() {
            if let Some(size) = localise(&split.locs, clause, &mut local)
                .and_then(|part| sizes.get_mut(part as usize))
            {
                size.0 += local.len();
                size.1 += 1;
            }
        }
        for (part, &(lits, clauses)) in split.parts.iter_mut().zip(&sizes) {
            if let Some(part) = part {
                part.sat.reserve_store(lits, clauses);
            }
        }

        // Distribute the clauses without their false literals.
        for (c, clause) in self.clauses.iter().enumerate() {
            let gate = self.clause_gate(c);
            let Some(part) = localise(&split.locs, clause, &mut local) else {
                continue;
            };
            let gate = match split.locs.get(gate as usize) {
                Some(&Loc::In { var, .. }) => var,
                _ => crate::NO_GATE,
            };
            if let Some(Some(p)) = split.parts.get_mut(part as usize) {
                p.sat.push_clause(&local, gate);
            }
        }
    }

    /// The connected components of the clauses not yet satisfied under
    /// `is_fixed`, and which variables occur in them; `None` if a clause is
    /// falsified.
    fn components(
        &self,
        is_fixed: &impl Fn(Lit) -> Option<bool>,
    ) -> Option<(UnionFind, Vec<bool>)> {
        let n = self.num_vars() as usize;
        let mut roots = UnionFind::new(n);
        let mut active = vec![false; n];
        for clause in self.clauses.iter() {
            if clause.iter().any(|&l| is_fixed(l) == Some(true)) {
                continue;
            }
            let mut free = clause.iter().filter(|&&l| is_fixed(l).is_none());
            let first = free.next()?;
            active[first.var_index() as usize] = true;
            for l in free {
                active[l.var_index() as usize] = true;
                roots.union(first.var_index(), l.var_index());
            }
        }
        Some((roots, active))
    }
}

impl Split {
    /// The numbers of the parts (after merges), ascending.
    pub(crate) fn live_parts(&self) -> Vec<u32> {
        (0..self.parts.len() as u32)
            .filter(|&p| self.parts[p as usize].is_some())
            .collect()
    }

    /// Number of parts (after merges).
    pub fn num_parts(&self) -> usize {
        self.parts.iter().flatten().count()
    }

    /// Finds a model of every part; `false` if the clauses are unsatisfiable.
    pub fn satisfiable(&mut self) -> bool {
        let ok = |p: &mut Part| {
            let ok = p.sat.ensure_model();
            p.sat.release_backend();
            ok
        };
        let all = match self.scope {
            Some(k) => self.parts[k as usize].as_mut().is_none_or(ok),
            None => self.parts.iter_mut().flatten().all(ok),
        };
        if !self.unsat && !all {
            self.unsat = true;
        }
        !self.unsat
    }

    /// Records what every later [`Split::or`] finds ([`Split::take_ors`]), for
    /// forks of this problem to take the other parts' shares from.
    pub fn record_ors(&mut self) {
        self.ors = Some(Vec::new());
    }

    /// What each [`Split::or`] since [`Split::record_ors`] found, in order;
    /// recording stops.
    pub fn take_ors(&mut self) -> Vec<OrRecord> {
        self.ors.take().unwrap_or_default()
    }

    /// The part `lit` lies in; `None` if it is fixed.
    pub fn part_of(&self, lit: Lit) -> Option<u32> {
        match self.place(lit) {
            Place::In(p, _) => Some(p),
            Place::Const(_) => None,
        }
    }

    /// Puts part `k` back as `pristine` has it (the same problem split
    /// before any question, so with the same parts) and scopes every later
    /// question to it: the other parts read as the constants of their
    /// current models. So the problem with one more fact in part `k` is
    /// answered for the cost of that part, where the other parts' answers
    /// cannot change. `false` (and nothing changes) if part `k` is not
    /// one of `pristine`'s parts, unmerged, in both. [`Split::unfork`]
    /// restores the part.
    pub fn fork(&mut self, k: u32, pristine: &Split) -> bool {
        if self.forked.is_some() || self.unsat || pristine.locs.len() > self.locs.len() {
            return false;
        }
        let (Some(Some(_)), Some(Some(source))) =
            (self.parts.get(k as usize), pristine.parts.get(k as usize))
        else {
            return false;
        };
        let mut copy = Part {
            sat: Solver::new(),
            globals: vec![NONE],
            loose: source.loose,
            near: None,
        };
        let mut model = Some(vec![true]);
        append_part(&mut copy.sat, &mut copy.globals, &mut model, source);
        if let Some(model) = model {
            copy.sat.model = model;
            copy.sat.model_valid = true;
        }
        let original = self.parts[k as usize].replace(copy).expect("checked above");
        self.forked = Some(Box::new(Forked {
            part: k,
            original,
            locs: self.locs.len(),
            unsat: self.unsat,
        }));
        self.scope = Some(k);
        self.inexact = false;
        true
    }

    /// Whether every question since [`Split::fork`] was answered as the
    /// whole problem would have: `false` once a disjunction or a list of
    /// [`Split::prefer`] reached into a frozen part (then the caller asks
    /// the whole problem).
    pub fn fork_exact(&self) -> bool {
        !self.inexact
    }

    /// Adds the fact `lit` (permanent): to its part, or, for a constant,
    /// the problem is unsatisfiable unless it is true. In a fork, a fact
    /// about a frozen part makes the fork inexact ([`Split::fork_exact`]).
    pub fn require(&mut self, lit: Lit) {
        if self.frozen(lit) {
            self.inexact = true;
            return;
        }
        match self.place(lit) {
            Place::Const(true) => {}
            Place::Const(false) => self.unsat = true,
            Place::In(p, l) => self.part_mut(p).sat.require(l),
        }
    }

    /// Undoes [`Split::fork`]: the part, the variables numbered since and
    /// the scope are as before it.
    pub fn unfork(&mut self) {
        if let Some(f) = self.forked.take() {
            self.parts[f.part as usize] = Some(f.original);
            self.locs.truncate(f.locs);
            self.unsat = f.unsat;
        }
        self.scope = None;
    }

    /// Declares `switches` for [`Split::solve_switched`]: literals each of
    /// which switches on the clauses it occurs in negated (a guard `g` of
    /// clauses `!g | …`). A literal that also occurs positively is not a
    /// switch.
    pub fn declare_switches(&mut self, switches: &[Lit]) {
        self.switches = vec![false; self.locs.len()];
        for l in switches {
            if let Some(s) = self.switches.get_mut(l.var_index() as usize) {
                *s = true;
            }
        }
        for part in self.parts.iter_mut().flatten() {
            part.near = None;
        }
    }

    /// Whether some model makes `assumptions` true and every declared
    /// switch not among them false (its clauses off): [`Split::solve`]
    /// with the negations of those switches added, but searching only the
    /// clauses near the assumptions (see `switched.rs`), so a question
    /// about a small neighbourhood of a large part stays small. The
    /// current model stays as it is.
    pub fn solve_switched(&mut self, assumptions: &[Lit]) -> bool {
        if self.unsat {
            return false;
        }
        let Some(local) = self.conjunction_by_part(assumptions) else {
            return false;
        };
        for (p, lits) in local {
            let switches = &self.switches;
            let part = self.parts[p as usize]
                .as_mut()
                .expect("locations only name live parts");
            let sat = &mut part.sat;
            // The search below needs a model with every switch off.
            let ok = sat.ensure_model();
            sat.release_backend();
            if !ok {
                self.unsat = true;
                return false;
            }
            if lits.iter().all(|&l| sat.model_has(l)) {
                continue;
            }
            let globals = &part.globals;
            let is_switch = |v: u32| {
                let g = globals.get(v as usize).copied().unwrap_or(NONE);
                g != NONE && switches.get(g as usize).copied().unwrap_or(false)
            };
            let near = match &mut part.near {
                Some(near) if near.is_current(&part.sat) => near,
                slot => slot.insert(Box::new(Near::build(&part.sat, is_switch))),
            };
            let (found, took) = near.solve(&part.sat, &lits);
            self.searched += took;
            if !found {
                return false;
            }
        }
        true
    }

    /// The variables the searches of [`Split::solve_switched`] have taken
    /// in so far: the work of questions asked near their assumptions,
    /// independent of the machine, for tests that a question about one
    /// element costs what its neighbourhood does.
    pub fn searched(&self) -> u64 {
        self.searched
    }

    /// A subset-minimal set of declared switches, each `allowed`, with
    /// which `goal` has no model (the other switches off), searched near
    /// `goal` (see `switched.rs`): a question about one element of a large
    /// problem stays as small as the element's neighbourhood. `None` if no
    /// such set was found near `goal`; the caller that must be sure asks
    /// [`Split::minimal_core`] with every allowed switch (it is found
    /// whenever the allowed switches have a model together but not with
    /// `goal`). Empty if `goal` is false in every model. Of the switches
    /// found, those `telling` does not accept are dropped first, so they
    /// remain only where the others near `goal` do not suffice. The
    /// search grows along gate definitions ([`Solver::record_gates`]);
    /// without the record every definition is a clause always on, and the
    /// searches are larger.
    pub fn minimal_switched_core(
        &mut self,
        goal: Lit,
        allowed: &dyn Fn(Lit) -> bool,
        telling: &dyn Fn(Lit) -> bool,
    ) -> Option<Vec<Lit>> {
        if !self.satisfiable() {
            return Some(Vec::new());
        }
        let (p, local) = match self.place(goal) {
            Place::Const(false) => return Some(Vec::new()),
            Place::Const(true) => return None,
            Place::In(p, l) => (p, l),
        };
        let switches = &self.switches;
        let part = self.parts[p as usize]
            .as_mut()
            .expect("locations only name live parts");
        let globals = &part.globals;
        let is_switch = |v: u32| {
            let g = globals.get(v as usize).copied().unwrap_or(NONE);
            g != NONE && switches.get(g as usize).copied().unwrap_or(false)
        };
        let near = match &mut part.near {
            Some(near) if near.is_current(&part.sat) => near,
            slot => slot.insert(Box::new(Near::build(&part.sat, is_switch))),
        };
        let global = |v: u32| globals.get(v as usize).copied().unwrap_or(NONE);
        let allowed_here = |v: u32| global(v) != NONE && allowed(Lit::from_var(global(v)));
        let telling_here = |v: u32| global(v) != NONE && telling(Lit::from_var(global(v)));
        let core = near.minimal_core(&part.sat, local, &allowed_here, &telling_here)?;
        Some(
            core.into_iter()
                .map(|l| l.with_var(global(l.var_index())))
                .collect(),
        )
    }

    /// Whether some model makes all of `assumptions` true. If so, the parts
    /// they lie in take such a model as their current one (the other parts
    /// keep theirs), so [`Split::value`] reads a model of all of them. Only
    /// the parts with assumptions are searched: questions about a small
    /// neighbourhood of a large problem stay small.
    pub fn solve(&mut self, assumptions: &[Lit]) -> bool {
        if !self.satisfiable() {
            return false;
        }
        let Some(local) = self.conjunction_by_part(assumptions) else {
            return false;
        };
        for (p, lits) in local {
            let part = self.part_mut(p);
            let sat = &mut part.sat;
            if lits.iter().all(|&l| sat.model_has(l)) {
                continue;
            }
            if part.loose && sat.model.len() == sat.num_vars() as usize {
                // Unconstrained variables: any values are a model.
                if lits.iter().any(|&l| lits.contains(&!l)) {
                    return false;
                }
                for &l in &lits {
                    sat.model[l.var_index() as usize] = !l.is_negated();
                }
                continue;
            }
            let found = sat.solve_raw(&lits);
            if !found {
                // The part keeps a model of its own (it has one).
                sat.ensure_model();
            }
            sat.release_backend();
            if !found {
                return false;
            }
        }
        true
    }

    /// The value of `lit` if every model gives it the same one by unit
    /// propagation (fixed when splitting, or at level 0 of its part).
    pub fn fixed(&self, lit: Lit) -> Option<bool> {
        match self.place(lit) {
            Place::Const(b) => Some(b),
            Place::In(p, l) => self.part(p).sat.fixed(l),
        }
    }

    /// Value of `lit` in the current model (`false` if there is none).
    pub fn value(&self, lit: Lit) -> bool {
        match self.place(lit) {
            Place::Const(b) => b && !self.unsat,
            Place::In(p, l) => self.part(p).sat.value(l),
        }
    }

    /// Minimises `Σ weight·[lit true]` like [`Solver::minimize`]: afterwards the
    /// current model is optimal and "sum == optimum" is permanent.
    pub fn minimize(&mut self, terms: &[(Lit, u64)]) -> Option<u64> {
        crate::pb::minimize_with(terms, |wide| self.minimize_wide(wide))
    }

    /// Maximises `Σ weight·[lit true]` like [`Solver::maximize`].
    pub fn maximize(&mut self, terms: &[(Lit, u64)]) -> Option<u64> {
        crate::pb::maximize_with(terms, |wide| self.minimize_wide(wide))
    }

    fn minimize_wide(&mut self, terms: &[(Lit, u128)]) -> Option<u128> {
        if !self.satisfiable() {
            return None;
        }
        let mut sum = 0u128;
        let mut local = Vec::with_capacity(terms.len());
        for &(lit, w) in terms {
            match self.place(lit) {
                Place::Const(b) => sum += if b { w } else { 0 },
                Place::In(p, l) => local.push((p, (l, w))),
            }
        }
        for (p, terms) in by_part(local) {
            let sat = &mut self.part_mut(p).sat;
            let optimum = sat.minimize_wide(&terms);
            sat.release_backend();
            sum += optimum?;
        }
        Some(sum)
    }

    /// Makes the current model the lexicographically smallest one with respect to
    /// `order`, like [`Solver::prefer_false`] (not permanent).
    pub fn prefer_false(&mut self, order: &[Lit]) {
        self.prefer(&[], order);
    }

    /// Makes the current model the best one under the preference of
    /// [`Solver::prefer`] (not permanent). The parts a list of `firsts`
    /// spans are merged first; then every part follows the preferences
    /// restricted to it, which gives the same model as one solver would.
    pub fn prefer(&mut self, firsts: &[&[Lit]], order: &[Lit]) {
        if !self.satisfiable() {
            return;
        }
        if self.scope.is_some()
            && firsts.iter().any(|list| {
                list.iter().any(|&l| self.frozen(l))
                    && list.iter().any(|&l| self.in_scope(l) == Some(true))
            })
        {
            // One solver would have merged the parts such a list spans.
            self.inexact = true;
        }
        if self.parts.iter().all(Option::is_none) {
            // Every literal is a constant: nothing to choose (and no room
            // for a step per literal of `order` at the peak of a resolve).
            return;
        }
        // Only the literals of a list before its first one true in every
        // model matter; merge the parts they lie in where there are several.
        for &list in firsts {
            let mut parts: Vec<u32> = Vec::new();
            for &lit in list {
                match self.place(lit) {
                    Place::Const(true) => break,
                    Place::Const(false) => {}
                    Place::In(p, _) => {
                        if !parts.contains(&p) {
                            parts.push(p);
                        }
                    }
                }
            }
            if parts.len() > 1 {
                parts.sort_unstable();
                self.merge(&parts);
            }
        }
        // The lists' open literals, one after another; steps refer to them.
        let mut lists: Vec<Lit> = Vec::new();
        let mut steps: Vec<(u32, Step)> = Vec::with_capacity(firsts.len() + order.len());
        for &list in firsts {
            let start = lists.len();
            let mut part = None;
            for &lit in list {
                match self.place(lit) {
                    Place::Const(true) => break,
                    Place::Const(false) => {}
                    Place::In(p, l) => {
                        part = Some(p);
                        lists.push(l);
                    }
                }
            }
            if let Some(p) = part {
                steps.push((p, Step::First(start, lists.len())));
            }
        }
        for &lit in order {
            if let Place::In(p, l) = self.place(lit) {
                steps.push((p, Step::False(l)));
            }
        }
        for (p, steps) in by_part(steps) {
            let sat = &mut self.part_mut(p).sat;
            if let Some(mut choices) = sat.start_choices() {
                for step in steps {
                    match step {
                        Step::First(from, to) => sat.choose_first(&mut choices, &lists[from..to]),
                        Step::False(lit) => {
                            sat.choose(&mut choices, !lit);
                        }
                    }
                }
            }
            sat.release_backend();
        }
    }

    /// Whether every model makes all of `lits` true (`true` if there is no model).
    /// The current model may change to another model.
    pub fn implied(&mut self, lits: &[Lit]) -> bool {
        if !self.satisfiable() {
            return true;
        }
        let Some(local) = self.conjunction_by_part(lits) else {
            return false;
        };
        for (p, lits) in local {
            let sat = &mut self.part_mut(p).sat;
            if lits.iter().any(|&l| !sat.value(l)) {
                // The current model is a counterexample.
                return false;
            }
            let all = sat.and(&lits);
            let counterexample = sat.solve_raw(&[!all]);
            sat.release_backend();
            if counterexample {
                return false;
            }
        }
        true
    }

    /// [`Solver::backbone`] part by part: for each literal, true in every
    /// model, false in every model, or free; `None` if unsatisfiable.
    pub fn backbone(&mut self, lits: &[Lit]) -> Option<Vec<Implied>> {
        if !self.satisfiable() {
            return None;
        }
        let mut result = Vec::with_capacity(lits.len());
        let mut local = Vec::new();
        for (i, &lit) in lits.iter().enumerate() {
            result.push(match self.place(lit) {
                Place::Const(true) => Implied::True,
                Place::Const(false) => Implied::False,
                Place::In(p, l) => {
                    local.push((p, (i, l)));
                    Implied::Free
                }
            });
        }
        for (p, items) in by_part(local) {
            let sat = &mut self.part_mut(p).sat;
            let part_lits: Vec<Lit> = items.iter().map(|&(_, l)| l).collect();
            let answers = sat.backbone(&part_lits);
            sat.release_backend();
            for (&(i, _), a) in items.iter().zip(answers?) {
                result[i] = a;
            }
        }
        Some(result)
    }

    /// [`Solver::minimal_core`] on the split problem: the core lies in the
    /// first part (in part order) that is unsatisfiable under its share of
    /// the assumptions; an assumption fixed false is a core by itself.
    pub fn minimal_core(&mut self, assumptions: &[Lit]) -> Option<Vec<Lit>> {
        if !self.satisfiable() {
            return Some(Vec::new());
        }
        let mut local = Vec::new();
        for &lit in assumptions {
            match self.place(lit) {
                Place::Const(true) => {}
                Place::Const(false) => return Some(vec![lit]),
                Place::In(p, l) => local.push((p, (lit, l))),
            }
        }
        for (p, items) in by_part(local) {
            let sat = &mut self.part_mut(p).sat;
            let part_lits: Vec<Lit> = items.iter().map(|&(_, l)| l).collect();
            let core = sat.minimal_core(&part_lits);
            sat.release_backend();
            if let Some(core) = core {
                // Back to the caller's literals (a local literal may stand
                // for several equal global ones; the first is kept).
                let global = core
                    .iter()
                    .map(|l| items.iter().find(|(_, m)| m == l).expect("from items").0)
                    .collect();
                return Some(global);
            }
        }
        None
    }

    /// Answers `questions` as if asked one after another right after
    /// [`Split::satisfiable`], but part by part: each part builds its search
    /// backend once for all of them instead of once per question. Returns
    /// `None` if the clauses are unsatisfiable.
    ///
    /// Once a [`Question::Unchanged`] is answered `false`, the remaining
    /// parts skip it (as [`Split::implied`] stops at the first counterexample).
    pub fn ask(&mut self, questions: &[Question<'_>]) -> Option<Vec<Answer>> {
        if self.unsat {
            return None;
        }
        // Per question: its constant share and its items per part.
        let mut constants = vec![0u128; questions.len()];
        let mut local: Vec<ByPart<(Lit, u128)>> = Vec::with_capacity(questions.len());
        for (q, question) in questions.iter().enumerate() {
            let mut items = Vec::new();
            let (lits, weights): (Vec<Lit>, Vec<u128>) = match *question {
                Question::Minimize(terms) => terms.iter().map(|&(l, w)| (l, u128::from(w))).unzip(),
                Question::Maximize(terms) => {
                    terms.iter().map(|&(l, w)| (!l, u128::from(w))).unzip()
                }
                Question::Unchanged(lits, _) => lits.iter().map(|&l| (l, 0)).unzip(),
            };
            for (lit, w) in lits.into_iter().zip(weights) {
                match self.place(lit) {
                    Place::Const(b) => constants[q] += if b { w } else { 0 },
                    Place::In(p, l) => items.push((p, (l, w))),
                }
            }
            local.push(by_part(items));
        }
        let mut sums = constants;
        let mut optimal = vec![true; questions.len()];
        let mut unchanged = vec![true; questions.len()];
        let mut next = vec![0usize; questions.len()];
        let scoped = self.scope.map(|k| k..k + 1);
        for p in scoped.unwrap_or(0..self.parts.len() as u32) {
            let Some(part) = self.parts[p as usize].as_mut() else {
                continue;
            };
            let sat = &mut part.sat;
            if !sat.ensure_model() {
                sat.release_backend();
                self.unsat = true;
                return None;
            }
            for (q, question) in questions.iter().enumerate() {
                let Some((_, items)) = local[q].get(next[q]).filter(|(at, _)| *at == p) else {
                    continue;
                };
                next[q] += 1;
                match *question {
                    Question::Minimize(_) | Question::Maximize(_) => match sat.minimize_wide(items)
                    {
                        Some(v) => sums[q] += v,
                        None => optimal[q] = false,
                    },
                    Question::Unchanged(_, both) if unchanged[q] => {
                        let keep: Vec<Lit> = items
                            .iter()
                            .filter_map(|&(l, _)| match sat.value(l) {
                                true => Some(l),
                                false => both.then_some(!l),
                            })
                            .collect();
                        if keep.is_empty() {
                            continue;
                        }
                        let all = sat.and(&keep);
                        if sat.solve_raw(&[!all]) {
                            unchanged[q] = false;
                        }
                    }
                    Question::Unchanged(..) => {}
                }
            }
            sat.release_backend();
        }
        let answers = questions
            .iter()
            .enumerate()
            .map(|(q, question)| {
                let wide = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
                match *question {
                    Question::Minimize(_) => Answer::Optimum(optimal[q].then(|| wide(sums[q]))),
                    Question::Maximize(terms) => {
                        let total: u128 = terms.iter().map(|&(_, w)| u128::from(w)).sum();
                        Answer::Optimum(optimal[q].then(|| wide(total - sums[q])))
                    }
                    Question::Unchanged(..) => Answer::Unchanged(unchanged[q]),
                }
            })
            .collect();
        Some(answers)
    }

    /// Returns a literal equivalent to the disjunction of `lits` (`[]` = false).
    ///
    /// Each part's share of the disjunction that is true in every model makes the
    /// result a constant; a share false in every model is dropped; the parts of
    /// the remaining shares are merged into one.
    pub fn or(&mut self, lits: &[Lit]) -> Lit {
        if !self.satisfiable() {
            return !self.truth;
        }
        if lits.iter().any(|&l| self.frozen(l)) {
            // Whether another part's share is decided is not known here.
            self.inexact = true;
        }
        let mut record = OrRecord::default();
        let mut local = Vec::with_capacity(lits.len());
        for &lit in lits {
            match self.place(lit) {
                Place::Const(true) => {
                    self.record(record);
                    return self.truth;
                }
                Place::Const(false) => {}
                Place::In(p, l) => local.push((p, l)),
            }
        }
        let mut open: Vec<(u32, Lit)> = Vec::new();
        for (p, lits) in by_part(local) {
            let sat = &mut self.part_mut(p).sat;
            // The share's value in the current model (its gate may be new).
            let value = lits.iter().any(|&l| sat.value(l));
            let share = sat.or(&lits);
            if sat.fixed(share).is_none() && !sat.solve_raw(&[if value { !share } else { share }]) {
                // Decided: every model agrees with the current one.
                sat.require(if value { share } else { !share });
            }
            sat.release_backend();
            let decided = sat.fixed(share);
            record.shares.push((p, decided));
            match decided {
                Some(true) => {
                    self.record(record);
                    return self.truth;
                }
                Some(false) => {}
                None => open.push((p, share)),
            }
        }
        self.record(record);
        match open[..] {
            [] => !self.truth,
            [(p, share)] => self.global(p, share),
            _ => {
                let ids: Vec<u32> = open.iter().map(|&(p, _)| p).collect();
                // Number the shares globally so they survive the renumbering.
                let shares: Vec<Lit> = open.iter().map(|&(p, s)| self.global(p, s)).collect();
                let merged = self.merge(&ids);
                let local: Vec<Lit> = shares
                    .iter()
                    .map(|&g| match self.place(g) {
                        Place::In(_, l) => l,
                        Place::Const(b) => self.part(merged).sat.constant(b),
                    })
                    .collect();
                let result = self.part_mut(merged).sat.or(&local);
                self.global(merged, result)
            }
        }
    }

    // ----- internals -----

    /// The conjunction of `lits` as each part's share of it (local literals,
    /// in part order), literals true in every model dropped; `None` if one
    /// is false in every model (then so is the conjunction). `solve` and
    /// `implied` both ask about such a conjunction part by part.
    fn conjunction_by_part(&self, lits: &[Lit]) -> Option<ByPart<Lit>> {
        let mut local = Vec::with_capacity(lits.len());
        for &lit in lits {
            match self.place(lit) {
                Place::Const(true) => {}
                Place::Const(false) => return None,
                Place::In(p, l) => local.push((p, l)),
            }
        }
        Some(by_part(local))
    }

    #[inline]
    pub(crate) fn place(&self, lit: Lit) -> Place {
        match self.locs.get(lit.var_index() as usize) {
            Some(&Loc::Fixed(b)) => Place::Const(b != lit.is_negated()),
            Some(&Loc::In { part, var }) if self.scope.is_some_and(|k| k != part) => {
                self.frozen_place(part, lit.with_var(var))
            }
            Some(&Loc::In { part, var }) => Place::In(part, lit.with_var(var)),
            // Not a literal of this problem; treat it as false.
            None => Place::Const(false),
        }
    }

    /// A literal of part `part`, outside a fork's scope: the constant of
    /// its model.
    #[cold]
    fn frozen_place(&self, part: u32, local: Lit) -> Place {
        Place::Const(self.part(part).sat.value(local))
    }

    /// In a fork, for a literal of a part: whether it lies in the fork's
    /// part (`false`: a frozen part, read as the constant of its model);
    /// `None` outside a fork and for a fixed literal.
    fn in_scope(&self, lit: Lit) -> Option<bool> {
        match (self.scope, self.locs.get(lit.var_index() as usize)) {
            (Some(k), Some(&Loc::In { part, .. })) => Some(part == k),
            _ => None,
        }
    }

    /// Whether `lit` lies in a frozen part of a fork.
    fn frozen(&self, lit: Lit) -> bool {
        self.in_scope(lit) == Some(false)
    }

    fn part(&self, p: u32) -> &Part {
        self.parts[p as usize]
            .as_ref()
            .expect("locations only name live parts")
    }

    pub(crate) fn part_mut(&mut self, p: u32) -> &mut Part {
        self.parts[p as usize]
            .as_mut()
            .expect("locations only name live parts")
    }

    /// Keeps what an [`Split::or`] found, if [`Split::record_ors`] asked.
    fn record(&mut self, record: OrRecord) {
        if let Some(ors) = &mut self.ors {
            ors.push(record);
        }
    }

    /// The global literal of a part's literal, numbering the variable if needed.
    fn global(&mut self, p: u32, lit: Lit) -> Lit {
        let var = lit.var_index();
        if var == 0 {
            // The part's constant.
            return if lit.is_negated() {
                !self.truth
            } else {
                self.truth
            };
        }
        let next = self.locs.len() as u32;
        let globals = &mut self.part_mut(p).globals;
        if globals.len() <= var as usize {
            globals.resize(var as usize + 1, NONE);
        }
        let g = &mut globals[var as usize];
        if *g == NONE {
            *g = next;
            self.locs.push(Loc::In { part: p, var });
        }
        lit.with_var(self.part(p).globals[var as usize])
    }

    /// Merges parts `ids` into a new part (clauses, models and numbering) and returns it.
    fn merge(&mut self, ids: &[u32]) -> u32 {
        let new_id = self.parts.len() as u32;
        let mut sat = Solver::new();
        let mut globals = vec![NONE];
        let mut model = Some(vec![true]);
        for &id in ids {
            let Some(part) = self.parts[id as usize].take() else {
                continue;
            };
            let start = globals.len();
            append_part(&mut sat, &mut globals, &mut model, &part);
            for (var, &g) in globals.iter().enumerate().skip(start) {
                if g != NONE {
                    self.locs[g as usize] = Loc::In {
                        part: new_id,
                        var: var as u32,
                    };
                }
            }
        }
        if let Some(model) = model {
            sat.model = model;
            sat.model_valid = true;
        }
        self.parts.push(Some(Part {
            sat,
            globals,
            loose: false,
            near: None,
        }));
        new_id
    }
}

/// Appends `part`'s variables and clauses to `sat`, its variables numbered
/// after `sat`'s, their global numbers to `globals` (one per variable of
/// `sat`) and its model to `model` (`None` once a part has none).
fn append_part(
    sat: &mut Solver,
    globals: &mut Vec<u32>,
    model: &mut Option<Vec<bool>>,
    part: &Part,
) {
    let offset = sat.num_vars() - 1;
    let map = |l: Lit| {
        if l.var_index() == 0 {
            l
        } else {
            l.with_var(l.var_index() + offset)
        }
    };
    let old = &part.sat;
    for v in 1..old.num_vars() {
        sat.new_var();
        globals.push(part.globals.get(v as usize).copied().unwrap_or(NONE));
    }
    if old.clause_gates.is_some() {
        sat.record_gates();
    }
    let mut clause = Vec::new();
    for (c, old_clause) in old.clauses.iter().enumerate() {
        let gate = old.clause_gate(c);
        clause.clear();
        clause.extend(old_clause.iter().map(|&l| map(l)));
        sat.defining = match gate {
            crate::NO_GATE => gate,
            g => g + offset,
        };
        sat.raw_clause(&clause);
    }
    sat.defining = crate::NO_GATE;
    if old.model_valid && old.model.len() == old.num_vars() as usize {
        if let Some(model) = model {
            model.extend_from_slice(&old.model[1..]);
        }
    } else {
        *model = None;
    }
}

/// Items grouped by part, in part order.
pub(crate) type ByPart<T> = Vec<(u32, Vec<T>)>;

/// Groups `(part, item)` pairs by part (in part order), keeping the order of items.
pub(crate) fn by_part<T>(mut items: Vec<(u32, T)>) -> ByPart<T> {
    items.sort_by_key(|&(p, _)| p);
    let mut out: Vec<(u32, Vec<T>)> = Vec::new();
    for (p, item) in items {
        match out.last_mut() {
            Some((q, group)) if *q == p => group.push(item),
            _ => out.push((p, vec![item])),
        }
    }
    out
}

/// Union-find over variable indices (path halving, union by size).
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{blocks, models, Rng};
    use crate::{Answer, Lit, Question, Solver};

    fn random_lits(rng: &mut Rng, vars: &[Lit], max: u64) -> Vec<Lit> {
        (0..rng.below(max + 1))
            .map(|_| {
                let v = vars[rng.below(vars.len() as u64) as usize];
                if rng.below(3) == 0 {
                    !v
                } else {
                    v
                }
            })
            .collect()
    }

    fn random_terms(rng: &mut Rng, vars: &[Lit], max: u64) -> Vec<(Lit, u64)> {
        random_lits(rng, vars, max)
            .into_iter()
            .map(|l| (l, rng.below(20)))
            .collect()
    }

    /// A random instance of `n` variables in `k` independent blocks, as a
    /// monolithic solver and as a second solver of the same clauses to split.
    struct Instance {
        mono: Solver,
        split_solver: Solver,
        vars: Vec<Lit>,
        cnf: Vec<Vec<Lit>>,
        n: usize,
        k: usize,
    }

    fn instance(rng: &mut Rng) -> Instance {
        let mut mono = Solver::new();
        let n = 1 + rng.below(12) as usize;
        let k = 1 + rng.below(5) as usize;
        let (vars, cnf) = blocks(rng, &mut mono, n, k);
        let mut split_solver = Solver::new();
        for _ in 0..n {
            split_solver.new_var();
        }
        for c in &cnf {
            mono.add_clause(c);
            split_solver.add_clause(c);
        }
        Instance {
            mono,
            split_solver,
            vars,
            cnf,
            n,
            k,
        }
    }

    /// The monolithic answer to [`Split::implied`].
    fn implied(s: &mut Solver, lits: &[Lit]) -> bool {
        let all = s.and(lits);
        let found = s.solve(&[!all]);
        s.solve(&[]);
        !found
    }

    /// [`Split::ask`] answers like the questions asked one by one of a
    /// monolithic solver, and leaves the same optimum constraints behind.
    /// `solve` under assumptions and `fixed` agree with the solver that was
    /// split, and the model `solve` leaves satisfies the assumptions.
    #[test]
    fn solving_under_assumptions_matches_the_whole_problem() {
        let mut rng = Rng::new(4242);
        for round in 0..400 {
            let Instance {
                mut mono,
                split_solver,
                vars,
                cnf,
                n,
                k,
            } = instance(&mut rng);
            let mut split = split_solver.split();
            let ctx = format!("round {round}, {n} vars, {k} blocks, {cnf:?}");
            for _ in 0..4 {
                let assumptions = random_lits(&mut rng, &vars, 4);
                let want = mono.solve(&assumptions);
                assert_eq!(split.solve(&assumptions), want, "{ctx}, {assumptions:?}");
                if want {
                    assert!(assumptions.iter().all(|&l| split.value(l)), "{ctx}");
                    // Every clause holds in the current model.
                    for c in &cnf {
                        assert!(c.iter().any(|&l| split.value(l)), "{ctx}: {c:?}");
                    }
                }
            }
            for &v in &vars {
                if let Some(b) = split.fixed(v) {
                    // Fixed: no model has the other value.
                    assert!(!mono.solve(&[if b { !v } else { v }]), "{ctx}");
                }
            }
        }
    }

    #[test]
    fn ask_matches_questions_asked_one_by_one() {
        let mut rng = Rng::new(77);
        for round in 0..300 {
            let Instance {
                mut mono,
                split_solver,
                vars,
                cnf,
                n,
                k,
            } = instance(&mut rng);
            let mut split = split_solver.split();
            let ms = models(&vars, &cnf);
            let ctx = format!("round {round}, {n} vars, {k} blocks");
            let t1 = random_terms(&mut rng, &vars, 8);
            let t2 = random_terms(&mut rng, &vars, 8);
            let u1 = random_lits(&mut rng, &vars, 5);
            let u2 = random_lits(&mut rng, &vars, 5);
            let questions = [
                Question::Minimize(&t1),
                Question::Unchanged(&u1, true),
                Question::Maximize(&t2),
                Question::Unchanged(&u2, false),
            ];
            let Some(answers) = split.ask(&questions) else {
                assert!(ms.is_empty(), "{ctx}");
                continue;
            };
            assert!(!ms.is_empty(), "{ctx}");
            assert!(mono.solve(&[]));
            assert_eq!(answers[0], Answer::Optimum(mono.minimize(&t1)), "{ctx}");
            // Whether the assignment of `u1`'s variables is unique does not
            // depend on the current model.
            let keep: Vec<Lit> = u1
                .iter()
                .map(|&l| if mono.value(l) { l } else { !l })
                .collect();
            let unique = implied(&mut mono, &keep);
            assert_eq!(answers[1], Answer::Unchanged(unique), "{ctx}");
            assert_eq!(answers[2], Answer::Optimum(mono.maximize(&t2)), "{ctx}");
            if answers[3] == Answer::Unchanged(true) {
                let keep: Vec<Lit> = u2.iter().copied().filter(|&l| split.value(l)).collect();
                assert!(implied(&mut mono, &keep), "{ctx}");
            }
            mono.prefer_false(&vars);
            split.prefer_false(&vars);
            let got: Vec<bool> = vars.iter().map(|&v| split.value(v)).collect();
            let want: Vec<bool> = vars.iter().map(|&v| mono.value(v)).collect();
            assert_eq!(got, want, "{ctx}");
        }
    }

    /// The same sequence of questions as v4t asks (optimisation stages, a
    /// coupling count stage, entailment probes, tie-breaking), asked of a
    /// monolithic solver and of its split, on instances made of independent blocks.
    #[test]
    fn split_matches_monolithic_solver() {
        let mut rng = Rng::new(2024);
        for round in 0..300 {
            let Instance {
                mut mono,
                mut split_solver,
                vars,
                cnf,
                n,
                k,
            } = instance(&mut rng);
            if round % 3 == 0 {
                // Sometimes split a solver that holds a model.
                split_solver.solve(&[]);
            }
            let mut split = split_solver.split();
            let ms = models(&vars, &cnf);
            assert_eq!(split.satisfiable(), !ms.is_empty(), "round {round}");
            assert!(split.num_parts() <= n);
            let ctx = format!("round {round}, {n} vars, {k} blocks");

            let t1 = random_terms(&mut rng, &vars, 8);
            assert_eq!(split.minimize(&t1), mono.minimize(&t1), "{ctx}");
            let probe = random_lits(&mut rng, &vars, 4);
            let probe: Vec<Lit> = probe.into_iter().filter(|&l| mono.value(l)).collect();
            assert_eq!(split.implied(&probe), implied(&mut mono, &probe), "{ctx}");
            let t2 = random_terms(&mut rng, &vars, 8);
            assert_eq!(split.maximize(&t2), mono.maximize(&t2), "{ctx}");

            // Disjunctions across blocks, minimised like a technology count.
            let groups: Vec<Vec<Lit>> = (0..rng.below(4))
                .map(|_| random_lits(&mut rng, &vars, 4))
                .collect();
            let mono_or: Vec<(Lit, u64)> = groups.iter().map(|g| (mono.or(g), 1)).collect();
            let split_or: Vec<(Lit, u64)> = groups.iter().map(|g| (split.or(g), 1)).collect();
            let optimum = split.minimize(&split_or);
            assert_eq!(optimum, mono.minimize(&mono_or), "{ctx}");
            // Several models may be optimal: the split's is one of them,
            // each disjunction true where a literal of its group is.
            if let Some(optimum) = optimum {
                for ((or, _), group) in split_or.iter().zip(&groups) {
                    let any = group.iter().any(|&l| split.value(l));
                    assert_eq!(split.value(*or), any, "{ctx}");
                }
                let true_ors = split_or.iter().filter(|(or, _)| split.value(*or)).count();
                assert_eq!(optimum, true_ors as u64, "{ctx}");
            }

            let probe: Vec<Lit> = vars
                .iter()
                .map(|&v| if mono.value(v) { v } else { !v })
                .filter(|_| rng.below(2) == 0)
                .collect();
            // The current models may differ; ask about what is true in both.
            let probe: Vec<Lit> = probe.into_iter().filter(|&l| split.value(l)).collect();
            assert_eq!(split.implied(&probe), implied(&mut mono, &probe), "{ctx}");

            let mut order = random_lits(&mut rng, &vars, n as u64 + 2);
            order.extend(&vars);
            mono.prefer_false(&order);
            split.prefer_false(&order);
            let got: Vec<bool> = vars.iter().map(|&v| split.value(v)).collect();
            let want: Vec<bool> = vars.iter().map(|&v| mono.value(v)).collect();
            assert_eq!(got, want, "{ctx}");
            if !ms.is_empty() {
                assert!(ms.contains(&got), "{ctx}");
            }
        }
    }

    /// A fork of the answered problem, with its part taken again from a
    /// pristine split and one more fact in it, answers the same questions
    /// and prefers the same model as the whole problem with that fact,
    /// split anew; unforking puts the answered problem back.
    #[test]
    fn a_fork_answers_as_the_whole_problem_with_one_more_fact() {
        let mut rng = Rng::new(808);
        let solver_of = |n: usize, cnf: &[Vec<Lit>], fact: Option<Lit>| {
            let mut s = Solver::new();
            for _ in 0..n {
                s.new_var();
            }
            for c in cnf {
                s.add_clause(c);
            }
            if let Some(l) = fact {
                s.require(l);
            }
            s
        };
        let mut forks = 0;
        for round in 0..400 {
            let Instance {
                vars, cnf, n, k, ..
            } = instance(&mut rng);
            let ctx = format!("round {round}, {n} vars, {k} blocks");
            let t1 = random_terms(&mut rng, &vars, 8);
            let t2 = random_terms(&mut rng, &vars, 8);
            let questions = [Question::Minimize(&t1), Question::Maximize(&t2)];
            let mut order = random_lits(&mut rng, &vars, n as u64 + 2);
            order.extend(&vars);
            let mut base = solver_of(n, &cnf, None).split();
            let pristine = solver_of(n, &cnf, None).split();
            if base.ask(&questions).is_none() {
                continue;
            }
            base.prefer_false(&order);
            let before: Vec<bool> = vars.iter().map(|&v| base.value(v)).collect();
            let x = vars[rng.below(vars.len() as u64) as usize];
            let fact = if base.value(x) { !x } else { x };
            let Some(part) = base.part_of(x) else {
                continue;
            };
            let mut whole = solver_of(n, &cnf, Some(fact)).split();
            let want = whole.ask(&questions);
            assert!(base.fork(part, &pristine), "{ctx}");
            forks += 1;
            base.require(fact);
            let got = base.ask(&questions);
            assert_eq!(got, want, "{ctx}");
            if want.is_some() {
                whole.prefer_false(&order);
                base.prefer_false(&order);
                let got: Vec<bool> = vars.iter().map(|&v| base.value(v)).collect();
                let want: Vec<bool> = vars.iter().map(|&v| whole.value(v)).collect();
                assert_eq!(got, want, "{ctx}");
            }
            assert!(base.fork_exact(), "{ctx}");
            base.unfork();
            let after: Vec<bool> = vars.iter().map(|&v| base.value(v)).collect();
            assert_eq!(after, before, "{ctx}");
        }
        assert!(forks > 100, "{forks} forks");
    }

    /// A disjunction that reaches into a frozen part makes the fork
    /// inexact: whether that part's share is decided is not known there.
    #[test]
    fn a_disjunction_across_a_fork_is_inexact() {
        let mut sat = Solver::new();
        let a = sat.new_var();
        let b = sat.new_var();
        let c = sat.new_var();
        let d = sat.new_var();
        sat.add_clause(&[a, b]);
        sat.add_clause(&[c, d]);
        let build = |sat: &Solver| {
            let mut s = Solver::new();
            for _ in 0..4 {
                s.new_var();
            }
            for clause in sat.clauses.iter() {
                s.add_clause(clause);
            }
            s.split()
        };
        let pristine = build(&sat);
        let mut base = build(&sat);
        assert!(base.satisfiable());
        let part = base.part_of(a).expect("a is free");
        assert_ne!(Some(part), base.part_of(c));
        assert!(base.fork(part, &pristine));
        base.or(&[a]);
        assert!(base.fork_exact());
        base.or(&[a, c]);
        assert!(!base.fork_exact());
        base.unfork();
        assert!(base.fork(part, &pristine), "a fork resets exactness");
        assert!(base.fork_exact());
    }

    /// [`Split::prefer`] picks the model one solver would, also for lists
    /// spanning several parts.
    #[test]
    fn prefer_matches_monolithic_solver() {
        let mut rng = Rng::new(31);
        for round in 0..300 {
            let Instance {
                mut mono,
                split_solver,
                vars,
                cnf,
                n,
                k,
            } = instance(&mut rng);
            let mut split = split_solver.split();
            let ctx = format!("round {round}, {n} vars, {k} blocks");
            let ms = models(&vars, &cnf);
            // Without a model there is nothing to prefer (the values are
            // then no model's).
            assert_eq!(split.satisfiable(), !ms.is_empty(), "{ctx}");
            if ms.is_empty() {
                continue;
            }
            let lists: Vec<Vec<Lit>> = (0..rng.below(5))
                .map(|_| random_lits(&mut rng, &vars, 4))
                .collect();
            let firsts: Vec<&[Lit]> = lists.iter().map(Vec::as_slice).collect();
            let mut order = random_lits(&mut rng, &vars, n as u64);
            order.extend(&vars);
            mono.prefer(&firsts, &order);
            split.prefer(&firsts, &order);
            let got: Vec<bool> = vars.iter().map(|&v| split.value(v)).collect();
            let want: Vec<bool> = vars.iter().map(|&v| mono.value(v)).collect();
            assert_eq!(got, want, "{ctx}");
            assert!(ms.contains(&got), "{ctx}");
        }
    }

    #[test]
    fn parts_follow_connectivity_and_merge_on_demand() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..8).map(|_| s.new_var()).collect();
        // Blocks {0, 1}, {2, 3}, {4, 5}; 6 is fixed, 7 is unconstrained.
        s.add_clause(&[xs[0], xs[1]]);
        s.add_clause(&[xs[2], xs[3]]);
        s.add_clause(&[xs[4], !xs[5]]);
        s.require(xs[6]);
        // Satisfied by a fact: does not connect 5 and 2.
        s.add_clause(&[xs[6], xs[5], xs[2]]);
        let mut split = s.split();
        assert_eq!(split.num_parts(), 4);
        assert!(split.satisfiable());
        assert!(split.value(xs[6]));
        assert!(split.implied(&[xs[6]]));
        assert!(!split.implied(&[!xs[7]]) || !split.value(!xs[7]));
        // Both shares undecided: the two parts merge.
        let either = split.or(&[xs[0], xs[2]]);
        assert_eq!(split.num_parts(), 3);
        assert_eq!(split.minimize(&[(either, 1)]), Some(0));
        split.prefer_false(&xs);
        let got: Vec<bool> = xs.iter().map(|&x| split.value(x)).collect();
        assert_eq!(
            got,
            vec![false, true, false, true, false, false, true, false]
        );
        // A share true in every model makes the disjunction constant.
        let t = split.or(&[xs[1], xs[4]]);
        assert!(split.implied(&[t]));
        assert_eq!(split.num_parts(), 3);
        assert_eq!(split.or(&[]), !split.or(&[xs[6]]));
    }

    #[test]
    fn parts_store_their_clauses_at_exact_size() {
        let mut rng = Rng::new(99);
        for _ in 0..100 {
            let split = instance(&mut rng).split_solver.split();
            for part in split.parts.iter().flatten() {
                // A part's solver starts with the unit clause of its constant
                // (a vector's first allocation holds four entries); the rest
                // is reserved exactly, with no growth by doubling.
                let sat = &part.sat;
                assert!(sat.clauses.reserved_exactly());
            }
        }
    }

    #[test]
    fn a_split_propagation_decides_has_no_part() {
        // A chain of equivalences and negations from one fact decides every
        // variable, each to its own value.
        let mut s = Solver::new();
        let vars: Vec<Lit> = (0..40).map(|_| s.new_var()).collect();
        s.require(vars[0]);
        let mut want = vec![true];
        for (i, w) in vars.windows(2).enumerate() {
            let next = if i % 3 == 0 { w[1] } else { !w[1] };
            s.add_clause(&[!w[0], next]);
            s.add_clause(&[w[0], !next]);
            want.push(want[i] == (i % 3 == 0));
        }
        let mut split = s.split();
        assert_eq!(split.num_parts(), 0);
        assert!(split.satisfiable());
        // Preferences have nothing left to choose.
        split.prefer(&[&vars[..3]], &vars);
        for (&v, &b) in vars.iter().zip(&want) {
            assert_eq!(split.fixed(v), Some(b));
            assert_eq!((split.value(v), split.value(!v)), (b, !b));
        }
    }

    #[test]
    fn unsatisfiable_split() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        s.add_clause(&[a, b]);
        s.add_clause(&[!a, b]);
        s.add_clause(&[a, !b]);
        s.add_clause(&[!a, !b]);
        let mut split = s.split();
        assert!(!split.satisfiable());
        assert_eq!(split.minimize(&[(a, 1)]), None);
        assert_eq!(split.maximize(&[(a, 1)]), None);
        assert!(split.implied(&[a]));
        split.prefer_false(&[a]);
        assert!(!split.value(a) && !split.value(!a));
        let mut s = Solver::new();
        let a = s.new_var();
        s.require(a);
        s.require(!a);
        assert!(!s.split().satisfiable());
    }
}
