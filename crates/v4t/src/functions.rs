//! TOSCA 2.0 function syntax (§10.1) as the resolver meets it: the
//! references in element definitions, what the functions `$get_input`,
//! `$get_property` and `$get_attribute` name (§10.2, §10.3), anywhere inside
//! a definition, `count:` and node filters included; and the escaping of
//! data that would read as a function call.
//!
//! Consumption and production (part 1, 5.4 and 5.5) follow them: an element
//! whose definition reads `$get_input: x` consumes input `x` (so `x` is
//! consumed while the element is present, and the reference check after
//! solving names the element if it is present without `x`), and an
//! output whose value reads `$get_attribute: [server, ...]` is produced by
//! node `server`. V4T keys (`conditions`, `implies`) hold V4T expressions,
//! never TOSCA functions, and the parts of a definition that are elements
//! of their own (types, properties, requirements, artifacts) are read for
//! those elements.

use v4t_yaml::{Map, MapRef, Node, NodeRef, Value, ValueRef};

/// TOSCA path keywords that name no template (§10.3).
const PATH_KEYWORDS: [&str; 6] = [
    "SELF",
    "SOURCE",
    "TARGET",
    "CAPABILITY",
    "RELATIONSHIP",
    "ALL",
];

/// What a definition refers to by name.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct References<'d> {
    /// Inputs read with `$get_input`, in document order, without repeats.
    pub inputs: Vec<&'d str>,
    /// Templates named first in a TOSCA path of `$get_property` or
    /// `$get_attribute` (node or relationship templates), without repeats.
    pub templates: Vec<&'d str>,
}

impl<'d> References<'d> {
    /// The references of `def` (of a tree or a [`v4t_yaml::Doc`]), leaving
    /// out its keys in `skip` (and always `conditions` and `implies`).
    pub(crate) fn of(def: impl Into<NodeRef<'d>>, skip: &[&str]) -> References<'d> {
        let def = def.into();
        let mut refs = References::default();
        let mut stack: Vec<NodeRef<'d>> = Vec::new();
        match def.value() {
            ValueRef::Map(m) => {
                for (k, v) in m.iter().rev() {
                    let key = k.name();
                    if !skip.contains(&key) && key != "conditions" && key != "implies" {
                        stack.push(v);
                    }
                }
                // The definition itself may be a call (a short form).
                refs.call(m);
            }
            _ => stack.push(def),
        }
        while let Some(n) = stack.pop() {
            match n.value() {
                ValueRef::Map(m) => {
                    refs.call(m);
                    stack.extend(m.values().rev());
                }
                ValueRef::Seq(items) => stack.extend(items.iter().rev()),
                _ => {}
            }
        }
        refs
    }

    /// Records what map `m` names if it is one of the three calls.
    fn call(&mut self, m: MapRef<'d>) {
        if m.len() != 1 {
            return;
        }
        let Some((k, args)) = m.first() else {
            return;
        };
        let first = match args.value() {
            ValueRef::String(s) => Some(s),
            ValueRef::Seq(items) => items.first().and_then(NodeRef::as_str),
            _ => None,
        };
        let Some(first) = first else { return };
        match k.name() {
            "$get_input" => push_new(&mut self.inputs, first),
            "$get_property" | "$get_attribute" if !PATH_KEYWORDS.contains(&first) => {
                push_new(&mut self.templates, first)
            }
            _ => {}
        }
    }
}

/// Escapes every string and map key of a value v4t produced (an evaluated
/// `expression`) that starts with `$` as `$$...` (TOSCA 2.0 §10.1): the
/// value is data, which a TOSCA 2.0 processor would otherwise read as a
/// function call. Values written in the template are never touched: their
/// `$` functions are functions and their `$$` escapes stay as written.
pub(crate) fn escape(value: &mut Node) {
    let escape = |s: &mut String| {
        if s.starts_with('$') {
            s.insert(0, '$');
        }
    };
    let mut stack = vec![value];
    while let Some(n) = stack.pop() {
        match &mut n.value {
            Value::String(s) => escape(s),
            Value::Seq(items) => stack.extend(items.iter_mut()),
            Value::Map(m) => {
                if m.keys().any(|k| k.starts_with('$')) {
                    let entries = std::mem::take(m).into_entries();
                    let escaped = entries
                        .into_iter()
                        .map(|(mut k, v)| {
                            if k.name.starts_with('$') {
                                k.name = format!("${}", k.name).into();
                            }
                            (k, v)
                        })
                        .collect();
                    *m = Map::from_entries(escaped);
                }
                stack.extend(m.iter_mut().map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

fn push_new<'d>(list: &mut Vec<&'d str>, name: &'d str) {
    if !list.contains(&name) {
        list.push(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::doc;

    #[test]
    fn finds_inputs_and_templates_anywhere_but_in_skipped_and_v4t_keys() {
        let d = doc("
count: {$get_input: replicas}
node_filter: {$equal: [{$get_property: [db, CAPABILITY, x]}, {$get_input: [cfg, size]}]}
properties: [{p: {value: {$get_input: skipped}}}]
conditions: {$get_input: never}
interfaces:
  Standard:
    operations:
      create: {inputs: {a: {$concat: [{$get_attribute: [SELF, ip]}, {$get_attribute: [web, 0, ip]}]}}}
");
        let refs = References::of(&d, &["properties"]);
        assert_eq!(refs.inputs, ["replicas", "cfg"]);
        assert_eq!(refs.templates, ["db", "web"]);
    }

    #[test]
    fn documents_name_what_their_trees_name() {
        for text in [
            "{count: {$get_input: n}, node_filter: {$get_property: [db, x]}, conditions: {$get_input: c}}",
            "{$get_attribute: [server, public_address]}",
            "[{$get_input: [a, b]}, {$get_property: [SELF, p]}, {$get_attribute: [web, ip]}]",
            "{$$get_input: literal, x: {$get_input: x}}",
            "$get_input",
        ] {
            let (tree, doc) = (crate::testing::doc(text), crate::testing::read_doc(text));
            for skip in [&[][..], &["count"]] {
                let tree = References::of(&tree, skip);
                assert_eq!(tree, References::of(doc.root(), skip), "{text}");
            }
        }
    }

    #[test]
    fn a_definition_that_is_a_call_and_escaped_keys() {
        let d = doc("{$get_attribute: [server, public_address]}");
        assert_eq!(References::of(&d, &[]).templates, ["server"]);
        let d = doc("{$$get_input: literal, x: {$get_input: x}}");
        assert_eq!(References::of(&d, &[]).inputs, ["x"]);
        let d = doc("$get_input");
        assert_eq!(References::of(&d, &[]), References::default());
    }
}
