//! Drawing the topology (`v4t graph`, issue 16): node templates with their
//! types, relations (hosting drawn bold, pointing at the host), groups as
//! clusters, policies and, on request, artifacts; as Graphviz DOT, Mermaid
//! or PlantUML text, or as SVG laid out here (`layout`: a layered layout
//! that scales to tens of thousands of boxes; `svg`: measuring and
//! writing).
//!
//! The variable template is drawn with every element and its conditions
//! as labels (manual conditions as people read them, a generated condition
//! by its kind: `(pruning condition)`); alternatives (requirements of one
//! node with the same name, such as two `host` requirements) are dashed
//! (hosting relations have a wider pen). A resolved variant shows only
//! what is present in it. The output depends only on
//! the template (element order), never on hashing.

mod layout;
mod picture;
mod svg;

use crate::error::Result;
use crate::graph::{Cond, ElementId, Graph, Scopes};
use crate::{prepare, prepare_variant, Loader, ResolveOptions, SourceId, Sources};
use picture::{Arrow, Cluster, Picture, Shape};

/// The text formats of a drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Graphviz DOT (`dot -Tsvg`).
    Dot,
    /// Mermaid flowchart.
    Mermaid,
    /// PlantUML deployment diagram.
    PlantUml,
    /// A picture laid out in-process (no external program).
    Svg,
}

/// What to draw.
#[derive(Clone, Debug)]
pub struct DrawOptions {
    /// Draw the variant these options resolve (only its present elements)
    /// instead of the variable template.
    pub resolved: Option<ResolveOptions>,
    /// Also draw the nodes' artifacts.
    pub artifacts: bool,
    /// The text format.
    pub format: Format,
}

/// Draws the template `template` (see the module documentation).
pub fn draw(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &DrawOptions,
) -> Result<String> {
    let mut warnings = Vec::new();
    let (prepared, assigned) = match &options.resolved {
        Some(r) => prepare_variant(sources, template, loader, r, &mut |_| {}, &mut warnings)?,
        None => {
            let no_inputs = &mut |_: &v4t_yaml::Node, _: &mut Vec<_>| Ok(());
            let prepared = prepare(
                sources,
                template,
                loader,
                // No constraint is drawn.
                Some(crate::enrich::Constraints::Dropped),
                no_inputs,
                &mut |_| {},
                &mut warnings,
            )?;
            (prepared, v4t_yaml::Map::new())
        }
    };
    let crate::Prepared {
        doc, graph, files, ..
    } = prepared;
    let present: Option<Vec<bool>> = match &options.resolved {
        None => None,
        Some(r) => {
            let types = files.system();
            let now_ms = r.now_ms.unwrap_or(0.0);
            let solution = crate::solve_checked(&doc, &graph, (&types, sources), assigned, now_ms)?;
            crate::check_references(&doc, &graph, &solution, &types)?;
            Some(solution.present)
        }
    };
    // The picture is the graph's alone: the template goes before it is
    // drawn (on a large template, the drawing's peak).
    drop((doc, files));
    let picture = picture(&graph, present.as_deref(), options.artifacts);
    Ok(match options.format {
        Format::Dot => dot(&picture),
        Format::Mermaid => mermaid(&picture),
        Format::PlantUml => plantuml(&picture),
        Format::Svg => svg::svg(&picture).map_err(|too| {
            crate::Error::new(format!(
                "the drawing is too large to lay out as SVG: {} boxes and {} bends of \
                 arrows that cross layers (at most {} in all); write DOT instead \
                 (`--format dot`) and lay it out with Graphviz",
                too.boxes,
                too.bends,
                layout::MAX_SLOTS
            ))
        })?,
    })
}

/// The longest condition label (characters); longer ones are cut with `…`.
const MAX_LABEL: usize = 60;

/// The conditions of an element as one label line, if any: its manual
/// conditions as people read them ([`crate::readable`]; a default
/// alternative is `default`) as `if ...`, and, if `generated`, the kind of
/// its generated condition in short (`(pruning condition)`) where that
/// condition is not trivially true.
fn condition_label(g: &Graph, id: ElementId, generated: bool) -> Option<String> {
    let conditions = &g.get(id).conditions;
    let manual: Vec<&Cond> = conditions.iter().filter(|c| !c.is_generated()).collect();
    let written = if manual.is_empty() {
        None
    } else if manual.iter().any(|c| matches!(c, Cond::Bratan(_))) {
        Some("default".to_string())
    } else {
        let text = crate::readable::all_of(&manual, g);
        Some(if text.chars().count() > MAX_LABEL {
            let cut: String = text.chars().take(MAX_LABEL - 1).collect();
            format!("{cut}…")
        } else {
            text
        })
    };
    let kind = conditions
        .iter()
        .filter(|c| generated && c.is_generated())
        .filter(|c| crate::readable::cond(c, g) != "true")
        .map(|c| crate::solve::explain::condition_kind(g, id, c))
        .find(|k| *k != crate::reason::ReasonKind::ContainerCondition);
    match (written, kind) {
        (Some(w), Some(k)) => Some(format!("if {w} (+ {})", k.word())),
        (Some(w), None) => Some(format!("if {w}")),
        (None, Some(k)) => Some(format!("({})", k.word())),
        (None, None) => None,
    }
}

/// The elements to draw: all of them, or the present ones of a variant.
fn picture(g: &Graph, present: Option<&[bool]>, artifacts: bool) -> Picture {
    let mut d = Drawer {
        g,
        present,
        keys: vec![String::new(); g.elements().len()],
        picture: Picture {
            boxes: Vec::new(),
            arrows: Vec::new(),
            clusters: Vec::new(),
        },
    };
    d.nodes();
    d.relations();
    d.policies();
    if artifacts {
        d.artifacts();
    }
    d.groups();
    d.picture
}

/// Builds a [`Picture`], element kind by element kind.
struct Drawer<'g> {
    g: &'g Graph,
    /// Presence in the variant drawn (`None`: the variable template).
    present: Option<&'g [bool]>,
    /// The key of each element drawn as a box (empty if none).
    keys: Vec<String>,
    picture: Picture,
}

impl Drawer<'_> {
    fn shown(&self, id: ElementId) -> bool {
        self.present
            .is_none_or(|p| p.get(id.0 as usize).copied().unwrap_or(false))
    }

    /// `if <conditions>` for the variable template, if it has any.
    /// The conditions label for the variable template (see
    /// [`condition_label`]); a relation's generated condition is left out
    /// (it only asks for its ends, which the arrow shows).
    fn condition(&self, id: ElementId) -> Option<String> {
        let generated = self.g.get(id).kind != crate::graph::Kind::Relation;
        self.present
            .is_none()
            .then(|| condition_label(self.g, id, generated))
            .flatten()
    }

    fn key(&self, id: ElementId) -> &str {
        &self.keys[id.0 as usize]
    }

    fn arrow(&mut self, from: String, to: String, label: &str) {
        self.picture.arrows.push(Arrow {
            from,
            to,
            label: label.to_string(),
            hosting: false,
            alternatives: None,
        });
    }

    /// Node templates: name, type(s), conditions.
    fn nodes(&mut self) {
        let g = self.g;
        for (i, &n) in g.nodes().iter().enumerate() {
            if !self.shown(n) {
                continue;
            }
            let types: Vec<&str> = g
                .get(n)
                .types()
                .iter()
                .filter(|&&t| self.shown(t))
                .map(|&t| g.name(t))
                .collect();
            let mut lines = vec![g.name(n).to_string(), types.join(" | ")];
            lines.extend(self.condition(n));
            self.keys[n.0 as usize] = format!("n{i}");
            self.picture.boxes.push(Shape {
                key: format!("n{i}"),
                lines,
            });
        }
    }

    /// Relations between drawn nodes; alternatives share a requirement name.
    fn relations(&mut self) {
        let g = self.g;
        let scopes = Scopes::new(g);
        for &r in g.relations() {
            let e = g.get(r);
            let (Some(s), Some(t)) = (e.source(), e.target()) else {
                continue;
            };
            if !self.shown(r) || self.key(s).is_empty() || self.key(t).is_empty() {
                continue;
            }
            let name = g.name(r);
            // The relations of its source of its name.
            let mut siblings = scopes.members(g, r);
            // The set of alternatives is named by its first relation.
            let first = siblings.next().map(|f| f.0 as usize);
            let label = match self.condition(r) {
                Some(c) => format!("{name} {c}"),
                None => name.to_string(),
            };
            self.picture.arrows.push(Arrow {
                from: self.key(s).to_string(),
                to: self.key(t).to_string(),
                label,
                hosting: e.hosting(),
                alternatives: first.filter(|_| self.present.is_none() && siblings.next().is_some()),
            });
        }
    }

    /// Policies, with an arrow to each drawn target.
    fn policies(&mut self) {
        let g = self.g;
        for (i, &p) in g.policies().iter().enumerate() {
            if !self.shown(p) {
                continue;
            }
            let key = format!("p{i}");
            let mut lines = vec![format!("policy {}", g.name(p))];
            lines.extend(self.condition(p));
            for &t in g.get(p).targets() {
                if !self.key(t).is_empty() {
                    self.arrow(key.clone(), self.key(t).to_string(), "targets");
                }
            }
            self.picture.boxes.push(Shape { key, lines });
        }
    }

    /// Deployment artifacts of drawn nodes.
    fn artifacts(&mut self) {
        let g = self.g;
        for (i, &a) in g.artifacts().iter().enumerate() {
            let Some(n) = g.get(a).container() else {
                continue;
            };
            if !self.shown(a) || self.key(n).is_empty() {
                continue;
            }
            let key = format!("a{i}");
            let mut lines = vec![format!("artifact {}", g.name(a))];
            lines.extend(self.condition(a));
            self.arrow(self.key(n).to_string(), key.clone(), "artifact");
            self.picture.boxes.push(Shape { key, lines });
        }
    }

    /// Groups as clusters of their drawn member nodes.
    fn groups(&mut self) {
        let g = self.g;
        for (i, &grp) in g.groups().iter().enumerate() {
            if !self.shown(grp) {
                continue;
            }
            let members: Vec<String> = g
                .get(grp)
                .members()
                .iter()
                .map(|&m| self.key(m).to_string())
                .filter(|k| k.starts_with('n'))
                .collect();
            let label = match self.condition(grp) {
                Some(c) => format!("group {} {c}", g.name(grp)),
                None => format!("group {}", g.name(grp)),
            };
            self.picture.clusters.push(Cluster {
                key: format!("g{i}"),
                label,
                members,
            });
        }
    }
}

/// A DOT string literal.
fn dot_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Graphviz DOT: hosted nodes point up at their hosts.
fn dot(p: &Picture) -> String {
    let mut out = String::from("digraph topology {\n    rankdir=BT;\n    node [shape=box];\n");
    for b in &p.boxes {
        out.push_str(&format!(
            "    {} [label={}];\n",
            b.key,
            dot_string(&b.lines.join("\n"))
        ));
    }
    for a in &p.arrows {
        // `penwidth`, not `style=bold`: the in-process layout draws it too.
        let style = match (a.hosting, a.alternatives.is_some()) {
            (true, true) => ", style=dashed, penwidth=2",
            (true, false) => ", penwidth=2",
            (false, true) => ", style=dashed",
            (false, false) => "",
        };
        out.push_str(&format!(
            "    {} -> {} [label={}{style}];\n",
            a.from,
            a.to,
            dot_string(&a.label)
        ));
    }
    for c in &p.clusters {
        out.push_str(&format!(
            "    subgraph cluster_{} {{\n        label={};\n",
            c.key,
            dot_string(&c.label)
        ));
        for m in &c.members {
            out.push_str(&format!("        {m};\n"));
        }
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    out
}

/// A Mermaid label: in quotes, with quotes and markup characters as entities.
fn mermaid_string(lines: &[String]) -> String {
    let escaped: Vec<String> = lines
        .iter()
        .map(|l| {
            l.replace('&', "#amp;")
                .replace('"', "#quot;")
                .replace('<', "#lt;")
                .replace('>', "#gt;")
                .replace('|', "#124;")
        })
        .collect();
    format!("\"{}\"", escaped.join("<br/>"))
}

/// A Mermaid flowchart, bottom to top like the DOT drawing.
fn mermaid(p: &Picture) -> String {
    let mut out = String::from("flowchart BT\n");
    for b in &p.boxes {
        out.push_str(&format!("    {}[{}]\n", b.key, mermaid_string(&b.lines)));
    }
    for a in &p.arrows {
        let arrow = if a.alternatives.is_some() {
            "-.->"
        } else if a.hosting {
            "==>"
        } else {
            "-->"
        };
        out.push_str(&format!(
            "    {} {arrow}|{}| {}\n",
            a.from,
            mermaid_string(std::slice::from_ref(&a.label)),
            a.to
        ));
    }
    for c in &p.clusters {
        out.push_str(&format!(
            "    subgraph {}[{}]\n",
            c.key,
            mermaid_string(std::slice::from_ref(&c.label))
        ));
        for m in &c.members {
            out.push_str(&format!("        {m}\n"));
        }
        out.push_str("    end\n");
    }
    out
}

/// A PlantUML string: quotes become apostrophes (PlantUML has no escape),
/// lines are joined with `\n`.
fn plantuml_string(lines: &[String]) -> String {
    let text: Vec<String> = lines.iter().map(|l| l.replace('"', "'")).collect();
    format!("\"{}\"", text.join("\\n"))
}

/// A PlantUML deployment diagram: a group is a rectangle around the nodes
/// whose first group it is (PlantUML declares each node in one place).
fn plantuml(p: &Picture) -> String {
    let mut out = String::from("@startuml\n");
    let home = |key: &str| {
        p.clusters
            .iter()
            .position(|c| c.members.iter().any(|m| m == key))
    };
    let declare = |b: &Shape, indent: &str, out: &mut String| {
        out.push_str(&format!(
            "{indent}node {} as {}\n",
            plantuml_string(&b.lines),
            b.key
        ));
    };
    for b in p.boxes.iter().filter(|b| home(&b.key).is_none()) {
        declare(b, "", &mut out);
    }
    for (i, c) in p.clusters.iter().enumerate() {
        out.push_str(&format!(
            "rectangle {} as {} {{\n",
            plantuml_string(std::slice::from_ref(&c.label)),
            c.key
        ));
        for b in p.boxes.iter().filter(|b| home(&b.key) == Some(i)) {
            declare(b, "    ", &mut out);
        }
        out.push_str("}\n");
    }
    for a in &p.arrows {
        let arrow = if a.alternatives.is_some() {
            "..>"
        } else if a.hosting {
            "==>"
        } else {
            "-->"
        };
        let label = a.label.replace('"', "'");
        out.push_str(&format!("{} {arrow} {} : {label}\n", a.from, a.to));
    }
    out.push_str("@enduml\n");
    out
}

#[cfg(test)]
mod tests {
    use super::{draw, DrawOptions, Format};
    use crate::{NoFiles, ResolveOptions, Sources};

    const TEMPLATE: &str = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      big: {type: boolean}
    options: {type_default_condition: true}
  node_templates:
    app:
      type: web.app
      requirements:
        - host: {node: small_vm, conditions: {not: {variability_input: big}}}
        - host: {node: big_vm, conditions: {variability_input: big}}
      artifacts:
        - image: {type: docker, file: \"app:1\"}
    small_vm:
      type: vm
      conditions: {not: {variability_input: big}}
    big_vm:
      type: [{vm: {}}, {'vm.\"large\"': {conditions: false}}]
      conditions: {variability_input: big}
  groups:
    cloud: {type: tosca.groups.Root, members: [small_vm, big_vm]}
  policies:
    - backup: {type: tosca.policies.Root, targets: [app]}
";

    fn drawn(format: Format, resolved: Option<&str>, artifacts: bool) -> String {
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", TEMPLATE);
        let options = DrawOptions {
            resolved: resolved.map(|inputs| ResolveOptions {
                inputs: Some(crate::testing::doc(inputs)),
                ..ResolveOptions::default()
            }),
            artifacts,
            format,
        };
        draw(&mut sources, id, &mut NoFiles, &options).expect("draws")
    }

    #[test]
    fn dot_of_the_variable_template() {
        assert_eq!(
            drawn(Format::Dot, None, true),
            r#"digraph topology {
    rankdir=BT;
    node [shape=box];
    n0 [label="app\nweb.app"];
    n1 [label="small_vm\nvm\nif not big"];
    n2 [label="big_vm\nvm | vm.\"large\"\nif big"];
    p0 [label="policy backup"];
    a0 [label="artifact image"];
    n0 -> n1 [label="host if not big", style=dashed, penwidth=2];
    n0 -> n2 [label="host if big", style=dashed, penwidth=2];
    p0 -> n0 [label="targets"];
    n0 -> a0 [label="artifact"];
    subgraph cluster_g0 {
        label="group cloud";
        n1;
        n2;
    }
}
"#
        );
    }

    #[test]
    fn mermaid_and_plantuml_of_a_variant() {
        assert_eq!(
            drawn(Format::Mermaid, Some("big: true"), false),
            r#"flowchart BT
    n0["app<br/>web.app"]
    n2["big_vm<br/>vm"]
    p0["policy backup"]
    n0 ==>|"host"| n2
    p0 -->|"targets"| n0
    subgraph g0["group cloud"]
        n2
    end
"#
        );
        assert_eq!(
            drawn(Format::PlantUml, Some("big: false"), false),
            r#"@startuml
node "app\nweb.app" as n0
node "policy backup" as p0
rectangle "group cloud" as g0 {
    node "small_vm\nvm" as n1
}
n0 ==> n1 : host
p0 --> n0 : targets
@enduml
"#
        );
    }

    /// The drawing keeps none of the generated constraints, but their
    /// errors stand: an `implied: TARGET` on an artifact (only a relation
    /// has a target) fails the drawing as it fails resolving.
    #[test]
    fn errors_of_the_generated_constraints_stand() {
        let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    app:
      type: web.app
      artifacts:
        - image: {type: docker, file: app, implied: TARGET}
";
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", template);
        let options = DrawOptions {
            resolved: None,
            artifacts: false,
            format: Format::Dot,
        };
        let drawn = draw(&mut sources, id, &mut NoFiles, &options).err();
        let resolved = crate::testing::resolve_error(template, None);
        assert!(drawn
            .as_ref()
            .is_some_and(|e| e.message.contains("is not a relation")));
        assert_eq!(
            drawn.map(|e| e.message.clone()),
            resolved.map(|e| e.message.clone())
        );
    }
}
