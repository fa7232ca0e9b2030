//! Variability options (`variability.options` of the topology): pruning
//! modes, per-version defaults and the precedence general < per element kind <
//! per element (part 1, section 6): the user's keys of a kind, then the
//! mode's keys of that kind, then the user's general keys, then the mode's.
//!
//! Input: the template's version and raw options. Output: an [`Options`] value
//! with every option resolved; element-level overrides are resolved by the
//! enricher through [`Options::element`].

use crate::error::{Error, Result};
use crate::kind::Kind;
use crate::normalize::not_a_boolean;
use crate::version::Version;
use v4t_yaml::json::to_json;
use v4t_yaml::{MapRef, Node, NodeRef, Span, ValueRef};

/// The pruning mode of a version without `mode` (table 2.3).
fn default_mode(version: Version) -> &'static str {
    match version {
        Version::V1 | Version::Tosca2 => "manual",
        Version::V2 | Version::V3 => "semantic-loose",
    }
}

/// `automatic_default_alternatives` of the options `user` as written (read
/// by the first normalisation, which then deletes it, 3.10).
pub(crate) fn automatic_default_alternatives(user: Option<MapRef<'_>>) -> Result<bool> {
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
pub(crate) fn is_enrichment_only(key: &str) -> bool {
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

/// The element kinds that have default-condition and pruning options, in
/// the order the reference reads their options (which decides which of
/// several bad values is reported).
const OPTION_KINDS: [Kind; 10] = [
    Kind::Input,
    Kind::Node,
    Kind::Output,
    Kind::Relation,
    Kind::Policy,
    Kind::Group,
    Kind::Artifact,
    Kind::Property,
    Kind::Type,
    Kind::Technology,
];

/// The kinds the pruning modes call "topology" (all but inputs and outputs).
const TOPOLOGY_KINDS: [Kind; 8] = [
    Kind::Node,
    Kind::Relation,
    Kind::Policy,
    Kind::Group,
    Kind::Artifact,
    Kind::Property,
    Kind::Type,
    Kind::Technology,
];

/// One of the six default-condition and pruning switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Switch {
    Default,
    DefaultConsistency,
    DefaultSemantic,
    Pruning,
    ConsistencyPruning,
    SemanticPruning,
}

impl Switch {
    const ALL: [Switch; 6] = [
        Switch::Default,
        Switch::DefaultConsistency,
        Switch::DefaultSemantic,
        Switch::Pruning,
        Switch::ConsistencyPruning,
        Switch::SemanticPruning,
    ];

    /// The option key of the switch, without a kind prefix.
    fn suffix(self) -> &'static str {
        match self {
            Switch::Default => "default_condition",
            Switch::DefaultConsistency => "default_consistency_condition",
            Switch::DefaultSemantic => "default_semantic_condition",
            Switch::Pruning => "pruning",
            Switch::ConsistencyPruning => "consistency_pruning",
            Switch::SemanticPruning => "semantic_pruning",
        }
    }

    /// The option key of the switch for `kind` (`None`: the general key).
    fn key(self, kind: Option<Kind>) -> String {
        match kind {
            Some(k) => format!("{}_{}", k.word(), self.suffix()),
            None => self.suffix().to_string(),
        }
    }
}

/// Every option key [`Options::read`] reads besides the per-kind ones
/// (`<kind>_<switch>` and `<kind>_default_condition_mode`).
const GLOBAL_OPTION_KEYS: &[&str] = &[
    "mode",
    "default_condition",
    "pruning",
    "relation_default_implied",
    "checks",
    "consistency_checks",
    "semantic_checks",
    "relation_source_check",
    "relation_target_check",
    "ambiguous_hosting_check",
    "missing_artifact_container_check",
    "ambiguous_artifact_check",
    "missing_property_container_check",
    "ambiguous_property_check",
    "missing_type_container_check",
    "ambiguous_type_check",
    "missing_technology_container_check",
    "ambiguous_technology_check",
    "ambiguous_relation_check",
    "ambiguous_input_check",
    "ambiguous_output_check",
    "expected_hosting_check",
    "expected_incoming_relation_check",
    "expected_artifact_check",
    "expected_technology_check",
    "unconsumed_input_check",
    "unproduced_output_check",
    "required_technology_check",
    "anchor_check",
    "optimization_topology",
    "optimization_topology_unique",
    "optimization_topology_unique_backward",
    "optimization_topology_mode",
    "optimization_technologies",
    "optimization_technologies_unique",
    "optimization_technologies_mode",
    "optimization_scenarios",
    "optimization_scenarios_unique",
    "constraints",
    "relation_source_constraint",
    "relation_target_constraint",
    "relation_enhanced_implication_mode",
    "artifact_container_constraint",
    "property_container_constraint",
    "type_container_constraint",
    "required_hosting_constraint",
    // The latest draft's wider keys of the hosting and technology constraints.
    "hosting_stack_constraint",
    "technology_constraint",
    "single_hosting_constraint",
    "required_technology_constraint",
    "unique_property_constraint",
    "unique_artifact_constraint",
    "unique_input_constraint",
    "unique_output_constraint",
    "unique_relation_constraint",
    "unique_technology_constraint",
    "required_incoming_relation_constraint",
    "required_artifact_constraint",
    "fallback_property_default_alternative",
    "bratans_unknown",
    "enrich_input_condition",
    "enrich_technologies",
    "enrich_technologies_best_only",
    "enrich_implementations",
    "automatic_default_alternatives",
    // v4t: which relationship types host (TOSCA 2.0 has no normative
    // `HostedOn`).
    "hosting_relationship_types",
];

/// `hosting_relationship_types` as written: a type name or a list of them.
fn hosting_relationship_types(user: Written<'_>) -> Result<Option<Vec<Node>>> {
    let Some(n) = user.get("hosting_relationship_types") else {
        return Ok(None);
    };
    let list = match n.value() {
        ValueRef::String(_) => vec![n.to_node()],
        ValueRef::Seq(items) => items.iter().map(NodeRef::to_node).collect(),
        _ => {
            return Err(Error::at(
                format!("Element \"{}\" is not an array", to_json(n)),
                n.span(),
            ))
        }
    };
    if let Some(bad) = list.iter().find(|i| i.as_str().is_none()) {
        return Err(Error::at(
            format!("Element \"{}\" is not a string", to_json(bad)),
            bad.span,
        ));
    }
    Ok(Some(list))
}

/// Whether `key` is an option v4t reads (as the reference does).
pub(crate) fn is_known_option(key: &str) -> bool {
    GLOBAL_OPTION_KEYS.contains(&key) || per_kind_options().any(|k| k == key)
}

/// Every option key v4t reads, in a fixed order (for suggestions).
pub(crate) fn known_options() -> Vec<String> {
    let mut keys: Vec<String> = GLOBAL_OPTION_KEYS.iter().map(|k| k.to_string()).collect();
    keys.extend(per_kind_options());
    keys
}

/// The per-kind option keys, kind by kind.
fn per_kind_options() -> impl Iterator<Item = String> {
    OPTION_KINDS.into_iter().flat_map(|kind| {
        let switches = Switch::ALL.map(|s| s.key(Some(kind)));
        let mode = default_kind_mode(kind, Version::V1)
            .map(|_| format!("{}_default_condition_mode", kind.word()));
        switches.into_iter().chain(mode)
    })
}

/// Option keys of earlier Variability4TOSCA drafts (and names the latest
/// draft uses but the reference never read), with what to write instead.
/// The reference ignores all of them silently.
pub(crate) const RENAMED_OPTIONS: &[(&str, &str)] = &[
    // 1.0 release candidate, early drafts.
    (
        "enable_relation_default_condition",
        "relation_default_condition",
    ),
    (
        "enable_policy_default_condition",
        "policy_default_condition",
    ),
    ("enable_group_default_condition", "group_default_condition"),
    (
        "enable_artifact_default_condition",
        "artifact_default_condition",
    ),
    (
        "enable_property_default_condition",
        "property_default_condition",
    ),
    ("enable_relation_pruning", "relation_pruning"),
    ("enable_policy_pruning", "policy_pruning"),
    ("enable_group_pruning", "group_pruning"),
    ("enable_artifact_pruning", "artifact_pruning"),
    ("enable_property_pruning", "property_pruning"),
    ("disable_consistency_checks", "consistency_checks: false"),
    (
        "disable_relation_source_consistency_check",
        "relation_source_check: false",
    ),
    (
        "disable_relation_target_consistency_check",
        "relation_target_check: false",
    ),
    (
        "disable_ambiguous_hosting_consistency_check",
        "ambiguous_hosting_check: false",
    ),
    (
        "disable_expected_hosting_consistency_check",
        "expected_hosting_check: false",
    ),
    (
        "disable_missing_artifact_parent_consistency_check",
        "missing_artifact_container_check: false",
    ),
    (
        "disable_ambiguous_artifact_consistency_check",
        "ambiguous_artifact_check: false",
    ),
    (
        "disable_missing_property_parent_consistency_check",
        "missing_property_container_check: false",
    ),
    (
        "disable_ambiguous_property_consistency_check",
        "ambiguous_property_check: false",
    ),
    // 1.0 release candidate, middle drafts.
    ("strict", "mode: strict"),
    ("relation_source_consistency_check", "relation_source_check"),
    ("relation_target_consistency_check", "relation_target_check"),
    (
        "ambiguous_hosting_consistency_check",
        "ambiguous_hosting_check",
    ),
    (
        "expected_hosting_consistency_check",
        "expected_hosting_check",
    ),
    (
        "missing_artifact_parent_consistency_check",
        "missing_artifact_container_check",
    ),
    (
        "ambiguous_artifact_consistency_check",
        "ambiguous_artifact_check",
    ),
    (
        "missing_property_parent_consistency_check",
        "missing_property_container_check",
    ),
    (
        "ambiguous_property_consistency_check",
        "ambiguous_property_check",
    ),
    ("optimization", "optimization_topology"),
];

/// Default-condition and pruning switches of one element kind (or element).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Switches {
    /// Default conditions are generated.
    pub default: bool,
    /// ... among them the consistency ones.
    pub default_consistency: bool,
    /// ... among them the semantic ones.
    pub default_semantic: bool,
    /// Pruning conditions are generated.
    pub pruning: bool,
    /// ... among them the consistency ones.
    pub consistency_pruning: bool,
    /// ... among them the semantic ones.
    pub semantic_pruning: bool,
}

/// A token of a default condition mode (9.3): which statement about the
/// element its default condition contains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModeToken {
    /// `host`: a host is present.
    Host,
    /// `source`: a source of an incoming relation (nodes) or the relation's
    /// source (relations) is present.
    Source,
    /// `target`: the relation's target is present.
    Target,
    /// `incoming`: a present incoming relation with a present source.
    Incoming,
    /// `relation`: the spec's per-node name of `incoming`.
    Relation,
    /// `incomingnaive`: a present incoming relation.
    IncomingNaive,
    /// `outgoing`: a present outgoing relation with a present target.
    Outgoing,
    /// `outgoingnaive`: a present outgoing relation.
    OutgoingNaive,
    /// `artifact`: an artifact whose manual conditions hold.
    Artifact,
    /// `artifactnaive`: a present artifact.
    ArtifactNaive,
    /// `container`: the container is present.
    Container,
    /// `consuming`: a consumed element is present.
    Consuming,
    /// `managed`: a technology that manages the artifact is present.
    Managed,
    /// `technology`: the spec's name of `managed`.
    Technology,
    /// `other`: no other technology of the node is present.
    Other,
    /// `scenario`: the technology's scenario is realised.
    Scenario,
    /// `produced`: a producing node is present.
    Produced,
    /// `default`: the element is the default alternative.
    Default,
    /// Anything else (an error where an element of the kind is enriched).
    Unknown,
}

impl ModeToken {
    /// The token written `s`.
    pub(crate) fn parse(s: &str) -> ModeToken {
        match s {
            "host" => ModeToken::Host,
            "source" => ModeToken::Source,
            "target" => ModeToken::Target,
            "incoming" => ModeToken::Incoming,
            "relation" => ModeToken::Relation,
            "incomingnaive" => ModeToken::IncomingNaive,
            "outgoing" => ModeToken::Outgoing,
            "outgoingnaive" => ModeToken::OutgoingNaive,
            "artifact" => ModeToken::Artifact,
            "artifactnaive" => ModeToken::ArtifactNaive,
            "container" => ModeToken::Container,
            "consuming" => ModeToken::Consuming,
            "managed" => ModeToken::Managed,
            "technology" => ModeToken::Technology,
            "other" => ModeToken::Other,
            "scenario" => ModeToken::Scenario,
            "produced" => ModeToken::Produced,
            "default" => ModeToken::Default,
            _ => ModeToken::Unknown,
        }
    }
}

/// A default condition mode: `-`-separated tokens, parsed once. Tokens are
/// checked per element kind where they are used; the text stays for
/// messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mode {
    text: String,
    tokens: Vec<ModeToken>,
}

impl Mode {
    /// The mode written `text`.
    pub(crate) fn parse(text: &str) -> Mode {
        Mode {
            text: text.to_string(),
            tokens: tokens(text).collect(),
        }
    }

    /// The mode as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Its tokens, in order.
    pub(crate) fn tokens(&self) -> &[ModeToken] {
        &self.tokens
    }

    /// Whether the text names incoming relations and hosts (the anchor check
    /// of 5.6 tests the mode's text for both words, as the reference does).
    pub(crate) fn names_incoming_and_host(&self) -> bool {
        self.text.contains("incoming") && self.text.contains("host")
    }
}

/// The tokens of a mode text (for an element's own mode, parsed where read).
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = ModeToken> + '_ {
    text.split('-').map(ModeToken::parse)
}

/// Every resolved option.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// Switches per [`Kind`] (by `Kind as usize`; imports have none).
    kinds: [Switches; 11],
    /// Default condition modes per [`Kind`] (the kinds that have one).
    modes: [Option<Mode>; 11],
    /// Relations are implied unless they say otherwise or are hosting relations.
    pub relation_default_implied: bool,
    /// The consistency and semantic checks.
    pub checks: Checks,
    /// The optimisation.
    pub solver: SolverOptions,
    /// The generated constraints.
    pub constraints: Constraints,
    /// Mode A of the fallback properties (5.3).
    pub fallback_property_default_alternative: bool,
    /// No fallback properties (the resolver graph's).
    pub bratans_unknown: bool,
    /// The input-name condition (9.7).
    pub enrich_input_condition: bool,
    /// Technologies from the technology rules (8.4).
    pub enrich_technologies: bool,
    /// Only the best-rated technologies of a scenario.
    pub enrich_technologies_best_only: bool,
    /// Implementations from the technology rules (8.5).
    pub enrich_implementations: bool,
    /// A managed node must have a technology (8.4).
    pub required_technology_check: bool,
    /// At least one anchor or implied node (5.6).
    pub anchor_check: bool,
    /// `hosting_relationship_types`: the relationship types (as written)
    /// whose relations are hosting relations, with their derivations;
    /// `None`: the defaults of the base grammar ([`crate::graph::Hosting`]).
    pub hosting_relationship_types: Option<Vec<Node>>,
}

/// Checker switches (part 1, 6.5).
#[derive(Clone, Debug, Default)]
#[allow(missing_docs)] // each is the check of the same name (6.5)
pub(crate) struct Checks {
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
pub(crate) enum Optimize {
    /// No optimisation.
    Off,
    /// Minimise.
    Min,
    /// Maximise.
    Max,
}

/// What the technology optimisation counts (`optimization_technologies_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TechnologiesMode {
    /// The sum of the technologies' weights.
    Weight,
    /// The number of technologies.
    Count,
    /// The weights first, then the number (in the opposite direction).
    WeightCount,
}

impl TechnologiesMode {
    /// Whether a weight objective comes first.
    pub(crate) fn weighs(self) -> bool {
        matches!(
            self,
            TechnologiesMode::Weight | TechnologiesMode::WeightCount
        )
    }

    /// Whether a count objective is part of it.
    pub(crate) fn counts(self) -> bool {
        matches!(
            self,
            TechnologiesMode::Count | TechnologiesMode::WeightCount
        )
    }
}

/// Solver switches (part 1, 6.6).
#[derive(Clone, Debug)]
pub(crate) struct SolverOptions {
    /// Topology optimisation.
    pub topology: Optimize,
    /// The optimal topology must be unique.
    pub topology_unique: bool,
    /// `true`: weight mode, `false`: count mode.
    pub topology_by_weight: bool,
    /// Technology optimisation.
    pub technologies: Optimize,
    /// The optimal technologies must be unique.
    pub technologies_unique: bool,
    /// What the technology optimisation counts.
    pub technologies_mode: TechnologiesMode,
    /// Scenario optimisation.
    pub scenarios: bool,
    /// The optimal scenarios must be unique.
    pub scenarios_unique: bool,
}

/// Constraint switches (part 1, 6.7).
#[derive(Clone, Debug, Default)]
#[allow(missing_docs)] // each is the constraint of the same name (6.7)
pub(crate) struct Constraints {
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

/// One assignment of a pruning mode's table: a switch of a kind (`None`:
/// the general switch).
type ModeEntry = (Option<Kind>, Switch, bool);

/// Which of the written options a reading of them sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// Every option as written (the enricher's).
    Written,
    /// The resolver graph's, as the reference's resolver sees the options:
    /// without `automatic_default_alternatives` (the first normalisation
    /// deletes it), without the enrichment-only options if the enricher ran
    /// (`enriched`: its transformer deletes them, 11.3), and with
    /// `bratans_unknown` set (no fallback properties).
    Resolver {
        /// Whether the enricher ran.
        enriched: bool,
    },
}

/// `variability.options` as written, seen through a [`View`]: one map read
/// twice, never copied or edited.
#[derive(Clone, Copy)]
struct Written<'a> {
    map: Option<MapRef<'a>>,
    view: View,
}

impl<'a> Written<'a> {
    /// The defined value of `key` this view sees.
    fn get(self, key: &str) -> Option<NodeRef<'a>> {
        if let View::Resolver { enriched } = self.view {
            if key == "automatic_default_alternatives" || (enriched && is_enrichment_only(key)) {
                return None;
            }
        }
        self.map?.get(key).filter(|n| n.is_defined())
    }
}

/// The user's options plus the mode's partial assignment.
struct Raw<'a> {
    user: Written<'a>,
    mode: Vec<ModeEntry>,
}

/// `Element "<json>" is not a string`.
fn not_a_string(n: NodeRef<'_>) -> Error {
    Error::at(
        format!("Element \"{}\" is not a string", to_json(n)),
        n.span(),
    )
}

impl<'a> Raw<'a> {
    fn user_node(&self, key: &str) -> Option<NodeRef<'a>> {
        // Keeps the list the unknown-option warnings use complete.
        debug_assert!(
            is_known_option(key),
            "option {key} missing in the known options"
        );
        self.user.get(key)
    }

    fn user(&self, key: &str) -> Result<Option<bool>> {
        match self.user_node(key) {
            None => Ok(None),
            Some(n) => n.as_bool().map(Some).ok_or_else(|| not_a_boolean(n)),
        }
    }

    /// The mode's value of a switch of `kind` (`None`: general), if its
    /// table sets it.
    fn mode(&self, kind: Option<Kind>, switch: Switch) -> Option<bool> {
        self.mode
            .iter()
            .find(|(k, s, _)| *k == kind && *s == switch)
            .map(|(_, _, v)| *v)
    }

    /// The value of a switch whose keys `keys` run from the most specific
    /// to the general one: the user's per-kind keys (specific first), then
    /// the mode's per-kind keys, then the user's general key, then the
    /// mode's, else `false`. So a kind's key the user sets beats the one the
    /// mode sets, which beats the user's general key, as in the reference
    /// (the v1 and rc_2 modes switch inputs and outputs off whatever
    /// `default_condition` or `pruning` say); unlike the reference, a
    /// user's kind key (`input_pruning`) also beats the mode's more specific
    /// keys of that kind (`input_consistency_pruning`), which would
    /// otherwise silently switch it off.
    fn layered(&self, keys: &[(Option<Kind>, Switch)]) -> Result<bool> {
        for per_kind in [true, false] {
            let tier = || keys.iter().filter(|(kind, _)| kind.is_some() == per_kind);
            for &(kind, switch) in tier() {
                if let Some(b) = self.user(&switch.key(kind))? {
                    return Ok(b);
                }
            }
            if let Some(b) = tier().find_map(|&(kind, switch)| self.mode(kind, switch)) {
                return Ok(b);
            }
        }
        Ok(false)
    }

    fn or(&self, key: &str, fallback: bool) -> Result<bool> {
        Ok(self.user(key)?.unwrap_or(fallback))
    }

    fn string(&self, key: &str) -> Result<Option<&'a str>> {
        match self.user_node(key) {
            None => Ok(None),
            Some(n) => n.as_str().map(Some).ok_or_else(|| not_a_string(n)),
        }
    }
}

impl Options {
    /// The options of version `version` that `user` holds.
    fn seen(version: Version, user: Written<'_>) -> Result<Options> {
        let raw = Raw {
            user,
            mode: pruning_mode(version, user)?,
        };
        let (kinds, modes) = kind_options(&raw, version)?;
        let v1_or_v2 = matches!(version, Version::V1 | Version::V2);
        let checks_all = raw.or("checks", v1_or_v2)?;
        let (checks, semantic) = checks(&raw, version, checks_all)?;
        let required_technology_check = match raw.user_node("required_technology_check") {
            Some(n) => n.is_truthy(),
            None => semantic,
        };
        let anchor_check = raw.or("anchor_check", checks_all)?;
        let solver = solver_options(&raw, version)?;
        let constraints = constraints(&raw, version)?;
        let v1 = version == Version::V1;
        let v3 = version == Version::V3;
        // Read by the first normalisation (and validated here).
        raw.or("automatic_default_alternatives", false)?;
        Ok(Options {
            kinds,
            modes,
            relation_default_implied: raw.or("relation_default_implied", !v1)?,
            checks,
            solver,
            constraints,
            fallback_property_default_alternative: raw
                .or("fallback_property_default_alternative", !v3)?,
            bratans_unknown: user.view != View::Written || raw.or("bratans_unknown", false)?,
            enrich_input_condition: raw.or("enrich_input_condition", true)?,
            enrich_technologies: raw.or(
                "enrich_technologies",
                matches!(version, Version::V2 | Version::V3),
            )?,
            enrich_technologies_best_only: raw.or("enrich_technologies_best_only", true)?,
            enrich_implementations: raw.or("enrich_implementations", true)?,
            required_technology_check,
            anchor_check,
            hosting_relationship_types: hosting_relationship_types(user)?,
        })
    }

    /// The options `view` sees of `user` (`variability.options`), for a
    /// template of version `version` and base grammar `grammar`. On a
    /// TOSCA 2.0 base, unless the template sets the options (or a wider
    /// one): a managed node needs no technology (TOSCA 2.0 knows no
    /// deployment technologies; otherwise every node of a template without
    /// technology rules would be forced absent under the `tosca_2_0`
    /// defaults), and requirement assignments of one name are no
    /// alternatives (`unique_relation_constraint`, `ambiguous_relation_check`
    /// are off).
    pub(crate) fn read(
        version: Version,
        grammar: crate::version::Grammar,
        user: Option<MapRef<'_>>,
        view: View,
    ) -> Result<Options> {
        let user = Written { map: user, view };
        let mut options = Options::seen(version, user)?;
        if grammar == crate::version::Grammar::Tosca13 {
            return Ok(options);
        }
        let written = |keys: &[&str]| keys.iter().any(|k| user.get(k).is_some());
        if !written(&[
            "required_technology_constraint",
            "technology_constraint",
            "constraints",
        ]) {
            options.constraints.required_technology = false;
        }
        if !written(&[
            "unique_technology_constraint",
            "technology_constraint",
            "constraints",
        ]) {
            options.constraints.unique_technology = false;
        }
        // Several assignments of one requirement are TOSCA 2.0's way to
        // establish several relationships (§8.5.4), not alternatives.
        if !written(&["unique_relation_constraint", "constraints"]) {
            options.constraints.unique_relation = false;
        }
        if !written(&["ambiguous_relation_check", "consistency_checks", "checks"]) {
            options.checks.ambiguous_relation = false;
        }
        Ok(options)
    }

    /// The kind-level switches of `kind`.
    pub(crate) fn kind(&self, kind: Kind) -> Switches {
        self.kinds[kind as usize]
    }

    /// The kind-level default condition mode of `kind`, if the kind has one.
    pub(crate) fn kind_mode(&self, kind: Kind) -> Option<&Mode> {
        self.modes[kind as usize].as_ref()
    }

    /// The switches of one element: its own keys override the kind's (6.2).
    /// `anchor` disables default conditions and pruning of nodes.
    pub(crate) fn element(
        &self,
        kind: Kind,
        raw: Option<MapRef<'_>>,
        anchor: bool,
    ) -> Result<Switches> {
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

/// The partial assignment of the pruning mode (`mode`, or the version's).
fn pruning_mode(version: Version, user: Written<'_>) -> Result<Vec<ModeEntry>> {
    let written = user.get("mode");
    let name = match written {
        None => default_mode(version),
        Some(n) => n.as_str().ok_or_else(|| not_a_string(n))?,
    };
    let span = written.map_or(Span::NONE, NodeRef::span);
    mode_table(name, version == Version::V3)
        .ok_or_else(|| Error::at(format!("Pruning mode \"{name}\" unknown"), span))
}

/// The switches and default condition modes of every kind (6.2, 6.3), in
/// the reference's order of reading them.
fn kind_options(raw: &Raw<'_>, version: Version) -> Result<([Switches; 11], [Option<Mode>; 11])> {
    use Switch as S;
    let mut kinds = [Switches::default(); 11];
    let mut modes: [Option<Mode>; 11] = Default::default();
    for k in OPTION_KINDS {
        // From the most specific key to the general one.
        let layers = |specific: Switch, kind_wide: Switch| {
            [(Some(k), specific), (Some(k), kind_wide), (None, kind_wide)]
        };
        let d = [(Some(k), S::Default), (None, S::Default)];
        let p = [(Some(k), S::Pruning), (None, S::Pruning)];
        kinds[k as usize] = Switches {
            default: raw.layered(&d)?,
            default_consistency: raw.layered(&layers(S::DefaultConsistency, S::Default))?,
            default_semantic: raw.layered(&layers(S::DefaultSemantic, S::Default))?,
            pruning: raw.layered(&p)?,
            consistency_pruning: raw.layered(&layers(S::ConsistencyPruning, S::Pruning))?,
            semantic_pruning: raw.layered(&layers(S::SemanticPruning, S::Pruning))?,
        };
        if let Some(default) = default_kind_mode(k, version) {
            let key = format!("{}_default_condition_mode", k.word());
            modes[k as usize] = Some(Mode::parse(raw.string(&key)?.unwrap_or(default)));
        }
    }
    Ok((kinds, modes))
}

/// The default condition mode of a kind without its option (6.3).
fn default_kind_mode(kind: Kind, version: Version) -> Option<&'static str> {
    let (v1, v3) = (version == Version::V1, version == Version::V3);
    Some(match kind {
        Kind::Node if v1 => "incoming-artifact",
        Kind::Node => "incomingnaive-artifact-host",
        Kind::Relation if v3 => "source-target-default",
        Kind::Relation => "source-target",
        Kind::Artifact if v3 => "container-managed-default",
        Kind::Artifact => "container",
        Kind::Property if v3 => "container-consuming-default",
        Kind::Property => "container-consuming",
        Kind::Technology if v3 => "container-other-scenario-default",
        Kind::Technology => "container-other-scenario",
        Kind::Output if v3 => "produced-default",
        Kind::Output => "produced",
        _ => return None,
    })
}

/// The checks (6.5) and whether semantic checks are on.
fn checks(raw: &Raw<'_>, version: Version, checks_all: bool) -> Result<(Checks, bool)> {
    let v1_or_v2 = matches!(version, Version::V1 | Version::V2);
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
    Ok((checks, semantic))
}

/// The constraints (6.7).
fn constraints(raw: &Raw<'_>, version: Version) -> Result<Constraints> {
    let v1 = version == Version::V1;
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
    // The spec's names for the hosting and technology constraints: wider
    // than the reference's keys, narrower than `constraints`.
    let under = |group: &str, key: &str| -> Result<bool> {
        match raw.user(key)?.or(raw.user(group)?) {
            Some(b) => Ok(b),
            None => rc_true(key),
        }
    };
    Ok(Constraints {
        relation_source: rc("relation_source_constraint")?,
        relation_target: rc("relation_target_constraint")?,
        relation_enhanced_implication_mode: raw.or("relation_enhanced_implication_mode", true)?,
        artifact_container: rc("artifact_container_constraint")?,
        property_container: rc("property_container_constraint")?,
        type_container: rc("type_container_constraint")?,
        required_hosting: under("hosting_stack_constraint", "required_hosting_constraint")?,
        single_hosting: rc("single_hosting_constraint")?,
        required_technology: under("technology_constraint", "required_technology_constraint")?,
        unique_property: rc_true("unique_property_constraint")?,
        unique_artifact: rc_true("unique_artifact_constraint")?,
        unique_input: rc_true("unique_input_constraint")?,
        unique_output: rc_true("unique_output_constraint")?,
        unique_relation: rc_true("unique_relation_constraint")?,
        unique_technology: under("technology_constraint", "unique_technology_constraint")?,
        required_incoming_relation: if v1 {
            rc("required_incoming_relation_constraint")?
        } else {
            raw.user("required_incoming_relation_constraint")?
                .or(constraints_user)
                .unwrap_or(false)
        },
        required_artifact: rc("required_artifact_constraint")?,
    })
}

fn solver_options(raw: &Raw<'_>, version: Version) -> Result<SolverOptions> {
    let v1 = version == Version::V1;
    let optimize =
        |key: &str, default: Optimize, true_is: Optimize, message: &str| -> Result<Optimize> {
            match raw.user_node(key) {
                None => Ok(default),
                Some(n) => match n.value() {
                    ValueRef::Bool(true) => Ok(true_is),
                    ValueRef::Bool(false) => Ok(Optimize::Off),
                    ValueRef::String("min") => Ok(Optimize::Min),
                    ValueRef::String("max") => Ok(Optimize::Max),
                    _ => Err(Error::at(message, n.span())),
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
                    n.span(),
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
    let technologies_mode = technologies_mode(raw, v1)?;
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

/// `optimization_technologies_mode` (`weight-count` is not a v1 mode).
fn technologies_mode(raw: &Raw<'_>, v1: bool) -> Result<TechnologiesMode> {
    let Some(n) = raw.user_node("optimization_technologies_mode") else {
        return Ok(if v1 {
            TechnologiesMode::Count
        } else {
            TechnologiesMode::WeightCount
        });
    };
    match n.as_str() {
        Some("weight") => Ok(TechnologiesMode::Weight),
        Some("count") => Ok(TechnologiesMode::Count),
        Some("weight-count") if !v1 => Ok(TechnologiesMode::WeightCount),
        _ => Err(Error::at(
            if v1 {
                "Option optimization_technology_mode must be \"weight\" or \"count\""
            } else {
                "Option optimization_technology_mode must be \"weight\", \"count\", or \"weight-count\""
            },
            n.span(),
        )),
    }
}

/// The partial option assignment of a pruning mode (tables M1 and M2).
fn mode_table(mode: &str, rc3: bool) -> Option<Vec<ModeEntry>> {
    let mut out: Vec<ModeEntry> = Vec::new();
    let mut set = |kind: Option<Kind>, switch: Switch, value: bool| out.push((kind, switch, value));
    let defaults = |set: &mut dyn FnMut(Option<Kind>, Switch, bool), k: Kind, on: bool| {
        set(Some(k), Switch::Default, on);
        set(Some(k), Switch::DefaultConsistency, on);
        set(Some(k), Switch::DefaultSemantic, false);
    };
    let prunings = |set: &mut dyn FnMut(Option<Kind>, Switch, bool), k: Kind, on: bool| {
        set(Some(k), Switch::Pruning, on);
        set(Some(k), Switch::ConsistencyPruning, on);
        set(Some(k), Switch::SemanticPruning, false);
    };
    let io_off = |set: &mut dyn FnMut(Option<Kind>, Switch, bool)| {
        for k in [Kind::Input, Kind::Output] {
            defaults(set, k, false);
            prunings(set, k, false);
        }
    };
    match (mode, rc3) {
        ("manual" | "strict", false) => io_off(&mut set),
        ("manual" | "strict", true) => {}
        ("consistent-strict", false) => {
            defaults(&mut set, Kind::Input, false);
            defaults(&mut set, Kind::Output, false);
            for k in TOPOLOGY_KINDS {
                defaults(&mut set, k, true);
            }
        }
        ("consistent-strict", true) => {
            for k in OPTION_KINDS {
                defaults(&mut set, k, true);
            }
        }
        ("consistent-loose", false) => {
            prunings(&mut set, Kind::Input, false);
            prunings(&mut set, Kind::Output, false);
            for k in TOPOLOGY_KINDS {
                prunings(&mut set, k, true);
            }
        }
        ("consistent-loose", true) => {
            for k in OPTION_KINDS {
                prunings(&mut set, k, true);
            }
        }
        ("default", false) => {
            set(None, Switch::Default, true);
            io_off(&mut set);
        }
        ("default", true) => set(None, Switch::Default, true),
        ("semantic-strict", false) => {
            set(None, Switch::Default, true);
            io_off(&mut set);
            for k in TOPOLOGY_KINDS {
                prunings(&mut set, k, true);
            }
        }
        ("semantic-strict", true) => {
            set(None, Switch::Default, true);
            for k in OPTION_KINDS {
                prunings(&mut set, k, true);
            }
        }
        ("semantic-loose" | "loose", false) => {
            set(None, Switch::Pruning, true);
            io_off(&mut set);
        }
        ("semantic-loose" | "loose", true) => set(None, Switch::Pruning, true),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{Doc, Map, SourceId};

    /// The options of version `version` that `user` holds, as written; the
    /// same read through a [`Doc`] (the same options, or the same error).
    fn read(version: Version, user: &Map) -> Result<Options> {
        let read = |map| {
            let user = Written {
                map,
                view: View::Written,
            };
            Options::seen(version, user)
        };
        let tree = read(Some(user.into()));
        let doc = Doc::from_node(&Node::map(user.clone()), SourceId(0));
        let other = read(doc.root().as_map());
        assert_eq!(format!("{tree:?}"), format!("{other:?}"));
        tree
    }

    fn opts(version: Version, yaml: &[(&str, Node)]) -> Options {
        let mut m = Map::new();
        for (k, v) in yaml {
            m.insert(*k, v.clone());
        }
        read(version, &m).expect("options")
    }

    #[test]
    fn known_and_renamed_options() {
        let known = known_options();
        assert!(known.iter().all(|k| is_known_option(k)));
        assert!(is_known_option("node_pruning"));
        assert!(is_known_option("node_default_condition_mode"));
        assert!(!is_known_option("input_default_condition_mode"));
        assert!(!is_known_option("node_prunning"));
        for (old, new) in RENAMED_OPTIONS {
            assert!(!is_known_option(old), "{old}");
            let key = new.split(':').next().unwrap();
            assert!(is_known_option(key), "{new}");
        }
        // Every version reads only known keys (checked by `Raw::user_node`).
        for version in [Version::V1, Version::V2, Version::V3, Version::Tosca2] {
            opts(version, &[]);
        }
    }

    #[test]
    fn rc2_semantic_loose_prunes_topology_but_not_inputs() {
        let o = opts(Version::V2, &[]);
        assert!(o.kind(Kind::Node).pruning);
        assert!(!o.kind(Kind::Input).pruning, "the mode leaves inputs alone");
        // The mode's keys of a kind beat the user's general keys (issue 21):
        // `pruning` does not reach inputs where the mode switches them off.
        let o = opts(Version::V2, &[("pruning", Node::bool(true))]);
        assert!(!o.kind(Kind::Input).pruning && !o.kind(Kind::Input).consistency_pruning);
        assert!(o.kind(Kind::Node).pruning && o.kind(Kind::Relation).semantic_pruning);
        // The user's keys of a kind beat the mode's, its more specific ones
        // included (issue 12).
        let o2 = opts(Version::V2, &[("input_pruning", Node::bool(true))]);
        assert!(o2.kind(Kind::Input).pruning && o2.kind(Kind::Input).consistency_pruning);
        let v1 = opts(Version::V1, &[("output_pruning", Node::bool(true))]);
        assert!(
            v1.kind(Kind::Output).consistency_pruning && v1.kind(Kind::Output).semantic_pruning
        );
        assert!(!v1.kind(Kind::Node).pruning);
        assert_eq!(o.solver.topology, Optimize::Min);
        assert!(o.constraints.unique_property);
        assert!(!o.constraints.single_hosting);
    }

    #[test]
    fn rc3_prunes_inputs_and_has_no_checks() {
        let o = opts(Version::V3, &[]);
        assert!(o.kind(Kind::Input).pruning);
        assert!(!o.checks.relation_source);
        assert_eq!(
            o.kind_mode(Kind::Relation).map(Mode::text),
            Some("source-target-default")
        );
        assert!(!o.fallback_property_default_alternative);
    }

    #[test]
    fn v1_defaults_are_manual() {
        let o = opts(Version::V1, &[]);
        assert!(!o.kind(Kind::Node).default && !o.kind(Kind::Node).pruning);
        assert!(o.checks.relation_source);
        assert_eq!(
            o.kind_mode(Kind::Node).map(Mode::text),
            Some("incoming-artifact")
        );
        assert_eq!(o.solver.topology, Optimize::Off);
    }

    #[test]
    fn the_modes_kind_keys_beat_the_users_general_keys() {
        // v1 `manual` switches default conditions of inputs and outputs off:
        // `default_condition: true` keeps them (issue 21).
        let o = opts(Version::V1, &[("default_condition", Node::bool(true))]);
        assert!(o.kind(Kind::Node).default && o.kind(Kind::Node).default_semantic);
        for k in [Kind::Input, Kind::Output] {
            let s = o.kind(k);
            assert!(!s.default && !s.default_consistency && !s.default_semantic);
        }
        // A user's kind key beats the mode's.
        let o = opts(
            Version::V1,
            &[
                ("default_condition", Node::bool(true)),
                ("input_default_consistency_condition", Node::bool(true)),
            ],
        );
        assert!(o.kind(Kind::Input).default_consistency && !o.kind(Kind::Input).default);
        // The mode's general key is beaten by the user's general key.
        let o = opts(
            Version::V2,
            &[
                ("mode", Node::string("semantic-loose")),
                ("pruning", Node::bool(false)),
            ],
        );
        assert!(!o.kind(Kind::Node).pruning);
        // rc_3's `consistent-loose` sets every kind's keys: `node_pruning`
        // still switches semantic pruning of nodes on, `pruning` does not.
        let o = opts(
            Version::V3,
            &[
                ("mode", Node::string("consistent-loose")),
                ("node_pruning", Node::bool(true)),
                ("pruning", Node::bool(true)),
            ],
        );
        assert!(o.kind(Kind::Node).semantic_pruning);
        assert!(!o.kind(Kind::Relation).semantic_pruning);
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
        assert!(!o.kind(Kind::Node).default);
        assert!(o.kind(Kind::Relation).default);
    }

    #[test]
    fn modes_are_parsed_once_into_tokens() {
        let m = Mode::parse("incomingnaive-artifact-host");
        assert_eq!(
            m.tokens(),
            [
                ModeToken::IncomingNaive,
                ModeToken::Artifact,
                ModeToken::Host
            ]
        );
        assert!(m.names_incoming_and_host());
        assert!(!Mode::parse("incoming-artifact").names_incoming_and_host());
        assert_eq!(Mode::parse("source-x").tokens()[1], ModeToken::Unknown);
        let o = opts(
            Version::V2,
            &[("relation_default_condition_mode", Node::string("target"))],
        );
        assert_eq!(
            o.kind_mode(Kind::Relation).map(Mode::tokens),
            Some(&[ModeToken::Target][..])
        );
        assert!(o.kind_mode(Kind::Group).is_none());
        assert_eq!(o.solver.technologies_mode, TechnologiesMode::WeightCount);
        assert!(TechnologiesMode::WeightCount.weighs() && TechnologiesMode::WeightCount.counts());
        assert!(!TechnologiesMode::Count.weighs() && !TechnologiesMode::Weight.counts());
    }

    #[test]
    fn enrichment_only_options_are_the_ones_the_transformer_deletes() {
        for key in [
            "mode",
            "node_pruning",
            "type_default_semantic_condition",
            "required_technology_check",
        ] {
            assert!(is_enrichment_only(key), "{key}");
        }
        for key in [
            "input_pruning",
            "technology_pruning",
            "checks",
            "optimization_topology",
            "node_default_condition_mode_x",
        ] {
            assert!(!is_enrichment_only(key), "{key}");
        }
    }

    #[test]
    fn invalid_values_give_the_reference_messages() {
        let mut m = Map::new();
        m.insert("mode", Node::string("bogus"));
        let e = read(Version::V1, &m).unwrap_err();
        assert_eq!(e.message, "Pruning mode \"bogus\" unknown");
        let mut m = Map::new();
        m.insert("pruning", Node::string("yes"));
        let e = read(Version::V1, &m).unwrap_err();
        assert_eq!(e.message, "Element \"\"yes\"\" is not a boolean");
        let mut m = Map::new();
        m.insert("optimization_technologies_mode", Node::string("x"));
        let e = read(Version::V1, &m).unwrap_err();
        assert_eq!(
            e.message,
            "Option optimization_technology_mode must be \"weight\" or \"count\""
        );
    }

    /// The spec's `hosting_stack_constraint` and `technology_constraint`
    /// switch the hosting and technology constraints; the specific keys
    /// still win (issue 12).
    #[test]
    fn spec_constraint_options_are_read() {
        let o = opts(
            Version::V3,
            &[("hosting_stack_constraint", Node::bool(false))],
        );
        assert!(!o.constraints.required_hosting);
        let o = opts(Version::V1, &[("technology_constraint", Node::bool(true))]);
        assert!(o.constraints.required_technology && o.constraints.unique_technology);
        let o = opts(
            Version::V1,
            &[
                ("technology_constraint", Node::bool(true)),
                ("required_technology_constraint", Node::bool(false)),
            ],
        );
        assert!(!o.constraints.required_technology && o.constraints.unique_technology);
        let o = opts(Version::V3, &[]);
        assert!(o.constraints.required_hosting && o.constraints.required_technology);
    }
}
