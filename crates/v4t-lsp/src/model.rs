//! What a buffer defines and refers to, read from its YAML tree: the
//! definitions (node templates, types, inputs, variability inputs, presets,
//! named expressions, imports) and every place that names one. Definition,
//! references, hover, completion and the outline all start here.

use v4t::{Node, Span, Value};
use v4t_tosca::Kind;
use v4t_yaml::{Key, LineIndex, Map};

/// The keys of the topology: TOSCA 1.3's and TOSCA 2.0's (the template's
/// base grammar is told by which one it has).
pub(crate) const TOPOLOGY_KEYS: [&str; 2] = ["topology_template", "service_template"];

/// What a name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A node template.
    Node,
    /// A relationship template (a requirement's `relationship` names one,
    /// or else a relationship type).
    Relationship,
    /// A group.
    Group,
    /// A policy.
    Policy,
    /// A topology input (`get_input`, `$get_input`).
    Input,
    /// A topology output.
    Output,
    /// A variability input.
    VariabilityInput,
    /// A variability preset.
    Preset,
    /// A named logic or value expression.
    Expression,
    /// A type of a kind.
    Type(Kind),
    /// An imported file or profile, by the text written.
    Import,
}

impl Target {
    /// The outline's heading for definitions of this target.
    pub(crate) fn heading(self) -> &'static str {
        match self {
            Target::Node => "node templates",
            Target::Relationship => "relationship templates",
            Target::Group => "groups",
            Target::Policy => "policies",
            Target::Input => "inputs",
            Target::Output => "outputs",
            Target::VariabilityInput => "variability inputs",
            Target::Preset => "presets",
            Target::Expression => "expressions",
            Target::Type(k) => k.section(),
            Target::Import => "imports",
        }
    }
}

/// One place that defines or names something.
#[derive(Clone, Debug)]
pub(crate) struct Occurrence {
    /// What it denotes.
    pub(crate) target: Target,
    /// The name as written.
    pub(crate) name: String,
    /// Where the name is written.
    pub(crate) span: Span,
    /// For a definition, the whole entry (name and body); `None` for a
    /// reference.
    pub(crate) entry: Option<Span>,
}

impl Occurrence {
    /// Whether this is the definition of its name.
    pub(crate) fn is_definition(&self) -> bool {
        self.entry.is_some()
    }
}

/// The definitions and references of one file, in document order.
#[derive(Debug, Default)]
pub(crate) struct Model {
    /// Every occurrence.
    pub(crate) occurrences: Vec<Occurrence>,
    /// Lines (1-based) of collections spanning several lines: folding ranges.
    pub(crate) folds: Vec<(u32, u32)>,
}

impl Model {
    /// Reads the model of a parsed file, `text`.
    pub(crate) fn of(root: &Node, text: &str) -> Model {
        let mut m = Model::default();
        let Some(map) = root.as_map() else {
            return m;
        };
        m.imports(map.get("imports"));
        for kind in Kind::ALL {
            for (k, def) in entries(map.get(kind.section())) {
                m.define(Target::Type(kind), k, def);
                m.type_body(kind, def);
            }
        }
        for key in TOPOLOGY_KEYS {
            if let Some(t) = map.get(key) {
                m.topology(t);
            }
        }
        m.scan(root, text);
        m.occurrences.sort_by_key(|o| o.span.start);
        m
    }

    /// The occurrence under byte offset `at`, the narrowest first.
    pub(crate) fn at(&self, at: usize) -> Option<&Occurrence> {
        self.occurrences
            .iter()
            .filter(|o| crate::text::contains(o.span, at))
            .min_by_key(|o| o.span.end.saturating_sub(o.span.start))
    }

    /// The definitions of `target` named `name` (several when a name is
    /// defined twice, or a relationship type and template share it).
    pub(crate) fn definitions<'a>(
        &'a self,
        target: Target,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Occurrence> {
        self.occurrences
            .iter()
            .filter(move |o| o.is_definition() && o.target == target && o.name == name)
    }

    /// The names defined for `target`, in document order.
    pub(crate) fn names(&self, target: Target) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for o in self
            .occurrences
            .iter()
            .filter(|o| o.is_definition() && o.target == target)
        {
            if !out.contains(&o.name.as_str()) {
                out.push(&o.name);
            }
        }
        out
    }

    fn define(&mut self, target: Target, key: &Key, body: &Node) {
        self.occurrences.push(Occurrence {
            target,
            name: key.name.to_string(),
            span: key.span,
            entry: Some(key.span.to(body.span)),
        });
    }

    /// A reference, if `n` is a string.
    fn refer(&mut self, target: Target, n: Option<&Node>) {
        if let Some(n) = n {
            if let Some(name) = n.as_str() {
                self.occurrences.push(Occurrence {
                    target,
                    name: name.to_string(),
                    span: n.span,
                    entry: None,
                });
            }
        }
    }

    fn imports(&mut self, imports: Option<&Node>) {
        let Some(list) = imports.and_then(Node::as_seq) else {
            return;
        };
        for item in list {
            let inner = match item.as_map() {
                // TOSCA 1.3's named form: `- name: {file: x}`.
                Some(m) if m.len() == 1 && m.get("file").is_none() && m.get("url").is_none() => {
                    m.first().map_or(item, |(_, v)| v)
                }
                _ => item,
            };
            if inner.as_str().is_some() {
                self.refer(Target::Import, Some(inner));
            }
            for key in ["file", "url", "profile"] {
                self.refer(Target::Import, inner.get(key));
            }
        }
    }

    /// References in a type definition: its parent and the types its
    /// definitions name.
    fn type_body(&mut self, kind: Kind, def: &Node) {
        self.refer(Target::Type(kind), def.get("derived_from"));
        for section in ["properties", "attributes", "inputs"] {
            for (_, d) in entries(def.get(section)) {
                self.refer(Target::Type(Kind::Data), d.get("type"));
            }
        }
        for (_, d) in entries(def.get("capabilities")) {
            let t = if d.as_str().is_some() {
                Some(d)
            } else {
                d.get("type")
            };
            self.refer(Target::Type(Kind::Capability), t);
        }
        for (_, d) in entries(def.get("requirements")) {
            self.refer(Target::Type(Kind::Capability), d.get("capability"));
            self.refer(Target::Type(Kind::Node), d.get("node"));
            let r = d.get("relationship");
            let r = r.and_then(|r| {
                if r.as_str().is_some() {
                    Some(r)
                } else {
                    r.get("type")
                }
            });
            self.refer(Target::Type(Kind::Relationship), r);
        }
        for (_, d) in entries(def.get("interfaces")) {
            self.refer(Target::Type(Kind::Interface), d.get("type"));
        }
        for (_, d) in entries(def.get("artifacts")) {
            self.refer(Target::Type(Kind::Artifact), d.get("type"));
        }
        if let Some(targets) = def.get("targets").and_then(Node::as_seq) {
            for t in targets {
                self.refer(Target::Type(Kind::Node), Some(t));
            }
        }
    }

    fn topology(&mut self, t: &Node) {
        for (target, section) in [(Target::Input, "inputs"), (Target::Output, "outputs")] {
            for (k, d) in entries(t.get(section)) {
                self.define(target, k, d);
                self.refer(Target::Type(Kind::Data), d.get("type"));
            }
        }
        for (k, d) in entries(t.get("node_templates")) {
            self.define(Target::Node, k, d);
            self.node_template(d);
        }
        for (k, d) in entries(t.get("relationship_templates")) {
            self.define(Target::Relationship, k, d);
            self.refer(Target::Type(Kind::Relationship), d.get("type"));
        }
        for (target, section, kind, members) in [
            (Target::Group, "groups", Kind::Group, "members"),
            (Target::Policy, "policies", Kind::Policy, "targets"),
        ] {
            for (k, d) in entries(t.get(section)) {
                self.define(target, k, d);
                self.refer(Target::Type(kind), d.get("type"));
                for m in d.get(members).and_then(Node::as_seq).into_iter().flatten() {
                    self.refer(Target::Node, Some(m));
                }
            }
        }
        if let Some(v) = t.get("variability") {
            self.variability(v);
        }
    }

    fn node_template(&mut self, d: &Node) {
        self.refer(Target::Type(Kind::Node), d.get("type"));
        for (_, r) in entries(d.get("requirements")) {
            if r.as_str().is_some() {
                self.refer(Target::Node, Some(r));
                continue;
            }
            self.refer(Target::Node, r.get("node"));
            self.refer(Target::Type(Kind::Capability), r.get("capability"));
            let rel = r.get("relationship");
            self.refer(Target::Relationship, rel);
            self.refer(
                Target::Type(Kind::Relationship),
                rel.and_then(|x| x.get("type")),
            );
        }
        for (_, a) in entries(d.get("artifacts")) {
            self.refer(Target::Type(Kind::Artifact), a.get("type"));
        }
        for (_, i) in entries(d.get("interfaces")) {
            self.refer(Target::Type(Kind::Interface), i.get("type"));
        }
    }

    fn variability(&mut self, v: &Node) {
        for (k, d) in entries(v.get("inputs")) {
            self.define(Target::VariabilityInput, k, d);
        }
        for (k, d) in entries(v.get("presets")) {
            self.define(Target::Preset, k, d);
            if let Some(inputs) = d.get("inputs").and_then(Node::as_map) {
                for (name, value) in inputs.iter() {
                    self.occurrences.push(Occurrence {
                        target: Target::VariabilityInput,
                        name: name.name.to_string(),
                        span: name.span,
                        entry: None,
                    });
                    let _ = value;
                }
            }
        }
        for (k, d) in entries(v.get("expressions")) {
            self.define(Target::Expression, k, d);
        }
    }

    /// References anywhere (conditions, expressions, property values) and
    /// the folding ranges; iterative, so deep documents cannot overflow.
    fn scan(&mut self, root: &Node, text: &str) {
        let lines = LineIndex::new(text);
        let mut stack = vec![(root, root.span)];
        while let Some((n, first)) = stack.pop() {
            match &n.value {
                Value::Map(m) => {
                    self.fold(&lines, text, first, n.span);
                    self.operators(m);
                    stack.extend(m.iter().map(|(k, v)| (v, k.span)));
                }
                Value::Seq(items) => {
                    self.fold(&lines, text, first, n.span);
                    stack.extend(items.iter().map(|v| (v, v.span)));
                }
                _ => {}
            }
        }
    }

    /// A folding range from the line of `first` (a collection's key, or
    /// the collection) to the last line of `span`.
    fn fold(&mut self, lines: &LineIndex, text: &str, first: Span, span: Span) {
        if !span.is_known() || !first.is_known() {
            return;
        }
        let first = lines.locate(text, first).line;
        let at = lines.locate(text, span);
        // The end is exclusive: a block collection ending at column 1 of a
        // line ended on the line before.
        let last = if at.end_col <= 1 {
            at.end_line.saturating_sub(1)
        } else {
            at.end_line
        };
        if last > first {
            self.folds.push((first, last));
        }
    }

    /// The operators that name something: `variability_input`,
    /// `logic_expression`, `value_expression`, `node_presence`,
    /// `get_input`, `$get_input`.
    fn operators(&mut self, m: &Map) {
        for (k, v) in m.iter() {
            let target = match k.name.as_ref() {
                "variability_input" => Target::VariabilityInput,
                "logic_expression" | "value_expression" => Target::Expression,
                "node_presence" => Target::Node,
                "get_input" | "$get_input" => Target::Input,
                _ => continue,
            };
            let arg = match v.as_seq() {
                Some(list) => list.first(),
                None => Some(v),
            };
            self.refer(target, arg);
        }
    }
}

/// The entries of a section in map form, or in list form (a list of
/// single-key maps, as Variability4TOSCA allows for most collections): the
/// library's reading of collections.
pub(crate) use v4t::collection_entries as entries;

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "\
tosca_definitions_version: tosca_variability_1_0
node_types:
  my.Server:
    derived_from: tosca.nodes.Compute
topology_template:
  inputs:
    port:
      type: integer
  variability:
    inputs:
      env:
        type: string
    presets:
      prod:
        inputs:
          env: prod
    expressions:
      is_prod: {equal: [{variability_input: env}, prod]}
  node_templates:
    web:
      type: my.Server
      conditions: {logic_expression: is_prod}
      properties:
        p: {get_input: port}
      requirements:
        - host: vm
    vm:
      type: tosca.nodes.Compute
";

    fn model() -> Model {
        Model::of(
            &v4t_yaml::parse(TEMPLATE, v4t::SourceId(0)).unwrap(),
            TEMPLATE,
        )
    }

    fn shown(m: &Model) -> Vec<String> {
        m.occurrences
            .iter()
            .map(|o| {
                let d = if o.is_definition() { "def" } else { "ref" };
                let at = o.span.locate(TEMPLATE);
                format!("{}:{} {d} {:?} {}", at.line, at.col, o.target, o.name)
            })
            .collect()
    }

    #[test]
    fn definitions_and_references_in_document_order() {
        let m = model();
        expect_test::expect![[r#"
            [
                "3:3 def Type(Node) my.Server",
                "4:19 ref Type(Node) tosca.nodes.Compute",
                "7:5 def Input port",
                "8:13 ref Type(Data) integer",
                "11:7 def VariabilityInput env",
                "14:7 def Preset prod",
                "16:11 ref VariabilityInput env",
                "18:7 def Expression is_prod",
                "18:45 ref VariabilityInput env",
                "20:5 def Node web",
                "21:13 ref Type(Node) my.Server",
                "22:38 ref Expression is_prod",
                "24:24 ref Input port",
                "26:17 ref Node vm",
                "27:5 def Node vm",
                "28:13 ref Type(Node) tosca.nodes.Compute",
            ]
        "#]]
        .assert_debug_eq(&shown(&m));
        let at = v4t_yaml::LineIndex::new(TEMPLATE)
            .offset(TEMPLATE, 26, 18)
            .unwrap_or(0);
        assert_eq!(m.at(at as usize).map(|o| o.name.as_str()), Some("vm"));
        assert_eq!(m.definitions(Target::Node, "vm").count(), 1);
        assert_eq!(m.names(Target::Node), ["web", "vm"]);
        assert!(m.folds.contains(&(20, 26)), "{:?}", m.folds);
    }
}
