#!/usr/bin/env python3
"""The XPath a heal writes, post by post, on the fixture blog: does it hold on the site's other pages?

The blog's wrapper is captured on its first post, and its author XPath is made stale (the class it names is
renamed, as `backend_scaling.py --heal-stale` does). Then `mend run --heal propose` runs on every post, each
with a copy of the capture's store (which keeps the first post, as the store beside a wrapper does), so that no
post's heal is offered to another. The script counts the XPaths proposed,
and for each whether the post has comments: a post without comments holds one `span`, its author, so a bare
`//span` is exact there and selects every commenter's name on the other posts.

    python3 bench/blog_heal_xpaths.py [--mend target/release/mend] [--site target/release/examples/fixture_site]
        [--posts 300] [--json OUT]

What it refuses: a site that does not start, and a wrapper with no author XPath to make stale. The site is served
on 127.0.0.1 and killed when the script ends.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request

import crawl_vs_scrapy as bench

STALE = ("span[@class='author']", "span[@class='byline']")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mend", default=os.path.join(bench.REPO, "target", "release", "mend"))
    ap.add_argument("--site", default=os.path.join(bench.REPO, "target", "release", "examples", "fixture_site"))
    ap.add_argument("--posts", type=int, default=300)
    ap.add_argument("--json")
    args = ap.parse_args()
    mend = os.path.abspath(args.mend)
    work = tempfile.mkdtemp(prefix="mend-blog-heal-xpaths-")
    site, url = bench.start_site(os.path.abspath(args.site), args.posts)
    try:
        wrapper = bench.write_wrapper(work)
        probe = os.path.join(work, "probe.ndjson")
        subprocess.run([mend, "crawl", wrapper, url, "--out", probe, "--quiet", "--store",
                        os.path.join(work, "probe", "mend.db")], check=True)
        with open(probe, encoding="utf-8") as f:
            # In URL order: a crawl writes posts in the order their answers arrive, and the first post
            # is the capture page, so that the same post is captured on every run.
            posts = sorted(json.loads(line)["page"] for line in f)
        # The capture's store keeps the first post, which each post's run reads: every run starts from a
        # copy of it, as a user's runs share the store beside the wrapper.
        capture = os.path.join(work, "capture.db")
        subprocess.run([mend, "snapshot", wrapper, posts[0], "--store", capture], cwd=work, check=True,
                       capture_output=True)
        with open(wrapper, encoding="utf-8") as f:
            text = f.read()
        if STALE[0] not in text:
            raise SystemExit("the wrapper has no author XPath to make stale")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(text.replace(*STALE))
        counts = collections.Counter()
        for i, post in enumerate(posts):
            with urllib.request.urlopen(post) as response:
                html = response.read()
            page = os.path.join(work, "post.html")
            with open(page, "wb") as f:
                f.write(html)
            store = os.path.join(work, f"store-{i}.db")
            for suffix in ("", "-wal"):
                if os.path.exists(capture + suffix):
                    shutil.copyfile(capture + suffix, store + suffix)
            done = subprocess.run([mend, "run", wrapper, page, "--heal", "propose", "--format", "json", "--store",
                                   store], cwd=work, capture_output=True, text=True)
            out = json.loads(done.stdout)
            author = [a for a in out.get("adaptations", []) if a["pattern"] == "author"]
            xpath = (author[0]["new_xpath"] or "none (abstained)") if author else "no heal"
            counts[(xpath, b'class="comment"' in html)] += 1
    finally:
        site.kill()
        shutil.rmtree(work, ignore_errors=True)
    rows = [{"xpath": x, "post_has_comments": c, "posts": n} for (x, c), n in counts.most_common()]
    for r in rows:
        print(f"{r['posts']:4} posts {'with' if r['post_has_comments'] else 'without'} comments: {r['xpath']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"posts": len(posts), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
