#!/usr/bin/env python3
"""Parsing plus extraction: mend against lxml, side by side in one run.

What is timed, on each side, single-threaded, is one page's whole way from
bytes in memory to extracted strings: parse the page, then evaluate the
XPaths of bench/wrappers/zyte_article.yaml (the wrapper bench/run_vs_parsel.py
runs) from the document and materialize every result as strings.  Both sides
read that wrapper file, so they evaluate exactly the same XPaths.

* mend.  The parse_extract_throughput example: Document::parse on the page's
  bytes (encoding sniffing and decoding included), then every XPath, each
  selected node's XPath string-value (Item::string_value).
* lxml.  lxml.html.fromstring (libxml2's HTML parser, what parsel and Scrapy
  use) on the page decoded as mend decodes it (decode_page of the conformance
  oracle, tests/xpath_conformance/oracle.py) and encoded as UTF-8, with a
  parser told so; decoding happens before the clock starts, so lxml pays for
  no encoding detection.  Then every XPath (compiled once, smart strings
  off, as in parsel): attribute values and text come back as Python
  strings, an element's string-value is etree.tostring(element,
  method="text", encoding=str, with_tail=False).

Pages are read and gunzipped into memory before anything is timed: the 181
Zyte article pages (../shared/data/zyte_article_extraction_benchmark/html)
and the 400 SWDE book pages (../shared/data/swde_subset/pages/book), each
set measured and reported on its own.

* Same clocks.  Both sides time whole rounds, every page of a set, with one
  clock reading before and one after.  The sides alternate: each of --rounds
  repetitions is one lxml round and one run of the mend example
  (--mend-rounds rounds, whose median is that run's figure), the side going
  first alternating, because this machine's load drifts over seconds.  A
  side's figure is its median pages per second; the paired ratio, the median
  over repetitions of mend's figure over lxml's in the same repetition, is
  the one to quote.
* Checked.  Each side reports, for every (page, XPath), the result's count
  (the number of strings) and chars (their total length in code points),
  from an untimed pass, and checks that its timed rounds give the same
  counts.  The two sides must agree.  Where they do not, libxml2's HTML
  parser built another tree than the HTML5 algorithm (it drops a stray
  </p> where HTML5 makes an empty <p>, for one), so the page is parsed once
  more, untimed, by html5lib, the HTML5 reference the XPath conformance test
  uses, and mend must equal that reference exactly, count and chars.  A
  result that matches neither stops the script with exit status 1, naming
  the page and the XPath.

* selectolax.  Lexbor (selectolax.lexbor.LexborHTMLParser), an HTML5 parser
  in C and the fastest a Python user can pick, on the same UTF-8 bytes as
  lxml, with the CSS selector that asks for each XPath's nodes (SELECTOLAX
  below) and every result materialised as a string (an attribute's value,
  an element's text).  Its rounds are timed beside lxml's in each
  repetition, and its result counts are compared with mend's and reported
  (not enforced: CSS and XPath engines differ at the edges).  Without
  selectolax installed the column is left out.

The script prints the figures and the ratios for each set and writes a JSON
summary.

Usage:
    python3 bench/parse_vs_lxml.py [--quick] [--rounds N] [--mend-rounds M] [--mend-cmd CMD]
                                   [--sets zyte,swde] [--out FILE] [--data DIR]
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
import warnings

import html5lib
import lxml
import lxml.html
import yaml
from lxml import etree

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(REPO, "tests", "xpath_conformance"))
from oracle import OraclePage, decode_page  # noqa: E402  (mend's decoding; the HTML5 reference)

WRAPPER = os.path.join(BENCH, "wrappers", "zyte_article.yaml")
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data")
SETS = {
    "zyte": ("zyte_article_extraction_benchmark/html", "*.html.gz"),
    "swde": ("swde_subset/pages/book", "*/*.htm"),
}
DEFAULT_MEND_CMD = "cargo run --release --example parse_extract_throughput --"
QUICK_PAGES = 10

# html5lib warns whenever lxml makes it alter a name or a comment; the
# reference pass compares string-values, which such a change never touches.
warnings.simplefilter("ignore", category=html5lib.constants.DataLossWarning)


def load_xpaths(path):
    with open(path, encoding="utf-8") as handle:
        wrapper = yaml.safe_load(handle)
    xpaths = [pattern["xpath"] for pattern in wrapper["patterns"]]
    if not xpaths:
        raise SystemExit("no patterns in %s" % path)
    return xpaths


def page_paths(data_dir, name, quick):
    folder, pattern = SETS[name]
    paths = sorted(glob.glob(os.path.join(data_dir, folder, pattern)))
    if not paths:
        raise SystemExit("no pages %s in %s" % (pattern, os.path.join(data_dir, folder)))
    # The quick run takes the first pages in name order, the same set every time.
    return paths[:QUICK_PAGES] if quick else paths


def read_page(path):
    with open(path, "rb") as handle:
        data = handle.read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def element_text(element):
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def node_string(node):
    """XPath string-value of a node lxml returned that is not a Python string."""
    if isinstance(node, etree._Element) and not isinstance(node, etree._Comment):
        return element_text(node)
    return node.text or ""


def scalar_string(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ("%d" % value) if value == int(value) else repr(value)
    return value


try:
    from selectolax.lexbor import LexborHTMLParser
except ImportError:  # the comparison is optional
    LexborHTMLParser = None

# The CSS selector and attribute (None: the element's text) that ask for
# what each XPath of the wrapper selects.
SELECTOLAX = {
    "//title": ("title", None),
    "//h1": ("h1", None),
    "//meta[@property='og:title']/@content": ('meta[property="og:title"][content]', "content"),
    "//meta[@name='description']/@content": ('meta[name="description"][content]', "content"),
    "//link[@rel='canonical']/@href": ('link[rel="canonical"][href]', "href"),
    "//time/@datetime": ("time[datetime]", "datetime"),
    "//p": ("p", None),
    "//a/@href": ("a[href]", "href"),
    "//img/@src": ("img[src]", "src"),
    "//script[@type='application/ld+json']": ('script[type="application/ld+json"]', None),
}


class SelectolaxSide:
    """Lexbor through selectolax: the same pages, CSS for the same fields."""

    def __init__(self, inputs, xpaths):
        self.inputs = inputs
        self.queries = [SELECTOLAX[x] for x in xpaths]
        self.per_round = []
        self.counts = [[len(v) for v in self.extract(data)] for data in inputs]
        self.expected = [n for page in self.counts for n in page]

    def extract(self, data):
        tree = LexborHTMLParser(data)
        out = []
        for css, attribute in self.queries:
            nodes = tree.css(css)
            if attribute is None:
                out.append([node.text(deep=True) for node in nodes])
            else:
                out.append([node.attributes.get(attribute) or "" for node in nodes])
        return out

    def round(self):
        """One timed round: parse and query every page; pages per second."""
        inputs, queries, parse = self.inputs, self.queries, LexborHTMLParser
        got = []
        gc.collect()
        started = time.perf_counter()
        for data in inputs:
            tree = parse(data)
            for css, attribute in queries:
                nodes = tree.css(css)
                if attribute is None:
                    values = [node.text(deep=True) for node in nodes]
                else:
                    values = [node.attributes.get(attribute) or "" for node in nodes]
                got.append(len(values))
        rate = len(inputs) / (time.perf_counter() - started)
        if got != self.expected:
            raise SystemExit("selectolax: a timed round's result counts differ from the untimed pass")
        self.per_round.append(rate)
        return rate


class LxmlSide:
    """The lxml side of one page set: inputs, compiled XPaths, the untimed pass."""

    def __init__(self, paths, raw, xpaths):
        self.paths = paths
        # Decoded as mend decodes them, then handed to libxml2 as UTF-8.
        self.inputs = [decode_page(data)[0].encode("utf-8") for data in raw]
        self.parser = lxml.html.HTMLParser(encoding="utf-8")
        self.compiled = [etree.XPath(x, smart_strings=False) for x in xpaths]
        self.per_round = []
        self.counts, self.chars = [], []
        for data in self.inputs:
            values = self.extract(data)
            self.counts.append([len(v) for v in values])
            self.chars.append([sum(map(len, v)) for v in values])
        self.expected = [n for page in self.counts for n in page]

    def extract(self, data):
        root = lxml.html.fromstring(data, parser=self.parser)
        out = []
        for xpath in self.compiled:
            result = xpath(root)
            if type(result) is list:
                out.append([item if type(item) is str else node_string(item) for item in result])
            else:
                out.append([scalar_string(result)])
        return out

    def round(self):
        """One timed round: parse and extract every page; pages per second."""
        inputs, compiled, parser = self.inputs, self.compiled, self.parser
        fromstring, text_of = lxml.html.fromstring, node_string
        got = []
        gc.collect()
        started = time.perf_counter()
        for data in inputs:
            root = fromstring(data, parser=parser)
            for xpath in compiled:
                result = xpath(root)
                if type(result) is list:
                    values = [item if type(item) is str else text_of(item) for item in result]
                else:
                    values = [scalar_string(result)]
                got.append(len(values))
        rate = len(inputs) / (time.perf_counter() - started)
        if got != self.expected:
            raise SystemExit("lxml: a timed round's result counts differ from the untimed pass")
        self.per_round.append(rate)
        return rate


def measure_mend(command, paths, rounds):
    """Run mend's example once on a page set; returns (parsed JSON, error note)."""
    argv = shlex.split(command) + ["--wrapper", WRAPPER, "--rounds", str(rounds)] + paths
    try:
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    except OSError as error:
        return None, "cannot run %s: %s" % (argv[0], error)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        return None, "mend command exited with %d:\n%s" % (proc.returncode, tail)
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            parsed = json.loads(line)
        except ValueError:
            continue
        if isinstance(parsed, dict) and "pages_per_second" in parsed:
            return parsed, None
    return None, "no JSON line with pages_per_second in mend's output:\n%s" % proc.stdout[-2000:]


def check_agreement(paths, xpaths, lxml_side, mend_run):
    """Compare the sides' untimed passes, settling each difference with the
    HTML5 reference.  Returns (agreed, settled, mismatches)."""
    agreed, settled, mismatches = 0, [], []
    references = {}
    for p, path in enumerate(paths):
        for x, xpath in enumerate(xpaths):
            mine = (mend_run["counts"][p][x], mend_run["chars"][p][x])
            theirs = (lxml_side.counts[p][x], lxml_side.chars[p][x])
            if mine == theirs:
                agreed += 1
                continue
            if path not in references:
                references[path] = OraclePage(path)
            rendered, problem = references[path].evaluate(xpath)
            where = "%s: %s" % (os.path.relpath(path, REPO), xpath)
            if problem is not None or "nodes" not in rendered:
                mismatches.append("%s: mend %s, lxml.html %s, and the HTML5 reference cannot tell (%s)"
                                  % (where, mine, theirs, problem or rendered))
                continue
            reference = (len(rendered["nodes"]), sum(len(n["value"]) for n in rendered["nodes"]))
            if reference == mine:
                settled.append({"page": os.path.basename(path), "xpath": xpath,
                                "mend": mine, "lxml_html": theirs})
            else:
                mismatches.append("%s: (count, chars) mend %s, lxml.html %s, HTML5 reference %s"
                                  % (where, mine, theirs, reference))
    return agreed, settled, mismatches


def run_set(name, args, xpaths):
    paths = page_paths(args.data, name, args.quick)
    raw = [read_page(path) for path in paths]
    megabytes = sum(map(len, raw)) / 1e6
    print("== %s: %d pages, %.1f MB, %d XPaths" % (name, len(paths), megabytes, len(xpaths)), flush=True)
    lxml_side = LxmlSide(paths, raw, xpaths)
    lxml_side.round()  # warm-up: first-use costs of lxml and the page buffers
    lxml_side.per_round.clear()
    lexbor = None
    if LexborHTMLParser is not None and all(x in SELECTOLAX for x in xpaths):
        lexbor = SelectolaxSide(lxml_side.inputs, xpaths)
        lexbor.round()  # warm-up
        lexbor.per_round.clear()

    mend_runs, paired, paired_lexbor, note = [], [], [], None
    for repetition in range(args.rounds):
        lxml_rate = mend_rate = lexbor_rate = None
        for side in (("lxml", "mend") if repetition % 2 == 0 else ("mend", "lxml")):
            if side == "lxml":
                lxml_rate = lxml_side.round()
                if lexbor is not None:
                    lexbor_rate = lexbor.round()
            else:
                run, note = measure_mend(args.mend_cmd, paths, args.mend_rounds)
                if run is None:
                    break
                mend_runs.append(run)
                mend_rate = run["pages_per_second"]
        if note is not None:
            break
        paired.append(mend_rate / lxml_rate)
        if lexbor_rate is not None:
            paired_lexbor.append(mend_rate / lexbor_rate)

    result = {
        "pages": len(paths),
        "megabytes": megabytes,
        "lxml_pages_per_second": statistics.median(lxml_side.per_round),
        "lxml_per_round": lxml_side.per_round,
        "mend_note": note,
    }
    print("lxml.html %s (libxml2 %s): %.1f pages/s" % (
        lxml.__version__, ".".join(map(str, etree.LIBXML_VERSION)), result["lxml_pages_per_second"]))
    if note is not None:
        print("mend: %s" % note)
        return result, ["%s: no figure from mend" % name]
    agreed, settled, mismatches = check_agreement(paths, xpaths, lxml_side, mend_runs[0])
    mend_pps = statistics.median(run["pages_per_second"] for run in mend_runs)
    result.update({
        "mend_pages_per_second": mend_pps,
        "mend_per_run": [run["pages_per_second"] for run in mend_runs],
        "mend_rounds_per_run": args.mend_rounds,
        "ratio_of_medians": mend_pps / result["lxml_pages_per_second"],
        "paired_ratios": paired,
        "paired_ratio": statistics.median(paired),
        "results_agreeing_with_lxml_html": agreed,
        "results_settled_by_html5_reference": settled,
        "mismatches": mismatches,
    })
    print("mend: %.1f pages/s" % mend_pps)
    print("ratio of the medians mend/lxml: %.2f" % result["ratio_of_medians"])
    print("paired ratio mend/lxml (median of %d repetitions, %.2f to %.2f): %.2f"
          % (len(paired), min(paired), max(paired), result["paired_ratio"]))
    if lexbor is not None and paired_lexbor:
        same = sum(1 for p in range(len(paths)) for x in range(len(xpaths))
                   if lexbor.counts[p][x] == mend_runs[0]["counts"][p][x])
        result.update({
            "selectolax_pages_per_second": statistics.median(lexbor.per_round),
            "selectolax_per_round": lexbor.per_round,
            "paired_ratios_selectolax": paired_lexbor,
            "paired_ratio_selectolax": statistics.median(paired_lexbor),
            "selectolax_counts_equal_to_mend": same,
        })
        import selectolax
        print("selectolax %s (Lexbor): %.1f pages/s" % (
            selectolax.__version__, result["selectolax_pages_per_second"]))
        print("paired ratio mend/selectolax (median of %d repetitions, %.2f to %.2f): %.2f"
              % (len(paired_lexbor), min(paired_lexbor), max(paired_lexbor),
                 result["paired_ratio_selectolax"]))
        print("selectolax's result counts equal mend's on %d of %d (page, field) pairs"
              % (same, len(paths) * len(xpaths)))
    print("results: %d (page, XPath) pairs agree with lxml.html; %d differ where libxml2 builds "
          "another tree, and mend equals the HTML5 reference (html5lib) on each"
          % (agreed, len(settled)))
    return result, mismatches


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare mend's parse and extraction with lxml's.")
    parser.add_argument("--quick", action="store_true",
                        help="%d pages a set, one repetition (CI smoke run)" % QUICK_PAGES)
    parser.add_argument("--rounds", type=int, help="repetitions (default 7, or 1 with --quick)")
    parser.add_argument("--mend-rounds", type=int, default=3,
                        help="timed rounds in each mend run (default %(default)s)")
    parser.add_argument("--mend-cmd", default=DEFAULT_MEND_CMD,
                        help="the mend example, without --wrapper, --rounds and pages "
                             "(default: %(default)s)")
    parser.add_argument("--sets", default="zyte,swde", help="page sets, of %s (default: %%(default)s)"
                        % ", ".join(SETS))
    parser.add_argument("--data", default=DEFAULT_DATA, help="the shared data folder (default: %(default)s)")
    parser.add_argument("--out", default=os.path.join(REPO, "target", "bench", "parse_vs_lxml.json"),
                        help="where to write the JSON result (default: %(default)s)")
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (1 if args.quick else 7)
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    for name in names:
        if name not in SETS:
            raise SystemExit("unknown page set %s (known: %s)" % (name, ", ".join(SETS)))
    xpaths = load_xpaths(WRAPPER)
    print("%d repetitions (one lxml round, one mend run of %d rounds), XPaths of %s"
          % (args.rounds, args.mend_rounds, os.path.relpath(WRAPPER, REPO)))

    results, failures = {}, []
    for name in names:
        results[name], mismatches = run_set(name, args, xpaths)
        failures.extend(mismatches)

    summary = {
        "benchmark": "parse_vs_lxml",
        "wrapper": os.path.relpath(WRAPPER, REPO),
        "xpaths": xpaths,
        "quick": args.quick,
        "repetitions": args.rounds,
        "python": platform.python_version(),
        "lxml": lxml.__version__,
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "html5lib": html5lib.__version__,
        "mend_command": args.mend_cmd,
        "sets": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
        handle.write("\n")
    print("result written to %s" % args.out)
    if failures:
        print("FAILED: %d results differ:" % len(failures), file=sys.stderr)
        for line in failures:
            print("  " + line, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
