//! Completion. The cursor's place is read from the text around it, by
//! indentation, not from a parse: while typing, the buffer is rarely valid
//! YAML. Keynames come from the library's one table of known keys
//! (`v4t::keynames`), operators from its table of condition operators,
//! names from the last parse of the buffer, type names from the type
//! system of the file and its imports.

use lsp_types::{CompletionItem, CompletionItemKind, Position};
use v4t::{Entity, Grammar};
use v4t_tosca::Kind;

use crate::features::{Buffer, Parsed};
use crate::model::{Target, TOPOLOGY_KEYS};
use crate::text::offset;

/// Where the cursor is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// The keys of the enclosing entries, outermost first (list items
    /// leave no key).
    pub(crate) path: Vec<String>,
    /// `Some(key)` when the cursor is in the value of `key` (`key: |`,
    /// also inside flow collections), `None` at a key.
    pub(crate) value_of: Option<String>,
}

/// The place of the cursor at `pos`.
pub(crate) fn place(text: &str, pos: Position) -> Place {
    let at = offset(text, pos);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let indent = indentation(before);
    let mut path: Vec<String> = Vec::new();
    let mut limit = indent;
    for line in text[..line_start].lines().rev() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let i = indentation(line);
        if i < limit {
            if let Some(k) = key_of(line) {
                path.push(k.to_string());
            }
            limit = i;
            if limit == 0 {
                break;
            }
        }
    }
    path.reverse();
    // Keys of flow mappings opened on the cursor's line enclose it too
    // (`conditions: {and: [{|`).
    for (i, _) in before.match_indices(['{', '[']) {
        if let Some(k) = before[..i].trim_end().strip_suffix(':').map(last_word) {
            path.push(k.to_string());
        }
    }
    // The key whose value the cursor is in: the last `key:` before it on
    // its line, unless a flow mapping's next key is being typed.
    let value_of = before
        .rfind([':', '{', ',', '['])
        .filter(|&i| before[i..].starts_with(':'))
        .map(|colon| last_word(&before[..colon]).to_string())
        .filter(|k| !k.is_empty());
    Place { path, value_of }
}

/// The last key-like word of `s` (quotes and list markers dropped).
fn last_word(s: &str) -> &str {
    let start = s.rfind(['{', ',', ' ', '-', '[']).map_or(0, |i| i + 1);
    s[start..].trim().trim_matches(['"', '\''])
}

/// Columns of leading blanks and list markers (`  - ` counts as 4).
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '-']).len()
}

/// The key of a `key:` line (`- key:` too).
fn key_of(line: &str) -> Option<&str> {
    let t = line.trim_start_matches([' ', '-']);
    let colon = t.find(':')?;
    let k = t[..colon].trim().trim_matches(['"', '\'']);
    (!k.is_empty() && !k.contains(['{', '[', ' '])).then_some(k)
}

/// The map whose keys are at `path`.
fn entity(path: &[String]) -> Option<Entity> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let topology = |k: &str| TOPOLOGY_KEYS.contains(&k);
    Some(match p.as_slice() {
        [] => Entity::ServiceTemplate,
        ["imports", ..] => Entity::Import,
        [t] if topology(t) => Entity::Topology,
        [t, "variability"] if topology(t) => Entity::Variability,
        [t, "variability", "inputs", _] if topology(t) => Entity::VariabilityInput,
        [t, "variability", "presets", _] if topology(t) => Entity::Preset,
        [t, "inputs" | "outputs", _] if topology(t) => Entity::Parameter,
        [t, "node_templates", _] if topology(t) => Entity::NodeTemplate,
        [t, "node_templates", _, "requirements", _] if topology(t) => Entity::Requirement,
        [t, "node_templates", _, "properties", _] if topology(t) => Entity::Property,
        [t, "node_templates", _, "artifacts", _] if topology(t) => Entity::Artifact,
        [t, "node_templates", _, "capabilities", _] if topology(t) => Entity::Capability,
        [t, "node_templates", _, "technology", _] if topology(t) => Entity::Technology,
        [t, "relationship_templates", _] if topology(t) => Entity::Relationship,
        [t, "groups", _] if topology(t) => Entity::Group,
        [t, "policies", _] if topology(t) => Entity::Policy,
        _ => return None,
    })
}

/// The kind of type a `type:` at `path` names.
fn type_kind(path: &[String]) -> Option<Kind> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    Some(match p.as_slice() {
        [.., "node_templates", _] => Kind::Node,
        [.., "relationship_templates", _] | [.., "relationship"] => Kind::Relationship,
        [.., "groups", _] => Kind::Group,
        [.., "policies", _] => Kind::Policy,
        [.., "artifacts", _] => Kind::Artifact,
        [.., "capabilities", _] => Kind::Capability,
        [.., "interfaces", _] => Kind::Interface,
        [.., "inputs" | "outputs" | "properties" | "attributes", _] => Kind::Data,
        _ => return None,
    })
}

/// Whether `path` is inside a condition (where operator names are keys).
fn in_condition(path: &[String]) -> bool {
    path.iter().any(|k| {
        matches!(
            k.as_str(),
            "conditions" | "constraints" | "expressions" | "default_condition"
        ) || v4t::operator_names().any(|o| o == k)
    })
}

fn items(
    names: impl IntoIterator<Item = String>,
    kind: CompletionItemKind,
    detail: &str,
) -> Vec<CompletionItem> {
    names
        .into_iter()
        .map(|label| CompletionItem {
            label,
            kind: Some(kind),
            detail: Some(detail.to_string()),
            ..Default::default()
        })
        .collect()
}

impl Buffer<'_> {
    /// The completions at `pos`; `parsed` is the last parse of the buffer
    /// (names defined in it).
    pub(crate) fn complete(&self, parsed: Option<&Parsed>, pos: Position) -> Vec<CompletionItem> {
        let place = place(self.text, pos);
        let names = |t: Target| -> Vec<String> {
            parsed
                .map(|p| p.model.names(t).into_iter().map(String::from).collect())
                .unwrap_or_default()
        };
        let grammar = if self.text.contains("service_template:") || self.text.contains("tosca_2_0")
        {
            Grammar::Tosca2
        } else {
            Grammar::Tosca13
        };
        match place.value_of.as_deref() {
            Some("type" | "derived_from") => {
                let kind = match place.value_of.as_deref() {
                    Some("derived_from") => place
                        .path
                        .iter()
                        .find_map(|k| Kind::ALL.into_iter().find(|kind| kind.section() == k)),
                    _ => type_kind(&place.path),
                };
                kind.map(|k| self.type_names(k)).unwrap_or_default()
            }
            Some("variability_input") => items(
                names(Target::VariabilityInput),
                CompletionItemKind::VARIABLE,
                "variability input",
            ),
            Some("logic_expression" | "value_expression") => items(
                names(Target::Expression),
                CompletionItemKind::FUNCTION,
                "expression",
            ),
            Some("get_input" | "$get_input") => {
                items(names(Target::Input), CompletionItemKind::VARIABLE, "input")
            }
            Some("node_presence" | "node") => items(
                names(Target::Node),
                CompletionItemKind::REFERENCE,
                "node template",
            ),
            Some(_)
                if place.path.iter().any(|k| k == "requirements")
                    && place.path.iter().any(|k| k == "node_templates") =>
            {
                items(
                    names(Target::Node),
                    CompletionItemKind::REFERENCE,
                    "node template",
                )
            }
            Some(_) => Vec::new(),
            None => self.keys(&place, grammar, &names),
        }
    }

    fn keys(
        &self,
        place: &Place,
        grammar: Grammar,
        names: &dyn Fn(Target) -> Vec<String>,
    ) -> Vec<CompletionItem> {
        let p = &place.path;
        if p.len() >= 2 && p[p.len() - 1] == "inputs" && p.iter().any(|k| k == "presets") {
            return items(
                names(Target::VariabilityInput),
                CompletionItemKind::VARIABLE,
                "variability input",
            );
        }
        let mut out = Vec::new();
        if in_condition(p) {
            out.extend(items(
                v4t::operator_names().map(String::from),
                CompletionItemKind::OPERATOR,
                "condition operator",
            ));
        }
        if let Some(e) = entity(p) {
            out.extend(items(
                v4t::keynames(e, grammar).into_iter().map(String::from),
                CompletionItemKind::PROPERTY,
                "keyname",
            ));
        }
        out
    }

    fn type_names(&self, kind: Kind) -> Vec<CompletionItem> {
        let Some(l) = crate::types::load(self.path, self.text, self.buffers, self.loaders) else {
            return Vec::new();
        };
        let ts = v4t_tosca::TypeSystem::build(&l.loaded);
        items(
            ts.visible_names(v4t_tosca::load::DocId(0), kind),
            CompletionItemKind::CLASS,
            kind.noun(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Place {
        let i = text.find('|').unwrap();
        let text = text.replace('|', "");
        let p = crate::text::position(&text, i);
        place(&text, p)
    }

    #[test]
    fn places_by_indentation() {
        let t = "topology_template:\n  node_templates:\n    web:\n      requirements:\n        - host: |\n";
        assert_eq!(
            at(t),
            Place {
                path: vec![
                    "topology_template".into(),
                    "node_templates".into(),
                    "web".into(),
                    "requirements".into()
                ],
                value_of: Some("host".into())
            }
        );
        let t = "topology_template:\n  node_templates:\n    web:\n      ty|\n  other: 1\n";
        let p = at(t);
        assert_eq!(p.path, ["topology_template", "node_templates", "web"]);
        assert_eq!(p.value_of, None);
        assert_eq!(entity(&p.path), Some(Entity::NodeTemplate));
        let t = "topology_template:\n  node_templates:\n    web:\n      conditions: {variability_input: |}\n";
        assert_eq!(at(t).value_of.as_deref(), Some("variability_input"));
    }
}
