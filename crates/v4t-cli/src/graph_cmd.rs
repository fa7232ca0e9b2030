//! `v4t graph`: the topology as Graphviz DOT, Mermaid, PlantUML ([`v4t::draw`])
//! or SVG (the DOT text laid out by `layout-rs`, a dependency-free pure-Rust
//! Graphviz-like layout engine, so no external program is needed).

use v4t::draw::{draw, DrawOptions, Format};
use v4t::{Code, ResolveOptions};

use crate::diagnostics::{catch_panic, ColorChoice, Reporter};
use crate::resolve_cmd::{finish, now_ms, open_template, presets, read_inputs, write_result};
use crate::{GraphArgs, GraphFormat, EXIT_FAILURE};

/// Runs `v4t graph` and returns the exit code.
pub fn run(args: &GraphArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format_errors, color, false);
    let (mut sources, template, mut loader) = match open_template(&reporter, &args.template) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let inputs = match read_inputs(&mut sources, args.inputs.as_deref(), &args.input, &reporter) {
        Ok(inputs) => inputs,
        Err(code) => return code,
    };
    let resolved =
        (args.resolved || inputs.is_some() || !args.presets.is_empty()).then(|| ResolveOptions {
            presets: presets(&args.presets),
            inputs,
            now_ms: Some(now_ms()),
            report: false,
            ..ResolveOptions::default()
        });
    let options = DrawOptions {
        resolved,
        artifacts: args.artifacts,
        format: match args.format {
            GraphFormat::Mermaid => Format::Mermaid,
            GraphFormat::Plantuml => Format::PlantUml,
            GraphFormat::Dot | GraphFormat::Svg => Format::Dot,
        },
    };
    let outcome = catch_panic(|| draw(&mut sources, template, &mut loader, &options));
    let text = match finish(outcome, &sources, &reporter) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let text = if args.format == GraphFormat::Svg {
        match catch_panic(|| svg(&text)) {
            Ok(Ok(svg)) => svg,
            Ok(Err(e)) | Err(e) => {
                reporter.error(
                    Code::Internal,
                    &format!("internal error: no SVG layout: {e}"),
                );
                return EXIT_FAILURE;
            }
        }
    } else {
        text
    };
    write_result(args.output.as_deref(), text.as_bytes(), &reporter)
}

/// Lays out DOT text and renders it as SVG.
pub fn svg(dot: &str) -> Result<String, String> {
    use layout::backends::svg::SVGWriter;
    use layout::gv::{DotParser, GraphBuilder};
    let graph = DotParser::new(dot).process()?;
    let mut builder = GraphBuilder::new();
    builder.visit_graph(&graph);
    let mut visual = builder.get();
    let mut writer = SVGWriter::new();
    visual.do_it(false, false, false, &mut writer);
    Ok(writer.finalize())
}
