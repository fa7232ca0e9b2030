//! Counting on a split problem: per-part counts multiplied.
//!
//! The projected models of a problem split into independent parts are
//! combinations of one projected model per part, so a count is the product
//! of the parts' counts. `analyze` counts once per element (commonality)
//! and once per input value (uniform random sampling); asked of the whole
//! problem, each count walks every part, which on a template of many
//! independent components is quadratic. Here each count walks one part,
//! and the other parts' share is a product kept in a tree ([`Products`]).

use crate::count::{Count, CountBudget};
use crate::natural::Natural;
use crate::split::Place;
use crate::{Lit, Split};

/// The product of all values but one, for values that change one at a
/// time: a binary tree of partial products (leaves padded with one), so
/// that a change or a query multiplies along one path.
struct Products {
    /// Number of leaves (a power of two).
    leaves: usize,
    /// Node `k` holds the product of its children `2k` and `2k + 1`; the
    /// leaves are at `leaves..2 * leaves`.
    tree: Vec<Natural>,
    /// The last product asked for, until a value changes: the values of
    /// one input are counted one after another, each with the same other
    /// parts (and with many parts, a path's products are long numbers).
    last: Option<(usize, Natural)>,
}

impl Products {
    fn new(values: Vec<Natural>) -> Products {
        let leaves = values.len().next_power_of_two();
        let mut tree = vec![Natural::ONE; 2 * leaves];
        for (i, v) in values.into_iter().enumerate() {
            tree[leaves + i] = v;
        }
        for k in (1..leaves).rev() {
            tree[k] = tree[2 * k].mul(&tree[2 * k + 1]);
        }
        Products {
            leaves,
            tree,
            last: None,
        }
    }

    /// The product of every value.
    fn all(&self) -> &Natural {
        &self.tree[1]
    }

    /// The product of every value but the `i`-th.
    fn without(&mut self, i: usize) -> Natural {
        if let Some((j, product)) = &self.last {
            if *j == i {
                return product.clone();
            }
        }
        let mut k = self.leaves + i;
        let mut product = Natural::ONE;
        while k > 1 {
            product = product.mul(&self.tree[k ^ 1]);
            k /= 2;
        }
        self.last = Some((i, product.clone()));
        product
    }

    fn set(&mut self, i: usize, value: Natural) {
        self.last = None;
        let mut k = self.leaves + i;
        self.tree[k] = value;
        while k > 1 {
            k /= 2;
            self.tree[k] = self.tree[2 * k].mul(&self.tree[2 * k + 1]);
        }
    }
}

/// A projection divided among the live parts of a split problem.
pub(crate) struct Shares {
    /// The live parts, in part order.
    pub(crate) parts: Vec<u32>,
    /// Per part of `parts`: its literals of the projection (local
    /// literals), in the projection's order.
    pub(crate) of_part: Vec<Vec<Lit>>,
    /// Where each projection literal's value comes from.
    pub(crate) slots: Vec<Slot>,
}

/// Where a projection literal's value comes from.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Const(bool),
    /// The `k`-th literal of the `i`-th live part's share.
    In(usize, usize),
}

impl Shares {
    pub(crate) fn new(split: &Split, projection: &[Lit]) -> Shares {
        let parts = split.live_parts();
        let mut of_part: Vec<Vec<Lit>> = vec![Vec::new(); parts.len()];
        let index = |p: u32| parts.binary_search(&p).expect("literals lie in live parts");
        let slots = projection
            .iter()
            .map(|&lit| match split.place(lit) {
                Place::Const(b) => Slot::Const(b),
                Place::In(p, l) => {
                    let i = index(p);
                    of_part[i].push(l);
                    Slot::In(i, of_part[i].len() - 1)
                }
            })
            .collect();
        Shares {
            parts,
            of_part,
            slots,
        }
    }

    /// The index of part `p` in `parts`.
    pub(crate) fn index(&self, p: u32) -> usize {
        self.parts
            .binary_search(&p)
            .expect("literals lie in live parts")
    }
}

/// Parts whose kept answer is out of date since a literal was fixed in
/// them: asked again only when another part's question needs it, so that
/// a run of questions about one part asks only that part.
pub(crate) struct Stale {
    list: Vec<usize>,
    flag: Vec<bool>,
}

impl Stale {
    pub(crate) fn new(parts: usize) -> Stale {
        Stale {
            list: Vec::new(),
            flag: vec![false; parts],
        }
    }

    pub(crate) fn mark(&mut self, i: usize) {
        if !self.flag[i] {
            self.flag[i] = true;
            self.list.push(i);
        }
    }

    /// The stale parts but `keep`, which stays stale; they are no longer.
    pub(crate) fn take_except(&mut self, keep: Option<usize>) -> Vec<usize> {
        let mut taken = std::mem::take(&mut self.list);
        taken.retain(|&i| {
            let kept = Some(i) == keep;
            if kept {
                self.list.push(i);
            } else {
                self.flag[i] = false;
            }
            !kept
        });
        taken
    }
}

/// Counts of the models of a split problem that extend a growing set of
/// fixed literals ([`Split::extensions`]), projected onto a fixed list of
/// literals.
pub struct Extensions<'s> {
    pub(crate) split: &'s mut Split,
    budget: CountBudget,
    /// The projection by part (parts without projected literals count one
    /// or zero).
    pub(crate) shares: Shares,
    /// Per live part: the literals fixed in it so far (local literals).
    pub(crate) fixed: Vec<Vec<Lit>>,
    /// Per live part: its count under its fixed literals (where not stale).
    counts: Products,
    stale: Stale,
    /// Some part's count under its fixed literals stopped at its budget
    /// (the product is a lower bound).
    inexact: bool,
    /// A fixed literal is false in every model: nothing extends them.
    pub(crate) none: bool,
}

impl Split {
    /// The counts of the models projected onto `projection` (as
    /// [`crate::Solver::count`]), under a set of fixed literals that grows
    /// with [`Extensions::fix`], each count asked of one part.
    pub fn extensions(&mut self, projection: &[Lit], budget: &CountBudget) -> Extensions<'_> {
        let none = !self.satisfiable();
        let shares = Shares::new(self, projection);
        let n = shares.parts.len();
        let mut extensions = Extensions {
            budget: *budget,
            fixed: vec![Vec::new(); n],
            shares,
            counts: Products::new(Vec::new()),
            stale: Stale::new(n),
            inexact: false,
            none,
            split: self,
        };
        let mut counts = Vec::with_capacity(n);
        for i in 0..n {
            let count = extensions.count_in(i, None);
            extensions.inexact |= !count.exact;
            counts.push(count.value);
        }
        extensions.counts = Products::new(counts);
        extensions
    }

    /// For each of `lits`: the number of models projected onto `projection`
    /// in which it holds ([`crate::Solver::count`] under it), each asked of
    /// its part alone.
    pub fn count_each(
        &mut self,
        lits: &[Lit],
        projection: &[Lit],
        budget: &CountBudget,
    ) -> Vec<Count> {
        let mut extensions = self.extensions(projection, budget);
        lits.iter().map(|&l| extensions.count_with(l)).collect()
    }
}

impl Extensions<'_> {
    /// The number of projected models in which the fixed literals and
    /// `lit` hold.
    pub fn count_with(&mut self, lit: Lit) -> Count {
        let zero = Count {
            value: Natural::ZERO,
            exact: true,
        };
        if self.none {
            return zero;
        }
        let (value, exact) = match self.split.place(lit) {
            Place::Const(false) => return zero,
            Place::Const(true) => {
                self.recount_except(None);
                (self.counts.all().clone(), !self.inexact)
            }
            Place::In(p, l) => {
                let i = self.shares.index(p);
                self.recount_except(Some(i));
                let own = self.count_in(i, Some(l));
                let others = self.counts.without(i);
                (own.value.mul(&others), own.exact && !self.inexact)
            }
        };
        Count { value, exact }
    }

    /// Fixes `lit` for the counts that follow.
    pub fn fix(&mut self, lit: Lit) {
        match self.split.place(lit) {
            Place::Const(true) => {}
            Place::Const(false) => self.none = true,
            Place::In(p, l) => {
                let i = self.shares.index(p);
                self.fixed[i].push(l);
                self.stale.mark(i);
            }
        }
    }

    /// Counts the stale parts but `keep` again.
    fn recount_except(&mut self, keep: Option<usize>) {
        for i in self.stale.take_except(keep) {
            let count = self.count_in(i, None);
            self.inexact |= !count.exact;
            self.counts.set(i, count.value);
        }
    }

    /// The count of part `shares.parts[i]` under its fixed literals and
    /// `extra`.
    fn count_in(&mut self, i: usize, extra: Option<Lit>) -> Count {
        let sat = &mut self.split.part_mut(self.shares.parts[i]).sat;
        let fixed = &mut self.fixed[i];
        fixed.extend(extra);
        let count = sat.count(fixed, &self.shares.of_part[i], &self.budget);
        if extra.is_some() {
            fixed.pop();
        }
        sat.release_backend();
        count
    }
}

#[cfg(test)]
mod tests {
    use super::Products;
    use crate::natural::Natural;
    use crate::testutil::{blocks_instance, eval_lit, exercised, models, random_lit, Rng};
    use crate::{CountBudget, Lit};
    use std::collections::BTreeSet;

    #[test]
    fn products_leave_one_value_out() {
        let values: Vec<u64> = vec![3, 0, 7, 1, 5, 2];
        let mut products = Products::new(values.iter().map(|&v| Natural::from(v)).collect());
        let mut values = values;
        for (i, v) in [(1, 4), (5, 9), (0, 1)] {
            // Another value's product asked before a change (the last one is
            // kept until a change), and each asked twice in a row.
            products.without((i + 1) % values.len());
            values[i] = v;
            products.set(i, Natural::from(v));
            for j in (0..values.len()).flat_map(|j| [j, j]) {
                let want: u64 = (values.iter().enumerate())
                    .filter(|&(k, _)| k != j)
                    .map(|(_, &v)| v)
                    .product();
                assert_eq!(products.without(j), Natural::from(want));
            }
            assert_eq!(
                *products.all(),
                Natural::from(values.iter().product::<u64>())
            );
        }
    }

    /// Instances of independent blocks, some literals fixed at level 0:
    /// counts under a growing set of fixed literals equal brute force.
    #[test]
    fn counts_part_by_part_match_brute_force() {
        let mut rng = Rng::new(61);
        let (mut several, mut positive) = (0, 0);
        for round in 0..500 {
            let (mut s, vars, cnf) = blocks_instance(&mut rng);
            let n = vars.len();
            for c in &cnf {
                s.add_clause(c);
            }
            let projection: Vec<Lit> = (0..rng.below(n as u64 + 1))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let all = models(&vars, &cnf);
            let truth = s.truth();
            let holds = |l: Lit, m: &[bool]| l == truth || (l != !truth && eval_lit(l, &vars, m));
            let brute = |fixed: &[Lit]| -> Natural {
                let images: BTreeSet<Vec<bool>> = (all.iter())
                    .filter(|m| fixed.iter().all(|&l| holds(l, m)))
                    .map(|m| projection.iter().map(|&l| eval_lit(l, &vars, m)).collect())
                    .collect();
                Natural::from(images.len() as u64)
            };
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            let budget = CountBudget::default();
            let mut extensions = split.extensions(&projection, &budget);
            let mut fixed = Vec::new();
            for step in 0..6 {
                let lit = random_lit(&mut rng, &vars);
                let lit = if rng.below(8) == 0 { s.truth() } else { lit };
                fixed.push(lit);
                let want = brute(&fixed);
                let got = extensions.count_with(lit);
                assert!(got.exact, "round {round} step {step}");
                assert_eq!(
                    got.value, want,
                    "round {round} step {step}: fixed {fixed:?} cnf {cnf:?} projection {projection:?}"
                );
                positive += usize::from(!want.is_zero());
                if rng.below(2) == 0 {
                    extensions.fix(lit);
                } else {
                    fixed.pop();
                }
            }
            let lits: Vec<Lit> = (0..4).map(|_| random_lit(&mut rng, &vars)).collect();
            let each = s.split_copy().count_each(&lits, &projection, &budget);
            for (&l, c) in lits.iter().zip(each) {
                assert_eq!(c.value, brute(&[l]), "round {round}: count_each {l:?}");
            }
        }
        exercised!(several > 100, "too few split instances: {several}");
        exercised!(positive > 500, "too few positive counts: {positive}");
    }
}
