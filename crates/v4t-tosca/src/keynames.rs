//! The keynames of TOSCA's entities, per grammar: the one table the
//! validator checks maps against, and that Variability4TOSCA's warnings
//! and the language server's completion build on (they add only their own
//! keys).
//!
//! Each entity lists its keynames once, TOSCA 1.3's first (in the order
//! the warnings suggest them), then those only TOSCA 2.0 has; a keyname
//! says in which grammars it exists. `description` and `metadata`, which
//! TOSCA 2.0 allows in every map-form grammar element (§5.3), are listed
//! where the entity names them.

use crate::grammar::Grammar;
use crate::types::Kind;

/// A keyname and the grammars it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keyname {
    /// The key as written.
    pub name: &'static str,
    /// Whether TOSCA Simple Profile in YAML 1.3 has it.
    pub in_13: bool,
    /// Whether TOSCA 2.0 has it.
    pub in_2: bool,
}

impl Keyname {
    /// Whether `grammar` has the keyname.
    pub fn in_grammar(self, grammar: Grammar) -> bool {
        match grammar {
            Grammar::Tosca13 => self.in_13,
            Grammar::Tosca2 => self.in_2,
        }
    }
}

/// In both grammars.
const fn both(name: &'static str) -> Keyname {
    Keyname {
        name,
        in_13: true,
        in_2: true,
    }
}

/// In TOSCA 1.3 only (dropped or renamed by TOSCA 2.0).
const fn v13(name: &'static str) -> Keyname {
    Keyname {
        name,
        in_13: true,
        in_2: false,
    }
}

/// New in TOSCA 2.0.
const fn v2(name: &'static str) -> Keyname {
    Keyname {
        name,
        in_13: false,
        in_2: true,
    }
}

/// An entity of the TOSCA grammar: a map whose keynames the table lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// The top level of a TOSCA file (§6.1).
    File,
    /// A repository definition (§6.5).
    Repository,
    /// An import definition (§6.8.1).
    Import,
    /// A function definition (§10.4).
    Function,
    /// A function signature (§10.4).
    Signature,
    /// A type definition of a kind (§6.4.1 and the kind's chapter).
    Type(Kind),
    /// What a scalar data type adds to a data type (§9.1.2.2).
    ScalarType,
    /// A schema definition (§9.3).
    Schema,
    /// A property definition (§9.4).
    Property,
    /// An attribute definition (§9.6).
    Attribute,
    /// A parameter definition (§9.8): inputs and outputs.
    Parameter,
    /// A capability definition (§8.2).
    CapabilityDefinition,
    /// A requirement definition (§8.4).
    RequirementDefinition,
    /// The relationship of a requirement definition (§8.4).
    RelationshipDefinition,
    /// An interface definition (§11.2).
    InterfaceDefinition,
    /// An operation definition (§11.4).
    OperationDefinition,
    /// A notification definition (§11.6; TOSCA 1.3 §3.6.19, without
    /// `inputs`).
    NotificationDefinition,
    /// An operation or notification implementation (§11.8).
    Implementation,
    /// An artifact definition (§12.2).
    Artifact,
    /// The service template (§6.9.1; TOSCA 1.3's `topology_template`).
    ServiceTemplate,
    /// A node template (§7.2).
    NodeTemplate,
    /// A relationship template (§7.4).
    RelationshipTemplate,
    /// A requirement assignment (§8.5.1).
    RequirementAssignment,
    /// The relationship of a requirement assignment (§8.5.1).
    RelationshipAssignment,
    /// A capability assignment (§8.3).
    CapabilityAssignment,
    /// An interface assignment (§11.3).
    InterfaceAssignment,
    /// An operation assignment (§11.5).
    OperationAssignment,
    /// A TOSCA 1.3 node filter (1.3 §3.6.5).
    NodeFilter13,
    /// A capability filter of a TOSCA 1.3 node filter.
    CapabilityFilter13,
    /// A group definition (§16.2).
    Group,
    /// A policy definition (§16.4).
    Policy,
    /// A trigger definition (§16.5; TOSCA 1.3 §3.6.22).
    Trigger,
    /// A TOSCA 1.3 trigger's `target_filter` (1.3 §3.6.21).
    EventFilter13,
    /// A TOSCA 1.3 trigger condition in the extended notation (1.3
    /// §3.6.22.2).
    TriggerCondition13,
    /// Substitution mappings (§15.1).
    SubstitutionMappings,
    /// A workflow definition (§13.2).
    Workflow,
    /// A workflow step (§13.2.2).
    WorkflowStep,
    /// A TOSCA 1.3 workflow precondition (1.3 §3.6.26).
    Precondition13,
    /// A `delegate` or `inline` activity (§13.2.3).
    WorkflowActivity,
    /// A `call_operation` activity (§13.2.3.3).
    CallOperation,
}

/// The keynames of `entity` in `grammar`, in table order.
pub fn keynames(entity: Entity, grammar: Grammar) -> impl Iterator<Item = &'static str> {
    entity
        .keynames()
        .iter()
        .filter(move |k| k.in_grammar(grammar))
        .map(|k| k.name)
}

/// Whether `name` is a keyname of `entity` in `grammar`.
pub fn is_keyname(entity: Entity, grammar: Grammar, name: &str) -> bool {
    keynames(entity, grammar).any(|k| k == name)
}

impl Entity {
    /// Every keyname of the entity, in either grammar.
    pub fn keynames(self) -> &'static [Keyname] {
        match self {
            Entity::File => FILE,
            Entity::Repository => REPOSITORY,
            Entity::Import => IMPORT,
            Entity::Function => FUNCTION,
            Entity::Signature => SIGNATURE,
            Entity::Type(kind) => type_keynames(kind),
            Entity::ScalarType => SCALAR_TYPE,
            Entity::Schema => SCHEMA,
            Entity::Property => PROPERTY,
            Entity::Attribute => ATTRIBUTE,
            Entity::Parameter => PARAMETER,
            Entity::CapabilityDefinition => CAPABILITY_DEFINITION,
            Entity::RequirementDefinition => REQUIREMENT_DEFINITION,
            Entity::RelationshipDefinition => RELATIONSHIP_DEFINITION,
            Entity::InterfaceDefinition => INTERFACE_DEFINITION,
            Entity::OperationDefinition => OPERATION,
            Entity::NotificationDefinition => NOTIFICATION,
            Entity::Implementation => IMPLEMENTATION,
            Entity::Artifact => ARTIFACT,
            Entity::ServiceTemplate => SERVICE_TEMPLATE,
            Entity::NodeTemplate => NODE_TEMPLATE,
            Entity::RelationshipTemplate => RELATIONSHIP_TEMPLATE,
            Entity::RequirementAssignment => REQUIREMENT_ASSIGNMENT,
            Entity::RelationshipAssignment => RELATIONSHIP_ASSIGNMENT,
            Entity::CapabilityAssignment => CAPABILITY_ASSIGNMENT,
            Entity::InterfaceAssignment => INTERFACE_ASSIGNMENT,
            Entity::OperationAssignment => OPERATION,
            Entity::NodeFilter13 => NODE_FILTER_13,
            Entity::CapabilityFilter13 => CAPABILITY_FILTER_13,
            Entity::Group => GROUP,
            Entity::Policy => POLICY,
            Entity::Trigger => TRIGGER,
            Entity::EventFilter13 => EVENT_FILTER_13,
            Entity::TriggerCondition13 => TRIGGER_CONDITION_13,
            Entity::SubstitutionMappings => SUBSTITUTION_MAPPINGS,
            Entity::Workflow => WORKFLOW,
            Entity::WorkflowStep => WORKFLOW_STEP,
            Entity::Precondition13 => PRECONDITION_13,
            Entity::WorkflowActivity => WORKFLOW_ACTIVITY,
            Entity::CallOperation => CALL_OPERATION,
        }
    }
}

const REPOSITORY: &[Keyname] = &[
    both("description"),
    v13("credential"),
    v2("metadata"),
    both("url"),
];

const FUNCTION: &[Keyname] = &[both("signatures"), both("description"), both("metadata")];

const NODE_FILTER_13: &[Keyname] = &[both("properties"), both("capabilities")];

const CAPABILITY_FILTER_13: &[Keyname] = &[both("properties")];

const INTERFACE_ASSIGNMENT: &[Keyname] = &[v2("inputs"), v2("operations"), v2("notifications")];

const TRIGGER: &[Keyname] = &[
    both("description"),
    both("event"),
    // 1.3 §3.6.22: "A deprecated form of this keyname is `event_type`".
    v13("event_type"),
    v13("schedule"),
    v13("target_filter"),
    both("condition"),
    both("action"),
];

/// TOSCA 1.3 §3.6.21.
const EVENT_FILTER_13: &[Keyname] = &[v13("node"), v13("requirement"), v13("capability")];

/// The extended notation of a TOSCA 1.3 trigger condition (1.3 §3.6.22.2).
const TRIGGER_CONDITION_13: &[Keyname] = &[
    v13("constraint"),
    v13("period"),
    v13("evaluations"),
    v13("method"),
];

const WORKFLOW_ACTIVITY: &[Keyname] = &[both("workflow"), both("inputs")];

const CALL_OPERATION: &[Keyname] = &[both("operation"), both("inputs")];

const RELATIONSHIP_ASSIGNMENT: &[Keyname] = &[
    both("type"),
    both("properties"),
    v2("attributes"),
    both("interfaces"),
];

const CAPABILITY_ASSIGNMENT: &[Keyname] = &[
    both("properties"),
    both("attributes"),
    v13("occurrences"),
    v2("directives"),
];

const FILE: &[Keyname] = &[
    both("tosca_definitions_version"),
    v13("namespace"),
    both("metadata"),
    both("description"),
    both("dsl_definitions"),
    both("repositories"),
    both("imports"),
    both("artifact_types"),
    both("data_types"),
    both("capability_types"),
    both("interface_types"),
    both("relationship_types"),
    both("node_types"),
    both("group_types"),
    both("policy_types"),
    v13("topology_template"),
    v2("profile"),
    v2("functions"),
    v2("service_template"),
];

const IMPORT: &[Keyname] = &[
    v13("file"),
    both("repository"),
    v13("namespace_uri"),
    v13("namespace_prefix"),
    v2("url"),
    v2("profile"),
    v2("namespace"),
    v2("description"),
    v2("metadata"),
];

const SIGNATURE: &[Keyname] = &[
    both("arguments"),
    both("optional_arguments"),
    both("variadic"),
    both("result"),
    both("implementation"),
];

/// The keynames every type definition has (§6.4.1) before its kind's.
macro_rules! type_keys {
    ($($key:expr),* $(,)?) => {
        &[both("derived_from"), both("version"), both("metadata"), both("description"), $($key),*]
    };
}

fn type_keynames(kind: Kind) -> &'static [Keyname] {
    match kind {
        Kind::Artifact => ARTIFACT_TYPE,
        Kind::Data => DATA_TYPE,
        Kind::Capability => CAPABILITY_TYPE,
        Kind::Interface => INTERFACE_TYPE,
        Kind::Relationship => RELATIONSHIP_TYPE,
        Kind::Node => NODE_TYPE,
        Kind::Group => GROUP_TYPE,
        Kind::Policy => POLICY_TYPE,
    }
}

const ARTIFACT_TYPE: &[Keyname] =
    type_keys![both("mime_type"), both("file_ext"), both("properties")];

const DATA_TYPE: &[Keyname] = type_keys![
    v2("validation"),
    v13("constraints"),
    both("properties"),
    both("key_schema"),
    both("entry_schema"),
];

const CAPABILITY_TYPE: &[Keyname] = type_keys![
    both("properties"),
    both("attributes"),
    v13("valid_source_types"),
    v2("valid_source_node_types"),
    v2("valid_relationship_types"),
];

const INTERFACE_TYPE: &[Keyname] =
    type_keys![both("inputs"), both("operations"), both("notifications")];

const RELATIONSHIP_TYPE: &[Keyname] = type_keys![
    both("properties"),
    both("attributes"),
    both("interfaces"),
    v13("valid_target_types"),
    v2("valid_capability_types"),
    v2("valid_target_node_types"),
    v2("valid_source_node_types"),
];

const NODE_TYPE: &[Keyname] = type_keys![
    both("properties"),
    both("attributes"),
    both("capabilities"),
    both("requirements"),
    both("interfaces"),
    both("artifacts"),
];

const GROUP_TYPE: &[Keyname] = type_keys![
    both("properties"),
    both("attributes"),
    both("members"),
    v13("requirements"),
    v13("capabilities"),
    v13("interfaces"),
];

const POLICY_TYPE: &[Keyname] = type_keys![both("properties"), both("targets"), both("triggers")];

const SCALAR_TYPE: &[Keyname] = &[
    both("data_type"),
    both("units"),
    both("canonical_unit"),
    both("prefixes"),
];

const SCHEMA: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    v2("validation"),
    both("key_schema"),
    both("entry_schema"),
    both("constraints"),
];

/// A property definition's keynames; parameters add `mapping`.
macro_rules! property_keys {
    ($($key:expr),* $(,)?) => {
        &[
            both("type"),
            both("description"),
            both("value"),
            both("required"),
            both("default"),
            both("status"),
            v13("constraints"),
            both("key_schema"),
            both("entry_schema"),
            v13("external-schema"),
            both("metadata"),
            v2("validation"),
            $($key),*
        ]
    };
}

const PROPERTY: &[Keyname] = property_keys![];

const PARAMETER: &[Keyname] = property_keys![v2("mapping")];

const ATTRIBUTE: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("default"),
    both("status"),
    both("key_schema"),
    both("entry_schema"),
    v2("validation"),
];

const CAPABILITY_DEFINITION: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("properties"),
    both("attributes"),
    v2("valid_source_node_types"),
    v2("valid_relationship_types"),
    both("occurrences"),
    v13("valid_source_types"),
];

const REQUIREMENT_DEFINITION: &[Keyname] = &[
    both("description"),
    both("metadata"),
    both("capability"),
    both("node"),
    both("relationship"),
    both("node_filter"),
    v2("count_range"),
    v13("occurrences"),
];

const RELATIONSHIP_DEFINITION: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    v2("properties"),
    v2("attributes"),
    both("interfaces"),
];

/// TOSCA 1.3 interface definitions may list operations directly: their
/// keys are not checked.
const INTERFACE_DEFINITION: &[Keyname] = &[
    v2("type"),
    v2("description"),
    v2("metadata"),
    v2("inputs"),
    v2("operations"),
    v2("notifications"),
];

/// Operation definitions and assignments.
const OPERATION: &[Keyname] = &[
    both("implementation"),
    both("inputs"),
    both("outputs"),
    both("description"),
];

const NOTIFICATION: &[Keyname] = &[
    both("implementation"),
    v2("inputs"),
    both("outputs"),
    both("description"),
];

const IMPLEMENTATION: &[Keyname] = &[
    both("primary"),
    both("dependencies"),
    both("timeout"),
    v13("operation_host"),
];

const ARTIFACT: &[Keyname] = &[
    both("type"),
    both("file"),
    both("repository"),
    both("description"),
    v13("deploy_path"),
    both("artifact_version"),
    both("checksum"),
    both("checksum_algorithm"),
    both("properties"),
    v2("metadata"),
    both("version"),
];

const SERVICE_TEMPLATE: &[Keyname] = &[
    both("description"),
    both("inputs"),
    both("node_templates"),
    both("relationship_templates"),
    both("groups"),
    both("policies"),
    both("outputs"),
    both("substitution_mappings"),
    both("workflows"),
    v2("functions"),
    v2("metadata"),
];

const NODE_TEMPLATE: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("directives"),
    both("properties"),
    both("attributes"),
    both("requirements"),
    both("capabilities"),
    both("interfaces"),
    both("artifacts"),
    both("node_filter"),
    both("copy"),
    v2("count"),
];

const RELATIONSHIP_TEMPLATE: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("properties"),
    both("attributes"),
    both("interfaces"),
    both("copy"),
];

const REQUIREMENT_ASSIGNMENT: &[Keyname] = &[
    both("node"),
    both("capability"),
    both("relationship"),
    both("node_filter"),
    v13("occurrences"),
    v2("count"),
    v2("optional"),
    v2("allocation"),
    v2("directives"),
];

const GROUP: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("properties"),
    both("attributes"),
    both("members"),
    v13("interfaces"),
];

const POLICY: &[Keyname] = &[
    both("type"),
    both("description"),
    both("metadata"),
    both("properties"),
    both("targets"),
    both("triggers"),
];

const SUBSTITUTION_MAPPINGS: &[Keyname] = &[
    both("node_type"),
    both("substitution_filter"),
    both("properties"),
    both("attributes"),
    both("capabilities"),
    both("requirements"),
    both("interfaces"),
];

const WORKFLOW: &[Keyname] = &[
    both("description"),
    both("metadata"),
    both("inputs"),
    v13("preconditions"),
    v2("precondition"),
    both("steps"),
    both("implementation"),
    both("outputs"),
];

/// TOSCA 1.3 §3.6.26.
const PRECONDITION_13: &[Keyname] = &[v13("target"), v13("target_relationship"), v13("condition")];

const WORKFLOW_STEP: &[Keyname] = &[
    both("target"),
    both("target_relationship"),
    both("operation_host"),
    both("filter"),
    both("activities"),
    both("on_success"),
    both("on_failure"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn names(entity: Entity, grammar: Grammar) -> Vec<&'static str> {
        keynames(entity, grammar).collect()
    }

    #[test]
    fn keynames_follow_the_grammar() {
        let node13 = names(Entity::NodeTemplate, Grammar::Tosca13);
        assert!(node13.contains(&"type") && !node13.contains(&"count"));
        assert!(is_keyname(Entity::NodeTemplate, Grammar::Tosca2, "count"));
        assert!(is_keyname(Entity::Import, Grammar::Tosca13, "file"));
        assert!(!is_keyname(Entity::Import, Grammar::Tosca2, "file"));
        assert_eq!(
            names(Entity::Type(Kind::Policy), Grammar::Tosca2),
            [
                "derived_from",
                "version",
                "metadata",
                "description",
                "properties",
                "targets",
                "triggers"
            ]
        );
        // TOSCA 1.3 interface definitions are not checked by keyname.
        assert!(names(Entity::InterfaceDefinition, Grammar::Tosca13).is_empty());
    }

    #[test]
    fn every_keyname_is_listed_once_and_in_some_grammar() {
        let kinds = Kind::ALL.into_iter().map(Entity::Type);
        let entities = [
            Entity::File,
            Entity::Repository,
            Entity::Import,
            Entity::Function,
            Entity::Signature,
            Entity::ScalarType,
            Entity::Schema,
            Entity::Property,
            Entity::Attribute,
            Entity::Parameter,
            Entity::CapabilityDefinition,
            Entity::RequirementDefinition,
            Entity::RelationshipDefinition,
            Entity::InterfaceDefinition,
            Entity::OperationDefinition,
            Entity::NotificationDefinition,
            Entity::Implementation,
            Entity::Artifact,
            Entity::ServiceTemplate,
            Entity::NodeTemplate,
            Entity::RelationshipTemplate,
            Entity::RequirementAssignment,
            Entity::RelationshipAssignment,
            Entity::CapabilityAssignment,
            Entity::InterfaceAssignment,
            Entity::OperationAssignment,
            Entity::NodeFilter13,
            Entity::CapabilityFilter13,
            Entity::Group,
            Entity::Policy,
            Entity::Trigger,
            Entity::EventFilter13,
            Entity::TriggerCondition13,
            Entity::SubstitutionMappings,
            Entity::Workflow,
            Entity::WorkflowStep,
            Entity::Precondition13,
            Entity::WorkflowActivity,
            Entity::CallOperation,
        ];
        for entity in entities.into_iter().chain(kinds) {
            let keys = entity.keynames();
            for (i, k) in keys.iter().enumerate() {
                assert!(k.in_13 || k.in_2, "{entity:?} {k:?}");
                assert!(
                    keys[..i].iter().all(|o| o.name != k.name),
                    "{entity:?}: {} twice",
                    k.name
                );
            }
        }
    }
}
