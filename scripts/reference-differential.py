#!/usr/bin/env python3
"""Resolves templates with the reference implementation (OpenTOSCA Vintner)
and with v4t and compares the verdicts, the error messages and the
written templates.

    scripts/reference-differential.py VINTNER V4T --random [SEED] [COUNT]
    scripts/reference-differential.py VINTNER V4T --templates LIST [SEED]

VINTNER is a built checkout of Vintner (its `build/` directory and
`node_modules/`; see below), V4T a v4t binary.

`--random` resolves the random TOSCA 1.3 templates of
`scripts/random-differential.py` (COUNT of them, 300 by default), each with
two assignments of its inputs and some random options (modes, default
conditions and their modes, pruning, checks, hosting constraints,
optimisation); three in ten are instead random templates of deployment
technologies (technology rules over hosting stacks, technologies of nodes,
the technology constraints, enrichment and optimisation). `--templates`
resolves every variable service template named in LIST (one path per line)
without inputs, with each of its first six presets, and with three random
assignments of its declared variability inputs (booleans, integers, and
strings with `valid_values`).
Both run the reference as its conformance runner does (`template resolve`
with `enrich: true`), in one Node.js process.

A difference is *known* when docs/spec-deviations.md decides it (the row is
named in the report); the script exits 1 if any other difference remains.
Written templates are compared as data (js-yaml's reading, key order
included); error messages by their first line.

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
const jobs = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter(Boolean).map(JSON.parse);
(async () => {
  for (const j of jobs) {
    const out = j.work + '/ref.yaml';
    let ref;
    try {
      await resolve({ template: j.template, presets: j.presets, inputs: j.inputs || undefined,
                      output: out, enrich: true });
      ref = { ok: true, data: yaml.load(fs.readFileSync(out, 'utf8')) };
    } catch (e) {
      ref = { ok: false, error: String((e && e.message) || e).split('\n')[0] };
    }
    const v = j.v4t;
    let same, outputs = false, technologies = false;
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
    (`qualities`) over hosting stacks, technologies assigned to nodes, and
    the options of the technology constraints, enrichment and optimisation."""
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
        if rng.random() < 0.4:
            out.append("      technology:")
            for t in rng.sample(TECHNOLOGIES, rng.randint(1, 2)):
                weight = f", weight: {rng.choice(['0.2', '0.5', '1'])}" if rng.random() < 0.5 else ""
                fields = (rng.choice(TECHNOLOGY_CONDITIONS) + weight).removeprefix(", ")
                out.append(f"        - {t}: {{{fields}}}")
    return "\n".join(out) + "\n"


def known_row(result, template):
    """The spec-deviations row that decides a difference, None if none."""
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
    return next((name for name, test in KNOWN if test(result["ref"], result["v4t"])), None)


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
    """v4t's result of a job: ok and the output file, or the error."""
    output = job["work"] + "/v4t.yaml"
    command = [v4t, "resolve", job["template"], "-o", output]
    if job["presets"]:
        command += ["--presets", ",".join(job["presets"])]
    if job.get("inputs"):
        command += ["--inputs", job["inputs"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENTOSCA_VINTNER_")}
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    if run.returncode == 0:
        return {"ok": True, "output": output}
    errors = [line[len("error: "):] for line in run.stderr.splitlines()
              if line.startswith("error: ")]
    return {"ok": False, "error": errors[0] if errors else run.stderr.strip()[:300]}


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("--random", "--templates"):
        sys.exit(__doc__)
    vintner, v4t, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    work = tempfile.mkdtemp()
    if mode == "--random":
        seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        count = int(sys.argv[5]) if len(sys.argv) > 5 else 300
        jobs = random_templates(seed, count, work)
    else:
        seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
        jobs = listed_templates(vintner, sys.argv[4], seed, work)
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
        row = known_row(result, job["template"])
        key = f"known ({row})" if row else "unknown"
        counts[key] = counts.get(key, 0) + 1
        if not row:
            print(f"{job['template']} presets={job['presets']} inputs={job.get('inputs')}")
            print(f"  reference: {result['ref']}\n  v4t:       {result['v4t']}")
    print(", ".join(f"{n} {k}" for k, n in counts.items()), f"of {len(jobs)} resolutions (files in {work})")
    sys.exit(1 if counts["unknown"] else 0)


if __name__ == "__main__":
    main()
