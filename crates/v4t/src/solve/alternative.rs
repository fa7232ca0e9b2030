//! The best solution with one element the other way, for `v4t explain` of
//! the elements the optimiser decides: what it rejected, and at what cost.
//!
//! Asking the whole problem again per element makes explaining every
//! element quadratic. But the problem falls apart into independent parts
//! ([`v4t_sat::Split`]), and fixing one element's presence changes only
//! the part it lies in: every other part keeps its optimum and its
//! preferred model, because the stages and the tie-breaking ask each part
//! the same questions as before. So the problem is solved once, and each
//! element's part is solved again from its state before any question
//! ([`Split::fork`]), the other parts read as the constants of their
//! models, each objective's terms restricted to the part with the other
//! parts' share added as a constant.
//!
//! The technology count couples parts: each name's disjunction spans them.
//! A part's share there is known to stay as it was where the first solve
//! found it decided (true or false in every model of the part); where it
//! did not look at another part with technologies of the name, or found
//! that part's share open, the fork cannot tell, and the whole problem is
//! asked ([`solve_fixed`]): also where the element's part settles the
//! disjunction by itself but did not in the solution, since the other
//! part's model may then change (its technology of the name was needed for
//! the count, and is not any more). So is every element whose part the
//! first solve merged with another.

use super::{
    ask_stages, count_technologies, encode_problem, property_value, run, solve_fixed, stages,
    technology_count, tie_break, unsatisfiable, Encoder, Preferred, RawDefs, Resolve, Solution,
    Stage, TECHNOLOGIES_COUNT,
};
use crate::error::Result;
use crate::graph::{ElementId, Graph, Kind};
use crate::options::Optimize;
use crate::types::TypeSystem;
use std::collections::HashMap;
use v4t_sat::{Answer, Lit, OrRecord, Question, Split};
use v4t_yaml::{Map, NodeRef};

/// What the optimiser would have chosen with one element the other way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alternative {
    /// The objective values, in stage order (as [`Solution::objectives`]).
    pub objectives: Vec<(String, u64)>,
    /// The elements whose presence differs from the solution, in element
    /// order, with their presence here.
    pub changed: Vec<(ElementId, bool)>,
}

impl Alternative {
    /// `other` against `solution`, element by element.
    fn between(graph: &Graph, solution: &Solution, other: &Solution) -> Alternative {
        Alternative {
            objectives: other.objectives.clone(),
            changed: graph
                .ordered()
                .filter(|&x| other.is_present(x) != solution.is_present(x))
                .map(|x| (x, other.is_present(x)))
                .collect(),
        }
    }
}

/// Answers [`Alternatives::fixed`] for one variant.
pub(crate) struct Alternatives<'a, 'g> {
    doc: NodeRef<'a>,
    graph: &'g Graph,
    types: &'a TypeSystem<'a>,
    inputs: Map,
    now_ms: f64,
    /// The problem solved once, `None` until the first question, or if
    /// solving it did not give `solution` (then every question asks the
    /// whole problem).
    solved: Option<Option<Solved<'a, 'g>>>,
    /// How many questions one part answered.
    #[cfg(test)]
    in_part: usize,
}

impl<'a, 'g> Alternatives<'a, 'g> {
    pub(crate) fn new(
        doc: NodeRef<'a>,
        graph: &'g Graph,
        types: &'a TypeSystem<'a>,
        inputs: Map,
        now_ms: f64,
    ) -> Self {
        Alternatives {
            doc,
            graph,
            types,
            inputs,
            now_ms,
            solved: None,
            #[cfg(test)]
            in_part: 0,
        }
    }

    /// The best solution in which `id` is not `present`, against
    /// `solution` (the variant's): what [`solve_fixed`] gives, asked of
    /// `id`'s part only where that gives the same.
    pub(crate) fn fixed(
        &mut self,
        solution: &Solution,
        id: ElementId,
        present: bool,
    ) -> Result<Alternative> {
        if self.solved.is_none() {
            let solved = Solved::new(self, solution);
            self.solved = Some(solved);
        }
        if let Some(Some(solved)) = &mut self.solved {
            if let Some(answer) = solved.fixed(id, !present) {
                #[cfg(test)]
                {
                    self.in_part += 1;
                }
                return answer;
            }
        }
        let other = solve_fixed(
            self.doc,
            self.graph,
            self.types,
            self.inputs.clone(),
            self.now_ms,
            (id, !present),
        )?;
        Ok(Alternative::between(self.graph, solution, &other))
    }
}

/// One objective stage before the technology count, per part.
struct Objective {
    name: &'static str,
    direction: Optimize,
    /// The stage's optimum.
    total: u64,
    /// Per part: its terms.
    terms: HashMap<u32, Vec<(Lit, u64)>>,
}

/// One name's disjunction of the technology count.
struct Disjunction {
    /// Per part: the presence of its technologies of the name.
    lits: HashMap<u32, Vec<Lit>>,
    /// True whatever the parts do (a technology present in every model).
    settled: bool,
    /// The parts found to share true in every model.
    true_in: Vec<u32>,
    /// The parts with technologies of the name whose share was open or
    /// not looked at.
    unknown: Vec<u32>,
}

/// The problem solved once, and how to ask one part again.
struct Solved<'a, 'g> {
    enc: Encoder<'a, 'g, Resolve>,
    raw: RawDefs<'a>,
    /// Answered and preferred: the variant's solution.
    split: Split,
    /// The same problem before any question.
    pristine: Split,
    objectives: Vec<Objective>,
    count: Option<(Optimize, Vec<Disjunction>)>,
    /// The objective values of the solution.
    values: Vec<(String, u64)>,
    /// Per part: its elements in element order, with their presence.
    elements: HashMap<u32, Vec<(ElementId, Lit)>>,
    /// Per part: the groups of alternatives that touch it.
    firsts: HashMap<u32, Vec<Vec<Lit>>>,
    /// Per element id: whether the solution has it present.
    present: Vec<bool>,
    /// Per element id: its position among the properties.
    property_position: Vec<u32>,
}

impl<'a, 'g> Solved<'a, 'g> {
    /// Solves the problem as [`solve_fixed`] does without a fixed element;
    /// `None` if that fails or does not give `solution`.
    fn new(from: &Alternatives<'a, 'g>, solution: &Solution) -> Option<Self> {
        let encode = || {
            let mut enc = Encoder::new(
                from.graph,
                from.doc,
                from.types,
                from.inputs.clone(),
                from.now_ms,
                |_| Resolve,
            );
            let order = encode_problem(&mut enc).ok()?;
            let split = std::mem::take(&mut enc.sat).split();
            Some((enc, order, split))
        };
        let (mut enc, order, mut split) = encode()?;
        let (_, _, pristine) = encode()?;
        let graph = from.graph;
        split.record_ors();
        let mut list = Vec::new();
        stages(&mut enc, &mut list).ok()?;
        list.retain(|stage| !matches!(stage, Stage::Unique(..)));
        let mut values = ask_stages(&mut split, &list).ok()?;
        let count = match technology_count(graph) {
            Some((direction, names)) => {
                let (v, lits) = count_technologies(&mut enc, &mut split, direction, &names).ok()?;
                values.push((TECHNOLOGIES_COUNT.to_string(), v));
                Some((direction, lits))
            }
            None => None,
        };
        let Preferred {
            presence,
            members,
            groups,
            present,
        } = tie_break(&mut enc, &mut split, &order);
        // A sum beyond `u64` is reported saturated: no share can be taken
        // from it.
        if present != solution.present
            || values != solution.objectives
            || values.iter().any(|&(_, v)| v == u64::MAX)
        {
            return None;
        }

        let mut elements: HashMap<u32, Vec<(ElementId, Lit)>> = HashMap::new();
        for (&id, &l) in order.iter().zip(&presence) {
            if let Some(p) = split.part_of(l) {
                elements.entry(p).or_default().push((id, l));
            }
        }
        let mut firsts: HashMap<u32, Vec<Vec<Lit>>> = HashMap::new();
        for list in groups.into_iter().map(|g| &members[g]) {
            let mut parts: Vec<u32> = list.iter().filter_map(|&l| split.part_of(l)).collect();
            parts.sort_unstable();
            parts.dedup();
            for p in parts {
                firsts.entry(p).or_default().push(list.to_vec());
            }
        }
        let objectives = list
            .into_iter()
            .zip(&values)
            .filter_map(|(stage, (_, total))| match stage {
                Stage::Objective(name, direction, all) => {
                    let mut terms: HashMap<u32, Vec<(Lit, u64)>> = HashMap::new();
                    for (l, w) in all {
                        if let Some(p) = split.part_of(l) {
                            terms.entry(p).or_default().push((l, w));
                        }
                    }
                    Some(Objective {
                        name,
                        direction,
                        total: *total,
                        terms,
                    })
                }
                Stage::Unique(..) => None,
            })
            .collect();
        let records = split.take_ors();
        let count = match count {
            // One record per name: the count asked one disjunction each.
            Some((direction, names)) if names.len() == records.len() => {
                let disjunctions = names
                    .into_iter()
                    .zip(&records)
                    .map(|(of, record)| disjunction(&split, &of, record))
                    .collect();
                Some((direction, disjunctions))
            }
            Some(_) => return None,
            None => None,
        };
        let mut property_position = vec![u32::MAX; graph.elements().len()];
        for (i, &p) in graph.properties().iter().enumerate() {
            property_position[p.0 as usize] = i as u32;
        }
        Some(Solved {
            enc,
            raw: RawDefs::new(from.doc),
            split,
            pristine,
            objectives,
            count,
            values,
            elements,
            firsts,
            present,
            property_position,
        })
    }

    /// The best solution with `id` `present`, asked of its part; `None`
    /// if the part alone cannot tell.
    fn fixed(&mut self, id: ElementId, present: bool) -> Option<Result<Alternative>> {
        let l = self.enc.presence(id);
        let wanted = if present { l } else { !l };
        let Some(k) = self.split.part_of(l) else {
            return Some(if self.split.value(wanted) {
                Ok(Alternative {
                    objectives: self.values.clone(),
                    changed: Vec::new(),
                })
            } else {
                Err(unsatisfiable())
            });
        };
        // The other parts' share of each objective: the optimum without
        // this part's, read before the part is asked again.
        let mut others = Vec::with_capacity(self.objectives.len());
        for o in &self.objectives {
            let here: u64 = o.terms.get(&k).map_or(0, |terms| {
                terms
                    .iter()
                    .filter(|&&(l, _)| self.split.value(l))
                    .map(|&(_, w)| w)
                    .sum()
            });
            others.push(o.total.checked_sub(here)?);
        }
        // Per name of the technology count: whether this part's share is
        // true in the solution (read before the part is asked again).
        let was_true: Vec<bool> = self.count.as_ref().map_or_else(Vec::new, |(_, ds)| {
            ds.iter()
                .map(|d| {
                    d.lits
                        .get(&k)
                        .is_some_and(|ls| ls.iter().any(|&l| self.split.value(l)))
                })
                .collect()
        });
        if !self.split.fork(k, &self.pristine) {
            return None;
        }
        self.split.require(wanted);
        let outcome = self.ask(k, &others, &was_true);
        let changed = self.changed(k);
        let exact = self.split.fork_exact();
        self.split.unfork();
        match outcome {
            _ if !exact => None,
            Outcome::Unknown => None,
            Outcome::Unsatisfiable => Some(Err(unsatisfiable())),
            Outcome::Optimum(objectives) => Some(self.evaluated(&changed).map(|()| Alternative {
                objectives,
                changed,
            })),
        }
    }

    /// The objectives of the fork of part `k` (`others`: the other parts'
    /// share of each stage; `was_true`: per name of the technology count,
    /// whether the part's share is true in the solution), its model then
    /// preferred.
    fn ask(&mut self, k: u32, others: &[u64], was_true: &[bool]) -> Outcome {
        let empty = Vec::new();
        let questions: Vec<Question<'_>> = self
            .objectives
            .iter()
            .map(|o| {
                let terms = o.terms.get(&k).unwrap_or(&empty);
                match o.direction {
                    Optimize::Max => Question::Maximize(terms),
                    _ => Question::Minimize(terms),
                }
            })
            .collect();
        let Some(answers) = self.split.ask(&questions) else {
            return Outcome::Unsatisfiable;
        };
        let mut objectives = Vec::with_capacity(answers.len() + 1);
        for ((o, other), answer) in self.objectives.iter().zip(others).zip(answers) {
            let Answer::Optimum(Some(v)) = answer else {
                return Outcome::Unsatisfiable;
            };
            let Some(total) = other.checked_add(v) else {
                return Outcome::Unknown;
            };
            objectives.push((o.name.to_string(), total));
        }
        if let Some((direction, disjunctions)) = &self.count {
            let empty = Vec::new();
            let mut settled = 0;
            let mut terms = Vec::new();
            for (d, &was_true) in disjunctions.iter().zip(was_true) {
                if d.settled || d.true_in.iter().any(|&p| p != k) {
                    settled += 1;
                    continue;
                }
                let share = self.split.or(d.lits.get(&k).unwrap_or(&empty));
                let open_elsewhere = d.unknown.iter().any(|&p| p != k);
                if self.split.fixed(share) == Some(true) && (was_true || !open_elsewhere) {
                    // Settled here, as it was for the other parts before.
                    settled += 1;
                } else if open_elsewhere {
                    // Another part's share was open: its model may change
                    // with this part's (its technology of the name was
                    // needed for the count, and now is not, or the other
                    // way round).
                    return Outcome::Unknown;
                } else {
                    terms.push((share, 1));
                }
            }
            let Ok(v) = run(&mut self.split, *direction, &terms) else {
                return Outcome::Unsatisfiable;
            };
            objectives.push((TECHNOLOGIES_COUNT.to_string(), settled + v));
        }
        let lists: Vec<&[Lit]> = self
            .firsts
            .get(&k)
            .map(|l| l.iter().map(Vec::as_slice).collect())
            .unwrap_or_default();
        let presence: Vec<Lit> = self
            .elements
            .get(&k)
            .map(|e| e.iter().map(|&(_, l)| l).collect())
            .unwrap_or_default();
        self.split.prefer(&lists, &presence);
        Outcome::Optimum(objectives)
    }

    /// The elements of part `k` whose presence differs from the solution.
    fn changed(&self, k: u32) -> Vec<(ElementId, bool)> {
        let Some(elements) = self.elements.get(&k) else {
            return Vec::new();
        };
        elements
            .iter()
            .filter_map(|&(id, l)| {
                let here = self.split.value(l);
                (here != self.present[id.0 as usize]).then_some((id, here))
            })
            .collect()
    }

    /// The first error, in property order, of the properties present only
    /// here (the others' values are the solution's: they depend on the
    /// inputs only).
    fn evaluated(&mut self, changed: &[(ElementId, bool)]) -> Result<()> {
        let graph = self.enc.graph;
        let mut new: Vec<ElementId> = changed
            .iter()
            .filter(|&&(x, here)| here && graph.get(x).kind == Kind::Property)
            .map(|&(x, _)| x)
            .collect();
        new.sort_by_key(|x| self.property_position[x.0 as usize]);
        for p in new {
            property_value(&mut self.enc, &self.raw, p)?;
        }
        Ok(())
    }
}

/// How a fork's questions came out.
enum Outcome {
    /// No solution with the element the other way.
    Unsatisfiable,
    /// The part alone cannot tell.
    Unknown,
    /// The objective values.
    Optimum(Vec<(String, u64)>),
}

/// What the first solve found of one name's disjunction.
fn disjunction(split: &Split, lits: &[Lit], record: &OrRecord) -> Disjunction {
    let mut by_part: HashMap<u32, Vec<Lit>> = HashMap::new();
    let mut settled = false;
    for &l in lits {
        match split.part_of(l) {
            Some(p) => by_part.entry(p).or_default().push(l),
            None => settled |= split.value(l),
        }
    }
    // The first share recorded per part (a part is looked at once).
    let mut shares: HashMap<u32, Option<bool>> = HashMap::new();
    for &(p, d) in &record.shares {
        shares.entry(p).or_insert(d);
    }
    let decided = |p: u32| shares.get(&p).copied().flatten();
    let true_in = record
        .shares
        .iter()
        .filter(|&&(_, d)| d == Some(true))
        .map(|&(p, _)| p)
        .collect();
    let mut unknown: Vec<u32> = by_part
        .keys()
        .copied()
        .filter(|&p| decided(p).is_none())
        .collect();
    unknown.sort_unstable();
    Disjunction {
        lits: by_part,
        settled,
        true_in,
        unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::{Alternative, Alternatives};
    use crate::testing::{doc, exercised, random_assignment, random_template, Rng};
    use crate::Sources;

    /// What comparing every element of one template gave.
    #[derive(Default)]
    struct Compared {
        elements: usize,
        changed: usize,
        unsatisfiable: usize,
        in_part: usize,
    }

    /// Compares, element by element and both ways, what explaining asks of
    /// one part ([`Alternatives::fixed`]) with solving the whole problem
    /// again with the element the other way; nothing where the template
    /// does not prepare or solve.
    fn compare_with_whole(text: &str, inputs_text: &str, ctx: &str, out: &mut Compared) {
        let mut sources = Sources::new();
        let Ok(prepared) = crate::testing::prepare(&mut sources, text) else {
            return;
        };
        let types = prepared.files.system();
        let (d, g, types) = (&prepared.doc, &prepared.graph, &types);
        let v4t_yaml::Value::Map(assigned) = doc(inputs_text).value else {
            unreachable!("a map")
        };
        let Ok(solution) = crate::solve::solve(d, g, types, assigned.clone(), 0.0) else {
            return;
        };
        let mut alternatives = Alternatives::new(d.into(), g, types, assigned.clone(), 0.0);
        for x in g.ordered() {
            let present = solution.is_present(x);
            let whole =
                crate::solve::solve_fixed(d.into(), g, types, assigned.clone(), 0.0, (x, !present));
            let want = whole.map(|other| Alternative::between(g, &solution, &other));
            let got = alternatives.fixed(&solution, x, present);
            let at = format!("{ctx}\n{}", g.id(x));
            match (got, want) {
                (Ok(got), Ok(want)) => {
                    out.changed += usize::from(!want.changed.is_empty());
                    assert_eq!(got, want, "{at}");
                }
                (Err(got), Err(want)) => {
                    out.unsatisfiable += 1;
                    assert_eq!((got.code, &got.message), (want.code, &want.message), "{at}");
                }
                (got, want) => panic!("{at}\n{got:?}\n{want:?}"),
            }
            out.elements += 1;
        }
        out.in_part += alternatives.in_part;
    }

    /// What explaining an element the optimiser decides reads, asked of
    /// its part only, is what solving the whole problem again with the
    /// element the other way gives: on random templates (most with hosting
    /// and technologies), under every objective and direction, element by
    /// element, both values; most questions are answered in the part.
    #[test]
    fn alternatives_in_one_part_are_those_of_the_whole_problem() {
        let options = [
            "optimization_topology: min, optimization_topology_unique: false, ",
            "optimization_topology: max, optimization_topology_mode: count, optimization_topology_unique: false, ",
            "optimization_topology: min, optimization_topology_unique: false, optimization_technologies: min, optimization_technologies_mode: count, ",
            "optimization_topology: min, optimization_topology_unique: false, optimization_technologies: max, optimization_technologies_mode: count, ",
            "optimization_technologies: min, optimization_technologies_mode: weight, optimization_scenarios: true, ",
            "optimization_topology: min, optimization_topology_unique: false, optimization_technologies: max, optimization_technologies_mode: weight, ",
        ];
        let mut rng = Rng::new(0x5eed_a17e_0000_0001);
        let mut all = Compared::default();
        for round in 0..240 {
            let inputs = 1 + rng.below(3) as usize;
            let nodes = 3 + rng.below(8) as usize;
            let text = random_template(&mut rng, inputs, &['b', 'f'], nodes, round % 4 != 0);
            let option = options[round % options.len()];
            let text = text.replace("    options: {", &format!("    options: {{{option}"));
            let inputs_text = random_assignment(&mut rng, inputs);
            let ctx = format!("round {round}\n{text}\ninputs {inputs_text}");
            compare_with_whole(&text, &inputs_text, &ctx, &mut all);
        }
        let Compared {
            elements,
            changed,
            unsatisfiable,
            in_part,
        } = all;
        exercised!(elements > 2000, "{elements}");
        exercised!(
            changed > 500 && unsatisfiable > 500,
            "{changed} {unsatisfiable}"
        );
        exercised!(in_part * 10 > elements * 9, "{in_part} of {elements}");
    }

    /// Where the element's part settles a name of the technology count
    /// that another part's technology provided, the other part's choice
    /// may change with it: node `n6` chose `compose` only for the count,
    /// and takes `ansible` where `n4` is present with its `compose` (the
    /// part alone answered without the change of `n6`).
    #[test]
    fn a_name_settled_in_the_part_frees_another_parts_choice() {
        let mut out = Compared::default();
        compare_with_whole(SETTLED_ELSEWHERE, "{b0: false, b1: false}", "", &mut out);
        assert!(
            out.elements > 30 && out.in_part > 10,
            "{} {}",
            out.elements,
            out.in_part
        );
    }

    /// A template of the random ones above ([`random_template`]: `f0`, `f1`
    /// are left to the optimiser).
    const SETTLED_ELSEWHERE: &str = "\
tosca_definitions_version: tosca_variability_1_0
node_types:
  t0: {}
  t1: {}
  t2: {}
  t3: {}
  t4: {}
  t5: {}
  t6: {}
topology_template:
  variability:
    options: {optimization_topology: min, optimization_topology_unique: false, optimization_technologies: max, optimization_technologies_mode: count, technology_pruning: true, unique_technology_constraint: true}
    inputs:
      {}
  node_templates:
    n0:
      type: t0
      conditions: false
      technology:
        - ansible: {weight: 1, conditions: {and: [true, f1]}}
        - terraform: {weight: 0.5, conditions: false}
        - compose: {weight: 1, conditions: {not: f1}}
    n1:
      type: t1
      conditions: {node_presence: n0}
      requirements:
        - host: {node: n0}
    n2:
      type: t2
      conditions: f1
      technology:
        - ansible: {weight: 0.5}
    n3:
      type: t3
      requirements:
        - host: {node: n1}
        - host: {node: n0, conditions: f1}
      technology:
        - ansible: {weight: 0.5}
    n4:
      type: t4
      conditions: {or: [{and: [f1, {node_presence: n2}]}, f0]}
      technology:
        - ansible: {weight: 0.5, conditions: f1}
        - terraform: {weight: 0.5}
        - compose: {weight: 1, conditions: {not: {node_presence: n2}}}
    n5:
      type: t5
      conditions: {and: [{not: f1}, true]}
      requirements:
        - host: {node: n0, conditions: {node_presence: n3}}
      technology:
        - ansible: {weight: 1}
    n6:
      type: t6
      conditions: true
      requirements:
        - host: {node: n2}
        - host: {node: n4}
      technology:
        - ansible: {weight: 1}
        - terraform: {weight: 0.5, conditions: {not: {node_presence: n3}}}
        - compose: {weight: 0.5}

";
}
