#!/usr/bin/env python3
"""Checks the TOSCA 1.3 sections the validator cites against the 1.3 text.

Usage:
    scripts/check-13-sections.py TOSCA-Simple-Profile-YAML-v1.3-os.html

The repository has no text of TOSCA Simple Profile in YAML 1.3 (the TOSCA
2.0 sections are checked by `crates/v4t-tosca/tests/spec_sections.rs`
against csd07). Given the OASIS Standard's HTML (or a text rendering of
it), this script checks that every `V13...` row of the section table in
`crates/v4t-tosca/src/section.rs` names a heading of the text: its number
followed by its title. It prints each row that does not, with the heading
the text has under that number, and exits with 1 if there is one.
"""

import html
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "crates/v4t-tosca/src/section.rs"
ROW = re.compile(r'(V13\w+) = Tosca13 "([0-9.]+)" "([^"]+)"')


def plain(path: pathlib.Path) -> str:
    """The text of the specification, whitespace collapsed."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if "<html" in text[:2000].lower():
        text = re.sub(r"(?is)<(script|style).*?</\1>", " ", text)
        text = re.sub(r"<[^>]+>", " ", text)
        text = html.unescape(text)
    return re.sub(r"\s+", " ", text)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    text = plain(pathlib.Path(sys.argv[1]))
    rows = ROW.findall(TABLE.read_text(encoding="utf-8"))
    if not rows:
        print(f"no V13 rows found in {TABLE}", file=sys.stderr)
        return 2
    wrong = 0
    for name, number, title in rows:
        words = r"\s*".join(re.escape(w) for w in title.split())
        if re.search(rf"(?<![0-9.]){re.escape(number)} {words}", text, re.I):
            continue
        wrong += 1
        found = re.findall(rf"(?<![0-9.§]){re.escape(number)} ([A-Z][^0-9]{{0,50}})", text)
        print(f"{name}: §{number} is not \"{title}\"; the text has: {found[:2]}")
    print(f"{len(rows) - wrong} of {len(rows)} TOSCA 1.3 sections match the text")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
