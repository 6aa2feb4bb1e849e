#!/usr/bin/env python3
"""Differential XPath 1.0 conformance test: mend against lxml.

For every page of the fixed page list (see generate.py) this script
generates the page's expressions, writes them to a per-page expression file,
evaluates them with the oracle (html5lib + lxml), runs

    mend xpath PAGE --exprs FILE --json

and compares the two results case by case.  Every disagreement is printed,
then a summary line of the form

    xpath conformance: N cases, A agreed, D disagreed

and the exit status is 0 only when D is 0.

Usage:
    run.py --mend PATH_TO_MEND [--data DIR] [--out report.json] [--limit-pages N]
    run.py --oracle-only [--limit-pages N]     (checks the Python side alone)
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The scripts import each other from this folder; no bytecode cache is
# written so that running the test leaves the work tree clean.
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

import generate  # noqa: E402
import oracle  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))

# Cases on which mend may legitimately differ from the oracle because html5ever
# builds a different tree from html5lib for that page.  An entry is added only
# together with evidence that the two trees differ (a dump of both trees at the
# spot, kept in README.md), as {"page": PAGE_ID, "expr": EXPR, "reason": ...}.
# The list is empty: the trees of all pages in the test were compared node by
# node and found identical (see README.md, "Page selection").
KNOWN_DIFFERENCES = []

SHOW_CHARS = 240


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def scalars_equal(a, b):
    """Equality of two {"value": ...} payloads under the rendering rules.

    Numbers compare as IEEE doubles (so -0 equals 0); NaN and the infinities
    are written as strings on both sides, so NaN meets NaN as equal strings.
    Booleans must be booleans on both sides (Python would let True == 1).
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return float(a) == float(b)
    return isinstance(a, str) and isinstance(b, str) and a == b


def same_result(expected, actual):
    """True when mend's result `actual` agrees with the oracle's `expected`."""
    if not isinstance(actual, dict):
        return False
    if "error" in expected:
        return "error" in actual
    if "nodes" in expected:
        nodes = actual.get("nodes")
        if not isinstance(nodes, list) or len(nodes) != len(expected["nodes"]):
            return False
        for want, got in zip(expected["nodes"], nodes):
            if not isinstance(got, dict) or got.get("path") != want["path"] or got.get("value") != want["value"]:
                return False
        return True
    if "value" in expected:
        return "value" in actual and "nodes" not in actual and "error" not in actual and scalars_equal(
            expected["value"], actual["value"]
        )
    return False


def abbreviate(text, limit=SHOW_CHARS):
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(result, other=None):
    """A short human-readable form of one result, pointing at the first
    node that differs from `other` when both are node-sets."""
    if not isinstance(result, dict):
        return abbreviate(repr(result))
    if "nodes" in result and isinstance(result["nodes"], list):
        nodes = result["nodes"]
        start = 0
        if other and isinstance(other.get("nodes"), list):
            for start, (a, b) in enumerate(zip(nodes, other["nodes"])):
                if a != b:
                    break
            else:
                start = min(len(nodes), len(other["nodes"]))
        shown = []
        for node in nodes[start : start + 3]:
            if isinstance(node, dict):
                shown.append("%s = %s" % (node.get("path"), abbreviate(json.dumps(node.get("value"), ensure_ascii=False), 60)))
            else:
                shown.append(abbreviate(repr(node), 60))
        lead = "%d nodes" % len(nodes)
        if start:
            lead += ", first %d agree, from #%d" % (start, start + 1)
        return "%s: %s%s" % (lead, "; ".join(shown), "; ..." if len(nodes) > start + 3 else "")
    return abbreviate(json.dumps(result, ensure_ascii=False))


def run_mend(mend_cmd, page_path, exprs_path, expected_lines, timeout):
    """Run mend's batch mode; returns (list of parsed results, failure note)."""
    command = mend_cmd + ["xpath", page_path, "--exprs", exprs_path, "--json"]
    try:
        proc = subprocess.run(command, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "mend timed out after %ds" % timeout
    except OSError as error:
        return None, "cannot run mend: %s" % error
    lines = proc.stdout.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    note = None
    if proc.returncode != 0:
        note = "mend exited with %d: %s" % (proc.returncode, abbreviate(proc.stderr.decode("utf-8", "replace").strip()))
    if len(lines) != expected_lines:
        extra = "mend printed %d lines for %d expressions" % (len(lines), expected_lines)
        return None, "%s; %s" % (note, extra) if note else extra
    results = []
    for line in lines:
        try:
            results.append(json.loads(line))
        except ValueError:
            results.append({"unparsable output": abbreviate(line)})
    return results, note


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare mend's XPath engine with lxml on real pages.")
    parser.add_argument("--mend", help="path to the mend binary (a command with arguments is split like a shell would)")
    parser.add_argument("--oracle-only", action="store_true", help="generate and evaluate with the oracle only (no mend)")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(REPO), "shared", "data"), help="data directory (default: %(default)s)")
    parser.add_argument("--out", help="write a JSON report here")
    parser.add_argument("--work", default=os.path.join(REPO, "target", "xpath-conformance"),
                        help="where the per-page expression files go (default: %(default)s)")
    parser.add_argument("--limit-pages", type=int, help="use only the first N pages (quick smoke run)")
    parser.add_argument("--seed", type=int, default=generate.DEFAULT_SEED)
    parser.add_argument("--template-contents", choices=("children", "fragment"), default="children",
                        help="whether <template> contents are children of the template (default) or a detached fragment")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed for mend per page")
    args = parser.parse_args(argv)
    if not args.oracle_only and not args.mend:
        parser.error("--mend is required (or use --oracle-only)")
    mend_cmd = shlex.split(args.mend) if args.mend else None
    os.makedirs(args.work, exist_ok=True)

    known = {(k["page"], k["expr"]): k["reason"] for k in KNOWN_DIFFERENCES}
    totals = {"cases": 0, "agreed": 0, "disagreed": 0, "known": 0}
    pages_report = []
    disagreements = []
    started = time.time()
    for index, (relpath, full) in enumerate(generate.resolve_pages(args.data, args.limit_pages)):
        pid = generate.page_id(relpath)
        page = oracle.OraclePage(full, template_contents=args.template_contents)
        cases, _ = generate.generate_cases(page, relpath, index, args.seed)
        exprs_path, _ = generate.write_page_files(args.work, relpath, cases)
        expected = [page.evaluate(case["expr"], case.get("oracle_expr"))[0] for case in cases]
        entry = {"page": relpath, "id": pid, "cases": len(cases)}
        pages_report.append(entry)
        totals["cases"] += len(cases)
        if args.oracle_only:
            print("%-28s %3d cases" % (pid, len(cases)))
            continue
        actual, note = run_mend(mend_cmd, full, exprs_path, len(cases), args.timeout)
        if note:
            entry["mend_note"] = note
            if actual is not None:
                print("%s: %s" % (pid, note))
        if actual is None:
            # Without usable output every case of the page counts as a
            # disagreement, including those where an error was expected.
            print("DISAGREE %s: all %d cases (%s)" % (pid, len(cases), note))
            entry.update(agreed=0, disagreed=len(cases))
            totals["disagreed"] += len(cases)
            disagreements.append({"page": relpath, "id": pid, "all_cases": len(cases), "note": note})
            continue
        agreed = disagreed = 0
        for case, want, got in zip(cases, expected, actual):
            if same_result(want, got):
                agreed += 1
                continue
            reason = known.get((pid, case["expr"]))
            if reason is not None:
                totals["known"] += 1
                continue
            disagreed += 1
            print("DISAGREE %s [%s]\n  expr:  %s\n  lxml:  %s\n  mend:  %s" % (
                pid, case["template"], case["expr"], describe(want, got if isinstance(got, dict) else None),
                describe(got, want)))
            disagreements.append({
                "page": relpath, "id": pid, "template": case["template"], "expr": case["expr"],
                "expected": want, "actual": got,
            })
        entry.update(agreed=agreed, disagreed=disagreed)
        totals["agreed"] += agreed
        totals["disagreed"] += disagreed

    if args.oracle_only:
        print("oracle only: %d pages, %d cases (%.1fs)" % (len(pages_report), totals["cases"], time.time() - started))
        return 0
    if totals["known"]:
        print("known differences (listed in run.py, not counted as disagreements): %d" % totals["known"])
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            versions = {"lxml": ".".join(map(str, oracle.etree.LXML_VERSION[:3])),
                        "libxml2": ".".join(map(str, oracle.etree.LIBXML_VERSION))}
            json.dump({"summary": totals, "seed": args.seed, "template_contents": args.template_contents,
                       "oracle": versions,
                       "pages": pages_report, "disagreements": disagreements}, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
    print("xpath conformance: %d cases, %d agreed, %d disagreed" % (totals["cases"], totals["agreed"], totals["disagreed"]))
    return 0 if totals["disagreed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
