//! Transformation: writes the variability-resolved template (part 2, section 8).
//!
//! Input: the resolver document, its graph and the solution. Output: a plain
//! TOSCA Simple Profile 1.3 document: absent elements removed, group members
//! and policy targets pruned, list forms turned into maps, property
//! expressions replaced by their values, every V4T-only key removed.

use crate::document::{self, TOPOLOGY};
use crate::error::{fail_at, Result};

use crate::fxhash::FxHashMap;
use crate::graph::{ElementId, Graph, Loc, Owner};
use crate::load::LoadedTypes;
use crate::normalize::TYPE_COLLECTIONS;
use crate::solve::Solution;
use v4t_yaml::{Key, Map, Node, Span, Value};

const UNDEFINED: &str = "VINTNER_UNDEFINED";

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
    for k in ELEMENT_KEYS {
        m.remove(k);
    }
}

/// The raw definition `raw` for the output, moved out of the document
/// without touching what the caller rewrites or still reads: keys in
/// `replaced` get a null placeholder in the output (so that re-inserting them
/// keeps the key order) and stay in the document, and with `drop_v4t` the V4T
/// element keys are left out of the output ([`clean`] in one pass) and stay
/// in the document too (a technology's `assign` is read after its node).
/// The moved values leave nulls behind; keys are copied, so lookups in the
/// document keep working. Non-maps are copied.
fn shell(raw: Option<&mut Node>, replaced: &[&str], drop_v4t: bool) -> Node {
    let Some(raw) = raw else {
        return Node::null();
    };
    let span = raw.span;
    let Some(m) = raw.as_map_mut() else {
        return raw.clone();
    };
    let mut out = Map::with_capacity(m.len());
    for i in 0..m.len() {
        let Some((k, _)) = m.get_index(i) else { break };
        let key = k.name.as_str();
        if drop_v4t && ELEMENT_KEYS.contains(&key) {
            continue;
        }
        let k = k.clone();
        let v = if replaced.contains(&k.name.as_str()) {
            Node::null()
        } else {
            m.get_index_mut(i).map(std::mem::take).unwrap_or_default()
        };
        out.push(k, v);
    }
    Node::new(Value::Map(out), span)
}

/// Keys of the topology whose values the transformation rebuilds.
const REBUILT: [&str; 7] = [
    "inputs",
    "node_templates",
    "relationship_templates",
    "groups",
    "policies",
    "outputs",
    "variability",
];

/// Transforms `source` (the document the graph was built from) into the
/// result, moving the surviving definitions out of `source` (which is left
/// with nulls in their place and is only good for dropping afterwards).
pub(crate) fn transform(
    source: &mut Node,
    graph: &Graph,
    solution: &Solution,
    loaded: &LoadedTypes,
) -> Result<Node> {
    let present = |id: ElementId| solution.is_present(id);
    let g = graph;
    let src = source;
    // The output starts as the document without the collections that are
    // rebuilt from the graph (placeholders keep their positions).
    let mut doc = shell(Some(src), &[TOPOLOGY, "imports"], false);
    if let Some(root) = doc.as_map_mut() {
        if let Some(tt) = document::topology_mut(src) {
            root.insert(TOPOLOGY, shell(Some(tt), &REBUILT, false));
        }
    }

    if let Some(tt) = document::topology_map_mut(&mut doc) {
        // Inputs first: they rewrite the values of their consumers.
        let mut consumer_values: Vec<(ElementId, Node)> = Vec::new();
        if tt.contains_key("inputs") {
            let mut inputs = Map::new();
            for &i in g.inputs.iter().filter(|&&i| present(i)) {
                let def = shell(g.raw_mut(src, i), &[], true);
                inputs.insert(g.get(i).name.clone(), def);
                for &p in &g.get(i).consumers {
                    consumer_values.push((
                        p,
                        Node::single("get_input", Node::string(g.get(i).name.clone())),
                    ));
                }
            }
            set_or_remove(tt, "inputs", inputs);
        }
        let value_of = |src: &Node, p: ElementId| -> Option<Node> {
            if let Some((_, v)) = consumer_values.iter().rev().find(|(q, _)| *q == p) {
                return Some(v.clone());
            }
            if let Some(v) = solution.value_of(p) {
                return Some(Node::synth(v.clone()));
            }
            g.raw(src, p).and_then(|r| r.get("value")).cloned()
        };
        let properties = |src: &Node, c: ElementId| -> Result<Option<Node>> {
            let mut out = Map::new();
            for &p in g.get(c).properties.iter().filter(|&&p| present(p)) {
                let v = value_of(src, p).filter(Node::is_defined);
                let Some(v) = v else {
                    fail_at!(g, p, "{} has no value", g.Display(p));
                };
                if v.as_str() == Some(UNDEFINED) {
                    continue;
                }
                out.insert(g.get(p).name.clone(), v);
            }
            Ok((!out.is_empty()).then(|| Node::map(out)))
        };
        let present_type = |c: ElementId| -> Result<String> {
            match g.get(c).types.iter().find(|&&t| present(t)) {
                Some(&t) => Ok(g.get(t).name.clone()),
                None => fail_at!(g, c, "{} has no present type", g.Display(c)),
            }
        };
        let set_props = |src: &Node, m: &mut Map, c: ElementId| -> Result<()> {
            match properties(src, c)? {
                Some(p) => m.insert("properties", p),
                None => {
                    m.remove("properties");
                }
            }
            Ok(())
        };

        if tt.contains_key("node_templates") {
            // Node names are unique (the graph checks): entries are appended
            // without looking their names up, and indexed once at the end.
            let mut nodes = Vec::with_capacity(g.nodes.len());
            for &n in g.nodes.iter().filter(|&&n| present(n)) {
                // Requirements, artifacts, properties and the technology stay
                // in `src` for their own elements.
                let mut def = shell(
                    g.raw_mut(src, n),
                    &["type", "properties", "requirements", "artifacts"],
                    true,
                );
                let Some(m) = def.as_map_mut() else { continue };
                m.insert("type", Node::string(present_type(n)?));
                if !g.get(n).technologies.is_empty() {
                    let Some(&t) = g.get(n).technologies.iter().find(|&&t| present(t)) else {
                        fail_at!(g, n, "{} has no present technology", g.Display(n));
                    };
                    if let Some(assign) = g.raw(src, t).and_then(|r| r.get("assign")) {
                        m.insert("type", assign.clone());
                    }
                }
                set_props(src, m, n)?;
                let mut reqs = Vec::new();
                for &r in g.get(n).outgoing.iter().filter(|&&r| present(r)) {
                    let mut a = shell(g.raw_mut(src, r), &[], true);
                    if let Some(am) = a.as_map_mut() {
                        if am.len() == 1 {
                            if let Some(target) = am.get_mut("node") {
                                a = std::mem::take(target);
                            }
                        }
                    }
                    reqs.push(Node::single(g.get(r).name.clone(), a));
                }
                if reqs.is_empty() {
                    m.remove("requirements");
                } else {
                    m.insert("requirements", Node::seq(reqs));
                }
                let mut arts = Map::new();
                for &a in g.get(n).artifacts.iter().filter(|&&a| present(a)) {
                    let mut ad = shell(g.raw_mut(src, a), &["type", "properties"], true);
                    if let Some(am) = ad.as_map_mut() {
                        am.insert("type", Node::string(present_type(a)?));
                        set_props(src, am, a)?;
                    }
                    arts.insert(g.get(a).name.clone(), ad);
                }
                if arts.is_empty() {
                    m.remove("artifacts");
                } else {
                    m.insert("artifacts", Node::map(arts));
                }
                nodes.push((Key::new(g.get(n).name.clone(), Span::NONE), def));
            }
            set_or_remove(tt, "node_templates", Map::from_entries(nodes));
        }

        let relationship_templates = |src: &Node| {
            document::topology(src)
                .and_then(|t| t.get("relationship_templates"))
                .and_then(Node::as_map)
                .map(Map::len)
        };
        if let Some(len) = relationship_templates(src) {
            // The relation of each template: by position (a relation's types
            // record its template's), by name where that does not apply.
            let mut by_position: Vec<Option<ElementId>> = vec![None; len];
            let mut by_name: FxHashMap<&str, ElementId> = FxHashMap::default();
            {
                let rts = document::topology(src)
                    .and_then(|t| t.get("relationship_templates"))
                    .and_then(Node::as_map)
                    .expect("relationship templates");
                for &r in &g.relations {
                    let Some(t) = g
                        .get(r)
                        .relationship
                        .and_then(|p| g.relationship_templates.get(p as usize))
                        .map(String::as_str)
                    else {
                        continue;
                    };
                    let position = g.get(r).types.first().and_then(|&ty| match g.get(ty).loc {
                        Loc::Type {
                            owner: Owner::RelationshipTemplate(p),
                            ..
                        } => Some(p as usize),
                        _ => None,
                    });
                    match position.filter(|&p| rts.get_index(p).is_some_and(|(k, _)| k.name == t)) {
                        Some(p) => by_position[p] = Some(r),
                        None => {
                            by_name.insert(t, r);
                        }
                    }
                }
            }
            // The present templates moved out of `src` in one pass over its
            // map, then typed and given their properties (read from `src`).
            let mut moved = Vec::with_capacity(len);
            if let Some(rts) = document::topology_mut(src)
                .and_then(|t| t.get_mut("relationship_templates"))
                .and_then(Node::as_map_mut)
            {
                for (i, slot) in by_position.iter().enumerate() {
                    let Some((k, _)) = rts.get_index(i) else {
                        break;
                    };
                    let rel = slot.or_else(|| by_name.get(k.name.as_str()).copied());
                    let Some(r) = rel.filter(|&r| present(r)) else {
                        continue;
                    };
                    let k = k.clone();
                    // The template's properties stay in `src` for `set_props`.
                    let v = shell(rts.get_index_mut(i), &["type", "properties"], false);
                    moved.push((k, v, r));
                }
            }
            let mut out = Map::with_capacity(moved.len());
            for (k, mut v, r) in moved {
                if let Some(m) = v.as_map_mut() {
                    m.insert("type", Node::string(present_type(r)?));
                    set_props(src, m, r)?;
                }
                out.push(k, v);
            }
            set_or_remove(tt, "relationship_templates", out);
        }

        if tt.contains_key("groups") {
            let mut groups = Map::new();
            for &gr in g.groups.iter().filter(|&&x| present(x)) {
                let mut def = shell(g.raw_mut(src, gr), &["type", "properties"], false);
                let Some(m) = def.as_map_mut() else { continue };
                if let Some(members) = m.get_mut("members").and_then(Node::as_seq_mut) {
                    let kept: Vec<Node> = std::mem::take(members)
                        .into_iter()
                        .zip(&g.get(gr).members)
                        .filter(|(_, &id)| present(id))
                        .map(|(n, _)| n)
                        .collect();
                    m.insert("members", Node::seq(kept));
                }
                m.insert("type", Node::string(present_type(gr)?));
                set_props(src, m, gr)?;
                clean(m);
                groups.insert(g.get(gr).name.clone(), def);
            }
            set_or_remove(tt, "groups", groups);
        }

        if tt.contains_key("policies") {
            let mut policies = Vec::new();
            for &p in g.policies.iter().filter(|&&x| present(x)) {
                let mut def = shell(g.raw_mut(src, p), &["type", "properties"], true);
                let Some(m) = def.as_map_mut() else { continue };
                m.insert("type", Node::string(present_type(p)?));
                set_props(src, m, p)?;
                if let Some(targets) = m.get_mut("targets").and_then(Node::as_seq_mut) {
                    let kept: Vec<Node> = std::mem::take(targets)
                        .into_iter()
                        .zip(&g.get(p).targets)
                        .filter(|(_, &id)| present(id))
                        .map(|(n, _)| n)
                        .collect();
                    m.insert("targets", Node::seq(kept));
                }
                policies.push(Node::single(g.get(p).name.clone(), def));
            }
            if policies.is_empty() {
                tt.remove("policies");
            } else {
                tt.insert("policies", Node::seq(policies));
            }
        }

        if tt.contains_key("outputs") {
            let mut outputs = Map::new();
            for &o in g.outputs.iter().filter(|&&x| present(x)) {
                let def = shell(g.raw_mut(src, o), &[], true);
                outputs.insert(g.get(o).name.clone(), def);
            }
            set_or_remove(tt, "outputs", outputs);
        }
        tt.remove("variability");
    }

    let Some(root) = doc.as_map_mut() else {
        return Ok(doc);
    };
    if root.contains_key("imports") {
        let mut imports = Vec::new();
        for &i in g.imports.iter().filter(|&&x| present(x)) {
            let mut def = shell(g.raw_mut(src, i), &[], true);
            if let Some(m) = def.as_map_mut() {
                if m.len() == 1 {
                    if let Some(f) = m.get_mut("file") {
                        def = std::mem::take(f);
                    }
                }
            }
            imports.push(def);
        }
        if imports.is_empty() {
            root.remove("imports");
        } else {
            root.insert("imports", Node::seq(imports));
        }
    }
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
        let Some(types) = root.get_mut(collection).and_then(Node::as_map_mut) else {
            continue;
        };
        types.retain(|k, _| !loaded.contains(collection, &k.name));
        if types.is_empty() {
            root.remove(collection);
        }
    }
    Ok(doc)
}

fn set_or_remove(tt: &mut Map, key: &str, value: Map) {
    if value.is_empty() {
        tt.remove(key);
    } else {
        tt.insert(key, Node::map(value));
    }
}
