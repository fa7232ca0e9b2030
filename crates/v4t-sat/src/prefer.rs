//! Deterministic tie-breaking: the lexicographically best model.
//!
//! After optimisation many models may remain; which one the CDCL search finds
//! depends on its internal heuristics. `prefer` walks caller-given preferences
//! (first "the earliest literal of each list true", then "each literal of an
//! order false") and keeps each one whenever that is still possible, so the
//! chosen model depends only on the clauses and the preferences.

use crate::propagate::{Propagator, Store};
use crate::{Lit, Solver};

impl Solver {
    /// Makes the current model the lexicographically smallest model of the current
    /// clauses with respect to `order` (`false < true`, earlier literals first).
    ///
    /// The choices are not permanent: only the stored model changes. Does nothing
    /// if the clauses are unsatisfiable (the stored model is then cleared).
    pub fn prefer_false(&mut self, order: &[Lit]) {
        self.prefer(&[], order);
    }

    /// Makes the current model the best one under a lexicographic preference:
    /// first, for each list of `firsts` in turn, its earliest literal that can
    /// still be true is true (its later literals are left to `order`); then,
    /// as [`Solver::prefer_false`], each literal of `order` is false where
    /// that is still possible.
    ///
    /// Not permanent, like [`Solver::prefer_false`].
    pub fn prefer(&mut self, firsts: &[&[Lit]], order: &[Lit]) {
        let Some(mut choices) = self.start_choices() else {
            return;
        };
        for list in firsts {
            self.choose_first(&mut choices, list);
        }
        for &lit in order {
            self.choose(&mut choices, !lit);
        }
    }

    /// [`Solver::prefer_false`] among the models in which all of `base` are
    /// true; `false` if there is none (the stored model is then cleared if
    /// `base` is empty, else kept).
    pub fn prefer_false_assuming(&mut self, base: &[Lit], order: &[Lit]) -> bool {
        let found = if base.is_empty() {
            self.ensure_model()
        } else {
            self.solve_raw(base)
        };
        if !found {
            return false;
        }
        self.propagate_units();
        let mut choices = base.to_vec();
        for &lit in order {
            self.choose(&mut choices, !lit);
        }
        true
    }

    /// [`Solver::prefer_false_assuming`] for a caller that reads only the
    /// literals of `order` from the model: where `order` has few free
    /// variables, every assignment of them is tried in order by unit
    /// propagation (no solve at all); otherwise the choices are followed by
    /// unit propagation over the stored clauses, so that the literals of
    /// `order` they decide need no solve (each solve propagates every
    /// choice again: on a large problem, most of the time). The stored
    /// model then agrees with the smallest one on `order`, not necessarily
    /// on other variables.
    pub fn prefer_false_assuming_on_order(&mut self, base: &[Lit], order: &[Lit]) -> bool {
        if self.prefer_false_few(base, order).is_some() {
            return true;
        }
        let found = if base.is_empty() {
            self.ensure_model()
        } else {
            self.solve_raw(base)
        };
        if !found {
            return false;
        }
        let Some(facts) = self.level0() else {
            return false;
        };
        // The choices below may solve while the store is lent out: the
        // backend must exist by then (a kept model needs no solve above,
        // and a part's solver drops its backend between questions).
        self.backend();
        self.lending_store(|s, store| {
            // No conflict: the stored model has the facts and every
            // literal assumed below.
            let mut p = Propagator::new(store, &facts).repairing(s.model.clone());
            if p.conflicts() || !base.iter().all(|&b| p.assume(b)) {
                return;
            }
            let mut flips = LocalSearch {
                store,
                cursor: (usize::MAX, 0),
                budget: 4 * p.occurrences_total() + 1024,
            };
            let mut choices = base.to_vec();
            for &lit in order {
                if p.known(lit).is_none() {
                    let made = s.choose_propagating(&mut p, &mut flips, &mut choices, !lit);
                    p.assume(if made { !lit } else { lit });
                }
            }
        });
        true
    }

    /// [`Solver::choose`] with the choices also assumed in `p`, which
    /// compares them with a model ([`Propagator::repairing`]): where taking
    /// `lit` conflicts, or gives facts that with that model's values
    /// elsewhere are a model, or that after one flip of the model's values
    /// found by `flips` are, no solve is needed. The stored model then
    /// takes the facts (and the flip), and after a solve `p` compares with
    /// its model.
    fn choose_propagating(
        &mut self,
        p: &mut Propagator,
        flips: &mut LocalSearch<'_>,
        choices: &mut Vec<Lit>,
        lit: Lit,
    ) -> bool {
        if self.value(lit) {
            choices.push(lit);
            return true;
        }
        let mark = p.mark();
        if !p.assume(lit) {
            p.undo(mark);
            choices.push(!lit);
            return false;
        }
        let flipped = if p.repairs() {
            Some(Vec::new())
        } else {
            flips.flip(p)
        };
        if let Some(flipped) = flipped {
            // The facts stay: the caller's assumption of `lit` finds it known.
            for &fact in p.facts_since(mark).iter().chain(&flipped) {
                if let Some(value) = self.model.get_mut(fact.var_index() as usize) {
                    *value = !fact.is_negated();
                }
            }
            choices.push(lit);
            return true;
        }
        p.undo(mark);
        let made = self.choose(choices, lit);
        if made {
            p.rebase(&self.model);
        }
        made
    }

    /// The (empty) choices of a preference search, once there is a model.
    pub(crate) fn start_choices(&mut self) -> Option<Vec<Lit>> {
        if !self.ensure_model() {
            return None;
        }
        self.propagate_units();
        Some(Vec::new())
    }

    /// Makes the earliest literal of `list` true that can be, given `choices`.
    pub(crate) fn choose_first(&mut self, choices: &mut Vec<Lit>, list: &[Lit]) {
        for &lit in list {
            if self.choose(choices, lit) {
                return;
            }
        }
    }

    /// Makes `lit` true if that is possible given `choices`, records the
    /// outcome in `choices` and returns it. The stored model always
    /// satisfies `choices`.
    pub(crate) fn choose(&mut self, choices: &mut Vec<Lit>, lit: Lit) -> bool {
        if let Some(fixed) = self.fixed(lit) {
            return fixed;
        }
        choices.push(lit);
        // The current model already satisfies the choices plus `lit`.
        if self.value(lit) {
            return true;
        }
        #[cfg(test)]
        tests::SOLVES.with(|n| n.set(n.get() + 1));
        if self.solve_raw(choices) {
            return true;
        }
        choices.pop();
        choices.push(!lit);
        false
    }
}

/// The flips a preference search tries before a solve
/// ([`Propagator::flip_to_repair`]), within a budget of clause occurrences
/// visited, so that they cost at most a few passes over the clauses.
struct LocalSearch<'s> {
    store: Store<'s>,
    /// Where the last flip succeeded: a search along an order tends to
    /// move the same clause's true literal one step on.
    cursor: (usize, usize),
    budget: u64,
}

impl LocalSearch<'_> {
    /// Literals of the broken clause tried per choice.
    const TRIES: usize = 8;

    fn flip(&mut self, p: &mut Propagator) -> Option<Vec<Lit>> {
        if self.budget == 0 {
            return None;
        }
        let before = p.visited();
        let flipped = p.flip_to_repair(self.store, &mut self.cursor, Self::TRIES);
        self.budget = self.budget.saturating_sub(p.visited() - before + 1);
        flipped
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{eval_lit, models, random_cnf, random_instance, Rng};
    use crate::{Lit, Solver};
    use std::cell::Cell;

    thread_local! {
        /// Solves of a choice ([`Solver::choose`]) on this thread.
        pub(super) static SOLVES: Cell<usize> = const { Cell::new(0) };
    }

    /// Two solvers of `n` variables numbered alike, and the variables.
    fn numbered_alike(n: usize) -> (Solver, Solver, Vec<Lit>) {
        let mut first = Solver::new();
        let mut second = Solver::new();
        let vars: Vec<Lit> = (0..n).map(|_| first.new_var()).collect();
        (0..n).for_each(|_| {
            second.new_var();
        });
        (first, second, vars)
    }

    /// "Some constraint fails" over constraints `!x_i or x_j`, each behind
    /// a gate as the encoder writes them: the clauses, the gates and the
    /// guard that, assumed, asks for a failing one.
    fn some_failing(s: &mut Solver, xs: &[Lit], pairs: &[(usize, usize)]) -> Lit {
        let guard = s.new_var();
        let mut any = vec![!guard];
        for &(i, j) in pairs {
            let c = s.new_var();
            s.add_clause(&[c, xs[i]]);
            s.add_clause(&[c, !xs[j]]);
            s.add_clause(&[!c, !xs[i], xs[j]]);
            any.push(!c);
        }
        s.add_clause(&any);
        guard
    }

    /// The smallest configuration a ring of implications rules out moves
    /// the one failing constraint a step on with each choice: one flip of
    /// the model finds each step, where a solve per choice made `analyze`'s
    /// search quadratic.
    #[test]
    fn a_ring_is_searched_by_flips() {
        let n = 300;
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        let ring: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let guard = some_failing(&mut s, &xs, &ring);
        // The order starts half way round, and the first model fails only
        // the constraint there, so that the search has every step to take.
        let order: Vec<Lit> = (0..n).map(|i| xs[(i + n / 2) % n]).collect();
        let mut first: Vec<Lit> = (0..n)
            .map(|i| if i == n / 2 { xs[i] } else { !xs[i] })
            .collect();
        first.push(guard);
        assert!(s.solve(&first));
        SOLVES.with(|c| c.set(0));
        assert!(s.prefer_false_assuming_on_order(&[guard], &order));
        let got: Vec<bool> = xs.iter().map(|&x| s.value(x)).collect();
        let mut want = vec![false; n];
        want[n / 2 - 1] = true;
        assert_eq!(got, want);
        let solves = SOLVES.with(Cell::get);
        assert_eq!(solves, 0, "{solves} solves");
    }

    /// Random implications behind gates and "some constraint fails": the
    /// flips give the minimum a solve per choice gives.
    #[test]
    fn flipped_choices_match_solved_ones() {
        let mut rng = Rng::new(77);
        let mut saved = 0;
        for round in 0..300 {
            let n = 16 + rng.below(40) as usize;
            let pairs: Vec<(usize, usize)> = (0..rng.below(2 * n as u64) + 1)
                .map(|_| (rng.below(n as u64) as usize, rng.below(n as u64) as usize))
                .collect();
            let (mut fast, mut exact, xs) = numbered_alike(n);
            let guard = some_failing(&mut fast, &xs, &pairs);
            some_failing(&mut exact, &xs, &pairs);
            SOLVES.with(|c| c.set(0));
            let found = fast.prefer_false_assuming_on_order(&[guard], &xs);
            let solves = SOLVES.with(Cell::get);
            assert_eq!(found, exact.prefer_false_assuming(&[guard], &xs));
            if !found {
                continue;
            }
            let got: Vec<bool> = xs.iter().map(|&x| fast.value(x)).collect();
            let want: Vec<bool> = xs.iter().map(|&x| exact.value(x)).collect();
            assert_eq!(got, want, "round {round}: {pairs:?}");
            saved += usize::from(solves < SOLVES.with(Cell::get) - solves);
        }
        assert!(saved > 50, "fewer solves in only {saved} rounds");
    }

    #[test]
    fn prefer_false_gives_lexicographic_minimum() {
        let mut rng = Rng::new(99);
        for round in 0..200 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 12, (3, 1));
            let n = vars.len();
            // A random order of random-polarity literals, possibly with repeats.
            let order: Vec<Lit> = (0..n + 2)
                .map(|_| {
                    let v = vars[rng.below(n as u64) as usize];
                    if rng.below(3) == 0 {
                        !v
                    } else {
                        v
                    }
                })
                .collect();
            let ms = models(&vars, &cnf);
            if round % 2 == 0 {
                // Also works without a prior solve.
                assert_eq!(s.solve(&[]), !ms.is_empty());
            }
            s.prefer_false(&order);
            if ms.is_empty() {
                assert!(!s.has_model());
                continue;
            }
            let key = |m: &Vec<bool>| -> Vec<bool> {
                order.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            let best = ms.iter().map(key).min().unwrap();
            let got: Vec<bool> = order.iter().map(|&l| s.value(l)).collect();
            assert_eq!(got, best, "round {round}");
            let model: Vec<bool> = vars.iter().map(|&v| s.value(v)).collect();
            assert!(ms.contains(&model));
        }
    }

    /// On problems with more free variables than the walk over few of them
    /// takes, the choices made by propagation and repaired models give the
    /// minimum that a solve per choice gives, and the stored model is a
    /// model of the clauses with the base.
    #[test]
    fn propagated_choices_on_many_variables_match_solved_ones() {
        let mut rng = Rng::new(321);
        let mut found_some = 0;
        for round in 0..1500 {
            let n = 14 + rng.below(30) as usize;
            // The same problem twice.
            let (mut s, mut exact, vars) = numbered_alike(n);
            let k = rng.below(2 * n as u64) as usize;
            let cnf = random_cnf(&mut rng, &vars, k);
            cnf.iter().for_each(|c| s.add_clause(c));
            cnf.iter().for_each(|c| exact.add_clause(c));
            let (order, base) = order_and_base(&mut rng, &vars);
            let found = s.prefer_false_assuming_on_order(&base, &order);
            assert_eq!(
                found,
                exact.prefer_false_assuming(&base, &order),
                "round {round}"
            );
            if !found {
                continue;
            }
            found_some += 1;
            let got: Vec<bool> = order.iter().map(|&l| s.value(l)).collect();
            let want: Vec<bool> = order.iter().map(|&l| exact.value(l)).collect();
            assert_eq!(got, want, "round {round}");
            let model: Vec<bool> = vars.iter().map(|&v| s.value(v)).collect();
            let holds = |l: Lit| eval_lit(l, &vars, &model);
            assert!(
                cnf.iter().all(|c| c.iter().any(|&l| holds(l))),
                "round {round}"
            );
            assert!(base.iter().all(|&b| holds(b)), "round {round}");
        }
        assert!(found_some > 500, "{found_some} satisfiable");
    }

    /// A random order of `vars`' literals (a third negated, some repeated)
    /// and up to two assumptions.
    fn order_and_base(rng: &mut Rng, vars: &[Lit]) -> (Vec<Lit>, Vec<Lit>) {
        let n = vars.len();
        let pick = |rng: &mut Rng| {
            let v = vars[rng.below(n as u64) as usize];
            if rng.below(3) == 0 {
                !v
            } else {
                v
            }
        };
        let order: Vec<Lit> = (0..n + 2).map(|_| pick(rng)).collect();
        let base: Vec<Lit> = (0..rng.below(3)).map(|_| pick(rng)).collect();
        (order, base)
    }

    /// Following the choices by propagation gives the same smallest
    /// values on the order, under random assumptions (brute force).
    #[test]
    fn propagated_choices_give_the_same_minimum_on_the_order() {
        let mut rng = Rng::new(123);
        for round in 0..300 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 12, (2, 1));
            let (order, base) = order_and_base(&mut rng, &vars);
            let ms: Vec<Vec<bool>> = models(&vars, &cnf)
                .into_iter()
                .filter(|m| base.iter().all(|&b| eval_lit(b, &vars, m)))
                .collect();
            let found = s.prefer_false_assuming_on_order(&base, &order);
            assert_eq!(found, !ms.is_empty(), "round {round}");
            if !found {
                continue;
            }
            let key = |m: &Vec<bool>| -> Vec<bool> {
                order.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            let best = ms.iter().map(key).min().unwrap();
            let got: Vec<bool> = order.iter().map(|&l| s.value(l)).collect();
            assert_eq!(got, best, "round {round}");
        }
    }

    /// A solver that keeps a model but dropped its backend (a part between
    /// questions): the choices that need a solve rebuild the backend from
    /// the whole store. `x` is false in every model (`x` implies `y` and
    /// not `y`), which the kept model does not show.
    #[test]
    fn prefer_false_on_order_after_the_backend_was_dropped() {
        let mut s = Solver::new();
        let [w, x, y] = [s.new_var(), s.new_var(), s.new_var()];
        s.add_clause(&[!x, y]);
        s.add_clause(&[!x, !y]);
        s.add_clause(&[!w, y]);
        s.add_clause(&[!w, !y]);
        s.count(&[], &[!x], &crate::CountBudget::default());
        s.release_backend();
        assert!(s.prefer_false_assuming_on_order(&[], &[!x]));
        assert!(s.value(!x));
    }

    #[test]
    fn prefer_false_respects_optimum_constraints() {
        let mut s = Solver::new();
        let xs: Vec<Lit> = (0..5).map(|_| s.new_var()).collect();
        let one = s.exactly_one(&xs[..3]);
        s.require(one);
        s.add_clause(&[xs[3], xs[4]]);
        assert!(s.solve(&[]));
        assert_eq!(s.maximize(&[(xs[3], 1), (xs[4], 1)]), Some(2));
        s.prefer_false(&xs);
        let got: Vec<bool> = xs.iter().map(|&x| s.value(x)).collect();
        assert_eq!(got, vec![false, false, true, true, true]);
        s.prefer_false(&[xs[2], xs[1]]);
        let got: Vec<bool> = xs.iter().map(|&x| s.value(x)).collect();
        assert_eq!(got, vec![true, false, false, true, true]);
        // Not permanent.
        assert!(s.solve(&[xs[1]]));
    }

    /// `prefer` gives the lexicographically smallest key: per list the
    /// position of its first true literal (none = after the last), then
    /// the literals of the order (`false < true`).
    #[test]
    fn prefer_picks_the_earliest_true_literal_of_each_list_first() {
        let mut rng = Rng::new(7);
        for round in 0..300 {
            let (mut s, vars, cnf) = random_instance(&mut rng, 10, (3, 1));
            let n = vars.len();
            let lit = |rng: &mut Rng| {
                let v = vars[rng.below(n as u64) as usize];
                if rng.below(3) == 0 {
                    !v
                } else {
                    v
                }
            };
            let lists: Vec<Vec<Lit>> = (0..rng.below(4))
                .map(|_| (0..1 + rng.below(3)).map(|_| lit(&mut rng)).collect())
                .collect();
            let firsts: Vec<&[Lit]> = lists.iter().map(Vec::as_slice).collect();
            let order: Vec<Lit> = (0..n).map(|_| lit(&mut rng)).collect();
            s.prefer(&firsts, &order);
            let ms = models(&vars, &cnf);
            if ms.is_empty() {
                assert!(!s.has_model());
                continue;
            }
            let key = |value: &dyn Fn(Lit) -> bool| -> (Vec<usize>, Vec<bool>) {
                let firsts = lists
                    .iter()
                    .map(|l| l.iter().position(|&x| value(x)).unwrap_or(l.len()))
                    .collect();
                (firsts, order.iter().map(|&x| value(x)).collect())
            };
            let best = ms
                .iter()
                .map(|m| key(&|l| eval_lit(l, &vars, m)))
                .min()
                .unwrap();
            assert_eq!(key(&|l| s.value(l)), best, "round {round}");
            let model: Vec<bool> = vars.iter().map(|&v| s.value(v)).collect();
            assert!(ms.contains(&model));
        }
    }
}
