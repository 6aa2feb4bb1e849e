#!/usr/bin/env python3
"""Record-list track of the healing benchmark: lists of repeated items, changed.

Each *case* is a pair of pages (old, new) and a list container on the old
page whose element children repeat (a `ul`/`ol` of `li`, a `tbody` of `tr`, a
`div` of cards): the *items* are its element children that share the most
common (tag, class) and number at least three.  A wrapper with one record
pattern selecting the items is snapshotted on the old page and run with
healing on the new page; the record XPath after the run is judged against the
item set on the new page (bench/heal_harness.py, track ``records``).

Sources (read from --data), parsed as bench/mutate.py parses them:

* SWDE books (``swde_subset``): booksamillion and christianbook pages 0000,
  0025, ..., 0175;
* Zyte articles (``zyte_article_extraction_benchmark``): all 181 pages;
* ``sftm_mutants``: linkedin, youtube and baidu (the original pages, with
  their ``signature`` attributes stripped).

With ``--split S`` the sources are instead every page of the sites of split
S of bench/split.json (bench/wide_cases.py's sites): the wide corpus's pages,
the Zyte articles and SWDE books of those sites, one container a page and at
most two a site, so that record lists are trained, tuned and reported on
sites kept apart as the fields' cases are.

A container qualifies when it is not inside script, style, template,
noscript, svg, select or the like, holds at most 40% of the body, its items
are 3 to 60 elements of one (tag, class) among `li`, `tr`, `div`, `article`,
`section`, `a`, `span`, `p`, `figure`, `dd`, every item has text and at least
three item texts differ, and the items' *common path* (the container's path
plus `/tag`, with a `normalize-space(@class)` test when other children have
the same tag) selects exactly the items in mend's tree.  Each page gives at
most three containers (twelve for each sftm page), chosen by the seed.

Kinds, each at severity 1 (one change) and 2 (two or three changes of the
kind; a rename may also re-hash every class on the page):

* ``rename``   a class shared by every item renamed on all of them; a class
               used inside every item renamed; a class, id or attribute of the
               container or an ancestor renamed (bench/mutate.py's rename).
* ``wrap``     a wrapper around the container or an ancestor; a new element
               between the container and all its children; a wrapper around
               each item (cards).
* ``unwrap``   an ancestor of the container replaced by its children; the
               single wrapper inside every item replaced by its children.
* ``siblings`` one to three non-items inserted among the items (a `li`, `tr`
               or block with another class: an advert in the list); a decoy
               copy of the list (other ids, churned text, no items) beside it;
               filler beside the container.
* ``reorder``  the items shuffled; the container moved among its siblings;
               the container's block moved to another region of the body.
* ``tag``      the container retagged (ul<->ol, ul/ol->div with li->div,
               table->div grid, div<->section); every item retagged
               (div->article, ...); a tag used inside every item retagged
               (h3->h2, b->strong, ...); bench/mutate.py's tag change near
               the container.
* ``text``     every item's text churned; a label near the list reworded; a
               neighbouring text churned.
* ``control``  severity 0: the new page is the old page.

No case deletes the list, and no item is added or removed: the expected set
is always the same items, wherever they went.  Inserted non-items never share
the items' (tag, class).

Seeding.  Everything derives from --seed: each group's containers (swde,
zyte, mutants) are shuffled with random.Random(seed); case i of a (kind,
severity) cell takes group (cell + i) mod 3 and a fixed position in that
group's list, and draws its changes from random.Random seeded with (seed,
kind, severity, i, try, attempt).  Cases do not depend on --per-kind, so the
--quick slice is the first cases of each cell of the full set, and two runs
with the same seed write the same bytes.  A draw whose page mend parses
differently from the mutated tree (element count, or any item's path) is
drawn again, then another container is tried.

Manifest.  ``DIR/cases.jsonl``, one JSON object a line:

    {"id": "rec-wrap-s1-zyte-0a1b2c3d4e-3", "track": "records", "kind": "wrap",
     "severity": 1, "old": "DIR/cases/<id>/old.html", "new": "DIR/cases/<id>/new.html",
     "target": "/html/body/div[3]/ul/li", "expected": null,
     "items": ["/html/body/div[3]/ul/li[1]", ...],
     "expected_items": ["/html/body/div[3]/section/ul/li[1]", ...],
     "container": "/html/body/div[3]/ul", "extract": "normalized",
     "source": "zyte 0a1b2c3d4e... ul/li", "elements": 1234, "changes": [...]}

With --split, each row also has ``site`` and ``split``.

``target`` is the items' common path on the old page (it selects exactly
``items`` there); ``items`` and ``expected_items`` are mend's canonical paths
of the items on the old and the new page, found by marking the container
with ``data-case-target`` and each item with ``data-case-item`` while
mutating (the marks are removed from the written pages).  ``expected`` is
null (it is the node of bench/mutate.py's cases; a record case has a set).

After writing, every case is checked with mend: ``target`` selects exactly
``items`` on the old page, ``expected_items`` select one element each on the
new page, ``elements`` matches, control pages are identical; --check DIR
repeats that.

Usage:
    python3 bench/record_cases.py --data ../shared/data --out DIR --seed 1 [--per-kind N] [--quick]
        [--split S] [--controls N] [--jobs N] [--mend PATH] [--no-check] [--verbose]
    python3 bench/record_cases.py --check DIR
"""

import argparse
import collections
import concurrent.futures
import copy
import gzip
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import mutate as M  # noqa: E402  (the page model and the change operations)

REPO = M.REPO
DEFAULT_DATA = M.DEFAULT_DATA
DEFAULT_MEND = M.DEFAULT_MEND

KINDS = ["rename", "wrap", "unwrap", "siblings", "reorder", "tag", "text"]
SEVERITIES = [1, 2]
GROUPS = ["swde", "zyte", "mutants"]     # case i of cell c takes group (c + i) % 3
STRIDE = len(KINDS) * len(SEVERITIES)
ATTEMPTS = 6
CONTAINER_TRIES = 4
BOX = M.MARK                             # data-case-target, on the container
ITEM = "data-case-item"                  # data-case-item="k", on each item
ITEM_TEXT_RE = re.compile(r' %s="\d+"' % ITEM)
BOX_TEXT = M.MARK_TEXT
SIGNATURE_RE = re.compile(rb'\s+signature="[^"]*"')

SWDE_SITES = ("booksamillion", "christianbook")
SWDE_PAGES = range(0, 200, 25)
MUTANT_PAGES = (("linkedin", "linkedin.html"), ("youtube", "youtube.html"), ("baidu", "baidu_original.html"))
PER_PAGE = {"swde": 3, "zyte": 3, "mutants": 12, "wide": 1}
PER_SITE = 2                             # --split: containers a site gives at most
ITEM_TAGS = {"li", "tr", "div", "article", "section", "a", "span", "p", "figure", "dd"}
MIN_ITEMS, MAX_ITEMS = 3, 60
SKIP = M.SKIP_SUBTREES | {"button", "label", "form", "option", "optgroup", "datalist", "menu"}
FILLER_CLASSES = ["ad-slot", "sponsored", "promo", "advert", "native-ad", "partner"]

VARIANTS = {
    "rename": ["items", "inner", "box"],
    "wrap": ["box", "group", "each"],
    "unwrap": ["box", "inner"],
    "siblings": ["insert", "decoy", "outside"],
    "reorder": ["items", "box", "move"],
    "tag": ["box", "items", "inner", "near"],
    "text": ["items", "label", "neighbour"],
}


# --------------------------------------------------------------------------
# containers

def class_key(e):
    return " ".join((e.get("class") or "").split())


def walk(e, out):
    """Elements under e in document order, not entering the skipped subtrees."""
    for c in e:
        if not M.is_el(c) or c.tag in SKIP or c.tag.startswith("{"):   # {ns}tag: SVG, MathML
            continue
        out.append(c)
        walk(c, out)
    return out


def find_containers(root):
    """(container, item tag, item class) for every qualifying list of the page."""
    body = M.body_of(root)
    if body is None:
        return []
    total = M.count_elements(body)
    found = []
    for e in walk(body, []):
        kids = M.element_children(e)
        if len(kids) < MIN_ITEMS:
            continue
        groups = collections.Counter((k.tag, class_key(k)) for k in kids)
        (tag, cls), n = max(groups.items(), key=lambda kv: (kv[1], kv[0] == (kids[0].tag, class_key(kids[0]))))
        if n < MIN_ITEMS or n > MAX_ITEMS or not (tag in ITEM_TAGS or "-" in tag) or "'" in cls:
            continue
        items = [k for k in kids if (k.tag, class_key(k)) == (tag, cls)]
        texts = [M.text_of(k) for k in items]
        if not all(texts) or len(set(texts)) < MIN_ITEMS:
            continue
        if M.count_elements(e) > 0.4 * total:
            continue
        found.append((e, tag, cls))
    return found


def common_step(container, tag, cls):
    """The items' last step below the container: tag, with a class test when needed."""
    same_tag = [k for k in M.element_children(container) if k.tag == tag]
    if all(class_key(k) == cls for k in same_tag):
        return tag
    if cls:
        return "%s[normalize-space(@class)='%s']" % (tag, cls)
    return "%s[not(normalize-space(@class))]" % tag


class Container:
    def __init__(self, source, path, tag, cls, step, n):
        self.source = source
        self.path = path        # lxml path of the container in the pristine tree
        self.tag = tag
        self.cls = cls
        self.step = step        # the items' step below the container
        self.n = n


def load_sources(data):
    groups = {g: [] for g in GROUPS}
    for site in SWDE_SITES:
        short = "bam" if site == "booksamillion" else "cb"
        for i in SWDE_PAGES:
            path = os.path.join(data, "swde_subset", "pages", "book", "book-%s-2000" % site, "%04d.htm" % i)
            with open(path, "rb") as handle:
                raw = handle.read()
            groups["swde"].append(M.Source("swde", "swde-%s-%04d" % (short, i), "swde %s %04d" % (site, i), path, raw))
    zdir = os.path.join(data, "zyte_article_extraction_benchmark", "html")
    for name in sorted(os.listdir(zdir)):
        if name.endswith(".html.gz"):
            path = os.path.join(zdir, name)
            with gzip.open(path) as handle:
                raw = handle.read()
            page_id = name[:-len(".html.gz")]
            groups["zyte"].append(M.Source("zyte", "zyte-" + page_id[:10], "zyte " + page_id, path, raw))
    for site, name in MUTANT_PAGES:
        path = os.path.join(data, "sftm_mutants", name)
        with open(path, "rb") as handle:
            raw = SIGNATURE_RE.sub(b"", handle.read())
        groups["mutants"].append(M.Source("mutants", "mutants-" + site, "sftm " + site, path, raw))
    return groups


def load_split_sources(data, split, split_file):
    """{"wide": [source, ...]}: every page of the sites of one split, site by site (module doc)."""
    import wide_cases as W

    out = []
    for site in sorted(W.load_sites(data, {split}, split_file), key=lambda s: s["site"]):
        name = re.sub(r"[^a-z0-9.-]+", "-", site["site"].lower())
        pages = [W.WideSource(page, "wide-%s-%d" % (name, k)) for k, page in enumerate(site["wide"])]
        for page_id in site["zyte"]:
            path = os.path.join(data, "zyte_article_extraction_benchmark", "html", page_id + ".html.gz")
            with gzip.open(path) as handle:
                raw = handle.read()
            pages.append(M.Source("zyte", "zyte-" + page_id[:10], "zyte " + page_id, path, raw))
        if site["swde"]:
            short = "bam" if site["swde"] == "booksamillion" else "cb"
            for i in SWDE_PAGES:
                path = os.path.join(data, "swde_subset", "pages", "book", "book-%s-2000" % site["swde"],
                                    "%04d.htm" % i)
                with open(path, "rb") as handle:
                    raw = handle.read()
                pages.append(M.Source("swde", "swde-%s-%04d" % (short, i), "swde %s %04d" % (site["swde"], i),
                                      path, raw))
        for source in pages:
            source.site = site["site"]
        out += pages
    return {"wide": out}


def load_pools(data, seed, split=None, split_file=None, jobs=1):
    """{group: [Container, ...]}, shuffled with the seed. Parsing the pages is most of a run's time, so
    `jobs` processes read them, a site at a time (a site's cap depends on its earlier pages); the pools
    are the same for every `jobs`."""
    pools = {}
    sources = load_split_sources(data, split, split_file) if split else load_sources(data)
    for group, sources in sources.items():
        units = [list(run) for _, run in itertools.groupby(sources, key=lambda s: s.site)] if split \
            else [[source] for source in sources]
        tasks = [(group, unit, seed, bool(split)) for unit in units]
        if jobs > 1:
            with concurrent.futures.ProcessPoolExecutor(jobs) as workers:
                found = list(workers.map(unit_containers, tasks, chunksize=4))
        else:
            found = [unit_containers(task) for task in tasks]
        pool = [Container(unit[row[0]], *row[1:]) for unit, rows in zip(units, found) for row in rows]
        random.Random(seed).shuffle(pool)
        pools[group] = pool
    return pools


def unit_containers(task):
    """The containers drawn from one unit of pages (a site's, or one page's) as (page index, path, tag,
    class, common step, item count): plain values, so that a worker process can return them."""
    group, sources, seed, capped = task
    rows = []
    taken = 0
    for k, source in enumerate(sources):
        if capped and taken >= PER_SITE:
            break
        tree = source.tree()
        if tree is None:        # a page lxml refuses (control characters)
            continue
        found = find_containers(tree.getroot())
        rng = random.Random("%s/%s" % (seed, source.slug))
        chosen = rng.sample(found, min(PER_PAGE[group], len(found)))
        chosen.sort(key=lambda f: tree.getpath(f[0]))
        taken += len(chosen)
        for e, tag, cls in chosen:
            rows.append((k, tree.getpath(e), tag, cls, common_step(e, tag, cls),
                         sum(1 for c in M.element_children(e) if (c.tag, class_key(c)) == (tag, cls))))
    return rows


# --------------------------------------------------------------------------
# changes: each takes (root, rng, ctx) and returns a description or None
# when it does not apply here.

def box(root):
    return root.xpath("//*[@%s]" % BOX)[0]


def items_of(root):
    return root.xpath("//*[@%s]" % ITEM)


def strip_marks(e):
    for x in e.iter():
        if M.is_el(x):
            x.attrib.pop(BOX, None)
            x.attrib.pop(ITEM, None)


def shared_tokens(elements):
    sets = [set((e.get("class") or "").split()) for e in elements]
    return sorted(set.intersection(*sets)) if sets else []


def ch_rename(root, rng, ctx, variant):
    items = items_of(root)
    if variant == "items":
        tokens = [t for t in shared_tokens(items) if t not in ctx.renamed]
        if not tokens:
            return None
        old = rng.choice(tokens)
        new = M.rename_value(old, rng)
        for e in items:
            e.set("class", " ".join(new if t == old else t for t in e.get("class").split()))
        ctx.renamed.add(new)
        return "rename the items' class %r -> %r (%d items)" % (old, new, len(items))
    if variant == "inner":
        per_item = []
        for it in items:
            per_item.append({t for d in it.iter() if M.is_el(d) and d is not it
                             for t in (d.get("class") or "").split()})
        tokens = sorted(set.intersection(*per_item) - ctx.renamed) if per_item else []
        if not tokens:
            return None
        old = rng.choice(tokens)
        new = M.rename_value(old, rng)
        n = 0
        for it in items:
            for d in it.iter():
                if M.is_el(d) and d is not it and old in (d.get("class") or "").split():
                    d.set("class", " ".join(new if t == old else t for t in d.get("class").split()))
                    n += 1
        ctx.renamed.add(new)
        return "rename class %r -> %r inside every item (%d elements)" % (old, new, n)
    desc = M.op_rename(root, rng, ctx)
    return desc and desc + " (container or ancestor)"


def ch_wrap(root, rng, ctx, variant):
    c = box(root)
    if variant == "box":
        return M.op_wrap(root, rng, ctx)
    if c.tag in M.STRUCTURED_PARENTS or M.chain_tags(c) & M.NO_BLOCK_INSIDE:
        return None
    items = items_of(root)
    if variant == "group":
        cls = M.slug_class(rng)
        w = c.makeelement("div", {"class": cls})
        w.text, c.text = c.text, None
        for k in list(c):
            w.append(k)
        c.append(w)
        ctx.added.append(w)
        return "a div.%s between the container and its %d children" % (cls, len(w))
    if any(it.tag in M.BOUND_CHILDREN or it.tag in M.PHRASING for it in items):
        return None
    cls = M.slug_class(rng)
    for it in items:
        ctx.added.append(M.wrap_element(it, "div", cls))
    return "each item wrapped in div.%s (%d)" % (cls, len(items))


def ch_unwrap(root, rng, ctx, variant):
    if variant == "box":
        return M.op_unwrap(root, rng, ctx)
    items = items_of(root)
    inner = []
    for it in items:
        kids = M.element_children(it)
        if len(kids) != 1 or kids[0].tag not in M.UNWRAPPABLE:
            return None
        inner.append(kids[0])
    if len({k.tag for k in inner}) != 1:
        return None
    for it, k in zip(items, inner):
        if any(g.tag not in M.PHRASING for g in M.element_children(k)) and \
                (it.tag in M.PHRASING or M.chain_tags(it) & M.NO_BLOCK_INSIDE):
            return None
        if any(g.tag in M.BOUND_CHILDREN for g in M.element_children(k)):
            return None
    for k in inner:
        parent = k.getparent()
        index = parent.index(k)
        tail, k.tail = k.tail, None
        M.add_text_before(parent, index, k.text)
        kids = list(k)
        parent.remove(k)
        for g in kids:
            parent.insert(index, g)
            index += 1
        M.add_text_before(parent, index, tail)
    return "unwrap the %s inside every item (%d)" % (inner[0].tag, len(inner))


def filler_in(c, items, rng):
    """A non-item for the container: the items' tag when the container needs
    it (li, tr), another class; a block otherwise."""
    tag = items[0].tag
    words = " ".join(rng.sample(M.FILLER_WORDS, rng.randint(2, 4))).capitalize()
    cls = rng.choice(FILLER_CLASSES)
    if tag == "tr":
        e = c.makeelement("tr", {"class": cls})
        cols = max(len(M.element_children(items[0])), 1)
        for i in range(cols):
            td = M.etree.SubElement(e, "td")
            td.text = words if i == 0 else rng.choice(M.FILLER_WORDS)
    elif tag == "li" or c.tag in ("ul", "ol"):
        e = c.makeelement("li", {"class": cls})
        e.text = words
    elif tag in M.PHRASING or M.chain_tags(c) & M.NO_BLOCK_INSIDE:
        e = c.makeelement("span", {"class": cls})
        e.text = words
    else:
        e = c.makeelement(rng.choice(["div", "aside"]), {"class": cls})
        a = M.etree.SubElement(e, "a", {"href": "/" + rng.choice(M.FILLER_WORDS)})
        a.text = words
    if (e.tag, class_key(e)) == (tag, class_key(items[0])):
        e.set("class", e.get("class") + "-x")
    e.tail = "\n"
    return e


def ch_siblings(root, rng, ctx, variant):
    c = box(root)
    items = items_of(root)
    if variant == "insert":
        n = rng.randint(1, 3)
        for _ in range(n):
            e = filler_in(c, items, rng)
            kids = M.element_children(c)
            slot = rng.randrange(len(kids) + 1)
            c.insert(c.index(kids[slot]) if slot < len(kids) else len(c), e)
        return "insert %d non-item %s(s) among the items" % (n, e.tag)
    if variant == "outside":
        desc = M.op_siblings(root, rng, ctx, "insert")
        return desc and desc + " (outside the list)"
    # a decoy copy of the list (of its table, for a tbody) beside it
    block = c
    while block.getparent() is not None and block.getparent().tag in M.STRUCTURED_PARENTS:
        block = block.getparent()
    parent = block.getparent()
    if parent is None or block.tag in ("html", "body") or parent.tag == "html":
        return None
    d = copy.deepcopy(block)
    strip_marks(d)
    for e in d.iter():
        if M.is_el(e) and e.get("id"):
            e.set("id", e.get("id") + "-" + rng.choice(["alt", "2", "related", "copy"]))
    for e in d.iter():
        if M.is_el(e) and e.getparent() is not None and len(M.element_children(e)) == 0 and M.text_of(e):
            if rng.random() < 0.7:
                M.churn_element_text(e, rng)
    d.tail = "\n"
    after = rng.random() < 0.5
    parent.insert(parent.index(block) + (1 if after else 0), d)
    return "a decoy copy of the %s (other ids, churned text) %s it" % (block.tag, "after" if after else "before")


def ch_reorder(root, rng, ctx, variant):
    c = box(root)
    if variant == "items":
        items = items_of(root)
        kids = list(c)
        slots = [i for i, k in enumerate(kids) if any(k is it for it in items)]
        order = items[:]
        for _ in range(10):
            rng.shuffle(order)
            if any(a is not b for a, b in zip(order, items)):
                break
        else:
            return None
        for i, it in zip(slots, order):
            kids[i] = it
        for k in list(c):
            c.remove(k)
        for k in kids:
            c.append(k)
        return "the %d items shuffled" % len(items)
    if variant == "box":
        desc = M.op_siblings(root, rng, ctx, "reorder")
        return desc and desc + " (the container or an ancestor)"
    return M.op_move(root, rng, ctx)


ITEM_RETAG = {"div": ["article", "section"], "article": ["div"], "section": ["div", "article"],
              "p": ["div"], "figure": ["div"], "span": ["em", "font"], "a": []}


def ch_tag(root, rng, ctx, variant):
    c = box(root)
    items = items_of(root)
    if variant == "near":
        return M.op_tag(root, rng, ctx)
    if variant == "box":
        if any(x is c for x in ctx.retagged):
            return None
        ctx.retagged.append(c)
        if c.tag in ("ul", "ol"):
            if rng.random() < 0.5:
                old, c.tag = c.tag, "ol" if c.tag == "ul" else "ul"
                return "retag the list %s -> %s" % (old, c.tag)
            old = c.tag
            M.retag_list(c, rng)
            return "retag the list %s -> div (li -> div)" % old
        if c.tag == "tbody":
            table = c.getparent()
            if table is None or table.tag != "table":
                return None
            M.retag_table(table)
            return "retag the table -> div grid (tr -> div)"
        swaps = {"div": ["section", "article"], "section": ["div"], "article": ["div", "section"],
                 "nav": ["div"], "aside": ["div"], "main": ["div"], "header": ["div"], "footer": ["div"],
                 "dl": []}.get(c.tag, [])
        if not swaps:
            return None
        old, c.tag = c.tag, rng.choice(swaps)
        return "retag the container %s -> %s" % (old, c.tag)
    if variant == "items":
        if c.tag in M.STRUCTURED_PARENTS:
            return None
        choices = ITEM_RETAG.get(items[0].tag) or []
        if not choices or M.chain_tags(c) & M.NO_BLOCK_INSIDE and items[0].tag in M.PHRASING:
            return None
        new = rng.choice(choices)
        old = items[0].tag
        for it in items:
            it.tag = new
        return "retag every item %s -> %s (%d)" % (old, new, len(items))
    # a tag used inside every item
    per_item = [{d.tag for d in it.iter() if M.is_el(d) and d is not it} for it in items]
    tags = sorted(t for t in set.intersection(*per_item) if M.TAG_SWAPS.get(t) and t not in ("ul", "ol", "dl", "table"))
    if not tags:
        return None
    old = rng.choice(tags)
    options = [n for n in M.TAG_SWAPS[old] if not (n not in M.PHRASING and old in M.PHRASING)]
    if not options:
        return None
    new = rng.choice(options)
    n = 0
    for it in items:
        for d in it.iter():
            if M.is_el(d) and d is not it and d.tag == old:
                if new in M.HEADINGS and M.chain_tags(d.getparent()) & set(M.HEADINGS):
                    continue
                if old == "div" and new == "span" and any(g.tag not in M.PHRASING for g in M.element_children(d)):
                    return None
                if old == "p" and d.getparent().tag in M.STRUCTURED_PARENTS:
                    return None
                d.tag = new
                n += 1
    return "retag %s -> %s inside every item (%d elements)" % (old, new, n) if n else None


def ch_text(root, rng, ctx, variant):
    if variant == "items":
        items = items_of(root)
        for it in items:
            M.churn_element_text(it, rng)
        return "every item's text churned (%d)" % len(items)
    if variant == "label":
        return M.op_text(root, rng, ctx, "label")
    return M.op_text(root, rng, ctx, "sibling")


CHANGES = {"rename": ch_rename, "wrap": ch_wrap, "unwrap": ch_unwrap, "siblings": ch_siblings,
           "reorder": ch_reorder, "tag": ch_tag, "text": ch_text}


def plan(kind, severity, rng):
    """The variants to apply, in order (each falls back to the kind's other variants)."""
    variants = VARIANTS[kind]
    if severity == 1:
        return [rng.choice(variants)]
    k = min(len(variants), rng.randint(2, 3))
    return rng.sample(variants, k)


def apply_plan(root, kind, severity, rng, ctx):
    """The changes made, or None when the plan could not be carried out."""
    changes, used = [], []
    for variant in plan(kind, severity, rng):
        order = [variant] + [v for v in VARIANTS[kind] if v != variant and v not in used]
        for v in order:
            desc = CHANGES[kind](root, rng, ctx, v)
            if desc:
                changes.append(desc)
                used.append(v)
                break
        else:
            return None
    if kind == "rename" and severity == 2 and rng.random() < 0.5:
        desc = M.op_rehash_classes(root, rng, ctx)
        if desc:
            changes.append(desc)
    return changes


# --------------------------------------------------------------------------
# mend

class Mend:
    def __init__(self, path):
        self.path = path
        self.scratch = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False).name

    def batch(self, page, exprs):
        with open(self.scratch, "w") as handle:
            handle.write("\n".join(exprs) + "\n")
        proc = subprocess.run([self.path, "xpath", page, "--exprs", self.scratch, "--json"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("mend xpath %s failed: %s" % (page, proc.stderr.strip()[-500:]))
        lines = [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]
        if len(lines) != len(exprs):
            raise RuntimeError("mend xpath %s: %d expressions, %d answers" % (page, len(exprs), len(lines)))
        return lines

    def probe(self, page, extra=()):
        """(item paths, container paths, element count, answers to extra) of a page in mend's tree."""
        out = self.batch(page, ["//*[@%s]" % ITEM, "//*[@%s]" % BOX, "count(//*)"] + list(extra))
        return ([n["path"] for n in out[0]["nodes"]], [n["path"] for n in out[1]["nodes"]],
                int(out[2]["value"]), out[3:])


# --------------------------------------------------------------------------
# generation

class Generator:
    def __init__(self, args, pools, mend):
        self.args = args
        self.pools = pools
        self.mend = mend
        self.stats = collections.Counter()
        self.used = set()
        self.work = tempfile.mkdtemp(prefix="mend-records-")

    def note(self, message):
        if self.args.verbose:
            print("    " + message, file=sys.stderr, flush=True)

    def make(self, kind, severity, cell, i):
        groups = list(self.pools)
        group = groups[(cell + i) % len(groups)]
        pool = self.pools[group]
        if not pool:
            return None
        for try_ in range(CONTAINER_TRIES):
            position = (cell + STRIDE * (i // len(groups)) + 997 * try_) % len(pool)
            row = self.make_for(kind, severity, i, pool[position], try_)
            if row is not None:
                return row
            self.stats["container-retry"] += 1
        self.stats["case-failed"] += 1
        return None

    def marked_old(self, cont):
        tree = copy.deepcopy(cont.source.tree())
        hits = tree.getroot().xpath(cont.path)
        if len(hits) != 1:
            return None
        c = hits[0]
        c.set(BOX, "1")
        k = 0
        for e in M.element_children(c):
            if (e.tag, class_key(e)) == (cont.tag, cont.cls):
                k += 1
                e.set(ITEM, str(k))
        return tree

    def write(self, path, text):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    def make_for(self, kind, severity, i, cont, try_):
        old_tree = self.marked_old(cont)
        if old_tree is None:
            self.stats["container-not-found"] += 1
            return None
        old_html = M.serialise(old_tree)
        old_file = os.path.join(self.work, "old.html")
        self.write(old_file, old_html)
        c = box(old_tree.getroot())
        target = old_tree.getpath(c) + "/" + cont.step
        items, boxes, count, extra = self.mend.probe(old_file, [target])
        lxml_items = [old_tree.getpath(e) for e in items_of(old_tree.getroot())]
        if items != lxml_items or boxes != [old_tree.getpath(c)] or count != M.count_elements(old_tree.getroot()):
            self.stats["old-page-mismatch"] += 1
            self.note("old page differs in mend: %s %s" % (cont.source.label, cont.path))
            return None
        if [n["path"] for n in extra[0].get("nodes") or []] != items:
            self.stats["common-path-mismatch"] += 1
            self.note("the common path %s does not select the items: %s" % (target, cont.source.label))
            return None
        for attempt in range(ATTEMPTS):
            rng = random.Random("%s/%s/%d/%d/%d/%d" % (self.args.seed, kind, severity, i, try_, attempt))
            tree = copy.deepcopy(old_tree)
            root = tree.getroot()
            ctx = M.Ctx("rec-%s-%d-%d" % (kind, i, attempt), None)
            changes = []
            if kind != "control":
                changes = apply_plan(root, kind, severity, rng, ctx)
                if changes is None:
                    self.stats["not-applicable"] += 1
                    continue
            new_html = M.serialise(tree)
            new_file = os.path.join(self.work, "new.html")
            self.write(new_file, new_html)
            new_items, _, new_count, _ = self.mend.probe(new_file)
            lxml_new = [tree.getpath(e) for e in items_of(root)]
            if len(lxml_new) != len(items) or new_items != lxml_new or new_count != M.count_elements(root):
                self.stats["roundtrip-mismatch"] += 1
                self.note("new page differs in mend (%s s%d %s): %s" % (kind, severity, cont.source.label, changes))
                continue
            old_out, new_out = strip_text(old_html), strip_text(new_html)
            if old_out is None or new_out is None:
                self.stats["marker-text-mismatch"] += 1
                continue
            if kind != "control" and old_out == new_out:
                self.stats["no-change"] += 1
                continue
            cid = "rec-%s-s%d-%s-%d" % (kind, severity, cont.source.slug, i)
            while cid in self.used:
                cid += "x"
            self.used.add(cid)
            folder = os.path.join(self.args.out, "cases", cid)
            os.makedirs(folder, exist_ok=True)
            self.write(os.path.join(folder, "old.html"), old_out)
            self.write(os.path.join(folder, "new.html"), new_out)
            self.stats["attempts-%d" % (attempt + 1)] += 1
            return collections.OrderedDict([
                ("id", cid), ("track", "records"), ("kind", kind), ("severity", severity),
                ("old", os.path.join(folder, "old.html")), ("new", os.path.join(folder, "new.html")),
                ("target", target), ("expected", None), ("items", items), ("expected_items", new_items),
                ("container", old_tree.getpath(c)), ("extract", "normalized"),
                ("source", "%s %s/%s" % (cont.source.label, c.tag, cont.tag)), ("elements", new_count),
                ("changes", changes),
            ] + ([("site", cont.source.site), ("split", self.args.split)] if self.args.split else []))
        return None


def strip_text(text):
    """The page without the marks, or None when a mark's text is not exactly where expected."""
    out = ITEM_TEXT_RE.sub("", text)
    if out.count(BOX_TEXT) != 1:
        return None
    out = out.replace(BOX_TEXT, "")
    if ITEM in out or BOX in out:
        return None
    return out


def generate(args):
    mend = Mend(args.mend)
    print("loading containers from %s ..." % args.data, flush=True)
    pools = load_pools(args.data, args.seed, args.split, args.split_file, args.jobs)
    print("containers: " + ", ".join("%s %d" % (g, len(pools[g])) for g in pools), flush=True)
    if os.path.exists(os.path.join(args.out, "cases")):
        shutil.rmtree(os.path.join(args.out, "cases"))
    os.makedirs(args.out, exist_ok=True)
    gen = Generator(args, pools, mend)
    per_kind = 3 if args.quick else args.per_kind
    controls = (4 if args.quick else max(6, per_kind)) if args.controls is None else args.controls
    rows = M.make_cases(gen, KINDS, SEVERITIES, per_kind, controls)
    manifest = M.write_manifest(args.out, rows, gen)
    summarise(rows)
    return manifest


def summarise(rows):
    table = collections.Counter((r["kind"], r["severity"]) for r in rows)
    print("%-9s %5s %5s" % ("kind", "s1", "s2"))
    for kind in KINDS:
        print("%-9s %s" % (kind, " ".join("%5d" % table[(kind, s)] for s in SEVERITIES)))
    print("%-9s %5d" % ("control", table[("control", 0)]))
    groups = collections.Counter(r["source"].split()[0] for r in rows)
    sizes = [len(r["items"]) for r in rows]
    print("total %d; sources: %s; items per list: min %d, median %d, max %d" % (
        len(rows), ", ".join("%s %d" % kv for kv in sorted(groups.items())),
        min(sizes or [0]), sorted(sizes or [0])[len(sizes) // 2] if sizes else 0, max(sizes or [0])))


def check(manifest, mend_path):
    """Every case resolves: target selects exactly items on old, expected_items one element each on new."""
    mend = Mend(mend_path)
    problems = 0
    rows = [json.loads(line) for line in open(manifest, encoding="utf-8") if line.strip()]
    ids = set()
    for r in rows:
        errors = []
        if r["id"] in ids:
            errors.append("duplicate id")
        ids.add(r["id"])
        for key in ("old", "new"):
            with open(r[key], encoding="utf-8") as handle:
                text = handle.read()
            if ITEM in text or BOX in text:
                errors.append("%s page still carries a mark" % key)
        old = mend.batch(r["old"], [r["target"]])[0]["nodes"]
        if [n["path"] for n in old] != r["items"]:
            errors.append("target selects %d nodes in old, not the %d items" % (len(old), len(r["items"])))
        new = mend.batch(r["new"], r["expected_items"] + ["count(//*)"])
        if any([n["path"] for n in o["nodes"]] != [p] for o, p in zip(new, r["expected_items"])):
            errors.append("an expected item does not resolve in new")
        if int(new[-1]["value"]) != r["elements"]:
            errors.append("elements %s != %s" % (r["elements"], new[-1]["value"]))
        if len(r["expected_items"]) != len(r["items"]):
            errors.append("item counts differ")
        if r["kind"] == "control":
            if open(r["old"], "rb").read() != open(r["new"], "rb").read():
                errors.append("control pages differ")
        if errors:
            problems += 1
            print("%s: %s" % (r["id"], "; ".join(errors)))
    print("checked %d cases: %d with problems" % (len(rows), problems))
    summarise(rows)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="the shared data folder (default %(default)s)")
    parser.add_argument("--out", help="output folder: pages under OUT/cases/, manifest OUT/cases.jsonl")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--split", choices=["train", "validation", "test"], default=None,
                        help="draw the lists from every page of this split's sites instead (module doc)")
    parser.add_argument("--split-file", default=os.path.join(BENCH, "split.json"),
                        help="the split manifest (default %(default)s)")
    parser.add_argument("--per-kind", type=int, default=24, help="cases per kind and severity (default 24)")
    parser.add_argument("--controls", type=int, default=None,
                        help="control cases (default max(6, per-kind); 4 with --quick)")
    parser.add_argument("--quick", action="store_true", help="3 cases per kind and severity, 4 controls (CI)")
    parser.add_argument("--mend", default=None, help="mend binary (default target/release/mend, else mend on PATH)")
    parser.add_argument("--check", metavar="DIR", help="only verify DIR/cases.jsonl against mend")
    parser.add_argument("--no-check", action="store_true", help="skip verifying the written cases")
    parser.add_argument("--verbose", action="store_true", help="say why draws and containers were dropped")
    parser.add_argument("--jobs", type=int, default=1, help="processes that parse the pages (default 1)")
    args = parser.parse_args(argv)
    if args.mend is None:
        args.mend = DEFAULT_MEND if os.path.exists(DEFAULT_MEND) else (shutil.which("mend") or DEFAULT_MEND)
    if not os.path.exists(args.mend):
        sys.exit("no mend binary at %s (build it with cargo build --release --bin mend, or pass --mend)" % args.mend)
    if args.check:
        return 1 if check(os.path.join(args.check, "cases.jsonl"), args.mend) else 0
    if not args.out:
        parser.error("--out is required")
    manifest = generate(args)
    if not args.no_check:
        return 1 if check(manifest, args.mend) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
