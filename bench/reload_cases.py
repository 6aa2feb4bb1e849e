#!/usr/bin/env python3
"""Reload track of the healing benchmark: loads of the same page that differ
only in what changes from load to load.

A reload is not a redesign.  Between two loads of one URL, a page's dates and
clock times move, its counters (views, comments, reviews, results) count on,
its ad slots carry another ad and another slot id, its teaser lists rotate,
and its cache-busting query strings and nonces are new.  The layout and the
data a wrapper extracts stay where they were, so a wrapper must come back
with the same node, and must neither heal nor report drift.

Each case takes a target of bench/mutate.py's sources (SWDE book fields, Zyte
article fields; dates among them, which change too) and writes four loads of
its page: ``old.html`` (load 1, the page as mutate.py serialises it),
``load2.html`` and ``load3.html`` (the loads `mend learn` learns from with
the old page), and ``new.html`` (load 4, the page the wrapper runs on).  The
structure never changes, so ``expected`` is the target's own path; the round
trip through mend's parser is checked as in mutate.py.

Every case is written twice to the manifest, on two tracks that share the
pages: ``reload`` (its ``learn`` key names load2 and load3, and the harness
runs ``mend learn W old load2 load3`` instead of ``mend snapshot W old``) and
``reload-unlearned`` (a plain snapshot of the old page), which shows what the
learning is for.

Changes, each drawn from random.Random seeded with (seed, case, load):

* ``dates``     month-name dates (``Jul 23``, ``23 July 2026``), numeric dates
                (``2026-07-23``, ``07/23/2026``) and times (``12:01``,
                ``12:01:05``) in text nodes get other values.
* ``counters``  a number before or after a counting word (``123 views``,
                ``Comments (45)``, ``4,567 results``) gets another.
* ``ads``       elements whose class or id has an ad word (ad, ads, advert,
                banner, promo, sponsor, dfp, gpt) get other text in their
                text nodes and other digits in their ids and data attributes.
* ``teasers``   lists (3 or more same-tag siblings, each with text) whose
                container's class or id has a teaser word (teaser, carousel,
                slide, trending, popular, most, related, recommend, headlines,
                promo) have the texts of their items rotated by one or more
                places; the items stay, their texts move.
* ``tokens``    ``?v=``, ``?cb=``, ``?ts=`` query values in href/src, and
                nonce, csrf and token attributes, get new values.

Usage:
    python3 bench/reload_cases.py --data ../shared/data --out target/reload-cases --seed 1 [--cases N]
"""

import argparse
import collections
import copy
import json
import os
import random
import re
import sys

import mutate
from mutate import MARK, MARK_TEXT, SKIP_SUBTREES, count_elements, is_el, serialise

LOADS = 4
AD_WORDS = {"ad", "ads", "advert", "advertisement", "banner", "promo", "sponsor", "sponsored",
            "dfp", "gpt", "adslot", "ad-slot", "adunit", "ad-unit"}
TEASER_WORDS = ("teaser", "carousel", "slide", "trending", "popular", "most", "related",
                "recommend", "headlines", "promo")
COUNT_WORDS = r"(views?|comments?|reviews?|ratings?|shares?|likes?|followers?|results?|items?|" \
              r"answers?|replies|votes?|readers?|people|watching|sold|customers?|points?)"
MONTHS = mutate.MONTHS
SHORT = mutate.MONTHS_SHORT

DATE_PATTERNS = [
    # 23 July 2026, July 23, 2026, Jul 23, 23 Jul
    re.compile(r"\b(\d{1,2}) (%s)\b( \d{4})?" % "|".join(MONTHS + SHORT)),
    re.compile(r"\b(%s)\.? (\d{1,2})\b(,? \d{4})?" % "|".join(MONTHS + SHORT)),
    re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b"),
    re.compile(r"\b(\d{1,2}):(\d{2})(:\d{2})?\b"),
]
COUNTER_PATTERNS = [
    re.compile(r"\b(\d[\d,.]*)(\s*)(%s)\b" % COUNT_WORDS, re.I),
    re.compile(r"\b(%s)(\s*\(?\s*)(\d[\d,.]*)" % COUNT_WORDS, re.I),
]


def tokens_of(e):
    words = set()
    for name in ("class", "id"):
        for t in re.split(r"[\s_]+", (e.get(name) or "").lower()):
            if t:
                words.add(t)
                words.update(p for p in t.split("-") if p)
    return words


def new_date(match, rng):
    text = match.group(0)
    if ":" in text and "/" not in text and "-" not in text:
        parts = text.split(":")
        out = "%d:%02d" % (rng.randint(0, 23) if len(parts[0]) == 2 else rng.randint(1, 12), rng.randint(0, 59))
        return out + (":%02d" % rng.randint(0, 59) if len(parts) == 3 else "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return "%04d-%02d-%02d" % (int(text[:4]), rng.randint(1, 12), rng.randint(1, 28))
    if "/" in text:
        a, b, c = text.split("/")
        return "%d/%d/%s" % (rng.randint(1, 12), rng.randint(1, 28), c)
    def month(m):
        pool = MONTHS if m in MONTHS else SHORT
        return rng.choice(pool)
    words = re.split(r"(\W+)", text)
    out = []
    for w in words:
        if w in MONTHS or w in SHORT:
            out.append(month(w))
        elif re.fullmatch(r"\d{1,2}", w):
            out.append(str(rng.randint(1, 28)))
        else:
            out.append(w)
    return "".join(out)


def new_count(digits, rng):
    n = re.sub(r"\D", "", digits) or "0"
    value = max(0, int(n) + rng.randint(1, 97))
    return "{:,}".format(value) if "," in digits else str(value)


def churn_dates_and_counters(text, rng):
    for p in DATE_PATTERNS:
        text = p.sub(lambda m: new_date(m, rng), text)
    text = COUNTER_PATTERNS[0].sub(lambda m: new_count(m.group(1), rng) + m.group(2) + m.group(3), text)
    text = COUNTER_PATTERNS[1].sub(lambda m: m.group(1) + m.group(2) + new_count(m.group(3), rng), text)
    return text


def text_slots(e):
    """(node, "text" | "tail") for e's non-blank text nodes outside skipped sub-trees."""
    for node in e.iter():
        if not is_el(node) or node.tag in SKIP_SUBTREES:
            continue
        if any(a.tag in SKIP_SUBTREES for a in node.iterancestors()):
            continue
        if node.text and node.text.strip():
            yield node, "text"
        if node is not e and node.tail and node.tail.strip():
            yield node, "tail"


def get(slot):
    node, which = slot
    return node.text if which == "text" else node.tail


def put(slot, value):
    node, which = slot
    if which == "text":
        node.text = value
    else:
        node.tail = value


def reload_page(root, rng, changes):
    """Applies one load's changes to the tree; counts them in `changes`."""
    body = root.find("body")
    if body is None:
        return
    for slot in list(text_slots(body)):
        before = get(slot)
        after = churn_dates_and_counters(before, rng)
        if after != before:
            put(slot, after)
            changes["dates/counters"] += 1
    for e in body.iter():
        if not is_el(e) or e.tag in SKIP_SUBTREES:
            continue
        words = tokens_of(e)
        if words & AD_WORDS:
            for slot in list(text_slots(e)):
                put(slot, " ".join(rng.choice(mutate.FILLER_WORDS) for _ in range(rng.randint(1, 4))))
                changes["ads"] += 1
            for name, value in list(e.attrib.items()):
                if name != MARK and (name == "id" or name.startswith("data-")) and re.search(r"\d", value):
                    e.set(name, re.sub(r"\d+", lambda m: str(rng.randint(1, 99999)), value))
                    changes["ads"] += 1
        if any(w.startswith(TEASER_WORDS) for w in words):
            items = [c for c in e if is_el(c)]
            tags = collections.Counter(c.tag for c in items)
            if not tags:
                continue
            tag, count = tags.most_common(1)[0]
            items = [c for c in items if c.tag == tag and next(text_slots(c), None) is not None
                     and c.get(MARK) is None and not any(d.get(MARK) for d in c.iter() if is_el(d))]
            if len(items) >= 3:
                texts = [[get(s) for s in text_slots(c)] for c in items]
                shift = rng.randint(1, len(items) - 1)
                for i, c in enumerate(items):
                    source = texts[(i + shift) % len(items)]
                    slots = list(text_slots(c))
                    for j, s in enumerate(slots):
                        put(s, source[j] if j < len(source) else "")
                changes["teasers"] += 1
    for e in root.iter():
        if not is_el(e):
            continue
        for name in ("href", "src"):
            v = e.get(name)
            if v and re.search(r"[?&](v|cb|ts|t|_)=\w+", v):
                e.set(name, re.sub(r"([?&](?:v|cb|ts|t|_)=)\w+", lambda m: m.group(1) + str(rng.randint(1, 10**9)), v))
                changes["tokens"] += 1
        for name, value in list(e.attrib.items()):
            if re.search(r"nonce|csrf|token", name, re.I) and value:
                e.set(name, "%x" % rng.getrandbits(64))
                changes["tokens"] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=mutate.DEFAULT_DATA)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=120, help="how many targets (each gives a case on both tracks)")
    ap.add_argument("--mend", default=mutate.DEFAULT_MEND)
    args = ap.parse_args()
    probe = mutate.Mend(args.mend)
    pools = mutate.load_targets(args.data, args.seed)
    targets = [t for g in mutate.GROUPS for t in pools[g]]
    random.Random(args.seed).shuffle(targets)
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    rows, used, stats = [], set(), collections.Counter()
    work = os.path.join(args.out, "probe.html")
    for target in targets:
        if len(rows) // 2 >= args.cases:
            break
        tree = copy.deepcopy(target.source.tree())
        t = target.locate(tree.getroot())
        if t is None:
            stats["target-not-found"] += 1
            continue
        t.set(MARK, "1")
        path = tree.getpath(t)
        loads, changes = [], collections.Counter()
        ok = True
        for n in range(LOADS):
            load = copy.deepcopy(tree)
            if n > 0:
                reload_page(load.getroot(), random.Random("%s/%s/%s/%d" % (args.seed, target.source.slug, target.field, n)), changes)
            html = serialise(load)
            with open(work, "w", encoding="utf-8") as handle:
                handle.write(html)
            paths, count = probe.probe(work)
            if paths != [path] or count != count_elements(load.getroot()) or html.count(MARK_TEXT) != 1:
                ok = False
                break
            loads.append(html.replace(MARK_TEXT, ""))
        if not ok:
            stats["roundtrip-mismatch"] += 1
            continue
        if loads[3] == loads[0]:
            stats["nothing-changes"] += 1
            continue
        cid = "reload-%s-%s" % (target.source.slug, target.field)
        if cid in used:
            continue
        used.add(cid)
        folder = os.path.join(args.out, "cases", cid)
        os.makedirs(folder, exist_ok=True)
        names = ["old.html", "load2.html", "load3.html", "new.html"]
        for name, html in zip(names, loads):
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(html)
        base = collections.OrderedDict([
            ("id", cid), ("track", "reload"), ("kind", target.field), ("severity", 0),
            ("old", os.path.join("cases", cid, "old.html")), ("new", os.path.join("cases", cid, "new.html")),
            ("learn", [os.path.join("cases", cid, n) for n in names[1:3]]),
            ("target", path), ("expected", path), ("extract", "text"),
            ("source", "%s %s" % (target.source.label, target.field)), ("elements", count),
            ("changes", dict(changes)),
        ])
        rows.append(base)
        plain = collections.OrderedDict(base)
        plain["id"] = cid + "-unlearned"
        plain["track"] = "reload-unlearned"
        del plain["learn"]
        rows.append(plain)
        stats["cases"] += 1
        for k, v in changes.items():
            stats["with-" + k] += bool(v)
    os.remove(work) if os.path.exists(work) else None
    with open(os.path.join(args.out, "cases.jsonl"), "w", encoding="utf-8") as handle:
        for r in rows:
            handle.write(json.dumps(r) + "\n")
    print("reload cases: %s" % ", ".join("%s %d" % kv for kv in sorted(stats.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
