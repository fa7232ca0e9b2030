//! `v4t analyze`: questions about every configuration of a variable service
//! template ([`v4t::analyze`]), printed as a text report or one JSON object.
//!
//! Exit code 1 when some configuration the template's model allows or
//! some preset fails (so CI can gate a template library on "every variant
//! resolves"; configurations the model excludes are no failures, and
//! failures only with undeclared values count only with `--strict`) or the
//! template itself is invalid.

use v4t::analyze::{
    analyze, show_value as value, Analysis, AnalyzeOptions, Count, Excluder, ExportFormat,
    FailureGroup, Irrelevance, Verdict, Why,
};
use v4t::explain::Reason;
use v4t::Sources;
use v4t_yaml::json::to_json;

use crate::diagnostics::{catch_panic, ColorChoice, Format, Reporter};
use crate::explain_cmd::location;
use crate::resolve_cmd::{finish, now_ms, open_template, print_notes};
use crate::{AnalyzeArgs, ExportArg, EXIT_FAILURE, EXIT_OK};

/// The most topologies `--validate` resolves and validates.
const VALIDATE_LIMIT: usize = 256;

/// Runs `v4t analyze` and returns the exit code.
pub fn run(args: &AnalyzeArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let (mut sources, template, mut loader) = match open_template(&reporter, &args.template) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let options = AnalyzeOptions {
        now_ms: Some(now_ms()),
        enumerate: args.enumerate,
        validate: if args.validate { VALIDATE_LIMIT } else { 0 },
        sample: args.sample,
        random: args.random.map(|n| (n, args.seed)),
        details: args.details,
        why: args.why,
        export: args.export.map(|e| match e {
            ExportArg::Uvl => ExportFormat::Uvl,
            ExportArg::Dimacs => ExportFormat::Dimacs,
        }),
        ..AnalyzeOptions::default()
    };
    let outcome = catch_panic(|| analyze(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
    let analysis = match finish(outcome, &sources, &reporter) {
        Ok(a) => a,
        Err(code) => return code,
    };
    for w in &analysis.warnings {
        reporter.report(&sources, w);
    }
    if let Some(model) = &analysis.export {
        print!("{model}");
        return EXIT_OK;
    }
    if let Some(dir) = &args.write_tests {
        if let Err(e) = crate::sample_tests::write(&args.template, dir, &analysis.sample) {
            reporter.error(v4t::Code::Write, &e);
            return EXIT_FAILURE;
        }
    }
    match args.format {
        Format::Text => print!("{}", text(&sources, &analysis)),
        Format::Json => println!("{}", to_json(&analysis.to_node(&sources))),
    }
    if analysis.fails(args.strict) {
        EXIT_FAILURE
    } else {
        EXIT_OK
    }
}

/// A count for people: `at least N` when it is a lower bound.
fn count(c: &Count) -> String {
    if c.exact {
        c.value.to_string()
    } else {
        format!("at least {}", c.value)
    }
}

/// Input values as `name=value ...`.
fn assignment(values: &[(String, v4t_yaml::Value)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(&value(v));
    }
    out
}

/// The text lines of failure groups.
fn failure_lines(groups: &[&FailureGroup], line: &mut dyn FnMut(String)) {
    for f in groups {
        line(format!(
            "  {} with \"{}\"",
            count(&f.configurations),
            f.error.message
        ));
        if let Some(w) = &f.witness {
            if w.is_empty() {
                line("    (the only configuration: the template has no inputs)".to_string());
            } else {
                line(format!("    for example: {}", assignment(w)));
            }
        }
        if let Some(c) = f.conflict.as_ref().filter(|c| !c.is_empty()) {
            line(format!("    no solution with: {}", assignment(c)));
        }
    }
}

/// The text lines of the excluded configurations.
fn excluded_lines(sources: &Sources, a: &Analysis, line: &mut dyn FnMut(String)) {
    if a.excluded.is_empty() {
        return;
    }
    line("excluded configurations (the template's model rules them out):".to_string());
    for e in &a.excluded {
        let by = match e.by {
            Excluder::FeatureModel => "by the input feature model",
            Excluder::Constraints => "by the constraints",
        };
        line(format!("  {} {by}", count(&e.configurations)));
        if let Some(w) = e.witness.as_ref().filter(|w| !w.is_empty()) {
            line(format!("    for example: {}", assignment(w)));
        }
        for r in &e.reasons {
            match location(sources, r.span) {
                Some(at) => line(format!("    because: {} ({at})", r.message)),
                None => line(format!("    because: {}", r.message)),
            }
        }
    }
}

/// The text lines of the redundant constraints, the details and the sample.
fn detail_lines(sources: &Sources, a: &Analysis, line: &mut dyn FnMut(String)) {
    if !a.redundant.is_empty() {
        line("redundant constraints (the rest of the model implies them):".to_string());
        for r in &a.redundant {
            match location(sources, r.span) {
                Some(at) => line(format!("  {} ({at})", r.message)),
                None => line(format!("  {}", r.message)),
            }
        }
    }
    if !a.commonality.is_empty() {
        line("commonality (valid configurations with the element):".to_string());
        for (id, c) in &a.commonality {
            line(format!("  {id}: {}", count(c)));
        }
        line(format!("atomic sets: {}", a.atomic.len()));
        for set in &a.atomic {
            line(format!("  {}", set.join(" ")));
        }
    }
    if !a.sample.is_empty() {
        line(format!("sample: {} configurations", a.sample.len()));
        for (i, c) in a.sample.iter().enumerate() {
            line(format!("  {}: {}", i + 1, assignment(c)));
        }
    }
}

/// `  reason (location)` with `indent`.
fn reason_line(sources: &Sources, r: &Reason, indent: &str) -> String {
    match location(sources, r.span) {
        Some(at) => format!("{indent}{} ({at})", r.message),
        None => format!("{indent}{}", r.message),
    }
}

/// With `--why`: why the dead or core element or the irrelevant input
/// `name` is so (an element id and an input name never coincide in one
/// list, and each list asks for its own).
fn why_lines(sources: &Sources, why: &Why, name: &str, line: &mut dyn FnMut(String)) {
    if let Some(e) = why.elements.iter().find(|e| e.element == name) {
        for r in &e.reasons {
            line(reason_line(sources, r, "    because: "));
        }
        return;
    }
    let Some(input) = why.inputs.iter().find(|i| i.input == name) else {
        return;
    };
    match &input.because {
        Irrelevance::Unread => {
            line("    because: no condition, constraint or rule reads it".to_string())
        }
        Irrelevance::Determined(reasons) => {
            line("    because: the other inputs decide its value".to_string());
            for r in reasons {
                line(reason_line(sources, r, "      by: "));
            }
        }
        Irrelevance::Readers(readers) => {
            for (r, verdict) in readers {
                let why = match verdict {
                    Verdict::AlwaysHolds => "it always holds",
                    Verdict::NeverHolds => "it never holds",
                    Verdict::DeadElement => "its element is dead",
                    Verdict::Masked => "its element's presence never changes with the input alone",
                    Verdict::Restricts => "it only restricts the valid configurations",
                };
                line(reason_line(sources, r, "    read by: "));
                line(format!("      which cannot change the topology: {why}"));
            }
        }
    }
}

/// With `--why`: the written conditions that always or never hold.
fn condition_lines(sources: &Sources, why: &Why, line: &mut dyn FnMut(String)) {
    for (holds, title) in [
        (true, "conditions that always hold (redundant)"),
        (
            false,
            "conditions that never hold (their elements are dead)",
        ),
    ] {
        let facts: Vec<_> = why.conditions.iter().filter(|c| c.holds == holds).collect();
        line(format!("{title}: {}", facts.len()));
        for c in facts {
            line(reason_line(sources, &c.condition, "  "));
        }
    }
}

/// The text report.
pub fn text(sources: &Sources, a: &Analysis) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("inputs: {}", a.inputs.len()));
    for input in &a.inputs {
        let values: Vec<String> = input.values.iter().map(value).collect();
        line(format!("  {}: {}", input.name, values.join(", ")));
    }
    line(format!("configurations: {}", a.configurations));
    line(format!("valid configurations: {}", count(&a.valid)));
    let how = if a.determined {
        "determined by the inputs"
    } else {
        "allowed by the conditions; the optimiser picks among them"
    };
    line(format!("topologies: {} ({how})", count(&a.topologies)));
    let list = |title: &str,
                ids: &mut dyn ExactSizeIterator<Item = &str>,
                line: &mut dyn FnMut(String)| {
        line(format!("{title}: {}", ids.len()));
        for id in ids {
            line(format!("  {id}"));
            if let Some(why) = &a.why {
                why_lines(sources, why, id, line);
            }
        }
    };
    list("dead elements", &mut a.dead.iter(), &mut line);
    list("core elements", &mut a.core.iter(), &mut line);
    if a.determined {
        list(
            "inputs that never change the topology",
            &mut a.irrelevant.iter().map(String::as_str),
            &mut line,
        );
    }
    if let Some(why) = &a.why {
        condition_lines(sources, why, &mut line);
    }
    excluded_lines(sources, a, &mut line);
    let (undeclared, failing): (Vec<&FailureGroup>, Vec<&FailureGroup>) =
        a.failures.iter().partition(|f| f.undeclared);
    if failing.is_empty() && !a.valid.exact {
        // Counting stopped: failing configurations may exist unshown.
        line("failing configurations: none found (counting stopped at its budget)".to_string());
    } else if failing.is_empty() {
        line("failing configurations: none".to_string());
    } else {
        line("failing configurations:".to_string());
        failure_lines(&failing, &mut line);
    }
    if !undeclared.is_empty() {
        line("failing only with values the template does not declare (declare the input's valid_values; failures with --strict):".to_string());
        failure_lines(&undeclared, &mut line);
    }
    detail_lines(sources, a, &mut line);
    if !a.presets.is_empty() {
        line("presets:".to_string());
        for p in &a.presets {
            match (&p.error, &p.same_as) {
                (Some(e), _) => line(format!("  {}: fails with \"{}\"", p.name, e.message)),
                (None, Some(other)) => line(format!("  {}: same topology as {other}", p.name)),
                (None, None) => line(format!("  {}: resolves", p.name)),
            }
        }
    }
    if let Some((n, complete)) = a.validated {
        let more = if complete {
            ""
        } else {
            "; more exist, not validated"
        };
        line(format!(
            "validated: {n} topologies, one configuration each{more}"
        ));
    }
    for note in &a.unmodelled {
        line(format!("not modelled: {note}"));
    }
    if let Some((topologies, complete)) = &a.enumerated {
        line(format!(
            "topologies listed: {}{}",
            topologies.len(),
            if *complete { "" } else { " (more exist)" }
        ));
        for (i, t) in topologies.iter().enumerate() {
            line(format!("  {}: {}", i + 1, t.join(" ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use v4t::analyze::{analyze, AnalyzeOptions};
    use v4t::{NoFiles, Sources};

    /// Where counting stops at its budget, no failing configuration shown
    /// is not "none": the report says none was found. (200 values: fewer
    /// are walked within the small budget, one propagation per value.)
    #[test]
    fn failures_not_found_within_the_budget_are_not_none() {
        let mut text = String::from(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    inputs:\n      mode: {type: string}\n  node_templates:\n",
        );
        for i in 0..200 {
            text.push_str(&format!(
                "    n{i}:\n      type: tosca.nodes.Root\n      conditions: {{equal: [{{variability_input: mode}}, m{i}]}}\n"
            ));
        }
        let report = |steps: u64| {
            let mut options = AnalyzeOptions::default();
            options.budget.steps = steps;
            let mut sources = Sources::new();
            let id = sources.add("template.yaml", &text);
            let analysis = analyze(&mut sources, id, &mut NoFiles, &options).expect("analyses");
            super::text(&sources, &analysis)
        };
        let stopped = report(2_000);
        assert!(
            stopped.contains("valid configurations: at least"),
            "{stopped}"
        );
        assert!(
            stopped
                .contains("failing configurations: none found (counting stopped at its budget)\n"),
            "{stopped}"
        );
        let counted = report(AnalyzeOptions::default().budget.steps);
        assert!(counted.contains("valid configurations: 201\n"), "{counted}");
        assert!(
            counted.contains("failing configurations: none\n"),
            "{counted}"
        );
    }
}
