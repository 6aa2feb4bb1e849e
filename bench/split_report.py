#!/usr/bin/env python3
"""Healing results by split of sites, side by side: the tables of BENCHMARKS.md.

Reads harness runs (bench/heal_harness.py --json) of the wide corpus's cases, one run per split of sites
(bench/split.json), and prints one Markdown table per track and tool: correct / wrong / abstain in percent,
test sites first, then validation and train. Rows: the track as a whole, each severity of the mutations, the
deletions (cases whose target is gone: answered with a node is wrong), the unchanged controls, and the pages of
a site whose field is there or gone, and the record lists (bench/record_cases.py --split) by severity. For
mend, one more row per wide track counts its needless changes: of the cases whose field is there and whose
recorded XPath still gives it (the no-healing column's right answers), those where mend's run healed it to
another XPath or reported its drift (a right value a person is sent to look at; the goal is none). Test sites
are read here in aggregate only.

    python3 bench/split_report.py --run test=T.json --run validation=V.json --run train=R.json \\
        [--before test=B.json ...] [--out FILE]

`--before` adds mend's figures of another build (the one before a change) beside the test column.
"""

import argparse
import json

TOOLS = (("mend", "mend"), ("scrapling", "Scrapling 0.5"), ("stale", "no healing"), ("robust", "robust XPath"))


def rows_of(case):
    """The rows a case counts in."""
    out = [case["track"]]
    if case["track"] == "wide-mutation":
        if case.get("kind") == "control":
            out.append("wide-mutation: unchanged controls")
        else:
            out.append(f"wide-mutation: severity {case.get('severity')}")
            if case.get("severity") in (1, 2):
                out.append("wide-mutation: severities 1-2")
    if case["track"] == "records":  # a record case has a set of items, never a deleted target
        out.append("records: unchanged controls" if case.get("kind") == "control"
                   else f"records: severity {case.get('severity')}")
        return out
    if case.get("expected") is None:
        out.append(f"{case['track']}: target deleted")
    return out


def tally(cases, tool):
    counts = {}
    for case in cases:
        r = case.get(tool)
        if r is None or r.get("verdict") not in ("correct", "wrong", "abstain"):
            continue
        for row in rows_of(case):
            c = counts.setdefault(row, {"n": 0, "correct": 0, "wrong": 0, "abstain": 0})
            c["n"] += 1
            c[r["verdict"]] += 1
        stale = case.get("stale") or {}
        if tool == "mend" and case["track"].startswith("wide-") and case.get("expected") is not None \
                and stale.get("verdict") == "correct":
            f = counts.setdefault(f"{case['track']}: heals or drift where the XPath was right",
                                  {"n": 0, "flagged": 0})
            f["n"] += 1
            moved = r.get("final_xpath") not in (None, stale.get("xpath"))
            f["flagged"] += bool(r.get("violated")) or moved
    return counts


def cell(c):
    if not c or not c["n"]:
        return "-"
    n = c["n"]
    if "flagged" in c:
        return f"{c['flagged']} of {n}"
    return f"{100 * c['correct'] / n:.1f} / {100 * c['wrong'] / n:.1f} / {100 * c['abstain'] / n:.1f} ({n})"


def load(spec):
    name, path = spec.split("=", 1)
    with open(path, encoding="utf-8") as handle:
        return name, json.load(handle)["cases"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", action="append", required=True, help="SPLIT=harness.json, test first")
    ap.add_argument("--before", action="append", default=[], help="SPLIT=harness.json of the earlier build")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    runs = [load(s) for s in args.run]
    before = dict(load(s) for s in args.before)
    lines = []
    for tool, label in TOOLS:
        tallies = [(name, tally(cases, tool)) for name, cases in runs]
        if not any(t for _, t in tallies):
            continue
        heads = [f"{name} sites" for name, _ in tallies]
        extra = [f"{name} sites, before" for name in before] if tool == "mend" else []
        lines.append(f"**{label}**: correct / wrong / abstain %, (cases)")
        lines.append("")
        lines.append("| track | " + " | ".join(heads + extra) + " |")
        lines.append("| --- |" + " --- |" * (len(heads) + len(extra)))
        rows = sorted({r for _, t in tallies for r in t})
        old = {name: tally(cases, "mend") for name, cases in before.items()} if extra else {}
        for row in rows:
            cells = [cell(t.get(row)) for _, t in tallies] + [cell(o.get(row)) for o in old.values()]
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
