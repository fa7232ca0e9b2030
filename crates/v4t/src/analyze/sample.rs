//! Sampling valid configurations (issue 27): t-wise coverage of input
//! values with few configurations, and uniformly random configurations by
//! counting.

use super::{named, Family, Named};
use v4t_sat::{Lit, Natural};

/// A value combination: (input, value index) pairs, inputs ascending.
type Tuple = Vec<(usize, usize)>;

impl Family<'_> {
    /// Valid configurations that together cover every combination of `t`
    /// input values some valid configuration has (greedily: each new
    /// configuration starts from the first combination not yet covered and
    /// takes on every later one that fits, then covers all it agrees with).
    /// Each is the smallest valid configuration with the values taken on
    /// (false before true on the value literals, in input order), so the
    /// sample depends on the template alone, not on the solver's history.
    pub(super) fn t_wise(&mut self, t: usize) -> Vec<Named> {
        let tuples = tuples(
            &self
                .inputs
                .iter()
                .map(|d| d.values.len())
                .collect::<Vec<_>>(),
            t,
        );
        // Per tuple: still to cover (`None` once covered or infeasible).
        let mut open: Vec<Option<&Tuple>> = tuples.iter().map(Some).collect();
        let mut sample = Vec::new();
        let mut start = 0;
        while let Some(first) = (start..open.len()).find(|&i| open[i].is_some()) {
            start = first;
            let mut fixed: Vec<Option<usize>> = vec![None; self.inputs.len()];
            let mut assumptions: Vec<Lit> = Vec::new();
            for slot in open.iter_mut().skip(first) {
                let Some(tuple) = *slot else { continue };
                let fits = tuple.iter().all(|&(i, v)| fixed[i].is_none_or(|f| f == v));
                if !fits {
                    continue;
                }
                let new: Vec<(usize, usize)> = tuple
                    .iter()
                    .copied()
                    .filter(|&(i, _)| fixed[i].is_none())
                    .collect();
                let before = assumptions.len();
                assumptions.extend(new.iter().map(|&(i, v)| self.inputs[i].lits[v]));
                if new.is_empty() || self.sat.solve(&assumptions) {
                    for &(i, v) in &new {
                        fixed[i] = Some(v);
                    }
                } else {
                    assumptions.truncate(before);
                    if before == 0 {
                        // No valid configuration has it.
                        *slot = None;
                    }
                }
            }
            if assumptions.is_empty() {
                // Every open tuple was infeasible (and is closed now).
                continue;
            }
            if !(self.sat).prefer_false_assuming_on_order(&assumptions, &self.input_lits) {
                break;
            }
            let chosen: Vec<usize> = self
                .inputs
                .iter()
                .map(|d| d.lits.iter().position(|&l| self.sat.value(l)).unwrap_or(0))
                .collect();
            for slot in open.iter_mut() {
                if slot.is_some_and(|tuple| tuple.iter().all(|&(i, v)| chosen[i] == v)) {
                    *slot = None;
                }
            }
            sample.push(named(&chosen, &self.inputs));
        }
        sample
    }

    /// `n` valid configurations drawn uniformly at random (with
    /// replacement) with the generator seeded by `seed`: input by input, a
    /// value is drawn with probability proportional to the number of valid
    /// configurations that extend the values drawn so far with it (counted
    /// in the input's independent part of the problem and multiplied by
    /// the other parts' counts: [`v4t_sat::Extensions`]). Empty if there is
    /// no valid configuration or a count stops at its budget.
    pub(super) fn random(&mut self, n: usize, seed: u64) -> Vec<Named> {
        let mut rng = SplitMix64(seed);
        let budget = self.options.budget;
        let mut sample = Vec::with_capacity(n);
        let all = self.sat.count(&[], &self.input_lits, &budget);
        if all.value.is_zero() || !all.exact {
            return sample;
        }
        let mut split = self.sat.split_copy();
        for _ in 0..n {
            let mut drawn = split.extensions(&self.input_lits, &budget);
            let mut chosen = Vec::with_capacity(self.inputs.len());
            for input in &self.inputs {
                let mut counts = Vec::with_capacity(input.lits.len());
                for &value in &input.lits {
                    let c = drawn.count_with(value);
                    if !c.exact {
                        return Vec::new();
                    }
                    counts.push(c.value);
                }
                let Some(v) = rng.weighted(&counts) else {
                    return Vec::new();
                };
                drawn.fix(input.lits[v]);
                chosen.push(v);
            }
            sample.push(named(&chosen, &self.inputs));
        }
        sample
    }
}

/// Every combination of `t` inputs (of `sizes.len()`, each with its
/// number of values) with every combination of their values, in
/// lexicographic order.
fn tuples(sizes: &[usize], t: usize) -> Vec<Tuple> {
    let t = t.min(sizes.len());
    let mut out = Vec::new();
    if t == 0 {
        return out;
    }
    let mut inputs: Vec<usize> = (0..t).collect();
    loop {
        let mut values = vec![0usize; t];
        'values: loop {
            out.push(inputs.iter().copied().zip(values.iter().copied()).collect());
            for k in (0..t).rev() {
                values[k] += 1;
                if values[k] < sizes[inputs[k]] {
                    continue 'values;
                }
                values[k] = 0;
            }
            break;
        }
        // Next combination of inputs.
        let Some(k) = (0..t).rev().find(|&k| inputs[k] < sizes.len() - t + k) else {
            return out;
        };
        inputs[k] += 1;
        for j in k + 1..t {
            inputs[j] = inputs[j - 1] + 1;
        }
    }
}

/// SplitMix64: a small, well-distributed generator, seeded for repeatable
/// samples.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A natural below `bound` (> 0), uniformly (rejection sampling over
    /// the bits of `bound`). Each try draws the number's bits in chunks of
    /// 64 from the top, the last chunk the rest, and places them straight
    /// into limbs (shifting the number up once per chunk would cost the
    /// square of its length).
    fn below(&mut self, bound: &Natural) -> Natural {
        let bits = bound.bits();
        let words = bits.div_ceil(64) as usize;
        // The width of the last, least significant chunk (1 to 64).
        let low = bits - 64 * (words as u64 - 1);
        loop {
            let mut limbs = vec![0u64; words];
            for i in 0..words {
                let (width, at) = if i + 1 < words {
                    (64, low + 64 * (words - 2 - i) as u64)
                } else {
                    (low, 0)
                };
                let chunk = if width == 64 {
                    self.next()
                } else {
                    self.next() & ((1u64 << width) - 1)
                };
                let (limb, shift) = ((at / 64) as usize, at % 64);
                limbs[limb] |= chunk << shift;
                if shift > 0 && limb + 1 < words {
                    limbs[limb + 1] |= chunk >> (64 - shift);
                }
            }
            let n = Natural::from_le_limbs(limbs);
            if n < *bound {
                return n;
            }
        }
    }

    /// An index drawn with probability proportional to its weight; `None`
    /// if all weights are zero.
    fn weighted(&mut self, weights: &[Natural]) -> Option<usize> {
        let total = weights.iter().fold(Natural::ZERO, |acc, w| acc.add(w));
        if total.is_zero() {
            return None;
        }
        let mut r = self.below(&total);
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return Some(i);
            }
            r = r.checked_sub(w)?;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_enumerate_every_combination() {
        let all = tuples(&[2, 3, 2], 2);
        assert_eq!(all.len(), 2 * 3 + 2 * 2 + 3 * 2);
        assert_eq!(all[0], vec![(0, 0), (1, 0)]);
        assert_eq!(all.last(), Some(&vec![(1, 2), (2, 1)]));
        assert_eq!(tuples(&[2, 2], 3).len(), 4);
        assert!(tuples(&[2], 0).is_empty());
    }

    /// The numbers `below` draws are the ones of shifting each chunk in
    /// from below, the way they are defined, for bounds of 1 to 300 bits.
    #[test]
    fn draws_below_a_bound_place_chunks_as_shifting_would() {
        let shifted = |rng: &mut SplitMix64, bound: &Natural| loop {
            let mut n = Natural::ZERO;
            let mut left = bound.bits();
            while left > 0 {
                let take = left.min(64);
                let chunk = if take == 64 {
                    rng.next()
                } else {
                    rng.next() & ((1u64 << take) - 1)
                };
                n = n
                    .mul(&Natural::pow2(take as u32))
                    .add(&Natural::from(chunk));
                left -= take;
            }
            if n < *bound {
                return n;
            }
        };
        let (mut a, mut b) = (SplitMix64(11), SplitMix64(11));
        let mut bound = Natural::from(3u64);
        for bits in 2..300u64 {
            bound = bound
                .mul(&Natural::from(2u64))
                .add(&Natural::from(bits % 2));
            for _ in 0..3 {
                assert_eq!(a.below(&bound), shifted(&mut b, &bound), "{bits} bits");
            }
        }
        assert_eq!(a.below(&Natural::ONE), Natural::ZERO);
    }

    #[test]
    fn weighted_draws_follow_the_weights() {
        let mut rng = SplitMix64(7);
        let weights = [Natural::from(1u64), Natural::ZERO, Natural::from(3u64)];
        let mut seen = [0usize; 3];
        for _ in 0..4000 {
            seen[rng.weighted(&weights).expect("a weight")] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!((800..1200).contains(&seen[0]), "{seen:?}");
        assert_eq!(rng.weighted(&[Natural::ZERO]), None);
    }
}
