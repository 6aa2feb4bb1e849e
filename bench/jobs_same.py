#!/usr/bin/env python3
"""Does the output of `mend run` depend on `--jobs`? Checked on the healing
harness's cases (manifests written by bench/mutate.py and
bench/record_cases.py).

For each case, the one-pattern wrapper of bench/heal_harness.py (the
record-list wrapper on the records track) is captured on the case's old page
(`mend snapshot`), and the project is copied twice. Each copy then runs
`mend run --heal auto` over the same page list, the new page twice among
copies of the old one (so that a page reuses another's heal, and a heal is
checked against pages the old XPath served), once with `--jobs 1` and once
with `--jobs 2`. Standard output, the exit code and the wrapper file left
behind must be identical.

    python3 bench/jobs_same.py --cases target/mut-quick/cases.jsonl --mend target/release/mend

Exit 1 when any case differs (each is listed), 0 otherwise.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import heal_harness  # noqa: E402  (the wrappers the harness writes)


def wrapper_for(case):
    if case["track"] == "records":
        return heal_harness.WRAPPER_RECORDS.format(xpath=json.dumps(case["target"]))
    return heal_harness.WRAPPER.format(xpath=json.dumps(case["target"]))


def run_copy(mend, base, dest, pages, jobs):
    shutil.copytree(base, dest)
    w = dest / "w.yaml"
    p = subprocess.run([mend, "run", str(w), *pages, "--heal", "auto", "--quiet", "--jobs", str(jobs),
                        "--store", str(dest / "store.db")], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, w.read_text()


def check(mend, case, work):
    d = Path(tempfile.mkdtemp(dir=work))
    try:
        base = d / "base"
        base.mkdir()
        (base / "w.yaml").write_text(wrapper_for(case))
        p = subprocess.run([mend, "snapshot", str(base / "w.yaml"), case["old"], "--force",
                            "--store", str(base / "store.db")], capture_output=True, text=True)
        if p.returncode != 0:
            return case["id"], "snapshot failed", None
        # Distinct names, so that the served pages a heal is checked against
        # are chosen by name as they would be on a site.
        pages = []
        for i, role in enumerate(["old", "new", "old", "old", "new", "old"]):
            dst = base / f"page-{i}.html"
            shutil.copyfile(case[role], dst)
            pages.append(str(d / "{copy}" / dst.name))
        one = run_copy(mend, base, d / "one", [x.replace("{copy}", "one") for x in pages], 1)
        two = run_copy(mend, base, d / "two", [x.replace("{copy}", "two") for x in pages], 2)
        # The page names differ only by the copy's folder.
        same = one[0] == two[0] and one[1].replace("/one/", "/x/") == two[1].replace("/two/", "/x/") \
            and one[2] == two[2]
        healed = '"new_xpath":"' in one[1]
        verdict = ("same" if same else "different") + (" (healed)" if healed else " (no heal)")
        return case["id"], verdict, None if same else (one, two)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", action="append", required=True, help="a case manifest (JSONL); may repeat")
    ap.add_argument("--mend", default=str(HERE.parent / "target" / "release" / "mend"))
    ap.add_argument("--limit", type=int, default=None, help="at most N cases of each manifest")
    ap.add_argument("--workers", type=int, default=1, help="cases checked at once")
    args = ap.parse_args()
    cases = []
    for manifest in args.cases:
        with open(manifest, encoding="utf-8") as f:
            read = [json.loads(line) for line in f if line.strip()]
        cases += read[: args.limit] if args.limit else read
    work = tempfile.mkdtemp(prefix="mend-jobs-")
    try:
        with ThreadPoolExecutor(args.workers) as pool:
            results = list(pool.map(lambda c: check(args.mend, c, work), cases))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = {}
    for _, verdict, _ in results:
        counts[verdict] = counts.get(verdict, 0) + 1
    print(f"cases: {len(results)}; " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    differing = [(i, d) for i, v, d in results if v.startswith("different")]
    for case_id, (one, two) in differing[:10]:
        print(f"different: {case_id}: exit {one[0]} vs {two[0]}", file=sys.stderr)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
