//! Family-based analysis (`v4t analyze`, issue 16): questions about every
//! configuration of a variable service template, answered on one SAT
//! encoding of all of them (`solve::family`) instead of resolving
//! each configuration.
//!
//! A *configuration* assigns every variability input a value of its domain
//! (the rule is in `solve::family`). It *fails*, in the order
//! resolving finds out, if the input feature model (`requires`,
//! `alternatives`, ...) does not allow it, if evaluating a value expression
//! fails under it, if its conditions and constraints have no solution
//! ("Could not solve"), if a present property's `expression` fails or
//! gives no value under it, or if its solution violates a consistency or
//! semantic check or, on TOSCA 2.0, a reference check (the checks of
//! `check` and `references`, built as literals; a configuration fails with
//! the first of these it meets), each grouped by message; the others are
//! *valid*. Over the valid ones, the analysis
//! counts them and the distinct topologies (sets of present elements), and
//! finds the dead elements (absent in every one) and the core elements
//! (present in every one). The presets, a handful of configurations, are
//! resolved one by one on the prepared graph.
//!
//! What the analysis does not see: the optimiser. Where conditions leave an
//! element's presence open (cyclic conditions, free variables), resolution
//! picks an optimal solution; the analysis considers every solution the
//! conditions allow, so the topology count is then an upper bound of what
//! resolution produces, an element free here may still be dead or core
//! after optimisation (dead and core elements reported are always right),
//! a check counts as failing if some solution violates it, and the
//! uniqueness checks of the optimiser are not counted.
//! [`Analysis::determined`] says whether this happens (Padoa's method: two
//! solutions of the same configuration that differ). Not modelled either:
//! hosting cycles that only some configurations close
//! ([`Analysis::unmodelled`] names them when the template has such a cycle).

use crate::check;
use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph};
use crate::reason::{Reason, ReasonKind};
use crate::solve::family::{any_of, Failure, InputDomain};
use crate::solve::{family_problem, FamilyProblem};
use crate::types::TypeSystem;
use crate::{code, prepare, Code, Loader, SourceId, Sources, Stage};
pub use v4t_sat::{Count, CountBudget, Natural};
use v4t_sat::{Implied, Lit, Solver};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::{Map, Node, NodeRef, Value};

/// Prefixes the search for a configuration with no solution asks about
/// once counting has run out of its budget ([`Family::unsolvable_shown`]):
/// the search then goes on no longer than a few more seconds of work
/// (an input of 3,000 values: 256 of its values, not all).
const WITNESS_QUESTIONS_PAST_BUDGET: usize = 256;

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
    /// Validate the resolved template of one configuration per distinct
    /// topology against TOSCA (as `v4t validate` does), for up to this many
    /// topologies (`0`: no validation).
    pub validate: usize,
    /// Sample valid configurations covering every combination of this many
    /// input values (`t`-wise; `None`: no such sample).
    pub sample: Option<usize>,
    /// Sample this many valid configurations uniformly at random with this
    /// seed (`None`: no random sample).
    pub random: Option<(usize, u64)>,
    /// Also the per-element analyses: commonality and atomic sets.
    pub details: bool,
    /// Export the variability model in this format ([`Analysis::export`]).
    pub export: Option<ExportFormat>,
    /// Also why each dead and core element is so, why each irrelevant
    /// input is, and the written conditions that always or never hold
    /// ([`Analysis::why`]).
    pub why: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            enrich: true,
            now_ms: None,
            budget: CountBudget::default(),
            enumerate: 0,
            validate: 0,
            sample: None,
            random: None,
            details: false,
            export: None,
            why: false,
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
    pub dead: ElementIds,
    /// Ids of the elements present in every valid configuration, in element order.
    pub core: ElementIds,
    /// Failing configurations, grouped by reason: configurations the
    /// model allows that do not resolve. Groups whose configurations all
    /// give some input a value the template neither mentions nor declares
    /// are flagged [`FailureGroup::undeclared`].
    pub failures: Vec<FailureGroup>,
    /// Configurations the template's own model rules out (the input
    /// feature model, the declared `variability.constraints`): not
    /// failures, each group with why.
    pub excluded: Vec<Exclusion>,
    /// Up to [`AnalyzeOptions::enumerate`] topologies (the ids of their
    /// present elements), and whether that is all of them.
    pub enumerated: Option<(Vec<Vec<String>>, bool)>,
    /// What this template uses that the analysis does not model (each
    /// a short description); empty if it models everything it needs.
    pub unmodelled: Vec<String>,
    /// Every preset of the template, in order, resolved on its own.
    pub presets: Vec<Preset>,
    /// With [`AnalyzeOptions::validate`]: how many topologies were
    /// validated (one configuration each), and whether that is all of them.
    pub validated: Option<(usize, bool)>,
    /// With [`AnalyzeOptions::sample`] or [`AnalyzeOptions::random`]: the
    /// sampled valid configurations (t-wise first, then the random ones),
    /// each a value for every input in definition order.
    pub sample: Vec<Vec<(String, Value)>>,
    /// The declared constraints the rest of the model implies (the input
    /// feature model, the conditions and the other constraints), each as a
    /// reason with its location.
    pub redundant: Vec<Reason>,
    /// With [`AnalyzeOptions::details`]: per element (internal ones left
    /// out, element order), the number of valid configurations in which it
    /// is present.
    pub commonality: Vec<(String, Count)>,
    /// With [`AnalyzeOptions::details`]: the atomic sets, groups of two or
    /// more elements that are present together in every valid
    /// configuration (dead elements left out), in element order.
    pub atomic: Vec<Vec<String>>,
    /// With [`AnalyzeOptions::export`]: the variability model (the valid
    /// configurations) in that format.
    pub export: Option<String>,
    /// With [`AnalyzeOptions::why`]: why the dead and core elements and
    /// the irrelevant inputs are so, and the written conditions that
    /// always or never hold.
    pub why: Option<Why>,
    /// Probable mistakes in the template (the lint pass, preset
    /// assignments to undeclared inputs), as `v4t resolve` reports them.
    pub warnings: Vec<crate::Diagnostic>,
}

/// A preset resolved on its own (`v4t resolve --presets NAME`).
#[derive(Clone, Debug)]
pub struct Preset {
    /// The preset's name.
    pub name: String,
    /// Why it does not resolve, if it does not.
    pub error: Option<crate::Error>,
    /// An earlier preset that gives the same topology, if any.
    pub same_as: Option<String>,
}

/// A variability input and its domain.
#[derive(Clone, Debug)]
pub struct Input {
    /// The input's name.
    pub name: String,
    /// The values the analysis assigns it.
    pub values: Vec<Value>,
    /// Per value: whether it stands for values the template neither
    /// mentions nor declares (`other`; the input has no declared domain).
    pub undeclared: Vec<bool>,
}

impl From<&InputDomain> for Input {
    fn from(d: &InputDomain) -> Input {
        Input {
            name: d.name.clone(),
            values: d.values.clone(),
            undeclared: d.undeclared.clone(),
        }
    }
}

/// Configurations that fail for the same reason.
#[derive(Clone, Debug)]
pub struct FailureGroup {
    /// The error resolution reports (`Could not solve` when no solution exists).
    pub error: crate::Error,
    /// How many configurations fail this way (a lower bound if not exact).
    pub configurations: Count,
    /// One of them: a value for every input, in definition order (`None`
    /// only where a count stopped at its budget).
    pub witness: Option<Vec<(String, Value)>>,
    /// For `Could not solve`: a subset-minimal part of the witness that no
    /// configuration resolves with (each of these values is needed).
    pub conflict: Option<Vec<(String, Value)>>,
    /// Whether every configuration of the group gives some input without a
    /// declared domain a value the template does not mention (`other`):
    /// likely no failure of the template but a value nobody means to
    /// assign; declaring the input's `valid_values` removes them.
    pub undeclared: bool,
}

impl Analysis {
    /// Whether some configuration the model allows fails (counting the
    /// groups of undeclared values only if `strict`) or a preset fails.
    pub fn fails(&self, strict: bool) -> bool {
        self.failures.iter().any(|f| strict || !f.undeclared)
            || self.presets.iter().any(|p| p.error.is_some())
    }
}

/// What rules configurations out of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Excluder {
    /// The input feature model (`requires`, `excludes`, `alternatives`, ...).
    FeatureModel,
    /// The declared `variability.constraints`.
    Constraints,
}

/// Configurations the template's model rules out.
#[derive(Clone, Debug)]
pub struct Exclusion {
    /// What rules them out.
    pub by: Excluder,
    /// How many (a lower bound if not exact).
    pub configurations: Count,
    /// The smallest of them, as in [`FailureGroup::witness`].
    pub witness: Option<Vec<(String, Value)>>,
    /// Why the witness is ruled out: a subset-minimal set of its input
    /// values and of the rules or constraints (with their locations) that
    /// rule it out; dropping any one of them allows it.
    pub reasons: Vec<Reason>,
}

/// The stages [`analyze_observed`] reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyzeStage {
    /// Loading, enrichment and the resolver graph.
    Prepare,
    /// The family encoding.
    Encode,
    /// Counting the configurations failing before solving (feature model,
    /// evaluation errors).
    Failures,
    /// Counting the configurations without a solution.
    Unsolvable,
    /// Whether the inputs decide the topology.
    Determined,
    /// The checks as literals, counting the configurations failing them.
    Checks,
    /// Counting the valid configurations.
    Configurations,
    /// Counting the topologies.
    Topologies,
    /// The inputs that never change the topology.
    Irrelevant,
    /// Dead and core elements.
    Backbone,
    /// Sampling and the per-element details.
    Sample,
    /// Why elements are dead or core and inputs irrelevant (`why`).
    Why,
    /// Listing topologies (`enumerate`).
    Enumerate,
    /// Validating one resolved template per topology (`validate`).
    Validate,
    /// Resolving the presets.
    Presets,
}

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
    let mut warnings = Vec::new();
    let (mut prepared, presets) =
        prepare_with_presets(sources, template, loader, options.enrich, &mut warnings)?;
    observe(AnalyzeStage::Prepare);
    let (types, now_ms) = (prepared.files.system(), options.now_ms.unwrap_or(0.0));
    let problem = family_problem((&prepared.doc).into(), &prepared.graph, &types, now_ms)
        .map_err(code(Code::InvalidCondition))?;
    // Unless a later stage encodes the template again (the presets, `why`,
    // validating variants), what only encoding reads goes now, as when
    // resolving: on a large template it is an eighth of the peak.
    if presets.is_empty() && !options.why && options.validate == 0 {
        prepared.graph.release_encoded();
    }
    observe(AnalyzeStage::Encode);
    let (graph, types) = (&prepared.graph, &types);
    let doc = NodeRef::from(&prepared.doc);
    let (mut analysis, mut f) =
        analyse_family(doc, (graph, types), problem, options, now_ms, observe)?;
    analysis.warnings = warnings;
    analysis.validated = (options.validate > 0).then(|| {
        let variant = Variants {
            prepared: &prepared,
            types,
            sources: &mut *sources,
            loader,
            now_ms,
        };
        let (groups, validated) = f.validation_failures(variant, options.validate);
        analysis.failures.extend(groups);
        validated
    });
    observe(AnalyzeStage::Validate);
    analysis.presets = resolve_presets(doc, graph, (types, sources), presets, now_ms);
    observe(AnalyzeStage::Presets);
    Ok(analysis)
}

/// The analysis of the family `problem` of a prepared template `doc` with
/// its graph, up to the stages that resolve single configurations
/// (validating topologies, the presets: left empty), and the family
/// problem for them.
fn analyse_family<'o>(
    doc: NodeRef<'_>,
    (graph, types): (&Graph, &TypeSystem<'_>),
    problem: FamilyProblem,
    options: &'o AnalyzeOptions,
    now_ms: f64,
    observe: &mut dyn FnMut(AnalyzeStage),
) -> Result<(Analysis, Family<'o>)> {
    let (mut f, mut domains) = Family::with_domains(doc, problem, options)?;
    let mut excluded: Vec<Exclusion> = domains.outside_feature_model(&f.inputs, &options.budget);
    let (mut failures, failed) = f.evaluation_failures(&mut domains);
    observe(AnalyzeStage::Failures);

    // From here on, only the configurations without evaluation errors.
    failures.extend(f.unsolvable(&mut domains, &failed));
    let redundant = f.redundant_constraints(doc);
    excluded.extend(f.ruled_out_by_constraints(doc));
    let mut unmodelled = Vec::new();
    if check::present_hosting_cycle(graph, &|_| true).is_some() {
        unmodelled.push("hosting cycles among present nodes (the hosting relations form a cycle in the template)".to_string());
    }
    observe(AnalyzeStage::Unsolvable);
    let determined = f.determined();
    observe(AnalyzeStage::Determined);
    failures.extend(f.check_failures(doc, graph, types, determined)?);
    observe(AnalyzeStage::Checks);
    // From here on, only the valid configurations.
    let valid = f.allowed_count();
    observe(AnalyzeStage::Configurations);
    let topologies = f.topologies(determined);
    observe(AnalyzeStage::Topologies);
    let irrelevant = f.irrelevant(determined, &topologies);
    observe(AnalyzeStage::Irrelevant);
    let (dead, core) = f.dead_and_core(graph, determined);
    observe(AnalyzeStage::Backbone);
    let mut sample = options.sample.map(|t| f.t_wise(t)).unwrap_or_default();
    if let Some((n, seed)) = options.random {
        sample.extend(f.random(n, seed));
    }
    let (commonality, atomic) = if options.details {
        f.commonality_and_atomic_sets(graph, (&dead, &core), determined)
    } else {
        (Vec::new(), Vec::new())
    };
    let export = options.export.map(|format| f.export(format)).transpose()?;
    observe(AnalyzeStage::Sample);
    let found = (&dead, &core, &irrelevant[..]);
    let why = options
        .why
        .then(|| why::why(doc, graph, types, now_ms, found))
        .transpose()?;
    if options.why {
        observe(AnalyzeStage::Why);
    }
    let enumerated = (options.enumerate > 0).then(|| f.enumerate(graph, options.enumerate));
    observe(AnalyzeStage::Enumerate);
    let analysis = Analysis {
        inputs: f.inputs.iter().map(Input::from).collect(),
        configurations: f.configurations.clone(),
        valid,
        topologies,
        determined,
        irrelevant,
        dead,
        core,
        failures,
        excluded,
        sample,
        redundant,
        commonality,
        atomic,
        export,
        why,
        enumerated,
        unmodelled,
        presets: Vec::new(),
        validated: None,
        warnings: Vec::new(),
    };
    Ok((analysis, f))
}

/// Each preset's name and assignments (or why they cannot be assigned).
type Presets = Vec<(String, Result<Map>)>;

/// The prepared template and each preset's assignments, read where
/// resolving reads them.
fn prepare_with_presets(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    enrich: bool,
    warnings: &mut Vec<crate::Diagnostic>,
) -> Result<(crate::Prepared, Presets)> {
    let mut presets = Vec::new();
    let prepared = prepare(
        sources,
        template,
        loader,
        crate::enrichment(enrich),
        &mut |doc, warnings| {
            for name in preset_names(doc.into()) {
                let assigned =
                    crate::inputs::assign(doc, std::slice::from_ref(&name), None, warnings)
                        .map_err(code(Code::InvalidInput));
                presets.push((name, assigned));
            }
            Ok(())
        },
        &mut |_: Stage| {},
        warnings,
    )?;
    Ok((prepared, presets))
}

/// What resolving and validating configurations of the prepared template
/// needs.
struct Variants<'a, 't> {
    prepared: &'a crate::Prepared,
    types: &'a TypeSystem<'t>,
    sources: &'a mut Sources,
    loader: &'a mut dyn Loader,
    now_ms: f64,
}

impl Variants<'_, '_> {
    /// The first error `v4t validate` reports for the resolved template of
    /// configuration `assigned` (`None` if it is valid or does not resolve:
    /// the other checks, the TOSCA 2.0 references among them, report those).
    fn first_error(&mut self, assigned: Map) -> Option<Error> {
        let p = self.prepared;
        let (doc, graph, types) = (&p.doc, &p.graph, self.types);
        let solution =
            crate::solve_checked(doc, graph, (types, self.sources), assigned, self.now_ms).ok()?;
        crate::check_references(doc, graph, &solution, types).ok()?;
        // Copied from: the prepared template serves every configuration.
        let source = crate::transform::Source::Copied(doc.into());
        let resolved = crate::transform::transform(source, graph, &solution, &p.loaded, types);
        let resolved = resolved.ok()?;
        // The template's place: its imports are relative to it.
        let path = crate::load::template_path(self.sources, doc.span.source);
        let loaded = v4t_tosca::load_tree(self.sources, self.loader, &path, resolved);
        let ts = v4t_tosca::TypeSystem::build(&loaded);
        let errors = v4t_tosca::validate(&ts, self.sources).into_sorted();
        errors
            .into_iter()
            .find(|d| d.severity == crate::Severity::Error)
            .map(Error::from)
    }
}

/// The names of the presets in `variability.presets`, in order.
fn preset_names(doc: NodeRef<'_>) -> Vec<String> {
    crate::document::variability_entry(doc, "presets")
        .and_then(NodeRef::as_map)
        .map(|m| m.keys().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Resolves each preset's configuration on the prepared graph (a handful
/// of configurations, solved like `v4t resolve --presets NAME` after its
/// graph stage) and compares the topologies.
fn resolve_presets(
    doc: NodeRef<'_>,
    graph: &Graph,
    (types, sources): (&TypeSystem, &Sources),
    presets: Vec<(String, Result<Map>)>,
    now_ms: f64,
) -> Vec<Preset> {
    let mut out: Vec<Preset> = Vec::new();
    // Each topology seen, with the first preset that gives it.
    let mut topologies: SeededMap<Vec<bool>, usize> = SeededMap::default();
    for (name, assigned) in presets {
        // With the codes resolving gives each stage's errors.
        let outcome = assigned.and_then(|assigned| {
            let solution = crate::solve_checked(doc, graph, (types, sources), assigned, now_ms)?;
            crate::check_references(doc, graph, &solution, types)?;
            Ok(solution.present)
        });
        let (error, same_as) = match outcome {
            Ok(present) => {
                let first = *topologies.entry(present).or_insert(out.len());
                (None, (first < out.len()).then(|| out[first].name.clone()))
            }
            Err(e) => (Some(e), None),
        };
        out.push(Preset {
            name,
            error,
            same_as,
        });
    }
    out
}

/// The family problem with the literals the questions are about.
struct Family<'o> {
    sat: Solver,
    inputs: Vec<InputDomain>,
    /// Every element's presence literal (element order) and, by element id.
    presence: Vec<(ElementId, Lit)>,
    by_id: Vec<Lit>,
    failures: Vec<Failure>,
    /// The properties whose `expression` fails under some inputs
    /// ([`FamilyProblem::values`]), taken by [`Family::check_failures`].
    values: Vec<(ElementId, Vec<Failure>)>,
    input_lits: Vec<Lit>,
    presence_lits: Vec<Lit>,
    configurations: Natural,
    options: &'o AnalyzeOptions,
    /// The requirements of the declared constraints (index, literal), not
    /// required until [`Family::ruled_out_by_constraints`].
    declared: Vec<(u32, Lit)>,
    /// True in the configurations without undeclared values ([`no_other`]).
    no_other: Lit,
    /// How many configurations the problem allows now, where an earlier
    /// count tells (a count of the whole problem costs as much as a copy
    /// of it): set by [`Family::unsolvable`], kept up to date as the
    /// constraints and the checks exclude configurations.
    allowed: Option<Count>,
}

impl<'o> Family<'o> {
    /// The family problem restricted to the input feature model, and the
    /// domain solver beside it (both with the feature model's rules and
    /// the literal of "no undeclared value").
    fn with_domains(
        doc: NodeRef<'_>,
        problem: FamilyProblem,
        options: &'o AnalyzeOptions,
    ) -> Result<(Family<'o>, DomainSolver)> {
        let mut f = Family::new(problem, options);
        let mut domains = DomainSolver::new(&f.inputs);
        let lits: Vec<Vec<Lit>> = f.inputs.iter().map(|d| d.lits.clone()).collect();
        domains.rules = feature_rules(doc, &mut domains.sat, &domains.lits, &f.inputs)?;
        let rule_lits: Vec<Lit> = domains.rules.iter().map(|r| r.0).collect();
        domains.feature_model = domains.sat.and(&rule_lits);
        domains.no_other = no_other(&mut domains.sat, &domains.lits, &f.inputs);
        let rules = feature_rules(doc, &mut f.sat, &lits, &f.inputs)?;
        let rule_lits: Vec<Lit> = rules.iter().map(|r| r.0).collect();
        let in_family = f.sat.and(&rule_lits);
        f.sat.require(in_family);
        f.no_other = no_other(&mut f.sat, &lits, &f.inputs);
        Ok((f, domains))
    }

    fn new(p: FamilyProblem, options: &'o AnalyzeOptions) -> Family<'o> {
        let input_lits = p
            .inputs
            .iter()
            .flat_map(|d| d.lits.iter().copied())
            .collect();
        let presence_lits = p.presence.iter().map(|&(_, l)| l).collect();
        let configurations = p.inputs.iter().fold(Natural::ONE, |acc, d| {
            acc.mul(&Natural::from(d.values.len() as u64))
        });
        let mut by_id = vec![p.sat.constant(false); p.presence.len()];
        for &(id, l) in &p.presence {
            if let Some(slot) = by_id.get_mut(id.0 as usize) {
                *slot = l;
            } else {
                by_id.resize(id.0 as usize + 1, p.sat.constant(false));
                by_id[id.0 as usize] = l;
            }
        }
        let no_other = p.sat.truth();
        Family {
            sat: p.sat,
            inputs: p.inputs,
            presence: p.presence,
            by_id,
            failures: p.failures,
            values: p.values,
            input_lits,
            presence_lits,
            configurations,
            options,
            declared: p.declared,
            no_other,
            allowed: None,
        }
    }

    /// The configurations in which a value expression fails, by message,
    /// and how many fail before solving at all (outside the feature model
    /// or with such an error); afterwards the problem excludes them. They
    /// depend on the inputs only, so they are counted over the domains.
    fn evaluation_failures(&mut self, domains: &mut DomainSolver) -> (Vec<FailureGroup>, Count) {
        let budget = &self.options.budget;
        let mut groups = Vec::new();
        // The feature model is checked first (before anything is
        // evaluated): configurations outside it are excluded, no failures.
        let mut earlier = !domains.feature_model;
        // A configuration fails with the first failing combination it agrees
        // with (in resolving's order), grouped by message.
        let mut firsts: Vec<(Error, Vec<Lit>)> = Vec::new();
        for f in &self.failures {
            let failing = domains.any_of(&f.combinations);
            let first = domains.sat.and(&[failing, !earlier]);
            earlier = domains.sat.or(&[earlier, failing]);
            match firsts
                .iter_mut()
                .find(|(e, _)| e.message == f.error.message)
            {
                Some((_, lits)) => lits.push(first),
                None => firsts.push((f.error.clone(), vec![first])),
            }
        }
        for (error, lits) in firsts {
            let group = domains.sat.or(&lits);
            groups.extend(domains.space(&self.inputs).groups(&error, group, budget));
        }
        domains.failed = earlier;
        let failed = domains.sat.count(&[earlier], &domains.all, budget);
        for f in &self.failures {
            for combination in &f.combinations {
                let clause: Vec<Lit> = combination
                    .iter()
                    .map(|&(i, v)| !self.inputs[i].lits[v])
                    .collect();
                self.sat.add_clause(&clause);
            }
        }
        (groups, failed)
    }

    /// How many configurations the problem allows now: known from the
    /// earlier counts where they were exact, else counted.
    fn allowed_count(&mut self) -> Count {
        let known = self.allowed.clone().filter(|c| c.exact);
        #[cfg(debug_assertions)]
        if let Some(known) = &known {
            let counted = self.sat.count(&[], &self.input_lits, &self.options.budget);
            debug_assert!(
                !counted.exact || counted == *known,
                "{counted:?} != {known:?}"
            );
        }
        known.unwrap_or_else(|| self.sat.count(&[], &self.input_lits, &self.options.budget))
    }

    /// The search space of the problem's configurations.
    fn space(&mut self) -> Space<'_> {
        Space {
            sat: &mut self.sat,
            inputs: &self.inputs,
            all: &self.input_lits,
            no_other: self.no_other,
        }
    }

    /// The configurations (of those without failures before solving) whose
    /// conditions have no solution even without the declared constraints:
    /// "Could not solve", with or without undeclared values.
    fn unsolvable(&mut self, domains: &mut DomainSolver, failed: &Count) -> Vec<FailureGroup> {
        let budget = self.options.budget;
        let solvable = self.sat.count(&[], &self.input_lits, &budget);
        self.allowed = Some(solvable.clone());
        let unsolvable = self
            .configurations
            .checked_sub(&failed.value)
            .and_then(|rest| rest.checked_sub(&solvable.value))
            .unwrap_or(Natural::ZERO);
        if unsolvable.is_zero() {
            return Vec::new();
        }
        let error = crate::solve::unsatisfiable();
        if !(solvable.exact && failed.exact) {
            return self.unsolvable_shown(domains, &error);
        }
        let total = Count {
            value: unsolvable,
            exact: true,
        };
        let group = |f: &mut Self, d: &mut DomainSolver, configurations, (fd, ff), undeclared| {
            let (witness, conflict) = f.unsolvable_witness(d, (fd, ff), usize::MAX).unzip();
            FailureGroup {
                error: error.clone(),
                configurations,
                witness,
                conflict,
                undeclared,
            }
        };
        if self.no_other == self.sat.truth() {
            let (fd, ff) = (domains.sat.truth(), self.sat.truth());
            return vec![group(self, domains, total, (fd, ff), false)];
        }
        // Split by undeclared values: the same difference among the
        // configurations without them.
        let (fd, ff) = (domains.no_other, self.no_other);
        let candidates = domains
            .sat
            .count(&[!domains.failed, fd], &domains.all, &budget);
        let solvable = self.sat.count(&[ff], &self.input_lits, &budget);
        let declared = Count {
            value: (candidates.value.checked_sub(&solvable.value)).unwrap_or(Natural::ZERO),
            exact: candidates.exact && solvable.exact,
        };
        let rest = Count {
            value: (total.value.checked_sub(&declared.value)).unwrap_or(Natural::ZERO),
            exact: declared.exact,
        };
        let mut out = Vec::new();
        if !declared.value.is_zero() {
            out.push(group(self, domains, declared, (fd, ff), false));
        }
        if !rest.value.is_zero() {
            out.push(group(self, domains, rest, (!fd, !ff), true));
        }
        out
    }

    /// [`Self::unsolvable`] where a count ran out of its budget: the number
    /// of configurations less the failing and the solvable ones is then no
    /// lower bound (there may be more solvable ones than counted), so each
    /// group, with or without undeclared values, is claimed only with a
    /// configuration shown to have no solution (a minimal core), as "at
    /// least 1".
    fn unsolvable_shown(&mut self, domains: &mut DomainSolver, error: &Error) -> Vec<FailureGroup> {
        let groups = if self.no_other == self.sat.truth() {
            vec![((domains.sat.truth(), self.sat.truth()), false)]
        } else {
            let (fd, ff) = (domains.no_other, self.no_other);
            vec![((fd, ff), false), ((!fd, !ff), true)]
        };
        let one = Count {
            value: Natural::ONE,
            exact: false,
        };
        (groups.into_iter())
            .filter_map(|(lits, undeclared)| {
                let (witness, conflict) =
                    self.unsolvable_witness(domains, lits, WITNESS_QUESTIONS_PAST_BUDGET)?;
                Some(FailureGroup {
                    error: error.clone(),
                    configurations: one.clone(),
                    witness: Some(witness),
                    conflict: Some(conflict),
                    undeclared,
                })
            })
            .collect()
    }

    /// The configurations with a solution that the declared constraints
    /// rule out, with why the smallest of them is; afterwards the problem
    /// requires the constraints.
    fn ruled_out_by_constraints(&mut self, doc: NodeRef<'_>) -> Option<Exclusion> {
        let budget = self.options.budget;
        let lits: Vec<Lit> = self.declared.iter().map(|&(_, l)| l).collect();
        // Taken before the gate of all constraints, which ties every part
        // of the problem together.
        let mut parts = (lits.len() > 1).then(|| self.sat.split_copy());
        let declared = self.sat.and(&lits);
        if declared == self.sat.truth() {
            return None;
        }
        let solvable = self.allowed_count();
        let allowed = self.sat.count(&[declared], &self.input_lits, &budget);
        self.allowed = Some(allowed.clone());
        let ruled_out = solvable.value.checked_sub(&allowed.value);
        let exact = solvable.exact && allowed.exact;
        // Where a count ran out, the difference is no bound at all (either
        // count may be short): a witness is looked for all the same.
        let ruled_out = if exact { ruled_out } else { Some(Natural::ONE) };
        let exclusion = ruled_out.filter(|n| !n.is_zero()).and_then(|value| {
            // Where the inputs decide the constraints, a configuration with
            // a solution is ruled out exactly when its solution violates
            // them: one satisfiability question per prefix instead of two
            // counts.
            let decided = !self.sat.can_differ(&self.input_lits, &[declared]);
            let chosen = match parts.as_mut().filter(|_| decided) {
                // The smallest configuration that violates some constraint,
                // each constraint asked of its part: where the value literals
                // are preferred true in order, the first value of each input
                // that can be is taken.
                Some(split) => {
                    let violated: Vec<Lit> = lits.iter().map(|&l| !l).collect();
                    let preferred: Vec<Lit> = self.input_lits.iter().map(|&l| !l).collect();
                    split.smallest_of_any(&violated, &preferred).map(|values| {
                        let values: Vec<bool> = values.into_iter().map(|v| !v).collect();
                        chosen_values(&values, &self.inputs)
                    })
                }
                None => first_difference(&self.inputs, &mut |prefix| {
                    let mut prefix: Vec<Lit> = prefix
                        .iter()
                        .map(|&(i, v)| self.inputs[i].lits[v])
                        .collect();
                    if decided {
                        prefix.push(!declared);
                        return self.sat.solve(&prefix);
                    }
                    let wider = self.sat.count(&prefix, &self.input_lits, &budget).value;
                    let mut narrower = prefix;
                    narrower.push(declared);
                    wider > self.sat.count(&narrower, &self.input_lits, &budget).value
                }),
            };
            // Where a count ran out, the exclusion is claimed only with a
            // configuration shown to be ruled out, as "at least 1".
            let configurations = if exact {
                Count { value, exact }
            } else {
                let values = |c: &Vec<usize>| -> Vec<Lit> {
                    (c.iter().zip(&self.inputs))
                        .map(|(&v, d)| d.lits[v])
                        .collect()
                };
                let shown = chosen.as_ref().map(values).is_some_and(|mut values| {
                    let solvable = self.sat.solve(&values);
                    values.push(declared);
                    solvable && !self.sat.solve(&values)
                });
                if !shown {
                    return None;
                }
                Count {
                    value: Natural::ONE,
                    exact: false,
                }
            };
            let (witness, reasons) = match chosen {
                Some(chosen) => {
                    let reasons = self.why_ruled_out(doc, &chosen);
                    (Some(named(&chosen, &self.inputs)), reasons)
                }
                None => (None, Vec::new()),
            };
            Some(Exclusion {
                by: Excluder::Constraints,
                configurations,
                witness,
                reasons,
            })
        });
        self.sat.require(declared);
        exclusion
    }

    /// The declared constraints the rest of the model implies: no solution
    /// violates one while the others hold. Asked before they are required.
    fn redundant_constraints(&mut self, doc: NodeRef<'_>) -> Vec<Reason> {
        let list = crate::document::variability_entry(doc, "constraints").and_then(NodeRef::as_seq);
        // Each constraint's index and literals (consecutive in `declared`).
        let mut indices: Vec<u32> = Vec::new();
        let mut lits: Vec<Vec<Lit>> = Vec::new();
        for &(index, l) in &self.declared {
            match (indices.last(), lits.last_mut()) {
                (Some(&i), Some(own)) if i == index => own.push(l),
                _ => {
                    indices.push(index);
                    lits.push(vec![l]);
                }
            }
        }
        if indices.is_empty() {
            return Vec::new();
        }
        let violable = self.sat.split_copy().each_violable(&lits);
        (indices.into_iter().zip(violable))
            .filter(|&(_, violable)| !violable)
            .map(|(index, _)| constraint_reason(list.and_then(|l| l.get(index as usize))))
            .collect()
    }

    /// A subset-minimal set of the values of configuration `chosen` and of
    /// the declared constraints under which it has no solution.
    fn why_ruled_out(&mut self, doc: NodeRef<'_>, chosen: &[usize]) -> Vec<Reason> {
        let values: Vec<Lit> = chosen
            .iter()
            .zip(&self.inputs)
            .map(|(&v, d)| d.lits[v])
            .collect();
        let mut assumptions = values.clone();
        assumptions.extend(self.declared.iter().map(|&(_, l)| l));
        let core = self.sat.minimal_core(&assumptions).unwrap_or_default();
        let mut reasons = value_reasons(&core, chosen, &self.inputs);
        let list = crate::document::variability_entry(doc, "constraints").and_then(NodeRef::as_seq);
        let mut seen = Vec::new();
        for &(index, l) in &self.declared {
            if !core.contains(&l) || seen.contains(&index) {
                continue;
            }
            seen.push(index);
            let node = list.and_then(|list| list.get(index as usize));
            reasons.push(constraint_reason(node));
        }
        reasons
    }

    /// The configurations failing after solving, grouped by message: where
    /// a present property's `expression` fails or gives no value (resolving
    /// evaluates them first, in property order), else a consistency or
    /// semantic check or (on TOSCA 2.0) a reference check. A configuration
    /// fails with the first, in resolving's order. Afterwards the problem
    /// excludes them.
    fn check_failures(
        &mut self,
        doc: NodeRef<'_>,
        graph: &Graph,
        types: &TypeSystem<'_>,
        determined: bool,
    ) -> Result<Vec<FailureGroup>> {
        let mut values = Vec::new();
        for (p, failures) in std::mem::take(&mut self.values) {
            let present = self.by_id[p.0 as usize];
            for failure in failures {
                let inputs = &self.inputs;
                let failing = any_of(
                    &mut self.sat,
                    |i, v| inputs[i].lits[v],
                    &failure.combinations,
                );
                let when = self.sat.and(&[present, failing]);
                let error = failure.error.or_code(Code::InvalidCondition);
                values.push((Found::Error(Box::new(error)), when));
            }
        }
        let mut symbolic = Symbolic {
            sat: &mut self.sat,
            by_id: &self.by_id,
            violations: values,
        };
        check::checks(graph, &mut symbolic)?;
        crate::references::checks(doc, graph, types, &mut symbolic)?;
        let violations = symbolic.violations;
        let lits: Vec<Lit> = violations.iter().map(|&(_, v)| v).collect();
        // A configuration fails with its first violation, grouped by
        // message in the order of their first position. Most violations
        // cannot come first (each element's has its own message): only the
        // positions that can get an error and a literal.
        let possible = if determined {
            self.sat.possible_firsts_determined(&self.input_lits, &lits)
        } else {
            self.sat.split_copy().possible_firsts(&lits)
        };
        let mut groups: Vec<(Error, Vec<usize>)> = Vec::new();
        for &at in &possible {
            let error = violations[at].0.error(graph);
            match groups.iter_mut().find(|(e, _)| e.message == error.message) {
                Some((_, positions)) => positions.push(at),
                None => groups.push((error, vec![at])),
            }
        }
        let failures = if determined && self.no_other == self.sat.truth() {
            self.first_violation_groups(groups, &possible, &lits)
        } else {
            let found: Vec<(Error, Lit)> = groups
                .into_iter()
                .map(|(error, positions)| {
                    let group = self.sat.first_of(&lits, &positions);
                    (error.or_code(Code::Inconsistent), group)
                })
                .collect();
            let budget = self.options.budget;
            let mut failures = Vec::new();
            for (error, group) in found {
                failures.extend(self.space().groups(&error, group, &budget));
            }
            failures
        };
        // Where the inputs decide every presence, a configuration has one
        // first violation: it fails in one group and one part (with or
        // without undeclared values). Otherwise its models may fail
        // differently, or some not at all.
        if !failures.is_empty() {
            self.allowed = self
                .allowed
                .take()
                .filter(|_| determined)
                .and_then(|allowed| {
                    let failing = failures.iter().try_fold(Natural::ZERO, |sum, g| {
                        g.configurations
                            .exact
                            .then(|| sum.add(&g.configurations.value))
                    })?;
                    Some(Count {
                        value: allowed.value.checked_sub(&failing)?,
                        exact: allowed.exact,
                    })
                });
        }
        // From here on no check is violated.
        for &v in &lits {
            self.sat.require(!v);
        }
        Ok(failures)
    }

    /// The failure groups of first violations (`groups`: a message and its
    /// positions among `possible`, the positions of `lits` that can come
    /// first) where the inputs decide every presence and no input has
    /// undeclared values: then a configuration has one first violation,
    /// so a group's configurations are the sum of its positions' and its
    /// smallest configuration the smallest of theirs, each asked part by
    /// part ([`v4t_sat::Split::first_events`]) instead of the whole
    /// problem per group (quadratic with many failing components).
    fn first_violation_groups(
        &mut self,
        groups: Vec<(Error, Vec<usize>)>,
        possible: &[usize],
        lits: &[Lit],
    ) -> Vec<FailureGroup> {
        if groups.is_empty() {
            return Vec::new();
        }
        let firsts: Vec<Lit> = possible.iter().map(|&at| lits[at]).collect();
        let events =
            (self.sat.split_copy()).first_events(&firsts, &self.input_lits, &self.options.budget);
        let mut failures = Vec::new();
        for (error, positions) in groups {
            let of_group = || {
                positions
                    .iter()
                    .filter_map(|at| possible.binary_search(at).ok())
                    .map(|k| &events[k])
            };
            let configurations: Count = of_group().map(|e| e.count.clone()).sum();
            if configurations.value.is_zero() && configurations.exact {
                continue;
            }
            let smallest = of_group().filter_map(|e| e.smallest.as_deref()).min();
            failures.push(FailureGroup {
                error: error.or_code(Code::Inconsistent),
                configurations,
                witness: smallest.map(|values| named_values(values, &self.inputs)),
                conflict: None,
                undeclared: false,
            });
        }
        failures
    }

    /// A configuration whose conditions have no solution, with `fd` in
    /// the domains and `ff` in the problem: the smallest configuration
    /// without failures before solving (over the domains) that has no
    /// solution (over the problem). With it, the subset-minimal part of it
    /// that has no solution. `None` if a count was only a lower bound and
    /// the search went wrong, or after `questions` questions about prefixes
    /// (a configuration's own are two solves, a shorter prefix's two counts).
    fn unsolvable_witness(
        &mut self,
        domains: &mut DomainSolver,
        (fd, ff): (Lit, Lit),
        mut questions: usize,
    ) -> Option<(Named, Named)> {
        let budget = self.options.budget;
        let chosen = first_difference(&self.inputs, &mut |prefix| {
            // Past the last question, no prefix leads to a witness.
            let Some(left) = questions.checked_sub(1) else {
                return false;
            };
            questions = left;
            let mut in_domains = vec![!domains.failed, fd];
            in_domains.extend(prefix.iter().map(|&(i, v)| domains.lits[i][v]));
            let mut in_problem = vec![ff];
            in_problem.extend(prefix.iter().map(|&(i, v)| self.inputs[i].lits[v]));
            if prefix.len() == self.inputs.len() {
                // One configuration: the two counts are two solves.
                return domains.sat.solve(&in_domains) && !self.sat.solve(&in_problem);
            }
            let candidates = domains.sat.count(&in_domains, &domains.all, &budget).value;
            candidates > self.sat.count(&in_problem, &self.input_lits, &budget).value
        })?;
        let values: Vec<Lit> = chosen
            .iter()
            .zip(&self.inputs)
            .map(|(&v, d)| d.lits[v])
            .collect();
        let core = self.sat.minimal_core(&values)?;
        let conflict = chosen
            .iter()
            .zip(&self.inputs)
            .filter(|&(&v, d)| core.contains(&d.lits[v]))
            .map(|(&v, d)| (d.name.clone(), d.values[v].clone()))
            .collect();
        Some((named(&chosen, &self.inputs), conflict))
    }

    /// The number of distinct topologies of the valid configurations;
    /// where the inputs decide every presence (`determined`), one per
    /// assignment of the inputs at most.
    fn topologies(&mut self, determined: bool) -> Count {
        let budget = &self.options.budget;
        if determined {
            (self.sat).count_determined(&self.input_lits, &self.presence_lits, budget)
        } else {
            self.sat.count(&[], &self.presence_lits, budget)
        }
    }

    /// Whether the inputs decide every presence (Padoa's method). Asked
    /// before the checks become constraints: resolution picks a solution
    /// first and checks it afterwards, so a second solution that fails a
    /// check still makes the choice the optimiser's.
    fn determined(&mut self) -> bool {
        !self.sat.can_differ(&self.input_lits, &self.presence_lits)
    }

    /// The inputs that never change the topology of a valid configuration
    /// (with the other inputs fixed); only known if the inputs decide every
    /// presence (`determined`). With one topology no input changes it; with
    /// one input, it is the only thing that can. Otherwise each part of the
    /// problem is asked about the inputs in it
    /// ([`v4t_sat::Split::can_differ_each`]).
    fn irrelevant(&mut self, determined: bool, topologies: &Count) -> Vec<String> {
        if !determined || self.inputs.is_empty() {
            return Vec::new();
        }
        if topologies.exact && (topologies.value <= Natural::ONE || self.inputs.len() == 1) {
            return self
                .inputs
                .iter()
                .filter(|_| topologies.value <= Natural::ONE)
                .map(|d| d.name.clone())
                .collect();
        }
        let groups: Vec<&[Lit]> = self.inputs.iter().map(|d| &d.lits[..]).collect();
        let mut split = self.sat.split_copy();
        let changes = split.can_differ_each(&self.input_lits, &self.presence_lits, &groups);
        (self.inputs.iter().zip(changes))
            .filter(|&(_, changes)| !changes)
            .map(|(d, _)| d.name.clone())
            .collect()
    }

    /// The ids of the elements absent, and present, in every valid
    /// configuration (internal elements left out).
    fn dead_and_core(&mut self, graph: &Graph, determined: bool) -> (ElementIds, ElementIds) {
        let mut dead = ElementIds::default();
        let mut core = ElementIds::default();
        let implied = if determined {
            (self.sat).backbone_determined(&self.input_lits, &self.presence_lits)
        } else {
            self.sat.split_copy().backbone(&self.presence_lits)
        };
        if let Some(implied) = implied {
            for (&(id, _), i) in self.presence.iter().zip(implied) {
                if graph.is_internal(id) {
                    continue;
                }
                match i {
                    Implied::True => core.push(graph.id(id)),
                    Implied::False => dead.push(graph.id(id)),
                    Implied::Free => {}
                }
            }
        }
        (dead, core)
    }

    /// The valid configurations whose resolved template is no valid TOSCA
    /// (`v4t validate`), grouped by the first error: one configuration per
    /// distinct topology is resolved and validated (the smallest), up to
    /// `limit` topologies; each group counts the configurations of its
    /// topologies. Also how many topologies were validated and whether
    /// that is all of them.
    fn validation_failures(
        &mut self,
        mut variants: Variants<'_, '_>,
        limit: usize,
    ) -> (Vec<FailureGroup>, (usize, bool)) {
        let e = self.sat.split_copy().enumerate(&self.presence_lits, limit);
        let mut groups: Vec<FailureGroup> = Vec::new();
        for model in &e.models {
            let topology: Vec<Lit> = self
                .presence_lits
                .iter()
                .zip(model)
                .map(|(&l, &present)| if present { l } else { !l })
                .collect();
            let Some(witness) = self.space().witness(&topology) else {
                continue;
            };
            let mut assigned = Map::new();
            for (k, v) in &witness {
                assigned.insert(k.as_str(), Node::new(v.clone(), v4t_yaml::Span::NONE));
            }
            let Some(error) = variants.first_error(assigned) else {
                continue;
            };
            let count = self
                .sat
                .count(&topology, &self.input_lits, &self.options.budget);
            match groups.iter_mut().find(|g| g.error.message == error.message) {
                Some(g) => {
                    g.configurations = Count {
                        value: g.configurations.value.add(&count.value),
                        exact: g.configurations.exact && count.exact,
                    };
                }
                None => groups.push(FailureGroup {
                    error,
                    configurations: count,
                    witness: Some(witness),
                    conflict: None,
                    undeclared: false,
                }),
            }
        }
        (groups, (e.models.len(), e.complete))
    }

    /// Up to `limit` topologies (present element ids, internal elements
    /// left out), and whether that is all.
    fn enumerate(&mut self, graph: &Graph, limit: usize) -> (Vec<Vec<String>>, bool) {
        let e = self.sat.split_copy().enumerate(&self.presence_lits, limit);
        let lists = e
            .models
            .iter()
            .map(|m| {
                self.presence
                    .iter()
                    .zip(m)
                    .filter(|&(&(id, _), &p)| p && !graph.is_internal(id))
                    .map(|(&(id, _), _)| graph.id(id).to_string())
                    .collect()
            })
            .collect();
        (lists, e.complete)
    }
}

/// The checks over every configuration: presence literals, violations
/// recorded in check order.
struct Symbolic<'a> {
    sat: &'a mut Solver,
    by_id: &'a [Lit],
    violations: Vec<(Found, Lit)>,
}

/// A violation recorded symbolically: one of `check`'s (its error built
/// where reported), or a reference check's error.
enum Found {
    Check(check::Violation),
    Error(Box<Error>),
}

impl Found {
    fn error(&self, g: &Graph) -> Error {
        match self {
            Found::Check(v) => v.error(g),
            Found::Error(e) => (**e).clone(),
        }
    }
}

impl check::Logic for Symbolic<'_> {
    type B = Lit;
    fn present(&mut self, id: ElementId) -> Lit {
        self.by_id
            .get(id.0 as usize)
            .copied()
            .unwrap_or_else(|| self.sat.constant(false))
    }
    fn is_false(&self, b: Lit) -> bool {
        self.sat.fixed(b) == Some(false)
    }
    fn constant(&self, b: bool) -> Lit {
        self.sat.constant(b)
    }
    fn not(&mut self, b: Lit) -> Lit {
        !b
    }
    fn and(&mut self, xs: &[Lit]) -> Lit {
        self.sat.and(xs)
    }
    fn or(&mut self, xs: &[Lit]) -> Lit {
        self.sat.or(xs)
    }
    fn at_least_two(&mut self, xs: &[Lit]) -> Lit {
        !self.sat.at_most_one(xs)
    }
    fn violation(&mut self, when: Lit, error: impl FnOnce() -> Error) -> Result<()> {
        if !self.is_false(when) {
            self.violations
                .push((Found::Error(Box::new(error())), when));
        }
        Ok(())
    }
    fn violated(&mut self, when: Lit, v: check::Violation) -> Result<()> {
        if !self.is_false(when) {
            self.violations.push((Found::Check(v), when));
        }
        Ok(())
    }
}

/// The rules of the input feature model (2.6) over the value literals
/// `lits` (per input, per value of its domain), each a literal that must
/// hold with its reason: an input's feature variable is true where its
/// value is truthy, as resolving reads it. Empty without a feature model.
fn feature_rules(
    doc: NodeRef<'_>,
    sat: &mut Solver,
    lits: &[Vec<Lit>],
    inputs: &[InputDomain],
) -> Result<Vec<(Lit, Reason)>> {
    let Some(defs) =
        crate::inputs::definitions(doc).filter(|&d| crate::inputs::has_feature_model(d))
    else {
        return Ok(Vec::new());
    };
    let mut free: Vec<(String, Lit)> = Vec::new();
    let mut var = |sat: &mut Solver, name: &str| -> Lit {
        if let Some(i) = inputs.iter().position(|d| d.name == name) {
            let truthy: Vec<Lit> = inputs[i]
                .values
                .iter()
                .zip(&lits[i])
                .filter(|(v, _)| crate::inputs::truthy(v))
                .map(|(_, &l)| l)
                .collect();
            return sat.or(&truthy);
        }
        if let Some((_, l)) = free.iter().find(|(n, _)| n == name) {
            return *l;
        }
        let l = sat.new_var();
        free.push((name.to_string(), l));
        l
    };
    // Every input has a value in every configuration: nothing to precheck.
    let rules = crate::inputs::feature_model(defs, sat, &mut var, &mut |_, _, _| Ok(()))
        .map_err(code(Code::InvalidInput))?;
    Ok(rules
        .iter()
        .map(|r| {
            let message = format!("`{}` of variability input \"{}\"", r.key, r.input);
            (r.lit, Reason::new(ReasonKind::FeatureRule, message, r.span))
        })
        .collect())
}

/// The literal "no input has an undeclared value"
/// ([`InputDomain::undeclared`]) over the value literals `lits`.
fn no_other(sat: &mut Solver, lits: &[Vec<Lit>], inputs: &[InputDomain]) -> Lit {
    let others: Vec<Lit> = inputs
        .iter()
        .zip(lits)
        .flat_map(|(d, ls)| {
            d.undeclared
                .iter()
                .zip(ls)
                .filter(|(&u, _)| u)
                .map(|(_, &l)| !l)
        })
        .collect();
    sat.and(&others)
}

/// The smallest configuration (value indices, lexicographically) found
/// input by input, where `differs(prefix)` tells whether some
/// configuration sought starts with `prefix` ((input, value) pairs). `None`
/// if no value continues a prefix (a count was only a lower bound).
fn first_difference(
    inputs: &[InputDomain],
    differs: &mut dyn FnMut(&[Pick]) -> bool,
) -> Option<Vec<usize>> {
    let mut prefix: Vec<(usize, usize)> = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let v = (0..input.values.len()).find(|&v| {
            prefix.push((i, v));
            let found = differs(&prefix);
            prefix.pop();
            found
        })?;
        prefix.push((i, v));
    }
    Some(prefix.into_iter().map(|(_, v)| v).collect())
}

/// The values of configuration `chosen` whose literals are in `core`, as
/// reasons.
fn value_reasons(core: &[Lit], chosen: &[usize], inputs: &[InputDomain]) -> Vec<Reason> {
    chosen
        .iter()
        .zip(inputs)
        .filter(|&(&v, d)| core.contains(&d.lits[v]))
        .map(|(&v, d)| value_reason(&d.name, &d.values[v]))
        .collect()
}

/// "variability input `name` is `value`" as a reason.
fn value_reason(name: &str, value: &Value) -> Reason {
    let message = format!("variability input \"{name}\" is {}", show_value(value));
    let mut reason = Reason::new(ReasonKind::InputValue, message, v4t_yaml::Span::NONE);
    reason.inputs.push((name.to_string(), value.clone()));
    reason
}

/// A declared constraint as a reason (as `v4t explain` names it).
fn constraint_reason(node: Option<NodeRef<'_>>) -> Reason {
    let readable = node.map(crate::readable::logic);
    let message = match &readable {
        Some(r) => format!("constraint `{r}`"),
        None => "constraint".to_string(),
    };
    let span = node.map_or(v4t_yaml::Span::NONE, NodeRef::span);
    Reason {
        condition: readable,
        ..Reason::new(ReasonKind::Constraint, message, span)
    }
}

/// Configurations over input value literals: a solver, the domains and the
/// literal of "no undeclared value", for questions both the problem and
/// the domain solver answer.
struct Space<'s> {
    sat: &'s mut Solver,
    inputs: &'s [InputDomain],
    /// All value literals, in input order.
    all: &'s [Lit],
    no_other: Lit,
}

impl Space<'_> {
    /// The smallest configuration in which all of `lits` hold
    /// (lexicographically over the value literals).
    fn witness(&mut self, lits: &[Lit]) -> Option<Named> {
        if !self.sat.prefer_false_assuming_on_order(lits, self.all) {
            return None;
        }
        let values: Vec<bool> = self.all.iter().map(|&l| self.sat.value(l)).collect();
        Some(named_values(&values, self.inputs))
    }

    /// The configurations in which `group` holds as failure groups of
    /// `error`: those without undeclared values, and those with (flagged
    /// [`FailureGroup::undeclared`]); empty parts left out.
    fn groups(&mut self, error: &Error, group: Lit, budget: &CountBudget) -> Vec<FailureGroup> {
        let split = self.no_other != self.sat.truth();
        let parts: &[(Lit, bool)] = if split {
            &[(self.no_other, false), (!self.no_other, true)]
        } else {
            &[(self.no_other, false)]
        };
        let mut out = Vec::new();
        for &(part, undeclared) in parts {
            let configurations = self.sat.count(&[group, part], self.all, budget);
            if configurations.value.is_zero() && configurations.exact {
                continue;
            }
            out.push(FailureGroup {
                error: error.clone(),
                configurations,
                witness: self.witness(&[group, part]),
                conflict: None,
                undeclared,
            });
        }
        out
    }
}

/// An input's value: (input index, value index).
type Pick = (usize, usize);

/// Input values by name.
type Named = Vec<(String, Value)>;

/// The configuration whose value literals (all inputs', in input order)
/// have `values`: each input takes its first value whose literal is true.
fn named_values(values: &[bool], inputs: &[InputDomain]) -> Named {
    named(&chosen_values(values, inputs), inputs)
}

/// Each input's first value whose literal has value true in `values` (all
/// inputs' value literals, in input order).
fn chosen_values(values: &[bool], inputs: &[InputDomain]) -> Vec<usize> {
    let mut rest = values;
    inputs
        .iter()
        .map(|d| {
            let (own, later) = rest.split_at(d.values.len().min(rest.len()));
            rest = later;
            own.iter().position(|&v| v).unwrap_or(0)
        })
        .collect()
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
    /// The rules of the input feature model, with their reasons.
    rules: Vec<(Lit, Reason)>,
    /// True in the configurations the input feature model allows.
    feature_model: Lit,
    /// True in the configurations without undeclared values.
    no_other: Lit,
    /// True in the configurations that fail before solving (outside the
    /// feature model, or an evaluation error).
    failed: Lit,
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
        let truth = sat.truth();
        DomainSolver {
            sat,
            lits,
            all,
            rules: Vec::new(),
            feature_model: truth,
            no_other: truth,
            failed: !truth,
        }
    }

    /// The search space of the configurations.
    fn space<'s>(&'s mut self, inputs: &'s [InputDomain]) -> Space<'s> {
        Space {
            sat: &mut self.sat,
            inputs,
            all: &self.all,
            no_other: self.no_other,
        }
    }

    /// The configurations outside the input feature model, with why the
    /// smallest of them is (a subset-minimal set of its values and rules).
    fn outside_feature_model(
        &mut self,
        inputs: &[InputDomain],
        budget: &CountBudget,
    ) -> Vec<Exclusion> {
        let outside = !self.feature_model;
        let configurations = self.sat.count(&[outside], &self.all, budget);
        if configurations.value.is_zero() {
            return Vec::new();
        }
        let witness = self.space(inputs).witness(&[outside]);
        let mut reasons = Vec::new();
        if let Some(w) = &witness {
            let chosen: Vec<usize> = w
                .iter()
                .zip(inputs)
                .map(|((_, v), d)| {
                    let at = d.values.iter().position(|x| v4t_yaml::deep_equal(x, v));
                    at.unwrap_or(0)
                })
                .collect();
            let mut assumptions: Vec<Lit> = chosen
                .iter()
                .zip(&self.lits)
                .map(|(&v, ls)| ls[v])
                .collect();
            assumptions.extend(self.rules.iter().map(|r| r.0));
            let core = self.sat.minimal_core(&assumptions).unwrap_or_default();
            let values: Vec<Lit> = core.clone();
            reasons = chosen
                .iter()
                .zip(inputs)
                .zip(&self.lits)
                .filter(|((&v, _), ls)| values.contains(&ls[v]))
                .map(|((&v, d), _)| value_reason(&d.name, &d.values[v]))
                .collect();
            reasons.extend(
                self.rules
                    .iter()
                    .filter(|r| core.contains(&r.0))
                    .map(|r| r.1.clone()),
            );
        }
        vec![Exclusion {
            by: Excluder::FeatureModel,
            configurations,
            witness,
            reasons,
        }]
    }

    /// A literal true exactly in the configurations that agree with one of
    /// `combinations`.
    fn any_of(&mut self, combinations: &[Vec<(usize, usize)>]) -> Lit {
        let lits = &self.lits;
        any_of(&mut self.sat, |i, v| lits[i][v], combinations)
    }
}

/// A value for text output: JSON for strings and scalars alike.
pub fn show_value(value: &Value) -> String {
    crate::reason::show(value)
}

mod details;
mod element_ids;
mod export;
mod json;
mod sample;
mod why;
pub use element_ids::ElementIds;
pub use export::ExportFormat;
pub use why::{ConditionFact, ElementWhy, InputWhy, Irrelevance, Verdict, Why};

#[cfg(test)]
mod tests;
