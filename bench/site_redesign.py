#!/usr/bin/env python3
"""One redesign across a whole site: what `--heal propose` costs against
`--heal off`, how many store entries it leaves, and whether `--jobs` changes
the output.

The 200 christianbook pages of ../shared/data/swde_subset are redesigned the
same way (one site-wide set of changes, of the kinds of bench/mutate.py: a
banner inserted before the product block, which shifts every positional
step below it, and the title wrapped in a new element). A wrapper of four
fields with the absolute XPaths of page 0000 is captured on the original
page 0000 (`mend snapshot`), then run over the 200 redesigned pages:

- `--heal off` and `--heal propose` alternate, `--rounds` times each, each
  propose run with a fresh store; the medians and their ratio are printed;
- the entries a propose run leaves in the store are counted, against the
  distinct (pattern, new XPath) pairs of its output;
- the outputs of `--jobs 1` and `--jobs 2` (propose, fresh stores) are
  compared byte for byte.

Exit 1 when the ratio is over --max-ratio, when the store holds more entries
than there are distinct proposals, or when the outputs differ.

    python3 bench/site_redesign.py --mend target/release/mend [--json FILE]

`--json FILE` writes the figures (bench/benchmarks.py renders them as
BENCHMARKS.md's site-redesign block).
"""

import argparse
import copy
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import lxml.html

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "swde_subset")
SITE = "pages/book/book-christianbook-2000"
FIELDS = ("title", "author", "isbn_13", "publisher")


def targets():
    """The absolute XPath of each field on page 0000."""
    out = {}
    with open(os.path.join(DATA, "derived_targets.jsonl"), encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t["site"] == "christianbook" and t["page"] == "0000" and t["attribute"] in FIELDS:
                # The targets were found with lxml, which does not insert
                # <tbody> as HTML5 parsing (and mend) does.
                out[t["attribute"]] = t["xpaths"][0].replace("/table/tr", "/table/tbody/tr")
    missing = [f for f in FIELDS if f not in out]
    if missing:
        sys.exit(f"no target on page 0000 for {missing}")
    return out


def wrapper_text(xpaths):
    lines = ["name: christianbook", "adapt: {mode: propose}", "patterns:"]
    for field in FIELDS:
        lines.append(f"  - name: {field}")
        lines.append(f"    xpath: \"{xpaths[field]}\"")
        lines.append("    extract: normalized")
        lines.append("    constraints: {min: 1, max: 1}")
    return "\n".join(lines) + "\n"


def redesign(path, out):
    """The site-wide change, the same on every page."""
    root = lxml.html.parse(path).getroot()
    for td in root.xpath("/html/body/div/div[2]/table/tr/td[3]"):
        banner = lxml.html.fromstring('<div class="promo-banner"><p>Free shipping on orders over $35</p></div>')
        td.insert(0, banner)
    for h1 in root.xpath("//h1"):
        wrap = lxml.html.Element("div")
        wrap.set("class", "title-wrap")
        parent = h1.getparent()
        parent.replace(h1, wrap)
        wrap.append(h1)
    with open(out, "wb") as f:
        f.write(lxml.html.tostring(root, encoding="utf-8", doctype="<!DOCTYPE html>"))


def run(mend, wrapper, pages, heal, store, jobs=None):
    args = [mend, "run", wrapper, pages, "--heal", heal, "--quiet", "--store", store]
    if jobs:
        args += ["--jobs", str(jobs)]
    started = time.perf_counter()
    p = subprocess.run(args, capture_output=True)
    elapsed = time.perf_counter() - started
    if p.returncode not in (0, 1):
        sys.exit(f"mend run --heal {heal} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
    return elapsed, p.stdout


# Each fresh store draws its own tag, which a run's output names beside each
# adaptation's id (`"store":"3fa9c2"`, `_proposals` as `3fa9c2:17`).
STORE_TAG = re.compile(rb'("store":"|")[0-9a-f]{6}(?=[":])')


def without_store_tags(output):
    return STORE_TAG.sub(rb"\1TAG", output)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mend", default=os.path.join(HERE, "..", "target", "release", "mend"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-ratio", type=float, default=2.0)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    src = os.path.join(DATA, SITE)
    if not os.path.isdir(src):
        sys.exit(f"missing {src}: ../shared/data must sit beside the checkout")
    work = tempfile.mkdtemp(prefix="mend-redesign-")
    try:
        pages = os.path.join(work, "pages")
        os.makedirs(pages)
        names = sorted(n for n in os.listdir(src) if n.endswith(".htm"))
        for n in names:
            redesign(os.path.join(src, n), os.path.join(pages, n))
        wrapper = os.path.join(work, "christianbook.yaml")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(wrapper_text(targets()))
        snap = subprocess.run([args.mend, "snapshot", wrapper, os.path.join(src, "0000.htm"),
                               "--store", os.path.join(work, "snap.db")], capture_output=True)
        if snap.returncode != 0:
            sys.exit(f"mend snapshot failed: {snap.stderr.decode(errors='replace')}")
        off, propose = [], []
        for i in range(args.rounds):
            off.append(run(args.mend, wrapper, pages, "off", os.path.join(work, f"off{i}.db"))[0])
            t, out = run(args.mend, wrapper, pages, "propose", os.path.join(work, f"p{i}.db"))
            propose.append(t)
        proposals = set()
        for line in out.decode().splitlines():
            for a in json.loads(line)["adaptations"]:
                if a["status"] == "proposed":
                    proposals.add((a["pattern"], a["new_xpath"]))
        log = subprocess.run([args.mend, "log", "--json", "--store", os.path.join(work, f"p{args.rounds - 1}.db")],
                             capture_output=True)
        entries = json.loads(log.stdout)
        stored = [e for e in entries if e["status"] == "proposed"]
        pages_per = sorted((e["pattern"], e.get("page_count", 1)) for e in stored)
        _, one = run(args.mend, wrapper, pages, "propose", os.path.join(work, "j1.db"), jobs=1)
        _, two = run(args.mend, wrapper, pages, "propose", os.path.join(work, "j2.db"), jobs=2)
        one, two = without_store_tags(one), without_store_tags(two)
        ratio = statistics.median(propose) / statistics.median(off)
        print(f"pages: {len(names)} redesigned christianbook pages, fields: {', '.join(FIELDS)}")
        print(f"--heal off:     median {statistics.median(off):.3f} s over {args.rounds} runs")
        print(f"--heal propose: median {statistics.median(propose):.3f} s over {args.rounds} runs")
        print(f"ratio propose/off: {ratio:.2f}x (goal <= {args.max_ratio}x)")
        print(f"distinct proposals in the output: {len(proposals)}; proposals in the store: {len(stored)} "
              f"(pages each: {pages_per}); entries of any status: {len(entries)}")
        print(f"--jobs 1 and --jobs 2 outputs identical: {one == two}")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"pages": len(names), "fields": FIELDS, "rounds": args.rounds,
                           "off_median": statistics.median(off), "propose_median": statistics.median(propose),
                           "ratio": ratio, "max_ratio": args.max_ratio, "proposals_in_output": len(proposals),
                           "proposals_stored": pages_per, "entries": len(entries), "jobs_identical": one == two},
                          f, indent=1)
                f.write("\n")
        bad = ratio > args.max_ratio or len(stored) > len(proposals) or one != two
        return 1 if bad else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
