//! Satisfiability under switches, searched near the assumptions
//! ([`Split::solve_switched`]).
//!
//! A *switch* is a variable that occurs in clauses only negated: a guard
//! `g` of clauses `!g | …` (`g -> …`). A switch that is not assumed is off
//! (false), which satisfies its clauses, so they drop out. Of what
//! remains, only the part connected to the assumptions matters, and a gate
//! (a fresh variable `g <-> f(inputs)`) that nothing reaches can always take
//! the value of its inputs: its definition is followed from the gate to
//! its inputs, never back. So a question about the neighbourhood of a few
//! elements searches that neighbourhood, not the whole problem:
//!
//! * start from the assumed variables, the clauses of the assumed switches
//!   (those whose switches are all on) and the clauses that are always on
//!   (no switch, not a definition);
//! * take in every clause of a reached variable that is always on or
//!   switched on, and the definition of a reached gate;
//! * solve those clauses under the assumptions on a small solver of their
//!   own.
//!
//! Exact: a model of the clauses taken in extends to every clause by
//! setting the switches that are off to false and every gate not reached
//! to the value of its inputs (gates are defined over older variables, so
//! in variable order), every other variable not reached taking any value.

use crate::csr::Csr;
use crate::propagate::Implications;
use crate::store::Clauses;
use crate::{Lit, Solver, NO_GATE};

/// A part's clauses indexed by variable for [`Near::solve`].
#[derive(Debug)]
pub(crate) struct Near {
    /// How many clauses are indexed (a part that has gained clauses since
    /// is indexed again).
    clauses: usize,
    /// Whether each variable is a switch.
    switch: Vec<bool>,
    /// The clauses that are always on: no switch, no definition.
    always: Vec<u32>,
    /// By variable (`start[v]..start[v + 1]` in `list`): the clauses of a
    /// switch, or the definition of a gate.
    start: Vec<u32>,
    list: Vec<u32>,
    /// Visit stamps of variables and clauses, and the current stamp.
    var_seen: Vec<u32>,
    clause_seen: Vec<u32>,
    on: Vec<u32>,
    stamp: u32,
    /// The small solver's variable of each visited variable, and back.
    sub_var: Vec<u32>,
    order: Vec<u32>,
    /// Where [`Near::minimal_core`] grows its set of switches, built on
    /// first use.
    grow: Option<Box<Growth>>,
    /// Buffers of [`Near::search`], kept between searches: the variables
    /// to visit, the clauses taken, those to take next.
    reached: Vec<u32>,
    taken: Vec<u32>,
    pending: Vec<u32>,
    next: Vec<u32>,
}

/// What a [`Near::search`] found.
enum Search {
    /// A model: the assumptions are satisfiable with the other switches off.
    Model,
    /// No model; the assumptions that conflict (a subset, in their order).
    Conflict(Vec<Lit>),
}

/// More neighbours than this make a variable a hub (see [`Near::grow_core`]).
const HUB: usize = 32;

/// Where the switched clauses lie, for growing a set of switches outward
/// from a literal: by variable, the switches owning a clause that reads
/// it, the gates defined over it and, for a gate, what it is defined over.
#[derive(Debug)]
struct Growth {
    touch: Csr,
    up: Csr,
    down: Csr,
    /// Visit stamps of variables and switches, and the current stamp.
    var_seen: Vec<u32>,
    chosen: Vec<u32>,
    stamp: u32,
}

impl Growth {
    fn build(near: &Near, sat: &Solver) -> Growth {
        let n = near.switch.len();
        let (mut touch, mut up, mut down) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..near.clauses {
            let lits = clause(sat, c);
            let gate = sat.clause_gate(c);
            if gate != NO_GATE {
                for v in lits.iter().map(|l| l.var_index()).filter(|&v| v != gate) {
                    up.push((v, gate));
                    down.push((gate, v));
                }
                continue;
            }
            for s in lits.iter().map(|l| l.var_index()) {
                if near.switch[s as usize] {
                    touch.extend(
                        lits.iter()
                            .map(|l| l.var_index())
                            .filter(|&v| !near.switch[v as usize])
                            .map(|v| (v, s)),
                    );
                }
            }
        }
        Growth {
            touch: Csr::new(n, touch),
            up: Csr::new(n, up),
            down: Csr::new(n, down),
            var_seen: vec![0; n],
            chosen: vec![0; n],
            stamp: 0,
        }
    }

    /// How many neighbours `v` has: the switches of its clauses, then the
    /// gates defined over it, then what it is defined over.
    fn degree(&self, v: u32) -> usize {
        self.touch.of(v).len() + self.up.of(v).len() + self.down.of(v).len()
    }

    /// Queues `v` once per growth, as a hub if it has many neighbours.
    fn enqueue(
        &mut self,
        v: u32,
        stamp: u32,
        light: &mut std::collections::VecDeque<u32>,
        hubs: &mut std::collections::VecDeque<(u32, usize)>,
    ) {
        if self.var_seen[v as usize] == stamp {
            return;
        }
        self.var_seen[v as usize] = stamp;
        if self.degree(v) > HUB {
            hubs.push_back((v, 0));
        } else {
            light.push_back(v);
        }
    }

    /// Takes neighbours `range` of `v`: allowed switches into `chosen`,
    /// variables into the queues.
    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        v: u32,
        range: std::ops::Range<usize>,
        stamp: u32,
        allowed: &dyn Fn(u32) -> bool,
        chosen: &mut Vec<Lit>,
        light: &mut std::collections::VecDeque<u32>,
        hubs: &mut std::collections::VecDeque<(u32, usize)>,
    ) {
        let (touch, up) = (self.touch.of(v).len(), self.up.of(v).len());
        for i in range {
            if i < touch {
                let s = self.touch.of(v)[i];
                if self.chosen[s as usize] != stamp && allowed(s) {
                    self.chosen[s as usize] = stamp;
                    chosen.push(Lit::from_var(s));
                }
            } else {
                let w = if i < touch + up {
                    self.up.of(v)[i - touch]
                } else {
                    self.down.of(v)[i - touch - up]
                };
                self.enqueue(w, stamp, light, hubs);
            }
        }
    }

    /// A fresh stamp for one growth.
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.var_seen.fill(0);
            self.chosen.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }
}

impl Near {
    /// Indexes the clauses of `sat`, whose switches `is_switch` tells (a
    /// variable that occurs positively is not one).
    pub(crate) fn build(sat: &Solver, is_switch: impl Fn(u32) -> bool) -> Near {
        let n = sat.num_vars() as usize;
        let mut switch: Vec<bool> = (0..n as u32).map(is_switch).collect();
        for &l in sat.clauses.lits() {
            if !l.is_negated() {
                switch[l.var_index() as usize] = false;
            }
        }
        let clauses = sat.clauses.len();
        let mut always = Vec::new();
        let mut owners: Vec<(u32, u32)> = Vec::new();
        for c in 0..clauses {
            let gate = sat.clause_gate(c);
            if gate != NO_GATE {
                owners.push((gate, c as u32));
                continue;
            }
            let mut switched = false;
            for l in clause(sat, c) {
                if switch[l.var_index() as usize] {
                    owners.push((l.var_index(), c as u32));
                    switched = true;
                }
            }
            if !switched {
                always.push(c as u32);
            }
        }
        let mut start = vec![0u32; n + 1];
        for &(v, _) in &owners {
            start[v as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; owners.len()];
        for (v, c) in owners {
            list[fill[v as usize] as usize] = c;
            fill[v as usize] += 1;
        }
        Near {
            clauses,
            switch,
            always,
            start,
            list,
            var_seen: vec![0; n],
            clause_seen: vec![0; clauses],
            on: vec![0; n],
            stamp: 0,
            sub_var: vec![0; n],
            order: Vec::new(),
            grow: None,
            reached: Vec::new(),
            taken: Vec::new(),
            pending: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Whether the index covers every clause of `sat`.
    pub(crate) fn is_current(&self, sat: &Solver) -> bool {
        self.clauses == sat.clauses.len() && self.switch.len() == sat.num_vars() as usize
    }

    /// Whether the clauses of `sat` have a model with `lits` true and every
    /// switch not among them false, given that they have one with every
    /// switch false (see the module documentation), and how many
    /// variables the search took in.
    pub(crate) fn solve(&mut self, sat: &Solver, lits: &[Lit]) -> (bool, u64) {
        let found = matches!(self.search(sat, lits, false), Search::Model);
        (found, self.order.len() as u64)
    }

    /// A subset-minimal set of switches, each `allowed` (by variable), that
    /// has no model together with `goal` (the other switches off), the
    /// switches that `telling` does not accept dropped first where the set
    /// allows (so they remain only where needed), then those farthest from
    /// `goal`; `None` if none was found near `goal`
    /// (then `goal` most likely has a model with every allowed switch on;
    /// a caller that must know asks the whole problem).
    ///
    /// The set grows outward from `goal`: the switches of the clauses that
    /// read a variable the last search reached (or a gate defined over one),
    /// until a search has no model; its conflict, shrunk by deletion (each
    /// question again a search near its assumptions), is the answer. Each
    /// step is exact, so the answer is; only its size depends on the growth.
    pub(crate) fn minimal_core(
        &mut self,
        sat: &Solver,
        goal: Lit,
        allowed: &dyn Fn(u32) -> bool,
        telling: &dyn Fn(u32) -> bool,
    ) -> Option<Vec<Lit>> {
        let mut grow = match self.grow.take() {
            Some(grow) => grow,
            None => Box::new(Growth::build(self, sat)),
        };
        let found = self.grow_core(sat, &mut grow, goal, allowed);
        self.grow = Some(grow);
        let mut core = found?;
        // Dropped first: the switches that tell least, then those farthest
        // from `goal` (taken last).
        core.reverse();
        core.sort_by_key(|l| telling(l.var_index()));
        let mut necessary = 0;
        let mut candidate = Vec::with_capacity(core.len() + 1);
        while necessary < core.len() {
            candidate.clear();
            candidate.push(goal);
            candidate.extend_from_slice(&core[..necessary]);
            candidate.extend_from_slice(&core[necessary + 1..]);
            match self.search(sat, &candidate, true) {
                Search::Model => necessary += 1,
                Search::Conflict(smaller) => {
                    core = smaller.into_iter().filter(|&l| l != goal).collect();
                }
            }
        }
        Some(core)
    }

    /// The conflict of the first search that has none, growing the set
    /// of switches as [`Near::minimal_core`] describes (without `goal`).
    ///
    /// Variables are taken breadth first, and each round at most doubles
    /// the set, so a core near `goal` is found by searching about its size.
    /// A variable read by many clauses (an input every condition reads) is
    /// a hub: it would bring in the whole problem at once, so its
    /// neighbours are taken only when no other variable is left, a round's
    /// worth at a time.
    fn grow_core(
        &mut self,
        sat: &Solver,
        grow: &mut Growth,
        goal: Lit,
        allowed: &dyn Fn(u32) -> bool,
    ) -> Option<Vec<Lit>> {
        if let Search::Conflict(_) = self.search(sat, &[goal], true) {
            return Some(Vec::new());
        }
        let stamp = grow.next_stamp();
        let mut chosen: Vec<Lit> = Vec::new();
        let mut light = std::collections::VecDeque::new();
        // Hubs, each with how many of its neighbours were taken.
        let mut hubs = std::collections::VecDeque::new();
        // What `goal` alone reaches (through definitions and the clauses
        // that are always on, also where gates are not recorded).
        grow.enqueue(goal.var_index(), stamp, &mut light, &mut hubs);
        for &v in &self.order[1..] {
            grow.enqueue(v, stamp, &mut light, &mut hubs);
        }
        let mut lits = Vec::new();
        loop {
            let budget = chosen.len().max(8);
            let before = chosen.len();
            while chosen.len() - before < budget {
                if let Some(v) = light.pop_front() {
                    let n = grow.degree(v);
                    grow.take(v, 0..n, stamp, allowed, &mut chosen, &mut light, &mut hubs);
                } else if let Some((v, done)) = hubs.pop_front() {
                    let n = grow.degree(v);
                    let upto = n.min(done + budget);
                    grow.take(
                        v,
                        done..upto,
                        stamp,
                        allowed,
                        &mut chosen,
                        &mut light,
                        &mut hubs,
                    );
                    if upto < n {
                        hubs.push_front((v, upto));
                    }
                } else {
                    break;
                }
            }
            if chosen.len() == before {
                return None;
            }
            lits.clear();
            lits.push(goal);
            lits.extend_from_slice(&chosen);
            match self.search(sat, &lits, true) {
                Search::Conflict(core) => {
                    return Some(core.into_iter().filter(|&l| l != goal).collect());
                }
                Search::Model => {
                    for &v in &self.order[1..] {
                        grow.enqueue(v, stamp, &mut light, &mut hubs);
                    }
                }
            }
        }
    }

    /// Takes in the clauses near `lits` (see the module documentation):
    /// numbers the variables reached in `order` and returns the
    /// clauses, in the order taken.
    fn take_in(&mut self, sat: &Solver, lits: &[Lit]) -> Vec<u32> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.var_seen.fill(0);
            self.clause_seen.fill(0);
            self.on.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        for &l in lits {
            if !l.is_negated() {
                self.on[l.var_index() as usize] = stamp;
            }
        }
        let mut vars = std::mem::take(&mut self.reached);
        let mut taken = std::mem::take(&mut self.taken);
        let mut pending = std::mem::take(&mut self.pending);
        let mut next = std::mem::take(&mut self.next);
        vars.clear();
        taken.clear();
        pending.clear();
        pending.extend_from_slice(&self.always);
        // The constant of the part is the small solver's constant.
        self.var_seen[0] = stamp;
        self.sub_var[0] = 0;
        self.order.clear();
        self.order.push(0);
        let visit = |near: &mut Near, v: u32, vars: &mut Vec<u32>| {
            if near.var_seen[v as usize] != stamp {
                near.var_seen[v as usize] = stamp;
                near.sub_var[v as usize] = near.order.len() as u32;
                near.order.push(v);
                vars.push(v);
            }
        };
        for &l in lits {
            visit(self, l.var_index(), &mut vars);
        }
        loop {
            std::mem::swap(&mut pending, &mut next);
            pending.clear();
            for &c in &next {
                if self.clause_seen[c as usize] == stamp {
                    continue;
                }
                self.clause_seen[c as usize] = stamp;
                taken.push(c);
                for l in clause(sat, c as usize) {
                    visit(self, l.var_index(), &mut vars);
                }
            }
            let Some(v) = vars.pop() else {
                break;
            };
            let owned = self.start[v as usize] as usize..self.start[v as usize + 1] as usize;
            if !self.switch[v as usize] {
                pending.extend_from_slice(&self.list[owned]);
            } else if self.on[v as usize] == stamp {
                // A clause of several switches is on when all of them are.
                for &c in &self.list[owned] {
                    let all_on = clause(sat, c as usize).iter().all(|l| {
                        !self.switch[l.var_index() as usize]
                            || self.on[l.var_index() as usize] == stamp
                    });
                    if all_on {
                        pending.push(c);
                    }
                }
            }
        }
        self.reached = vars;
        self.pending = pending;
        self.next = next;
        taken
    }

    /// [`Near::solve`], with the conflicting assumptions when there is no
    /// model. With `core`, they are those the search backend found in the
    /// conflict; without, unit propagation answers first where it can
    /// ([`propagated`]), and its conflict names every assumption.
    fn search(&mut self, sat: &Solver, lits: &[Lit], core: bool) -> Search {
        let mut taken = self.take_in(sat, lits);
        let map = |near: &Near, l: Lit| l.with_var(near.sub_var[l.var_index() as usize]);
        let localised = |near: &Near, taken: &[u32]| {
            let mut local = Clauses::default();
            let mut buf = Vec::new();
            for &c in taken {
                buf.clear();
                buf.extend(clause(sat, c as usize).iter().map(|&l| map(near, l)));
                local.push(&buf);
            }
            local
        };
        let assumptions: Vec<Lit> = lits.iter().map(|&l| map(self, l)).collect();
        let answer = if core {
            None
        } else {
            // Propagation does not depend on the order of the clauses.
            propagated(&localised(self, &taken), self.order.len(), &assumptions)
        };
        // The backend's conflicts do: the clauses in the part's order.
        if answer.is_none() {
            taken.sort_unstable();
        }
        let local = answer.is_none().then(|| localised(self, &taken));
        self.taken = taken;
        let Some(local) = local else {
            return match answer {
                Some(true) => Search::Model,
                _ => Search::Conflict(lits.to_vec()),
            };
        };
        let mut small = Solver::new();
        for _ in 1..self.order.len() {
            small.new_var();
        }
        for c in 0..local.len() {
            small.add_clause(local.get(c));
        }
        if small.solve(&assumptions) {
            return Search::Model;
        }
        let core = small.unsat_core();
        Search::Conflict(
            lits.iter()
                .zip(&assumptions)
                .filter(|(_, a)| core.binary_search(a).is_ok())
                .map(|(&l, _)| l)
                .collect(),
        )
    }
}

/// Whether `clauses` over `vars` variables (the first the constant true)
/// have a model with `assumptions` true, if unit propagation tells: `false`
/// on a conflict of the assumptions, `true` if setting each variable
/// still open false and propagating meets no conflict (a model); `None`
/// if it does not tell.
fn propagated(clauses: &Clauses, vars: usize, assumptions: &[Lit]) -> Option<bool> {
    let mut value = vec![0i8; vars];
    value[0] = 1;
    for &a in assumptions {
        let v = &mut value[a.var_index() as usize];
        let wanted = if a.is_negated() { -1 } else { 1 };
        if *v == -wanted {
            return Some(false);
        }
        *v = wanted;
    }
    let Some(mut facts) = Implications::new(clauses, value) else {
        return Some(false);
    };
    // A dive: each open variable false, propagated; without a conflict,
    // the values are a model.
    for v in 1..vars as u32 {
        let l = Lit::from_var(v);
        if facts.value(l).is_none() && !facts.assume(!l) {
            return None;
        }
    }
    Some(true)
}

/// Clause `c` of `sat`.
fn clause(sat: &Solver, c: usize) -> &[Lit] {
    sat.clauses.get(c)
}

#[cfg(test)]
mod tests {
    use crate::testutil::exercised;
    use crate::{Lit, Solver};

    /// Eight variables followed by six random gates over them and the gates
    /// before (`and` with a negated input, `or`, `xor`).
    fn random_gates(s: &mut Solver, rand: &mut impl FnMut(u64) -> u64) -> Vec<Lit> {
        let mut pool: Vec<Lit> = (0..8).map(|_| s.new_var()).collect();
        for _ in 0..6 {
            let a = pool[rand(pool.len() as u64) as usize];
            let b = pool[rand(pool.len() as u64) as usize];
            let g = match rand(3) {
                0 => s.and(&[a, !b]),
                1 => s.or(&[a, b]),
                _ => s.xor(&[a, b]),
            };
            pool.push(g);
        }
        pool
    }

    /// `solve_switched` answers as `solve` with the switches not assumed
    /// assumed false, on random guarded problems over gates, with the
    /// gate definitions recorded (every other problem) or not.
    #[test]
    fn switched_answers_match_full_solving() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            let mut s = Solver::new();
            if round % 2 == 0 {
                s.record_gates();
            }
            let pool = random_gates(&mut s, &mut rand);
            // One unguarded clause, several guarded ones.
            let x = pool[rand(pool.len() as u64) as usize];
            let y = pool[rand(pool.len() as u64) as usize];
            s.add_clause(&[x, !y]);
            let mut guards = Vec::new();
            for _ in 0..6 {
                let g = s.new_var();
                let a = pool[rand(pool.len() as u64) as usize];
                let b = pool[rand(pool.len() as u64) as usize];
                let a = if rand(2) == 0 { a } else { !a };
                s.add_clause(&[!g, a, b]);
                guards.push(g);
            }
            let mut copy = Solver::new();
            for _ in 1..s.num_vars() {
                copy.new_var();
            }
            for c in s.clauses() {
                copy.add_clause(c);
            }
            let mut split = s.split();
            if !split.satisfiable() {
                continue;
            }
            split.declare_switches(&guards);
            for _ in 0..8 {
                let mut on = Vec::new();
                let mut full = Vec::new();
                for &g in &guards {
                    if rand(2) == 0 {
                        on.push(g);
                        full.push(g);
                    } else {
                        full.push(!g);
                    }
                }
                let extra = pool[rand(pool.len() as u64) as usize];
                let extra = if rand(2) == 0 { extra } else { !extra };
                on.push(extra);
                full.push(extra);
                assert_eq!(split.solve_switched(&on), copy.solve(&full));
            }
        }
    }

    /// `minimal_switched_core` gives a set of allowed switches with which
    /// the goal has no model and from which no switch can be dropped, and
    /// finds one whenever the goal has no model with every allowed switch on.
    #[test]
    fn switched_cores_are_minimal_and_found() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut found = 0;
        for round in 0..300 {
            let mut s = Solver::new();
            // As `analyze --why` does in every other round: the core grows
            // along gate definitions, or along the clauses always on.
            if round % 2 == 0 {
                s.record_gates();
            }
            let pool = random_gates(&mut s, &mut rand);
            let mut guards = Vec::new();
            for _ in 0..(4 + rand(8)) {
                let g = s.new_var();
                let a = pool[rand(pool.len() as u64) as usize];
                let b = pool[rand(pool.len() as u64) as usize];
                let a = if rand(2) == 0 { a } else { !a };
                let b = if rand(2) == 0 { b } else { !b };
                if rand(3) == 0 {
                    s.add_clause(&[!g, a]);
                } else {
                    s.add_clause(&[!g, a, b]);
                }
                guards.push(g);
            }
            let mut copy = Solver::new();
            for _ in 1..s.num_vars() {
                copy.new_var();
            }
            for c in s.clauses() {
                copy.add_clause(c);
            }
            let mut split = s.split();
            if !split.satisfiable() {
                continue;
            }
            split.declare_switches(&guards);
            let allowed: Vec<Lit> = guards.iter().copied().filter(|_| rand(4) != 0).collect();
            if !copy.solve(&allowed) {
                // Only the goal's part is searched: the switches must
                // agree among themselves (as the parts of a model that has
                // valid configurations do).
                continue;
            }
            let goal = pool[rand(pool.len() as u64) as usize];
            let goal = if rand(2) == 0 { goal } else { !goal };
            let mut all = vec![goal];
            all.extend_from_slice(&allowed);
            let possible = copy.solve(&all);
            let telling = |l: Lit| l.var_index().is_multiple_of(2);
            let core = split.minimal_switched_core(goal, &|l| allowed.contains(&l), &telling);
            let Some(core) = core else {
                assert!(possible, "round {round}: a core exists but none was found");
                continue;
            };
            assert!(!possible, "round {round}");
            found += 1;
            assert!(core.iter().all(|l| allowed.contains(l)), "round {round}");
            let mut with_goal = vec![goal];
            with_goal.extend_from_slice(&core);
            assert!(!copy.solve(&with_goal), "round {round}: not a core");
            for i in 0..core.len() {
                let mut less = with_goal.clone();
                less.remove(i + 1);
                assert!(copy.solve(&less), "round {round}: not minimal");
            }
        }
        exercised!(found > 30, "too few cores: {found}");
    }
}
