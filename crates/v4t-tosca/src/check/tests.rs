//! Small TOSCA files, one rule each: valid ones must pass, invalid ones
//! must fail with the expected message.

use v4t_source::Sources;

use crate::load::load;
use crate::types::TypeSystem;
use crate::MemoryFiles;

/// Every diagnostic (errors and warnings) of validating `text` (with extra
/// files beside it).
fn all_diagnostics(text: &str, files: &[(&str, &str)]) -> Vec<v4t_source::Diagnostic> {
    let mut repo = MemoryFiles::new().with("main.yaml", text);
    for (p, t) in files {
        repo = repo.with(p, t);
    }
    let mut sources = Sources::new();
    let loaded = load(&mut sources, &mut repo, "main.yaml");
    let ts = TypeSystem::build(&loaded);
    super::validate(&ts, &sources).into_sorted()
}

/// The errors of validating `text` (with extra files beside it).
fn diagnostics_with(text: &str, files: &[(&str, &str)]) -> Vec<v4t_source::Diagnostic> {
    let mut all = all_diagnostics(text, files);
    all.retain(|d| d.is_error());
    all
}

/// The error messages of validating `text` (with extra files beside it).
fn errors_with(text: &str, files: &[(&str, &str)]) -> Vec<String> {
    diagnostics_with(text, files)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

fn errors(text: &str) -> Vec<String> {
    errors_with(text, &[])
}

/// Each error of validating `text` as its message followed by its notes
/// (`message | note | note`).
fn errors_and_notes(text: &str) -> Vec<String> {
    diagnostics_with(text, &[])
        .into_iter()
        .map(|d| {
            let notes = d.notes.iter().map(|n| format!(" | {}", n.message));
            std::iter::once(d.message).chain(notes).collect()
        })
        .collect()
}

const V: &str = "tosca_definitions_version: tosca_2_0\n";

fn valid(body: &str) {
    let text = format!("{V}{body}");
    let e = errors(&text);
    assert!(e.is_empty(), "expected valid, got {e:?} for\n{text}");
}

/// `body` has an error whose message (or one of its notes) contains
/// `expected`.
fn invalid(body: &str, expected: &str) {
    let text = format!("{V}{body}");
    let e = errors_and_notes(&text);
    assert!(
        e.iter().any(|m| m.contains(expected)),
        "expected an error containing {expected:?}, got {e:?} for\n{text}"
    );
}

/// A node type `N` with one property of type `ty` (more keynames of the
/// definition may follow after `;`) and a template assigning `value`.
fn prop(ty: &str, value: &str) -> String {
    let mut def = String::new();
    for (i, part) in ty.split(';').enumerate() {
        if i == 0 {
            def.push_str(&format!("        type: {part}\n"));
        } else {
            def.push_str(&format!("        {}\n", part.trim()));
        }
    }
    format!(
        "node_types:\n  N:\n    properties:\n      p:\n{def}service_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        p: {value}\n"
    )
}

#[test]
fn built_in_types_do_not_coerce() {
    valid(&prop("string", "'0.1'"));
    invalid(&prop("string", "0.1"), "expected a string");
    invalid(&prop("string", "null"), "expected a string");
    valid(&prop("integer", "0x1F"));
    invalid(&prop("integer", "1.0"), "expected an integer");
    valid(&prop("float", "10"));
    invalid(&prop("float", "ten"), "expected a float");
    valid(&prop("boolean", "false"));
    invalid(&prop("boolean", "0"), "expected a boolean");
    invalid(&prop("boolean", "False"), "lowercase");
    valid(&prop("nil", "null"));
    invalid(&prop("nil", "0"), "expected null");
    valid(&prop("bytes", "'R0lGODlh'"));
    invalid(&prop("bytes", "'not base64!'"), "Base64");
    valid(&prop("timestamp", "'2001-12-14T21:59:43.10-05:00'"));
    invalid(&prop("timestamp", "'2001-12-14 21:59:43.10'"), "RFC 3339");
    valid(&prop("version", "2.0.1"));
    valid(&prop("version", "'6.1'"));
    invalid(&prop("version", "6.1"), "version string");
    invalid(&prop("version", "'x.y'"), "not a version");
}

/// A `required` that is no boolean is the definition's one error: the
/// templates that leave the property out get no "has no value" for it (a
/// 1.x type library written for PyYAML has `required: no` on hundreds of
/// properties), in a 2.0 and a 1.3 file alike.
#[test]
fn a_required_that_is_no_boolean_is_one_error() {
    for (version, no) in [("tosca_2_0", "no"), ("tosca_simple_yaml_1_3", "'false'")] {
        let text = format!(
            "tosca_definitions_version: {version}\nnode_types:\n  N:\n    properties:\n      p: {{type: string, required: {no}}}\n      q: {{type: string}}\n{}:\n  node_templates:\n    n: {{type: N}}\n",
            if version == "tosca_2_0" { "service_template" } else { "topology_template" }
        );
        let e = errors(&text);
        assert_eq!(
            e,
            [
                "`required` must be a boolean",
                "required property `q` has no value"
            ],
            "{text}"
        );
    }
}

/// A YAML 1.1 boolean word where a boolean is expected gets a note on how
/// YAML 1.2 reads it (real 1.x files were written for PyYAML); a quoted
/// one, or another string, does not.
#[test]
fn yaml_1_1_booleans_are_explained() {
    let note = "is a string in YAML 1.2, which TOSCA uses";
    invalid(&prop("boolean", "yes"), "`yes` is a string in YAML 1.2");
    invalid(&prop("boolean; required: off", "true"), "`off` is a string in YAML 1.2, which TOSCA uses (YAML 1.1 readers such as PyYAML read it as a boolean): write `false`");
    invalid(
        "node_types:\n  N:\n    requirements:\n      - r: {capability: C, relationship: R}\ncapability_types:\n  C: {}\nrelationship_types:\n  R: {}\nservice_template:\n  node_templates:\n    m: {type: N}\n    n:\n      type: N\n      requirements:\n        - r: {node: m, optional: Y}\n",
        note,
    );
    for value in ["'yes'", "maybe"] {
        let text = format!("{V}{}", prop("boolean", value));
        let e = errors_and_notes(&text);
        assert!(e.iter().all(|m| !m.contains(note)), "{value}: {e:?}");
        assert!(!e.is_empty(), "{value}");
    }
}

/// A file of an unsupported version has its version error, not one more
/// for every type it names that no known grammar defines.
#[test]
fn an_unsupported_version_is_the_only_error() {
    let text = "tosca_definitions_version: tosca_simple_yaml_1_0_0\nnode_types:\n  A:\n    derived_from: tosca.nodes.Root\n  B:\n    derived_from: A\n";
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("unsupported TOSCA version"), "{e:?}");
    // The versions read are named: 2.0 and 1.0 to 1.3.
    assert!(
        e[0].ends_with(
            "expected `tosca_2_0` or `tosca_simple_yaml_1_0` to `tosca_simple_yaml_1_3`"
        ),
        "{e:?}"
    );
    // Drafts and ONAP's spellings get a note naming the standard's.
    let notes = |version: &str| {
        let text = format!("tosca_definitions_version: {version}\n");
        errors_and_notes(&text).join("\n")
    };
    assert!(notes("tosca_simple_yaml_1_0_0").contains("names a draft of TOSCA Simple Profile 1.0"));
    let onap = notes("tosca_simple_yaml_1_1_0");
    assert!(
        onap.contains("1.1's version string is `tosca_simple_yaml_1_1`"),
        "{onap}"
    );
    assert!(!notes("tosca_simple_yaml_1_4_0").contains("version string is"));
}

#[test]
fn required_properties_need_values_and_nil_needs_null() {
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: nil}\nservice_template:\n  node_templates:\n    n: {type: N}\n",
        "required property `p`",
    );
    valid("node_types:\n  N:\n    properties:\n      p: {type: nil, required: false}\nservice_template:\n  node_templates:\n    n: {type: N}\n");
    valid("node_types:\n  N:\n    properties:\n      p: {type: string, default: x}\nservice_template:\n  node_templates:\n    n: {type: N}\n");
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: string, required: false, default: x}\n",
        "cannot have a `default`",
    );
}

#[test]
fn collections_follow_their_schemas() {
    valid(&prop("list; entry_schema: integer", "[1, 2]"));
    invalid(
        &prop("list; entry_schema: integer", "[1, two]"),
        "expected an integer",
    );
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: list}\n",
        "`entry_schema` is mandatory",
    );
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: string, entry_schema: string}\n",
        "only allowed for lists and maps",
    );
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: map, key_schema: integer, entry_schema: string}\n",
        "must derive from `string`",
    );
    valid(&prop("map; entry_schema: integer", "{a: 1}"));
    invalid(
        &prop("map; entry_schema: integer", "{1: 1}"),
        "must be a string",
    );
    invalid(
        "data_types:\n  string: {derived_from: integer}\n",
        "built-in type",
    );
    invalid(
        &prop("map; entry_schema: integer", "{a: one}"),
        "expected an integer",
    );
}

#[test]
fn complex_data_types_allow_only_their_properties() {
    let types = "data_types:\n  D:\n    properties:\n      a: {type: integer}\n      b: {type: string, required: false}\n";
    valid(&format!("{types}{}", prop("D", "{a: 1}")));
    invalid(
        &format!("{types}{}", prop("D", "{a: 1, c: 2}")),
        "has no property `c`",
    );
    invalid(
        &format!("{types}{}", prop("D", "{b: x}")),
        "required property `a`",
    );
    invalid(
        "data_types:\n  D: {description: x}\n",
        "needs `derived_from` or at least one property",
    );
    invalid(
        "data_types:\n  D:\n    derived_from: string\n    properties:\n      a: {type: string}\n",
        "only allowed in complex data types",
    );
}

#[test]
fn recursive_data_types_through_required_properties_have_no_value() {
    invalid(
        "data_types:\n  T:\n    properties:\n      child: {type: T}\n",
        "contains itself",
    );
    valid("data_types:\n  T:\n    properties:\n      child: {type: T, required: false}\n");
    valid("data_types:\n  T:\n    properties:\n      children: {type: list, entry_schema: T}\n");
}

#[test]
fn validation_clauses_are_evaluated_on_written_values() {
    let t = "data_types:\n  Port:\n    derived_from: integer\n    validation: { $and: [ { $greater_or_equal: [ $value, 1 ] }, { $less_or_equal: [ $value, 65535 ] } ] }\n";
    valid(&format!("{t}{}", prop("Port", "80")));
    invalid(&format!("{t}{}", prop("Port", "0")), "does not satisfy");
    let s = "data_types:\n  S:\n    derived_from: string\n    validation: { $valid_values: [ $value, [a, b] ] }\n";
    valid(&format!("{s}{}", prop("S", "a")));
    invalid(&format!("{s}{}", prop("S", "c")), "does not satisfy");
    let m = "data_types:\n  M:\n    derived_from: string\n    validation: { $matches: [ $value, '^[a-z]+$' ] }\n";
    valid(&format!("{m}{}", prop("M", "abc")));
    invalid(&format!("{m}{}", prop("M", "'A1'")), "does not satisfy");
    // Values given by functions are checked at deployment.
    valid(&format!(
        "{t}node_types:\n  N:\n    properties:\n      p: {{type: Port}}\nservice_template:\n  inputs:\n    i: {{type: integer}}\n  node_templates:\n    n:\n      type: N\n      properties:\n        p: {{ $get_input: i }}\n"
    ));
    invalid(
        "data_types:\n  S:\n    derived_from: string\n    validation: { $greater_or_equal: [ $value, 9 ] }\n",
        "compares a value of type `S`",
    );
    invalid(
        "data_types:\n  S:\n    derived_from: string\n    validation: abc\n",
        "Boolean expression",
    );
}

const SCALARS: &str = "data_types:\n  Size:\n    derived_from: scalar\n    data_type: integer\n    units: {B: 1, kB: 1000}\n  Len:\n    derived_from: scalar\n    units: {m: 1}\n    prefixes: {'': 1, k: 1000, c: 0.01}\n";

#[test]
fn scalars_have_a_number_and_a_known_unit() {
    valid(&format!("{SCALARS}{}", prop("Size", "10 kB")));
    invalid(
        &format!("{SCALARS}{}", prop("Size", "10")),
        "`<number> <unit>`",
    );
    invalid(&format!("{SCALARS}{}", prop("Size", "kB")), "not a scalar");
    invalid(
        &format!("{SCALARS}{}", prop("Size", "10 KB")),
        "unknown unit",
    );
    invalid(
        &format!("{SCALARS}{}", prop("Size", "1.5 kB")),
        "must be an integer",
    );
    valid(&format!("{SCALARS}{}", prop("Len", "12.5 cm")));
    invalid(&format!("{SCALARS}{}", prop("scalar", "1 m")), "abstract");
    let limited = format!("{SCALARS}  Small:\n    derived_from: Len\n    validation: {{ $less_than: [ $value, 1 km ] }}\n");
    valid(&format!("{limited}{}", prop("Small", "999 m")));
    invalid(
        &format!("{limited}{}", prop("Small", "1001 m")),
        "does not satisfy",
    );
}

#[test]
fn scalar_type_definitions_follow_their_rules() {
    invalid(
        "data_types:\n  S: {derived_from: scalar}\n",
        "needs `units`",
    );
    invalid(
        "data_types:\n  S: {derived_from: scalar, units: {k: 1000}}\n",
        "multiplier 1",
    );
    invalid(
        "data_types:\n  S: {derived_from: scalar, units: {a: 1, b: 1}}\n",
        "`canonical_unit` is required",
    );
    invalid(
        "data_types:\n  S: {derived_from: scalar, units: {a: 1}, canonical_unit: z}\n",
        "not a unit",
    );
    invalid("data_types:\n  S: {derived_from: scalar, units: {a: 1, b: 2}, prefixes: {'': 1, k: 1000}}\n", "exactly one unit");
    invalid(
        "data_types:\n  S: {derived_from: scalar, data_type: string, units: {a: 1}}\n",
        "`float`, `integer`",
    );
    invalid(
        "data_types:\n  S: {derived_from: scalar, data_type: integer, units: {a: 1, b: 0.5}}\n",
        "must be an integer",
    );
    invalid(
        "data_types:\n  S: {derived_from: string, units: {a: 1}}\n",
        "only allowed in scalar types",
    );
    invalid(
        "data_types:\n  S: {derived_from: scalar, units: {a: 1}}\n  T: {derived_from: S, data_type: integer}\n",
        "must not be changed",
    );
    valid("data_types:\n  S: {derived_from: scalar, units: {a: 1}}\n  T: {derived_from: S, units: {b: 2}}\n");
}

#[test]
fn unknown_keynames_are_reported_with_tosca_2_hints() {
    invalid(
        "node_types:\n  N:\n    properties:\n      p: {type: string, constraints: []}\n",
        "uses `validation`",
    );
    invalid("topology_template: {}\n", "uses `service_template`");
    invalid(
        "repositories:\n  r: {url: x, credential: {user: u}}\n",
        "removed in TOSCA 2.0",
    );
}

#[test]
fn definitions_of_a_type_with_an_unknown_ancestor_may_be_refinements() {
    // Puccini's online boutique: the parent's profile was not imported.
    let types = "node_types:\n  F:\n    derived_from: ms:Service\n    properties:\n      label:\n        default: front\n      port: 80\n    capabilities:\n      service:\n        properties: {}\n    requirements:\n      - db: {}\n  G:\n    derived_from: F\n    properties:\n      label:\n        default: back\n";
    let e = errors(&format!("{V}{types}"));
    assert_eq!(e, ["unknown node type `ms:Service`"]);
    // With a known parent, the same definitions are new ones.
    let known = types
        .replace("ms:Service", "R")
        .replace("node_types:\n", "node_types:\n  R: {}\n");
    let e = errors(&format!("{V}{known}"));
    assert_eq!(e.len(), 4, "{e:?}");
    assert!(e[0].starts_with("property `label` needs a `type`"), "{e:?}");
}

#[test]
fn functions_into_a_type_with_an_unknown_ancestor_are_not_reported() {
    let types = "node_types:\n  A:\n    derived_from: x.Unknown\n    properties:\n      p:\n        type: string\n";
    let tosca_2 = format!(
        "{V}{types}service_template:\n  node_templates:\n    a:\n      type: A\n      properties:\n        p: {{ $get_property: [ SELF, inherited ] }}\n    b:\n      type: A\n      properties:\n        p: {{ $get_attribute: [ a, CAPABILITY, c, x ] }}\n    c:\n      type: A\n      properties:\n        p: {{ $get_attribute: [ a, RELATIONSHIP, req, x ] }}\n"
    );
    let tosca_13 = format!(
        "{V13}{types}topology_template:\n  node_templates:\n    a:\n      type: A\n      properties:\n        p: {{ get_property: [ SELF, inherited ] }}\n    b:\n      type: A\n      properties:\n        p: {{ get_attribute: [ a, c, x ] }}\n"
    );
    for (text, names) in [(tosca_2, 3), (tosca_13, 2)] {
        assert_eq!(errors(&text), ["unknown node type `x.Unknown`"]);
        // With a known parent, each name is reported.
        let known = text
            .replace("x.Unknown", "R")
            .replace("node_types:\n", "node_types:\n  R: {}\n");
        let e = errors(&known);
        assert_eq!(e.len(), names, "{e:?}");
        assert!(e.iter().all(|e| e.contains("has no")), "{e:?}");
    }
}

#[test]
fn other_templates_of_a_type_with_an_unknown_ancestor_are_not_checked_by_name() {
    // A data type's values, a requirement's target node type (in the
    // definition and in the template) and a capability mapping's node.
    let types = "data_types:\n  D:\n    derived_from: x.Unknown\n    properties:\n      a:\n        type: string\ncapability_types:\n  Cap: {}\nnode_types:\n  N:\n    properties:\n      d:\n        type: D\n    capabilities:\n      c: Cap\n    requirements:\n      - r:\n          capability: Cap\n          node: M\n  M:\n    derived_from: y.Unknown\n";
    let nodes = "  node_templates:\n    n:\n      type: N\n      properties:\n        d: {a: x, b: y}\n      requirements:\n        - r: m\n    m:\n      type: M\n";
    let mapping =
        "  substitution_mappings:\n    node_type: N\n    capabilities:\n      c: [ m, cap ]\n";
    let unknown = [
        "unknown data type `x.Unknown`",
        "unknown node type `y.Unknown`",
    ];
    for text in [
        format!("{V}{types}service_template:\n{nodes}{mapping}"),
        format!("{V13}{types}topology_template:\n{nodes}"),
    ] {
        assert_eq!(errors(&text), unknown);
        // With known parents, every name is checked.
        let known = text
            .replace("    derived_from: x.Unknown\n", "")
            .replace("y.Unknown", "R")
            .replace("node_types:\n", "node_types:\n  R: {}\n");
        let e = errors(&known);
        assert!(e.len() >= 3, "{e:?}");
        assert!(e.iter().all(|e| e.contains("has no")), "{e:?}");
    }
}

#[test]
fn assignments_to_a_capability_of_an_unknown_type_are_not_reported() {
    // Turandot: the Kubernetes profile is copied in when the CSAR is built.
    let types = "node_types:\n  App:\n    capabilities:\n      metadata: k8s.Metadata\n      web:\n        type: k8s.LoadBalancer\n";
    let template = "  node_templates:\n    app:\n      type: App\n      capabilities:\n        metadata:\n          properties:\n            labels: {}\n  outputs:\n    url:\n";
    let tosca_2 = format!("{V}{types}service_template:\n{template}      value: {{ $get_attribute: [ app, CAPABILITY, web, status, ingress ] }}\n");
    let tosca_13 = format!("{V13}{types}topology_template:\n{template}      value: {{ get_attribute: [ app, web, status, ingress ] }}\n");
    for text in [tosca_2, tosca_13] {
        let e = errors(&text);
        assert_eq!(
            e,
            [
                "unknown capability type `k8s.Metadata`",
                "unknown capability type `k8s.LoadBalancer`"
            ]
        );
        // With a known capability type, the same names are reported.
        let known = text
            .replace("k8s.Metadata", "M")
            .replace("k8s.LoadBalancer", "M")
            .replace("node_types:", "capability_types:\n  M: {}\nnode_types:");
        let e = errors(&known);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[0], "`labels` is not a defined property");
        assert!(e[1].ends_with("has no attribute `status`"), "{e:?}");
    }
}

#[test]
fn copy_names_a_template_that_does_not_copy() {
    let nodes = "  node_templates:\n    a:\n      type: N\n    b:\n      copy: a\n    c:\n      copy: b\n    d:\n      copy: zz\n    e:\n      properties: {}\n";
    let types = "node_types:\n  N: {}\n";
    for text in [
        format!("{V}{types}service_template:\n{nodes}"),
        format!("{V13}{types}topology_template:\n{nodes}"),
    ] {
        // One error each: the missing `type` of `c` and `d` follows from
        // their `copy`, and is not reported again.
        assert_eq!(
            errors(&text),
            [
                "`b` itself uses `copy`, so it cannot be copied",
                "`copy` names `zz`, which is not a node template",
                "node template `e` needs a `type`",
            ]
        );
    }
    let rels = format!(
        "{V13}relationship_types:\n  R: {{}}\ntopology_template:\n  relationship_templates:\n    a:\n      type: R\n    b:\n      copy: a\n    c:\n      copy: b\n    d: {{}}\n"
    );
    assert_eq!(
        errors(&rels),
        [
            "`b` itself uses `copy`, so it cannot be copied",
            "relationship template `d` needs a `type`",
        ]
    );
}

#[test]
fn sections_must_have_the_right_shape() {
    invalid("node_types:\n", "is empty");
    invalid("node_types: [a]\n", "must be a map");
    invalid("node_types:\n  '': {}\n", "empty name");
    invalid("node_types:\n  99: {}\n", "must be a string");
    invalid(
        "node_types:\n  N:\n    requirements:\n      r: {capability: C}\n",
        "must be a list",
    );
    invalid(
        "service_template:\n  node_templates:\n    - n: {type: N}\n",
        "must be a map",
    );
    invalid(
        "service_template:\n  inputs: {}\n",
        "needs `node_templates`",
    );
    invalid("description: 1\n", "must be a string");
    invalid(
        "profile: p:1\nservice_template:\n  node_templates: {}\n",
        "must not define a service template",
    );
}

#[test]
fn type_names_resolve_to_types_of_the_right_kind() {
    invalid(
        "node_types:\n  N: {derived_from: Nope}\n",
        "unknown node type `Nope`",
    );
    invalid(
        "capability_types:\n  C: {}\nnode_types:\n  N: {derived_from: C}\n",
        "is a capability type, not a node type",
    );
    invalid(
        "service_template:\n  node_templates:\n    n: {type: tosca.nodes.Compute}\n",
        "import a profile",
    );
    invalid(
        "capability_types:\n  C: {valid_source_node_types: [Nope]}\n",
        "unknown node type",
    );
}

#[test]
fn derived_types_only_narrow_their_lists_and_refine_definitions() {
    invalid(
        "node_types:\n  A: {}\n  B: {}\ncapability_types:\n  C: {valid_source_node_types: [A]}\n  D: {derived_from: C, valid_source_node_types: [B]}\n",
        "may only narrow",
    );
    valid("node_types:\n  A: {}\n  B: {derived_from: A}\ncapability_types:\n  C: {valid_source_node_types: [A]}\n  D: {derived_from: C, valid_source_node_types: [B]}\n");
    invalid(
        "node_types:\n  A:\n    properties:\n      p: {type: integer}\n  B:\n    derived_from: A\n    properties:\n      p: {type: string}\n",
        "does not derive from",
    );
    invalid(
        "node_types:\n  A:\n    properties:\n      p: {type: integer}\n  B:\n    derived_from: A\n    properties:\n      p: {type: integer, required: false}\n",
        "cannot become optional",
    );
    invalid(
        "node_types:\n  A:\n    properties:\n      p: {type: integer, value: 1}\n  B:\n    derived_from: A\n    properties:\n      p: 2\n",
        "fixed value",
    );
    valid("node_types:\n  A:\n    properties:\n      p: {type: integer}\n  B:\n    derived_from: A\n    properties:\n      p: 2\n");
    invalid(
        "node_types:\n  A:\n    properties:\n      p: 2\n",
        "only refines",
    );
}

#[test]
fn interfaces_define_operations_in_types_and_implement_them_elsewhere() {
    invalid(
        "interface_types:\n  I:\n    operations:\n      op: {implementation: x.sh}\n",
        "must not define implementations",
    );
    let types = "interface_types:\n  I:\n    operations:\n      op: {}\nnode_types:\n  N:\n    interfaces:\n      i: {type: I}\n";
    valid(&format!("{types}service_template:\n  node_templates:\n    n:\n      type: N\n      interfaces:\n        i:\n          operations:\n            op: run.sh\n"));
    invalid(
        &format!("{types}service_template:\n  node_templates:\n    n:\n      type: N\n      interfaces:\n        i:\n          operations:\n            other: run.sh\n"),
        "not defined by the interface",
    );
    invalid(
        &format!("{types}service_template:\n  node_templates:\n    n:\n      type: N\n      interfaces:\n        j: {{}}\n"),
        "not an interface",
    );
    invalid(
        "interface_types:\n  I:\n    inputs:\n      i: {type: string, value: { $get_property: [SELF, p] }}\n",
        "cannot be used in an interface type",
    );
    invalid(
        "interface_types:\n  I:\n    outputs: {}\n    operations:\n      op:\n        outputs:\n          o: {type: string, mapping: [SELF, a]}\n",
        "not allowed in interface type",
    );
}

const REQS: &str = "capability_types:\n  Host: {}\n  Other: {}\nrelationship_types:\n  HostedOn: {valid_capability_types: [Host]}\nnode_types:\n  Server:\n    capabilities:\n      host: Host\n  Plain: {}\n  App:\n    requirements:\n      - host:\n          capability: Host\n          relationship: HostedOn\n          count_range: [1, 2]\n";

#[test]
fn requirement_assignments_match_their_definitions() {
    let tpl = |reqs: &str| {
        format!("{REQS}service_template:\n  node_templates:\n    s: {{type: Server}}\n    p: {{type: Plain}}\n    a:\n      type: App\n      requirements:\n{reqs}")
    };
    valid(&tpl("        - host: s\n"));
    valid(&tpl("        - host: [s, 0]\n"));
    valid(&tpl("        - host: {node: Server, count: 2}\n"));
    invalid(
        &tpl("        - host: nowhere\n"),
        "neither a node template nor a node type",
    );
    invalid(
        &tpl("        - host: p\n"),
        "has no capability of type `Host`",
    );
    invalid(&tpl("        - db: s\n"), "has no requirement `db`");
    invalid(
        &tpl("        - host: s\n        - host: s\n        - host: s\n"),
        "more than its count_range",
    );
    invalid(
        &tpl("        - host: {node: s, optional: true}\n"),
        "fewer than its count_range",
    );
    invalid(
        &tpl("        - host: {node: s, count: -1}\n"),
        "non-negative integer",
    );
    invalid(
        &tpl("        - host: {node: s, relationship: Nope}\n"),
        "neither a relationship type nor a relationship template",
    );
    invalid(
        &tpl("        - host: {node: s, directives: [inside]}\n"),
        "unknown requirement directive",
    );
    invalid(
        &tpl("        - host: {node: s, capability: nope}\n"),
        "neither a capability",
    );
}

#[test]
fn requirement_definitions_follow_their_rules() {
    invalid(
        "capability_types:\n  C: {}\nnode_types:\n  N:\n    requirements:\n      - r: {capability: C, count_range: [2, 1]}\n",
        "`count_range` is `[min, max]`",
    );
    invalid(
        "capability_types:\n  C: {}\nnode_types:\n  N:\n    requirements:\n      - r: {capability: C}\n      - r: {capability: C}\n",
        "defined twice",
    );
    invalid(
        "capability_types:\n  C: {}\nnode_types:\n  A:\n    requirements:\n      - r: {capability: C, count_range: [1, 2]}\n  B:\n    derived_from: A\n    requirements:\n      - r: {count_range: [0, 3]}\n",
        "within the parent's range",
    );
    valid("capability_types:\n  C: {}\nnode_types:\n  N:\n    requirements:\n      - r: {capability: C, count_range: [0, UNBOUNDED]}\n");
}

#[test]
fn functions_have_known_names_and_argument_shapes() {
    let s = |value: &str| {
        format!("node_types:\n  N:\n    properties:\n      p: {{type: string, required: false}}\n      b: {{type: boolean, required: false}}\nservice_template:\n  inputs:\n    i: {{type: string}}\n  node_templates:\n    n:\n      type: N\n      properties:\n{value}")
    };
    valid(&s("        p: { $concat: [ a, { $get_input: i } ] }\n"));
    valid(&s("        p: $$literal\n"));
    invalid(&s("        p: { $nope: [] }\n"), "unknown function `$nope`");
    invalid(
        &s("        p: { $concat: [a], other: 1 }\n"),
        "malformed function",
    );
    invalid(
        &s("        b: { $xor: [ true, false, true ] }\n"),
        "`$xor` takes 2 argument(s)",
    );
    invalid(&s("        b: { $and: [ true ] }\n"), "at least 2");
    invalid(&s("        p: { $token: [ a, b ] }\n"), "takes 3");
    invalid(&s("        p: { $get_input: j }\n"), "not a declared input");
    invalid(
        &s("        p: { $get_property: [ m, x ] }\n"),
        "neither SELF nor a node or relationship template",
    );
    invalid(
        &s("        p: { $get_property: [ SELF, nope ] }\n"),
        "has no property `nope`",
    );
    valid(&s("        p: { $get_property: [ SELF, p ] }\n"));
    invalid(&s("        b: { $concat: [ a ] }\n"), "returns a string");
    invalid(&s("        p: { $join: [ a ] }\n"), "must be a list");
    invalid(
        &s("        b: { $equal: [ 1, '1' ] }\n"),
        "must have the same type",
    );
    invalid(
        &s("        b: { $less_than: [ true, false ] }\n"),
        "cannot order",
    );
    valid(&s("        b: { $equal: [ 1, 1.0 ] }\n"));
}

#[test]
fn custom_functions_are_matched_against_their_signatures() {
    let f = "functions:\n  sqrt:\n    signatures:\n      - arguments: [integer]\n        result: float\n      - arguments: [float]\n        result: float\nnode_types:\n  N:\n    properties:\n      p: {type: float}\n";
    let t = |v: &str| {
        format!("{f}service_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        p: {v}\n")
    };
    valid(&t("{ $sqrt: [ 4 ] }"));
    valid(&t("{ $sqrt: [ 4.5 ] }"));
    invalid(&t("{ $sqrt: [ four ] }"), "match none of its signatures");
    invalid(&t("{ $sqrt: [ 1, 2 ] }"), "match none of its signatures");
    invalid("functions:\n  f: {description: x}\n", "has no `signatures`");
}

#[test]
fn imports_bring_types_into_namespaces() {
    let lib = "tosca_definitions_version: tosca_2_0\nnode_types:\n  Lib: {}\n";
    let e = errors_with(
        &format!("{V}imports:\n  - url: lib.yaml\n    namespace: l\nservice_template:\n  node_templates:\n    a: {{type: l:Lib}}\n    b: {{type: Lib}}\n"),
        &[("lib.yaml", lib)],
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("unknown node type `Lib`"));
    let e = errors_with(
        &format!("{V}imports:\n  - profile: example:1\nservice_template:\n  node_templates:\n    a: {{type: Lib}}\n"),
        &[("profile.yaml", "tosca_definitions_version: tosca_2_0\nprofile: example:1\nnode_types:\n  Lib: {}\n")],
    );
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn the_bundled_simple_profile_is_importable() {
    valid("imports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n    c: {type: Compute}\n");
}

#[test]
fn groups_policies_and_workflows_name_existing_templates() {
    let t = "node_types:\n  N: {}\n  M: {}\ngroup_types:\n  G: {members: [N]}\npolicy_types:\n  P: {targets: [N]}\n";
    valid(&format!("{t}service_template:\n  node_templates:\n    n: {{type: N}}\n  groups:\n    g: {{type: G, members: [n]}}\n  policies:\n    - p: {{type: P, targets: [n]}}\n"));
    invalid(
        &format!("{t}service_template:\n  node_templates:\n    m: {{type: M}}\n  groups:\n    g: {{type: G, members: [m]}}\n"),
        "not a valid member",
    );
    invalid(
        &format!("{t}service_template:\n  node_templates:\n    m: {{type: M}}\n  policies:\n    - p: {{type: P, targets: [m]}}\n"),
        "not a valid target",
    );
    invalid(
        &format!("{t}service_template:\n  node_templates:\n    n: {{type: N}}\n  policies:\n    - p: {{type: P}}\n    - p: {{type: P}}\n"),
        "defined twice",
    );
    invalid(
        &format!("{t}service_template:\n  node_templates:\n    n: {{type: N}}\n  workflows:\n    w:\n      steps:\n        s:\n          target: x\n          activities: [ {{set_state: started}} ]\n"),
        "neither a node template nor a group",
    );
    invalid(
        &format!("{t}service_template:\n  node_templates:\n    n: {{type: N}}\n  workflows:\n    w:\n      steps:\n        s:\n          target: n\n          activities: [ {{inline: nope}} ]\n          on_success: [t]\n"),
        "workflow `nope` is not defined",
    );
}

/// A requirement assignment that names no relationship (or only its type)
/// creates one without property values: its required properties need a
/// default, the type's or one the requirement definition refines (§8.5).
#[test]
fn implicit_relationships_need_their_required_properties() {
    let t = |assignment: &str| {
        format!("capability_types:\n  C: {{}}\nrelationship_types:\n  R:\n    properties:\n      p: {{type: integer}}\n      q: {{type: integer}}\n      d: {{type: integer, default: 0}}\nnode_types:\n  T:\n    capabilities: {{c: C}}\n  N:\n    requirements:\n      - r:\n          capability: C\n          relationship:\n            type: R\n            properties:\n              p: {{type: integer, default: 1}}\nservice_template:\n  node_templates:\n    t: {{type: T}}\n    n:\n      type: N\n      requirements:\n        - r: {assignment}\n")
    };
    let missing_q = "the relationship this requirement creates (`R`) has no value for its required property `q`";
    assert_eq!(errors(&format!("{V}{}", t("t"))), [missing_q]);
    assert_eq!(
        errors(&format!("{V}{}", t("{node: t, relationship: R}"))),
        [missing_q]
    );
    valid(&t("{node: t, relationship: {type: R, properties: {q: 2}}}"));
}

/// Notification definitions have no `inputs` in TOSCA 1.3 (§3.6.19); 2.0
/// gives them some (§11.6).
#[test]
fn notification_definitions_have_their_own_keynames() {
    let t = |version: &str| {
        format!("tosca_definitions_version: {version}\ninterface_types:\n  I:\n    notifications:\n      alarm:\n        description: raised\n        inputs:\n          level: {{type: integer}}\n")
    };
    assert!(errors(&t("tosca_2_0")).is_empty());
    assert_eq!(
        errors(&t("tosca_simple_yaml_1_3")),
        ["unknown keyname `inputs` in a notification definition"]
    );
}

/// An inlined workflow (§13.2.3.4) gets the inputs it defines, and a
/// value for each it requires.
#[test]
fn inlined_workflows_get_their_inputs() {
    let t = |activity: &str| {
        format!("node_types:\n  N: {{}}\nservice_template:\n  node_templates:\n    n: {{type: N}}\n  workflows:\n    heal:\n      inputs:\n        reason: {{type: string}}\n        level: {{type: integer, default: 1}}\n      steps:\n        s:\n          target: n\n          activities: [ {{set_state: healing}} ]\n    w:\n      steps:\n        s:\n          target: n\n          activities:\n            - {activity}\n")
    };
    valid(&t("inline: {workflow: heal, inputs: {reason: load}}"));
    invalid(
        &t("inline: heal"),
        "required input `reason` of workflow `heal` gets no value",
    );
    invalid(
        &t("inline: {workflow: heal, inputs: {reason: load, cause: x}}"),
        "`cause` is not an input of workflow `heal`",
    );
    invalid(
        &t("inline: {workflow: heal, inputs: {reason: 3}}"),
        "expected a string, got an integer 3",
    );
    // A delegate workflow is the orchestrator's: its name is not looked up.
    valid(&t("delegate: {workflow: restart, inputs: {any: x}}"));
}

/// OpenStack's TOSCA 1.0 triggers (`metric`, `event_type` as a map,
/// `action` as a map) are written in forms no TOSCA 1.3 grammar has; only
/// files that declare 1.3 have their triggers checked (1.3 §3.6.22).
#[test]
fn triggers_are_checked_in_files_that_declare_tosca_1_3() {
    let t = |version: &str| {
        format!("tosca_definitions_version: {version}\ntopology_template:\n  node_templates:\n    vdu: {{type: tosca.nodes.Compute}}\n  policies:\n    - scaling:\n        type: tosca.policies.Scaling\n        targets: [vdu]\n        triggers:\n          high_cpu:\n            event_type: {{type: tosca.events.resource.utilization}}\n            metric: cpu_util\n            condition:\n              constraint: utilization greater_than 50%\n              granularity: 60\n            action:\n              resize: {{inputs: {{count: 1}}}}\n")
    };
    for version in ["tosca_simple_yaml_1_0", "tosca_simple_yaml_1_2"] {
        let e = errors(&t(version));
        assert!(e.is_empty(), "{version}: {e:?}");
    }
    let e = errors(&t("tosca_simple_yaml_1_3"));
    for expected in [
        "unknown keyname `metric` in a trigger definition",
        "`event_type` must be a string, not a map",
        "a list of activities must be a list, not a map",
    ] {
        assert!(
            e.iter().any(|m| m.starts_with(expected)),
            "{expected}: {e:?}"
        );
    }
}

#[test]
fn substitution_mappings_refer_to_existing_things() {
    let t = "capability_types:\n  C: {}\nnode_types:\n  S:\n    properties:\n      p: {type: string}\n    capabilities:\n      c: C\n";
    valid(&format!("{t}service_template:\n  inputs:\n    i: {{type: string}}\n  substitution_mappings:\n    node_type: S\n    properties:\n      p: i\n    capabilities:\n      c: [n, c]\n  node_templates:\n    n:\n      type: S\n      properties:\n        p: x\n"));
    invalid(
        &format!("{t}service_template:\n  inputs:\n    i: {{type: string}}\n  substitution_mappings:\n    node_type: S\n  node_templates: {{}}\n"),
        "must map a property to it",
    );
    invalid(
        &format!("{t}service_template:\n  substitution_mappings:\n    node_type: S\n    capabilities:\n      c: [nobody, c]\n  node_templates: {{}}\n"),
        "is not a node template",
    );
}

#[test]
fn tosca_13_files_use_the_normative_types() {
    let text = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    c:\n      type: tosca.nodes.Compute\n      capabilities:\n        host:\n          properties:\n            num_cpus: 2\n            mem_size: 4 GB\n    s:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host: c\n";
    let e = errors(text);
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&text.replace("4 GB", "4 parsecs"));
    assert!(e.iter().any(|m| m.contains("unknown unit")), "{e:?}");
}

#[test]
fn deeply_nested_calls_and_values_end_with_an_error() {
    // Block style: flow collections stop at 255 levels in the YAML layer.
    let mut calls = String::new();
    let mut lists = String::new();
    for level in 0..300 {
        let pad = " ".repeat(10 + 2 * level);
        calls.push_str(&format!("{pad}- $concat:\n"));
        lists.push_str(&format!("{pad}-\n"));
    }
    calls.push_str(&format!("{}- a\n", " ".repeat(10 + 600)));
    lists.push_str(&format!("{}- 1\n", " ".repeat(10 + 600)));
    let node = |ty: &str, value: &str| {
        format!("node_types:\n  N:\n    properties:\n      p: {{type: {ty}}}\nservice_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        p:\n{value}")
    };
    invalid(
        &node("string", &format!("          $concat:\n{calls}")),
        "nested too deeply",
    );
    invalid(
        &node("list, entry_schema: string", &lists),
        "expected a string",
    );
}

#[test]
fn timestamps_versions_and_scalars_compare_by_magnitude() {
    let ts = "data_types:\n  Recent:\n    derived_from: timestamp\n    validation: { $greater_than: [ $value, '2020-01-01T00:00:00Z' ] }\n";
    valid(&format!(
        "{ts}{}",
        prop("Recent", "'2021-06-01T12:00:00+02:00'")
    ));
    invalid(
        &format!("{ts}{}", prop("Recent", "'2019-12-31T18:00:00-05:00'")),
        "does not satisfy",
    );
    let vs = "data_types:\n  Modern:\n    derived_from: version\n    validation: { $greater_or_equal: [ $value, '1.10' ] }\n";
    valid(&format!("{vs}{}", prop("Modern", "1.10.0")));
    invalid(
        &format!("{vs}{}", prop("Modern", "'1.9'")),
        "does not satisfy",
    );
    let sz = format!("{SCALARS}  Big:\n    derived_from: Size\n    validation: {{ $greater_or_equal: [ $value, 2 kB ] }}\n");
    valid(&format!("{sz}{}", prop("Big", "2000 B")));
    invalid(
        &format!("{sz}{}", prop("Big", "1999 B")),
        "does not satisfy",
    );
    // Lists and maps with the string, list and set functions.
    let l = "data_types:\n  Tags:\n    derived_from: list\n    entry_schema: string\n    validation: { $and: [ { $has_entry: [ $value, web ] }, { $less_or_equal: [ { $length: [ $value ] }, 3 ] } ] }\n";
    valid(&format!("{l}{}", prop("Tags", "[web, db]")));
    invalid(&format!("{l}{}", prop("Tags", "[db]")), "does not satisfy");
    invalid(
        &format!("{l}{}", prop("Tags", "[web, a, b, c]")),
        "does not satisfy",
    );
}

#[test]
fn tosca_13_constraints_are_evaluated() {
    let text = "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  N:\n    derived_from: tosca.nodes.Root\n    properties:\n      p:\n        type: integer\n        constraints:\n          - in_range: [ 1, 10 ]\ntopology_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        p: VALUE\n";
    assert!(errors(&text.replace("VALUE", "5")).is_empty());
    let e = errors(&text.replace("VALUE", "11"));
    assert!(e.iter().any(|m| m.contains("does not satisfy")), "{e:?}");
}

#[test]
fn requirement_mappings_go_onto_dangling_requirements_within_the_count_range() {
    let types = "capability_types:\n  C: {}\nnode_types:\n  S:\n    requirements:\n      - r: {capability: C, count_range: [0, 1]}\n  Inner:\n    capabilities:\n      c: C\n    requirements:\n      - r: {capability: C}\n";
    let t = |reqs: &str, maps: &str| {
        format!("{types}service_template:\n  substitution_mappings:\n    node_type: S\n    requirements:\n{maps}  node_templates:\n    x: {{type: Inner}}\n    i:\n      type: Inner\n{reqs}")
    };
    valid(&t("", "      - r: [i, r]\n"));
    valid(&t(
        "      requirements:\n        - r: {capability: c}\n",
        "      - r: [i, r]\n",
    ));
    invalid(
        &t(
            "      requirements:\n        - r: x\n",
            "      - r: [i, r]\n",
        ),
        "not dangling",
    );
    invalid(
        &t("", "      - r: [i, r]\n      - r: [i, r]\n"),
        "more than the upper bound",
    );
}

#[test]
fn a_tree_in_hand_is_validated_with_the_spans_it_was_written_with() {
    let mut sources = Sources::new();
    let text = "tosca_definitions_version: tosca_2_0\nservice_template:\n  node_templates:\n    n: {type: Missing}\n";
    let id = sources.add("variable.yaml", text);
    let root = v4t_yaml::parse_with(text, id, v4t_yaml::Schema::Core).unwrap();
    let loaded = crate::load::load_tree(&mut sources, &mut MemoryFiles::new(), "out.yaml", root);
    let ts = TypeSystem::build(&loaded);
    let ds = super::validate(&ts, &sources).into_sorted();
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].span.source, id);
    assert_eq!(
        sources.locate(ds[0].span).map(|at| at.start()),
        Some((4, 15))
    );
}

#[test]
fn description_and_metadata_are_allowed_in_every_element() {
    valid(&format!("{REQS}service_template:\n  node_templates:\n    s: {{type: Server}}\n    a:\n      type: App\n      requirements:\n        - host:\n            node: s\n            description: the web server's host\n            metadata: {{owner: ops}}\n"));
    invalid(&format!("{REQS}service_template:\n  node_templates:\n    s: {{type: Server}}\n    a:\n      type: App\n      requirements:\n        - host:\n            node: s\n            description: [not, text]\n"), "`description` must be a string");
}

#[test]
fn text_that_is_not_yaml_gives_one_error() {
    let e = errors("a: [\n");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("invalid YAML"), "{e:?}");
    // An empty file is not YAML that failed: it is an empty document.
    let e = errors("");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("the document is empty"), "{e:?}");
}

#[test]
fn requirement_mappings_with_counts_are_flow_sequence_keys() {
    // §15.5.1 and §15.5.5: `[ <requirement>, <count> ]` keys.
    let types = "capability_types:\n  C: {}\nnode_types:\n  S:\n    requirements:\n      - r: {capability: C, count_range: [0, RANGE]}\n  Inner:\n    capabilities:\n      c: C\n    requirements:\n      - r: {capability: C, count_range: [0, UNBOUNDED]}\n";
    let t = |range: &str, maps: &str| {
        format!("{}service_template:\n  substitution_mappings:\n    node_type: S\n    requirements:\n{maps}  node_templates:\n    i: {{type: Inner}}\n    j: {{type: Inner}}\n", types.replace("RANGE", range))
    };
    valid(&t("2", "      - [ r, 2 ]: [ i, r ]\n"));
    valid(&t(
        "UNBOUNDED",
        "      - r: [ i, r ]\n      - r: [ j, r ]\n      - [ r, UNBOUNDED ]: [ i, r ]\n",
    ));
    valid(&t("3", "      - r: [ i, r ]\n      - [ r, 2 ]: [ j, r ]\n"));
    invalid(
        &t("2", "      - r: [ i, r ]\n      - [ r, 2 ]: [ j, r ]\n"),
        "requirement `r` is mapped 3 times, more than the upper bound 2",
    );
    invalid(
        &t(
            "UNBOUNDED",
            "      - [ r, UNBOUNDED ]: [ i, r ]\n      - r: [ j, r ]\n",
        ),
        "mapped again after a mapping with an UNBOUNDED count",
    );
    invalid(
        &t("2", "      - [ nope, 1 ]: [ i, r ]\n"),
        "node type `S` has no requirement `nope`",
    );
    for key in [
        "[ r, -1 ]",
        "[ r, 1.5 ]",
        "[ r ]",
        "[ r, 1, 2 ]",
        "{ r: 1 }",
        "[ [r], 1 ]",
    ] {
        invalid(
            &t("2", &format!("      - {key}: [ i, r ]\n")),
            "a requirement mapping key is",
        );
    }
}

#[test]
fn property_and_attribute_mappings_reach_capabilities_and_relationships() {
    // §15.2 and §15.3: `[ CAPABILITY, ... ]` and `[ RELATIONSHIP, ... ]` keys.
    let types = "capability_types:\n  C:\n    properties:\n      cp: {type: integer, required: false}\n    attributes:\n      ca: {type: string}\nrelationship_types:\n  R:\n    properties:\n      rp: {type: string}\nnode_types:\n  S:\n    capabilities:\n      c: C\n    requirements:\n      - r: {capability: C, relationship: R}\n  Inner:\n    capabilities:\n      c: C\n";
    let t = |props: &str, attrs: &str| {
        format!("{types}service_template:\n  inputs:\n    n: {{type: integer, required: false}}\n    s: {{type: string, required: false}}\n    l: {{type: list, entry_schema: string, required: false}}\n  outputs:\n    o: {{type: string}}\n  substitution_mappings:\n    node_type: S\n    properties:\n{props}    attributes:\n{attrs}  node_templates:\n    i: {{type: Inner}}\n")
    };
    valid(&t(
        "      [ CAPABILITY, c, cp ]: n\n      [ RELATIONSHIP, r, 0, rp ]: s\n      [ RELATIONSHIP, r, rp ]: [ s ]\n      ? [ RELATIONSHIP, r, ALL, rp ]\n      : l\n",
        "      [ CAPABILITY, c, ca ]: o\n",
    ));
    let attrs = "      [ CAPABILITY, c, ca ]: o\n";
    invalid(
        &t("      [ CAPABILITY, c, cp ]: s\n", attrs),
        "property `[CAPABILITY, c, cp]` (type `integer`) is mapped to input `s` of the incompatible type `string`",
    );
    invalid(
        &t("      [ CAPABILITY, nope, cp ]: n\n", attrs),
        "node type `S` has no capability `nope`",
    );
    invalid(
        &t("      [ CAPABILITY, c, x ]: n\n", attrs),
        "`C` has no property `x`",
    );
    invalid(
        &t("      [ RELATIONSHIP, r, 0, x ]: s\n", attrs),
        "`R` has no property `x`",
    );
    invalid(
        &t("      [ RELATIONSHIP, nope, rp ]: s\n", attrs),
        "node type `S` has no requirement `nope`",
    );
    invalid(
        &t("      [ RELATIONSHIP, r, -1, rp ]: s\n", attrs),
        "the relationship index is a non-negative integer or ALL",
    );
    for key in [
        "[ SOMETHING, c, cp ]",
        "[ CAPABILITY, 1, cp ]",
        "[ RELATIONSHIP, [r], rp ]",
        "[ CAPABILITY, c, [cp] ]",
        "{ CAPABILITY: c }",
    ] {
        invalid(
            &t(&format!("      {key}: n\n"), attrs),
            "a property mapping key is",
        );
    }
    invalid(
        &t(
            "      [ CAPABILITY, c, cp ]: n\n",
            "      [ CAPABILITY, c, nope ]: o\n",
        ),
        "`C` has no attribute `nope`",
    );
}

#[test]
fn function_calls_may_be_map_keys() {
    // §10.1: calls as keys of a map value, told apart by `$` suffixes.
    let f = "functions:\n  keygen:\n    signatures:\n      - arguments: [ {type: string} ]\n        result: {type: string}\n";
    let map = "map; entry_schema: integer";
    valid(&format!(
        "{f}{}",
        prop(map, "\n          { $keygen: [ UUID ] }: 34\n          { $keygen$1: [ UUID ] }: 56\n          plain: 1")
    ));
    invalid(
        &format!("{f}{}", prop(map, "\n          { $nope: [ UUID ] }: 34")),
        "nope",
    );
    invalid(
        &format!("{f}{}", prop(map, "\n          [ a, b ]: 34")),
        "map key `[a, b]` must be a string",
    );
    invalid(
        &format!("{f}{}", prop(map, "\n          { $keygen: [ UUID ] }: x")),
        "expected an integer",
    );
    // Without a data type to check against, calls in keys are checked too.
    invalid(
        &format!("{f}node_types:\n  N:\n    properties:\n      p: {{type: string}}\nservice_template:\n  node_templates:\n    n:\n      type: N\n      metadata:\n        {{ $nope: [] }}: 1\n"),
        "nope",
    );
}

/// Messages and notes (citations aside) of the errors of `text`.
fn explained(text: &str, files: &[(&str, &str)]) -> Vec<(String, Vec<String>)> {
    diagnostics_with(text, files)
        .into_iter()
        .map(|d| {
            let notes = d.notes.into_iter().map(|n| n.message);
            (
                d.message,
                notes.filter(|n| !n.starts_with("TOSCA ")).collect(),
            )
        })
        .collect()
}

/// The sections the errors of `text` cite.
fn citations(text: &str) -> Vec<String> {
    let notes = diagnostics_with(text, &[])
        .into_iter()
        .flat_map(|d| d.notes);
    let cited = notes.filter(|n| n.message.starts_with("TOSCA ") && n.message.contains('§'));
    cited.map(|n| n.message).collect()
}

#[test]
fn a_file_is_cited_the_sections_of_its_own_grammar() {
    let body = "  node_templates:\n    n:\n      type: tosca.nodes.Compute\n      properties:\n        nope: 1\n";
    let v13 =
        format!("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n{body}");
    assert_eq!(citations(&v13), ["TOSCA 1.3 §3.6.11"]);
    let v20 = format!("{V}node_types:\n  tosca.nodes.Compute: {{}}\nservice_template:\n{body}");
    assert_eq!(citations(&v20), ["TOSCA 2.0 §9.5"]);
    // A rule new in TOSCA 2.0 has no section in a 1.3 file.
    let v13_only_20 =
        "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - profile: nope\n";
    let cited = citations(v13_only_20);
    assert!(cited.iter().all(|c| !c.contains("2.0")), "{cited:?}");
}

#[test]
fn types_are_named_as_the_file_writes_them() {
    let types = "tosca_definitions_version: tosca_2_0\nimports:\n  - url: base.yaml\n    namespace: b\nnode_types:\n  Server:\n    properties:\n      size: {type: b:Size}\n  Other: {}\n";
    let base =
        "tosca_definitions_version: tosca_2_0\ndata_types:\n  Size:\n    derived_from: integer\n";
    let main = format!("{V}imports:\n  - url: types.yaml\n    namespace: t\nservice_template:\n  node_templates:\n    s:\n      type: t:Server\n      properties:\n        size: big\n      requirements:\n        - host: o\n    o:\n      type: t:Other\n");
    let e = explained(&main, &[("types.yaml", types), ("base.yaml", base)]);
    // `t:Server` as written; `Size` cannot be named here: where it is
    // defined is a note.
    assert_eq!(
        e,
        [
            (
                "expected an integer (type `Size`), got a string \"big\"".to_string(),
                vec!["`Size` is defined in `base.yaml`".to_string()]
            ),
            (
                "node type `t:Server` has no requirement `host`".to_string(),
                vec!["no requirement is defined".to_string()]
            ),
        ]
    );
}

#[test]
fn unknown_names_come_with_what_was_meant() {
    let text = format!("{V}node_types:\n  Server:\n    properties:\n      port: {{type: integer}}\n    interfaces: {{}}\n    requirements: []\n    capabilitys: {{}}\nservice_template:\n  inputs:\n    web_port: {{type: integer}}\n  node_templates:\n    web:\n      type: Sever\n    db:\n      type: Server\n      properties:\n        prot: 1\n    app:\n      type: Server\n      properties:\n        port: {{$get_input: web_prot}}\n");
    let e = explained(&text, &[]);
    let notes: Vec<(&str, Vec<&str>)> = e
        .iter()
        .map(|(m, n)| (m.as_str(), n.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "unknown keyname `capabilitys` in a node type definition",
                vec!["did you mean `capabilities`?"]
            ),
            ("unknown node type `Sever`", vec!["did you mean `Server`?"]),
            (
                "`prot` is not a defined property",
                vec!["did you mean `port`?"]
            ),
            ("required property `port` has no value", vec![]),
            (
                "`$get_input` names `web_prot`, which is not a declared input",
                vec!["did you mean `web_port`?"]
            ),
        ]
    );
}

#[test]
fn a_wrong_requirement_target_is_one_error() {
    let text = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    db:\n      type: tosca.nodes.Database\n      properties: {name: shop}\n      requirements:\n        - host: web\n    web:\n      type: tosca.nodes.WebServer\n";
    let e = explained(text, &[]);
    assert_eq!(
        e,
        [(
            "node template `web` is a `tosca.nodes.WebServer`, not a `tosca.nodes.DBMS`"
                .to_string(),
            vec!["requirement `host` targets `tosca.nodes.DBMS` nodes".to_string()]
        )]
    );
}

#[test]
fn every_duplicate_key_is_reported_and_the_rest_checked() {
    let types = "tosca_definitions_version: tosca_2_0\nnode_types:\n  Server: {}\n  Server: {}\n";
    let main = format!("{V}imports: [types.yaml]\nservice_template:\n  node_templates:\n    web:\n      type: Server\n      type: Server\n    db:\n      type: Sever\n    web: {{type: Server}}\n");
    let located: Vec<(String, u32, u32)> = diagnostics_with(&main, &[("types.yaml", types)])
        .into_iter()
        .map(|d| {
            let text = [main.as_str(), types][d.span.source.0 as usize];
            (d.message, d.span.source.0, d.span.locate(text).line)
        })
        .collect();
    let messages: Vec<(&str, u32, u32)> = located
        .iter()
        .map(|(m, s, l)| (m.as_str(), *s, *l))
        .collect();
    let dup = "invalid YAML: duplicated mapping key";
    // main.yaml is source 0, types.yaml source 1.
    assert_eq!(
        messages,
        [
            (dup, 0, 7),
            ("unknown node type `Sever`", 0, 9),
            (dup, 0, 10),
            (dup, 1, 4),
        ]
    );
}

/// §8.4.1: a capability given by symbolic name stays the same name in
/// refinements, in both directions (name to type and type to name).
#[test]
fn a_symbolic_capability_stays_unchanged_in_requirement_refinements() {
    let types = "capability_types:\n  C: {}\nnode_types:\n  T:\n    capabilities:\n      c1: C\n      c2: C\n  N:\n    requirements:\n      - r: {capability: c1, node: T}\n  M:\n    derived_from: N\n    requirements:\n";
    valid(&format!("{types}      - r: {{capability: c1}}\n"));
    for other in ["C", "c2"] {
        invalid(
            &format!("{types}      - r: {{capability: {other}}}\n"),
            "must stay unchanged in refinements",
        );
    }
    // A parent's capability type may be refined by a symbolic name.
    valid("capability_types:\n  C: {}\nnode_types:\n  T:\n    capabilities:\n      c1: C\n  N:\n    requirements:\n      - r: {capability: C, node: T}\n  M:\n    derived_from: N\n    requirements:\n      - r: {capability: c1}\n");
}

/// §9.8, §11.5: an output mapped onto an attribute selects an attribute of
/// the containing entity, as `$get_attribute` does; one it does not have is
/// an error.
#[test]
fn output_mappings_name_attributes_of_the_containing_entity() {
    let types = "interface_types:\n  I:\n    operations:\n      op:\n        outputs:\n          o: {type: string}\nnode_types:\n  N:\n    attributes:\n      at: {type: string}\n    interfaces:\n      i: {type: I}\nservice_template:\n  node_templates:\n    n:\n      type: N\n      interfaces:\n        i:\n          operations:\n            op:\n              outputs: {o: ";
    valid(&format!("{types}[SELF, at]}}\n"));
    invalid(
        &format!("{types}[SELF, nope]}}\n"),
        "`N` has no attribute `nope`",
    );
    let def = "interface_types:\n  I:\n    operations:\n      op: {}\nnode_types:\n  N:\n    attributes:\n      at: {type: string}\n    interfaces:\n      i:\n        type: I\n        operations:\n          op:\n            outputs:\n              o: {mapping: ";
    valid(&format!("{def}[SELF, at]}}\n"));
    invalid(
        &format!("{def}[SELF, nope]}}\n"),
        "`N` has no attribute `nope`",
    );
}

/// §10.3: "if the <tosca_path> is used within a requirement definition,
/// SELF refers to the current relationship context": in the interfaces of
/// the requirement's relationship definition, `[SELF, TARGET, ...]` leads
/// to the target node and `[SELF, name]` names the relationship's own
/// attribute, not the node type's (the AWS profile of the OASIS community
/// contributions writes both).
#[test]
fn self_in_a_requirement_definition_is_the_relationship() {
    let types = "capability_types:\n  C: {}\ninterface_types:\n  I:\n    operations:\n      op:\n        inputs:\n          a: {type: string}\n        outputs:\n          o: {type: string}\nrelationship_types:\n  R:\n    attributes:\n      id: {type: string}\n    interfaces:\n      i: {type: I}\nnode_types:\n  N:\n    attributes:\n      own: {type: string}\n    requirements:\n      - r:\n          capability: C\n          relationship:\n            type: R\n            interfaces:\n              i:\n                operations:\n                  op:\n";
    valid(&format!("{types}                    inputs: {{a: {{$get_attribute: [SELF, TARGET, address]}}}}\n                    outputs: {{o: [SELF, id]}}\n"));
    // Outside the requirement definition SELF is still the node.
    invalid(
        "node_types:\n  N:\n    attributes:\n      own: {type: string}\n    interfaces:\n      i:\n        type: I\n        operations:\n          op:\n            inputs: {a: {$get_attribute: [SELF, TARGET, address]}}\ninterface_types:\n  I:\n    operations:\n      op:\n        inputs:\n          a: {type: string}\n",
        "`N` has no attribute `TARGET`",
    );
}

/// §15.3: an output mapped onto an attribute of the substituted node type
/// has a type compatible with the attribute's.
#[test]
fn attribute_mappings_are_type_compatible() {
    let t = |out: &str| {
        format!("node_types:\n  N:\n    attributes:\n      at: {{type: float}}\nservice_template:\n  outputs:\n    o: {{type: {out}, value: 1}}\n  substitution_mappings:\n    node_type: N\n    attributes:\n      at: o\n  node_templates:\n    n: {{type: N}}\n")
    };
    valid(&t("float"));
    valid(&t("integer"));
    invalid(
        &t("boolean"),
        "attribute `at` (type `float`) is mapped to output `o` of the incompatible type `boolean`",
    );
}

/// §10.2.5: arithmetic takes numbers and scalars; a string argument is a
/// scalar only when it is written `<number> <unit>`.
#[test]
fn arithmetic_string_arguments_are_scalars() {
    let t = |args: &str| {
        format!("node_types:\n  N:\n    attributes:\n      a: {{type: float}}\nservice_template:\n  node_templates:\n    n:\n      type: N\n      attributes:\n        a: {{$quotient: {args}}}\n")
    };
    valid(&t("[4, 2]"));
    valid(&t("['4 kB', 2]"));
    invalid(
        &t("[four, 2]"),
        "argument of `$quotient` must be a number or a scalar",
    );
    invalid(
        &t("['4kB', 2]"),
        "argument of `$quotient` must be a number or a scalar",
    );
}

/// §10.2.1.8: `$available_allocation` reads an allocatable (integer, float
/// or scalar) property of a capability.
#[test]
fn available_allocation_reads_allocatable_capability_properties() {
    let t = |args: &str| {
        format!("capability_types:\n  C:\n    properties:\n      cpu: {{type: integer}}\n      name: {{type: string}}\nnode_types:\n  T:\n    capabilities:\n      c: C\nservice_template:\n  node_templates:\n    t:\n      type: T\n      capabilities:\n        c:\n          properties: {{cpu: 4, name: a}}\n    n:\n      type: T\n      directives: [select]\n      node_filter: {{$greater_or_equal: [{{$available_allocation: {args}}}, 1]}}\n")
    };
    valid(&t("[t, CAPABILITY, c, cpu]"));
    invalid(
        &t("[t, CAPABILITY, c, name]"),
        "`$available_allocation` needs an integer, float or scalar property, not `name`",
    );
    invalid(
        &t("[t, cpu]"),
        "the TOSCA path of `$available_allocation` must lead to a capability",
    );
    invalid(&t("[t, CAPABILITY, c, zz]"), "`C` has no property `zz`");
}

/// §6.8.4: imports may share a namespace as they share the root namespace;
/// a name two of them define is ambiguous where it is used.
#[test]
fn imports_may_share_a_namespace() {
    let b = "tosca_definitions_version: tosca_2_0\nnode_types:\n  MyNode: {}\n";
    let c = "tosca_definitions_version: tosca_2_0\nnode_types:\n  Other: {}\n";
    let main = |second: &str, used: &str| {
        format!("{V}imports:\n  - {{url: b.yaml, namespace: ns}}\n  - {{url: {second}, namespace: ns}}\nnode_types:\n  X: {{derived_from: ns:{used}}}\n")
    };
    let d = b.replace("{}", "{description: other}");
    let files = [("b.yaml", b), ("c.yaml", c), ("d.yaml", d.as_str())];
    assert!(errors_with(&main("c.yaml", "MyNode"), &files).is_empty());
    assert!(errors_with(&main("c.yaml", "Other"), &files).is_empty());
    let e = errors_with(&main("d.yaml", "MyNode"), &files);
    assert!(
        e.iter().any(|m| m.contains("`ns:MyNode` is ambiguous")),
        "{e:?}"
    );
}

/// §13.2.2: `target_relationship` names a requirement of a node target; it
/// does not apply to groups.
#[test]
fn target_relationship_applies_to_node_targets_only() {
    let t = |target: &str| {
        format!("capability_types:\n  C: {{}}\nnode_types:\n  N:\n    capabilities:\n      c: C\n    requirements:\n      - r: {{capability: C}}\ngroup_types:\n  G: {{}}\nservice_template:\n  node_templates:\n    a: {{type: N}}\n    b:\n      type: N\n      requirements:\n        - r: a\n  groups:\n    g: {{type: G, members: [a]}}\n  workflows:\n    w:\n      steps:\n        s:\n          target: {target}\n          target_relationship: r\n          activities:\n            - set_state: x\n")
    };
    valid(&t("b"));
    invalid(
        &t("g"),
        "`target_relationship` applies only to node targets, and `g` is a group",
    );
}

/// §8.1, §8.2: a relationship to a capability starts at a node of one of
/// the capability's `valid_source_node_types` and is of one of its
/// `valid_relationship_types` (the capability definition's lists refine the
/// type's); the short assignment form is checked as the long one.
#[test]
fn target_capabilities_accept_their_valid_sources_and_relationships() {
    let t = |cap_keys: &str, source: &str, assignment: &str| {
        format!("capability_types:\n  C: {{{cap_keys}}}\nrelationship_types:\n  R: {{}}\n  Q: {{}}\nnode_types:\n  T:\n    capabilities:\n      c: C\n  S:\n    requirements:\n      - r: {{capability: C}}\n  X:\n    requirements:\n      - r: {{capability: C}}\nservice_template:\n  node_templates:\n    t: {{type: T}}\n    s:\n      type: {source}\n      requirements:\n        - r: {assignment}\n")
    };
    let sources = "valid_source_node_types: [S]";
    valid(&t(sources, "S", "t"));
    for assignment in ["t", "{node: t}"] {
        invalid(
            &t(sources, "X", assignment),
            "the target capability (type `C`) does not accept a source node of type `X` (valid_source_node_types)",
        );
    }
    let rels = "valid_relationship_types: [R]";
    valid(&t(rels, "S", "{node: t, relationship: R}"));
    invalid(
        &t(rels, "S", "{node: t, relationship: Q}"),
        "does not accept a relationship of type `Q` (valid_relationship_types)",
    );
    // The capability definition's list refines the type's.
    let refined = t(sources, "S", "t").replace(
        "      c: C\n",
        "      c: {type: C, valid_source_node_types: [X]}\n",
    );
    invalid(&refined, "does not accept a source node of type `S`");
}

const V13: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\n";

/// A TOSCA 1.3 node type `N` with one property `p` of type `ty` with the
/// constraint clauses `constraints` and a template assigning `value`.
fn prop_13(ty: &str, constraints: &str, value: &str) -> String {
    format!("{V13}node_types:\n  N:\n    derived_from: tosca.nodes.Root\n    properties:\n      p:\n        type: {ty}\n        constraints: {constraints}\ntopology_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        p: {value}\n")
}

#[test]
fn tosca_13_scalar_units_may_follow_the_number_without_space() {
    assert!(errors(&prop_13("scalar-unit.size", "[]", "4GB")).is_empty());
    assert!(errors(&prop_13("scalar-unit.size", "[]", "4 GB")).is_empty());
    let e = errors(&prop_13(
        "scalar-unit.size",
        "[{greater_or_equal: 8GB}]",
        "4GB",
    ));
    assert!(e.iter().any(|m| m.contains("does not satisfy")), "{e:?}");
    let e = errors(&prop_13("scalar-unit.time", "[]", "4GB"));
    assert!(e.iter().any(|m| m.contains("unknown unit")), "{e:?}");
}

#[test]
fn tosca_13_constraint_clauses_have_known_operators_and_typed_operands() {
    let ok = |ty: &str, c: &str, v: &str| {
        let e = errors(&prop_13(ty, c, v));
        assert!(e.is_empty(), "{c}: {e:?}");
    };
    let bad = |ty: &str, c: &str, expected: &str| {
        let e = errors(&prop_13(ty, c, "1"));
        assert!(e.iter().any(|m| m.contains(expected)), "{c}: {e:?}");
    };
    ok(
        "integer",
        "[{in_range: [1, UNBOUNDED]}, {valid_values: [1, 2]}]",
        "1",
    );
    ok(
        "string",
        "[{pattern: '^[a-z]+$'}, {min_length: 1}, {schema: x}]",
        "ab",
    );
    ok("scalar-unit.size", "[{greater_than: 1 MB}]", "2 MB");
    bad(
        "integer",
        "[{frobnicate: 1}]",
        "unknown constraint operator `frobnicate`",
    );
    bad("integer", "[{in_range: [a, 2]}]", "expected an integer");
    bad(
        "integer",
        "[{in_range: [1]}]",
        "`in_range` takes a list of two values",
    );
    bad(
        "integer",
        "[{valid_values: 1}]",
        "`valid_values` takes a list",
    );
    bad(
        "integer",
        "[{min_length: 1}]",
        "`min_length` constrains strings",
    );
    bad("string", "[{max_length: -1}]", "a non-negative integer");
    bad(
        "string",
        "[{pattern: '('}]",
        "not a valid regular expression",
    );
    // Look-around (valid in most grammars) is not evaluated: no error.
    ok("string", "[{pattern: '^(?!-)[a-z-]+$'}]", "-a");
    bad(
        "integer",
        "[{equal: 1, less_than: 2}]",
        "a map with one operator",
    );
    // A simple scalar is an `equal` clause (§3.6.3.3).
    ok("integer", "5", "5");
    bad("integer", "5", "does not satisfy its constraints");
    bad("integer", "{a: 1, b: 2}", "a map with one operator");
    // Data types and schema definitions are checked the same way.
    let data = format!("{V13}data_types:\n  D:\n    derived_from: integer\n    constraints:\n      - max_length: 2\n");
    let e = errors(&data);
    assert!(e.iter().any(|m| m.contains("constrains strings")), "{e:?}");
}

#[test]
fn tosca_13_statuses_are_the_listed_ones() {
    let t = |status: &str| {
        format!("{V13}node_types:\n  N:\n    derived_from: tosca.nodes.Root\n    properties:\n      p: {{type: integer, required: false, status: {status}}}\n")
    };
    assert!(errors(&t("deprecated")).is_empty());
    let e = errors(&t("retired"));
    assert!(
        e.iter().any(|m| m.contains("unknown status `retired`")),
        "{e:?}"
    );
}

#[test]
fn tosca_13_get_input_names_a_declared_input() {
    let t = |name: &str| {
        format!("{V13}topology_template:\n  inputs:\n    n: {{type: string}}\n  node_templates:\n    d:\n      type: tosca.nodes.Root\n      interfaces:\n        Standard:\n          create:\n            inputs:\n              x: {{ get_input: {name} }}\n")
    };
    assert!(errors(&t("n")).is_empty());
    // A nested index selects from lists and maps only.
    let e = errors(&t("[n, 0]"));
    assert!(
        e.iter()
            .any(|m| m.starts_with("a value of type `string` has no nested values")),
        "{e:?}"
    );
    let e = errors(&t("m"));
    assert!(
        e.iter()
            .any(|m| m == "`get_input` names `m`, which is not a declared input"),
        "{e:?}"
    );
}

#[test]
fn tosca_13_operation_inputs_in_types_may_be_function_calls() {
    let text = format!("{V13}relationship_types:\n  R:\n    derived_from: tosca.relationships.ConnectsTo\n    interfaces:\n      Configure:\n        operations:\n          pre_configure_source:\n            inputs:\n              p: {{ get_property: [TARGET, port] }}\n              q: {{ get_attribute: [SOURCE, tosca_id] }}\n              r: {{ type: string }}\n");
    let e = errors(&text);
    assert!(e.is_empty(), "{e:?}");
}

/// What a type library written for TOSCA 1.0 builds on (indigo-dc's
/// `custom_types.yaml`): host resources on `tosca.capabilities.Container`,
/// a software component hosted on a node whose host capability is no
/// `tosca.capabilities.Compute`, `tosca.nodes.BlockStorage` attached as
/// local storage.
const HOSTED_10: &str = "capability_types:\n  MyContainer:\n    derived_from: tosca.capabilities.Container\n    properties: {gpus: {type: integer, required: false}}\nnode_types:\n  MyCompute:\n    derived_from: tosca.nodes.Compute\n    capabilities:\n      host: {type: MyContainer}\n  Disk:\n    derived_from: tosca.nodes.BlockStorage\ntopology_template:\n  node_templates:\n    vm:\n      type: MyCompute\n      capabilities:\n        host:\n          properties: {num_cpus: 2, mem_size: 4 GB, gpus: 1}\n      requirements:\n        - local_storage: {node: disk, relationship: {type: tosca.relationships.AttachesTo, properties: {location: /data}}}\n    disk:\n      type: Disk\n      properties: {size: 10 GB}\n    app:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host: vm\n";

/// A TOSCA 1.0 file is checked with 1.0's normative types; the same
/// file as 1.1 (whose `BlockStorage` is still 1.0's, but whose host
/// resources moved to `tosca.capabilities.Compute`) or 1.3 is not valid.
#[test]
fn tosca_1_0_files_have_the_normative_types_of_1_0() {
    let e = errors(&format!(
        "tosca_definitions_version: tosca_simple_yaml_1_0\n{HOSTED_10}"
    ));
    assert!(e.is_empty(), "{e:?}");
    for version in ["tosca_simple_yaml_1_1", "tosca_simple_yaml_1_3"] {
        let e = errors(&format!(
            "tosca_definitions_version: {version}\n{HOSTED_10}"
        ));
        for expected in [
            "unknown node type `tosca.nodes.BlockStorage`",
            "`num_cpus` is not a defined property",
        ] {
            assert!(e.iter().any(|m| m == expected), "{version}: {e:?}");
        }
    }
}

/// 1.0 and 1.3 name the same normative types: a 1.3 file importing a 1.0
/// library (and the library itself) each see their own version's, so no
/// name is ambiguous and each file's types are its version's.
#[test]
fn files_of_tosca_1_0_and_1_3_each_see_their_own_normative_types() {
    let library = "tosca_definitions_version: tosca_simple_yaml_1_0\nnode_types:\n  Disk:\n    derived_from: tosca.nodes.BlockStorage\n";
    let main = "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [library.yaml]\ntopology_template:\n  node_templates:\n    d:\n      type: Disk\n      properties: {size: 1 GB}\n    v:\n      type: tosca.nodes.Storage.BlockStorage\n      properties: {name: v, size: 1 GB}\n    c:\n      type: tosca.nodes.Compute\n      capabilities:\n        host:\n          properties: {num_cpus: 1}\n";
    let e = errors_with(main, &[("library.yaml", library)]);
    assert!(e.is_empty(), "{e:?}");
}

/// In 1.1 to 1.3 files the 1.0 storage names are unknown, with a note.
#[test]
fn tosca_1_0_storage_node_type_names_get_a_note() {
    let text = "tosca_definitions_version: tosca_simple_yaml_1_2\nnode_types:\n  S:\n    derived_from: tosca.nodes.BlockStorage\n";
    let e = errors_and_notes(text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("unknown node type `tosca.nodes.BlockStorage` | `tosca.nodes.BlockStorage` is the name of TOSCA 1.0")
            && e[0].contains("which name it `tosca.nodes.Storage.BlockStorage`"),
        "{e:?}"
    );
}

#[test]
fn tosca_13_types_are_shared_by_all_loaded_files() {
    // ETSI NFV's VNFD types use the common types only the descriptor
    // imports: one 1.x namespace holds them all.
    let common = "tosca_definitions_version: tosca_simple_yaml_1_2\ndata_types:\n  C:\n    derived_from: tosca.datatypes.Root\n    properties: {x: {type: string}}\n";
    let vnfd = "tosca_definitions_version: tosca_simple_yaml_1_2\nnode_types:\n  V:\n    derived_from: tosca.nodes.Root\n    properties: {c: {type: C}}\n";
    let main = "tosca_definitions_version: tosca_simple_yaml_1_2\nimports: [common.yaml, vnfd.yaml]\ntopology_template:\n  node_templates:\n    v: {type: V, properties: {c: {x: a}}}\n";
    let e = errors_with(main, &[("common.yaml", common), ("vnfd.yaml", vnfd)]);
    assert!(e.is_empty(), "{e:?}");
    // Alone, the VNFD types name a type no file defines.
    let e = errors_with(vnfd, &[("common.yaml", common)]);
    assert_eq!(e, ["unknown data type `C`"]);
}

#[test]
fn tosca_13_operations_listed_directly_are_refinable() {
    // Winery (RADON's types) writes 1.3 interface types with operations
    // listed directly, and node types that refine them under `operations`.
    let t = |node_ops: &str| {
        format!("{V13}interface_types:\n  I:\n    derived_from: tosca.interfaces.Root\n    start: {{description: s}}\n  J:\n    derived_from: I\n    operations:\n      start: {{description: t}}\nnode_types:\n  N:\n    derived_from: tosca.nodes.Root\n    interfaces:\n      I:\n        type: J\n{node_ops}")
    };
    let e = errors(&t(
        "        operations:\n          start: {implementation: run.sh}\n",
    ));
    assert!(e.is_empty(), "{e:?}");
    let direct = t("        operations:\n          start: {implementation: run.sh}\n")
        .replace("type: J", "type: I");
    let e = errors(&direct);
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&t("        start: {implementation: run.sh}\n"));
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&t(
        "        operations:\n          stop: {implementation: run.sh}\n",
    ));
    assert_eq!(e, ["operation `stop` is not defined by the interface type"]);
}

#[test]
fn tosca_13_operations_listed_directly_are_assignable() {
    // 1.2's ETSI NFV interface types list their operations directly.
    let t = |ops: &str| {
        format!("{V13}interface_types:\n  I:\n    derived_from: tosca.interfaces.Root\n    start: {{description: s}}\nnode_types:\n  N:\n    derived_from: tosca.nodes.Root\n    interfaces:\n      I: {{type: I}}\ntopology_template:\n  node_templates:\n    n:\n      type: N\n      interfaces:\n        I:\n{ops}")
    };
    let e = errors(&t("          start: run.sh\n"));
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&t("          stop: run.sh\n"));
    assert_eq!(e, ["operation `stop` is not defined by the interface"]);
    // Tacker's `instantiate: []` for no implementation.
    let e = errors_and_notes(&t("          start: []\n"));
    assert_eq!(e, ["an operation assignment is an implementation artifact name or a map, not a list | for no implementation, assign nothing (`start:`) or leave the operation out | TOSCA 1.3 §3.6.17"]);
    // And in a node type's definition of the operation.
    let defined = t("").replace("I: {type: I}", "I: {type: I, start: []}");
    let e = errors_and_notes(&defined);
    assert_eq!(e, ["an operation definition is an implementation artifact name or a map, not a list | for no implementation, define it without one (`start:`) | TOSCA 1.3 §3.6.17"]);
    // An interface type that is no type: its operations are not known.
    let unknown = t("          stop: run.sh\n").replace("I: {type: I}", "I: {type: Gone}");
    let e = errors(&unknown);
    assert_eq!(e, ["unknown interface type `Gone`"]);
}

#[test]
fn templates_of_a_type_with_an_unknown_ancestor_may_assign_inherited_names() {
    let text = format!("{V13}node_types:\n  N:\n    derived_from: nfv.VNF\ntopology_template:\n  node_templates:\n    n:\n      type: N\n      properties: {{flavour: a}}\n      requirements:\n        - link: other\n    other: {{type: tosca.nodes.Root}}\n");
    let e = errors(&text);
    assert_eq!(e, ["unknown node type `nfv.VNF`"]);
}

#[test]
fn tosca_13_redefined_constraints_replace_the_inherited_ones() {
    let t = |child: &str, value: &str| {
        format!("{V13}node_types:\n  P:\n    derived_from: tosca.nodes.Root\n    properties:\n      v: {{type: string, constraints: [valid_values: [a, b]]}}\n  C:\n    derived_from: P\n    properties:\n      v: {child}\ntopology_template:\n  node_templates:\n    n: {{type: C, properties: {{v: {value}}}}}\n")
    };
    let wider = "{type: string, constraints: [valid_values: [a, b, c]]}";
    assert!(errors(&t(wider, "c")).is_empty());
    assert_eq!(
        errors(&t(wider, "d")),
        ["\"d\" does not satisfy its constraints"]
    );
    // A redefinition without constraints keeps the inherited ones.
    let e = errors(&t("{type: string, default: a}", "c"));
    assert_eq!(e, ["\"c\" does not satisfy its constraints"]);
}

#[test]
fn tosca_13_empty_sections_are_warnings() {
    // ETSI NFV's 1.3 type files: `operations:` followed only by comments.
    let text = format!("{V13}interface_types:\n  I:\n    derived_from: tosca.interfaces.Root\n    operations:\n    # to be added by derived types\ntopology_template:\n  inputs:\n  node_templates:\n    n:\n      type: tosca.nodes.Root\n      requirements:\n");
    let all = all_diagnostics(&text, &[]);
    let empty: Vec<_> = (all.iter())
        .filter(|d| d.message.ends_with("is empty"))
        .map(|d| (d.is_error(), d.message.as_str()))
        .collect();
    assert_eq!(
        empty,
        [
            (false, "`operations` is empty"),
            (false, "`inputs` is empty"),
            (false, "`requirements` is empty")
        ]
    );
    // TOSCA 2.0 (its suite): an error.
    invalid("node_types:\n", "is empty");
}

#[test]
fn tosca_13_types_imported_explicitly_replace_the_normative_ones() {
    // As the TOSCA TC's 1.3 type files: `data.yaml` defines the normative
    // data types again, and the file importing it uses that definition.
    let data = "tosca_definitions_version: tosca_simple_yaml_1_3\ndata_types:\n  tosca.datatypes.Credential:\n    derived_from: tosca.datatypes.Root\n    properties:\n      realm: {type: string}\n";
    let text = format!("{V13}imports: [data.yaml]\nnode_types:\n  N:\n    derived_from: tosca.nodes.Root\n    properties:\n      c: {{type: tosca.datatypes.Credential}}\ntopology_template:\n  node_templates:\n    n:\n      type: N\n      properties:\n        c: {{realm: x}}\n");
    let e = errors_with(&text, &[("data.yaml", data)]);
    assert!(e.is_empty(), "{e:?}");
    // Two explicit definitions that differ stay ambiguous.
    let twice = text.replace("[data.yaml]", "[data.yaml, again.yaml]");
    let other = data.replace("realm: {type: string}", "realm: {type: integer}");
    let e = errors_with(&twice, &[("data.yaml", data), ("again.yaml", &other)]);
    assert!(e.iter().any(|m| m.contains("is ambiguous")), "{e:?}");
}

#[test]
fn tosca_13_copies_of_a_type_are_one_type() {
    // 1.x definitions of one name "SHALL be equivalent": an ETSI NFV
    // package imports its own copy of the common types, its VNFD types
    // import them by URL (mapped to another copy). Equal definitions are
    // one type, also where a type of one copy must derive from the other's.
    let common = "tosca_definitions_version: tosca_simple_yaml_1_2
capability_types:
  L:
    derived_from: tosca.capabilities.Node
relationship_types:
  R:
    derived_from: tosca.relationships.DependsOn
    valid_target_types: [L]
";
    let vnfd = "tosca_definitions_version: tosca_simple_yaml_1_2
imports: [copy/common.yaml]
node_types:
  Link:
    derived_from: tosca.nodes.Root
    capabilities:
      link: L
";
    let main = "tosca_definitions_version: tosca_simple_yaml_1_2
imports: [common.yaml, vnfd.yaml]
node_types:
  Port:
    derived_from: tosca.nodes.Root
    requirements:
      - link: {capability: L, relationship: R}
topology_template:
  node_templates:
    l: {type: Link}
    p:
      type: Port
      requirements:
        - link: l
";
    let with_copy = |copy: &str| {
        let files = [
            ("common.yaml", common),
            ("copy/common.yaml", copy),
            ("vnfd.yaml", vnfd),
        ];
        errors_with(main, &files)
    };
    let e = with_copy(common);
    assert!(e.is_empty(), "{e:?}");
    // A copy that defines `R` otherwise: `R` is two types.
    let other = common.replace("[L]\n", "[L]\n    description: d\n");
    assert_eq!(with_copy(&other), ["relationship type `R` is ambiguous"]);
}

#[test]
fn tosca_13_get_property_through_a_name_both_capability_and_requirement() {
    // `host` is the Compute's capability and the VM's requirement of its
    // provider: a property the capability lacks may be the target's.
    let vm = |p: &str| {
        format!("{V13}node_types:\n  VM:\n    derived_from: tosca.nodes.Compute\n    requirements:\n      - host: {{ capability: tosca.capabilities.Compute }}\n    interfaces:\n      Standard:\n        inputs:\n          x: {{ get_property: [SELF, host, {p}] }}\n")
    };
    let e = errors(&vm("region"));
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&vm("num_cpus"));
    assert!(e.is_empty(), "{e:?}");
    // Without the requirement, the capability alone decides.
    let only = vm("region").replace(
        "    requirements:\n      - host: { capability: tosca.capabilities.Compute }\n",
        "",
    );
    let e = errors(&only);
    assert_eq!(e, ["capability `host` has no property `region`"]);
}

#[test]
fn tosca_13_node_filters_hold_constraint_clauses() {
    let t = |filter: &str| {
        format!("{V13}topology_template:\n  node_templates:\n    s:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host:\n            node_filter:\n{filter}")
    };
    let ok = "              properties:\n                - name: { equal: x }\n                - port: [ { greater_than: 1 }, { less_than: 9 } ]\n              capabilities:\n                - host:\n                    properties:\n                      - num_cpus: { in_range: [ 1, 4 ] }\n";
    let e = errors(&t(ok));
    assert!(e.is_empty(), "{e:?}");
    let e = errors(&t(
        "              properties:\n                - name: { frob: x }\n",
    ));
    assert!(
        e.iter().any(|m| m.contains("unknown constraint operator")),
        "{e:?}"
    );
    let e = errors(&t("              nodes: []\n"));
    assert!(
        e.iter().any(|m| m.contains("unknown keyname `nodes`")),
        "{e:?}"
    );
    let e = errors(&t(
        "              capabilities:\n                - host: [ num_cpus ]\n",
    ));
    assert!(e.iter().any(|m| m.contains("capability filter")), "{e:?}");
}

/// TOSCA 1.3 §3.7.2, §3.7.3: a relationship reaches capabilities of its
/// type's `valid_target_types` from sources of the capability's
/// `valid_source_types`; a capability redefined in a derived 1.x node type
/// does not keep the parent's list.
#[test]
fn tosca_13_relationships_honour_valid_target_and_source_types() {
    let t = |types: &str, host: &str| {
        format!("{V13}node_types:\n{types}topology_template:\n  node_templates:\n    x:\n      type: X\n      requirements:\n        - host: h\n    h:\n      type: {host}\n")
    };
    let hosted = "  X:\n    derived_from: tosca.nodes.Root\n    requirements:\n      - host:\n          capability: tosca.capabilities.Compute\n          relationship: tosca.relationships.HostedOn\n";
    let e = errors(&t(hosted, "tosca.nodes.Compute"));
    assert_eq!(
        e,
        ["the target capability (type `tosca.capabilities.Compute`) does not accept a source node of type `X` (valid_source_types)"]
    );
    let redefined = format!("{hosted}  Vm:\n    derived_from: tosca.nodes.Compute\n    capabilities:\n      host: tosca.capabilities.Compute\n");
    let e = errors(&t(&redefined, "Vm"));
    assert!(e.is_empty(), "{e:?}");
    let connects = "  X:\n    derived_from: tosca.nodes.SoftwareComponent\n    requirements:\n      - host:\n          capability: tosca.capabilities.Compute\n          relationship: tosca.relationships.ConnectsTo\n";
    let e = errors(&t(connects, "tosca.nodes.Compute"));
    assert_eq!(
        e,
        ["relationship type `tosca.relationships.ConnectsTo` cannot target a capability of type `tosca.capabilities.Compute` (valid_target_types)"]
    );
}

/// TOSCA 1.3 §3.7.3.3, §3.8.2: a requirement is assigned at most as often
/// as its `occurrences` allow (once without them), and an assignment's own
/// `occurrences` lie within the definition's.
#[test]
fn tosca_13_requirement_occurrences_bound_the_assignments() {
    let t = |occurrences: &str, assignments: &str| {
        format!("{V13}node_types:\n  X:\n    derived_from: tosca.nodes.Root\n    requirements:\n      - dep:\n          capability: tosca.capabilities.Node\n          relationship: tosca.relationships.DependsOn\n{occurrences}topology_template:\n  node_templates:\n    x:\n      type: X\n      requirements:\n{assignments}    y:\n      type: tosca.nodes.Root\n")
    };
    let twice = "        - dep: y\n        - dep: y\n";
    let e = errors_and_notes(&t("", twice));
    assert_eq!(
        e,
        ["requirement `dep` is assigned 2 times, more than its occurrences allow (1, the default) | its definition declares no `occurrences`; `occurrences: [ 0, UNBOUNDED ]` there allows any number of `dep` assignments | TOSCA 1.3 §3.7.3"]
    );
    let two = "          occurrences: [ 0, 2 ]\n";
    assert!(errors(&t(two, twice)).is_empty());
    let within = "        - dep: { node: y, occurrences: [ 1, 2 ] }\n";
    assert!(errors(&t(two, within)).is_empty());
    let outside = "        - dep: { node: y, occurrences: [ 1, 3 ] }\n";
    assert_eq!(
        errors(&t(two, outside)),
        ["`occurrences` [1, 3] must lie within the definition's range [0, 2]"]
    );
}
