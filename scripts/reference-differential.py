#!/usr/bin/env python3
"""Resolves templates with the reference implementation (OpenTOSCA Vintner)
and with v4t and compares the verdicts, the error messages and the
written templates.

    scripts/reference-differential.py VINTNER V4T --random [SEED] [COUNT]
    scripts/reference-differential.py VINTNER V4T --conditions [SEED] [COUNT]
    scripts/reference-differential.py VINTNER V4T --templates LIST [SEED]
    scripts/reference-differential.py VINTNER V4T --enrich (--random|--conditions|--templates) ...

VINTNER is a built checkout of Vintner (its `build/` directory and
`node_modules/`; see below), V4T a v4t binary.

`--random` resolves the random TOSCA 1.3 templates of
`scripts/random-differential.py` (COUNT of them, 300 by default), each with
two assignments of its inputs and some random options (modes, default
conditions and their modes, pruning, checks, hosting constraints,
optimisation); three in ten are instead random templates of deployment
technologies (technology rules over hosting stacks, technologies of nodes,
conditions over the technologies chosen, the technology constraints,
enrichment and optimisation). `--conditions`
resolves COUNT condition-rich templates (`ConditionTemplate`: the V4T
intrinsic functions over every kind of element, named expressions, typed
variability inputs, alternative types, relationship templates, `implies`,
weights, presets, property values computed by value expressions,
variability groups over nodes and relations, inputs whose default is
computed by `default_expression`), each with two random assignments of its
inputs (an input with a default is often left out) and with its preset. `--templates`
resolves every variable service template named in LIST (one path per line)
without inputs, with each of its first six presets, and with three random
assignments of its declared variability inputs (booleans, integers, and
strings with `valid_values`).
Both run the reference as its conformance runner does (`template resolve`
with `enrich: true`), in one Node.js process.

With `--enrich`, each template of those sets is enriched once instead
(`template enrich` against `v4t enrich`; inputs and presets play no part)
and the enriched templates are compared as data. `_generated` marks inside
a condition are left out: the reference marks the shared presence
conditions it prepends to types, which shows wherever such a condition
appears ("Enriched template: `_generated` marks"). A difference is known
when every path where the two differ lies where a row decides it (the
report names each such row): the
conditions of type assignments ("Types: presence follows the container"),
of outputs ("Default conditions: mode tokens": `produced`), of properties
whose value holds a function inside another value, with the constraints
that name them ("Property and output references"), or anywhere in a
template with `type_specific_conditions` ("Default conditions:
type-specific").

A difference is *known* when docs/spec-deviations.md decides it (the row is
named in the report); the script exits 1 if any other difference remains.
Where both found a model (and wrote it, or failed a check or a property
value on it) and v4t's explanation says a choice was a tie no objective
decides, the difference falls under "Optimisation: ties".
Written templates are compared as data (js-yaml's reading, key order
included); error messages whole, with runs of white space as one space.

Building the reference (once; the npm package `opentosca-vintner` 0.1.8 is
older than the behaviour the notes describe):

    git clone https://github.com/OpenTOSCA/opentosca-vintner vintner && cd vintner
    npm install --ignore-scripts --legacy-peer-deps   # friendly-node-cron: ^1.4.1 if 1.5.0 is gone
    npx patch-package && npx tsc -p tsconfig.build.json && npx tsc-alias -p tsconfig.build.json
    cp -r src/assets build/
"""
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile

# Reads the jobs, resolves each with the reference, and compares its result
# with v4t's (already written): prints one JSON line per job.
NODE_HELPER = r"""
const fs = require('fs');
const path = require('path');
const root = process.argv[2];
const yaml = require(path.join(root, 'node_modules/js-yaml'));
const resolve = require(path.join(root, 'build/controller/template/resolve.js')).default;
const enrich = require(path.join(root, 'build/controller/template/enrich.js')).default;
const jobs = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter(Boolean).map(JSON.parse);
// Enriched templates: `_generated` only on the entries of condition lists.
const unmark = (x) => {
  if (Array.isArray(x)) return x.map(unmark);
  if (!x || typeof x !== 'object') return x;
  const o = {};
  for (const k of Object.keys(x)) if (k !== '_generated') o[k] = unmark(x[k]);
  return o;
};
const marks = (d) => {
  if (Array.isArray(d)) return d.map(marks);
  if (!d || typeof d !== 'object') return d;
  const o = {};
  for (const k of Object.keys(d)) {
    o[k] = k === 'conditions' && Array.isArray(d[k])
      ? d[k].map((c) => (c && typeof c === 'object' && !Array.isArray(c)
        ? Object.assign(unmark(c), c._generated ? { _generated: c._generated } : {}) : c))
      : marks(d[k]);
  }
  return o;
};
// Where two values differ (paths; keys in another order count).
const differences = (a, b, at, out) => {
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  const both = (x) => x && typeof x === 'object';
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => differences(x, b[i], at + '[' + i + ']', out));
  } else if (both(a) && both(b) && !Array.isArray(a) && !Array.isArray(b)
             && JSON.stringify(Object.keys(a).sort()) === JSON.stringify(Object.keys(b).sort())) {
    if (JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b))) out.push(at);
    for (const k of Object.keys(a)) differences(a[k], b[k], at + '/' + k, out);
  } else out.push(at);
  return out;
};
// Whether a property value holds a TOSCA function inside another value.
const nested = (x, depth) => {
  if (!x || typeof x !== 'object') return false;
  if (depth > 0 && !Array.isArray(x) && Object.keys(x).some((k) => /^get_(input|property|attribute)$/.test(k))) return true;
  return Object.values(x).some((v) => nested(v, depth + 1));
};
const nestedReference = (template) => {
  let found = false;
  const walk = (x, key) => {
    if (!x || typeof x !== 'object' || found) return;
    if (key === 'properties') {
      for (const p of Array.isArray(x) ? x : [x]) {
        for (const v of Object.values(p || {})) {
          const value = v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? v.value : v;
          if (nested(value, 0)) found = true;
        }
      }
    }
    for (const [k, v] of Object.entries(x)) walk(v, k);
  };
  walk(template, '');
  return found;
};
(async () => {
  for (const j of jobs) {
    const out = j.work + '/ref.yaml';
    let ref;
    try {
      if (j.enrich) await enrich({ template: j.template, output: out });
      else await resolve({ template: j.template, presets: j.presets, inputs: j.inputs || undefined,
                           output: out, enrich: true });
      ref = { ok: true, data: yaml.load(fs.readFileSync(out, 'utf8')) };
    } catch (e) {
      ref = { ok: false, error: String((e && e.message) || e).replace(/\s+/g, ' ').trim() };
    }
    const v = j.v4t;
    let same, outputs = false, technologies = false;
    if (j.enrich) {
      let paths = [], written = {};
      if (ref.ok && v.ok) {
        paths = differences(marks(ref.data), marks(yaml.load(fs.readFileSync(v.output, 'utf8'))), '', []);
        written = yaml.load(fs.readFileSync(j.template, 'utf8')) || {};
        same = paths.length === 0;
      } else {
        same = !ref.ok && !v.ok && ref.error === v.error;
      }
      console.log(JSON.stringify({ id: j.id, same, paths, nested: nestedReference(written),
                                   type_specific: JSON.stringify(written).includes('"type_specific_conditions"'),
                                   ref: ref.ok ? 'ok' : ref.error, v4t: v.ok ? 'ok' : v.error }));
      continue;
    }
    if (ref.ok && v.ok) {
      const mine = yaml.load(fs.readFileSync(v.output, 'utf8'));
      same = JSON.stringify(ref.data) === JSON.stringify(mine);
      // Whether only the technologies chosen differ (`type~type::technology@host`).
      const untech = (d) => JSON.stringify(d).replace(/::[a-z]+/g, '::');
      technologies = !same && untech(ref.data) === untech(mine);
      // Whether only the topology's outputs differ.
      for (const d of [ref.data, mine]) {
        if (!d || !d.topology_template) continue;
        delete d.topology_template.outputs;
        if (Object.keys(d.topology_template).length === 0) delete d.topology_template;
      }
      outputs = !same && JSON.stringify(ref.data) === JSON.stringify(mine);
    } else {
      same = !ref.ok && !v.ok && ref.error === v.error;
    }
    console.log(JSON.stringify({ id: j.id, same, outputs, technologies, ref: ref.ok ? 'ok' : ref.error, v4t: v.ok ? 'ok' : v.error }));
  }
})();
"""

# Differences docs/spec-deviations.md decides: (row, test on the reference's
# and v4t's results, each "ok" or the error's first line).
KNOWN = [
    ("Hosting cycles", lambda ref, v: v.startswith("Hosting relations form a cycle")),
    ("Optimisation: uniqueness checks",
     lambda ref, v: v.startswith("The result is ambiguous considering")),
    ("Types: presence follows the container",
     lambda ref, v: ref.startswith("Container of type ")),
    ("Variability inputs: type and constraints",
     lambda ref, v: v.startswith("Variability input ") and " violates " in v),
    ("Lookups: `artifact_presence`, properties by name",
     lambda ref, v: re.fullmatch(r'Property "\[ "\w+", "\w+" \]" is ambiguous', ref)),
    ("Named logic expressions: cycles",
     lambda ref, v: ref == "Maximum call stack size exceeded"
     and re.fullmatch(r'(Logic expression|Value expression|Variability input) "\w+" is cyclic', v)),
    ("Optimisation: weights",
     lambda ref, v: re.fullmatch(r'Weight "[^"]*" of .* is (larger than 1|not a number or boolean)', ref)),
    ("Lists: a property entry without value",
     lambda ref, v: ref == "Cannot read properties of null (reading 'value')"
     and v.endswith("has no value or expression defined")),
]


# Options added at random to the templates of `--random` (each with a
# chance of one in five), so that the modes, default conditions, checks and
# optimisation settings the reference reads are compared too.
RANDOM_OPTIONS = {
    "mode": ["manual", "strict", "consistent-strict", "consistent-loose", "default",
             "semantic-strict", "semantic-loose", "loose"],
    "node_default_condition": ["true", "false"],
    # Not `source`: it applies to other nodes in v4t ("Default conditions:
    # mode tokens").
    "node_default_condition_mode": ["incoming", "host", "artifact", "incoming-host",
                                    "incomingnaive-artifact-host", "outgoing"],
    "relation_default_condition": ["true", "false"],
    "relation_default_condition_mode": ["source", "target", "source-target"],
    "property_default_condition": ["true", "false"],
    "artifact_default_condition": ["true", "false"],
    "node_pruning": ["true", "false"],
    "relation_pruning": ["true", "false"],
    "optimization_topology": ["min", "max", "false"],
    "optimization_topology_unique": ["true", "false"],
    "required_hosting_constraint": ["true", "false"],
    "single_hosting_constraint": ["true", "false"],
    "consistency_checks": ["false"],
    "semantic_checks": ["false"],
}


# The keys of one kind among RANDOM_OPTIONS, which rank differently against
# a mode's keys in v4t and the reference (docs/spec-deviations.md, "Options:
# precedence"): they are not combined with a mode.
KIND_KEYS = {"node_default_condition", "node_default_condition_mode", "relation_default_condition",
             "relation_default_condition_mode", "property_default_condition",
             "artifact_default_condition", "node_pruning", "relation_pruning"}


TECHNOLOGIES = ["terraform", "ansible", "helm"]
TECHNOLOGY_CONDITIONS = ["", ", conditions: {variability_input: on}",
                         ", conditions: {not: {variability_input: on}}", ", conditions: false"]
# Conditions over the technologies chosen (by index or by name; a node
# without technologies makes them an error in both implementations).
TECHNOLOGY_LEAVES = ["{technology_presence: [app, 0]}", "{technology_presence: [app, terraform]}",
                     "{technology_presence: [db, 0]}", "{technology_presence: [host_a, 1]}",
                     "{not: {technology_presence: [app, ansible]}}"]
TECHNOLOGY_OPTIONS = {
    "required_technology_constraint": ["true", "false"],
    "unique_technology_constraint": ["true", "false"],
    "optimization_technologies": ["true", "false", "min", "max"],
    "optimization_technologies_mode": ["weight", "count"],
    "optimization_technologies_unique": ["true", "false"],
    "technology_pruning": ["true", "false"],
    "enrich_technologies": ["true", "false"],
    "enrich_implementations": ["false"],
    "technology_default_condition_mode": ["container", "other", "container-other"],
    "pruning": ["true", "false"],
}


def technology_template(rng):
    """A random template of deployment technologies: technology rules
    (`qualities`) over hosting stacks, technologies assigned to nodes,
    constraints and conditions over the technologies chosen, and the options
    of the technology constraints, enrichment and optimisation."""
    version = rng.choice(["tosca_variability_1_0", "tosca_variability_1_0_rc_2",
                          "tosca_variability_1_0_rc_3"])
    out = [f"tosca_definitions_version: {version}", "node_types:"]
    for name in ["app", "host_a", "host_b", "db"]:
        abstract = ", metadata: {vintner_abstract: 'true'}" if rng.random() < 0.3 else ""
        out.append(f"  {name}: {{derived_from: tosca.nodes.Root{abstract}}}")
    out.append("topology_template:")
    out.append("  variability:")
    out.append("    inputs: {on: {type: boolean}, off: {type: boolean}}")
    options = [f"{k}: {rng.choice(v)}" for k, v in TECHNOLOGY_OPTIONS.items() if rng.random() < 0.4]
    if options:
        out.append("    options: {" + ", ".join(options) + "}")
    if rng.random() < 0.7:
        out.append("    qualities:")
        for _ in range(rng.randint(1, 5)):
            component = rng.choice(["app", "db", "host_a"])
            rule = f"      - {{component: {component}, technology: {rng.choice(TECHNOLOGIES)}"
            if component == "app" and rng.random() < 0.7:
                rule += f", hosting: [{rng.choice(['host_a', 'host_b'])}]"
            if rng.random() < 0.5:
                rule += f", weight: {rng.choice(['0', '0.5', '1'])}"
            out.append(rule + "}")
    if rng.random() < 0.3:
        out.append(f"    constraints: [{rng.choice(TECHNOLOGY_LEAVES)}]")
    out.append("  node_templates:")
    anchor = "\n      anchor: true" if rng.random() < 0.85 else ""
    out.append(f"    app:\n      type: app{anchor}")
    out.append("      requirements:")
    for host in ["host_a", "host_b"]:
        out.append(f"        - host: {{node: {host}{rng.choice(TECHNOLOGY_CONDITIONS[:3])}}}")
    out.append("        - db: db")
    for name in ["app", "host_a", "host_b", "db"]:
        if name != "app":
            out.append(f"    {name}:\n      type: {name}")
            if rng.random() < 0.2:
                out.append(f"      conditions: {rng.choice(TECHNOLOGY_LEAVES)}")
        if rng.random() < 0.4:
            out.append("      technology:")
            for t in rng.sample(TECHNOLOGIES, rng.randint(1, 2)):
                weight = f", weight: {rng.choice(['0.2', '0.5', '1'])}" if rng.random() < 0.5 else ""
                fields = (rng.choice(TECHNOLOGY_CONDITIONS) + weight).removeprefix(", ")
                out.append(f"        - {t}: {{{fields}}}")
    return "\n".join(out) + "\n"


# The condition leaves over the variability inputs and named expressions.
INPUT_LEAVES = [
    "{variability_input: b1}", "{variability_input: b2}", "{logic_expression: e1}",
    "{equal: [{variability_input: s}, x]}", "{greater: [{variability_input: k}, 1]}",
    "{less_or_equal: [{add: [{variability_input: k}, 1]}, 3]}",
    "{valid_values: [{variability_input: s}, [x, z]]}",
    "{in_range: [{variability_input: k}, [1, 2]]}",
    "{equal: [{value_expression: v1}, 4]}", "{greater: [{div: [{variability_input: k}, 2]}, 0.5]}",
    "{less: [{variability_input: k}, {mean: [1, 2]}]}", "true", "false",
]
# Leaves only some elements may use (SELF, CONTAINER, SOURCE, TARGET).
CONTEXT_LEAVES = {
    "relation": ["{source_presence: SELF}", "{target_presence: SELF}", "{node_presence: SOURCE}",
                 "{node_presence: TARGET}"],
    "property": ["{container_presence: SELF}", "{node_presence: CONTAINER}"],
    "other property": ["{container_presence: SELF}"],
    "artifact": ["{container_presence: SELF}", "{has_artifact: CONTAINER}"],
    "node": ["{has_incoming_relation: SELF}", "{host_presence: SELF}"],
}
OPERATORS = ["and", "or", "xor", "exo", "amo", "implies", "not"]
# An element's own default condition modes (not the node token `source`:
# "Default conditions: mode tokens").
ELEMENT_MODES = {
    "node": ["incoming", "host", "artifact", "incoming-host", "incomingnaive-artifact-host"],
    "relation": ["source", "target", "source-target"],
    "property": ["container", "consuming", "container-consuming"],
    "artifact": ["container"],
}
# Property values computed from the variability inputs: arithmetic, strings
# and the analytical operators (over literal numbers: "List(Number)"), with
# results that are not whole numbers.
VALUE_EXPRESSIONS = [
    "{add: [{variability_input: k}, 1]}",
    "{concat: [{variability_input: s}, '-', {value_expression: v1}]}",
    "{div: [{variability_input: k}, 3]}", "{mul: [{variability_input: k}, 0.1]}",
    "{mul: [{add: [{variability_input: k}, 1]}, 1e21]}", "{mod: [{variability_input: k}, 2]}",
    "{sub: [{variability_input: k}, 2.5]}", "{mean: [1, 2, 4]}", "{standard_deviation: [1, 2, 4]}",
    "{median: [3, 1, 2, 7]}", "{variance: [1, 2, 4]}", "{join: [[{variability_input: s}, x], '-']}",
    "{token: [a-b-c, '-', {variability_input: k}]}", "{linear_regression: [[[1, 2], [2, 4.5]], 3]}",
]
CONDITION_VERSIONS = ["tosca_variability_1_0", "tosca_variability_1_0_rc_2",
                      "tosca_variability_1_0_rc_3"]
# Defaults computed when an input is not assigned (`default_expression`,
# a value expression without context), by input; never through `v1`, which
# reads `k` (a cycle is a row of its own).
DEFAULT_EXPRESSIONS = {
    "k": ["{add: [1, 1]}", "{length: [abc]}", "{sum: [1, 2]}", "{mod: [7, 4]}"],
    "s": ["{concat: [y, '']}", "{join: [[z], '']}", "{concat: [{variability_input: k}, '']}"],
}


class ConditionTemplate:
    """A random template whose conditions use the V4T intrinsic functions
    (presence of nodes, relations, artifacts, properties, types, groups,
    policies, inputs, outputs and imports; SELF, CONTAINER, SOURCE and
    TARGET; named expressions; comparisons and arithmetic over typed
    variability inputs; every logical operator) on nodes with alternative
    types, relations, properties, artifacts, groups, policies, inputs,
    outputs and imports. Its structure is drawn first, so that conditions
    name elements that exist."""

    NODES = ["n1", "n2", "n3", "n4"]

    def __init__(self, rng):
        self.rng = rng
        self.properties = {n: rng.sample(["p", "q"], rng.randint(0, 2)) for n in self.NODES}
        # A node's requirements name later nodes only (hosting cycles are a
        # row of their own).
        self.targets = {n: [rng.choice(self.NODES[i + 1:]) for _ in range(rng.randint(0, 2))]
                        for i, n in enumerate(self.NODES[:-1])}
        self.targets["n4"] = []
        self.artifacts = {n: rng.random() < 0.5 for n in self.NODES}
        # Alternative types: none (a plain type), or T1 and then T2 as the
        # default alternative or with the negated conditions.
        self.alternatives = {n: rng.choice([None, None, "default", "negated"]) for n in self.NODES}
        # Requirements that name a relationship template (which has a
        # conditional property).
        self.templated = {n: [rng.random() < 0.3 for _ in self.targets[n]] for n in self.NODES}
        self.imported, self.grouped = rng.random() < 0.4, rng.random() < 0.7
        # A variability group (its conditions go to its members, nodes and
        # relations by index; it is no element of the output).
        self.members = []
        if rng.random() < 0.4:
            self.members = [n for n in self.NODES if rng.random() < 0.4]
            self.members += [f"[{n}, 0]" for n in self.NODES if self.targets[n] and rng.random() < 0.3]
            self.members = self.members or ["n3"]
        # Each of `k` and `s`: a `default`, a `default_expression`, both
        # (the default wins) or neither.
        self.defaults = {k: rng.choice(["", "default", "expression", "both"]) for k in ["k", "s"]}
        self.policy, self.output = rng.random() < 0.7, rng.random() < 0.7
        # Conditional properties of the artifacts, the group and the policy.
        self.owned = {kind: rng.random() < 0.4 for kind in ["artifact", "group", "policy"]}
        self.options = [f"{key}: {rng.choice(values)}" for key, values in RANDOM_OPTIONS.items()
                        if key not in KIND_KEYS and rng.random() < 0.2]
        # Modes whose default conditions or pruning are the consistency
        # ones alone (`semantic-strict` prunes so under rc_3).
        self.consistent_only = any(o.startswith(("mode: consistent", "mode: semantic-strict"))
                                   for o in self.options)

    def leaves(self):
        """The leaves that name an element of this template."""
        out = []
        for n in self.NODES:
            out += [f"{{node_presence: {n}}}", f"{{host_presence: {n}}}",
                    f"{{has_source: {n}}}", f"{{has_incoming_relation: {n}}}",
                    f"{{has_outgoing_relation: {n}}}", f"{{has_artifact: {n}}}"]
            # Only types whose conditions name their node: the reference
            # keeps a plain type or a default alternative present without
            # its node ("Types: presence follows the container").
            if self.alternatives[n]:
                out.append(f"{{node_type_presence: [{n}, 0]}}")
            if self.alternatives[n] == "negated":
                out.append(f"{{node_type_presence: [{n}, 1]}}")
            # By index: by name the reference always finds the fallback
            # property too ("Lookups: ..., properties by name").
            out += [f"{{node_property_presence: [{n}, {i}]}}" for i in range(len(self.properties[n]))]
            if self.targets[n]:
                out.append(f"{{relation_presence: [{n}, 0]}}")
            if self.templated[n] and self.templated[n][0]:
                out.append(f"{{relation_property_presence: [{n}, 0, 0]}}")
            if self.artifacts[n]:
                out += [f"{{artifact_presence: [{n}, a]}}", f"{{artifact_presence: [{n}, 0]}}"]
                if self.owned["artifact"]:
                    out.append(f"{{artifact_property_presence: [{n}, a, 0]}}")
        out += ["{input_presence: i1}", "{input_presence: 1}", "{is_consumed: i1}"]
        if self.grouped:
            out += ["{group_presence: g1}", "{has_present_member: g1}"]
            if self.owned["group"]:
                out.append("{group_property_presence: [g1, 0]}")
        if self.policy:
            out += ["{policy_presence: pol}", "{policy_presence: 0}", "{has_present_target: pol}"]
            if self.owned["policy"]:
                out.append("{policy_property_presence: [pol, 0]}")
        if self.output and not self.consistent_only:
            # Not where only consistency conditions apply: `produced` is
            # one in v4t and a semantic one in the reference ("Default
            # conditions: mode tokens"), so the output's presence differs.
            out += ["{output_presence: o1}", "{is_produced: o1}"]
        if self.imported:
            out.append("{import_presence: 0}")
        return out

    def condition(self, context, depth=2):
        """A random variability condition for an element of kind `context`."""
        rng = self.rng
        if depth and rng.random() < 0.4:
            operator = rng.choice(OPERATORS)
            if operator == "not":
                return f"{{not: {self.condition(context, depth - 1)}}}"
            count = 2 if operator == "implies" else rng.randint(1, 3)
            return f"{{{operator}: [{', '.join(self.condition(context, depth - 1) for _ in range(count))}]}}"
        pick = rng.random()
        if pick < 0.3:
            # Not a cycle through the named expression (its own row).
            return rng.choice(INPUT_LEAVES[1:] if context == "expression" else INPUT_LEAVES)
        if pick < 0.4 and context in CONTEXT_LEAVES:
            return rng.choice(CONTEXT_LEAVES[context])
        return rng.choice(self.leaves())

    def fields(self, context):
        """The variability keys of one element: conditions (one or a list),
        at times its own default condition or pruning switch."""
        rng, out = self.rng, []
        if rng.random() < 0.5:
            if rng.random() < 0.2:
                out.append(f"conditions: [{self.condition(context)}, {self.condition(context)}]")
            else:
                out.append(f"conditions: {self.condition(context)}")
        if rng.random() < 0.1:
            out.append(f"default_condition: {rng.choice(['true', 'false'])}")
        if context in ELEMENT_MODES and rng.random() < 0.1:
            out.append(f"default_condition_mode: {rng.choice(ELEMENT_MODES[context])}")
        if rng.random() < 0.1:
            # Not an output's consistency pruning alone (as above).
            kinds = ['', 'semantic_'] if context == "output" else ['', 'consistency_', 'semantic_']
            out.append(f"{rng.choice(kinds)}pruning: {rng.choice(['true', 'false'])}")
        if context in ("node", "relation") and rng.random() < 0.1:
            out.append("implied: true")
        return out

    def node(self, name):
        """The lines of one node template."""
        rng = self.rng
        out = [f"    {name}:"]
        if self.alternatives[name]:
            # Each condition names its node's presence, which v4t adds
            # anyway ("Types: presence follows the container") and the
            # reference does not.
            first = self.condition("type")
            second = ("default_alternative: true" if self.alternatives[name] == "default"
                      else f"conditions: [{{not: {first}}}, {{node_presence: {name}}}]")
            first = f"[{first}, {{node_presence: {name}}}]"
            out.append(f"      type: [{{T1: {{conditions: {first}}}}}, {{T2: {{{second}}}}}]")
        else:
            out.append(f"      type: {rng.choice(['T1', 'T2'])}")
        if name == "n1" and rng.random() < 0.9:
            out.append("      anchor: true")
        # No deployment technology (technology_template covers them): a
        # managed node needs one under the rc_2 and rc_3 defaults, and a
        # single type.
        out.append("      managed: false")
        out += [f"      {field}" for field in self.fields("node")]
        if rng.random() < 0.1:
            out.append(f"      implies: [[{self.condition('node')}], "
                       f"[{self.condition('node')}, {self.condition('node')}]]")
        if rng.random() < 0.2:
            # Not above 1 ("Optimisation: weights").
            out.append(f"      weight: {rng.choice(['0', '0.25', '0.5', '1'])}")
        if self.properties[name]:
            out.append("      properties:")
            out += self.property_lines(8, self.properties[name], "property")
        if self.targets[name]:
            out.append("      requirements:")
            for j, target in enumerate(self.targets[name]):
                relation = rng.choice(["host", "connect"])
                fields = [f"node: {target}"] + self.fields("relation")
                if self.templated[name][j]:
                    fields.append(f"relationship: r_{name}_{j}")
                out.append(f"        - {relation}: {flow(fields)}")
        if self.artifacts[name]:
            fields = ["type: tosca.artifacts.File", "file: a.sh"] + self.fields("artifact")
            if self.owned["artifact"]:
                fields.append(f"properties: [{self.property_lines(0, ['w'])[0][2:]}]")
            out += ["      artifacts:", f"        a: {flow(fields)}"]
        return out

    def property_lines(self, indent, names, context="other property"):
        """Conditional properties in list form: values, inputs read, or
        value expressions over the variability inputs (whose numbers, such
        as 1/3 or 0.1 * 3, are written as the reference writes them)."""
        rng, out = self.rng, []
        for p in names:
            value = rng.choice(["value: 1", "value: x", "value: {get_input: i1}",
                                f"expression: {rng.choice(VALUE_EXPRESSIONS)}"])
            fields = [value] + self.fields(context)
            if rng.random() < 0.05:
                fields.append("default_alternative: true")
            out.append(f"{' ' * indent}- {p}: {flow(fields)}")
        return out

    def text(self):
        """The template."""
        rng = self.rng
        out = [f"tosca_definitions_version: {rng.choice(CONDITION_VERSIONS)}"]
        if self.imported:
            out += ["imports:", f"  - {flow(['file: f0.yaml'] + self.fields('import'))}"]
        defaults = {"k": ", default: 1", "s": ", default: x"}
        out += ["node_types:", "  T1: {derived_from: tosca.nodes.Root}",
                "  T2: {derived_from: tosca.nodes.Root}", "topology_template:", "  variability:",
                "    inputs:", "      b1: {type: boolean}", "      b2: {type: boolean}"]
        for k, t in [("k", "integer"), ("s", "string")]:
            fields = f"type: {t}"
            if self.defaults[k] in ("default", "both"):
                fields += defaults[k]
            if self.defaults[k] in ("expression", "both"):
                fields += f", default_expression: {rng.choice(DEFAULT_EXPRESSIONS[k])}"
            out.append(f"      {k}: {{{fields}}}")
        out += ["    expressions:", f"      e1: {self.condition('expression', 1)}",
                f"      v1: {{add: [{{variability_input: k}}, {rng.randint(0, 3)}]}}"]
        if rng.random() < 0.3:
            out.append(f"    constraints: [{self.condition('constraint', 1)}]")
        out.append(f"    presets: {{p1: {{inputs: {{b1: {rng.choice(['true', 'false'])}, "
                   f"b2: {rng.choice(['true', 'false'])}, k: {rng.randint(0, 3)}, s: z}}}}}}")
        options = list(self.options)
        if rng.random() < 0.5:
            options.append(f"type_default_condition: {rng.choice(['true', 'false'])}")
        if rng.random() < 0.2:
            options.append(f"optimization_topology_mode: {rng.choice(['weight', 'count'])}")
        if options:
            out.append("    options: " + flow(options))
        out.append("  inputs:")
        for name in ["i1", "i2"]:
            out.append(f"    - {name}: {flow(['type: string', 'default: d'] + self.fields('input'))}")
        out.append("  node_templates:")
        for name in self.NODES:
            out += self.node(name)
        relationships = [f"r_{n}_{j}" for n in self.NODES
                         for j, templated in enumerate(self.templated[n]) if templated]
        if relationships:
            out.append("  relationship_templates:")
            for name in relationships:
                out += [f"    {name}:", "      type: tosca.relationships.Root", "      properties:"]
                out += self.property_lines(8, ["w"])
        if self.grouped or self.members:
            out.append("  groups:")
        if self.members:
            kind = rng.choice(["ConditionalMembers", "Root"])
            fields = [f"type: variability.groups.{kind}", f"members: [{', '.join(self.members)}]"]
            out.append("    vg: " + flow(fields + [f"conditions: {self.condition('group')}"]))
        for kind, present, header, entry, fields in [
                ("group", self.grouped, None, "    g1: ",
                 ["type: tosca.groups.Root", "members: [n1, n2]"]),
                ("policy", self.policy, "  policies:", "    - pol: ",
                 ["type: tosca.policies.Root", "targets: [n2, n3]"])]:
            if present:
                fields = fields + self.fields(kind)
                if self.owned[kind]:
                    fields.append(f"properties: [{self.property_lines(0, ['w'])[0][2:]}]")
                out += ([header] if header else []) + [entry + flow(fields)]
        if self.output:
            value = rng.choice(["1", "{get_property: [n1, p]}", "{get_input: i2}"])
            out += ["  outputs:", f"    - o1: {flow([f'value: {value}'] + self.fields('output'))}"]
        return "\n".join(out) + "\n"


def flow(fields):
    """A YAML flow mapping of `key: value` fields."""
    return "{" + ", ".join(fields) + "}"


# The errors on the model found: of the checks, and of a present
# property's value (a model another tie-breaking may fail differently or
# not at all).
CHECK_ERROR = re.compile(
    r'(Relation (source|target) "\w+" of .* does not exist|Container of .* does not exist'
    r'|.* is ambiguous|.* has no type|.* has more than one (hosting relations|technology)'
    r'|.* expected to have (a|an) .*|Input "[^"]*" is not consumed|Output "[^"]*" is not produced'
    r'|Property "[^"]*" of .* has no value)')


def model_verdict(result):
    """Whether a result is a written template or a check's failure."""
    return result == "ok" or bool(CHECK_ERROR.fullmatch(result))


def tied(v4t, job):
    """Whether v4t's explanation of a job's result says that a choice was
    a tie that no objective decides (then another model is as right). The
    value expressions of `ConditionTemplate`'s properties become plain
    values first: they do not decide presence, and one that gives no value
    would fail the explanation."""
    template = job["template"]
    with open(template, encoding="utf-8") as f:
        text = f.read()
    plain = text
    for expression in VALUE_EXPRESSIONS:
        plain = plain.replace(f"expression: {expression}", "value: 0")
    if plain != text:
        template = os.path.join(job["work"], "tie.yaml")
        with open(template, "w", encoding="utf-8") as f:
            f.write(plain)
    command = [v4t, "explain", template]
    if job["presets"]:
        command += ["--presets", ",".join(job["presets"])]
    if job.get("inputs"):
        command += ["--inputs", job["inputs"]]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return "every objective ties" in run.stdout


# Where the enriched templates may differ under a row (`--enrich`): the
# paths of the differences, each matched by one pattern.
ENRICH_ROWS = [
    ("Types: presence follows the container", re.compile(r".*/type\[\d+\]/[^/\[]+/conditions(\[.*)?")),
    ("Default conditions: mode tokens", re.compile(r"/topology_template/outputs\[\d+\]/[^/\[]+/conditions(\[.*|/.*)?")),
]
PROPERTY_CONDITIONS = re.compile(
    r"(.*/properties\[\d+\]/[^/\[]+/conditions(\[.*)?|/topology_template/variability/constraints(\[.*)?)")


def project_row(template):
    """The row that decides a difference no other row decides on a
    template of a Vintner project whose JavaScript plugins the reference
    runs, or whose dependencies (`config.yaml`) are not pulled, which only
    v4t reads; None for any other template."""
    directory = os.path.dirname(template)
    with open(template, encoding="utf-8") as f:
        text = f.read()
    if re.search(r"(?m)^\s+plugins:", text) or os.path.isdir(os.path.join(directory, "plugins")):
        return "Plugins (`variability.plugins`, `./plugins/technology`)"
    config = os.path.join(directory, "config.yaml")
    if os.path.isfile(config):
        with open(config, encoding="utf-8") as f:
            targets = re.findall(r"(?m)^\s*(?:-\s*)?(?:source|target):\s*(\S+)", f.read())
        # A target named after its source's base name when not written.
        if any(not os.path.exists(os.path.join(directory, os.path.basename(t))) for t in targets):
            return "Project dependencies (`config.yaml`)"
    return None


def known_enrich_row(result):
    """The spec-deviations row that decides a difference of enriched
    templates, None if none."""
    paths = result["paths"]
    if not paths:
        return None
    if result["type_specific"]:
        return "Default conditions: type-specific"
    rows = ENRICH_ROWS + ([("Property and output references", PROPERTY_CONDITIONS)]
                          if result["nested"] else [])
    found = []
    for path in paths:
        row = next((row for row, pattern in rows if pattern.fullmatch(path)), None)
        if row is None:
            return None
        if row not in found:
            found.append(row)
    return "; ".join(found)


def known_row(result, job, v4t):
    """The spec-deviations row that decides a difference, None if none."""
    if job.get("enrich"):
        return known_enrich_row(result) or project_row(job["template"])
    template = job["template"]
    if result["outputs"]:
        # `produced` is a consistency condition in v4t, a semantic one in
        # the reference.
        return "Default conditions: mode tokens"
    if result["technologies"]:
        # Technologies without the uniqueness constraint are no
        # alternatives: the last of equal ones remains in v4t.
        with open(template, encoding="utf-8") as f:
            if "unique_technology_constraint: false" in f.read():
                return "Optimisation: ties"
    row = next((name for name, test in KNOWN if test(result["ref"], result["v4t"])), None)
    if (row is None and model_verdict(result["ref"]) and model_verdict(result["v4t"])
            and tied(v4t, job)):
        # Both found a model (and wrote it or failed a check on it), and
        # v4t's was chosen by the tie rule.
        return "Optimisation: ties"
    return row or project_row(template)


def random_templates(seed, count, work):
    """The jobs of `--random`: random-differential.py's TOSCA 1.3 templates
    (those it writes for the seed), with random options or replaced by a
    technology template, both drawn from a second stream."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "random_differential", os.path.join(here, "random-differential.py"))
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    rng = random.Random(seed)
    options_rng = random.Random(-seed)
    jobs = []
    for i in range(count):
        template = f"{work}/t{i}.yaml"
        # A list entry whose value is null fails in the reference
        # ("Lists: a property entry without value"), which would hide the
        # rest of the template: such entries get the value 0.
        text = re.sub(r"(?m)^(\s*- \w+): null$", r"\1: 0", generator.template(rng, False))
        chosen = {key: options_rng.choice(values)
                  for key, values in RANDOM_OPTIONS.items() if options_rng.random() < 0.2}
        if "mode" in chosen:
            # A kind's key beside a mode: "Options: precedence" decides.
            chosen = {k: v for k, v in chosen.items() if k not in KIND_KEYS}
        extra = "".join(f", {key}: {value}" for key, value in chosen.items())
        text = re.sub(r"(?m)^(    options: \{.*)\}$", lambda m: m.group(1) + extra + "}", text)
        if options_rng.random() < 0.3:
            text = technology_template(options_rng)
        with open(template, "w", encoding="utf-8") as f:
            f.write(text)
        for on in ["true", "false"]:
            inputs = f"{work}/t{i}-{on}.inputs.yaml"
            with open(inputs, "w", encoding="utf-8") as f:
                f.write(f"on: {on}\noff: {rng.choice(['true', 'false'])}\n")
            jobs.append({"template": template, "presets": [], "inputs": inputs})
    return jobs


def condition_templates(seed, count, work):
    """The jobs of `--conditions`: condition-rich templates, each with two
    random assignments of its variability inputs (some left out) and with
    its preset."""
    rng = random.Random(seed)
    jobs = []
    for i in range(count):
        template = f"{work}/c{i}.yaml"
        generated = ConditionTemplate(rng)
        with open(template, "w", encoding="utf-8") as f:
            f.write(generated.text())
        for j in range(2):
            values = {"b1": rng.choice(["true", "false"]), "b2": rng.choice(["true", "false"]),
                      "k": str(rng.randint(0, 3)), "s": rng.choice(["x", "y", "z"])}
            inputs = f"{work}/c{i}-{j}.inputs.yaml"
            # An input with a default (or one computed) is left out often.
            kept = {k: 0.5 if generated.defaults.get(k) else 0.98 for k in values}
            with open(inputs, "w", encoding="utf-8") as f:
                f.writelines(f"{k}: {v}\n" for k, v in values.items() if rng.random() < kept[k])
            jobs.append({"template": template, "presets": [], "inputs": inputs})
        jobs.append({"template": template, "presets": ["p1"]})
    return jobs


def listed_templates(vintner, listing, seed, work):
    """The jobs of `--templates`: no inputs, each preset, random inputs."""
    with open(listing, encoding="utf-8") as f:
        paths = [os.path.abspath(p) for p in f.read().split()]
    # js-yaml reads the variability sections as the reference does.
    reader = f"{work}/read.js"
    with open(reader, "w", encoding="utf-8") as f:
        f.write("const yaml = require(process.argv[2] + '/node_modules/js-yaml');\n"
                "const fs = require('fs');\n"
                "for (const p of fs.readFileSync(process.argv[3], 'utf8').split('\\n').filter(Boolean)) {\n"
                "  let v = {};\n"
                "  try { const d = yaml.load(fs.readFileSync(p, 'utf8')) || {};\n"
                "        v = ((d.topology_template || {}).variability) || {}; } catch (e) {}\n"
                "  console.log(JSON.stringify({presets: Object.keys(v.presets || {}),"
                " inputs: v.inputs || {}}));\n"
                "}\n")
    with open(f"{work}/paths.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(paths) + "\n")
    read = subprocess.run(["node", reader, vintner, f"{work}/paths.txt"],
                          capture_output=True, text=True, check=True)
    rng = random.Random(seed)
    jobs = []
    for path, line in zip(paths, read.stdout.splitlines()):
        variability = json.loads(line)
        jobs.append({"template": path, "presets": []})
        jobs += [{"template": path, "presets": [p]} for p in variability["presets"][:6]]
        declared = variability["inputs"] if isinstance(variability["inputs"], dict) else {}
        for _ in range(3):
            assignment = {}
            for name, definition in declared.items():
                value = random_value(rng, definition if isinstance(definition, dict) else {})
                if value is not None and rng.random() < 0.8:
                    assignment[name] = value
            if assignment:
                inputs = f"{work}/i{len(jobs)}.json"
                with open(inputs, "w", encoding="utf-8") as f:
                    json.dump(assignment, f)
                jobs.append({"template": path, "presets": [], "inputs": inputs})
    return jobs


def random_value(rng, definition):
    """A value of a variability input's declared type, None if unknown."""
    kind = definition.get("type", "string")
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "integer":
        return rng.randint(0, 5)
    valid = definition.get("valid_values")
    for constraint in definition.get("constraints") or []:
        if isinstance(constraint, dict) and "valid_values" in constraint:
            valid = constraint["valid_values"]
    return rng.choice(valid) if isinstance(valid, list) and valid else None


def resolve_v4t(v4t, job):
    """v4t's result of a job (resolving, or enriching with `enrich`): ok
    and the output file, or the error."""
    output = job["work"] + "/v4t.yaml"
    if job.get("enrich"):
        command = [v4t, "enrich", job["template"], "-o", output, "--format", "json"]
    else:
        command = [v4t, "resolve", job["template"], "-o", output, "--format", "json"]
    if job["presets"]:
        command += ["--presets", ",".join(job["presets"])]
    if job.get("inputs"):
        command += ["--inputs", job["inputs"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENTOSCA_VINTNER_")}
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    if run.returncode == 0:
        return {"ok": True, "output": output}
    return {"ok": False, "error": first_error(run.stderr)}


def first_error(stderr):
    """The message of the first error v4t printed with `--format json`
    (runs of white space as one space), else the start of its output."""
    for line in stderr.splitlines():
        try:
            diagnostic = json.loads(line)
        except ValueError:
            continue
        if diagnostic.get("severity") == "error":
            return " ".join(diagnostic["message"].split())
    return stderr.strip()[:300]


def main():
    enriching = "--enrich" in sys.argv[3:]
    argv = [a for a in sys.argv if a != "--enrich"]
    if len(argv) < 4 or argv[3] not in ("--random", "--conditions", "--templates"):
        sys.exit(__doc__)
    vintner, v4t, mode = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    work = tempfile.mkdtemp()
    if mode in ("--random", "--conditions"):
        seed = int(argv[4]) if len(argv) > 4 else 1
        count = int(argv[5]) if len(argv) > 5 else 300
        generate = random_templates if mode == "--random" else condition_templates
        jobs = generate(seed, count, work)
    else:
        seed = int(argv[5]) if len(argv) > 5 else 1
        jobs = listed_templates(vintner, argv[4], seed, work)
    if enriching:
        # One job per template: enriching reads no inputs or presets.
        templates = list(dict.fromkeys(job["template"] for job in jobs))
        jobs = [{"template": t, "presets": [], "enrich": True} for t in templates]
    for i, job in enumerate(jobs):
        job["id"] = i
        job["work"] = f"{work}/job{i}"
        os.makedirs(job["work"])
        job["v4t"] = resolve_v4t(v4t, job)
    with open(f"{work}/jobs.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps(job) + "\n" for job in jobs)
    with open(f"{work}/helper.js", "w", encoding="utf-8") as f:
        f.write(NODE_HELPER)
    compared = subprocess.run(["node", f"{work}/helper.js", vintner, f"{work}/jobs.jsonl"],
                              capture_output=True, text=True, check=True)
    counts = {"same output": 0, "same error": 0, "unknown": 0}
    for line in compared.stdout.splitlines():
        result = json.loads(line)
        if result["same"]:
            counts["same output" if result["ref"] == "ok" else "same error"] += 1
            continue
        job = jobs[result["id"]]
        row = known_row(result, job, v4t)
        key = f"known ({row})" if row else "unknown"
        counts[key] = counts.get(key, 0) + 1
        if not row:
            print(f"{job['template']} presets={job['presets']} inputs={job.get('inputs')}")
            print(f"  reference: {result['ref']}\n  v4t:       {result['v4t']}")
            for path in result.get("paths", [])[:5]:
                print(f"  differs at {path or '/'}")
    done = "enrichments" if enriching else "resolutions"
    print(", ".join(f"{n} {k}" for k, n in counts.items()), f"of {len(jobs)} {done} (files in {work})")
    sys.exit(1 if counts["unknown"] else 0)


if __name__ == "__main__":
    main()
