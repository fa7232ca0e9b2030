//! Why each element of a variant is present or absent (`v4t explain`,
//! issue 16).
//!
//! A variant is the template under one input assignment (presets, inputs,
//! defaults). For an element, the question is whether the conditions and
//! constraints, under the variant's inputs, leave it another value:
//!
//! * if not, the element is **decided by conditions**: the reasons are a
//!   subset-minimal set of parts of the problem (its own condition, the
//!   conditions of the elements they read, constraints, `implies`, implied
//!   elements) that rule the other value out; switch off any one and the
//!   other value becomes possible (`solve::explain`);
//! * if so, the **optimiser** decided: the best solution with the element's
//!   other value (resolving with the presence fixed) is worse at some
//!   objective (the first whose value differs: its name, the element's
//!   weight in it, both values and the alternative solution's differences),
//!   or, if it is as good at every objective, tie-breaking decided
//!   (document order; see ARCHITECTURE.md).
//!
//! A variant that does not resolve is explained by its error; for "Could
//! not solve" and a violated input feature model, with a subset-minimal
//! conflict (the same parts as the notes of those errors).

use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph, Kind};
use crate::options::{Optimize, TechnologiesMode};
pub use crate::reason::{Read, Reason, ReasonKind};
use crate::solve::alternative::{Alternative, Alternatives};
use crate::solve::explain::Guarded;
use crate::solve::{self, ObjectiveWeights, Solution};
use crate::suggest::did_you_mean;
use crate::types::TypeSystem;
use crate::{
    check, code, prepare_variant, Code, Diagnostic, Loader, ResolveOptions, SourceId, Sources,
};
use v4t_yaml::{Map, NodeRef, Span, Value};

/// What to explain.
#[derive(Clone, Debug, Default)]
pub struct ExplainOptions {
    /// The variant: presets, inputs, clock (as for resolving).
    pub variant: ResolveOptions,
    /// The elements to explain, by id as errors print them
    /// (`node.db`, `property.p@0.node.web`) or by node name; empty: all.
    pub elements: Vec<String>,
}

/// The result of [`explain`].
#[derive(Clone, Debug)]
pub struct Explanation {
    /// Every declared variability input with its value in the variant and
    /// where the value comes from, in definition order.
    pub inputs: Vec<InputValue>,
    /// Why the variant does not resolve, if it does not.
    pub error: Option<Error>,
    /// For "Could not solve" and a violated input feature model: a
    /// subset-minimal conflict (conditions, constraints, rules, values).
    pub conflict: Vec<Reason>,
    /// The elements asked about, in element order, when the variant has a
    /// solution (also when a consistency check then fails).
    pub elements: Vec<ElementExplanation>,
    /// The optimisation objectives of the solution (name, value).
    pub objectives: Vec<(String, u64)>,
    /// Probable mistakes in the template and the inputs, as `v4t resolve`
    /// reports them.
    pub warnings: Vec<Diagnostic>,
}

/// A variability input's value in the variant.
#[derive(Clone, Debug)]
pub struct InputValue {
    /// The input's name.
    pub name: String,
    /// Its value (`None`: it has none).
    pub value: Option<Value>,
    /// Where the value comes from.
    pub origin: InputOrigin,
    /// Where it is written (the preset's or the inputs file's entry, the
    /// default), if known.
    pub span: Span,
}

/// Where a variability input's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputOrigin {
    /// Assigned directly (an inputs file, `--input`).
    Assigned,
    /// The last preset that sets it.
    Preset(String),
    /// The input's `default`.
    Default,
    /// The input's `default_expression`.
    DefaultExpression,
    /// Nothing sets it.
    Unset,
}

/// Why one element is present or absent.
#[derive(Clone, Debug)]
pub struct ElementExplanation {
    /// The element's id (`node.db`).
    pub id: String,
    /// Its display name (`node "db"`).
    pub display: String,
    /// Whether it is present in the variant.
    pub present: bool,
    /// Where it is defined.
    pub span: Span,
    /// What decided it.
    pub decision: Decision,
    /// One line saying why (`absent: its pruning condition is false`).
    pub summary: String,
    /// For a decision by conditions: a subset-minimal set of parts that
    /// rules the other value out, the element's own first.
    pub reasons: Vec<Reason>,
}

/// What decided an element's presence.
#[derive(Clone, Debug)]
pub enum Decision {
    /// The conditions and constraints leave it no other value under the
    /// variant's inputs ([`ElementExplanation::reasons`] say which).
    Conditions,
    /// An optimisation objective: the best solution with the other value
    /// is worse there (the first objective whose value differs).
    Objective {
        /// The objective (`topology`, `scenarios`, `technologies_weight`,
        /// `technologies_count`).
        name: String,
        /// What it optimises, in words.
        goal: String,
        /// Where the option that switches it on is written (unknown where
        /// it is on by default).
        option: Span,
        /// The element's own weight in it, if it is one of its terms (in
        /// the objective's units: weights are scaled to whole numbers).
        weight: Option<u64>,
        /// Its value here.
        value: u64,
        /// Its value in the best solution with the other value.
        alternative_value: u64,
        /// How that solution differs: element ids and their presence there.
        alternative: Vec<(String, bool)>,
    },
    /// Every objective is as good with the other value: tie-breaking
    /// decided (document order).
    Tie {
        /// The tie-breaking rule that applies, in words.
        rule: String,
        /// How the best solution with the other value differs.
        alternative: Vec<(String, bool)>,
    },
}

/// At most this many differences of an alternative solution are listed.
const MAX_DIFFERENCES: usize = 12;

/// Explains the variant of `template` that `options.variant` selects.
pub fn explain(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ExplainOptions,
) -> Result<Explanation> {
    let variant = &options.variant;
    let mut warnings = Vec::new();
    let (prepared, assigned) = prepare_variant(
        sources,
        template,
        loader,
        variant,
        &mut |_| {},
        &mut warnings,
    )?;
    let types = prepared.files.system();
    let wanted = select(&prepared.graph, &options.elements)?;
    let doc = NodeRef::from(&prepared.doc);
    let explanation = explain_prepared(
        doc,
        (&prepared.graph, &types, sources),
        assigned,
        variant,
        &wanted,
    );
    explanation.map(|e| Explanation { warnings, ..e })
}

/// The explanation of the elements `wanted` in the variant `variant`
/// (whose inputs are `assigned`) of the prepared template `doc` with its
/// graph and types, without warnings.
fn explain_prepared(
    doc: NodeRef<'_>,
    (graph, types, sources): (&Graph, &TypeSystem<'_>, &Sources),
    assigned: Map,
    variant: &ResolveOptions,
    wanted: &[ElementId],
) -> Result<Explanation> {
    let now_ms = variant.now_ms.unwrap_or(0.0);
    let mut explanation = Explanation {
        inputs: input_values(doc, &assigned, variant),
        error: None,
        conflict: Vec::new(),
        elements: Vec::new(),
        objectives: Vec::new(),
        warnings: Vec::new(),
    };
    if let Err(e) = crate::inputs::validate(doc, &assigned, now_ms, types, sources) {
        explanation.conflict = crate::inputs::violated_rules(doc, &assigned, now_ms)?;
        explanation.error = Some(e.or_code(Code::InvalidInput));
        return Ok(explanation);
    }
    let solution = match solve::solve_or_conflict(doc, graph, types, assigned.clone(), now_ms) {
        Ok(s) => s,
        Err((e, conflict)) => {
            explanation.error =
                Some(solve::explain::with_notes(e, &conflict).or_code(Code::InvalidCondition));
            explanation.conflict = conflict;
            return Ok(explanation);
        }
    };
    if let Err(e) = check::check(graph, &solution) {
        explanation.error = Some(e.or_code(Code::Inconsistent));
    } else if let Err(e) = crate::check_references(doc, graph, &solution, types) {
        explanation.error = Some(e);
    }
    explanation.inputs = input_values(doc, &solution.inputs, variant);
    let variant = Variant {
        doc,
        graph,
        types,
        inputs: assigned,
        now_ms,
        solution: &solution,
    };
    explanation.elements = variant
        .explain(wanted)
        .map_err(code(Code::InvalidCondition))?;
    explanation.objectives = solution.objectives.clone();
    Ok(explanation)
}

/// The elements named by `names` (ids, else node names), in element
/// order; if `names` is empty, all but the internal ones, in element order
/// but with the type assignments last (they follow their containers).
fn select(graph: &Graph, names: &[String]) -> Result<Vec<ElementId>> {
    if names.is_empty() {
        let shown = |id: &ElementId| !graph.is_internal(*id);
        let (types, rest): (Vec<ElementId>, Vec<ElementId>) = graph
            .ordered()
            .filter(shown)
            .partition(|&id| graph.get(id).kind == Kind::Type);
        return Ok(rest.into_iter().chain(types).collect());
    }
    let mut wanted = vec![false; graph.elements().len()];
    for name in names {
        let mut found = false;
        for id in graph.ordered().filter(|&id| graph.id(id) == name.as_str()) {
            wanted[id.0 as usize] = true;
            found = true;
        }
        if let Some(n) = graph.node(name).filter(|_| !found) {
            wanted[n.0 as usize] = true;
            found = true;
        }
        if !found {
            let ids = graph
                .ordered()
                .filter(|&id| !graph.is_internal(id))
                .map(|id| graph.id(id).to_string())
                .collect::<Vec<_>>();
            let nodes = graph.nodes().iter().map(|&n| graph.name(n));
            let message = format!(
                "No element \"{name}\" in the template{}",
                did_you_mean(name, nodes.chain(ids.iter().map(String::as_str)))
            );
            return Err(Error::coded(Code::UndefinedReference, message, Span::NONE));
        }
    }
    Ok(graph.ordered().filter(|id| wanted[id.0 as usize]).collect())
}

/// Every declared input's value (from `values`, the assignment or the
/// solution's inputs after defaults) and where it comes from.
fn input_values(doc: NodeRef<'_>, values: &Map, variant: &ResolveOptions) -> Vec<InputValue> {
    let Some(definitions) = crate::inputs::definitions(doc) else {
        return Vec::new();
    };
    let presets = crate::document::variability_entry(doc, "presets");
    definitions
        .iter()
        .map(|(k, d)| {
            let name = k.name();
            let direct = variant
                .inputs
                .as_ref()
                .and_then(|i| i.get(name))
                .filter(|v| v.is_defined());
            let preset = variant.presets.iter().rev().find_map(|p| {
                let v = presets?.get(p)?.get("inputs")?.get(name)?;
                v.is_defined().then(|| (p.clone(), v.span()))
            });
            let default = d.get("default").filter(|v| v.is_defined());
            let (origin, span) = if let Some(v) = direct {
                (InputOrigin::Assigned, v.span)
            } else if let Some((p, span)) = preset {
                (InputOrigin::Preset(p), span)
            } else if let Some(v) = default {
                (InputOrigin::Default, v.span())
            } else if let Some(v) = d.get("default_expression").filter(|v| v.is_defined()) {
                (InputOrigin::DefaultExpression, v.span())
            } else {
                (InputOrigin::Unset, k.span())
            };
            let value = values
                .get(name)
                .filter(|v| v.is_defined())
                .or(direct)
                .map(|v| v.value.clone())
                .or_else(|| default.map(|v| v.to_node().value));
            let origin = match (origin, &value) {
                (InputOrigin::DefaultExpression, None) => InputOrigin::Unset,
                (o, _) => o,
            };
            InputValue {
                name: name.to_string(),
                value,
                origin,
                span,
            }
        })
        .collect()
}

/// A variant with a solution, and what explaining it reads.
struct Variant<'a, 't> {
    doc: NodeRef<'a>,
    graph: &'a Graph,
    types: &'a TypeSystem<'t>,
    inputs: Map,
    now_ms: f64,
    solution: &'a Solution,
}

/// What [`Variant::optimised`] reads of the whole graph, read once per
/// variant: explaining every element stays linear.
struct Rules {
    weights: ObjectiveWeights,
    /// Per element id: whether it is one of a group of alternatives.
    in_alternatives: Vec<bool>,
}

/// What decided one element, before its reasons are rendered.
enum Found {
    Conditions(Vec<usize>),
    Decided(Decision),
}

impl Variant<'_, '_> {
    /// The explanations of `wanted`.
    fn explain(&self, wanted: &[ElementId]) -> Result<Vec<ElementExplanation>> {
        let g = self.graph;
        let mut guarded = Guarded::new(self.doc, g, self.types, self.inputs.clone(), self.now_ms)?;
        let mut alternatives =
            Alternatives::new(self.doc, g, self.types, self.inputs.clone(), self.now_ms);
        let rules = Rules {
            weights: ObjectiveWeights::new(g),
            in_alternatives: solve::in_alternatives(g),
        };
        let mut found = Vec::with_capacity(wanted.len());
        for &id in wanted {
            let present = self.solution.is_present(id);
            let p = guarded.presence(id);
            let other = if present { !p } else { p };
            // The best solution with the other value, if the search for a
            // conflict asks for it (an element it does not find one near).
            let mut fixed = None;
            let conflict = guarded.conflict_near(id, &[other], &mut || {
                let alternative = alternatives.fixed(self.solution, id, present);
                let found = alternative.is_ok();
                fixed = Some(alternative);
                found
            });
            found.push(match conflict {
                Some(parts) => Found::Conditions(parts),
                None => {
                    let other =
                        fixed.unwrap_or_else(|| alternatives.fixed(self.solution, id, present))?;
                    Found::Decided(self.optimised(id, present, &other, &rules))
                }
            });
        }
        // One model for the values in every reason.
        guarded.fix(&self.solution.present);
        let mut out = Vec::with_capacity(wanted.len());
        for (&id, found) in wanted.iter().zip(found) {
            let present = self.solution.is_present(id);
            let (decision, reasons) = match found {
                Found::Conditions(parts) => {
                    let reasons: Vec<Reason> = parts.iter().map(|&i| guarded.reason(i)).collect();
                    (Decision::Conditions, reasons)
                }
                Found::Decided(d) => (d, Vec::new()),
            };
            let summary = summary(g, id, present, &decision, &reasons);
            out.push(ElementExplanation {
                id: g.id(id).to_string(),
                display: g.display(id),
                present,
                span: g.get(id).span,
                decision,
                summary,
                reasons,
            });
        }
        Ok(out)
    }

    /// The objective or tie-breaking rule that decided `id`, whose other
    /// value the conditions allow.
    fn optimised(
        &self,
        id: ElementId,
        present: bool,
        other: &Alternative,
        rules: &Rules,
    ) -> Decision {
        let g = self.graph;
        let differences: Vec<(String, bool)> = other
            .changed
            .iter()
            // Types follow their containers; fallback properties are internal.
            .filter(|&&(x, _)| g.get(x).kind != Kind::Type && !g.is_internal(x))
            .take(MAX_DIFFERENCES)
            .map(|&(x, here)| (g.id(x).to_string(), here))
            .collect();
        let here = &self.solution.objectives;
        let deciding = here
            .iter()
            .zip(&other.objectives)
            .find(|((_, a), (_, b))| a != b);
        match deciding {
            Some(((name, value), (_, alternative_value))) => Decision::Objective {
                goal: goal(g, name),
                option: option_span(self.doc, name),
                weight: rules.weights.of(g, name, id),
                name: name.clone(),
                value: *value,
                alternative_value: *alternative_value,
                alternative: differences,
            },
            None => Decision::Tie {
                rule: tie_rule(rules.in_alternatives[id.0 as usize], present),
                alternative: differences,
            },
        }
    }
}

/// What objective `name` optimises, in words.
fn goal(g: &Graph, name: &str) -> String {
    let opts = &g.options().solver;
    let verb = |d: Optimize| {
        if d == Optimize::Max {
            "maximises"
        } else {
            "minimises"
        }
    };
    let weight_count = opts.technologies_mode == TechnologiesMode::WeightCount;
    match name {
        "topology" if opts.topology_by_weight => format!(
            "{} the sum of the weights of the present nodes (optimization_topology)",
            verb(opts.topology)
        ),
        "topology" => format!(
            "{} the number of present nodes (optimization_topology)",
            verb(opts.topology)
        ),
        "scenarios" => {
            "minimises the sum of the priorities of the present technologies (optimization_scenarios)"
                .to_string()
        }
        "technologies_weight" => format!(
            "{} the sum of the weights of the present technologies (optimization_technologies)",
            verb(if weight_count { Optimize::Max } else { opts.technologies })
        ),
        _ => format!(
            "{} the number of distinct present technologies (optimization_technologies)",
            verb(if weight_count { Optimize::Min } else { opts.technologies })
        ),
    }
}

/// Where the option of objective `name` is written, if it is.
fn option_span(doc: NodeRef<'_>, name: &str) -> Span {
    let key = match name {
        "topology" => "optimization_topology",
        "scenarios" => "optimization_scenarios",
        _ => "optimization_technologies",
    };
    crate::document::options(doc)
        .and_then(|m| m.get_entry(key))
        .map_or(Span::NONE, |(k, _)| k.span())
}

/// The tie-breaking rule that applies to `id` (see ARCHITECTURE.md,
/// Determinism).
fn tie_rule(in_alternatives: bool, present: bool) -> String {
    if in_alternatives {
        let which = if present {
            "it is"
        } else {
            "an earlier one is"
        };
        format!("of alternatives, the earliest-listed that can be present is present ({which})")
    } else if present {
        "absence is preferred element by element in element order, and the earlier elements' \
         absence leaves it present"
            .to_string()
    } else {
        "absence is preferred element by element in element order".to_string()
    }
}

/// One line saying why.
fn summary(
    g: &Graph,
    id: ElementId,
    present: bool,
    decision: &Decision,
    reasons: &[Reason],
) -> String {
    let state = if present { "present" } else { "absent" };
    let why = match decision {
        Decision::Objective {
            goal,
            value,
            alternative_value,
            ..
        } => {
            let other = if present { "absent" } else { "present" };
            format!("the optimiser {goal}: {value} here, {alternative_value} with it {other}")
        }
        Decision::Tie { rule, .. } => format!("every objective ties; {rule}"),
        Decision::Conditions => {
            let own = g.id(id);
            match reasons.first() {
                Some(r) if r.element.as_deref().is_some_and(|e| own == e) => match r.kind {
                    ReasonKind::Presence => solve::explain::conditions_hold(g, id),
                    ReasonKind::Implied => "it is implied by its manual conditions".to_string(),
                    ReasonKind::Implies => "its implies require it".to_string(),
                    k => {
                        let held = if r.value == Some(true) {
                            "holds"
                        } else {
                            "is false"
                        };
                        format!("its {} {held}", k.word())
                    }
                },
                Some(r) => match r.kind {
                    ReasonKind::Constraint => "a constraint decides it".to_string(),
                    ReasonKind::GeneratedConstraint => {
                        "a generated constraint decides it".to_string()
                    }
                    ReasonKind::Implies => format!(
                        "an implies of {} decides it",
                        r.element.as_deref().unwrap_or("another element")
                    ),
                    _ => "the conditions of other elements decide it".to_string(),
                },
                None => "the template leaves it no other value".to_string(),
            }
        }
    };
    format!("{state}: {why}")
}

mod json;

#[cfg(test)]
mod tests;
