#!/usr/bin/env python3
"""Analyses random product lines with two builds of v4t and compares what
they write, byte for byte (exit code, output and errors).

    scripts/analyze-differential.py [--values] OLD/v4t NEW/v4t [SEED] [COUNT]

Each template has one to four independent components of two to eight
boolean inputs, nodes whose conditions read them, and constraints in the
shapes that make `analyze` search within one part (issue 23): rings of
implications (inputs equal to each other, some rings broken), chains of
implications, chains of `or`s, and single conditions. With `--values`,
each has instead one to three string inputs compared with 3 to 40
values, up to three booleans, nodes and conditional relations whose
conditions compare them (`equal`, negated, in `or` and `and`), and
sometimes constraints: the inputs of many values `analyze` walks value
by value (issue 23, thirtieth round). Each template is
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


def values_template(rng):
    strings = [(f"s{i}", rng.randint(3, 40)) for i in range(rng.randint(1, 3))]
    booleans = [f"b{i}" for i in range(rng.randint(0, 3))]

    def compare():
        name, values = rng.choice(strings)
        return f"{{equal: [{read(name)}, v{rng.randrange(values + 2)}]}}"

    def cond():
        kind = rng.randrange(5)
        if kind == 0:
            return f"{{not: {compare()}}}"
        if kind == 1 and booleans:
            return f"{{or: [{compare()}, {read(rng.choice(booleans))}]}}"
        if kind == 2:
            return f"{{and: [{compare()}, {compare()}]}}"
        return compare()

    text = "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n"
    text += "  variability:\n    inputs:\n"
    text += "".join(f"      {name}: {{type: string, default: v0}}\n" for name, _ in strings)
    text += "".join(f"      {b}: {{type: boolean, default: false}}\n" for b in booleans)
    if rng.randrange(3) == 0:
        text += "    constraints:\n"
        text += "".join(f"      - {cond()}\n" for _ in range(rng.randint(1, 2)))
    text += "  node_templates:\n"
    for j in range(rng.randint(2, 30)):
        text += f"    n{j}:\n      type: tosca.nodes.Root\n      conditions: {cond()}\n"
        if j > 0 and rng.randrange(4) == 0:
            text += "      requirements:\n"
            text += f"        - host: {{node: n{rng.randrange(j)}, conditions: {cond()}}}\n"
    return text


def main():
    args = [a for a in sys.argv[1:] if a != "--values"]
    make = values_template if "--values" in sys.argv[1:] else template
    if len(args) < 2:
        sys.exit(__doc__)
    old, new = args[0], args[1]
    seed = int(args[2]) if len(args) > 2 else 1
    count = int(args[3]) if len(args) > 3 else 200
    rng = random.Random(seed)
    compared = differing = 0
    for t in range(count):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(make(rng))
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
