//! The sections of the specification a rule enforces, as typed values:
//! one table of (name, grammar, number, title, TOSCA 1.3 counterpart), so
//! that a misspelt section does not compile and every cited section is a
//! heading of the specification (`tests/spec_sections.rs` checks the TOSCA
//! 2.0 ones against the text of TOSCA 2.0 csd07; the repository has no
//! text of TOSCA Simple Profile in YAML 1.3; `scripts/check-13-sections.py`
//! checks the 1.3 ones against its OASIS Standard text where one has it).
//!
//! A diagnostic cites the section in the grammar of its file: a TOSCA 2.0
//! section in a 2.0 file, its 1.3 counterpart in a 1.3 file, nothing where
//! 1.3 has no such rule ([`Section::cited`]).

use crate::grammar::Grammar;

/// `sections! { Name = Grammar "number" "title" [=> Counterpart13], ... }`
/// defines [`Section`] and its accessors from one table.
macro_rules! sections {
    ($($id:ident = $grammar:ident $number:literal $title:literal $(=> $v13:ident)?,)*) => {
        /// A section of TOSCA 2.0 (csd07) or of TOSCA Simple Profile in
        /// YAML 1.3 (names starting with `V13`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Section {
            $(#[doc = concat!("§", $number, " ", $title)] $id,)*
        }

        impl Section {
            /// Every section of the table.
            pub const ALL: &'static [Section] = &[$(Section::$id),*];

            /// The section number (`9.4`; `3.6.10` for a TOSCA 1.3 section).
            pub fn number(self) -> &'static str {
                match self { $(Section::$id => $number,)* }
            }

            /// The section's heading.
            pub fn title(self) -> &'static str {
                match self { $(Section::$id => $title,)* }
            }

            /// The specification the section belongs to.
            pub fn grammar(self) -> Grammar {
                match self { $(Section::$id => Grammar::$grammar,)* }
            }

            /// The TOSCA 1.3 section with the same rule as this TOSCA 2.0
            /// section (where the counterpart is not one subsection, its
            /// chapter); `None` for a rule new in TOSCA 2.0.
            fn counterpart_13(self) -> Option<Section> {
                match self { $(Section::$id => sections!(@some $($v13)?),)* }
            }
        }
    };
    (@some) => { None };
    (@some $v13:ident) => { Some(Section::$v13) };
}

sections! {
    TypeDerivationRefinement = Tosca2 "5.1.3" "Type Derivation, Augmentation, and Refinement",
    Metadata = Tosca2 "5.3.1" "metadata" => V13Metadata,
    Description = Tosca2 "5.3.2" "description" => V13Description,
    FileKeynames = Tosca2 "6.1" "Keynames" => V13ServiceTemplate,
    DefinitionsVersion = Tosca2 "6.2" "TOSCA Definitions Version" => V13ServiceTemplate,
    DslDefinitions = Tosca2 "6.3" "DSL Definitions" => V13ServiceTemplate,
    TypeKeynames = Tosca2 "6.4.1" "Common Keynames in Type Definitions" => V13EntityType,
    TypeDerivation = Tosca2 "6.4.2" "Type Derivation" => V13EntityType,
    RepositoryDefinitions = Tosca2 "6.5" "Repository Definitions" => V13Repository,
    ProfileGrammar = Tosca2 "6.7.1" "Grammar",
    ImportDefinitions = Tosca2 "6.8.1" "Import Definitions" => V13ImportDefinition,
    ImportingProfiles = Tosca2 "6.8.2.1" "Importing Profiles",
    ImportingToscaFile = Tosca2 "6.8.2.2" "Importing a TOSCA File" => V13ImportDefinition,
    Namespaces = Tosca2 "6.8.4" "Namespaces",
    ServiceTemplateGrammar = Tosca2 "6.9.1" "Service Template Grammar" => V13TopologyTemplate,
    InputParameters = Tosca2 "6.9.2" "Input Parameters" => V13TopologyTemplate,
    NodeTemplates = Tosca2 "6.9.3" "Node Templates" => V13TopologyTemplate,
    OutputParameters = Tosca2 "6.9.5" "Output Parameters" => V13TopologyTemplate,
    PolicyDefinitions = Tosca2 "6.9.8" "Policy Definitions" => V13TopologyTemplate,
    NodeType = Tosca2 "7.1" "Node Type" => V13NodeType,
    NodeTemplate = Tosca2 "7.2" "Node Template" => V13NodeTemplate,
    NodeTemplateDirectives = Tosca2 "7.2.1" "Node Template Directives" => V13NodeTemplate,
    RelationshipType = Tosca2 "7.3" "Relationship Type" => V13RelationshipType,
    RelationshipTemplate = Tosca2 "7.4" "Relationship Template" => V13RelationshipTemplate,
    CapabilityType = Tosca2 "8.1" "Capability Type" => V13CapabilityType,
    CapabilityDefinition = Tosca2 "8.2" "Capability Definition" => V13CapabilityDefinition,
    CapabilityAssignment = Tosca2 "8.3" "Capability Assignment" => V13CapabilityAssignment,
    RequirementDefinition = Tosca2 "8.4" "Requirement Definition" => V13RequirementDefinition,
    RequirementRefinement = Tosca2 "8.4.1" "Requirement Refinement" => V13RequirementDefinition,
    RequirementAssignment = Tosca2 "8.5" "Requirement Assignment" => V13RequirementAssignment,
    RequirementKeynames = Tosca2 "8.5.1" "Supported Keynames" => V13RequirementAssignment,
    RequirementAssignmentGrammar = Tosca2 "8.5.2" "Requirement Assignment Grammar" => V13RequirementAssignment,
    RequirementCount = Tosca2 "8.5.4" "Requirement Count",
    CapabilityAllocation = Tosca2 "8.5.5" "Capability Allocation",
    NodeFilter = Tosca2 "8.6" "Node Filter Definition" => V13NodeFilter,
    BuiltInTypes = Tosca2 "9.1" "TOSCA Built-In Types" => V13Types,
    Boolean = Tosca2 "9.1.1.4" "boolean",
    Bytes = Tosca2 "9.1.1.5" "bytes",
    Timestamp = Tosca2 "9.1.2.1" "timestamp" => V13YamlTypes,
    Scalar = Tosca2 "9.1.2.2" "scalar" => V13ScalarUnit,
    Version = Tosca2 "9.1.2.3" "version" => V13Version,
    List = Tosca2 "9.1.3.1" "list" => V13List,
    Map = Tosca2 "9.1.3.2" "map" => V13Map,
    DataType = Tosca2 "9.2" "Data Type" => V13DataType,
    SchemaDefinition = Tosca2 "9.3" "Schema Definition" => V13Schema,
    PropertyDefinition = Tosca2 "9.4" "Property Definition" => V13PropertyDefinition,
    PropertyAssignment = Tosca2 "9.5" "Property Assignment" => V13PropertyAssignment,
    AttributeDefinition = Tosca2 "9.6" "Attribute Definition" => V13AttributeDefinition,
    AttributeAssignment = Tosca2 "9.7" "Attribute Assignment" => V13AttributeAssignment,
    ParameterDefinition = Tosca2 "9.8" "Parameter Definition" => V13ParameterDefinition,
    ParameterValueAssignment = Tosca2 "9.9" "Parameter Value Assignment",
    ParameterMappingAssignment = Tosca2 "9.10" "Parameter Mapping Assignment",
    ValidationClause = Tosca2 "9.11" "Validation Clause" => V13ConstraintClause,
    FunctionSyntax = Tosca2 "10.1" "Function Syntax",
    BuiltInFunctions = Tosca2 "10.2" "TOSCA Built-In Functions" => V13Functions,
    GraphQueryFunctions = Tosca2 "10.2.1" "Representation Graph Query Functions" => V13Functions,
    GetInput = Tosca2 "10.2.1.1" "$get_input" => V13Functions,
    AvailableAllocation = Tosca2 "10.2.1.8" "$available_allocation",
    BooleanLogicFunctions = Tosca2 "10.2.2.1" "Boolean Logic Functions",
    ComparisonFunctions = Tosca2 "10.2.2.2" "Comparison Functions",
    ToscaPath = Tosca2 "10.3" "TOSCA Path",
    FunctionDefinitions = Tosca2 "10.4" "Function Definitions",
    InterfaceType = Tosca2 "11.1" "Interface Type" => V13InterfaceType,
    InterfaceDefinition = Tosca2 "11.2" "Interface Definition" => V13InterfaceDefinition,
    InterfaceAssignment = Tosca2 "11.3" "Interface Assignment" => V13InterfaceDefinition,
    OperationDefinition = Tosca2 "11.4" "Operation Definition" => V13OperationDefinition,
    OperationAssignment = Tosca2 "11.5" "Operation Assignment" => V13OperationDefinition,
    NotificationDefinition = Tosca2 "11.6" "Notification Definition" => V13NotificationDefinition,
    Implementations = Tosca2 "11.8" "Operation and Notification Implementations" => V13Implementation,
    ArtifactType = Tosca2 "12.1" "Artifact Type" => V13ArtifactType,
    ArtifactDefinition = Tosca2 "12.2" "Artifact Definition" => V13ArtifactDefinition,
    Workflows = Tosca2 "13" "Workflows",
    ImperativeWorkflows = Tosca2 "13.2" "Imperative Workflows" => V13Workflow,
    WorkflowPrecondition = Tosca2 "13.2.1" "Workflow Precondition Definition" => V13WorkflowPrecondition,
    WorkflowStep = Tosca2 "13.2.2" "Workflow Step Definition" => V13WorkflowStep,
    Activity = Tosca2 "13.2.3" "Activity Definition" => V13Activity,
    SetStateActivity = Tosca2 "13.2.3.2" "Set State Activity Definition" => V13SetStateActivity,
    CallOperationActivity = Tosca2 "13.2.3.3" "Call Operation Activity Definition" => V13CallOperationActivity,
    InlineWorkflowActivity = Tosca2 "13.2.3.4" "Inline Workflow Activity Definition" => V13InlineWorkflowActivity,
    Substitution = Tosca2 "15" "Substitution",
    SubstitutionMapping = Tosca2 "15.1" "Substitution Mapping" => V13SubstitutionMapping,
    PropertyMapping = Tosca2 "15.2" "Property Mapping" => V13PropertyMapping,
    AttributeMapping = Tosca2 "15.3" "Attribute Mapping" => V13AttributeMapping,
    CapabilityMapping = Tosca2 "15.4" "Capability Mapping" => V13CapabilityMapping,
    RequirementMapping = Tosca2 "15.5" "Requirement Mapping" => V13RequirementMapping,
    RequirementMappingRules = Tosca2 "15.5.4" "Requirement Mapping Rules",
    InterfaceMapping = Tosca2 "15.6" "Interface Mapping" => V13InterfaceMapping,
    GroupsAndPolicies = Tosca2 "16" "Groups and Policies",
    GroupType = Tosca2 "16.1" "Group Type" => V13GroupType,
    GroupDefinition = Tosca2 "16.2" "Group Definition" => V13GroupDefinition,
    PolicyType = Tosca2 "16.3" "Policy Type" => V13PolicyType,
    PolicyDefinition = Tosca2 "16.4" "Policy Definition" => V13PolicyDefinition,
    TriggerDefinition = Tosca2 "16.5" "Trigger Definition" => V13Trigger,
    V13Types = Tosca13 "3.3" "Parameter and property types",
    V13YamlTypes = Tosca13 "3.3.1" "Referenced YAML Types",
    V13Version = Tosca13 "3.3.2" "TOSCA version",
    V13List = Tosca13 "3.3.4" "TOSCA list type",
    V13Map = Tosca13 "3.3.5" "TOSCA map type",
    V13ScalarUnit = Tosca13 "3.3.6" "TOSCA scalar-unit type",
    V13Description = Tosca13 "3.6.1" "Description definition",
    V13Metadata = Tosca13 "3.6.2" "Metadata",
    V13ConstraintClause = Tosca13 "3.6.3" "Constraint clause",
    V13NodeFilter = Tosca13 "3.6.5" "Node Filter definition",
    V13Repository = Tosca13 "3.6.6" "Repository definition",
    V13ArtifactDefinition = Tosca13 "3.6.7" "Artifact definition",
    V13ImportDefinition = Tosca13 "3.6.8" "Import definition",
    V13Schema = Tosca13 "3.6.9" "Schema definition",
    V13PropertyDefinition = Tosca13 "3.6.10" "Property definition",
    V13PropertyAssignment = Tosca13 "3.6.11" "Property assignment",
    V13AttributeDefinition = Tosca13 "3.6.12" "Attribute definition",
    V13AttributeAssignment = Tosca13 "3.6.13" "Attribute assignment",
    V13ParameterDefinition = Tosca13 "3.6.14" "Parameter definition",
    V13Implementation = Tosca13 "3.6.16" "Operation implementation definition",
    V13OperationDefinition = Tosca13 "3.6.17" "Operation definition",
    V13NotificationDefinition = Tosca13 "3.6.19" "Notification definition",
    V13InterfaceDefinition = Tosca13 "3.6.20" "Interface definition",
    V13EventFilter = Tosca13 "3.6.21" "Event Filter definition",
    V13Trigger = Tosca13 "3.6.22" "Trigger definition",
    V13Activity = Tosca13 "3.6.23" "Activity definitions",
    V13SetStateActivity = Tosca13 "3.6.23.2" "Set state activity definition",
    V13CallOperationActivity = Tosca13 "3.6.23.3" "Call operation activity definition",
    V13InlineWorkflowActivity = Tosca13 "3.6.23.4" "Inline workflow activity definition",
    V13ConditionClause = Tosca13 "3.6.25" "Condition clause definition",
    V13WorkflowPrecondition = Tosca13 "3.6.26" "Workflow precondition definition",
    V13WorkflowStep = Tosca13 "3.6.27" "Workflow step definition",
    V13EntityType = Tosca13 "3.7.1" "Entity Type Schema",
    V13CapabilityDefinition = Tosca13 "3.7.2" "Capability definition",
    V13RequirementDefinition = Tosca13 "3.7.3" "Requirement definition",
    V13ArtifactType = Tosca13 "3.7.4" "Artifact Type",
    V13InterfaceType = Tosca13 "3.7.5" "Interface Type",
    V13DataType = Tosca13 "3.7.6" "Data Type",
    V13CapabilityType = Tosca13 "3.7.7" "Capability Type",
    V13NodeType = Tosca13 "3.7.9" "Node Type",
    V13RelationshipType = Tosca13 "3.7.10" "Relationship Type",
    V13GroupType = Tosca13 "3.7.11" "Group Type",
    V13PolicyType = Tosca13 "3.7.12" "Policy Type",
    V13CapabilityAssignment = Tosca13 "3.8.1" "Capability assignment",
    V13RequirementAssignment = Tosca13 "3.8.2" "Requirement assignment",
    V13NodeTemplate = Tosca13 "3.8.3" "Node Template",
    V13RelationshipTemplate = Tosca13 "3.8.4" "Relationship Template",
    V13GroupDefinition = Tosca13 "3.8.5" "Group definition",
    V13PolicyDefinition = Tosca13 "3.8.6" "Policy definition",
    V13Workflow = Tosca13 "3.8.7" "Imperative Workflow definition",
    V13PropertyMapping = Tosca13 "3.8.8" "Property mapping",
    V13AttributeMapping = Tosca13 "3.8.9" "Attribute mapping",
    V13CapabilityMapping = Tosca13 "3.8.10" "Capability mapping",
    V13RequirementMapping = Tosca13 "3.8.11" "Requirement mapping",
    V13InterfaceMapping = Tosca13 "3.8.12" "Interface mapping",
    V13SubstitutionMapping = Tosca13 "3.8.13" "Substitution mapping",
    V13TopologyTemplate = Tosca13 "3.9" "Topology Template definition",
    V13ServiceTemplate = Tosca13 "3.10" "Service Template definition",
    V13Functions = Tosca13 "4" "TOSCA functions",
    V13Concat = Tosca13 "4.3.1" "concat",
    V13PropertyFunctions = Tosca13 "4.4" "Property functions",
    V13AttributeFunctions = Tosca13 "4.5" "Attribute functions",
    V13NonNormativeTypes = Tosca13 "9" "Non-normative type definitions",
}

impl Section {
    /// The section to cite for this rule in a file of `grammar`: the
    /// section itself where the file uses its grammar; in a TOSCA 1.3 file
    /// the TOSCA 1.3 counterpart of a TOSCA 2.0 section, or nothing where
    /// 1.3 has no such rule: a file is never told about a grammar it does
    /// not use.
    pub fn cited(self, grammar: Grammar) -> Option<Section> {
        if grammar == Grammar::Tosca2 || self.grammar() == Grammar::Tosca13 {
            Some(self)
        } else {
            self.counterpart_13()
        }
    }

    /// The note that cites the section: `TOSCA 2.0 §9.5`, `TOSCA 1.3 §3.6.10`.
    pub fn note(self) -> String {
        let spec = match self.grammar() {
            Grammar::Tosca2 => "2.0",
            Grammar::Tosca13 => "1.3",
        };
        format!("TOSCA {spec} §{}", self.number())
    }

    /// Whether this section is `outer` or one of its subsections (`10.2.1`
    /// is within `10.2`, `10.20` is not).
    pub fn within(self, outer: Section) -> bool {
        let (n, o) = (self.number(), outer.number());
        self.grammar() == outer.grammar()
            && n.strip_prefix(o)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_cited_in_the_grammar_of_the_file() {
        let v13 = Grammar::Tosca13;
        let s = Section::PropertyDefinition;
        assert_eq!(s.cited(Grammar::Tosca2), Some(s));
        assert_eq!(s.cited(v13), Some(Section::V13PropertyDefinition));
        assert_eq!(
            Section::NodeTemplate.cited(v13),
            Some(Section::V13NodeTemplate)
        );
        // New in TOSCA 2.0: nothing to cite in a 1.3 file.
        assert_eq!(Section::FunctionDefinitions.cited(v13), None);
        assert_eq!(Section::RequirementCount.cited(v13), None);
        let own = Section::V13OperationDefinition;
        assert_eq!(own.cited(v13), Some(own));
        assert_eq!(s.cited(v13).unwrap().note(), "TOSCA 1.3 §3.6.10");
        assert_eq!(s.note(), "TOSCA 2.0 §9.4");
    }

    #[test]
    fn counterparts_are_tosca_13_sections_and_numbers_unique() {
        for &s in Section::ALL {
            if let Some(c) = s.counterpart_13() {
                assert_eq!(s.grammar(), Grammar::Tosca2, "{s:?}");
                assert_eq!(c.grammar(), Grammar::Tosca13, "{s:?}");
            }
            let twins = Section::ALL
                .iter()
                .filter(|t| t.number() == s.number() && t.grammar() == s.grammar());
            assert_eq!(twins.count(), 1, "{s:?}");
        }
    }

    #[test]
    fn subsections_are_within_their_section() {
        assert!(Section::GraphQueryFunctions.within(Section::BuiltInFunctions));
        assert!(Section::BuiltInFunctions.within(Section::BuiltInFunctions));
        assert!(!Section::BuiltInFunctions.within(Section::GraphQueryFunctions));
        assert!(Section::RequirementMappingRules.within(Section::Substitution));
        assert!(!Section::ParameterMappingAssignment.within(Section::BuiltInTypes));
        assert!(Section::V13Concat.within(Section::V13Functions));
    }
}
