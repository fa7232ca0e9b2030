//! The answers to requests on one buffer: hover, go to definition, find
//! references, document symbols and folding ranges (completion is
//! `complete.rs`).

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{
    DocumentSymbol, FoldingRange, Hover, HoverContents, Location, MarkupContent, MarkupKind,
    Position, SymbolKind, Uri,
};
use v4t::explain::ExplainOptions;
use v4t::{Node, ResolveOptions, SourceId, Sources};
use v4t_yaml::json::to_json;

use crate::model::{entries, Model, Occurrence, Target, TOPOLOGY_KEYS};
use crate::overlay::{Buffers, LoaderFactory, Overlay};
use crate::text::{contains, offset, range};

/// One open buffer and what a request needs around it.
pub(crate) struct Buffer<'a> {
    pub(crate) uri: &'a str,
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
    pub(crate) buffers: &'a Buffers,
    pub(crate) loaders: &'a LoaderFactory,
}

/// A parsed buffer.
pub(crate) struct Parsed {
    pub(crate) root: Node,
    pub(crate) model: Model,
}

impl Parsed {
    /// `None` while the buffer is no YAML.
    pub(crate) fn of(text: &str) -> Option<Parsed> {
        let root = v4t_yaml::parse(text, SourceId(0)).ok()?;
        let model = Model::of(&root, text);
        Some(Parsed { root, model })
    }
}

/// The presence of elements (by id) in each preset, for hover: computed
/// on first use, kept until the buffer changes.
pub(crate) type Presence = HashMap<String, Option<String>>;

impl Buffer<'_> {
    fn uri(&self) -> Option<Uri> {
        self.uri.parse().ok()
    }

    fn location(&self, span: v4t::Span) -> Option<Location> {
        Some(Location {
            uri: self.uri()?,
            range: range(self.text, span),
        })
    }

    /// Go to definition.
    pub(crate) fn definition(&self, parsed: &Parsed, pos: Position) -> Vec<Location> {
        let Some(o) = parsed.model.at(offset(self.text, pos)) else {
            return Vec::new();
        };
        match o.target {
            Target::Type(kind) => self.type_location(kind, &o.name).into_iter().collect(),
            Target::Import => self.import_location(o).into_iter().collect(),
            Target::Relationship => {
                let local: Vec<Location> = self.local_definitions(parsed, o);
                if local.is_empty() {
                    self.type_location(v4t_tosca::Kind::Relationship, &o.name)
                        .into_iter()
                        .collect()
                } else {
                    local
                }
            }
            _ => self.local_definitions(parsed, o),
        }
    }

    fn local_definitions(&self, parsed: &Parsed, o: &Occurrence) -> Vec<Location> {
        (parsed.model.definitions(o.target, &o.name))
            .filter_map(|d| self.location(d.span))
            .collect()
    }

    fn type_location(&self, kind: v4t_tosca::Kind, name: &str) -> Option<Location> {
        let l = crate::types::load(self.path, self.text, self.buffers, self.loaders)?;
        let ts = v4t_tosca::TypeSystem::build(&l.loaded);
        let t = ts.get(l.resolve(&ts, kind, name)?);
        l.location(self.path, self.uri, t.doc?, t.span)
    }

    fn import_location(&self, o: &Occurrence) -> Option<Location> {
        let l = crate::types::load(self.path, self.text, self.buffers, self.loaders)?;
        l.import_at(self.path, o.span)
    }

    /// Find references: every occurrence of the name under the cursor in
    /// the buffer (with its definition if asked).
    pub(crate) fn references(
        &self,
        parsed: &Parsed,
        pos: Position,
        declaration: bool,
    ) -> Vec<Location> {
        let Some(o) = parsed.model.at(offset(self.text, pos)) else {
            return Vec::new();
        };
        let same = |t: Target| {
            t == o.target
                || matches!(
                    (t, o.target),
                    (
                        Target::Relationship,
                        Target::Type(v4t_tosca::Kind::Relationship)
                    ) | (
                        Target::Type(v4t_tosca::Kind::Relationship),
                        Target::Relationship
                    )
                )
        };
        (parsed.model.occurrences.iter())
            .filter(|x| same(x.target) && x.name == o.name && (declaration || !x.is_definition()))
            .filter_map(|x| self.location(x.span))
            .collect()
    }

    /// Hover: types, variability inputs, expressions, presets, conditions,
    /// and the presence of elements per preset.
    pub(crate) fn hover(
        &self,
        parsed: &Parsed,
        pos: Position,
        presence: &mut Presence,
    ) -> Option<Hover> {
        let at = offset(self.text, pos);
        let text = match parsed.model.at(at) {
            Some(o) => self.hover_occurrence(parsed, o, presence)?,
            None => match condition_at(&parsed.root, at) {
                Some(c) => format!("condition: `{}`", v4t::readable_condition(c)),
                None => return None,
            },
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: None,
        })
    }

    fn hover_occurrence(
        &self,
        parsed: &Parsed,
        o: &Occurrence,
        presence: &mut Presence,
    ) -> Option<String> {
        let variability = variability(&parsed.root);
        match o.target {
            Target::Type(kind) => {
                let l = crate::types::load(self.path, self.text, self.buffers, self.loaders)?;
                let ts = v4t_tosca::TypeSystem::build(&l.loaded);
                Some(crate::types::describe(&ts, l.resolve(&ts, kind, &o.name)?))
            }
            Target::VariabilityInput => Some(input_hover(variability?, &o.name)),
            Target::Expression => {
                let (k, def) = entries(variability?.get("expressions"))
                    .into_iter()
                    .find(|(k, _)| *k.name == *o.name)?;
                Some(format!(
                    "expression `{}`: `{}`",
                    k.name,
                    v4t::readable_condition(def)
                ))
            }
            Target::Preset => {
                let (_, def) = entries(variability?.get("presets"))
                    .into_iter()
                    .find(|(k, _)| *k.name == *o.name)?;
                let inputs: Vec<String> = (entries(def.get("inputs")).iter())
                    .map(|(k, v)| format!("- `{}` = `{}`", k.name, to_json(*v)))
                    .collect();
                Some(format!("preset `{}`\n\n{}", o.name, inputs.join("\n")))
            }
            Target::Node => self.presence(
                presence,
                &format!("node.{}", o.name),
                &format!("node `{}`", o.name),
            ),
            Target::Group | Target::Policy | Target::Input | Target::Output => {
                // Ids of these elements carry their position among the
                // definitions of their section (`input.port@1`).
                let defs: Vec<&Occurrence> = (parsed.model.occurrences.iter())
                    .filter(|d| d.is_definition() && d.target == o.target)
                    .collect();
                let def = match o.is_definition() {
                    true => o,
                    false => defs.iter().copied().find(|d| d.name == o.name)?,
                };
                let index = defs.iter().position(|d| std::ptr::eq(*d, def))?;
                let kind = match o.target {
                    Target::Group => "group",
                    Target::Policy => "policy",
                    Target::Input => "input",
                    _ => "output",
                };
                self.presence(
                    presence,
                    &format!("{kind}.{}@{index}", o.name),
                    &format!("{kind} `{}`", o.name),
                )
            }
            Target::Relationship => None,
            Target::Import => None,
        }
    }

    /// The presence of element `id` in every preset (or with the default
    /// inputs), each with its reason in one line, as `v4t explain` says it.
    fn presence(&self, presence: &mut Presence, id: &str, display: &str) -> Option<String> {
        presence
            .entry(id.to_string())
            .or_insert_with(|| self.explain(id, display))
            .clone()
    }

    fn explain(&self, id: &str, display: &str) -> Option<String> {
        let parsed = Parsed::of(self.text)?;
        let mut presets: Vec<Option<String>> = parsed
            .model
            .names(Target::Preset)
            .into_iter()
            .map(|p| Some(p.to_string()))
            .collect();
        if presets.is_empty() {
            presets.push(None);
        }
        let dir = self.path.parent().unwrap_or(Path::new("/"));
        let mut lines = Vec::new();
        for preset in presets {
            let options = ExplainOptions {
                variant: ResolveOptions {
                    presets: preset.clone().into_iter().collect(),
                    ..ResolveOptions::default()
                },
                elements: vec![id.to_string()],
            };
            let mut sources = Sources::new();
            let source = sources.add(self.path.to_string_lossy(), self.text);
            let mut loader = Overlay::new(dir, self.buffers.clone(), self.loaders);
            let Ok(ex) = v4t::explain::explain(&mut sources, source, &mut loader, &options) else {
                continue;
            };
            let label = preset.map_or("default inputs".to_string(), |p| format!("preset `{p}`"));
            if let Some(e) = ex.elements.first() {
                lines.push(format!("- {label}: {}", e.summary));
            } else if let Some(error) = &ex.error {
                let message = error
                    .diagnostics()
                    .next()
                    .map_or("", |d| d.message.as_str());
                lines.push(format!(
                    "- {label}: does not resolve: {}",
                    message.lines().next().unwrap_or_default()
                ));
            }
        }
        (!lines.is_empty()).then(|| format!("{display}\n\n{}", lines.join("\n")))
    }
}

fn variability(root: &Node) -> Option<&Node> {
    TOPOLOGY_KEYS
        .iter()
        .find_map(|t| root.get(t)?.get("variability"))
}

/// A variability input's type, default and the presets' values.
fn input_hover(variability: &Node, name: &str) -> String {
    let mut out = format!("variability input `{name}`");
    if let Some((_, def)) = entries(variability.get("inputs"))
        .into_iter()
        .find(|(k, _)| *k.name == *name)
    {
        if let Some(t) = def.get("type").and_then(Node::as_str) {
            out.push_str(&format!("\n\ntype: `{t}`"));
        }
        if let Some(d) = def.get("default") {
            out.push_str(&format!("\n\ndefault: `{}`", to_json(d)));
        }
        if let Some(d) = def.get("description").and_then(Node::as_str) {
            out.push_str(&format!("\n\n{d}"));
        }
    }
    let values: Vec<String> = entries(variability.get("presets"))
        .into_iter()
        .filter_map(|(k, p)| {
            Some(format!(
                "- preset `{}`: `{}`",
                k.name,
                to_json(p.get("inputs")?.get(name)?)
            ))
        })
        .collect();
    if !values.is_empty() {
        out.push_str(&format!("\n\n{}", values.join("\n")));
    }
    out
}

/// The innermost `conditions` value containing the cursor.
fn condition_at(root: &Node, at: usize) -> Option<&Node> {
    let mut found = None;
    let mut node = root;
    loop {
        let next = match &node.value {
            v4t::Value::Map(m) => {
                m.iter()
                    .find(|(k, v)| contains(k.span.to(v.span), at))
                    .map(|(k, v)| {
                        if &*k.name == "conditions" {
                            found = Some(v);
                        }
                        v
                    })
            }
            v4t::Value::Seq(items) => items.iter().find(|v| contains(v.span, at)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return found,
        }
    }
}

/// The outline: one heading per kind of definition, the definitions under it.
#[allow(deprecated)] // `DocumentSymbol::deprecated` has to be written
pub(crate) fn symbols(text: &str, parsed: &Parsed) -> Vec<DocumentSymbol> {
    let mut out: Vec<DocumentSymbol> = Vec::new();
    for o in parsed
        .model
        .occurrences
        .iter()
        .filter(|o| o.is_definition())
    {
        let Some(entry) = o.entry else { continue };
        let symbol = DocumentSymbol {
            name: o.name.clone(),
            detail: None,
            kind: symbol_kind(o.target),
            tags: None,
            deprecated: None,
            range: range(text, entry),
            selection_range: range(text, o.span),
            children: None,
        };
        let heading = o.target.heading();
        match out.iter_mut().find(|h| h.name == heading) {
            Some(h) => {
                h.range.end = h.range.end.max(symbol.range.end);
                h.children.get_or_insert_with(Vec::new).push(symbol);
            }
            None => out.push(DocumentSymbol {
                name: heading.to_string(),
                detail: None,
                kind: SymbolKind::NAMESPACE,
                tags: None,
                deprecated: None,
                range: symbol.range,
                selection_range: symbol.selection_range,
                children: Some(vec![symbol]),
            }),
        }
    }
    out
}

fn symbol_kind(t: Target) -> SymbolKind {
    match t {
        Target::Node | Target::Relationship => SymbolKind::OBJECT,
        Target::Group | Target::Policy => SymbolKind::STRUCT,
        Target::Input | Target::Output | Target::VariabilityInput => SymbolKind::VARIABLE,
        Target::Preset => SymbolKind::CONSTANT,
        Target::Expression => SymbolKind::FUNCTION,
        Target::Type(_) => SymbolKind::CLASS,
        Target::Import => SymbolKind::FILE,
    }
}

/// Folding ranges: every collection over several lines.
pub(crate) fn folding(parsed: &Parsed) -> Vec<FoldingRange> {
    let mut folds = parsed.model.folds.clone();
    folds.sort_unstable();
    folds.dedup();
    folds
        .into_iter()
        .map(|(a, b)| FoldingRange {
            start_line: a - 1,
            end_line: b - 1,
            ..Default::default()
        })
        .collect()
}
