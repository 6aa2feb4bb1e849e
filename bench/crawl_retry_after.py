#!/usr/bin/env python3
"""A crawl with one 429: how long it takes to recover.

The fixture blog (`examples/fixture_site --fast --rate-limited`) answers one
post with `429 Too Many Requests` and `Retry-After: 1`, once; every other
page answers at once. `mend crawl` fetches 50 pages of it with robots.txt,
a 30 ms delay between requests, AutoThrottle off and one request in flight
(the wrapper's `politeness`), so the crawl's time is about 50 delays plus
the one second the server asked for. A crawl that slowed the host down for
good after the 429 takes several times that.

The script runs the crawl `--rounds` times, checks that every post on the
pages fetched was written once (the rate-limited one included) and prints
the median time; `--max-seconds` makes a slower median an error (exit 1).

Usage:
    python3 bench/crawl_retry_after.py [--rounds R] [--mend PATH] [--site PATH]
        [--max-seconds S] [--json FILE]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import crawl_vs_scrapy as shared  # noqa: E402

PAGES = 50
WRAPPER_CRAWL = """
crawl:
  items: '{regex}'
  deny: [/loop/, /missing/]
  max_pages: {pages}
  politeness: {{delay: 0.03, autothrottle: false, concurrency: 1, retries: 3}}
"""


def one_crawl(mend, url, work, n):
    with open(os.path.join(REPO, "examples", "site", "blog.yaml")) as f:
        wrapper_text = f.read().split("\ncrawl:")[0]
    wrapper = os.path.join(work, "blog.yaml")
    with open(wrapper, "w") as f:
        f.write(wrapper_text + WRAPPER_CRAWL.format(
            regex=shared.POST_REGEX.replace("'", "''"), pages=PAGES))
    out = os.path.join(work, f"out-{n}.ndjson")
    summary = os.path.join(work, f"summary-{n}.json")
    t0 = time.perf_counter()
    p = subprocess.run([mend, "crawl", wrapper, url, "--out", out, "--quiet",
                        "--store", os.path.join(work, f"store-{n}", "mend.db"),
                        "--summary-json", summary], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"mend crawl failed ({p.returncode}): {p.stderr[-2000:]}")
    with open(summary) as f:
        s = json.load(f)["summary"]
    if s["fetched"] != PAGES or s["errors"] != 0:
        raise SystemExit(f"expected {PAGES} pages and no error, got {s['fetched']} and {s['errors']}")
    with open(out) as f:
        records = [json.loads(line) for line in f if line.strip()]
    pages = [r["page"] for r in records]
    if len(pages) != len(set(pages)):
        raise SystemExit("a post was written twice")
    # The rate-limited post is post 8 (tests/fixture_site/content.rs).
    if not any(p.rstrip("/").endswith("-8") for p in pages):
        raise SystemExit("the rate-limited post is not among the pages written: the 429 was not met")
    return seconds, len(pages)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mend", default=os.path.join(REPO, "target", "release", "mend"))
    ap.add_argument("--site", default=os.path.join(REPO, "target", "release", "examples", "fixture_site"))
    ap.add_argument("--max-seconds", type=float, default=None)
    ap.add_argument("--json", default=None, help="write the result as JSON here")
    args = ap.parse_args()
    times, posts = [], None
    with tempfile.TemporaryDirectory() as work:
        for n in range(args.rounds):
            # A fresh site each round: its 429 is answered once per start.
            site, url = shared.start_site(args.site, 40, extra=("--rate-limited",), seconds=600)
            try:
                seconds, posts = one_crawl(args.mend, url, work, n)
            finally:
                site.kill()
                site.wait()
            times.append(seconds)
    median = statistics.median(times)
    print(f"{PAGES} pages, one 429 with Retry-After: 1, delay 30 ms, autothrottle off: "
          f"median {median:.2f} s over {args.rounds} rounds ({', '.join(f'{t:.2f}' for t in times)}); "
          f"{posts} posts written")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pages": PAGES, "seconds": times, "median": median, "posts": posts}, f, indent=1)
    if args.max_seconds is not None and median > args.max_seconds:
        print(f"error: the median {median:.2f} s is over {args.max_seconds} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
