//! Tseitin gates with constant folding and hash-consing.
//!
//! Every gate returns a literal that is *equivalent* to its formula (clauses
//! for both directions), so callers can use it positively, negatively or as an
//! assumption. Inputs fixed at level 0 are folded away, inputs are sorted and
//! deduplicated, and structurally identical gates map to the same literal, so
//! re-encoding a subformula does not grow the problem. The hash-consing table
//! is only used for lookups, so variable numbering is deterministic.

use crate::{Lit, Solver};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hash-consing tables (lookups only, never iterated). Inputs are
/// normalised before lookup; `and` and `at_most_one` are looked up by slice,
/// so a hit allocates nothing.
#[derive(Default)]
pub(crate) struct Gates {
    /// Conjunctions of two sorted, distinct, non-complementary literals
    /// (most of them; keys inline, so a lookup follows no pointer).
    and2: FxHashMap<(Lit, Lit), Lit>,
    /// Conjunctions of more such literals.
    and: FxHashMap<Box<[Lit]>, Lit>,
    /// Parity of two distinct positive literals (sorted).
    xor: FxHashMap<(Lit, Lit), Lit>,
    /// Majority of three distinct variables (sorted, at most one negated).
    maj: FxHashMap<(Lit, Lit, Lit), Lit>,
    /// At-most-one of at least two sorted, distinct, non-complementary literals.
    amo: FxHashMap<Box<[Lit]>, Lit>,
    /// Every exactly-one of two or more literals, with its gate: where the
    /// gate holds, the literals' variables have at most as many
    /// assignments as there are literals, not two to the power of them
    /// (an input's domain of values, see [`Solver::one_hot_groups`]).
    one_hot: Vec<(Lit, Box<[Lit]>)>,
}

impl Gates {
    /// The gate of a conjunction of normalised inputs, if there is one.
    fn find_and(&self, ins: &[Lit]) -> Option<Lit> {
        match *ins {
            [a, b] => self.and2.get(&(a, b)).copied(),
            _ => self.and.get(ins).copied(),
        }
    }

    /// Records `g` as the gate of a conjunction of normalised inputs,
    /// unless there is one already.
    fn add_and(&mut self, ins: &[Lit], g: Lit) {
        match *ins {
            [a, b] => {
                self.and2.entry((a, b)).or_insert(g);
            }
            _ => {
                if !self.and.contains_key(ins) {
                    self.and.insert(ins.into(), g);
                }
            }
        }
    }
}

/// `HashMap` with the Fx hash: keys are literals, which need no HashDoS
/// resistance, and SipHash was a visible share of encoding time.
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// rustc's multiply-rotate hash, one word at a time.
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Largest input count encoded pairwise by `at_most_one`.
const PAIRWISE_MAX: usize = 6;

impl Solver {
    /// Returns a literal equivalent to the conjunction of `xs` (`[]` = true).
    pub fn and(&mut self, xs: &[Lit]) -> Lit {
        self.and_of(xs.iter().copied())
    }

    /// [`Solver::and`] over an iterator, normalising into a reused buffer.
    fn and_of(&mut self, xs: impl IntoIterator<Item = Lit>) -> Lit {
        let mut v = std::mem::take(&mut self.gate_inputs);
        let g = match self.and_inputs(xs, &mut v) {
            Some(g) => g,
            None => match self.gates.find_and(&v) {
                Some(g) => g,
                None => {
                    let g = self.new_var();
                    self.defining = g.var_index();
                    for &x in &v {
                        self.raw_clause(&[!g, x]);
                    }
                    let mut long = Vec::with_capacity(v.len() + 1);
                    long.push(g);
                    long.extend(v.iter().map(|&x| !x));
                    self.raw_clause(&long);
                    self.defining = crate::NO_GATE;
                    self.gates.add_and(&v, g);
                    g
                }
            },
        };
        self.gate_inputs = v;
        g
    }

    /// Permanently requires `out <-> AND(xs)` without a gate variable of its own:
    /// `out` itself becomes the gate (and is reused by later identical `and`s).
    pub fn define_and(&mut self, out: Lit, xs: &[Lit]) {
        let mut v = std::mem::take(&mut self.gate_inputs);
        if let Some(g) = self.and_inputs(xs.iter().copied(), &mut v) {
            self.gate_inputs = v;
            self.require_equal(out, g);
            return;
        }
        if self.fixed(out).is_some() {
            let g = self.and(&v);
            self.gate_inputs = v;
            self.require_equal(out, g);
            return;
        }
        let mut long = Vec::with_capacity(v.len() + 1);
        long.push(out);
        for &x in &v {
            self.add_clause(&[!out, x]);
            long.push(!x);
        }
        self.add_clause(&long);
        self.gates.add_and(&v, out);
        self.gate_inputs = v;
    }

    /// Permanently requires `a <-> b` (two binary clauses, folded if constant).
    pub fn require_equal(&mut self, a: Lit, b: Lit) {
        self.add_clause(&[!a, b]);
        self.add_clause(&[a, !b]);
    }

    /// Defines the variable `var` as `t` (`var <-> t`, as
    /// [`Solver::require_equal`]), recorded as `var`'s definition: a search
    /// near a few variables then follows it from `var` to `t` only, as it
    /// follows a gate (see `switched.rs`). `var` must be defined nowhere
    /// else and `t` must not depend on it.
    pub fn define_equal(&mut self, var: Lit, t: Lit) {
        self.defining = var.var_index();
        self.require_equal(var, t);
        self.defining = crate::NO_GATE;
    }

    /// Normalises the inputs of a conjunction into `v` (sorted, distinct),
    /// or returns the literal it folds to.
    fn and_inputs(&self, xs: impl IntoIterator<Item = Lit>, v: &mut Vec<Lit>) -> Option<Lit> {
        v.clear();
        for x in xs {
            match self.fixed(x) {
                Some(true) => {}
                Some(false) => return Some(self.constant(false)),
                None => v.push(x),
            }
        }
        v.sort_unstable();
        v.dedup();
        if v.windows(2).any(|w| w[0] == !w[1]) {
            return Some(self.constant(false));
        }
        match v[..] {
            [] => Some(self.truth()),
            [x] => Some(x),
            _ => None,
        }
    }

    /// Returns a literal equivalent to the disjunction of `xs` (`[]` = false).
    pub fn or(&mut self, xs: &[Lit]) -> Lit {
        !self.and_of(xs.iter().map(|&x| !x))
    }

    /// Returns a literal equivalent to `!a | b`.
    pub fn implies(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(&[!a, b])
    }

    /// Returns a literal equivalent to `a <-> b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(&[a, b])
    }

    /// Returns a literal equivalent to `if c then t else e`.
    pub fn ite(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        let a = self.and(&[c, t]);
        let b = self.and(&[!c, e]);
        self.or(&[a, b])
    }

    /// Returns a literal that is true iff an odd number of `xs` is true (`[]` = false).
    /// Encoded as a chain of binary xors.
    pub fn xor(&mut self, xs: &[Lit]) -> Lit {
        let mut parity = false;
        let mut v = Vec::with_capacity(xs.len());
        for &x in xs {
            match self.fixed(x) {
                Some(b) => parity ^= b,
                None => {
                    parity ^= x.is_negated();
                    v.push(x.positive());
                }
            }
        }
        v.sort_unstable();
        // x ^ x = false: keep only variables occurring an odd number of times.
        let mut odd: Vec<Lit> = Vec::with_capacity(v.len());
        for x in v {
            if odd.last() == Some(&x) {
                odd.pop();
            } else {
                odd.push(x);
            }
        }
        let mut acc = match odd.first() {
            None => return self.constant(parity),
            Some(&x) => x,
        };
        for &x in &odd[1..] {
            acc = self.xor2(acc, x);
        }
        if parity {
            !acc
        } else {
            acc
        }
    }

    /// Binary xor of two literals (folds constants, normalises signs).
    fn xor2(&mut self, a: Lit, b: Lit) -> Lit {
        let mut parity = false;
        let mut ins = Vec::with_capacity(2);
        for x in [a, b] {
            match self.fixed(x) {
                Some(v) => parity ^= v,
                None => {
                    parity ^= x.is_negated();
                    ins.push(x.positive());
                }
            }
        }
        let g = match ins[..] {
            [] => self.constant(false),
            [x] => x,
            [x, y] if x == y => self.constant(false),
            [x, y] => {
                let (x, y) = if x < y { (x, y) } else { (y, x) };
                match self.gates.xor.get(&(x, y)) {
                    Some(&g) => g,
                    None => {
                        let g = self.new_var();
                        self.defining = g.var_index();
                        self.raw_clause(&[!g, x, y]);
                        self.raw_clause(&[!g, !x, !y]);
                        self.raw_clause(&[g, !x, y]);
                        self.raw_clause(&[g, x, !y]);
                        self.defining = crate::NO_GATE;
                        self.gates.xor.insert((x, y), g);
                        g
                    }
                }
            }
            _ => unreachable!(),
        };
        if parity {
            !g
        } else {
            g
        }
    }

    /// Returns a literal equivalent to "at least two of `a`, `b`, `c`".
    pub fn majority(&mut self, a: Lit, b: Lit, c: Lit) -> Lit {
        let mut ins = Vec::with_capacity(3);
        let mut trues = 0;
        for x in [a, b, c] {
            match self.fixed(x) {
                Some(true) => trues += 1,
                Some(false) => {}
                None => ins.push(x),
            }
        }
        ins.sort_unstable();
        let falses = 3 - trues - ins.len();
        match (trues, falses) {
            (t, _) if t >= 2 => return self.truth(),
            (_, f) if f >= 2 => return self.constant(false),
            (1, 1) => return ins[0],
            (1, 0) => return self.or(&ins),
            (0, 1) => return self.and(&ins),
            _ => {}
        }
        // Three unfixed inputs: maj(x, x, y) = x, maj(x, !x, y) = y.
        if ins[0] == ins[1] || ins[1] == ins[2] {
            return ins[1];
        }
        if ins[0] == ins[2] {
            return ins[0];
        }
        if ins[0] == !ins[1] {
            return ins[2];
        }
        if ins[1] == !ins[2] {
            return ins[0];
        }
        // Self-dual: maj(!x, !y, !z) = !maj(x, y, z); keep at most one negation.
        let negs = ins.iter().filter(|x| x.is_negated()).count();
        let flip = negs >= 2;
        if flip {
            for x in &mut ins {
                *x = !*x;
            }
            ins.sort_unstable();
        }
        let (x, y, z) = (ins[0], ins[1], ins[2]);
        let g = match self.gates.maj.get(&(x, y, z)) {
            Some(&g) => g,
            None => {
                let g = self.new_var();
                self.defining = g.var_index();
                self.raw_clause(&[g, !x, !y]);
                self.raw_clause(&[g, !x, !z]);
                self.raw_clause(&[g, !y, !z]);
                self.raw_clause(&[!g, x, y]);
                self.raw_clause(&[!g, x, z]);
                self.raw_clause(&[!g, y, z]);
                self.defining = crate::NO_GATE;
                self.gates.maj.insert((x, y, z), g);
                g
            }
        };
        if flip {
            !g
        } else {
            g
        }
    }

    /// Returns a literal equivalent to "at most one of `xs` is true" (`[]`, `[x]` = true).
    ///
    /// Pairwise for up to six inputs, a sequential ("ladder") encoding above.
    pub fn at_most_one(&mut self, xs: &[Lit]) -> Lit {
        let (certain, rest, dups) = self.amo_inputs(xs);
        if certain >= 2 {
            return self.constant(false);
        }
        if certain == 1 {
            // Everything else must be false (this covers duplicated literals too,
            // as well as duplicated members of the complementary pair).
            let mut neg: Vec<Lit> = rest.iter().map(|&x| !x).collect();
            neg.extend(dups.iter().map(|&x| !x));
            return self.and(&neg);
        }
        let core = if rest.len() < 2 {
            self.truth()
        } else {
            match self.gates.amo.get(&rest[..]) {
                Some(&g) => g,
                None => {
                    let g = self.amo_encode(&rest);
                    self.gates.amo.insert(rest.into_boxed_slice(), g);
                    g
                }
            }
        };
        let mut parts: Vec<Lit> = dups.iter().map(|&x| !x).collect();
        parts.push(core);
        self.and(&parts)
    }

    /// Permanently requires "at most one of `xs` is true", like
    /// `require(at_most_one(xs))` but as clauses without a gate variable:
    /// pairwise for up to six inputs, a sequential counter above.
    pub fn require_at_most_one(&mut self, xs: &[Lit]) {
        let (certain, rest, dups) = self.amo_inputs(xs);
        if certain >= 2 {
            self.add_clause(&[]);
            return;
        }
        for &x in &dups {
            self.require(!x);
        }
        if certain == 1 {
            for &x in &rest {
                self.require(!x);
            }
        } else if rest.len() <= PAIRWISE_MAX {
            for i in 0..rest.len() {
                for j in i + 1..rest.len() {
                    self.add_clause(&[!rest[i], !rest[j]]);
                }
            }
        } else {
            // seen_i is implied by x_1 | ... | x_i; x_i may not follow seen_{i-1}.
            let mut seen = rest[0];
            for &x in &rest[1..rest.len() - 1] {
                self.add_clause(&[!seen, !x]);
                let next = self.new_var();
                self.add_clause(&[!seen, next]);
                self.add_clause(&[!x, next]);
                seen = next;
            }
            self.add_clause(&[!seen, !rest[rest.len() - 1]]);
        }
    }

    /// The normalised inputs of an at-most-one: the number of literals
    /// certainly true (fixed true ones and complementary pairs), the other
    /// distinct unfixed literals, and the literals occurring more than once
    /// (which must be false).
    fn amo_inputs(&self, xs: &[Lit]) -> (usize, Vec<Lit>, Vec<Lit>) {
        let mut trues = 0usize;
        let mut v = Vec::with_capacity(xs.len());
        for &x in xs {
            match self.fixed(x) {
                Some(true) => trues += 1,
                Some(false) => {}
                None => v.push(x),
            }
        }
        v.sort_unstable();
        let mut distinct: Vec<Lit> = Vec::with_capacity(v.len());
        let mut dups: Vec<Lit> = Vec::new();
        for x in v {
            if distinct.last() == Some(&x) {
                if dups.last() != Some(&x) {
                    dups.push(x);
                }
            } else {
                distinct.push(x);
            }
        }
        // A complementary pair x, !x always contributes exactly one true literal.
        let mut pairs = 0usize;
        let mut rest: Vec<Lit> = Vec::with_capacity(distinct.len());
        let mut i = 0;
        while i < distinct.len() {
            if i + 1 < distinct.len() && distinct[i] == !distinct[i + 1] {
                pairs += 1;
                i += 2;
            } else {
                rest.push(distinct[i]);
                i += 1;
            }
        }
        (trues + pairs, rest, dups)
    }

    fn amo_encode(&mut self, xs: &[Lit]) -> Lit {
        let mut violations = Vec::new();
        if xs.len() <= PAIRWISE_MAX {
            for i in 0..xs.len() {
                for j in i + 1..xs.len() {
                    violations.push(self.and(&[xs[i], xs[j]]));
                }
            }
        } else {
            // seen_i <-> x_1 | ... | x_i; a violation is x_i with seen_{i-1}.
            let mut seen = xs[0];
            for &x in &xs[1..] {
                violations.push(self.and(&[seen, x]));
                seen = self.or(&[seen, x]);
            }
        }
        !self.or(&violations)
    }

    /// Returns a literal equivalent to "exactly one of `xs` is true" (`[]` = false, `[x]` = x).
    ///
    /// Over more than six distinct unfixed variables, a tree of halves: each
    /// half's "any" and "at most one", and not both halves' "any". Where it
    /// holds and every literal but one is false, the true one propagates
    /// along its path to the root only (the walks of [`Solver::count`]
    /// over an input's values visit each in time logarithmic in their
    /// number; a sequential encoding would propagate through every later
    /// value).
    pub fn exactly_one(&mut self, xs: &[Lit]) -> Lit {
        let one = if xs.len() > PAIRWISE_MAX && self.distinct_unfixed(xs) {
            let (any, most) = self.one_tree(xs);
            self.and(&[any, most])
        } else {
            let amo = self.at_most_one(xs);
            let alo = self.or(xs);
            self.and(&[amo, alo])
        };
        if xs.len() >= 2 {
            self.gates.one_hot.push((one, xs.into()));
        }
        one
    }

    /// "Any of `xs`" and "at most one of `xs`" as a tree of halves
    /// ([`Solver::exactly_one`]).
    fn one_tree(&mut self, xs: &[Lit]) -> (Lit, Lit) {
        if xs.len() <= PAIRWISE_MAX {
            return (self.or(xs), self.at_most_one(xs));
        }
        let (front, back) = xs.split_at(xs.len() / 2);
        let (any_front, most_front) = self.one_tree(front);
        let (any_back, most_back) = self.one_tree(back);
        let both = self.and(&[any_front, any_back]);
        let any = self.or(&[any_front, any_back]);
        (any, self.and(&[most_front, most_back, !both]))
    }

    /// Whether the literals of `xs` are of distinct variables, none fixed.
    fn distinct_unfixed(&self, xs: &[Lit]) -> bool {
        let mut vars: Vec<u32> = xs.iter().map(|l| l.var_index()).collect();
        vars.sort_unstable();
        vars.windows(2).all(|w| w[0] != w[1]) && xs.iter().all(|&l| self.fixed(l).is_none())
    }

    /// The exactly-ones built so far ([`Solver::exactly_one`]), each with
    /// its gate (until [`Solver::split`] drops the gate tables).
    pub(crate) fn one_hot_groups(&self) -> impl Iterator<Item = (Lit, &[Lit])> {
        self.gates.one_hot.iter().map(|(g, xs)| (*g, &xs[..]))
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{assignments, fixing, Rng};
    use crate::{Lit, Solver};

    /// Checks that `gate` is equivalent to `f(assignment)` for every assignment of `vars`:
    /// assuming the inputs forces the gate value, and the opposite value is UNSAT.
    fn check_equiv(s: &mut Solver, vars: &[Lit], gate: Lit, f: &dyn Fn(&[bool]) -> bool) {
        check_equiv_ctx(s, vars, gate, f, "");
    }

    fn check_equiv_ctx(
        s: &mut Solver,
        vars: &[Lit],
        gate: Lit,
        f: &dyn Fn(&[bool]) -> bool,
        ctx: &str,
    ) {
        for bits in assignments(vars.len()) {
            let assumps = fixing(vars, &bits);
            let expected = f(&bits);
            assert!(s.solve(&assumps), "inputs {bits:?} must be consistent");
            assert_eq!(s.value(gate), expected, "gate value for {bits:?} {ctx}");
            let mut wrong = assumps.clone();
            wrong.push(if expected { !gate } else { gate });
            assert!(!s.solve(&wrong), "gate must be forced for {bits:?} {ctx}");
        }
    }

    /// Literal pool: 3 variables, their negations and the two constants.
    fn pool(s: &Solver, vars: &[Lit]) -> Vec<Lit> {
        let mut p = vars.to_vec();
        p.extend(vars.iter().map(|&v| !v));
        p.push(s.truth());
        p.push(s.constant(false));
        p
    }

    /// Value of pool literal `lit` under the assignment `bits` of `vars`.
    fn eval(lit: Lit, truth: Lit, vars: &[Lit], bits: &[bool]) -> bool {
        if lit.var_index() == truth.var_index() {
            return lit == truth;
        }
        let i = vars
            .iter()
            .position(|v| v.var_index() == lit.var_index())
            .unwrap_or(0);
        bits[i] != lit.is_negated()
    }

    fn random_inputs(rng: &mut Rng, p: &[Lit], max_len: usize) -> Vec<Lit> {
        let n = rng.below(max_len as u64 + 1) as usize;
        (0..n)
            .map(|_| p[rng.below(p.len() as u64) as usize])
            .collect()
    }

    #[test]
    fn constants_and_small_cases() {
        let mut s = Solver::new();
        let t = s.truth();
        let f = s.constant(false);
        let x = s.new_var();
        assert_eq!(s.and(&[]), t);
        assert_eq!(s.or(&[]), f);
        assert_eq!(s.xor(&[]), f);
        assert_eq!(s.at_most_one(&[]), t);
        assert_eq!(s.exactly_one(&[]), f);
        assert_eq!(s.and(&[x]), x);
        assert_eq!(s.or(&[x]), x);
        assert_eq!(s.xor(&[x]), x);
        assert_eq!(s.at_most_one(&[x]), t);
        assert_eq!(s.exactly_one(&[x]), x);
        assert_eq!(s.and(&[x, f]), f);
        assert_eq!(s.and(&[x, t]), x);
        assert_eq!(s.or(&[x, t]), t);
        assert_eq!(s.or(&[x, f]), x);
        assert_eq!(s.and(&[x, !x]), f);
        assert_eq!(s.or(&[x, !x]), t);
        assert_eq!(s.xor(&[x, x]), f);
        assert_eq!(s.xor(&[x, !x]), t);
        assert_eq!(s.xor(&[x, t]), !x);
        assert_eq!(s.implies(f, x), t);
        assert_eq!(s.implies(x, t), t);
        assert_eq!(s.implies(t, x), x);
        assert_eq!(s.iff(x, t), x);
        assert_eq!(s.iff(x, f), !x);
        assert_eq!(s.iff(x, x), t);
        assert_eq!(s.at_most_one(&[t, t]), f);
        assert_eq!(s.at_most_one(&[x, !x, t]), f);
        assert_eq!(s.at_most_one(&[x, t]), !x);
        assert_eq!(s.majority(x, t, f), x);
        assert_eq!(s.constant(true), t);
        assert_eq!(!f, t);
    }

    #[test]
    fn hash_consing_reuses_gates() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        let c = s.new_var();
        let g1 = s.and(&[a, b, c]);
        let n = s.num_vars();
        assert_eq!(s.and(&[c, b, a, b]), g1);
        assert_eq!(s.or(&[!a, !c, !b]), !g1);
        let x1 = s.xor(&[a, b]);
        assert_eq!(s.xor(&[!b, !a]), x1);
        assert_eq!(s.iff(a, b), !x1);
        let n2 = s.num_vars();
        assert!(n2 <= n + 1);
        let xs: Vec<Lit> = (0..10).map(|_| s.new_var()).collect();
        let amo = s.at_most_one(&xs);
        let n3 = s.num_vars();
        let mut rev = xs.clone();
        rev.reverse();
        assert_eq!(s.at_most_one(&rev), amo);
        assert_eq!(s.num_vars(), n3);
    }

    #[test]
    fn deterministic_numbering() {
        let build = || {
            let mut s = Solver::new();
            let xs: Vec<Lit> = (0..12).map(|_| s.new_var()).collect();
            let mut out = Vec::new();
            for i in 0..10 {
                out.push(s.and(&xs[i..i + 3]));
                out.push(s.xor(&xs[i..i + 2]));
                out.push(s.exactly_one(&xs[..i + 2]));
            }
            (out, s.num_vars())
        };
        assert_eq!(build(), build());
    }

    #[test]
    fn gate_truth_tables() {
        let mut s = Solver::new();
        let vars: Vec<Lit> = (0..3).map(|_| s.new_var()).collect();
        let (a, b, c) = (vars[0], vars[1], vars[2]);
        let g = s.and(&[a, b, c]);
        check_equiv(&mut s, &vars, g, &|x| x[0] && x[1] && x[2]);
        let g = s.or(&[a, !b]);
        check_equiv(&mut s, &vars, g, &|x| x[0] || !x[1]);
        let g = s.xor(&[a, b, c]);
        check_equiv(&mut s, &vars, g, &|x| x[0] ^ x[1] ^ x[2]);
        let g = s.implies(a, c);
        check_equiv(&mut s, &vars, g, &|x| !x[0] || x[2]);
        let g = s.iff(b, !c);
        check_equiv(&mut s, &vars, g, &|x| x[1] != x[2]);
        let g = s.ite(a, b, c);
        check_equiv(&mut s, &vars, g, &|x| if x[0] { x[1] } else { x[2] });
        let g = s.majority(a, !b, c);
        check_equiv(&mut s, &vars, g, &|x| {
            u8::from(x[0]) + u8::from(!x[1]) + u8::from(x[2]) >= 2
        });
        let g = s.majority(!a, !b, c);
        check_equiv(&mut s, &vars, g, &|x| {
            u8::from(!x[0]) + u8::from(!x[1]) + u8::from(x[2]) >= 2
        });
        let g = s.at_most_one(&[a, b, c]);
        check_equiv(&mut s, &vars, g, &|x| x.iter().filter(|&&y| y).count() <= 1);
        let g = s.exactly_one(&[a, b, c]);
        check_equiv(&mut s, &vars, g, &|x| x.iter().filter(|&&y| y).count() == 1);
    }

    #[test]
    fn large_at_most_one_uses_ladder() {
        let mut s = Solver::new();
        let vars: Vec<Lit> = (0..9).map(|_| s.new_var()).collect();
        let g = s.at_most_one(&vars);
        check_equiv(&mut s, &vars, g, &|x| x.iter().filter(|&&y| y).count() <= 1);
        let g = s.exactly_one(&vars);
        check_equiv(&mut s, &vars, g, &|x| x.iter().filter(|&&y| y).count() == 1);
    }

    /// An exactly-one over seven to thirteen distinct variables, some
    /// literals negated (a tree of halves), against its truth table.
    #[test]
    fn exactly_one_over_many_variables_matches_its_truth_table() {
        let mut rng = Rng::new(29);
        for n in 7..=13 {
            let mut s = Solver::new();
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let lits: Vec<Lit> = (vars.iter())
                .map(|&v| if rng.below(3) == 0 { !v } else { v })
                .collect();
            let g = s.exactly_one(&lits);
            let truth = |x: &[bool]| {
                let t = lits.iter().zip(x).filter(|(l, &b)| b != l.is_negated());
                t.count() == 1
            };
            check_equiv_ctx(&mut s, &vars, g, &truth, &format!("{n} variables"));
        }
    }

    type Pred<'a> = Box<dyn Fn(&[bool]) -> bool + 'a>;

    #[test]
    fn required_at_most_one_allows_exactly_the_models_with_at_most_one() {
        let mut rng = Rng::new(13);
        for round in 0..60 {
            let mut s = Solver::new();
            let t = s.truth();
            let vars: Vec<Lit> = (0..8).map(|_| s.new_var()).collect();
            let p = pool(&s, &vars);
            let n = 1 + rng.below(if round % 2 == 0 { 5 } else { 10 }) as usize;
            let ins: Vec<Lit> = (0..n)
                .map(|_| p[rng.below(p.len() as u64) as usize])
                .collect();
            s.require_at_most_one(&ins);
            for bits in assignments(vars.len()) {
                let assumps = fixing(&vars, &bits);
                let count = ins.iter().filter(|&&l| eval(l, t, &vars, &bits)).count();
                assert_eq!(
                    s.solve(&assumps),
                    count <= 1,
                    "inputs {ins:?} bits {bits:?}"
                );
            }
        }
    }

    #[test]
    fn random_gates_match_truth_tables() {
        let mut rng = Rng::new(7);
        for round in 0..80 {
            let mut s = Solver::new();
            let t = s.truth();
            let vars: Vec<Lit> = (0..3).map(|_| s.new_var()).collect();
            let p = pool(&s, &vars);
            let max_len = if round % 3 == 0 { 10 } else { 5 };
            for op in 0..6 {
                let ins = if op == 5 {
                    (0..3)
                        .map(|_| p[rng.below(p.len() as u64) as usize])
                        .collect()
                } else {
                    random_inputs(&mut rng, &p, max_len)
                };
                let count = |b: &[bool]| ins.iter().filter(|&&l| eval(l, t, &vars, b)).count();
                let n = ins.len();
                let (g, f): (Lit, Pred<'_>) = match op {
                    0 => (s.and(&ins), Box::new(move |b: &[bool]| count(b) == n)),
                    1 => (s.or(&ins), Box::new(move |b: &[bool]| count(b) > 0)),
                    2 => (s.xor(&ins), Box::new(move |b: &[bool]| count(b) % 2 == 1)),
                    3 => (
                        s.at_most_one(&ins),
                        Box::new(move |b: &[bool]| count(b) <= 1),
                    ),
                    4 => (
                        s.exactly_one(&ins),
                        Box::new(move |b: &[bool]| count(b) == 1),
                    ),
                    _ => (
                        s.majority(ins[0], ins[1], ins[2]),
                        Box::new(move |b: &[bool]| count(b) >= 2),
                    ),
                };
                let ctx = format!("op {op} inputs {ins:?} vars {vars:?}");
                check_equiv_ctx(&mut s, &vars, g, &*f, &ctx);
            }
        }
    }

    #[test]
    fn defined_conjunctions_and_equalities() {
        let mut s = Solver::new();
        let vars: Vec<Lit> = (0..3).map(|_| s.new_var()).collect();
        let out = s.new_var();
        s.define_and(out, &[vars[0], !vars[1], vars[2]]);
        check_equiv(&mut s, &vars, out, &|x| x[0] && !x[1] && x[2]);
        // `out` is now the gate of that conjunction.
        assert_eq!(s.and(&[vars[2], !vars[1], vars[0]]), out);
        let e = s.new_var();
        s.require_equal(e, !vars[1]);
        check_equiv(&mut s, &vars, e, &|x| !x[1]);
        // Folded cases: a constant or a single input.
        let t = s.new_var();
        s.define_and(t, &[]);
        assert_eq!(s.fixed(t), Some(true));
        let f = s.new_var();
        let falsum = s.constant(false);
        s.define_and(f, &[vars[0], falsum]);
        assert_eq!(s.fixed(f), Some(false));
        let one = s.new_var();
        s.define_and(one, &[vars[2]]);
        check_equiv(&mut s, &vars, one, &|x| x[2]);
    }

    #[test]
    fn gates_fold_level0_facts() {
        let mut s = Solver::new();
        let a = s.new_var();
        let b = s.new_var();
        s.require(a);
        assert_eq!(s.and(&[a, b]), b);
        assert_eq!(s.or(&[!a, b]), b);
        assert_eq!(s.fixed(a), Some(true));
        assert_eq!(s.fixed(b), None);
    }
}
