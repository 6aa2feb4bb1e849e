#!/usr/bin/env python3
"""How a store grows under heal-then-revert cycles, and what `mend gc` does.

Each cycle runs the bookshop wrapper (with `min_pages: 1` and
`update_treegrams: true`) over its redesigned page with `--heal auto`, which
heals three patterns and refreshes their tree-grams, then reverts each heal
with `mend revert`. The store's size is printed every `--every` cycles, then
`mend gc` runs and its summary is printed. `--json FILE` writes the sizes,
the applied heals `mend log` still lists, and the size after gc.

    python3 bench/store_growth.py --mend target/release/mend --cycles 100 [--json FILE]

The project is built in a scratch folder from files of this repository; the
store is the only thing measured.
"""

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mend(binary, args, cwd):
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True)


def size(db):
    conn = sqlite3.connect(db)
    try:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        return pages * page_size
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mend", required=True, help="the mend binary")
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--keep-runs", type=int, default=5)
    parser.add_argument("--json", help="write the result to this file")
    args = parser.parse_args()
    binary = str(Path(args.mend).resolve())
    with tempfile.TemporaryDirectory(prefix="mend-store-growth-") as tmp:
        project = Path(tmp)
        (project / "wrappers").mkdir()
        (project / "pages").mkdir()
        text = (ROOT / "wrappers/bookshop.yaml").read_text()
        text = text.replace(
            "  margin: 0.10\n", "  margin: 0.10\n  min_pages: 1\n  update_treegrams: true\n"
        )
        (project / "wrappers/bookshop.yaml").write_text(text)
        shutil.copy(ROOT / "examples/pages/bookshop.html", project / "pages/bookshop.html")
        shutil.copy(
            ROOT / "tests/fixtures/pages/bookshop-redesign.html",
            project / "pages/bookshop-redesign.html",
        )
        db = project / "store.db"
        out = mend(binary, ["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"], project)
        if out.returncode != 0:
            sys.exit(f"snapshot failed: {out.stderr}")
        sizes = []
        for cycle in range(1, args.cycles + 1):
            out = mend(
                binary,
                [
                    "run", "wrappers/bookshop.yaml", "pages/bookshop-redesign.html",
                    "--heal", "auto", "--format", "json", "--store", "store.db",
                ],
                project,
            )
            applied = [a["id"] for a in json.loads(out.stdout)["adaptations"] if a["status"] == "applied"]
            if not applied:
                sys.exit(f"cycle {cycle}: nothing applied: {out.stderr}")
            for adaptation in applied:
                r = mend(binary, ["revert", str(adaptation), "--store", "store.db"], project)
                if r.returncode != 0:
                    sys.exit(f"cycle {cycle}: revert {adaptation} failed: {r.stderr}")
            if cycle % args.every == 0:
                sizes.append((cycle, size(db)))
                print(f"after {cycle} cycles: {sizes[-1][1]:,} bytes", flush=True)
        if len(sizes) >= 2:
            (c0, s0), (c1, s1) = sizes[0], sizes[-1]
            print(f"growth per cycle: {(s1 - s0) / (c1 - c0):,.0f} bytes")
        applied = mend(binary, ["log", "--status", "applied", "--json", "--store", "store.db"], project)
        still_applied = len(json.loads(applied.stdout or "[]"))
        print(f"log --status applied: {still_applied} entries")
        gc = mend(binary, ["gc", "--keep-runs", str(args.keep_runs), "--store", "store.db"], project)
        if gc.returncode != 0:
            sys.exit(f"gc failed: {gc.stderr}")
        print(gc.stdout.strip() or gc.stderr.strip())
        if args.json:
            result = {"cycles": args.cycles, "sizes": sizes, "still_applied": still_applied,
                      "keep_runs": args.keep_runs, "after_gc": size(db)}
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
