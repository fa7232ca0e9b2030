//! End-to-end tests of `v4t graph`: the DOT output parses (with the DOT
//! parser of `layout-rs`), SVG is laid out without external programs, its
//! arrows pass no box but their ends and it is the same bytes every time,
//! and a resolved variant shows only what is present; the Mermaid output
//! has the statement forms of a flowchart; awkward names and conditions
//! are escaped in every format.

use std::path::PathBuf;

use crate::common::{example_template as example, text, v4t};

#[test]
fn dot_output_parses() {
    // The parser rejects what is not DOT (an unclosed string, a dangling edge).
    for bad in [
        "digraph g {\n  n0 [label=\"a\\\"b];\n}\n",
        "digraph g {\n  n0 -> ;\n}\n",
    ] {
        assert!(layout::gv::DotParser::new(bad).process().is_err(), "{bad}");
    }
    for args in [
        vec!["graph", "EXAMPLE"],
        vec!["graph", "EXAMPLE", "--presets", "prod", "--artifacts"],
        vec!["graph", "EXAMPLE", "--input", "env=dev", "--format", "dot"],
    ] {
        let example = example();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "EXAMPLE" { example.as_str() } else { a })
            .collect();
        let out = v4t(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let dot = text(&out.stdout);
        assert!(dot.starts_with("digraph topology {\n"), "{dot}");
        let parsed = layout::gv::DotParser::new(&dot).process();
        assert!(parsed.is_ok(), "{:?}\n{dot}", parsed.err());
    }
}

#[test]
fn variants_show_only_what_is_present() {
    let variable = text(&v4t(&["graph", &example()]).stdout);
    assert!(
        variable.contains("dev_vm") && variable.contains("prod_vm"),
        "{variable}"
    );
    assert!(variable.contains("style=dashed, penwidth=2"), "{variable}");
    let prod = text(
        &v4t(&[
            "graph",
            &example(),
            "--presets",
            "prod",
            "--format",
            "mermaid",
        ])
        .stdout,
    );
    assert!(prod.starts_with("flowchart BT\n"), "{prod}");
    assert!(
        prod.contains("prod_vm") && !prod.contains("dev_vm"),
        "{prod}"
    );
    assert!(!prod.contains(" if "), "{prod}");
    let dev = text(&v4t(&["graph", &example(), "--resolved", "--format", "plantuml"]).stdout);
    assert!(
        dev.starts_with("@startuml\n") && dev.ends_with("@enduml\n"),
        "{dev}"
    );
    assert!(dev.contains("dev_vm") && !dev.contains("prod_vm"), "{dev}");
}

#[test]
fn svg_without_external_programs() {
    let out = v4t(&["graph", &example(), "--format", "svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    assert!(svg.starts_with("<?xml"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.contains("<svg") && svg.contains("shop") && svg.contains("prod_vm"));
}

/// The value of attribute `name` in the element text `tag`.
fn attribute<'t>(tag: &'t str, name: &str) -> &'t str {
    let key = format!(" {name}=\"");
    let start = tag.find(&key).map(|i| i + key.len()).expect(name);
    let end = tag[start..].find('"').expect("closing quote");
    &tag[start..start + end]
}

fn number(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("not a number: {text}"))
}

/// A box of the SVG drawing: key, x, y, width, height.
type Box = (String, f64, f64, f64, f64);

/// An arrow of the SVG drawing: tail key, head key, points.
type Arrow = (String, String, Vec<(f64, f64)>);

/// The boxes and the arrows of an SVG of `v4t graph`.
fn svg_geometry(svg: &str) -> (Vec<Box>, Vec<Arrow>) {
    let mut boxes = Vec::new();
    let mut arrows = Vec::new();
    for line in svg.lines() {
        if line.starts_with("<g class=\"node\"") {
            let rect = &line[line.find("<rect").expect("a rect")..];
            boxes.push((
                attribute(line, "id").to_string(),
                number(attribute(rect, "x")),
                number(attribute(rect, "y")),
                number(attribute(rect, "width")),
                number(attribute(rect, "height")),
            ));
        } else if line.starts_with("<g class=\"arrow\"") {
            let points = attribute(line, "d")
                .split(['M', 'L'])
                .filter(|p| !p.trim().is_empty())
                .map(|p| {
                    let (x, y) = p.trim().split_once(',').expect("x,y");
                    (number(x), number(y))
                })
                .collect();
            arrows.push((
                attribute(line, "data-from").to_string(),
                attribute(line, "data-to").to_string(),
                points,
            ));
        }
    }
    (boxes, arrows)
}

/// Whether the segment `p`–`q` passes through the inside of box `b`
/// (more than half a pixel in: coordinates are rounded to 0.1).
fn crosses(p: (f64, f64), q: (f64, f64), b: &Box) -> bool {
    let (x0, x1) = (b.1 + 0.5, b.1 + b.3 - 0.5);
    let (y0, y1) = (b.2 + 0.5, b.2 + b.4 - 0.5);
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (d, n) in [
        (-dx, p.0 - x0),
        (dx, x1 - p.0),
        (-dy, p.1 - y0),
        (dy, y1 - p.1),
    ] {
        if d == 0.0 {
            if n < 0.0 {
                return false;
            }
        } else if d < 0.0 {
            t0 = t0.max(n / d);
        } else {
            t1 = t1.min(n / d);
        }
    }
    t0 < t1
}

/// The variable picture of a larger template (22 nodes, alternatives on
/// three levels, a group, policies, artifacts): no arrow passes through a
/// box other than its ends, alternatives are dashed and hosting arrows
/// wide, and the drawing is the same bytes every time.
#[test]
fn svg_arrows_pass_no_box() {
    let store = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/graph/store.yaml");
    let store = store.to_string_lossy();
    let out = v4t(&["graph", &store, "--format", "svg", "--artifacts"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let (boxes, arrows) = svg_geometry(&svg);
    assert_eq!(boxes.len(), 22 + 2 + 1, "nodes, policies, artifact");
    assert!(arrows.len() > 40, "{}", arrows.len());
    for (from, to, points) in &arrows {
        assert!(points.len() >= 4, "{from} -> {to}: {points:?}");
        for w in points.windows(2) {
            for b in boxes.iter().filter(|b| &b.0 != from && &b.0 != to) {
                assert!(
                    !crosses(w[0], w[1], b),
                    "the arrow {from} -> {to} crosses box {}: {:?}",
                    b.0,
                    w
                );
            }
        }
    }
    assert!(svg.contains("class=\"edge hosting alternative\""), "{svg}");
    assert!(svg.contains(">group data_tier (pruning condition)</text>"));
    let again = v4t(&["graph", &store, "--format", "svg", "--artifacts"]);
    assert!(again.stdout == out.stdout, "not deterministic");
}

/// A drawing too large to lay out is refused at once with a hint, not
/// left to run: a chain of 1,500 nodes, the first also using every other
/// one (its arrows cross a million layers).
#[test]
fn an_impractical_svg_says_so() {
    let n = 1_500;
    let mut template = String::from(
        "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n",
    );
    for i in 0..n {
        template.push_str(&format!(
            "    n{i}:\n      type: tosca.nodes.Root\n      requirements:\n"
        ));
        if i + 1 < n {
            template.push_str(&format!("        - next: n{}\n", i + 1));
        }
        if i == 0 {
            for j in 2..n {
                template.push_str(&format!("        - uses: n{j}\n"));
            }
        }
    }
    let dir = crate::common::TempDir::new("graph-large");
    let path = dir.write("t.yaml", &template);
    let path = path.to_string_lossy();
    let out = v4t(&["graph", &path, "--format", "svg"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("too large to lay out as SVG"), "{stderr}");
    assert!(stderr.contains("--format dot"), "{stderr}");
    let dot = v4t(&["graph", &path, "--format", "dot"]);
    assert_eq!(dot.status.code(), Some(0), "{}", text(&dot.stderr));
}

#[test]
fn the_crossing_check_can_fail() {
    let b: Box = ("n0".to_string(), 10.0, 10.0, 20.0, 20.0);
    assert!(crosses((0.0, 20.0), (40.0, 20.0), &b));
    assert!(!crosses((0.0, 10.0), (40.0, 10.0), &b), "along the border");
    let svg = "<g class=\"node\" id=\"n1\"><rect class=\"box\" x=\"1\" y=\"2.5\" width=\"3\" height=\"4\" rx=\"3\"/></g>\n\
               <g class=\"arrow\" data-from=\"n0\" data-to=\"n1\"><path class=\"edge\" d=\"M0,0 L1.5,2\"/></g>";
    let (boxes, arrows) = svg_geometry(svg);
    assert_eq!(boxes, vec![("n1".to_string(), 1.0, 2.5, 3.0, 4.0)]);
    assert_eq!(arrows[0].2, vec![(0.0, 0.0), (1.5, 2.0)]);
}

#[test]
fn a_variant_that_does_not_resolve_fails() {
    // `env` only takes `dev` or `prod`.
    let out = v4t(&["graph", &example(), "--input", "env=other"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("violates"),
        "{}",
        text(&out.stderr)
    );
}

/// Conditions and names with characters each format must escape.
const AWKWARD: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      s: {type: string}
  node_templates:
    'we\"ird|node':
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: s}, 'a|b\"c<d>&e\\f']}
      requirements:
        - host: {node: vm, conditions: {not: {equal: [{variability_input: s}, '[x]']}}}
    vm:
      type: tosca.nodes.Compute
  groups:
    'g \"1\"': {type: tosca.groups.Root, members: ['we\"ird|node']}
";

/// Every line of `text` is one of the statement forms of a Mermaid
/// flowchart that `v4t graph` writes, with balanced quotes, known arrows
/// and balanced subgraphs: a check of the syntax without a Mermaid parser.
fn assert_mermaid(text: &str) {
    fn is_id(s: &str) -> bool {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric())
    }
    fn quoted(s: &str) -> bool {
        let s = s.trim_start_matches('[').trim_end_matches(']');
        s.len() >= 2 && s.starts_with('"') && s.ends_with('"') && !s[1..s.len() - 1].contains('"')
    }
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("flowchart BT"));
    let mut depth = 0;
    for line in lines {
        let t = line.trim();
        let ok = if let Some(rest) = t.strip_prefix("subgraph ") {
            depth += 1;
            is_id(rest.split('[').next().unwrap_or(""))
                && quoted(&rest[rest.find('[').unwrap_or(0)..])
        } else if t == "end" {
            depth -= 1;
            depth >= 0
        } else if t.contains('|') && !t.ends_with(']') {
            let parts: Vec<&str> = t.splitn(2, ' ').collect();
            let rest = parts.get(1).copied().unwrap_or("");
            let (arrow, after) = rest.split_once('|').unwrap_or(("", ""));
            let (label, target) = after.rsplit_once("| ").unwrap_or(("", ""));
            is_id(parts[0])
                && ["-->", "==>", "-.->"].contains(&arrow)
                && quoted(label)
                && is_id(target)
        } else if let Some(i) = t.find('[') {
            is_id(&t[..i]) && t.ends_with(']') && quoted(&t[i + 1..t.len() - 1])
        } else {
            is_id(t)
        };
        assert!(ok, "bad line {line:?} in\n{text}");
    }
    assert_eq!(depth, 0, "{text}");
}

#[test]
fn every_format_escapes_what_it_must() {
    let dir = crate::common::TempDir::new("graph");
    let path = dir.write("t.yaml", AWKWARD);
    let path = path.to_string_lossy().into_owned();
    let run = |format: &str| {
        let out = v4t(&["graph", &path, "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let dot = run("dot");
    let parsed = layout::gv::DotParser::new(&dot).process();
    assert!(parsed.is_ok(), "{:?}\n{dot}", parsed.err());
    // The condition as people read it, escaped for DOT.
    assert!(dot.contains(r#"if s = \"a|b\\\"c<d>&e\\\\f\""#), "{dot}");
    let mermaid = run("mermaid");
    assert_mermaid(&mermaid);
    assert!(
        mermaid.contains("host if not (s = #quot;[x]#quot;)"),
        "{mermaid}"
    );
    let plantuml = run("plantuml");
    assert!(plantuml.starts_with("@startuml\n") && plantuml.ends_with("@enduml\n"));
    for line in plantuml
        .lines()
        .filter(|l| l.starts_with("node ") || l.contains("rectangle "))
    {
        // One quoted label per declaration: no quote inside.
        assert_eq!(line.matches('"').count(), 2, "{line}");
    }
}

#[test]
fn mermaid_of_the_example_is_well_formed() {
    for args in [
        vec!["graph", "EXAMPLE", "--format", "mermaid"],
        vec![
            "graph",
            "EXAMPLE",
            "--format",
            "mermaid",
            "--presets",
            "prod",
            "--artifacts",
        ],
    ] {
        let example = example();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "EXAMPLE" { example.as_str() } else { a })
            .collect();
        let out = v4t(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_mermaid(&text(&out.stdout));
    }
}

/// The picture in the README is what `v4t graph` draws today:
/// `docs/web-app-graph.svg` must equal the SVG of the bundled example.
/// After a change to the drawing, regenerate it with
/// `cargo run --release -- graph examples/web-app/template.yaml --format svg -o docs/web-app-graph.svg`.
#[test]
fn the_readme_picture_is_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let committed = std::fs::read_to_string(root.join("docs/web-app-graph.svg"))
        .expect("docs/web-app-graph.svg");
    let out = v4t(&["graph", &example(), "--format", "svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout) == committed,
        "docs/web-app-graph.svg is stale; regenerate it with \
         `v4t graph examples/web-app/template.yaml --format svg -o docs/web-app-graph.svg`"
    );
}
