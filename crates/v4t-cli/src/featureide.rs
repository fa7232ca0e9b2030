//! FeatureIDE extended configurations (`inputs.xml`) as variability inputs,
//! the second inputs-file format of the reference implementation
//! (part 2, section 2.2).
//!
//! Every `<feature>` becomes a boolean input (selected automatically or
//! manually) and every `<attribute>` of a feature an input named
//! `<feature>_<attribute>`, with the `__name`, `__name_<attribute>` and
//! `__full_name_<attribute>` overrides. Only the small subset of XML these
//! files use is read: elements, attributes and the five predefined entities.

use crate::loose::loose_parse;
use v4t_yaml::{Map, Node};

/// One XML start tag: its name, attributes and whether it closes itself.
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
    self_closing: bool,
}

impl Tag {
    fn get(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Lower case, spaces to `_` (the reference's name normalisation).
fn normalize(name: &str) -> String {
    name.to_lowercase().replace(' ', "_")
}

/// Reads the inputs of a FeatureIDE configuration.
pub fn inputs_from_featureide(text: &str) -> Result<Map, String> {
    let mut inputs = Map::new();
    let mut feature: Option<(Tag, Vec<Tag>)> = None;
    for item in tags(text)? {
        match item {
            Item::Open(tag) if tag.name == "feature" => {
                if tag.self_closing {
                    add_feature(&mut inputs, &tag, &[]);
                } else {
                    feature = Some((tag, Vec::new()));
                }
            }
            Item::Open(tag) if tag.name == "attribute" => {
                if let Some((_, attributes)) = feature.as_mut() {
                    attributes.push(tag);
                }
            }
            Item::Close(name) if name == "feature" => {
                if let Some((tag, attributes)) = feature.take() {
                    add_feature(&mut inputs, &tag, &attributes);
                }
            }
            _ => {}
        }
    }
    Ok(inputs)
}

fn add_feature(inputs: &mut Map, feature: &Tag, attributes: &[Tag]) {
    let raw_name = feature.get("name").unwrap_or_default();
    let attribute = |key: &str| {
        attributes
            .iter()
            .find(|a| a.get("name") == Some(key))
            .and_then(|a| a.get("value"))
    };
    let name = match attribute("__name") {
        Some(n) => n.to_string(),
        None => normalize(raw_name),
    };
    let selected =
        feature.get("automatic") == Some("selected") || feature.get("manual") == Some("selected");
    inputs.insert(name.clone(), Node::bool(selected));
    for a in attributes {
        let Some(attr_name) = a.get("name").filter(|n| !n.starts_with("__")) else {
            continue;
        };
        let key = match attribute(&format!("__full_name_{attr_name}")) {
            Some(full) => full.to_string(),
            None => {
                let part = attribute(&format!("__name_{attr_name}"))
                    .map(str::to_string)
                    .unwrap_or_else(|| normalize(attr_name));
                format!("{name}_{part}")
            }
        };
        let value = loose_scalar(a.get("value").unwrap_or_default());
        inputs.insert(normalize(&key), value);
    }
}

/// `"3"` → 3, `"2.5"` → 2.5, `"true"` → true, anything else stays text.
fn loose_scalar(text: &str) -> Node {
    let parsed = loose_parse(text);
    if parsed.as_f64().is_some() || parsed.as_bool().is_some() {
        parsed
    } else {
        Node::string(text)
    }
}

enum Item {
    Open(Tag),
    Close(String),
}

/// The start and end tags of `text`; comments, declarations and text are skipped.
fn tags(text: &str) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(after) = rest.strip_prefix("!--") {
            let end = after.find("-->").ok_or("unterminated XML comment")?;
            rest = &after[end + 3..];
            continue;
        }
        let end = tag_end(rest).ok_or("unterminated XML tag")?;
        let inner = &rest[..end];
        rest = &rest[end + 1..];
        if inner.starts_with('?') || inner.starts_with('!') {
            continue;
        }
        if let Some(name) = inner.strip_prefix('/') {
            out.push(Item::Close(name.trim().to_string()));
            continue;
        }
        let self_closing = inner.ends_with('/');
        let inner = inner.trim_end_matches('/');
        let name_end = inner.find(char::is_whitespace).unwrap_or(inner.len());
        out.push(Item::Open(Tag {
            name: inner[..name_end].to_string(),
            attributes: attributes(&inner[name_end..])?,
            self_closing,
        }));
    }
    Ok(out)
}

/// The position of the `>` that ends a tag, skipping quoted values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `key="value"` pairs of a start tag.
fn attributes(mut s: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Ok(out);
        }
        let eq = s
            .find('=')
            .ok_or_else(|| format!("malformed XML attribute \"{s}\""))?;
        let key = s[..eq].trim().to_string();
        let value_part = s[eq + 1..].trim_start();
        let quote = value_part
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .ok_or_else(|| format!("unquoted XML attribute \"{key}\""))?;
        let body = &value_part[1..];
        let close = body
            .find(quote)
            .ok_or_else(|| format!("unterminated XML attribute \"{key}\""))?;
        out.push((key, unescape(&body[..close])));
        s = &body[close + 1..];
    }
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::json::to_json;

    #[test]
    fn features_and_attributes_become_inputs() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<extendedConfiguration>
    <!-- a comment -->
    <feature automatic="undefined" manual="selected" name="Root"/>
    <feature automatic="selected" manual="undefined" name="Cloud Provider">
        <attribute name="Monthly Cost" value="3"/>
        <attribute name="ratio" value="2.5"/>
        <attribute name="label" value="a &amp; b"/>
    </feature>
    <feature automatic="unselected" manual="undefined" name="Backup">
        <attribute name="__name" value="has_backup"/>
        <attribute name="enabled" value="true"/>
        <attribute name="region" value="eu"/>
        <attribute name="__name_region" value="where"/>
        <attribute name="size" value="10"/>
        <attribute name="__full_name_size" value="Backup Size"/>
    </feature>
</extendedConfiguration>"#;
        let inputs = inputs_from_featureide(xml).expect("parses");
        assert_eq!(
            to_json(&Node::map(inputs)),
            r#"{"root":true,"cloud_provider":true,"cloud_provider_monthly_cost":3,"cloud_provider_ratio":2.5,"cloud_provider_label":"a & b","has_backup":false,"has_backup_enabled":true,"has_backup_where":"eu","backup_size":10}"#
        );
    }

    #[test]
    fn malformed_xml_is_an_error() {
        assert!(inputs_from_featureide("<feature name=\"x").is_err());
        assert!(inputs_from_featureide("<feature name=x/>").is_err());
    }
}
