#!/usr/bin/env python3
"""Healing, mend against Scrapling, on the same cases in one run.

A *case* is one element to find again after a page changed: the old page, the
new page, the element's canonical path on the old page in mend's tree
(`target`) and the true element's path on the new page (`expected`, or null
when the element is gone).  Cases are JSON lines:

    {"id": ..., "track": "google|mutants|swde|mutation", "kind": ..., "severity": 0,
     "old": "old.html", "new": "new.html", "target": "/html/body/...",
     "expected": "/html/body/..." | null, "extract": "text", "source": ..., "elements": 1234}

The google, mutants and swde tracks are generated here from ../shared/data
(manifests are written to the work dir); `--cases FILE` reads more (the
mutation track of bench/mutate.py).  Relative page paths in a manifest are
resolved against the manifest's folder, then the current folder.

mend, for each case: a wrapper with one pattern `target` (the target's path,
`extract: normalized`, `constraints: {min: 1, max: 1}`, `adapt: {mode: auto}`)
is snapshotted on the old page, then

    mend run W NEW --heal auto --format json --store DIR/store.db

and the wrapper's XPath after the run is evaluated on the new page with
`mend xpath NEW XPATH --json`.  correct = exactly the expected node (or, when
the element is gone, nothing, or the pattern left violated); wrong = any
other node, the stale XPath silently selecting another node included;
abstain = nothing although the element is there.  An XPath that still selects
several nodes while the run reports the pattern violated counts as abstain:
mend flagged it instead of handing back a value.

Scrapling (parser only), for each case: the target's absolute XPath in lxml's
tree of the old page is saved with `Selector(old, adaptive=True,
storage_args={storage_file: DIR/scrapling.db})`.xpath(path,
identifier="target", auto_save=True); on the new page the same XPath is tried
plainly and, when it returns nothing, with adaptive=True (Scrapling's own
flow: relocate() scores every element against the saved fingerprint and
returns the best-scoring ones).  The first element returned is judged.

Judging Scrapling needs the expected node in lxml's tree, which is not mend's
(libxml2 does not build HTML5 trees: no inserted <tbody>, other repairs).
Both trees are tied to the *source*: a judging copy of every page gets an
attribute data-mendcase="N" inserted into each start tag (N counting start
tags).  Attributes never change either parser's tree, so the judging copy
parses to the same shape as the page each tool sees; mend's path of the
expected node on the judging copy gives N (`PATH/@data-mendcase`), and the
element Scrapling returns (found on the unmarked page) is looked up at the
same lxml path in the judging copy to read its N.  Neither tool ever sees the
marks.  Nodes that come from no start tag (implied html/head/body/tbody) have
no mark; then the lxml path itself is compared with mend's path.

The swde track (same template, other data): per site and field, a wrapper
whose pattern is the field's XPath on page 0000 (derived_targets.jsonl,
re-resolved in mend's tree through the same marks) is snapshotted on 0000
and run with --heal auto on each of pages 0001-0199 (one run per page, each
with a fresh copy of the snapshotted wrapper).  correct = the extracted value
equals the ground truth and no heal was triggered; abstain = no value; wrong
= a wrong value, or a heal triggered at all (counted apart as "heal, right
value").  Ground truth values are SWDE text nodes; the value compared is the
string-value of the element owning that text node (derived_targets.jsonl),
so "ISBN-13: 978..." is right for ": 978...".  Values are compared with all
whitespace removed and case folded, on both sides.  Scrapling saves the
selector on 0000 and uses it plainly, then adaptively, on each page.

Usage:
    python3 bench/heal_harness.py [--tracks google,mutants,swde,mutation] [--cases FILE]...
        [--quick] [--jobs N] [--no-scrapling] [--mutant-cap N] [--mend PATH]
        [--data DIR] [--work DIR] [--report FILE] [--json FILE]
"""

import argparse
import concurrent.futures
import gzip
import hashlib
import itertools
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
MARK = "data-mendcase"
TAG_RE = re.compile(rb"<([A-Za-z][A-Za-z0-9:_-]*)")
SIGNATURE_RE = re.compile(r'\s+signature="[^"]*"')
CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_-]+)""", re.I)
TRACKS = ("google", "mutants", "swde", "mutation")
BUCKETS = ((3_000, "<3k"), (15_000, "3k-15k"), (60_000, "15k-60k"), (float("inf"), ">60k"))

WRAPPER = """name: case
adapt: {{mode: auto}}
patterns:
  - name: target
    xpath: {xpath}
    extract: normalized
    constraints: {{min: 1, max: 1}}
"""

# A field of a detail-page template may repeat on some pages (several
# authors): the SWDE wrappers ask for at least one value and take the first,
# as Scrapling's first match is taken.
WRAPPER_SWDE = """name: case
adapt: {{mode: auto}}
patterns:
  - name: target
    xpath: {xpath}
    extract: normalized
    constraints: {{min: 1}}
"""

GOOGLE_VERSIONS = ("2018-01-01", "2021-01-01", "2023-01-01")
MUTANT_SITES = {
    "linkedin": ("linkedin.html", "linkedin_mutant.html"),
    "youtube": ("youtube.html", "youtube_mutant.html"),
    "baidu": ("baidu_original.html", "baidu_mutant.html"),
}
# Leaves with text and interactive elements, outside code and <noscript>.
MUTANT_TARGETS = (
    "//body//*[@signature][not(ancestor-or-self::script or ancestor-or-self::style"
    " or ancestor-or-self::template or ancestor-or-self::noscript)]"
    "[(not(*) and normalize-space()) or self::a or self::button or self::input"
    " or self::select or self::textarea]/@signature"
)
SWDE_SITES = ("booksamillion", "christianbook")
SWDE_FIELDS = ("title", "author", "isbn_13", "publisher", "publication_date")


# ---------------------------------------------------------------- helpers


def read_bytes(path):
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


def sniff_encoding(data):
    m = CHARSET_RE.search(data[:4096])
    if m:
        try:
            return __import__("codecs").lookup(m.group(1).decode("ascii")).name
        except LookupError:
            pass
    return "utf-8"


def digest(text):
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def mark_bytes(data):
    """The judging copy: data-mendcase="N" in every start tag."""
    counter = itertools.count(1)
    attr = MARK.encode()
    return TAG_RE.sub(lambda m: b"<%s %s=\"%d\"" % (m.group(1), attr, next(counter)), data)


def squash(value):
    """Values compared without any whitespace, case folded."""
    return None if value is None else "".join(str(value).split()).casefold()


def pct(n, total):
    return 100.0 * n / total if total else 0.0


def quantile(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def bucket(elements):
    if elements is None:
        return "?"
    for limit, name in BUCKETS:
        if elements < limit:
            return name
    return BUCKETS[-1][1]


class Mend:
    def __init__(self, binary):
        self.bin = str(binary)

    def run(self, *args):
        return subprocess.run([self.bin, *map(str, args)], capture_output=True, text=True)

    def xpath_batch(self, page, exprs, scratch):
        """One JSON answer per expression, one process for all of them."""
        if not exprs:
            return []
        scratch.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text("\n".join(exprs) + "\n")
        p = self.run("xpath", page, "--exprs", scratch, "--json")
        if p.returncode != 0:
            raise RuntimeError(f"mend xpath {page} --exprs failed: {p.stderr.strip()}")
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        if len(lines) != len(exprs):
            raise RuntimeError(f"mend xpath {page}: {len(exprs)} expressions, {len(lines)} answers")
        return lines

    def xpath(self, page, expr):
        p = self.run("xpath", page, expr, "--json")
        if p.returncode != 0:
            return None
        return json.loads(p.stdout)


# ---------------------------------------------------------------- pages


class Pages:
    """Judging copies, element counts and path/mark look-ups, one mend process per page."""

    def __init__(self, mend, work):
        self.mend = mend
        self.work = work
        self.info = {}

    def page(self, path):
        path = str(Path(path).resolve())
        if path in self.info:
            return self.info[path]
        data = read_bytes(path)
        marked = self.work / "marked" / f"{digest(path)}.html"
        marked.parent.mkdir(parents=True, exist_ok=True)
        marked.write_bytes(mark_bytes(data))
        counts = self.mend.xpath_batch(path, ["count(//*)"], self.work / "scratch" / f"{digest(path)}.count")
        counts_m = self.mend.xpath_batch(marked, ["count(//*)"], self.work / "scratch" / f"{digest(path)}.countm")
        n, nm = counts[0]["value"], counts_m[0]["value"]
        info = {"path": path, "marked": str(marked), "elements": int(n), "encoding": sniff_encoding(data),
                "judgeable": n == nm}
        if n != nm:
            print(f"warning: {path}: the judging copy parses to {nm} elements, the page to {n}; "
                  "Scrapling is not judged on it", file=sys.stderr)
        self.info[path] = info
        return info

    def marks(self, path, mend_paths):
        """For each of mend's paths: (number of nodes it selects, the mark of the first or None)."""
        info = self.page(path)
        exprs = []
        for p in mend_paths:
            exprs += [f"count({p})", f"({p})[1]/@{MARK}"]
        out = self.mend.xpath_batch(info["marked"], exprs, self.work / "scratch" / f"{digest(path)}.marks")
        res = {}
        for i, p in enumerate(mend_paths):
            n = int(out[2 * i]["value"])
            nodes = out[2 * i + 1].get("nodes") or []
            res[p] = (n, nodes[0]["value"] if nodes else None)
        return res

    def paths_of_marks(self, path, marks):
        """mend's path of the element carrying each mark."""
        info = self.page(path)
        exprs = [f"//*[@{MARK}='{m}']" for m in marks]
        out = self.mend.xpath_batch(info["marked"], exprs, self.work / "scratch" / f"{digest(path)}.paths")
        return {m: ((o.get("nodes") or [{}])[0].get("path")) for m, o in zip(marks, out)}


# ---------------------------------------------------------------- built-in tracks


def google_cases(mend, pages, data, work):
    gdir = data / "similocator_google_ebay" / "google"
    truth = json.loads((gdir / "ground_truth_xpaths.json").read_text())
    files = {v: str(gdir / v / "index.html") for v in GOOGLE_VERSIONS}
    resolved = {}
    for v in GOOGLE_VERSIONS:
        exprs = [e[v] for e in truth["elements"]]
        out = mend.xpath_batch(files[v], exprs, work / "scratch" / f"google-{v}.exprs")
        for e, o in zip(truth["elements"], out):
            nodes = o.get("nodes") or []
            if len(nodes) != 1:
                raise SystemExit(f"google {v} #{e['element_index']}: {e[v]} selects {len(nodes)} nodes in mend's tree")
            resolved[(v, e["element_index"])] = nodes[0]["path"]
    cases = []
    for a, b in ((0, 1), (1, 2), (0, 2)):
        va, vb = GOOGLE_VERSIONS[a], GOOGLE_VERSIONS[b]
        for e in truth["elements"]:
            i = e["element_index"]
            cases.append({
                "id": f"google/{va[:4]}-{vb[:4]}/{i}", "track": "google", "kind": f"{va[:4]}->{vb[:4]}",
                "severity": b - a, "old": files[va], "new": files[vb],
                "target": resolved[(va, i)], "expected": resolved[(vb, i)], "extract": "text",
                "source": "google", "elements": pages.page(files[vb])["elements"],
            })
    return cases


def mutant_cases(mend, pages, data, work, cap):
    mdir = data / "sftm_mutants"
    cases = []
    for site, (orig, mutated) in MUTANT_SITES.items():
        out = work / "pages" / "mutants"
        out.mkdir(parents=True, exist_ok=True)
        stripped = {}
        for role, name in (("old", orig), ("new", mutated)):
            text = (mdir / name).read_text(encoding="utf-8")
            dst = out / f"{site}_{role}.html"
            dst.write_text(SIGNATURE_RE.sub("", text), encoding="utf-8")
            stripped[role] = str(dst)
        old_t = mend.xpath_batch(str(mdir / orig), [MUTANT_TARGETS], work / "scratch" / f"{site}.t")[0]["nodes"]
        new_all = mend.xpath_batch(str(mdir / mutated), ["//*/@signature"], work / "scratch" / f"{site}.m")[0]["nodes"]
        where = {n["value"]: n["path"].rsplit("/@", 1)[0] for n in new_all}
        site_cases = []
        for n in old_t:
            target = n["path"].rsplit("/@", 1)[0]
            expected = where.get(n["value"])
            if expected is None:
                continue
            kind = "changed" if expected != target else "stayed"
            site_cases.append({
                "id": f"mutants/{site}/{n['value']}", "track": "mutants", "kind": kind,
                "severity": 0, "old": stripped["old"], "new": stripped["new"],
                "target": target, "expected": expected, "extract": "text", "source": site,
                "elements": pages.page(stripped["new"])["elements"],
            })
        # The cap keeps cases whose path changed first (the ones that break a scraper).
        site_cases.sort(key=lambda c: c["kind"] != "changed")
        cases += site_cases[:cap] if cap is not None else site_cases
    return cases


def swde_cases(mend, pages, data, work, fields, page_count):
    sdir = data / "swde_subset"
    rows = [json.loads(l) for l in (sdir / "derived_targets.jsonl").read_text().splitlines() if l.strip()]
    by = {}
    for r in rows:
        by.setdefault((r["site"], r["attribute"], r["page"]), []).append(r)
    import lxml.html

    trees = {}

    def tree(file):
        if file not in trees:
            trees[file] = lxml.html.fromstring(read_bytes(sdir / file))
        return trees[file]

    cases, units = [], []
    for site, field in fields:
        pdir = sdir / "pages" / "book" / f"book-{site}-2000"
        first = by.get((site, field, "0000"))
        if not first:
            print(f"warning: swde {site}/{field}: no target on page 0000", file=sys.stderr)
            continue
        lxml_path = first[0]["xpaths"][0]
        page0 = str(pdir / "0000.htm")
        # Re-resolve the lxml path in mend's tree through the judging copy's marks.
        info0 = pages.page(page0)
        marked0 = lxml.html.fromstring(Path(info0["marked"]).read_bytes())
        els = marked0.xpath(lxml_path)
        mark = els[0].get(MARK) if els else None
        mend_path = pages.paths_of_marks(page0, [mark])[mark] if mark else None
        if not mend_path:
            print(f"warning: swde {site}/{field}: {lxml_path} not found in mend's tree", file=sys.stderr)
            continue
        unit = {"site": site, "field": field, "page0": page0, "mend_path": mend_path, "lxml_path": lxml_path,
                "dir": str(work / "swde" / f"{site}-{field}")}
        units.append(unit)
        for i in range(1, page_count + 1):
            pid = f"{i:04d}"
            file = f"pages/book/book-{site}-2000/{pid}.htm"
            truth = by.get((site, field, pid))
            expected_values = None
            if truth:
                t = tree(file)
                expected_values = sorted({squash(e.xpath("string(.)")) for r in truth for x in r["xpaths"]
                                          for e in t.xpath(x)})
            new = str(sdir / file)
            cases.append({
                "id": f"swde/{site}/{field}/{pid}", "track": "swde", "kind": field, "severity": 0,
                "old": page0, "new": new, "target": mend_path, "expected": None,
                "expected_values": expected_values, "extract": "normalized", "source": site,
                "elements": pages.page(new)["elements"], "unit": unit["dir"], "lxml_path": lxml_path,
            })
    return cases, units


def prepare_swde_unit(mend, unit, scrapling):
    """Snapshot the unit's wrapper on page 0000; save Scrapling's fingerprint there."""
    d = Path(unit["dir"])
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    w = d / "wrapper.yaml"
    w.write_text(WRAPPER_SWDE.format(xpath=json.dumps(unit["mend_path"])))
    p = mend.run("snapshot", w, unit["page0"])
    if p.returncode != 0:
        raise SystemExit(f"mend snapshot {w} {unit['page0']}: {p.stderr.strip()}")
    if scrapling:
        from scrapling.core.storage import SQLiteStorageSystem
        from scrapling.parser import Selector

        data = read_bytes(unit["page0"])
        sel = Selector(data, encoding=sniff_encoding(data), adaptive=True,
                       storage_args={"storage_file": str(d / "scrapling.db"), "url": None})
        if not sel.xpath(unit["lxml_path"], identifier="target", auto_save=True):
            raise SystemExit(f"Scrapling: {unit['lxml_path']} selects nothing on {unit['page0']}")
        # Close the storage here: workers forked later must open their own connection.
        del sel
        SQLiteStorageSystem.cache_clear()


def load_manifest(path):
    base = Path(path).resolve().parent
    cases = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        c = json.loads(line)
        for key in ("id", "track", "old", "new", "target"):
            if key not in c:
                raise SystemExit(f"{path}:{n}: the case has no {key!r}")
        for key in ("old", "new"):
            p = Path(c[key])
            if not p.is_absolute():
                p = base / p if (base / p).exists() else Path.cwd() / p
            c[key] = str(p.resolve())
        c.setdefault("kind", "")
        c.setdefault("severity", 0)
        c.setdefault("expected", None)
        c.setdefault("source", "")
        cases.append(c)
    return cases


# ---------------------------------------------------------------- one case (in a worker)

_marked_cache = {}


def _scrapling():
    from scrapling.parser import Selector

    logging.getLogger("scrapling").setLevel(logging.ERROR)
    return Selector


def _marked_root(path, encoding):
    if path not in _marked_cache:
        if len(_marked_cache) > 8:
            _marked_cache.clear()
        Selector = _scrapling()
        _marked_cache[path] = Selector(Path(path).read_bytes(), encoding=encoding)._root
    return _marked_cache[path]


def lxml_path(el):
    return el.getroottree().getpath(el)


def mend_side(mend, case, d):
    res = {"verdict": None}
    w = d / "wrapper.yaml"
    t0 = time.perf_counter()
    if case["track"] == "swde":
        # A fresh copy of the snapshotted wrapper beside it (its tree-gram path is relative).
        pid = case["id"].rsplit("/", 1)[1]
        w = Path(case["unit"]) / f"page-{pid}.yaml"
        w.write_text(Path(case["unit"], "wrapper.yaml").read_text())
        store = Path(case["unit"]) / f"store-{pid}.db"
    else:
        w.write_text(WRAPPER.format(xpath=json.dumps(case["target"])))
        p = mend.run("snapshot", w, case["old"])
        if p.returncode != 0:
            res.update(verdict="error", note=f"snapshot: {p.stderr.strip()[:300]}")
            return res
        store = d / "store.db"
    t1 = time.perf_counter()
    p = mend.run("run", w, case["new"], "--heal", "auto", "--format", "json", "--store", store, "--quiet")
    t2 = time.perf_counter()
    res["run_ms"] = (t2 - t1) * 1e3
    res["pair_ms"] = (t2 - t0) * 1e3
    if p.returncode not in (0, 1):
        res.update(verdict="error", note=f"run exit {p.returncode}: {p.stderr.strip()[:300]}")
        return res
    out = json.loads(p.stdout)
    adaptations = [a for a in out.get("adaptations", []) if a.get("pattern") == "target"]
    violated = any(v.get("pattern") == "target" for v in out.get("violations", []))
    a = adaptations[-1] if adaptations else {}
    res.update(
        healed=bool(adaptations), status=a.get("status"), score=a.get("score"), runner_up=a.get("runner_up"),
        similarity=a.get("similarity"), algorithm=a.get("algorithm"), reason=a.get("reason"),
        new_xpath=a.get("new_xpath"), violated=violated,
    )
    if case["track"] == "swde":
        value = (out.get("records") or [{}])[0].get("target")
        if isinstance(value, list):
            value = value[0] if value else None
        res["value"] = value
        judge_value(res, value, case["expected_values"], bool(adaptations))
        return res
    final = yaml.safe_load(w.read_text())["patterns"][0]["xpath"]
    res["final_xpath"] = final
    sel = mend.xpath(case["new"], final)
    selected = [n["path"] for n in (sel or {}).get("nodes", [])]
    res["selected"] = selected[:5]
    expected = case["expected"]
    if expected is None:
        ok = not selected or violated
        res["verdict"] = "correct" if ok else "wrong"
    elif selected == [expected]:
        res["verdict"] = "correct"
    elif not selected or (len(selected) > 1 and violated):
        res["verdict"] = "abstain"
    else:
        res["verdict"] = "wrong"
    res["answer_ok"] = res["verdict"] == "correct" if selected else None
    return res


def judge_value(res, value, expected_values, healed):
    got = squash(value) if value not in (None, "") else None
    res["value_ok"] = (got is None) if expected_values is None else (got in expected_values)
    res["answer_ok"] = res["value_ok"] if got is not None else None
    if got is None:
        res["verdict"] = "correct" if expected_values is None else "abstain"
    elif res["value_ok"] and not healed:
        res["verdict"] = "correct"
    else:
        res["verdict"] = "wrong"


def scrapling_side(case, d, judge):
    Selector = _scrapling()
    res = {"verdict": None}
    storage = {"storage_file": str(d / "scrapling.db"), "url": None}
    new_data = read_bytes(case["new"])
    enc_new = judge["new_encoding"]
    if case["track"] == "swde":
        storage["storage_file"] = str(Path(case["unit"]) / "scrapling.db")
        path = case["lxml_path"]
    else:
        old_data = read_bytes(case["old"])
        old_root = _marked_root(judge["old_marked"], judge["old_encoding"])
        path = None
        if judge["target_mark"] is not None:
            els = old_root.xpath(f"//*[@{MARK}=$m]", m=judge["target_mark"])
            path = lxml_path(els[0]) if els else None
        elif old_root.xpath(case["target"]):
            path = case["target"]
        if path is None:
            res.update(verdict="error", note="the target is not in lxml's tree of the old page")
            return res
        old = Selector(old_data, encoding=judge["old_encoding"], adaptive=True, storage_args=storage)
        if not old.xpath(path, identifier="target", auto_save=True):
            res.update(verdict="error", note=f"{path} selects nothing in Scrapling's old page")
            return res
    res["selector"] = path
    t0 = time.perf_counter()
    new = Selector(new_data, encoding=enc_new, adaptive=True, storage_args=storage)
    t1 = time.perf_counter()
    found = new.xpath(path)
    t2 = time.perf_counter()
    relocated = not found
    if relocated:
        found = new.xpath(path, identifier="target", adaptive=True)
    t3 = time.perf_counter()
    res.update(parse_ms=(t1 - t0) * 1e3, plain_ms=(t2 - t1) * 1e3, healed=relocated,
               reloc_ms=(t3 - t2) * 1e3 if relocated else None, returned=len(found))
    if case["track"] == "swde":
        value = found[0]._root.xpath("string(.)") if found else None
        res["value"] = " ".join(value.split()) if value is not None else None
        judge_value(res, value, case["expected_values"], relocated)
        return res
    if not judge["judgeable"]:
        res.update(verdict="error", note="the judging copy of the new page does not parse alike")
        return res
    marked_new = _marked_root(judge["new_marked"], enc_new)
    if int(marked_new.xpath("count(//*)")) != int(new._root.xpath("count(//*)")):
        res.update(verdict="error", note="lxml parses the judging copy of the new page differently")
        return res
    got_path = lxml_path(found[0]._root) if found else None
    res["selected"] = got_path
    expected = case["expected"]
    if expected is None:
        res["verdict"] = "wrong" if found else "correct"
    elif not found:
        res["verdict"] = "abstain"
    else:
        if judge["expected_mark"] is not None:
            marked = marked_new.xpath(got_path)
            same = bool(marked) and marked[0].get(MARK) == judge["expected_mark"]
        else:
            same = got_path == expected
        res["verdict"] = "correct" if same else "wrong"
    res["answer_ok"] = res["verdict"] == "correct" if found else None
    return res


def run_case(task):
    case, opts, judge = task
    mend = Mend(opts["mend"])
    d = Path(opts["work"]) / "runs" / case["track"] / digest(case["id"])
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    out = {k: case.get(k) for k in ("id", "track", "kind", "severity", "source", "elements", "target", "expected")}
    if case["track"] == "swde":
        out["expected_values"] = case.get("expected_values")
    try:
        out["mend"] = mend_side(mend, case, d)
    except Exception as e:  # a harness failure is reported, never counted as a verdict
        out["mend"] = {"verdict": "error", "note": repr(e)}
    if opts["scrapling"]:
        try:
            out["scrapling"] = scrapling_side(case, d, judge)
        except Exception as e:
            out["scrapling"] = {"verdict": "error", "note": repr(e)}
    if not opts["keep"]:
        shutil.rmtree(d, ignore_errors=True)
        if case["track"] == "swde":
            pid = case["id"].rsplit("/", 1)[1]
            for f in Path(case["unit"]).glob(f"*-{pid}.*"):
                f.unlink()
    return out


# ---------------------------------------------------------------- report


def tally(outcomes, tool):
    t = {"correct": 0, "wrong": 0, "abstain": 0, "error": 0}
    for o in outcomes:
        r = o.get(tool)
        if r is not None:
            t[r["verdict"] or "error"] += 1
    return t


def fmt_tally(t):
    n = t["correct"] + t["wrong"] + t["abstain"]
    cells = [f"{t[k]} ({pct(t[k], n):.1f}%)" for k in ("correct", "wrong", "abstain")]
    return n, cells


def table_by(outcomes, key, tools, title):
    lines = [f"| {title} | n | " + " | ".join(
        f"{name} correct | {name} wrong | {name} abstain" for name in tools.values()) + " |"]
    lines.append("| --- " * (2 + 3 * len(tools)) + "|")
    groups = {}
    for o in outcomes:
        groups.setdefault(key(o), []).append(o)
    for g in sorted(groups, key=lambda x: (str(type(x)), x)):
        cells, n0 = [], None
        for tool in tools:
            n, c = fmt_tally(tally(groups[g], tool))
            n0 = n if n0 is None else n0
            cells += c
        lines.append(f"| {g} | {len(groups[g])} | " + " | ".join(cells) + " |")
    return lines


def report(outcomes, args, timings):
    tools = {"mend": "mend"}
    if args.scrapling:
        tools["scrapling"] = "Scrapling"
    L = ["# Healing: mend and Scrapling on the same cases", ""]
    L.append(f"mend `{args.mend}`; Scrapling {args.scrapling_version or 'not run'}; "
             f"tracks {','.join(args.tracks)}{' (quick slice)' if args.quick else ''}; jobs {args.jobs}; "
             f"{len(outcomes)} cases; wall time {timings['total']:.0f} s "
             f"(preparation {timings['prepare']:.0f} s, cases {timings['cases']:.0f} s).")
    L.append("")
    L.append("Percentages are of the cases each tool was judged on (harness errors are left out and counted below).")
    L.append("")
    by_track = {}
    for o in outcomes:
        by_track.setdefault(o["track"], []).append(o)
    L += ["## Per track", ""]
    L += table_by(outcomes, lambda o: o["track"], tools, "track")
    L.append("")
    for track, os_ in sorted(by_track.items()):
        L += [f"## Track `{track}`", ""]
        L += table_by(os_, lambda o: o["kind"], tools, "kind")
        L.append("")
        if len({o["severity"] for o in os_}) > 1:
            L += table_by(os_, lambda o: o["severity"], tools, "severity")
            L.append("")
        sources = {o["source"] for o in os_}
        if 1 < len(sources) <= 20:
            L += table_by(os_, lambda o: o["source"], tools, "source")
            L.append("")
        elif len(sources) > 20:  # one source a case (bench/mutate.py): group by its first word
            L += table_by(os_, lambda o: (o["source"] or "-").split()[0], tools, "source (first word)")
            L.append("")
        # How each tool got there.
        st = {}
        for o in os_:
            m = o["mend"]
            s = m.get("status") or ("no heal" if m.get("verdict") != "error" else "error")
            st.setdefault(s, {"correct": 0, "wrong": 0, "abstain": 0, "error": 0})[m.get("verdict") or "error"] += 1
        L.append("mend by adaptation status: " + "; ".join(
            f"{s} {sum(v.values())} ({v['correct']} correct, {v['wrong']} wrong, {v['abstain']} abstain)"
            for s, v in sorted(st.items())) + ".")
        if args.scrapling:
            rel = [o["scrapling"] for o in os_ if o["scrapling"].get("healed")]
            plain = [o["scrapling"] for o in os_ if o["scrapling"].get("healed") is False]
            ties = sum(1 for r in rel if (r.get("returned") or 0) > 1)
            L.append(f"Scrapling: the saved selector still matched on {len(plain)} "
                     f"({sum(r['verdict'] == 'correct' for r in plain)} correct, "
                     f"{sum(r['verdict'] == 'wrong' for r in plain)} wrong); relocated on {len(rel)} "
                     f"({sum(r['verdict'] == 'correct' for r in rel)} correct, "
                     f"{sum(r['verdict'] == 'wrong' for r in rel)} wrong, "
                     f"{sum(r['verdict'] == 'abstain' for r in rel)} nothing above 40%); "
                     f"{ties} relocations returned several tied elements (the first is judged).")
        if track == "swde":
            L += ["", "Values, whatever the verdict (a heal on a page of the same template counts as wrong above, "
                  "even when its value is right; for mend a heal that abstains still leaves the stale XPath's value):", "",
                  "| site/field | tool | right, no heal | right, after heal | wrong, no heal | wrong, after heal | "
                  "no value, no heal | no value, after heal |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
            groups = {}
            for o in os_:
                groups.setdefault(f"{o['source']}/{o['kind']}", []).append(o)
            groups["all"] = os_
            for g, gs in groups.items():
                for tool, name in tools.items():
                    cnt = {}
                    for o in gs:
                        r = o[tool]
                        if r.get("verdict") in (None, "error"):
                            continue
                        v = r.get("value")
                        if v in (None, ""):
                            what = "right" if o.get("expected_values") is None else "none"
                        else:
                            what = "right" if r.get("value_ok") else "wrong"
                        cnt[(what, bool(r.get("healed")))] = cnt.get((what, bool(r.get("healed"))), 0) + 1
                    L.append(f"| {g} | {name} | " + " | ".join(
                        str(cnt.get((w, h), 0)) for w in ("right", "wrong", "none") for h in (False, True)) + " |")
        errs = {t: sum(1 for o in os_ if o.get(t, {}).get("verdict") in (None, "error")) for t in tools if True}
        if any(errs.values()):
            L.append("Harness errors (not counted): " + ", ".join(f"{tools[t]} {n}" for t, n in errs.items()) + ".")
        L.append("")

    L += ["## Risk and coverage of mend's heals", "",
          "Over the cases where a heal was triggered: coverage = share that mend answers "
          "(an applied heal) with a score (or similarity) at or above t; risk = share of those answers that are wrong "
          "(swde: a wrong value).", ""]
    for track, os_ in sorted(by_track.items()):
        heals = [o["mend"] for o in os_ if o["mend"].get("healed")]
        if not heals:
            continue
        L.append(f"**{track}** ({len(heals)} heals triggered, {sum(h.get('status') == 'applied' for h in heals)} applied)")
        L.append("")
        L.append("| t | answered (score ≥ t) | coverage | risk | answered (similarity ≥ t) | coverage | risk |")
        L.append("| --- | --- | --- | --- | --- | --- | --- |")
        for i in range(10):
            t = 0.5 + 0.05 * i
            row = [f"{t:.2f}"]
            for key in ("score", "similarity"):
                ans = [h for h in heals if h.get("status") == "applied" and (h.get(key) or 0) >= t - 1e-12]
                wrong = sum(1 for h in ans if h.get("answer_ok") is False)
                row += [str(len(ans)), f"{pct(len(ans), len(heals)):.1f}%",
                        f"{pct(wrong, len(ans)):.1f}%" if ans else "-"]
            L.append("| " + " | ".join(row) + " |")
        L.append("")

    L += ["## Heal time by page size", "",
          "mend: wall time of the `mend run --heal auto` process (start-up and parsing included) and of "
          "snapshot + run, over cases where a heal was triggered; Scrapling: the adaptive `xpath()` call "
          "that relocates (parsing excluded), over cases where the saved selector matched nothing. "
          "Page size: elements of the new page in mend's tree. Milliseconds.", ""]
    L.append("| page size | mend n | mend run median | mend run p95 | snapshot+run median | "
             "Scrapling n | Scrapling median | Scrapling p95 |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for _, name in BUCKETS:
        hs = [o for o in outcomes if bucket(o["elements"]) == name and o["mend"].get("healed")]
        ms = [o["mend"] for o in hs]
        sc = [o["scrapling"]["reloc_ms"] for o in outcomes
              if args.scrapling and bucket(o["elements"]) == name and o["scrapling"].get("reloc_ms") is not None]
        if not ms and not sc:
            continue
        run = [m["run_ms"] for m in ms]
        pair = [o["mend"]["pair_ms"] for o in hs if o["track"] != "swde"]

        def f(v):
            return "-" if v is None else f"{v:.0f}"
        L.append(f"| {name} | {len(run)} | {f(quantile(run, .5))} | {f(quantile(run, .95))} | "
                 f"{f(quantile(pair, .5))} | {len(sc)} | {f(quantile(sc, .5))} | {f(quantile(sc, .95))} |")
    L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tracks", default=",".join(TRACKS))
    ap.add_argument("--cases", action="append", default=[], help="extra case manifest (JSONL); may repeat")
    ap.add_argument("--quick", action="store_true",
                    help="all 42 google cases, 10 mutant cases a site, christianbook isbn_13 on pages 0001-0020")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-scrapling", dest="scrapling", action="store_false")
    ap.add_argument("--mutant-cap", type=int, default=None, help="at most N cases a mutant page")
    ap.add_argument("--swde-pages", type=int, default=199, help="pages 0001..N of each SWDE site")
    ap.add_argument("--mend", default=os.environ.get("MEND", str(REPO / "target" / "release" / "mend")))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--work", default=str(REPO / "target" / "heal-cases"))
    ap.add_argument("--report", help="also write the Markdown report here")
    ap.add_argument("--json", help="write every case's outcome here (a JSON array)")
    ap.add_argument("--keep", action="store_true", help="keep each case's wrapper, tree-grams and stores")
    ap.add_argument("--floor", help="a JSON file of per-track floors for mend, "
                    '{"track": {"min_correct": PCT, "max_wrong": PCT}}; exit 1 when one is not met')
    args = ap.parse_args()
    args.tracks = [t.strip() for t in args.tracks.split(",") if t.strip()]
    for t in args.tracks:
        if t not in TRACKS:
            ap.error(f"unknown track {t!r} (tracks: {', '.join(TRACKS)})")
    if not Path(args.mend).is_file():
        ap.error(f"no mend binary at {args.mend}: build it (cargo build --release --bin mend) or pass --mend PATH")
    args.scrapling_version = None
    if args.scrapling:
        try:
            import scrapling

            args.scrapling_version = scrapling.__version__
        except ImportError:
            ap.error("Scrapling is not installed: pip install -r bench/requirements.txt (or pass --no-scrapling)")

    start = time.perf_counter()
    mend = Mend(args.mend)
    data, work = Path(args.data), Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    pages = Pages(mend, work)
    cases = []
    (work / "manifests").mkdir(exist_ok=True)
    if "google" in args.tracks:
        g = google_cases(mend, pages, data, work)
        cases += g
    if "mutants" in args.tracks:
        cap = 10 if args.quick and args.mutant_cap is None else args.mutant_cap
        cases += mutant_cases(mend, pages, data, work, cap)
    units = []
    if "swde" in args.tracks:
        fields = [("christianbook", "isbn_13")] if args.quick else [(s, f) for s in SWDE_SITES for f in SWDE_FIELDS]
        n = min(20, args.swde_pages) if args.quick else args.swde_pages
        sc, units = swde_cases(mend, pages, data, work, fields, n)
        cases += sc
    for m in args.cases:
        cases += [c for c in load_manifest(m) if c["track"] in args.tracks]
    for track in {c["track"] for c in cases}:
        with open(work / "manifests" / f"{track}.jsonl", "w") as f:
            for c in cases:
                if c["track"] == track:
                    f.write(json.dumps(c, ensure_ascii=False) + "\n")
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise SystemExit("case ids are not unique")

    # Marks for judging Scrapling: the target on the old page, the expected node on the new.
    tasks = []
    want = {}
    for c in cases:
        if c["track"] == "swde":
            continue
        want.setdefault(str(Path(c["old"]).resolve()), set()).add(c["target"])
        if c["expected"]:
            want.setdefault(str(Path(c["new"]).resolve()), set()).add(c["expected"])
    marks = {}
    for page, paths in want.items():
        for p, v in pages.marks(page, sorted(paths)).items():
            marks[(page, p)] = v
    skipped = []
    for c in cases:
        if "elements" not in c or c["elements"] is None:
            c["elements"] = pages.page(c["new"])["elements"]
        old, new = pages.page(c["old"]), pages.page(c["new"])
        judge = {"old_marked": old["marked"], "new_marked": new["marked"], "old_encoding": old["encoding"],
                 "new_encoding": new["encoding"], "judgeable": old["judgeable"] and new["judgeable"],
                 "target_mark": None, "expected_mark": None}
        if c["track"] != "swde":
            n, judge["target_mark"] = marks[(old["path"], c["target"])]
            if n != 1:
                skipped.append((c["id"], f"the target selects {n} nodes on the old page"))
                continue
            if c["expected"]:
                n, judge["expected_mark"] = marks[(new["path"], c["expected"])]
                if n != 1:
                    skipped.append((c["id"], f"the expected path selects {n} nodes on the new page"))
                    continue
        tasks.append((c, None, judge))
    for unit in units:
        prepare_swde_unit(mend, unit, args.scrapling)
    prepared = time.perf_counter()
    opts = {"mend": args.mend, "work": str(work), "scrapling": args.scrapling, "keep": args.keep}
    tasks = [(c, opts, j) for c, _, j in tasks]
    outcomes = []
    per_track = {}
    for c, _, _ in tasks:
        per_track[c["track"]] = per_track.get(c["track"], 0) + 1
    print(f"{len(tasks)} cases ({', '.join(f'{t} {n}' for t, n in per_track.items())}), {args.jobs} jobs",
          file=sys.stderr)
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for i, o in enumerate(pool.map(run_case, tasks, chunksize=1), 1):
            outcomes.append(o)
            if i % 50 == 0 or i == len(tasks):
                print(f"  {i}/{len(tasks)} cases, {time.perf_counter() - prepared:.0f} s", file=sys.stderr)
    end = time.perf_counter()
    timings = {"total": end - start, "prepare": prepared - start, "cases": end - prepared}
    text = report(outcomes, args, timings)
    if skipped:
        text += "\n" + f"{len(skipped)} cases skipped: " + "; ".join(f"{i}: {why}" for i, why in skipped[:10]) + "\n"
    print(text)
    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(text + "\n")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"timings": timings, "skipped": skipped, "cases": outcomes},
                                              ensure_ascii=False, indent=1) + "\n")
    if args.floor:
        failures = check_floor(outcomes, json.loads(Path(args.floor).read_text()))
        for f in failures:
            print(f"FLOOR: {f}", file=sys.stderr)
        if failures:
            sys.exit(1)
        print(f"mend is at or above every floor in {args.floor}", file=sys.stderr)


def check_floor(outcomes, floors):
    """The floors mend misses: per track, the share of correct cases must
    not fall below min_correct and the share of wrong ones not rise above
    max_wrong (percent of the cases judged)."""
    failures = []
    for track, floor in floors.items():
        verdicts = [o["mend"]["verdict"] for o in outcomes
                    if o["track"] == track and o["mend"]["verdict"] in ("correct", "wrong", "abstain")]
        if not verdicts:
            failures.append(f"{track}: no case was judged")
            continue
        pct = lambda v: 100.0 * verdicts.count(v) / len(verdicts)
        if pct("correct") < floor.get("min_correct", 0):
            failures.append(f"{track}: {pct('correct'):.1f}% correct, under the floor {floor['min_correct']}%")
        if pct("wrong") > floor.get("max_wrong", 100):
            failures.append(f"{track}: {pct('wrong'):.1f}% wrong, over the ceiling {floor['max_wrong']}%")
    return failures


if __name__ == "__main__":
    main()
