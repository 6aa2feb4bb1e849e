#!/usr/bin/env python3
"""What the drift check costs a run with healing off, as a ratio in one run.

mend checks every page against the wrapper's tree-grams in every heal mode,
`off` included (the selection against its locator ensemble, and a field that
matched at capture against nothing now).  This script measures what that
adds to `mend run --heal off`:

* project A: `wrappers/booksamillion.yaml` snapshotted on SWDE page 0000, so
  every pattern has a tree-gram with its locators;
* project B: the same wrapper, never snapshotted, so nothing is checked;

and runs `mend run W PAGES --heal off --format ndjson` over the 200 SWDE
booksamillion pages, alternating A and B, round after round (output to
/dev/null).  It reports the median wall time of each and the ratio A/B; the
goal is at most 1.10.  It fails loudly when the pages or the wrapper are
missing, or when a run exits with anything but 0 or 1.

Usage:
    python3 bench/drift_cost.py [--mend target/release/mend] [--rounds 7] [--data ../shared/data] [--json FILE]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_once(mend, project, pages):
    start = time.perf_counter()
    out = subprocess.run(
        [mend, "run", "wrappers/booksamillion.yaml", pages, "--heal", "off", "--format", "ndjson"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        sys.exit(f"mend run failed in {project} (exit {out.returncode}): {out.stderr.decode()[-500:]}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mend", default=os.path.join(ROOT, "target/release/mend"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--json")
    args = ap.parse_args()
    pages = os.path.abspath(os.path.join(args.data, "swde_subset/pages/book/book-booksamillion-2000"))
    if not os.path.isdir(pages) or len(os.listdir(pages)) < 200:
        sys.exit(f"the 200 SWDE booksamillion pages are not in {pages}")
    wrapper = os.path.join(ROOT, "wrappers/booksamillion.yaml")
    if not os.path.isfile(wrapper):
        sys.exit(f"no wrapper at {wrapper}")
    mend = os.path.abspath(args.mend)
    with tempfile.TemporaryDirectory() as tmp:
        projects = {}
        for name in ("checked", "unchecked"):
            p = os.path.join(tmp, name)
            os.makedirs(os.path.join(p, "wrappers"))
            shutil.copy(wrapper, os.path.join(p, "wrappers"))
            projects[name] = p
        snap = subprocess.run(
            [mend, "snapshot", "wrappers/booksamillion.yaml", os.path.join(pages, "0000.htm")],
            cwd=projects["checked"],
            capture_output=True,
        )
        if snap.returncode != 0:
            sys.exit(f"mend snapshot failed: {snap.stderr.decode()[-500:]}")
        grams = os.path.join(projects["checked"], "treegrams")
        count = sum(len(f) for _, _, f in os.walk(grams))
        if count == 0:
            sys.exit("the snapshot wrote no tree-gram")
        times = {"checked": [], "unchecked": []}
        # One warm-up run each, so that the page cache holds the pages for both.
        for name in times:
            run_once(mend, projects[name], pages)
        for _ in range(args.rounds):
            for name in ("checked", "unchecked"):
                times[name].append(run_once(mend, projects[name], pages))
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["checked"] / med["unchecked"]
    result = {
        "pages": 200,
        "treegrams": count,
        "rounds": args.rounds,
        "median_s_with_drift_check": round(med["checked"], 4),
        "median_s_without": round(med["unchecked"], 4),
        "ratio": round(ratio, 3),
    }
    print(f"mend run --heal off, 200 SWDE booksamillion pages, {count} tree-grams, {args.rounds} rounds (medians)")
    print(f"  with the drift check:    {med['checked'] * 1000:.0f} ms")
    print(f"  without (no tree-grams): {med['unchecked'] * 1000:.0f} ms")
    print(f"  ratio: {ratio:.3f} (goal: at most 1.10)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
