#!/usr/bin/env python3
"""A clean clone's `.ci/run`, step by step: the table of BENCHMARKS.md's "Building and testing".

`.ci/run` starts each step with a line `== [12m34s] what the step does`, the time since the run began. This
script reads such a log and gives each step's duration (the next step's start minus its own; the last line,
"CI passed", ends the run). With --run it first makes the log: a clone of the checkout's HEAD under the work
folder, with ../shared beside it as a link to the data folder, run as CI runs it (`CI=true`).

    python3 bench/ci_steps.py LOG --commit SHA --out ci-steps.json     # read a log made elsewhere
    python3 bench/ci_steps.py --run --work target/benchmarks --out ci-steps.json

What it refuses: a log with no step lines, or one that does not end with "CI passed" (a failed run has no
durations to report), and a clone whose run exits non-zero (its exit is passed on, the log kept).
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEP = re.compile(r"^== \[(\d+)m(\d+)s\] (.*)$")


def steps_of(text):
    """[(what, start in seconds)] of a .ci/run log, in order; exits when the run did not pass."""
    steps = [(m.group(3), int(m.group(1)) * 60 + int(m.group(2)))
             for m in (STEP.match(line) for line in text.splitlines()) if m]
    if not steps:
        sys.exit("no step lines (`== [XmYs] …`) in the log: is it .ci/run's?")
    if steps[-1][0] != "CI passed":
        sys.exit(f"the run did not pass: its last step is {steps[-1][0]!r}")
    return steps


def summary(text, commit, date):
    """The JSON this script writes: each step's duration, the whole run's, and which commit ran."""
    steps = steps_of(text)
    rows = [{"step": what, "seconds": nxt - start} for (what, start), (_, nxt) in zip(steps, steps[1:])]
    return {"commit": commit, "date": date, "steps": rows, "total_seconds": steps[-1][1]}


def run_clean_clone(work, data, out):
    """Clones HEAD into `work`/ci/mend beside a link to the data folder's parent, runs .ci/run there, and
    writes the summary of its log to `out`."""
    root = os.path.join(os.path.abspath(work), "ci")
    clone = os.path.join(root, "mend")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    os.symlink(os.path.dirname(os.path.abspath(data)), os.path.join(root, "shared"))
    subprocess.run(["git", "clone", "-q", REPO, clone], check=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                            capture_output=True, text=True).stdout.strip()
    log = os.path.join(root, "ci.log")
    print(f"$ CI=true bash .ci/run  (a clean clone of {commit}; log in {os.path.relpath(log, REPO)})",
          file=sys.stderr)
    with open(log, "w", encoding="utf-8") as handle:
        done = subprocess.run(["bash", ".ci/run"], cwd=clone, env={**os.environ, "CI": "true"},
                              stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f".ci/run exited with {done.returncode}; see {log}")
    with open(log, encoding="utf-8") as handle:
        text = handle.read()
    write(summary(text, commit, datetime.date.today().isoformat()), out)


def write(result, out):
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")


def duration(seconds):
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def render(result):
    """The Markdown table of one run: every step that took a second or more, then the whole run."""
    # A step's line explains itself in parentheses; the table keeps what the step is.
    rows = [f"| {r['step'].split(' (')[0]} | {duration(r['seconds'])} |" for r in result["steps"]
            if r["seconds"] >= 1]
    rows.append(f"| **all** (`{result['commit']}`, {result['date']}) | **{duration(result['total_seconds'])}** "
                "(goal: 30 min) |")
    return "\n".join(["| step | time |", "| --- | --- |", *rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", nargs="?", help="a .ci/run log")
    ap.add_argument("--commit", help="the commit the log's run was of")
    ap.add_argument("--date", default=datetime.date.today().isoformat(), help="the day it ran")
    ap.add_argument("--run", action="store_true", help="make the log: .ci/run on a clean clone of HEAD")
    ap.add_argument("--work", default=os.path.join(REPO, "target", "benchmarks"))
    ap.add_argument("--data", default=os.path.join(os.path.dirname(REPO), "shared", "data"))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.run:
        run_clean_clone(args.work, args.data, args.out)
    elif args.log and args.commit:
        with open(args.log, encoding="utf-8") as handle:
            write(summary(handle.read(), args.commit, args.date), args.out)
    else:
        ap.error("give a LOG and its --commit, or --run")
    with open(args.out, encoding="utf-8") as handle:
        print(render(json.load(handle)))


if __name__ == "__main__":
    main()
