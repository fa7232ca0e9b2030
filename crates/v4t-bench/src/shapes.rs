//! Templates that grow one list at a time, for `v4t-bench scaling`: a
//! time that grows much faster than the list (about 16 times for 4 times
//! the entries) shows a lookup done once per entry by a scan of the list.
//! Each shape names the commands worth timing on it (a command with its
//! options, split at spaces).

/// A template of `n` entries in one list, and the `v4t` commands to time.
pub struct Shape {
    /// What grows (`properties`, `type-chain-2.0`, ...).
    pub name: &'static str,
    /// The `v4t` commands to time on it (`resolve`, `validate`, ...).
    pub commands: &'static [&'static str],
    generate: fn(usize) -> String,
}

impl Shape {
    /// The template with `n` entries in the shape's list.
    pub fn generate(&self, n: usize) -> String {
        (self.generate)(n)
    }
}

/// `n` lines made by `line`, each on its own line.
fn lines(n: usize, line: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| line(i) + "\n").collect()
}

const V4T: &str = "tosca_definitions_version: tosca_variability_1_0\n";
const TOSCA_2: &str = "tosca_definitions_version: tosca_2_0\n";
const TOSCA_13: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\n";

/// Every shape.
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "properties",
        commands: &["resolve", "enrich", "graph", "analyze"],
        generate: |n| {
            format!(
                "{V4T}node_types:\n  T:\n    derived_from: tosca.nodes.Root\n    properties:\n{}\
                 topology_template:\n  node_templates:\n    a:\n      type: T\n      properties:\n{}",
                lines(n, |i| format!("      p{i}: {{type: string, required: false}}")),
                lines(n, |i| format!("        p{i}: v{i}")),
            )
        },
    },
    Shape {
        name: "property-alternatives",
        commands: &["resolve", "enrich", "graph", "analyze"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n      x: {{type: boolean, default: true}}\n\
                 \x20 node_templates:\n    a:\n      type: tosca.nodes.Root\n      properties:\n{}",
                lines(n, |i| format!(
                    "        - p{i}: {{value: a, conditions: {{variability_input: x}}}}\n        \
                     - p{i}: {{value: b, conditions: {{not: {{variability_input: x}}}}}}"
                )),
            )
        },
    },
    Shape {
        name: "outputs",
        commands: &["resolve"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  node_templates:\n{}  outputs:\n{}",
                lines(n, |i| format!("    n{i}: {{type: tosca.nodes.Compute}}")),
                lines(n, |i| format!(
                    "    o{i}: {{value: {{get_attribute: [n{i}, private_address]}}}}"
                )),
            )
        },
    },
    Shape {
        name: "inputs-read",
        commands: &["resolve"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  inputs:\n{}  node_templates:\n{}",
                lines(n, |i| format!("    t{i}: {{type: string, default: x}}")),
                lines(n, |i| format!(
                    "    n{i}: {{type: tosca.nodes.Root, properties: {{p: {{get_input: t{i}}}}}}}"
                )),
            )
        },
    },
    Shape {
        name: "variability-inputs-presets",
        commands: &["resolve", "enrich"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n{}    presets:\n{}  node_templates:\n{}",
                lines(n, |i| format!("      v{i}: {{type: boolean, default: true}}")),
                lines(n, |i| format!("      p{i}: {{inputs: {{v{i}: false}}}}")),
                lines(n, |i| format!(
                    "    n{i}: {{type: tosca.nodes.Root, conditions: {{variability_input: v{i}}}}}"
                )),
            )
        },
    },
    Shape {
        name: "type-chain-1.3",
        commands: &["validate"],
        generate: |n| {
            format!(
                "{TOSCA_13}node_types:\n  t0: {{derived_from: tosca.nodes.Root}}\n{}\
                 topology_template:\n  node_templates:\n    a: {{type: t{}}}\n",
                lines(n.saturating_sub(1), |i| {
                    format!(
                    "  t{}: {{derived_from: t{i}, properties: {{p{i}: {{type: string, default: x}}}}}}",
                    i + 1
                )
                }),
                n.saturating_sub(1),
            )
        },
    },
    Shape {
        name: "type-chain-2.0",
        commands: &["validate"],
        generate: |n| {
            format!(
                "{TOSCA_2}node_types:\n  t0: {{}}\n{}service_template:\n  node_templates:\n    a: {{type: t{}}}\n",
                lines(n.saturating_sub(1), |i| format!(
                    "  t{}: {{derived_from: t{i}, properties: {{p{i}: {{type: string, default: x}}}}}}",
                    i + 1
                )),
                n.saturating_sub(1),
            )
        },
    },
    Shape {
        name: "type-properties-2.0",
        commands: &["validate", "resolve"],
        generate: |n| {
            format!(
                "{TOSCA_2}node_types:\n  T:\n    properties:\n{}    attributes:\n{}\
                 service_template:\n  node_templates:\n    a:\n      type: T\n      properties:\n{}      attributes:\n{}",
                lines(n, |i| format!("      p{i}: {{type: string, required: false}}")),
                lines(n, |i| format!("      a{i}: {{type: string}}")),
                lines(n, |i| format!("        p{i}: v{i}")),
                lines(n, |i| format!("        a{i}: v{i}")),
            )
        },
    },
    Shape {
        name: "requirements-2.0",
        commands: &["validate", "resolve", "graph"],
        generate: |n| {
            format!(
                "{TOSCA_2}capability_types:\n  C: {{}}\nrelationship_types:\n  R: {{valid_capability_types: [C]}}\n\
                 node_types:\n  T:\n    capabilities:\n      c: {{type: C}}\n    requirements:\n{}\
                 service_template:\n  node_templates:\n    b: {{type: T}}\n    a:\n      type: T\n      requirements:\n{}",
                lines(n, |i| format!(
                    "      - r{i}: {{capability: C, relationship: R, count_range: [0, 1]}}"
                )),
                lines(n, |i| format!("        - r{i}: {{node: b, capability: c}}")),
            )
        },
    },
    Shape {
        name: "operations-2.0",
        commands: &["validate"],
        generate: |n| {
            format!(
                "{TOSCA_2}interface_types:\n  I:\n    operations:\n{}node_types:\n  T:\n    interfaces:\n      i: {{type: I}}\n\
                 service_template:\n  node_templates:\n    a:\n      type: T\n      interfaces:\n        i:\n          operations:\n{}",
                lines(n, |i| format!("      o{i}: {{inputs: {{x: {{type: string}}}}}}")),
                lines(n, |i| format!(
                    "            o{i}: {{implementation: s{i}.sh, inputs: {{x: v}}}}"
                )),
            )
        },
    },
    Shape {
        name: "groups-policies-steps-2.0",
        commands: &["validate", "resolve", "graph"],
        generate: |n| {
            format!(
                "{TOSCA_2}node_types:\n  T: {{}}\npolicy_types:\n  P: {{targets: [T]}}\ngroup_types:\n  G: {{members: [T]}}\n\
                 service_template:\n  node_templates:\n{}  groups:\n{}  policies:\n{}  workflows:\n    w:\n      steps:\n{}",
                lines(n, |i| format!("    n{i}: {{type: T}}")),
                lines(n, |i| format!("    g{i}: {{type: G, members: [n{i}]}}")),
                lines(n, |i| format!("    - p{i}: {{type: P, targets: [n{i}]}}")),
                lines(n, |i| {
                    let next = if i + 1 < n {
                        format!(", on_success: [s{}]", i + 1)
                    } else {
                        String::new()
                    };
                    format!("        s{i}: {{target: n{i}, activities: [{{delegate: deploy}}]{next}}}")
                }),
            )
        },
    },
    Shape {
        name: "substitution-2.0",
        commands: &["validate", "resolve"],
        generate: |n| {
            format!(
                "{TOSCA_2}node_types:\n  T:\n    properties:\n{}service_template:\n  inputs:\n{}\
                 \x20 node_templates:\n    a:\n      type: T\n      properties:\n{}\
                 \x20 substitution_mappings:\n    node_type: T\n    properties:\n{}",
                lines(n, |i| format!(
                    "      p{i}: {{type: string, required: false}}"
                )),
                lines(n, |i| format!(
                    "    i{i}: {{type: string, required: false}}"
                )),
                lines(n, |i| format!("        p{i}: {{$get_input: i{i}}}")),
                lines(n, |i| format!("      p{i}: [i{i}]")),
            )
        },
    },
    Shape {
        name: "data-type-2.0",
        commands: &["validate"],
        generate: |n| {
            format!(
                "{TOSCA_2}data_types:\n  D:\n    properties:\n{}node_types:\n  T:\n    properties:\n      d: {{type: D}}\n\
                 service_template:\n  node_templates:\n    a:\n      type: T\n      properties:\n        d:\n{}",
                lines(n, |i| format!("      f{i}: {{type: integer, required: false}}")),
                lines(n, |i| format!("          f{i}: {i}")),
            )
        },
    },
    Shape {
        name: "hosting-fan",
        commands: &["resolve", "explain"],
        generate: |n| {
            format!(
                "tosca_definitions_version: tosca_variability_1_0_rc_3\n\
                 topology_template:\n  variability:\n    qualities:\n\
                 \x20     - {{component: tosca.nodes.Compute, technology: terraform, weight: 1}}\n\
                 \x20     - {{component: tosca.nodes.SoftwareComponent, technology: ansible, \
                 hosting: [tosca.nodes.Compute], weight: 1}}\n\
                 \x20 node_templates:\n    h: {{type: tosca.nodes.Compute}}\n{}",
                lines(n, |i| {
                    format!(
                    "    n{i}: {{type: tosca.nodes.SoftwareComponent, anchor: true, requirements: [{{host: h}}]}}"
                )
                }),
            )
        },
    },
    Shape {
        name: "inputs-in-one-condition",
        commands: &["resolve", "analyze"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n{}\
                 \x20 node_templates:\n    a:\n      type: tosca.nodes.Root\n      conditions: {{and: [{}]}}\n",
                lines(n, |i| format!("      v{i}: {{type: boolean, default: true}}")),
                (0..n)
                    .map(|i| format!("{{variability_input: v{i}}}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        },
    },
    Shape {
        name: "independent-components",
        commands: &[
            "resolve",
            "explain",
            "analyze",
            "analyze --details",
            "analyze --random 3",
            "analyze --why",
        ],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n{}  node_templates:\n{}",
                lines(n, |i| format!(
                    "      v{i}: {{type: boolean, default: true}}"
                )),
                lines(n, |i| format!(
                    "    a{i}: {{type: tosca.nodes.Root, conditions: {{variability_input: v{i}}}}}"
                )),
            )
        },
    },
    Shape {
        // An app on an optional host of its own per pair, each pair with a
        // constraint: each fails a check of its own in some configurations
        // (one failure group per pair) and its constraint rules some out.
        name: "failing-components",
        commands: &["resolve", "analyze"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n{}    constraints:\n{}  node_templates:\n{}",
                lines(n, |i| format!(
                    "      v{i}: {{type: boolean, default: true}}\n      w{i}: {{type: boolean, default: true}}"
                )),
                lines(n, |i| format!(
                    "      - {{implies: [{{variability_input: w{i}}}, {{variability_input: v{i}}}]}}"
                )),
                lines(n, |i| format!(
                    "    host{i}: {{type: tosca.nodes.Compute, conditions: {{variability_input: v{i}}}}}\n    app{i}:\n      type: tosca.nodes.SoftwareComponent\n      conditions: {{variability_input: w{i}}}\n      requirements: [{{host: host{i}}}]"
                )),
            )
        },
    },
    Shape {
        // A ring of implications, one part: every input equals every other.
        name: "constraint-ring",
        commands: &["resolve", "analyze"],
        generate: |n| {
            constrained(n, n, |i| {
                let next = (i + 1) % n;
                format!(
                    "{{implies: [{{variability_input: v{i}}}, {{variability_input: v{next}}}]}}"
                )
            })
        },
    },
    Shape {
        // A chain of `or`s, one part: each input changes the topology
        // alone, though not in a model where it is true between two false
        // ones.
        name: "or-chain",
        commands: &["resolve", "analyze"],
        generate: |n| {
            constrained(n, n.saturating_sub(1), |i| {
                let next = i + 1;
                format!("{{or: [{{variability_input: v{i}}}, {{variability_input: v{next}}}]}}")
            })
        },
    },
    Shape {
        // One input of many values, a node per value: each value is a
        // topology of its own, and the values are tied by "one of them".
        name: "input-values",
        commands: &["resolve", "analyze"],
        generate: |n| {
            format!(
                "{V4T}topology_template:\n  variability:\n    inputs:\n      mode: {{type: string, default: m0}}\n  node_templates:\n{}",
                lines(n, |i| format!(
                    "    a{i}: {{type: tosca.nodes.Root, conditions: {{equal: [{{variability_input: mode}}, m{i}]}}}}"
                )),
            )
        },
    },
];

/// `n` boolean inputs (true by default), the constraints `constraint(i)`
/// for `i < constraints`, and a node per input present with it.
fn constrained(n: usize, constraints: usize, constraint: impl Fn(usize) -> String) -> String {
    format!(
        "{V4T}topology_template:\n  variability:\n    inputs:\n{}    constraints:\n{}  node_templates:\n{}",
        lines(n, |i| format!("      v{i}: {{type: boolean, default: true}}")),
        lines(constraints, |i| format!("      - {}", constraint(i))),
        lines(n, |i| format!(
            "    a{i}: {{type: tosca.nodes.Root, conditions: {{variability_input: v{i}}}}}"
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t::{NoFiles, ResolveOptions, Sources};

    /// Every shape is a valid template for each of its commands (with more
    /// entries than a lookup scans before it hashes): it resolves, and the
    /// validator finds no error in those it validates.
    #[test]
    fn every_shape_is_valid_for_its_commands() {
        for shape in SHAPES {
            let text = shape.generate(40);
            assert!(text.lines().count() > 40, "{}", shape.name);
            for &command in shape.commands {
                match command {
                    "validate" => {
                        let errors = crate::validation_errors(&text);
                        assert!(errors.is_empty(), "{}: {errors:?}", shape.name);
                    }
                    _ => {
                        let mut sources = Sources::new();
                        let id = sources.add("template.yaml", text.clone());
                        let resolved = v4t::resolve(
                            &mut sources,
                            id,
                            &mut NoFiles,
                            &ResolveOptions::default(),
                        );
                        assert!(resolved.is_ok(), "{}: {:?}", shape.name, resolved.err());
                    }
                }
            }
        }
    }
}
