//! Family-based analysis (`v4t analyze`, issue 16): questions about every
//! configuration of a variable service template, answered on one SAT
//! encoding of all of them ([`crate::solve::family`]) instead of resolving
//! each configuration.
//!
//! A *configuration* assigns every variability input a value of its domain
//! (the rule is in [`crate::solve::family`]). It *fails* if evaluating a
//! value expression fails under it (grouped by message) or if its
//! conditions and constraints have no solution ("Could not solve"); the
//! others are *valid*. Over the valid ones, the analysis counts them and
//! the distinct topologies (sets of present elements), and finds the dead
//! elements (absent in every one) and the core elements (present in every
//! one).
//!
//! What the analysis does not see yet: the optimiser. Where conditions
//! leave an element's presence open (cyclic conditions, free variables),
//! resolution picks an optimal solution; the analysis counts every solution
//! the conditions allow, so the topology count is then an upper bound of
//! what resolution produces, and an element free here may still be dead or
//! core after optimisation (dead and core elements reported are always
//! right). [`Analysis::determined`] says whether this happens (Padoa's
//! method: two solutions of the same configuration that differ). The
//! consistency and semantic checks and the input feature model
//! (`requires`, `alternatives`, ...) are not encoded yet either: a
//! configuration failing only those counts as valid.

use crate::error::Result;
use crate::solve::family::{family_problem, show, FamilyProblem, InputDomain};
use crate::{prepare, Loader, SourceId, Sources, Stage};
pub use v4t_sat::{Count, CountBudget, Natural};
use v4t_sat::{Implied, Lit, Solver};
use v4t_yaml::Value;

/// What to analyse with.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Run the enricher first, as resolving does (default `true`).
    pub enrich: bool,
    /// The current time for date operators, as in [`crate::ResolveOptions`].
    pub now_ms: Option<f64>,
    /// Limits of each model count.
    pub budget: CountBudget,
    /// List up to this many distinct topologies (`0`: none).
    pub enumerate: usize,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            enrich: true,
            now_ms: None,
            budget: CountBudget::default(),
            enumerate: 0,
        }
    }
}

/// The result of [`analyze`].
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Every variability input with its domain, in definition order.
    pub inputs: Vec<Input>,
    /// The number of configurations (the product of the domain sizes).
    pub configurations: Natural,
    /// The configurations that resolve.
    pub valid: Count,
    /// The distinct topologies the conditions allow in the valid
    /// configurations: what resolution produces if `determined`, at most
    /// that many otherwise.
    pub topologies: Count,
    /// Whether the inputs decide every element's presence. If not, some
    /// configuration leaves a choice to the optimiser, which the analysis
    /// does not model: then dead and core elements are still right, but
    /// there may be more of them, and fewer topologies.
    pub determined: bool,
    /// The inputs that never change the topology (with the other inputs
    /// fixed), in definition order; only known if `determined`.
    pub irrelevant: Vec<String>,
    /// Ids of the elements absent in every valid configuration, in element order.
    pub dead: Vec<String>,
    /// Ids of the elements present in every valid configuration, in element order.
    pub core: Vec<String>,
    /// Failing configurations, grouped by reason.
    pub failures: Vec<FailureGroup>,
    /// Up to [`AnalyzeOptions::enumerate`] topologies (the ids of their
    /// present elements), and whether that is all of them.
    pub enumerated: Option<(Vec<Vec<String>>, bool)>,
}

/// A variability input and its domain.
#[derive(Clone, Debug)]
pub struct Input {
    /// The input's name.
    pub name: String,
    /// The values the analysis assigns it.
    pub values: Vec<Value>,
}

/// Configurations that fail for the same reason.
#[derive(Clone, Debug)]
pub struct FailureGroup {
    /// The error resolution reports (`Could not solve` when no solution exists).
    pub error: crate::Error,
    /// How many configurations fail this way (a lower bound if not exact).
    pub configurations: Count,
    /// One of them: a value for every input, in definition order (`None`
    /// if none was found within the search limit).
    pub witness: Option<Vec<(String, Value)>>,
}

/// The stages [`analyze_observed`] reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyzeStage {
    /// Loading, enrichment and the resolver graph.
    Prepare,
    /// The family encoding.
    Encode,
    /// Counting the failing configurations.
    Failures,
    /// Counting the valid configurations.
    Configurations,
    /// Counting the topologies.
    Topologies,
    /// Whether the inputs decide the topology, and which inputs never change it.
    Determined,
    /// Dead and core elements.
    Backbone,
    /// Listing topologies (`enumerate`).
    Enumerate,
}

/// How many configurations are tried for a witness of "Could not solve".
const WITNESS_TRIES: usize = 1024;

/// Analyses every configuration of the variable service template `template`.
pub fn analyze(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &AnalyzeOptions,
) -> Result<Analysis> {
    analyze_observed(sources, template, loader, options, &mut |_| {})
}

/// [`analyze`], calling `observe` as each stage finishes (used by the benchmark).
pub fn analyze_observed(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &AnalyzeOptions,
    observe: &mut dyn FnMut(AnalyzeStage),
) -> Result<Analysis> {
    let prepared = prepare(
        sources,
        template,
        loader,
        options.enrich,
        &mut |_| Ok(()),
        &mut |_: Stage| {},
    )?;
    observe(AnalyzeStage::Prepare);
    let (doc, graph) = (&prepared.doc, &prepared.graph);
    let FamilyProblem {
        mut sat,
        inputs,
        presence,
        failures,
    } = family_problem(doc, graph, options.now_ms.unwrap_or(0.0))
        .map_err(crate::code(crate::Code::InvalidCondition))?;
    observe(AnalyzeStage::Encode);
    let budget = &options.budget;
    let input_lits: Vec<Lit> = inputs.iter().flat_map(|d| d.lits.iter().copied()).collect();
    let configurations = inputs.iter().fold(Natural::ONE, |acc, d| {
        acc.mul(&Natural::from(d.values.len() as u64))
    });

    // Evaluation failures depend on the inputs only: counted over the domains.
    let mut groups = Vec::new();
    let mut domains = DomainSolver::new(&inputs);
    let mut any_failure = Vec::new();
    for f in &failures {
        let failing = domains.any_of(&f.combinations);
        any_failure.push(failing);
        groups.push(FailureGroup {
            error: f.error.clone(),
            configurations: domains.sat.count(&[failing], &domains.all, budget),
            witness: domains.witness(failing, &inputs),
        });
    }
    let failing = domains.sat.or(&any_failure);
    let failed = domains.sat.count(&[failing], &domains.all, budget);
    observe(AnalyzeStage::Failures);

    // From here on, only the configurations without evaluation errors.
    for f in &failures {
        for combination in &f.combinations {
            let lits: Vec<Lit> = combination
                .iter()
                .map(|&(i, v)| inputs[i].lits[v])
                .collect();
            let clause: Vec<Lit> = lits.iter().map(|&l| !l).collect();
            sat.add_clause(&clause);
        }
    }
    let valid = sat.count(&[], &input_lits, budget);
    observe(AnalyzeStage::Configurations);
    let unsolvable = configurations
        .checked_sub(&failed.value)
        .and_then(|rest| rest.checked_sub(&valid.value))
        .unwrap_or(Natural::ZERO);
    if !unsolvable.is_zero() {
        let witness = unsolvable_witness(&mut sat, &mut domains, &inputs);
        groups.push(FailureGroup {
            error: crate::solve::unsatisfiable(),
            configurations: Count {
                value: unsolvable,
                exact: valid.exact && failed.exact,
            },
            witness,
        });
    }

    let presence_lits: Vec<Lit> = presence.iter().map(|&(_, l)| l).collect();
    let topologies = sat.count(&[], &presence_lits, budget);
    observe(AnalyzeStage::Topologies);
    let determined = !sat.can_differ(&input_lits, &presence_lits);
    let mut irrelevant = Vec::new();
    if determined {
        for (i, input) in inputs.iter().enumerate() {
            let others: Vec<Lit> = inputs
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .flat_map(|(_, d)| d.lits.iter().copied())
                .collect();
            if !sat.can_differ(&others, &presence_lits) {
                irrelevant.push(input.name.clone());
            }
        }
    }
    observe(AnalyzeStage::Determined);
    let mut dead = Vec::new();
    let mut core = Vec::new();
    if let Some(implied) = sat.backbone(&presence_lits) {
        for (&(id, _), i) in presence.iter().zip(implied) {
            match i {
                Implied::True => core.push(graph.id(id).to_string()),
                Implied::False => dead.push(graph.id(id).to_string()),
                Implied::Free => {}
            }
        }
    }
    observe(AnalyzeStage::Backbone);
    let enumerated = (options.enumerate > 0).then(|| {
        let e = sat.enumerate(&presence_lits, options.enumerate);
        let lists = e
            .models
            .iter()
            .map(|m| {
                presence
                    .iter()
                    .zip(m)
                    .filter(|(_, &p)| p)
                    .map(|(&(id, _), _)| graph.id(id).to_string())
                    .collect()
            })
            .collect();
        (lists, e.complete)
    });
    observe(AnalyzeStage::Enumerate);
    Ok(Analysis {
        inputs: inputs
            .iter()
            .map(|d| Input {
                name: d.name.clone(),
                values: d.values.clone(),
            })
            .collect(),
        configurations,
        valid,
        topologies,
        determined,
        irrelevant,
        dead,
        core,
        failures: groups,
        enumerated,
    })
}

/// A configuration whose conditions have no solution: the first one, in
/// lexicographic order of the domain literals, among the first
/// [`WITNESS_TRIES`] configurations without evaluation errors.
fn unsolvable_witness(
    sat: &mut Solver,
    domains: &mut DomainSolver,
    inputs: &[InputDomain],
) -> Option<Vec<(String, Value)>> {
    let all = domains.all.clone();
    let candidates = domains.sat.enumerate(&all, WITNESS_TRIES);
    for model in candidates.models {
        let chosen = domains.decode(&model);
        if domains.fails(&chosen) {
            continue;
        }
        let assume: Vec<Lit> = chosen
            .iter()
            .enumerate()
            .map(|(i, &v)| inputs[i].lits[v])
            .collect();
        if !sat.solve(&assume) {
            return Some(named(&chosen, inputs));
        }
    }
    None
}

/// A configuration as (input, value) pairs.
fn named(chosen: &[usize], inputs: &[InputDomain]) -> Vec<(String, Value)> {
    chosen
        .iter()
        .zip(inputs)
        .map(|(&v, d)| (d.name.clone(), d.values[v].clone()))
        .collect()
}

/// A solver over the input domains alone (no conditions), for questions
/// about evaluation failures, which depend on the inputs only.
struct DomainSolver {
    sat: Solver,
    /// Per input, the literal of each value.
    lits: Vec<Vec<Lit>>,
    /// All value literals.
    all: Vec<Lit>,
    /// Failing combinations seen so far (for [`DomainSolver::fails`]).
    failing: Vec<Vec<(usize, usize)>>,
}

impl DomainSolver {
    fn new(inputs: &[InputDomain]) -> DomainSolver {
        let mut sat = Solver::new();
        let mut lits = Vec::with_capacity(inputs.len());
        for d in inputs {
            let ls: Vec<Lit> = d.values.iter().map(|_| sat.new_var()).collect();
            let one = sat.exactly_one(&ls);
            sat.require(one);
            lits.push(ls);
        }
        let all = lits.iter().flatten().copied().collect();
        DomainSolver {
            sat,
            lits,
            all,
            failing: Vec::new(),
        }
    }

    /// A literal true exactly in the configurations that agree with one of
    /// `combinations`.
    fn any_of(&mut self, combinations: &[Vec<(usize, usize)>]) -> Lit {
        let terms: Vec<Lit> = combinations
            .iter()
            .map(|c| {
                let lits: Vec<Lit> = c.iter().map(|&(i, v)| self.lits[i][v]).collect();
                self.sat.and(&lits)
            })
            .collect();
        self.failing.extend(combinations.iter().cloned());
        self.sat.or(&terms)
    }

    /// The smallest configuration in which `lit` holds (lexicographically
    /// over the value literals), by name.
    fn witness(&mut self, lit: Lit, inputs: &[InputDomain]) -> Option<Vec<(String, Value)>> {
        let order = self.all.clone();
        if !self.sat.prefer_false_assuming(&[lit], &order) {
            return None;
        }
        let model: Vec<bool> = order.iter().map(|&l| self.sat.value(l)).collect();
        Some(named(&self.decode(&model), inputs))
    }

    /// The value index of each input in a model over [`DomainSolver::all`].
    fn decode(&self, model: &[bool]) -> Vec<usize> {
        let mut at = 0;
        self.lits
            .iter()
            .map(|ls| {
                let v = (0..ls.len()).position(|j| model[at + j]).unwrap_or(0);
                at += ls.len();
                v
            })
            .collect()
    }

    /// Whether a configuration agrees with a failing combination.
    fn fails(&self, chosen: &[usize]) -> bool {
        self.failing
            .iter()
            .any(|c| c.iter().all(|&(i, v)| chosen[i] == v))
    }
}

/// A value for text output.
pub fn show_value(value: &Value) -> String {
    show(value)
}

#[cfg(test)]
mod tests;
