//! `v4t graph`: the topology as Graphviz DOT, Mermaid, PlantUML or SVG
//! ([`v4t::draw`]; SVG is laid out in-process, so no external program is
//! needed).

use v4t::draw::{draw, DrawOptions, Format};

use crate::diagnostics::{catch_panic, ColorChoice, Reporter};
use crate::resolve_cmd::{finish, open_variant, print_notes, write_result};
use crate::{GraphArgs, GraphFormat};

/// Runs `v4t graph` and returns the exit code.
pub fn run(args: &GraphArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format_errors, color, false);
    let (mut sources, template, mut loader, variant) =
        match open_variant(&reporter, &args.template, &args.variant) {
            Ok(t) => t,
            Err(code) => return code,
        };
    let resolved = (args.resolved || args.variant.given()).then_some(variant);
    let options = DrawOptions {
        resolved,
        artifacts: args.artifacts,
        format: match args.format {
            GraphFormat::Mermaid => Format::Mermaid,
            GraphFormat::Plantuml => Format::PlantUml,
            GraphFormat::Dot => Format::Dot,
            GraphFormat::Svg => Format::Svg,
        },
    };
    let outcome = catch_panic(|| draw(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
    match finish(outcome, &sources, &reporter) {
        Ok(text) => write_result(args.output.as_deref(), text.as_bytes(), &reporter),
        Err(code) => code,
    }
}
