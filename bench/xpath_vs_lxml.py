#!/usr/bin/env python3
"""XPath evaluation speed: mend against lxml, side by side in one run.

Both sides do the same work on the same trees, and the script proves it:

* Same trees.  lxml builds its trees with html5lib's lxml tree builder, after
  decoding each page as mend does (the decoding of the XPath conformance
  oracle, tests/xpath_conformance/oracle.py): the HTML5 algorithm that mend's
  parser (html5ever) also follows.  lxml.html.fromstring (libxml2's HTML
  parser, what parsel and Scrapy use) builds another tree on some pages, so
  its results are not the same results.  Parsing is not timed on either side.
* Same results.  One evaluation evaluates an expression from the document
  node and materializes its result as strings: the XPath string-value of
  every selected node, in document order, or for a number, string or
  boolean its XPath string().  lxml returns attribute values and text nodes
  as Python strings already (smart strings off, as in parsel); an element's
  string-value is etree.tostring(element, method="text", encoding=str,
  with_tail=False).  mend (the xpath_throughput example) calls
  Item::string_value on every selected node.
* Same clocks.  Both sides time whole rounds: one clock reading before and
  one after evaluating every expression on every page; nothing is timed per
  evaluation.  The sides alternate: each of --rounds repetitions is one lxml
  round and one run of the mend example (--mend-rounds rounds, whose median
  is that run's figure), the side going first alternating.  Each side's
  figure is its median; the paired ratio, the median over repetitions of
  mend's figure over lxml's in the same repetition, is the one to quote, as
  the machine's load drifts over seconds.  A separate pass, outside the
  figures, times each expression over all pages (one clock pair per
  expression) for the per-expression table of each side's shares; it walks
  every page once per expression, with each tree cold in the cache, so its
  times add up to more than a round's and its ratios are not the speed-up.
* Checked.  Both sides report, for every (page, expression), the result's
  count (the number of strings) and chars (their total length in Unicode
  code points), from an untimed pass; the timed rounds' counts must equal
  it.  The script compares the two sides and exits 1, naming each page and
  expression, when any count or chars differs.

The script prints both figures, the ratios mend/lxml and the per-expression
table, and writes a JSON summary.

Usage:
    python3 bench/xpath_vs_lxml.py [--quick] [--rounds N] [--mend-rounds M] [--mend-cmd CMD]
                                   [--skip-mend] [--out FILE] [--data DIR]
"""

import argparse
import gc
import glob
import gzip
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
import warnings

import html5lib
import lxml
from lxml import etree

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(REPO, "tests", "xpath_conformance"))
from oracle import decode_page  # noqa: E402  (mend's decoding of page bytes)

EXPRESSIONS = os.path.join(BENCH, "xpath_expressions.txt")
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "zyte_article_extraction_benchmark", "html")
DEFAULT_MEND_CMD = "cargo run --release --example xpath_throughput -- --exprs bench/xpath_expressions.txt"
QUICK_PAGES = 5

# html5lib warns whenever lxml makes it alter a name or a comment; such a
# change never touches a string-value, and the chars check would catch it.
warnings.simplefilter("ignore", category=html5lib.constants.DataLossWarning)

_TREE_BUILDER = html5lib.getTreeBuilder("lxml")


def load_expressions(path):
    with open(path, encoding="utf-8") as handle:
        expressions = [line.strip() for line in handle if line.strip()]
    if not expressions:
        raise SystemExit("no expressions in %s" % path)
    return expressions


def compile_expressions(expressions):
    compiled = []
    for expr in expressions:
        try:
            compiled.append(etree.XPath(expr, smart_strings=False))
        except etree.XPathSyntaxError as error:
            raise SystemExit("%s: %s does not compile in lxml: %s" % (EXPRESSIONS, expr, error))
    return compiled


def page_paths(data_dir, quick):
    if not os.path.isdir(data_dir):
        raise SystemExit("no page folder %s" % data_dir)
    paths = sorted(glob.glob(os.path.join(data_dir, "*.html.gz")))
    if not paths:
        raise SystemExit("no *.html.gz pages in %s" % data_dir)
    # The quick run takes the first pages in name order so that it is the
    # same set every time.
    return paths[:QUICK_PAGES] if quick else paths


def parse_page(path):
    """The page's tree as mend builds it: decoded as mend does, then HTML5."""
    with open(path, "rb") as handle:
        text, _ = decode_page(gzip.decompress(handle.read()))
    parser = html5lib.HTMLParser(tree=_TREE_BUILDER, namespaceHTMLElements=False)
    return parser.parse(text)


def number_string(number):
    """XPath string() of a number."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == int(number):
        return "%d" % number
    text = repr(number)
    return text if "e" not in text else ("%.20f" % number).rstrip("0").rstrip(".")


def scalar_string(value):
    """XPath string() of a string, number or boolean result."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return number_string(value)
    return value


_ELEMENT = etree._Element


def _element_text(element):
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def node_string(node):
    """XPath string-value of a node lxml returned that is not a Python string."""
    if type(node) is _ELEMENT or isinstance(node, etree._ElementTree):
        return _element_text(node)
    # Comments and processing instructions: their text.
    return node.text or ""


def materialize(xpath, root):
    """One evaluation: the result as strings (see the module docstring)."""
    result = xpath(root)
    if type(result) is list:
        return [item if type(item) is str else node_string(item) for item in result]
    return [scalar_string(result)]


class LxmlSide:
    """The lxml side: trees, compiled expressions, and the untimed pass."""

    def __init__(self, paths, expressions):
        # Reading, decompressing and parsing happen once, before any timing.
        self.roots = [parse_page(path) for path in paths]
        self.compiled = compile_expressions(expressions)
        self.per_round = []
        # The untimed pass: what every evaluation must produce.
        self.counts, self.chars = [], []
        for path, root in zip(paths, self.roots):
            page_counts, page_chars = [], []
            for expr, xpath in zip(expressions, self.compiled):
                try:
                    values = materialize(xpath, root)
                except etree.XPathError as error:
                    raise SystemExit("%s: %s does not evaluate in lxml: %s" % (path, expr, error))
                page_counts.append(len(values))
                page_chars.append(sum(map(len, values)))
            self.counts.append(page_counts)
            self.chars.append(page_chars)
        self.expected = [n for page in self.counts for n in page]

    def round(self):
        """One timed round: every expression on every page; evaluations per second."""
        roots, compiled = self.roots, self.compiled
        evaluations = len(roots) * len(compiled)
        clock = time.perf_counter
        element = _ELEMENT
        element_text = _element_text
        # Collect garbage before the round so that the previous round's
        # leftovers do not land a collection pause in this one.
        gc.collect()
        got = [0] * evaluations
        k = 0
        started = clock()
        for root in roots:
            for xpath in compiled:
                # materialize(), inlined: one function call less per evaluation.
                result = xpath(root)
                if type(result) is list:
                    values = [
                        item if type(item) is str
                        else element_text(item) if type(item) is element
                        else node_string(item)
                        for item in result
                    ]
                else:
                    values = [scalar_string(result)]
                got[k] = len(values)
                k += 1
        rate = evaluations / (clock() - started)
        if got != self.expected:
            raise SystemExit("lxml: a timed round's result counts differ from the untimed pass")
        self.per_round.append(rate)
        return rate

    def expression_seconds(self):
        """Outside the figure: each expression over all pages, one clock pair each."""
        seconds = []
        for xpath in self.compiled:
            started = time.perf_counter()
            for root in self.roots:
                materialize(xpath, root)
            seconds.append(time.perf_counter() - started)
        return seconds

    def result(self):
        return {
            "expressions_per_second": statistics.median(self.per_round),
            "per_round": self.per_round,
            "rounds": len(self.per_round),
            "pages": len(self.roots),
            "expressions": len(self.compiled),
            "expression_seconds": self.expression_seconds(),
            "counts": self.counts,
            "chars": self.chars,
        }


def measure_mend(command, paths, rounds):
    """Run mend's throughput example once; returns (parsed JSON, error note)."""
    argv = shlex.split(command) + ["--rounds", str(rounds)] + paths
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


def compare(paths, expressions, lxml_side, mend_result):
    """Every (page, expression) whose count or chars differ, in words."""
    for key in ("counts", "chars"):
        table = mend_result.get(key)
        if not isinstance(table, list) or len(table) != len(paths) or any(
                not isinstance(row, list) or len(row) != len(expressions) for row in table):
            return ["mend's output has no %s table of %d pages x %d expressions" % (key, len(paths), len(expressions))]
    mismatches = []
    for p, path in enumerate(paths):
        for e, expr in enumerate(expressions):
            lc, mc = lxml_side.counts[p][e], mend_result["counts"][p][e]
            lx, mx = lxml_side.chars[p][e], mend_result["chars"][p][e]
            if lc != mc or lx != mx:
                mismatches.append("page %s, expression %s: lxml %d results (%d chars), mend %d results (%d chars)"
                                  % (os.path.basename(path), expr, lc, lx, mc, mx))
    return mismatches


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare mend's XPath evaluation speed with lxml's.")
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of *.html.gz pages (default: %(default)s)")
    parser.add_argument("--rounds", type=int,
                        help="repetitions: one lxml round and one mend run each (default 10, or 1 with --quick)")
    parser.add_argument("--mend-rounds", type=int, default=3,
                        help="timed rounds in each mend run; its figure is their median (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="a few pages and one repetition (CI smoke run)")
    parser.add_argument("--mend-cmd", default=DEFAULT_MEND_CMD,
                        help="command for the mend side, run from the repository root; "
                             "--rounds N and the pages are appended (default: %(default)s)")
    parser.add_argument("--skip-mend", action="store_true", help="measure lxml only (nothing is compared)")
    parser.add_argument("--out", default=os.path.join(REPO, "target", "bench", "xpath_vs_lxml.json"),
                        help="where to write the JSON result (default: %(default)s)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 10)
    if rounds < 1 or args.mend_rounds < 1:
        raise SystemExit("--rounds and --mend-rounds need a positive number")

    expressions = load_expressions(EXPRESSIONS)
    paths = page_paths(args.data, args.quick)
    print("%d pages, %d expressions, %d repetitions (one lxml round, one mend run of %d rounds)"
          % (len(paths), len(expressions), rounds, args.mend_rounds))

    lxml_side = LxmlSide(paths, expressions)
    # The sides alternate, repetition by repetition, and which goes first
    # alternates too, so that the machine's load drifting over seconds falls
    # on both; each repetition's mend/lxml ratio is a paired ratio.
    mend_runs, paired, mismatches, note = [], [], [], None
    for repetition in range(rounds):
        lxml_rate = mend_rate = None
        for side in (("lxml", "mend") if repetition % 2 == 0 else ("mend", "lxml")):
            if side == "lxml":
                lxml_rate = lxml_side.round()
            elif not args.skip_mend:
                run, note = measure_mend(args.mend_cmd, paths, args.mend_rounds)
                if run is None:
                    break
                mismatches = compare(paths, expressions, lxml_side, run)
                if mismatches:
                    break
                mend_runs.append(run)
                mend_rate = run["expressions_per_second"]
        if note is not None or mismatches:
            break
        if mend_rate is not None:
            paired.append(mend_rate / lxml_rate)
    lxml_result = lxml_side.result()
    print("lxml %s (libxml2 %s), trees from html5lib %s: %.0f expressions/s" % (
        ".".join(map(str, etree.LXML_VERSION[:3])), ".".join(map(str, etree.LIBXML_VERSION)),
        html5lib.__version__, lxml_result["expressions_per_second"]))

    mend_result = None
    if mend_runs:
        mend_result = {
            "expressions_per_second": statistics.median(run["expressions_per_second"] for run in mend_runs),
            "per_run": [run["expressions_per_second"] for run in mend_runs],
            "rounds_per_run": args.mend_rounds,
            "expression_seconds": [statistics.median(run["expression_seconds"][e] for run in mend_runs)
                                   for e in range(len(expressions))],
            "counts": mend_runs[0]["counts"],
            "chars": mend_runs[0]["chars"],
        }
    ratio = paired_ratio = None
    if args.skip_mend:
        note = "skipped"
    if mend_result is not None and not mismatches:
        ratio = mend_result["expressions_per_second"] / lxml_result["expressions_per_second"]
        paired_ratio = statistics.median(paired)
        results = sum(n for page in lxml_result["counts"] for n in page)
        print("mend: %.0f expressions/s" % mend_result["expressions_per_second"])
        print("ratio of the medians mend/lxml: %.2f" % ratio)
        print("paired ratio mend/lxml (median of %d repetitions, %.2f to %.2f): %.2f"
              % (len(paired), min(paired), max(paired), paired_ratio))
        print("results agree in every run: %d evaluations, %d strings a round on each side"
              % (len(paths) * len(expressions), results))
    elif note is not None:
        print("mend: %s" % note)

    # Each expression over all pages in turn: every page's tree is cold in
    # the cache, unlike in a round where all expressions run on one page
    # after another, so these times add up to more than a round's (lxml's
    # more than mend's). They say where each side spends its time; the
    # figures above are the speed.
    lxml_seconds = lxml_result["expression_seconds"]
    mend_seconds = mend_result["expression_seconds"] if mend_result else None
    lxml_total = sum(lxml_seconds) or 1.0
    mend_total = (sum(mend_seconds) or 1.0) if mend_seconds else None
    print("per expression, each over all pages in turn (outside the figures): "
          "share of each side's time and ms" + ("" if mend_seconds else " (lxml only)"))
    for e, expr in sorted(enumerate(expressions), key=lambda item: -lxml_seconds[item[0]]):
        line = "  lxml %5.1f%% %8.2f ms" % (100 * lxml_seconds[e] / lxml_total, 1e3 * lxml_seconds[e])
        if mend_seconds:
            line += "   mend %5.1f%% %7.2f ms" % (100 * mend_seconds[e] / mend_total, 1e3 * mend_seconds[e])
        print(line + "   " + expr)

    summary = {
        "benchmark": "xpath_vs_lxml",
        "pages": [os.path.basename(path) for path in paths],
        "expressions": expressions,
        "expressions_file": os.path.relpath(EXPRESSIONS, REPO),
        "quick": args.quick,
        "repetitions": rounds,
        "python": platform.python_version(),
        "lxml": lxml.__version__,
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "html5lib": html5lib.__version__,
        "lxml_result": lxml_result,
        "mend_command": None if args.skip_mend else args.mend_cmd,
        "mend_result": mend_result,
        "mend_note": note,
        "mismatches": mismatches,
        "ratio_mend_over_lxml": ratio,
        "paired_ratios": paired,
        "paired_ratio_mend_over_lxml": paired_ratio,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
        handle.write("\n")
    print("result written to %s" % args.out)
    if mismatches:
        print("FAILED: mend's and lxml's results differ in %d (page, expression) pairs:" % len(mismatches),
              file=sys.stderr)
        for line in mismatches:
            print("  " + line, file=sys.stderr)
        return 1
    if not args.skip_mend and mend_result is None:
        print("FAILED: no figure from mend: %s" % note, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
