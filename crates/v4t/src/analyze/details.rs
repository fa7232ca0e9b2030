//! Per-element analyses over the valid configurations (issue 27):
//! commonality (in how many valid configurations an element is present) and
//! atomic sets (elements present together in every one).

use super::{ElementIds, Family};
use crate::graph::Graph;
use std::collections::HashSet;
use v4t_sat::{Count, Lit, Natural};
use v4t_yaml::hash::SeededMap;

/// What the backbone says about an element's presence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dead,
    Core,
    Open,
}

impl Family<'_> {
    /// Per element (internal ones left out), the number of valid
    /// configurations it is present in; and the atomic sets of two or more
    /// elements (dead ones left out): an element joins the first set whose
    /// first member has the same count and the same presence in every
    /// valid solution.
    ///
    /// Where the inputs decide the topology (`determined`) and the valid
    /// configurations are few, each is solved once and the presences read
    /// off ([`Family::presences_per_configuration`]); otherwise each
    /// distinct presence literal is counted in its independent part of the
    /// problem ([`v4t_sat::Split::count_each`]), and only the sets whose
    /// first member lies in the same part can be joined: elements of
    /// different parts, neither of them core, are present independently.
    pub(super) fn commonality_and_atomic_sets(
        &mut self,
        graph: &Graph,
        (dead, core): (&ElementIds, &ElementIds),
        determined: bool,
    ) -> (Vec<(String, Count)>, Vec<Vec<String>>) {
        let budget = self.options.budget;
        let valid = self.sat.count(&[], &self.input_lits, &budget);
        let table = determined
            .then(|| self.presences_per_configuration(&valid))
            .flatten();
        let dead: HashSet<&str> = dead.iter().collect();
        let core: HashSet<&str> = core.iter().collect();
        let elements: Vec<(String, Lit, Kind)> = (self.presence.iter())
            .filter(|&&(id, _)| !graph.is_internal(id))
            .map(|&(id, l)| {
                let id = graph.id(id).to_string();
                let kind = match (dead.contains(id.as_str()), core.contains(id.as_str())) {
                    (true, _) => Kind::Dead,
                    (_, true) => Kind::Core,
                    _ => Kind::Open,
                };
                (id, l, kind)
            })
            .collect();
        // Elements sharing a presence literal share their count.
        let mut open: Vec<Lit> = (elements.iter())
            .filter(|&&(_, _, kind)| kind == Kind::Open)
            .map(|&(_, l, _)| l)
            .collect();
        open.sort_unstable();
        open.dedup();
        let mut split = None;
        let counts: Vec<Count> = match &table {
            Some(table) => open.iter().map(|&l| table.count(l)).collect(),
            None => {
                (split.insert(self.sat.split_copy())).count_each(&open, &self.input_lits, &budget)
            }
        };
        let counted: SeededMap<Lit, Count> = open.into_iter().zip(counts).collect();
        let mut commonality = Vec::new();
        // (first member's literal, its count, member ids), and the sets by
        // whether their first member is core and the part it lies in.
        let mut sets: Vec<(Lit, Count, Vec<String>)> = Vec::new();
        let mut sets_by_part: SeededMap<(bool, Option<u32>), Vec<usize>> = SeededMap::default();
        for (id, l, kind) in elements {
            let count = match kind {
                Kind::Dead => Count {
                    value: Natural::ZERO,
                    exact: true,
                },
                Kind::Core => valid.clone(),
                Kind::Open => counted[&l].clone(),
            };
            commonality.push((id.clone(), count.clone()));
            if kind == Kind::Dead {
                continue;
            }
            let part = split.as_ref().and_then(|s| s.part_of(l));
            let candidates = sets_by_part.entry((kind == Kind::Core, part)).or_default();
            let same = candidates.iter().copied().find(|&s| {
                let (first, c, _) = &sets[s];
                *first == l
                    || c.exact
                        && count.exact
                        && c.value == count.value
                        && (kind == Kind::Core
                            || match &table {
                                Some(table) => table.same(*first, l),
                                None => {
                                    !self.sat.solve(&[*first, !l]) && !self.sat.solve(&[!*first, l])
                                }
                            })
            });
            match same {
                Some(s) => sets[s].2.push(id),
                None => {
                    candidates.push(sets.len());
                    sets.push((l, count, vec![id]));
                }
            }
        }
        let atomic = sets
            .into_iter()
            .map(|(_, _, ids)| ids)
            .filter(|ids| ids.len() > 1)
            .collect();
        (commonality, atomic)
    }

    /// With every valid configuration listed (if there are at most
    /// [`FEW_CONFIGURATIONS`]): per configuration, the model of its unique
    /// solution (the inputs decide every presence), to read each element's
    /// presence from.
    fn presences_per_configuration(&mut self, valid: &Count) -> Option<Presences> {
        let few = Natural::from(FEW_CONFIGURATIONS as u64);
        if !valid.exact || valid.value > few {
            return None;
        }
        let listed = self.sat.enumerate(&self.input_lits, FEW_CONFIGURATIONS);
        if !listed.complete {
            return None;
        }
        let mut models = Vec::with_capacity(listed.models.len());
        for values in &listed.models {
            let fixing: Vec<Lit> = self
                .input_lits
                .iter()
                .zip(values)
                .map(|(&l, &v)| if v { l } else { !l })
                .collect();
            if !self.sat.solve(&fixing) {
                return None;
            }
            models.push(
                self.presence
                    .iter()
                    .map(|&(_, l)| self.sat.value(l))
                    .collect(),
            );
        }
        let mut index = SeededMap::default();
        for (i, &(_, l)) in self.presence.iter().enumerate() {
            index.entry(l).or_insert(i);
        }
        Some(Presences { index, models })
    }
}

/// At most this many valid configurations are solved one by one for the
/// per-element analyses instead of counting per element.
const FEW_CONFIGURATIONS: usize = 256;

/// Each valid configuration's presences ([`Family::presences_per_configuration`]).
struct Presences {
    /// Position of each presence literal in the models.
    index: SeededMap<Lit, usize>,
    /// Per configuration, the value of each element's presence literal.
    models: Vec<Vec<bool>>,
}

impl Presences {
    /// Whether `a` and `b` (presence literals) agree in every configuration.
    fn same(&self, a: Lit, b: Lit) -> bool {
        let (a, b) = (self.index[&a], self.index[&b]);
        self.models.iter().all(|m| m[a] == m[b])
    }

    /// The number of configurations in which `l` (a presence literal) holds.
    fn count(&self, l: Lit) -> Count {
        let at = self.index[&l];
        let n = self.models.iter().filter(|m| m[at]).count();
        Count {
            value: Natural::from(n as u64),
            exact: true,
        }
    }
}
