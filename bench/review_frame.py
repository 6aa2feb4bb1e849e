#!/usr/bin/env python3
"""The review server while a large frame is served: the list and a proposal's page, alone and while the
sanitized frame of a 10 MB page is being read by another client.

A project of the bookshop wrapper is captured on its page and run with `--heal propose` over its redesign,
padded with paragraphs of text to about 10 MB, so that the proposal's new page is that large. `mend review`
serves the project's store on 127.0.0.1; each request is timed from its start to its last byte, alone, and
then while a second thread reads the new page's sanitized frame (`/a/ID/page/new`). Medians of --rounds.

    python3 bench/review_frame.py [--mend target/release/mend] [--megabytes 10] [--rounds 5] [--json OUT]

What it refuses: a run whose proposal is missing (the run proposed no heal), a frame that is not served
whole, and a request that fails; each exits non-zero naming it. The server stops by itself after its
--seconds, and is killed when the script ends.
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
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARAGRAPH = ("<p>A paragraph of the redesigned shop's long description, written to make the page large: "
             "its words are read, sanitized and written again by the review server.</p>\n")


def project(root, mend, megabytes):
    """The bookshop project in `root`, its redesign padded to `megabytes`, with one run that proposes."""
    pages = os.path.join(root, "pages")
    os.makedirs(pages)
    os.makedirs(os.path.join(root, "wrappers"))
    shutil.copy(os.path.join(REPO, "wrappers", "bookshop.yaml"), os.path.join(root, "wrappers"))
    shutil.copy(os.path.join(REPO, "examples", "pages", "bookshop.html"), pages)
    with open(os.path.join(REPO, "tests", "fixtures", "pages", "bookshop-redesign.html"), encoding="utf-8") as f:
        redesign = f.read()
    padding = PARAGRAPH * int(megabytes * 1e6 / len(PARAGRAPH))
    at = redesign.rindex("</body>")
    with open(os.path.join(pages, "large.html"), "w", encoding="utf-8") as f:
        f.write(redesign[:at] + "<div>\n" + padding + "</div>\n" + redesign[at:])
    for args in (["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"],
                 ["run", "wrappers/bookshop.yaml", "pages/large.html", "--heal", "propose"]):
        done = subprocess.run([mend, *args], cwd=root, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            sys.exit(f"mend {' '.join(args)} exited {done.returncode}: {done.stderr[-400:]}")
    return os.path.getsize(os.path.join(pages, "large.html"))


def fetch(url):
    """(seconds to the last byte, bytes) of one GET."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        body = response.read()
    return time.perf_counter() - started, body


def while_reading(url, frame):
    """The time of a GET of `url` started once another thread's GET of `frame` is under way."""
    begun, done = threading.Event(), []

    def read_frame():
        begun.set()
        done.append(fetch(frame))

    reader = threading.Thread(target=read_frame)
    reader.start()
    begun.wait()
    time.sleep(0.02)  # the frame's request reaches the server first
    took = fetch(url)[0]
    reader.join()
    return took, done[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mend", default=os.path.join(REPO, "target", "release", "mend"))
    ap.add_argument("--megabytes", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    mend = os.path.abspath(args.mend)
    root = tempfile.mkdtemp(prefix="mend-review-frame-")
    server = None
    try:
        page_bytes = project(root, mend, args.megabytes)
        server = subprocess.Popen([mend, "review", "--store", "wrappers/.mend/mend.db", "--seconds", "600"],
                                  cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        base = server.stdout.readline().strip()
        if not base.startswith("http://127.0.0.1:"):
            sys.exit(f"mend review printed {base!r}, not its address")
        listing = fetch(base)[1].decode()
        ids = sorted(set(re.findall(r'href="[^"]*/a/(\d+)"', listing)), key=int)
        if not ids:
            sys.exit("the review list shows no adaptation: the run proposed no heal")
        proposal = base.rstrip("/") + f"/a/{ids[0]}"
        frame = proposal + "/page/new"
        rows = {"the list": base, "the proposal's page": proposal}
        alone = {name: [] for name in rows}
        during = {name: [] for name in rows}
        frames = []
        for _ in range(args.rounds):
            took, body = fetch(frame)
            if len(body) < page_bytes / 2:
                sys.exit(f"the frame is {len(body):,} bytes, for a page of {page_bytes:,}")
            frames.append((took, len(body)))
            for name, url in rows.items():
                alone[name].append(fetch(url)[0])
                took, _ = while_reading(url, frame)
                during[name].append(took)
        result = {
            "page_bytes": page_bytes, "rounds": args.rounds,
            "frame_bytes": frames[0][1], "frame_ms": 1e3 * statistics.median(t for t, _ in frames),
            "rows": [{"request": name, "alone_ms": 1e3 * statistics.median(alone[name]),
                      "during_frame_ms": 1e3 * statistics.median(during[name])} for name in rows],
        }
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)
    for r in result["rows"]:
        print(f"{r['request']}: {r['alone_ms']:.1f} ms alone, {r['during_frame_ms']:.1f} ms while the frame "
              "is served")
    print(f"the new page's frame, sanitized ({result['frame_bytes'] / 1e6:.1f} MB): {result['frame_ms']:.0f} ms")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
