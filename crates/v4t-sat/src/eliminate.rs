//! Simplification before projected counting ([`crate::Solver::count`]):
//! unit propagation, then elimination of the variables *outside* the
//! projection by resolution.
//!
//! Eliminating a variable `x` replaces the clauses containing `x` or `¬x`
//! by their resolvents on `x`, which is exactly `∃x. F`: the projected
//! models do not change, and neither does satisfiability under decisions
//! on projection variables (what the counter asks its oracle, which keeps
//! the original clauses). A variable is eliminated only if that does not
//! add clauses (bounded variable elimination, as in SatELite and the
//! preprocessors of projected counters such as pmc and Arjun), so the
//! formula never grows. Where `x` is defined by a gate (`x ↔ a ∧ b ∧ ...`,
//! which covers `x ↔ a`, `x ↔ a ∨ b` through the negations), resolvents
//! of two gate clauses are tautologies and resolvents of two other clauses
//! are implied by the others (Eén and Biere 2005), so only gate-other pairs
//! are kept: substituting the definition.
//!
//! Why it matters: a projection variable defined by variables outside the
//! projection (an element's presence by the inputs) keeps the formula
//! connected through them, so the counter's parts never fall apart. A
//! chain of presences `p_i ↔ x_i ⊕ x_{i+1}` over inputs `x` has `2^(n-1)`
//! projected models; decided presence by presence it never splits and no
//! part repeats, while eliminating `x_0`, `x_1`, ... one by one (each only
//! in its gates) leaves the presences free.

use crate::gates::FxHashMap;
use crate::Lit;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Variables with more clause pairs than this to resolve are kept.
const PAIR_LIMIT: usize = 256;

/// Variables in more clauses than this are kept unless only their gate
/// definition has them.
const OCCURRENCE_LIMIT: usize = 2 * PAIR_LIMIT;

/// Variables in more clauses than this are kept (without looking at them).
const GATE_LIMIT: usize = 1 << 16;

/// How often a variable is tried (after each change around it).
const ATTEMPTS: u8 = 4;

/// Resolvents longer than this keep their variable.
const RESOLVENT_LIMIT: usize = 64;

/// Clauses in a flat store: clause `c` is `lits[start[c]..start[c + 1]]`.
pub(crate) struct Clauses {
    pub lits: Vec<Lit>,
    pub start: Vec<u32>,
}

/// Propagates `units` over `clauses` (each of at least two unassigned,
/// sorted, distinct literals under `value`) and eliminates variables
/// outside `projected`; the remaining clauses (each again of at least two
/// unassigned literals), with `value` extended by the propagated units, or
/// `None` on a conflict. `steps` counts the clauses visited.
pub(crate) fn simplify(
    clauses: Clauses,
    value: &mut [i8],
    units: &[Lit],
    projected: &[bool],
    steps: &mut u64,
) -> Option<Clauses> {
    let mut db = Db::new(clauses, value, steps);
    for &u in units {
        if !db.assign(u) {
            return None;
        }
    }
    // Fewest occurrences first (ties in variable order): a chain unravels
    // from its loose end. Costs in the heap may be stale (lazily renewed).
    let n = db.value.len();
    let mut heap = BinaryHeap::new();
    for v in 0..n as u32 {
        if !projected[v as usize] && db.value[v as usize] == 0 && db.occurs(v as usize) {
            heap.push(Reverse((db.cost(v), v)));
        }
    }
    let mut done = vec![false; n];
    let mut attempts = vec![0u8; n];
    while let Some(Reverse((cost, v))) = heap.pop() {
        let at = v as usize;
        if done[at] || db.value[at] != 0 || attempts[at] >= ATTEMPTS {
            continue;
        }
        let now = db.cost(v);
        if now > cost {
            heap.push(Reverse((now, v)));
            continue;
        }
        attempts[at] += 1;
        let Some(touched) = db.eliminate(v)? else {
            continue;
        };
        done[at] = true;
        for t in touched {
            let t_at = t as usize;
            if !projected[t_at] && !done[t_at] && db.value[t_at] == 0 && attempts[t_at] < ATTEMPTS {
                heap.push(Reverse((db.cost(t), t)));
            }
        }
    }
    Some(db.into_clauses())
}

/// The clause store while simplifying.
struct Db<'a> {
    lits: Vec<Lit>,
    /// Clause `c` is `lits[span[c].0..span[c].1]`.
    span: Vec<(u32, u32)>,
    alive: Vec<bool>,
    /// Original clauses per literal code: `occ[occ_start[l]..occ_start[l + 1]]`.
    occ_start: Vec<u32>,
    occ: Vec<u32>,
    /// Clauses added by elimination, per literal code.
    added: FxHashMap<u32, Vec<u32>>,
    /// Live clauses per literal code.
    live: Vec<u32>,
    value: &'a mut [i8],
    steps: &'a mut u64,
    /// Reused buffers.
    found: Vec<u32>,
    pending: Vec<Lit>,
}

impl<'a> Db<'a> {
    fn new(clauses: Clauses, value: &'a mut [i8], steps: &'a mut u64) -> Db<'a> {
        let Clauses { lits, start } = clauses;
        let codes = 2 * value.len();
        let count = start.len() - 1;
        let mut occ_start = vec![0u32; codes + 1];
        for l in &lits {
            occ_start[l.0 as usize + 1] += 1;
        }
        for i in 0..codes {
            occ_start[i + 1] += occ_start[i];
        }
        let mut fill = occ_start.clone();
        let mut occ = vec![0u32; lits.len()];
        for c in 0..count {
            for l in &lits[start[c] as usize..start[c + 1] as usize] {
                let slot = &mut fill[l.0 as usize];
                occ[*slot as usize] = c as u32;
                *slot += 1;
            }
        }
        *steps += lits.len() as u64;
        let span = start.windows(2).map(|w| (w[0], w[1])).collect();
        let live = occ_start.windows(2).map(|w| w[1] - w[0]).collect();
        Db {
            lits,
            span,
            alive: vec![true; count],
            occ_start,
            occ,
            added: FxHashMap::default(),
            live,
            value,
            steps,
            found: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn lit_value(&self, l: Lit) -> i8 {
        let v = self.value[l.var_index() as usize];
        if l.is_negated() {
            -v
        } else {
            v
        }
    }

    fn clause(&self, c: u32) -> &[Lit] {
        let (s, e) = self.span[c as usize];
        &self.lits[s as usize..e as usize]
    }

    /// Whether variable `v` is in some clause (alive or not).
    fn occurs(&self, v: usize) -> bool {
        let (p, n) = (2 * v, 2 * v + 1);
        self.occ_start[p] != self.occ_start[n + 1]
    }

    /// The live clauses containing variable `v` (of either sign; some may
    /// be satisfied without having been removed yet): the order of
    /// elimination, in constant time.
    fn cost(&self, v: u32) -> usize {
        (self.live[2 * v as usize] + self.live[2 * v as usize + 1]) as usize
    }

    /// Removes clause `c`.
    fn kill(&mut self, c: u32) {
        if std::mem::replace(&mut self.alive[c as usize], false) {
            let (s, e) = self.span[c as usize];
            for l in &self.lits[s as usize..e as usize] {
                self.live[l.0 as usize] -= 1;
            }
        }
    }

    /// The live clauses containing `l`, into `self.found`.
    fn collect(&mut self, l: Lit) {
        self.found.clear();
        let code = l.0 as usize;
        let original = &self.occ[self.occ_start[code] as usize..self.occ_start[code + 1] as usize];
        let added = self.added.get(&l.0).map_or(&[][..], Vec::as_slice);
        self.found.extend(
            original
                .iter()
                .chain(added)
                .filter(|&&c| self.alive[c as usize]),
        );
        *self.steps += self.found.len() as u64;
    }

    /// Assigns `l` and propagates; `false` on a conflict.
    fn assign(&mut self, l: Lit) -> bool {
        match self.lit_value(l) {
            v if v > 0 => return true,
            v if v < 0 => return false,
            _ => {}
        }
        self.set(l);
        let mut queue = vec![l];
        while let Some(p) = queue.pop() {
            self.collect(p);
            let satisfied = std::mem::take(&mut self.found);
            for &c in &satisfied {
                self.kill(c);
            }
            self.found = satisfied;
            self.collect(!p);
            let shortened = std::mem::take(&mut self.found);
            for &c in &shortened {
                let mut open = None;
                let mut count = 0;
                let mut satisfied = false;
                for &x in self.clause(c) {
                    match self.lit_value(x) {
                        v if v > 0 => {
                            satisfied = true;
                            break;
                        }
                        0 => {
                            count += 1;
                            open = Some(x);
                        }
                        _ => {}
                    }
                }
                if satisfied {
                    self.kill(c);
                    continue;
                }
                match (count, open) {
                    (0, _) => return false,
                    (1, Some(u)) => {
                        self.kill(c);
                        self.set(u);
                        queue.push(u);
                    }
                    _ => {}
                }
            }
            self.found = shortened;
        }
        true
    }

    fn set(&mut self, l: Lit) {
        self.value[l.var_index() as usize] = if l.is_negated() { -1 } else { 1 };
    }

    /// The open literals of the live clauses containing `l` (satisfied ones
    /// are dropped), with their ids.
    fn open_clauses(&mut self, l: Lit) -> Vec<(u32, Vec<Lit>)> {
        self.collect(l);
        let found = std::mem::take(&mut self.found);
        let mut out = Vec::with_capacity(found.len());
        for &c in &found {
            if self.clause(c).iter().any(|&x| self.lit_value(x) > 0) {
                self.kill(c);
                continue;
            }
            let open: Vec<Lit> = self
                .clause(c)
                .iter()
                .copied()
                .filter(|&x| self.lit_value(x) == 0)
                .collect();
            out.push((c, open));
        }
        self.found = found;
        out
    }

    /// Eliminates variable `v` if that adds no clauses: the variables of
    /// the clauses it was in (to look at again), `Some(None)` if `v` stays, `None`
    /// on a conflict.
    fn eliminate(&mut self, v: u32) -> Option<Option<Vec<u32>>> {
        let x = Lit::from_var(v);
        let cost = self.cost(v);
        if cost > GATE_LIMIT {
            return Some(None);
        }
        let pos = self.open_clauses(x);
        let neg = self.open_clauses(!x);
        if pos.is_empty() && neg.is_empty() {
            return Some(None);
        }
        let (pos_gate, neg_gate) = gate(x, &pos, &neg);
        let large = cost > OCCURRENCE_LIMIT || pos.len() * neg.len() > PAIR_LIMIT;
        if large && !pos_gate.iter().chain(&neg_gate).all(|&g| g) {
            // Only a gate whose output is in nothing but its definition
            // goes whatever its size: all its resolvents are tautologies.
            return Some(None);
        }
        let gated = pos_gate.iter().any(|&g| g);
        let limit = pos.len() + neg.len();
        let mut resolvents: Vec<Vec<Lit>> = Vec::new();
        for (i, (_, p)) in pos.iter().enumerate() {
            for (j, (_, n)) in neg.iter().enumerate() {
                if gated && pos_gate[i] == neg_gate[j] {
                    continue;
                }
                *self.steps += (p.len() + n.len()) as u64;
                let Some(r) = resolve(x, p, n) else {
                    continue;
                };
                if r.len() > RESOLVENT_LIMIT {
                    return Some(None);
                }
                resolvents.push(r);
                if resolvents.len() > limit {
                    return Some(None);
                }
            }
        }
        for (c, _) in pos.iter().chain(&neg) {
            self.kill(*c);
        }
        resolvents.sort_unstable();
        resolvents.dedup();
        // The variables of the removed clauses (the resolvents have no others).
        let mut touched: Vec<u32> = pos
            .iter()
            .chain(&neg)
            .flat_map(|(_, c)| c.iter().map(|l| l.var_index()))
            .filter(|&t| t != v)
            .collect();
        self.pending.clear();
        for r in resolvents {
            match r[..] {
                [] => return None,
                [u] => self.pending.push(u),
                _ => self.add(&r),
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for &u in &pending {
            if !self.assign(u) {
                return None;
            }
        }
        self.pending = pending;
        touched.sort_unstable();
        touched.dedup();
        Some(Some(touched))
    }

    fn add(&mut self, clause: &[Lit]) {
        let id = self.span.len() as u32;
        let s = self.lits.len() as u32;
        self.lits.extend_from_slice(clause);
        self.span.push((s, self.lits.len() as u32));
        self.alive.push(true);
        for l in clause {
            self.added.entry(l.0).or_default().push(id);
            self.live[l.0 as usize] += 1;
        }
    }

    /// The live clauses, without assigned literals.
    fn into_clauses(self) -> Clauses {
        let mut lits = Vec::new();
        let mut start = vec![0u32];
        for c in 0..self.span.len() {
            if !self.alive[c] {
                continue;
            }
            let clause = self.clause(c as u32);
            if clause.iter().any(|&x| self.lit_value(x) > 0) {
                continue;
            }
            let before = lits.len();
            lits.extend(clause.iter().copied().filter(|&x| self.lit_value(x) == 0));
            debug_assert!(lits.len() - before >= 2, "units are propagated");
            start.push(lits.len() as u32);
        }
        Clauses { lits, start }
    }
}

/// Which clauses of `pos` (containing `x`) and `neg` (containing `¬x`)
/// define `x` as a gate: `s ↔ l_1 ∧ ... ∧ l_k` for `s` one of `x`, `¬x`,
/// given by the clause `s ∨ ¬l_1 ∨ ... ∨ ¬l_k` and the binary clauses
/// `¬s ∨ l_i`. All `false` if there is no such gate.
fn gate(x: Lit, pos: &[(u32, Vec<Lit>)], neg: &[(u32, Vec<Lit>)]) -> (Vec<bool>, Vec<bool>) {
    for (s, long_side, binary_side) in [(x, pos, neg), (!x, neg, pos)] {
        // The partners l of the binary clauses ¬s ∨ l (sorted, for a gate
        // of many inputs).
        let partner = |c: &[Lit]| if c[0] == !s { c[1] } else { c[0] };
        let mut partners: Vec<Lit> = (binary_side.iter())
            .filter(|(_, c)| c.len() == 2)
            .map(|(_, c)| partner(c))
            .collect();
        partners.sort_unstable();
        let found = long_side.iter().position(|(_, c)| {
            c.len() >= 2
                && c.iter()
                    .all(|&l| l == s || partners.binary_search(&!l).is_ok())
        });
        let Some(i) = found else {
            continue;
        };
        let mut inputs: Vec<Lit> = (long_side[i].1.iter())
            .filter(|&&l| l != s)
            .map(|&l| !l)
            .collect();
        inputs.sort_unstable();
        let long_flags: Vec<bool> = (0..long_side.len()).map(|k| k == i).collect();
        let mut used = vec![false; inputs.len()];
        let binary_flags: Vec<bool> = binary_side
            .iter()
            .map(|(_, c)| {
                if c.len() != 2 {
                    return false;
                }
                // One binary clause per input (duplicates are ordinary clauses).
                match inputs.binary_search(&partner(c)) {
                    Ok(k) if !used[k] => {
                        used[k] = true;
                        true
                    }
                    _ => false,
                }
            })
            .collect();
        return if s == x {
            (long_flags, binary_flags)
        } else {
            (binary_flags, long_flags)
        };
    }
    (vec![false; pos.len()], vec![false; neg.len()])
}

/// The resolvent of `p` (containing `x`) and `n` (containing `¬x`) on
/// `x`, sorted; `None` if it is a tautology.
fn resolve(x: Lit, p: &[Lit], n: &[Lit]) -> Option<Vec<Lit>> {
    let mut r: Vec<Lit> = p
        .iter()
        .chain(n)
        .copied()
        .filter(|&l| l.var_index() != x.var_index())
        .collect();
    r.sort_unstable();
    r.dedup();
    if r.windows(2).any(|w| w[0] == !w[1]) {
        return None;
    }
    Some(r)
}
