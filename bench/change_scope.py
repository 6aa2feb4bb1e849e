#!/usr/bin/env python3
"""Change sensing on the bench: the confusion matrix of mend's change scope, and scope-first
search against whole-page search.

mend classifies each page change around a broken pattern before it searches (the
`change_scope` of an adaptation: none, unstable, template, local, structural).  This script
reads the JSON of `heal_harness.py --json` runs and the case manifests they ran on, and:

1. The known scope of each case, from its pages, as Liu et al. define it: ``local`` when the
   target's old parent is on the new page unchanged (an ancestor of the expected node has the
   old parent's tag and attributes, and its parent the old grandparent's) and the target is
   inside it, ``structural`` otherwise (a record case stands for its first item); ``none``: a
   control case (the new page is the old one); ``unstable``: a reload case (only what changes
   between loads changed).  A case whose target was deleted has no scope and is counted
   apart.  A mutation kind does not fix the scope by itself (a rename, retag, wrap or move
   hits the target or one of its ancestors at random), so the scope is read per case and
   the classes are also shown per kind.
2. The matrix of known scope against mend's class, over the cases where mend sensed a change
   (a pattern that still works is never sensed: it is counted under ``not sensed``), and the
   classes by mutation kind and severity.
3. With ``--page H2.json`` (the same cases run with ``--search-scope page``): correct, wrong
   and abstained cases and the median `mend run` time per track for both (every case of the
   runs, not only the manifests'), and the same over the cases where the change was sensed
   local.  The whole process's time is mostly parsing; `cargo bench --bench heal --
   field-in-60k` times the search alone.

Usage:
    python3 bench/change_scope.py --json H.json --cases target/mut-cases/cases.jsonl \
        [--cases MORE.jsonl] [--page H2.json] [--report FILE]
"""

import argparse
import collections
import json
import statistics
import sys
import warnings
from pathlib import Path

import html5lib
import lxml.etree as etree

CLASSES = ["none", "unstable", "template", "local", "structural"]


def parse(path):
    with open(path, "rb") as f:
        data = f.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = html5lib.parse(data, treebuilder="lxml", namespaceHTMLElements=False)
    return doc


def shell(e):
    return (e.tag, tuple(sorted((k, v) for k, v in e.attrib.items())))


def chain(e):
    out = []
    while e is not None and isinstance(e.tag, str):
        out.append(shell(e))
        e = e.getparent()
    return out


PAGE_SCOPE = {}


def known_scope(case):
    """The case's scope from its pages (see the module documentation); memoized by case."""
    if case.get("track") in ("reload", "reload-unlearned"):
        return "unstable"
    if case.get("severity") == 0 and case.get("kind") == "control":
        return "none"
    target, expected = case["target"], case.get("expected")
    if case.get("expected_items"):
        # A record case: its first item stands for the record, its container is the parent.
        target, expected = case["items"][0], case["expected_items"][0]
    if expected is None:
        return "deleted"
    if case["id"] not in PAGE_SCOPE:
        PAGE_SCOPE[case["id"]] = scope_from_pages(case, target, expected)
    return PAGE_SCOPE[case["id"]]


def scope_from_pages(case, target, expected):
    old, new = parse(case["old"]), parse(case["new"])
    targets = old.xpath(target)
    found = new.xpath(expected)
    if len(targets) != 1 or len(found) != 1:
        return "unknown"
    want = chain(targets[0])[1:3]           # the old parent and grandparent
    a = found[0].getparent()
    while a is not None and isinstance(a.tag, str):
        if chain(a)[:2] == want:
            return "local"
        a = a.getparent()
    return "structural"


def load_cases(paths):
    cases = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.strip():
                    c = json.loads(line)
                    cases[c["id"]] = c
    return cases


def sensed(o):
    m = o.get("mend") or {}
    return m.get("change_scope") or "not sensed"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True, help="heal_harness.py --json output (parent-first search)")
    ap.add_argument("--cases", action="append", required=True, help="a case manifest the run read")
    ap.add_argument("--page", help="the same cases run with --search-scope page")
    ap.add_argument("--report", help="write the report here too (Markdown)")
    ap.add_argument("--min-agree", type=float, metavar="PCT",
                    help="exit 1 when, on the mutation track (fields), fewer than PCT percent of "
                         "the sensed cases with a known scope are classed as known")
    args = ap.parse_args()

    manifest = load_cases(args.cases)
    run = json.loads(Path(args.json).read_text())
    outcomes = [o for o in run["cases"] if o["id"] in manifest]
    if not outcomes:
        sys.exit("no case of the run is in the manifests given")
    L = ["# Change sensing", "", f"{len(outcomes)} cases from {args.json}.", ""]

    columns = CLASSES + ["not sensed"]
    truth = {o["id"]: known_scope(manifest[o["id"]]) for o in outcomes}
    L += confusion("Known scope", outcomes, truth, columns)
    # 2. Classes by mutation kind and severity, with the known scopes of the same cases.
    by_kind = collections.defaultdict(list)
    for o in outcomes:
        by_kind[(o.get("track"), o.get("kind"), o.get("severity"))].append(o)
    L += ["## mend's class by track, kind and severity", "",
          "`known l/s/d`: cases whose known scope is local, structural, deleted; `agree`: "
          "sensed cases with a known scope that mend classed as known.", ""]
    rows = []
    for (track, kind, sev), os_ in sorted(by_kind.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        counts = collections.Counter(sensed(o) for o in os_)
        known = collections.Counter(truth[o["id"]] for o in os_)
        scored = [o for o in os_ if sensed(o) != "not sensed" and truth[o["id"]] in CLASSES]
        agree = sum(1 for o in scored if sensed(o) == truth[o["id"]])
        rows.append([track, kind, sev] + [counts[c] for c in columns]
                    + [f"{known['local']}/{known['structural']}/{known['deleted']}",
                       f"{agree}/{len(scored)}", len(os_)])
    L += table(["track", "kind", "severity"] + columns + ["known l/s/d", "agree", "cases"], rows)
    L.append("")

    # 3. Scope-first against whole-page search.
    L += scope_first(args, run["cases"])
    fields = [o for o in outcomes if o.get("track") == "mutation"
              and sensed(o) != "not sensed" and truth[o["id"]] in CLASSES]
    agree = 100.0 * sum(1 for o in fields if sensed(o) == truth[o["id"]]) / max(1, len(fields))
    L += [f"Fields (the mutation track): {agree:.1f}% of {len(fields)} sensed cases classed as known.", ""]
    text = "\n".join(L)
    print(text)
    if args.report:
        Path(args.report).write_text(text + "\n")
    if args.min_agree is not None:
        if not fields:
            sys.exit("no sensed field case: the floor cannot be judged")
        if agree < args.min_agree:
            sys.exit(f"change sensing agrees on {agree:.1f}% of fields, under the floor {args.min_agree}%")


def confusion(title, outcomes, truth, columns):
    """The matrix of known scope (rows) against mend's class (columns), with precision and
    recall of local and structural over the cases mend sensed."""
    L = []
    matrix = collections.Counter((truth[o["id"]], sensed(o)) for o in outcomes)
    rows = []
    for t in ["none", "unstable", "template", "local", "structural", "deleted", "unknown"]:
        n = sum(v for (tt, _), v in matrix.items() if tt == t)
        if n:
            rows.append([t] + [matrix[(t, c)] for c in columns] + [n])
    L += [f"## {title} (rows) against mend's class (columns)", ""]
    L += table(["known \\ mend"] + columns + ["cases"], rows)
    scored = [(truth[o["id"]], sensed(o)) for o in outcomes
              if sensed(o) != "not sensed" and truth[o["id"]] in CLASSES]
    right = sum(1 for t, c in scored if t == c)
    L += ["", f"Of {len(scored)} sensed cases with a known scope, {right} are classed as known "
          f"({100.0 * right / max(1, len(scored)):.1f}%)."]
    for t in ("local", "structural"):
        tp = sum(1 for tt, c in scored if tt == t and c == t)
        fp = sum(1 for tt, c in scored if tt != t and c == t)
        fn = sum(1 for tt, c in scored if tt == t and c != t)
        p = tp / (tp + fp) if tp + fp else float("nan")
        r = tp / (tp + fn) if tp + fn else float("nan")
        L.append(f"- {t}: precision {p:.3f}, recall {r:.3f} ({tp} right, {fp} classed {t} wrongly, "
                 f"{fn} missed)")
    L.append("")
    return L


def scope_first(args, outcomes):
    """Section 3: the same cases with parent-first and whole-page search."""
    L = []
    if args.page:
        page = {o["id"]: o for o in json.loads(Path(args.page).read_text())["cases"]}
        both = [o for o in outcomes if o["id"] in page]
        L += ["## Scope-first search against whole-page search", "",
              f"{len(both)} cases run both ways; `mend run` wall time, medians.", ""]
        rows = []
        groups = collections.defaultdict(list)
        for o in both:
            groups[o["track"]].append(o)
            if sensed(o) == "local":
                groups["(sensed local)"].append(o)
        for name, os_ in sorted(groups.items()):
            def verdicts(xs):
                c = collections.Counter((x.get("mend") or {}).get("verdict") for x in xs)
                return f"{c['correct']}/{c['wrong']}/{c['abstain']}"
            first_ms = [o["mend"]["run_ms"] for o in os_ if (o.get("mend") or {}).get("run_ms")]
            page_ms = [page[o["id"]]["mend"]["run_ms"] for o in os_
                       if (page[o["id"]].get("mend") or {}).get("run_ms")]
            differ = sum(1 for o in os_
                         if (o.get("mend") or {}).get("verdict") != (page[o["id"]].get("mend") or {}).get("verdict"))
            rows.append([name, len(os_), verdicts(os_), verdicts([page[o["id"]] for o in os_]), differ,
                         f"{median(first_ms):.1f}", f"{median(page_ms):.1f}",
                         f"{median(page_ms) / median(first_ms):.2f}" if first_ms and page_ms else "-"])
        L += table(["cases", "n", "parent-first c/w/a", "page c/w/a", "verdicts differ",
                    "parent-first ms", "page ms", "page / parent-first"], rows)
        L.append("")
    return L


if __name__ == "__main__":
    main()
