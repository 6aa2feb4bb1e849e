#!/usr/bin/env python3
"""Extraction from Python: the `mend` module against parsel, in one process.

The same Zyte article pages and the same wrapper as bench/run_vs_parsel.py
(bench/wrappers/zyte_article.yaml: ten XPaths, parsel evaluating exactly
them); both sides get the pages already in memory and run on one thread:
parsel builds a Selector per page and extracts every pattern, mend calls
``Wrapper.extract`` per page. It is measured twice: with the pages as text
(``Selector(text=...)``, what Scrapy's ``response.selector`` does, against
``extract(str)``), and as UTF-8 bytes (``Selector(body=...)`` against
``extract(bytes)``, what a crawler holds before decoding). Every figure is the median of several
repetitions. Build the module in release for figures worth quoting
(`pip install .`); the test profile (CI's) is several times slower.

    python3 bench/python_vs_parsel.py [--quick] [--repeat N] [--json FILE]
"""

import argparse
import glob
import json
import os
import statistics
import sys
import time

import mend

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_vs_parsel as peer  # noqa: E402


def run_parsel_bytes(bodies, extractors):
    from parsel import Selector

    started = time.perf_counter()
    records = []
    for body in bodies:
        selector = Selector(body=body, encoding="utf-8")
        records.append({name: extract(selector) for name, extract in extractors})
    return time.perf_counter() - started, records


def run_mend(wrapper, texts):
    started = time.perf_counter()
    records = [wrapper.extract(text).records for text in texts]
    return time.perf_counter() - started, records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=peer.DEFAULT_DATA)
    ap.add_argument("--quick", action="store_true", help="10 pages, 3 repetitions")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(args.data, "*.html.gz")))
    if args.quick:
        paths, args.repeat = paths[: peer.QUICK_PAGES], 3
    texts, _ = peer.read_pages(paths)
    extractors = [(n, peer.make_extractor(x, e)) for n, x, e in peer.load_patterns(peer.WRAPPER)]
    wrapper = mend.Wrapper(peer.WRAPPER)
    bodies = [text.encode("utf-8") for text in texts]
    print(f"{len(texts)} pages, {args.repeat} repetitions, medians")
    parsel_version = __import__("parsel").__version__
    print(f"parsel {parsel_version}")
    rows = []
    for label, pages, run_parsel in (
        ("text", texts, peer.run_parsel),
        ("bytes", bodies, run_parsel_bytes),
    ):
        parsel_times, mend_times = [], []
        for _ in range(args.repeat):
            seconds, theirs = run_parsel(pages, extractors)
            parsel_times.append(seconds)
            seconds, ours = run_mend(wrapper, pages)
            mend_times.append(seconds)
        # The same work: both sides found a title on the same pages.
        same = sum(bool(t.get("title")) == bool(o[0].get("title")) for t, o in zip(theirs, ours))
        parsel_rate = len(pages) / statistics.median(parsel_times)
        mend_rate = len(pages) / statistics.median(mend_times)
        print(f"{label:>5}: parsel {parsel_rate:.1f} pages/s, mend {mend_rate:.1f} pages/s, "
              f"ratio mend/parsel {mend_rate / parsel_rate:.2f}x (titles alike on {same} pages)")
        rows.append({"given_as": label, "parsel_pages_per_second": parsel_rate,
                     "mend_pages_per_second": mend_rate, "ratio": mend_rate / parsel_rate,
                     "paired_ratios": [p / m for p, m in zip(parsel_times, mend_times)],
                     "titles_alike": same})
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"pages": len(texts), "repeat": args.repeat, "parsel": parsel_version, "rows": rows},
                      handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
