//! Variability inputs: presets applied in order, then the direct
//! assignments, deep-merged (part 2, 2.1-2.3), and the feature-model check of
//! `mandatory`, `optional`, `choices`, `alternatives`, `requires` and
//! `excludes` (part 2, 2.6).

use crate::document::{self, declared_inputs};
use crate::error::{bail, Error, Result};
use crate::reason::{Reason, ReasonKind};
use crate::suggest::did_you_mean;
use crate::types::TypeSystem;
use v4t_expr::{deep_merge, Evaluator};
use v4t_sat::{Lit, Solver};
use v4t_source::{Code, Diagnostic, Sources};
use v4t_yaml::hash::SeededSet;
use v4t_yaml::json::to_json;
use v4t_yaml::{KeyRef, Map, MapRef, Node, NodeRef, Span, Value};

/// The accumulated input assignments of presets (in order) and `direct`.
/// Direct assignments to inputs the template does not declare are read by
/// nothing (the reference accepts them silently); each is a warning, with
/// the closest declared name as a suggestion.
pub(crate) fn assign<'a>(
    doc: impl Into<NodeRef<'a>>,
    presets: &[String],
    direct: Option<&Node>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Map> {
    let variability = document::variability_of(doc.into());
    if let Some(direct) = direct.and_then(Node::as_map) {
        let declared = declared_inputs(variability);
        let known: SeededSet<&str> = declared.iter().copied().collect();
        for (key, _) in direct.iter() {
            if !known.contains(key.name.as_str()) {
                let message = format!(
                    "Variability input \"{}\" is assigned but not declared{}",
                    key.name,
                    did_you_mean(&key.name, declared.iter().copied())
                );
                warnings.push(Diagnostic::warning(Code::UndeclaredInput, message).at(key.span));
            }
        }
    }
    let defined = variability.and_then(|v| v.get("presets"));
    let mut acc = Node::map(Map::new());
    for name in presets {
        let Some(preset) = defined.and_then(|p| p.get(name)).filter(|p| p.is_defined()) else {
            let message = format!("Did not find variability preset \"{name}\"");
            let error = Error::coded(Code::UnknownPreset, message, Span::NONE);
            return Err(
                match defined.and_then(NodeRef::as_map).filter(|m| !m.is_empty()) {
                    Some(m) => {
                        let names: Vec<String> = m.keys().map(|k| format!("\"{k}\"")).collect();
                        let note = format!(
                            "the template defines the presets {}{}",
                            names.join(", "),
                            did_you_mean(name, m.keys())
                        );
                        // At the `presets` key, where the list of names begins.
                        let at = variability
                            .and_then(NodeRef::as_map)
                            .and_then(|v| v.get_entry("presets"))
                            .map_or(Span::NONE, |(k, _)| k.span());
                        error.with_note(note, at)
                    }
                    None => error.with_note("the template defines no presets", Span::NONE),
                },
            );
        };
        if let Some(inputs) = preset.get("inputs").filter(|i| i.is_defined()) {
            deep_merge(&mut acc, inputs);
        }
    }
    if let Some(d) = direct {
        deep_merge(&mut acc, d);
    }
    Ok(match acc.value {
        v4t_yaml::Value::Map(m) => m,
        _ => Map::new(),
    })
}

/// The keys of a variability input's feature model (they name other inputs).
pub(crate) const FEATURE_KEYS: [&str; 6] = [
    "mandatory",
    "optional",
    "choices",
    "alternatives",
    "requires",
    "excludes",
];

/// A string or list of strings as a list of names.
fn targets(n: NodeRef<'_>, allow_string: bool) -> Result<Vec<String>> {
    if let Some(s) = n.as_str() {
        if allow_string {
            return Ok(vec![s.to_string()]);
        }
        bail!(n.span(), "Element \"{}\" is not an array", to_json(n));
    }
    let Some(items) = n.as_seq() else {
        bail!(n.span(), "Element \"{}\" is not an array", to_json(n));
    };
    items
        .iter()
        .map(|i| {
            i.as_str().map(str::to_string).ok_or_else(|| {
                Error::at(
                    format!("Element \"{}\" is not a string", to_json(i)),
                    i.span(),
                )
            })
        })
        .collect()
}

/// Checks the variability inputs before solving: the feature model (2.6),
/// then the declared type and constraints of every input with a value
/// ([`check_types`]; after the feature model, whose error the conformance
/// test `variability-inputs/requires-throw-truthy` expects for a `boolean`
/// input with the default `yes`). `now_ms` is the clock for
/// `default_expression`s.
pub(crate) fn validate<'a>(
    doc: impl Into<NodeRef<'a>>,
    assigned: &Map,
    now_ms: f64,
    types: &TypeSystem<'_>,
    sources: &Sources,
) -> Result<()> {
    let Some((defs, mut eval)) = evaluator(doc.into(), assigned, now_ms) else {
        return Ok(());
    };
    let conflict = feature_model_conflict(defs, assigned, &mut eval)?;
    if !conflict.is_empty() {
        let error = feature_model_violated();
        return Err(conflict
            .iter()
            .fold(error, |e, r| e.with_note(r.message.clone(), r.span)));
    }
    check_types(defs, assigned, &mut eval, types, sources)
}

/// Why the assigned inputs violate the input feature model: a minimal set
/// of its rules and of the input values that conflict; empty if they do
/// not (or the template has no feature model).
pub(crate) fn violated_rules<'a>(
    doc: impl Into<NodeRef<'a>>,
    assigned: &Map,
    now_ms: f64,
) -> Result<Vec<Reason>> {
    match evaluator(doc.into(), assigned, now_ms) {
        Some((defs, mut eval)) => feature_model_conflict(defs, assigned, &mut eval),
        None => Ok(Vec::new()),
    }
}

/// The input definitions and an evaluator of the assigned inputs (for
/// `default_expression`s), if the template declares inputs.
fn evaluator<'d>(
    doc: NodeRef<'d>,
    assigned: &Map,
    now_ms: f64,
) -> Option<(MapRef<'d>, Evaluator<'d>)> {
    let variability = document::variability_of(doc);
    let defs = variability
        .and_then(|v| v.get("inputs"))
        .and_then(NodeRef::as_map)?;
    let expressions = variability
        .and_then(|v| v.get("expressions"))
        .and_then(NodeRef::as_map);
    let eval = Evaluator::reading(Some(defs), expressions, assigned.clone(), now_ms);
    Some((defs, eval))
}

/// The feature-model check (2.6): the rules and values that conflict
/// ([`violated_rules`]); a no-op unless some input uses a feature key.
fn feature_model_conflict(
    defs: MapRef<'_>,
    assigned: &Map,
    eval: &mut Evaluator<'_>,
) -> Result<Vec<Reason>> {
    if !has_feature_model(defs) {
        return Ok(Vec::new());
    }
    // The assigned value, else the default, else the value of the default
    // expression (which the reference ignores here).
    let mut value_of = |name: &str, d: NodeRef<'_>| -> Result<Option<Node>> {
        if let Some(v) = assigned.get(name).filter(|v| v.is_defined()) {
            return Ok(Some(v.clone()));
        }
        if let Some(v) = d.get("default").filter(|v| v.is_defined()) {
            return Ok(Some(v.to_node()));
        }
        if d.get("default_expression").is_some_and(NodeRef::is_defined) {
            let v = eval
                .variability_input(name, d.span())
                .map_err(|e| Error::at(e.message, e.span))?;
            return Ok(Some(Node::new(v, d.span())));
        }
        Ok(None)
    };
    let mut sat = Solver::new();
    let mut vars: Vec<(String, Lit)> = Vec::new();
    let rules = feature_model(
        defs,
        &mut sat,
        &mut |sat, name| named_var(&mut vars, sat, name),
        &mut |k, d, targeted| {
            let name = k.name();
            if !targeted.iter().any(|t| t == name) && value_of(name, d)?.is_none() {
                bail!(
                    k.span(),
                    "Variability input \"{name}\" is not targeted and not assigned"
                );
            }
            Ok(())
        },
    )?;
    // The rules and the values, as assumptions: a violation is explained
    // by a minimal set of them.
    let mut assumptions: Vec<Lit> = rules.iter().map(|r| r.lit).collect();
    let mut values: Vec<(Lit, KeyRef<'_>, Option<Node>)> = Vec::new();
    for (k, d) in defs.iter() {
        let me = named_var(&mut vars, &mut sat, k.name());
        let value = value_of(k.name(), d)?;
        let l = if value.as_ref().is_some_and(|v| truthy(&v.value)) {
            me
        } else {
            !me
        };
        assumptions.push(l);
        values.push((l, k, value));
    }
    if sat.solve(&assumptions) {
        return Ok(Vec::new());
    }
    let core = sat.minimal_core(&assumptions).unwrap_or_default();
    let mut reasons = Vec::new();
    for l in core {
        if let Some(r) = rules.iter().find(|r| r.lit == l) {
            let message = format!("`{}` of variability input \"{}\"", r.key, r.input);
            reasons.push(Reason::new(ReasonKind::FeatureRule, message, r.span));
        } else if let Some((_, k, v)) = values.iter().find(|(x, _, _)| *x == l) {
            let (shown, span) = match v {
                Some(v) => (to_json(v), v.span),
                None => ("not assigned".to_string(), k.span()),
            };
            let message = format!("variability input \"{}\" is {shown}", k.name());
            let span = if span.is_known() { span } else { k.span() };
            let mut reason = Reason::new(ReasonKind::InputValue, message, span);
            reason
                .inputs
                .extend(v.iter().map(|v| (k.name().to_string(), v.value.clone())));
            reasons.push(reason);
        }
    }
    Ok(reasons)
}

/// A check of one input definition (its key, its definition, the names
/// some input targets) before [`feature_model`] reads its keys.
pub(crate) type Precheck<'a> = dyn FnMut(KeyRef<'_>, NodeRef<'_>, &[String]) -> Result<()> + 'a;

/// One rule of the feature model: a literal that must hold, from feature
/// key `key` of input `input`, written at `span`.
pub(crate) struct Rule<'d> {
    pub lit: Lit,
    pub input: &'d str,
    pub key: &'static str,
    pub span: Span,
}

/// The feature model of the variability inputs (2.6) as rules that must
/// all hold, over `var(name)`, the literal "input `name` is truthy".
/// `precheck` runs for each input before its keys are read, with the names
/// some input targets (resolving checks there that an untargeted input has
/// a value). Resolving asks this of one assignment, `analyze` of every
/// configuration. Callers check first that some input uses a feature key.
pub(crate) fn feature_model<'d>(
    defs: MapRef<'d>,
    sat: &mut Solver,
    var: &mut dyn FnMut(&mut Solver, &str) -> Lit,
    precheck: &mut Precheck<'_>,
) -> Result<Vec<Rule<'d>>> {
    // Targets count only from the first feature key defined on an input.
    let mut targeted: Vec<String> = Vec::new();
    for (_, d) in defs.iter() {
        if let Some(k) = FEATURE_KEYS
            .iter()
            .find(|k| d.get(k).is_some_and(NodeRef::is_defined))
        {
            if let Some(n) = d.get(k) {
                match n.as_str() {
                    Some(s) => targeted.push(s.to_string()),
                    None => {
                        for i in n.as_seq().into_iter().flatten() {
                            if let Some(s) = i.as_str() {
                                targeted.push(s.to_string());
                            }
                        }
                    }
                }
            }
        }
    }
    let mut constraints = Vec::new();
    for (k, d) in defs.iter() {
        precheck(k, d, &targeted)?;
        let me = var(sat, k.name());
        for key in FEATURE_KEYS {
            let Some(n) = d.get(key).filter(|n| n.is_defined()) else {
                continue;
            };
            let rule = |lit: Lit| Rule {
                lit,
                input: k.name(),
                key,
                span: n.span(),
            };
            match key {
                "mandatory" => {
                    for t in targets(n, true)? {
                        let t = var(sat, &t);
                        let eq = sat.iff(me, t);
                        constraints.push(rule(eq));
                    }
                }
                // A chosen optional input requires its parent. The spec's
                // `choices` ("none, one, or multiple") are the same; the
                // reference requires at least one choice.
                "optional" | "choices" => {
                    for t in targets(n, key == "optional")? {
                        let t = var(sat, &t);
                        let imp = sat.implies(t, me);
                        constraints.push(rule(imp));
                    }
                }
                "alternatives" => {
                    let ts: Vec<Lit> = targets(n, false)?.iter().map(|t| var(sat, t)).collect();
                    let one = sat.exactly_one(&ts);
                    let imp = sat.implies(me, one);
                    constraints.push(rule(imp));
                }
                "requires" => {
                    for t in targets(n, true)? {
                        let t = var(sat, &t);
                        let imp = sat.implies(me, t);
                        constraints.push(rule(imp));
                    }
                }
                // Not both (the reference fails on any `excludes`).
                "excludes" => {
                    for t in targets(n, true)? {
                        let t = var(sat, &t);
                        let not_both = sat.or(&[!me, !t]);
                        constraints.push(rule(not_both));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(constraints)
}

/// Whether some input uses a feature key (else there is no feature model).
pub(crate) fn has_feature_model(defs: MapRef<'_>) -> bool {
    defs.iter().any(|(_, d)| {
        FEATURE_KEYS
            .iter()
            .any(|k| d.get(k).is_some_and(NodeRef::is_defined))
    })
}

/// The variable of `name` in `vars`, created on first use.
fn named_var(vars: &mut Vec<(String, Lit)>, sat: &mut Solver, name: &str) -> Lit {
    if let Some((_, l)) = vars.iter().find(|(n, _)| n == name) {
        return *l;
    }
    let l = sat.new_var();
    vars.push((name.to_string(), l));
    l
}

/// The variability input definitions (`variability.inputs`), if any.
pub(crate) fn definitions<'a>(doc: impl Into<NodeRef<'a>>) -> Option<MapRef<'a>> {
    document::variability_entry(doc, "inputs")?.as_map()
}

/// Whether an input's value makes its feature variable true (2.6).
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => *n != 0.0,
        _ => true,
    }
}

/// The error of an assignment the feature model does not allow.
pub(crate) fn feature_model_violated() -> Error {
    let message = "Variability inputs constraints are violated";
    Error::coded(Code::InvalidInput, message, Span::NONE)
}

/// Variability inputs are input parameters: an assigned value (or a
/// `default`) must have the declared `type` and satisfy the `constraints`
/// (or `validation`), as the TOSCA layer checks data
/// ([`TypeSystem::input_violation`]). The value checked is the one
/// conditions read, i.e. after evaluating it as a value expression; a value
/// whose evaluation fails is left to the place that reads it.
fn check_types(
    defs: MapRef<'_>,
    assigned: &Map,
    eval: &mut Evaluator<'_>,
    types: &TypeSystem<'_>,
    sources: &Sources,
) -> Result<()> {
    for (k, d) in defs.iter() {
        let name = k.name();
        let checked = ["type", "constraints", "validation"]
            .iter()
            .any(|key| d.get(key).is_some_and(NodeRef::is_defined));
        let given = assigned.get(name).is_some_and(Node::is_defined)
            || d.get("default").is_some_and(NodeRef::is_defined);
        if !checked || !given {
            continue;
        }
        let Ok(value) = eval.variability_input(name, k.span()) else {
            continue;
        };
        // The value as written where it is (how a number was written
        // tells an integer from a float), else as evaluated.
        let written = assigned
            .get(name)
            .map(NodeRef::from)
            .or_else(|| d.get("default"));
        let node = written
            .map(NodeRef::to_node)
            .filter(|n| v4t_yaml::deep_equal(&n.value, &value))
            .unwrap_or_else(|| Node::new(value, Span::NONE));
        if let Some((rule, span)) = types.input_violation(sources, d, &node) {
            let shown = v4t_yaml::json::to_json(&node);
            bail!(
                span,
                "Variability input \"{name}\" with value {shown} violates {rule}"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{doc, read_doc};
    use v4t_yaml::json::to_json;

    /// [`assign`] on `template` read as a tree; the same on it read as a
    /// [`v4t_yaml::Doc`] must give the same assignment or error and the
    /// same warnings, at the same places.
    fn assigned(
        template: &str,
        presets: &[&str],
        direct: Option<&Node>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<Map> {
        let presets: Vec<String> = presets.iter().map(|p| p.to_string()).collect();
        let tree = assign(&doc(template), &presets, direct, warnings);
        let mut doc_warnings = Vec::new();
        let read = assign(
            read_doc(template).root(),
            &presets,
            direct,
            &mut doc_warnings,
        );
        assert_eq!(format!("{tree:?}"), format!("{read:?}"), "{template}");
        assert_eq!(format!("{warnings:?}"), format!("{doc_warnings:?}"));
        tree
    }

    const TEMPLATE: &str = "
topology_template:
  variability:
    inputs:
      mode: {type: string}
      other: {type: string}
      third: {type: string}
    presets:
      dev: {inputs: {mode: dev, other: dev, third: dev}}
      prod: {inputs: {mode: prod, other: prod}}
";

    #[test]
    fn presets_apply_in_order_and_direct_inputs_win() {
        let direct = doc("mode: override");
        let m = assigned(TEMPLATE, &["dev", "prod"], Some(&direct), &mut Vec::new()).unwrap();
        assert_eq!(
            to_json(&Node::map(m)),
            r#"{"mode":"override","other":"prod","third":"dev"}"#
        );
    }

    #[test]
    fn unknown_presets_are_errors() {
        let e = assigned(TEMPLATE, &["test"], None, &mut Vec::new()).unwrap_err();
        assert_eq!(e.message, "Did not find variability preset \"test\"");
        let e = assigned(TEMPLATE, &["prdo"], None, &mut Vec::new()).unwrap_err();
        assert_eq!(e.message, "Did not find variability preset \"prdo\"");
        let note = &e.notes[0];
        assert_eq!(
            note.message,
            "the template defines the presets \"dev\", \"prod\"; did you mean \"prod\"?"
        );
        assert_eq!(note.span.locate(TEMPLATE).start(), (8, 5));
        let none = "topology_template: {}";
        let e = assigned(none, &["x"], None, &mut Vec::new()).unwrap_err();
        assert_eq!(e.notes[0].message, "the template defines no presets");
    }

    #[test]
    fn undeclared_direct_inputs_are_warnings() {
        let mut warnings = Vec::new();
        let direct_text = "mdoe: x\nmode: prod\nzzz: 1";
        let direct = doc(direct_text);
        assigned(TEMPLATE, &[], Some(&direct), &mut warnings).unwrap();
        let messages: Vec<_> = warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Variability input \"mdoe\" is assigned but not declared; did you mean \"mode\"?",
                "Variability input \"zzz\" is assigned but not declared",
            ]
        );
        assert_eq!(warnings[0].span.locate(direct_text).start(), (1, 1));
    }

    #[test]
    fn lists_merge_by_index() {
        let template =
            "topology_template:\n  variability:\n    presets:\n      a: {inputs: {l: [1, 2, 3]}}\n";
        let m = assigned(template, &["a"], Some(&doc("l: [9]")), &mut Vec::new()).unwrap();
        assert_eq!(to_json(&Node::map(m)), r#"{"l":[9,2,3]}"#);
    }

    /// [`validate`] of the input definitions `defs` with the inputs
    /// `assigned`, the template read as a tree; read as a
    /// [`v4t_yaml::Doc`], the same result (error, notes and places), and
    /// the same conflict ([`violated_rules`]).
    fn validate_text(defs: &str, assigned: &str) -> Result<()> {
        let text = format!("topology_template:\n  variability:\n    inputs:\n{defs}");
        let (d, read) = (doc(&text), read_doc(&text));
        let a = doc(assigned);
        let files = crate::testing::type_files(&d);
        let types = files.system();
        let sources = Sources::new();
        let a = a.as_map().cloned().unwrap_or_default();
        let tree = validate(&d, &a, 0.0, &types, &sources);
        let other = validate(read.root(), &a, 0.0, &types, &sources);
        assert_eq!(format!("{tree:?}"), format!("{other:?}"), "{text}");
        let rules = |d| violated_rules(d, &a, 0.0).map_err(|e| format!("{e:?}"));
        let (tree_rules, doc_rules) = (rules((&d).into()), rules(read.root()));
        assert_eq!(
            format!("{tree_rules:?}"),
            format!("{doc_rules:?}"),
            "{text}"
        );
        tree
    }

    /// The rule a value breaks of a variability input definition, through
    /// the TOSCA layer's data validation (TOSCA 1.3 types and constraints).
    fn broken(definition: &str, value: &str) -> Option<String> {
        let defs = format!("      x: {definition}\n");
        match validate_text(&defs, &format!("x: {value}")) {
            Ok(()) => None,
            Err(e) => Some(
                e.message
                    .split_once(" violates ")
                    .map_or(e.message.clone(), |(_, rule)| rule.to_string()),
            ),
        }
    }

    #[test]
    fn types_of_variability_inputs() {
        for (ty, good, bad) in [
            ("string", "abc", "1"),
            ("integer", "80", "abc"),
            ("integer", "-3", "1.5"),
            ("float", "1.5", "'1.5'"),
            ("boolean", "true", "'true'"),
            ("timestamp", "2024-01-01", "yesterday"),
            ("version", "'1.2.3.beta-4'", "'1.x'"),
            ("range", "[1, UNBOUNDED]", "[3, 1]"),
            ("list", "[1]", "abc"),
            ("map", "{a: 1}", "[1]"),
            ("scalar-unit.size", "4 GiB", "4 GHz"),
            ("scalar-unit.time", "10 ms", "10"),
            ("scalar-unit.frequency", "2.4 GHz", "fast"),
            ("scalar-unit.bitrate", "10 Mbps", "10 MB"),
        ] {
            let def = format!("{{type: {ty}}}");
            assert_eq!(broken(&def, good), None, "{ty} {good}");
            assert_eq!(
                broken(&def, bad),
                Some(format!("type \"{ty}\"")),
                "{ty} {bad}"
            );
        }
        // Data types the template defines are checked too (an unknown type
        // name is left to the validator).
        assert_eq!(broken("{type: my.DataType}", "whatever"), None);
        assert_eq!(
            broken("{type: list, entry_schema: integer}", "[1, a]"),
            Some("entry_schema type \"integer\"".into())
        );
        assert_eq!(
            broken(
                "{type: list, entry_schema: {type: integer, constraints: [{less_than: 5}]}}",
                "[1, 7]"
            ),
            Some("entry_schema {\"less_than\":5}".into())
        );
    }

    #[test]
    fn constraints_of_variability_inputs() {
        for (constraint, good, bad) in [
            ("{equal: 5}", "5", "6"),
            ("{greater_than: 5}", "6", "5"),
            ("{greater_or_equal: 5}", "5", "4"),
            ("{less_than: 5}", "4", "5"),
            ("{less_or_equal: 65535}", "80", "70000"),
            ("{in_range: [1, 10]}", "10", "11"),
            ("{in_range: [1, UNBOUNDED]}", "1000", "0"),
            ("{valid_values: [dev, prod]}", "dev", "test"),
            ("{length: 3}", "abc", "ab"),
            ("{min_length: 2}", "[1, 2]", "[1]"),
            ("{max_length: 2}", "ab", "abc"),
            ("{pattern: '[a-z]+'}", "abc", "abc1"),
        ] {
            let def = format!("{{constraints: [{constraint}]}}");
            assert_eq!(broken(&def, good), None, "{constraint} {good}");
            assert!(broken(&def, bad).is_some(), "{constraint} {bad}");
        }
        assert_eq!(
            broken(
                "{type: integer, constraints: [{greater_than: 0}, {less_or_equal: 65535}]}",
                "70000"
            ),
            Some("{\"less_or_equal\":65535}".into())
        );
        // Scalar units and versions compare by meaning, not as text.
        let size = "{type: scalar-unit.size, constraints: [{greater_or_equal: 1 GB}]}";
        assert_eq!(broken(size, "2000 MB"), None);
        assert!(broken(size, "900 MB").is_some());
        let version = "{type: version, constraints: [{greater_than: '1.9'}]}";
        assert_eq!(broken(version, "'1.10'"), None);
    }

    #[test]
    fn feature_model_requires_and_excludes() {
        let defs = "      a: {requires: b}\n      b: {default: false}\n";
        assert_eq!(
            validate_text(defs, "a: true").unwrap_err().message,
            "Variability inputs constraints are violated"
        );
        assert!(validate_text(defs, "a: false").is_ok());
        // `excludes` (string or list): not both.
        for excludes in [
            "      a: {excludes: b}\n      b: {default: true}\n",
            "      a: {excludes: [c, b]}\n      b: {default: true}\n      c: {default: false}\n",
        ] {
            assert_eq!(
                validate_text(excludes, "a: true").unwrap_err().message,
                "Variability inputs constraints are violated"
            );
            assert!(validate_text(excludes, "a: false").is_ok());
            assert!(validate_text(excludes, "{a: true, b: false}").is_ok());
        }
        let untargeted = "      a: {requires: b}\n      b: {}\n      c: {}\n";
        assert_eq!(
            validate_text(untargeted, "a: false").unwrap_err().message,
            "Variability input \"c\" is not targeted and not assigned"
        );
        let choices = "      a: {choices: b}\n";
        assert_eq!(
            validate_text(choices, "a: true").unwrap_err().message,
            "Element \"\"b\"\" is not an array"
        );
    }

    /// `optional` takes a string or a list; `optional` and `choices`
    /// targets require their parent, and `choices` allows none of them.
    #[test]
    fn feature_model_optional_and_choices() {
        for key in ["optional: b", "optional: [b]", "choices: [b, c]"] {
            let defs = format!(
                "      a: {{{key}}}\n      b: {{default: false}}\n      c: {{default: false}}\n"
            );
            assert!(
                validate_text(&defs, "a: true").is_ok(),
                "{key}: none chosen"
            );
            assert!(validate_text(&defs, "{a: true, b: true}").is_ok(), "{key}");
            assert_eq!(
                validate_text(&defs, "{a: false, b: true}")
                    .unwrap_err()
                    .message,
                "Variability inputs constraints are violated",
                "{key}: a choice requires its parent"
            );
        }
    }

    /// An input with only a `default_expression` has a value: its result.
    #[test]
    fn feature_model_reads_default_expressions() {
        let defs = "      a: {requires: b}\n      b: {default_expression: {equal: [1, 1]}}\n      c: {default_expression: {variability_input: b}}\n";
        assert!(validate_text(defs, "a: true").is_ok());
        let defs = defs.replace("[1, 1]", "[1, 2]");
        assert_eq!(
            validate_text(&defs, "a: true").unwrap_err().message,
            "Variability inputs constraints are violated"
        );
    }

    /// Assigned values and defaults must have the declared type and satisfy
    /// the constraints; the error names the input, its value and the rule.
    #[test]
    fn values_have_the_declared_type_and_constraints() {
        let defs = "      port: {type: integer, constraints: [{greater_than: 0}, {less_or_equal: 65535}]}\n";
        assert!(validate_text(defs, "port: 80").is_ok());
        assert!(
            validate_text(defs, "{}").is_ok(),
            "no value, nothing to check"
        );
        let e = validate_text(defs, "port: abc").unwrap_err();
        assert_eq!(
            e.message,
            "Variability input \"port\" with value \"abc\" violates type \"integer\""
        );
        let defaults = format!("topology_template:\n  variability:\n    inputs:\n{defs}");
        assert_eq!(e.span.locate(&defaults).start(), (4, 20));
        assert_eq!(
            validate_text(defs, "port: 70000").unwrap_err().message,
            "Variability input \"port\" with value 70000 violates {\"less_or_equal\":65535}"
        );
        // A default counts, after evaluation as a value expression.
        let defaults = "      mode: {type: string, default: {concat: [de, v]}, constraints: [{valid_values: [dev, prod]}]}\n";
        assert!(validate_text(defaults, "{}").is_ok());
        assert_eq!(
            validate_text(defaults, "mode: test").unwrap_err().message,
            "Variability input \"mode\" with value \"test\" violates {\"valid_values\":[\"dev\",\"prod\"]}"
        );
    }

    #[test]
    fn no_feature_keys_means_no_check() {
        assert!(validate_text("      a: {type: string}\n", "{}").is_ok());
    }
}
