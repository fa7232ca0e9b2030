#!/usr/bin/env python3
"""Resolves random templates with two builds of v4t and compares what they
write, byte for byte (exit code, output and errors).

    scripts/random-differential.py OLD/v4t NEW/v4t [SEED] [COUNT]

The templates (TOSCA 1.3 and 2.0) mix the shapes normalisation folds into
the graph builder (issue 23): requirement assignments written as names or
maps, imports as strings or maps, inputs, outputs, groups and artifacts as
maps or lists, property lists with values and definitions, with and
without automatic default alternatives, pruning and variability groups.
It complements scripts/same-output.sh, whose fixed files miss
combinations (a TOSCA 2.0 requirement written as a name that automatic
default alternatives choose was found here, not there). Each template is
resolved with two assignments. Exit 0 when every output is identical, 1
otherwise.
"""
import random
import subprocess
import sys
import tempfile

CONDITIONS = [
    "",
    ", conditions: {variability_input: on}",
    ", conditions: {not: {variability_input: on}}",
    ", conditions: {variability_input: off}",
]
VALUES = ["1", "x", "null", "[1, 2]", "{a: 1}", "{value: 3}", "{value: null}",
          "{$get_input: port}", "{get_input: port}"]
TOSCA_2_TYPES = """node_types:
  N:
    properties:
      p: {type: string, required: false}
      q: {type: string, required: false}
      r: {type: string, required: false}
    requirements: [{host: {capability: tosca.capabilities.Node, relationship: tosca.relationships.Root, count_range: [0, UNBOUNDED]}}]
artifact_types:
  F: {}
group_types:
  G: {}
"""


def entry(listed, name, definition, indent):
    """A collection entry, as a list item or a map entry."""
    dash = "- " if listed else ""
    return f"{' ' * indent}{dash}{name}: {definition}"


def node(rng, name, others, tosca2):
    """A node template with properties, requirements and artifacts."""
    out = [f"    {name}:", f"      type: {'N' if tosca2 else 'tosca.nodes.Root'}"]
    if rng.random() < 0.4:
        out.append(f"      conditions: {{variability_input: {rng.choice(['on', 'off'])}}}")
    if rng.random() < 0.7:
        out.append("      properties:")
        for _ in range(rng.randint(1, 3)):
            p = rng.choice(["p", "q", "r"])
            if rng.random() < 0.5:
                out.append(f"        - {p}: {rng.choice(VALUES)}")
            else:
                out.append(f"        - {p}: {{value: {rng.choice(VALUES)}{rng.choice(CONDITIONS)}}}")
    if rng.random() < 0.6:
        out.append("      requirements:")
        for _ in range(rng.randint(1, 3)):
            target = rng.choice(others)
            if rng.random() < 0.5:
                out.append(f"        - host: {target}")
            else:
                out.append(f"        - host: {{node: {target}{rng.choice(CONDITIONS)}}}")
    if rng.random() < 0.5:
        listed = rng.random() < 0.5
        out.append("      artifacts:")
        for k in range(rng.randint(1, 2)):
            name = rng.choice(["x", "y"]) if listed else ["x", "y"][k]
            typed = "type: F, " if tosca2 else ""
            short = rng.random() < 0.3
            definition = "f.sh" if short else f"{{{typed}file: f{k}.sh{rng.choice(CONDITIONS)}}}"
            out.append(entry(listed, name, definition, 8))
    return out


def template(rng, tosca2):
    """A random template."""
    options = ["pruning: " + rng.choice(["true", "false"])]
    if rng.random() < 0.5:
        options.insert(0, "automatic_default_alternatives: true")
    if rng.random() < 0.3:
        options.append("type_default_condition: true")
    out = []
    if tosca2:
        out.append("tosca_definitions_version: tosca_2_0")
    else:
        version = rng.choice(["tosca_variability_1_0", "tosca_variability_1_0_rc_3"])
        out.append(f"tosca_definitions_version: {version}")
        if rng.random() < 0.5:
            out.append("imports:")
            for i in range(rng.randint(1, 3)):
                out.append(rng.choice([f"  - f{i}.yaml", f"  - {{file: f{i}.yaml{rng.choice(CONDITIONS)}}}"]))
    out.append(f"{'service_template' if tosca2 else 'topology_template'}:")
    out.append("  variability:\n    inputs:\n      on: {type: boolean}\n      off: {type: boolean}")
    out.append("    options: {" + ", ".join(options) + "}")
    if rng.random() < 0.7:
        listed = rng.random() < 0.5
        out.append("  inputs:")
        for i, name in enumerate(["port", "name"]):
            conditions = rng.choice(CONDITIONS) if listed else ""
            out.append(entry(listed, name, f"{{type: string, default: v{i}{conditions}}}", 4))
    names = ["a", "b", "c", "d"]
    out.append("  node_templates:")
    for name in names:
        out.extend(node(rng, name, [n for n in names if n != name], tosca2))
    if rng.random() < 0.5:
        listed = rng.random() < 0.5
        out.append("  groups:")
        out.append(entry(listed, "g1", f"{{type: {'G' if tosca2 else 'tosca.groups.Root'}, members: [a]{rng.choice(CONDITIONS)}}}", 4))
        if rng.random() < 0.5:
            variability = "{type: variability.groups.ConditionalMembers, members: [d], conditions: {variability_input: on}}"
            out.append(entry(listed, "vg", variability, 4))
    if rng.random() < 0.6:
        listed = rng.random() < 0.5
        out.append("  outputs:")
        conditions = rng.choice(CONDITIONS) if listed else ""
        out.append(entry(listed, "o", f"{{value: {rng.choice(['1', 'z'])}{conditions}}}", 4))
        out.append(entry(listed, "o" if listed else "o2", "{value: 2}", 4))
    text = "\n".join(out) + "\n"
    return text + TOSCA_2_TYPES if tosca2 else text


def resolve(v4t, work):
    """Exit code, output and errors of resolving the files in `work`."""
    run = subprocess.run([v4t, "resolve", f"{work}/t.yaml", "--inputs", f"{work}/in.yaml"],
                         capture_output=True, text=True, check=False)
    return run.returncode, run.stdout, run.stderr


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    work = tempfile.mkdtemp()
    alike = resolved = different = 0
    for i in range(count):
        text = template(rng, rng.random() < 0.5)
        with open(f"{work}/t.yaml", "w", encoding="utf-8") as f:
            f.write(text)
        for on in ["true", "false"]:
            with open(f"{work}/in.yaml", "w", encoding="utf-8") as f:
                f.write(f"on: {on}\noff: {rng.choice(['true', 'false'])}\n")
            before, after = resolve(old, work), resolve(new, work)
            if before != after:
                different += 1
                if different <= 2:
                    print(f"template {i}, on: {on}\n{text}")
                    print(f"OLD (exit {before[0]})\n{before[1][-800:]}{before[2][-400:]}")
                    print(f"NEW (exit {after[0]})\n{after[1][-800:]}{after[2][-400:]}")
            else:
                alike += 1
                resolved += before[0] == 0
    print(f"{alike} outputs alike ({resolved} resolved), {different} different")
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
