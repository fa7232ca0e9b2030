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
use v4t_yaml::{js_yaml_reads_alike, parse_with, Map, Node, Schema, SourceId, Span, Value};

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

/// The template `id` read with the schema of its base grammar, and that
/// grammar: a TOSCA 1.3 template as the reference reads it (js-yaml's
/// schema), a TOSCA 2.0 one with the YAML 1.2 core schema (values as
/// written: no timestamps, `1.0` stays a float). js-yaml's reading tells
/// the grammar and raises its errors first, as the reference would.
///
/// A text that says it is TOSCA 2.0 at its top ([`written_as_tosca2`]) is
/// read with the core schema first. If that reading tells TOSCA 2.0 and
/// js-yaml's schema reads the text alike ([`v4t_yaml::js_yaml_reads_alike`]:
/// it would succeed, with the same keys, so the same grammar), it is the
/// only reading; the flat 4.6 MB benchmark file's `v4t graph` took a
/// quarter of its instructions to read the text a second time.
fn read_template(sources: &Sources, id: SourceId) -> Result<(Node, Grammar)> {
    let text = sources.get(id).map(|f| f.text()).unwrap_or("");
    if written_as_tosca2(text) {
        if let Ok(doc) = template_document(sources, id, Schema::Core) {
            if matches!(detect(&doc), Ok(Grammar::Tosca2)) && js_yaml_reads_alike(&doc, text) {
                return Ok((doc, Grammar::Tosca2));
            }
        }
    }
    let doc = template_document(sources, id, Schema::JsYaml)?;
    let grammar = detect(&doc)?;
    if grammar == Grammar::Tosca13 {
        return Ok((doc, grammar));
    }
    // The first tree goes before the second is made (two trees of a large
    // file at once were the peak).
    drop(doc);
    Ok((template_document(sources, id, Schema::Core)?, grammar))
}

/// The base grammar of a template's reading.
fn detect(doc: &Node) -> Result<Grammar> {
    crate::version::detect_grammar(doc).map_err(|e| e.or_code(Code::DefinitionsVersion))
}

/// Whether the text's first lines say `tosca_definitions_version:
/// tosca_2_0` (a hint only: [`read_template`] decides by reading).
fn written_as_tosca2(text: &str) -> bool {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].lines().any(|line| {
        let Some(value) = line.strip_prefix("tosca_definitions_version:") else {
            return false;
        };
        // A comment may follow the value.
        let value = value.split(" #").next().unwrap_or_default();
        value.trim().trim_matches(['"', '\'']) == "tosca_2_0"
    })
}

/// Loads the template `id` and everything it refers to; tells its base
/// grammar.
pub(crate) fn load(
    sources: &mut Sources,
    id: SourceId,
    loader: &mut dyn Loader,
) -> Result<(Node, LoadedTypes, Grammar)> {
    let (mut doc, grammar) = read_template(sources, id)?;
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

#[cfg(test)]
mod reading_tests {
    use super::written_as_tosca2;

    /// The hint reads the version as it is usually written at the top;
    /// anything else is read twice, as before.
    #[test]
    fn the_hint_finds_the_version_line() {
        for text in [
            "tosca_definitions_version: tosca_2_0\n",
            "# a template\ntosca_definitions_version: 'tosca_2_0'  # TOSCA 2.0\r\n",
            "description: x\ntosca_definitions_version: \"tosca_2_0\"\n",
        ] {
            assert!(written_as_tosca2(text), "{text:?}");
        }
        for text in [
            "tosca_definitions_version: tosca_simple_yaml_1_3\n",
            "  tosca_definitions_version: tosca_2_0\n",
            "description: tosca_definitions_version: tosca_2_0\n",
            "",
        ] {
            assert!(!written_as_tosca2(text), "{text:?}");
        }
        // Only the first 4 KiB are looked at, cut at a character boundary.
        let late = format!(
            "{}\ntosca_definitions_version: tosca_2_0\n",
            "é".repeat(3000)
        );
        assert!(!written_as_tosca2(&late));
    }

    /// A TOSCA 2.0 template is read once where js-yaml's schema reads it
    /// alike, and twice where it does not: js-yaml's errors come first
    /// either way, and values are the core schema's.
    #[test]
    fn a_tosca_2_template_keeps_js_yaml_errors_and_core_values() {
        let template = |property: &str| {
            format!(
                "tosca_definitions_version: tosca_2_0
node_types:
  App:
    properties:
      p: {{type: string}}
service_template:
  node_templates:
    app:
      type: App
      properties:
        p: {property}
"
            )
        };
        // Read once: the date stays the string it is written as.
        let once = crate::testing::resolve_text(&template("2024-01-02"), &[], None);
        assert!(once.is_ok_and(|doc| crate::to_yaml(&doc).contains("p: '2024-01-02'\n")));
        // `!!binary` is refused (js-yaml would make bytes of it), and its
        // error stands.
        let error = crate::testing::resolve_error(&template("!!binary aGVsbG8="), None);
        assert!(error.is_some_and(|e| e.message.starts_with("`!!binary` values are not supported")));
        // A key js-yaml reads as a date: read twice, the same output.
        let key = template("{2024-01-02: x}");
        let twice = crate::testing::resolve_text(&key, &[], None);
        assert!(twice.is_ok_and(|doc| crate::to_yaml(&doc).contains("'2024-01-02': x")));
    }
}
