//! Test helpers: a tiny deterministic PRNG and brute-force evaluation of
//! small CNF instances, used by the hand-written property tests.

use crate::{Lit, Solver};

/// xorshift64* generator; deterministic across platforms.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed` mixed with [`test_seed`]: the property tests
    /// draw other instances under another value, where their counters of
    /// what they exercised are not checked ([`exercised`]).
    pub(crate) fn new(seed: u64) -> Rng {
        let seed = seed ^ test_seed().wrapping_mul(0x2545_F491_4F6C_DD1D);
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish value in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `V4T_TEST_SEED` (0 when unset or not a number).
pub(crate) fn test_seed() -> u64 {
    std::env::var("V4T_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Value of `lit` under `bits`, where `vars[i]` has value `bits[i]`.
pub(crate) fn eval_lit(lit: Lit, vars: &[Lit], bits: &[bool]) -> bool {
    let i = vars
        .iter()
        .position(|v| v.var_index() == lit.var_index())
        .unwrap_or(0);
    bits[i] != lit.is_negated()
}

/// Every assignment of `n` variables as a bit vector (entry `i` is bit `i`
/// of a counter), in counter order: the brute force the property tests
/// compare the solver against.
pub(crate) fn assignments(n: usize) -> impl Iterator<Item = Vec<bool>> {
    (0..1u64 << n).map(move |m| (0..n).map(|i| m >> i & 1 == 1).collect())
}

/// The assumptions that give `vars[i]` the value `bits[i]`.
pub(crate) fn fixing(vars: &[Lit], bits: &[bool]) -> Vec<Lit> {
    vars.iter()
        .zip(bits)
        .map(|(&v, &b)| if b { v } else { !v })
        .collect()
}

/// All assignments (as bit vectors over `vars`) satisfying every clause.
pub(crate) fn models(vars: &[Lit], clauses: &[Vec<Lit>]) -> Vec<Vec<bool>> {
    assignments(vars.len())
        .filter(|bits| {
            clauses
                .iter()
                .all(|c| c.iter().any(|&l| eval_lit(l, vars, bits)))
        })
        .collect()
}

/// A random literal of one of `vars`, either sign.
pub(crate) fn random_lit(rng: &mut Rng, vars: &[Lit]) -> Lit {
    let v = vars[rng.below(vars.len() as u64) as usize];
    if rng.below(2) == 0 {
        v
    } else {
        !v
    }
}

/// A random CNF over `vars` with `n` clauses of length 1..=3.
pub(crate) fn random_cnf(rng: &mut Rng, vars: &[Lit], n: usize) -> Vec<Vec<Lit>> {
    (0..n)
        .map(|_| {
            let len = 1 + rng.below(3) as usize;
            (0..len).map(|_| random_lit(rng, vars)).collect()
        })
        .collect()
}

/// A solver holding a random CNF (returned too, for brute force) over `n`
/// fresh variables, `n` in `1..=max_vars`, with fewer than `a * n + b`
/// clauses: the instances of the brute-force property tests.
pub(crate) fn random_instance(
    rng: &mut Rng,
    max_vars: u64,
    (a, b): (u64, u64),
) -> (Solver, Vec<Lit>, Vec<Vec<Lit>>) {
    let mut s = Solver::new();
    let n = 1 + rng.below(max_vars) as usize;
    let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
    let k = rng.below(a * n as u64 + b) as usize;
    let cnf = random_cnf(rng, &vars, k);
    for c in &cnf {
        s.add_clause(c);
    }
    (s, vars, cnf)
}

/// Variables assigned at random to `blocks` independent blocks, each with a
/// random CNF of its own; returns the variables and all clauses.
pub(crate) fn blocks(
    rng: &mut Rng,
    s: &mut Solver,
    n: usize,
    blocks: usize,
) -> (Vec<Lit>, Vec<Vec<Lit>>) {
    let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
    let mut members: Vec<Vec<Lit>> = vec![Vec::new(); blocks];
    for &v in &vars {
        members[rng.below(blocks as u64) as usize].push(v);
    }
    let mut cnf = Vec::new();
    for m in members.iter().filter(|m| !m.is_empty()) {
        let k = rng.below(2 * m.len() as u64 + 1) as usize;
        cnf.extend(random_cnf(rng, m, k));
    }
    (vars, cnf)
}

/// A solver over 1 to 12 fresh variables in up to five independent
/// blocks of random clauses, sometimes with a fact, as brute-force
/// instances for the questions asked part by part; the clauses are
/// returned, not yet added (callers add their own first).
pub(crate) fn blocks_instance(rng: &mut Rng) -> (Solver, Vec<Lit>, Vec<Vec<Lit>>) {
    let mut s = Solver::new();
    let n = 1 + rng.below(12) as usize;
    let k = 1 + rng.below(5) as usize;
    let (vars, mut cnf) = blocks(rng, &mut s, n, k);
    if rng.below(3) == 0 {
        cnf.push(vec![random_lit(rng, &vars)]);
    }
    (s, vars, cnf)
}

/// Asserts a counter of what a random test exercised. The counters are
/// tuned to the tests' own seeds, so under `V4T_TEST_SEED` they are not
/// checked (a wrong answer still fails the test).
macro_rules! exercised {
    ($($arg:tt)+) => {
        if $crate::testutil::test_seed() == 0 {
            assert!($($arg)+);
        }
    };
}
pub(crate) use exercised;
