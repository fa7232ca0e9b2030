//! Variability inputs from the outside world: environment variables, inputs
//! files and `--input NAME=VALUE` assignments, combined with lodash-`merge`
//! semantics as the reference implementation (OpenTOSCA Vintner) does.
//!
//! Kept separate from the commands because `v4t resolve` and `v4t test` build
//! their inputs the same way.

use crate::loose::{loose_parse, unspanned};
use v4t::{deep_merge, Code, Error, Sources};
use v4t_yaml::{Map, Node, SourceId, Value};

/// Prefix of the environment variables that carry variability inputs.
pub const ENV_PREFIX: &str = "OPENTOSCA_VINTNER_VARIABILITY_INPUT_";

/// The inputs carried by environment variables
/// `OPENTOSCA_VINTNER_VARIABILITY_INPUT_<NAME>` (key: `NAME` lower-cased,
/// value: [`loose_parse`]d).
pub fn env_inputs() -> Map {
    // Variables that are not valid Unicode cannot be meant for us; skip them.
    let vars = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    inputs_from_vars(vars)
}

/// [`env_inputs`] over an explicit list of variables (testable).
pub fn inputs_from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Map {
    let mut vars: Vec<_> = vars
        .into_iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix(ENV_PREFIX)?;
            (!name.is_empty()).then(|| (name.to_lowercase(), v))
        })
        .collect();
    // The environment has no order; make the result deterministic.
    vars.sort();
    let mut map = Map::new();
    for (name, value) in vars {
        map.insert(name, loose_parse(&value));
    }
    map
}

/// The value of `--input NAME=VALUE`: a YAML scalar (`80` is a number,
/// `true` a boolean, `'x'` a string), a flow list or flow map if written as
/// one, and the raw text otherwise. The empty text is the empty string.
pub fn assignment_value(text: &str) -> Node {
    if text.trim().is_empty() {
        return Node::string(text);
    }
    match v4t_yaml::parse(text, SourceId(u32::MAX)) {
        // `a: b` is a block map to YAML but surely meant as text here.
        Ok(node) if node.as_map().is_some() && !text.trim_start().starts_with('{') => {
            Node::string(text)
        }
        Ok(node) => unspanned(node),
        Err(_) => Node::string(text),
    }
}

/// Builds the inputs map from the inputs file `id` of `sources` (so that
/// errors point into it; its name says whether it is a FeatureIDE `.xml`):
/// the environment inputs `env` with the file's map deep-merged over them.
/// An empty file counts as an empty map.
pub fn inputs_from_file(sources: &Sources, env: &Map, id: SourceId) -> Result<Node, Error> {
    let (name, text) = sources
        .get(id)
        .map(|f| (f.name.as_str(), f.text()))
        .unwrap_or_default();
    if name.ends_with(".xml") {
        let file = crate::featureide::inputs_from_featureide(text).map_err(|e| {
            let message = format!("Inputs file \"{name}\" is not a FeatureIDE configuration: {e}");
            Error::coded(Code::InvalidInput, message, v4t::Span::NONE)
        })?;
        let mut inputs = Node::map(env.clone());
        deep_merge(&mut inputs, &Node::map(file));
        return Ok(inputs);
    }
    let file =
        v4t_yaml::parse(text, id).map_err(|e| Error::coded(Code::Yaml, e.message, e.span))?;
    let mut inputs = Node::map(env.clone());
    match &file.value {
        Value::Null => {}
        Value::Map(_) => deep_merge(&mut inputs, &file),
        other => {
            return Err(Error::coded(
                Code::InvalidInput,
                format!(
                    "Variability inputs in \"{name}\" must be a map, not a {}",
                    other.kind_name()
                ),
                file.span,
            ))
        }
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loose::is_json_number;
    use v4t_yaml::deep_equal;

    #[test]
    fn json_numbers() {
        for ok in ["0", "-1", "1.5", "1e5", "-0.5E-3"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["01", "1.", ".5", "1e", "-", "0x10", "1_000"] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }

    #[test]
    fn env_names_are_lower_cased_and_non_json_stays_text() {
        let map = inputs_from_vars([
            (format!("{ENV_PREFIX}MODE"), "prod".to_string()),
            ("OTHER".to_string(), "1".to_string()),
        ]);
        assert_eq!(map.len(), 1);
        assert!(deep_equal(
            &map.get("mode").unwrap().value,
            &Value::String("prod".into())
        ));
    }
}
