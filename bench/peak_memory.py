#!/usr/bin/env python3
"""Peak memory of `mend run --heal off` on one large page, as a multiple of
the page's bytes.

Two pages of about `--mb` megabytes (default 200) are written to a scratch
folder and removed afterwards:

* **dense**: the project's own listing (`examples/pages/bookshop.html`)
  with its product cards repeated, about 22 bytes of markup a node, the
  worst case for a parser's per-node tables; extracted with
  `wrappers/bookshop.yaml`;
* **article**: the body of a Zyte benchmark page (from `../shared/data`,
  skipped when it is absent) repeated, about 85 bytes a tag, as real
  pages are; extracted with `bench/wrappers/zyte_article.yaml`.

Each page runs `--repeat` times as a whole process; the peak resident set
size comes from `wait4` (the kernel's `ru_maxrss`), so it counts what the
process touched, the binary and the read page included. The process is
started by bench/peak.py's launcher: this script holds the pages it wrote,
and a process it started itself would report this script's own peak as a
floor. The largest peak of
the repetitions is reported, with its ratio to the page's bytes and the
median wall time.

    python3 bench/peak_memory.py --mend target/release/mend [--max-ratio 4]

With `--max-ratio`, the script exits with status 1 when a page peaks above
that multiple of its size. `--json FILE` writes the rows.
"""

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peak import measured  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ARTICLE_PAGE = "39d5c43beb60605c3eec760c99500e62e7bd71ebbe4ae05edf382125e1b0b80a"


def dense_page(size):
    """The bookshop listing with its list items repeated to `size` bytes."""
    card = (REPO / "examples" / "pages" / "bookshop.html").read_text(encoding="utf-8")
    start, end = card.find("<li>"), card.rfind("</li>") + len("</li>")
    return repeated(card[:start], card[start:end], card[end:], size)


def article_page(size, data):
    """A Zyte article page's body content repeated to `size` bytes, or None."""
    path = Path(data) / "zyte_article_extraction_benchmark" / "html" / f"{ARTICLE_PAGE}.html.gz"
    if not path.exists():
        return None
    raw = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    body = raw.find(">", raw.find("<body")) + 1
    close = raw.rfind("</body>")
    return repeated(raw[:body], raw[body:close], raw[close:], size)


def repeated(head, middle, tail, size):
    copies = max(1, (size - len(head) - len(tail)) // max(1, len(middle)))
    return "".join([head, middle * copies, tail]).encode("utf-8")


def run(cmd):
    """(wall seconds, peak RSS in bytes) of one process."""
    done = measured(cmd)
    # Exit 1 is a constraint violation on the repeated page, which is expected;
    # anything else is a failure of the run.
    if done.exit_code not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} failed: {done.stderr.decode(errors='replace')[-400:]}")
    return done.wall, done.peak_bytes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mend", default=str(REPO / "target" / "release" / "mend"))
    ap.add_argument("--mb", type=float, default=200.0, help="page size in megabytes (default 200)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--max-ratio", type=float, help="fail when a page peaks above this multiple of its bytes")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args(argv)

    size = int(args.mb * 1_000_000)
    pages = [("dense listing", dense_page(size), REPO / "wrappers" / "bookshop.yaml")]
    article = article_page(size, args.data)
    if article is None:
        print(f"{args.data} is absent: the article page is skipped")
    else:
        pages.append(("article", article, REPO / "bench" / "wrappers" / "zyte_article.yaml"))

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="mend-peak-") as scratch:
        for label, page, wrapper in pages:
            path = Path(scratch) / "page.html"
            path.write_bytes(page)
            del page
            runs = []
            for i in range(args.repeat):
                store = Path(scratch) / f"store-{i}.db"
                runs.append(run([args.mend, "run", str(wrapper), str(path), "--heal", "off",
                                 "--store", str(store), "--quiet"]))
                store.unlink(missing_ok=True)
            size_bytes = path.stat().st_size
            peak = max(r[1] for r in runs)
            ratio = peak / size_bytes
            row = {"page": label, "bytes": size_bytes, "peak_rss": peak, "ratio": round(ratio, 2),
                   "median_seconds": round(statistics.median(r[0] for r in runs), 2)}
            rows.append(row)
            over = args.max_ratio is not None and ratio > args.max_ratio
            failed |= over
            print(f"{label:14} {size_bytes / 1e6:7.1f} MB: peak RSS {peak / 1e6:7.1f} MB, "
                  f"{ratio:.2f}x the page; median {row['median_seconds']:.2f} s"
                  + (f"  ABOVE {args.max_ratio}x" if over else ""), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
