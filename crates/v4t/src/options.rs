//! Variability options (`variability.options` of the topology): pruning
//! modes, per-version defaults and the precedence general < per element kind <
//! per element (part 1, section 6).
//!
//! Input: the template's version and raw options. Output: an [`Options`] value
//! with every option resolved; element-level overrides are resolved by the
//! enricher through [`Options::element`].

use crate::config::Version;
use crate::error::{Error, Result};
use crate::normalize::not_a_boolean;
use v4t_yaml::json::to_json;
use v4t_yaml::{Map, Node, Span};

/// The pruning mode of a version without `mode` (table 2.3).
fn default_mode(version: Version) -> &'static str {
    match version {
        Version::V1 | Version::Tosca2 => "manual",
        Version::V2 | Version::V3 => "semantic-loose",
    }
}

/// `automatic_default_alternatives` of the options `user` as written (read
/// by the first normalisation, which then deletes it, 3.10).
pub fn automatic_default_alternatives(user: Option<&Map>) -> Result<bool> {
    match user
        .and_then(|o| o.get("automatic_default_alternatives"))
        .filter(|n| n.is_defined())
    {
        None => Ok(false),
        Some(n) => n.as_bool().ok_or_else(|| not_a_boolean(n)),
    }
}

/// The options the enricher's transformer deletes (11.3): they only steer
/// enrichment, so the resolver graph sees their defaults.
pub fn is_enrichment_only(key: &str) -> bool {
    const GENERAL: [&str; 26] = [
        "mode",
        "default_condition",
        "node_default_condition_mode",
        "relation_default_condition_mode",
        "output_default_condition_mode",
        "relation_default_implied",
        "pruning",
        "consistency_pruning",
        "semantic_pruning",
        "relation_source_constraint",
        "relation_target_constraint",
        "artifact_container_constraint",
        "property_container_constraint",
        "type_container_constraint",
        "required_hosting_constraint",
        "required_technology_constraint",
        "unique_property_constraint",
        "unique_artifact_constraint",
        "unique_input_constraint",
        "unique_output_constraint",
        "required_artifact_constraint",
        "required_incoming_relation_constraint",
        "required_technology_check",
        "enrich_input_condition",
        "enrich_technologies",
        "enrich_implementations",
    ];
    const KINDS: [&str; 8] = [
        "node", "relation", "policy", "group", "artifact", "property", "type", "output",
    ];
    const SUFFIXES: [&str; 6] = [
        "default_condition",
        "default_consistency_condition",
        "default_semantic_condition",
        "pruning",
        "consistency_pruning",
        "semantic_pruning",
    ];
    GENERAL.contains(&key)
        || key
            .split_once('_')
            .is_some_and(|(kind, rest)| KINDS.contains(&kind) && SUFFIXES.contains(&rest))
}

/// The ten element kinds that have default-condition and pruning options.
pub const OPTION_KINDS: [&str; 10] = [
    "input",
    "node",
    "output",
    "relation",
    "policy",
    "group",
    "artifact",
    "property",
    "type",
    "technology",
];

/// Default-condition and pruning switches of one element kind (or element).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    pub default: bool,
    pub default_consistency: bool,
    pub default_semantic: bool,
    pub pruning: bool,
    pub consistency_pruning: bool,
    pub semantic_pruning: bool,
}

/// Every resolved option.
#[derive(Clone, Debug)]
pub struct Options {
    pub version: Version,
    kinds: [Switches; 10],
    modes: [Option<String>; 10],
    pub relation_default_implied: bool,
    pub checks: Checks,
    pub solver: SolverOptions,
    pub constraints: Constraints,
    pub fallback_property_default_alternative: bool,
    pub bratans_unknown: bool,
    pub enrich_input_condition: bool,
    pub enrich_technologies: bool,
    pub enrich_technologies_best_only: bool,
    pub enrich_implementations: bool,
    pub required_technology_check: bool,
    pub anchor_check: bool,
    pub automatic_default_alternatives: bool,
    /// The global node default condition mode (for the anchor check).
    pub node_mode: String,
}

/// Checker switches (part 1, 6.5).
#[derive(Clone, Debug, Default)]
pub struct Checks {
    pub relation_source: bool,
    pub relation_target: bool,
    pub ambiguous_hosting: bool,
    pub missing_artifact_container: bool,
    pub ambiguous_artifact: bool,
    pub missing_property_container: bool,
    pub ambiguous_property: bool,
    pub missing_type_container: bool,
    pub ambiguous_type: bool,
    pub missing_technology_container: bool,
    pub ambiguous_technology: bool,
    pub ambiguous_relation: bool,
    pub ambiguous_input: bool,
    pub ambiguous_output: bool,
    pub expected_hosting: bool,
    pub expected_incoming_relation: bool,
    pub expected_artifact: bool,
    pub expected_technology: bool,
    pub unconsumed_input: bool,
    pub unproduced_output: bool,
}

/// Topology or technology optimisation direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimize {
    Off,
    Min,
    Max,
}

/// Solver switches (part 1, 6.6).
#[derive(Clone, Debug)]
pub struct SolverOptions {
    pub topology: Optimize,
    pub topology_unique: bool,
    /// `true`: weight mode, `false`: count mode.
    pub topology_by_weight: bool,
    pub technologies: Optimize,
    pub technologies_unique: bool,
    /// `weight`, `count` or `weight-count`.
    pub technologies_mode: String,
    pub scenarios: bool,
    pub scenarios_unique: bool,
}

/// Constraint switches (part 1, 6.7).
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    pub relation_source: bool,
    pub relation_target: bool,
    pub relation_enhanced_implication_mode: bool,
    pub artifact_container: bool,
    pub property_container: bool,
    pub type_container: bool,
    pub required_hosting: bool,
    pub single_hosting: bool,
    pub required_technology: bool,
    pub unique_property: bool,
    pub unique_artifact: bool,
    pub unique_input: bool,
    pub unique_output: bool,
    pub unique_relation: bool,
    pub unique_technology: bool,
    pub required_incoming_relation: bool,
    pub required_artifact: bool,
}

/// The user's options plus the mode's partial assignment.
struct Raw<'a> {
    user: Option<&'a Map>,
    mode: Vec<(String, bool)>,
}

impl Raw<'_> {
    fn user_node(&self, key: &str) -> Option<&Node> {
        self.user
            .and_then(|m| m.get(key))
            .filter(|n| n.is_defined())
    }

    fn user(&self, key: &str) -> Result<Option<bool>> {
        match self.user_node(key) {
            None => Ok(None),
            Some(n) => n.as_bool().map(Some).ok_or_else(|| not_a_boolean(n)),
        }
    }

    fn mode(&self, key: &str) -> Option<bool> {
        self.mode.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// user ?? mode ?? fallback
    fn chain(&self, key: &str, fallback: bool) -> Result<bool> {
        Ok(self.user(key)?.or(self.mode(key)).unwrap_or(fallback))
    }

    fn or(&self, key: &str, fallback: bool) -> Result<bool> {
        Ok(self.user(key)?.unwrap_or(fallback))
    }

    fn string(&self, key: &str) -> Result<Option<String>> {
        match self.user_node(key) {
            None => Ok(None),
            Some(n) => n.as_str().map(|s| Some(s.to_string())).ok_or_else(|| {
                Error::at(
                    format!("Element \"{}\" is not a string", to_json(n)),
                    n.span,
                )
            }),
        }
    }
}

impl Options {
    /// Resolves the options of a template with version `version` and raw
    /// options `user` (`variability.options`).
    pub fn new(version: Version, user: Option<&Map>) -> Result<Options> {
        let mode_name = match user.and_then(|m| m.get("mode")).filter(|n| n.is_defined()) {
            None => default_mode(version).to_string(),
            Some(n) => n
                .as_str()
                .ok_or_else(|| {
                    Error::at(
                        format!("Element \"{}\" is not a string", to_json(n)),
                        n.span,
                    )
                })?
                .to_string(),
        };
        let mode_span = user
            .and_then(|m| m.get("mode"))
            .map(|n| n.span)
            .unwrap_or(Span::NONE);
        let mode = mode_table(&mode_name, version == Version::V3)
            .ok_or_else(|| Error::at(format!("Pruning mode \"{mode_name}\" unknown"), mode_span))?;
        let raw = Raw { user, mode };
        let v1 = version == Version::V1;
        let v3 = version == Version::V3;
        let v1_or_v2 = matches!(version, Version::V1 | Version::V2);

        let default_condition = raw.chain("default_condition", false)?;
        let pruning = raw.chain("pruning", false)?;
        let mut kinds = [Switches::default(); 10];
        let mut modes: [Option<String>; 10] = Default::default();
        for (i, k) in OPTION_KINDS.iter().enumerate() {
            let d = raw.chain(&format!("{k}_default_condition"), default_condition)?;
            let p = raw.chain(&format!("{k}_pruning"), pruning)?;
            kinds[i] = Switches {
                default: d,
                default_consistency: raw.chain(&format!("{k}_default_consistency_condition"), d)?,
                default_semantic: raw.chain(&format!("{k}_default_semantic_condition"), d)?,
                pruning: p,
                consistency_pruning: raw.chain(&format!("{k}_consistency_pruning"), p)?,
                semantic_pruning: raw.chain(&format!("{k}_semantic_pruning"), p)?,
            };
            let default_mode = match *k {
                "node" => Some(if v1 {
                    "incoming-artifact"
                } else {
                    "incomingnaive-artifact-host"
                }),
                "relation" => Some(if v3 {
                    "source-target-default"
                } else {
                    "source-target"
                }),
                "artifact" => Some(if v3 {
                    "container-managed-default"
                } else {
                    "container"
                }),
                "property" => Some(if v3 {
                    "container-consuming-default"
                } else {
                    "container-consuming"
                }),
                "technology" => Some(if v3 {
                    "container-other-scenario-default"
                } else {
                    "container-other-scenario"
                }),
                "output" => Some(if v3 { "produced-default" } else { "produced" }),
                _ => None,
            };
            if let Some(dm) = default_mode {
                modes[i] = Some(
                    raw.string(&format!("{k}_default_condition_mode"))?
                        .unwrap_or_else(|| dm.to_string()),
                );
            }
        }
        let node_mode = modes[1].clone().unwrap_or_default();

        let checks_all = raw.or("checks", v1_or_v2)?;
        let consistency = raw.or("consistency_checks", checks_all)?;
        let semantic = raw.or("semantic_checks", checks_all)?;
        let c = |key: &str| raw.or(key, consistency);
        let s = |key: &str| raw.or(key, semantic);
        let checks = Checks {
            relation_source: c("relation_source_check")?,
            relation_target: c("relation_target_check")?,
            ambiguous_hosting: c("ambiguous_hosting_check")?,
            missing_artifact_container: c("missing_artifact_container_check")?,
            ambiguous_artifact: c("ambiguous_artifact_check")?,
            missing_property_container: c("missing_property_container_check")?,
            ambiguous_property: c("ambiguous_property_check")?,
            missing_type_container: c("missing_type_container_check")?,
            ambiguous_type: c("ambiguous_type_check")?,
            missing_technology_container: c("missing_technology_container_check")?,
            ambiguous_technology: c("ambiguous_technology_check")?,
            ambiguous_relation: c("ambiguous_relation_check")?,
            ambiguous_input: c("ambiguous_input_check")?,
            ambiguous_output: c("ambiguous_output_check")?,
            expected_hosting: s("expected_hosting_check")?,
            expected_incoming_relation: s("expected_incoming_relation_check")?,
            expected_artifact: s("expected_artifact_check")?,
            expected_technology: s("expected_technology_check")?,
            unconsumed_input: raw.or(
                "unconsumed_input_check",
                if v1_or_v2 { false } else { semantic },
            )?,
            unproduced_output: raw.or(
                "unproduced_output_check",
                if v1_or_v2 { false } else { consistency },
            )?,
        };
        let required_technology_check = match raw.user_node("required_technology_check") {
            Some(n) => n.is_truthy(),
            None => semantic,
        };
        let anchor_check = raw.or("anchor_check", checks_all)?;

        let solver = solver_options(&raw, version)?;

        let constraints_user = raw.user("constraints")?;
        let all = constraints_user.unwrap_or(false);
        let rc = |key: &str| raw.or(key, all);
        let rc_true = |key: &str| -> Result<bool> {
            Ok(if v1 {
                raw.or(key, all)?
            } else {
                raw.user(key)?.or(constraints_user).unwrap_or(true)
            })
        };
        let constraints = Constraints {
            relation_source: rc("relation_source_constraint")?,
            relation_target: rc("relation_target_constraint")?,
            relation_enhanced_implication_mode: raw
                .or("relation_enhanced_implication_mode", true)?,
            artifact_container: rc("artifact_container_constraint")?,
            property_container: rc("property_container_constraint")?,
            type_container: rc("type_container_constraint")?,
            required_hosting: rc_true("required_hosting_constraint")?,
            single_hosting: rc("single_hosting_constraint")?,
            required_technology: rc_true("required_technology_constraint")?,
            unique_property: rc_true("unique_property_constraint")?,
            unique_artifact: rc_true("unique_artifact_constraint")?,
            unique_input: rc_true("unique_input_constraint")?,
            unique_output: rc_true("unique_output_constraint")?,
            unique_relation: rc_true("unique_relation_constraint")?,
            unique_technology: rc_true("unique_technology_constraint")?,
            required_incoming_relation: if v1 {
                rc("required_incoming_relation_constraint")?
            } else {
                raw.user("required_incoming_relation_constraint")?
                    .or(constraints_user)
                    .unwrap_or(false)
            },
            required_artifact: rc("required_artifact_constraint")?,
        };

        Ok(Options {
            version,
            kinds,
            modes,
            relation_default_implied: raw.or("relation_default_implied", !v1)?,
            checks,
            solver,
            constraints,
            fallback_property_default_alternative: raw
                .or("fallback_property_default_alternative", !v3)?,
            bratans_unknown: raw.or("bratans_unknown", false)?,
            enrich_input_condition: raw.or("enrich_input_condition", true)?,
            enrich_technologies: raw.or(
                "enrich_technologies",
                matches!(version, Version::V2 | Version::V3),
            )?,
            enrich_technologies_best_only: raw.or("enrich_technologies_best_only", true)?,
            enrich_implementations: raw.or("enrich_implementations", true)?,
            required_technology_check,
            anchor_check,
            automatic_default_alternatives: raw.or("automatic_default_alternatives", false)?,
            node_mode,
        })
    }

    /// The kind-level switches of `kind` (one of [`OPTION_KINDS`]).
    pub fn kind(&self, kind: &str) -> Switches {
        OPTION_KINDS
            .iter()
            .position(|k| *k == kind)
            .map(|i| self.kinds[i])
            .unwrap_or_default()
    }

    /// The kind-level default condition mode of `kind`, if the kind has one.
    pub fn kind_mode(&self, kind: &str) -> Option<&str> {
        OPTION_KINDS
            .iter()
            .position(|k| *k == kind)
            .and_then(|i| self.modes[i].as_deref())
    }

    /// The switches of one element: its own keys override the kind's (6.2).
    /// `anchor` disables default conditions and pruning of nodes.
    pub fn element(&self, kind: &str, raw: Option<&Map>, anchor: bool) -> Result<Switches> {
        let k = self.kind(kind);
        let get = |key: &str| -> Result<Option<bool>> {
            match raw.and_then(|m| m.get(key)).filter(|n| n.is_defined()) {
                None => Ok(None),
                Some(n) => n.as_bool().map(Some).ok_or_else(|| not_a_boolean(n)),
            }
        };
        let d = get("default_condition")?;
        let p = get("pruning")?;
        Ok(Switches {
            default: !anchor && d.unwrap_or(k.default),
            default_consistency: get("default_consistency_condition")?
                .or(d)
                .unwrap_or(k.default_consistency),
            default_semantic: get("default_semantic_condition")?
                .or(d)
                .unwrap_or(k.default_semantic),
            pruning: !anchor && p.unwrap_or(k.pruning),
            consistency_pruning: get("consistency_pruning")?
                .or(p)
                .unwrap_or(k.consistency_pruning),
            semantic_pruning: get("semantic_pruning")?.or(p).unwrap_or(k.semantic_pruning),
        })
    }
}

fn solver_options(raw: &Raw<'_>, version: Version) -> Result<SolverOptions> {
    let v1 = version == Version::V1;
    let optimize =
        |key: &str, default: Optimize, true_is: Optimize, message: &str| -> Result<Optimize> {
            match raw.user_node(key) {
                None => Ok(default),
                Some(n) => match (&n.value, n.as_str()) {
                    (v4t_yaml::Value::Bool(true), _) => Ok(true_is),
                    (v4t_yaml::Value::Bool(false), _) => Ok(Optimize::Off),
                    (_, Some("min")) => Ok(Optimize::Min),
                    (_, Some("max")) => Ok(Optimize::Max),
                    _ => Err(Error::at(message, n.span)),
                },
            }
        };
    let topology = optimize(
        "optimization_topology",
        if v1 { Optimize::Off } else { Optimize::Min },
        Optimize::Min,
        "Option optimization_topology must be a boolean, \"min\", or \"max\"",
    )?;
    let topology_by_weight = match raw.user_node("optimization_topology_mode") {
        None => true,
        Some(n) => match n.as_str() {
            Some("weight") => true,
            Some("count") => false,
            _ => {
                return Err(Error::at(
                    "Option optimization_topology_mode must be \"weight\" or \"count\"",
                    n.span,
                ))
            }
        },
    };
    let technologies = optimize(
        "optimization_technologies",
        if v1 { Optimize::Off } else { Optimize::Max },
        if v1 { Optimize::Min } else { Optimize::Max },
        "Option optimization_technologies must be a boolean, \"min\", or \"max\"",
    )?;
    let technologies_mode = match raw.user_node("optimization_technologies_mode") {
        None => (if v1 { "count" } else { "weight-count" }).to_string(),
        Some(n) => match n.as_str() {
            Some(m @ ("weight" | "count")) => m.to_string(),
            Some("weight-count") if !v1 => "weight-count".to_string(),
            _ => {
                return Err(Error::at(
                    if v1 {
                        "Option optimization_technology_mode must be \"weight\" or \"count\""
                    } else {
                        "Option optimization_technology_mode must be \"weight\", \"count\", or \"weight-count\""
                    },
                    n.span,
                ))
            }
        },
    };
    // Validated only: the topology uniqueness check always compares both
    // directions (the node sets of all optimal models), see `solve`.
    raw.or("optimization_topology_unique_backward", false)?;
    Ok(SolverOptions {
        topology,
        topology_unique: raw.or("optimization_topology_unique", true)?,
        topology_by_weight,
        technologies,
        technologies_unique: raw.or("optimization_technologies_unique", false)?,
        technologies_mode,
        scenarios: raw.or("optimization_scenarios", false)?,
        scenarios_unique: raw.or("optimization_scenarios_unique", false)?,
    })
}

/// The partial option assignment of a pruning mode (tables M1 and M2).
fn mode_table(mode: &str, rc3: bool) -> Option<Vec<(String, bool)>> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let topology = [
        "node",
        "relation",
        "policy",
        "group",
        "artifact",
        "property",
        "type",
        "technology",
    ];
    let all = OPTION_KINDS;
    let mut set = |k: String, v: bool| out.push((k, v));
    let d_off = |set: &mut dyn FnMut(String, bool), k: &str| {
        set(format!("{k}_default_condition"), false);
        set(format!("{k}_default_consistency_condition"), false);
        set(format!("{k}_default_semantic_condition"), false);
    };
    let p_off = |set: &mut dyn FnMut(String, bool), k: &str| {
        set(format!("{k}_pruning"), false);
        set(format!("{k}_consistency_pruning"), false);
        set(format!("{k}_semantic_pruning"), false);
    };
    let d_on = |set: &mut dyn FnMut(String, bool), k: &str| {
        set(format!("{k}_default_condition"), true);
        set(format!("{k}_default_consistency_condition"), true);
        set(format!("{k}_default_semantic_condition"), false);
    };
    let p_on = |set: &mut dyn FnMut(String, bool), k: &str| {
        set(format!("{k}_pruning"), true);
        set(format!("{k}_consistency_pruning"), true);
        set(format!("{k}_semantic_pruning"), false);
    };
    let io_off = |set: &mut dyn FnMut(String, bool)| {
        for k in ["input", "output"] {
            d_off(set, k);
            p_off(set, k);
        }
    };
    match (mode, rc3) {
        ("manual" | "strict", false) => io_off(&mut set),
        ("manual" | "strict", true) => {}
        ("consistent-strict", false) => {
            d_off(&mut set, "input");
            d_off(&mut set, "output");
            for k in topology {
                d_on(&mut set, k);
            }
        }
        ("consistent-strict", true) => {
            for k in all {
                d_on(&mut set, k);
            }
        }
        ("consistent-loose", false) => {
            p_off(&mut set, "input");
            p_off(&mut set, "output");
            for k in topology {
                p_on(&mut set, k);
            }
        }
        ("consistent-loose", true) => {
            for k in all {
                p_on(&mut set, k);
            }
        }
        ("default", false) => {
            set("default_condition".into(), true);
            io_off(&mut set);
        }
        ("default", true) => set("default_condition".into(), true),
        ("semantic-strict", false) => {
            set("default_condition".into(), true);
            io_off(&mut set);
            for k in topology {
                p_on(&mut set, k);
            }
        }
        ("semantic-strict", true) => {
            set("default_condition".into(), true);
            for k in all {
                p_on(&mut set, k);
            }
        }
        ("semantic-loose" | "loose", false) => {
            set("pruning".into(), true);
            io_off(&mut set);
        }
        ("semantic-loose" | "loose", true) => set("pruning".into(), true),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(version: Version, yaml: &[(&str, Node)]) -> Options {
        let mut m = Map::new();
        for (k, v) in yaml {
            m.insert(*k, v.clone());
        }
        Options::new(version, Some(&m)).expect("options")
    }

    #[test]
    fn rc2_semantic_loose_prunes_topology_but_not_inputs() {
        let o = opts(Version::V2, &[("pruning", Node::bool(true))]);
        assert!(o.kind("node").pruning);
        assert!(!o.kind("input").pruning, "M1 forces input pruning off");
        assert_eq!(o.solver.topology, Optimize::Min);
        assert!(o.constraints.unique_property);
        assert!(!o.constraints.single_hosting);
    }

    #[test]
    fn rc3_prunes_inputs_and_has_no_checks() {
        let o = opts(Version::V3, &[]);
        assert!(o.kind("input").pruning);
        assert!(!o.checks.relation_source);
        assert_eq!(o.kind_mode("relation"), Some("source-target-default"));
        assert!(!o.fallback_property_default_alternative);
    }

    #[test]
    fn v1_defaults_are_manual() {
        let o = opts(Version::V1, &[]);
        assert!(!o.kind("node").default && !o.kind("node").pruning);
        assert!(o.checks.relation_source);
        assert_eq!(o.kind_mode("node"), Some("incoming-artifact"));
        assert_eq!(o.solver.topology, Optimize::Off);
    }

    #[test]
    fn specific_keys_override_general_ones() {
        let o = opts(
            Version::V1,
            &[
                ("default_condition", Node::bool(true)),
                ("node_default_condition", Node::bool(false)),
            ],
        );
        assert!(!o.kind("node").default);
        assert!(o.kind("relation").default);
    }

    #[test]
    fn invalid_values_give_the_reference_messages() {
        let mut m = Map::new();
        m.insert("mode", Node::string("bogus"));
        let e = Options::new(Version::V1, Some(&m)).unwrap_err();
        assert_eq!(e.message, "Pruning mode \"bogus\" unknown");
        let mut m = Map::new();
        m.insert("pruning", Node::string("yes"));
        let e = Options::new(Version::V1, Some(&m)).unwrap_err();
        assert_eq!(e.message, "Element \"\"yes\"\" is not a boolean");
        let mut m = Map::new();
        m.insert("optimization_technologies_mode", Node::string("x"));
        let e = Options::new(Version::V1, Some(&m)).unwrap_err();
        assert_eq!(
            e.message,
            "Option optimization_technology_mode must be \"weight\" or \"count\""
        );
    }
}
