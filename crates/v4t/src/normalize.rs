//! Normalisation: rewrites the accepted map and list forms of a variable
//! service template into one canonical shape, in place (part 1, section 3).
//!
//! Input: a loaded template. Output: the same template in which inputs,
//! outputs, node templates and groups are lists of single-entry maps (when
//! resolving, node templates written as a map stay one: [`TypeShape`]),
//! properties are lists of wrapped `{value|expression, ...}` entries, types
//! are lists of type assignments, requirements are `{node: ...}` maps,
//! artifacts have a type, technologies are lower-cased lists with `assign`,
//! imports are maps and every entity type has `derived_from`.
//!
//! **Invariant:** normalisation is idempotent. The reference normalises the
//! same document three times; v4t normalises it once and afterwards only
//! what the enricher rewrites (technology lists, [`node_technologies`]).

use crate::document;
use crate::error::{Error, Result};
use crate::version::Grammar;
use v4t_yaml::json::to_json;
use v4t_yaml::{Key, Map, Node, NodeRef, Span, Value};

/// How normalisation leaves a single type, `type: T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypeShape {
    /// The canonical list `[{T: {}}]`: what `v4t enrich` prints, and what
    /// the enricher writes conditions into for a graph built afresh.
    List,
    /// `T` as written, which the graph reads as that list: when resolving,
    /// where only the graph and the transform read the document, it saves a
    /// list and a map per typed element (family 1 seed 100,000: 64 MB). A
    /// node without a technology list keeps none either; node templates,
    /// inputs, outputs, groups and artifacts written as a map stay one (the
    /// graph reads its entries as list items, [`document::indexed_entries`]);
    /// a requirement assignment written as a node name stays one (the graph
    /// reads it as its `node`), and so does an import written as a string
    /// (it has no conditions; the transform writes it as it is); the value
    /// entries of TOSCA 2.0 property lists stay values
    /// ([`document::is_definition`]).
    Written,
}

/// Normalises `doc` in place; `automatic` is the option
/// `automatic_default_alternatives` (the first normalisation deletes it),
/// `types` how a single type is left.
///
/// On a TOSCA 2.0 base grammar, types keep their definitions as written
/// (TOSCA 2.0 has no category roots to derive from), an artifact without
/// `type` keeps none (the type is mandatory in TOSCA 2.0: the validator
/// reports it, the resolver does not invent a TOSCA 1.3 type) and a string
/// import is a `url`.
pub(crate) fn normalize(doc: &mut Node, automatic: bool, types: TypeShape) -> Result<()> {
    let grammar = crate::version::grammar_of(&*doc);
    if types == TypeShape::List {
        normalize_imports(doc, grammar);
    }
    if let Some(tt) = document::topology_mut(doc) {
        if tt.as_map().is_some() {
            let how = How {
                automatic,
                grammar,
                types,
            };
            normalize_topology(tt, how)?;
        }
    }
    if grammar == Grammar::Tosca13 {
        crate::types::add_category_roots(doc);
    }
    cleanup_variability(doc);
    Ok(())
}

pub(crate) fn not_a_boolean<'a>(n: impl Into<NodeRef<'a>>) -> Error {
    let n = n.into();
    Error::at(
        format!("Element \"{}\" is not a boolean", to_json(n)),
        n.span(),
    )
}

/// What one normalisation does: [`normalize`]'s parameters and the base
/// grammar.
#[derive(Clone, Copy)]
struct How {
    automatic: bool,
    grammar: Grammar,
    types: TypeShape,
}

/// The topology's collections that may be written as a map and are
/// canonical as a list of single-entry maps (map order).
const LISTED: [&str; 4] = ["inputs", "outputs", "node_templates", "groups"];

/// A document normalised with [`TypeShape::Written`] in the canonical shape
/// ([`TypeShape::List`]): [`LISTED`] collections and artifacts as lists,
/// every single type as its list, every property map (and TOSCA 2.0
/// property list) its list of wrapped values, every import and requirement
/// assignment a map and an empty technology list on every node without one;
/// the other forms are canonical already.
pub(crate) fn canonical_shape(doc: &mut Node) {
    let grammar = crate::version::grammar_of(&*doc);
    normalize_imports(doc, grammar);
    let Some(tt) = document::topology_map_mut(doc) else {
        return;
    };
    for key in LISTED {
        if let Some(c) = tt.get_mut(key) {
            map_to_list(c);
        }
    }
    let mut containers: Vec<&mut Node> = Vec::new();
    for (k, v) in tt.iter_mut() {
        match k.name.as_str() {
            "node_templates" | "groups" | "policies" => {
                let nodes = k.name == "node_templates";
                for item in v.as_seq_mut().into_iter().flatten() {
                    if let Some((_, def)) = item.as_map_mut().and_then(|m| m.first_mut()) {
                        if let Some(m) = def
                            .as_map_mut()
                            .filter(|m| nodes && !m.contains_key("technology"))
                        {
                            m.push(Key::new("technology", Span::NONE), Node::seq(Vec::new()));
                        }
                        containers.push(def);
                    }
                }
            }
            "relationship_templates" => {
                if let Some(m) = v.as_map_mut() {
                    containers.extend(m.iter_mut().map(|(_, rt)| rt));
                }
            }
            _ => {}
        }
    }
    for c in containers {
        property_maps_to_lists(c, grammar);
        let Some(m) = c.as_map_mut() else { continue };
        for (k, v) in m.iter_mut() {
            match k.name.as_str() {
                "type" => type_list(v),
                "requirements" => requirement_maps(v),
                "artifacts" => {
                    map_to_list(v);
                    for item in v.as_seq_mut().into_iter().flatten() {
                        let Some((_, a)) = item.as_map_mut().and_then(|m| m.first_mut()) else {
                            continue;
                        };
                        property_maps_to_lists(a, grammar);
                        if let Some(t) = a.get_mut("type") {
                            type_list(t);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// `T` becomes `[{T: {}}]`.
fn type_list(t: &mut Node) {
    if let Value::String(s) = &mut t.value {
        let name = Key::new(std::mem::take(s), t.span);
        let mut single = Map::with_capacity(1);
        single.push(name, Node::new(Value::Map(Map::new()), t.span));
        t.value = Value::Seq(vec![Node::new(Value::Map(single), t.span)]);
    }
}

fn normalize_topology(tt: &mut Node, how: How) -> Result<()> {
    let How {
        automatic, grammar, ..
    } = how;
    let Some(tt) = tt.as_map_mut() else {
        return Ok(());
    };
    // imports live at the document root; handled by the caller order below.
    // Collections written as a map stay one when resolving: the graph
    // reads map entries as it reads list items (family 1 seed 100,000 saves
    // a list item and a single-entry map per node template).
    if how.types == TypeShape::List {
        for key in LISTED {
            if let Some(c) = tt.get_mut(key) {
                map_to_list(c);
            }
        }
    }
    if let Some(nodes) = tt.get_mut("node_templates") {
        for_each_entry(nodes, |_, node| normalize_node(node, how))?;
    }
    if let Some(outputs) = tt.get_mut("outputs") {
        if automatic {
            if let Some(list) = outputs.as_seq_mut() {
                automatic_default(list);
            }
        }
    }
    if let Some(policies) = tt.get_mut("policies") {
        if policies.is_defined() {
            if policies.as_seq().is_none() {
                return Err(Error::at("Policies must be an array", policies.span));
            }
            for_each_entry(policies, |_, p| {
                normalize_types(p, how.types)?;
                normalize_properties(p, how);
                Ok(())
            })?;
        }
    }
    if let Some(groups) = tt.get_mut("groups") {
        for_each_entry(groups, |_, g| {
            normalize_types(g, how.types)?;
            normalize_properties(g, how);
            Ok(())
        })?;
    }
    if let Some(rts) = tt.get_mut("relationship_templates") {
        if let Some(map) = rts.as_map_mut() {
            for (_, rt) in map.iter_mut() {
                // TOSCA 2.0: a template may take its type from `copy`.
                let typed = rt.get("type").is_some_and(Node::is_defined);
                if typed || grammar == Grammar::Tosca13 {
                    normalize_types(rt, how.types)?;
                }
                normalize_properties(rt, how);
            }
        }
    }
    if let Some(variability) = tt.get_mut("variability") {
        if let Some(q) = variability.get_mut("qualities") {
            normalize_rules(q)?;
        }
    }
    Ok(())
}

/// Normalises the document-level `imports` (strings become `{file: ..}`,
/// in TOSCA 2.0 `{url: ..}`).
fn normalize_imports(doc: &mut Node, grammar: Grammar) {
    let key = import_url_key(grammar);
    if let Some(imports) = doc.get_mut("imports").and_then(Node::as_seq_mut) {
        for import in imports.iter_mut() {
            if let Value::String(s) = &mut import.value {
                let file = Node::new(Value::String(std::mem::take(s)), import.span);
                import.value = Value::Map(single_entry(key, file));
            }
        }
    }
}

/// The key of an import's file: `file` in TOSCA 1.3, `url` in TOSCA 2.0.
pub(crate) fn import_url_key(grammar: Grammar) -> &'static str {
    match grammar {
        Grammar::Tosca13 => "file",
        Grammar::Tosca2 => "url",
    }
}

/// `{key: value}` with room for that entry only (`Map::new` and `insert`
/// would reserve four).
fn single_entry(key: &str, value: Node) -> Map {
    single_entry_at(key, Span::NONE, value)
}

/// [`single_entry`] with the key written at `span`.
fn single_entry_at(key: &str, span: Span, value: Node) -> Map {
    let mut m = Map::with_capacity(1);
    m.push(Key::new(key, span), value);
    m
}

/// Turns a map collection into a list of single-entry maps (map order).
fn map_to_list(c: &mut Node) {
    if let Value::Map(m) = &mut c.value {
        let entries = std::mem::take(m).into_entries();
        let list = entries
            .into_iter()
            .map(|(k, v)| {
                let span = k.span;
                let mut single = Map::with_capacity(1);
                single.push(k, v);
                Node::new(Value::Map(single), span)
            })
            .collect();
        c.value = Value::Seq(list);
    }
}

/// Calls `f(name, value)` for every single-entry map of a list collection
/// (or every entry of one kept as a map).
fn for_each_entry(list: &mut Node, mut f: impl FnMut(&Key, &mut Node) -> Result<()>) -> Result<()> {
    document::entries_mut(list).try_for_each(|(k, v)| f(k, v))
}

fn normalize_node(node: &mut Node, how: How) -> Result<()> {
    let automatic = how.automatic;
    normalize_types(node, how.types)?;
    normalize_properties(node, how);
    // requirements
    if let Some(reqs) = node.get_mut("requirements") {
        // Automatic default alternatives write into the maps.
        if how.types == TypeShape::List || automatic {
            requirement_maps(reqs);
        }
        if let Some(list) = reqs.as_seq_mut().filter(|_| automatic) {
            automatic_default(list);
        }
    }
    // artifacts (a map stays one when resolving: the graph reads its
    // entries as list items)
    if let Some(artifacts) = node.get_mut("artifacts") {
        if how.types == TypeShape::List {
            map_to_list(artifacts);
        }
        for_each_entry(artifacts, |_, a| normalize_artifact(a, how))?;
        if let Some(list) = artifacts.as_seq_mut().filter(|_| automatic) {
            automatic_default(list);
        }
    }
    // An absent list stays absent when resolving: every reader takes it
    // as empty, and pushing `technology: []` would reallocate every node's
    // map (a flat 50 MB template: 53 MB).
    if how.types == TypeShape::List || node.get("technology").is_some() {
        normalize_technologies(node, automatic)?;
    }
    Ok(())
}

/// A requirement assignment written as a node name, `r: x`, becomes
/// `r: {node: x}` (the map written where the name is, with its form: the
/// transform collapses it again where it was a string).
fn requirement_maps(reqs: &mut Node) {
    for req in reqs.as_seq_mut().into_iter().flatten() {
        if let Some((_, a)) = req.as_map_mut().and_then(|m| m.first_mut()) {
            if let Value::String(s) = &mut a.value {
                let target = Node::new(Value::String(std::mem::take(s)), a.span);
                a.value = Value::Map(single_entry("node", target));
            }
        }
    }
}

fn normalize_artifact(a: &mut Node, how: How) -> Result<()> {
    let grammar = how.grammar;
    if grammar == Grammar::Tosca2 {
        if let Value::String(s) = &mut a.value {
            // The short form (`zip: file.zip`, used in §10.2.1.4): a file
            // without type.
            let file = Node::new(Value::String(std::mem::take(s)), a.span);
            a.value = Value::Map(single_entry("file", file));
        }
        normalize_properties(a, how);
        if a.get("type").is_some_and(Node::is_defined) {
            normalize_types(a, how.types)?;
        }
        return Ok(());
    }
    match &mut a.value {
        Value::String(s) => {
            let file = Node::new(Value::String(std::mem::take(s)), a.span);
            let mut m = Map::with_capacity(2);
            m.push(Key::new("file", Span::NONE), file);
            m.push(
                Key::new("type", Span::NONE),
                Node::string("tosca.artifacts.File"),
            );
            a.value = Value::Map(m);
        }
        Value::Map(m) if !m.get("type").is_some_and(Node::is_defined) => {
            m.insert("type", Node::string("tosca.artifacts.File"));
        }
        _ => {}
    }
    normalize_properties(a, how);
    normalize_types(a, how.types)?;
    Ok(())
}

/// `type: T` becomes `[{T: {}}]` (with [`TypeShape::List`]); a list is kept
/// (part 1, 3.3).
fn normalize_types(container: &mut Node, shape: TypeShape) -> Result<()> {
    let span = container.span;
    let Some(m) = container.as_map_mut() else {
        return Err(Error::at("Unexpected error", span));
    };
    let Some(t) = m.get_mut("type").filter(|t| t.is_defined()) else {
        return Err(Error::at("Unexpected error", span));
    };
    if shape == TypeShape::List {
        type_list(t);
    }
    Ok(())
}

/// Properties become a list of single-entry maps with wrapped values (3.2).
/// In TOSCA 2.0, `null` is a value (of type `nil`, §9.1.1.6): an entry with
/// a `value` key is wrapped whatever the value.
fn normalize_properties(container: &mut Node, how: How) {
    normalize_property_list(container, "properties", how);
    if how.grammar == Grammar::Tosca2 {
        // TOSCA 2.0: attributes are conditional like properties.
        normalize_property_list(container, "attributes", how);
    }
}

/// [`normalize_properties`] of the list `key`. With [`TypeShape::Written`]
/// a property map stays as written: its entries are properties without
/// conditions, which the graph reads as their values (a map has no two
/// entries of a name, so no automatic default alternative either). Not on
/// TOSCA 1.3 if a value is null: wrapped, `{value: null}` counts as no
/// value and is wrapped again, so the value is `{value: null}`.
fn normalize_property_list(container: &mut Node, key: &str, how: How) {
    let How {
        automatic, grammar, ..
    } = how;
    let Some(props) = container.get_mut(key) else {
        return;
    };
    // TOSCA 2.0: a list entry that is no definition is the value the graph
    // reads (`document::is_definition`), unless automatic default
    // alternatives write `default_alternative` into one.
    let as_written = match &props.value {
        Value::Map(m) => grammar == Grammar::Tosca2 || m.iter().all(|(_, v)| v.is_defined()),
        Value::Seq(_) => grammar == Grammar::Tosca2 && !automatic,
        _ => false,
    };
    if how.types == TypeShape::Written && as_written {
        return;
    }
    property_map_to_list(props);
    wrap_entries(props, grammar);
    if let Some(list) = props.as_seq_mut().filter(|_| automatic) {
        automatic_default(list);
    }
}

/// Wraps every entry of the property list `props` that is no definition
/// as `{value: ..}`. On TOSCA 1.3 an entry with a null `value` is wrapped
/// again (its value is the map `{value: null}`).
fn wrap_entries(props: &mut Node, grammar: Grammar) {
    for item in props.as_seq_mut().into_iter().flatten() {
        if let Some((_, a)) = item.as_map_mut().and_then(|m| m.first_mut()) {
            let wrapped = match grammar {
                Grammar::Tosca13 => a.as_map().is_some_and(|m| {
                    m.get_defined("value").is_some() || m.get_defined("expression").is_some()
                }),
                Grammar::Tosca2 => crate::document::is_definition((&*a).into(), grammar),
            };
            if !wrapped {
                wrap_value(a);
            }
        }
    }
}

/// A property map becomes the list of its entries, each value wrapped as
/// `{value: ..}` (3.2).
fn property_map_to_list(props: &mut Node) {
    if let Some(m) = props.as_map_mut() {
        m.iter_mut().for_each(|(_, v)| wrap_value(v));
        map_to_list(props);
    }
}

/// A property's value `a` becomes its definition `{value: a}`, written
/// where `a` is.
fn wrap_value(a: &mut Node) {
    let span = a.span;
    let inner = std::mem::take(a);
    *a = Node::new(Value::Map(single_entry_at("value", span, inner)), span);
}

/// The property maps of a container kept as written, as lists
/// ([`canonical_shape`]); on TOSCA 2.0 also the attribute maps, and the value
/// entries of its lists kept as written, wrapped (every normalisation wraps
/// those of TOSCA 1.3).
fn property_maps_to_lists(container: &mut Node, grammar: Grammar) {
    if let Some(props) = container.get_mut("properties") {
        property_map_to_list(props);
        if grammar == Grammar::Tosca2 {
            wrap_entries(props, grammar);
        }
    }
    if grammar == Grammar::Tosca2 {
        if let Some(attributes) = container.get_mut("attributes") {
            property_map_to_list(attributes);
            wrap_entries(attributes, grammar);
        }
    }
}

trait MapExt {
    fn get_defined(&self, key: &str) -> Option<&Node>;
}

impl MapExt for Map {
    fn get_defined(&self, key: &str) -> Option<&Node> {
        self.get(key).filter(|n| n.is_defined())
    }
}

/// Normalises the `technology` list of one node definition: what the
/// technology enricher writes there (names lower-cased, `assign` filled in)
/// is the only part of the document it changes, so this replaces a second
/// normalisation of the whole document.
pub(crate) fn node_technologies(node: &mut Node) -> Result<()> {
    normalize_technologies(node, false)
}

fn normalize_technologies(node: &mut Node, automatic: bool) -> Result<()> {
    let Some(m) = node.as_map_mut() else {
        return Ok(());
    };
    // Both keys in one pass; the first type is read only with technologies.
    let (mut tech_at, mut type_at) = (None, None);
    for (i, k) in m.keys().enumerate() {
        match k {
            "technology" if tech_at.is_none() => tech_at = Some(i),
            "type" if type_at.is_none() => type_at = Some(i),
            _ => {}
        }
    }
    let Some(tech_at) = tech_at else {
        m.push(Key::new("technology", Span::NONE), Node::seq(Vec::new()));
        return Ok(());
    };
    let first_type = type_at
        .and_then(|i| m.get_index(i))
        .and_then(|(_, t)| match t.as_str() {
            Some(written) => Some(written),
            None => t
                .as_seq()?
                .first()?
                .as_map()?
                .first()
                .map(|(k, _)| k.name.as_str()),
        })
        .unwrap_or_default()
        .to_string();
    let Some(tech) = m.get_index_mut(tech_at) else {
        return Ok(());
    };
    match &tech.value {
        Value::Null => tech.value = Value::Seq(Vec::new()),
        Value::String(s) => {
            let key = Key::new(s.clone(), tech.span);
            let mut single = Map::with_capacity(1);
            single.push(key, Node::new(Value::Map(Map::new()), tech.span));
            tech.value = Value::Seq(vec![Node::new(Value::Map(single), tech.span)]);
        }
        Value::Seq(_) => {}
        _ => {
            return Err(Error::at(
                format!("Element \"{}\" is not an array", to_json(&*tech)),
                tech.span,
            ))
        }
    }
    if let Some(list) = tech.as_seq_mut() {
        for item in list.iter_mut() {
            // `technology: [ansible, terraform]`: plain names (the reference
            // ignores them).
            if let Value::String(name) = &item.value {
                let key = Key::new(name.clone(), item.span);
                let mut single = Map::with_capacity(1);
                single.push(key, Node::new(Value::Map(Map::new()), item.span));
                item.value = Value::Map(single);
            }
            let Some(m) = item.as_map_mut() else { continue };
            // In place: a list the enricher extended is normalised again
            // for every edit, and its candidates are lower case already.
            let mut entries = std::mem::take(m).into_entries();
            for (k, v) in &mut entries {
                if !k.name.is_ascii() || k.name.bytes().any(|b| b.is_ascii_uppercase()) {
                    k.name = k.name.to_lowercase().into();
                }
                if v.is_null() {
                    *v = Node::new(Value::Map(Map::new()), v.span);
                }
                if let Some(tm) = v.as_map_mut() {
                    if !tm.get("assign").is_some_and(Node::is_defined) {
                        tm.insert(
                            "assign",
                            Node::string(format!("{first_type}~{first_type}::{}", k.name)),
                        );
                    }
                }
            }
            *m = Map::from_entries(entries);
        }
        if automatic {
            automatic_default_all(list);
        }
    }
    Ok(())
}

/// Validates technology rules (3.7): weight defaults to 1, hosting to `[]`.
/// The spec's map form `{<technology>: [<rule>, ..]}` becomes the list form
/// with `technology` set in each rule, and a single hosting type a
/// one-element stack (the reference ignores the map form and rejects the
/// string).
fn normalize_rules(rules: &mut Node) -> Result<()> {
    let span = rules.span;
    if let Value::Map(m) = &mut rules.value {
        let mut list = Vec::new();
        for (technology, group) in std::mem::take(m).into_entries() {
            let items = match group.value {
                Value::Seq(items) => items,
                _ => vec![group],
            };
            for mut rule in items {
                if let Some(r) = rule.as_map_mut() {
                    if !r.get("technology").is_some_and(Node::is_defined) {
                        let name =
                            Node::new(Value::String(technology.name.to_string()), technology.span);
                        r.insert("technology", name);
                    }
                }
                list.push(rule);
            }
        }
        rules.value = Value::Seq(list);
    }
    let Some(list) = rules.as_seq_mut() else {
        if rules.is_null() {
            return Ok(());
        }
        return Err(Error::at("Rules not loaded", span));
    };
    for rule in list.iter_mut() {
        let rspan = rule.span;
        let Some(m) = rule.as_map_mut() else { continue };
        let component = m
            .get("component")
            .cloned()
            .unwrap_or_else(|| Node::new(Value::Null, rspan));
        if component.as_str().is_none() {
            return Err(Error::at(
                format!(
                    "Element \"{}\" is not a string",
                    json_or_undefined(&component)
                ),
                component.span.or(rspan),
            ));
        }
        match m.get("weight") {
            None => m.insert("weight", Node::number(1.0)),
            Some(w) if w.is_null() => m.insert("weight", Node::number(1.0)),
            Some(w) if w.as_f64().is_none() => {
                return Err(Error::at(
                    format!("Element \"{}\" is not a number", to_json(w)),
                    w.span,
                ))
            }
            _ => {}
        }
        match m.get("hosting") {
            None => m.insert("hosting", Node::seq(Vec::new())),
            Some(h) if h.is_null() => m.insert("hosting", Node::seq(Vec::new())),
            Some(h) if h.as_str().is_some() => {
                let h = h.clone();
                m.insert("hosting", Node::new(Value::Seq(vec![h.clone()]), h.span));
            }
            Some(h) => {
                let Some(items) = h.as_seq() else {
                    return Err(Error::at(
                        format!("Element \"{}\" is not an array", to_json(h)),
                        h.span,
                    ));
                };
                for item in items {
                    if item.as_str().is_none() {
                        return Err(Error::at(
                            format!("Element \"{}\" is not a string", to_json(item)),
                            item.span,
                        ));
                    }
                }
            }
        }
        if let Some(c) = m.get("conditions").filter(|c| c.is_defined()) {
            if c.as_map().is_none() && c.as_seq().is_none() {
                return Err(Error::at(
                    format!("Element \"{}\" is not an object", to_json(c)),
                    c.span,
                ));
            }
        }
        if let Some(a) = m.get("assign").filter(|a| a.is_defined()) {
            if a.as_str().is_none() {
                return Err(Error::at(
                    format!("Element \"{}\" is not a string", to_json(a)),
                    a.span,
                ));
            }
        }
    }
    Ok(())
}

/// JSON of a node, or `undefined` for a missing (null) one, as JS renders it.
pub(crate) fn json_or_undefined<'a>(n: impl Into<NodeRef<'a>>) -> String {
    let n = n.into();
    if n.is_null() && !n.span().is_known() {
        "undefined".to_string()
    } else {
        to_json(n)
    }
}

/// The automatic default-alternative rule per group of equally named entries (3.9).
fn automatic_default(list: &mut [Node]) {
    let mut names: Vec<String> = Vec::new();
    for item in list.iter() {
        if let Some((k, _)) = item.as_map().and_then(Map::first) {
            if !names.iter().any(|n| *n == k.name) {
                names.push(k.name.to_string());
            }
        }
    }
    for name in names {
        let members: Vec<usize> = list
            .iter()
            .enumerate()
            .filter(|(_, item)| {
                item.as_map()
                    .and_then(Map::first)
                    .is_some_and(|(k, _)| k.name == name)
            })
            .map(|(i, _)| i)
            .collect();
        apply_automatic_default(list, &members);
    }
}

fn automatic_default_all(list: &mut [Node]) {
    let members: Vec<usize> = (0..list.len()).collect();
    apply_automatic_default(list, &members);
}

fn apply_automatic_default(list: &mut [Node], members: &[usize]) {
    if members.len() <= 1 {
        return;
    }
    let value_of = |item: &Node| item.as_map().and_then(Map::first).map(|(_, v)| v.clone());
    if members.iter().any(|&i| {
        value_of(&list[i])
            .is_some_and(|v| v.get("default_alternative").and_then(Node::as_bool) == Some(true))
    }) {
        return;
    }
    let candidates: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&i| {
            value_of(&list[i]).is_some_and(|v| match v.as_map() {
                Some(m) => !m.contains_key("conditions") && !m.contains_key("default_alternative"),
                None => true,
            })
        })
        .collect();
    if let [only] = candidates[..] {
        if let Some((_, v)) = list[only].as_map_mut().and_then(|m| m.first_mut()) {
            if let Some(m) = v.as_map_mut() {
                m.insert("default_alternative", Node::bool(true));
            } else {
                let span = v.span;
                let inner = std::mem::take(v);
                let mut m = Map::new();
                m.push(Key::new("node", span), inner);
                m.insert("default_alternative", Node::bool(true));
                *v = Node::new(Value::Map(m), span);
            }
        }
    }
}

/// Deletes `automatic_default_alternatives` after the first normalisation (3.10).
fn cleanup_variability(doc: &mut Node) {
    let Some(tt) = document::topology_map_mut(doc) else {
        return;
    };
    let Some(variability) = tt.get_mut("variability") else {
        return;
    };
    if let Some(options) = variability.get_mut("options").and_then(Node::as_map_mut) {
        options.remove("automatic_default_alternatives");
        if options.is_empty() {
            if let Some(v) = variability.as_map_mut() {
                v.remove("options");
            }
        }
    }
    if variability.as_map().is_some_and(Map::is_empty) {
        tt.remove("variability");
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{doc, normalize};
    use v4t_yaml::json::to_json;
    use v4t_yaml::Node;

    fn norm(yaml: &str) -> Node {
        let mut d = doc(yaml);
        normalize(&mut d).expect("normalizes");
        d
    }

    /// `text` resolved with the variability inputs `inputs` (a YAML map), as
    /// written out, or the error.
    fn resolved(text: &str, inputs: Option<&str>) -> Result<String, String> {
        crate::testing::resolve_text(text, &[], inputs).map(|out| crate::to_yaml(&out))
    }

    fn at<'a>(d: &'a Node, path: &[&str]) -> &'a Node {
        path.iter().fold(d, |n, k| n.get(k).expect(k))
    }

    /// The definition of node template `name`, entry `index` of the
    /// normalised `node_templates` list of `d`.
    fn node_template<'a>(d: &'a Node, index: usize, name: &str) -> &'a Node {
        let list = at(d, &["topology_template", "node_templates"]);
        list.as_seq().expect("a list")[index].get(name).expect(name)
    }

    #[test]
    fn map_collections_become_lists_of_single_entry_maps() {
        let d = norm("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a: {type: t}\n    b: {type: u}\n");
        let nodes = at(&d, &["topology_template", "node_templates"]);
        assert_eq!(
            to_json(nodes),
            r#"[{"a":{"type":[{"t":{}}],"technology":[]}},{"b":{"type":[{"u":{}}],"technology":[]}}]"#
        );
    }

    #[test]
    fn properties_are_wrapped_and_map_values_are_literal() {
        let d = norm("topology_template:\n  node_templates:\n    a:\n      type: t\n      properties: {p: {value: 1, conditions: false}, q: 2}\n    b:\n      type: t\n      properties:\n        - p: {value: 1, conditions: false}\n        - q: {conditions: false}\n");
        let a = node_template(&d, 0, "a");
        assert_eq!(
            to_json(a.get("properties").unwrap()),
            r#"[{"p":{"value":{"value":1,"conditions":false}}},{"q":{"value":2}}]"#
        );
        let b = node_template(&d, 1, "b");
        assert_eq!(
            to_json(b.get("properties").unwrap()),
            r#"[{"p":{"value":1,"conditions":false}},{"q":{"value":{"conditions":false}}}]"#
        );
    }

    #[test]
    fn requirements_artifacts_technologies_and_imports() {
        let d = norm("imports: [x.yaml]\ntopology_template:\n  node_templates:\n    a:\n      type: t\n      requirements: [{host: b}]\n      artifacts: {img: file.tar}\n      technology: Ansible\n");
        let a = node_template(&d, 0, "a");
        assert_eq!(
            to_json(a.get("requirements").unwrap()),
            r#"[{"host":{"node":"b"}}]"#
        );
        assert_eq!(
            to_json(a.get("artifacts").unwrap()),
            r#"[{"img":{"file":"file.tar","type":[{"tosca.artifacts.File":{}}]}}]"#
        );
        assert_eq!(
            to_json(a.get("technology").unwrap()),
            r#"[{"ansible":{"assign":"t~t::ansible"}}]"#
        );
        assert_eq!(to_json(d.get("imports").unwrap()), r#"[{"file":"x.yaml"}]"#);
        let d = norm("topology_template:\n  node_templates:\n    b: {type: t}\n");
        let b = node_template(&d, 0, "b");
        assert_eq!(to_json(b), r#"{"type":[{"t":{}}],"technology":[]}"#);
    }

    #[test]
    fn normalisation_is_idempotent() {
        let mut d = doc("topology_template:\n  inputs: {i: {type: string}}\n  node_templates:\n    a: {type: t, properties: {p: 1}}\nnode_types:\n  t: {}\n");
        normalize(&mut d).unwrap();
        let once = to_json(&d);
        normalize(&mut d).unwrap();
        assert_eq!(once, to_json(&d));
        assert_eq!(
            to_json(d.get("node_types").unwrap()),
            r#"{"t":{"derived_from":"tosca.nodes.Root"}}"#
        );
    }

    #[test]
    fn policies_must_be_a_list() {
        let text = "topology_template:\n  policies: {p: {type: x}}\n";
        let mut d = doc(text);
        let e = normalize(&mut d).unwrap_err();
        assert_eq!(e.message, "Policies must be an array");
        assert_eq!(e.span.locate(text).start(), (2, 13));
    }

    #[test]
    fn automatic_default_alternatives_pick_the_only_unconditional_entry() {
        let d = norm("topology_template:\n  variability: {options: {automatic_default_alternatives: true}}\n  node_templates:\n    a:\n      type: t\n      properties:\n        - p: {value: 1, conditions: false}\n        - p: 2\n");
        let a = node_template(&d, 0, "a");
        assert_eq!(
            to_json(a.get("properties").unwrap()),
            r#"[{"p":{"value":1,"conditions":false}},{"p":{"value":2,"default_alternative":true}}]"#
        );
        assert!(
            d.get("topology_template")
                .unwrap()
                .get("variability")
                .is_none(),
            "option removed"
        );
    }

    /// Artifact properties get automatic default alternatives like the
    /// properties of every other container (issue 17, item 2).
    #[test]
    fn automatic_default_alternatives_reach_artifact_properties() {
        let out = crate::testing::resolve_text(
            "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability: {options: {automatic_default_alternatives: true}}
  node_templates:
    a:
      type: t
      artifacts:
        - image:
            file: a.tar
            properties:
              - flag: {value: a, conditions: true}
              - flag: b
",
            &[],
            None,
        )
        .expect("resolves");
        let flag = at(
            &out,
            &[
                "topology_template",
                "node_templates",
                "a",
                "artifacts",
                "image",
                "properties",
                "flag",
            ],
        );
        assert_eq!(flag.as_str(), Some("a"));
    }

    /// Types without `derived_from` derive from their category's root; for
    /// relationship types the TOSCA 1.3 `tosca.relationships.Root` (issue 12).
    #[test]
    fn entity_types_derive_from_the_tosca_roots() {
        let d = norm("relationship_types:\n  my.Rel: {}\nnode_types:\n  my.Node: {}\n");
        assert_eq!(
            at(&d, &["relationship_types", "my.Rel", "derived_from"]).as_str(),
            Some("tosca.relationships.Root")
        );
        assert_eq!(
            at(&d, &["node_types", "my.Node", "derived_from"]).as_str(),
            Some("tosca.nodes.Root")
        );
    }

    /// When resolving, a requirement assignment written as a node name
    /// stays one and the graph reads it as `{node: name}`: random templates
    /// (hosting, alternatives, technologies, pruning) resolve to the same
    /// template or the same error with every assignment written either way,
    /// with and without automatic default alternatives.
    #[test]
    fn requirements_written_as_names_resolve_as_their_maps() {
        use crate::testing::{random_template, Rng};
        let mut rng = Rng::new(0x5eed_4e9a_0000_0023);
        let (mut short, mut compared, mut failed) = (0, 0, 0);
        for round in 0..120 {
            let inputs = 1 + rng.below(3) as usize;
            let nodes = 2 + rng.below(5) as usize;
            let mut text = random_template(&mut rng, inputs, &['b', 'b'], nodes, true);
            if round % 3 == 0 {
                text = text.replace(
                    "    options: {",
                    "    options: {automatic_default_alternatives: true, ",
                );
            }
            // Every `{node: nX}` without conditions becomes `nX`, every
            // `uses: nX` becomes `uses: {node: nX}`.
            let mut swapped = String::new();
            for line in text.lines() {
                let line = match line.split_once(": {node: ") {
                    Some((req, rest)) if !rest.contains(',') => {
                        short += 1;
                        format!("{req}: {}", rest.trim_end_matches('}'))
                    }
                    _ => match line.split_once("- uses: ") {
                        Some((indent, n)) => format!("{indent}- uses: {{node: {n}}}"),
                        None => line.to_string(),
                    },
                };
                swapped.push_str(&line);
                swapped.push('\n');
            }
            if swapped == text {
                continue;
            }
            let inputs = crate::testing::random_assignment(&mut rng, inputs);
            let (want, got) = (
                resolved(&text, Some(&inputs)),
                resolved(&swapped, Some(&inputs)),
            );
            failed += usize::from(want.is_err());
            compared += 1;
            assert_eq!(want, got, "round {round}\n{text}\n{swapped}");
        }
        assert!(
            short > 40 && compared > 60 && failed > 3,
            "{short} {compared} {failed}"
        );
    }

    /// When resolving, an import written as a string stays one: templates
    /// with imports written as strings resolve as with `{file: ..}` maps,
    /// with and without a variability group (whose removal makes the
    /// resolver build its graph afresh from the canonical shapes).
    #[test]
    fn imports_written_as_strings_resolve_as_their_maps() {
        let template = |imports: &str, group: bool| {
            let group = if group {
                "  groups:\n    g: {type: variability.groups.ConditionalMembers, members: [b], conditions: {variability_input: on}}\n"
            } else {
                ""
            };
            format!(
                "tosca_definitions_version: tosca_variability_1_0
imports:
{imports}
topology_template:
  variability:
    inputs:
      on: {{type: boolean}}
{group}  node_templates:
    a: {{type: tosca.nodes.Root}}
    b: {{type: tosca.nodes.Root}}
"
            )
        };
        let written = "  - first.yaml\n  - {file: second.yaml, conditions: {variability_input: on}}\n  - third.yaml\n";
        let maps = "  - {file: first.yaml}\n  - {file: second.yaml, conditions: {variability_input: on}}\n  - {file: third.yaml}\n";
        for group in [false, true] {
            for on in ["true", "false"] {
                let inputs = format!("{{on: {on}}}");
                let resolve =
                    |imports| resolved(&template(imports, group), Some(&inputs)).expect("resolves");
                let (want, got) = (resolve(maps), resolve(written));
                assert_eq!(want, got, "group {group}, on {on}");
                let second = on == "true";
                assert_eq!(got.contains("second.yaml"), second, "{got}");
                assert!(
                    got.contains("- first.yaml\n") && got.contains("- third.yaml\n"),
                    "{got}"
                );
            }
        }
    }

    /// When resolving, topology inputs, outputs and groups written as a map
    /// stay one: templates resolve alike with these sections written as
    /// maps and as lists of single-entry maps, with conditional entries,
    /// pruning, a variability group (a fresh build from the canonical
    /// shapes) and on TOSCA 2.0.
    #[test]
    fn sections_written_as_maps_resolve_as_their_lists() {
        // (section, entries) of a template; `{v}` is the version line,
        // `{topology}` the topology key.
        let sections: [(&str, &[&str]); 3] = [
            (
                "inputs",
                &[
                    "port: {type: integer, default: 80, conditions: {variability_input: on}}",
                    "name: {type: string, default: shop}",
                ],
            ),
            (
                "outputs",
                &[
                    "address: {value: {get_attribute: [b, tosca_id]}, conditions: {variability_input: on}}",
                    "kind: {value: plain}",
                ],
            ),
            (
                "groups",
                &[
                    "all: {type: tosca.groups.Root, members: [a, b]}",
                    "some: {type: tosca.groups.Root, members: [b], conditions: {variability_input: on}}",
                    "mine: {type: variability.groups.ConditionalMembers, members: [c], conditions: {variability_input: on}}",
                ],
            ),
        ];
        let template = |listed: bool, group: bool, tosca2: bool| {
            let mut t = String::from(if tosca2 {
                "tosca_definitions_version: tosca_2_0\nservice_template:\n"
            } else {
                "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n"
            });
            t.push_str("  variability:\n    inputs:\n      on: {type: boolean}\n    options: {pruning: true}\n");
            for (section, entries) in sections {
                let entries = entries.iter().filter(|e| group || !e.starts_with("mine"));
                let entries: Vec<&&str> = match (section, tosca2) {
                    ("groups", true) => continue,
                    _ => entries.collect(),
                };
                t.push_str(&format!("  {section}:\n"));
                for e in entries {
                    let e = if tosca2 {
                        e.replace("tosca_id", "address")
                    } else {
                        e.to_string()
                    };
                    let dash = if listed { "- " } else { "" };
                    t.push_str(&format!("    {dash}{e}\n"));
                }
            }
            let ty = if tosca2 { "N" } else { "tosca.nodes.Root" };
            t.push_str(&format!("  node_templates:\n    a: {{type: {ty}, properties: {{p: {{get_input: port}}}}}}\n    b: {{type: {ty}, conditions: {{variability_input: on}}}}\n    c: {{type: {ty}}}\n"));
            if tosca2 {
                t = t
                    .replace("get_input: port", "$get_input: port")
                    .replace("get_attribute", "$get_attribute");
                t.push_str("node_types:\n  N:\n    properties: {p: {type: integer, required: false}}\n    attributes: {address: {type: string}}\n");
            }
            t
        };
        let mut compared = 0;
        for (group, tosca2) in [(false, false), (true, false), (false, true)] {
            for on in ["true", "false"] {
                let inputs = format!("{{on: {on}}}");
                let resolve = |listed| resolved(&template(listed, group, tosca2), Some(&inputs));
                let (want, got) = (resolve(true), resolve(false));
                let ctx = format!("group {group}, TOSCA 2.0 {tosca2}, on {on}");
                let out = want.clone().unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(want, got, "{ctx}");
                assert_eq!(out.contains("port:"), on == "true", "{ctx}\n{out}");
                compared += 1;
            }
        }
        assert_eq!(compared, 6);
        // An empty section goes from a TOSCA 1.3 result, whichever its form.
        for empty in ["{}", "[]"] {
            let t = format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  groups: {empty}\n  node_templates:\n    a: {{type: tosca.nodes.Root}}\n");
            let out = resolved(&t, None).expect("resolves");
            assert!(!out.contains("groups"), "{empty}: {out}");
        }
    }

    /// When resolving, artifacts written as a map stay one: nodes resolve
    /// alike with their artifacts written as a map and as a list of
    /// single-entry maps (short forms, default types, conditional
    /// artifacts with properties), on TOSCA 1.3 and 2.0.
    #[test]
    fn artifacts_written_as_maps_resolve_as_their_lists() {
        let artifacts = [
            "image: image.tar",
            "script: {file: run.sh, type: tosca.artifacts.Implementation.Bash, conditions: {variability_input: on}}",
            "config: {file: app.conf, properties: [{mode: fast}, {level: {value: 2, conditions: {variability_input: on}}}]}",
        ];
        let template = |listed: bool, tosca2: bool| {
            let (version, topology) = match tosca2 {
                true => ("tosca_2_0", "service_template"),
                false => ("tosca_variability_1_0", "topology_template"),
            };
            let mut t = format!("tosca_definitions_version: {version}\n{topology}:\n  variability:\n    inputs:\n      on: {{type: boolean}}\n    options: {{pruning: true}}\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      artifacts:\n");
            for a in artifacts {
                let a = match tosca2 {
                    true => a.replace("tosca.artifacts.Implementation.Bash", "Bash"),
                    false => a.to_string(),
                };
                let dash = if listed { "- " } else { "" };
                t.push_str(&format!("        {dash}{a}\n"));
            }
            if tosca2 {
                t = t.replace("type: tosca.nodes.Root", "type: N").replace(
                    "config: {file: app.conf,",
                    "config: {file: app.conf, type: Conf,",
                );
                t.push_str("node_types:\n  N: {}\nartifact_types:\n  Bash: {}\n  Conf:\n    properties: {mode: {type: string}, level: {type: integer, required: false}}\n");
            }
            t
        };
        for tosca2 in [false, true] {
            for on in ["true", "false"] {
                let inputs = format!("{{on: {on}}}");
                let resolve = |listed| resolved(&template(listed, tosca2), Some(&inputs));
                let (want, got) = (resolve(true), resolve(false));
                let ctx = format!("TOSCA 2.0 {tosca2}, on {on}");
                let out = want.clone().unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(want, got, "{ctx}");
                assert_eq!(out.contains("run.sh"), on == "true", "{ctx}\n{out}");
                assert_eq!(out.contains("level: 2"), on == "true", "{ctx}\n{out}");
            }
        }
    }

    /// When resolving a TOSCA 2.0 template, the entries of a property (or
    /// attribute) list that are no definition stay as written and the
    /// graph reads them as values: templates resolve alike with every such
    /// entry written as a value and wrapped as `{value: ..}`, in nodes,
    /// artifacts, relationship templates (one and several requirements),
    /// groups and policies, with and without automatic default
    /// alternatives.
    #[test]
    fn tosca_2_property_lists_as_written_resolve_as_their_definitions() {
        // `<x>` is a value entry, written as it is or as `{value: x}`.
        let template = "tosca_definitions_version: tosca_2_0
node_types:
  N:
    properties:
      p: {type: integer, required: false}
      q: {type: integer, required: false}
      r: {type: string, required: false}
      s: {type: list, entry_schema: integer, required: false}
      t: {type: string, required: false}
    attributes: {a: {type: string, required: false}}
    requirements: [{r: {capability: tosca.capabilities.Node, relationship: R, count_range: [0, UNBOUNDED]}}]
relationship_types:
  R: {properties: {w: {type: integer, required: false}}}
artifact_types:
  F: {properties: {m: {type: string, required: false}}}
group_types:
  G: {properties: {k: {type: integer, required: false}}}
policy_types:
  P: {properties: {k: {type: integer, required: false}}}
service_template:
  variability:
    inputs:
      on: {type: boolean}
    options: {OPTIONS}
  inputs:
    port: {type: string, default: x}
  node_templates:
    a:
      type: N
      properties:
        - p: <1>
        - q: {value: 2, conditions: {variability_input: on}}
        - r: <null>
        - s: <[1, 2]>
        - t: <{$get_input: port}>
      attributes: [{a: <up>}]
      artifacts:
        f: {type: F, file: f.sh, properties: [{m: <fast>}]}
      requirements:
        - r: {node: b, relationship: one}
        - r: {node: b, relationship: shared}
    b:
      type: N
      requirements: [{r: {node: a, relationship: shared}}]
    c: {type: N, properties: [{p: <4>}]}
  relationship_templates:
    one: {type: R, properties: [{w: <1>}]}
    shared: {type: R, properties: [{w: <5>}]}
  groups:
    g: {type: G, members: [a], properties: [{k: <7>}]}
GROUP  policies:
    - p: {type: P, targets: [a], properties: [{k: <8>}]}
";
        // With a variability group, whose removal makes the resolver build
        // afresh from the canonical shapes.
        let group = "    v: {type: variability.groups.ConditionalMembers, members: [c], conditions: {variability_input: on}}\n";
        let written = |wrapped: bool, options: &str| {
            let mut out = String::new();
            let (options, group) = match options.strip_suffix(" +group") {
                Some(options) => (options, group),
                None => (options, ""),
            };
            let mut rest = template.replace("OPTIONS", options).replace("GROUP", group);
            while let Some(at) = rest.find('<') {
                let close = at + rest[at..].find('>').expect("closed");
                let inner = &rest[at + 1..close];
                out.push_str(&rest[..at]);
                out.push_str(&match wrapped {
                    true => format!("{{value: {inner}}}"),
                    false => inner.to_string(),
                });
                rest = rest[close + 1..].to_string();
            }
            out.push_str(&rest);
            out
        };
        let mut compared = 0;
        for options in [
            "pruning: false",
            "pruning: false, automatic_default_alternatives: true",
            "pruning: false +group",
            "pruning: true +group",
        ] {
            for on in ["true", "false"] {
                let inputs = format!("{{on: {on}}}");
                let resolve = |wrapped| resolved(&written(wrapped, options), Some(&inputs));
                let (want, got) = (resolve(true), resolve(false));
                let ctx = format!("{options}, on {on}\n{}", written(false, options));
                let out = want.clone().unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(want, got, "{ctx}");
                // (Pruning removes what no anchor keeps.)
                let pruned = options.starts_with("pruning: true");
                for value in ["p: 1", "t: x", "a: up", "m: fast", "k: 7", "k: 8", "w: 5"] {
                    assert!(pruned || out.contains(value), "{value} in {ctx}\n{out}");
                }
                compared += 1;
            }
        }
        assert_eq!(compared, 8);
    }

    /// A TOSCA 2.0 requirement assignment written as a name is written as
    /// a name, also where automatic default alternatives make it the
    /// default (its map keeps the name's form, which the transform
    /// collapses).
    #[test]
    fn tosca_2_requirements_written_as_names_stay_names_as_defaults() {
        let text = "tosca_definitions_version: tosca_2_0
node_types:
  N: {requirements: [{host: {capability: tosca.capabilities.Node, relationship: tosca.relationships.Root, count_range: [0, 1]}}]}
service_template:
  variability:
    inputs:
      on: {type: boolean}
    options: {automatic_default_alternatives: true}
  node_templates:
    app:
      type: N
      requirements:
        - host: {node: a, conditions: {variability_input: on}}
        - host: b
    a: {type: N}
    b: {type: N}
";
        let out = resolved(text, Some("{on: false}")).expect("resolves");
        assert!(out.contains("- host: b\n"), "{out}");
    }
}
