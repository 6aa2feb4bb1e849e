#!/usr/bin/env python3
"""Healing cases over many sites: the wide corpus, split by site (bench/split.json).

Writes harness cases (bench/heal_harness.py's format) for the sites of one or
more splits of bench/split.py, so that a learned heal model is trained on the
train split's cases, its thresholds are chosen on validation's, and results
are reported on test's.  Test cases are read only in aggregate: no rule,
constant or feature of mend may be changed because of a test case.

Sources (read from --data, never copied into the repository):

* ``wide/<folder>``: each page's ``targets.jsonl`` rows with ``match ==
  "exact"``, an XPath (not inside <svg>/<math>), not in <head>, whose element
  is a body element other than <body> itself (head and meta values are not
  healing targets).  The page is parsed with html5lib as the rows' XPaths
  were (decoded with the row's ``encoding``), and the row's XPath must select
  one element with the row's tag.  Pages that lxml refuses (control
  characters) are skipped.
* ``zyte_article_extraction_benchmark`` and ``swde_subset``: bench/mutate.py's
  targets (headline, lead, author, date; the SWDE book fields), mutation only.

Families (``track``):

* ``wide-mutation``: bench/mutate.py's kinds (rename, wrap, unwrap, siblings,
  tag, text, move) at severities 1-3, and ``control`` cases (severity 0, the
  new page is the old page), made by mutate.py's Generator.make_for, so one
  case in eight deletes the target (half of those leaving a lookalike far
  away) exactly as there.
* ``wide-pairs``: two different pages A and B of one site in one folder (a
  recipe site's two recipes, a news site's articles, mercury's old and new
  templates), both directions.  The target is the exact element of field F on
  A (a single value, a list's container or its first item), the expected
  element the exact element of F on B.  When B's truth has no F at all (in
  ``null_fields``) the expected element is null (kind ``pair-gone``); when
  F is on B but not matched exactly there, or B's truth does not say (F
  neither among its values nor in its ``null_fields``: a page nobody
  annotated for F), no case.  A list whose items are snippets a person
  picked (trafilatura-eval's ``with`` and ``without``) makes no pair: its
  first item on A and on B are not one field.

Spreading.  Each site has slots 0..--per-site-1.  A site with pairs uses
its even slots for a pair and its odd slots for a mutation; other sites only
mutate.  Slot j's kind and severity (one of the 21 cells or control, 1 in
22) and its draw number i come from sha256(SEED/SITE/j); it tries up to four
of the site's candidates, spread over fields (a seeded shuffle in each field,
fields taken in turn).  Sites are visited round robin in a seeded order
(sha256(SEED/order/SITE)): every site's slot 0, then every site's slot 1, and
so on, until --max-cases cases are made.  A slot's case depends only on the
seed, the site and j, never on the other sites, --per-site or --max-cases, so
the --quick slice is a subset of the default set and runs are reproducible
byte for byte, with one worker or two.

Manifest: ``DIR/cases.jsonl``, bench/mutate.py's rows (see its docstring)
with ``track`` set to the family and ``split``, ``site`` and ``folder``
added.  A pair's ``kind`` is ``pair`` or ``pair-gone``, its severity 0, its
``changes`` names page B, and it has a ``field``.  Pages are html5lib trees
serialised as mutate.py does (UTF-8, charset rewritten), under
``DIR/cases/<id>/old.html`` and ``new.html``.  Every case is checked with
mend when written (the target and expected element marked, the pages probed
with `mend xpath`: one element at the path html5lib gives, the same element
count) and again after the manifest is written (mutate.check_case: the target
path selects one element of old, the expected path one of new).

Default sizes: train 1,500 cases, validation 600, test 600 (--max-cases
overrides, for all the splits together); --quick 60 a split.

Usage:
    python3 bench/wide_cases.py --data ../shared/data --split train --out DIR --seed 1
        [--per-site N] [--max-cases N] [--quick] [--jobs N] [--mend PATH] [--no-check] [--verbose]
    python3 bench/wide_cases.py --split validation,test --out DIR      # several splits in one manifest
    python3 bench/wide_cases.py --check DIR                             # re-verify a written folder
"""

import argparse
import collections
import concurrent.futures
import copy
import gzip
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from urllib.parse import urlsplit

import html5lib

import mutate
import split as splits

DEFAULT_SIZES = {"train": 1500, "validation": 600, "test": 600}
QUICK_SIZE = 60
CONTROL_CELL = len(mutate.KINDS) * len(mutate.SEVERITIES) + 1   # as mutate.make_cases numbers it
CELLS = [(k, s) for k in mutate.KINDS for s in mutate.SEVERITIES] + [("control", 0)]
TRIES = 4                   # candidates a slot tries before it gives up
TRY_STEP = 5                # a slot's k-th try takes candidate (slot + TRY_STEP * k)
NOT_TARGETS = {"html", "head", "body", "meta", "link", "title", "script", "style", "base", "noscript",
               "template"}
PAIR_ITEMS = (None, "all", 0)   # a pair's list field: its container or its first item
SAMPLED_LISTS = {"with", "without"}   # lists of hand-picked snippets, not of positions on the page
MAX_WORKERS = 2
TREE_CACHE = 6


def sha_int(text):
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


# --------------------------------------------------------------------------
# the corpus of the chosen splits (metadata only, read in the main process)

def usable_row(row):
    return row.get("match") == "exact" and row.get("xpath") and not row.get("in_head") \
        and row.get("tag") and row["tag"] not in NOT_TARGETS and "local-name()" not in row["xpath"]


def wide_pages(data):
    """{site: [page, ...]} of the wide folders; a page is a dict with its truth and usable targets."""
    base = os.path.join(data, "wide")
    out = collections.defaultdict(list)
    for folder in sorted(os.listdir(base)):
        truth_file = os.path.join(base, folder, "truth.jsonl")
        if not os.path.exists(truth_file):
            continue
        targets = collections.defaultdict(list)
        with open(os.path.join(base, folder, "targets.jsonl"), encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if usable_row(row):
                    targets[row["page"]].append(row)
        with open(truth_file, encoding="utf-8") as handle:
            for line in handle:
                t = json.loads(line)
                rows = targets.get(t["page"], [])
                fields = {k for k, v in t["fields"].items() if v not in (None, "", [])}
                out[splits.site_key(t["site"])].append({
                    "folder": folder, "page": t["page"], "path": os.path.join(base, folder, t["page"]),
                    "encoding": rows[0].get("encoding", "utf-8") if rows else "utf-8",
                    "fields": sorted(fields), "null_fields": sorted(t.get("null_fields") or []),
                    "targets": rows})
    return out


def zyte_pages(data):
    with open(os.path.join(data, "zyte_article_extraction_benchmark", "ground-truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)
    out = collections.defaultdict(list)
    for page_id in sorted(truth):
        out[splits.site_key(urlsplit(truth[page_id]["url"]).hostname)].append(page_id)
    return out


def load_sites(data, wanted, split_file):
    """The sites of the wanted splits, in the seeded round-robin order, as picklable dicts."""
    of = splits.load(split_file)
    wide, zyte = wide_pages(data), zyte_pages(data)
    swde = {v: k for k, v in splits.SWDE_SITES.items()}
    names = set(wide) | set(zyte) | set(swde)
    sites = []
    for name in names:
        split = of.get(name)
        if split is None:
            sys.exit("site %s is not in %s: regenerate it with bench/split.py" % (name, split_file))
        if split in wanted:
            sites.append({"site": name, "split": split, "wide": wide.get(name, []),
                          "zyte": zyte.get(name, []), "swde": swde.get(name)})
    return sites


def site_order(sites, seed):
    for s in sites:
        s["pairs"] = has_pairs(s, seed)
    return sorted(sites, key=lambda s: (sha_int("%s/order/%s" % (seed, s["site"])), s["site"]))


# --------------------------------------------------------------------------
# candidates of a site

def spread(items, field_of, rng):
    """items shuffled within each field, then fields taken in turn (fields in a shuffled order)."""
    groups = collections.OrderedDict()
    for item in items:
        groups.setdefault(field_of(item), []).append(item)
    fields = sorted(groups)
    rng.shuffle(fields)
    for f in fields:
        rng.shuffle(groups[f])
    out = []
    while any(groups.values()):
        for f in fields:
            if groups[f]:
                out.append(groups[f].pop(0))
    return out


def row_key(row):
    return (row["field"], row.get("item_index"))


def key_label(key):
    field, index = key
    return field if index is None else "%s.%s" % (field, index)


def pair_candidates(site, seed):
    """(folder, page A, page B, key, row on A, row on B or None) of a site, spread over fields."""
    by_folder = collections.OrderedDict()
    for p in site["wide"]:
        by_folder.setdefault(p["folder"], []).append(p)
    cands = []
    for folder, pages in by_folder.items():
        for a in pages:
            for b in pages:
                if a is b:
                    continue
                on_b = {row_key(r): r for r in b["targets"]}
                for row in a["targets"]:
                    key = row_key(row)
                    if key[1] not in PAIR_ITEMS or key[0] in SAMPLED_LISTS:
                        continue
                    if key in on_b:
                        cands.append((a, b, key, row, on_b[key]))
                    elif key[0] in b["null_fields"]:
                        # Only a field B's truth names as absent is gone:
                        # one it does not mention was never annotated there.
                        cands.append((a, b, key, row, None))
    rng = random.Random("%s/%s/pairs" % (seed, site["site"]))
    return spread(cands, lambda c: c[2][0], rng)


def has_pairs(site, seed):
    """Whether a site has a pair candidate (two pages of one folder sharing a field, or one without it)."""
    return bool(pair_candidates(site, seed))


def slot_plan(site, j, seed):
    """(family, index among the family's slots, kind, severity, cell, draw) of a site's slot j."""
    h = sha_int("%s/%s/%d" % (seed, site["site"], j))
    cell = h % len(CELLS)
    kind, severity = CELLS[cell]
    draw = (h // len(CELLS)) % 1000000007
    if kind == "control":
        cell = CONTROL_CELL
    if site["pairs"]:
        return ("pairs" if j % 2 == 0 else "mutation"), j // 2, kind, severity, cell, draw
    return "mutation", j, kind, severity, cell, draw


# --------------------------------------------------------------------------
# pages and targets (in a worker)

class WideSource(mutate.Source):
    """A wide page, decoded with its rows' encoding and parsed once per worker (a small cache)."""
    cache = collections.OrderedDict()

    def __init__(self, page, slug):
        name = os.path.basename(page["page"])[:-len(".html.gz")]
        super().__init__("wide", slug, "%s %s" % (page["folder"], name), page["path"], None)
        self.encoding = page["encoding"]

    def tree(self):
        cache = WideSource.cache
        if self.path not in cache:
            with gzip.open(self.path) as handle:
                text = handle.read().decode(self.encoding, errors="replace")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = html5lib.parse(text, treebuilder="lxml", namespaceHTMLElements=False)
                mutate.fix_charset(tree.getroot())
                drop_trailing(tree.getroot())
            except ValueError:          # lxml refuses control characters the page holds
                tree = None
            cache[self.path] = tree
            while len(cache) > TREE_CACHE:
                cache.popitem(last=False)
        cache.move_to_end(self.path)
        return cache[self.path]


def drop_trailing(root):
    """Drops the comments after </html>: lxml's deepcopy of a tree reverses their order."""
    for sibling in list(root.itersiblings()):
        root.append(sibling)        # a top-level node has no parent to remove it from
        root.remove(sibling)


def locate_row(row):
    def locate(root):
        hits = root.xpath(row["xpath"])
        if len(hits) != 1 or not mutate.is_el(hits[0]) or hits[0].tag != row["tag"]:
            return None
        e = hits[0]
        if mutate.in_skipped(e) or mutate.body_of(root) not in e.iterancestors():
            return None
        return e
    return locate


def wide_target(page, row, slug):
    value = row.get("value") if row.get("via") == "text" else None
    return mutate.Target(WideSource(page, slug), key_label(row_key(row)), locate_row(row), value)


_old_sources = {}


def old_targets(site, data):
    """bench/mutate.py's targets of a Zyte host or an SWDE site (SWDE read once per worker)."""
    out = []
    if site["zyte"]:
        out += mutate.zyte_targets(data, set(site["zyte"]))
    if site["swde"]:
        if "swde" not in _old_sources:
            _old_sources["swde"] = mutate.swde_targets(data)
        out += [t for t in _old_sources["swde"] if t.source.label.split()[1] == site["swde"]]
    return out


def mutation_candidates(site, seed, data):
    """Targets of a site for mutation, spread over fields: (folder, Target) pairs."""
    cands = [(p["folder"], p, row) for p in site["wide"] for row in p["targets"]]
    cands += [("zyte" if t.source.group == "zyte" else "swde", None, t) for t in old_targets(site, data)]
    rng = random.Random("%s/%s/mutation" % (seed, site["site"]))
    return spread(cands, lambda c: c[2]["field"] if c[1] is not None else c[2].field, rng)


def tries(n, index):
    seen = []
    for k in range(TRIES):
        position = (index + TRY_STEP * k) % n
        if position not in seen:
            seen.append(position)
    return seen


# --------------------------------------------------------------------------
# one slot (in a worker)

class Worker:
    def __init__(self, args):
        self.args = args
        self.mend = mutate.Mend(args.mend)
        self.gen = mutate.Generator(args, {}, self.mend)
        self.cands = {}

    def candidates(self, site, family):
        key = (site["site"], family)
        if key not in self.cands:
            if len(self.cands) > 64:
                self.cands.clear()
            if family == "pairs":
                self.cands[key] = pair_candidates(site, self.args.seed)
            else:
                self.cands[key] = mutation_candidates(site, self.args.seed, self.args.data)
        return self.cands[key]

    def slot(self, site, j):
        """The case of a site's slot j (a manifest row) or None."""
        family, index, kind, severity, cell, draw = slot_plan(site, j, self.args.seed)
        cands = self.candidates(site, family)
        if not cands:
            self.gen.stats["slot-without-candidates"] += 1
            return None
        slug = "wide-%s-%d" % (site["site"], j)
        for k, position in enumerate(tries(len(cands), index)):
            if family == "pairs":
                row = self.pair(site, j, cands[position])
            else:
                row = self.mutation(site, kind, severity, cell, draw, k, cands[position], slug)
            if row is not None:
                row["split"], row["site"] = site["split"], site["site"]
                return row
            self.gen.stats["%s-retry" % family] += 1
        self.gen.stats["%s-slot-failed" % family] += 1
        return None

    def mutation(self, site, kind, severity, cell, draw, k, cand, slug):
        folder, page, t = cand
        if page is not None:
            t = wide_target(page, t, slug)
        else:
            t = mutate.Target(mutate.Source(t.source.group, slug, t.source.label, t.source.path, t.source.raw),
                              t.field, t.locate, t.value)
        if t.source.tree() is None:
            self.gen.stats["page-unparsable"] += 1
            return None
        try:
            row = self.gen.make_for(kind, severity, cell, draw, t, k)
        except Exception as e:      # an operation that breaks on an odd page: counted, the next try goes on
            self.gen.stats["generator-error-%s" % type(e).__name__] += 1
            print("generator error on %s %s: %r" % (t.source.label, t.field, e), file=sys.stderr, flush=True)
            return None
        if row is None:
            return None
        row["track"] = "wide-mutation"
        row["folder"] = folder if page is not None else ("zyte_article_extraction_benchmark" if folder == "zyte"
                                                           else "swde_subset")
        return row

    def pair(self, site, j, cand):
        a, b, key, row_a, row_b = cand
        old_tree, old_path, old_html, _ = self.marked_page(a, row_a, "old")
        if old_tree is None:
            return None
        new_tree, new_path, new_html, count = self.marked_page(b, row_b, "new")
        if new_tree is None:
            return None
        if old_html.replace(mutate.MARK_TEXT, "") == new_html.replace(mutate.MARK_TEXT, ""):
            self.gen.stats["pair-same-page"] += 1
            return None
        cid = "pair-%s-%d-%s" % (site["site"], j, key_label(key))
        folder = os.path.join(self.args.out, "cases", cid)
        os.makedirs(folder, exist_ok=True)
        old_out, new_out = os.path.join(folder, "old.html"), os.path.join(folder, "new.html")
        for path, text in ((old_out, old_html), (new_out, new_html)):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text.replace(mutate.MARK_TEXT, ""))
        self.gen.stats["pair-made"] += 1
        name_a, name_b = (os.path.basename(p["page"])[:-len(".html.gz")] for p in (a, b))
        return collections.OrderedDict([
            ("id", cid), ("track", "wide-pairs"), ("kind", "pair" if row_b else "pair-gone"), ("severity", 0),
            ("old", old_out), ("new", new_out), ("target", old_path), ("expected", new_path),
            ("extract", "text"), ("source", "%s %s %s" % (a["folder"], name_a, key_label(key))),
            ("elements", count), ("changes", ["another page of the site: %s %s" % (b["folder"], name_b)
                                              + ("" if row_b else " (without %s)" % key[0])]),
            ("folder", a["folder"]), ("field", key_label(key)),
        ])

    def marked_page(self, page, row, name):
        """(tree, mend path of the marked element or None, html, element count) of a page with
        row's element marked (no mark when row is None), or Nones when mend's tree differs."""
        source = WideSource(page, "pair")
        if source.tree() is None:
            self.gen.stats["page-unparsable"] += 1
            return None, None, None, None
        tree = copy.deepcopy(source.tree())
        e = None
        if row is not None:
            e = locate_row(row)(tree.getroot())
            if e is None:
                self.gen.stats["pair-target-not-found"] += 1
                return None, None, None, None
            e.set(mutate.MARK, "1")
        html = mutate.serialise(tree)
        file = os.path.join(self.gen.work, name + ".html")
        with open(file, "w", encoding="utf-8") as handle:
            handle.write(html)
        paths, count = self.mend.probe(file)
        want = [tree.getpath(e)] if e is not None else []
        if paths != want or count != mutate.count_elements(tree.getroot()) \
                or html.count(mutate.MARK_TEXT) != len(want):
            self.gen.stats["pair-page-mismatch"] += 1
            return None, None, None, None
        return tree, (paths[0] if paths else None), html, count


_worker = None


def init_worker(args, tmp):
    global _worker
    tempfile.tempdir = tmp
    _worker = Worker(args)


def run_slot(task):
    site, j = task
    before = collections.Counter(_worker.gen.stats)
    row = _worker.slot(site, j)
    stats = collections.Counter(_worker.gen.stats)
    stats.subtract(before)
    return row, +stats


def check_row(task):
    mend_path, row = task
    mend = mutate.Mend(mend_path)
    try:
        return mutate.check_case(mend, row, same_value=row["track"] != "wide-pairs")
    finally:
        os.unlink(mend.exprs.name)


# --------------------------------------------------------------------------

def generate(args, sites, limit):
    """Rows, round robin over sites: every site's slot 0, then slot 1, ... until `limit` rows."""
    rows, stats = [], collections.Counter()
    tmp = os.path.join(args.out, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    window = 8 * args.jobs
    with concurrent.futures.ProcessPoolExecutor(args.jobs, initializer=init_worker, initargs=(args, tmp)) as pool:
        for j in range(args.per_site):
            tasks = [(s, j) for s in sites]
            for start in range(0, len(tasks), window):
                for row, st in pool.map(run_slot, tasks[start:start + window]):
                    stats.update(st)
                    if row is not None and len(rows) < limit:
                        rows.append(row)
                if len(rows) >= limit:
                    break
            print("  after slot %d: %d cases" % (j, len(rows)), flush=True)
            if len(rows) >= limit:
                break
    shutil.rmtree(tmp, ignore_errors=True)
    kept = {r["id"] for r in rows}
    for name in os.listdir(os.path.join(args.out, "cases")):   # cases made past the limit in the last window
        if name not in kept:
            shutil.rmtree(os.path.join(args.out, "cases", name))
    return rows, stats


def check(manifest, mend_path, jobs):
    rows = [json.loads(line) for line in open(manifest, encoding="utf-8") if line.strip()]
    problems = 0
    ids = collections.Counter(r["id"] for r in rows)
    for cid, n in ids.items():
        if n > 1:
            problems += 1
            print("%s: duplicate id" % cid)
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        for r, errors in zip(rows, pool.map(check_row, [(mend_path, r) for r in rows], chunksize=8)):
            if errors:
                problems += 1
                print("%s: %s" % (r["id"], "; ".join(errors)))
    print("checked %d cases: %d with problems" % (len(rows), problems))
    return problems


def summarise(rows):
    print("%-14s %6s %6s %6s %6s" % ("split", "cases", "sites", "mut", "pairs"))
    for split in splits.SPLITS:
        mine = [r for r in rows if r["split"] == split]
        if mine:
            print("%-14s %6d %6d %6d %6d" % (split, len(mine), len({r["site"] for r in mine}),
                                             sum(r["track"] == "wide-mutation" for r in mine),
                                             sum(r["track"] == "wide-pairs" for r in mine)))
    mut = [r for r in rows if r["track"] == "wide-mutation"]
    table = collections.Counter((r["kind"], r["severity"]) for r in mut)
    deleted = collections.Counter((r["kind"], r["severity"]) for r in mut if r["expected"] is None)
    print("%-9s %8s %8s %8s   (deleted targets in parentheses)" % ("kind", "s1", "s2", "s3"))
    for kind in mutate.KINDS:
        print("%-9s %s" % (kind, " ".join("%4d (%d)" % (table[(kind, s)], deleted[(kind, s)])
                                          for s in mutate.SEVERITIES)))
    print("%-9s %4d" % ("control", table[("control", 0)]))
    pairs = collections.Counter(r["kind"] for r in rows if r["track"] == "wide-pairs")
    folders = collections.Counter(r["folder"] for r in rows)
    print("mutation %d (deleted %d); pairs %s; folders: %s" % (
        len(mut), sum(deleted.values()), ", ".join("%s %d" % kv for kv in sorted(pairs.items())),
        ", ".join("%s %d" % kv for kv in sorted(folders.items()))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=mutate.DEFAULT_DATA, help="the shared data folder (default %(default)s)")
    parser.add_argument("--split", default="train", help="train, validation, test, or several joined by commas")
    parser.add_argument("--split-file", default=splits.DEFAULT_SPLIT, help="the split manifest (default %(default)s)")
    parser.add_argument("--out", help="output folder: pages under OUT/cases/, manifest OUT/cases.jsonl")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-site", type=int, default=4, help="at most N cases a site (default 4)")
    parser.add_argument("--max-cases", type=int, default=None,
                        help="at most N cases (default: train 1500, validation 600, test 600, summed)")
    parser.add_argument("--quick", action="store_true", help="%d cases a split (CI)" % QUICK_SIZE)
    parser.add_argument("--jobs", type=int, default=MAX_WORKERS, help="worker processes (at most 2)")
    parser.add_argument("--mend", default=None, help="mend binary (default target/release/mend, else mend on PATH)")
    parser.add_argument("--check", metavar="DIR", help="only verify DIR/cases.jsonl against mend")
    parser.add_argument("--no-check", action="store_true", help="skip verifying the written cases")
    parser.add_argument("--verbose", action="store_true", help="say why draws and targets were dropped")
    args = parser.parse_args()
    args.jobs = max(1, min(MAX_WORKERS, args.jobs))
    if args.mend is None:
        args.mend = mutate.DEFAULT_MEND if os.path.exists(mutate.DEFAULT_MEND) else (shutil.which("mend") or mutate.DEFAULT_MEND)
    if not os.path.exists(args.mend):
        sys.exit("no mend binary at %s (build it with cargo build --release --bin mend, or pass --mend)" % args.mend)
    args.mend = os.path.abspath(args.mend)
    if args.check:
        sys.exit(1 if check(os.path.join(args.check, "cases.jsonl"), args.mend, args.jobs) else 0)
    if not args.out:
        parser.error("--out is required")
    wanted = [s.strip() for s in args.split.split(",") if s.strip()]
    for s in wanted:
        if s not in splits.SPLITS:
            parser.error("unknown split %r (splits: %s)" % (s, ", ".join(splits.SPLITS)))
    limit = args.max_cases if args.max_cases is not None else \
        sum(QUICK_SIZE if args.quick else DEFAULT_SIZES[s] for s in wanted)
    start = time.time()
    sites = site_order(load_sites(args.data, wanted, args.split_file), args.seed)
    print("%d sites in %s; at most %d cases, %d a site" % (len(sites), ",".join(wanted), limit, args.per_site),
          flush=True)
    if os.path.exists(os.path.join(args.out, "cases")):
        shutil.rmtree(os.path.join(args.out, "cases"))
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    rows, stats = generate(args, sites, limit)
    manifest = os.path.join(args.out, "cases.jsonl")
    with open(manifest, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print("wrote %d cases to %s in %.0f s" % (len(rows), manifest, time.time() - start))
    print("generator: " + ", ".join("%s %d" % kv for kv in sorted(stats.items())))
    summarise(rows)
    if not args.no_check:
        problems = check(manifest, args.mend, args.jobs)
        print("checked in %.0f s" % (time.time() - start))
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
