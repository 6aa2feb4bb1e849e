#!/usr/bin/env python3
"""What mend's Scrapy extension adds to a crawl: the example spider
(examples/scrapy) over the fixture blog, once extracting with parsel and
once through `mend.scrapy.records`, in alternation, in one run.

The blog is served on 127.0.0.1 by the project's fixture_site example with
its traps off; every post page is extracted by both sides (the same fields,
parsel evaluating the wrapper's XPaths). The figure is the crawl's own time
as Scrapy's stats give it (`elapsed_time_seconds`); interpreter start-up is
left out on both sides. A first round of each side warms the page cache and
the server and is not counted. The figure judged is the median of the
rounds' own ratios (mend's crawl over the parsel crawl just before it):
a crawl of a few hundred pages takes under a second, and this machine's
speed moves by a tenth or more between seconds, so a pair of crawls run
back to back is compared with itself, and one slow crawl moves the median
of the ratios less than it moves either side's median. The medians of each
side are printed too. Build the module in release for figures worth quoting
(`pip install .`); CI's test profile is slower.

    python3 bench/scrapy_overhead.py --site target/release/examples/fixture_site \
        [--posts N] [--rounds N] [--max-ratio R] [--json FILE]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "scrapy"


def crawl(start, using, wrapper, out):
    """One crawl; gives its elapsed seconds and item count from the stats."""
    settings = ["-s", f"MEND_WRAPPER={wrapper if using == 'mend' else ''}", "-s", "MEND_HEAL=off",
                "-s", "LOG_LEVEL=INFO"]
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "posts", "-a", f"start={start}", "-a",
         f"using={using}", "-O", str(out), *settings],
        capture_output=True, text=True, cwd=EXAMPLE,
    )
    if done.returncode != 0:
        sys.exit(f"scrapy failed:\n{done.stderr[-3000:]}")
    elapsed = float(re.search(r"'elapsed_time_seconds': ([0-9.]+)", done.stderr).group(1))
    items = int(re.search(r"'item_scraped_count': (\d+)", done.stderr).group(1))
    return elapsed, items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", default=str(ROOT / "target" / "release" / "examples" / "fixture_site"))
    ap.add_argument("--posts", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-ratio", type=float, help="exit 1 when mend/parsel exceeds it")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    server = subprocess.Popen(
        [args.site, "--fast", "--posts", str(args.posts), "--seconds", "900"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        start = server.stdout.readline().strip()
        work = Path(tempfile.mkdtemp(prefix="mend-scrapy-"))
        wrapper = work / "blog.yaml"
        shutil.copy(ROOT / "examples" / "site" / "blog.yaml", wrapper)
        times = {"parsel": [], "mend": []}
        counts = {}
        for using in ("parsel", "mend"):  # the warm-up round, not counted
            crawl(start, using, wrapper, work / f"{using}.jsonl")
        for _ in range(args.rounds):
            for using in ("parsel", "mend"):
                elapsed, items = crawl(start, using, wrapper, work / f"{using}.jsonl")
                times[using].append(elapsed)
                counts[using] = items
        shutil.rmtree(work, ignore_errors=True)
    finally:
        server.kill()
        server.wait()
    if counts["parsel"] != counts["mend"]:
        sys.exit(f"the two crawls scraped different item counts: {counts}")
    parsel, mend = statistics.median(times["parsel"]), statistics.median(times["mend"])
    ratios = [m / p for m, p in zip(times["mend"], times["parsel"])]
    ratio = statistics.median(ratios)
    print(f"{counts['mend']} post pages, {args.rounds} rounds after a warm-up, crawl time (median)")
    print(f"  parsel: {parsel:.3f} s  {[round(t, 3) for t in times['parsel']]}")
    print(f"  mend:   {mend:.3f} s  {[round(t, 3) for t in times['mend']]}")
    print(f"  mend / parsel, round by round: {[round(r, 3) for r in ratios]}")
    print(f"  mend / parsel (median of the rounds' ratios): {ratio:.3f} ({(ratio - 1) * 100:+.1f}%); "
          f"ratio of the medians {mend / parsel:.3f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({
            "posts": counts["mend"], "rounds": args.rounds, "parsel_seconds": times["parsel"],
            "mend_seconds": times["mend"], "parsel_median": parsel, "mend_median": mend, "ratios": ratios,
            "ratio_median": ratio,
        }, indent=1) + "\n")
    if args.max_ratio is not None and ratio > args.max_ratio:
        print(f"mend adds more than allowed: ratio {ratio:.3f} > {args.max_ratio}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
