//! Warnings: things in a template that are legal but probably mistakes.
//!
//! Input: the loaded document (read only, before enrichment, so that every
//! node still carries the span the user wrote). Output: a list of
//! [`Warning`]s. Warnings never change the result or the outcome of a run;
//! this module only reads.
//!
//! * **Unused variability input.** An input declared in
//!   `variability.inputs` of the topology whose name is never the argument
//!   of a `variability_input` operator anywhere in the document (conditions,
//!   named expressions, constraints, other inputs' `default_expression`,
//!   property expressions, type-specific conditions), is not named in
//!   another input's feature model (`requires`, `alternatives`, ...) and is
//!   not named like an element id (which makes it that element's condition,
//!   `enrich_input_condition`). Assigning it in a preset or an inputs file
//!   does not count as a use: such a value is read by nothing.
//! * **Unknown key.** A key that is neither a TOSCA Simple Profile 1.3 key
//!   nor a Variability4TOSCA key of its section: the service template, the
//!   topology template, the variability definition, variability inputs and
//!   presets, topology inputs and outputs, node templates, requirement
//!   assignments (map form), wrapped properties, artifacts, capabilities,
//!   type assignments, technology templates, relationship templates,
//!   groups, policies and imports; with the closest known key as a
//!   suggestion. Most such keys are silently ignored by the reference, and
//!   some (a misspelt `conditions` on an output) end up in the output.
//! * **Undeclared input in a preset.** A preset that assigns a variability
//!   input the template does not declare (read by nothing), with the
//!   closest declared name. (Direct assignments are checked by
//!   [`crate::inputs::assign`].)
//! * **Unknown or outdated variability option**, with the closest known
//!   option or, for option names of earlier drafts, the current one; and
//!   `plugins`, which v4t does not run.
//! * **Conditions that are data.** `conditions` (or another element key) in
//!   a property that is not wrapped (map form, or a list entry without
//!   `value`/`expression`) and in capability properties (which are not
//!   conditional): the reference keeps them as part of the value.
//! * **Self-referencing requirement.** A requirement whose target is the
//!   node that declares it (the reference accepts it, and conformance tests
//!   use it to test relation conditions, but no orchestrator can deploy it).

use crate::document::{self, declared_inputs, entries_of};
use crate::inputs::FEATURE_KEYS;
use crate::options::{is_known_option, known_options, RENAMED_OPTIONS};
use crate::suggest::did_you_mean;
use crate::version::Grammar;
use v4t_source::{Code, Diagnostic};
use v4t_tosca::Entity as ToscaEntity;
use v4t_yaml::hash::SeededSet;
use v4t_yaml::{KeyRef, MapRef, NodeRef, Span, ValueRef};

/// A warning: a [`Diagnostic`] of severity warning, located at the node it
/// is about.
pub(crate) type Warning = Diagnostic;

/// A set of known keys: the list (for suggestions) and a fast membership
/// test (a `match`: it runs for every key of every template).
struct Keys {
    list: &'static [&'static str],
    contains: fn(&str) -> bool,
}

/// `keys!(/// doc comment
///        NAME = ["a", "b"])` defines a [`Keys`] constant.
macro_rules! keys {
    // A key is a string literal or a string constant in scope (as a
    // pattern, an unknown name would bind anything).
    ($(#[$doc:meta])* $name:ident = [$($key:tt),+ $(,)?]) => {
        $(#[$doc])*
        const $name: Keys = Keys {
            list: &[$($key),+],
            contains: |k| matches!(k, $($key)|+),
        };
    };
}

keys!(
    /// The element-level Variability4TOSCA keys (conditions and per-element options).
    V4T_ELEMENT_KEYS = [
        "conditions",
        "default_alternative",
        "default_condition",
        "default_condition_mode",
        "default_consistency_condition",
        "default_semantic_condition",
        "pruning",
        "consistency_pruning",
        "semantic_pruning",
        "implies",
        "implied",
        "weight",
    ]
);

keys!(
    /// Keys of the variability definition (`plugins` has its own warning).
    VARIABILITY_KEYS = [
        "inputs",
        "presets",
        "expressions",
        "constraints",
        "options",
        "type_specific_conditions",
        "qualities",
    ]
);

keys!(
    /// The Variability4TOSCA key of the topology.
TOPOLOGY_KEYS = ["variability"]);

keys!(
    /// Keys of a variability input besides the parameter keys.
    VARIABILITY_INPUT_KEYS = [
        "default_expression",
        "mandatory",
        "optional",
        "choices",
        "alternatives",
        "requires",
        "excludes",
    ]
);

keys!(
    /// Keys of a variability preset.
PRESET_KEYS = ["name", "description", "inputs"]);

keys!(
    /// The node-only Variability4TOSCA keys.
NODE_KEYS = ["anchor", "persistent", "managed", "technology"]);

keys!(
    /// Wrapped property keys.
PROPERTY_KEYS = ["value", "expression"]);

keys!(
    /// Technology template keys besides the element keys.
TECHNOLOGY_KEYS = ["assign", "scenario", "prio"]);

keys!(
    /// No keys: a map with TOSCA's keynames only.
NO_KEYS = ["\u{0}"]);

/// How element ids start (`node.web`, `property.port@0.node.web`, ...).
const ELEMENT_ID_PREFIXES: [&str; 11] = [
    "node.",
    "relation.",
    "property.",
    "artifact.",
    "policy.",
    "group.",
    "type.",
    "technology.",
    "input.",
    "output.",
    "import.",
];

/// Collects the warnings for `doc` (an owned tree or a [`v4t_yaml::Doc`]).
pub(crate) fn lint<'a>(doc: impl Into<NodeRef<'a>>) -> Vec<Warning> {
    let doc = doc.into();
    let mut out = Vec::new();
    let Some(root) = doc.as_map() else {
        return out;
    };
    let tosca20 = crate::version::grammar_of(doc) == Grammar::Tosca2;
    let mut lint = Lint {
        out: &mut out,
        tosca20,
    };
    lint.keys(
        root,
        &|| "the service template".into(),
        Entity::ServiceTemplate,
    );
    lint.imports(root.get("imports"));
    let topology = document::topology_key(doc);
    let Some(tt) = root.get(topology).and_then(NodeRef::as_map) else {
        return out;
    };
    lint.keys(tt, &|| topology.into(), Entity::Topology);
    if let Some(v) = tt.get("variability") {
        lint.variability(v);
    }
    for (kind, collection) in [("input", "inputs"), ("output", "outputs")] {
        for (name, n) in entries_of(tt.get(collection)) {
            if let Some(m) = n.as_map() {
                let what = || format!("{kind} \"{}\"", name.name());
                lint.keys(m, &what, Entity::Parameter);
            }
        }
    }
    for (name, n) in entries_of(tt.get("node_templates")) {
        if let Some(m) = n.as_map() {
            lint.node(name.name(), m);
        }
    }
    if let Some(templates) = tt.get("relationship_templates").and_then(NodeRef::as_map) {
        for (name, r) in templates.iter() {
            if let Some(m) = r.as_map() {
                let what = || format!("relationship template \"{}\"", name.name());
                lint.template(m, &what, Entity::Relationship, |_, _, _| {});
            }
        }
    }
    for (kind, collection, entity) in [
        ("group", "groups", Entity::Group),
        ("policy", "policies", Entity::Policy),
    ] {
        for (name, n) in entries_of(tt.get(collection)) {
            if let Some(m) = n.as_map() {
                let what = || format!("{kind} \"{}\"", name.name());
                lint.template(m, &what, entity, |_, _, _| {});
            }
        }
    }
    unused_inputs(doc, tt, &mut out);
    // In document order, whatever the order of the checks.
    out.sort_by_key(|w| (w.span.source.0, w.span.start));
    out
}

/// The warning collector, with one method per section.
struct Lint<'o> {
    out: &'o mut Vec<Warning>,
    /// The template's base grammar is TOSCA 2.0.
    tosca20: bool,
}

impl Lint<'_> {
    /// The template's base grammar.
    fn grammar(&self) -> Grammar {
        if self.tosca20 {
            Grammar::Tosca2
        } else {
            Grammar::Tosca13
        }
    }

    fn warn(&mut self, code: Code, message: String, span: Span) {
        self.out.push(Diagnostic::warning(code, message).at(span));
    }

    /// Warns about the keys of `m` that are not keys of `entity` (element
    /// keys count where it is conditional); `what` names the map (only
    /// formatted for a warning).
    #[inline]
    fn keys(&mut self, m: MapRef<'_>, what: &dyn Fn() -> String, entity: Entity) {
        for (key, _) in m.iter() {
            self.key(key, what, entity);
        }
    }

    /// [`Lint::keys`] for one key: inlined, since `entity` is known at most
    /// calls, which makes the keyname test a `match` on the name.
    #[inline]
    fn key(&mut self, key: KeyRef<'_>, what: &dyn Fn() -> String, entity: Entity) {
        if !entity.knows(key.name(), self.grammar()) {
            self.unknown_key(key, what, entity);
        }
    }

    /// The warning for a key [`Lint::key`] does not know.
    #[cold]
    fn unknown_key(&mut self, key: KeyRef<'_>, what: &dyn Fn() -> String, entity: Entity) {
        let k = key.name();
        let message = if (V4T_ELEMENT_KEYS.contains)(k) {
            format!(
                "Key \"{k}\" has no effect in {}: it is not a conditional element",
                what()
            )
        } else {
            let known = entity.known(self.grammar());
            format!(
                "Unknown key \"{k}\" in {}{}",
                what(),
                did_you_mean(k, known)
            )
        };
        self.warn(Code::UnknownKey, message, key.span());
    }

    /// A template with `type` and `properties` (node, relationship, group,
    /// policy, artifact), in one pass over its keys (this runs for every
    /// template): unknown keys, type assignments, properties; `child` sees
    /// every other key with its value.
    fn template(
        &mut self,
        m: MapRef<'_>,
        what: &dyn Fn() -> String,
        entity: Entity,
        mut child: impl FnMut(&mut Self, &str, NodeRef<'_>),
    ) {
        for (key, value) in m.iter() {
            self.key(key, what, entity);
            match key.name() {
                "type" => self.type_assignments(value, what),
                "properties" => self.properties(value, what),
                // TOSCA 2.0: conditional attributes, like properties.
                "attributes" if self.tosca20 => self.properties(value, what),
                k => child(self, k, value),
            }
        }
    }

    fn imports(&mut self, imports: Option<NodeRef<'_>>) {
        let file_key = if self.tosca20 { "url" } else { "file" };
        for item in imports.and_then(NodeRef::as_seq).into_iter().flatten() {
            // Only import definitions (with `file`, `url` or `profile`), not
            // named single-entry maps.
            let Some(m) = item.as_map().filter(|m| {
                m.contains_key(file_key) || (self.tosca20 && m.contains_key("profile"))
            }) else {
                continue;
            };
            let file = m
                .get(file_key)
                .or_else(|| m.get("profile"))
                .and_then(NodeRef::as_str)
                .unwrap_or_default();
            let what = || format!("import \"{file}\"");
            self.keys(m, &what, Entity::Import);
        }
    }

    fn variability(&mut self, variability: NodeRef<'_>) {
        let Some(v) = variability.as_map() else {
            return;
        };
        for (key, _) in v.iter() {
            let k = key.name();
            if k == "plugins" {
                self.warn(
                    Code::Unsupported,
                    "\"plugins\" (technology rule plugins) are not supported by v4t and are ignored"
                        .into(),
                    key.span(),
                );
            } else if !Entity::Variability.knows(k, self.grammar()) {
                self.warn(
                    Code::UnknownKey,
                    format!(
                        "Unknown key \"{k}\" in the variability definition{}",
                        did_you_mean(k, Entity::Variability.known(self.grammar()))
                    ),
                    key.span(),
                );
            }
        }
        for (name, n) in entries_of(v.get("inputs")) {
            if let Some(m) = n.as_map() {
                let what = || format!("variability input \"{}\"", name.name());
                self.keys(m, &what, Entity::VariabilityInput);
            }
        }
        if let Some(presets) = v.get("presets").and_then(NodeRef::as_map) {
            let declared = declared_inputs(Some(variability));
            let known: SeededSet<&str> = declared.iter().copied().collect();
            for (name, n) in presets.iter() {
                let Some(m) = n.as_map() else { continue };
                let what = || format!("variability preset \"{}\"", name.name());
                self.keys(m, &what, Entity::Preset);
                let assigned = m.get("inputs").and_then(NodeRef::as_map).into_iter();
                for (input, _) in assigned.flat_map(MapRef::iter) {
                    let (preset, input_name) = (name.name(), input.name());
                    if !known.contains(input_name) {
                        self.warn(
                            Code::UndeclaredInput,
                            format!(
                                "Variability preset \"{}\" assigns the undeclared variability input \"{}\"{}",
                                preset,
                                input_name,
                                did_you_mean(input_name, declared.iter().copied())
                            ),
                            input.span(),
                        );
                    }
                }
            }
        }
        if let Some(options) = v.get("options").and_then(NodeRef::as_map) {
            self.options(options);
        }
    }

    fn options(&mut self, options: MapRef<'_>) {
        let mut known: Option<Vec<String>> = None;
        for (key, _) in options.iter() {
            let k = key.name();
            if is_known_option(k) {
                continue;
            }
            let message = match RENAMED_OPTIONS.iter().find(|(old, _)| *old == k) {
                Some((_, new)) => format!(
                    "Variability option \"{k}\" is an outdated name and is ignored; use \"{new}\" instead"
                ),
                None => {
                    let known = known.get_or_insert_with(known_options);
                    format!(
                        "Unknown variability option \"{k}\"{}",
                        did_you_mean(k, known.iter().map(String::as_str))
                    )
                }
            };
            self.warn(Code::UnknownOption, message, key.span());
        }
    }

    fn node(&mut self, name: &str, m: MapRef<'_>) {
        let what = || format!("node template \"{name}\"");
        self.template(
            m,
            &what,
            Entity::NodeTemplate,
            |lint, key, value| match key {
                "requirements" => lint.requirements(name, value),
                "artifacts" => {
                    for (aname, a) in entries_of(Some(value)) {
                        if let Some(am) = a.as_map() {
                            let what = || {
                                format!("artifact \"{}\" of node template \"{name}\"", aname.name())
                            };
                            lint.template(am, &what, Entity::Artifact, |_, _, _| {});
                        }
                    }
                }
                "capabilities" => lint.capabilities(name, value),
                "technology" if value.as_seq().is_some() => {
                    for (tname, t) in entries_of(Some(value)) {
                        if let Some(tm) = t.as_map() {
                            let what = || {
                                format!(
                                    "technology \"{}\" of node template \"{name}\"",
                                    tname.name()
                                )
                            };
                            lint.keys(tm, &what, Entity::Technology);
                        }
                    }
                }
                _ => {}
            },
        );
    }

    fn requirements(&mut self, name: &str, requirements: NodeRef<'_>) {
        for req in requirements.as_seq().into_iter().flatten() {
            let Some((rname, assignment)) = req.as_map().and_then(MapRef::first) else {
                continue;
            };
            let target = match assignment.value() {
                ValueRef::Map(am) => am.get("node"),
                _ => Some(assignment),
            };
            if let Some(t) = target.filter(|t| t.as_str() == Some(name)) {
                self.warn(
                    Code::SelfReference,
                    format!(
                        "Requirement \"{}\" of node template \"{name}\" refers to the node itself",
                        rname.name()
                    ),
                    t.span(),
                );
            }
            if let Some(am) = assignment.as_map() {
                let what = || {
                    format!(
                        "requirement \"{}\" of node template \"{name}\"",
                        rname.name()
                    )
                };
                self.keys(am, &what, Entity::Requirement);
            }
        }
    }

    fn capabilities(&mut self, name: &str, capabilities: NodeRef<'_>) {
        for (cname, c) in capabilities.as_map().into_iter().flat_map(MapRef::iter) {
            let Some(cm) = c.as_map() else { continue };
            let what = || {
                format!(
                    "capability \"{}\" of node template \"{name}\"",
                    cname.name()
                )
            };
            self.keys(cm, &what, Entity::Capability);
            for (pname, p) in entries_of(cm.get("properties")) {
                if let Some(key) = element_key(p) {
                    self.warn(
                        Code::ConditionAsData,
                        format!(
                            "Capability properties are not conditional elements: \"{}\" of property \"{}\" of {} is kept as part of its value",
                            key.name(),
                            pname.name(),
                            what()
                        ),
                        key.span(),
                    );
                }
            }
        }
    }

    /// Type assignments (`type` in list form) carry only element keys.
    fn type_assignments(&mut self, types: NodeRef<'_>, container: &dyn Fn() -> String) {
        if types.as_seq().is_none() {
            return;
        }
        for (tname, t) in entries_of(Some(types)) {
            if let Some(tm) = t.as_map() {
                let what = || format!("type \"{}\" of {}", tname.name(), container());
                self.keys(tm, &what, Entity::TypeAssignment);
            }
        }
    }

    /// Wrapped properties in list form; element keys where they are data.
    fn properties(&mut self, props: NodeRef<'_>, container: &dyn Fn() -> String) {
        if let Some(map) = props.as_map() {
            for (pname, p) in map.iter() {
                if let Some(key) = element_key(p) {
                    self.warn(
                        Code::ConditionAsData,
                        format!(
                            "Property \"{}\" of {} is in map form, so its \"{}\" is part of its value; write the properties as a list (- {}: {{value: ..., {}: ...}}) to make it conditional",
                            pname.name(),
                            container(),
                            key.name(),
                            pname.name(),
                            key.name()
                        ),
                        key.span(),
                    );
                }
            }
            return;
        }
        for (pname, p) in entries_of(Some(props)) {
            let Some(pm) = p.as_map() else { continue };
            let wrapped = PROPERTY_KEYS
                .list
                .iter()
                .any(|k| pm.get(k).is_some_and(NodeRef::is_defined));
            if wrapped {
                let what = || format!("property \"{}\" of {}", pname.name(), container());
                self.keys(pm, &what, Entity::Property);
            } else if let Some(key) = element_key(p) {
                self.warn(
                    Code::ConditionAsData,
                    format!(
                        "Property \"{}\" of {} has \"{}\" but neither \"value\" nor \"expression\", so the whole map is its value",
                        pname.name(),
                        container(),
                        key.name()
                    ),
                    key.span(),
                );
            }
        }
    }
}

/// The first element key (`conditions`, `default_alternative`, ...) of a
/// map value, if any.
fn element_key(value: NodeRef<'_>) -> Option<KeyRef<'_>> {
    value
        .as_map()?
        .iter()
        .map(|(k, _)| k)
        .find(|k| (V4T_ELEMENT_KEYS.contains)(k.name()))
}

fn unused_inputs<'a>(doc: NodeRef<'a>, tt: MapRef<'a>, out: &mut Vec<Warning>) {
    let Some(inputs) = tt
        .get("variability")
        .and_then(|v| v.get("inputs"))
        .and_then(NodeRef::as_map)
    else {
        return;
    };
    if inputs.is_empty() {
        return;
    }
    // The declared inputs referred to so far; the walk ends once all are.
    let mut used: SeededSet<&str> = SeededSet::default();
    // Inputs named like an element id are that element's condition
    // (`enrich_input_condition`, on unless switched off).
    let input_conditions = tt
        .get("variability")
        .and_then(|v| v.get("options"))
        .and_then(|o| o.get("enrich_input_condition"))
        .and_then(NodeRef::as_bool)
        != Some(false);
    for (name, definition) in inputs.iter() {
        let name = name.name();
        if input_conditions && ELEMENT_ID_PREFIXES.iter().any(|p| name.starts_with(p)) {
            used.insert(name);
        }
        // Inputs in a feature model (having one, or named in another
        // input's) are read by its check.
        for key in FEATURE_KEYS {
            let Some(targets) = definition.get(key) else {
                continue;
            };
            used.insert(name);
            let names = targets
                .as_seq()
                .map(|items| items.iter().collect::<Vec<_>>())
                .unwrap_or_else(|| vec![targets]);
            for target in names.into_iter().filter_map(NodeRef::as_str) {
                if inputs.contains_key(target) {
                    used.insert(target);
                }
            }
        }
    }
    if used.len() == inputs.len() {
        return;
    }
    // Iterative walk in document order (children pushed last to first), so
    // that the variability section, where inputs are usually used, comes
    // before the templates: documents can be deep (up to the parser's depth
    // limit).
    let mut stack = vec![doc];
    while let Some(n) = stack.pop() {
        match n.value() {
            ValueRef::Map(m) => {
                if let Some(name) = m.get("variability_input").and_then(NodeRef::as_str) {
                    if inputs.contains_key(name) && used.insert(name) && used.len() == inputs.len()
                    {
                        return;
                    }
                }
                stack.extend(m.iter().rev().map(|(_, v)| v));
            }
            ValueRef::Seq(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    for (name, _) in inputs.iter() {
        if !used.contains(name.name()) {
            let message = format!(
                "Variability input \"{}\" is never used by a condition or an expression",
                name.name()
            );
            out.push(Diagnostic::warning(Code::UnusedInput, message).at(name.span()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{parse, SourceId};

    /// The warnings of `text` read as a tree, which must be the warnings
    /// of `text` read as a [`v4t_yaml::Doc`], at the same places.
    fn warnings(text: &str) -> Vec<(String, u32, u32)> {
        let tree = lint(&parse(text, SourceId(0)).unwrap());
        let doc = crate::testing::read_doc(text);
        let read = lint(doc.root());
        assert_eq!(format!("{tree:?}"), format!("{read:?}"), "{text}");
        tree.into_iter()
            .map(|w| {
                let at = w.span.locate(text);
                (w.message, at.line, at.col)
            })
            .collect()
    }

    fn messages(text: &str) -> Vec<String> {
        warnings(text).into_iter().map(|(m, _, _)| m).collect()
    }

    #[test]
    fn keynames_for_editors_follow_the_grammar() {
        let (v13, v2) = (Grammar::Tosca13, Grammar::Tosca2);
        let node = keynames(Entity::NodeTemplate, v13);
        assert!(
            node.contains(&"type") && node.contains(&"conditions"),
            "{node:?}"
        );
        assert!(!node.contains(&"count"));
        assert!(keynames(Entity::NodeTemplate, v2).contains(&"count"));
        assert_eq!(
            keynames(Entity::Preset, v13),
            ["name", "description", "inputs"]
        );
        // TOSCA 1.3's keys first, Variability4TOSCA's, TOSCA 2.0's, the
        // element keys.
        let node = keynames(Entity::NodeTemplate, v2);
        let at = |k| node.iter().position(|n| *n == k).unwrap();
        assert!(at("copy") < at("anchor") && at("technology") < at("count"));
        assert!(at("count") < at("conditions"), "{node:?}");
        let import = keynames(Entity::Import, v2);
        assert!(import.contains(&"url"), "{import:?}");
        assert!(!keynames(Entity::Import, v13).contains(&"url"));
        // Variability inputs have TOSCA 1.3's parameter keys on every base.
        let input = keynames(Entity::VariabilityInput, v2);
        assert!(!input.contains(&"validation") && input.contains(&"requires"));
        // The filler of maps without own keys never shows.
        assert!(keynames(Entity::Relationship, v13)
            .iter()
            .all(|k| !k.contains('\u{0}')));
    }

    #[test]
    fn the_grammars_disagree_only_where_the_table_says() {
        // On a TOSCA 2.0 base both grammars' keys are known; on 1.3 only
        // 1.3's (the validator reports the others).
        let w = messages(
            "topology_template:\n  metadata: {}\n  groups:\n    g: {type: t, attributes: {}}\n  node_templates:\n    n: {type: t, count: 2}\n",
        );
        assert_eq!(
            w,
            [
                "Unknown key \"metadata\" in topology_template",
                "Unknown key \"count\" in node template \"n\"",
            ]
        );
        let w = messages(
            "tosca_definitions_version: tosca_2_0\nservice_template:\n  metadata: {}\n  node_templates:\n    n: {type: t, count: 2, artifacts: {a: {type: t, file: f, version: '1'}}}\n",
        );
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn unused_inputs_are_reported_at_their_name() {
        let w = warnings(
            "topology_template:\n  variability:\n    inputs:\n      used: {}\n      unused: {}\n    expressions:\n      e: {variability_input: used}\n",
        );
        assert_eq!(
            w,
            [(
                "Variability input \"unused\" is never used by a condition or an expression"
                    .to_string(),
                5,
                7
            )]
        );
    }

    #[test]
    fn feature_models_and_element_ids_are_uses() {
        let w = messages(
            "topology_template:\n  variability:\n    inputs:\n      a: {requires: b}\n      b: {}\n      c: {alternatives: [d, e]}\n      d: {}\n      e: {}\n      f: {}\n      node.web: {}\n",
        );
        assert_eq!(
            w,
            ["Variability input \"f\" is never used by a condition or an expression"]
        );
        let w = messages(
            "topology_template:\n  variability:\n    options: {enrich_input_condition: false}\n    inputs:\n      node.web: {}\n",
        );
        assert_eq!(
            w,
            ["Variability input \"node.web\" is never used by a condition or an expression"]
        );
    }

    #[test]
    fn undeclared_and_repeated_references_do_not_count_as_uses() {
        let w = messages(
            "topology_template:\n  variability:\n    inputs:\n      a: {}\n      b: {}\n    expressions:\n      e: {and: [{variability_input: a}, {variability_input: a}, {variability_input: x}]}\n",
        );
        assert_eq!(
            w,
            ["Variability input \"b\" is never used by a condition or an expression"]
        );
        let all_used = warnings(
            "topology_template:\n  variability:\n    inputs:\n      a: {}\n      b: {}\n    expressions:\n      e: [{variability_input: b}, {variability_input: a}]\n",
        );
        assert!(all_used.is_empty(), "{all_used:?}");
    }

    #[test]
    fn unknown_keys_of_nodes_requirements_and_wrapped_properties() {
        let w = warnings(
            "topology_template:\n  node_templates:\n    a:\n      type: x\n      conditions: true\n      condition: true\n      requirements:\n        - host: {node: b, conditons: false}\n        - dep: b\n      properties:\n        - p: {value: 1, valeu: 2}\n        - q: {unwrapped: map}\n",
        );
        let messages: Vec<_> = w.iter().map(|(m, l, _)| (m.as_str(), *l)).collect();
        assert_eq!(
            messages,
            [
                (
                    "Unknown key \"condition\" in node template \"a\"; did you mean \"conditions\"?",
                    6
                ),
                (
                    "Unknown key \"conditons\" in requirement \"host\" of node template \"a\"; did you mean \"conditions\"?",
                    8
                ),
                (
                    "Unknown key \"valeu\" in property \"p\" of node template \"a\"; did you mean \"value\"?",
                    11
                ),
            ]
        );
    }

    #[test]
    fn unknown_keys_in_every_section() {
        let w = messages(
            "tosca_definitions_version: tosca_variability_1_0
descripton: x
imports:
  - {file: a.yaml, condtions: true}
topology_template:
  nodes_templates: {}
  variability:
    input: {}
    plugins: {technology: [x.js]}
    inputs:
      env: {type: string, defualt: dev, default_expression: 1}
    presets:
      prod: {inputs: {evn: prod}, descripton: x}
  inputs:
    - i: {type: string, requried: true, conditions: true}
  outputs:
    o: {value: 1, condtions: false}
  relationship_templates:
    r: {type: t, conditions: true}
  groups:
    g: {type: t, members: [], memebers: []}
  policies:
    - p: {type: t, targets: [], target: []}
  node_templates:
    n:
      type:
        - t1: {conditions: true, conditons: true}
      artifacts:
        - a: {file: f, deploy_pth: x}
      capabilities:
        c: {properties: {cp: {value: 1, conditions: false}}, propertes: {}}
      technology:
        - terraform: {asign: x}
",
        );
        assert_eq!(
            w,
            [
                "Unknown key \"descripton\" in the service template; did you mean \"description\"?",
                "Unknown key \"condtions\" in import \"a.yaml\"; did you mean \"conditions\"?",
                "Unknown key \"nodes_templates\" in topology_template; did you mean \"node_templates\"?",
                "Unknown key \"input\" in the variability definition; did you mean \"inputs\"?",
                "\"plugins\" (technology rule plugins) are not supported by v4t and are ignored",
                "Variability input \"env\" is never used by a condition or an expression",
                "Unknown key \"defualt\" in variability input \"env\"; did you mean \"default\"?",
                "Variability preset \"prod\" assigns the undeclared variability input \"evn\"; did you mean \"env\"?",
                "Unknown key \"descripton\" in variability preset \"prod\"; did you mean \"description\"?",
                "Unknown key \"requried\" in input \"i\"; did you mean \"required\"?",
                "Unknown key \"condtions\" in output \"o\"; did you mean \"conditions\"?",
                "Key \"conditions\" has no effect in relationship template \"r\": it is not a conditional element",
                "Unknown key \"memebers\" in group \"g\"; did you mean \"members\"?",
                "Unknown key \"target\" in policy \"p\"; did you mean \"targets\"?",
                "Unknown key \"conditons\" in type \"t1\" of node template \"n\"; did you mean \"conditions\"?",
                "Unknown key \"deploy_pth\" in artifact \"a\" of node template \"n\"; did you mean \"deploy_path\"?",
                "Capability properties are not conditional elements: \"conditions\" of property \"cp\" of capability \"c\" of node template \"n\" is kept as part of its value",
                "Unknown key \"propertes\" in capability \"c\" of node template \"n\"; did you mean \"properties\"?",
                "Unknown key \"asign\" in technology \"terraform\" of node template \"n\"; did you mean \"assign\"?",
            ]
        );
    }

    #[test]
    fn options_unknown_and_outdated() {
        let w = messages(
            "topology_template:\n  variability:\n    options:\n      mode: manual\n      node_prunning: true\n      strict: true\n      enable_relation_pruning: true\n      optimization: min\n      disable_consistency_checks: true\n      frobnicate: 1\n      node_pruning: true\n",
        );
        assert_eq!(
            w,
            [
                "Unknown variability option \"node_prunning\"; did you mean \"node_pruning\"?",
                "Variability option \"strict\" is an outdated name and is ignored; use \"mode: strict\" instead",
                "Variability option \"enable_relation_pruning\" is an outdated name and is ignored; use \"relation_pruning\" instead",
                "Variability option \"optimization\" is an outdated name and is ignored; use \"optimization_topology\" instead",
                "Variability option \"disable_consistency_checks\" is an outdated name and is ignored; use \"consistency_checks: false\" instead",
                "Unknown variability option \"frobnicate\"",
            ]
        );
    }

    #[test]
    fn conditions_that_are_data() {
        let w = messages(
            "topology_template:\n  node_templates:\n    n:\n      type: t\n      properties:\n        p: {value: 1, conditions: false}\n    m:\n      type: t\n      properties:\n        - q: {conditions: false}\n        - r: {value: 1, conditions: false}\n",
        );
        assert_eq!(
            w,
            [
                "Property \"p\" of node template \"n\" is in map form, so its \"conditions\" is part of its value; write the properties as a list (- p: {value: ..., conditions: ...}) to make it conditional",
                "Property \"q\" of node template \"m\" has \"conditions\" but neither \"value\" nor \"expression\", so the whole map is its value",
            ]
        );
    }

    #[test]
    fn correct_templates_have_no_warnings() {
        let w = messages(
            "tosca_definitions_version: tosca_variability_1_0_rc_3
imports:
  - {file: a.yaml, conditions: true}
topology_template:
  variability:
    inputs:
      env: {type: string, default: dev}
    presets:
      prod: {name: Prod, inputs: {env: prod}}
    options: {mode: manual, node_pruning: true, optimization_topology: min}
  inputs:
    i: {type: string, conditions: {variability_input: env}}
  node_templates:
    n:
      type: [{t1: {conditions: true, default_alternative: true}}]
      properties:
        - p: {value: 1, conditions: false}
      artifacts: {a: {file: f, type: x}}
      capabilities: {c: {properties: {cp: 1}}}
      technology: [{terraform: {assign: x, weight: 1}}]
      requirements: [{host: {node: m, conditions: true}}]
    m: {type: t, persistent: true}
",
        );
        assert!(w.is_empty(), "{w:?}");
    }
}

/// A map of a template whose keys the warnings check and [`keynames`]
/// lists (for editors): TOSCA's entities, with their keynames from the one
/// table of the TOSCA layer ([`v4t_tosca::keynames()`]) and the keys
/// Variability4TOSCA adds, and Variability4TOSCA's own sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// The top level of the file.
    ServiceTemplate,
    /// The topology (TOSCA 1.3's or TOSCA 2.0's).
    Topology,
    /// The variability definition.
    Variability,
    /// A variability input.
    VariabilityInput,
    /// A variability preset.
    Preset,
    /// A topology input or output.
    Parameter,
    /// A node template.
    NodeTemplate,
    /// A requirement assignment.
    Requirement,
    /// A wrapped property (list form).
    Property,
    /// An artifact definition of a node template.
    Artifact,
    /// A capability assignment.
    Capability,
    /// A deployment technology of a node template.
    Technology,
    /// A type assignment (`type` in list form): element keys only.
    TypeAssignment,
    /// A relationship template.
    Relationship,
    /// A group.
    Group,
    /// A policy.
    Policy,
    /// An import definition.
    Import,
}

impl Entity {
    /// The TOSCA entity whose keynames the map has, if any, and whether
    /// only TOSCA 1.3's count on every base (variability inputs are
    /// Variability4TOSCA's, with TOSCA 1.3's parameter keys).
    fn tosca(self) -> Option<(ToscaEntity, bool)> {
        use Entity as E;
        Some(match self {
            E::ServiceTemplate => (ToscaEntity::File, false),
            E::Topology => (ToscaEntity::ServiceTemplate, false),
            E::VariabilityInput => (ToscaEntity::Parameter, true),
            E::Parameter => (ToscaEntity::Parameter, false),
            E::NodeTemplate => (ToscaEntity::NodeTemplate, false),
            E::Requirement => (ToscaEntity::RequirementAssignment, false),
            E::Artifact => (ToscaEntity::Artifact, false),
            E::Capability => (ToscaEntity::CapabilityAssignment, false),
            E::Relationship => (ToscaEntity::RelationshipTemplate, false),
            E::Group => (ToscaEntity::Group, false),
            E::Policy => (ToscaEntity::Policy, false),
            E::Import => (ToscaEntity::Import, false),
            E::Variability | E::Preset | E::Property | E::Technology | E::TypeAssignment => {
                return None
            }
        })
    }

    /// The Variability4TOSCA keys of the map besides the element keys.
    fn v4t(self) -> &'static Keys {
        use Entity as E;
        match self {
            E::Topology => &TOPOLOGY_KEYS,
            E::Variability => &VARIABILITY_KEYS,
            E::VariabilityInput => &VARIABILITY_INPUT_KEYS,
            E::Preset => &PRESET_KEYS,
            E::NodeTemplate => &NODE_KEYS,
            E::Property => &PROPERTY_KEYS,
            E::Technology => &TECHNOLOGY_KEYS,
            E::TypeAssignment => &V4T_ELEMENT_KEYS,
            _ => &NO_KEYS,
        }
    }

    /// Whether the map is a conditional element (element keys belong to it).
    fn conditional(self) -> bool {
        use Entity as E;
        matches!(
            self,
            E::Parameter
                | E::NodeTemplate
                | E::Requirement
                | E::Property
                | E::Artifact
                | E::Technology
                | E::Group
                | E::Policy
                | E::Import
        )
    }

    /// The TOSCA grammars whose keynames count on a base of `grammar`:
    /// TOSCA 1.3's, on a TOSCA 2.0 base also TOSCA 2.0's (keys TOSCA 2.0
    /// dropped are left to `v4t validate`, which says what replaced them).
    fn grammars(only_13: bool, grammar: Grammar) -> &'static [Grammar] {
        if only_13 || grammar == Grammar::Tosca13 {
            &[Grammar::Tosca13]
        } else {
            &[Grammar::Tosca13, Grammar::Tosca2]
        }
    }

    /// Whether `key` is a key of the map on a base of `grammar` (inlined
    /// into [`Lint::key`], where `self` is known).
    #[inline(always)]
    fn knows(self, key: &str, grammar: Grammar) -> bool {
        (self.v4t().contains)(key)
            || (self.conditional() && (V4T_ELEMENT_KEYS.contains)(key))
            || self.tosca().is_some_and(|(t, only_13)| {
                Entity::grammars(only_13, grammar)
                    .iter()
                    .any(|&g| v4t_tosca::is_keyname(t, g, key))
            })
    }

    /// The keys of the map on a base of `grammar`, in the order suggestions
    /// prefer them: TOSCA 1.3's, Variability4TOSCA's, those TOSCA 2.0 adds,
    /// the element keys.
    fn known(self, grammar: Grammar) -> impl Iterator<Item = &'static str> {
        let tosca = self.tosca();
        let grammars = tosca.map_or(&[][..], |(_, only_13)| Entity::grammars(only_13, grammar));
        let in_13 = grammars.contains(&Grammar::Tosca13);
        let in_2 = grammars.contains(&Grammar::Tosca2);
        let table = tosca.map_or(&[][..], |(t, _)| t.keynames());
        let v13 = table.iter().filter(move |k| in_13 && k.in_13);
        let v2 = table.iter().filter(move |k| in_2 && k.in_2 && !k.in_13);
        let elements = if self.conditional() {
            V4T_ELEMENT_KEYS.list
        } else {
            &[]
        };
        (v13.map(|k| k.name))
            .chain(self.v4t().list.iter().copied())
            .chain(v2.map(|k| k.name))
            .chain(elements.iter().copied())
            .filter(|k| *k != NO_KEYS.list[0])
    }
}

/// The keys v4t knows in `entity` (TOSCA's and Variability4TOSCA's; on a
/// TOSCA 2.0 base also those TOSCA 2.0 adds): the same keys the
/// unknown-key warnings check against, in the order they suggest them.
pub fn keynames(entity: Entity, grammar: Grammar) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for key in entity.known(grammar) {
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}
