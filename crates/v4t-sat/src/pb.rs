//! Weighted-sum optimisation (`minimize` / `maximize`).
//!
//! Mirrors logic-solver's `minimizeWeightedSum` in effect: find the optimum of
//! `Σ weight·[lit]` over all models of the current clauses, leave an optimal
//! model as the current model and permanently add "sum == optimum" so later
//! stages (further objectives, tie-breaking) work among optimal solutions.
//!
//! Terms fixed at level 0 become constants, so the typical v4t case — tens of
//! thousands of terms of which only a few are free — encodes only the free
//! ones. The first probe asks for "all free terms false" using plain
//! assumptions (no encoding). Otherwise the sum is encoded as a binary adder
//! network (weight bits bucketed per position, reduced with full/half adders),
//! compared against constants, and the bound is found by binary search where
//! every probe is a solve under the comparator's literal.
//!
//! Before encoding, a lower bound is computed from disjoint unsatisfiable cores
//! (with residual weights); terms whose residual weight exceeds the gap between
//! upper and lower bound are fixed false ("hardening"), and the lower bound is
//! probed first. Known weakness: when that core bound is loose and many terms
//! stay free (e.g. maximising 2,000 weighted terms under random pairwise
//! conflicts), the adder-based probes near the optimum can take very long.

use crate::{Lit, Solver};
use std::collections::{HashMap, VecDeque};

impl Solver {
    /// Minimises `Σ weight·[lit true]` over all models of the current clauses.
    ///
    /// Afterwards the current model is optimal and the constraint "sum == optimum"
    /// is permanent. Weight-0 terms are ignored and duplicate literals add up.
    /// Returns `None` if the clauses are unsatisfiable; saturates at `u64::MAX`.
    pub fn minimize(&mut self, terms: &[(Lit, u64)]) -> Option<u64> {
        minimize_with(terms, |wide| self.minimize_wide(wide))
    }

    /// Maximises `Σ weight·[lit true]`; the dual of [`Solver::minimize`], with the
    /// same permanent "sum == optimum" constraint and model update.
    pub fn maximize(&mut self, terms: &[(Lit, u64)]) -> Option<u64> {
        maximize_with(terms, |wide| self.minimize_wide(wide))
    }

    pub(crate) fn minimize_wide(&mut self, terms: &[(Lit, u128)]) -> Option<u128> {
        if !self.ensure_model() {
            return None;
        }
        self.propagate_units();
        let (constant, terms) = self.normalize_terms(terms);
        let mut best = self.model_sum(&terms);
        if best == 0 {
            // Already optimal; the model satisfies the new units, so it stays current.
            for &(l, _) in &terms {
                self.raw_clause(&[!l]);
            }
            return Some(constant);
        }
        let (core_lb, residual, found_zero) = self.core_lower_bound(&terms, &mut best);
        let mut lo = core_lb;
        if found_zero {
            for &(l, _) in &terms {
                self.raw_clause(&[!l]);
            }
            return Some(constant);
        }
        if lo >= best {
            lo = best;
        }
        // Hardening: Σ w·x >= core_lb + Σ residual·x, so every model with sum <= best
        // (in particular every optimal one) makes each term whose residual weight
        // exceeds `best - core_lb` false. Fixing those at level 0 is consistent with
        // the final "sum == optimum" and keeps them out of the adder network.
        let mut terms_left = Vec::with_capacity(terms.len());
        let mut residual_left = Vec::with_capacity(terms.len());
        let slack = best - core_lb.min(best);
        for (&(l, w), &r) in terms.iter().zip(&residual) {
            if r > slack {
                self.raw_clause(&[!l]);
            } else {
                terms_left.push((l, w));
                residual_left.push(r);
            }
        }
        let terms = terms_left;
        let bits = self.sum_bits(&terms);
        let mut first = true;
        while lo < best {
            // Probe the lower bound first (often tight), then bisect.
            let mid = if first { lo } else { lo + (best - lo) / 2 };
            first = false;
            let le = self.le_const(&bits, mid);
            if self.solve_raw(&[le]) {
                best = self.model_sum(&terms);
                // Valid permanently: the final "sum == optimum" implies it.
                let le_best = self.le_const(&bits, best);
                self.require(le_best);
            } else {
                lo = mid + 1;
                // The clauses alone refute `sum <= mid`.
                self.require(!le);
            }
        }
        let slack = best - core_lb.min(best);
        for (&(l, _), &r) in terms.iter().zip(&residual_left) {
            if r > slack {
                self.raw_clause(&[!l]);
            }
        }
        for (i, &b) in bits.iter().enumerate() {
            let bit = i < 128 && (best >> i) & 1 == 1;
            self.require(if bit { b } else { !b });
        }
        if !self.ensure_model() {
            return None;
        }
        Some(constant + best)
    }

    /// Lower bound from disjoint unsatisfiable cores: assume every free term false;
    /// each core (a set of terms that cannot all be false) raises the bound by its
    /// smallest residual weight, which is then subtracted from the core's terms.
    /// The first probe is "all free terms false" (returns `found_zero`). Satisfiable
    /// probes improve `best`. Returns `(lower bound, residual weights, found_zero)`.
    fn core_lower_bound(
        &mut self,
        terms: &[(Lit, u128)],
        best: &mut u128,
    ) -> (u128, Vec<u128>, bool) {
        let index: HashMap<Lit, usize> = terms
            .iter()
            .enumerate()
            .map(|(i, &(l, _))| (!l, i))
            .collect();
        let mut residual: Vec<u128> = terms.iter().map(|&(_, w)| w).collect();
        let mut lb = 0u128;
        let mut first = true;
        loop {
            let assumptions: Vec<Lit> = terms
                .iter()
                .zip(&residual)
                .filter(|&(_, &r)| r > 0)
                .map(|(&(l, _), _)| !l)
                .collect();
            if self.solve_raw(&assumptions) {
                *best = (*best).min(self.model_sum(terms));
                return (lb, residual, first);
            }
            first = false;
            let core: Vec<usize> = self
                .core
                .iter()
                .filter_map(|l| index.get(l).copied())
                .collect();
            let Some(wmin) = core.iter().map(|&i| residual[i]).filter(|&r| r > 0).min() else {
                // Cannot happen (the clauses alone are satisfiable); stop bounding.
                return (lb, residual, false);
            };
            lb += wmin;
            for &i in &core {
                residual[i] = residual[i].saturating_sub(wmin);
            }
            if lb >= *best {
                return (lb, residual, false);
            }
        }
    }

    /// Folds fixed literals into a constant and merges each variable's terms into
    /// one term with a positive weight (`P·x + N·!x = N + (P-N)·x`).
    /// The result is sorted by variable, so encoding order is deterministic.
    fn normalize_terms(&self, terms: &[(Lit, u128)]) -> (u128, Vec<(Lit, u128)>) {
        let mut constant = 0u128;
        let mut free: Vec<(Lit, u128)> = Vec::new();
        for &(l, w) in terms {
            if w == 0 {
                continue;
            }
            match self.fixed(l) {
                Some(true) => constant += w,
                Some(false) => {}
                None => free.push((l, w)),
            }
        }
        free.sort_unstable_by_key(|&(l, _)| l);
        let mut out = Vec::with_capacity(free.len());
        let mut i = 0;
        while i < free.len() {
            let var = free[i].0.var_index();
            let (mut pos, mut neg) = (0u128, 0u128);
            while i < free.len() && free[i].0.var_index() == var {
                if free[i].0.is_negated() {
                    neg += free[i].1;
                } else {
                    pos += free[i].1;
                }
                i += 1;
            }
            let x = Lit::from_var(var);
            if pos >= neg {
                constant += neg;
                if pos > neg {
                    out.push((x, pos - neg));
                }
            } else {
                constant += pos;
                out.push((!x, neg - pos));
            }
        }
        (constant, out)
    }

    fn model_sum(&self, terms: &[(Lit, u128)]) -> u128 {
        terms
            .iter()
            .filter(|&&(l, _)| self.value(l))
            .map(|&(_, w)| w)
            .sum()
    }

    /// Bits (least significant first) of `Σ w·[l]` via an adder network.
    fn sum_bits(&mut self, terms: &[(Lit, u128)]) -> Vec<Lit> {
        let mut buckets: Vec<VecDeque<Lit>> = Vec::new();
        for &(l, w) in terms {
            for j in 0..128 {
                if (w >> j) & 1 == 1 {
                    if buckets.len() <= j {
                        buckets.resize_with(j + 1, VecDeque::new);
                    }
                    buckets[j].push_back(l);
                }
            }
        }
        let mut bits = Vec::new();
        let mut j = 0;
        while j < buckets.len() {
            while buckets[j].len() >= 2 {
                let a = buckets[j].pop_front().unwrap_or(self.truth);
                let b = buckets[j].pop_front().unwrap_or(self.truth);
                let (sum, carry) = if let Some(c) = buckets[j].pop_front() {
                    (self.xor(&[a, b, c]), self.majority(a, b, c))
                } else {
                    (self.xor(&[a, b]), self.and(&[a, b]))
                };
                buckets[j].push_back(sum);
                if buckets.len() <= j + 1 {
                    buckets.push(VecDeque::new());
                }
                buckets[j + 1].push_back(carry);
            }
            let bit = buckets[j]
                .pop_front()
                .unwrap_or_else(|| self.constant(false));
            bits.push(bit);
            j += 1;
        }
        bits
    }

    /// Literal equivalent to "the number with bits `bits` is at most `k`".
    fn le_const(&mut self, bits: &[Lit], k: u128) -> Lit {
        if bits.len() < 128 && k >> bits.len() != 0 {
            return self.truth();
        }
        let mut r = self.truth();
        for (i, &b) in bits.iter().enumerate() {
            let ki = i < 128 && (k >> i) & 1 == 1;
            r = if ki {
                self.or(&[!b, r])
            } else {
                self.and(&[!b, r])
            };
        }
        r
    }
}

/// `minimize` on top of a `u128` minimiser (weights widened so sums cannot
/// overflow; the result saturates at `u64::MAX`).
pub(crate) fn minimize_with(
    terms: &[(Lit, u64)],
    minimize_wide: impl FnOnce(&[(Lit, u128)]) -> Option<u128>,
) -> Option<u64> {
    let wide: Vec<(Lit, u128)> = terms.iter().map(|&(l, w)| (l, u128::from(w))).collect();
    minimize_wide(&wide).map(|v| u64::try_from(v).unwrap_or(u64::MAX))
}

/// `maximize` as the dual minimisation of the negated literals.
pub(crate) fn maximize_with(
    terms: &[(Lit, u64)],
    minimize_wide: impl FnOnce(&[(Lit, u128)]) -> Option<u128>,
) -> Option<u64> {
    let total: u128 = terms.iter().map(|&(_, w)| u128::from(w)).sum();
    let wide: Vec<(Lit, u128)> = terms.iter().map(|&(l, w)| (!l, u128::from(w))).collect();
    minimize_wide(&wide).map(|v| u64::try_from(total - v).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_instance, Rng};
    use crate::{Lit, Solver};
    use std::time::Instant;

    fn brute(vars: &[Lit], ms: &[Vec<bool>], terms: &[(Lit, u64)]) -> Vec<u64> {
        ms.iter()
            .map(|m| {
                terms
                    .iter()
                    .filter(|&&(l, _)| eval_lit(l, vars, m))
                    .map(|&(_, w)| w)
                    .sum()
            })
            .collect()
    }

    fn random_terms(rng: &mut Rng, vars: &[Lit], n: usize) -> Vec<(Lit, u64)> {
        (0..n)
            .map(|_| {
                let v = vars[rng.below(vars.len() as u64) as usize];
                let l = if rng.below(3) == 0 { !v } else { v };
                (l, rng.below(101))
            })
            .collect()
    }

    fn model_value(s: &Solver, terms: &[(Lit, u64)]) -> u64 {
        terms
            .iter()
            .filter(|&&(l, _)| s.value(l))
            .map(|&(_, w)| w)
            .sum()
    }

    #[test]
    fn minimize_and_maximize_match_brute_force() {
        let mut rng = Rng::new(42);
        for round in 0..150 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 12, (2, 1));
            let ms = models(&vars, &cnf);
            let k1 = 1 + rng.below(15) as usize;
            let t1 = random_terms(&mut rng, &vars, k1);
            let k2 = 1 + rng.below(15) as usize;
            let t2 = random_terms(&mut rng, &vars, k2);
            let maximize_first = round % 2 == 0;
            if ms.is_empty() {
                assert_eq!(s.minimize(&t1), None);
                assert_eq!(s.maximize(&t1), None);
                continue;
            }
            assert!(s.solve(&[]));
            let v1 = brute(&vars, &ms, &t1);
            let opt1 = if maximize_first {
                *v1.iter().max().unwrap()
            } else {
                *v1.iter().min().unwrap()
            };
            let got1 = if maximize_first {
                s.maximize(&t1)
            } else {
                s.minimize(&t1)
            };
            assert_eq!(got1, Some(opt1), "round {round}");
            assert_eq!(model_value(&s, &t1), opt1);
            // Second objective among the optima of the first (lexicographic).
            let ms2: Vec<Vec<bool>> = ms
                .iter()
                .zip(&v1)
                .filter(|&(_, &v)| v == opt1)
                .map(|(m, _)| m.clone())
                .collect();
            let v2 = brute(&vars, &ms2, &t2);
            let opt2 = *v2.iter().min().unwrap();
            assert_eq!(s.minimize(&t2), Some(opt2), "round {round}");
            assert_eq!(model_value(&s, &t1), opt1);
            assert_eq!(model_value(&s, &t2), opt2);
            // The constraints are permanent: every later model keeps both optima.
            for (i, &v) in vars.iter().enumerate() {
                let l = if i % 2 == 0 { v } else { !v };
                if s.solve(&[l]) {
                    assert_eq!(model_value(&s, &t1), opt1);
                    assert_eq!(model_value(&s, &t2), opt2);
                }
            }
        }
    }

    #[test]
    fn optimum_constraint_is_permanent() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..6).map(|_| s.new_var()).collect();
        s.add_clause(&xs[0..3]);
        s.add_clause(&xs[3..6]);
        let terms: Vec<(Lit, u64)> = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, i as u64 + 1))
            .collect();
        assert!(s.solve(&[]));
        assert_eq!(s.minimize(&terms), Some(1 + 4));
        assert!(s.value(xs[0]) && s.value(xs[3]));
        assert!(!s.solve(&[xs[1]]));
        assert!(s.solve(&[]));
        assert_eq!(model_value(&s, &terms), 5);
    }

    #[test]
    fn special_terms() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        let t = s.truth();
        // Unsolved solver: minimize solves itself.
        assert_eq!(s.minimize(&[]), Some(0));
        assert_eq!(s.minimize(&[(t, 7), (!t, 9), (a, 0)]), Some(7));
        assert_eq!(s.maximize(&[(t, 7), (!t, 9)]), Some(7));
        // a and !a both weighted: exactly one of them is true.
        assert_eq!(s.minimize(&[(a, 5), (!a, 3)]), Some(3));
        assert!(!s.value(a));
        assert_eq!(s.fixed(a), Some(false));
        // Duplicates add up.
        s.add_clause(&[b, !a]);
        assert_eq!(s.maximize(&[(b, 2), (b, 2)]), Some(4));
        // Huge weights.
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..4).map(|_| s.new_var()).collect();
        s.add_clause(&[xs[0], xs[1]]);
        s.add_clause(&[xs[2], xs[3]]);
        let w = 1u64 << 40;
        let terms = [
            (xs[0], w),
            (xs[1], w + 1),
            (xs[2], 3 * w),
            (xs[3], 2 * w + 5),
        ];
        assert_eq!(s.minimize(&terms), Some(w + 2 * w + 5));
        assert_eq!(
            s.maximize(&[(xs[0], u64::MAX), (xs[1], u64::MAX)]),
            Some(u64::MAX)
        );
        // Unsatisfiable problem.
        let mut s = Solver::new();
        let a = s.new_var();
        s.require(a);
        s.require(!a);
        assert_eq!(s.minimize(&[(a, 1)]), None);
        assert_eq!(s.maximize(&[(a, 1)]), None);
    }

    #[test]
    fn timing_large_instances() {
        // 40,000 terms of weight 100, all but 50 fixed by unit clauses.
        let start = Instant::now();
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..40_000).map(|_| s.new_var()).collect();
        for (i, &x) in xs.iter().enumerate().skip(50) {
            s.require(if i % 3 == 0 { x } else { !x });
        }
        // Free part: pairs that need one true each.
        for i in (0..50).step_by(2) {
            s.add_clause(&[xs[i], xs[i + 1]]);
        }
        assert!(s.solve(&[]));
        let built = start.elapsed();
        let terms: Vec<(Lit, u64)> = xs.iter().map(|&x| (x, 100)).collect();
        let t0 = Instant::now();
        let fixed_true = (50..40_000).filter(|i| i % 3 == 0).count() as u64;
        assert_eq!(s.minimize(&terms), Some(100 * (fixed_true + 25)));
        let t_min = t0.elapsed();
        let t0 = Instant::now();
        let order: Vec<Lit> = xs.clone();
        s.prefer_false(&order);
        let t_pref = t0.elapsed();
        assert!(!s.value(xs[0]) && s.value(xs[1]));
        println!(
            "[timing] 40k terms/50 free: build+solve {built:?}, minimize {t_min:?}, prefer_false {t_pref:?}"
        );

        // 2,000 free terms, weights 1..100, a few at-most-one groups (ladder encoded),
        // and covering clauses over disjoint pairs.
        let mut rng = Rng::new(3);
        let start = Instant::now();
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..2_000).map(|_| s.new_var()).collect();
        for g in xs[..200].chunks(40) {
            let amo = s.at_most_one(g);
            s.require(amo);
        }
        for p in xs[1000..].chunks(2) {
            s.add_clause(p);
        }
        let terms: Vec<(Lit, u64)> = xs.iter().map(|&x| (x, 1 + rng.below(100))).collect();
        assert!(s.solve(&[]));
        let t0 = Instant::now();
        let opt = s.minimize(&terms);
        let t_min = t0.elapsed();
        let opt = opt.unwrap_or(0);
        assert_eq!(model_value(&s, &terms), opt);
        let t0 = Instant::now();
        let opt_max = s.maximize(&terms[..1000]);
        let t_max = t0.elapsed();
        assert_eq!(model_value(&s, &terms), opt);
        assert_eq!(model_value(&s, &terms[..1000]), opt_max.unwrap_or(0));
        let t0 = Instant::now();
        s.prefer_false(&xs);
        let t_pref = t0.elapsed();
        assert_eq!(model_value(&s, &terms), opt);
        println!(
            "[timing] 2k free terms: setup {:?}, minimize {t_min:?} (opt {opt}), then maximize half {t_max:?}, prefer_false {t_pref:?}, vars {}",
            start.elapsed(),
            s.num_vars()
        );
    }
}
