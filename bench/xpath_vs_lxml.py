#!/usr/bin/env python3
"""XPath evaluation speed: mend against lxml, side by side in one run.

Both sides evaluate the same expressions (bench/xpath_expressions.txt) on the
same pages (the Zyte article benchmark, gzipped HTML) with parsing excluded
from the measurement:

* lxml: every page is parsed once with lxml.html.fromstring (the parser
  parsel and Scrapy use), every expression is compiled once with etree.XPath,
  then all expressions are evaluated on all pages, round after round.  The
  figure reported is the median over rounds of expressions evaluated per
  second.  Results are left as lxml returns them (lists of nodes or strings,
  with smart strings off as in parsel); nothing is serialised.
* mend: the script runs the xpath_throughput example, which measures the same
  thing on mend's own DOM and prints one JSON line with
  "expressions_per_second".

The script prints both figures and the ratio mend/lxml, and writes them to a
small JSON file.

Usage:
    python3 bench/xpath_vs_lxml.py [--quick] [--rounds N] [--mend-cmd CMD] [--skip-mend] [--out FILE]
"""

import argparse
import gc
import glob
import gzip
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

import lxml
import lxml.html
from lxml import etree

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
EXPRESSIONS = os.path.join(BENCH, "xpath_expressions.txt")
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "zyte_article_extraction_benchmark", "html")
DEFAULT_MEND_CMD = "cargo run --release --example xpath_throughput -- --exprs bench/xpath_expressions.txt"
QUICK_PAGES = 5


def load_expressions(path):
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip()]


def page_paths(data_dir, quick):
    paths = sorted(glob.glob(os.path.join(data_dir, "*.html.gz")))
    if not paths:
        raise SystemExit("no *.html.gz pages in %s" % data_dir)
    # The quick run takes the first pages in name order so that it is the
    # same set every time.
    return paths[:QUICK_PAGES] if quick else paths


def measure_lxml(paths, expressions, rounds):
    """Median expressions per second over `rounds` rounds, plus details."""
    # Reading, decompressing and parsing happen once, before any timing.
    roots = []
    for path in paths:
        with open(path, "rb") as handle:
            roots.append(lxml.html.fromstring(gzip.decompress(handle.read())))
    compiled = [etree.XPath(expr, smart_strings=False) for expr in expressions]

    per_round = []
    per_expression = [0.0] * len(compiled)
    result_sizes = [0] * len(compiled)
    evaluations = len(roots) * len(compiled)
    clock = time.perf_counter
    for round_index in range(rounds):
        # Collect garbage between rounds so that one round's leftovers do not
        # land a collection pause in the next round's measurement.
        gc.collect()
        started = clock()
        for root in roots:
            for index, xpath in enumerate(compiled):
                before = clock()
                result = xpath(root)
                per_expression[index] += clock() - before
                if round_index == 0:
                    result_sizes[index] += len(result) if isinstance(result, list) else 1
        per_round.append(evaluations / (clock() - started))
    total = sum(per_expression) or 1.0
    return {
        "expressions_per_second": statistics.median(per_round),
        "rounds": rounds,
        "per_round": per_round,
        "pages": len(roots),
        "expressions": len(compiled),
        "time_share": {expr: per_expression[i] / total for i, expr in enumerate(expressions)},
        "result_items_per_pass": dict(zip(expressions, result_sizes)),
    }


def measure_mend(command, paths):
    """Run mend's throughput example; returns (parsed JSON, error note)."""
    argv = shlex.split(command) + paths
    try:
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    except OSError as error:
        return None, "cannot run %s: %s" % (argv[0], error)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        return None, "mend command exited with %d:\n%s" % (proc.returncode, tail)
    # cargo prints its progress on stderr; the example's answer is the last
    # JSON object on stdout that carries the figure.
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            parsed = json.loads(line)
        except ValueError:
            continue
        if isinstance(parsed, dict) and "expressions_per_second" in parsed:
            return parsed, None
    return None, "no JSON line with expressions_per_second in mend's output:\n%s" % proc.stdout[-2000:]


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare mend's XPath evaluation speed with lxml's.")
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of *.html.gz pages (default: %(default)s)")
    parser.add_argument("--rounds", type=int, help="lxml rounds (default 10, or 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a few pages and one round (CI smoke run)")
    parser.add_argument("--mend-cmd", default=DEFAULT_MEND_CMD,
                        help="command for the mend side, run from the repository root; the pages are appended (default: %(default)s)")
    parser.add_argument("--skip-mend", action="store_true", help="measure lxml only")
    parser.add_argument("--out", default=os.path.join(REPO, "target", "bench", "xpath_vs_lxml.json"),
                        help="where to write the JSON result (default: %(default)s)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 10)

    expressions = load_expressions(EXPRESSIONS)
    paths = page_paths(args.data, args.quick)
    print("%d pages, %d expressions, %d rounds" % (len(paths), len(expressions), rounds))

    lxml_result = measure_lxml(paths, expressions, rounds)
    print("lxml %s (libxml2 %s): %.0f expressions/s" % (
        ".".join(map(str, etree.LXML_VERSION[:3])), ".".join(map(str, etree.LIBXML_VERSION)),
        lxml_result["expressions_per_second"]))
    for expr, share in sorted(lxml_result["time_share"].items(), key=lambda item: -item[1]):
        print("  %5.1f%%  %s" % (100 * share, expr))

    mend_result, note = (None, "skipped") if args.skip_mend else measure_mend(args.mend_cmd, paths)
    ratio = None
    if mend_result is not None:
        ratio = mend_result["expressions_per_second"] / lxml_result["expressions_per_second"]
        print("mend: %.0f expressions/s" % mend_result["expressions_per_second"])
        print("ratio mend/lxml: %.2f" % ratio)
    else:
        print("mend: %s" % note)

    summary = {
        "benchmark": "xpath_vs_lxml",
        "pages": len(paths),
        "expressions_file": os.path.relpath(EXPRESSIONS, REPO),
        "quick": args.quick,
        "python": platform.python_version(),
        "lxml": lxml.__version__,
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "lxml_result": lxml_result,
        "mend_command": None if args.skip_mend else args.mend_cmd,
        "mend_result": mend_result,
        "mend_note": note,
        "ratio_mend_over_lxml": ratio,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
        handle.write("\n")
    print("result written to %s" % args.out)
    return 0 if (args.skip_mend or mend_result is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
