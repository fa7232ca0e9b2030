//! Loading: parses the template and pulls in what it refers to: type-specific
//! conditions, technology rules ("qualities") and, on a TOSCA 1.3 base, types
//! from `lib/` beside the template (part 1, 2.2).
//!
//! The base grammar ([`Grammar`]) decides how the text is read: a TOSCA 1.3
//! template as the reference reads it (js-yaml's schema), a TOSCA 2.0 one
//! with the YAML 1.2 core schema, so that every value stays what was written
//! (`1.0` a float, a date a string). The template's own imports are not read
//! here: TOSCA 1.3 imports are conditional elements only, TOSCA 2.0 imports
//! are read by the type system ([`crate::types`]).

use crate::document;
use crate::error::{Error, Result};
use crate::version::Grammar;
use v4t_source::{Code, Loader, Sources};
use v4t_tosca::Kind;
use v4t_yaml::hash::SeededSet;
use v4t_yaml::{parse_with, Map, Node, Schema, SourceId, Span, Value};

/// The template's path in the repository its loader reads (the one path
/// every import of the template and of its resolved form is relative to):
/// the path the loader read it from, else its file name (the loader of a
/// template the caller read itself reads the files beside it), else
/// `template.yaml` (standard input).
pub(crate) fn template_path(sources: &Sources, id: SourceId) -> String {
    let Some(file) = sources.get(id) else {
        return "template.yaml".to_string();
    };
    if let Some(path) = &file.path {
        return path.clone();
    }
    let name = file.name.rsplit(['/', '\\']).next().unwrap_or_default();
    if name.is_empty() || name == "<stdin>" {
        "template.yaml".to_string()
    } else {
        name.to_string()
    }
}

/// The type collections types are loaded into, in the reference's order
/// (which is the TOSCA layer's order of kinds).
fn loaded_collections() -> impl Iterator<Item = &'static str> {
    Kind::ALL.into_iter().map(Kind::section)
}

/// Types that came from `lib/` (removed again from the output).
#[derive(Clone, Debug, Default)]
pub(crate) struct LoadedTypes {
    /// Type names per collection, in the order of [`loaded_collections`].
    names: [SeededSet<String>; Kind::ALL.len()],
}

impl LoadedTypes {
    /// Whether type `name` of `collection` was loaded (no allocation: the
    /// output filter asks this for every type of the template).
    pub(crate) fn contains(&self, collection: &str, name: &str) -> bool {
        loaded_collections()
            .position(|c| c == collection)
            .is_some_and(|i| self.names[i].contains(name))
    }
}

/// Parses a source text into a document (js-yaml's schema).
pub(crate) fn parse_source(sources: &Sources, id: SourceId) -> Result<Node> {
    parse_source_with(sources, id, Schema::JsYaml)
}

fn parse_source_with(sources: &Sources, id: SourceId, schema: Schema) -> Result<Node> {
    let text = sources.get(id).map(|f| f.text()).unwrap_or("");
    parse_with(text, id, schema).map_err(|e| Error::coded(Code::Yaml, e.message, e.span))
}

/// The template `id` as a document, read with `schema`: a map (an empty
/// text is an empty map).
fn template_document(sources: &Sources, id: SourceId, schema: Schema) -> Result<Node> {
    let mut doc = parse_source_with(sources, id, schema)?;
    if doc.is_null() {
        doc = Node::new(Value::Map(Map::new()), doc.span);
    }
    if doc.as_map().is_none() {
        let message = "Unsupported TOSCA definitions version";
        return Err(Error::coded(Code::DefinitionsVersion, message, doc.span));
    }
    Ok(doc)
}

/// Loads the template `id` and everything it refers to; tells its base
/// grammar.
pub(crate) fn load(
    sources: &mut Sources,
    id: SourceId,
    loader: &mut dyn Loader,
) -> Result<(Node, LoadedTypes, Grammar)> {
    let mut doc = template_document(sources, id, Schema::JsYaml)?;
    let grammar =
        crate::version::detect_grammar(&doc).map_err(|e| e.or_code(Code::DefinitionsVersion))?;
    if grammar == Grammar::Tosca2 {
        // Values as written: the core schema reads no timestamps, and
        // `Form` keeps `1.0` a float. The first reading goes before the
        // second is made (two trees of a large file at once were the peak).
        drop(std::mem::take(&mut doc));
        doc = template_document(sources, id, Schema::Core)?;
    }
    // Parsed: the text is needed again only to quote it and, on TOSCA 2.0,
    // for the checks of a resolved variant, which read how keys and
    // integers are written; `SourceFile::text` reads it again then.
    sources.release(id);
    if document::topology(&doc).is_some_and(Node::is_defined) {
        load_referenced(
            sources,
            &mut doc,
            loader,
            "type_specific_conditions",
            &["type-specific-conditions.yaml"],
        )?;
        load_referenced(
            sources,
            &mut doc,
            loader,
            "qualities",
            // The reference's names, then the spec's.
            &[
                "qualities.yaml",
                "lib/qualities.yaml",
                "rules.yaml",
                "lib/rules.yaml",
            ],
        )?;
    }
    let loaded = match grammar {
        Grammar::Tosca13 => load_types(sources, &mut doc, loader)?,
        // Types come from imports (`lib/` is the reference's TOSCA 1.3
        // convention).
        Grammar::Tosca2 => LoadedTypes::default(),
    };
    Ok((doc, loaded, grammar))
}

fn read(
    sources: &mut Sources,
    loader: &mut dyn Loader,
    path: &str,
    span: Span,
) -> Result<Option<Node>> {
    match loader.read(path) {
        Ok(None) => Ok(None),
        Ok(Some(text)) => {
            let id = sources.add_loaded(path, text);
            parse_source(sources, id).map(Some)
        }
        Err(message) => Err(Error::coded(Code::File, message, span)),
    }
}

/// `variability.<key>`: a string is a file to load; absent means the first
/// existing default file.
fn load_referenced(
    sources: &mut Sources,
    doc: &mut Node,
    loader: &mut dyn Loader,
    key: &str,
    defaults: &[&str],
) -> Result<()> {
    let current = document::variability(doc)
        .and_then(|v| v.get(key))
        .filter(|n| n.is_defined());
    let loaded = match current {
        Some(n) => match n.as_str() {
            Some(path) => {
                let (path, span) = (path.to_string(), n.span);
                match read(sources, loader, &path, span)? {
                    Some(d) => Some(d),
                    None => {
                        let message = format!("File \"{path}\" does not exist");
                        return Err(Error::coded(Code::File, message, span));
                    }
                }
            }
            None => return Ok(()),
        },
        None => {
            let mut found = None;
            for d in defaults {
                if let Some(n) = read(sources, loader, d, Span::NONE)? {
                    found = Some(n);
                    break;
                }
            }
            found
        }
    };
    if let Some(value) = loaded {
        let Some(tt) = document::topology_map_mut(doc) else {
            return Ok(());
        };
        if let Some(v) = tt.map_entry("variability") {
            v.insert(key, value);
        }
    }
    Ok(())
}

fn load_types(
    sources: &mut Sources,
    doc: &mut Node,
    loader: &mut dyn Loader,
) -> Result<LoadedTypes> {
    let mut files: Vec<(String, Node)> = Vec::new();
    for path in loader.lib_files() {
        if let Some(n) = read(sources, loader, &path, Span::NONE)? {
            files.push((path, n));
        }
    }
    let mut loaded = LoadedTypes::default();
    let Some(root) = doc.as_map_mut() else {
        return Ok(loaded);
    };
    for (path, file) in files {
        let Some(version) = file
            .get("tosca_definitions_version")
            .filter(|v| v.is_defined())
        else {
            continue;
        };
        if version.as_str() != Some("tosca_simple_yaml_1_3") {
            let shown = version
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v4t_yaml::json::to_json(version));
            return Err(Error::coded(
                Code::DefinitionsVersion,
                format!("TOSCA definitions version \"{shown}\" not supported"),
                version.span,
            ));
        }
        for (slot, collection) in loaded_collections().enumerate() {
            let Some(target) = root.map_entry(collection) else {
                continue;
            };
            let Some(types) = file.get(collection).and_then(Node::as_map) else {
                continue;
            };
            for (k, v) in types.iter() {
                if target.contains_key(&k.name) {
                    return Err(Error::coded(
                        Code::Duplicate,
                        format!(
                            "{collection} \"{}\" duplicated in service template \"{path}\"",
                            k.name
                        ),
                        k.span,
                    ));
                }
                if v.get("derived_from").and_then(Node::as_str) == Some(k.name.as_str()) {
                    return Err(Error::coded(
                        Code::InvalidShape,
                        format!("{collection} \"{}\" is derived from itself...", k.name),
                        k.span,
                    ));
                }
                target.push(k.clone(), v.clone());
                loaded.names[slot].insert(k.name.to_string());
            }
        }
    }
    Ok(loaded)
}

/// Removes the loaded types again (and type collections left empty).
pub(crate) fn remove_loaded_types(doc: &mut Node, loaded: &LoadedTypes) {
    let Some(root) = doc.as_map_mut() else { return };
    for collection in loaded_collections() {
        let Some(types) = root.get_mut(collection).and_then(Node::as_map_mut) else {
            continue;
        };
        types.retain(|k, _| !loaded.contains(collection, &k.name));
        if types.is_empty() {
            root.remove(collection);
        }
    }
}

#[cfg(test)]
mod rules_tests {
    use crate::{resolve, Loader, ResolveOptions, Sources};
    use v4t_yaml::json::to_json;

    /// Files beside the template, from memory.
    struct Files(Vec<(&'static str, &'static str)>);

    impl Loader for Files {
        fn read(&mut self, path: &str) -> Result<Option<String>, String> {
            Ok(self
                .0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string()))
        }

        fn lib_files(&mut self) -> Vec<String> {
            Vec::new()
        }
    }

    const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0_rc_3
node_types:
  application: {}
  terraform_host: {}
topology_template:
  variability:
    options: {hosting_stack_constraint: false}
  node_templates:
    app:
      type: application
      anchor: true
      requirements: [{host: vm}]
    vm: {type: terraform_host, managed: false}
";

    /// The node types of the resolved template, by node.
    fn types(files: Vec<(&'static str, &'static str)>, template: &str) -> String {
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", template);
        let out = resolve(
            &mut sources,
            id,
            &mut Files(files),
            &ResolveOptions::default(),
        )
        .map(|r| r.template)
        .map_err(|e| e.message.clone())
        .expect("resolves");
        let nodes = out
            .get("topology_template")
            .and_then(|t| t.get("node_templates"))
            .expect("nodes");
        to_json(nodes)
    }

    /// The spec's rules: map form `{<technology>: [rules]}`, a single
    /// hosting type, in the default file `rules.yaml` (issue 12).
    #[test]
    fn spec_form_rules_from_rules_yaml() {
        let rules = "- {component: other, technology: ansible}\n";
        let spec_rules = "terraform:\n  - component: application\n    hosting: terraform_host\n";
        let want = r#"{"app":{"type":"application~application::terraform@terraform_host","requirements":[{"host":"vm"}]},"vm":{"type":"terraform_host"}}"#;
        assert_eq!(types(vec![("rules.yaml", spec_rules)], TEMPLATE), want);
        assert_eq!(types(vec![("lib/rules.yaml", spec_rules)], TEMPLATE), want);
        // `qualities.yaml` (the reference's name) comes first.
        let other = types(
            vec![("qualities.yaml", spec_rules), ("rules.yaml", rules)],
            TEMPLATE,
        );
        assert_eq!(other, want);
        // Inline, too.
        let inline = TEMPLATE.replace(
            "    options: {hosting_stack_constraint: false}\n",
            "    options: {hosting_stack_constraint: false}\n    qualities:\n      terraform: [{component: application, hosting: terraform_host}]\n",
        );
        assert_eq!(types(vec![], &inline), want);
    }

    /// `technology: [ansible]`: plain technology names (issue 12).
    #[test]
    fn technology_lists_of_names() {
        let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    app: {type: app, technology: [Ansible]}
";
        assert_eq!(types(vec![], t), r#"{"app":{"type":"app~app::ansible"}}"#);
    }
}
