"""Generates variable service templates, exports their variability models
with `v4t analyze --export uvl|dimacs` and checks that flamapy (UVL) and a
PySAT model enumeration (DIMACS) count as many valid configurations as
`v4t analyze --format json` reports."""
import json
import random
import subprocess
import sys

from flamapy.interfaces.python.flamapy_feature_model import FLAMAFeatureModel
from pysat.solvers import Minisat22

V4T, WORK = sys.argv[1], sys.argv[2]


def template(rng, n):
    """A template with n inputs (booleans and one string), a feature model,
    constraints over inputs and nodes, and conditional nodes."""
    inputs = []
    for i in range(n):
        if i == n - 1 and n > 2:
            inputs.append(f"      i{i}: {{type: string}}")
        elif i >= 1 and rng.random() < 0.3:
            inputs.append(f"      i{i}: {{type: boolean, requires: i{rng.randrange(i)}}}")
        else:
            inputs.append(f"      i{i}: {{type: boolean}}")
    nodes = []
    for k in range(rng.randint(1, 4)):
        a = rng.randrange(n)
        if a == n - 1 and n > 2:
            cond = f"{{equal: [{{variability_input: i{a}}}, v{rng.randrange(2)}]}}"
        else:
            cond = f"{{variability_input: i{a}}}"
        nodes.append(f"    n{k}: {{type: t, conditions: {cond}}}")
    constraints = []
    if len(nodes) >= 2 and rng.random() < 0.6:
        constraints.append("      - {not: {and: [node.n0, node.n1]}}")
    if n >= 2 and rng.random() < 0.5:
        constraints.append(
            "      - {or: [{variability_input: i0}, {not: {variability_input: i1}}]}")
    text = ["tosca_definitions_version: tosca_variability_1_0",
            "topology_template:", "  variability:",
            "    options: {type_default_condition: true}", "    inputs:"]
    text += inputs
    if constraints:
        text += ["    constraints:"] + constraints
    text += ["  node_templates:"] + nodes
    return "\n".join(text) + "\n"


def v4t(path, *args):
    return subprocess.run([V4T, "analyze", path, *args], capture_output=True,
                          text=True, check=False).stdout


def dimacs_count(text):
    clauses, n = [], 0
    for line in text.splitlines():
        if line.startswith("p cnf"):
            n = int(line.split()[2])
        elif line and not line.startswith("c"):
            clauses.append([int(x) for x in line.split()[:-1]])
    with Minisat22(bootstrap_with=clauses) as s:
        return sum(1 for _ in s.enum_models())


def main():
    rng = random.Random(27)
    checked = 0
    for round_ in range(12):
        n = rng.randint(2, 7)
        path = f"{WORK}/t{round_}.yaml"
        with open(path, "w") as f:
            f.write(template(rng, n))
        valid = json.loads(v4t(path, "--format", "json"))["valid"]
        assert valid["exact"], path
        with open(f"{WORK}/t{round_}.uvl", "w") as f:
            f.write(v4t(path, "--export", "uvl"))
        uvl = FLAMAFeatureModel(f"{WORK}/t{round_}.uvl").configurations_number()
        cnf = dimacs_count(v4t(path, "--export", "dimacs"))
        print(f"template {round_}: {n} inputs, v4t {valid['count']}, "
              f"flamapy (UVL) {uvl}, DIMACS {cnf}")
        if not uvl == cnf == valid["count"]:
            print(open(path).read(), file=sys.stderr)
            sys.exit(f"error: counts differ for {path}")
        checked += 1
    print(f"flamapy: {checked} models counted alike")


main()
