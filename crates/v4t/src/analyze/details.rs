//! Per-element analyses over the valid configurations (issue 27):
//! commonality (in how many valid configurations an element is present) and
//! atomic sets (elements present together in every one).

use super::Family;
use crate::graph::Graph;
use v4t_sat::{Count, Lit};
use v4t_yaml::hash::SeededMap;

impl Family<'_> {
    /// Per element (internal ones left out), the number of valid
    /// configurations it is present in; and the atomic sets of two or more
    /// elements (dead ones left out): an element joins the first set whose
    /// first member has the same count and the same presence in every
    /// valid solution.
    pub(super) fn commonality_and_atomic_sets(
        &mut self,
        graph: &Graph,
        (dead, core): (&[String], &[String]),
    ) -> (Vec<(String, Count)>, Vec<Vec<String>>) {
        let budget = self.options.budget;
        let valid = self.sat.count(&[], &self.input_lits, &budget);
        let dead: std::collections::HashSet<&str> = dead.iter().map(String::as_str).collect();
        let core: std::collections::HashSet<&str> = core.iter().map(String::as_str).collect();
        // Elements sharing a presence literal share their count.
        let mut counted: SeededMap<Lit, Count> = SeededMap::default();
        let mut commonality = Vec::new();
        // (first member's literal, its count, member ids).
        let mut sets: Vec<(Lit, Count, Vec<String>)> = Vec::new();
        let elements: Vec<(String, Lit)> = self
            .presence
            .iter()
            .filter(|&&(id, _)| !graph.is_internal(id))
            .map(|&(id, l)| (graph.id(id).to_string(), l))
            .collect();
        for (id, l) in elements {
            let count = if dead.contains(id.as_str()) {
                Count {
                    value: v4t_sat::Natural::ZERO,
                    exact: true,
                }
            } else if core.contains(id.as_str()) {
                valid.clone()
            } else if let Some(c) = counted.get(&l) {
                c.clone()
            } else {
                let c = self.sat.count(&[l], &self.input_lits, &budget);
                counted.insert(l, c.clone());
                c
            };
            commonality.push((id.clone(), count.clone()));
            if dead.contains(id.as_str()) {
                continue;
            }
            let same = sets.iter().position(|(first, c, _)| {
                *first == l
                    || c.exact
                        && count.exact
                        && c.value == count.value
                        && !self.sat.solve(&[*first, !l])
                        && !self.sat.solve(&[!*first, l])
            });
            match same {
                Some(s) => sets[s].2.push(id),
                None => sets.push((l, count, vec![id])),
            }
        }
        let atomic = sets
            .into_iter()
            .map(|(_, _, ids)| ids)
            .filter(|ids| ids.len() > 1)
            .collect();
        (commonality, atomic)
    }
}
