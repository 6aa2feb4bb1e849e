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
  elements each), every pattern matching one row's cell.

Each input runs `--repeat` times; the median wall time, the median user and
system CPU time and the largest peak RSS (from `wait4`) are printed.

    python3 bench/hostile_scale.py --mend target/release/mend

The inputs are written to a scratch folder and removed afterwards.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd, cwd):
    """Runs `cmd` in `cwd`: (wall seconds, user + system CPU seconds,
    peak RSS in MB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed (status {status})")
    return took, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, out.decode()


def report(label, runs):
    walls = [r[0] for r in runs]
    print(f"{label:58} median {statistics.median(walls):5.2f} s "
          f"(min {min(walls):.2f}, max {max(walls):.2f}); "
          f"user {statistics.median(r[1] for r in runs):.2f} s, "
          f"system {statistics.median(r[2] for r in runs):.2f} s; "
          f"peak {max(r[3] for r in runs):.0f} MB", flush=True)


def measure(label, cmd, cwd, repeat, check=None):
    runs = []
    for _ in range(repeat):
        run = timed(cmd, cwd)
        if check is not None and not check(run[4]):
            sys.exit(f"{label}: unexpected output {run[4][:200]!r}")
        runs.append(run)
    report(label, runs)


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mend", required=True, help="the mend binary")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--patterns", type=int, default=2000)
    parser.add_argument("--dir", help="where the scratch folder goes (default: the system's "
                        "temporary folder); a snapshot's time depends on the file system")
    args = parser.parse_args()
    binary = str(Path(args.mend).resolve())
    with tempfile.TemporaryDirectory(prefix="mend-hostile-", dir=args.dir) as tmp:
        tmp = Path(tmp)
        for n, quoted in ((160_000, True), (1_000_000, True), (1_000_000, False)):
            page = tmp / f"attrs-{n}-{quoted}.html"
            attribute_page(page, n, quoted)
            kind = "double-quoted" if quoted else "unquoted"
            size = page.stat().st_size / 1e6
            measure(
                f"one tag of {n:,} {kind} attributes ({size:.1f} MB)",
                [binary, "xpath", str(page), "count(//div/@*)"],
                tmp,
                args.repeat,
                check=lambda out, n=n: out.strip() == str(n),
            )
        n = 200_000
        for label, write, expr in (
            (f"{n:,} <body> tags of one new attribute each", body_tags_page, "count(//body/@*)"),
            (f"{n:,} texts fostered out of one table", fostered_text_page, "string-length(//body/text())"),
        ):
            page = tmp / "tree-builder.html"
            write(page, n)
            measure(
                f"{label} ({page.stat().st_size / 1e6:.1f} MB)",
                [binary, "xpath", str(page), expr],
                tmp,
                args.repeat,
                check=lambda out, n=n: out.strip() == str(n),
            )
        # Each snapshot runs in a project of its own, as a first snapshot
        # does: the files it writes are all new.
        runs = []
        for i in range(args.repeat):
            folder = tmp / f"snapshot-{i}"
            folder.mkdir()
            snapshot_project(folder, args.patterns)
            cmd = [binary, "snapshot", "wrappers/many.yaml", "page.html", "--store", "store.db"]
            runs.append(timed(cmd, folder))
        report(f"snapshot of {args.patterns:,} patterns, a page of {2 * args.patterns:,} elements", runs)


if __name__ == "__main__":
    main()
