#!/usr/bin/env python3
"""What the drift check costs a run with healing off, as a ratio in one run.

mend checks every page against the wrapper's tree-grams in every heal mode,
`off` included (the selection against its locator ensemble, and a field that
matched at capture against nothing now).  This script measures what that
adds to `mend run --heal off`:

* project A: `wrappers/booksamillion.yaml` snapshotted on SWDE page 0000, so
  every pattern has a tree-gram with its locators;
* project B: the same, snapshotted as well, then its wrapper's `treegram:`
  lines and its tree-grams removed: the store and its health baseline stay,
  so a run records its health as A's does, and only the drift check differs;
* project C: the same wrapper, never snapshotted: no tree-gram, no store;

and runs `mend run W PAGES --heal off --format ndjson` over the 200 SWDE
booksamillion pages, alternating A, B and C, round after round (output to
/dev/null).  It reports the median wall time of each, the ratio A/B (the
drift check's cost; the goal is at most 1.10) and A/C (all that a snapshot
adds to a run: the drift check, opening the store and recording health).
Until B was added the script compared A with C, and called that the drift
check's cost.  It fails loudly when the pages or the wrapper are
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
        for name in ("checked", "store_only", "unchecked"):
            p = os.path.join(tmp, name)
            os.makedirs(os.path.join(p, "wrappers"))
            shutil.copy(wrapper, os.path.join(p, "wrappers"))
            projects[name] = p
        for name in ("checked", "store_only"):
            snap = subprocess.run(
                [mend, "snapshot", "wrappers/booksamillion.yaml", os.path.join(pages, "0000.htm")],
                cwd=projects[name],
                capture_output=True,
            )
            if snap.returncode != 0:
                sys.exit(f"mend snapshot failed: {snap.stderr.decode()[-500:]}")
        grams = os.path.join(projects["checked"], "treegrams")
        count = sum(len(f) for _, _, f in os.walk(grams))
        if count == 0:
            sys.exit("the snapshot wrote no tree-gram")
        # The store keeps its health baseline; the tree-grams go.
        shutil.rmtree(os.path.join(projects["store_only"], "treegrams"))
        w = os.path.join(projects["store_only"], "wrappers", "booksamillion.yaml")
        with open(w, encoding="utf-8") as f:
            lines = f.readlines()
        kept = [line for line in lines if not line.strip().startswith("treegram:")]
        if len(kept) != len(lines) - count:
            sys.exit("the snapshot did not name one tree-gram per pattern in the wrapper")
        with open(w, "w", encoding="utf-8") as f:
            f.writelines(kept)
        if not os.path.isdir(os.path.join(projects["store_only"], "wrappers", ".mend")):
            sys.exit("the snapshot wrote no store beside the wrapper")
        times = {"checked": [], "store_only": [], "unchecked": []}
        # One warm-up run each, so that the page cache holds the pages for both.
        for name in times:
            run_once(mend, projects[name], pages)
        for _ in range(args.rounds):
            for name in ("checked", "store_only", "unchecked"):
                times[name].append(run_once(mend, projects[name], pages))
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["checked"] / med["store_only"]
    snapshot_ratio = med["checked"] / med["unchecked"]
    result = {
        "pages": 200,
        "treegrams": count,
        "rounds": args.rounds,
        "median_s_with_drift_check": round(med["checked"], 4),
        "median_s_without": round(med["store_only"], 4),
        "median_s_never_snapshotted": round(med["unchecked"], 4),
        "ratio": round(ratio, 3),
        "ratio_to_never_snapshotted": round(snapshot_ratio, 3),
    }
    print(f"mend run --heal off, 200 SWDE booksamillion pages, {count} tree-grams, {args.rounds} rounds (medians)")
    print(f"  with the drift check:                    {med['checked'] * 1000:.1f} ms")
    print(f"  without (the store, no tree-grams):      {med['store_only'] * 1000:.1f} ms")
    print(f"  never snapshotted (no store, no grams):  {med['unchecked'] * 1000:.1f} ms")
    print(f"  drift check ratio: {ratio:.3f} (goal: at most 1.10)")
    print(f"  all a snapshot adds (drift check, store, health): {snapshot_ratio:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
