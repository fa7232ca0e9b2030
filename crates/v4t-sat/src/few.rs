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
use crate::propagate::{Propagator, Store};
use crate::{Implied, Lit, Solver};

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
    /// which `assumptions` hold, found by trying every
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
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
        image: &[Lit],
    ) -> Option<Natural> {
        let images = self.images_few(budget, assumptions, branch, image)?;
        Some(Natural::from(images.len() as u128))
    }

    /// The distinct assignments of `image` ([`Solver::count_few`]).
    fn images_few(
        &mut self,
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
        let walked = self.walk_few(budget, assumptions, &vars, &mut |value| {
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
    /// finds them all without a solve; otherwise they are asked part by
    /// part ([`crate::Split::possible_firsts`]).
    pub fn possible_firsts_determined(&mut self, inputs: &[Lit], lits: &[Lit]) -> Vec<usize> {
        let few = self.images_few(&CountBudget::default(), &[], inputs, lits);
        let Some(images) = few else {
            return self.split_copy().possible_firsts(lits);
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

    /// [`Solver::backbone`] of `lits` where the caller knows that `inputs`
    /// determine them (models that agree on the inputs agree on `lits`):
    /// where the inputs are few, the values over every assignment of them
    /// that has a model; otherwise part by part ([`crate::Split::backbone`]).
    pub fn backbone_determined(&mut self, inputs: &[Lit], lits: &[Lit]) -> Option<Vec<Implied>> {
        let few = self.images_few(&CountBudget::default(), &[], inputs, lits);
        let Some(images) = few else {
            return self.split_copy().backbone(lits);
        };
        let mut images = images.into_iter();
        let first = images.next()?;
        let (mut all, mut any) = (first.clone(), first);
        for bits in images {
            for (w, b) in bits.iter().enumerate() {
                all[w] &= b;
                any[w] |= b;
            }
        }
        let bit = |words: &[u64], i: usize| words[i / 64] >> (i % 64) & 1 == 1;
        let implied = (0..lits.len())
            .map(|i| match (bit(&all, i), bit(&any, i)) {
                (true, _) => Implied::True,
                (_, false) => Implied::False,
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
        let walked = self.walk_few(&budget, base, order, &mut |value| {
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
        budget: &CountBudget,
        assumptions: &[Lit],
        branch: &[Lit],
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
            let flow = walk_from(sat, &mut p, (assumptions, branch), |vars| Walk {
                budget,
                decisions: 0,
                leaf: Vec::with_capacity(assumptions.len() + vars),
                solves_left: fallback_solves,
                on_leaf: leaf,
                store,
            });
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

/// The propagator of the last walk, back in its first state, for the next
/// walk while no clause or variable is added.
pub(crate) struct Cached {
    /// The number of clauses in the store it was built on.
    clauses: usize,
    propagator: Propagator,
}

/// Assumes `assumptions` and walks the free variables of `branch` with the
/// walk `make` returns (given their number); `None` if there are more than
/// [`FEW`] or the walk gives up.
fn walk_from<'a>(
    sat: &mut Solver,
    p: &mut Propagator,
    (assumptions, branch): (&[Lit], &[Lit]),
    make: impl FnOnce(usize) -> Walk<'a>,
) -> Option<ControlFlow<()>> {
    if !assumptions.iter().all(|&l| p.assume(l)) {
        return Some(ControlFlow::Continue(()));
    }
    let mut vars: Vec<Lit> = Vec::with_capacity(FEW + 1);
    for &l in branch {
        let v = l.var_index();
        if p.values()[v as usize] == 0 && !vars.iter().any(|x| x.var_index() == v) {
            vars.push(l);
            if vars.len() > FEW {
                return None;
            }
        }
    }
    let mut walk = make(vars.len());
    walk.leaf.extend_from_slice(assumptions);
    walk.visit(sat, p, &vars)
}

/// The depth-first walk over the assignments of the branch variables.
struct Walk<'a> {
    budget: &'a CountBudget,
    /// Branching decisions made.
    decisions: u64,
    /// The assumptions and the decisions so far (for the backend).
    leaf: Vec<Lit>,
    /// Leaves that may still be asked of the backend.
    solves_left: usize,
    on_leaf: &'a mut OnLeaf<'a>,
    store: Store<'a>,
}

impl Walk<'_> {
    /// Visits every assignment of `vars` under the current facts; `None`
    /// if the walk gives up.
    fn visit(
        &mut self,
        sat: &mut Solver,
        p: &mut Propagator,
        vars: &[Lit],
    ) -> Option<ControlFlow<()>> {
        let Some((&l, rest)) = vars.split_first() else {
            return self.leaf(sat, p);
        };
        self.decisions += 1;
        if self.decisions > self.budget.decisions || p.visited() > self.budget.steps {
            return None;
        }
        for lit in [!l, l] {
            let mark = p.mark();
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
    fn leaf(&mut self, sat: &mut Solver, p: &Propagator) -> Option<ControlFlow<()>> {
        if p.satisfied(self.store) {
            // Every clause holds: the facts with the rest false are a model.
            return Some((self.on_leaf)(&|v| p.values()[v as usize] > 0));
        }
        self.solves_left = self.solves_left.checked_sub(1)?;
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

#[cfg(test)]
mod tests {
    use crate::testutil::{assignments, fixing, random_lit, Rng};
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

    #[test]
    fn first_violations_and_backbones_by_enumeration_match_brute_force() {
        let mut rng = Rng::new(41);
        let mut walked = 0;
        for round in 0..300 {
            let seed = rng.next();
            let (mut s, xs, gates) = determined_instance(&mut Rng::new(seed));
            let all = images(&mut s, &xs, &gates);
            let mut firsts: Vec<usize> = all
                .iter()
                .filter_map(|m| m.iter().position(|&b| b))
                .collect();
            firsts.sort_unstable();
            firsts.dedup();
            let backbone: Option<Vec<Implied>> = (!all.is_empty()).then(|| {
                (0..gates.len())
                    .map(
                        |i| match (all.iter().all(|m| m[i]), all.iter().any(|m| m[i])) {
                            (true, _) => Implied::True,
                            (_, false) => Implied::False,
                            _ => Implied::Free,
                        },
                    )
                    .collect()
            });
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
            assert_eq!(
                s.possible_firsts_determined(&xs, &gates),
                firsts,
                "round {round}"
            );
            assert_eq!(
                s.backbone_determined(&xs, &gates),
                backbone,
                "round {round}"
            );
        }
        assert!(walked > 150, "too few walks: {walked}");
    }
}
