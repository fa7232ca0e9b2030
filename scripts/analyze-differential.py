#!/usr/bin/env python3
"""Analyses random product lines with two builds of v4t and compares what
they write, byte for byte (exit code, output and errors).

    scripts/analyze-differential.py OLD/v4t NEW/v4t [SEED] [COUNT]

Each template has one to four independent components of two to eight
boolean inputs, nodes whose conditions read them, and constraints in the
shapes that make `analyze` search within one part (issue 23): rings of
implications (inputs equal to each other, some rings broken), chains of
implications, chains of `or`s, and single conditions. Each template is
analysed twice: `--format json`, and `--details --random 2 --why`. Exit 0
when every output is identical, 1 otherwise; the templates that differ
are kept and named.
"""
import os
import random
import subprocess
import sys
import tempfile


def read(name, negated=False):
    text = f"{{variability_input: {name}}}"
    return f"{{not: {text}}}" if negated else text


def condition(rng, inputs):
    kind = rng.randrange(4)
    if kind < 2:
        return read(rng.choice(inputs), negated=kind == 1)
    op = rng.choice(["and", "or", "xor"])
    both = rng.sample(inputs, min(len(inputs), 2))
    return "{" + op + ": [" + ", ".join(read(x) for x in both) + "]}"


def constraints(rng, inputs):
    shape = rng.randrange(4)
    out = []
    if shape == 0:
        ring = rng.sample(inputs, rng.randrange(2, len(inputs) + 1))
        for a, b in zip(ring, ring[1:] + ring[:1]):
            if rng.random() < 0.85:
                out.append(f"{{implies: [{read(a)}, {read(b, rng.random() < 0.1)}]}}")
    elif shape == 1:
        out += [f"{{implies: [{read(a)}, {read(b)}]}}" for a, b in zip(inputs, inputs[1:])]
    elif shape == 2:
        out += [f"{{or: [{read(a)}, {read(b, rng.random() < 0.3)}]}}"
                for a, b in zip(inputs, inputs[1:])]
    out += [condition(rng, inputs) for _ in range(rng.randrange(3))]
    return out


def template(rng):
    inputs, nodes, rules = [], [], []
    for c in range(rng.randrange(1, 5)):
        mine = [f"i{c}_{j}" for j in range(rng.randrange(2, 9))]
        inputs += mine
        for k in range(rng.randrange(1, 5)):
            node = f"    n{c}_{k}:\n      type: tosca.nodes.Root\n"
            if rng.random() < 0.9:
                node += f"      conditions: {condition(rng, mine)}\n"
            nodes.append(node)
        rules += constraints(rng, mine)
    text = "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n"
    text += "  variability:\n    inputs:\n"
    text += "".join(f"      {x}: {{type: boolean, default: {rng.choice(['true', 'false'])}}}\n"
                    for x in inputs)
    if rules:
        text += "    constraints:\n" + "".join(f"      - {r}\n" for r in rules)
    return text + "  node_templates:\n" + "".join(nodes)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    rng = random.Random(seed)
    compared = differing = 0
    for t in range(count):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(template(rng))
            path = f.name
        keep = False
        for options in (["--format", "json"], ["--details", "--random", "2", "--why"]):
            runs = [subprocess.run([v4t, "analyze", path] + options, capture_output=True,
                                   text=True, timeout=300) for v4t in (old, new)]
            compared += 1
            if [(r.returncode, r.stdout, r.stderr) for r in runs].count(
                    (runs[0].returncode, runs[0].stdout, runs[0].stderr)) != 2:
                differing += 1
                keep = True
                print(f"DIFF template {t} {' '.join(options)}: {path}")
        if not keep:
            os.unlink(path)
    print(f"{compared} compared, {differing} different")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
