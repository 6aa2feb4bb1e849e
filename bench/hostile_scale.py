#!/usr/bin/env python3
"""Hostile scale: how long mend takes, and how much memory it peaks at, on
inputs built to find quadratic time or unbounded recursion.

* one tag of N double-quoted attributes `a{i}="v"`, and one of N unquoted
  ones `a{i}=v`, read by `mend xpath PAGE 'count(//div/@*)'` (the count is
  checked);
* 200,000 `<body a{i}=v>` tags, each adding an attribute to the one
  `body` element, read by `mend xpath PAGE 'count(//body/@*)'`;
* 200,000 pieces of text fostered out of one table between its rows,
  read by `mend xpath PAGE 'string-length(//body/text())'`;
* `mend snapshot` of a wrapper of P patterns on a page of P rows (two
  elements each), every pattern matching one row's cell;
* a record list of 60,000 items whose list was renamed since the snapshot
  (three items), run with `--heal propose`, which must find all 60,000
  again, and with `--heal off` for the parse and extraction alone.

Each input runs `--repeat` times; the median wall time, the median user and
system CPU time and the largest peak RSS (from `wait4`, through
bench/peak.py's launcher, so that this script's own memory is not in it)
are printed, and with `--json FILE` written as one row an input, with the
file system the snapshots wrote to (bench/benchmarks.py renders them as
BENCHMARKS.md's hostile-scale block). A row has a `goal` in seconds where
issue 43 sets one: a million attributes parsed in under a second, a snapshot
of 2,000 patterns in under two.

    python3 bench/hostile_scale.py --mend target/release/mend [--json FILE]

The inputs are written to a scratch folder and removed afterwards.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peak import measured  # noqa: E402


def timed(cmd, cwd, exit_code=0):
    """Runs `cmd` in `cwd`, which must end with `exit_code`: (wall seconds,
    user + system CPU seconds, peak RSS in MB, stdout)."""
    run = measured(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if run.exit_code != exit_code:
        sys.exit(f"{' '.join(cmd)} failed (exit {run.exit_code})")
    return run.wall, run.user, run.system, run.peak_bytes / 2**20, run.stdout.decode()


def report(label, runs, mb, goal=None):
    """Prints one input's figures and gives them as a row."""
    walls = [r[0] for r in runs]
    row = {
        "input": label,
        "mb": round(mb, 1),
        "wall": statistics.median(walls),
        "wall_min": min(walls),
        "wall_max": max(walls),
        "user": statistics.median(r[1] for r in runs),
        "system": statistics.median(r[2] for r in runs),
        "peak_mb": max(r[3] for r in runs),
        "goal": goal,
    }
    print(f"{label} ({mb:.1f} MB): median {row['wall']:5.2f} s "
          f"(min {row['wall_min']:.2f}, max {row['wall_max']:.2f}); "
          f"user {row['user']:.2f} s, system {row['system']:.2f} s; "
          f"peak {row['peak_mb']:.0f} MB", flush=True)
    return row


def measure(label, cmd, cwd, repeat, mb, check=None, goal=None):
    runs = []
    for _ in range(repeat):
        run = timed(cmd, cwd)
        if check is not None and not check(run[4]):
            sys.exit(f"{label}: unexpected output {run[4][:200]!r}")
        runs.append(run)
    return report(label, runs, mb, goal)


def file_system(folder):
    """The type of the file system `folder` is on, from /proc/mounts (None elsewhere)."""
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            entries = [line.split() for line in mounts]
    except OSError:
        return None
    real = os.path.realpath(folder)
    best = None
    for entry in entries:
        point = entry[1]
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) > len(best[1])):
            best = entry
    return best[2] if best else None


def attribute_page(path, n, quoted):
    value = '"v"' if quoted else "v"
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><body><div ")
        f.write(" ".join(f"a{i}={value}" for i in range(n)))
        f.write("></div></body></html>")


def body_tags_page(path, n):
    with open(path, "w") as f:
        f.write("".join(f"<body a{i}=v><i>t</i>" for i in range(n)))


def fostered_text_page(path, n):
    with open(path, "w") as f:
        f.write("<table>" + "x<tr><td>y</td></tr>" * n + "</table>")


def snapshot_project(folder, patterns):
    (folder / "wrappers").mkdir()
    rows = []
    for i in range(patterns):
        rows.append(f"<tr class='r{i}'><td class='c{i}'>value {i}</td></tr>")
    (folder / "page.html").write_text(
        "<!DOCTYPE html><html><body><table>" + "".join(rows) + "</table></body></html>"
    )
    lines = ["name: many", "patterns:"]
    for i in range(patterns):
        lines.append(f"  - name: p{i}")
        lines.append(f"    xpath: //tr[@class='r{i}']/td")
        lines.append("    constraints: {min: 1, max: 1}")
    (folder / "wrappers/many.yaml").write_text("\n".join(lines) + "\n")


LIST_WRAPPER = """name: list
patterns:
  - name: item
    xpath: //ul[@class='items']/li
    constraints: {min: 1}
    patterns:
      - name: link
        xpath: .//a/@href
        constraints: {min: 1, max: 1}
"""


def list_page(path, items, list_class):
    """A shop page of `items` products in one list of class `list_class`."""
    rows = "".join(f"<li><a href='/p/{i}'>Product {i}</a> <span class='price'>{i}.99</span></li>"
                   for i in range(items))
    path.write_text(f"<!DOCTYPE html><html><body><h1>Shop</h1><ul class='{list_class}'>{rows}</ul></body></html>")


def heal_rows(binary, tmp, repeat, items=60_000):
    """A record list renamed since its snapshot, run with and without healing;
    each repetition starts from a new snapshot, so that no earlier proposal is
    in the store."""
    page = tmp / "list.html"
    list_page(page, items, "products")
    mb = page.stat().st_size / 1e6

    def found_all(out):
        records = json.loads(out)["records"]
        return len(records) == 1 and len(records[0].get("item", [])) == items

    rows = []
    # Both end with exit code 1, something waiting for a person: without
    # healing the list is empty, a violation of its `min: 1`; with it, the
    # proposal.
    for heal, expect, code in (("off", lambda out: json.loads(out)["records"] == [{"item": []}], 1),
                               ("propose", found_all, 1)):
        runs = []
        for i in range(repeat):
            folder = tmp / f"heal-{heal}-{i}"
            (folder / "wrappers").mkdir(parents=True)
            (folder / "wrappers/list.yaml").write_text(LIST_WRAPPER)
            list_page(folder / "capture.html", 3, "items")
            subprocess.run([binary, "snapshot", "wrappers/list.yaml", "capture.html", "--store", "store.db"],
                           cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            run = timed([binary, "run", "wrappers/list.yaml", str(page), "--heal", heal, "--store", "store.db"],
                        folder, code)
            if not expect(run[4]):
                sys.exit(f"--heal {heal} on the list of {items:,}: unexpected output {run[4][:200]!r}")
            runs.append(run)
        rows.append(report(f"a renamed list of {items:,} records, --heal {heal}", runs, mb))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mend", required=True, help="the mend binary")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--patterns", type=int, default=2000)
    parser.add_argument("--dir", help="where the scratch folder goes (default: the system's "
                        "temporary folder); a snapshot's time depends on the file system")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()
    binary = str(Path(args.mend).resolve())
    rows = []
    with tempfile.TemporaryDirectory(prefix="mend-hostile-", dir=args.dir) as tmp:
        tmp = Path(tmp)
        for n, quoted in ((160_000, True), (1_000_000, True), (1_000_000, False)):
            page = tmp / f"attrs-{n}-{quoted}.html"
            attribute_page(page, n, quoted)
            kind = "double-quoted" if quoted else "unquoted"
            rows.append(measure(
                f"one tag of {n:,} {kind} attributes",
                [binary, "xpath", str(page), "count(//div/@*)"],
                tmp,
                args.repeat,
                page.stat().st_size / 1e6,
                check=lambda out, n=n: out.strip() == str(n),
                goal=1.0 if n == 1_000_000 else None,
            ))
        n = 200_000
        for label, write, expr in (
            (f"{n:,} <body> tags of one new attribute each", body_tags_page, "count(//body/@*)"),
            (f"{n:,} texts fostered out of one table", fostered_text_page, "string-length(//body/text())"),
        ):
            page = tmp / "tree-builder.html"
            write(page, n)
            rows.append(measure(
                label,
                [binary, "xpath", str(page), expr],
                tmp,
                args.repeat,
                page.stat().st_size / 1e6,
                check=lambda out, n=n: out.strip() == str(n),
            ))
        # Each snapshot runs in a project of its own, as a first snapshot
        # does: the files it writes are all new.
        runs = []
        for i in range(args.repeat):
            folder = tmp / f"snapshot-{i}"
            folder.mkdir()
            snapshot_project(folder, args.patterns)
            cmd = [binary, "snapshot", "wrappers/many.yaml", "page.html", "--store", "store.db"]
            runs.append(timed(cmd, folder))
        page_mb = (tmp / "snapshot-0" / "page.html").stat().st_size / 1e6
        rows.append(report(f"snapshot of {args.patterns:,} patterns, a page of {2 * args.patterns:,} elements",
                           runs, page_mb, goal=2.0 if args.patterns == 2000 else None))
        rows += heal_rows(binary, tmp, args.repeat)
        fs = file_system(tmp)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"repeat": args.repeat, "file_system": fs, "rows": rows}, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
