//! Backbones: which literals every model makes true, or false.
//!
//! For a product-line analysis these are the core (present in every
//! configuration) and dead (absent in every one) elements. Each literal is
//! decided by at most one solve: the current model is a witness for one
//! value of every literal, a solve forcing the other value either fails (the
//! literal is implied) or finds a model that also frees every other literal
//! it flips (model-based filtering). Literals fixed at level 0 need no solve,
//! also those fixed by what an earlier solve learnt.

use crate::propagate::Propagator;
use crate::{Lit, Solver};
#[cfg(test)]
use std::cell::Cell;

/// What every model says about a literal ([`Solver::backbone`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Implied {
    /// True in every model.
    True,
    /// False in every model.
    False,
    /// True in some model and false in another.
    Free,
}

impl Solver {
    /// For each literal of `lits`: true in every model, false in every
    /// model, or free. `None` if the clauses are unsatisfiable.
    ///
    /// The clauses do not change; the current model may change to another
    /// model of them.
    pub fn backbone(&mut self, lits: &[Lit]) -> Option<Vec<Implied>> {
        if self.sat.is_none() {
            // Without a search backend yet: where propagation decides
            // every variable (a template without variability inputs), its
            // facts are the one model, and no backend is built.
            let facts = self.level0()?;
            if self.adopt_propagated(&facts) {
                let implied = |l: Lit| match self.value(l) {
                    true => Implied::True,
                    false => Implied::False,
                };
                return Some(lits.iter().map(|&l| implied(l)).collect());
            }
        }
        if !self.ensure_model() {
            return None;
        }
        self.propagate_units();
        let mut result: Vec<Option<Implied>> = lits
            .iter()
            .map(|&l| match self.fixed(l) {
                Some(true) => Some(Implied::True),
                Some(false) => Some(Implied::False),
                None => None,
            })
            .collect();
        // The value each open literal has in every model found so far.
        let witness: Vec<bool> = lits.iter().map(|&l| self.value(l)).collect();
        self.decide_open(lits, &witness, &mut result, None);
        Some(
            result
                .into_iter()
                .map(|r| r.expect("every literal decided"))
                .collect(),
        )
    }

    /// Decides each open literal of `result` by at most one solve (see the
    /// module documentation), or by propagation where `guess` is given
    /// and decides it. Without `guess`, once [`GUESS_AFTER`] solves have
    /// freed fewer than four literals each on average, the rest are
    /// decided with one ([`Guess`]).
    fn decide_open(
        &mut self,
        lits: &[Lit],
        witness: &[bool],
        result: &mut [Option<Implied>],
        mut guess: Option<&mut Guess>,
    ) {
        let implied = |b: bool| Some(if b { Implied::True } else { Implied::False });
        let (mut solves, mut freed) = (0, 0);
        for i in 0..lits.len() {
            if result[i].is_some() {
                continue;
            }
            let guess_now = solves >= GUESS_AFTER && freed < 4 * solves;
            #[cfg(test)]
            let guess_now = guess_now || tests::GUESS_AT_ONCE.with(Cell::get);
            if guess.is_none() && guess_now {
                if let Some(facts) = self.level0() {
                    // The solves go on while the store is lent out.
                    self.backend();
                    self.lending_store(|s, store| {
                        let p = Propagator::new(store, &facts).repairing(s.model.clone());
                        let mut guess = Guess::new(p, lits);
                        s.decide_open(lits, witness, result, Some(&mut guess));
                    });
                    return;
                }
            }
            // A failed solve often leaves a fact that decides later
            // literals (each solve costs the backend time in the number of
            // variables, however quickly it fails).
            if let Some(b) = self.fixed(lits[i]) {
                result[i] = implied(b);
                continue;
            }
            let other = if witness[i] { !lits[i] } else { lits[i] };
            if let Some(g) = guess.as_deref_mut() {
                match g.try_other(other) {
                    Some(Guessed::Refuted) => {
                        result[i] = implied(witness[i]);
                        continue;
                    }
                    Some(Guessed::Moved(flipped)) => {
                        g.free_flipped(&flipped, lits, witness, result);
                        continue;
                    }
                    None => {}
                }
            }
            solves += 1;
            #[cfg(test)]
            tests::SOLVES.with(|n| n.set(n.get() + 1));
            if self.solve_raw(&[other]) {
                for (j, r) in result.iter_mut().enumerate() {
                    if r.is_none() && self.value(lits[j]) != witness[j] {
                        *r = Some(Implied::Free);
                        freed += 1;
                    }
                }
                if let Some(g) = guess.as_deref_mut() {
                    g.p.rebase(&self.model);
                }
            } else {
                result[i] = implied(witness[i]);
            }
        }
    }
}

/// Solves after which [`Solver::backbone`] asks propagation first if
/// they freed fewer than four literals each: where models differ in many
/// literals (family 2's free seven to sixteen each), solves decide them
/// faster than propagation, one at a time.
const GUESS_AFTER: usize = 16;

/// Deciding a literal by propagation over the last model instead of a
/// solve. Where every model fixes many variables at once (one value of an
/// input of many values fixes all the others), each solve costs the whole
/// problem and frees one literal (the new value's element); assuming the
/// literal's other value on top of the level-0 facts costs its
/// consequences, and either conflicts (the literal is implied) or gives
/// facts that with the model's values elsewhere are a model (the literals
/// they flip are free). Where neither happens, the literal is solved as
/// before; once such misses outnumber the literals decided twice over
/// (plus [`Guess::SLACK`]), propagation is not tried any more, so it costs
/// little where it does not help.
struct Guess {
    p: Propagator,
    /// The literals' positions by variable: the first, then the next.
    first: Vec<u32>,
    next: Vec<u32>,
    tried: usize,
    decided: usize,
}

/// What [`Guess::try_other`] found.
enum Guessed {
    /// The literal's other value conflicts: the literal is implied.
    Refuted,
    /// A model with the other value: the facts it changed in the last one.
    Moved(Vec<Lit>),
}

impl Guess {
    /// Misses allowed beyond twice the literals decided.
    const SLACK: usize = 4;

    fn new(p: Propagator, lits: &[Lit]) -> Guess {
        let mut first = vec![u32::MAX; p.vars()];
        let mut next = vec![u32::MAX; lits.len()];
        for (i, l) in lits.iter().enumerate().rev() {
            if let Some(head) = first.get_mut(l.var_index() as usize) {
                next[i] = *head;
                *head = i as u32;
            }
        }
        Guess {
            p,
            first,
            next,
            tried: 0,
            decided: 0,
        }
    }

    /// Assumes `other` on top of the level-0 facts; `None` if that decides
    /// nothing, or once propagation has missed too often.
    fn try_other(&mut self, other: Lit) -> Option<Guessed> {
        if self.tried - self.decided > 2 * self.decided + Self::SLACK {
            return None;
        }
        self.tried += 1;
        let mark = self.p.mark();
        let found = if !self.p.assume(other) {
            self.p.undo(mark);
            Guessed::Refuted
        } else if self.p.repairs() {
            Guessed::Moved(self.p.adopt_since(mark))
        } else {
            self.p.undo(mark);
            return None;
        };
        self.decided += 1;
        Some(found)
    }

    /// Frees the open literals whose value `flipped` makes differ from the
    /// witness (the other literals' values are the last model's, whose
    /// differences were freed when it was found).
    fn free_flipped(
        &self,
        flipped: &[Lit],
        lits: &[Lit],
        witness: &[bool],
        result: &mut [Option<Implied>],
    ) {
        for &fact in flipped {
            let mut j = self.first.get(fact.var_index() as usize).copied();
            while let Some(at) = j.filter(|&at| at != u32::MAX) {
                let at = at as usize;
                if result[at].is_none() && (lits[at] == fact) != witness[at] {
                    result[at] = Some(Implied::Free);
                }
                j = Some(self.next[at]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Implied;
    use crate::testutil::{eval_lit, fixing, models, random_instance, random_lit, Rng};
    use crate::{Lit, Solver};
    use std::cell::Cell;

    thread_local! {
        /// Solves of a literal ([`Solver::decide_open`]) on this thread.
        pub(super) static SOLVES: Cell<usize> = const { Cell::new(0) };
        /// Propagation is asked first from the start, not after solves
        /// that freed few literals.
        pub(super) static GUESS_AT_ONCE: Cell<bool> = const { Cell::new(false) };
    }

    fn brute_force(vars: &[Lit], ms: &[Vec<bool>], lits: &[Lit]) -> Vec<Implied> {
        lits.iter()
            .map(|&l| {
                let values: Vec<bool> = ms.iter().map(|m| eval_lit(l, vars, m)).collect();
                if values.iter().all(|&v| v) {
                    Implied::True
                } else if values.iter().all(|&v| !v) {
                    Implied::False
                } else {
                    Implied::Free
                }
            })
            .collect()
    }

    /// Random CNFs up to 16 variables, asked about random literals (both
    /// polarities, repeats), directly and through a split.
    #[test]
    fn backbones_match_brute_force() {
        match_brute_force(4242);
    }

    /// The same with propagation asked first for every literal.
    #[test]
    fn guessed_backbones_match_brute_force() {
        GUESS_AT_ONCE.with(|g| g.set(true));
        match_brute_force(4243);
        GUESS_AT_ONCE.with(|g| g.set(false));
    }

    /// One input of many values: each solve frees the one value it is
    /// asked about, so after a few solves propagation decides the rest.
    #[test]
    fn one_value_of_many_needs_few_solves() {
        let n = 400;
        let mut s = Solver::new();
        let values: Vec<Lit> = (0..=n).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&values);
        s.require(one);
        let mut lits = values[..n].to_vec();
        let required = s.new_var();
        s.require(required);
        lits.push(required);
        SOLVES.with(|c| c.set(0));
        let got = s.backbone(&lits).expect("satisfiable");
        let solves = SOLVES.with(Cell::get);
        let mut want = vec![Implied::Free; n];
        want.push(Implied::True);
        assert_eq!(got, want);
        assert!(solves < 40, "{solves} solves");
    }

    fn match_brute_force(seed: u64) {
        let mut rng = Rng::new(seed);
        for round in 0..400 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 16, (3, 2));
            let n = vars.len();
            let lits: Vec<Lit> = (0..rng.below(2 * n as u64 + 1))
                .map(|_| random_lit(&mut rng, &vars))
                .collect();
            let ms = models(&vars, &cnf);
            let mut split = Solver::new();
            for _ in 0..n {
                split.new_var();
            }
            for c in &cnf {
                split.add_clause(c);
            }
            let mut split = split.split();
            if ms.is_empty() {
                assert_eq!(s.backbone(&lits), None, "round {round}");
                assert_eq!(split.backbone(&lits), None, "round {round}");
                continue;
            }
            let want = brute_force(&vars, &ms, &lits);
            assert_eq!(s.backbone(&lits).as_ref(), Some(&want), "round {round}");
            assert_eq!(split.backbone(&lits).as_ref(), Some(&want), "round {round}");
            // The clauses are unchanged: every model is still a model.
            let m = &ms[rng.below(ms.len() as u64) as usize];
            let assume = fixing(&vars, m);
            assert!(s.solve(&assume), "round {round}");
        }
    }

    #[test]
    fn propagated_problems_need_no_search_backend() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_var(), s.new_var(), s.new_var());
        s.require(a);
        s.add_clause(&[!a, !b]);
        s.add_clause(&[b, c]);
        use Implied::*;
        assert_eq!(
            s.backbone(&[a, b, c, !c]),
            Some(vec![True, False, True, False])
        );
        assert_eq!(
            s.count(&[], &[a, b, c], &Default::default()).value,
            1u64.into()
        );
        assert!(s.sat.is_none(), "no backend was built");
        // One open variable: the backend decides.
        let d = s.new_var();
        assert_eq!(s.backbone(&[d]), Some(vec![Free]));
    }

    #[test]
    fn fixed_and_constant_literals() {
        let mut s = Solver::new();
        let (a, b, c) = (s.new_var(), s.new_var(), s.new_var());
        s.require(a);
        s.add_clause(&[!a, b]);
        let t = s.truth();
        let got = s.backbone(&[a, !b, c, t, !t]).expect("satisfiable");
        use Implied::*;
        assert_eq!(got, vec![True, False, Free, True, False]);
        s.require(!b);
        assert_eq!(s.backbone(&[c]), None);
    }
}
