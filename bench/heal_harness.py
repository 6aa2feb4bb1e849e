#!/usr/bin/env python3
"""Healing, mend against Scrapling and a robust XPath, on the same cases in one run.

A *case* is one element to find again after a page changed: the old page, the
new page, the element's canonical path on the old page in mend's tree
(`target`) and the true element's path on the new page (`expected`, or null
when the element is gone).  Cases are JSON lines:

    {"id": ..., "track": "google|mutants|swde|mutation|records", "kind": ..., "severity": 0,
     "old": "old.html", "new": "new.html", "target": "/html/body/...",
     "expected": "/html/body/..." | null, "extract": "text", "source": ..., "elements": 1234}

A records case (bench/record_cases.py) is a list instead of one element: it
adds `items` and `expected_items`, the canonical paths of the list's items on
the old and the new page, and its `target` is the items' common path.

The google, mutants and swde tracks are generated here from ../shared/data
(manifests are written to the work dir), and so is the records track (by
bench/record_cases.py into WORK/records, its --quick slice with --quick)
unless a `--cases` manifest holds records cases; `--cases FILE` reads more
(the mutation track of bench/mutate.py; the wide-mutation and wide-pairs
tracks of bench/wide_cases.py, one split of sites at a time, read only from
--cases).  Relative page paths in a manifest
are resolved against the manifest's folder, then the current folder.

mend, for each case: a wrapper with one pattern `target` (the target's path,
`extract: normalized`, `constraints: {min: 1, max: 1}`, `adapt: {mode: auto,
min_pages: 1}`: a case is one broken page, and the decision on it is what is
judged; the default of 3 pages would leave every heal a proposal) is
snapshotted on the old page, then

    mend run W NEW --heal auto --format json --store DIR/store.db

and the wrapper's XPath after the run is evaluated on the new page with
`mend xpath NEW XPATH --json`.  correct = exactly the expected node (or, when
the element is gone, nothing, or the pattern left violated); wrong = any
other node, the stale XPath silently selecting another node included;
abstain = nothing although the element is there.  An XPath that still selects
several nodes while the run reports the pattern violated counts as abstain:
mend flagged it instead of handing back a value.  So does a pattern whose
value mend's record gives as null while the run reports it violated: a
drift mend could not heal is withheld, and the record holds no answer.
On wide-pairs, whose truth is page B's value, one node holding exactly the
expected element's value (squashed as swde's values are) is correct too,
for every tool: the value is often on several elements of B (a title in the
header and in the recipe card), and the truth names the one it was found on
first.

Failures are wrong, never dropped: when a mend command of a case fails (the
snapshot, the run exiting with anything but 0 or 1, a panic, a time-out
(--timeout), output that is not JSON, a wrapper that does not read back, or
the final `mend xpath` failing), the case is judged wrong for that column,
with a `failure` object in its JSON record ({step, command, exit, what,
stderr}: the end of stderr).  Such cases stay in every table and in the
floor check, and the report lists them (count per track, first examples).

The robust-XPath baseline (a column beside Scrapling; --no-robust leaves it
out): `mend xpath OLD TARGET --robust --json` gives the XPath mend's
generator writes on the old page for exactly the nodes TARGET selects there;
it is evaluated on the new page with `mend xpath NEW XPATH --json` and never
healed.  It is judged as mend's wrapper would be with --heal off, under the
same constraints and the same rule: one node is correct or wrong; nothing,
or several nodes (a violated {min: 1, max: 1}), is an abstention, and both
are correct when the element is gone.  On swde the robust XPath is made on
page 0000 once per site and field and its first node's value is judged on
every page, as mend's (no heal, so a right value is correct).  A failure of
either command is wrong, as for mend.

Scrapling (parser only), for each case: the target's absolute XPath in lxml's
tree of the old page is saved with `Selector(old, adaptive=True,
storage_args={storage_file: DIR/scrapling.db})`.xpath(path,
identifier="target", auto_save=True); on the new page the same XPath is tried
plainly and, when it returns nothing, with adaptive=True (Scrapling's own
flow: relocate() scores every element against the saved fingerprint and
returns the best-scoring ones).  The first element returned is judged.
Scrapling is not run on the records track: auto_save keeps the fingerprint of
the first element only, so it has no item set to relocate.

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
with a fresh copy of the snapshotted wrapper).  With --swde-capture N the
wrapper is captured over page 0000 and the next N-1 pages on which the recorded
XPath gives the true value (one `mend snapshot` of them all, as the README
recommends for a site, on pages where the wrapper works) and run on the others: what varies between
the capture pages is then known, and a heal or a drift flag on a page where
the recorded XPath still gives the right value is the "other pages of one
site" false alarm.  correct = the extracted value
equals the ground truth, with no needless heal; abstain = no value; wrong = a
wrong value, or a needless heal: one made while the recorded XPath still
gave the right value on the page (a false alarm, counted apart as "heal,
right value").  A heal on a page where the recorded XPath selects nothing or
another value was needed, and is correct when its value is right (SWDE's
pages of one site differ in layout: christianbook's details cell moves).  Ground truth values are SWDE text nodes; the value compared is the
string-value of the element owning that text node (derived_targets.jsonl),
so "ISBN-13: 978..." is right for ": 978...".  Values are compared with all
whitespace removed and case folded, on both sides.  Scrapling saves the
selector on 0000 and uses it plainly, then adaptively, on each page.

The records track (lists of repeated items, bench/record_cases.py): the
wrapper has one record pattern `items` with `constraints: {min: 2}` and one
field `text` (`xpath: .`, `extract: normalized`, no constraints).  Its XPath
is the robust XPath of the item set, `mend xpath OLD 'ITEM1 | ITEM2 | ...'
--robust --json`, unless that is a fallback, a union of positional paths or
does not select exactly the items: then the items' common path (`target`).
Snapshot, run and evaluation are as above; the items are compared as mend's
canonical paths on the new page (the same tree: `expected_items` come from
marks on the items).  correct = exactly the expected item set; abstain =
nothing selected, or the pattern left violated; wrong = any other set (a
subset, a superset, other nodes, a stale XPath selecting two or more).  A
record XPath that the run rewrote into a union of positional paths
(`//ul/li[1] | //ul/li[2]`) is counted as union-of-positions (it should be 0).
The robust baseline is the robust XPath of the item set, fallback or not,
judged by the same rule with {min: 2} (fewer than two nodes is violated).

Risk and coverage (per track, over the cases where mend attempted a heal):
for t = 0.50..0.95, coverage = share of attempts answered with an applied
heal whose calibrated confidence (or raw score) is >= t, risk = share of those answers that
are wrong.  Reliability: the applied heals by score bin (0.1 wide), the mean
score against the share of right answers, one line per track and the
diagonal, drawn with matplotlib (Agg) into --plot (default: beside --report,
NAME-reliability.png; else beside --json; else WORK/reliability.png).
Without matplotlib the harness says so and writes everything else.

--floor FILE: {"track": {"min_correct": PCT, "max_wrong": PCT,
"max_union_of_positions": N, "robust": {...the same keys...}}}; percentages
are of every case of the track (a case not judged counts as wrong); exit 1
when a floor is missed.

Usage:
    python3 bench/heal_harness.py [--tracks google,mutants,swde,mutation,records] [--cases FILE]...
        [--quick] [--jobs N] [--no-scrapling] [--no-robust] [--mutant-cap N] [--mend PATH]
        [--data DIR] [--work DIR] [--report FILE] [--json FILE] [--plot FILE] [--floor FILE]
        [--timeout S] [--records-seed N]
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
TRACKS = ("google", "mutants", "swde", "mutation", "records", "reload", "reload-unlearned", "wide-mutation",
          "wide-pairs")
RUN_TIMEOUT = 600                      # seconds for one mend process
BUCKETS = ((3_000, "<3k"), (15_000, "3k-15k"), (60_000, "15k-60k"), (float("inf"), ">60k"))

WRAPPER = """name: case
adapt: {{mode: auto, min_pages: 1}}
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
adapt: {{mode: auto, min_pages: 1}}
patterns:
  - name: target
    xpath: {xpath}
    extract: normalized
    constraints: {{min: 1}}
"""

# A record list: the items' XPath, at least two of them; one optional field per item.
WRAPPER_RECORDS = """name: case
adapt: {{mode: auto, min_pages: 1}}
patterns:
  - name: items
    xpath: {xpath}
    constraints: {{min: 2}}
    patterns:
      - name: text
        xpath: .
        extract: normalized
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
    def __init__(self, binary, timeout=RUN_TIMEOUT):
        self.bin = str(binary)
        self.timeout = timeout

    def run(self, *args):
        """The finished process; a process killed at the time limit has returncode None."""
        argv = [self.bin, *map(str, args)]
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired as e:
            def text(v):
                return v.decode(errors="replace") if isinstance(v, bytes) else (v or "")
            return subprocess.CompletedProcess(argv, None, text(e.stdout),
                                               text(e.stderr) + f"\n(killed after {self.timeout} s)")

    def xpath_batch(self, page, exprs, scratch):
        """One JSON answer per expression, one process for all of them."""
        if not exprs:
            return []
        scratch.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text("\n".join(exprs) + "\n")
        p = self.run("xpath", page, "--exprs", scratch, "--json")
        if p.returncode != 0:
            raise RuntimeError(f"mend xpath {page} --exprs failed: {p.stderr.strip()}")
        # One answer a line, split on newlines alone: str.splitlines also splits inside an answer at
        # the line and paragraph separators (U+2028, U+2029) a page's text may hold, unescaped in JSON.
        lines = [json.loads(l) for l in p.stdout.split("\n") if l.strip()]
        if len(lines) != len(exprs):
            raise RuntimeError(f"mend xpath {page}: {len(exprs)} expressions, {len(lines)} answers")
        return lines

    def xpath(self, page, expr):
        answer, _ = self.select(page, expr)
        return answer

    def select(self, page, expr, *flags):
        """(`mend xpath PAGE EXPR [flags] --json`'s answer, None), or (None, the failure)."""
        p = self.run("xpath", page, expr, *flags, "--json")
        # Exit 1 is a selection of nothing: still an answer, printed as such.
        if p.returncode not in (0, 1):
            return None, failure("xpath" + "".join(f" {f}" for f in flags), p)
        try:
            return json.loads(p.stdout), None
        except ValueError:
            return None, failure("xpath" + "".join(f" {f}" for f in flags), p, "standard output is not JSON")


def failure(step, p, what=None):
    """A failed mend command, as recorded in a case: which step, its exit code, the end of stderr."""
    def short(a):
        a = str(a)
        return Path(a).name if "/" in a and Path(a).exists() else (a if len(a) <= 200 else a[:200] + "…")
    return {"step": step, "command": "mend " + " ".join(short(a) for a in p.args[1:]),
            "exit": p.returncode, "what": what or ("timed out" if p.returncode is None else "exit code"),
            "stderr": (p.stderr or "").strip()[-400:]}


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


def swde_cases(mend, pages, data, work, fields, page_count, capture=1):
    """Per site and field, a unit captured on page 0000 and a case for each of pages 0001..page_count.
    With capture N > 1 the unit is captured on page 0000 and the next N-1 pages on which the recorded
    XPath gives the field's true value (a person captures a wrapper on pages where it works), and
    those pages are not cases."""
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

    def expected_values(site, field, pid, file):
        truth = by.get((site, field, pid))
        if not truth:
            return None
        t = tree(file)
        return sorted({squash(e.xpath("string(.)")) for r in truth for x in r["xpaths"] for e in t.xpath(x)})

    def gives_truth(page, expr, expected):
        answer, fail = mend.select(page, expr)
        nodes = (answer or {}).get("nodes") or []
        return not fail and expected is not None and len(nodes) == 1 and squash(nodes[0]["value"]) in expected

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
        pids = [f"{i:04d}" for i in range(1, page_count + 1)]
        files = {pid: f"pages/book/book-{site}-2000/{pid}.htm" for pid in pids}
        values = {pid: expected_values(site, field, pid, files[pid]) for pid in pids}
        captured = [page0]
        for pid in pids:
            if len(captured) >= capture:
                break
            if gives_truth(str(sdir / files[pid]), mend_path, values[pid]):
                captured.append(str(sdir / files[pid]))
        unit = {"site": site, "field": field, "page0": page0, "mend_path": mend_path, "lxml_path": lxml_path,
                "capture": captured, "dir": str(work / "swde" / f"{site}-{field}")}
        units.append(unit)
        for pid in pids:
            new = str(sdir / files[pid])
            if new in captured:
                continue
            cases.append({
                "id": f"swde/{site}/{field}/{pid}", "track": "swde", "kind": field, "severity": 0,
                "old": page0, "new": new, "target": mend_path, "expected": None,
                "expected_values": values[pid], "extract": "normalized", "source": site,
                "elements": pages.page(new)["elements"], "unit": unit["dir"], "lxml_path": lxml_path,
            })
    return cases, units


def prepare_swde_unit(mend, unit, scrapling, robust, site_template=False):
    """Snapshot the unit's wrapper on its capture pages (page 0000, and with --swde-capture N the
    next N-1 pages where its XPath gives the true value: one `mend snapshot` over them all), make the robust XPath on page 0000, save
    Scrapling's fingerprint there.  A failed snapshot is kept in the unit (every page of it is then judged
    wrong for mend), as is a failed robust XPath (wrong for the robust column).  With
    site_template, `mend template` first learns the site's template from the site's last four
    pages (0196-0199), so that the snapshot marks whether the target is in the site's frame."""
    d = Path(unit["dir"])
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    w = d / "wrapper.yaml"
    w.write_text(WRAPPER_SWDE.format(xpath=json.dumps(unit["mend_path"])))
    if site_template:
        site_dir = Path(unit["page0"]).parent
        p = mend.run("template", w, *[site_dir / f"{i:04d}.htm" for i in range(196, 200)])
        if p.returncode != 0:
            unit["snapshot_failure"] = failure("template", p)
            return
    # The capture's store, which each page's run starts from a copy of: it keeps the capture page.
    p = mend.run("snapshot", w, *unit["capture"], "--store", d / "capture.db")
    unit["snapshot_failure"] = failure("snapshot", p) if p.returncode != 0 else None
    if robust:
        unit["robust"] = make_robust(mend, unit["page0"], unit["mend_path"])
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


def record_cases(args, work):
    """The records track's cases: bench/record_cases.py run into WORK/records (its --quick slice
    with --quick), unless a --cases manifest already holds records cases."""
    import contextlib

    sys.path.insert(0, str(BENCH))
    import record_cases as rc

    out = work / "records"
    argv = ["--data", str(args.data), "--out", str(out), "--seed", str(args.records_seed), "--mend", args.mend]
    if args.quick:
        argv.append("--quick")
    print(f"records: generating cases into {out} (bench/record_cases.py {' '.join(argv[4:])})", file=sys.stderr)
    with contextlib.redirect_stdout(sys.stderr):
        status = rc.main(argv)
    if status:
        raise SystemExit("bench/record_cases.py: the generated record cases do not check out with mend")
    return load_manifest(out / "cases.jsonl")


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
        def resolve(name):
            p = Path(name)
            if not p.is_absolute():
                p = base / p if (base / p).exists() else Path.cwd() / p
            return str(p.resolve())
        for key in ("old", "new"):
            c[key] = resolve(c[key])
        if c.get("learn"):
            c["learn"] = [resolve(x) for x in c["learn"]]
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


def union_of_positions(xpath):
    """True when an XPath is a union whose branches pin nodes by position (`... [3] | ... [4]`)."""
    if not xpath:
        return False
    branches, depth, quote, cur = [], 0, None, ""
    for ch in xpath:
        if quote:  # string literals are left out: a "[1]" in a literal is no position
            quote = None if ch == quote else quote
            continue
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "|" and depth == 0:
            branches.append(cur)
            cur = ""
            continue
        cur += ch
    branches.append(cur)
    return len(branches) > 1 and any(re.search(r"\[\s*\d+\s*\]", b) for b in branches)


def make_robust(mend, page, expr):
    """`mend xpath PAGE EXPR --robust --json`: the XPath mend's generator writes on the old page
    for exactly the nodes EXPR selects there ({"xpath", "fallback", ...}), or {"failure": ...}."""
    answer, fail = mend.select(page, expr, "--robust")
    if fail:
        return {"failure": fail}
    return {"xpath": answer.get("xpath"), "fallback": bool(answer.get("fallback")),
            "alternatives": len(answer.get("alternatives") or []), "count": answer.get("count")}


def judge_node(selected, expected, violated):
    """One pattern, {min: 1, max: 1}: the verdict for the nodes a final XPath selects."""
    if expected is None:
        return "correct" if not selected or violated else "wrong"
    if selected == [expected]:
        return "correct"
    if not selected or (len(selected) > 1 and violated):
        return "abstain"
    return "wrong"


def judge_set(selected, expected_items, violated):
    """A record pattern, {min: 2}: exactly the item set is correct; nothing, or the pattern
    left violated, is an abstention; any other set (a subset, a superset, other nodes) is wrong."""
    if set(selected) == set(expected_items) and len(selected) == len(expected_items):
        return "correct"
    if not selected or violated:
        return "abstain"
    return "wrong"


def judge_selected(res, case, selected, violated):
    res["selected"] = selected[:5]
    res["n_selected"] = len(selected)
    if case["track"] == "records":
        res["verdict"] = judge_set(selected, case["expected_items"], violated)
        res["relation"] = set_relation(selected, case["expected_items"])
    else:
        res["verdict"] = judge_node(selected, case["expected"], violated)
    res["answer_ok"] = res["verdict"] == "correct" if selected else None


def failed(res, fail):
    """A mend command failed: the case is judged wrong, with the failure kept."""
    res.update(verdict="wrong", failure=fail, answer_ok=False)
    return res


def robust_side(mend, case, robust):
    """The robust-XPath baseline: the XPath mend's generator made on the old page, evaluated on
    the new page with no healing, judged as mend's wrapper would be with --heal off."""
    res = {"verdict": None, "healed": False}
    if robust.get("failure"):
        return failed(res, robust["failure"])
    res.update(xpath=robust["xpath"], fallback=robust["fallback"],
               union_of_positions=union_of_positions(robust["xpath"]))
    answer, fail = mend.select(case["new"], robust["xpath"])
    if fail:
        return failed(res, fail)
    nodes = answer.get("nodes") or []
    if case["track"] == "swde":
        value = " ".join(nodes[0]["value"].split()) if nodes else None
        res["value"] = value
        judge_value(res, value, case["expected_values"], False)
        return res
    selected = [n["path"] for n in nodes]
    # The wrapper's constraints decide what counts as flagged: {min: 1, max: 1} for a node,
    # {min: 2} for a record list.
    violated = len(selected) < 2 if case["track"] == "records" else len(selected) != 1
    judge_selected(res, case, selected, violated)
    return res


def with_scope(text, settings):
    """A wrapper's text with the adapt settings asked for (search_scope, min_confidence, drift_confidence) set."""
    extra = "".join(f", {key}: {value}" for key, value in (settings or {}).items() if value is not None)
    if not extra:
        return text
    return text.replace("adapt: {mode: auto", f"adapt: {{mode: auto{extra}", 1)


def opts_scope(case):
    return case.get("_adapt")


def mend_side(mend, case, d, robust):
    res = {"verdict": None}
    w = d / "wrapper.yaml"
    t0 = time.perf_counter()
    pattern = "items" if case["track"] == "records" else "target"
    if case["track"] == "swde":
        if case.get("snapshot_failure"):
            return failed(res, case["snapshot_failure"])
        # A fresh copy of the snapshotted wrapper beside it (its tree-gram path is relative).
        pid = case["id"].rsplit("/", 1)[1]
        w = Path(case["unit"]) / f"page-{pid}.yaml"
        w.write_text(with_scope(Path(case["unit"], "wrapper.yaml").read_text(), opts_scope(case)))
        store = Path(case["unit"]) / f"store-{pid}.db"
        for suffix in ("", "-wal"):
            kept = Path(case["unit"]) / f"capture.db{suffix}"
            if kept.exists():
                shutil.copyfile(kept, f"{store}{suffix}")
    else:
        if case["track"] == "records":
            # The robust XPath of the item set, unless the generator fell back to a union of
            # positions or failed: then the items' common path.
            usable = robust and not robust.get("failure") and not robust.get("fallback") \
                and robust.get("count") == len(case["items"]) and not union_of_positions(robust.get("xpath"))
            start = robust["xpath"] if usable else case["target"]
            res["start_xpath"] = start
            res["start_from"] = "robust" if usable else "common path"
            w.write_text(with_scope(WRAPPER_RECORDS.format(xpath=json.dumps(start)), opts_scope(case)))
        else:
            w.write_text(with_scope(WRAPPER.format(xpath=json.dumps(case["target"])), opts_scope(case)))
        # One store for the capture and the run, as beside a user's wrapper: the run reads the page the
        # snapshot kept there.
        store = d / "store.db"
        if case.get("learn"):
            # The reload track: what changes between loads is learned first.
            p = mend.run("learn", w, case["old"], *case["learn"], "--store", store)
            if p.returncode != 0:
                return failed(res, failure("learn", p))
        else:
            p = mend.run("snapshot", w, case["old"], "--store", store)
            if p.returncode != 0:
                return failed(res, failure("snapshot", p))
    t1 = time.perf_counter()
    p = mend.run("run", w, case["new"], "--heal", "auto", "--format", "json", "--store", store, "--quiet")
    t2 = time.perf_counter()
    res["run_ms"] = (t2 - t1) * 1e3
    res["pair_ms"] = (t2 - t0) * 1e3
    res["run_exit"] = p.returncode
    if p.returncode not in (0, 1):
        return failed(res, failure("run", p))
    try:
        out = json.loads(p.stdout)
    except ValueError:
        return failed(res, failure("run", p, "standard output is not JSON"))
    adaptations = [a for a in out.get("adaptations", []) if a.get("pattern") == pattern]
    violated = any(v.get("pattern") == pattern for v in out.get("violations", []))
    a = adaptations[-1] if adaptations else {}
    res.update(
        healed=bool(adaptations), status=a.get("status"), score=a.get("score"), runner_up=a.get("runner_up"),
        similarity=a.get("similarity"), algorithm=a.get("algorithm"), reason=a.get("reason"),
        confidence=a.get("confidence"), evidence=a.get("evidence"), change_scope=a.get("change_scope"),
        found_in_parent=a.get("found_in_parent"), features=a.get("features"), model=a.get("model"),
        selection_features=a.get("selection_features"), proposals=a.get("proposals"),
        new_xpath=a.get("new_xpath"), violated=violated,
    )
    if case["track"] == "swde":
        value = (out.get("records") or [{}])[0].get("target")
        if isinstance(value, list):
            value = value[0] if value else None
        res["value"] = value
        # A heal is a false alarm only when the recorded XPath still gave the right value here;
        # where it selects nothing or another value, the page needed the heal.
        needless = False
        if adaptations:
            answer, fail = mend.select(case["new"], case["target"])
            if fail:
                return failed(res, fail)
            plain = (answer.get("nodes") or [{}])[0].get("value")
            res["plain_value_ok"] = plain is not None and case["expected_values"] is not None \
                and squash(plain) in case["expected_values"]
            needless = res["plain_value_ok"]
        judge_value(res, value, case["expected_values"], needless)
        return res
    try:
        final = yaml.safe_load(w.read_text())["patterns"][0]["xpath"]
    except Exception as e:  # the wrapper mend left behind does not read back
        return failed(res, {"step": "wrapper", "command": f"read {w.name}", "exit": p.returncode,
                            "what": "the wrapper does not read back", "stderr": repr(e)[-400:]})
    res["final_xpath"] = final
    if case["track"] == "records":  # a record XPath the run rewrote into a union of positional paths
        res["union_of_positions"] = final != res["start_xpath"] and union_of_positions(final)
    answer, fail = mend.select(case["new"], final)
    if fail:
        return failed(res, fail)
    selected = [n["path"] for n in answer.get("nodes") or []]
    # A drift mend could not heal is withheld: the record gives null, and the user reads no value.
    res["withheld"] = case["track"] != "records" and violated and \
        (out.get("records") or [{}])[0].get(pattern) is None
    judge_selected(res, case, selected, violated)
    if res["withheld"]:
        res.update(verdict=judge_node([], case["expected"], violated), answer_ok=None)
    if case["track"] != "records" and res.get("new_xpath"):
        # Measured beside the verdict, never judged: a failure here is kept, not a wrong answer.
        res["carries_back"], res["carries_back_failure"] = carries_back(
            mend, case, res["new_xpath"], d / "carry.txt")
    return res


def carries_back(mend, case, new_xpath, scratch):
    """What the XPath a heal wrote selects on the page the wrapper was captured on, against
    what the wrapper's XPath selected there: "same", "more" (the target and other nodes),
    "nothing", or "other". A heal's XPath is written from one page; on the capture page, a
    second page of the site, an XPath that tests the new page's own content (a heading's
    slug as its id, a recipe's name in an attribute) selects nothing."""
    try:
        want, got = mend.xpath_batch(case["old"], [case["target"], new_xpath], scratch)
    except (RuntimeError, ValueError) as e:
        return None, {"step": "xpath --exprs", "command": f"xpath {case['old']}", "exit": None,
                      "what": "the heal's XPath could not be evaluated on the old page",
                      "stderr": str(e)[-400:]}
    want = [n["path"] for n in want.get("nodes") or []]
    got = [n["path"] for n in got.get("nodes") or []]
    relation = set_relation(got, want)
    return {"equal": "same", "empty": "nothing", "superset": "more"}.get(relation, "other"), None


def judge_value(res, value, expected_values, needless_heal):
    """swde: correct = the right value with no needless heal (one made while the recorded
    XPath still gave the right value on the page)."""
    got = squash(value) if value not in (None, "") else None
    res["value_ok"] = (got is None) if expected_values is None else (got in expected_values)
    res["answer_ok"] = res["value_ok"] if got is not None else None
    if got is None:
        res["verdict"] = "correct" if expected_values is None else "abstain"
    elif res["value_ok"] and not needless_heal:
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
        # Scrapling relocates only when the plain path found nothing: never a needless heal.
        judge_value(res, value, case["expected_values"], False)
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


def value_at(mend, page, path):
    """The squashed string value of the one element `path` selects on `page`, or None."""
    answer, fail = mend.select(page, path)
    nodes = (answer or {}).get("nodes") or []
    if fail or len(nodes) != 1:
        return None
    return squash(nodes[0].get("value")) or None


def same_value(mend, case, out):
    """wide-pairs: the truth of page B is a value, and its element is the one element found holding
    it.  Where B holds the value on several elements (a title in the header and in the recipe card, a
    description above the recipe and in it), another of them is the same answer for a user: a tool's
    one node whose value equals the expected element's (squashed, as swde's values are compared) is
    correct, and marked `same_value`.  Every tool is judged so; a value held by no text (an image's
    src) is judged by the node alone."""
    expected = None  # read once, and only when some tool's one node is judged wrong
    for tool in TOOL_NAMES:
        res = out.get(tool)
        if not res or res.get("verdict") != "wrong" or res.get("failure"):
            continue
        selected = res.get("selected")
        paths = [selected] if isinstance(selected, str) else (selected or [])
        if len(paths) != 1 or res.get("n_selected", 1) != 1:
            continue
        expected = expected or value_at(mend, case["new"], case["expected"])
        if expected and value_at(mend, case["new"], paths[0]) == expected:
            res.update(verdict="correct", answer_ok=True, same_value=True)


def same_value_proposals(mend, case, out):
    """wide-pairs: marks each of mend's proposals of one node that is not the expected element but
    holds its value (`same_value`), as `same_value` judges a tool's answer; so that a model trained on
    the collection learns what the harness counts right.  One `mend xpath` of the union of the
    proposals' paths reads every value at once."""
    def one_node(p):
        nodes = p.get("nodes") or []
        return nodes[0] if p.get("count") == 1 and len(nodes) == 1 else None

    others = [p for p in (out.get("mend") or {}).get("proposals") or []
              if one_node(p) not in (None, case["expected"])]
    if not others:
        return
    paths = sorted({one_node(p) for p in others})
    answer, fail = mend.select(case["new"], " | ".join([case["expected"]] + paths))
    if fail:
        return
    values = {n["path"]: squash(n.get("value")) or None for n in (answer or {}).get("nodes") or []}
    expected = values.get(case["expected"])
    for p in others:
        if expected and values.get(one_node(p)) == expected:
            p["same_value"] = True


def harness_failure(e):
    return {"step": "harness", "command": "-", "exit": None, "what": "the harness failed on mend's output",
            "stderr": repr(e)[-400:]}


def run_case(task):
    case, opts, judge = task
    case = dict(case, _adapt={"search_scope": opts.get("search_scope"),
                              "min_confidence": opts.get("min_confidence"),
                              "drift_confidence": opts.get("drift_confidence")})
    mend = Mend(opts["mend"], opts.get("timeout", RUN_TIMEOUT))
    d = Path(opts["work"]) / "runs" / case["track"] / digest(case["id"])
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    out = {k: case.get(k) for k in ("id", "track", "kind", "severity", "source", "elements", "target", "expected")}
    if case["track"] == "swde":
        out["expected_values"] = case.get("expected_values")
    if case["track"] == "records":
        out["items"] = len(case["items"])
        out["expected_items"] = case["expected_items"]
    # The robust XPath, made on the old page (for swde, on page 0000 when the unit was prepared).
    robust = None
    try:
        if case["track"] == "swde":
            robust = case.get("robust")
        elif case["track"] == "records":
            robust = make_robust(mend, case["old"], " | ".join(case["items"]))
        elif opts["robust"]:
            robust = make_robust(mend, case["old"], case["target"])
    except Exception as e:
        robust = {"failure": harness_failure(e)}
    try:
        out["mend"] = mend_side(mend, case, d, robust)
    except Exception as e:  # never dropped: a case the harness cannot follow is wrong, and listed
        out["mend"] = failed({"verdict": None}, harness_failure(e))
    if opts["stale"] and case["track"] not in ("swde", "records"):
        try:  # no healing: the target's own path on the new page, judged as a wrapper with --heal off
            out["stale"] = robust_side(mend, case, {"xpath": case["target"], "fallback": None})
        except Exception as e:
            out["stale"] = failed({"verdict": None}, harness_failure(e))
    if opts["robust"]:
        try:
            out["robust"] = robust_side(mend, case, robust or {"failure": harness_failure("no robust XPath")})
        except Exception as e:
            out["robust"] = failed({"verdict": None}, harness_failure(e))
    if opts["scrapling"] and case["track"] != "records":
        try:
            out["scrapling"] = scrapling_side(case, d, judge)
        except Exception as e:
            out["scrapling"] = {"verdict": "error", "note": repr(e)}
    if case["track"] == "wide-pairs" and case.get("expected"):
        try:
            same_value(mend, case, out)
        except Exception as e:
            out["mend"] = failed(out["mend"], harness_failure(e))
        try:
            same_value_proposals(mend, case, out)
        except Exception as e:
            # The marks are the training's labels, not a verdict: a failure leaves them out, said.
            out["mend"]["same_value_failure"] = repr(e)[-400:]
    if not opts["keep"]:
        shutil.rmtree(d, ignore_errors=True)
        if case["track"] == "swde":
            pid = case["id"].rsplit("/", 1)[1]
            for f in Path(case["unit"]).glob(f"*-{pid}.*"):
                f.unlink()
    return out


# ---------------------------------------------------------------- report

TOOL_NAMES = {"mend": "mend", "scrapling": "Scrapling", "robust": "robust XPath", "stale": "no healing"}
VERDICTS = ("correct", "wrong", "abstain")
RISK_THRESHOLDS = [round(0.5 + 0.05 * i, 2) for i in range(10)]
RELIABILITY_BINS = [(round(0.1 * i, 1), round(0.1 * (i + 1), 1)) for i in range(10)]


def tools_of(args):
    tools = {"mend": TOOL_NAMES["mend"]}
    if args.scrapling:
        tools["scrapling"] = TOOL_NAMES["scrapling"]
    if args.robust:
        tools["robust"] = TOOL_NAMES["robust"]
    if args.stale:
        tools["stale"] = TOOL_NAMES["stale"]
    return tools


def tally(outcomes, tool):
    """Verdict counts of one tool; `error` = Scrapling could not be judged, `not run` = no result."""
    t = {"correct": 0, "wrong": 0, "abstain": 0, "error": 0, "not run": 0, "failures": 0}
    for o in outcomes:
        r = o.get(tool)
        if r is None:
            t["not run"] += 1
            continue
        t[r["verdict"] if r.get("verdict") in VERDICTS else "error"] += 1
        t["failures"] += bool(r.get("failure"))
    return t


def fmt_tally(t):
    n = t["correct"] + t["wrong"] + t["abstain"]
    if not n:
        return n, ["-", "-", "-"]
    return n, [f"{t[k]} ({pct(t[k], n):.1f}%)" for k in VERDICTS]


def table_by(outcomes, key, tools, title):
    lines = [f"| {title} | n | " + " | ".join(
        f"{name} correct | {name} wrong | {name} abstain" for name in tools.values()) + " |"]
    lines.append("| --- " * (2 + 3 * len(tools)) + "|")
    groups = {}
    for o in outcomes:
        groups.setdefault(key(o), []).append(o)
    for g in sorted(groups, key=lambda x: (str(type(x)), x)):
        cells = []
        for tool in tools:
            cells += fmt_tally(tally(groups[g], tool))[1]
        lines.append(f"| {g} | {len(groups[g])} | " + " | ".join(cells) + " |")
    return lines


def risk_coverage(os_):
    """Over the cases where mend attempted a heal: for each t, the applied heals with a calibrated
    confidence (or a raw score) at or above t, their share of the attempts (coverage) and the share of them whose
    answer is wrong (risk)."""
    heals = [o["mend"] for o in os_ if o["mend"].get("healed")]
    rows = []
    for t in RISK_THRESHOLDS:
        row = {"t": t}
        for key in ("confidence", "score"):
            ans = [h for h in heals if h.get("status") == "applied" and (h.get(key) or 0) >= t - 1e-12]
            wrong = sum(1 for h in ans if h.get("answer_ok") is False)
            row[key] = {"answered": len(ans), "wrong": wrong, "coverage": pct(len(ans), len(heals)),
                        "risk": pct(wrong, len(ans)) if ans else None}
        rows.append(row)
    return {"attempted": len(heals), "applied": sum(h.get("status") == "applied" for h in heals), "rows": rows}


def reliability(os_):
    """Applied heals by score bin: how many, their mean score, the share whose answer is right."""
    # mend's calibrated confidence (a binary from before it existed: its raw score).
    scored = [dict(o["mend"], score=o["mend"]["confidence"] if o["mend"].get("confidence") is not None
                   else o["mend"].get("score"))
              for o in os_ if o["mend"].get("status") == "applied"
              and (o["mend"].get("confidence") is not None or o["mend"].get("score") is not None)]
    out = []
    for lo, hi in RELIABILITY_BINS:
        inb = [h for h in scored if lo <= h["score"] < hi or (hi == 1.0 and h["score"] >= 1.0)]
        if inb:
            out.append({"lo": lo, "hi": hi, "n": len(inb), "mean_score": sum(h["score"] for h in inb) / len(inb),
                        "right": sum(1 for h in inb if h.get("answer_ok") is True),
                        "share_right": sum(1 for h in inb if h.get("answer_ok") is True) / len(inb)})
    return out


def set_relation(selected, expected):
    """How an answer relates to the expected set of nodes (a record XPath's items, or what the
    wrapper's XPath selected on the capture page)."""
    s, e = set(selected), set(expected)
    if not s:
        return "empty"
    if s == e:
        return "equal"
    if s < e:
        return "subset"
    if s > e:
        return "superset"
    return "overlap" if s & e else "disjoint"


CARRIES = ("same", "more", "nothing", "other")


def carry_tally(outcomes):
    """How the XPaths mend's heals wrote do on the capture page: a count for each of
    CARRIES, over the cases whose run wrote one (records excluded)."""
    tally_ = {k: 0 for k in CARRIES}
    for o in outcomes:
        k = (o.get("mend") or {}).get("carries_back")
        if k in tally_:
            tally_[k] += 1
    return tally_


def summarise(outcomes, tools):
    by_track = {}
    for o in outcomes:
        by_track.setdefault(o["track"], []).append(o)
    summary = {"tracks": {}, "failures": {}, "risk_coverage": {}, "reliability": {}}
    for track, os_ in sorted(by_track.items()):
        summary["tracks"][track] = {"n": len(os_), **{tool: tally(os_, tool) for tool in tools},
                                    "mend_heals": sum(1 for o in os_ if (o.get("mend") or {}).get("healed")),
                                    "mend_violated": sum(1 for o in os_ if (o.get("mend") or {}).get("violated")),
                                    "carries_back": carry_tally(os_)}
        summary["failures"][track] = {
            tool: [{"id": o["id"], **o[tool]["failure"]} for o in os_ if (o.get(tool) or {}).get("failure")]
            for tool in tools if tool != "scrapling"}
        summary["risk_coverage"][track] = risk_coverage(os_)
        summary["reliability"][track] = reliability(os_)
        if track == "records":
            rec = {"union_of_positions": {t: sum(1 for o in os_ if (o.get(t) or {}).get("union_of_positions"))
                                          for t in tools if t != "scrapling"},
                   "wrapper_start": {}, "wrong_by_relation": {}}
            for o in os_:
                start = o["mend"].get("start_from") or "-"
                rec["wrapper_start"][start] = rec["wrapper_start"].get(start, 0) + 1
            for t in tools:
                if t == "scrapling":
                    continue
                rel = {}
                for o in os_:
                    r = o.get(t) or {}
                    if r.get("verdict") == "wrong":
                        k = "failure" if r.get("failure") else r.get("relation", "?")
                        rel[k] = rel.get(k, 0) + 1
                rec["wrong_by_relation"][t] = rel
            rec["robust_fallback"] = sum(1 for o in os_ if (o.get("robust") or {}).get("fallback"))
            summary["records"] = rec
    return summary


def report(outcomes, args, timings, summary):
    tools = tools_of(args)
    L = ["# Healing: mend, Scrapling and a robust XPath on the same cases", ""]
    L.append(f"mend `{args.mend}`; Scrapling {args.scrapling_version or 'not run'}; "
             f"robust-XPath baseline {'on' if args.robust else 'not run'}; "
             f"{'site templates on swde (mend template, pages 0196-0199); ' if args.site_template else ''}"
             f"tracks {','.join(args.tracks)}{' (quick slice)' if args.quick else ''}; jobs {args.jobs}; "
             f"{len(outcomes)} cases; wall time {timings['total']:.0f} s "
             f"(preparation {timings['prepare']:.0f} s, cases {timings['cases']:.0f} s).")
    L.append("")
    L.append("A mend command that fails (a crash, an exit code other than 0 or 1, a time-out, output that does "
             "not read back) makes the case **wrong** for that column; such cases stay in every table and are "
             "listed under Failures. The robust XPath is made by `mend xpath OLD EXPR --robust` on the old page "
             "and evaluated on the new page without healing. Scrapling percentages are of the cases it could be "
             "judged on (harness errors are counted below); `-` = not run on that track.")
    L.append("")
    by_track = {}
    for o in outcomes:
        by_track.setdefault(o["track"], []).append(o)
    L += ["## Per track", ""]
    L += table_by(outcomes, lambda o: o["track"], tools, "track")
    L.append("")
    L += ["mend's heals (adaptations proposed or applied) and patterns left violated, per track; on the "
          "reload tracks a right answer needs neither:", ""]
    L.append("| track | n | heals | violated |")
    L.append("| --- | --- | --- | --- |")
    for tr, t in summary["tracks"].items():
        L.append(f"| {tr} | {t['n']} | {t['mend_heals']} | {t['mend_violated']} |")
    L.append("")
    carried = {tr: t["carries_back"] for tr, t in summary["tracks"].items() if sum(t["carries_back"].values())}
    if carried:
        L += ["What the XPaths mend's heals wrote select on the page the wrapper was captured on (an "
              "XPath that tests only the new page's content selects nothing there):", ""]
        L.append("| track | XPaths written | the captured target | it and more | nothing | other nodes |")
        L.append("| --- | --- | --- | --- | --- | --- |")
        for tr, c in carried.items():
            L.append(f"| {tr} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in CARRIES) + " |")
        L.append("")

    L += ["## Failures (judged wrong)", ""]
    fails = summary["failures"]
    ftools = [t for t in tools if t != "scrapling"]
    if not any(fails[tr][t] for tr in fails for t in ftools):
        L += ["No mend command failed.", ""]
    else:
        L.append("| track | n | " + " | ".join(f"{tools[t]} failures" for t in ftools) + " |")
        L.append("| --- " * (2 + len(ftools)) + "|")
        for tr, per in fails.items():
            L.append(f"| {tr} | {len(by_track[tr])} | " + " | ".join(str(len(per[t])) for t in ftools) + " |")
        L.append("")
        for t in ftools:
            for tr in fails:
                ex = fails[tr][t]
                if not ex:
                    continue
                L.append(f"First failures, {tools[t]}, `{tr}` ({len(ex)} in all):")
                L.append("")
                for f in ex[:3]:
                    tail = " ".join((f.get("stderr") or "").split())[-200:]
                    L.append(f"- `{f['id']}`: {f['step']} `{f['command'][:160]}` → {f['what']}"
                             f"{'' if f.get('exit') is None else ' ' + str(f['exit'])}: {tail or '(no stderr)'}")
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
            s = "failed" if m.get("failure") else (m.get("status") or "no heal")
            st.setdefault(s, {"correct": 0, "wrong": 0, "abstain": 0})[m["verdict"]] += 1
        L.append("mend by adaptation status: " + "; ".join(
            f"{s} {sum(v.values())} ({v['correct']} correct, {v['wrong']} wrong, {v['abstain']} abstain)"
            for s, v in sorted(st.items())) + ".")
        if args.scrapling and track != "records":
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
        if args.robust:
            rb = [o["robust"] for o in os_]
            L.append(f"robust XPath: made for {sum(1 for r in rb if r.get('xpath'))} of {len(rb)} cases "
                     f"({'on page 0000, once per site and field' if track == 'swde' else 'on the old page'}), "
                     f"a fallback (no robust form found) on {sum(1 for r in rb if r.get('fallback'))}, "
                     f"a union of positional paths on {sum(1 for r in rb if r.get('union_of_positions'))}, "
                     f"failed on {sum(1 for r in rb if r.get('failure'))}.")
        if track == "records":
            rec = summary["records"]
            L.append(f"Record XPaths that are a union of positional paths after the run (union-of-positions): "
                     f"mend **{rec['union_of_positions'].get('mend', 0)}** (must be 0)"
                     + (f", robust XPath {rec['union_of_positions'].get('robust', 0)}" if args.robust else "") + ".")
            L.append("mend's wrapper started from: " + ", ".join(
                f"{k} {v}" for k, v in sorted(rec["wrapper_start"].items())) + " (the common path when the robust "
                "XPath is a fallback, a union of positions, or does not select the item set).")
            L.append("Wrong answers by what they selected: " + "; ".join(
                f"{tools[t]}: " + (", ".join(f"{k} {v}" for k, v in sorted(rel.items())) or "none")
                for t, rel in rec["wrong_by_relation"].items()) + ".")
        if track == "swde":
            needless = sum(1 for o in os_ if (o.get("mend") or {}).get("plain_value_ok"))
            needed = sum(1 for o in os_ if (o.get("mend") or {}).get("healed")
                         and (o.get("mend") or {}).get("plain_value_ok") is False)
            L += ["", f"mend's heals: {needed} needed (the recorded XPath gave no right value on the page), "
                  f"{needless} needless (it still gave the right value: counted wrong above, whatever the "
                  "heal's value).", "",
                  "Values, whatever the verdict (for mend a heal that abstains still leaves the stale XPath's "
                  "value):", "",
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
                        r = o.get(tool)
                        if r is None or r.get("verdict") not in VERDICTS:
                            continue
                        v = r.get("value")
                        if v in (None, ""):
                            what = "right" if o.get("expected_values") is None else "none"
                        else:
                            what = "right" if r.get("value_ok") else "wrong"
                        cnt[(what, bool(r.get("healed")))] = cnt.get((what, bool(r.get("healed"))), 0) + 1
                    L.append(f"| {g} | {name} | " + " | ".join(
                        str(cnt.get((w, h), 0)) for w in ("right", "wrong", "none") for h in (False, True)) + " |")
        errs = sum(1 for o in os_ if (o.get("scrapling") or {}).get("verdict") == "error")
        if errs:
            L.append(f"Scrapling harness errors (not counted): {errs}.")
        L.append("")

    L += ["## Risk and coverage of mend's heals", "",
          "Over the cases where mend attempted a heal (an adaptation was reported): coverage = share of them that "
          "mend answers (an applied heal) with a calibrated confidence (or raw score) at or above t; risk = share of those answers "
          "that are wrong (swde: a wrong value; records: not exactly the item set).", ""]
    for track in sorted(by_track):
        rc = summary["risk_coverage"][track]
        if not rc["attempted"]:
            L += [f"**{track}**: no heal attempted.", ""]
            continue
        L.append(f"**{track}** ({rc['attempted']} heals attempted, {rc['applied']} applied)")
        L.append("")
        L.append("| t | answered (confidence ≥ t) | coverage | risk | answered (raw score ≥ t) | coverage | risk |")
        L.append("| --- | --- | --- | --- | --- | --- | --- |")
        for row in rc["rows"]:
            cells = [f"{row['t']:.2f}"]
            for key in ("confidence", "score"):
                r = row[key]
                cells += [str(r["answered"]), f"{r['coverage']:.1f}%",
                          "-" if r["risk"] is None else f"{r['risk']:.1f}%"]
            L.append("| " + " | ".join(cells) + " |")
        L.append("")

    L += ["## Reliability of mend's confidence", "",
          "Applied heals by bin of mend's calibrated confidence: answers right / applied heals in the bin (a perfectly calibrated score "
          f"has a share right equal to the score). Plot: {summary.get('plot') or 'none'}.", ""]
    rel_tracks = [t for t in sorted(by_track) if summary["reliability"][t]]
    if rel_tracks:
        L.append("| score | " + " | ".join(rel_tracks) + " |")
        L.append("| --- " * (1 + len(rel_tracks)) + "|")
        for lo, hi in RELIABILITY_BINS:
            cells = []
            for t in rel_tracks:
                b = next((b for b in summary["reliability"][t] if b["lo"] == lo), None)
                cells.append("-" if b is None else f"{b['right']}/{b['n']} ({100 * b['share_right']:.0f}%)")
            if any(c != "-" for c in cells):
                L.append(f"| {lo:.1f}–{hi:.1f} | " + " | ".join(cells) + " |")
        L.append("")
    else:
        L += ["No heal was applied.", ""]

    L += ["## Heal time by page size", "",
          "mend: wall time of the `mend run --heal auto` process (start-up and parsing included) and of "
          "snapshot + run, over cases where a heal was triggered; Scrapling: the adaptive `xpath()` call "
          "that relocates (parsing excluded), over cases where the saved selector matched nothing. "
          "Page size: elements of the new page in mend's tree. Milliseconds.", ""]
    L.append("| page size | mend n | mend run median | mend run p95 | snapshot+run median | "
             "Scrapling n | Scrapling median | Scrapling p95 |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for _, name in BUCKETS:
        hs = [o for o in outcomes if bucket(o["elements"]) == name and o["mend"].get("healed")
              and o["mend"].get("run_ms") is not None]
        ms = [o["mend"] for o in hs]
        sc = [o["scrapling"]["reloc_ms"] for o in outcomes
              if args.scrapling and bucket(o["elements"]) == name
              and (o.get("scrapling") or {}).get("reloc_ms") is not None]
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


def write_plot(summary, path):
    """The reliability plot (matplotlib, Agg): mean score of each bin against the share of answers
    right, one line per track, the diagonal, and the applied heals per bin below.  Returns None, or
    why there is no plot."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -r bench/requirements.txt), so no reliability plot"
    rel = {t: bins for t, bins in summary["reliability"].items() if bins}
    fig, (ax, axn) = plt.subplots(2, 1, figsize=(6.4, 7.2), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="calibrated")
    width = 0.1 / (len(rel) + 1)
    for i, (track, bins) in enumerate(sorted(rel.items())):
        xs = [b["mean_score"] for b in bins]
        ys = [b["share_right"] for b in bins]
        line, = ax.plot(xs, ys, marker="o", label=f"{track} ({sum(b['n'] for b in bins)} heals)")
        ax.scatter(xs, ys, s=[12 + 6 * b["n"] ** 0.5 for b in bins], color=line.get_color(), alpha=0.35)
        axn.bar([b["lo"] + width * (i + 0.5) for b in bins], [b["n"] for b in bins], width=width,
                color=line.get_color(), align="edge")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("share of applied heals whose answer is right")
    ax.set_title("mend: reliability of the calibrated heal confidence")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    if not rel:
        ax.text(0.5, 0.5, "no heal was applied", ha="center", va="center")
    axn.set_xlabel("mend's score of the applied heal (bins of 0.1)")
    axn.set_ylabel("heals")
    axn.grid(alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tracks", default=",".join(TRACKS))
    ap.add_argument("--cases", action="append", default=[], help="extra case manifest (JSONL); may repeat")
    ap.add_argument("--quick", action="store_true",
                    help="all 42 google cases, 10 mutant cases a site, christianbook isbn_13 on pages 0001-0020, "
                         "bench/record_cases.py's --quick slice")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-scrapling", dest="scrapling", action="store_false")
    ap.add_argument("--no-stale", dest="stale", action="store_false",
                    help="leave out the no-healing column (the target's own XPath on the new page, never healed)")
    ap.add_argument("--no-robust", dest="robust", action="store_false",
                    help="leave out the robust-XPath baseline column")
    ap.add_argument("--site-template", action="store_true",
                    help="on the swde track, learn each site's template (mend template, pages 0196-0199) "
                         "before the snapshot")
    ap.add_argument("--min-confidence", type=float, default=None,
                    help="the wrappers' adapt.min_confidence (default: the heal model's own threshold); 0 "
                         "applies every candidate the search proposes, for the model's training data "
                         "(bench/train_model.py)")
    ap.add_argument("--drift-confidence", type=float, default=None,
                    help="the wrappers' adapt.drift_confidence (default: the heal model's own); 1 sends every "
                         "field to be checked by a heal, so that every case reports what the model read of its "
                         "XPath's selection (bench/train_model.py)")
    ap.add_argument("--search-scope", choices=["parent-first", "page"], default=None,
                    help="the wrappers' adapt.search_scope (default: mend's own, parent-first): page "
                         "searches the whole page at once, for comparing the two")
    ap.add_argument("--mutant-cap", type=int, default=None, help="at most N cases a mutant page")
    ap.add_argument("--swde-pages", type=int, default=199, help="pages 0001..N of each SWDE site")
    ap.add_argument("--swde-capture", type=int, default=1,
                    help="capture each SWDE wrapper over page 0000 and the next N-1 pages where its XPath gives "
                         "the true value (one mend snapshot of N pages, as the README recommends three), and judge "
                         "the other pages (default 1: page 0000 alone)")
    ap.add_argument("--records-seed", type=int, default=1, help="seed of the generated records cases")
    ap.add_argument("--mend", default=os.environ.get("MEND", str(REPO / "target" / "release" / "mend")))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--work", default=str(REPO / "target" / "heal-cases"))
    ap.add_argument("--report", help="also write the Markdown report here")
    ap.add_argument("--json", help="write every case's outcome and the summary here (a JSON object)")
    ap.add_argument("--plot", help="the reliability plot (PNG; default beside --report, else beside --json, "
                    "else WORK/reliability.png)")
    ap.add_argument("--keep", action="store_true", help="keep each case's wrapper, tree-grams and stores")
    ap.add_argument("--timeout", type=float, default=RUN_TIMEOUT, help="seconds before a mend process is killed "
                    "(the case is then a failure, judged wrong)")
    ap.add_argument("--floor", help="a JSON file of per-track floors for mend, "
                    '{"track": {"min_correct": PCT, "max_wrong": PCT}}; exit 1 when one is not met')
    args = ap.parse_args()
    args.tracks = [t.strip() for t in args.tracks.split(",") if t.strip()]
    for t in args.tracks:
        if t not in TRACKS:
            ap.error(f"unknown track {t!r} (tracks: {', '.join(TRACKS)})")
    if not Path(args.mend).is_file():
        ap.error(f"no mend binary at {args.mend}: build it (cargo build --release --bin mend) or pass --mend PATH")
    args.mend = str(Path(args.mend).resolve())
    args.scrapling_version = None
    if args.scrapling:
        try:
            import scrapling

            args.scrapling_version = scrapling.__version__
        except ImportError:
            ap.error("Scrapling is not installed: pip install -r bench/requirements.txt (or pass --no-scrapling)")
    if args.plot is None:
        beside = args.report or args.json
        args.plot = str(Path(beside).with_name(Path(beside).stem + "-reliability.png")) if beside \
            else str(Path(args.work) / "reliability.png")

    start = time.perf_counter()
    mend = Mend(args.mend, args.timeout)
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
        sc, units = swde_cases(mend, pages, data, work, fields, n, max(1, args.swde_capture))
        cases += sc
    for m in args.cases:
        cases += [c for c in load_manifest(m) if c["track"] in args.tracks]
    if "records" in args.tracks and not any(c["track"] == "records" for c in cases):
        cases += record_cases(args, work)
    for track in {c["track"] for c in cases}:
        with open(work / "manifests" / f"{track}.jsonl", "w") as f:
            for c in cases:
                if c["track"] == track:
                    f.write(json.dumps(c, ensure_ascii=False) + "\n")
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise SystemExit("case ids are not unique")
    for c in cases:
        if c["track"] == "records" and not c.get("items"):
            raise SystemExit(f"{c['id']}: a records case needs `items` and `expected_items` (bench/record_cases.py)")

    # Marks for judging Scrapling: the target on the old page, the expected node on the new.
    tasks = []
    want = {}
    node_cases = [c for c in cases if c["track"] not in ("swde", "records")]
    for c in node_cases:
        want.setdefault(str(Path(c["old"]).resolve()), set()).add(c["target"])
        if c["expected"]:
            want.setdefault(str(Path(c["new"]).resolve()), set()).add(c["expected"])
    marks = {}
    for page, paths in want.items():
        for p, v in pages.marks(page, sorted(paths)).items():
            marks[(page, p)] = v
    skipped = []
    for c in cases:
        if c["track"] == "records":  # mend's tree only: no judging copy (Scrapling is not run on lists)
            if c.get("elements") is None:
                c["elements"] = pages.page(c["new"])["elements"]
            tasks.append((c, None, None))
            continue
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
        prepare_swde_unit(mend, unit, args.scrapling, args.robust, args.site_template)
    by_unit = {u["dir"]: u for u in units}
    for c, _, _ in tasks:
        if c["track"] == "swde":
            u = by_unit[c["unit"]]
            c["snapshot_failure"] = u.get("snapshot_failure")
            c["robust"] = u.get("robust")
    prepared = time.perf_counter()
    opts = {"mend": args.mend, "work": str(work), "scrapling": args.scrapling, "robust": args.robust,
            "stale": args.stale,
            "keep": args.keep, "timeout": args.timeout, "search_scope": args.search_scope,
            "min_confidence": args.min_confidence, "drift_confidence": args.drift_confidence}
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
    tools = tools_of(args)
    summary = summarise(outcomes, tools)
    why_not = write_plot(summary, args.plot)
    if why_not:
        print(f"note: {why_not}", file=sys.stderr)
        summary["plot"] = None
        summary["plot_note"] = why_not
    else:
        summary["plot"] = args.plot
    uop = (summary.get("records") or {}).get("union_of_positions", {}).get("mend", 0)
    if uop:
        print(f"warning: records: mend rewrote {uop} record XPaths into a union of positional paths", file=sys.stderr)
    floors = json.loads(Path(args.floor).read_text()) if args.floor else None
    floor_failures = check_floor(outcomes, floors, tools) if floors is not None else []
    summary["floor"] = {"file": args.floor, "failures": floor_failures} if floors is not None else None
    text = report(outcomes, args, timings, summary)
    if why_not:
        text += f"\nNo reliability plot: {why_not}.\n"
    if skipped:
        text += "\n" + f"{len(skipped)} cases skipped: " + "; ".join(f"{i}: {why}" for i, why in skipped[:10]) + "\n"
    print(text)
    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(text + "\n")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"timings": timings, "skipped": skipped, "summary": summary,
                                               "cases": outcomes}, ensure_ascii=False, indent=1) + "\n")
    if floors is not None:
        for f in floor_failures:
            print(f"FLOOR: {f}", file=sys.stderr)
        if floor_failures:
            sys.exit(1)
        print(f"mend is at or above every floor in {args.floor}", file=sys.stderr)


def check_floor(outcomes, floors, tools=("mend",)):
    """The floors missed.  Per track: mend's share of correct cases must not fall below
    min_correct and its share of wrong cases not rise above max_wrong (percent of every case of
    the track: a failed mend command is a wrong case, never left out); max_union_of_positions caps
    the records whose final XPath is a union of positional paths; max_heals caps the cases mend healed
(the reload track's 0).  A track's optional "robust"
    object holds the same keys for the robust-XPath column (checked when that column ran)."""
    failures = []
    for track, floor in floors.items():
        cases = [o for o in outcomes if o["track"] == track]
        if not cases:
            failures.append(f"{track}: no case was judged")
            continue
        checks = [("mend", "mend", floor)]
        if isinstance(floor.get("robust"), dict) and "robust" in tools:
            checks.append(("robust", "robust XPath", floor["robust"]))
        for tool, name, fl in checks:
            verdicts = [(o.get(tool) or {}).get("verdict") for o in cases]
            share = {v: 100.0 * sum(1 for x in verdicts if x == v) / len(verdicts) for v in ("correct", "abstain")}
            share["wrong"] = 100.0 - share["correct"] - share["abstain"]  # anything not judged counts as wrong
            if share["correct"] < fl.get("min_correct", 0):
                failures.append(f"{track}: {name} {share['correct']:.1f}% correct, under the floor {fl['min_correct']}%")
            if share["wrong"] > fl.get("max_wrong", 100):
                failures.append(f"{track}: {name} {share['wrong']:.1f}% wrong, over the ceiling {fl['max_wrong']}%")
            if "max_heals" in fl and tool == "mend":
                n = sum(1 for o in cases if (o.get(tool) or {}).get("healed"))
                if n > fl["max_heals"]:
                    failures.append(f"{track}: {name} healed {n} cases (at most {fl['max_heals']}: "
                                    f"a reload is not a redesign)")
            if "max_union_of_positions" in fl:
                n = sum(1 for o in cases if (o.get(tool) or {}).get("union_of_positions"))
                if n > fl["max_union_of_positions"]:
                    failures.append(f"{track}: {name} left {n} record XPaths that are a union of positional paths "
                                    f"(at most {fl['max_union_of_positions']})")
    return failures


if __name__ == "__main__":
    main()
