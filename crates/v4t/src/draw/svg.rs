//! SVG drawings (`v4t graph --format svg`): the picture's boxes measured
//! (Helvetica metrics, so the text fits with Arial, Liberation Sans or
//! Helvetica), laid out by [`layout`], and written as plain SVG: boxes with
//! their lines of text, arrows as polylines with their labels beside them,
//! hosting arrows with a wider pen, alternatives dashed. A group is a
//! line `group NAME` in each of its boxes (a frame around its members
//! would cross a layered drawing).

use std::collections::HashMap;
use std::fmt::Write;

use super::layout::{self, Edge, Placed, Point, Size, TooLarge};
use super::picture::{Arrow, Picture};

/// Text of boxes: font size and line height.
const FONT: f64 = 14.0;
const LINE: f64 = 18.0;
/// Text of arrow labels.
const LABEL_FONT: f64 = 12.0;
const LABEL_LINE: f64 = 14.0;
/// Space between a box's border and its text.
const PAD_X: f64 = 10.0;
const PAD_Y: f64 = 5.0;

/// Helvetica's advance widths of the printable ASCII characters, in
/// thousandths of the font size (from its published font metrics).
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p..~
];

/// The width of `text` at font size `size`, a little generous (bold
/// names, fonts slightly wider than Helvetica).
fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let thousandths: u32 = text
        .chars()
        .map(|c| match c {
            ' '..='~' => u32::from(HELVETICA[c as usize - 32]),
            '\u{1100}'..='\u{11ff}' | '\u{2e80}'..='\u{a4cf}' | '\u{ac00}'..='\u{d7a3}' => 1000,
            '\u{f900}'..='\u{faff}' | '\u{fe30}'..='\u{fe4f}' | '\u{ff00}'..='\u{ff60}' => 1000,
            _ => 650,
        })
        .sum();
    let factor = if bold { 1.12 } else { 1.05 };
    f64::from(thousandths) / 1000.0 * size * factor
}

/// A box's lines: its own, then one per group it belongs to.
fn box_lines(p: &Picture) -> Vec<Vec<&str>> {
    let mut lines: Vec<Vec<&str>> = p
        .boxes
        .iter()
        .map(|b| b.lines.iter().map(String::as_str).collect())
        .collect();
    let index: HashMap<&str, usize> = p
        .boxes
        .iter()
        .enumerate()
        .map(|(i, b)| (b.key.as_str(), i))
        .collect();
    for c in &p.clusters {
        for m in &c.members {
            if let Some(&i) = index.get(m.as_str()) {
                lines[i].push(&c.label);
            }
        }
    }
    lines
}

/// The drawing of `p` as SVG, or [`TooLarge`] when the layout would take
/// too long.
pub(super) fn svg(p: &Picture) -> Result<String, TooLarge> {
    let lines = box_lines(p);
    let sizes: Vec<Size> = lines
        .iter()
        .map(|lines| {
            let widest = lines
                .iter()
                .enumerate()
                .map(|(i, l)| text_width(l, FONT, i == 0))
                .fold(0.0, f64::max);
            Size {
                width: (widest + 2.0 * PAD_X).ceil(),
                height: lines.len() as f64 * LINE + 2.0 * PAD_Y,
            }
        })
        .collect();
    let index: HashMap<&str, usize> = p
        .boxes
        .iter()
        .enumerate()
        .map(|(i, b)| (b.key.as_str(), i))
        .collect();
    // The arrows between drawn boxes, and their edges to lay out.
    let (arrows, edges): (Vec<&Arrow>, Vec<Edge>) = p
        .arrows
        .iter()
        .filter_map(|a| {
            let from = *index.get(a.from.as_str())?;
            let to = *index.get(a.to.as_str())?;
            let label = Size {
                width: text_width(&a.label, LABEL_FONT, false).ceil(),
                height: LABEL_LINE,
            };
            let together = a.alternatives;
            Some((
                a,
                Edge {
                    from,
                    to,
                    label,
                    together,
                },
            ))
        })
        .unzip();
    let placed = layout::layout(&sizes, &edges)?;
    Ok(write(p, &lines, &arrows, &edges, &placed))
}

/// A coordinate with at most one decimal.
fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// `text` escaped for XML character data and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The baseline of a line of text of `font` centred in a line of `line`
/// starting at `top`.
fn baseline(top: f64, line: f64, font: f64) -> f64 {
    top + line / 2.0 + 0.35 * font
}

const HEADER: &str = r##"<defs>
<marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,1 L10,5 L0,9 z" fill="#222"/></marker>
</defs>
<style>
text { font-family: Helvetica, Arial, "Liberation Sans", sans-serif; fill: #111; }
.box { fill: #fff; stroke: #222; stroke-width: 1; }
.name { font-weight: bold; }
.group { fill: #555; font-style: italic; }
.edge { fill: none; stroke: #222; stroke-width: 1; stroke-linejoin: round; }
.hosting { stroke-width: 2; }
.alternative { stroke-dasharray: 6 4; }
.label { fill: #333; }
</style>
<rect width="100%" height="100%" fill="#fff"/>
"##;

/// The SVG text of a laid-out picture.
fn write(
    p: &Picture,
    lines: &[Vec<&str>],
    arrows: &[&Arrow],
    edges: &[Edge],
    placed: &Placed,
) -> String {
    let (w, h) = (num(placed.size.width), num(placed.size.height));
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n"
    );
    out.push_str(HEADER);
    for ((a, edge), route) in arrows.iter().zip(edges).zip(&placed.routes) {
        let mut class = String::from("edge");
        if a.hosting {
            class.push_str(" hosting");
        }
        if a.alternatives.is_some() {
            class.push_str(" alternative");
        }
        let _ = write!(
            out,
            "<g class=\"arrow\" data-from=\"{}\" data-to=\"{}\"><path class=\"{class}\" d=\"{}\" marker-end=\"url(#head)\"/>",
            escape(&p.boxes[edge.from].key),
            escape(&p.boxes[edge.to].key),
            path(&route.points)
        );
        let l = &route.label;
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"{}\">{}</text></g>",
            num(l.x),
            num(baseline(l.y, l.height, LABEL_FONT)),
            LABEL_FONT,
            escape(&a.label)
        );
    }
    for ((b, lines), r) in p.boxes.iter().zip(lines).zip(&placed.boxes) {
        let _ = write!(
            out,
            "<g class=\"node\" id=\"{}\"><rect class=\"box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
            escape(&b.key),
            num(r.x),
            num(r.y),
            num(r.width),
            num(r.height)
        );
        let cx = num(r.x + r.width / 2.0);
        for (i, line) in lines.iter().enumerate() {
            let class = if i == 0 {
                " class=\"name\""
            } else if i >= b.lines.len() {
                " class=\"group\""
            } else {
                ""
            };
            let y = baseline(r.y + PAD_Y + i as f64 * LINE, LINE, FONT);
            let _ = write!(
                out,
                "<text{class} x=\"{cx}\" y=\"{}\" font-size=\"{FONT}\" text-anchor=\"middle\">{}</text>",
                num(y),
                escape(line)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// SVG path data of a polyline.
fn path(points: &[Point]) -> String {
    let mut d = String::new();
    for (i, q) in points.iter().enumerate() {
        let _ = write!(
            d,
            "{}{},{}",
            if i == 0 { "M" } else { " L" },
            num(q.x),
            num(q.y)
        );
    }
    d
}

#[cfg(test)]
mod tests {
    use super::{num, text_width};

    #[test]
    fn widths_follow_the_font() {
        assert!(text_width("iiii", 10.0, false) < text_width("MMMM", 10.0, false));
        assert!(text_width("ab", 10.0, false) < text_width("ab", 10.0, true));
        assert_eq!(text_width("", 14.0, false), 0.0);
        // One em per wide character.
        assert!((text_width("漢", 10.0, false) - 10.5).abs() < 1e-9);
    }

    #[test]
    fn coordinates_have_one_decimal() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.04), "12");
        assert_eq!(num(12.25), "12.3");
        assert_eq!(num(-0.5), "-0.5");
    }
}
