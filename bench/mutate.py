#!/usr/bin/env python3
"""Mutation track of the healing benchmark: a seeded generator of page changes.

Each *case* is a pair of pages (old, new) and one target element: a wrapper
whose XPath selects the target on the old page is snapshotted there, then run
with healing on the new page, and the healed XPath is judged against the
element the target became (or against nothing, when the change deleted it).

Sources.  Real pages with field-level ground truth, read from --data:

* SWDE books (``swde_subset``): booksamillion and christianbook detail pages;
  the targets are the elements of ``derived_targets.jsonl`` (title, author,
  isbn_13, publisher, publication_date), re-derived in the HTML5 tree as the
  element owning a text node equal to the value.
* Zyte articles (``zyte_article_extraction_benchmark``): its ground truth
  labels only the article body, so the targets are found from it and from the
  page's own metadata: ``lead`` (the element whose text is the first paragraph
  of the labelled body), ``headline`` (the element whose text is the og:title,
  twitter:title or <title>; the <h1> when several match), ``author`` (a
  ``<meta name=author>`` value, alone or after "By"), ``date`` (the page's
  only <time>).  A field whose element is not found uniquely is skipped.

Kinds (each at severity 1 = one change, 2 = two or three changes, 3 = five or
more changes that mix kinds and always include a ``move``):

* ``rename``   class tokens, ids and attribute names of the target and its
               ancestors renamed; from severity 2 every class on the page is
               re-hashed to ``cls-`` + a short hash.
* ``wrap``     a wrapper element inserted around the target or an ancestor.
* ``unwrap``   an ancestor replaced by its children.
* ``siblings`` siblings inserted and reordered, including a near-duplicate
               decoy of the target (same tag and classes, different text).
* ``tag``      div<->section, span<->div, b<->strong, i<->em, hN<->hN+-1, p->div,
               ul/ol/dl->div, table->div grid, on the target or its ancestors.
* ``text``     the value churns (digits and words change) and a nearby label
               is reworded.
* ``move``     the target's block moved to another part of the body.
* ``control``  severity 0: the new page is the old page.

On top of that, one case in eight (by index, so also in --quick) deletes the
target after the changes, with any decoy the changes put beside it, and half
of those leave a lookalike of the target (same tag and classes, other text) in
a region of the page far from the target's place; such a case's ``expected``
is null.  (A copy in the target's place would be the ``text`` kind's page,
where the target is kept: see ``delete_target``.)

Seeding.  Everything derives from --seed: each source's targets are shuffled
with random.Random(seed); case i of a (kind, severity) cell takes a fixed
position in those lists and draws its changes from random.Random seeded with
(seed, kind, severity, i).  The cases do not depend on --per-kind, so the
--quick slice is a subset of the default set, and a run is reproducible byte
for byte.  A mutation that does not survive a round trip through mend's
parser (the tree mend builds differs from the mutated tree) is retried with
another draw, then with another target.

Pages are parsed with html5lib (the HTML5 algorithm, as mend's html5ever) into
lxml and serialised with lxml's HTML serialiser, UTF-8, charset declarations
rewritten to utf-8; old.html is that serialisation of the unchanged page.

Manifest.  ``DIR/cases.jsonl``, one JSON object a line:

    {"id": "mut-rename-s1-swde-bam-0003-title", "track": "mutation",
     "kind": "rename", "severity": 1, "old": "DIR/cases/<id>/old.html",
     "new": "DIR/cases/<id>/new.html", "target": "/html/body/div[2]/h1",
     "expected": "/html/body/main/div/h1", "extract": "text",
     "source": "swde booksamillion 0003 title", "elements": 1234,
     "changes": ["rename class 'details' -> 'detailsBox' on div", ...]}

``target`` and ``expected`` are mend's canonical paths (`mend xpath --json`)
of the target on the old and the new page (``expected`` null when deleted),
found by marking the target with ``data-case-target="1"`` before mutating;
the marker is removed from the written pages.  ``elements`` is the number of
elements of the new page.  ``changes`` lists what was done, for reading.
``old``/``new`` are DIR joined with the case's folder, as DIR was given.

After writing, every case is checked with mend (the target path selects one
element of old, the expected path one element of new, `elements` matches,
and the value is unchanged unless a text change was made); --check DIR
repeats that on an existing folder.

Usage:
    python3 bench/mutate.py --data ../shared/data --out DIR --seed 1 [--per-kind N] [--quick]
        [--controls N] [--mend PATH] [--no-check] [--verbose]
    python3 bench/mutate.py --check DIR        # re-verify an existing manifest
"""

import argparse
import collections
import copy
import gzip
import hashlib
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import html5lib
import lxml.etree as etree

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data")
DEFAULT_MEND = os.path.join(REPO, "target", "release", "mend")

KINDS = ["rename", "wrap", "unwrap", "siblings", "tag", "text", "move"]
SEVERITIES = [1, 2, 3]
MARK = "data-case-target"
MARK_TEXT = ' %s="1"' % MARK
GROUPS = ["bam", "cb", "zyte"]          # case i of cell c takes group (c + i) % 3
DELETE_EVERY = 8                        # one case in eight deletes the target
STRIDE = len(KINDS) * len(SEVERITIES)   # cells, for spreading targets over cases
ATTEMPTS = 6                            # draws per target before the next target
TARGET_TRIES = 4                        # targets per case before giving up

HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
# Tags whose element children cannot be moved elsewhere without the parser
# re-arranging them, and elements that cannot leave such a parent.
STRUCTURED_PARENTS = {"html", "head", "table", "thead", "tbody", "tfoot", "tr", "ul", "ol",
                      "dl", "select", "optgroup", "colgroup", "datalist", "menu"}
BOUND_CHILDREN = {"html", "head", "body", "li", "td", "th", "tr", "thead", "tbody", "tfoot",
                  "dt", "dd", "option", "optgroup", "caption", "col", "colgroup", "title",
                  "summary", "legend", "figcaption", "source", "track", "param"}
# Where new block content may not go: inside these the parser closes or drops it.
NO_BLOCK_INSIDE = {"p", "a", "button", "label", "select", "option", "noscript", "template",
                   "svg", "math", "object", "iframe", "script", "style", "textarea", "title",
                   "head", "h1", "h2", "h3", "h4", "h5", "h6", "span", "b", "i", "em",
                   "strong", "font", "small", "big", "u", "s", "strike", "code", "abbr",
                   "cite", "q", "sub", "sup", "tt", "nobr", "dt", "pre", "address", "legend",
                   "summary", "caption", "picture", "video", "audio", "canvas", "map"}
PHRASING = {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "em", "font", "i", "img",
            "kbd", "label", "mark", "nobr", "q", "s", "samp", "small", "span", "strike",
            "strong", "sub", "sup", "time", "tt", "u", "var", "br", "wbr", "input", "select",
            "button", "textarea", "data", "output", "img"}
MOVABLE = {"div", "section", "article", "aside", "header", "footer", "main", "nav", "ul",
           "ol", "dl", "table", "p", "figure", "form", "center", "blockquote", "h1", "h2",
           "h3", "h4", "h5", "h6", "address", "fieldset", "hgroup", "details"}
UNWRAPPABLE = {"div", "section", "article", "aside", "header", "footer", "main", "nav",
               "span", "center", "font", "b", "strong", "em", "i", "small", "big", "a",
               "figure", "blockquote", "hgroup", "p", "label", "u", "nobr", "form"}
# Layout regions a block can move into: containers near the top of the body.
DEST_CONTAINERS = {"div", "section", "article", "aside", "header", "footer", "main", "td",
                   "center", "body"}
DEST_MAX_DEPTH = 5
SKIP_SUBTREES = {"script", "style", "noscript", "template", "svg", "math", "head", "select",
                 "iframe", "object", "textarea"}

CLASS_WORDS = ["box", "item", "block", "panel", "wrapper", "inner", "content", "card", "row",
               "col", "section", "container", "module", "unit", "group", "area", "body",
               "meta", "info", "details", "main", "primary", "widget", "pane", "slot", "cell",
               "region", "layout", "media", "stack", "grid", "entry", "product", "story"]
FILLER_WORDS = ["new", "featured", "related", "popular", "more", "latest", "special", "offer",
                "weekly", "top", "picks", "read", "also", "trending", "editor", "choice",
                "members", "save", "free", "shipping", "today", "only", "limited", "edition",
                "bestseller", "review", "deals", "subscribe", "newsletter", "sponsored"]
CHURN_WORDS = ["River", "Silent", "Harbor", "Garden", "Winter", "Morning", "Stone", "Light",
               "Journey", "Promise", "Shadow", "Hidden", "Golden", "Letters", "Station",
               "Common", "Distant", "Quiet", "Northern", "Evening", "Open", "Second", "Simple",
               "Public", "Market", "Signal", "Report", "Future", "Council", "Record", "Press",
               "House", "Books", "Media", "Group", "Digital", "Daily", "Global", "Review"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
MONTHS_SHORT = [m[:3] for m in MONTHS]
LABEL_SYNONYMS = [
    (r"ISBN[- ]?13", ["EAN", "ISBN", "ISBN 13 digit"]),
    (r"ISBN", ["ISBN-13", "Product code", "EAN"]),
    (r"Publisher", ["Published by", "Imprint", "Publishing house"]),
    (r"Pub(lication|lished)?\.? ?Date", ["Release date", "On sale", "Date published"]),
    (r"Published", ["Released", "Posted", "First published"]),
    (r"Date", ["Released", "Posted on", "When"]),
    (r"Authors?", ["Written by", "Author(s)", "Writer"]),
    (r"\bBy\b", ["Written by", "From", "Author:"]),
    (r"Format", ["Binding", "Edition"]),
    (r"Pages", ["Page count", "Length"]),
    (r"Price", ["Our price", "Now"]),
    (r"Updated", ["Last modified", "Revised"]),
]


# --------------------------------------------------------------------------
# small helpers

def norm(text):
    return re.sub(r"\s+", " ", text or "").strip()


def is_el(node):
    return isinstance(node.tag, str)


def element_children(e):
    return [c for c in e if is_el(c)]


def text_of(e):
    return norm("".join(e.itertext()))


def own_texts(e):
    """The element's own text nodes: its text and its element children's tails."""
    out = [e.text or ""]
    out += [c.tail or "" for c in e]
    return out


def ancestors(e):
    """Ancestors of e, nearest first, stopping before <body>."""
    out = []
    p = e.getparent()
    while p is not None and p.tag not in ("body", "html"):
        out.append(p)
        p = p.getparent()
    return out


def chain_tags(e):
    out = set()
    while e is not None:
        if is_el(e):
            out.add(e.tag)
        e = e.getparent()
    return out


def in_skipped(e):
    return bool(chain_tags(e) & SKIP_SUBTREES)


def count_elements(e):
    return sum(1 for x in e.iter() if is_el(x))


def add_text_before(parent, index, text):
    """Adds text at the position just before parent's child number `index`."""
    if not text:
        return
    if index == 0:
        parent.text = (parent.text or "") + text
    else:
        prev = parent[index - 1]
        prev.tail = (prev.tail or "") + text


def detach(e):
    """Removes e from its parent, keeping its tail text where it was."""
    parent = e.getparent()
    index = parent.index(e)
    tail = e.tail
    e.tail = None
    parent.remove(e)
    add_text_before(parent, index, tail)


def slug_class(rng):
    return rng.choice(CLASS_WORDS) + rng.choice(["", "-" + rng.choice(CLASS_WORDS), "-wrap", "__inner", "-" + str(rng.randint(1, 9))])


def first_class(e):
    """".first-class" of an element, or "" (also for a class attribute of blanks only)."""
    tokens = (e.get("class") or "").split()
    return "." + tokens[0] if tokens else ""


def body_of(root):
    return root.find("body")


def find_target(root):
    found = root.xpath("//*[@%s]" % MARK)
    return found[0] if found else None


# --------------------------------------------------------------------------
# text churn

def churn_number(word, rng):
    n = int(word)
    if len(word) == 4 and 1900 <= n <= 2099:           # a year
        choices = [y for y in range(1995, 2025) if y != n]
        return str(rng.choice(choices))
    if len(word) <= 2:                                  # a day, an hour, a count
        new = rng.choice([x for x in range(1, 29) if x != n])
        return str(new).zfill(len(word))
    while True:                                         # an identifier, a price
        new = "".join(rng.choice("0123456789") for _ in word)
        if new != word and new[0] != "0":
            return new


def churn_word(word, rng):
    # str.isdigit() also holds for superscripts and other digits int() refuses.
    if word.isascii() and word.isdigit():
        return churn_number(word, rng)
    low = word.lower().rstrip(".")
    for names in (MONTHS, MONTHS_SHORT):
        lows = [m.lower() for m in names]
        if low in lows:
            new = rng.choice([m for m in names if m.lower() != low])
            return new.upper() if word.isupper() else new
    new = rng.choice([w for w in CHURN_WORDS if w.lower() != low])
    if word.isupper() and len(word) > 1:
        return new.upper()
    if word[:1].islower():
        return new.lower()
    return new


def churn_text(text, rng):
    """Changes the digits and some words of text, keeping its shape."""
    tokens = re.split(r"(\d+|[^\W\d_]+)", text)
    digits = [i for i, t in enumerate(tokens) if t.isdigit()]
    words = [i for i, t in enumerate(tokens) if t.isalpha() and len(t) > 3]
    months = [i for i in words if tokens[i].lower().rstrip(".") in [m.lower() for m in MONTHS + MONTHS_SHORT]]
    chosen = set(digits) | set(months)
    rest = [i for i in words if i not in chosen]
    if rest:
        k = max(1, len(rest) // 3) if not chosen else rng.randint(0, max(1, len(rest) // 4))
        chosen.update(rng.sample(rest, min(k, len(rest))))
    for i in chosen:
        tokens[i] = churn_word(tokens[i], rng)
    new = "".join(tokens)
    if norm(new) == norm(text):
        new = text.rstrip() + " " + rng.choice(CHURN_WORDS) + text[len(text.rstrip()):]
    return new


def text_nodes(e):
    """(node, "text" | "tail", value) for the text nodes inside e, in document order."""
    for node in e.iter():
        if not is_el(node) or node.tag in ("script", "style"):
            continue
        if node.text and norm(node.text):
            yield node, "text", node.text
        if node is not e and node.tail and norm(node.tail):
            yield node, "tail", node.tail


def churn_element_text(e, rng, value=None):
    """Churns e's value: the text node equal to `value` if there is one, else
    the longest text node inside e.  Returns (old, new)."""
    nodes = list(text_nodes(e))
    if not nodes:
        e.text = rng.choice(CHURN_WORDS)
        return "", e.text
    best = None
    if value:
        best = next((n for n in nodes if norm(n[2]).lower() == norm(value).lower()), None)
    if best is None:
        best = max(nodes, key=lambda n: len(norm(n[2])))
    node, attr, old = best
    new = churn_text(old, rng)
    setattr(node, attr, new)
    return norm(old), norm(new)


# --------------------------------------------------------------------------
# sources and targets

class Source:
    def __init__(self, group, slug, label, path, raw):
        self.group = group          # bam | cb | zyte
        self.slug = slug            # swde-bam-0003, zyte-042bb7b5fe
        self.label = label          # swde booksamillion 0003
        self.path = path
        self.raw = raw
        self._tree = None

    def tree(self):
        if self._tree is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._tree = html5lib.parse(self.raw, treebuilder="lxml", namespaceHTMLElements=False)
            fix_charset(self._tree.getroot())
        return self._tree


class Target:
    def __init__(self, source, field, locate, value=None):
        self.source = source
        self.field = field
        self.locate = locate        # function(root) -> element or None
        self.value = value          # the text node that is the value, when known


def fix_charset(root):
    """Declares UTF-8, which the pages are written in (attributes only: the tree is unchanged)."""
    for meta in root.iter("meta"):
        if meta.get("charset") is not None:
            meta.set("charset", "utf-8")
        elif (meta.get("http-equiv") or "").lower() == "content-type":
            meta.set("content", "text/html; charset=utf-8")


def owns_text(e, value):
    v = norm(value).lower()
    return any(norm(t).lower() == v for t in own_texts(e) if t)


def swde_targets(data):
    base = os.path.join(data, "swde_subset")
    rows = collections.OrderedDict()
    with open(os.path.join(base, "derived_targets.jsonl"), encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            rows.setdefault((row["site"], row["page"], row["attribute"]), row)
    sources = {}
    targets = []
    for (site, page, attribute), row in rows.items():
        key = (site, page)
        if key not in sources:
            group = "bam" if site == "booksamillion" else "cb"
            path = os.path.join(base, row["file"])
            with open(path, "rb") as handle:
                raw = handle.read()
            sources[key] = Source(group, "swde-%s-%s" % (group, page), "swde %s %s" % (site, page), path, raw)
        lxml_path = row["xpaths"][0]
        tag = re.sub(r"\[\d+\]$", "", lxml_path.rsplit("/", 1)[1])

        def locate(root, value=html.unescape(row["value"]), tag=tag, lxml_path=lxml_path):
            body = body_of(root)
            found = [e for e in body.iter(tag) if not in_skipped(e) and owns_text(e, value)]
            for e in found:     # the same element as the lxml path, tbody aside
                if e.getroottree().getpath(e).replace("/tbody", "") == lxml_path:
                    return e
            return found[0] if found else None
        targets.append(Target(sources[key], attribute, locate, html.unescape(row["value"])))
    return targets


def zyte_targets(data, page_ids=None):
    """The Zyte pages' targets; only those of `page_ids` when given (bench/wide_cases.py reads a
    split's pages only)."""
    base = os.path.join(data, "zyte_article_extraction_benchmark")
    with open(os.path.join(base, "ground-truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)
    targets = []
    for page_id in sorted(truth):
        if page_ids is not None and page_id not in page_ids:
            continue
        path = os.path.join(base, "html", page_id + ".html.gz")
        with gzip.open(path) as handle:
            raw = handle.read()
        source = Source("zyte", "zyte-" + page_id[:10], "zyte " + page_id, path, raw)
        tree = source.tree()
        found = zyte_locate(tree.getroot(), truth[page_id]["articleBody"])
        for field, element in found.items():
            def locate(root, path=tree.getpath(element)):
                hits = root.xpath(path)
                return hits[0] if len(hits) == 1 else None
            targets.append(Target(source, field, locate))
    return targets


def leafmost(cands):
    """Drops candidates that contain another candidate with the same text."""
    out = []
    for e in cands:
        if not any(c is not e and text_of(c) == text_of(e) and e in c.iterancestors() for c in cands):
            out.append(e)
    return out


def zyte_locate(root, article_body):
    body = body_of(root)
    els = [e for e in body.iter() if is_el(e) and not in_skipped(e)]
    texts = {}

    def t(e):
        if e not in texts:
            texts[e] = text_of(e)
        return texts[e]
    metas = {}
    for m in root.iter("meta"):
        key = (m.get("property") or m.get("name") or "").lower()
        if key and m.get("content"):
            metas.setdefault(key, norm(m.get("content")))
    found = {}
    # lead: the first paragraph of the labelled body
    paras = [norm(p) for p in article_body.split("\n") if len(norm(p)) > 40]
    if paras:
        c = leafmost([e for e in els if t(e) == paras[0]])
        if len(c) == 1:
            found["lead"] = c[0]
    # headline: the page's title as metadata gives it
    titles = {metas[k].lower() for k in ("og:title", "twitter:title", "title") if metas.get(k)}
    title = root.find("head/title")
    if title is not None and norm(title.text):
        titles.add(norm(title.text).lower())
        titles.update(p.lower() for p in re.split(r" [|\-\u2013\u2014:] ", norm(title.text)) if len(p) > 15)
    titles.discard("")
    if titles:
        c = leafmost([e for e in els if t(e) and t(e).lower() in titles])
        if len(c) > 1:
            c = [e for e in c if e.tag == "h1"]
        if len(c) == 1:
            found["headline"] = c[0]
    # author: <meta name=author> (not a URL), alone or after "By"
    names = {metas[k].lower() for k in ("author", "article:author", "sailthru.author", "parsely-author", "dc.creator")
             if metas.get(k) and not metas[k].startswith("http")}
    if names:
        wanted = names | {"by " + n for n in names}
        c = leafmost([e for e in els if t(e) and t(e).lower() in wanted])
        if len(c) == 1:
            found["author"] = c[0]
    # date: the only <time> with text
    times = [e for e in els if e.tag == "time" and t(e)]
    if len(times) == 1:
        found["date"] = times[0]
    # distinct elements only
    seen = {}
    for field, e in list(found.items()):
        if e in seen.values():
            del found[field]
        else:
            seen[field] = e
    return found


# --------------------------------------------------------------------------
# mutations: each takes (root, rng, ctx) and returns a description or None
# when it does not apply to this page.

class Ctx:
    def __init__(self, salt, value):
        self.salt = salt            # for class re-hashing
        self.value = value          # the target's value text, when known
        self.rehashed = False
        self.retagged = []          # elements already retagged (not toggled back)
        self.added = []             # wrappers this case inserted (not unwrapped again)
        self.renamed = set()        # names and values this case produced (not renamed again)
        self.decoys = []            # near-duplicates of the target put beside it


def near_chain(root, levels=4):
    t = find_target(root)
    return [t] + ancestors(t)[:levels]


def rename_value(value, rng):
    style = rng.randrange(5)
    parts = re.split(r"[-_]", value)
    if style == 0 and len(parts) > 1:
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    if style == 1:
        return value + rng.choice(["--v2", "-new", "_2", "-alt", "-redesign"])
    if style == 2:
        return rng.choice(["pdp", "c", "x", "ui", "site", "js"]) + "-" + value
    if style == 3:
        return "css-" + hashlib.sha1((value + str(rng.random())).encode()).hexdigest()[:6]
    return slug_class(rng)


def op_rename(root, rng, ctx, variant=None):
    chain = near_chain(root, 40)
    options = []
    for depth, e in enumerate(chain):
        if any(x is e for x in ctx.added):
            continue
        for token in (e.get("class") or "").split():
            if token not in ctx.renamed:
                options.append(("class", e, token, depth))
        if e.get("id") and e.get("id") not in ctx.renamed:
            options.append(("id", e, e.get("id"), depth))
        for name in e.attrib:
            if (name.startswith("data-") and name != MARK or name in ("itemprop", "name", "role", "rel")) \
                    and name not in ctx.renamed:
                options.append(("attr", e, name, depth))
    if variant == "no-class" and any(o[0] != "class" for o in options):
        options = [o for o in options if o[0] != "class"]
    if not options:
        return None
    # favour what is near the target
    weights = [1.0 / (1 + o[3]) for o in options]
    what, e, name, _ = rng.choices(options, weights)[0]
    if what == "class":
        new = rename_value(name, rng)
        e.set("class", " ".join(new if tok == name else tok for tok in e.get("class").split()))
        ctx.renamed.add(new)
        return "rename class %r -> %r on %s" % (name, new, e.tag)
    if what == "id":
        new = rename_value(name, rng)
        e.set("id", new)
        ctx.renamed.add(new)
        return "rename id %r -> %r on %s" % (name, new, e.tag)
    value = e.get(name)
    if name.startswith("data-") or rng.random() < 0.5:
        new_name = "data-" + rng.choice(["qa", "test", "field", "prop", "ref", "key"]) + "-" + rng.choice(CLASS_WORDS)
    else:
        new_name = "data-" + name
    del e.attrib[name]
    e.set(new_name, value)
    ctx.renamed.add(new_name)
    return "rename attribute %s -> %s on %s" % (name, new_name, e.tag)


def op_rehash_classes(root, rng, ctx):
    if ctx.rehashed:
        return None
    n = 0
    for e in root.iter():
        if is_el(e) and e.get("class"):
            e.set("class", " ".join("cls-" + hashlib.sha1((ctx.salt + tok).encode()).hexdigest()[:6]
                                    for tok in e.get("class").split()))
            n += 1
    ctx.rehashed = True
    return "re-hash every class on the page (%d elements)" % n if n else None


def wrap_element(e, tag, cls):
    w = e.makeelement(tag, {"class": cls})
    parent = e.getparent()
    index = parent.index(e)
    w.tail = e.tail
    e.tail = None
    parent.insert(index, w)
    w.append(e)
    return w


def can_wrap(e):
    return (e.tag not in BOUND_CHILDREN and e.getparent() is not None
            and e.getparent().tag not in STRUCTURED_PARENTS and e.getparent().tag != "html")


def wrapper_tag(e, rng):
    if chain_tags(e.getparent()) & NO_BLOCK_INSIDE:
        return "span"
    if e.tag in PHRASING and rng.random() < 0.6:
        return "span"
    return rng.choice(["div", "div", "div", "section", "article"])


def op_wrap(root, rng, ctx):
    chain = [e for e in near_chain(root, 4) if can_wrap(e)]
    if not chain:
        return None
    e = chain[min(len(chain) - 1, int(rng.triangular(0, len(chain), 0)))]
    tag = wrapper_tag(e, rng)
    cls = slug_class(rng)
    ctx.added.append(wrap_element(e, tag, cls))
    return "wrap %s.%s around %s" % (tag, cls, e.tag)


def op_unwrap(root, rng, ctx):
    t = find_target(root)
    options = []
    for a in ancestors(t)[:6]:
        parent = a.getparent()
        if a.tag not in UNWRAPPABLE or parent is None or parent.tag in STRUCTURED_PARENTS:
            continue
        if any(x is a for x in ctx.added):
            continue
        kids = element_children(a)
        if any(k.tag in BOUND_CHILDREN for k in kids):
            continue
        if a.tag == "form" and a.xpath(".//form"):
            continue
        # block children may not end up inside a paragraph or a phrasing parent
        if any(k.tag not in PHRASING for k in kids) and chain_tags(parent) & NO_BLOCK_INSIDE:
            continue
        options.append(a)
    if not options:
        return None
    a = options[min(len(options) - 1, int(rng.triangular(0, len(options), 0)))]
    parent = a.getparent()
    index = parent.index(a)
    desc = "unwrap %s%s (%d children)" % (a.tag, first_class(a),
                                           len(a))
    tail = a.tail
    a.tail = None
    add_text_before(parent, index, a.text)
    kids = list(a)
    parent.remove(a)
    for k in kids:
        parent.insert(index, k)
        index += 1
    add_text_before(parent, index, tail)
    return desc


def make_decoy(t, rng, value=None):
    d = copy.deepcopy(t)
    for e in d.iter():
        if is_el(e):
            e.attrib.pop(MARK, None)
            if e.get("id"):
                e.set("id", e.get("id") + "-" + rng.choice(["alt", "2", "related", "copy"]))
    d.tail = None
    churn_element_text(d, rng, value)
    return d


def filler_for(parent, rng):
    tag = parent.tag
    words = " ".join(rng.sample(FILLER_WORDS, rng.randint(2, 4))).capitalize()
    if tag in ("ul", "ol", "menu"):
        e = parent.makeelement("li", {"class": slug_class(rng)})
        e.text = words
    elif tag == "tr":
        e = parent.makeelement("td", {"class": slug_class(rng)})
        e.text = words
    elif tag in ("table", "tbody", "thead", "tfoot"):
        row = parent.makeelement("tr", {})
        cols = max([len(element_children(r)) for r in parent.iter("tr")] + [1])
        for i in range(cols):
            td = etree.SubElement(row, "td")
            td.text = words if i == 0 else rng.choice(FILLER_WORDS)
        e = row
        if tag == "table":      # rows directly in a table would get a tbody from the parser
            e = parent.makeelement("tbody", {})
            e.append(row)
    elif tag == "dl":
        e = parent.makeelement("dt", {})
        e.text = words
    elif tag in ("select", "optgroup", "html", "head"):
        return None
    elif chain_tags(parent) & NO_BLOCK_INSIDE:
        e = parent.makeelement("span", {"class": slug_class(rng)})
        e.text = words + " "
    else:
        e = parent.makeelement(rng.choice(["div", "div", "p", "aside"]), {"class": slug_class(rng)})
        if rng.random() < 0.5:
            a = etree.SubElement(e, "a", {"href": "/" + rng.choice(FILLER_WORDS)})
            a.text = words
        else:
            e.text = words
    e.tail = "\n"
    return e


def op_siblings(root, rng, ctx, which=None):
    t = find_target(root)
    which = which or rng.choice(["decoy", "insert", "reorder", "decoy", "insert"])
    if which == "decoy":
        parent = t.getparent()
        if parent is None or parent.tag in ("html",) or t.tag in ("html", "body"):
            return None
        d = make_decoy(t, rng, ctx.value)
        after = rng.random() < 0.5
        d.tail = "\n"
        parent.insert(parent.index(t) + (1 if after else 0), d)
        ctx.decoys.append(d)
        return "insert decoy %s %s the target" % (t.tag, "after" if after else "before")
    if which == "insert":
        chain = [t] + ancestors(t)[:2]
        e = rng.choice(chain)
        parent = e.getparent()
        filler = filler_for(parent, rng)
        if filler is None:
            return None
        n = rng.randint(1, 2)
        for _ in range(n):
            parent.insert(parent.index(e) + rng.choice([0, 0, 1]), filler)
            added = filler.tag
            filler = filler_for(parent, rng)
        return "insert %d sibling %s(s) beside %s" % (n, added, e.tag)
    # reorder: move the target or a near ancestor among its siblings
    chain = [e for e in [t] + ancestors(t)[:3] if e.getparent() is not None
             and len(element_children(e.getparent())) >= 2]
    if not chain:
        return None
    e = rng.choice(chain)
    parent = e.getparent()
    kids = element_children(parent)
    old = kids.index(e)
    choices = [i for i in range(len(kids)) if i != old]
    new = rng.choice(choices)
    other = kids[new]
    detach(e)
    e.tail = "\n"
    pos = parent.index(other) + (1 if new > old else 0)
    parent.insert(pos, e)
    return "reorder: %s moved from child %d to %d of %s" % (e.tag, old + 1, new + 1, parent.tag)


TAG_SWAPS = {"div": ["section", "article", "span"], "section": ["div"], "article": ["div", "section"],
             "span": ["div", "em", "font"], "b": ["strong"], "strong": ["b", "span"], "i": ["em"],
             "em": ["i", "span"], "h1": ["h2"], "h2": ["h3", "h1"], "h3": ["h2", "h4"], "h4": ["h3", "h5"],
             "h5": ["h4"], "h6": ["h5"], "p": ["div"], "ul": ["div"], "ol": ["div"], "dl": ["div"],
             "table": ["div"], "font": ["span"], "center": ["div"], "header": ["div"], "aside": ["div"],
             "nav": ["div"], "main": ["div"], "footer": ["div"]}


def retag_list(e, rng):
    e.tag = "div"
    e.set("class", ((e.get("class") or "") + " list").strip())
    for c in element_children(e):
        if c.tag in ("li", "dt", "dd"):
            c.tag = "div"


def retag_table(table):
    table.tag = "div"
    table.set("class", ((table.get("class") or "") + " grid").strip())
    for attr in ("cellpadding", "cellspacing", "border", "summary"):
        table.attrib.pop(attr, None)
    for section in list(element_children(table)):
        if section.tag in ("colgroup", "col"):
            detach(section)
            continue
        rows = [section] if section.tag == "tr" else element_children(section)
        if section.tag in ("thead", "tbody", "tfoot"):
            section.tag = "div"
        elif section.tag == "caption":
            section.tag = "div"
            rows = []
        for row in rows:
            if row.tag == "tr":
                row.tag = "div"
                row.set("class", ((row.get("class") or "") + " grid-row").strip())
                for cell in element_children(row):
                    if cell.tag in ("td", "th"):
                        cell.tag = "div"
                        cell.set("class", ((cell.get("class") or "") + " grid-cell").strip())
                        for attr in ("colspan", "rowspan", "valign", "align", "width", "nowrap"):
                            cell.attrib.pop(attr, None)


def op_tag(root, rng, ctx):
    chain = near_chain(root, 5)
    options = []
    for depth, e in enumerate(chain):
        if any(x is e for x in ctx.retagged):
            continue
        for new in TAG_SWAPS.get(e.tag, []):
            context = chain_tags(e.getparent())
            block_new = new not in PHRASING
            if block_new and context & NO_BLOCK_INSIDE:
                continue
            if e.tag == "div" and new == "span" and any(c.tag not in PHRASING for c in element_children(e)):
                continue
            if e.tag == "p" and e.getparent().tag in STRUCTURED_PARENTS:
                continue
            if e.tag in HEADINGS and new in HEADINGS and context & set(HEADINGS):
                continue
            options.append((e, new, depth))
    if not options:
        return None
    # near elements first; an element with several possible tags is not favoured
    per_element = collections.Counter(id(e) for e, _, _ in options)
    weights = [1.0 / (1 + d) / per_element[id(e)] for e, _, d in options]
    e, new, _ = rng.choices(options, weights)[0]
    ctx.retagged.append(e)
    old = e.tag
    if old in ("ul", "ol", "dl"):
        retag_list(e, rng)
    elif old == "table":
        retag_table(e)
    else:
        e.tag = new
    return "retag %s -> %s%s" % (old, new, " (grid)" if old == "table" else "")


def label_like(text, limit=40):
    text = norm(text)
    return 1 < len(text) <= limit and re.search(r"[A-Za-z]", text) and len(text.split()) <= 5


def find_labels(t, value_len):
    """Short texts near the target that read like its label, nearest first:
    (node, "text" | "tail") pairs.  Texts inside the target count only when
    they are much shorter than its value (the "ISBN-13" of "ISBN-13: 978...")."""
    out = []
    for node, attr, text in text_nodes(t):
        if label_like(text) and len(norm(text)) <= 0.6 * value_len:
            out.append((node, attr))
    prev = t.getprevious()
    if prev is not None and prev.tail and label_like(prev.tail):
        out.append((prev, "tail"))
    parent = t.getparent()
    if prev is None and parent is not None and parent.text and label_like(parent.text):
        out.append((parent, "text"))
    # the nearest preceding elements, outside the target and its ancestors
    seen = 0
    for e in t.xpath("preceding::*[position() <= 40]")[::-1]:
        if e.tag in ("script", "style") or in_skipped(e):
            continue
        if e.text and label_like(e.text):
            out.append((e, "text"))
            seen += 1
        if seen >= 3:
            break
    return out


def reword(label, rng):
    for pattern, options in LABEL_SYNONYMS:
        if re.search(pattern, label, re.I):
            return re.sub(pattern, rng.choice(options), label, count=1, flags=re.I)
    core = label.strip()
    if core.endswith(":"):
        new = core[:-1].strip()
        new = new.upper() if not new.isupper() else new.title()
    else:
        new = core.upper() if not core.isupper() else core.title()
        if new == core:
            new = core + ":"
    return label.replace(core, new)


def op_text(root, rng, ctx, which=None):
    t = find_target(root)
    which = which or "value"
    if which == "value":
        old, new = churn_element_text(t, rng, ctx.value)
        return "value churn %r -> %r" % (old[:40], new[:40])
    if which == "label":
        labels = find_labels(t, len(text_of(t)))
        if not labels:
            return None
        # a label that is known to be one goes first, then the nearest
        known = [l for l in labels if any(re.search(p, getattr(*l), re.I) for p, _ in LABEL_SYNONYMS)
                 or norm(getattr(*l)).endswith(":")]
        node, attr = known[0] if known else labels[min(len(labels) - 1, int(rng.triangular(0, len(labels), 0)))]
        old = getattr(node, attr)
        new = reword(old, rng)
        setattr(node, attr, new)
        return "label reworded %r -> %r" % (norm(old), norm(new))
    # churn the text of a sibling (a neighbouring value)
    parent = t.getparent()
    sibs = [s for s in element_children(parent) if s is not t and text_of(s) and not s.xpath(".//*[@%s]" % MARK)]
    if not sibs:
        return None
    s = rng.choice(sibs)
    old, new = churn_element_text(s, rng)
    return "sibling text churn %r -> %r" % (old[:30], new[:30])


def block_of(t, rng):
    """The target's block: a movable ancestor (1 to 4 levels up) that is not most of the page."""
    body = body_of(t.getroottree().getroot())
    total = count_elements(body)
    cands = []
    for e in [t] + ancestors(t)[:5]:
        if e.tag in MOVABLE and e.getparent() is not None and e.getparent().tag not in STRUCTURED_PARENTS \
                and count_elements(e) <= 0.4 * total:
            cands.append(e)
    if not cands:
        return None
    if len(cands) > 1 and cands[0] is t:
        cands = cands[1:] if rng.random() < 0.8 else cands
    return cands[min(len(cands) - 1, int(rng.triangular(0, min(len(cands), 3), 0)))]


def depth_below_body(e):
    d = 0
    while e is not None and e.tag != "body":
        e = e.getparent()
        d += 1
    return d


def far_containers(body, block):
    """Layout regions far from ``block`` (15% of the body's elements or more
    away in document order) that could hold a block of content."""
    inside = set(block.iter())
    block_tags = {e.tag for e in block.iter() if is_el(e)}
    order = {e: i for i, e in enumerate(x for x in body.iter() if is_el(x))}
    here = order[block]
    size = len(order)
    dests = []
    for e in body.iter():
        if not is_el(e) or e is body or e in inside or e.tag not in DEST_CONTAINERS \
                or e is block.getparent():
            continue
        if depth_below_body(e) > DEST_MAX_DEPTH or count_elements(e) < 6:
            continue
        chain = chain_tags(e)
        if chain & NO_BLOCK_INSIDE or chain & SKIP_SUBTREES or chain & {"li", "dd", "nav"}:
            continue
        if "form" in block_tags and "form" in chain:
            continue
        if abs(order[e] - here) >= 0.15 * size:
            dests.append(e)
    return dests


def op_move(root, rng, ctx):
    t = find_target(root)
    block = block_of(t, rng)
    if block is None:
        return None
    body = body_of(root)
    dests = far_containers(body, block)
    to_body = block.getparent() is not body and rng.random() < 0.25
    if not dests and not to_body:
        return None
    dest = body if to_body else rng.choice(dests)
    kids = list(dest)
    old_parent = block.getparent().tag
    detach(block)
    block.tail = "\n"
    where = rng.choice(["start", "end"] if dest is body else ["start", "end", "middle"])
    if where == "start":
        dest.insert(0, block)
    elif where == "end" or not kids:
        # before trailing scripts of <body>, where a page's layout would put it
        index = len(dest)
        while dest is body and index > 0 and is_el(dest[index - 1]) and dest[index - 1].tag in ("script", "noscript", "style"):
            index -= 1
        dest.insert(index, block)
    else:
        # between two of its element children
        slots = [i for i, c in enumerate(dest) if is_el(c)] or [0]
        dest.insert(rng.choice(slots), block)
    return "move %s block (from %s) to the %s of %s%s" % (
        block.tag, old_parent, where, dest.tag, first_class(dest))


# The parent a lookalike needs to stay where it is put: the parser moves or
# drops a stray cell, row, item or term.
LOOKALIKE_PARENTS = {"td": ["table", "tbody", "tr"], "th": ["table", "tbody", "tr"],
                     "tr": ["table", "tbody"], "li": ["ul"], "dt": ["dl"], "dd": ["dl"],
                     "option": ["select"]}


def delete_target(root, rng, ctx):
    """Delete the target, and with it the near-duplicates the changes put
    beside it; half the time leave a lookalike (same tag and classes, other
    text) in a region of the page far from where the target was.

    A copy left in the target's place, or beside it, would make a page that
    the ``text`` and ``siblings`` kinds also make with the target kept: the
    same element at the same place with another value, which a wrapper must
    answer.  Such a case has no right answer, so it is not made.  A lookalike
    elsewhere is what a deleted field leaves on real pages (a related item, a
    teaser, a widget), and what a healer must not take for the target."""
    t = find_target(root)
    beside = [d for d in ctx.decoys if d.getparent() is not None]
    for d in beside:
        detach(d)
    note = " and the decoy beside it" if beside else ""
    if rng.random() < 0.5:
        body = body_of(root)
        dests = far_containers(body, t)
        if dests:
            look = make_decoy(t, rng, ctx.value)
            look.tail = "\n"
            outer = look
            for tag in reversed(LOOKALIKE_PARENTS.get(t.tag, [])):
                wrapper = etree.Element(tag)
                wrapper.append(outer)
                wrapper.tail = "\n"
                outer = wrapper
            dest = rng.choice(dests)
            slots = [i for i, c in enumerate(dest) if is_el(c)] + [len(dest)]
            dest.insert(rng.choice(slots), outer)
            detach(t)
            return "delete the target%s, a lookalike %s left in %s%s" % (
                note, look.tag, dest.tag, first_class(dest))
    detach(t)
    return "delete the target%s" % note


OPS = {
    "rename": op_rename,
    "wrap": op_wrap,
    "unwrap": op_unwrap,
    "siblings": op_siblings,
    "tag": op_tag,
    "text": op_text,
    "move": op_move,
}


def plan(kind, severity, rng):
    """The list of (kind, variant) operations for a case."""
    if kind == "rename":
        base = [("rename", None)]
        if severity >= 2:
            base = [("rename", "no-class")] * rng.randint(1, 2) + [("rehash", None)]
    elif kind == "text":
        base = [("text", "value")]
        if severity >= 2:
            base += [("text", "label")] + ([("text", "sibling")] if rng.random() < 0.5 else [])
    elif kind == "siblings":
        base = [("siblings", rng.choice(["decoy", "insert", "reorder"]))]
        if severity >= 2:
            base = [("siblings", "decoy"), ("siblings", rng.choice(["insert", "reorder"]))]
            if rng.random() < 0.5:
                base.append(("siblings", rng.choice(["insert", "reorder"])))
    else:
        base = [(kind, None)] * (1 if severity == 1 else rng.randint(2, 3))
    if severity < 3:
        return base
    # severity 3: the kind's own changes, changes of other kinds and a move
    if kind != "move":
        others = [k for k in KINDS if k not in (kind, "move")]
        extra = [(k, None) for k in rng.sample(others, 2)]
        ops = base + extra + [("move", None)]
    else:
        others = [k for k in KINDS if k != "move"]
        ops = [("move", None), ("move", None)] + [(k, None) for k in rng.sample(others, 3)]
    while len(ops) < 5:
        ops.append((rng.choice(KINDS), None))
    rng.shuffle(ops)
    if ("rehash", None) in ops:     # the page-wide re-hash comes after the other renames
        ops.remove(("rehash", None))
        ops.append(("rehash", None))
    return ops


def apply_op(root, kind, variant, rng, ctx):
    if kind == "rehash":
        return op_rehash_classes(root, rng, ctx)
    if kind == "rename":
        return op_rename(root, rng, ctx, variant)
    if kind == "siblings":
        return op_siblings(root, rng, ctx, variant)
    if kind == "text":
        return op_text(root, rng, ctx, variant)
    return OPS[kind](root, rng, ctx)


# --------------------------------------------------------------------------
# mend

class Mend:
    def __init__(self, path):
        self.path = path
        self.exprs = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        self.exprs.write("//*[@%s]\ncount(//*)\n" % MARK)
        self.exprs.close()

    def probe(self, page):
        """(paths of marked elements, element count) of a page in mend's tree."""
        proc = subprocess.run([self.path, "xpath", page, "--exprs", self.exprs.name, "--json"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("mend xpath %s failed: %s" % (page, proc.stderr.strip()[-500:]))
        # split at newlines only: str.splitlines also splits at U+2028 and the like, which JSON leaves raw in values
        lines = [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]
        return [n["path"] for n in lines[0]["nodes"]], int(lines[1]["value"])

    def select(self, page, expr):
        proc = subprocess.run([self.path, "xpath", page, expr, "--json"], capture_output=True, text=True)
        # Exit 1 is a selection of nothing: still an answer.
        if proc.returncode not in (0, 1):
            raise RuntimeError("mend xpath %s %r failed: %s" % (page, expr, proc.stderr.strip()[-500:]))
        return json.loads(proc.stdout)


def serialise(tree):
    doctype = tree.docinfo.doctype
    return etree.tostring(tree, method="html", encoding="unicode", doctype=doctype or None)


# --------------------------------------------------------------------------
# generation

def load_targets(data, seed):
    pools = {g: [] for g in GROUPS}
    for t in swde_targets(data) + zyte_targets(data):
        pools[t.source.group].append(t)
    rng = random.Random(seed)
    for g in GROUPS:
        rng.shuffle(pools[g])
    return pools


def case_id(kind, severity, target, used):
    base = "mut-%s-s%d-%s-%s" % (kind, severity, target.source.slug, target.field)
    cid, n = base, 2
    while cid in used:
        cid = "%s-%d" % (base, n)
        n += 1
    used.add(cid)
    return cid


class Generator:
    def __init__(self, args, pools, mend):
        self.args = args
        self.pools = pools
        self.mend = mend
        self.stats = collections.Counter()
        self.used = set()
        self.work = tempfile.mkdtemp(prefix="mend-mutate-")

    def note(self, message):
        if self.args.verbose:
            print("    " + message, file=sys.stderr, flush=True)

    def marked_old(self, target):
        tree = copy.deepcopy(target.source.tree())
        t = target.locate(tree.getroot())
        if t is None:
            return None, None
        t.set(MARK, "1")
        return tree, t

    def make(self, kind, severity, cell, i):
        """One case, as a manifest row, or None when no target could be mutated."""
        group = GROUPS[(cell + i) % len(GROUPS)]
        pool = self.pools[group]
        for try_ in range(TARGET_TRIES):
            position = (cell + STRIDE * (i // len(GROUPS)) + 997 * try_) % len(pool)
            target = pool[position]
            row = self.make_for(kind, severity, cell, i, target, try_)
            if row is not None:
                return row
            self.stats["target-retry"] += 1
        self.stats["case-failed"] += 1
        return None

    def make_for(self, kind, severity, cell, i, target, try_):
        old_tree, t = self.marked_old(target)
        if old_tree is None:
            self.stats["target-not-found"] += 1
            self.note("target not found: %s %s" % (target.source.label, target.field))
            return None
        old_html = serialise(old_tree)
        old_file = os.path.join(self.work, "old.html")
        with open(old_file, "w", encoding="utf-8") as handle:
            handle.write(old_html)
        paths, count = self.mend.probe(old_file)
        if len(paths) != 1 or count != count_elements(old_tree.getroot()) \
                or paths[0] != old_tree.getpath(t):
            self.stats["old-page-mismatch"] += 1
            self.note("old page differs in mend: %s %s" % (target.source.label, target.field))
            return None
        target_path = paths[0]
        delete = kind != "control" and (cell * 3 + i) % DELETE_EVERY == DELETE_EVERY - 1
        for attempt in range(ATTEMPTS):
            rng = random.Random("%s/%s/%d/%d/%d/%d" % (self.args.seed, kind, severity, i, try_, attempt))
            tree = copy.deepcopy(old_tree)
            root = tree.getroot()
            ctx = Ctx("%s-%d-%d" % (kind, i, attempt), target.value)
            changes = []
            ok = True
            if kind != "control":
                for op_kind, variant in plan(kind, severity, rng):
                    desc = apply_op(root, op_kind, variant, rng, ctx)
                    if desc is None:
                        ok = False
                        break
                    changes.append(desc)
                if ok and severity == 3 and kind == "rename" and not ctx.rehashed:
                    changes.append(op_rehash_classes(root, rng, ctx))
            if ok and delete:
                changes.append(delete_target(root, rng, ctx))
            if not ok:
                self.stats["op-not-applicable"] += 1
                self.stats["op-not-applicable-" + op_kind] += 1
                continue
            new_html = serialise(tree)
            new_file = os.path.join(self.work, "new.html")
            with open(new_file, "w", encoding="utf-8") as handle:
                handle.write(new_html)
            paths, count = self.mend.probe(new_file)
            t_new = find_target(root)
            want = 0 if delete else 1
            if len(paths) != want or count != count_elements(root) \
                    or (t_new is not None and paths[0] != tree.getpath(t_new)):
                self.stats["roundtrip-mismatch"] += 1
                self.note("new page differs in mend (%s s%d %s %s; mend %s %d, ours %s %d): %s" % (
                    kind, severity, target.source.label, target.field, paths, count,
                    tree.getpath(t_new) if t_new is not None else None, count_elements(root), changes))
                continue
            if old_html.count(MARK_TEXT) != 1 or new_html.count(MARK_TEXT) != want:
                self.stats["marker-text-mismatch"] += 1
                continue
            expected = paths[0] if paths else None
            if expected == target_path and any(c.startswith("move ") for c in changes):
                self.stats["moved-back"] += 1       # a move must leave a trace
                continue
            if kind != "control" and new_html.replace(MARK_TEXT, "") == old_html.replace(MARK_TEXT, ""):
                self.stats["no-change"] += 1
                continue
            cid = case_id(kind, severity, target, self.used)
            folder = os.path.join(self.args.out, "cases", cid)
            os.makedirs(folder, exist_ok=True)
            old_out = os.path.join(folder, "old.html")
            new_out = os.path.join(folder, "new.html")
            with open(old_out, "w", encoding="utf-8") as handle:
                handle.write(old_html.replace(MARK_TEXT, ""))
            with open(new_out, "w", encoding="utf-8") as handle:
                handle.write(new_html.replace(MARK_TEXT, ""))
            self.stats["attempts-%d" % (attempt + 1)] += 1
            return collections.OrderedDict([
                ("id", cid), ("track", "mutation"), ("kind", kind), ("severity", severity),
                ("old", old_out), ("new", new_out), ("target", target_path), ("expected", expected),
                ("extract", "text"), ("source", "%s %s" % (target.source.label, target.field)),
                ("elements", count), ("changes", changes),
            ])
        return None


def generate(args):
    mend = Mend(args.mend)
    print("loading targets from %s ..." % args.data, flush=True)
    pools = load_targets(args.data, args.seed)
    print("targets: " + ", ".join("%s %d" % (g, len(pools[g])) for g in GROUPS), flush=True)
    if os.path.exists(os.path.join(args.out, "cases")):
        shutil.rmtree(os.path.join(args.out, "cases"))
    os.makedirs(args.out, exist_ok=True)
    gen = Generator(args, pools, mend)
    per_kind = 2 if args.quick else args.per_kind
    controls = max(6, per_kind) if args.controls is None else args.controls
    rows = make_cases(gen, KINDS, SEVERITIES, per_kind, controls)
    manifest = write_manifest(args.out, rows, gen)
    summarise(rows)
    return manifest


def make_cases(gen, kinds, severities, per_kind, controls):
    """`per_kind` cases of every kind and severity, then `controls` unchanged ones, from a generator
    whose make(kind, severity, cell, i) returns a manifest row or None (a draw that did not take)."""
    rows = []
    cells = [(k, s) for k in kinds for s in severities]
    for cell, (kind, severity) in enumerate(cells):
        for i in range(per_kind):
            row = gen.make(kind, severity, cell, i)
            if row is not None:
                rows.append(row)
        print("  %-8s s%d: %d cases" % (kind, severity, sum(1 for r in rows if r["kind"] == kind and r["severity"] == severity)),
              flush=True)
    for i in range(controls):
        row = gen.make("control", 0, len(cells) + 1, i)
        if row is not None:
            rows.append(row)
    return rows


def write_manifest(out, rows, gen):
    """Writes OUT/cases.jsonl, removes the generator's work folder, and says what was written."""
    manifest = os.path.join(out, "cases.jsonl")
    with open(manifest, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    shutil.rmtree(gen.work, ignore_errors=True)
    print("wrote %d cases to %s" % (len(rows), manifest))
    print("generator: " + ", ".join("%s %d" % kv for kv in sorted(gen.stats.items())))
    return manifest


def summarise(rows):
    table = collections.Counter((r["kind"], r["severity"]) for r in rows)
    deleted = collections.Counter((r["kind"], r["severity"]) for r in rows if r["expected"] is None)
    groups = collections.Counter(r["source"].split()[0] + ("-" + r["source"].split()[1] if r["source"].startswith("swde") else "")
                                 for r in rows)
    print("%-9s %8s %8s %8s   (deleted targets in parentheses)" % ("kind", "s1", "s2", "s3"))
    for kind in KINDS:
        print("%-9s %s" % (kind, " ".join("%4d (%d)" % (table[(kind, s)], deleted[(kind, s)]) for s in SEVERITIES)))
    print("%-9s %4d" % ("control", table[("control", 0)]))
    n_del = sum(deleted.values())
    print("total %d, deleted %d (%.0f%%); sources: %s" % (len(rows), n_del, 100.0 * n_del / max(1, len(rows)),
                                                            ", ".join("%s %d" % kv for kv in sorted(groups.items()))))


def check(manifest, mend_path):
    """Every case's paths resolve: target selects one element in old, expected one in new (or null)."""
    mend = Mend(mend_path)
    problems = 0
    rows = [json.loads(line) for line in open(manifest, encoding="utf-8") if line.strip()]
    ids = set()
    for r in rows:
        errors = []
        if r["id"] in ids:
            errors.append("duplicate id")
        ids.add(r["id"])
        errors += check_case(mend, r)
        if errors:
            problems += 1
            print("%s: %s" % (r["id"], "; ".join(errors)))
    print("checked %d cases: %d with problems" % (len(rows), problems))
    summarise(rows)
    return problems


def check_case(mend, r, same_value=True):
    """What is wrong with one case (an empty list when nothing is).  With same_value, the
    target's value must be unchanged on the new page unless a text change was made; a case
    whose new page is another page of the site (bench/wide_cases.py) passes False."""
    errors = []
    for key in ("old", "new"):
        with open(r[key], encoding="utf-8") as handle:
            if MARK in handle.read():
                errors.append("%s page still carries the marker" % key)
    old = mend.select(r["old"], r["target"])["nodes"]
    if len(old) != 1 or old[0]["path"] != r["target"]:
        errors.append("target selects %d nodes in old" % len(old))
    if r["expected"] is not None:
        new = mend.select(r["new"], r["expected"])["nodes"]
        if len(new) != 1 or new[0]["path"] != r["expected"]:
            errors.append("expected selects %d nodes in new" % len(new))
        elif same_value and not any(w in c for c in r["changes"] for w in ("churn", "label", "nearby text")) \
                and len(old) == 1 and norm(old[0]["value"]) != norm(new[0]["value"]):
            errors.append("value changed: %r -> %r" % (old[0]["value"][:40], new[0]["value"][:40]))
    count = mend.select(r["new"], "count(//*)")["value"]
    if count != r["elements"]:
        errors.append("elements %s != %s" % (r["elements"], count))
    if r["kind"] == "control":
        if open(r["old"], "rb").read() != open(r["new"], "rb").read() or r["target"] != r["expected"]:
            errors.append("control pages or paths differ")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="the shared data folder (default %(default)s)")
    parser.add_argument("--out", help="output folder: pages under OUT/cases/, manifest OUT/cases.jsonl")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=20, help="cases per kind and severity (default 20)")
    parser.add_argument("--controls", type=int, default=None, help="control cases (default max(6, per-kind))")
    parser.add_argument("--quick", action="store_true", help="2 cases per kind and severity, 6 controls (CI)")
    parser.add_argument("--mend", default=None, help="mend binary (default target/release/mend, else mend on PATH)")
    parser.add_argument("--check", metavar="DIR", help="only verify DIR/cases.jsonl against mend")
    parser.add_argument("--no-check", action="store_true", help="skip verifying the written cases")
    parser.add_argument("--verbose", action="store_true", help="say why draws and targets were dropped")
    args = parser.parse_args()
    if args.mend is None:
        args.mend = DEFAULT_MEND if os.path.exists(DEFAULT_MEND) else (shutil.which("mend") or DEFAULT_MEND)
    if not os.path.exists(args.mend):
        sys.exit("no mend binary at %s (build it with cargo build --release --bin mend, or pass --mend)" % args.mend)
    if args.check:
        sys.exit(1 if check(os.path.join(args.check, "cases.jsonl"), args.mend) else 0)
    if not args.out:
        parser.error("--out is required")
    manifest = generate(args)
    if not args.no_check:
        sys.exit(1 if check(manifest, args.mend) else 0)


if __name__ == "__main__":
    main()
