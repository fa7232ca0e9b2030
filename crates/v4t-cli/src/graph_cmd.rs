//! `v4t graph`: the topology as Graphviz DOT, Mermaid, PlantUML ([`v4t::draw`])
//! or SVG (the DOT text laid out by `layout-rs`, a dependency-free pure-Rust
//! Graphviz-like layout engine, so no external program is needed).

use v4t::draw::{draw, DrawOptions, Format};
use v4t::Code;

use crate::diagnostics::{catch_panic, ColorChoice, Reporter};
use crate::resolve_cmd::{finish, open_variant, print_notes, write_result};
use crate::{GraphArgs, GraphFormat, EXIT_FAILURE};

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
            GraphFormat::Dot | GraphFormat::Svg => Format::Dot,
        },
    };
    let outcome = catch_panic(|| draw(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
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
    use layout::gv::{DotParser, GraphBuilder};
    let graph = DotParser::new(dot).process()?;
    let mut builder = GraphBuilder::new();
    builder.visit_graph(&graph);
    let mut visual = builder.get();
    let mut writer = Extent::default();
    visual.do_it(false, false, false, &mut writer);
    Ok(writer.finalize())
}

/// `layout-rs`'s SVG writer with the size of the picture measured here:
/// the writer grows its canvas by ten pixels of height per character of
/// every text, which leaves large blank areas below a drawing with long
/// labels. The drawing is the writer's; only the canvas size is replaced.
#[derive(Default)]
struct Extent {
    svg: layout::backends::svg::SVGWriter,
    /// The largest x and y drawn on.
    max: (f64, f64),
}

use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;

impl Extent {
    /// Margin around the drawing, as the writer keeps.
    const MARGIN: f64 = 5.0;

    fn reach(&mut self, x: f64, y: f64) {
        self.max = (self.max.0.max(x), self.max.1.max(y));
    }

    /// The SVG text with the measured canvas size.
    fn finalize(&self) -> String {
        let text = self.svg.finalize();
        let (w, h) = (self.max.0 + Self::MARGIN, self.max.1 + Self::MARGIN);
        let Some(start) = text.find("<svg ") else {
            return text;
        };
        let Some(end) = text[start..].find('>').map(|e| start + e + 1) else {
            return text;
        };
        let header = format!(
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">"
        );
        format!("{}{header}{}", &text[..start], &text[end..])
    }
}

impl RenderBackend for Extent {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
        clip: Option<ClipHandle>,
    ) {
        self.reach(xy.x + size.x, xy.y + size.y);
        self.svg.draw_rect(xy, size, look, properties, clip);
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.reach(start.x.max(stop.x), start.y.max(stop.y));
        self.svg.draw_line(start, stop, look, properties);
    }

    fn draw_circle(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.reach(xy.x + size.x / 2.0, xy.y + size.y / 2.0);
        self.svg.draw_circle(xy, size, look, properties);
    }

    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        // Centred at `xy`; a character is about 0.6 em wide.
        let size = look.font_size as f64;
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        let lines = text.lines().count() as f64;
        self.reach(xy.x + widest as f64 * size * 0.3, xy.y + lines * size / 2.0);
        self.svg.draw_text(xy, text, look);
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        text: &str,
    ) {
        for (a, b) in path {
            self.reach(a.x.max(b.x), a.y.max(b.y));
        }
        self.svg
            .draw_arrow(path, dashed, head, look, properties, text);
    }

    fn create_clip(&mut self, xy: Point, size: Point, rounded_px: usize) -> ClipHandle {
        self.svg.create_clip(xy, size, rounded_px)
    }
}
