//! Natural numbers of any size, for model counts.
//!
//! A projected model count over `n` variables can reach `2^n`, far beyond
//! `u128` for a template with hundreds of inputs or elements. Counting only
//! needs addition, multiplication and decimal output, so a small type does:
//! values up to `u128::MAX` stay inline (no allocation on the hot path of
//! the counter), larger ones are little-endian 64-bit limbs.

use std::cmp::Ordering;
use std::fmt;

/// A natural number (`0, 1, 2, ...`) without an upper limit.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Natural(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// Any value up to `u128::MAX`.
    Small(u128),
    /// A value above `u128::MAX`: little-endian limbs, the last one non-zero.
    Large(Box<[u64]>),
}

impl Natural {
    /// Zero.
    pub const ZERO: Natural = Natural(Repr::Small(0));
    /// One.
    pub const ONE: Natural = Natural(Repr::Small(1));

    /// `2^k`.
    pub fn pow2(k: u32) -> Natural {
        if k < 128 {
            return Natural(Repr::Small(1 << k));
        }
        let mut limbs = vec![0u64; k as usize / 64 + 1];
        limbs[k as usize / 64] = 1 << (k % 64);
        Natural::from_limbs(limbs)
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small(0))
    }

    /// The value as a `u128`, if it fits.
    pub fn to_u128(&self) -> Option<u128> {
        match self.0 {
            Repr::Small(v) => Some(v),
            Repr::Large(_) => None,
        }
    }

    /// The number of binary digits (0 for zero).
    pub fn bits(&self) -> u64 {
        match &self.0 {
            Repr::Small(v) => u64::from(128 - v.leading_zeros()),
            Repr::Large(l) => {
                let top = l[l.len() - 1];
                64 * (l.len() as u64 - 1) + u64::from(64 - top.leading_zeros())
            }
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &Natural) -> Natural {
        if let (Repr::Small(a), Repr::Small(b)) = (&self.0, &other.0) {
            if let Some(s) = a.checked_add(*b) {
                return Natural(Repr::Small(s));
            }
        }
        let (a, b) = (self.limbs(), other.limbs());
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u128;
        for i in 0..a.len().max(b.len()) {
            let s =
                u128::from(*a.get(i).unwrap_or(&0)) + u128::from(*b.get(i).unwrap_or(&0)) + carry;
            out.push(s as u64);
            carry = s >> 64;
        }
        out.push(carry as u64);
        Natural::from_limbs(out)
    }

    /// `self - other`, or `None` if `other` is larger.
    pub fn checked_sub(&self, other: &Natural) -> Option<Natural> {
        if let (Repr::Small(a), Repr::Small(b)) = (&self.0, &other.0) {
            return a.checked_sub(*b).map(|d| Natural(Repr::Small(d)));
        }
        if self < other {
            return None;
        }
        let (a, b) = (self.limbs(), other.limbs());
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0u64;
        for (i, &x) in a.iter().enumerate() {
            let y = *b.get(i).unwrap_or(&0);
            let (d, o1) = x.overflowing_sub(y);
            let (d, o2) = d.overflowing_sub(borrow);
            out.push(d);
            borrow = u64::from(o1 || o2);
        }
        Some(Natural::from_limbs(out))
    }

    /// `self * other`.
    pub fn mul(&self, other: &Natural) -> Natural {
        if let (Repr::Small(a), Repr::Small(b)) = (&self.0, &other.0) {
            if let Some(p) = a.checked_mul(*b) {
                return Natural(Repr::Small(p));
            }
        }
        let (a, b) = (self.limbs(), other.limbs());
        let mut out = vec![0u64; a.len() + b.len()];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &y) in b.iter().enumerate() {
                let t = u128::from(x) * u128::from(y) + u128::from(out[i + j]) + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
            out[i + b.len()] = carry as u64;
        }
        Natural::from_limbs(out)
    }

    /// Little-endian limbs (at least one).
    fn limbs(&self) -> Vec<u64> {
        match &self.0 {
            Repr::Small(v) => vec![*v as u64, (*v >> 64) as u64],
            Repr::Large(l) => l.to_vec(),
        }
    }

    /// The number with these little-endian 64-bit limbs (any number of
    /// them, zero for none).
    pub fn from_le_limbs(limbs: Vec<u64>) -> Natural {
        if limbs.is_empty() {
            return Natural::ZERO;
        }
        Natural::from_limbs(limbs)
    }

    /// The number with these little-endian limbs, in canonical form.
    fn from_limbs(mut limbs: Vec<u64>) -> Natural {
        while limbs.len() > 1 && limbs[limbs.len() - 1] == 0 {
            limbs.pop();
        }
        if limbs.len() <= 2 {
            let lo = u128::from(limbs[0]);
            let hi = u128::from(*limbs.get(1).unwrap_or(&0));
            return Natural(Repr::Small(hi << 64 | lo));
        }
        Natural(Repr::Large(limbs.into_boxed_slice()))
    }
}

impl From<u64> for Natural {
    fn from(v: u64) -> Natural {
        Natural(Repr::Small(u128::from(v)))
    }
}

impl From<u128> for Natural {
    fn from(v: u128) -> Natural {
        Natural(Repr::Small(v))
    }
}

impl Ord for Natural {
    fn cmp(&self, other: &Natural) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Small(a), Repr::Small(b)) => a.cmp(b),
            (Repr::Small(_), Repr::Large(_)) => Ordering::Less,
            (Repr::Large(_), Repr::Small(_)) => Ordering::Greater,
            (Repr::Large(a), Repr::Large(b)) => a
                .len()
                .cmp(&b.len())
                .then_with(|| a.iter().rev().cmp(b.iter().rev())),
        }
    }
}

impl PartialOrd for Natural {
    fn partial_cmp(&self, other: &Natural) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Natural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut limbs = match &self.0 {
            Repr::Small(v) => return fmt::Display::fmt(v, f),
            Repr::Large(l) => l.to_vec(),
        };
        // Repeated division by 10^19 (the largest power of ten in a limb).
        const CHUNK: u64 = 10_000_000_000_000_000_000;
        let mut chunks = Vec::new();
        while limbs.iter().any(|&l| l != 0) {
            let mut rem = 0u128;
            for limb in limbs.iter_mut().rev() {
                let cur = rem << 64 | u128::from(*limb);
                *limb = (cur / u128::from(CHUNK)) as u64;
                rem = cur % u128::from(CHUNK);
            }
            chunks.push(rem as u64);
            while limbs.len() > 1 && limbs[limbs.len() - 1] == 0 {
                limbs.pop();
            }
        }
        let mut text = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                text.push_str(&c.to_string());
            } else {
                text.push_str(&format!("{c:019}"));
            }
        }
        f.pad_integral(true, "", &text)
    }
}

impl fmt::Debug for Natural {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::Natural;
    use crate::testutil::Rng;

    /// Schoolbook decimal arithmetic on digit strings: an independent oracle.
    fn dec_add(a: &str, b: &str) -> String {
        let (a, b): (Vec<u8>, Vec<u8>) = (a.bytes().rev().collect(), b.bytes().rev().collect());
        let mut out = Vec::new();
        let mut carry = 0;
        for i in 0..a.len().max(b.len()) {
            let s = a.get(i).map_or(0, |d| d - b'0') + b.get(i).map_or(0, |d| d - b'0') + carry;
            out.push(b'0' + s % 10);
            carry = s / 10;
        }
        if carry > 0 {
            out.push(b'0' + carry);
        }
        trim(out.into_iter().rev().collect())
    }

    fn dec_mul(a: &str, b: &str) -> String {
        let (a, b): (Vec<u32>, Vec<u32>) = (
            a.bytes().rev().map(|d| u32::from(d - b'0')).collect(),
            b.bytes().rev().map(|d| u32::from(d - b'0')).collect(),
        );
        let mut out = vec![0u32; a.len() + b.len() + 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                out[i + j] += x * y;
            }
        }
        for i in 0..out.len() - 1 {
            let c = out[i] / 10;
            out[i] %= 10;
            out[i + 1] += c;
        }
        trim(out.iter().rev().map(|&d| b'0' + d as u8).collect())
    }

    fn trim(digits: Vec<u8>) -> String {
        let s = String::from_utf8(digits).expect("digits");
        let t = s.trim_start_matches('0');
        if t.is_empty() {
            "0".into()
        } else {
            t.into()
        }
    }

    fn random(rng: &mut Rng) -> (Natural, String) {
        let mut n = Natural::from(rng.next() >> rng.below(64));
        for _ in 0..rng.below(6) {
            n = n
                .mul(&Natural::from(rng.next()))
                .add(&Natural::from(rng.below(1000)));
        }
        let s = n.to_string();
        (n, s)
    }

    #[test]
    fn arithmetic_matches_decimal_strings() {
        let mut rng = Rng::new(5);
        for round in 0..500 {
            let (a, sa) = random(&mut rng);
            let (b, sb) = random(&mut rng);
            assert_eq!(a.add(&b).to_string(), dec_add(&sa, &sb), "round {round}");
            assert_eq!(a.mul(&b).to_string(), dec_mul(&sa, &sb), "round {round}");
            let sum = a.add(&b);
            assert_eq!(sum.checked_sub(&b), Some(a.clone()), "round {round}");
            assert_eq!(sum.checked_sub(&a), Some(b.clone()), "round {round}");
            let bigger = sum.add(&Natural::ONE);
            assert_eq!(a.checked_sub(&bigger), None, "round {round}");
            assert_eq!(
                a.cmp(&b),
                (sa.len(), &sa).cmp(&(sb.len(), &sb)),
                "round {round}"
            );
            assert!(a.add(&b) == b.add(&a));
        }
    }

    #[test]
    fn powers_of_two_and_small_values() {
        assert_eq!(Natural::pow2(0), Natural::ONE);
        assert_eq!(Natural::pow2(127).to_u128(), Some(1 << 127));
        let big = Natural::pow2(128);
        assert_eq!(big.to_u128(), None);
        assert_eq!(big.to_string(), "340282366920938463463374607431768211456");
        assert_eq!(big.bits(), 129);
        assert_eq!(
            Natural::pow2(200),
            Natural::pow2(100).mul(&Natural::pow2(100))
        );
        assert_eq!(Natural::from(u128::MAX).add(&Natural::ONE), big);
        assert!(Natural::ZERO.is_zero() && !Natural::ONE.is_zero());
        assert_eq!(Natural::ZERO.bits(), 0);
        assert_eq!(format!("{:>5}", Natural::from(42u64)), "   42");
        assert!(Natural::pow2(300) > Natural::pow2(299).add(&Natural::from(u128::MAX)));
    }
}
