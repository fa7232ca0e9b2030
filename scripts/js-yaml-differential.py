#!/usr/bin/env python3
"""Reads random YAML documents with v4t's parser and with js-yaml 4.1 (the
reference's parser) and compares the values, key order included.

    scripts/js-yaml-differential.py [SEED] [COUNT] [--multi-line-flows]
    scripts/js-yaml-differential.py --files PATH...

The documents mix block and flow collections, plain, quoted and block
scalars of every resolvable kind (numbers in all bases, timestamps, `-0`,
`.nan`), tags, anchors, merge keys, comments, document markers and tabs;
with `--multi-line-flows` the flow collections also break across lines at
any indentation. js-yaml 4.1.0 is installed with npm into
~/.cache/v4t-dev/js-yaml-4.1.0 the first time (node and npm are needed);
v4t's side is `cargo run -p v4t-yaml --example canonical_json`.

With `--files`, the documents are every `.yaml` and `.yml` file under the
paths (UTF-8, under 2 MB) instead, named in the report.

Each difference is put in a class: `key order` (js-yaml's JavaScript
objects list keys that are array indices first) and the other classes
docs/spec-deviations.md lists are known; any other is printed with the
shortest documents that show it. Exit 0 when only known classes differ,
1 otherwise. It found the readings of under-indented flow collections, a
`:` before a flow value, a block entry without its key, `-0` and plain
scalars continued under-indented in a flow (CHANGELOG); on 15,352 YAML
files of sixteen public TOSCA projects (tosca-parser, heat-translator,
Tacker, xOpera, RADON, Vintner, the OASIS community suite, INDIGO, Yorc,
Alien4Cloud, ONAP SDC, Puccini, Turandot, Unfurl, TOSCAna, ARIA) only
known classes remain.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JS_YAML = os.path.expanduser("~/.cache/v4t-dev/js-yaml-4.1.0")

SCALARS = """0 -0 +0 +1 -1 1_000 0x1F 0X1f 0x_1 0o17 0O17 0o_7 0b101 0b_1 017 08
09.5 0.5 .5 1. -.5 +.5 1e3 1E-3 1.2e+3 1e 1_0.5 _1 1_ 1__0 +0x1 -0x1 +0b1 -0b1
.inf -.Inf +.INF .INF .nan .NaN .NAN NaN inf Infinity true True TRUE tRue false
False FALSE yes no on off y n null Null NULL nULL ~ nul 2023-01-01 2023-1-1
2001-12-14t21:59:43.10-05:00 2001-12-15T02:59:43.1Z 2001-12-15T02:59:43Z
2001-12-15T02:59:43.123456Z 2001-12-15T02:59:43+01 2023-13-01 2023-02-30
0001-01-01 12:30:00 1:20 1:2:3.5 0.1.2 v1.0 1.0.0-beta a b abc a_b a-b a.b a/b
a:b a::b http://x.y/z a#b a\\b a%b a@b a!b a&b a*b a|b a>b a'b a"b a?b é 日本 ☺""".split()
PUNCT = ["@x", "`x", "%x", "!x", "&x", "*x", "|", ">", "? x", ": x", "-x", "- x",
         "#x", ",x", "[x", "]x", "{x", "}x", "?x", ":x"]
QUOTED = ["''", '""', "'it''s'", '"a\\tb"', '"\\u263A"', '"\\x41"', '"\\U0001F600"',
          '"\\/"', '"\\e"', '"\\N"', '"\\_"', '"\\L"', '"\\P"', '"\\ "', "'a\\nb'",
          '"a\\nb"', '"1"', "'true'", '"null"', "'~'", '"2023-01-01"', '"\\0"',
          '"\\r"', "'#'", '"# x"']
TAGS = ["!!str", "!!int", "!!float", "!!null", "!!bool", "!!seq", "!!map",
        "!!timestamp", "!custom", "!", "!!set", "!!omap", "!!pairs",
        "!<tag:yaml.org,2002:str>"]
KEYS = ["a", "b", "c", "key", "1", "2", "10", "0", "01", "-1", "1.5", "true",
        "null", "~", "x y", "é", "'q'", '"d"', "''", "a:b", "2023-01-01", "0x1",
        "1e3", ".inf", "4294967295", "4294967294", "+1"]


def scalar(r):
    k = r.random()
    if k < 0.55:
        return r.choice(SCALARS)
    if k < 0.8:
        return r.choice(QUOTED)
    if k < 0.88:
        return r.choice(PUNCT)
    if k < 0.95:
        return r.choice(TAGS) + " " + r.choice(SCALARS + QUOTED)
    return r.choice(SCALARS) + " " + r.choice(SCALARS) + (" #c" if r.random() < 0.3 else "")


def flow(r, depth, multi):
    def brk():
        if multi and r.random() < 0.35:
            comment = "# c\n" + " " * r.randint(0, 4) if r.random() < 0.1 else ""
            return "\n" + " " * r.choice([0, 0, 1, 2, 2, 3, 4, 6]) + comment
        return " "
    k = r.random()
    if depth > 2 or k < 0.5:
        return scalar(r)
    if k < 0.75:
        items = [flow(r, depth + 1, multi) for _ in range(r.randint(0, 3))]
        trailing = "," + brk() if r.random() < 0.1 else ""
        return "[" + brk().lstrip(" ") + ("," + brk()).join(items) + trailing + brk().rstrip(" ") + "]"
    entries = []
    for _ in range(r.randint(0, 3)):
        if r.random() < 0.15:
            entries.append(r.choice(KEYS))
        else:
            entries.append(r.choice(KEYS) + ":" + brk() + flow(r, depth + 1, multi))
    return "{" + brk().lstrip(" ") + ("," + brk()).join(entries) + brk().rstrip(" ") + "}"


def block_scalar(r, indent):
    lines = [r.choice(["|", ">", "|-", ">-", "|+", ">+", "|2", ">1"])]
    for _ in range(r.randint(0, 3)):
        lines.append(" " * (indent + r.choice([0, 0, 1, 2])) + r.choice(SCALARS) if r.random() < 0.9 else "")
    return lines


def block(r, indent, depth, multi):
    """The lines of a block node at `indent`, or None for an inline value."""
    k = r.random()
    pad = " " * indent
    if depth > 3 or k < 0.25:
        return None
    if k < 0.55:
        lines = []
        for _ in range(r.randint(1, 4)):
            key = r.choice(KEYS)
            if r.random() < 0.05:
                key = "? " + key
            value = block(r, indent + r.choice([2, 2, 4, 1]), depth + 1, multi)
            if value is not None:
                lines.append(pad + key + ":" + (" &a" if r.random() < 0.05 else ""))
                lines.extend(value)
                continue
            x = r.random()
            if x < 0.1:
                lines.append(pad + key + ":")
            elif x < 0.17:
                lines.append(pad + key + ": " + r.choice(["&a ", "&b "]) + flow(r, 3, multi))
            elif x < 0.22:
                lines.append(pad + key + ": " + r.choice(["*a", "*b"]))
            elif x < 0.3:
                first, *rest = block_scalar(r, indent + 2)
                lines.append(pad + key + ": " + first)
                lines.extend(rest)
            else:
                lines.append(pad + key + ": " + flow(r, depth, multi))
        if r.random() < 0.05:
            lines.append(pad + "<<: " + r.choice(["*a", "[*a, *b]", "{x: 1}", "*b"]))
        if r.random() < 0.05:
            lines.append(pad + "# comment")
        return lines
    if k < 0.8:
        lines = []
        for _ in range(r.randint(1, 3)):
            value = block(r, indent + 2, depth + 1, multi)
            if value is None:
                lines.append(pad + "- " + flow(r, depth, multi))
            elif r.random() < 0.5 and not value[0].strip().startswith("-"):
                lines.append(pad + "- " + value[0][indent + 2:])
                lines.extend(value[1:])
            else:
                lines.append(pad + "-")
                lines.extend(value)
        return lines
    # A multi-line plain or quoted scalar.
    quote = r.choice(["", '"', "'"])
    words = [r.choice(["a", "b c", "d:e", "#f", "g -", "1", "- h"]) for _ in range(r.randint(2, 4))]
    lines = [pad + quote + words[0]] + [pad + r.choice(["", " ", "  "]) + w for w in words[1:]]
    lines[-1] += quote
    return lines


def document(r, multi):
    pre = ""
    if r.random() < 0.05:
        pre = r.choice(["---\n", "--- ", "%YAML 1.2\n---\n", "# c\n", "\ufeff"])
    lines = block(r, 0, 0, multi)
    body = flow(r, 0, multi) if lines is None else "\n".join(lines)
    post = r.choice(["\n...", "\n---\nx: 1", "\n# end"]) if r.random() < 0.04 else ""
    text = pre + body + post + ("\n" if r.random() < 0.9 else "")
    if r.random() < 0.03:
        text = text.replace("  ", "\t", 1)
    return text


def is_index(key):
    return re.fullmatch(r"0|[1-9][0-9]*", key) is not None and int(key) < 2**32 - 1


def js_order(value):
    """`value` with each map's keys in JavaScript's object order."""
    if isinstance(value, dict):
        entries = [[k, js_order(v)] for k, v in value["#map"]]
        indices = sorted((e for e in entries if is_index(e[0])), key=lambda e: int(e[0]))
        return {"#map": indices + [e for e in entries if not is_index(e[0])]}
    if isinstance(value, list):
        return [js_order(v) for v in value]
    return value


# Known differences (docs/spec-deviations.md, "YAML ..." rows, and texts no
# template holds), by what the document shows.
KNOWN = [
    ("content on the --- line", r"(^|\n)--- ?[^\s#\n]"),
    ("a document marker after an empty block scalar or a lone tag",
     r"([>|][-+0-9]*|^![^\s]*)\n(\.\.\.|---)"),
    ("merge keys of sequences or scalars", r"<<"),
    ("empty sequence entry before a less indented one", r"-[ ]*(#[^\n]*)?\n"),
    ("indicator in a flow collection",
     r"[\[,{:](\s|#[^\n]*)*[>|](\s|#[^\n]*)*[,\]}]|[\[{][^\]}]*[\[,{:](\s|#[^\n]*)*[>|]\s"),
    ("an explicit key in a flow sequence", r"\[[^\]]*\? "),
    ("a tab starting a block line", r"\n\t"),
    ("node properties on an empty key", r"(^|\n)\s*(-\s+)?[!&]\S* :"),
    ("`#` right after a bracket", r"[\[{,]#"),
    ("`!!binary`", r"!!binary"),
    ("blanks before a line break in a quoted scalar", r"[\"'][^\"'\n]*[ \t]\r?\n"),
    ("multi-line quoted scalar holding indicators", r"['\"][^'\"\n]*\n[^'\"]*[:\-#][^'\"]*['\"]"),
]


def files(paths):
    """(path, text) of every YAML file under `paths`."""
    for root in paths:
        found = [root] if os.path.isfile(root) else sorted(
            os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names)
        for path in found:
            # Dangling links are skipped like unreadable files.
            if not path.endswith((".yaml", ".yml")) or not os.path.isfile(path) \
                    or os.path.getsize(path) > 2_000_000:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            if "\0" not in text:
                yield path, text


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    multi = "--multi-line-flows" in sys.argv
    if not os.path.isdir(os.path.join(JS_YAML, "node_modules", "js-yaml")):
        os.makedirs(JS_YAML, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", JS_YAML, "js-yaml@4.1.0"], check=True)
    if "--files" in sys.argv:
        named = list(files(args))
        names, docs = [n for n, _ in named], [t for _, t in named]
        label = f"{len(docs)} files"
    else:
        seed = int(args[0]) if args else 1
        r = random.Random(seed)
        docs = [document(r, multi) for _ in range(int(args[1]) if len(args) > 1 else 3000)]
        names = [None] * len(docs)
        label = f"seed {seed}"
    count = len(docs)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "docs")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\0".join(docs))
        script = os.path.join(tmp, "canonical.js")
        with open(script, "w", encoding="utf-8") as f:
            f.write(CANONICAL_JS)
        js = subprocess.run(["node", script, path], capture_output=True, text=True, check=True,
                            env={**os.environ, "NODE_PATH": os.path.join(JS_YAML, "node_modules")})
        rs = subprocess.run(["cargo", "run", "-q", "--release", "-p", "v4t-yaml", "--example",
                             "canonical_json", path], capture_output=True, text=True, check=True, cwd=REPO)
    js_lines, rs_lines = js.stdout.split("\n")[:-1], rs.stdout.split("\n")[:-1]
    assert len(js_lines) == len(rs_lines) == count, (len(js_lines), len(rs_lines))
    classes = {}
    for name, doc, a, b in zip(names, docs, js_lines, rs_lines):
        if a == b:
            continue
        if js_order(json.loads(b)) == json.loads(a):
            kind = "key order"
        elif isinstance(json.loads(b), str) and (a == '"#error"' or isinstance(json.loads(a), str)):
            # js-yaml wants a document's lone plain scalar indented alike,
            # and folds a lone block scalar's comment-like lines.
            kind = "a multi-line scalar alone in the document"
        else:
            kind = next((n for n, pattern in KNOWN if re.search(pattern, doc)), None)
            kind = kind or ("NEW: " + ("js-yaml fails" if a == '"#error"' else
                                       "v4t fails" if b == '"#error"' else "values differ"))
        classes.setdefault(kind, []).append((name, doc, a, b))
    same = count - sum(len(v) for v in classes.values())
    print(f"{label}: {same} of {count} documents read alike")
    for kind, found in sorted(classes.items()):
        print(f"  {len(found):5}  {kind}")
    new = {n: v for n, v in classes.items() if n.startswith("NEW")}
    for kind, found in new.items():
        print(f"\n{kind}:")
        for name, doc, a, b in sorted(found, key=lambda x: len(x[1]))[:5]:
            print(f"  {name}" if name else f"  {doc!r}")
            print(f"    js-yaml: {a[:160]}\n    v4t:     {b[:160]}")
    return 1 if new else 0


CANONICAL_JS = r"""
const yaml = require('js-yaml');
const fs = require('fs');
const bits = x => { const b = Buffer.alloc(8); b.writeDoubleBE(x); return b.toString('hex'); };
function canonical(v) {
  // An empty document is undefined in js-yaml, null in v4t: alike here.
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return '"#n:' + bits(v) + '"';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return '"#d:' + bits(v.getTime()) + '"';
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (typeof v === 'object' && !(v instanceof Uint8Array)) {
    return '{"#map":[' + Object.keys(v).map(k => '[' + JSON.stringify(k) + ',' + canonical(v[k]) + ']').join(',') + ']}';
  }
  return '"#other"';
}
const out = fs.readFileSync(process.argv[2], 'utf8').split('\0').map(d => {
  try { return canonical(yaml.load(d)); } catch (e) { return '"#error"'; }
});
process.stdout.write(out.join('\n') + '\n');
"""

if __name__ == "__main__":
    sys.exit(main())
