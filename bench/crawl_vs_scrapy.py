#!/usr/bin/env python3
"""Crawl throughput: `mend crawl` against Scrapy on the same fixture site.

The fixture site (tests/fixture_site/, served by `cargo run --release
--example fixture_site -- --fast`) is a blog of N posts with listing, tag and
about pages, served on 127.0.0.1 with the trap pages (slow, failing, huge)
turned off. Both crawlers start at its home page, follow every link of the
site, and extract the post pages with the same XPaths
(examples/site/blog.yaml); both have politeness turned off in the same way:

* no robots.txt, no delay, no adaptive throttle, no retries, no cookies;
* 16 requests in flight at once, all on the one host.

mend:   mend crawl WRAPPER URL --out FILE --concurrency 16 (the wrapper's
        crawl block sets politeness {robots: false, delay: 0, autothrottle:
        false, retries: 0, concurrency: 16}, items: a URL regex of posts);
Scrapy: a CrawlSpider-like spider with the same settings
        (ROBOTSTXT_OBEY=False, DOWNLOAD_DELAY=0, AUTOTHROTTLE_ENABLED=False,
        RETRY_ENABLED=False, CONCURRENT_REQUESTS=16,
        CONCURRENT_REQUESTS_PER_DOMAIN=16, COOKIES_ENABLED=False), writing
        JSON lines.

Each side is timed as a whole process, start-up included, alternating
mend and Scrapy over several rounds; the script prints pages/s of each and
the ratio mend/Scrapy (median over the rounds), and the peak resident memory
of each process (the kernel's `ru_maxrss`, median over the rounds; a mend
crawl holds up to `--batch` parsed item pages until they are extracted). It
checks that both fetched the same number of pages and extracted the same
number of posts, and writes a JSON result.

With `--shop N` the site is instead a shop of N products written by
`bench/shop_site.py` (a site the project was not written against: other
markup, URLs and link structure), served by the same server (`--root`);
the wrapper is `bench/wrappers/shop.yaml` and the spider extracts the same
fields with the same XPaths.

Usage:
    python3 bench/crawl_vs_scrapy.py [--posts N | --shop N] [--rounds R] [--mend PATH] [--site PATH]
        [--out FILE]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import peak  # noqa: E402
POST_REGEX = r"/\d{4}/\d{2}/[^/]+-\d+/$"
PRODUCT_REGEX = r"/p/\d+-[^/]+\.html$"

SPIDER = r'''
import re, sys, scrapy
from urllib.parse import urlparse

# The trap links the fixture keeps with --fast (a redirect loop, a 404),
# left out on both sides as mend's wrapper denies them.
DENY = re.compile(r"/loop/|/missing/")

class Blog(scrapy.Spider):
    name = "blog"
    custom_settings = {
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "COOKIES_ENABLED": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "REDIRECT_ENABLED": True,
        "DEPTH_PRIORITY": 0,
    }

    def __init__(self, start=None, post=None, **kw):
        super().__init__(**kw)
        self.start_urls = [start]
        self.post = re.compile(post)
        self.host = urlparse(start).netloc

    def parse(self, response):
        if self.post.search(response.url):
            art = response.xpath("//article[@class='post']")
            yield {
                "page": response.url,
                "title": " ".join(art.xpath("./h1[@class='title']//text()").getall()).strip(),
                "date": art.xpath("./p[@class='meta']/time/@datetime").get(),
                "author": " ".join(art.xpath("./p[@class='meta']/span[@class='author']//text()").getall()).strip(),
                "body": [" ".join(p.xpath(".//text()").getall()).strip() for p in art.xpath("./div[@class='body']/p")],
                "images": art.xpath("./ul[@class='images']/li/img/@src").getall(),
                "comments": [
                    {"who": " ".join(c.xpath("./span[@class='who']//text()").getall()).strip(),
                     "text": " ".join(c.xpath("./p//text()").getall()).strip()}
                    for c in response.xpath("//ul[@class='comments']/li[@class='comment']")
                ],
            }
        for href in response.xpath("//a/@href").getall():
            url = response.urljoin(href)
            if urlparse(url).netloc == self.host and not DENY.search(url):
                yield scrapy.Request(url, callback=self.parse)
'''

SHOP_SPIDER = r'''
import re, sys, scrapy
from urllib.parse import urlparse

class Shop(scrapy.Spider):
    name = "shop"
    custom_settings = {
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "COOKIES_ENABLED": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "REDIRECT_ENABLED": True,
        "DEPTH_PRIORITY": 0,
    }

    def __init__(self, start=None, post=None, **kw):
        super().__init__(**kw)
        self.start_urls = [start]
        self.post = re.compile(post)
        self.host = urlparse(start).netloc

    def parse(self, response):
        if self.post.search(response.url):
            text = lambda sel: " ".join(sel.xpath(".//text()").getall()).split()
            yield {
                "page": response.url,
                "name": " ".join(text(response.xpath("//div[@class='product']/h1[@itemprop='name']"))),
                "price": float(response.xpath("//div[@class='buy']/span[@class='amount']/text()").get()),
                "category": " ".join(text(response.xpath("//nav[@class='crumbs']/a[2]"))),
                "specs": [{"key": " ".join(text(tr.xpath("./th"))), "value": " ".join(text(tr.xpath("./td")))}
                          for tr in response.xpath("//table[@class='specs']//tr")],
                "description": [" ".join(text(p)) for p in response.xpath("//div[@class='desc']/p")],
            }
        for href in response.xpath("//a/@href").getall():
            url = response.urljoin(href)
            if urlparse(url).netloc == self.host:
                yield scrapy.Request(url, callback=self.parse)
'''

WRAPPER_CRAWL = """
crawl:
  items: '{regex}'
  frontier: bfs
  deny: [/loop/, /missing/]
  politeness: {{robots: false, delay: 0, autothrottle: false, retries: 0, concurrency: 16}}
"""


def start_site(site_bin, posts, extra=(), seconds=900):
    """Starts the fixture blog (traps off, and `extra` arguments); gives the
    process and the home page's URL."""
    p = subprocess.Popen([site_bin, "--port", "0", "--seconds", str(seconds), "--variant", "blog",
                          "--posts", str(posts), "--fast", *extra], stdout=subprocess.PIPE, text=True)
    url = p.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1"):
        p.kill()
        raise SystemExit(f"the fixture site did not start: {url!r}")
    return p, url


def write_wrapper(work, source=os.path.join(REPO, "examples", "site", "blog.yaml"), regex=POST_REGEX):
    """The wrapper `source` (the blog's by default) with the benchmark's
    crawl block for item pages matching `regex`, written in `work`."""
    with open(source) as f:
        # The shipped crawl block gives way to the benchmark's own.
        wrapper_text = f.read().split("\ncrawl:")[0]
    wrapper = os.path.join(work, os.path.basename(source))
    with open(wrapper, "w") as f:
        f.write(wrapper_text + WRAPPER_CRAWL.format(regex=regex.replace("'", "''")))
    return wrapper


def measured(command, cwd=None):
    """(exit code, standard error, wall seconds, peak RSS in bytes) of one
    process; the peak is the kernel's `ru_maxrss` through bench/peak.py's
    launcher, so it counts all the process touched, its binary or
    interpreter included, and nothing of this script's."""
    done = peak.measured(command, cwd=cwd)
    return done.exit_code, done.stderr.decode("utf-8", "replace"), done.wall, done.peak_bytes


def run_mend(mend, wrapper, url, work):
    """Times one crawl: (seconds, pages fetched, items, peak RSS in bytes);
    `mend` is the binary, or a command that runs it."""
    command = mend if isinstance(mend, list) else [mend]
    out = os.path.join(work, "mend.ndjson")
    store = os.path.join(work, "mend-store", "mend.db")
    shutil.rmtree(os.path.dirname(store), ignore_errors=True)
    code, err, elapsed, peak = measured(
        command + ["crawl", wrapper, url, "--out", out, "--force", "--store", store, "--concurrency", "16",
                   "--quiet", "--summary-json", os.path.join(work, "mend-summary.json")])
    if code not in (0, 1):
        raise SystemExit(f"mend crawl failed ({code}): {err[-2000:]}")
    with open(os.path.join(work, "mend-summary.json")) as f:
        summary = json.load(f)["summary"]
    with open(out) as f:
        items = sum(1 for line in f if line.strip())
    return elapsed, summary["fetched"], items, peak


def run_scrapy(spider, url, work, regex=POST_REGEX):
    out = os.path.join(work, "scrapy.jl")
    if os.path.exists(out):
        os.remove(out)
    code, err, elapsed, peak = measured(
        [sys.executable, "-m", "scrapy", "runspider", spider, "-a", f"start={url}",
         "-a", f"post={regex}", "-o", f"{out}:jsonlines", "-s", "LOG_LEVEL=INFO"], cwd=work)
    if code != 0:
        raise SystemExit(f"scrapy failed ({code}): {err[-2000:]}")
    # Scrapy's own count of responses, from its closing stats.
    pages = None
    for line in err.splitlines():
        if "'response_received_count':" in line:
            pages = int(line.split(":")[-1].strip(" ,}"))
    with open(out) as f:
        items = sum(1 for line in f if line.strip())
    return elapsed, pages, items, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=1000)
    ap.add_argument("--shop", type=int, default=None, metavar="N",
                    help="crawl a generated shop of N products instead of the blog")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mend", default=os.path.join(REPO, "target", "release", "mend"))
    ap.add_argument("--site", default=os.path.join(REPO, "target", "release", "examples", "fixture_site"))
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mend-crawl-bench-")
    try:
        spider = os.path.join(work, "spider.py")
        if args.shop:
            import shop_site
            root = os.path.join(work, "shop")
            shop_site.generate(root, args.shop, 8)
            regex = PRODUCT_REGEX
            wrapper = write_wrapper(work, os.path.join(BENCH, "wrappers", "shop.yaml"), regex)
            code = SHOP_SPIDER
            site, url = start_site(args.site, 1, extra=("--root", root))
        else:
            regex = POST_REGEX
            wrapper = write_wrapper(work)
            code = SPIDER
            site, url = start_site(args.site, args.posts)
        with open(spider, "w") as f:
            f.write(code)
        try:
            rows = []
            for r in range(args.rounds):
                m = run_mend(args.mend, wrapper, url, work)
                s = run_scrapy(spider, url, work, regex)
                rows.append((m, s))
                print(f"round {r + 1}: mend {m[1]} pages {m[2]} posts in {m[0]:.2f}s ({m[1] / m[0]:.0f} pages/s, "
                      f"peak {m[3] / 2**20:.0f} MiB); scrapy {s[1]} pages {s[2]} posts in {s[0]:.2f}s "
                      f"({(s[1] or 0) / s[0]:.0f} pages/s, peak {s[3] / 2**20:.0f} MiB)")
        finally:
            site.kill()
        mend_rates = [m[1] / m[0] for m, _ in rows]
        scrapy_rates = [(s[1] or 0) / s[0] for _, s in rows]
        ratios = [a / b for a, b in zip(mend_rates, scrapy_rates) if b > 0]
        same_posts = all(m[2] == s[2] for m, s in rows)
        # Pages per second compare only when both crawls did the same work:
        # a budget or a rule that leaves pages out would flatter one side.
        # Scrapy's start request bypasses its duplicate filter, so a site
        # that links back to its start page costs Scrapy one fetch more.
        same_pages = all(m[1] is not None and s[1] is not None and 0 <= s[1] - m[1] <= 1
                         for m, s in rows)
        result = {
            "site": f"shop of {args.shop} products" if args.shop else f"blog of {args.posts} posts",
            "rounds": args.rounds,
            "mend_pages_per_s": statistics.median(mend_rates),
            "scrapy_pages_per_s": statistics.median(scrapy_rates),
            "ratio_median": statistics.median(ratios) if ratios else None,
            "ratios": ratios,
            "mend_pages": [m[1] for m, _ in rows],
            "scrapy_pages": [s[1] for _, s in rows],
            "mend_peak_mib": statistics.median(m[3] for m, _ in rows) / 2**20,
            "scrapy_peak_mib": statistics.median(s[3] for _, s in rows) / 2**20,
            "posts_extracted_equal": same_posts,
            "pages_fetched_equal": same_pages,
        }
        print(f"median: mend {result['mend_pages_per_s']:.0f} pages/s, scrapy {result['scrapy_pages_per_s']:.0f} "
              f"pages/s, ratio {result['ratio_median']:.2f}x; peak memory: mend {result['mend_peak_mib']:.0f} MiB, "
              f"scrapy {result['scrapy_peak_mib']:.0f} MiB; same posts extracted: {same_posts}; "
              f"same pages fetched: {same_pages}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=2)
        return 0 if same_posts and same_pages else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
