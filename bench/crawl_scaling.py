#!/usr/bin/env python3
"""Crawl scaling: `mend crawl` on one core against the same crawl on two.

The crawl is the one `bench/crawl_vs_scrapy.py` times (the fixture blog,
politeness off, 16 requests in flight, the same wrapper); only mend is
pinned, with `taskset -c 0` and then `taskset -c 0,1`, so the fixture
site's server shares the machine with it as it would share a real site's
network. Runs alternate between the two settings over several rounds; the
script prints pages/s of each and the ratio two cores / one core (median
over the rounds), checks both extracted the same posts, and writes a JSON
result.

Fetch counts are reported but not compared: the blog links `/old/post-3`, a
301 to post 3, and whether post 3 is then fetched again depends on which of
the two links the crawler meets first. A redirect that lands on a page not
met yet is that page, read once; one that lands on a page met before is
dropped. Either way each post is extracted once, which is what is checked.

Usage:
    python3 bench/crawl_scaling.py [--posts N] [--rounds R] [--mend PATH] [--site PATH] [--out FILE]
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crawl_vs_scrapy as bench  # noqa: E402  (the same site, wrapper and timing)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mend", default=os.path.join(bench.REPO, "target", "release", "mend"))
    ap.add_argument("--site", default=os.path.join(bench.REPO, "target", "release", "examples", "fixture_site"))
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args()
    if shutil.which("taskset") is None:
        raise SystemExit("taskset (util-linux) is needed to pin mend to a core")
    cores = len(os.sched_getaffinity(0))
    if cores < 2:
        # Nothing to compare on one core: say so, and measure nothing.
        print(f"skipped: this machine gives the process {cores} core; scaling needs 2")
        return 0
    work = tempfile.mkdtemp(prefix="mend-crawl-scaling-")
    try:
        wrapper = bench.write_wrapper(work)
        site, url = bench.start_site(args.site, args.posts)
        try:
            rows = []
            for r in range(args.rounds):
                one = bench.run_mend(["taskset", "-c", "0", args.mend], wrapper, url, work)
                two = bench.run_mend(["taskset", "-c", "0,1", args.mend], wrapper, url, work)
                rows.append((one, two))
                print(f"round {r + 1}: 1 core {one[1]} pages in {one[0]:.2f}s ({one[1] / one[0]:.0f} pages/s); "
                      f"2 cores {two[1]} pages in {two[0]:.2f}s ({two[1] / two[0]:.0f} pages/s)")
        finally:
            site.kill()
        one_rates = [o[1] / o[0] for o, _ in rows]
        two_rates = [t[1] / t[0] for _, t in rows]
        same = all(o[2] == t[2] for o, t in rows)
        result = {
            "posts": args.posts,
            "rounds": args.rounds,
            "one_core_pages_per_s": statistics.median(one_rates),
            "two_cores_pages_per_s": statistics.median(two_rates),
            "ratio_median": statistics.median(t / o for o, t in zip(one_rates, two_rates)),
            "pages": [o[1] for o, _ in rows],
            "same_posts": same,
        }
        print(f"median: 1 core {result['one_core_pages_per_s']:.0f} pages/s, 2 cores "
              f"{result['two_cores_pages_per_s']:.0f} pages/s, ratio {result['ratio_median']:.2f}x; "
              f"same posts: {same}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=2)
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
