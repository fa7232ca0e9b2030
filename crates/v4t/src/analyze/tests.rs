//! The analysis against brute force: random templates resolved in every
//! configuration of the analysis' domains.

use super::{analyze, Analysis, AnalyzeOptions};
use crate::testing::{exercised, random_template as template, Rng};
use crate::{resolve, NoFiles, ResolveOptions, Sources};
use std::collections::{BTreeMap, BTreeSet};
use v4t_yaml::json::to_json;
use v4t_yaml::{Node, Span, Value};

/// What resolving every configuration gives.
#[derive(Default)]
struct BruteForce {
    valid: u128,
    /// Per configuration (value indices): whether its conditions have a
    /// solution (it resolves, or fails only after solving).
    solvable: Vec<(Vec<usize>, bool)>,
    topologies: BTreeSet<Vec<String>>,
    /// Per element id: (present somewhere, absent somewhere).
    seen: BTreeMap<String, (bool, bool)>,
    /// Failing configurations by message and whether some input has an
    /// undeclared value.
    failures: BTreeMap<(String, bool), u128>,
    /// The first and the last of them in enumeration order (value
    /// indices), per message: the witnesses the analysis names, for `Could
    /// not solve` the smallest configuration without a solution (found
    /// input by input), for the others the smallest configuration with the
    /// value literals preferred false (each input's last value first).
    first_failing: BTreeMap<(String, bool), Vec<usize>>,
    last_failing: BTreeMap<(String, bool), Vec<usize>>,
    /// Configurations outside the input feature model.
    outside: u128,
    /// Configurations the declared constraints rule out (no solution, but
    /// one without the constraints).
    ruled_out: u128,
    /// The first of them in enumeration order (value indices): the witness
    /// the analysis names.
    first_ruled_out: Option<Vec<usize>>,
    /// The topology of each valid configuration (value indices).
    by_config: Vec<(Vec<usize>, Vec<String>)>,
}

/// Each element's id and presence in a resolved configuration, or the error.
type Outcome = Result<Vec<(String, bool)>, String>;

/// Resolves `text` with `inputs` through [`resolve`], as `v4t resolve` does.
fn resolve_fully(text: &str, inputs: v4t_yaml::Map) -> Outcome {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let options = ResolveOptions {
        inputs: Some(Node::new(Value::Map(inputs), Span::NONE)),
        ..ResolveOptions::default()
    };
    let r = resolve(&mut sources, id, &mut NoFiles, &options).map_err(|e| e.message.clone())?;
    Ok(r.report
        .elements
        .iter()
        .map(|e| (e.id.clone(), e.present))
        .collect())
}

/// What a resolver for many configurations of one template prepares once:
/// loading, enrichment and the graph ([`with_resolver`]).
struct Prepared {
    sources: Sources,
    prepared: Result<crate::Prepared, String>,
}

fn prepared(text: &str) -> Prepared {
    let mut sources = Sources::new();
    let prepared = crate::testing::prepare(&mut sources, text).map_err(|e| e.message.clone());
    Prepared { sources, prepared }
}

/// The analysis of the template `text`, validating up to `validate`
/// topologies (no files beside it).
fn analyzed(text: &str, validate: usize) -> Analysis {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let options = AnalyzeOptions {
        validate,
        ..AnalyzeOptions::default()
    };
    analyze(&mut sources, id, &mut NoFiles, &options).expect("analyses")
}

/// Calls `f` with a resolver for many configurations of the prepared
/// template: what [`crate::resolve`] does after the graph (input check,
/// solving, checks) per configuration, on one type system.
fn with_resolver<R>(
    p: &Prepared,
    f: impl FnOnce(&mut dyn FnMut(v4t_yaml::Map) -> Outcome) -> R,
) -> R {
    let types = p.prepared.as_ref().ok().map(|p| p.files.system());
    let sources = &p.sources;
    let mut resolve_one = |inputs: v4t_yaml::Map| -> Outcome {
        let (p, types) = match (&p.prepared, &types) {
            (Ok(prepared), Some(types)) => (prepared, types),
            (Err(e), _) => return Err(e.clone()),
            _ => return Err("no types".to_string()),
        };
        let run = || -> crate::Result<Vec<(String, bool)>> {
            crate::inputs::validate(&p.doc, &inputs, 0.0, types, sources)?;
            let solution = crate::solve::solve(&p.doc, &p.graph, types, inputs.clone(), 0.0)?;
            crate::check::check(&p.graph, &solution)?;
            Ok(p.graph
                .ordered()
                .filter(|&e| !p.graph.is_internal(e))
                .map(|e| (p.graph.id(e).to_string(), solution.is_present(e)))
                .collect())
        };
        run().map_err(|e| e.message.clone())
    };
    f(&mut resolve_one)
}

/// The template `text` without its declared `variability.constraints`
/// (`None` if it has none).
fn without_constraints(text: &str) -> Option<String> {
    let mut doc = v4t_yaml::parse(text, v4t_yaml::SourceId(0)).ok()?;
    let Value::Map(root) = &mut doc.value else {
        return None;
    };
    let topology = ["topology_template", "service_template"]
        .into_iter()
        .find(|k| root.get(k).is_some())?;
    let Value::Map(t) = &mut root.get_mut(topology)?.value else {
        return None;
    };
    let Value::Map(v) = &mut t.get_mut("variability")?.value else {
        return None;
    };
    v.remove("constraints")?;
    Some(v4t_yaml::emit(&doc))
}

fn brute_force(
    analysis: &Analysis,
    resolve_one: &mut dyn FnMut(v4t_yaml::Map) -> Outcome,
    mut unconstrained: Option<&mut dyn FnMut(v4t_yaml::Map) -> Outcome>,
) -> BruteForce {
    let mut out = BruteForce::default();
    let sizes: Vec<usize> = analysis.inputs.iter().map(|i| i.values.len()).collect();
    let total: usize = sizes.iter().product();
    let mut choice = vec![0usize; sizes.len()];
    for _ in 0..total {
        let mut map = v4t_yaml::Map::new();
        for (input, &v) in analysis.inputs.iter().zip(&choice) {
            map.insert(
                input.name.clone(),
                Node::new(input.values[v].clone(), Span::NONE),
            );
        }
        match resolve_one(map.clone()) {
            Ok(elements) => {
                out.valid += 1;
                let present: Vec<String> = elements
                    .iter()
                    .filter(|e| e.1)
                    .map(|e| e.0.clone())
                    .collect();
                for (id, present) in &elements {
                    let entry = out.seen.entry(id.clone()).or_default();
                    if *present {
                        entry.0 = true;
                    } else {
                        entry.1 = true;
                    }
                }
                out.by_config.push((choice.clone(), present.clone()));
                out.topologies.insert(present);
            }
            Err(message) => {
                let before_solving = message == "Could not solve"
                    || message == "Variability inputs constraints are violated"
                    || message.starts_with("Element");
                let unsolvable = message == "Could not solve"
                    && unconstrained.as_mut().is_none_or(|resolve| {
                        resolve(map.clone()).err().as_deref() == Some("Could not solve")
                    });
                out.solvable.push((
                    choice.clone(),
                    !before_solving || (message == "Could not solve" && !unsolvable),
                ));
                let other = analysis
                    .inputs
                    .iter()
                    .zip(&choice)
                    .any(|(input, &v)| input.undeclared[v]);
                if message == "Variability inputs constraints are violated" {
                    out.outside += 1;
                } else if message == "Could not solve" && !unsolvable {
                    out.ruled_out += 1;
                    out.first_ruled_out.get_or_insert_with(|| choice.clone());
                } else {
                    *out.failures.entry((message.clone(), other)).or_default() += 1;
                    (out.first_failing.entry((message.clone(), other)))
                        .or_insert_with(|| choice.clone());
                    out.last_failing.insert((message, other), choice.clone());
                }
                continue_counting(&mut choice, &sizes);
                continue;
            }
        }
        out.solvable.push((choice.clone(), true));
        continue_counting(&mut choice, &sizes);
    }
    out
}

/// The next combination of value indices (the last input counts fastest).
fn continue_counting(choice: &mut [usize], sizes: &[usize]) {
    for (c, &s) in choice.iter_mut().zip(sizes).rev() {
        *c += 1;
        if *c < s {
            break;
        }
        *c = 0;
    }
}

/// Whether changing input `i` alone changes the topology of some valid
/// configuration.
fn relevant(by_config: &[(Vec<usize>, Vec<String>)], i: usize) -> bool {
    let mut first: BTreeMap<Vec<usize>, &Vec<String>> = BTreeMap::new();
    by_config.iter().any(|(config, topology)| {
        let mut others = config.clone();
        others.remove(i);
        *first.entry(others).or_insert(topology) != topology
    })
}

/// Small templates of every kind of input, many of them.
#[test]
fn analysis_matches_resolving_every_configuration() {
    let mut rng = Rng::new(0x5eed_1234_abcd_0001);
    let mut stats = Stats::default();
    for round in 0..150 {
        let inputs = rng.below(5) as usize;
        let nodes = 1 + rng.below(5) as usize;
        let text = template(&mut rng, inputs, &['b', 'b', 's', 'u', 'u'], nodes, false);
        check(round, &text, &mut resolve_fully_with(&text), &mut stats);
    }
    exercised!(
        stats.interesting > 3,
        "too few interesting templates: {}",
        stats.interesting
    );
    exercised!(
        stats.determined > 40,
        "too few determined templates: {}",
        stats.determined
    );
    exercised!(
        stats.errors > 3,
        "too few templates with evaluation errors: {}",
        stats.errors
    );
    exercised!(
        stats.checks > 10,
        "too few templates failing checks: {}",
        stats.checks
    );
    exercised!(
        stats.feature_model > 5,
        "too few feature models: {}",
        stats.feature_model
    );
    exercised!(
        stats.ruled_out > 5,
        "too few templates with constraints ruling out configurations: {}",
        stats.ruled_out
    );
    exercised!(
        stats.undeclared > 3,
        "too few failures with undeclared values: {}",
        stats.undeclared
    );
    exercised!(
        stats.witnesses > 20,
        "too few failure witnesses compared: {}",
        stats.witnesses
    );
}

/// The sample, commonality and atomic sets of a determined template
/// against the valid configurations of brute force: every sampled
/// configuration is valid, the sample covers every pair of input values
/// some valid configuration has, each element's commonality is the number
/// of valid configurations it is present in, and the atomic sets are the
/// groups of (not dead) elements with the same presence in all of them.
fn check_details(analysis: &Analysis, want: &BruteForce, ctx: &str) {
    let index = |config: &[(String, Value)]| -> Vec<usize> {
        config
            .iter()
            .zip(&analysis.inputs)
            .map(|((_, v), d)| {
                d.values
                    .iter()
                    .position(|x| v4t_yaml::deep_equal(x, v))
                    .expect("a domain value")
            })
            .collect()
    };
    let valid: Vec<&Vec<usize>> = want.by_config.iter().map(|(c, _)| c).collect();
    let sample: Vec<Vec<usize>> = analysis.sample.iter().map(|c| index(c)).collect();
    for c in &sample {
        assert!(valid.contains(&c), "{ctx}\nsampled {c:?} is not valid");
    }
    let n = analysis.inputs.len();
    for config in &valid {
        for i in 0..n {
            for j in i + 1..n {
                let covered = sample
                    .iter()
                    .any(|c| c[i] == config[i] && c[j] == config[j]);
                assert!(covered, "{ctx}\npair ({i}, {j}) of {config:?} not covered");
            }
            if n == 1 {
                assert!(sample.iter().any(|c| c[0] == config[0]), "{ctx}");
            }
        }
    }
    if valid.is_empty() {
        return;
    }
    let present = |id: &str, config: usize| want.by_config[config].1.iter().any(|p| p == id);
    for (id, count) in &analysis.commonality {
        let expected = (0..valid.len()).filter(|&k| present(id, k)).count() as u128;
        assert_eq!(
            count.value.to_u128(),
            Some(expected),
            "{ctx}\ncommonality of {id}"
        );
    }
    let mut groups: BTreeMap<Vec<bool>, Vec<String>> = BTreeMap::new();
    for (id, _) in &analysis.commonality {
        let presence: Vec<bool> = (0..valid.len()).map(|k| present(id, k)).collect();
        if presence.iter().any(|&p| p) {
            groups.entry(presence).or_default().push(id.clone());
        }
    }
    let mut expected: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
    expected.sort();
    let mut got = analysis.atomic.clone();
    got.sort();
    assert_eq!(got, expected, "{ctx}");
}

/// `--random`: uniform over the valid configurations (a chi-square test
/// on a small model with a constraint and a feature model: 6 of 16
/// configurations are ruled out).
#[test]
fn random_samples_are_uniform() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      a: {type: boolean, requires: b}
      b: {type: boolean}
      c: {type: boolean}
      d: {type: boolean}
    constraints:
      - {not: {and: [node.x, {variability_input: d}]}}
  node_templates:
    x:
      type: t
      conditions: {and: [{variability_input: c}, {not: {variability_input: b}}]}
";
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let options = AnalyzeOptions {
        random: Some((3000, 42)),
        ..AnalyzeOptions::default()
    };
    let a = analyze(&mut sources, id, &mut NoFiles, &options).expect("analyses");
    let valid = a.valid.value.to_u128().expect("small") as usize;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for c in &a.sample {
        *seen.entry(format!("{c:?}")).or_default() += 1;
    }
    assert_eq!(a.sample.len(), 3000);
    assert_eq!(seen.len(), valid, "{seen:?}");
    let expected = 3000.0 / valid as f64;
    let chi2: f64 = seen
        .values()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    // df = valid - 1 (at most 15): the 0.1% critical value is below 40.
    assert!(chi2 < 40.0, "chi-square {chi2} over {seen:?}");
}

/// Declared constraints implied by the rest of the model are redundant,
/// the others not.
#[test]
fn redundant_constraints_are_found() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      a: {type: boolean, requires: b}
      b: {type: boolean}
    constraints:
      - {implies: [{variability_input: a}, {variability_input: b}]}
      - {not: {and: [node.x, {variability_input: b}]}}
  node_templates:
    x: {type: t, conditions: {variability_input: a}}
";
    let a = analyzed(text, 0);
    let found: Vec<&str> = a.redundant.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(found, ["constraint `a implies b`"], "{found:?}");
    assert!(a.redundant.iter().all(|r| r.span.is_known()));
    let text = text.replace("requires: b", "description: free");
    let a = analyzed(&text, 0);
    assert!(a.redundant.is_empty(), "{:?}", a.redundant);
}

/// An exclusion's witness is excluded (resolving it fails before or at
/// solving), and its reasons are minimal: without any one value of them,
/// some configuration with the others is allowed. (The reasons' rules and
/// constraints are checked by `exclusion_reasons_are_minimal`.)
fn check_exclusion(e: &super::Exclusion, text: &str, ctx: &str) {
    let Some(w) = &e.witness else {
        assert!(!e.configurations.exact, "{ctx}");
        return;
    };
    let inputs: String = w
        .iter()
        .map(|(k, v)| format!("{k}: {}\n", to_json(&Node::new(v.clone(), Span::NONE))))
        .collect();
    let got = crate::testing::resolve_text(text, &[], Some(&inputs));
    let want = match e.by {
        super::Excluder::FeatureModel => "Variability inputs constraints are violated",
        super::Excluder::Constraints => "Could not solve",
    };
    assert_eq!(got.err().as_deref(), Some(want), "{ctx}");
    assert!(!e.reasons.is_empty(), "{ctx}");
}

/// Small TOSCA 2.0 templates whose references (inputs, outputs,
/// substitution mappings, workflows) fail in some configurations.
#[test]
fn analysis_matches_resolving_every_tosca_2_configuration() {
    let mut rng = Rng::new(0x5eed_2000_abcd_0001);
    let mut stats = Stats::default();
    let mut references = 0;
    for round in 0..60 {
        let inputs = rng.below(4) as usize;
        let nodes = 1 + rng.below(4) as usize;
        let text = crate::testing::random_tosca2_template(&mut rng, inputs, nodes);
        let mut failures = BTreeSet::new();
        let mut resolve_one = |inputs| {
            let outcome = resolve_fully(&text, inputs);
            if let Err(message) = &outcome {
                failures.insert(message.clone());
            }
            outcome
        };
        check(round, &text, &mut resolve_one, &mut stats);
        references += usize::from(failures.iter().any(|m| m.ends_with("which is absent")));
    }
    exercised!(references > 10, "too few reference failures: {references}");
    exercised!(
        stats.determined > 30,
        "too few determined: {}",
        stats.determined
    );
}

/// A few templates with 12 to 16 boolean inputs (4,096 to 65,536
/// configurations, each resolved).
#[test]
fn analysis_matches_resolving_with_up_to_16_inputs() {
    let mut rng = Rng::new(0x5eed_0016_0000_0001);
    let mut stats = Stats::default();
    for (round, inputs) in [12, 14, 16].into_iter().enumerate() {
        let text = template(&mut rng, inputs, &['b'], 8, false);
        let p = prepared(&text);
        with_resolver(&p, |resolve_one| {
            check(round, &text, resolve_one, &mut stats)
        });
    }
    assert!(stats.determined > 0);
}

/// A template whose string inputs are compared with 7 to 14 values each
/// (`equal`, negated, in `and` and `or` with a boolean), with conditional
/// hosting relations and sometimes constraints: where `analyze` walks an
/// input's values by halves over an exactly-one that is a tree of halves
/// (more than six values; issue 23, thirtieth round). Values `v0` ..
/// `v{n+1}` are compared, so some are read but never declared.
fn values_template(rng: &mut Rng) -> String {
    let strings: Vec<(String, u64)> = (0..1 + rng.below(2))
        .map(|i| (format!("s{i}"), 7 + rng.below(8)))
        .collect();
    let booleans: Vec<String> = (0..rng.below(3)).map(|i| format!("b{i}")).collect();
    let compare = |rng: &mut Rng| {
        let (name, values) = &strings[rng.below(strings.len() as u64) as usize];
        let v = rng.below(values + 2);
        format!("{{equal: [{{variability_input: {name}}}, v{v}]}}")
    };
    let condition = |rng: &mut Rng| match rng.below(5) {
        0 => format!("{{not: {}}}", compare(rng)),
        1 if !booleans.is_empty() => {
            let b = &booleans[rng.below(booleans.len() as u64) as usize];
            format!("{{or: [{}, {{variability_input: {b}}}]}}", compare(rng))
        }
        2 => format!("{{and: [{}, {}]}}", compare(rng), compare(rng)),
        _ => compare(rng),
    };
    let mut s = "tosca_definitions_version: tosca_variability_1_0\n\
                 topology_template:\n  variability:\n    inputs:\n"
        .to_string();
    for (name, _) in &strings {
        s.push_str(&format!("      {name}: {{type: string}}\n"));
    }
    for b in &booleans {
        s.push_str(&format!("      {b}: {{type: boolean}}\n"));
    }
    if rng.below(3) == 0 {
        s.push_str("    constraints:\n");
        for _ in 0..1 + rng.below(2) {
            s.push_str(&format!("      - {}\n", condition(rng)));
        }
    }
    s.push_str("  node_templates:\n");
    for j in 0..8 + rng.below(10) {
        s.push_str(&format!(
            "    n{j}:\n      type: tosca.nodes.Root\n      conditions: {}\n",
            condition(rng)
        ));
        if j > 0 && rng.below(4) == 0 {
            s.push_str(&format!(
                "      requirements:\n        - host: {{node: n{}, conditions: {}}}\n",
                rng.below(j),
                condition(rng)
            ));
        }
    }
    s
}

/// Templates whose inputs are compared with many values (see
/// [`values_template`]) against resolving every configuration.
#[test]
fn analysis_matches_resolving_with_inputs_of_many_values() {
    let mut rng = Rng::new(0x5eed_0030_0000_0001);
    let mut stats = Stats::default();
    for round in 0..40 {
        let text = values_template(&mut rng);
        let p = prepared(&text);
        with_resolver(&p, |resolve_one| {
            check(round, &text, resolve_one, &mut stats)
        });
    }
    exercised!(
        stats.determined > 35,
        "too few determined: {}",
        stats.determined
    );
    exercised!(
        stats.checks > 25,
        "too few failing checks: {}",
        stats.checks
    );
    exercised!(
        stats.ruled_out > 8,
        "too few ruled out: {}",
        stats.ruled_out
    );
    exercised!(
        stats.undeclared > 20,
        "too few undeclared: {}",
        stats.undeclared
    );
    exercised!(
        stats.witnesses > 150,
        "too few witnesses: {}",
        stats.witnesses
    );
}

/// Counters of what the random templates exercised.
#[derive(Default)]
struct Stats {
    /// Several topologies and some failing configuration.
    interesting: usize,
    determined: usize,
    /// Some configuration fails with an evaluation error.
    errors: usize,
    /// Some configuration fails a consistency or semantic check.
    checks: usize,
    /// Some configuration is outside the input feature model.
    feature_model: usize,
    /// Conflicts of "Could not solve" checked.
    conflicts: usize,
    /// Some configuration is ruled out by the declared constraints.
    ruled_out: usize,
    /// Some configuration with an undeclared value fails.
    undeclared: usize,
    /// Failure groups whose witness was compared with the last failing
    /// configuration.
    witnesses: usize,
}

fn resolve_fully_with(text: &str) -> impl FnMut(v4t_yaml::Map) -> Outcome + '_ {
    move |inputs| resolve_fully(text, inputs)
}

/// Analyses `text` and compares the analysis with resolving every
/// configuration through `resolve_one`.
fn check(
    round: usize,
    text: &str,
    resolve_one: &mut dyn FnMut(v4t_yaml::Map) -> Outcome,
    stats: &mut Stats,
) {
    let text = text.to_string();
    {
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", &text);
        let options = AnalyzeOptions {
            sample: Some(2),
            random: Some((8, round as u64)),
            details: true,
            ..AnalyzeOptions::default()
        };
        let analysis = match analyze(&mut sources, id, &mut NoFiles, &options) {
            Ok(a) => a,
            Err(e) => panic!("round {round}: {}\n{text}", e.message),
        };
        let stripped = without_constraints(&text).map(|t| prepared(&t));
        let want = match &stripped {
            Some(p) => with_resolver(p, |r| brute_force(&analysis, resolve_one, Some(r))),
            None => brute_force(&analysis, resolve_one, None),
        };
        let ctx = format!("round {round}\n{text}");
        assert!(analysis.valid.exact && analysis.topologies.exact, "{ctx}");
        // Where the inputs leave a choice, the optimiser picks a solution
        // (or finds the result ambiguous) and the checks see only that one:
        // the analysis is then exact only for what fails before solving.
        if analysis.determined {
            assert_eq!(analysis.valid.value.to_u128(), Some(want.valid), "{ctx}");
        }
        let total: u128 = analysis
            .inputs
            .iter()
            .map(|i| i.values.len() as u128)
            .product();
        assert_eq!(analysis.configurations.to_u128(), Some(total), "{ctx}");
        let topologies = analysis.topologies.value.to_u128().expect("small");
        if analysis.determined {
            assert_eq!(topologies, want.topologies.len() as u128, "{ctx}");
        } else {
            assert!(topologies >= want.topologies.len() as u128, "{ctx}");
        }
        let mut failures: BTreeMap<(String, bool), u128> = BTreeMap::new();
        for f in &analysis.failures {
            let n = f.configurations.value.to_u128().expect("small");
            *failures
                .entry((f.error.message.clone(), f.undeclared))
                .or_default() += n;
        }
        let before_solving = |m: &String| {
            m == "Could not solve"
                || m == "Variability inputs constraints are violated"
                || m.starts_with("Element")
        };
        if analysis.determined {
            assert_eq!(failures, want.failures, "{ctx}");
        } else {
            let mut expected = want.failures.clone();
            expected.retain(|(m, _), _| before_solving(m));
            let mut got = failures.clone();
            got.retain(|(m, _), _| before_solving(m));
            assert_eq!(got, expected, "{ctx}");
        }
        // Excluded, not failing: outside the feature model, or ruled out
        // by the declared constraints.
        let excluded = |by: super::Excluder| {
            analysis
                .excluded
                .iter()
                .filter(|e| e.by == by)
                .map(|e| e.configurations.value.to_u128().expect("small"))
                .sum::<u128>()
        };
        assert_eq!(
            excluded(super::Excluder::FeatureModel),
            want.outside,
            "{ctx}"
        );
        assert_eq!(
            excluded(super::Excluder::Constraints),
            want.ruled_out,
            "{ctx}"
        );
        stats.ruled_out += usize::from(want.ruled_out > 0);
        stats.undeclared += usize::from(want.failures.keys().any(|k| k.1));
        for e in &analysis.excluded {
            check_exclusion(e, &text, &ctx);
            if let (super::Excluder::Constraints, Some(w)) = (e.by, &e.witness) {
                let shown = |name: &str, v: &Value| {
                    format!("{name}={}", to_json(&Node::new(v.clone(), Span::NONE)))
                };
                let first = want.first_ruled_out.as_ref().expect("one is ruled out");
                let named: Vec<String> = (analysis.inputs.iter().zip(first))
                    .map(|(i, &v)| shown(&i.name, &i.values[v]))
                    .collect();
                let witness: Vec<String> = w.iter().map(|(k, v)| shown(k, v)).collect();
                assert_eq!(
                    witness, named,
                    "the smallest ruled out configuration\n{ctx}"
                );
            }
        }
        if want.valid > 0 {
            let dead: BTreeSet<&str> = want
                .seen
                .iter()
                .filter(|(_, s)| !s.0)
                .map(|(id, _)| id.as_str())
                .collect();
            let core: BTreeSet<&str> = want
                .seen
                .iter()
                .filter(|(_, s)| !s.1)
                .map(|(id, _)| id.as_str())
                .collect();
            let got_dead: BTreeSet<&str> = analysis.dead.iter().collect();
            let got_core: BTreeSet<&str> = analysis.core.iter().collect();
            if analysis.determined {
                assert_eq!(got_dead, dead, "{ctx}");
                assert_eq!(got_core, core, "{ctx}");
            } else {
                assert!(
                    got_dead.is_subset(&dead) && got_core.is_subset(&core),
                    "{ctx}"
                );
            }
        }
        if analysis.determined {
            check_details(&analysis, &want, &ctx);
        }
        if analysis.determined {
            // An input is irrelevant iff changing it alone never changes
            // the topology of a valid configuration.
            for (i, input) in analysis.inputs.iter().enumerate() {
                let relevant = relevant(&want.by_config, i);
                assert_eq!(
                    analysis.irrelevant.contains(&input.name),
                    !relevant,
                    "{ctx}"
                );
            }
        }
        // A conflict: no configuration with all of its values has a
        // solution, and without any one of them some configuration has.
        for f in &analysis.failures {
            let Some(conflict) = &f.conflict else {
                continue;
            };
            let index = |name: &str, value: &Value| {
                let i = analysis
                    .inputs
                    .iter()
                    .position(|d| d.name == name)
                    .expect("input");
                let v = analysis.inputs[i]
                    .values
                    .iter()
                    .position(|x| v4t_yaml::deep_equal(x, value))
                    .expect("value");
                (i, v)
            };
            let fixed: Vec<(usize, usize)> = conflict.iter().map(|(n, v)| index(n, v)).collect();
            let agrees = |config: &[usize], except: Option<usize>| {
                fixed
                    .iter()
                    .enumerate()
                    .all(|(k, &(i, v))| Some(k) == except || config[i] == v)
            };
            assert!(
                !want.solvable.iter().any(|(c, ok)| *ok && agrees(c, None)),
                "{ctx}\nconflict {conflict:?}"
            );
            for k in 0..fixed.len() {
                assert!(
                    want.solvable
                        .iter()
                        .any(|(c, ok)| *ok && agrees(c, Some(k))),
                    "{ctx}\nconflict {conflict:?} without {k}"
                );
            }
            stats.conflicts += 1;
        }
        // Every group with exact counts has a witness.
        for f in &analysis.failures {
            assert!(
                f.witness.is_some() || !f.configurations.exact,
                "{ctx}\nno witness for {}",
                f.error.message
            );
        }
        // Where the inputs decide every presence, a group's witness is the
        // first configuration without a solution (`Could not solve`) or
        // the last one that fails with its message (the others), where
        // only one group has the message.
        for f in analysis.failures.iter().filter(|_| analysis.determined) {
            let key = (f.error.message.clone(), f.undeclared);
            let same =
                |g: &&super::FailureGroup| (&g.error.message, g.undeclared) == (&key.0, key.1);
            let (Some(w), 1) = (&f.witness, analysis.failures.iter().filter(same).count()) else {
                continue;
            };
            let expected = match f.error.message.as_str() {
                "Could not solve" => &want.first_failing[&key],
                _ => &want.last_failing[&key],
            };
            let json = |v: &Value| to_json(&Node::new(v.clone(), Span::NONE));
            let chosen: Vec<usize> = (analysis.inputs.iter().zip(w))
                .map(|(i, (_, v))| {
                    (i.values.iter().position(|x| json(x) == json(v))).expect("a value")
                })
                .collect();
            assert_eq!(&chosen, expected, "witness of {:?}\n{ctx}", f.error.message);
            stats.witnesses += 1;
        }
        // Witnesses fail with their message.
        for f in &analysis.failures {
            let Some(w) = &f.witness else { continue };
            if !analysis.determined && !before_solving(&f.error.message) {
                continue;
            }
            let inputs: String = w
                .iter()
                .map(|(k, v)| format!("{k}: {}\n", to_json(&Node::new(v.clone(), Span::NONE))))
                .collect();
            let got = crate::testing::resolve_text(&text, &[], Some(&inputs));
            assert_eq!(
                got.err().as_deref(),
                Some(f.error.message.as_str()),
                "{ctx}"
            );
        }
        stats.interesting += usize::from(want.topologies.len() > 1 && !want.failures.is_empty());
        stats.errors += usize::from(want.failures.keys().any(|(m, _)| m.starts_with("Element")));
        stats.checks += usize::from(
            want.failures
                .keys()
                .any(|(m, _)| m.contains("does not exist") || m.contains("expected")),
        );
        stats.determined += usize::from(analysis.determined);
        stats.feature_model += usize::from(want.outside > 0);
    }
}

/// Presets resolved on their own: one that fails, two with the topology of
/// an earlier one, one that names an undefined preset input value.
#[test]
fn presets_are_resolved_and_compared() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      big: {type: boolean}
      tls: {type: boolean}
    presets:
      small: {inputs: {big: false, tls: false}}
      secure: {inputs: {big: true, tls: true}}
      large: {inputs: {big: true, tls: false}}
      plain: {inputs: {big: false, tls: true}}
      huge: {inputs: {big: true, tls: false}}
    constraints:
      - {not: {and: [{variability_input: tls}, {not: {variability_input: big}}]}}
  node_templates:
    vm:
      type: vm
      conditions: {variability_input: big}
";
    let a = analyzed(text, 0);
    let got: Vec<(String, Option<String>, Option<String>)> = a
        .presets
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                p.error.as_ref().map(|e| e.message.clone()),
                p.same_as.clone(),
            )
        })
        .collect();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        got,
        vec![
            ("small".to_string(), None, None),
            ("secure".to_string(), None, None),
            ("large".to_string(), None, s("secure")),
            ("plain".to_string(), s("Could not solve"), None),
            // The first preset with its topology, not the latest.
            ("huge".to_string(), None, s("secure")),
        ]
    );
    // The configuration the constraint rules out is excluded, no failure,
    // and the reasons name the constraint and both values.
    assert!(a.failures.is_empty(), "{:?}", a.failures);
    assert_eq!(a.excluded.len(), 1);
    let e = &a.excluded[0];
    assert_eq!(e.by, super::Excluder::Constraints);
    assert_eq!(e.configurations.value.to_u128(), Some(1));
    let reasons: Vec<&str> = e.reasons.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[2].starts_with("constraint"), "{reasons:?}");
    assert!(e.reasons[2].span.is_known());
    assert_eq!(a.irrelevant, vec!["tls".to_string()]);
}

/// Two expressions that fail for different inputs: a configuration in
/// which both fail fails with the first one resolving evaluates, so every
/// failing configuration is counted once, in the right group.
#[test]
fn a_configuration_fails_with_the_first_error() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      u0: {description: untyped}
      u1: {description: untyped}
  node_templates:
    a:
      type: t
      conditions: {or: [{equal: [{variability_input: u0}, x]}, {greater: [{add: [{variability_input: u0}, 1]}, 2]}]}
    b:
      type: t
      conditions: {or: [{equal: [{variability_input: u1}, y]}, {greater: [{add: [{variability_input: u1}, 1]}, 2]}]}
";
    let mut stats = Stats::default();
    check(0, text, &mut resolve_fully_with(text), &mut stats);
    assert_eq!(stats.errors, 1);
}

/// A present property whose `expression` gives no value or fails fails
/// its configuration, before any check: resolving evaluates the present
/// properties' expressions right after solving (found by comparing the
/// analysis with resolving each configuration of random condition-rich
/// templates, `scripts/analyze-resolve-differential.py`).
#[test]
fn property_values_fail_before_the_checks() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      k: {type: integer}
      s: {type: string}
  node_templates:
    a:
      type: t
      properties:
        - q: {expression: {token: [a-b-c, '-', 5]}, conditions: {greater: [{variability_input: k}, 1]}}
        - r: {expression: {add: [{variability_input: s}, 1]}, conditions: {equal: [{variability_input: s}, x]}}
    b:
      type: t
      requirements:
        - host: {node: c, conditions: {greater: [{variability_input: k}, 2]}}
    c:
      type: t
      conditions: {less: [{variability_input: k}, 3]}
";
    let mut stats = Stats::default();
    check(0, text, &mut resolve_fully_with(text), &mut stats);
    let messages: BTreeSet<String> = analyzed(text, 0)
        .failures
        .iter()
        .map(|f| f.error.message.clone())
        .collect();
    let want = [
        "Element \"\"x\"\" is not a number",
        "Node \"b\" expected to have a hosting relation",
        "Property \"q@0\" of node \"a\" has no value",
    ];
    assert_eq!(messages, want.iter().map(|m| m.to_string()).collect());
}

/// `validate`: one configuration per topology is resolved and validated;
/// the topologies whose resolved template is no valid TOSCA are failures
/// with their configurations counted and a witness, the valid ones not.
#[test]
fn resolved_templates_are_validated_per_topology() {
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      fast: {type: boolean}
      big: {type: boolean}
  node_templates:
    app:
      type: tosca.nodes.Compute
    cache:
      type: tosca.nodes.Cache
      conditions: {variability_input: fast}
";
    let run = |validate: usize| analyzed(text, validate);
    let without = run(0);
    assert!(without.failures.is_empty());
    assert_eq!(without.validated, None);
    let a = run(10);
    assert_eq!(a.validated, Some((2, true)));
    assert_eq!(a.failures.len(), 1, "{:?}", a.failures);
    let f = &a.failures[0];
    assert_eq!(f.error.message, "unknown node type `tosca.nodes.Cache`");
    // `big` changes nothing: both configurations with `fast` fail.
    assert_eq!(f.configurations.value.to_u128(), Some(2));
    let witness = f.witness.as_ref().expect("a witness");
    assert_eq!(witness[0].0, "fast");
    assert!(matches!(witness[0].1, Value::Bool(true)));
    // A limit of one topology validates only the first (the valid one).
    let one = run(1);
    assert_eq!(one.validated, Some((1, false)));
    assert!(one.failures.is_empty());
}

/// `validate` on TOSCA 2.0: the resolved `tosca_2_0` templates are
/// validated; a configuration whose TOSCA 2.0 references fail (a present
/// node reads an absent input) fails with or without `validate`, and is
/// no valid configuration whose topology is validated.
#[test]
fn tosca_2_templates_are_validated_after_their_references() {
    let text = "\
tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties:
      p: {type: string, required: false}
service_template:
  variability:
    inputs:
      fast: {type: boolean}
      keep: {type: boolean}
  inputs:
    host: {type: string, default: x, conditions: {variability_input: keep}}
  node_templates:
    app: {type: T}
    cache: {type: Cache, conditions: {variability_input: fast}}
    web: {type: T, properties: {p: {$get_input: host}}}
";
    let run = |validate: usize| analyzed(text, validate);
    let reads = "Property \"p@0\" of node \"web\" reads input \"host\", which is absent";
    let without = run(0);
    let found: Vec<(&str, Option<u128>)> = without
        .failures
        .iter()
        .map(|f| (f.error.message.as_str(), f.configurations.value.to_u128()))
        .collect();
    assert_eq!(found, [(reads, Some(2))]);
    assert_eq!(without.valid.value.to_u128(), Some(2));
    let a = run(10);
    assert_eq!(a.validated, Some((2, true)));
    let mut found: Vec<(String, Option<u128>)> = a
        .failures
        .iter()
        .map(|f| (f.error.message.clone(), f.configurations.value.to_u128()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (reads.to_string(), Some(2)),
            ("unknown node type `Cache`".to_string(), Some(1)),
        ]
    );
}

/// A TOSCA 2.0 template whose references fail in some configurations: an
/// output reading a conditional node, a substitution mapping and a workflow
/// step naming conditional nodes, a type only a conditional import defines.
const TOSCA_2_REFERENCES: &str = "\
tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
    namespace: s
    conditions: {variability_input: simple}
node_types:
  T:
    properties:
      p: {type: string, required: false}
    capabilities: {c: {type: C}}
capability_types: {C: {}}
service_template:
  variability:
    inputs:
      db: {type: boolean}
      flow: {type: boolean}
      mapped: {type: boolean}
      simple: {type: boolean}
  substitution_mappings:
    node_type: T
    capabilities:
      c: [front, c]
  node_templates:
    app: {type: T}
    database: {type: T, conditions: {variability_input: db}}
    front: {type: T, conditions: {variability_input: mapped}}
    worker: {type: T, conditions: {not: {variability_input: flow}}}
    vm: {type: s:Compute, conditions: {variability_input: db}}
  outputs:
    address: {type: string, value: {$get_property: [database, p]}}
  workflows:
    w:
      steps:
        s: {target: worker, activities: [{set_state: started}]}
";

/// The TOSCA 2.0 reference checks over every configuration: an output
/// reading a conditional node, a substitution mapping and a workflow step
/// naming conditional nodes, a type only a conditional import defines;
/// each failing configuration counted once, with its first failure, as
/// resolving every configuration finds.
#[test]
fn tosca_2_references_fail_in_some_configurations() {
    let text = TOSCA_2_REFERENCES;
    let mut stats = Stats::default();
    check(0, text, &mut resolve_fully_with(text), &mut stats);
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let a = analyze(&mut sources, id, &mut NoFiles, &AnalyzeOptions::default()).expect("analyses");
    assert!(a.determined);
    let found: Vec<(&str, Option<u128>)> = a
        .failures
        .iter()
        .map(|f| (f.error.message.as_str(), f.configurations.value.to_u128()))
        .collect();
    let absent = |what: &str| format!("{what}, which is absent");
    assert_eq!(
        found,
        [
            (
                "Type \"s:Compute@0\" of node \"vm\" is \"Compute\", which only an absent import defines",
                Some(4)
            ),
            (
                absent("Output \"address@0\" refers to node \"database\"").as_str(),
                Some(8)
            ),
            (
                absent("Substitution mapping \"capabilities.c\" maps to node \"front\"").as_str(),
                Some(2)
            ),
            (
                absent("Step \"s\" of workflow \"w\" targets \"worker\"").as_str(),
                Some(1)
            ),
        ]
    );
    // One witness each, in input order db, flow, mapped, simple (that it
    // fails with its message `check` has resolved).
    let witnesses: Vec<Vec<bool>> = a
        .failures
        .iter()
        .map(|f| {
            let w = f.witness.as_ref().expect("a witness");
            w.iter()
                .map(|(_, v)| matches!(v, Value::Bool(true)))
                .collect()
        })
        .collect();
    let fails: [fn(&[bool]) -> bool; 4] = [
        |w| w[0] && !w[3],
        |w| !w[0],
        |w| w[0] && !w[2] && w[3],
        |w| w.iter().all(|&x| x),
    ];
    assert_eq!(witnesses.len(), fails.len());
    for (w, fails) in witnesses.iter().zip(fails) {
        assert!(fails(w), "{witnesses:?}");
    }
    // The one valid configuration: db, mapped and simple, no flow.
    assert_eq!(a.valid.value.to_u128(), Some(1));
    assert_eq!(a.topologies.value.to_u128(), Some(1));
    assert!(a.core.contains("node.worker"), "{:?}", a.core);
}

/// A group that is no variability group fails where it and a relation
/// member of it are present (TOSCA 2.0 groups have no such members).
#[test]
fn tosca_2_groups_with_relation_members_fail_where_both_are_present() {
    let text = "\
tosca_definitions_version: tosca_2_0
node_types: {N: {}}
group_types: {G: {}}
service_template:
  variability:
    inputs:
      tag: {type: boolean}
      link: {type: boolean}
  node_templates:
    a:
      type: N
      requirements: [{r: {node: b, conditions: {variability_input: link}}}]
    b: {type: N}
  groups:
    tagged:
      type: G
      members: [[a, r]]
      conditions: {variability_input: tag}
";
    let mut stats = Stats::default();
    check(0, text, &mut resolve_fully_with(text), &mut stats);
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let a = analyze(&mut sources, id, &mut NoFiles, &AnalyzeOptions::default()).expect("analyses");
    let found: Vec<(&str, Option<u128>)> = a
        .failures
        .iter()
        .map(|f| (f.error.message.as_str(), f.configurations.value.to_u128()))
        .collect();
    assert_eq!(
        found,
        [(
            "Group \"tagged\" has the member relation \"r@0\" of node \"a\", but in TOSCA 2.0 only node templates and groups are group members",
            Some(1)
        )]
    );
    assert_eq!(a.valid.value.to_u128(), Some(3));
}

/// `--export dimacs`: the exported CNF has exactly as many models (over all
/// its variables) as the analysis counts valid configurations, on random
/// templates whose presences the inputs decide (the others are refused).
#[test]
fn exported_dimacs_counts_the_valid_configurations() {
    let mut rng = Rng::new(0x5eed_2700_dead_0001);
    let (mut exported, mut refused) = (0, 0);
    for round in 0..60 {
        let inputs = rng.below(6) as usize;
        let nodes = 1 + rng.below(5) as usize;
        let text = template(&mut rng, inputs, &['b', 'b', 's', 'u'], nodes, false);
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", &text);
        let options = AnalyzeOptions {
            export: Some(super::ExportFormat::Dimacs),
            ..AnalyzeOptions::default()
        };
        let a = match analyze(&mut sources, id, &mut NoFiles, &options) {
            Ok(a) => a,
            Err(e) if e.message.contains("cannot be exported") => {
                refused += 1;
                continue;
            }
            Err(e) => panic!("round {round}: {}\n{text}", e.message),
        };
        let dimacs = a.export.expect("an export");
        let mut sat = v4t_sat::Solver::new();
        let mut vars: Vec<v4t_sat::Lit> = Vec::new();
        for line in dimacs.lines() {
            if let Some(header) = line.strip_prefix("p cnf ") {
                let n: usize = header.split(' ').next().expect("n").parse().expect("n");
                vars = (0..n).map(|_| sat.new_var()).collect();
                continue;
            }
            if line.starts_with('c') {
                continue;
            }
            let clause: Vec<v4t_sat::Lit> = line
                .split(' ')
                .map(|t| t.parse::<i64>().expect("a literal"))
                .take_while(|&l| l != 0)
                .map(|l| {
                    let v = vars[(l.unsigned_abs() - 1) as usize];
                    if l < 0 {
                        !v
                    } else {
                        v
                    }
                })
                .collect();
            sat.add_clause(&clause);
        }
        let models = sat.count(&[], &vars, &v4t_sat::CountBudget::default());
        assert_eq!(
            models.value, a.valid.value,
            "round {round}\n{text}\n{dimacs}"
        );
        exported += 1;
    }
    assert!(exported > 30, "{exported} exported, {refused} refused");
    // Presences the inputs leave open (a cycle): refused.
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      a: {type: boolean}
  node_templates:
    x: {type: t, conditions: node.y}
    y: {type: t, conditions: node.x}
";
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    let options = AnalyzeOptions {
        export: Some(super::ExportFormat::Uvl),
        ..AnalyzeOptions::default()
    };
    let e = analyze(&mut sources, id, &mut NoFiles, &options).expect_err("refused");
    assert!(e.message.contains("cannot be exported"), "{}", e.message);
}

/// Sixty XOR-linked inputs: node `i` is present iff `x_i xor x_(i+1)`, so
/// every one of the 2^59 presence vectors is a topology (of two
/// configurations each). Counted exactly, where listing is out of reach.
#[test]
fn xor_linked_inputs_count_exactly() {
    use std::fmt::Write;
    let n = 60;
    let mut text = "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    inputs:\n".to_string();
    for i in 0..n {
        let _ = writeln!(text, "      x{i}: {{type: boolean}}");
    }
    text.push_str("  node_templates:\n");
    for i in 0..n - 1 {
        let _ = writeln!(
            text,
            "    n{i}:\n      type: tosca.nodes.Root\n      conditions: {{xor: [{{variability_input: x{i}}}, {{variability_input: x{}}}]}}",
            i + 1
        );
    }
    let analysis = analyzed(&text, 0);
    assert_eq!(analysis.configurations, super::Natural::pow2(60));
    assert!(analysis.valid.exact && analysis.topologies.exact);
    assert_eq!(analysis.valid.value, super::Natural::pow2(60));
    assert_eq!(analysis.topologies.value, super::Natural::pow2(59));
    assert!(analysis.determined);
}

/// The analysis of `text`'s prepared document read as a tree and as a
/// [`v4t_yaml::Doc`]: everything `analyze` reads from the document (the
/// family problem, the feature rules, the constraints, the checks, `--why`,
/// the preset names and their resolutions) must come out the same. Returns
/// the analysis, or `None` if the template does not prepare.
fn analyses_alike(text: &str, ctx: &str) -> Option<String> {
    let mut sources = Sources::new();
    let prepared = crate::testing::prepare(&mut sources, text).ok()?;
    let types = prepared.files.system();
    let doc = v4t_yaml::Doc::from_node(&prepared.doc, v4t_yaml::SourceId(0));
    let options = AnalyzeOptions {
        why: true,
        details: true,
        sample: Some(2),
        enumerate: 4,
        ..AnalyzeOptions::default()
    };
    let readings = [v4t_yaml::NodeRef::from(&prepared.doc), doc.root()];
    let [tree, arena] = readings.map(|doc| {
        let graph = &prepared.graph;
        let analysed = crate::solve::family_problem(doc, graph, &types, 0.0).and_then(|problem| {
            super::analyse_family(doc, (graph, &types), problem, &options, 0.0, &mut |_| {})
        });
        let presets: super::Presets = super::preset_names(doc)
            .into_iter()
            .map(|name| {
                let assigned = crate::inputs::assign(
                    &prepared.doc,
                    std::slice::from_ref(&name),
                    None,
                    &mut Vec::new(),
                );
                (name, assigned)
            })
            .collect();
        let resolved = super::resolve_presets(doc, graph, (&types, &sources), presets, 0.0);
        format!("{:?}\n{resolved:?}", analysed.map(|(a, _)| a))
    });
    assert_eq!(tree, arena, "{ctx}");
    Some(tree)
}

#[test]
fn the_analysis_reads_a_document_as_its_tree() {
    let fixed = [
        "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {type_default_condition: true}
    inputs:
      a: {type: boolean, requires: b}
      b: {type: boolean}
      c: {type: boolean, default: false}
    presets:
      small: {inputs: {a: false, b: false}}
      large: {inputs: {a: true, b: true, c: true}}
      odd: {inputs: {a: true, b: false}}
    constraints:
      - {implies: [{variability_input: a}, {variability_input: b}]}
      - {not: {and: [node.x, {variability_input: c}]}}
  node_templates:
    x:
      type: t
      conditions: {variability_input: a}
      requirements:
        - host: {node: y, conditions: {variability_input: b}}
    y: {type: t, conditions: {variability_input: b}, implies: [[node.x, {variability_input: a}]]}
",
        TOSCA_2_REFERENCES,
    ];
    let first = analyses_alike(fixed[0], "fixed template 0").expect("prepares");
    // What the comparison covers: the feature rule, the redundant
    // constraint, `--why`'s reasons and the presets (one fails).
    for part in [
        "`requires` of variability input",
        "constraint `a implies b`",
    ] {
        assert!(first.contains(part), "{part} in {first}");
    }
    assert!(first.contains("why: Some(") && first.contains("Could not solve"));
    let second = analyses_alike(fixed[1], "fixed template 1").expect("prepares");
    assert!(second.contains("Ok(Analysis"), "{second}");
    let mut rng = Rng::new(0x5eed_d0c5_0000_0023);
    let mut prepared = 0;
    for round in 0..40 {
        let inputs = 1 + rng.below(4) as usize;
        let nodes = 1 + rng.below(4) as usize;
        let text = template(&mut rng, inputs, &['b', 's', 'u'], nodes, round % 2 == 0);
        prepared +=
            usize::from(analyses_alike(&text, &format!("round {round}:\n{text}")).is_some());
    }
    assert!(prepared > 30, "only {prepared} of 40 templates prepare");
}

/// A template of `header` (up to `node_templates:`) and 200 nodes `n_i`,
/// each present when the input `mode` is `m_i`: enough values that
/// walking them (one propagation per value, each over the other values)
/// exceeds [`analyzed_past_budget`]'s budget too.
fn one_node_per_value(header: &str) -> String {
    let mut text = header.to_string();
    for i in 0..200 {
        text.push_str(&format!(
            "    n{i}:\n      type: tosca.nodes.Root\n      conditions: {{equal: [{{variability_input: mode}}, m{i}]}}\n"
        ));
    }
    text
}

/// The analysis of `text` with a counting budget of 2,000 steps, which
/// [`one_node_per_value`]'s templates exceed.
fn analyzed_past_budget(text: &str) -> Analysis {
    let options = AnalyzeOptions {
        budget: v4t_sat::CountBudget {
            steps: 2_000,
            ..v4t_sat::CountBudget::default()
        },
        ..AnalyzeOptions::default()
    };
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", text);
    analyze(&mut sources, id, &mut NoFiles, &options).expect("analyses")
}

/// Where counting runs out of its budget, the configurations less the
/// solvable ones are no lower bound: failing configurations are claimed
/// only where a configuration is shown to fail. None where every one has a
/// solution (all 201 values of `mode` here), "at least 1" with the one
/// value that has none.
#[test]
fn counts_that_run_out_claim_only_failures_shown() {
    let text = |unsolvable: bool| {
        let mut text = one_node_per_value(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    options: {required_hosting_constraint: true}\n    inputs:\n      mode: {type: string}\n  node_templates:\n",
        );
        if unsolvable {
            // Present with m7, and never hosted.
            text.push_str("    bad:\n      type: tosca.nodes.Root\n      conditions: {equal: [{variability_input: mode}, m7]}\n      requirements:\n        - host: {node: n8, conditions: false}\n");
        }
        text
    };
    let solvable = analyzed_past_budget(&text(false));
    assert!(!solvable.valid.exact, "the budget runs out");
    assert!(solvable.failures.is_empty(), "{:?}", solvable.failures);
    let one = analyzed_past_budget(&text(true));
    assert!(!one.valid.exact, "the budget runs out");
    // (n8, the host that never is, fails a check of its own with m8.)
    let unsolvable: Vec<_> = (one.failures.iter())
        .filter(|g| g.error.message == "Could not solve")
        .collect();
    let [group] = &unsolvable[..] else {
        panic!("one group: {:?}", one.failures);
    };
    assert_eq!(group.configurations.value, super::Natural::ONE);
    assert!(!group.configurations.exact);
    let witness = group.witness.as_ref().expect("a witness");
    assert_eq!(format!("{witness:?}"), r#"[("mode", String("m7"))]"#);
}

/// The same for configurations the declared constraints rule out: none
/// where a constraint never bites, "at least 1" where it rules out one.
#[test]
fn counts_that_run_out_claim_only_exclusions_shown() {
    let text = |constraint: &str| {
        one_node_per_value(&format!(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    inputs:\n      mode: {{type: string}}\n    constraints:\n      - {constraint}\n  node_templates:\n"
        ))
    };
    let by_constraints = |a: &Analysis| -> Vec<super::Exclusion> {
        (a.excluded.iter())
            .filter(|e| e.by == super::Excluder::Constraints)
            .cloned()
            .collect()
    };
    let never = analyzed_past_budget(&text("{not: {and: [node.n1, node.n2]}}"));
    assert!(!never.valid.exact, "the budget runs out");
    assert!(by_constraints(&never).is_empty(), "{:?}", never.excluded);
    let one = analyzed_past_budget(&text("{not: node.n7}"));
    assert!(!one.valid.exact, "the budget runs out");
    let [exclusion] = &by_constraints(&one)[..] else {
        panic!("one exclusion: {:?}", one.excluded);
    };
    assert_eq!(exclusion.configurations.value, super::Natural::ONE);
    assert!(!exclusion.configurations.exact);
    let witness = exclusion.witness.as_ref().expect("a witness");
    assert_eq!(format!("{witness:?}"), r#"[("mode", String("m7"))]"#);
}
