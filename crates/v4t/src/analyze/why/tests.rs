//! `--why` against re-solving and enumeration: on random templates, every
//! reason of a dead or core element suffices (with only its parts the
//! element cannot be present, or absent) and is minimal (without any one
//! part it can), checked on a second, fresh encoding; the conditions that
//! always or never hold are those whose value is the same in every valid
//! configuration, enumerated one by one (and each configuration's validity
//! agrees with resolving it).

use super::*;
use crate::analyze::{analyze, AnalyzeOptions};
use crate::testing::{exercised, random_template, Rng};
use crate::{NoFiles, Sources};
use v4t_yaml::json::to_json;
use v4t_yaml::Span;

/// What a round exercised.
#[derive(Default)]
struct Seen {
    reasons: usize,
    composite: usize,
    facts: usize,
    configurations: usize,
    determined: usize,
}

fn check(text: &str, ctx: &str, resolve_each: bool, seen: &mut Seen) {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let options = AnalyzeOptions {
        why: true,
        ..AnalyzeOptions::default()
    };
    let analysis = match analyze(&mut sources, id, &mut NoFiles, &options) {
        Ok(a) => a,
        Err(_) => return,
    };
    let why = analysis.why.as_ref().expect("asked for why");
    assert_eq!(
        why.elements.len(),
        analysis.dead.len() + analysis.core.len(),
        "{ctx}"
    );
    let mut sources = Sources::new();
    let prepared = crate::testing::prepare(&mut sources, text).expect("prepares");
    let types = prepared.files.system();
    let (doc, graph) = (&prepared.doc, &prepared.graph);
    let mut first = Explainer::new(doc.into(), graph, &types, 0.0).expect("encodes");
    let backbone = first.condition_backbone();
    let mut wanted = Vec::new();
    for (ids, dead) in [(&analysis.dead, true), (&analysis.core, false)] {
        for e in graph.ordered() {
            if ids.iter().any(|i| graph.id(e) == *i) {
                wanted.push((e, dead));
            }
        }
    }
    let found = first.element_reasons(&wanted, &backbone);
    // A fresh encoding: the same guards (the encoding is deterministic).
    let mut fresh = Explainer::new(doc.into(), graph, &types, 0.0).expect("encodes");
    assert_eq!(fresh.pieces, first.pieces, "{ctx}");
    for (&(e, dead), parts) in wanted.iter().zip(&found) {
        let goal = fresh.goal(e, dead);
        let on = |except: Option<usize>| -> Vec<Lit> {
            let mut a = vec![goal];
            a.extend(
                parts
                    .iter()
                    .filter(|&&g| Some(g) != except)
                    .map(|&g| fresh.guards[g]),
            );
            a
        };
        let what = format!("{ctx}\n{} dead={dead} parts {:?}", graph.id(e), parts);
        let all = on(None);
        assert!(!fresh.sat.solve(&all), "not sufficient: {what}");
        for &g in parts {
            let less = on(Some(g));
            assert!(fresh.sat.solve(&less), "not minimal without {g}: {what}");
        }
        seen.reasons += 1;
        seen.composite += usize::from(parts.len() > 1);
    }
    // The conditions: enumerate the configurations of the domains.
    let inputs = crate::solve::family_problem(doc.into(), graph, &types, 0.0)
        .expect("encodes")
        .inputs;
    let sizes: Vec<usize> = inputs.iter().map(|d| d.values.len()).collect();
    let total: usize = sizes.iter().product();
    let conditions: Vec<(usize, Lit)> = fresh
        .about
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.map(|l| (i, l)))
        .collect();
    // Per condition guard: (true somewhere, false somewhere).
    let mut values = vec![(false, false); fresh.guards.len()];
    // Per configuration (in enumeration order): its topology if valid.
    let mut topologies: Vec<Option<Vec<bool>>> = Vec::with_capacity(total);
    let mut choice = vec![0usize; sizes.len()];
    let mut any_valid = false;
    for _ in 0..total {
        let lits: Vec<Lit> = inputs
            .iter()
            .zip(&choice)
            .map(|(d, &v)| d.lits[v])
            .collect();
        // Every model of the configuration (the optimiser's choices).
        let mut blocked: Vec<Vec<Lit>> = Vec::new();
        let mut valid = false;
        let topology = fresh
            .valid
            .solve(&lits)
            .then(|| fresh.by_id.iter().map(|&p| fresh.valid.value(p)).collect());
        topologies.push(topology);
        loop {
            let block: Vec<Lit> = blocked.iter().map(|b| fresh.valid.or(b)).collect();
            let mut assumptions = lits.clone();
            assumptions.extend(block);
            if !fresh.valid.solve(&assumptions) {
                break;
            }
            valid = true;
            let model: Vec<bool> = conditions
                .iter()
                .map(|&(_, l)| fresh.valid.value(l))
                .collect();
            for (&(i, _), &v) in conditions.iter().zip(&model) {
                if v {
                    values[i].0 = true;
                } else {
                    values[i].1 = true;
                }
            }
            // Block this assignment of the condition literals.
            blocked.push(
                conditions
                    .iter()
                    .zip(&model)
                    .map(|(&(_, l), &v)| if v { !l } else { l })
                    .collect(),
            );
            if blocked.len() > 64 || conditions.is_empty() {
                break;
            }
        }
        any_valid |= valid;
        if resolve_each && analysis.determined {
            let assigned: String = inputs
                .iter()
                .zip(&choice)
                .map(|(d, &v)| {
                    let value = to_json(&Node::new(d.values[v].clone(), Span::NONE));
                    format!("{}: {value}\n", d.name)
                })
                .collect();
            let resolves = crate::testing::resolve_error(text, Some(&assigned)).is_none();
            assert_eq!(resolves, valid, "{ctx}\nconfiguration {assigned}");
            seen.configurations += 1;
        }
        for (c, &s) in choice.iter_mut().zip(&sizes).rev() {
            *c += 1;
            if *c < s {
                break;
            }
            *c = 0;
        }
    }
    if !any_valid {
        return;
    }
    if analysis.determined {
        check_inputs(
            &fresh,
            why,
            &analysis.irrelevant,
            &sizes,
            &topologies,
            ctx,
            seen,
        );
    }
    let mut want: Vec<(String, bool, String)> = Vec::new();
    for &(i, _) in &conditions {
        let Piece::Part(part @ Part::Condition { id, index, .. }) = fresh.pieces[i] else {
            continue;
        };
        let written = graph
            .get(id)
            .conditions
            .get(index as usize)
            .is_some_and(|c| !c.is_generated());
        if !written || graph.is_internal(id) {
            continue;
        }
        let holds = match values[i] {
            (true, false) => true,
            (false, true) => false,
            _ => continue,
        };
        let message = fresh.names.describe(part, None).message;
        want.push((graph.id(id).to_string(), holds, message));
    }
    let got: Vec<(String, bool, String)> = why
        .conditions
        .iter()
        .map(|c| (c.element.clone(), c.holds, c.condition.message.clone()))
        .collect();
    assert_eq!(got, want, "{ctx}");
    seen.facts += got.len();
}

/// The input verdicts against the enumerated configurations (`topologies`,
/// mixed-radix over `sizes`, last input fastest): an input is irrelevant
/// exactly when no two valid configurations that differ in it alone have
/// different topologies; one the others decide has no two valid
/// configurations differing in it alone, and its reason suffices and is
/// minimal (re-asked on two copies of the problem sharing the guards).
fn check_inputs(
    x: &Explainer<'_>,
    why: &Why,
    irrelevant: &[String],
    sizes: &[usize],
    topologies: &[Option<Vec<bool>>],
    ctx: &str,
    seen: &mut Seen,
) {
    let mut stride = vec![1usize; sizes.len()];
    for k in (0..sizes.len().saturating_sub(1)).rev() {
        stride[k] = stride[k + 1] * sizes[k + 1];
    }
    for (k, (name, lits)) in x.inputs.iter().enumerate() {
        // Pairs of valid configurations differing in input k alone.
        let (mut pairs, mut changes) = (0, false);
        for (c, t) in topologies.iter().enumerate() {
            let Some(t) = t else { continue };
            let digit = (c / stride[k]) % sizes[k];
            for other in digit + 1..sizes[k] {
                if let Some(u) = &topologies[c + (other - digit) * stride[k]] {
                    pairs += 1;
                    changes |= t != u;
                }
            }
        }
        let listed = irrelevant.contains(name);
        assert_eq!(
            listed, !changes,
            "{ctx}
input {name}"
        );
        let Some(input) = why.inputs.iter().find(|i| &i.input == name) else {
            assert!(
                !listed,
                "{ctx}
no reason for irrelevant input {name}"
            );
            continue;
        };
        let Irrelevance::Determined(reasons) = &input.because else {
            continue;
        };
        assert_eq!(
            pairs, 0,
            "{ctx}
input {name} is not determined"
        );
        let parts = x.determined(name).expect("determined");
        assert_eq!(parts.len(), reasons.len(), "{ctx}");
        let every: Vec<Lit> = x
            .inputs
            .iter()
            .flat_map(|(_, l)| l.iter().copied())
            .collect();
        let differs = |on: &[usize]| {
            let on: Vec<Lit> = on.iter().map(|&g| x.guards[g]).collect();
            let copy = copy_requiring(&x.whole, &on);
            copy.differ(&every, lits).can_differ(lits)
        };
        assert!(
            !differs(&parts),
            "{ctx}
input {name}: not sufficient"
        );
        for i in 0..parts.len() {
            let mut less = parts.clone();
            less.remove(i);
            assert!(
                differs(&less),
                "{ctx}
input {name}: not minimal"
            );
        }
        seen.determined += 1;
    }
}

#[test]
fn reasons_are_sufficient_and_minimal() {
    let mut rng = Rng::new(0x5eed_2727_0000_0001);
    let mut seen = Seen::default();
    for round in 0..120 {
        let inputs = rng.below(5) as usize;
        let nodes = 1 + rng.below(5) as usize;
        let text = random_template(&mut rng, inputs, &['b', 'b', 's', 'u', 'u'], nodes, false);
        check(&text, &format!("round {round}\n{text}"), true, &mut seen);
    }
    exercised!(seen.reasons > 100, "too few reasons: {}", seen.reasons);
    exercised!(seen.composite > 20, "too few composite: {}", seen.composite);
    exercised!(seen.facts > 10, "too few conditions: {}", seen.facts);
    assert!(seen.configurations > 200, "{}", seen.configurations);
}

/// Templates with 12 to 16 boolean inputs (the reasons re-solved, the
/// conditions enumerated over every configuration).
#[test]
fn reasons_with_up_to_16_inputs() {
    let mut rng = Rng::new(0x5eed_2727_0016_0001);
    let mut seen = Seen::default();
    for (round, inputs) in [12, 14, 16].into_iter().enumerate() {
        let text = random_template(&mut rng, inputs, &['b'], 8, false);
        check(&text, &format!("round {round}\n{text}"), false, &mut seen);
    }
    exercised!(seen.reasons > 3, "too few reasons: {}", seen.reasons);
}

/// Templates whose constraints tie boolean inputs together, so that some
/// inputs are decided by the others: the input verdicts against
/// enumeration, and the reasons of the decided ones sufficient and minimal.
#[test]
fn decided_inputs_have_minimal_reasons() {
    let mut rng = Rng::new(0x5eed_2727_0d0d_0001);
    let mut seen = Seen::default();
    for round in 0..150 {
        let inputs = 2 + rng.below(4) as usize;
        let nodes = 1 + rng.below(4) as usize;
        let text = random_template(&mut rng, inputs, &['b'], nodes, false);
        let input = |rng: &mut Rng| format!("{{variability_input: b{}}}", rng.below(inputs as u64));
        let mut added = String::new();
        for _ in 0..1 + rng.below(2) {
            let (a, b, c) = (input(&mut rng), input(&mut rng), input(&mut rng));
            let constraint = match rng.below(4) {
                0 => format!("{{equal: [{a}, {b}]}}"),
                1 => format!("{{not: {{equal: [{a}, {b}]}}}}"),
                2 => format!("{{equal: [{a}, {{and: [{b}, {c}]}}]}}"),
                _ => format!("{{or: [{a}, {{not: {b}}}]}}"),
            };
            added.push_str(&format!("      - {constraint}\n"));
        }
        let header = if text.contains("    constraints:\n") {
            ""
        } else {
            "    constraints:\n"
        };
        let text = text.replacen(
            "  node_templates:\n",
            &format!("{header}{added}  node_templates:\n"),
            1,
        );
        check(&text, &format!("round {round}\n{text}"), false, &mut seen);
    }
    exercised!(
        seen.determined > 20,
        "too few decided inputs: {}",
        seen.determined
    );
}
