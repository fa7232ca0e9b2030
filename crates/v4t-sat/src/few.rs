//! Questions over few variables: every assignment, by unit propagation.
//!
//! Most templates have a handful of inputs, and the analyses ask about
//! them again and again: how many configurations are solvable, allowed or
//! failing, which check a configuration fails first, which is the smallest
//! failing one. The general answers (the counter of [`Solver::count`], one
//! solve per question) cost as much for three input literals as for three
//! hundred: the counter copies and simplifies the whole problem, and every
//! solve assigns every variable. With at most [`FEW`] free variables to
//! branch on, or few assignments of them where they are the values of
//! inputs (one literal per value, exactly one true: at most [`LEAVES`]
//! assignments, or one per variable), trying every assignment is cheaper:
//! a propagator over the clauses that can undo its facts walks the
//! assignments depth first (an input's values by halves, one half false
//! while a value of the other is chosen: with the exactly-one's tree of
//! halves, [`Solver::exactly_one`], n values in n log n steps), and almost
//! every leaf is decided by propagation alone (a conflict, or every clause
//! satisfied). A leaf that is not is asked of the search backend, a few
//! times at most ([`FALLBACK_SOLVES`]); beyond that the caller answers the
//! general way. The answers are the same either way.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::count::CountBudget;
use crate::gates::FxHasher;
use crate::natural::Natural;
use crate::propagate::{Propagator, Store};
use crate::{Implied, Lit, Solver};

/// At most this many free variables are branched on (1,024 leaves),
/// unless the exactly-ones they are in leave them at most [`LEAVES`]
/// assignments, or one per variable ([`units`]).
const FEW: usize = 10;

/// The assignments a walk may visit where its variables are more than
/// [`FEW`] (an input of many values, several inputs of a few values).
const LEAVES: u64 = 1 << FEW;

/// Branch literals (counted with repeats) the level-0 facts leave free
/// beyond [`FEW`] that the assumptions may still fix before the
/// enumeration is not tried at all.
const FEW_FIXED: usize = 54;

/// Leaves propagation leaves open that may be asked of the backend before
/// the enumeration gives up.
const FALLBACK_SOLVES: usize = 8;

/// What a walk does on each assignment that has a model, given the model:
/// go on, or stop.
type OnLeaf<'a> = dyn FnMut(Model<'_>) -> ControlFlow<()> + 'a;

/// A leaf's model: the propagator's facts (every clause satisfied; a
/// variable without a fact false), with the positions of the true
/// literals of the image the walk watches if it watches one, or the
/// backend's model.
#[derive(Clone, Copy)]
enum Model<'a> {
    Facts {
        values: &'a [i8],
        ones: Option<&'a [u32]>,
    },
    Solved(&'a [bool]),
}

impl Model<'_> {
    /// The value of variable `v`.
    fn value(self, v: u32) -> bool {
        match self {
            Model::Facts { values, .. } => values[v as usize] > 0,
            Model::Solved(model) => model[v as usize],
        }
    }
}

/// The values of an image's literals in one model: the positions of the
/// true ones where they are few (under one in 32: an input's values, an
/// element each), else the values as packed bits. One form per image, so
/// that equal images are equal values.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Image {
    Ones(Box<[u32]>),
    Bits(Box<[u64]>),
}

impl Image {
    /// The image of `len` literals whose true ones are at `ones` (any
    /// order).
    fn from_ones(mut ones: Vec<u32>, len: usize) -> Image {
        if Image::sparse(ones.len(), len) {
            ones.sort_unstable();
            return Image::Ones(ones.into());
        }
        let mut bits = vec![0u64; len.div_ceil(64)];
        for i in ones {
            bits[i as usize / 64] |= 1 << (i % 64);
        }
        Image::Bits(bits.into())
    }

    /// The image of `len` literals of values `bits`.
    fn from_bits(bits: Vec<u64>, len: usize) -> Image {
        let ones: usize = bits.iter().map(|w| w.count_ones() as usize).sum();
        if !Image::sparse(ones, len) {
            return Image::Bits(bits.into());
        }
        Image::Ones(set_bits(&bits).map(|i| i as u32).collect())
    }

    /// Whether an image of `len` literals, `ones` of them true, is kept as
    /// its true positions (the one rule of both constructors).
    fn sparse(ones: usize, len: usize) -> bool {
        ones * 32 < len
    }

    /// The image of `lits` in `model`: from the watched true literals if
    /// the walk watches `lits`, else by reading each literal.
    fn of(lits: &[Lit], model: Model<'_>) -> Image {
        /// One loop per kind of model, without a call per literal.
        fn pack(lits: &[Lit], value: impl Fn(usize) -> bool) -> Vec<u64> {
            let word = |chunk: &[Lit]| {
                (chunk.iter().enumerate()).fold(0u64, |word, (i, l)| {
                    word | u64::from(value(l.var_index() as usize) != l.is_negated()) << i
                })
            };
            lits.chunks(64).map(word).collect()
        }
        let len = lits.len();
        match model {
            Model::Facts {
                ones: Some(ones), ..
            } => Image::from_ones(ones.to_vec(), len),
            Model::Facts { values, .. } => Image::from_bits(pack(lits, |v| values[v] > 0), len),
            Model::Solved(values) => Image::from_bits(pack(lits, |v| values[v]), len),
        }
    }

    /// The positions of its true literals, in order.
    fn ones(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match self {
            Image::Ones(ones) => Box::new(ones.iter().map(|&i| i as usize)),
            Image::Bits(bits) => Box::new(set_bits(bits)),
        }
    }
}

/// The positions of the set bits of `bits`, in order.
fn set_bits(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    (bits.iter().enumerate()).flat_map(|(w, &word)| {
        (0..64)
            .filter(move |b| word >> b & 1 == 1)
            .map(move |b| 64 * w + b)
    })
}

/// Distinct images.
type Images = HashSet<Image, BuildHasherDefault<FxHasher>>;

impl Solver {
    /// The number of distinct assignments of `image` over the models in
    /// which `assumptions` hold, found by trying every
    /// assignment of the variables of `branch` the assumptions leave free,
    /// if they are few ([`FEW`], [`LEAVES`]); `None` if not, if too many
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
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        image: &[Lit],
    ) -> Option<Natural> {
        let vars_of = |lits: &[Lit]| {
            let mut vars: Vec<u32> = lits.iter().map(|l| l.var_index()).collect();
            vars.sort_unstable();
            vars.dedup();
            vars
        };
        if vars_of(branch) != vars_of(image) {
            let images = self.images_few(budget, assumptions, branch, image)?;
            return Some(Natural::from(images.len() as u128));
        }
        // The image is the branch: each leaf is an image of its own.
        let mut leaves = 0u128;
        let walked = self.walk_few(budget, (assumptions, branch, false), &[], &mut |_| {
            leaves += 1;
            ControlFlow::Continue(())
        })?;
        debug_assert!(walked.is_continue());
        Some(Natural::from(leaves))
    }

    /// The distinct assignments of `image` ([`Solver::count_few`]).
    fn images_few(
        &mut self,
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        image: &[Lit],
    ) -> Option<Arc<Images>> {
        let mut vars: Vec<Lit> = branch
            .iter()
            .map(|l| Lit::from_var(l.var_index()))
            .collect();
        vars.sort_unstable();
        let asked = Remembered {
            clauses: self.clauses.len(),
            vars: self.vars,
            assumptions: assumptions.to_vec(),
            branch: vars,
            image: image.to_vec(),
            images: Arc::default(),
        };
        if let Some(last) = self.few_images.as_ref().filter(|last| last.answers(&asked)) {
            return Some(Arc::clone(&last.images));
        }
        let mut images = Images::default();
        let walking = (assumptions, &asked.branch[..], false);
        let walked = self.walk_few(budget, walking, image, &mut |model| {
            images.insert(Image::of(image, model));
            ControlFlow::Continue(())
        })?;
        debug_assert!(walked.is_continue());
        let images = Arc::new(images);
        self.few_images = Some(Box::new(Remembered {
            images: Arc::clone(&images),
            ..asked
        }));
        Some(images)
    }

    /// [`Solver::possible_firsts`] where the caller knows that `inputs`
    /// determine `lits` (models that agree on the inputs agree on every
    /// literal of `lits`): each assignment of the inputs has one first
    /// true literal, so where the inputs are few, trying each assignment
    /// finds them all without a solve; otherwise they are asked part by
    /// part ([`crate::Split::possible_firsts`]).
    pub fn possible_firsts_determined(&mut self, inputs: &[Lit], lits: &[Lit]) -> Vec<usize> {
        let few = self.images_few(&CountBudget::default(), &[], inputs, lits);
        let Some(images) = few else {
            return self.split_copy().possible_firsts(lits);
        };
        let mut found: Vec<usize> = images.iter().filter_map(|i| i.ones().next()).collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// [`Solver::backbone`] of `lits` where the caller knows that `inputs`
    /// determine them (models that agree on the inputs agree on `lits`):
    /// where the inputs are few, the values over every assignment of them
    /// that has a model; otherwise part by part ([`crate::Split::backbone`]).
    pub fn backbone_determined(&mut self, inputs: &[Lit], lits: &[Lit]) -> Option<Vec<Implied>> {
        let few = self.images_few(&CountBudget::default(), &[], inputs, lits);
        let Some(images) = few else {
            return self.split_copy().backbone(lits);
        };
        if images.is_empty() {
            return None;
        }
        // How many images each literal is true in.
        let mut trues = vec![0usize; lits.len()];
        for i in images.iter().flat_map(Image::ones) {
            trues[i] += 1;
        }
        let implied = trues
            .into_iter()
            .map(|t| match t {
                t if t == images.len() => Implied::True,
                0 => Implied::False,
                _ => Implied::Free,
            })
            .collect();
        Some(implied)
    }

    /// The smallest model in which `base` holds, lexicographically over
    /// `order` with false before true, as its values on `order`
    /// ([`Solver::prefer_false_assuming_on_order`]), if `order` has few
    /// free variables and such a model exists; the stored model becomes
    /// one that agrees with it on `order`. `None` otherwise (nothing
    /// changed but the backend's state).
    pub(crate) fn prefer_false_few(&mut self, base: &[Lit], order: &[Lit]) -> Option<()> {
        let n = self.num_vars();
        let mut smallest = None;
        let budget = CountBudget::default();
        let walked = self.walk_few(&budget, (base, order, true), &[], &mut |model| {
            smallest = Some((0..n).map(|v| model.value(v)).collect::<Vec<bool>>());
            ControlFlow::Break(())
        })?;
        let model = smallest.filter(|_| walked.is_break())?;
        self.model = model;
        self.model_valid = true;
        Some(())
    }

    /// Walks the assignments of the variables of `branch` that the
    /// assumptions leave free (few: [`FEW`], [`LEAVES`]) depth first, if
    /// `in_order` in the order given, each literal false before true,
    /// else in any order ([`Walk::visit_units`]), and calls `leaf` with the
    /// values of a model (every variable) on each assignment that has
    /// one, with the true literals of `watched` if it is not empty
    /// ([`Propagator::watch`]), until it breaks. `None` if the walk is not
    /// tried or gives up ([`Solver::count_few`]); `Continue` if it visited
    /// every assignment.
    fn walk_few(
        &mut self,
        budget: &CountBudget,
        (assumptions, branch, in_order): (&[Lit], &[Lit], bool),
        watched: &[Lit],
        leaf: &mut OnLeaf<'_>,
    ) -> Option<ControlFlow<()>> {
        let clauses = self.clauses.len();
        let vars = self.vars as usize;
        let cached =
            (self.few.take()).filter(|c| c.clauses == clauses && c.propagator.vars() == vars);
        // A new propagator starts from the facts known without work: the
        // backend's level 0, or the store's (it propagates them to level 0
        // itself).
        let facts = match (&cached, &self.sat) {
            (Some(_), _) => Vec::new(),
            (None, Some(_)) => self.level0()?,
            (None, None) if self.store_unsat => return Some(ControlFlow::Continue(())),
            (None, None) => self.assigned.clone(),
        };
        let known = cached
            .as_ref()
            .map_or(&facts[..], |c| c.propagator.values());
        // Not worth a propagator if the assumptions would have to fix
        // almost every branch variable.
        let free = |l: &Lit| known[l.var_index() as usize] == 0;
        if branch
            .iter()
            .filter(|l| free(l))
            .nth(FEW + FEW_FIXED)
            .is_some()
            && units(self, &free_vars(branch, known), known).is_none()
        {
            self.few = cached;
            return None;
        }
        // A leaf propagation leaves open is asked of the backend, if there
        // is one (the store is lent to the propagator meanwhile, and
        // building one for a walk that may not need it would cost more
        // than the walk: without, such a leaf makes the walk give up).
        let fallback_solves = if self.sat.is_some() {
            FALLBACK_SOLVES
        } else {
            0
        };
        let (flow, p) = self.lending_store(|sat, store| {
            let mut p = match cached {
                Some(c) => c.propagator,
                None => Propagator::new(store, &facts),
            };
            if p.conflicts() {
                return (Some(ControlFlow::Continue(())), p);
            }
            let base = p.mark();
            let steps_before = p.visited();
            let walking = (assumptions, branch, in_order, watched);
            let flow = walk_from(sat, &mut p, walking, |vars| Walk {
                budget,
                decisions: 0,
                steps_before,
                leaf: Vec::with_capacity(assumptions.len() + vars),
                solves_left: fallback_solves,
                on_leaf: leaf,
                store,
            });
            p.unwatch();
            p.undo(base);
            (flow, p)
        });
        // The propagator is back where it started: the next walk on the
        // same clauses starts from it.
        self.few = Some(Box::new(Cached {
            clauses,
            propagator: p,
        }));
        flow
    }
}

/// The images of the last complete walk ([`Solver::images_few`]) and what
/// it was asked: a walk over the same clauses, assumptions, branch and
/// image finds them again.
pub(crate) struct Remembered {
    clauses: usize,
    vars: u32,
    assumptions: Vec<Lit>,
    /// The branch's variables, sorted.
    branch: Vec<Lit>,
    image: Vec<Lit>,
    /// Shared with the caller: an image set can take n² bits (an input of
    /// n values, a presence each).
    images: Arc<Images>,
}

impl Remembered {
    /// Whether these images answer `asked` (whose images are not known).
    fn answers(&self, asked: &Remembered) -> bool {
        self.clauses == asked.clauses
            && self.vars == asked.vars
            && self.assumptions == asked.assumptions
            && self.branch == asked.branch
            && self.image == asked.image
    }
}

/// The propagator of the last walk, back in its first state, for the next
/// walk while no clause or variable is added.
pub(crate) struct Cached {
    /// The number of clauses in the store it was built on.
    clauses: usize,
    propagator: Propagator,
}

/// Assumes `assumptions` and walks the free variables of `branch` with the
/// walk `make` returns (given their number), `in_order` or choice by
/// choice ([`Walk::visit_units`]), watching the literals of `watched` where
/// the variables are more than [`LEAVES`] (reading each leaf's image would
/// cost more than its walk: an input of thousands of values); `None` if
/// they are not few ([`FEW`], [`LEAVES`]) or the walk gives up.
fn walk_from<'a>(
    sat: &mut Solver,
    p: &mut Propagator,
    (assumptions, branch, in_order, watched): (&[Lit], &[Lit], bool, &[Lit]),
    make: impl FnOnce(usize) -> Walk<'a>,
) -> Option<ControlFlow<()>> {
    if !assumptions.iter().all(|&l| p.assume(l)) {
        return Some(ControlFlow::Continue(()));
    }
    let vars = free_vars(branch, p.values());
    let units = units(sat, &vars, p.values())?;
    if vars.len() as u64 > LEAVES && !watched.is_empty() {
        p.watch(watched);
    }
    let mut walk = make(vars.len());
    walk.leaf.extend_from_slice(assumptions);
    if in_order {
        walk.visit(sat, p, &vars)
    } else {
        walk.visit_units(sat, p, &units)
    }
}

/// The literals of `branch` whose variables `values` leave free (0), the
/// first of each variable, in order.
fn free_vars(branch: &[Lit], values: &[i8]) -> Vec<Lit> {
    let mut seen = vec![0u64; values.len().div_ceil(64)];
    let mut vars = Vec::new();
    for &l in branch {
        let v = l.var_index() as usize;
        if values[v] == 0 && seen[v / 64] >> (v % 64) & 1 == 0 {
            seen[v / 64] |= 1 << (v % 64);
            vars.push(l);
        }
    }
    vars
}

/// One choice of a walk: a variable, or literals of an exactly-one that
/// holds, one of them true and the others false, or (`or_none`, where
/// the group's other literals lie outside the walk) all false.
enum Unit {
    Var(Lit),
    OneOf { lits: Vec<Lit>, or_none: bool },
}

/// The free variables `vars` as the choices of a walk, if they have at
/// most [`LEAVES`] assignments or at most one per variable, by the
/// exactly-ones `values` make hold ([`Solver::one_hot_groups`]): a walk's
/// leaves are the assignments propagation does not refute, and
/// propagation refutes an exactly-one with two true literals or none (the
/// gates of each are clauses). Each variable counts in the first such
/// group it is in: a group whose free literals are all there gives as
/// many assignments as it has, one whose others are elsewhere one more
/// (none of them true), one with a true literal one (each a
/// [`Unit::OneOf`] but the last and one of a single literal that must be
/// true); every other variable two (a [`Unit::Var`]). `None` if they
/// have more.
fn units(sat: &Solver, vars: &[Lit], values: &[i8]) -> Option<Vec<Unit>> {
    let limit = LEAVES.max(vars.len() as u64);
    // The variables of `vars` no group has counted yet, as bits.
    let mut open = vec![0u64; values.len().div_ceil(64)];
    for l in vars {
        let v = l.var_index() as usize;
        open[v / 64] |= 1 << (v % 64);
    }
    let mut left = vars.len();
    let is = |l: Lit, want: bool| {
        let v = values[l.var_index() as usize];
        v != 0 && ((v > 0) != l.is_negated()) == want
    };
    let mut bound: u64 = 1;
    let mut units = Vec::new();
    for (gate, lits) in sat.one_hot_groups() {
        if !is(gate, true) {
            continue;
        }
        let decided = lits.iter().any(|&l| is(l, true));
        let (mut here, mut elsewhere) = (Vec::new(), false);
        for &l in lits {
            let v = l.var_index() as usize;
            if values[v] != 0 {
                continue;
            }
            if open[v / 64] >> (v % 64) & 1 == 1 {
                open[v / 64] &= !(1 << (v % 64));
                left -= 1;
                here.push(l);
            } else {
                elsewhere = true;
            }
        }
        if decided {
            // Propagation has made the others false (walked if not).
            units.extend(here.into_iter().map(Unit::Var));
            continue;
        }
        let choices = here.len() as u64 + u64::from(elsewhere);
        bound = bound.saturating_mul(choices.max(1));
        if bound > limit {
            return None;
        }
        if here.len() >= 2 || elsewhere && !here.is_empty() {
            units.push(Unit::OneOf {
                lits: here,
                or_none: elsewhere,
            });
        } else {
            units.extend(here.into_iter().map(Unit::Var));
        }
    }
    let rest = u32::try_from(left).unwrap_or(u32::MAX);
    if bound.saturating_mul(1u64.checked_shl(rest).unwrap_or(u64::MAX)) > limit {
        return None;
    }
    let ungrouped = |l: &&Lit| {
        let v = l.var_index() as usize;
        open[v / 64] >> (v % 64) & 1 == 1
    };
    let singles = vars.iter().filter(ungrouped).map(|&l| Unit::Var(l));
    Some(singles.chain(units).collect())
}

/// The depth-first walk over the assignments of the branch variables.
struct Walk<'a> {
    budget: &'a CountBudget,
    /// Branching decisions made.
    decisions: u64,
    /// The propagator's steps when the walk began (it is kept from walk
    /// to walk, and each walk has the budget's steps).
    steps_before: u64,
    /// The assumptions and the decisions so far (for the backend).
    leaf: Vec<Lit>,
    /// Leaves that may still be asked of the backend.
    solves_left: usize,
    on_leaf: &'a mut OnLeaf<'a>,
    store: Store<'a>,
}

impl Walk<'_> {
    /// Visits every assignment of `vars` under the current facts, each
    /// variable false before true and one that propagation has assigned
    /// at its value without a decision; `None` if the walk gives up. The
    /// path is a stack, not recursion: an input of thousands of values is
    /// a path of thousands of decisions.
    fn visit(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator,
        vars: &[Lit],
    ) -> Option<ControlFlow<()>> {
        let mut path: Vec<Decision> = Vec::new();
        let mut next = 0;
        loop {
            // Down: free variables false, until a leaf or a conflict.
            loop {
                while vars
                    .get(next)
                    .is_some_and(|l| p.values()[l.var_index() as usize] != 0)
                {
                    next += 1;
                }
                let Some(&l) = vars.get(next) else {
                    if self.leaf(sat, p)?.is_break() {
                        return Some(ControlFlow::Break(()));
                    }
                    break;
                };
                self.decisions += 1;
                if self.spent(p) {
                    return None;
                }
                path.push(Decision {
                    at: next,
                    mark: p.mark(),
                    leaf: self.leaf.len(),
                    both: false,
                });
                if !p.assume(!l) {
                    break;
                }
                self.leaf.push(!l);
                next += 1;
            }
            // Up: the deepest decision whose true value is still to walk.
            loop {
                let Some(d) = path.last_mut() else {
                    return Some(ControlFlow::Continue(()));
                };
                p.undo(d.mark);
                self.leaf.truncate(d.leaf);
                if d.both {
                    path.pop();
                    continue;
                }
                d.both = true;
                if self.spent(p) {
                    return None;
                }
                let l = vars[d.at];
                if p.assume(l) {
                    self.leaf.push(l);
                    next = d.at + 1;
                    break;
                }
            }
        }
    }

    /// Visits every assignment of the choices `units` under the current
    /// facts, in no set order: a variable false, then true; an exactly-one
    /// by halves, one half false while the other is chosen from
    /// ([`Walk::choose`]). Recursive: choices are few (each has two
    /// assignments or more, and they have at most [`LEAVES`] or one per
    /// variable), and halving a group of n is log n deep.
    fn visit_units(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator,
        units: &[Unit],
    ) -> Option<ControlFlow<()>> {
        let Some((unit, rest)) = units.split_first() else {
            return self.leaf(sat, p);
        };
        match unit {
            Unit::Var(l) if p.values()[l.var_index() as usize] == 0 => {
                for lit in [!*l, *l] {
                    let flow = self.under(sat, p, (&[lit], false), |w, sat, p| {
                        w.visit_units(sat, p, rest)
                    })?;
                    if flow.is_break() {
                        return Some(flow);
                    }
                }
                Some(ControlFlow::Continue(()))
            }
            Unit::Var(_) => self.visit_units(sat, p, rest),
            Unit::OneOf { lits, or_none } => {
                if *or_none {
                    let flow = self.under(sat, p, (lits, true), |w, sat, p| {
                        w.visit_units(sat, p, rest)
                    })?;
                    if flow.is_break() {
                        return Some(flow);
                    }
                }
                self.choose(sat, p, lits, rest)
            }
        }
    }

    /// Visits the assignments in which one of `lits` is true, the others
    /// false (an exactly-one that holds), then `rest` under each: with
    /// every other literal of the group false already, a leaf's true
    /// literal propagates only what it implies itself (with a tree of
    /// `or`s over the group, [`Solver::exactly_one`]: its path to the root).
    fn choose(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator,
        lits: &[Lit],
        rest: &[Unit],
    ) -> Option<ControlFlow<()>> {
        if lits.iter().any(|&l| p.known(l) == Some(true)) {
            return self.visit_units(sat, p, rest);
        }
        let open: Vec<Lit> = lits
            .iter()
            .copied()
            .filter(|&l| p.known(l).is_none())
            .collect();
        if open.len() <= 1 {
            // One left must be true; none left: no assignment.
            return match open.first() {
                Some(&l) => self.under(sat, p, (&[l], false), |w, sat, p| {
                    w.visit_units(sat, p, rest)
                }),
                None => Some(ControlFlow::Continue(())),
            };
        }
        let (front, back) = open.split_at(open.len() / 2);
        for (falsified, kept) in [(back, front), (front, back)] {
            let flow = self.under(sat, p, (falsified, true), |w, sat, p| {
                w.choose(sat, p, kept, rest)
            })?;
            if flow.is_break() {
                return Some(flow);
            }
        }
        Some(ControlFlow::Continue(()))
    }

    /// One decision: `lits` assumed (each negated if `negated`), then
    /// `then`, then undone; nothing if they conflict. `None` if the budget
    /// is spent.
    fn under(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator,
        (lits, negated): (&[Lit], bool),
        then: impl FnOnce(&mut Self, &mut Solver, &mut Propagator) -> Option<ControlFlow<()>>,
    ) -> Option<ControlFlow<()>> {
        self.decisions += 1;
        if self.spent(p) {
            return None;
        }
        let (mark, leaf) = (p.mark(), self.leaf.len());
        let mut fine = true;
        for &l in lits {
            let l = if negated { !l } else { l };
            if !p.assume(l) {
                fine = false;
                break;
            }
            self.leaf.push(l);
        }
        let flow = if fine {
            then(self, sat, p)
        } else {
            Some(ControlFlow::Continue(()))
        };
        p.undo(mark);
        self.leaf.truncate(leaf);
        flow
    }

    /// Whether the walk has used up its decisions or its steps.
    fn spent(&self, p: &Propagator) -> bool {
        let steps = p.visited() - self.steps_before;
        self.decisions > self.budget.decisions || steps > self.budget.steps
    }

    /// A full assignment of the branch variables without conflict: the
    /// leaf callback on a model, if it has one.
    fn leaf(&mut self, sat: &mut Solver, p: &Propagator) -> Option<ControlFlow<()>> {
        if p.satisfied(self.store) {
            // Every clause holds: the facts with the rest false are a model.
            let model = Model::Facts {
                values: p.values(),
                ones: p.watched_ones(),
            };
            return Some((self.on_leaf)(model));
        }
        self.solves_left = self.solves_left.checked_sub(1)?;
        if !sat.solve_limited(&self.leaf, self.budget.conflicts)? {
            return Some(ControlFlow::Continue(()));
        }
        let model = &sat.model;
        Some((self.on_leaf)(Model::Solved(model)))
    }
}

/// A decision on a walk's path ([`Walk::visit`]).
struct Decision {
    /// The variable's position in the walk's variables.
    at: usize,
    /// The propagator's and the leaf's lengths before it.
    mark: usize,
    leaf: usize,
    /// Whether its true value is being walked (its false one was).
    both: bool,
}

#[cfg(test)]
mod tests {
    use crate::testutil::{assignments, exercised, fixing, random_lit, Rng};
    use crate::{Implied, Lit, Natural, Solver};

    /// A solver with inputs `xs` (1 to 12), gates over them (so the inputs
    /// determine every gate), sometimes a clause over a gate and an input,
    /// and the gates in a random order with random signs.
    fn determined_instance(rng: &mut Rng) -> (Solver, Vec<Lit>, Vec<Lit>) {
        let mut s = Solver::new();
        let n = 1 + rng.below(12) as usize;
        let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        let mut pool = xs.clone();
        let mut gates = Vec::new();
        for _ in 0..1 + rng.below(12) {
            let mut pick = || random_lit(rng, &pool);
            let (a, b, c) = (pick(), pick(), pick());
            let g = match rng.below(5) {
                0 => s.and(&[a, b]),
                1 => s.or(&[a, b, c]),
                2 => s.xor(&[a, b]),
                3 => s.at_most_one(&[a, b, c]),
                _ => s.ite(a, b, c),
            };
            pool.push(g);
            gates.push(if rng.below(3) == 0 { !g } else { g });
        }
        for _ in 0..rng.below(3) {
            let g = gates[rng.below(gates.len() as u64) as usize];
            let x = xs[rng.below(n as u64) as usize];
            s.add_clause(&[!g, x]);
        }
        (s, xs, gates)
    }

    /// The values of `lits` in each model, one per input assignment that
    /// has one (brute force through solves).
    fn images(s: &mut Solver, xs: &[Lit], lits: &[Lit]) -> Vec<Vec<bool>> {
        assignments(xs.len())
            .filter_map(|bits| {
                let sat = s.solve(&fixing(xs, &bits));
                sat.then(|| lits.iter().map(|&l| s.value(l)).collect())
            })
            .collect()
    }

    /// Checks the first true literals and the backbone of `gates` that
    /// `inputs` determine against `all` their images.
    fn assert_firsts_and_backbone(
        s: &mut Solver,
        (inputs, gates): (&[Lit], &[Lit]),
        all: &[Vec<bool>],
        round: usize,
    ) {
        let (firsts, backbone) = firsts_and_backbone(all, gates.len());
        let found = s.possible_firsts_determined(inputs, gates);
        assert_eq!(found, firsts, "round {round}");
        let found = s.backbone_determined(inputs, gates);
        assert_eq!(found, backbone, "round {round}");
    }

    /// The first true literal of each image and the backbone over `all`
    /// images of `n` literals, as the walks answer them.
    fn firsts_and_backbone(all: &[Vec<bool>], n: usize) -> (Vec<usize>, Option<Vec<Implied>>) {
        let mut firsts: Vec<usize> = all
            .iter()
            .filter_map(|m| m.iter().position(|&b| b))
            .collect();
        firsts.sort_unstable();
        firsts.dedup();
        let backbone = (!all.is_empty()).then(|| {
            (0..n)
                .map(
                    |i| match (all.iter().all(|m| m[i]), all.iter().any(|m| m[i])) {
                        (true, _) => Implied::True,
                        (_, false) => Implied::False,
                        _ => Implied::Free,
                    },
                )
                .collect()
        });
        (firsts, backbone)
    }

    #[test]
    fn first_violations_and_backbones_by_enumeration_match_brute_force() {
        let mut rng = Rng::new(41);
        let mut walked = 0;
        for round in 0..300 {
            let seed = rng.next();
            let (mut s, xs, gates) = determined_instance(&mut Rng::new(seed));
            let all = images(&mut s, &xs, &gates);
            if round % 2 == 0 {
                // The same instance without a backend (the solves above
                // built one): propagation in the store only.
                s = determined_instance(&mut Rng::new(seed)).0;
            }
            // A count under an assumption first: the walks after it start
            // from the propagator it leaves, which must have forgotten it.
            let at = rng.below(gates.len() as u64) as usize;
            let want = all.iter().filter(|m| m[at]).count() as u64;
            let got = s.count(&[gates[at]], &xs, &Default::default());
            assert_eq!(got.value, Natural::from(want), "round {round}");
            walked += usize::from(
                s.images_few(&Default::default(), &[], &xs, &gates)
                    .is_some(),
            );
            assert_firsts_and_backbone(&mut s, (&xs, &gates), &all, round);
        }
        exercised!(walked > 150, "too few walks: {walked}");
    }

    /// Inputs of many values (an exactly-one over a literal per value) and
    /// a few booleans, more than [`super::FEW`] literals in all, with gates
    /// over them: walked where their values are few enough
    /// (`units`), with the same images, firsts and backbones as
    /// one solve per combination of values.
    #[test]
    fn inputs_of_many_values_are_walked_and_match_brute_force() {
        let mut rng = Rng::new(77);
        let mut walked = 0;
        for round in 0..120 {
            let mut s = Solver::new();
            let mut domains: Vec<Vec<Lit>> = (0..1 + rng.below(3))
                .map(|_| (0..2 + rng.below(30)).map(|_| s.new_var()).collect())
                .collect();
            for d in &domains {
                let one = s.exactly_one(d);
                s.require(one);
            }
            for _ in 0..rng.below(3) {
                domains.push(vec![s.new_var()]);
            }
            let xs: Vec<Lit> = domains.concat();
            let mut gates = Vec::new();
            for _ in 0..1 + rng.below(8) {
                let (a, b) = (random_lit(&mut rng, &xs), random_lit(&mut rng, &xs));
                let g = match rng.below(3) {
                    0 => s.and(&[a, b]),
                    1 => s.or(&[a, b]),
                    _ => s.and(&[a, a]),
                };
                gates.push(g);
            }
            if rng.below(4) == 0 {
                s.add_clause(&[!gates[0], gates[gates.len() - 1]]);
            }
            // One solve per combination: a value of each domain, each
            // boolean both ways.
            let mut all: Vec<Vec<bool>> = Vec::new();
            let sizes: Vec<usize> = domains.iter().map(|d| d.len().max(2)).collect();
            let mut pick = vec![0usize; domains.len()];
            loop {
                let assumed: Vec<Lit> = domains
                    .iter()
                    .zip(&pick)
                    .flat_map(|(d, &k)| match d[..] {
                        [x] => vec![if k == 0 { !x } else { x }],
                        _ => d
                            .iter()
                            .enumerate()
                            .map(|(i, &x)| if i == k { x } else { !x })
                            .collect(),
                    })
                    .collect();
                if s.solve(&assumed) {
                    all.push(gates.iter().map(|&g| s.value(g)).collect());
                }
                let Some(i) = (0..pick.len()).find(|&i| pick[i] + 1 < sizes[i]) else {
                    break;
                };
                pick[i] += 1;
                pick[..i].iter_mut().for_each(|k| *k = 0);
            }
            let mut distinct = all.clone();
            distinct.sort();
            distinct.dedup();
            let images = s.images_few(&Default::default(), &[], &xs, &gates);
            let combinations: usize = sizes.iter().product();
            // A problem without a model is left to the callers' other ways.
            if xs.len() > super::FEW && combinations <= 1 << super::FEW && !all.is_empty() {
                assert!(images.is_some(), "round {round}: not walked");
            }
            if let Some(images) = images {
                walked += 1;
                assert_eq!(images.len(), distinct.len(), "round {round}");
            }
            let count = s.count_determined(&xs, &gates, &Default::default());
            assert_eq!(
                count.value,
                Natural::from(distinct.len() as u64),
                "round {round}"
            );
            assert_firsts_and_backbone(&mut s, (&xs, &gates), &all, round);
        }
        exercised!(walked > 60, "too few walks: {walked}");
    }

    /// An image is the same value however it was built (from the watched
    /// true literals in any order, or by reading each literal), sparse or
    /// packed, and lists its true literals in order.
    #[test]
    fn an_image_has_one_form_however_built() {
        use super::{Image, Model};
        let mut rng = Rng::new(91);
        for round in 0..400 {
            let len = rng.below(300) as usize;
            let dense = rng.below(2) == 0;
            let values: Vec<bool> = (0..len)
                .map(|_| rng.below(if dense { 2 } else { 50 }) == 0)
                .collect();
            let lits: Vec<Lit> = (0..len as u32)
                .map(|v| {
                    if v % 3 == 0 {
                        !Lit::from_var(v)
                    } else {
                        Lit::from_var(v)
                    }
                })
                .collect();
            let mut ones: Vec<u32> = (0..len as u32)
                .filter(|&i| values[i as usize] != lits[i as usize].is_negated())
                .collect();
            let read = Image::of(&lits, Model::Solved(&values));
            let listed: Vec<u32> = read.ones().map(|i| i as u32).collect();
            assert_eq!(listed, ones, "round {round}");
            for i in (1..ones.len()).rev() {
                ones.swap(i, rng.below(i as u64 + 1) as usize);
            }
            assert!(Image::from_ones(ones, len) == read, "round {round}");
        }
    }

    /// The propagator is kept from walk to walk; its steps are not: a walk
    /// that fits the budget fits it again after another.
    #[test]
    fn each_walk_has_the_budgets_steps() {
        let mut s = Solver::new();
        let values: Vec<Lit> = (0..300).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&values);
        s.require(one);
        let elements: Vec<Lit> = values.iter().map(|&v| s.and(&[v, v])).collect();
        let walk = |s: &mut Solver, budget: &crate::CountBudget| {
            s.images_few(budget, &[], &values, &elements)
                .map(|i| i.len())
        };
        assert_eq!(walk(&mut s, &Default::default()), Some(300));
        let steps = s.few.as_ref().expect("kept").propagator.visited();
        let budget = crate::CountBudget {
            steps: steps + steps / 2,
            ..Default::default()
        };
        assert_eq!(walk(&mut s, &budget), Some(300));
        assert_eq!(walk(&mut s, &budget), Some(300));
    }

    /// An input of `n` values (exactly one literal true) and an element
    /// per value, a gate of its own (an image of the values themselves is
    /// counted without images) that is its value.
    fn one_input(n: usize) -> (Solver, Vec<Lit>, Vec<Lit>) {
        let mut s = Solver::new();
        let values: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&values);
        s.require(one);
        let elements = (0..n)
            .map(|i| s.and(&[values[i], !values[(i + 1) % n]]))
            .collect();
        (s, values, elements)
    }

    /// A count and a backbone of the same presences walk once; a clause
    /// added between them makes the second walk again.
    #[test]
    fn the_images_of_a_walk_answer_the_next_question_on_it() {
        let (mut s, values, elements) = one_input(100);
        let count = s.count_determined(&values, &elements, &Default::default());
        assert_eq!(count.value, Natural::from(100u64));
        let steps = |s: &Solver| s.few.as_ref().expect("kept").propagator.visited();
        let walked = steps(&s);
        let backbone = s.backbone_determined(&values, &elements).unwrap();
        assert!(backbone.iter().all(|&b| b == Implied::Free));
        assert_eq!(steps(&s), walked, "walked again");
        s.add_clause(&[!values[0]]);
        let backbone = s.backbone_determined(&values, &elements).unwrap();
        assert_eq!(backbone[0], Implied::False);
        assert!(backbone[1..].iter().all(|&b| b == Implied::Free));
    }

    /// An input of 20,000 values is walked by halves (each half false in
    /// turn), and each value's literal propagates only its path in the
    /// exactly-one's tree: within 80 propagation steps per value and level
    /// of halving (a sequential encoding, or a walk literal by literal,
    /// propagate through every later value at each: about n²/2 steps).
    #[test]
    fn an_input_of_many_values_is_walked_in_n_log_n_steps() {
        let n: u64 = 20_000;
        let (mut s, values, elements) = one_input(n as usize);
        let budget = crate::CountBudget {
            steps: 80 * n * u64::from(n.ilog2() + 1),
            ..Default::default()
        };
        let images = s.images_few(&budget, &[], &values, &elements);
        assert_eq!(images.map(|i| i.len() as u64), Some(n));
    }

    /// A walk over all but one value of an input: each walked value, or
    /// none of them (the value outside).
    #[test]
    fn a_walk_over_some_values_has_the_case_of_none() {
        let n = 600;
        let (mut s, values, elements) = one_input(n);
        let walked = &values[1..];
        let images = s.images_few(&Default::default(), &[], walked, &elements);
        assert_eq!(images.map(|i| i.len()), Some(n));
        let count = s.count(&[], walked, &Default::default());
        assert_eq!(count.value, Natural::from(n as u64));
    }

    /// An input of 2,000 values, each the one value of an element: 2,000
    /// literals, walked (one leaf per value), not counted the general way.
    #[test]
    fn an_input_of_thousands_of_values_is_walked() {
        let n = 2000;
        let mut s = Solver::new();
        let values: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&values);
        s.require(one);
        let elements: Vec<Lit> = values[1..].iter().map(|&v| s.and(&[v, v])).collect();
        let images = s.images_few(&Default::default(), &[], &values, &elements);
        assert_eq!(images.map(|i| i.len()), Some(n));
        let backbone = s.backbone_determined(&values, &elements).unwrap();
        assert!(backbone.iter().all(|&b| b == Implied::Free));
    }
}
