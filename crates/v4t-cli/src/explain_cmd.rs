//! `v4t explain`: why each element of a variant is present or absent
//! ([`v4t::explain`]), as rustc-style notes or one JSON object.
//!
//! Exit code 1 when the variant does not resolve (its error and conflict
//! are the explanation), 0 otherwise.

use std::collections::HashMap;
use v4t::analyze::show_value;
use v4t::explain::{explain, Decision, ElementExplanation, ExplainOptions, Explanation, Reason};
use v4t::{Sources, Span};
use v4t_yaml::Value;

use crate::diagnostics::{
    catch_panic, escape, header, render, snippet, ColorChoice, Format, Reporter,
};
use crate::resolve_cmd::{finish, open_variant, print_notes};
use crate::{ExplainArgs, EXIT_FAILURE, EXIT_OK};

/// Runs `v4t explain` and returns the exit code.
pub fn run(args: &ExplainArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let (mut sources, template, mut loader, variant) =
        match open_variant(&reporter, &args.template, &args.variant) {
            Ok(t) => t,
            Err(code) => return code,
        };
    let options = ExplainOptions {
        variant,
        elements: args.elements.clone(),
    };
    let outcome = catch_panic(|| explain(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
    let explanation = match finish(outcome, &sources, &reporter) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for w in &explanation.warnings {
        reporter.report(&sources, w);
    }
    match args.format {
        Format::Text => {
            use std::io::IsTerminal;
            let color = color.enabled(std::io::stdout().is_terminal());
            print!("{}", text(&sources, &explanation, color));
        }
        Format::Json => println!(
            "{}",
            v4t_yaml::json::to_json(&explanation.to_node(&sources))
        ),
    }
    if explanation.error.is_some() {
        EXIT_FAILURE
    } else {
        EXIT_OK
    }
}

/// `file:line:column` of a known span.
pub(crate) fn location(sources: &Sources, span: Span) -> Option<String> {
    let file = span
        .is_known()
        .then(|| sources.get(span.source))
        .flatten()?;
    Some(format!("{}:{}", file.name, file.locate(span)))
}

/// The text report: the inputs, then each element's summary with its
/// reasons as notes (the error of a variant that fails goes to standard
/// error like `v4t resolve`'s).
pub fn text(sources: &Sources, e: &Explanation, color: bool) -> String {
    let mut out = String::new();
    if !e.inputs.is_empty() {
        out.push_str("inputs:\n");
    }
    for i in &e.inputs {
        let value = i.value.as_ref().map_or("no value".to_string(), show_value);
        let at = location(sources, i.span)
            .map(|l| format!(", {l}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} = {} ({}{at})\n",
            escape(&i.name),
            escape(&value),
            escape(&i.origin.describe()),
        ));
    }
    if !e.objectives.is_empty() {
        let shown: Vec<String> = e
            .objectives
            .iter()
            .map(|(name, v)| format!("{name} = {v}"))
            .collect();
        out.push_str(&format!("objectives: {}\n", shown.join(", ")));
    }
    // A variant that does not resolve: its error, with the conflict as notes.
    for d in e.error.iter().flat_map(|e| e.diagnostics()) {
        out.push('\n');
        out.push_str(&render(sources, d, color));
    }
    // Elements explained so far, and their presence.
    let mut above: HashMap<&str, bool> = HashMap::new();
    for element in &e.elements {
        out.push('\n');
        out.push_str(&element_text(sources, element, &above, color));
        above.insert(&element.id, element.present);
    }
    out
}

/// One element: `id: summary`, the decision's details, the reasons; the
/// reasons about elements of `above` (explained already, with their
/// presence) are one line.
fn element_text(
    sources: &Sources,
    e: &ElementExplanation,
    above: &HashMap<&str, bool>,
    color: bool,
) -> String {
    let mut out = header(&e.id, &e.summary, 36, color);
    let differences = |list: &[(String, bool)]| -> String {
        let shown: Vec<String> = list
            .iter()
            .map(|(id, p)| format!("{id} {}", if *p { "present" } else { "absent" }))
            .collect();
        shown.join(", ")
    };
    match &e.decision {
        Decision::Conditions => {}
        Decision::Objective {
            weight,
            alternative,
            option,
            name,
            ..
        } => {
            if let Some(w) = weight {
                out.push_str(&format!("  = its weight in the objective: {w}\n"));
            }
            out.push_str(&format!(
                "  = the alternative it beat: {}\n",
                differences(alternative)
            ));
            if option.is_known() {
                let message = format!("the objective {name} is switched on here");
                out.push_str(&header("note", &message, 32, color));
                out.push_str(&snippet(
                    sources,
                    *option,
                    annotate_snippets::Level::NOTE,
                    color,
                ));
            }
        }
        Decision::Tie { alternative, .. } => {
            out.push_str(&format!(
                "  = the alternative: {}\n",
                differences(alternative)
            ));
        }
    }
    let mut see_above: Vec<String> = Vec::new();
    for r in &e.reasons {
        let explained = r
            .element
            .as_deref()
            .and_then(|id| Some((id, *above.get(id)?)));
        match explained {
            Some((id, present)) => {
                let state = if present { "present" } else { "absent" };
                let shown = format!("{id} ({state})");
                if !see_above.contains(&shown) {
                    see_above.push(shown);
                }
            }
            None => out.push_str(&reason_text(sources, r, color)),
        }
    }
    if !see_above.is_empty() {
        out.push_str(&format!(
            "  = explained above: {}\n",
            escape(&see_above.join(", "))
        ));
    }
    out
}

/// One reason as a note: its message and location, then what it reads.
fn reason_text(sources: &Sources, r: &Reason, color: bool) -> String {
    let mut out = header("note", &r.message, 32, color);
    out.push_str(&snippet(
        sources,
        r.span,
        annotate_snippets::Level::NOTE,
        color,
    ));
    if let Some(c) = r.condition.as_deref().filter(|c| !r.message.contains(c)) {
        out.push_str(&format!("  = condition: {}\n", escape(c)));
    }
    if !r.reads.is_empty() {
        let shown: Vec<String> = r
            .reads
            .iter()
            .map(|read| {
                let conditions = match &read.condition {
                    Some(c) => format!(": {c}{}", for_inputs(&read.inputs)),
                    None => String::new(),
                };
                let what = match (read.manual, read.value) {
                    (true, _) if read.condition.is_none() => " (no manual conditions)".to_string(),
                    (true, Some(v)) => {
                        let held = if v { "hold" } else { "false" };
                        format!(" (manual conditions {held}{conditions})")
                    }
                    (true, None) => format!(" (manual conditions{conditions})"),
                    (false, Some(v)) => format!(" ({})", if v { "present" } else { "absent" }),
                    (false, None) => String::new(),
                };
                format!("{}{what}", read.element)
            })
            .collect();
        out.push_str(&format!("  = reads: {}\n", escape(&shown.join(", "))));
    }
    out
}

/// ` for input a = 1` (as in messages), or nothing.
fn for_inputs(values: &[(String, Value)]) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|(name, v)| format!("{name} = {}", show_value(v)))
        .collect();
    match shown.len() {
        0 => String::new(),
        1 => format!(" for input {}", shown[0]),
        _ => format!(" for inputs {}", shown.join(", ")),
    }
}
