#!/usr/bin/env python3
"""Regenerates the healing tables of BENCHMARKS.md with one command.

A generated block of BENCHMARKS.md stands between two markers,

    <!-- generated: NAME -->
    ...
    <!-- end: NAME -->

and belongs to this script: it runs what measures the block, renders the table and writes it between the
markers. Everything outside the markers is prose a person writes and this script never touches.

Blocks (all from the same runs, so that the tools are compared on the same cases):

* ``heal-by-split``: mend on the wide corpus's cases, test sites first, then validation and train
  (bench/wide_cases.py, bench/heal_harness.py with Scrapling and the robust XPath beside mend);
* ``heal-peers-test``: mend, Scrapling 0.5, no healing and the robust XPath on test sites;
* ``records-by-split``: record lists of the same splits (bench/record_cases.py --split), mend by split and
  the robust XPath on test sites.

Runs go to target/benchmarks/.  With --reuse a step whose output is already there is not run again (a run
of the split's cases takes minutes; the whole set about half an hour on 2 cores).

    python3 bench/benchmarks.py [--reuse] [--only BLOCK ...] [--mend target/release/mend]
    python3 bench/benchmarks.py --check     # render from the runs in target/benchmarks; exit 1 on a difference

What it refuses: a block whose markers are missing or out of order (it says which, and writes nothing), and
a run that does not finish (the harness's exit is passed on). Test sites are read in aggregate only, as
everywhere in bench/.
"""

import argparse
import json
import os
import re
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from split_report import cell, tally  # noqa: E402

SPLITS = ("test", "validation", "train")
DOC = os.path.join(REPO, "BENCHMARKS.md")
BLOCKS = ("heal-by-split", "heal-peers-test", "records-by-split")


def run(argv, reuse, output):
    """Runs one step unless --reuse and its output is there (a split whose run is there makes no cases)."""
    if reuse and os.path.exists(output):
        print(f"reusing {os.path.relpath(output, REPO)}", file=sys.stderr)
        return
    print("$ " + " ".join(argv), file=sys.stderr)
    done = subprocess.run(argv, cwd=REPO)
    if done.returncode != 0:
        sys.exit(f"{argv[1]} exited with {done.returncode}")


def measure(args, work, needed):
    """The harness runs the blocks in `needed` read: each split's cases made, then run."""
    py = sys.executable
    common = ["--data", args.data]
    kinds = []  # (runs' name, case generator and its own arguments, the harness's own arguments)
    if {"heal-by-split", "heal-peers-test"} & set(needed):
        kinds.append(("heal", ["bench/wide_cases.py", "--jobs", "2"], ["--tracks", "wide-mutation,wide-pairs"]))
    if "records-by-split" in needed:
        kinds.append(("records", ["bench/record_cases.py"], ["--tracks", "records", "--no-scrapling"]))
    for name, generator, harness in kinds:
        for s in SPLITS:
            cases = os.path.join(work, f"{name}-cases", s)
            out = os.path.join(work, f"{name}-{s}.json")
            if args.reuse and os.path.exists(out):
                continue
            run([py, *generator, *common, "--split", s, "--out", cases, "--seed", "1", "--mend", args.mend],
                args.reuse, os.path.join(cases, "cases.jsonl"))
            run([py, "bench/heal_harness.py", *common, *harness, "--cases", os.path.join(cases, "cases.jsonl"),
                 "--mend", args.mend, "--jobs", "2", "--work", os.path.join(work, f"{name}-run-{s}"),
                 "--json", out, "--report", os.path.join(work, f"{name}-{s}.md")], args.reuse, out)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["cases"]


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def plain(c):
    """A cell without its case count."""
    text = cell(c)
    return text.rsplit(" (", 1)[0] if text != "-" else text


def render(block, work):
    """The Markdown of one block, from the runs in `work`."""
    if block == "heal-by-split":
        tallies = [tally(load(os.path.join(work, f"heal-{s}.json")), "mend") for s in SPLITS]
        rows = sorted({r for t in tallies for r in t})
        return table(["track", "test sites", "validation sites", "train sites"],
                     [[r] + [cell(t.get(r)) for t in tallies] for r in rows])
    if block == "heal-peers-test":
        cases = load(os.path.join(work, "heal-test.json"))
        tools = [tally(cases, t) for t in ("mend", "scrapling", "stale", "robust")]
        rows = sorted(tools[0])
        return table(["track (test sites)", "mend", "Scrapling 0.5", "no healing", "robust XPath"],
                     [[r] + [cell(t.get(r)) for t in tools] for r in rows])
    if block == "records-by-split":
        runs = [load(os.path.join(work, f"records-{s}.json")) for s in SPLITS]
        mend = [tally(c, "mend") for c in runs]
        robust = tally(runs[0], "robust")
        rows = sorted({r for t in mend for r in t})
        return table(["track", "mend, test sites", "validation sites", "train sites", "robust XPath, test sites"],
                     [[r] + [cell(t.get(r)) for t in mend] + [plain(robust.get(r))] for r in rows])
    raise ValueError(block)


def blocks_of(text):
    """{name: (start, end)} of each generated block's body, or exit naming a broken marker."""
    spans = {}
    for m in re.finditer(r"<!-- generated: ([a-z-]+) -->\n", text):
        name = m.group(1)
        end = text.find(f"<!-- end: {name} -->", m.end())
        if end < 0:
            sys.exit(f"BENCHMARKS.md: the block {name} has no end marker")
        spans[name] = (m.end(), end)
    return spans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", choices=BLOCKS, help="this block only (may repeat)")
    ap.add_argument("--reuse", action="store_true", help="keep a step's output when it is already there")
    ap.add_argument("--check", action="store_true",
                    help="render from the runs already in --work and exit 1 when a block differs; run nothing")
    ap.add_argument("--mend", default="target/release/mend")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(REPO), "shared", "data"))
    ap.add_argument("--work", default=os.path.join(REPO, "target", "benchmarks"))
    args = ap.parse_args()
    wanted = args.only or list(BLOCKS)
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    spans = blocks_of(text)
    missing = [b for b in wanted if b not in spans]
    if missing:
        sys.exit(f"BENCHMARKS.md has no markers for {', '.join(missing)}")
    if not args.check:
        os.makedirs(args.work, exist_ok=True)
        measure(args, args.work, wanted)
    differ = []
    # From the last block to the first, so that earlier offsets stay right.
    for name in sorted(wanted, key=lambda b: -spans[b][0]):
        start, end = spans[name]
        body = render(name, args.work) + "\n"
        if text[start:end] != body:
            differ.append(name)
            text = text[:start] + body + text[end:]
    if args.check:
        for name in differ:
            print(f"BENCHMARKS.md: {name} differs from the runs in {args.work}", file=sys.stderr)
        sys.exit(1 if differ else 0)
    with open(DOC, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"BENCHMARKS.md: {len(differ)} of {len(wanted)} blocks rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
