#!/usr/bin/env python3
"""Heal latency, mend against Scrapling, on pages of about 3,000, 15,000 and 60,000 elements.

The pages are built from one real page of the Zyte article benchmark
(../shared/data/zyte_article_extraction_benchmark/html/ID.html.gz): its
<body> content is repeated until the page has about the wanted number of
elements (in mend's tree).  The target is a leaf with a class and text that
no other element has, near the end of the original body, and the last of its
tag among its siblings, whose class no other element has; it is kept in the last copy only (its twins are
removed from the other copies, so there is one right answer).  The old page
has it as is; on the new page its class is renamed and it is wrapped in a new
<div>, so its old absolute XPath selects nothing and both tools must heal.

mend: a wrapper whose one pattern is the target's canonical path
(`extract: normalized`, `constraints: {min: 1, max: 1}`) is snapshotted on
the old page into a store of its own, which keeps the old page; then,
alternately, with a fresh copy of the snapshotted wrapper and a fresh copy of
that store each time,

    mend run W NEW --heal off  --format json --store S --quiet
    mend run W NEW --heal auto --format json --store S --quiet

are timed as whole processes.  `off` parses, extracts and reports the
violation; `auto` also heals and rewrites the wrapper.  auto - off is the
heal's own cost.

Scrapling (parser only): Selector(old, adaptive=True) saves the target's
absolute XPath (lxml's tree) with auto_save; on the new page the plain XPath
returns nothing and `xpath(path, identifier="target", adaptive=True)`
relocates; that call is timed (parsing is timed apart).

Each side's answer is checked: the target carries data-truth="1" in a
judging copy of each page that no tool sees (attributes do not change the
tree, so paths in the judging copy are paths in the page).

Medians over --reps repetitions (20 by default), and for mend the 95th
percentile (nearest rank) of the heal and of the whole `auto` process (Scrapling's repetitions stop early at a size
once they have used --scrapling-budget seconds; at least one is run).

Usage:
    python3 bench/heal_speed.py [--sizes 3000,15000,60000] [--reps N] [--page ID]
        [--scrapling-budget S] [--no-scrapling] [--mend PATH] [--data DIR] [--out FILE]
"""

import argparse
import copy
import gzip
import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lxml.html
import yaml

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_PAGE = "39d5c43beb60605c3eec760c99500e62e7bd71ebbe4ae05edf382125e1b0b80a"
LEAF_TAGS = {"a", "p", "span", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "button", "label", "em", "strong"}
SKIP = {"script", "style", "noscript", "template", "svg", "head"}
WRAPPER = """name: speed
adapt: {{mode: auto, min_pages: 1}}
patterns:
  - name: target
    xpath: {xpath}
    extract: normalized
    constraints: {{min: 1, max: 1}}
"""


def norm(s):
    return " ".join((s or "").split())


def choose_target(doc):
    """The last qualifying leaf of the body: a class and a text no other element has, the last of its
    tag among its siblings."""
    texts, classes = {}, {}
    for el in doc.iter():
        if isinstance(el.tag, str):
            t = norm(el.text_content())
            texts[t] = texts.get(t, 0) + 1
            c = norm(el.get("class"))
            classes[c] = classes.get(c, 0) + 1
    body = doc.find("body")
    for el in reversed(list(body.iter())):
        if not isinstance(el.tag, str) or el.tag not in LEAF_TAGS or len(el):
            continue
        if not (el.get("class") or "").strip() or len(norm(el.text_content())) < 3:
            continue
        if texts.get(norm(el.text_content())) != 1 or classes.get(norm(el.get("class"))) != 1:
            continue
        if any(a.tag in SKIP for a in el.iterancestors()):
            continue
        parent = el.getparent()
        if [c for c in parent if c.tag == el.tag][-1] is not el:
            continue
        return el
    raise SystemExit("no suitable target on the page")


def build(raw, repeats):
    """(old, new, old_truth, new_truth) page texts with the body content repeated."""
    doc = lxml.html.document_fromstring(raw)
    target = choose_target(doc)
    body = doc.find("body")
    # Copies without the target, before the original content.
    parent, index, tail = target.getparent(), target.getparent().index(target), target.tail
    parent.remove(target)
    originals = list(body)
    copies = []
    for _ in range(repeats - 1):
        copies += [copy.deepcopy(c) for c in originals]
    target.tail = tail
    parent.insert(index, target)
    for i, c in enumerate(copies):
        body.insert(i, c)

    def text(mark):
        if mark:
            target.set("data-truth", "1")
        out = lxml.html.tostring(doc, encoding="unicode", doctype="<!DOCTYPE html>")
        target.attrib.pop("data-truth", None)
        return out

    old, old_truth = text(False), text(True)
    # The change: the class renamed, the element wrapped in a new div.
    target.set("class", " ".join(f"{c}-v2" for c in target.get("class").split()))
    wrap = lxml.html.Element("div", {"class": "moved-block"})
    i = parent.index(target)
    wrap.tail, target.tail = target.tail, None
    parent.insert(i, wrap)
    wrap.append(target)
    new, new_truth = text(False), text(True)
    return old, new, old_truth, new_truth, norm(target.text_content()), target.tag


class Mend:
    def __init__(self, binary):
        self.bin = binary

    def run(self, *args):
        return subprocess.run([self.bin, *map(str, args)], capture_output=True, text=True)

    def one(self, page, expr):
        p = self.run("xpath", page, expr, "--json")
        # Exit 1 is a selection of nothing: still an answer.
        if p.returncode not in (0, 1):
            raise SystemExit(f"mend xpath {page} {expr}: {p.stderr}")
        return json.loads(p.stdout)


def p95(values):
    """The 95th percentile by nearest rank: the value that 95% of the runs do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def timed(fn):
    t = time.perf_counter()
    r = fn()
    return (time.perf_counter() - t) * 1e3, r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="3000,15000,60000")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--page", default=DEFAULT_PAGE, help="a Zyte page id (file name without .html.gz)")
    ap.add_argument("--scrapling-budget", type=float, default=400.0,
                    help="seconds of Scrapling relocation per size before its repetitions stop")
    ap.add_argument("--no-scrapling", dest="scrapling", action="store_false")
    ap.add_argument("--mend", default=os.environ.get("MEND", str(REPO / "target" / "release" / "mend")))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(REPO / "target" / "bench" / "heal_speed.json"))
    ap.add_argument("--keep", help="keep the generated pages in this folder")
    args = ap.parse_args()
    if not Path(args.mend).is_file():
        ap.error(f"no mend binary at {args.mend}: build it (cargo build --release --bin mend) or pass --mend PATH")
    if args.scrapling:
        from scrapling.parser import Selector
        import scrapling

        logging.getLogger("scrapling").setLevel(logging.ERROR)
    mend = Mend(args.mend)
    raw = gzip.decompress(
        (Path(args.data) / "zyte_article_extraction_benchmark" / "html" / f"{args.page}.html.gz").read_bytes())
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="heal-speed-"))
    tmp.mkdir(parents=True, exist_ok=True)

    # Elements per copy of the body, to choose the number of copies.
    probe = tmp / "probe.html"
    o1 = build(raw, 1)
    o2 = build(raw, 2)
    probe.write_text(o1[0])
    n1 = mend.one(probe, "count(//*)")["value"]
    probe.write_text(o2[0])
    n2 = mend.one(probe, "count(//*)")["value"]
    per_copy = n2 - n1
    print(f"page {args.page}: {n1} elements, {per_copy} a body copy; target <{o1[5]}> {o1[4][:60]!r}",
          file=sys.stderr)

    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        repeats = max(1, round((size - (n1 - per_copy)) / per_copy))
        old, new, old_truth, new_truth, text, tag = build(raw, repeats)
        d = tmp / str(size)
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        files = {}
        for name, body in (("old", old), ("new", new), ("old_truth", old_truth), ("new_truth", new_truth)):
            files[name] = d / f"{name}.html"
            files[name].write_text(body, encoding="utf-8")
        elements = mend.one(files["new"], "count(//*)")["value"]
        target = mend.one(files["old_truth"], "//*[@data-truth]")["nodes"][0]["path"]
        expected = mend.one(files["new_truth"], "//*[@data-truth]")["nodes"][0]["path"]
        row = {"size": size, "copies": repeats, "elements": elements, "bytes": len(new.encode()),
               "target": target, "expected": expected}
        print(f"\n~{size}: {elements} elements ({repeats} copies, {len(new.encode()) / 1e6:.1f} MB); "
              f"target {target}", file=sys.stderr)

        # mend
        w0 = d / "wrapper.yaml"
        w0.write_text(WRAPPER.format(xpath=json.dumps(target)))
        # The capture's store keeps the old page, which a heal reads: each run starts from a copy of it,
        # as a user's runs share the store beside the wrapper.
        capture = d / "capture.db"
        for f in d.glob("capture.db*"):
            f.unlink()
        p = mend.run("snapshot", w0, files["old"], "--store", capture)
        if p.returncode != 0:
            raise SystemExit(f"mend snapshot: {p.stderr}")
        snap = w0.read_text()
        off, auto, final = [], [], None
        for rep in range(args.reps):
            for mode in ("off", "auto"):
                w = d / f"run-{mode}.yaml"
                w.write_text(snap)
                store = d / f"store-{mode}.db"
                for f in d.glob(f"store-{mode}.db*"):
                    f.unlink()
                for f in d.glob("capture.db*"):
                    shutil.copyfile(f, d / f.name.replace("capture.db", f"store-{mode}.db"))
                ms, p = timed(lambda: mend.run("run", w, files["new"], "--heal", mode, "--format", "json",
                                               "--store", store, "--quiet"))
                if p.returncode not in (0, 1):
                    raise SystemExit(f"mend run --heal {mode}: {p.stderr}")
                (off if mode == "off" else auto).append(ms)
                if mode == "auto" and rep == 0:
                    out = json.loads(p.stdout)
                    a = (out.get("adaptations") or [{}])[-1]
                    final = yaml.safe_load(w.read_text())["patterns"][0]["xpath"]
                    sel = [n["path"] for n in mend.one(files["new"], final).get("nodes", [])]
                    row["mend_status"] = a.get("status")
                    row["mend_reason"] = a.get("reason")
                    row["mend_new_xpath"] = a.get("new_xpath")
                    row["mend_correct"] = sel == [expected]
                if mode == "off" and rep == 0:
                    out = json.loads(p.stdout)
                    if not any(v.get("pattern") == "target" for v in out.get("violations", [])):
                        raise SystemExit("the old XPath still matches on the new page: no heal to time")
            print(f"  mend rep {rep + 1}: off {off[-1]:.0f} ms, auto {auto[-1]:.0f} ms", file=sys.stderr)
        row["mend_off_ms"] = statistics.median(off)
        row["mend_auto_ms"] = statistics.median(auto)
        heal = [a - b for a, b in zip(auto, off)]
        row["mend_heal_ms"] = statistics.median(heal)
        row["mend_heal_p95_ms"] = p95(heal)
        row["mend_auto_p95_ms"] = p95(auto)
        row["mend_runs"] = {"off": off, "auto": auto}

        # Scrapling
        if args.scrapling:
            truth_old = Selector(old_truth.encode())._root
            el = truth_old.xpath("//*[@data-truth]")[0]
            path = el.getroottree().getpath(el)
            truth_new = Selector(new_truth.encode())._root
            el = truth_new.xpath("//*[@data-truth]")[0]
            want = el.getroottree().getpath(el)
            storage = {"storage_file": str(d / "scrapling.db"), "url": None}
            s_old = Selector(old.encode(), adaptive=True, storage_args=storage)
            if not s_old.xpath(path, identifier="target", auto_save=True):
                raise SystemExit(f"Scrapling: {path} selects nothing on the old page")
            parse, reloc = [], []
            spent = 0.0
            for rep in range(args.reps):
                ms_parse, s_new = timed(lambda: Selector(new.encode(), adaptive=True, storage_args=storage))
                if s_new.xpath(path):
                    raise SystemExit("Scrapling: the old XPath still matches on the new page")
                ms, found = timed(lambda: s_new.xpath(path, identifier="target", adaptive=True))
                parse.append(ms_parse)
                reloc.append(ms)
                spent += ms / 1e3
                if rep == 0:
                    got = [f._root.getroottree().getpath(f._root) for f in found]
                    row["scrapling_returned"] = len(got)
                    row["scrapling_correct"] = bool(got) and got[0] == want
                print(f"  Scrapling rep {rep + 1}: parse {ms_parse:.0f} ms, relocation {ms:.0f} ms", file=sys.stderr)
                if spent >= args.scrapling_budget:
                    break
            row["scrapling_parse_ms"] = statistics.median(parse)
            row["scrapling_reloc_ms"] = statistics.median(reloc)
            row["scrapling_reps"] = len(reloc)
            row["scrapling_runs"] = reloc
        rows.append(row)

    lines = [
        "| elements | MB | mend --heal off | mend --heal auto (p95) | mend heal, auto - off (p95) | mend right |"
        + (" Scrapling parse | Scrapling relocation (reps) | Scrapling right | relocation / mend heal |"
           " relocation / mend auto |" if args.scrapling else ""),
        "| --- " * (6 + (5 if args.scrapling else 0)) + "|",
    ]
    for r in rows:
        line = (f"| {r['elements']:,} | {r['bytes'] / 1e6:.1f} | {r['mend_off_ms']:.0f} ms"
                f" | {r['mend_auto_ms']:.0f} ms ({r['mend_auto_p95_ms']:.0f}) | {r['mend_heal_ms']:.0f} ms ({r['mend_heal_p95_ms']:.0f})"
                f" | {'yes' if r['mend_correct'] else 'no (' + str(r['mend_status']) + ')'} |")
        if args.scrapling:
            heal = max(r["mend_heal_ms"], 1e-3)
            line += (f" {r['scrapling_parse_ms']:.0f} ms | {r['scrapling_reloc_ms']:,.0f} ms ({r['scrapling_reps']}) |"
                     f" {'yes' if r['scrapling_correct'] else 'no'} |"
                     f" {r['scrapling_reloc_ms'] / heal:,.0f}x | {r['scrapling_reloc_ms'] / r['mend_auto_ms']:,.1f}x |")
        lines.append(line)
    print(f"\nHeal latency, medians (p95) of {args.reps} repetitions; page {args.page}; target <{tag}> {text[:50]!r}, "
          "class renamed and wrapped in a new div.\n")
    print("\n".join(lines))
    result = {"page": args.page, "reps": args.reps, "mend": args.mend, "machine": platform.platform(),
              "scrapling": scrapling.__version__ if args.scrapling else None, "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
