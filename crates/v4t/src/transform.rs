//! Transformation: writes the variability-resolved template (part 2, section 8).
//!
//! Input: the resolver document, its graph and the solution. Output: a plain
//! TOSCA Simple Profile 1.3 document: absent elements removed, group members
//! and policy targets pruned, list forms turned into maps, property
//! expressions replaced by their values, every V4T-only key removed.

use crate::document::{self, TOPOLOGY};
use crate::error::{fail_at, Error, Result};
use crate::version::Grammar;

use crate::graph::{is_fallback_value, ElementId, Graph, Loc, Owner, UNDEFINED};
use crate::load::LoadedTypes;
use crate::solve::Solution;
use crate::types::{TypeSystem, TYPE_COLLECTIONS};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::{Key, Map, MapRef, Node, NodeRef, Span, Value};

/// V4T keys removed from every element definition.
const ELEMENT_KEYS: [&str; 8] = [
    "conditions",
    "weight",
    "implies",
    "implied",
    "technology",
    "managed",
    "anchor",
    "persistent",
];

fn clean(m: &mut Map) {
    m.retain(|k, _| !ELEMENT_KEYS.contains(&k.name.as_str()));
}

/// The template the transformation writes from: the resolver's own tree,
/// whose surviving definitions move into the output (it is only good for
/// dropping afterwards; family 1 seed 100,000: 48 MB of peak saved over
/// copying), or a template it only reads, whose definitions are copied (a
/// prepared template resolved for several configurations, or read from a
/// `Doc`). Whatever the transformation still reads of an element (its
/// properties, requirements, artifacts, a technology's `assign`) is read
/// before the element is taken, so both give the same output.
pub(crate) enum Source<'a> {
    /// Moved from.
    Moved(&'a mut Node),
    /// Copied from.
    Copied(NodeRef<'a>),
}

impl Source<'_> {
    /// The template as it is now (moved definitions read as null).
    #[inline]
    fn read(&self) -> NodeRef<'_> {
        match self {
            Source::Moved(doc) => NodeRef::from(&**doc),
            Source::Copied(doc) => *doc,
        }
    }

    /// Drops the variability section of a tree: the output has none, and
    /// solving is done with the inputs and named expressions it holds, so
    /// the output reuses its memory (family 1 seed 100,000: 100 MB of named
    /// expressions). [`Source::shell`] leaves it out of a copy.
    fn drop_variability(&mut self) {
        if let Source::Moved(doc) = self {
            if let Some(tt) = document::topology_map_mut(doc) {
                drop(tt.remove("variability"));
            }
        }
    }

    /// The output's top-level map `at` (the document or its topology) with
    /// the sections the transformation rebuilds left in the template: keys
    /// in `replaced` get a null placeholder in the output (so that
    /// re-inserting them keeps the key order), everything else is moved or
    /// copied (the variability section goes). Element definitions are
    /// taken whole instead ([`Source::element`]).
    fn shell(&mut self, at: Top, replaced: &[&str]) -> Node {
        let Some(raw) = at.read(self.read()) else {
            return Node::null();
        };
        let Some(m) = raw.as_map() else {
            return raw.to_node();
        };
        let (span, form) = (raw.span(), raw.form());
        let keys: Vec<(usize, Key, bool)> = m
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| !(at == Top::Topology && k.name() == "variability"))
            .map(|(i, (k, _))| (i, k.to_key(), replaced.contains(&k.name())))
            .collect();
        let moved = keys.iter().filter(|k| !k.2).map(|k| k.0);
        let mut taken = self.entries(at, moved).into_iter();
        let mut out = Map::with_capacity(keys.len());
        for (_, k, placeholder) in keys {
            let v = match placeholder {
                true => Node::null(),
                false => taken.next().unwrap_or_default(),
            };
            out.push(k, v);
        }
        let mut shelled = Node::new(Value::Map(out), span);
        shelled.form = form;
        shelled
    }

    /// The values of the entries at `positions` of the map `at`, each taken
    /// whole (a tree keeps a null in its place); the map is looked up once.
    fn entries(&mut self, at: Top, positions: impl Iterator<Item = usize>) -> Vec<Node> {
        match self {
            Source::Moved(doc) => {
                let mut m = at.find(doc).and_then(Node::as_map_mut);
                positions
                    .map(|i| {
                        m.as_deref_mut()
                            .and_then(|m| m.get_index_mut(i))
                            .map(std::mem::take)
                            .unwrap_or_default()
                    })
                    .collect()
            }
            Source::Copied(doc) => {
                let m = at.read(*doc).and_then(NodeRef::as_map);
                positions
                    .map(|i| {
                        m.and_then(|m| m.get_index(i))
                            .map(|(_, v)| v.to_node())
                            .unwrap_or_default()
                    })
                    .collect()
            }
        }
    }

    /// Element `id`'s definition, taken whole (a tree keeps a null in its
    /// place), its V4T keys dropped with `drop_v4t`. Moved, the output
    /// reuses the definition's map instead of copying its entries.
    #[inline]
    fn element(&mut self, g: &Graph, id: ElementId, drop_v4t: bool) -> Node {
        let def = match self {
            Source::Moved(doc) => g.raw_mut(doc, id).map(std::mem::take),
            Source::Copied(doc) => g.raw(*doc, id).map(NodeRef::to_node),
        };
        cleaned(def.unwrap_or_default(), drop_v4t)
    }
}

/// The maps whose entries the transformation takes by position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    Document,
    Topology,
    RelationshipTemplates,
}

impl Top {
    fn read(self, doc: NodeRef<'_>) -> Option<NodeRef<'_>> {
        match self {
            Top::Document => Some(doc),
            Top::Topology => document::topology_of(doc),
            Top::RelationshipTemplates => {
                document::topology_of(doc).and_then(|t| t.get("relationship_templates"))
            }
        }
    }

    fn find(self, doc: &mut Node) -> Option<&mut Node> {
        match self {
            Top::Document => Some(doc),
            Top::Topology => document::topology_mut(doc),
            Top::RelationshipTemplates => {
                document::topology_mut(doc).and_then(|t| t.get_mut("relationship_templates"))
            }
        }
    }
}

/// `def` with its V4T keys dropped if `drop_v4t`.
#[inline]
fn cleaned(mut def: Node, drop_v4t: bool) -> Node {
    if drop_v4t {
        if let Some(m) = def.as_map_mut() {
            clean(m);
        }
    }
    def
}

/// What the transformation writes over a definition: its present type
/// (where it is typed) and its `properties` (TOSCA 2.0: and `attributes`),
/// read from the document before the definition is taken out of it.
struct Rewrite {
    ty: Option<Node>,
    properties: Option<Node>,
    /// TOSCA 2.0 only (`None` on a TOSCA 1.3 base, where attributes stay as
    /// written).
    attributes: Option<Option<Node>>,
}

impl Rewrite {
    /// Writes the type and the sections into `m`: a section without
    /// present entries goes, except that TOSCA 2.0 keeps a written section
    /// as `{}` (the reference drops it).
    fn apply(self, m: &mut Map, grammar: Grammar) {
        if let Some(ty) = self.ty {
            m.insert("type", ty);
        }
        let sections = std::iter::once(("properties", self.properties))
            .chain(self.attributes.map(|a| ("attributes", a)));
        for (key, section) in sections {
            match section {
                Some(p) => m.insert(key, p),
                None if grammar == Grammar::Tosca2 && m.contains_key(key) => {
                    m.insert(key, Node::map(Map::new()))
                }
                None => {
                    m.remove(key);
                }
            }
        }
    }
}

/// Keys of the topology whose values the transformation rebuilds.
const REBUILT: [&str; 6] = [
    "inputs",
    "node_templates",
    "relationship_templates",
    "groups",
    "policies",
    "outputs",
];

/// Transforms `src` (the document the graph was built from) into the
/// result, moving or copying the surviving definitions ([`Source`]).
pub(crate) fn transform(
    mut src: Source<'_>,
    graph: &Graph,
    solution: &Solution,
    loaded: &LoadedTypes,
    types: &TypeSystem,
) -> Result<Node> {
    let src = &mut src;
    src.drop_variability();
    let topology = document::topology_key(src.read());
    // The output starts as the document without the collections that are
    // rebuilt from the graph (placeholders keep their positions).
    let mut doc = src.shell(Top::Document, &[topology, "imports"]);
    let has_topology = document::topology_of(src.read()).is_some();
    if let Some(root) = doc.as_map_mut().filter(|_| has_topology) {
        root.insert(topology, src.shell(Top::Topology, &REBUILT));
    }
    let mut t = Transformer {
        g: graph,
        solution,
        consumer_values: SeededMap::default(),
    };
    // TOSCA 2.0 keeps every section the template has, also when pruning
    // leaves it empty (`node_templates` is mandatory there); the reference's
    // TOSCA 1.3 output drops empty sections.
    let keep_empty = graph.grammar() == Grammar::Tosca2;
    if let Some(tt) = document::topology_map_mut(&mut doc) {
        // Inputs first: they rewrite the values of their consumers.
        if tt.contains_key("inputs") {
            let inputs = t.inputs(src);
            set_or_remove(tt, "inputs", inputs, keep_empty);
        }
        if tt.contains_key("node_templates") {
            let nodes = t.node_templates(src)?;
            set_or_remove(tt, "node_templates", nodes, keep_empty);
        }
        if let Some(templates) = t.relationship_templates(src)? {
            set_or_remove(tt, "relationship_templates", templates, keep_empty);
        }
        if tt.contains_key("groups") {
            let groups = t.groups(src)?;
            set_or_remove(tt, "groups", groups, keep_empty);
        }
        if tt.contains_key("policies") {
            let policies = t.policies(src)?;
            if policies.is_empty() && !keep_empty {
                tt.remove("policies");
            } else {
                tt.insert("policies", Node::seq(policies));
            }
        }
        if tt.contains_key("outputs") {
            let outputs = t.outputs(src);
            set_or_remove(tt, "outputs", outputs, keep_empty);
        }
    }
    if let Some(root) = doc.as_map_mut() {
        if root.contains_key("imports") {
            let imports = t.imports(src);
            if imports.is_empty() && !keep_empty {
                root.remove("imports");
            } else {
                root.insert("imports", Node::seq(imports));
            }
        }
        types.files().copy_types_into(root);
        drop_variability_group_types(root, types);
        match graph.grammar() {
            Grammar::Tosca13 => finish(root, loaded),
            Grammar::Tosca2 => finish_20(root),
        }
    }
    Ok(doc)
}

/// Writes every `{get_input: <index>}` in `value` that refers to a present
/// input as `{get_input: <name>}` (the reference does so for whole values).
fn name_inputs(value: &mut Node, g: &Graph, present: &impl Fn(ElementId) -> bool) {
    let mut stack = vec![value];
    while let Some(n) = stack.pop() {
        match &mut n.value {
            Value::Map(m) => {
                if let Some(x) = m.get_mut("get_input") {
                    if let Some(i) = x
                        .as_f64()
                        .filter(|k| k.fract() == 0.0 && *k >= 0.0)
                        .and_then(|k| g.inputs().get(k as usize).copied())
                        .filter(|&i| present(i))
                    {
                        *x = Node::new(Value::String(g.name(i).into()), x.span);
                    }
                }
                stack.extend(m.iter_mut().map(|(_, v)| v));
            }
            Value::Seq(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// Drops the template's variability group types (part 1, 4.10): V4T-only
/// like the variability groups, which the output no longer has, and on a
/// TOSCA 1.3 output derived from types it does not define.
fn drop_variability_group_types(root: &mut Map, types: &TypeSystem) {
    retain_types(root, "group_types", |name| {
        !types.is_variability_group(name)
    });
}

/// Keeps the types of section `collection` whose names `keep` accepts; an
/// emptied section goes too.
fn retain_types(root: &mut Map, collection: &str, keep: impl Fn(&str) -> bool) {
    let Some(types) = root.get_mut(collection).and_then(Node::as_map_mut) else {
        return;
    };
    types.retain(|k, _| keep(&k.name));
    if types.is_empty() {
        root.remove(collection);
    }
}

/// The version of the output, an empty topology dropped, and the loaded
/// types (`lib/`) removed again.
fn finish(root: &mut Map, loaded: &LoadedTypes) {
    root.insert(
        "tosca_definitions_version",
        Node::string("tosca_simple_yaml_1_3"),
    );
    if root
        .get(TOPOLOGY)
        .and_then(Node::as_map)
        .is_some_and(Map::is_empty)
    {
        root.remove(TOPOLOGY);
    }
    for (collection, _) in TYPE_COLLECTIONS {
        retain_types(root, collection, |name| !loaded.contains(collection, name));
    }
}

/// The version of a TOSCA 2.0 output, `tosca_2_0`, as its first key (§6.1).
fn finish_20(root: &mut Map) {
    let version = root
        .remove("tosca_definitions_version")
        .map(|v| Node::new(Value::String("tosca_2_0".to_string()), v.span))
        .unwrap_or_else(|| Node::string("tosca_2_0"));
    let mut entries = Vec::with_capacity(root.len() + 1);
    entries.push((Key::new("tosca_definitions_version", Span::NONE), version));
    entries.extend(std::mem::take(root).into_entries());
    *root = Map::from_entries(entries);
}

/// The present elements of one section at a time, taken from the source.
struct Transformer<'a> {
    g: &'a Graph,
    solution: &'a Solution,
    /// Properties that consume a present input, with their value, its
    /// `get_input`s of present inputs by index written by name (by
    /// property: a template whose nodes all read one input has as many).
    consumer_values: SeededMap<ElementId, Node>,
}

impl Transformer<'_> {
    fn present(&self, id: ElementId) -> bool {
        self.solution.is_present(id)
    }

    /// The present elements of `list`.
    fn present_of<'l>(&'l self, list: &'l [ElementId]) -> impl Iterator<Item = ElementId> + 'l {
        list.iter().copied().filter(|&x| self.present(x))
    }

    fn inputs(&mut self, src: &mut Source) -> Map {
        let g = self.g;
        let mut inputs = Map::new();
        for i in self.present_of(g.inputs()).collect::<Vec<_>>() {
            let def = src.element(g, i, true);
            inputs.insert(g.name(i), def);
            for &p in g.get(i).consumers() {
                if self.consumer_values.contains_key(&p) {
                    continue;
                }
                if let Some(mut value) = g.property_value(src.read(), p).map(NodeRef::to_node) {
                    name_inputs(&mut value, g, &|x| self.present(x));
                    self.consumer_values.insert(p, value);
                }
            }
        }
        inputs
    }

    /// A property's value: the input it consumes, its evaluated expression,
    /// or its `value`.
    fn value_of(&self, src: NodeRef<'_>, p: ElementId) -> Option<Node> {
        if let Some(v) = self.consumer_values.get(&p) {
            return Some(v.clone());
        }
        if let Some(v) = self.solution.value_of(p) {
            let mut value = Node::synth(v.clone());
            if self.g.grammar() == Grammar::Tosca2 {
                crate::functions::escape(&mut value);
            }
            return Some(value);
        }
        self.g.property_value(src, p).map(NodeRef::to_node)
    }

    /// The present properties (or attributes: `list`) of `c` as a map,
    /// `None` if there are none.
    fn property_map(&self, src: NodeRef<'_>, list: &[ElementId]) -> Result<Option<Node>> {
        let g = self.g;
        let mut out = Map::new();
        let null_is_value = g.grammar() == Grammar::Tosca2;
        for p in self.present_of(list) {
            let v = self
                .value_of(src, p)
                .filter(|v| null_is_value || v.is_defined());
            let Some(v) = v else {
                fail_at!(g, p, "{} has no value", g.Display(p));
            };
            if v.as_str() == Some(UNDEFINED) {
                continue;
            }
            let name = g.name(p);
            match out.get_mut(name) {
                Some(slot) => *slot = v,
                None => out.push(Key::new(name, g.get(p).span), v),
            }
        }
        Ok((!out.is_empty()).then(|| Node::map(out)))
    }

    /// The name of the present type of `c` (where the template wrote it).
    fn present_type(&self, c: ElementId) -> Result<Node> {
        let g = self.g;
        match self.present_of(g.get(c).types()).next() {
            Some(t) => Ok(Node::new(
                Value::String(g.name(t).to_string()),
                g.get(t).span,
            )),
            None => fail_at!(g, c, "{} has no present type", g.Display(c)),
        }
    }

    /// The [`Rewrite`] of `c` with type `ty` (if typed) and its present
    /// properties (on a TOSCA 2.0 base also its attributes).
    fn rewrite(&self, src: NodeRef<'_>, c: ElementId, ty: Option<Node>) -> Result<Rewrite> {
        let g = self.g;
        let properties = self.property_map(src, g.get(c).properties())?;
        let attributes = match g.grammar() {
            Grammar::Tosca13 => None,
            Grammar::Tosca2 => Some(self.property_map(src, g.get(c).attributes())?),
        };
        Ok(Rewrite {
            ty,
            properties,
            attributes,
        })
    }

    fn node_templates(&self, src: &mut Source) -> Result<Map> {
        let g = self.g;
        // Node names are unique (the graph checks): entries are appended
        // without looking their names up, and indexed once at the end.
        let mut nodes = Vec::with_capacity(g.nodes().len());
        for n in self.present_of(g.nodes()) {
            let mut ty = self.present_type(n)?;
            if !g.get(n).technologies().is_empty() {
                let Some(t) = self.present_of(g.get(n).technologies()).next() else {
                    fail_at!(g, n, "{} has no present technology", g.Display(n));
                };
                if let Some(assign) = g.assigned_type(t) {
                    ty = assign;
                }
            }
            let rewrite = self.rewrite(src.read(), n, Some(ty))?;
            let requirements = self.requirements(src, n);
            let artifacts = self.artifacts(src, n)?;
            let mut def = src.element(g, n, true);
            let Some(m) = def.as_map_mut() else { continue };
            rewrite.apply(m, g.grammar());
            if requirements.is_empty() {
                m.remove("requirements");
            } else {
                m.insert("requirements", Node::seq(requirements));
            }
            if artifacts.is_empty() {
                m.remove("artifacts");
            } else {
                m.insert("artifacts", Node::map(artifacts));
            }
            nodes.push((Key::new(g.name(n), Span::NONE), def));
        }
        Ok(Map::from_entries(nodes))
    }

    /// The present requirements of node `n` (`{name: target}` where only
    /// `node` is left).
    fn requirements(&self, src: &mut Source, n: ElementId) -> Vec<Node> {
        let g = self.g;
        let mut reqs = Vec::new();
        for r in self.present_of(g.get(n).outgoing()) {
            let mut a = src.element(g, r, true);
            // TOSCA 2.0: only what was written as a string (the reference
            // collapses every `{node: x}`).
            let collapse = g.grammar() == Grammar::Tosca13 || a.form != v4t_yaml::Form::Other;
            if let Some(am) = a.as_map_mut().filter(|_| collapse) {
                if am.len() == 1 {
                    if let Some(target) = am.get_mut("node") {
                        a = std::mem::take(target);
                    }
                }
            }
            reqs.push(Node::single(g.name(r), a));
        }
        reqs
    }

    /// The present artifacts of node `n`, typed and with their properties.
    fn artifacts(&self, src: &mut Source, n: ElementId) -> Result<Map> {
        let g = self.g;
        let mut arts = Map::new();
        for a in self.present_of(g.get(n).artifacts()) {
            let typed = !g.get(a).types().is_empty();
            let ty = if typed {
                Some(self.present_type(a)?)
            } else {
                None
            };
            let rewrite = self.rewrite(src.read(), a, ty)?;
            let mut ad = src.element(g, a, true);
            if let Some(am) = ad.as_map_mut() {
                rewrite.apply(am, g.grammar());
            }
            // A TOSCA 2.0 artifact without type: as written (the short
            // form, a string, is a map of `file` since normalisation).
            if !typed && ad.form != v4t_yaml::Form::Other {
                if let Some(file) = ad.as_map_mut().and_then(|m| m.remove("file")) {
                    ad = file;
                }
            }
            arts.insert(g.name(a), ad);
        }
        Ok(arts)
    }

    /// The present relationship templates, if the section exists.
    fn relationship_templates(&self, src: &mut Source) -> Result<Option<Map>> {
        let Some(rts) = Top::RelationshipTemplates
            .read(src.read())
            .and_then(NodeRef::as_map)
        else {
            return Ok(None);
        };
        if self.g.grammar() == Grammar::Tosca2 {
            return self.relationship_templates_20(src).map(Some);
        }
        let (by_position, by_name) = self.template_relations(rts);
        // The present templates with their relations, typed and given their
        // properties (read from `src`), then taken out of `src` in one pass.
        let mut present = Vec::new();
        for (i, (k, _)) in rts.iter().enumerate() {
            let rel = by_position
                .get(i)
                .copied()
                .flatten()
                .or_else(|| by_name.get(k.name()).copied());
            if let Some(r) = rel.filter(|&r| self.present(r)) {
                present.push((i, k.to_key(), r));
            }
        }
        let mut rewrites = Vec::with_capacity(present.len());
        for &(_, _, r) in &present {
            rewrites.push(self.rewrite(src.read(), r, Some(self.present_type(r)?))?);
        }
        let taken = src.entries(Top::RelationshipTemplates, present.iter().map(|p| p.0));
        let mut out = Map::with_capacity(present.len());
        for (((_, k, _), rewrite), mut v) in present.into_iter().zip(rewrites).zip(taken) {
            if let Some(m) = v.as_map_mut() {
                rewrite.apply(m, Grammar::Tosca13);
            }
            out.push(k, v);
        }
        Ok(Some(out))
    }

    /// TOSCA 2.0 relationship templates: one that a single requirement
    /// names is that relation's (typed, with its properties, present with
    /// it); one that several requirements name is present if one of them is,
    /// one that none names is present; those two are written as they are,
    /// which needs their type and properties to be unconditional.
    fn relationship_templates_20(&self, src: &mut Source) -> Result<Map> {
        let g = self.g;
        // Each present template with its position and, if one relation
        // owns it, that relation.
        let mut plan: Vec<(Key, usize, Option<ElementId>)> = Vec::new();
        if let Some(rts) = Top::RelationshipTemplates
            .read(src.read())
            .and_then(NodeRef::as_map)
        {
            // The relations naming each template, in relation order.
            let mut naming: Vec<Vec<ElementId>> = vec![Vec::new(); rts.len()];
            for &r in g.relations() {
                let at = g.get(r).relationship().map(|i| i as usize);
                if let Some(list) = at.and_then(|i| naming.get_mut(i)) {
                    list.push(r);
                }
            }
            for ((i, (k, _)), referrers) in rts.iter().enumerate().zip(naming) {
                match referrers
                    .iter()
                    .copied()
                    .find(|&r| !g.get(r).types().is_empty())
                {
                    Some(r) if self.present(r) => plan.push((k.to_key(), i, Some(r))),
                    Some(_) => {}
                    None if referrers.is_empty() || referrers.iter().any(|&r| self.present(r)) => {
                        plan.push((k.to_key(), i, None));
                    }
                    None => {}
                }
            }
        }
        // The templates written as they are are taken out of `src` first
        // (checked in order); the owned ones stay there until their type
        // and properties are read.
        let unowned = plan.iter().filter(|p| p.2.is_none()).map(|p| p.1);
        let mut unowned = src.entries(Top::RelationshipTemplates, unowned).into_iter();
        let mut written: Vec<Option<Node>> = Vec::with_capacity(plan.len());
        for (k, _, owner) in &plan {
            let v = match owner {
                Some(_) => None,
                None => {
                    let mut v = cleaned(unowned.next().unwrap_or_default(), true);
                    unconditional_template(k, &mut v, g.grammar())?;
                    Some(v)
                }
            };
            written.push(v);
        }
        let mut rewrites = Vec::new();
        for &(_, _, owner) in &plan {
            if let Some(r) = owner {
                rewrites.push(self.rewrite(src.read(), r, Some(self.present_type(r)?))?);
            }
        }
        let owned = plan.iter().filter(|p| p.2.is_some()).map(|p| p.1);
        let owned = src.entries(Top::RelationshipTemplates, owned);
        let mut owned = owned.into_iter().zip(rewrites);
        let mut out = Map::with_capacity(written.len());
        for ((k, _, _), v) in plan.into_iter().zip(written) {
            let v = match v {
                Some(v) => v,
                None => {
                    let Some((mut v, rewrite)) = owned.next() else {
                        continue;
                    };
                    if let Some(m) = v.as_map_mut() {
                        rewrite.apply(m, Grammar::Tosca2);
                    }
                    v
                }
            };
            out.push(k, v);
        }
        Ok(out)
    }

    /// The relation of each relationship template in `rts`: by position (a
    /// relation's types record its template's), by name where that does
    /// not apply.
    fn template_relations<'r>(
        &'r self,
        rts: MapRef<'_>,
    ) -> (Vec<Option<ElementId>>, SeededMap<&'r str, ElementId>) {
        let g = self.g;
        let mut by_position: Vec<Option<ElementId>> = vec![None; rts.len()];
        let mut by_name: SeededMap<&str, ElementId> = SeededMap::default();
        for &r in g.relations() {
            let Some(t) = g
                .get(r)
                .relationship()
                .and_then(|p| g.relationship_templates().get(p as usize))
            else {
                continue;
            };
            let position = g
                .get(r)
                .types()
                .first()
                .and_then(|&ty| match g.get(ty).loc {
                    Loc::Type {
                        owner: Owner::RelationshipTemplate(p),
                        ..
                    } => Some(p as usize),
                    _ => None,
                });
            match position.filter(|&p| {
                rts.get_index(p)
                    .is_some_and(|(k, _)| k.name() == t.as_str())
            }) {
                Some(p) => by_position[p] = Some(r),
                None => {
                    by_name.insert(t.as_str(), r);
                }
            }
        }
        (by_position, by_name)
    }

    fn groups(&self, src: &mut Source) -> Result<Map> {
        let g = self.g;
        let mut groups = Map::new();
        for gr in self.present_of(g.groups()) {
            let rewrite = self.rewrite(src.read(), gr, Some(self.present_type(gr)?))?;
            let mut def = src.element(g, gr, true);
            let Some(m) = def.as_map_mut() else { continue };
            if let Some(members) = m.get_mut("members").and_then(Node::as_seq_mut) {
                let kept = self.present_entries(std::mem::take(members), g.get(gr).members());
                m.insert("members", Node::seq(kept));
            }
            rewrite.apply(m, g.grammar());
            groups.insert(g.name(gr), def);
        }
        Ok(groups)
    }

    /// The entries of a list whose elements (by position in `ids`) are present.
    fn present_entries(&self, entries: Vec<Node>, ids: &[ElementId]) -> Vec<Node> {
        entries
            .into_iter()
            .zip(ids)
            .filter(|(_, &id)| self.present(id))
            .map(|(n, _)| n)
            .collect()
    }

    fn policies(&self, src: &mut Source) -> Result<Vec<Node>> {
        let g = self.g;
        let mut policies = Vec::new();
        for p in self.present_of(g.policies()) {
            let rewrite = self.rewrite(src.read(), p, Some(self.present_type(p)?))?;
            let mut def = src.element(g, p, true);
            let Some(m) = def.as_map_mut() else { continue };
            rewrite.apply(m, g.grammar());
            if let Some(targets) = m.get_mut("targets").and_then(Node::as_seq_mut) {
                let kept = self.present_entries(std::mem::take(targets), g.get(p).targets());
                m.insert("targets", Node::seq(kept));
            }
            policies.push(Node::single(g.name(p), def));
        }
        Ok(policies)
    }

    fn outputs(&self, src: &mut Source) -> Map {
        let g = self.g;
        let mut outputs = Map::new();
        for o in self.present_of(g.outputs()) {
            let def = src.element(g, o, true);
            outputs.insert(g.name(o), def);
        }
        outputs
    }

    /// The present imports (`{file: x}` alone becomes `x`, in TOSCA 2.0
    /// `{url: x}`).
    fn imports(&self, src: &mut Source) -> Vec<Node> {
        let g = self.g;
        let key = crate::normalize::import_url_key(g.grammar());
        let mut imports = Vec::new();
        for i in self.present_of(g.imports()) {
            let mut def = src.element(g, i, true);
            // TOSCA 2.0: only what was written as a string (the reference
            // collapses every single-key import).
            let collapse = g.grammar() == Grammar::Tosca13 || def.form != v4t_yaml::Form::Other;
            if let Some(m) = def.as_map_mut().filter(|_| collapse) {
                if m.len() == 1 {
                    if let Some(f) = m.get_mut(key) {
                        def = std::mem::take(f);
                    }
                }
            }
            imports.push(def);
        }
        imports
    }
}

/// A relationship template that is no relation's (several requirements or
/// none name it), written back from its normalised form: its single type a
/// string, its properties a map (the fallback properties dropped).
/// Conditional types or properties are an error: they would need one
/// relation as their container.
fn unconditional_template(name: &Key, def: &mut Node, grammar: Grammar) -> Result<()> {
    let conditional = || {
        Error::at(
            format!(
                "Relationship template \"{}\" has conditional types or properties, but only a template exactly one requirement names can have them",
                name.name
            ),
            name.span,
        )
    };
    let Some(m) = def.as_map_mut() else {
        return Ok(());
    };
    if let Some(t) = m.get_mut("type") {
        if let Some(list) = t.as_seq() {
            let [only] = &list[..] else {
                return Err(conditional());
            };
            let Some((k, v)) = only.as_map().and_then(Map::first) else {
                return Err(conditional());
            };
            if v.as_map().is_some_and(|a| !a.is_empty()) {
                return Err(conditional());
            }
            *t = Node::new(Value::String(k.name.to_string()), k.span);
        }
    }
    for key in ["properties", "attributes"] {
        let Some(p) = m.get_mut(key) else { continue };
        if let Some(list) = p.as_seq() {
            let mut props = Map::with_capacity(list.len());
            for item in list {
                let Some((k, v)) = item.as_map().and_then(Map::first) else {
                    continue;
                };
                // An entry kept as written that is no definition is the value.
                if !crate::document::is_definition(v.into(), grammar) {
                    props.push(k.clone(), v.clone());
                    continue;
                }
                let value = v.get("value");
                if value.and_then(Node::as_str) == Some(UNDEFINED) {
                    continue;
                }
                match (value, v.as_map().map(Map::len)) {
                    (Some(value), Some(1)) => props.push(k.clone(), value.clone()),
                    _ => return Err(conditional()),
                }
            }
            *p = Node::new(Value::Map(props), p.span);
        } else if let Some(m) = p.as_map_mut() {
            // Kept as written: values only (fallback properties dropped).
            m.retain(|_, v| !is_fallback_value(Some(v)));
        }
    }
    Ok(())
}

fn set_or_remove(tt: &mut Map, key: &str, value: Map, keep_empty: bool) {
    if value.is_empty() && !keep_empty {
        tt.remove(key);
    } else {
        tt.insert(key, Node::map(value));
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::exercised;
    use crate::testing::resolve_text;
    use v4t_yaml::json::to_json;
    use v4t_yaml::Node;

    const NESTED: &str = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  inputs:
    nested: {type: string}
    plain: {type: string}
    unused: {type: string}
  node_templates:
    web:
      type: tosca.nodes.Root
      managed: false
      conditions: WEB
      properties:
        q: {concat: [http://, {get_input: nested}]}
        r: [{get_input: 1}]
  outputs:
    url: {value: {concat: [http://, {get_attribute: [web, ip]}]}}
";

    /// Resolves `template` and validates the result as TOSCA.
    fn resolve_validated(template: &str) -> Result<Node, String> {
        let mut sources = crate::Sources::new();
        let id = sources.add("template.yaml", template);
        let options = crate::ResolveOptions {
            validate: true,
            ..crate::ResolveOptions::default()
        };
        crate::resolve(&mut sources, id, &mut crate::NoFiles, &options)
            .map(|r| r.template)
            .map_err(|e| format!("{}: {:?}", e.message, e.notes))
    }

    fn group_type_names(out: &Node) -> Vec<&str> {
        out.get("group_types")
            .and_then(Node::as_map)
            .map(|m| m.keys().collect())
            .unwrap_or_default()
    }

    /// Group types derived (transitively) from the variability group types
    /// are V4T-only like their groups: the output drops them and stays
    /// valid TOSCA, on TOSCA 1.3 (which defines no variability types) and
    /// TOSCA 2.0 (with the bundled profile imported, not imported, or
    /// imported under a condition that does not hold) (QA issue 12).
    #[test]
    fn variability_group_types_are_dropped() {
        let out = resolve_validated(
            "tosca_definitions_version: tosca_variability_1_0
group_types:
  my.cm: {derived_from: variability.groups.ConditionalMembers}
  my.sub: {derived_from: my.cm}
  my.root: {derived_from: variability.groups.Root}
  my.plain: {derived_from: tosca.groups.Root}
topology_template:
  node_templates:
    a: {type: tosca.nodes.Root}
    b: {type: tosca.nodes.Root}
    c: {type: tosca.nodes.Root}
  groups:
    g: {type: my.sub, members: [a], conditions: false}
    h: {type: my.root, members: [b]}
    p: {type: my.plain, members: [c]}
",
        )
        .expect("resolves to valid TOSCA");
        assert_eq!(group_type_names(&out), vec!["my.plain"]);
        let tt = out.get("topology_template").expect("topology");
        let groups: Vec<&str> = tt
            .get("groups")
            .and_then(Node::as_map)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(groups, vec!["p"], "groups of variability types are removed");

        for import in [
            "imports:\n  - {profile: variability4tosca:1.0, namespace: v4t}\n",
            "imports:\n  - {profile: variability4tosca:1.0, namespace: v4t, conditions: false}\n",
            "",
        ] {
            let prefix = if import.is_empty() { "" } else { "v4t:" };
            let template = format!(
                "tosca_definitions_version: tosca_2_0
{import}group_types:
  my.cm: {{derived_from: {prefix}variability.groups.ConditionalMembers}}
node_types:
  N: {{}}
service_template:
  node_templates:
    a: {{type: N}}
    b: {{type: N}}
  groups:
    g: {{type: my.cm, members: [a], conditions: false}}
"
            );
            let out = resolve_validated(&template).expect("resolves to valid TOSCA");
            assert!(group_type_names(&out).is_empty(), "{template}");
        }
    }

    /// A TOSCA 2.0 relationship template several requirements name is
    /// written as it is: a property map kept as written when resolving
    /// gives the map the list form gives (a null value included), and a
    /// conditional property in the list form is the error it was.
    #[test]
    fn shared_relationship_templates_keep_their_property_maps() {
        let template = |properties: &str| {
            format!(
                "tosca_definitions_version: tosca_2_0
node_types:
  N: {{requirements: [{{r: {{capability: tosca.capabilities.Node, relationship: R}}}}]}}
relationship_types:
  R: {{properties: {{p: {{type: integer}}, q: {{type: string, required: false}}}}}}
service_template:
  node_templates:
    a: {{type: N, requirements: [{{r: {{node: c, relationship: shared}}}}]}}
    b: {{type: N, requirements: [{{r: {{node: c, relationship: shared}}}}]}}
    c: {{type: N}}
  relationship_templates:
    shared: {{type: R, properties: {properties}}}
"
            )
        };
        let shared = |out: &Node| {
            to_json(
                out.get("service_template")
                    .and_then(|t| t.get("relationship_templates"))
                    .and_then(|r| r.get("shared"))
                    .expect("the shared template"),
            )
        };
        let as_map = resolve_text(&template("{p: 1, q: null}"), &[], None).expect("resolves");
        let as_list = resolve_text(&template("[{p: 1}, {q: null}]"), &[], None).expect("resolves");
        assert_eq!(
            shared(&as_map),
            r#"{"type":"R","properties":{"p":1,"q":null}}"#
        );
        assert_eq!(shared(&as_map), shared(&as_list));
        let conditional = template("[{p: {value: 1, conditions: false}}, {p: 2}]");
        let error = resolve_text(&conditional, &[], None).expect_err("conditional");
        assert!(
            error
                .to_string()
                .contains("has conditional types or properties"),
            "{error}"
        );
    }

    /// Substitution mappings pass through with their complex keys
    /// (`[ <requirement>, <count> ]`, TOSCA 2.0 §15.5), written back as the
    /// flow sequences they were.
    #[test]
    fn complex_keys_of_substitution_mappings_pass_through() {
        let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  substitution_mappings:
    node_type: Client
    requirements:
      - service: [ software, service ]
      - [ service, UNBOUNDED ]: [ software, service ]
  node_templates:
    software:
      type: tosca.nodes.Root
";
        let out = resolve_text(template, &[], None).expect("resolves");
        let text = v4t_yaml::emit(&out);
        assert!(
            text.contains("\n      - [service, UNBOUNDED]:\n          - software\n"),
            "{text}"
        );
        let again = v4t_yaml::parse(&text, v4t_yaml::SourceId(1)).expect("parses");
        assert!(v4t_yaml::deep_equal(&again.value, &out.value));
    }

    /// `get_input` and `get_attribute` inside a value consume the input and
    /// produce the output like a whole-value reference: the pruned template
    /// never refers to a removed input (issue 12).
    #[test]
    fn references_inside_values_consume_and_produce() {
        let out = resolve_text(&NESTED.replace("WEB", "true"), &[], None).expect("resolves");
        let tt = out.get("topology_template").expect("topology");
        assert_eq!(
            tt.get("inputs")
                .map(|i| i.as_map().unwrap().keys().collect::<Vec<_>>()),
            Some(vec!["nested", "plain"])
        );
        let web = tt.get("node_templates").and_then(|n| n.get("web")).unwrap();
        assert_eq!(
            to_json(web.get("properties").unwrap()),
            r#"{"q":{"concat":["http://",{"get_input":"nested"}]},"r":[{"get_input":"plain"}]}"#
        );
        assert!(tt.get("outputs").is_some_and(|o| o.get("url").is_some()));

        let out = resolve_text(&NESTED.replace("WEB", "false"), &[], None).expect("resolves");
        assert_eq!(
            to_json(&out),
            r#"{"tosca_definitions_version":"tosca_simple_yaml_1_3"}"#
        );
    }

    /// Solves the prepared `template` with `inputs` (a YAML map) and
    /// transforms it both ways: moved from the tree, and copied from a
    /// `Doc` of it. Both must write the same or fail alike; gives what
    /// they write (`None` if preparing or solving fails).
    fn transformed_both_ways(template: &str, inputs: &str) -> Option<Result<String, String>> {
        let mut sources = crate::Sources::new();
        let prepared = crate::testing::prepare(&mut sources, template).ok()?;
        let crate::Prepared {
            mut doc,
            graph,
            loaded,
            files,
        } = prepared;
        let types = files.system();
        let inputs = crate::testing::doc(inputs)
            .as_map()
            .cloned()
            .unwrap_or_default();
        let solution = crate::solve::solve(&doc, &graph, &types, inputs, 0.0).ok()?;
        let written =
            |r: crate::Result<Node>| r.map(|n| crate::to_yaml(&n)).map_err(|e| format!("{e:?}"));
        let arena = v4t_yaml::Doc::from_node(&doc, doc.span.source);
        let copied = super::transform(
            super::Source::Copied(arena.root()),
            &graph,
            &solution,
            &loaded,
            &types,
        );
        let moved = super::transform(
            super::Source::Moved(&mut doc),
            &graph,
            &solution,
            &loaded,
            &types,
        );
        let (copied, moved) = (written(copied), written(moved));
        assert_eq!(copied, moved, "{template}");
        Some(moved)
    }

    /// TOSCA 1.3: relationship templates by position and by name, a
    /// conditional one, group members and policy targets pruned.
    const RELATIONS_13: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      on: {type: boolean}
  inputs:
    port: {type: integer, default: 80}
  node_templates:
    a:
      type: tosca.nodes.Root
      properties: [{p: {get_input: port}}, {q: {value: 1, conditions: {variability_input: on}}}, {q: 2}]
      requirements:
        - r: {node: b, relationship: one}
        - s: {node: b, relationship: two, conditions: {variability_input: on}}
        - t: b
      artifacts:
        - x: {type: tosca.artifacts.File, file: x.sh, conditions: {variability_input: on}}
        - y: {type: tosca.artifacts.File, file: y.sh}
    b: {type: tosca.nodes.Root, conditions: {variability_input: on}}
  relationship_templates:
    one: {type: tosca.relationships.DependsOn, properties: {w: 1}}
    two: {type: tosca.relationships.ConnectsTo}
  groups:
    g: {type: tosca.groups.Root, members: [a, b]}
  policies:
    - p: {type: tosca.policies.Root, targets: [a, b]}
  outputs:
    o: {value: {get_property: [a, q]}, conditions: {variability_input: on}}
imports:
  - types.yaml
";

    /// TOSCA 2.0: a relationship template one requirement names (typed
    /// and given properties with it), one several name, one none names.
    const RELATIONS_20: &str = "tosca_definitions_version: tosca_2_0
node_types:
  N: {requirements: [{r: {capability: tosca.capabilities.Node, relationship: R}}]}
relationship_types:
  R: {properties: {p: {type: integer, required: false}}}
service_template:
  inputs:
    on: {type: boolean, default: true}
  variability:
    inputs:
      on: {type: boolean}
  node_templates:
    a:
      type: N
      requirements: [{r: {node: c, relationship: own}}, {r: {node: c, relationship: shared}}]
      artifacts: {z: z.sh}
    b:
      type: N
      conditions: {variability_input: on}
      requirements: [{r: {node: c, relationship: shared}}]
    c:
      type: N
      properties: []
      attributes: [{s: {value: 1, conditions: {variability_input: on}}}]
  relationship_templates:
    own: {type: R, properties: [{p: {value: 1, conditions: {variability_input: on}}}]}
    shared: {type: R, properties: {p: 2}}
    none: {type: R}
  outputs:
    o: {value: {$get_input: on}}
";

    /// Moving the definitions out of the resolver's tree and copying them
    /// from a read-only `Doc` of it write the same template.
    #[test]
    fn moving_and_copying_write_the_same() {
        let mut written = 0;
        let fixed = [
            RELATIONS_13,
            RELATIONS_20,
            NESTED,
            crate::testing::ALL_ELEMENTS,
        ];
        for template in fixed {
            for inputs in ["{on: true}", "{on: false}"] {
                written +=
                    usize::from(transformed_both_ways(template, inputs).is_some_and(|r| r.is_ok()));
            }
        }
        assert_eq!(written, 8, "fixed templates written");
        let mut rng = crate::testing::Rng::new(23);
        let mut random = 0;
        for round in 0..60 {
            let template = match round % 3 {
                0 => crate::testing::random_template(&mut rng, 3, &['b'], 6, true),
                1 => crate::testing::random_template(&mut rng, 3, &['b', 's'], 5, false),
                _ => crate::testing::random_tosca2_template(&mut rng, 3, 5),
            };
            let inputs = format!("{{b0: {}, b1: true, b2: false, s1: a}}", round % 2 == 0);
            random +=
                usize::from(transformed_both_ways(&template, &inputs).is_some_and(|r| r.is_ok()));
        }
        exercised!(random >= 35, "{random} of 60 random templates written");
    }
}
