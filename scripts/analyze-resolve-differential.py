#!/usr/bin/env python3
"""Checks `v4t analyze` against resolving every configuration one by one,
on random condition-rich templates.

    scripts/analyze-resolve-differential.py V4T [SEED] [COUNT]

The templates are `reference-differential.py`'s `ConditionTemplate`s (the
V4T intrinsic functions over every kind of element). For each, `v4t
analyze --format json` names the input domains; every configuration of
them is resolved with `v4t resolve --report`. Where the analysis says the
inputs determine the topology, it must agree with those resolutions:

* the number of valid configurations is the number that resolve;
* each failure's message and count are those of the failed resolutions,
  and the configurations it excludes fail too (those the constraints
  exclude with "Could not solve");
* a dead element is absent, a core element present, in every resolution
  that succeeds (the converse need not hold: where the conditions leave an
  element open, resolving breaks the tie and the analysis does not).

Where the optimiser decides, the failures before solving (evaluation
errors, "Could not solve"), the exclusions and the dead and core elements
must agree still.

Exit 0 when every template agrees, 1 otherwise (each disagreement is
printed with its template).
"""
import collections
import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile


# A configuration of every `ConditionTemplate` (its variability inputs).
ANY_CONFIGURATION = {"b1": False, "b2": True, "k": 1, "s": "x"}


def reference_differential():
    """reference-differential.py, for its `ConditionTemplate` and
    `first_error`."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "reference_differential", os.path.join(here, "reference-differential.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHARED = reference_differential()


def resolve(v4t, template, inputs, work):
    """The error message of resolving one configuration, or the ids of the
    elements present."""
    with open(f"{work}/inputs.json", "w", encoding="utf-8") as f:
        json.dump(inputs, f)
    report = f"{work}/report.json"
    if os.path.exists(report):
        os.remove(report)
    run = subprocess.run([v4t, "resolve", template, "--inputs", f"{work}/inputs.json",
                          "-o", f"{work}/out.yaml", "--report", report, "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        return SHARED.first_error(run.stderr)
    with open(report, encoding="utf-8") as f:
        return frozenset(e["id"] for e in json.load(f)["elements"] if e["present"])


def before_solving(message):
    """Whether a failure happens before solving (then it does not depend on
    which solution the optimiser picks)."""
    return (message in ("Could not solve", "Variability inputs constraints are violated")
            or message.startswith("Element"))


def compare(v4t, template, work):
    """The disagreements of the analysis of `template` with resolving each
    of its configurations, and whether the inputs determine its topology."""
    run = subprocess.run([v4t, "analyze", template, "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    if run.returncode not in (0, 1) or not run.stdout.strip():
        # The template itself fails (before any configuration): resolving
        # it under any of its configurations must fail with the same error.
        error = SHARED.first_error(run.stderr)
        failed = resolve(v4t, template, ANY_CONFIGURATION, work)
        return ([] if failed == error else [
            f"analyze fails with {error!r}, resolve with {failed!r}"]), True
    analysis = json.loads(run.stdout)
    # Where the optimiser decides, only what fails before solving, the
    # exclusions and the dead and core elements are compared.
    determined = analysis["determined"] and analysis["valid"]["exact"]
    names = [i["name"] for i in analysis["inputs"]]
    results = [resolve(v4t, template, dict(zip(names, values)), work)
               for values in itertools.product(*(i["values"] for i in analysis["inputs"]))]
    present = [r for r in results if isinstance(r, frozenset)]
    failed = collections.Counter(r for r in results if isinstance(r, str))
    problems = []
    if determined and analysis["valid"]["count"] != len(present):
        problems.append(f"valid: analyze {analysis['valid']['count']}, resolve {len(present)}")
    analysed = collections.Counter()
    for failure in analysis["failures"]:
        analysed[" ".join(failure["message"].split())] += failure["configurations"]["count"]
    if not determined:
        analysed = collections.Counter({m: n for m, n in analysed.items() if before_solving(m)})
        failed = collections.Counter({m: n for m, n in failed.items() if before_solving(m)})
    # What the analysis excludes (the input feature model, the
    # constraints) fails to resolve too: the constraints with "Could not
    # solve", the feature model with the input's own message.
    excluded = collections.Counter()
    for exclusion in analysis["excluded"]:
        excluded[exclusion["by"]] += exclusion["configurations"]["count"]
    rest = failed - analysed
    if analysed - failed or sum(rest.values()) != sum(excluded.values()) or (
            rest["Could not solve"] != excluded["constraints"]):
        problems.append(f"failures: analyze {dict(analysed)} and excluded {dict(excluded)}, "
                        f"resolve {dict(failed)}")
    for element in analysis["dead"]:
        if any(element in p for p in present):
            problems.append(f"dead but present: {element}")
    for element in analysis["core"]:
        if any(element not in p for p in present):
            problems.append(f"core but absent: {element}")
    return problems, determined


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    v4t = os.path.abspath(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    rng = random.Random(seed)
    work = tempfile.mkdtemp()
    counts = collections.Counter()
    for i in range(count):
        template = f"{work}/c{i}.yaml"
        with open(template, "w", encoding="utf-8") as f:
            f.write(SHARED.ConditionTemplate(rng).text())
        problems, determined = compare(v4t, template, work)
        if problems:
            counts["different"] += 1
            print(template)
            for problem in problems:
                print(f"  {problem}")
        else:
            counts["alike" if determined else "alike where the optimiser decides"] += 1
    print(", ".join(f"{n} {k}" for k, n in counts.items()), f"of {count} templates (files in {work})")
    sys.exit(1 if counts["different"] else 0)


if __name__ == "__main__":
    main()
