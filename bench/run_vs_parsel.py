#!/usr/bin/env python3
"""Whole-run throughput: `mend run` against parsel on the Zyte article pages.

The parsel side reads the same wrapper file mend runs
(bench/wrappers/zyte_article.yaml), so both sides evaluate exactly the same
ten XPaths with the same extraction.  On one core it builds a
Selector(text=...) for each page and extracts every pattern; parsing and
extraction are timed together, while reading and gunzipping the files happen
before the clock starts (all pages are held in memory).  For the same reason
mend reads decompressed copies of the pages, written to a temporary folder
before any timing; it still pays for starting up and reading those files.

The mend side is timed as a whole process:

    mend run bench/wrappers/zyte_article.yaml PAGES... --jobs 1 --format ndjson --out /dev/null

which includes starting the process, reading the (decompressed) pages and
writing the output.  To show how much of that is not extraction, mend is also
timed with bench/wrappers/zyte_title_only.yaml (one cheap pattern), and the
time Python needs to read and gunzip the same files is printed for scale.

Every figure is the median over several repetitions, because this machine is
noisy.  The script prints pages per second for each side and the ratio
mend/parsel, and writes a small JSON result.

Usage:
    python3 bench/run_vs_parsel.py [--quick] [--repeat N] [--mend PATH] [--skip-mend] [--out FILE]
"""

import argparse
import gc
import glob
import gzip
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import parsel
import yaml
from parsel import Selector

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "zyte_article_extraction_benchmark", "html")
WRAPPER = os.path.join(BENCH, "wrappers", "zyte_article.yaml")
BASELINE_WRAPPER = os.path.join(BENCH, "wrappers", "zyte_title_only.yaml")
DEFAULT_MEND = os.path.join(REPO, "target", "release", "mend")
QUICK_PAGES = 10

# XPath 1.0 normalize-space() strips and collapses only these four characters
# (not every Unicode space, as str.split() would).
_XPATH_SPACE = re.compile(r"[ \t\r\n]+")


def normalize_space(text):
    return _XPATH_SPACE.sub(" ", text).strip(" ")


def load_patterns(path):
    with open(path, encoding="utf-8") as handle:
        wrapper = yaml.safe_load(handle)
    return [(p["name"], p["xpath"], p.get("extract")) for p in wrapper["patterns"]]


def make_extractor(xpath, extract):
    """A function Selector -> list of values, doing what the wrapper asks.

    Every match is extracted (a field with several matches is a list), so
    that parsel does the same work as mend, which extracts all matches.
    """
    if extract is None and re.search(r"/@[\w:-]+$|/text\(\)$", xpath):
        # Attribute and text nodes: parsel already returns their values.
        return lambda sel: sel.xpath(xpath).getall()
    if extract in (None, "text"):
        return lambda sel: [node.xpath("string()").get() for node in sel.xpath(xpath)]
    if extract == "normalized":
        return lambda sel: [normalize_space(node.xpath("string()").get()) for node in sel.xpath(xpath)]
    if extract.startswith("@"):
        attribute = extract[1:]
        return lambda sel: [v for v in (node.attrib.get(attribute) for node in sel.xpath(xpath)) if v is not None]
    if extract == "outer_html":
        return lambda sel: sel.xpath(xpath).getall()
    raise SystemExit("extract mode %r is not supported by the parsel side" % extract)


def read_pages(paths):
    """Read and gunzip every page; returns (texts, seconds it took)."""
    started = time.perf_counter()
    raw = []
    for path in paths:
        with open(path, "rb") as handle:
            raw.append(gzip.decompress(handle.read()))
    seconds = time.perf_counter() - started
    # Every Zyte page is UTF-8 (without a BOM or a conflicting <meta>), which
    # is also what mend decodes them as, so a plain UTF-8 decode is the same
    # text mend sees.
    return [data.decode("utf-8", "replace") for data in raw], seconds


def run_parsel(texts, extractors):
    gc.collect()
    started = time.perf_counter()
    records = []
    for text in texts:
        selector = Selector(text=text)
        records.append({name: extract(selector) for name, extract in extractors})
    return time.perf_counter() - started, records


def mend_command(mend, wrapper, paths, out="/dev/null"):
    return [mend, "run", wrapper] + paths + ["--jobs", "1", "--format", "ndjson", "--out", out]


def time_mend(command):
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.decode("utf-8", "replace").strip().splitlines()[-15:])
        raise RuntimeError("mend exited with %d:\n%s" % (proc.returncode, tail))
    return seconds


def ensure_mend(path, is_default):
    """Return a usable mend binary, building the default one if it is missing."""
    if os.path.exists(path):
        return path
    if not is_default:
        raise RuntimeError("no mend binary at %s" % path)
    print("building mend (cargo build --release) ...", flush=True)
    proc = subprocess.run(["cargo", "build", "--release", "--bin", "mend"], cwd=REPO,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0 or not os.path.exists(path):
        tail = "\n".join(proc.stderr.decode("utf-8", "replace").strip().splitlines()[-15:])
        raise RuntimeError("cargo build failed:\n%s" % tail)
    return path


def measure_mend(mend, paths, repeat):
    """Median seconds for the full and the baseline wrapper, and a record count."""
    # One untimed run first: it warms the file cache and checks that mend
    # produced one record per page, so the timed runs measure real work.
    with tempfile.NamedTemporaryFile(suffix=".ndjson") as out:
        time_mend(mend_command(mend, WRAPPER, paths, out.name))
        with open(out.name, encoding="utf-8", errors="replace") as handle:
            records = sum(1 for line in handle if line.strip())
    full = [time_mend(mend_command(mend, WRAPPER, paths)) for _ in range(repeat)]
    baseline = [time_mend(mend_command(mend, BASELINE_WRAPPER, paths)) for _ in range(repeat)]
    return statistics.median(full), statistics.median(baseline), full, baseline, records


def measure_paired(mend, paths, repeat, texts, extractors):
    """Alternates one parsel pass and one mend run, `repeat` times, and returns
    the per-repetition ratios of mend's pages per second to parsel's. Load on
    this shared machine drifts over seconds; measuring both sides back to back
    keeps a slow spell from landing on one side only."""
    ratios = []
    for _ in range(repeat):
        parsel_seconds, _ = run_parsel(texts, extractors)
        mend_seconds = time_mend(mend_command(mend, WRAPPER, paths))
        ratios.append(parsel_seconds / mend_seconds)
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare `mend run` with parsel on the Zyte article pages.")
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of *.html.gz pages (default: %(default)s)")
    parser.add_argument("--repeat", type=int, help="repetitions per side (default 5, or 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="%d pages, one repetition (CI smoke run)" % QUICK_PAGES)
    parser.add_argument("--mend", default=DEFAULT_MEND, help="mend binary (default: %(default)s, built if missing)")
    parser.add_argument("--skip-mend", action="store_true", help="measure parsel only")
    parser.add_argument("--out", default=os.path.join(REPO, "target", "bench", "run_vs_parsel.json"),
                        help="where to write the JSON result (default: %(default)s)")
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 5)

    paths = sorted(glob.glob(os.path.join(args.data, "*.html.gz")))
    if not paths:
        raise SystemExit("no *.html.gz pages in %s" % args.data)
    if args.quick:
        paths = paths[:QUICK_PAGES]
    patterns = load_patterns(WRAPPER)
    extractors = [(name, make_extractor(xpath, extract)) for name, xpath, extract in patterns]
    texts, read_seconds = read_pages(paths)
    print("%d pages, %d patterns, %d repetitions" % (len(paths), len(patterns), repeat))
    print("reading and gunzipping the pages in Python: %.3f s (in neither side's time)" % read_seconds)
    # mend reads plain files, so that gunzip costs neither side anything.
    plain_dir = tempfile.mkdtemp(prefix="mend-bench-pages-")
    plain_paths = []
    for i, text in enumerate(texts):
        plain = os.path.join(plain_dir, "%04d.html" % i)
        with open(plain, "w", encoding="utf-8") as handle:
            handle.write(text)
        plain_paths.append(plain)

    run_parsel(texts[:3], extractors)  # warm-up: first-use costs of parsel and lxml
    parsel_times = []
    records = None
    for _ in range(repeat):
        seconds, records = run_parsel(texts, extractors)
        parsel_times.append(seconds)
    parsel_seconds = statistics.median(parsel_times)
    parsel_pps = len(paths) / parsel_seconds
    values = sum(len(v) for record in records for v in record.values())
    print("parsel %s: %.1f pages/s (median %.3f s; %d values extracted)" % (parsel.__version__, parsel_pps, parsel_seconds, values))

    result = {
        "benchmark": "run_vs_parsel",
        "pages": len(paths),
        "repeat": repeat,
        "quick": args.quick,
        "python": platform.python_version(),
        "parsel_version": parsel.__version__,
        "wrapper": os.path.relpath(WRAPPER, REPO),
        "python_read_gunzip_seconds": read_seconds,
        "parsel": {"pages_per_second": parsel_pps, "median_seconds": parsel_seconds, "seconds": parsel_times,
                   "values_extracted": values},
        "mend": None,
        "ratio_mend_over_parsel": None,
    }
    status = 0
    if not args.skip_mend:
        try:
            mend = ensure_mend(args.mend, args.mend == DEFAULT_MEND)
            full, baseline, full_all, baseline_all, mend_records = measure_mend(mend, plain_paths, repeat)
        except RuntimeError as error:
            print("mend: %s" % error)
            result["mend_error"] = str(error)
            status = 1
        else:
            mend_pps = len(paths) / full
            result["mend"] = {
                "pages_per_second": mend_pps,
                "median_seconds": full,
                "seconds": full_all,
                "records_written": mend_records,
                "baseline_wrapper": os.path.relpath(BASELINE_WRAPPER, REPO),
                "baseline_median_seconds": baseline,
                "baseline_seconds": baseline_all,
                "baseline_pages_per_second": len(paths) / baseline,
            }
            result["ratio_mend_over_parsel"] = mend_pps / parsel_pps
            print("mend: %.1f pages/s (median %.3f s, whole process; %d records for %d pages)" % (
                mend_pps, full, mend_records, len(paths)))
            print("mend with the one-pattern wrapper: %.1f pages/s (median %.3f s)" % (len(paths) / baseline, baseline))
            print("ratio mend/parsel: %.2f" % result["ratio_mend_over_parsel"])
            paired = measure_paired(mend, plain_paths, repeat, texts, extractors)
            result["paired_ratios"] = paired
            result["ratio_mend_over_parsel_paired"] = statistics.median(paired)
            print("paired ratio mend/parsel (median of %d back-to-back pairs): %.2f (range %.2f-%.2f)" % (
                len(paired), statistics.median(paired), min(paired), max(paired)))
            if mend_records != len(paths):
                print("warning: mend wrote %d records for %d pages" % (mend_records, len(paths)))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")
    print("result written to %s" % args.out)
    shutil.rmtree(plain_dir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
