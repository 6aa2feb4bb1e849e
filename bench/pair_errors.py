#!/usr/bin/env python3
"""Where mend's wrong answers on pages of one site come from: the table of BENCHMARKS.md.

Reads harness runs (bench/heal_harness.py --json) of the wide corpus's cases, one run per split of sites, and
the case manifests they ran (bench/wide_cases.py), and sorts each wrong answer of the `wide-pairs` track:

* by who gave it: the recorded XPath's own selection, kept (no heal replaced it and no drift was reported), or
  a heal;
* by what it holds: the truth's value written a little differently (after case, spacing, "&" and curly
  quotes: one text holds the other, or difflib matches them to 0.8 or more), or another text.

An answer written a little differently is the same field's value in another element of page B: a title in the header
where the truth names the recipe card's, whose text adds or drops a word. The harness judges a node right only
when its text is the truth's exactly (whitespace and case aside), and this script changes no verdict: it only
says how many of the wrong ones are of that kind. Test sites are read here in aggregate only.

    python3 bench/pair_errors.py --run test=T.json --run validation=V.json --run train=R.json \\
        --cases target/cases/test/cases.jsonl --cases ... [--out FILE]
"""

import argparse
import difflib
import json
import os

import lxml.html

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# How alike two texts must be (difflib's ratio) to be one value written a little differently.
NEAR = 0.8


def norm(text):
    """Case, spacing, "&" and curly apostrophes aside."""
    return " ".join(text.replace("&", "and").replace("\u2019", "'").split()).lower()


def text_at(doc, path):
    """The normalised text of the element at `path`, or None."""
    found = doc.xpath(path) if path else []
    return norm(found[0].text_content()) if found else None


def near(got, want):
    """Whether `got` is `want` written a little differently."""
    if not got or not want:
        return False
    return got in want or want in got or difflib.SequenceMatcher(None, got, want).ratio() >= NEAR


def wrong_answers(run, manifest):
    """(n pair cases, [(who, what)]) of one harness run: who gave each wrong answer and what it holds."""
    pairs = [c for c in run["cases"] if c["track"] == "wide-pairs"]
    out = []
    for case in pairs:
        mend = case.get("mend") or {}
        if mend.get("verdict") != "wrong":
            continue
        who = "heal" if mend.get("healed") and mend.get("new_xpath") else "kept"
        page = lxml.html.parse(os.path.join(REPO, manifest[case["id"]]["new"])).getroot()
        selected = (mend.get("selected") or [None])[0]
        want = text_at(page, case["expected"]) if case.get("expected") else None
        out.append((who, "near" if near(text_at(page, selected), want) else "other"))
    return len(pairs), out


HEAD = ["split", "pair cases", "wrong", "the recorded XPath's own, kept", "a heal's",
        "the truth's value written a little differently"]


def read_manifests(paths):
    """{case id: manifest row} of the case manifests at `paths`."""
    manifest = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                manifest[row["id"]] = row
    return manifest


def row(name, run, manifest):
    """The table's row of one split's harness run."""
    n, wrong = wrong_answers(run, manifest)
    kept = sum(1 for who, _ in wrong if who == "kept")
    near_value = sum(1 for _, what in wrong if what == "near")
    return [name, str(n), str(len(wrong)), str(kept), str(len(wrong) - kept), str(near_value)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="SPLIT=harness JSON")
    parser.add_argument("--cases", action="append", required=True, help="a case manifest the runs used")
    parser.add_argument("--out")
    args = parser.parse_args()
    manifest = read_manifests(args.cases)
    lines = ["| " + " | ".join(HEAD) + " |", "|" + " --- |" * len(HEAD)]
    for spec in args.run:
        name, path = spec.split("=", 1)
        with open(path, encoding="utf-8") as handle:
            lines.append("| " + " | ".join(row(name, json.load(handle), manifest)) + " |")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
