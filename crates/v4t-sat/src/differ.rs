//! Whether some literals are determined by others (Padoa's method).
//!
//! Outputs are *determined* by some inputs when every two models that agree
//! on the inputs agree on the outputs too. Two copies of the clauses, an
//! "equal" literal per input variable (its two copies have the same value)
//! and a disjunction "some output differs" decide it with one solve:
//! assuming every input equal asks whether the outputs are determined,
//! leaving some inputs free asks whether changing only those can change
//! the outputs. The copies are built once ([`Solver::differ`]) for any
//! number of such questions. For v4t: whether the inputs decide every
//! element's presence, and whether one input can change the topology while
//! the others stay fixed.
//!
//! Asked of a whole problem, the question per input is one search each over
//! both copies, quadratic in a template of many independent components;
//! [`Split::can_differ_each`] asks each part about the inputs in it.

use crate::equivalent::Equivalences;
use crate::flips::{changes_by_propagation, changes_by_repair, Flips};
use crate::propagate::Propagator;
use crate::split::{by_part, Place};
use crate::{Lit, Solver, Split};

/// Two copies of a problem for [`Differ::can_differ`] ([`Solver::differ`]).
#[derive(Debug)]
pub struct Differ {
    twice: Solver,
    /// Per input variable (of the original problem): "its copies are equal".
    equal: Vec<(u32, Lit)>,
    /// Some output differs between the copies.
    some_output: Lit,
}

impl Solver {
    /// The two copies of this problem for questions about `inputs` and
    /// `outputs` (signs are ignored; literals must come from this solver).
    /// This solver is unchanged.
    pub fn differ(&self, inputs: &[Lit], outputs: &[Lit]) -> Differ {
        self.differ_sharing(&[], inputs, outputs)
    }

    /// [`Solver::differ`] with the variables of `same` one variable in
    /// both copies (not two equal ones), so that an assumption on one holds
    /// in both: e.g. a guard that switches a part of the problem on in
    /// both copies ([`Differ::minimal_core`]).
    pub fn differ_sharing(&self, same: &[Lit], inputs: &[Lit], outputs: &[Lit]) -> Differ {
        let n = self.num_vars();
        let mut twice = Solver::new();
        for _ in 1..n {
            twice.new_var();
        }
        let mut shared = vec![false; n as usize];
        for l in same.iter().filter(|l| l.var_index() < n) {
            shared[l.var_index() as usize] = true;
        }
        // The second copy of each variable (the constant is shared).
        let mut copy: Vec<u32> = vec![0];
        for v in 1..n {
            copy.push(if shared[v as usize] {
                v
            } else {
                twice.new_var().var_index()
            });
        }
        let second = |l: Lit| l.with_var(copy[l.var_index() as usize]);
        let mut clause = Vec::new();
        for original in self.clauses.iter() {
            twice.add_clause(original);
            clause.clear();
            clause.extend(original.iter().map(|&l| second(l)));
            twice.add_clause(&clause);
        }
        let mut equal: Vec<(u32, Lit)> = Vec::new();
        let mut paired = vec![false; n as usize];
        for l in inputs.iter().filter(|l| l.var_index() < n) {
            let v = l.var_index();
            if !std::mem::replace(&mut paired[v as usize], true) {
                let a = Lit::from_var(v);
                let e = twice.iff(a, second(a));
                equal.push((v, e));
            }
        }
        let differences: Vec<Lit> = outputs
            .iter()
            .filter(|l| l.var_index() < n)
            .map(|&l| twice.xor(&[l, second(l)]))
            .collect();
        let some_output = twice.or(&differences);
        Differ {
            twice,
            equal,
            some_output,
        }
    }

    /// Whether two models exist that agree on the variables of `shared`
    /// and differ on at least one literal of `outputs`
    /// (`self.differ(shared, outputs).can_differ(&[])`).
    ///
    /// The variables the shared ones define through conjunctions (`defined.rs`)
    /// are equal in such models: they are one variable in both copies, and
    /// outputs among them cannot differ. If every output is one of them,
    /// no copy is built.
    pub fn can_differ(&self, shared: &[Lit], outputs: &[Lit]) -> bool {
        let determined = self.determined_by(shared);
        let open: Vec<Lit> = outputs
            .iter()
            .copied()
            .filter(|l| determined.get(l.var_index() as usize) == Some(&false))
            .collect();
        if open.is_empty() {
            return false;
        }
        let same: Vec<Lit> = (0..self.num_vars())
            .filter(|&v| determined[v as usize])
            .map(Lit::from_var)
            .collect();
        self.differ_sharing(&same, shared, &open).can_differ(&[])
    }
}

impl Differ {
    /// Whether two models exist that agree on every input except those of
    /// `free` and differ on at least one output.
    pub fn can_differ(&mut self, free: &[Lit]) -> bool {
        #[cfg(test)]
        tests::SEARCHES.with(|n| n.set(n.get() + 1));
        let mut assumptions: Vec<Lit> = self
            .equal
            .iter()
            .filter(|&&(v, _)| !free.iter().any(|l| l.var_index() == v))
            .map(|&(_, e)| e)
            .collect();
        assumptions.push(self.some_output);
        self.twice.solve(&assumptions)
    }

    /// A subset-minimal list of `assumptions` (literals of variables the
    /// copies share, [`Solver::differ_sharing`]) under which no two models
    /// agree on every input except those of `free` and differ on an output,
    /// in the order of `assumptions`; `None` if two such models exist under
    /// all of them.
    pub fn minimal_core(mut self, free: &[Lit], assumptions: &[Lit]) -> Option<Vec<Lit>> {
        for &(v, e) in &self.equal {
            if !free.iter().any(|l| l.var_index() == v) {
                self.twice.require(e);
            }
        }
        self.twice.require(self.some_output);
        self.twice.minimal_core(assumptions)
    }
}

/// A literal of one part in [`Split::can_differ_each`].
enum Role {
    Input(Lit),
    Output(Lit),
    /// A literal of the group with this index.
    Free(usize, Lit),
}

impl Split {
    /// For each group of `groups`: whether two models exist that agree on
    /// every variable of `inputs` outside the group and differ on a literal
    /// of `outputs` ([`Differ::can_differ`] with the group free), asked part
    /// by part (signs are ignored).
    ///
    /// Models are combinations of one model per part. So if the inputs of
    /// some part do not determine its outputs, the answer is yes for every
    /// group; otherwise a group's answer comes from the parts it lies in,
    /// each asked with the group's share free. Within a part, changing one
    /// literal of the group in the part's current model (the others of the
    /// part's inputs kept) answers yes cheaply where it changes an output,
    /// first in the part's model, then for the groups left in one with
    /// other outputs; only the groups left then are asked of the part's two
    /// copies, and only if some group is still unchanged then, whether a
    /// part's outputs can differ at all.
    pub fn can_differ_each(
        &mut self,
        inputs: &[Lit],
        outputs: &[Lit],
        groups: &[&[Lit]],
    ) -> Vec<bool> {
        let mut result = vec![false; groups.len()];
        if !self.satisfiable() {
            return result;
        }
        let mut roles = Vec::new();
        let mut place = |lit: Lit, role: fn(Lit) -> Role| {
            if let Place::In(p, l) = self.place(lit) {
                roles.push((p, role(l)));
            }
        };
        inputs.iter().for_each(|&l| place(l, Role::Input));
        outputs.iter().for_each(|&l| place(l, Role::Output));
        for (g, lits) in groups.iter().enumerate() {
            for &lit in lits.iter() {
                if let Place::In(p, l) = self.place(lit) {
                    roles.push((p, Role::Free(g, l)));
                }
            }
        }
        let parts: Vec<(u32, PartRoles)> = (by_part(roles).into_iter())
            .map(|(p, roles)| (p, PartRoles::new(&roles)))
            .filter(|(_, roles)| !roles.outputs.is_empty())
            .collect();
        for (p, roles) in &parts {
            let sat = &mut self.part_mut(*p).sat;
            roles.flip(sat, &mut result);
            if roles.groups.iter().any(|&(g, _)| !result[g]) && roles.other_outputs(sat) {
                // Flips from a model with other outputs find what the
                // first model's could not (a long `and` is changed by
                // every input only where it is true).
                roles.flip(sat, &mut result);
            }
            if roles.groups.iter().any(|&(g, _)| !result[g]) {
                roles.repair(sat, &mut result);
            }
            sat.release_backend();
        }
        if result.iter().all(|&changes| changes) {
            return result;
        }
        // The groups left, asked of each part's two copies. A group that
        // cannot change its part's outputs shows that the part's inputs
        // determine them.
        let mut determined = vec![false; parts.len()];
        for ((p, roles), determined) in parts.iter().zip(&mut determined) {
            if roles.groups.iter().all(|&(g, _)| result[g]) {
                continue;
            }
            let sat = &mut self.part_mut(*p).sat;
            *determined = roles.ask_copies(sat, &mut result);
            sat.release_backend();
        }
        // A group left unchanged is still changed by a part whose inputs
        // do not determine its outputs, if there is one.
        if result.iter().all(|&changes| changes) {
            return result;
        }
        for ((p, roles), _) in parts.iter().zip(&determined).filter(|(_, &d)| !d) {
            let sat = &mut self.part_mut(*p).sat;
            let undetermined = sat.differ(&roles.inputs, &roles.outputs).can_differ(&[]);
            sat.release_backend();
            if undetermined {
                return vec![true; groups.len()];
            }
        }
        result
    }
}

/// The literals of one part in [`Split::can_differ_each`] (local literals).
struct PartRoles {
    inputs: Vec<Lit>,
    outputs: Vec<Lit>,
    /// Each group's literals in this part, by group index.
    groups: Vec<(usize, Vec<Lit>)>,
}

impl PartRoles {
    fn new(roles: &[Role]) -> PartRoles {
        let mut part = PartRoles {
            inputs: Vec::new(),
            outputs: Vec::new(),
            groups: Vec::new(),
        };
        for role in roles {
            match *role {
                Role::Input(l) => part.inputs.push(l),
                Role::Output(l) => part.outputs.push(l),
                Role::Free(g, l) => match part.groups.last_mut() {
                    Some((h, lits)) if *h == g => lits.push(l),
                    _ => part.groups.push((g, vec![l])),
                },
            }
        }
        part
    }

    /// The groups not yet marked in `result`: their positions and literals.
    fn left(&self, result: &[bool]) -> (Vec<usize>, Vec<&[Lit]>) {
        (self.groups.iter())
            .filter(|(g, _)| !result[*g])
            .map(|(g, lits)| (*g, &lits[..]))
            .unzip()
    }

    /// The cheap answers: marks in `result` each group of which changing
    /// one literal in the part's current model (the part's other inputs
    /// kept) changes an output: by propagation ([`changes_by_propagation`]),
    /// and the changes it leaves open by a solve each.
    fn flip(&self, sat: &mut Solver, result: &mut [bool]) {
        let (positions, groups) = self.left(result);
        if groups.is_empty() {
            return;
        }
        let Some(facts) = sat.level0() else {
            return;
        };
        let base = sat.model.clone();
        let flips = sat.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts);
            let roles = (&self.inputs[..], &self.outputs[..]);
            (!p.conflicts()).then(|| changes_by_propagation(&mut p, store, &base, roles, &groups))
        });
        let Some(Flips { changed, open }) = flips else {
            return;
        };
        for (&g, _) in positions.iter().zip(&changed).filter(|(_, &c)| c) {
            result[g] = true;
        }
        let value = |l: Lit| base[l.var_index() as usize] != l.is_negated();
        let mut assumptions = Vec::new();
        for (i, lit) in open {
            if result[positions[i]] {
                continue;
            }
            let group = groups[i];
            let kept = |v: &&Lit| !group.iter().any(|f| f.var_index() == v.var_index());
            assumptions.clear();
            assumptions.extend((self.inputs.iter().filter(kept)).map(|&l| {
                let v = Lit::from_var(l.var_index());
                if value(v) {
                    v
                } else {
                    !v
                }
            }));
            assumptions.push(lit);
            if sat.solve_raw(&assumptions)
                && (self.outputs.iter()).any(|&o| sat.value(o) != value(o))
            {
                result[positions[i]] = true;
            }
        }
    }

    /// Marks in `result` each group left that a pair of models found by
    /// propagation over the part's current model shows to change an output
    /// alone ([`changes_by_repair`]).
    fn repair(&self, sat: &mut Solver, result: &mut [bool]) {
        let (positions, groups) = self.left(result);
        if !sat.ensure_model() {
            return;
        }
        let Some(facts) = sat.level0() else {
            return;
        };
        let model = sat.model.clone();
        let mut changed = vec![false; groups.len()];
        sat.lending_store(|_, store| {
            let mut p = Propagator::new(store, &facts).repairing(model);
            if !p.conflicts() {
                let roles = (&self.inputs[..], &self.outputs[..]);
                changes_by_repair(&mut p, roles, &groups, &mut changed);
            }
        });
        for (&g, _) in positions.iter().zip(&changed).filter(|(_, &c)| c) {
            result[g] = true;
        }
    }

    /// Makes the part's current model one whose outputs differ from the
    /// current one's somewhere, if there is one; `false` if not.
    fn other_outputs(&self, sat: &mut Solver) -> bool {
        let guard = sat.new_var();
        let mut clause: Vec<Lit> = (self.outputs.iter())
            .map(|&o| if sat.value(o) { !o } else { o })
            .collect();
        clause.push(!guard);
        sat.add_clause(&clause);
        let found = sat.solve_raw(&[guard]);
        sat.add_clause(&[!guard]);
        found
    }

    /// The exact answers of the part's two copies for the groups still
    /// unmarked in `result`; `true` if one of them cannot change an output
    /// (then no output can differ with every input equal).
    ///
    /// A group whose every variable equals one of the other inputs in
    /// every model ([`PartRoles::equal_to_kept_inputs`]) cannot change
    /// alone: its answer is whether the outputs can differ with every input
    /// equal, asked once for all such groups instead of once each.
    fn ask_copies(&self, sat: &mut Solver, result: &mut [bool]) -> bool {
        // One group is one search either way.
        let asked = self.groups.iter().filter(|(g, _)| !result[*g]).count();
        let kept = match asked {
            0 | 1 => vec![false; self.groups.len()],
            _ => self.equal_to_kept_inputs(sat),
        };
        let mut differ = sat.differ(&self.inputs, &self.outputs);
        let mut undetermined = None;
        let mut unchanged = false;
        for ((g, free), kept) in self.groups.iter().zip(kept) {
            if !result[*g] {
                result[*g] = match kept {
                    true => *undetermined.get_or_insert_with(|| differ.can_differ(&[])),
                    false => differ.can_differ(free),
                };
                unchanged |= !result[*g];
            }
        }
        unchanged
    }

    /// Per group: whether each of its variables is fixed at level 0 or
    /// equal (or opposite) in every model to an input outside the group,
    /// by the binary clauses ([`Equivalences`]). Two models that agree on
    /// the other inputs then agree on the group's too.
    fn equal_to_kept_inputs(&self, sat: &mut Solver) -> Vec<bool> {
        let Some(facts) = sat.level0() else {
            return vec![false; self.groups.len()];
        };
        let classes = Equivalences::new(&sat.clauses, &facts);
        // The input variables by the class of each of their literals.
        let mut members: Vec<(u32, u32)> = (self.inputs.iter())
            .flat_map(|&l| {
                let v = Lit::from_var(l.var_index());
                [
                    (classes.class_of(v), l.var_index()),
                    (classes.class_of(!v), l.var_index()),
                ]
            })
            .collect();
        members.sort_unstable();
        members.dedup();
        let equal_to_kept = |v: u32, group: &[Lit]| {
            let class = classes.class_of(Lit::from_var(v));
            let first = members.partition_point(|&(c, _)| c < class);
            (members[first..].iter())
                .take_while(|&&(c, _)| c == class)
                .any(|&(_, w)| !group.iter().any(|l| l.var_index() == w))
        };
        (self.groups.iter())
            .map(|(_, group)| {
                group.iter().all(|l| {
                    let v = l.var_index();
                    facts.get(v as usize).is_some_and(|&f| f != 0) || equal_to_kept(v, group)
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{
        blocks_instance, eval_lit, exercised, models, random_instance, random_lit, Rng,
    };
    use crate::{Lit, Solver};
    use std::cell::Cell;
    use std::collections::BTreeMap;

    thread_local! {
        /// Searches of two copies ([`super::Differ::can_differ`]) on this thread.
        pub(super) static SEARCHES: Cell<usize> = const { Cell::new(0) };
    }

    /// A chain of `or`s: every input changes its output alone, but not in a
    /// model where it is true between two false ones. The pairs of repaired
    /// models mark them all without a search of the copies.
    #[test]
    fn a_chain_of_ors_needs_no_search_of_the_copies() {
        let mut s = Solver::new();
        let n = 300;
        let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        for w in xs.windows(2) {
            s.add_clause(&[w[0], w[1]]);
        }
        let mut outputs = Vec::new();
        for &x in &xs {
            let o = s.new_var();
            s.add_clause(&[!o, x]);
            s.add_clause(&[o, !x]);
            outputs.push(o);
        }
        let groups: Vec<&[Lit]> = xs.chunks(1).collect();
        let mut split = s.split_copy();
        SEARCHES.with(|c| c.set(0));
        assert_eq!(split.can_differ_each(&xs, &outputs, &groups), vec![true; n]);
        assert_eq!(SEARCHES.with(Cell::get), 0);
    }

    /// A ring of constraints makes every input equal to the next: none
    /// can change alone, which the classes of equal literals show with one
    /// search of the copies (are the outputs determined at all?) instead of
    /// one per input. Without that search, a ring whose outputs the inputs
    /// do not determine would be answered wrong.
    #[test]
    fn a_ring_of_equal_inputs_is_decided_with_one_search() {
        for determined in [true, false] {
            let mut s = Solver::new();
            let n = 300;
            let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            for i in 0..n {
                s.add_clause(&[!xs[i], xs[(i + 1) % n]]);
            }
            // An output per input, equal to it, and one the inputs decide
            // only if `determined`.
            let mut outputs: Vec<Lit> = Vec::new();
            for &x in &xs {
                let o = s.new_var();
                s.add_clause(&[!o, x]);
                s.add_clause(&[o, !x]);
                outputs.push(o);
            }
            let free = s.new_var();
            if determined {
                s.add_clause(&[!free, xs[0]]);
                s.add_clause(&[free, !xs[0]]);
            } else {
                s.add_clause(&[!free, xs[0]]);
            }
            outputs.push(free);
            let groups: Vec<&[Lit]> = xs.chunks(1).collect();
            let mut split = s.split_copy();
            SEARCHES.with(|c| c.set(0));
            let got = split.can_differ_each(&xs, &outputs, &groups);
            assert_eq!(got, vec![!determined; n], "determined: {determined}");
            assert!(
                SEARCHES.with(Cell::get) <= 2,
                "{} searches",
                SEARCHES.with(Cell::get)
            );
        }
    }

    #[test]
    fn can_differ_matches_brute_force() {
        let mut rng = Rng::new(91);
        for round in 0..400 {
            let (s, vars, cnf) = random_instance(&mut rng, 12, (2, 2));
            let n = vars.len();
            let pick = |rng: &mut Rng| -> Vec<Lit> {
                (0..rng.below(n as u64 + 1))
                    .map(|_| random_lit(rng, &vars))
                    .collect()
            };
            let inputs = pick(&mut rng);
            let outputs = pick(&mut rng);
            // Some inputs may differ too.
            let free: Vec<Lit> = inputs
                .iter()
                .copied()
                .filter(|_| rng.below(3) == 0)
                .collect();
            let shared: Vec<Lit> = inputs
                .iter()
                .copied()
                .filter(|l| !free.iter().any(|f| f.var_index() == l.var_index()))
                .collect();
            let ms = models(&vars, &cnf);
            let key = |m: &Vec<bool>, ls: &[Lit]| -> Vec<bool> {
                ls.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            // Models grouped by their shared values: some group has two
            // different output values.
            let want = |shared: &[Lit]| {
                let mut first: BTreeMap<Vec<bool>, Vec<bool>> = BTreeMap::new();
                ms.iter().any(|m| {
                    let out = key(m, &outputs);
                    *first.entry(key(m, shared)).or_insert_with(|| out.clone()) != out
                })
            };
            assert_eq!(
                s.can_differ(&inputs, &outputs),
                want(&inputs),
                "round {round}"
            );
            let mut differ = s.differ(&inputs, &outputs);
            assert_eq!(differ.can_differ(&free), want(&shared), "round {round}");
            assert_eq!(differ.can_differ(&[]), want(&inputs), "round {round}");
        }
    }

    /// `minimal_core` over shared guards: the core suffices (two models
    /// differing in the outputs alone do not exist with its guards) and is
    /// minimal, and it is `None` exactly when they exist with every guard.
    #[test]
    fn cores_over_shared_guards_are_minimal() {
        let mut rng = Rng::new(17);
        let mut cores = 0;
        for round in 0..300 {
            let (mut s, vars, _) = random_instance(&mut rng, 6, (2, 2));
            let guards: Vec<Lit> = (0..4)
                .map(|_| {
                    let g = s.new_var();
                    let a = random_lit(&mut rng, &vars);
                    let b = random_lit(&mut rng, &vars);
                    s.add_clause(&[!g, a, b]);
                    g
                })
                .collect();
            let free = vec![vars[rng.below(vars.len() as u64) as usize]];
            let inputs: Vec<Lit> = vars.clone();
            // Whether two models differ in `free` alone with `on` switched on.
            let differs = |on: &[Lit]| {
                let mut copy = crate::Solver::new();
                for _ in 1..s.num_vars() {
                    copy.new_var();
                }
                for c in s.clauses() {
                    copy.add_clause(c);
                }
                for &g in on {
                    copy.require(g);
                }
                copy.differ(&inputs, &free).can_differ(&free)
            };
            let core = s
                .differ_sharing(&guards, &inputs, &free)
                .minimal_core(&free, &guards);
            let Some(core) = core else {
                assert!(differs(&guards), "round {round}");
                continue;
            };
            cores += 1;
            assert!(!differs(&core), "round {round}: not sufficient");
            for i in 0..core.len() {
                let mut less = core.clone();
                less.remove(i);
                assert!(differs(&less), "round {round}: not minimal");
            }
        }
        exercised!(cores > 20, "too few cores: {cores}");
    }

    /// Instances of independent blocks, some literals fixed, with groups
    /// of inputs (a one-hot group among them): the split answers each
    /// group as brute force, and as the whole problem's two copies.
    #[test]
    fn groups_asked_part_by_part_match_brute_force() {
        let mut rng = Rng::new(23);
        let (mut several, mut yes, mut no) = (0, 0, 0);
        for round in 0..500 {
            let (mut s, vars, mut cnf) = blocks_instance(&mut rng);
            let n = vars.len();
            // A one-hot group: exactly one of up to three variables.
            let hot: Vec<Lit> = (0..1 + rng.below(3))
                .map(|_| vars[rng.below(n as u64) as usize])
                .collect();
            cnf.push(hot.clone());
            for (i, &a) in hot.iter().enumerate() {
                for &b in &hot[i + 1..] {
                    if a != b {
                        cnf.push(vec![!a, !b]);
                    }
                }
            }
            for c in &cnf {
                s.add_clause(c);
            }
            let pick = |rng: &mut Rng, max: u64| -> Vec<Lit> {
                (0..rng.below(max + 1))
                    .map(|_| random_lit(rng, &vars))
                    .collect()
            };
            let mut inputs = pick(&mut rng, n as u64);
            inputs.extend(&hot);
            let outputs = pick(&mut rng, n as u64);
            let mut groups: Vec<Vec<Lit>> = (0..1 + rng.below(4))
                .map(|_| {
                    let mut g: Vec<Lit> = inputs
                        .iter()
                        .copied()
                        .filter(|_| rng.below(3) == 0)
                        .collect();
                    if g.is_empty() && !inputs.is_empty() {
                        g.push(inputs[rng.below(inputs.len() as u64) as usize]);
                    }
                    g
                })
                .collect();
            groups.push(hot.clone());
            let ms = models(&vars, &cnf);
            let key = |m: &Vec<bool>, ls: &[Lit]| -> Vec<bool> {
                ls.iter().map(|&l| eval_lit(l, &vars, m)).collect()
            };
            let want: Vec<bool> = (groups.iter())
                .map(|g| {
                    let shared: Vec<Lit> = (inputs.iter().copied())
                        .filter(|l| !g.iter().any(|f| f.var_index() == l.var_index()))
                        .collect();
                    let mut first: BTreeMap<Vec<bool>, Vec<bool>> = BTreeMap::new();
                    ms.iter().any(|m| {
                        let out = key(m, &outputs);
                        *first.entry(key(m, &shared)).or_insert_with(|| out.clone()) != out
                    })
                })
                .collect();
            let refs: Vec<&[Lit]> = groups.iter().map(|g| &g[..]).collect();
            let mut split = s.split_copy();
            several += usize::from(split.num_parts() > 1);
            let got = split.can_differ_each(&inputs, &outputs, &refs);
            let ctx = format!("round {round}: inputs {inputs:?} outputs {outputs:?} groups {groups:?} cnf {cnf:?}");
            assert_eq!(got, want, "{ctx}");
            let mut whole = s.differ(&inputs, &outputs);
            let each: Vec<bool> = groups.iter().map(|g| whole.can_differ(g)).collect();
            assert_eq!(each, want, "{ctx}");
            yes += want.iter().filter(|&&w| w).count();
            no += want.iter().filter(|&&w| !w).count();
        }
        exercised!(several > 100, "too few split instances: {several}");
        exercised!(yes > 300 && no > 300, "too one-sided: {yes} yes, {no} no");
    }
}
