#!/usr/bin/env python3
"""The PostgreSQL backend: throughput with 1, 2 and 4 workers, and its
per-page cost against the local (SQLite) crawl, in one run.

A throwaway PostgreSQL is started (initdb in a temporary folder, pg_ctl on
127.0.0.1 with a free port; as the `postgres` user under root) and the
fixture blog is served by `target/release/examples/fixture_site` with every
answer taking `--latency-ms` (20 ms by default, a near server). The crawl is
`bench/crawl_vs_scrapy.py`'s: the fixture blog, politeness off on the mend
side but for a per-host concurrency of 16, the same wrapper.

Per round, in alternation:
  * local: `mend crawl WRAPPER URL --concurrency C` with its SQLite frontier;
  * k workers (k = 1, 2, 4): the job is submitted with `--detach`, then k
    `mend worker --job ID --concurrency C` processes are started together
    and timed until the last ends; the records are then exported.
With `--heal-stale`, the wrapper is snapshotted on a post and its author
XPath then made stale (the class renamed), and every run heals with
`--heal auto`: the local crawl decides once per batch, the workers once per
job across workers (`mend_heal_pages`). The records are compared without
what pages say about heals (their adaptations, fallbacks and `_proposals`),
and the job's wrapper versions are reported: one heal decided is version 2.

Every run's records must equal the local crawl's (sorted lines). The script
prints pages/s per setting (medians over the rounds), the ratio of k workers
to one worker, and the per-page cost of the backend (one worker) against
the local crawl, as a ratio of seconds per page; `--out` writes the JSON.

With `--shop N` the site is instead `bench/shop_site.py`'s shop of N
products in 8 categories, whose listings are crawled side by side: the
blog's single chain of listing pages caps how many requests any crawler can
have in flight (the local crawl gets 61 pages/s with 4 in flight and only
119 with 12, at 50 ms an answer).

Usage:
    python3 bench/backend_scaling.py [--posts N | --shop N] [--rounds R] [--concurrency C]
        [--latency-ms MS] [--workers 1,2,4] [--heal-stale] [--mend PATH] [--site PATH]
        [--out FILE]
"""

import argparse
import glob
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crawl_vs_scrapy as bench  # noqa: E402  (the same site and wrapper)


def pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(initdb)
    raise SystemExit("no PostgreSQL binaries: install Debian's postgresql package")


class Postgres:
    def __init__(self, options=""):
        self.bin = pg_bin()
        self.dir = tempfile.mkdtemp(prefix="mend-pg-bench-")
        self.root = os.geteuid() == 0
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        if self.root:
            os.chmod(self.dir, 0o755)
            subprocess.run(["chown", "-R", "postgres", self.dir], check=True)
        self.data = os.path.join(self.dir, "data")
        self.pg("initdb", "-D", self.data, "-U", "mend", "--auth=trust", "-E", "UTF8", "--no-sync",
                "--locale=C")
        # Durable settings as a production server keeps them (fsync on).
        self.pg("pg_ctl", "-D", self.data, "-l", os.path.join(self.data, "server.log"), "-o",
                f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c max_connections=200"
                f" {options}",
                "-w", "start")
        self.url = f"postgres://mend@127.0.0.1:{self.port}/postgres"

    def cpu_seconds(self):
        """CPU time the server has used: the postmaster's own and that of its
        children, ended ones included (the kernel adds a reaped child's time to
        its parent's cutime and cstime), and the live children's."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            master = int(f.readline())
        ticks = os.sysconf("SC_CLK_TCK")

        def stat(pid):
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return fields

        fields = stat(master)
        total = sum(int(fields[i]) for i in (11, 12, 13, 14))
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != master:
                try:
                    child = stat(pid)
                except OSError:
                    continue
                if int(child[1]) == master:
                    total += int(child[11]) + int(child[12])
        return total / ticks

    def pg(self, program, *args):
        command = [os.path.join(self.bin, program), *args]
        if self.root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.dir)

    def stop(self):
        try:
            self.pg("pg_ctl", "-D", self.data, "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def sorted_lines(path, heals=False):
    """The output's lines, sorted; with `heals`, without what a page says
    about heals, which depends on when each heal was decided."""
    with open(path) as f:
        lines = f.read().splitlines()
    if heals:
        stripped = []
        for line in lines:
            page = json.loads(line)
            page.pop("adaptations", None)
            page.pop("fallbacks", None)
            for r in page.get("records", []):
                r.pop("_proposals", None)
            stripped.append(json.dumps(page, sort_keys=True))
        lines = stripped
    return sorted(lines)


def make_stale(args, wrapper, url, work):
    """Snapshots the wrapper on a post, then renames the author's class in
    its XPath, so that every post needs a heal; gives the stale text."""
    probe = os.path.join(work, "probe.ndjson")
    run([args.mend, "crawl", wrapper, url, "--out", probe, "--max-pages", "30", "--quiet",
         "--store", os.path.join(work, "probe", "mend.db")])
    with open(probe) as f:
        first = json.loads(f.readline())["page"]
    run([args.mend, "snapshot", wrapper, first], cwd=work)
    with open(wrapper) as f:
        text = f.read()
    stale = text.replace("span[@class='author']", "span[@class='byline']")
    if stale == text:
        raise SystemExit("the wrapper has no author XPath to make stale")
    grams = os.path.join(work, "treegrams")
    shutil.copytree(grams, grams + ".snapshot")
    return stale


def restore(wrapper, text):
    """Puts the stale wrapper and the snapshot's tree-grams back: an `auto`
    heal rewrote them."""
    if text is not None:
        with open(wrapper, "w") as f:
            f.write(text)
        grams = os.path.join(os.path.dirname(wrapper), "treegrams")
        shutil.rmtree(grams)
        shutil.copytree(grams + ".snapshot", grams)


def run(command, **kw):
    p = subprocess.run(command, capture_output=True, text=True, **kw)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({p.returncode}): {p.stderr}")
    return p


def local(args, wrapper, url, work, n):
    out = os.path.join(work, f"local-{n}.ndjson")
    store = os.path.join(work, f"local-{n}", "mend.db")
    t0 = time.perf_counter()
    run([args.mend, "crawl", wrapper, url, "--out", out, "--store", store, "--concurrency",
         str(args.concurrency), "--quiet", "--summary-json", out + ".json", *heal_args(args)])
    seconds = time.perf_counter() - t0
    with open(out + ".json") as f:
        pages = json.load(f)["summary"]["fetched"]
    return seconds, pages, out


def backend(args, pg, wrapper, url, work, n, k):
    out = os.path.join(work, f"pg-{k}-{n}.ndjson")
    job = run([args.mend, "crawl", wrapper, url, "--backend", pg.url, "--out", out, "--detach",
               *heal_args(args)], cwd=work).stdout.strip()
    cpu0 = pg.cpu_seconds()
    t0 = time.perf_counter()
    workers = [subprocess.Popen([args.mend, "worker", "--backend", pg.url, "--job", job, "--concurrency",
                                 str(args.concurrency), "--quiet"], stderr=subprocess.PIPE, text=True)
               for _ in range(k)]
    for w in workers:
        _, err = w.communicate()
        if w.returncode != 0:
            raise SystemExit(f"a worker failed: {err}")
    seconds = time.perf_counter() - t0
    time.sleep(0.2)  # the postmaster reaps the workers' backends
    db_cpu = pg.cpu_seconds() - cpu0
    run([args.mend, "crawl", wrapper, url, "--backend", pg.url, "--out", out, "--resume", "--quiet"],
        cwd=work)
    status = json.loads(run([args.mend, "status", "--backend", pg.url, "--job", job, "--json"]).stdout)
    pages = status["done"] + status["failed"]
    return seconds, pages, out, db_cpu, status.get("wrapper_version")


def heal_args(args):
    return ["--heal", "auto"] if args.heal_stale else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=4, help="requests in flight per process")
    ap.add_argument("--latency-ms", type=int, default=20)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--heal-stale", action="store_true",
                    help="a stale author XPath, healed with --heal auto in every run")
    ap.add_argument("--mend", default=os.path.join(bench.REPO, "target", "release", "mend"))
    ap.add_argument("--site", default=os.path.join(bench.REPO, "target", "release", "examples", "fixture_site"))
    ap.add_argument("--shop", type=int, default=None, metavar="N",
                    help="crawl a generated shop of N products (bench/shop_site.py: 8 categories "
                         "crawled side by side) instead of the blog, whose one chain of listing "
                         "pages caps how many requests can be in flight")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    ks = [int(k) for k in args.workers.split(",")]
    work = tempfile.mkdtemp(prefix="mend-backend-scaling-")
    pg = Postgres()
    latency = ("--latency-ms", str(args.latency_ms))
    if args.shop:
        import shop_site
        root = os.path.join(work, "shop")
        shop_site.generate(root, args.shop, 8)
        site, url = bench.start_site(args.site, 1, extra=("--root", root, *latency), seconds=3600)
    else:
        site, url = bench.start_site(args.site, args.posts, extra=latency, seconds=3600)
    try:
        if args.shop:
            wrapper = bench.write_wrapper(work, os.path.join(bench.BENCH, "wrappers", "shop.yaml"),
                                          bench.PRODUCT_REGEX)
        else:
            wrapper = bench.write_wrapper(work)
        stale = make_stale(args, wrapper, url, work) if args.heal_stale else None
        versions = []
        rates = {"local": []}
        rates.update({k: [] for k in ks})
        per_page = {"local": [], 1: []}
        db_ms = {k: [] for k in ks}
        same = True
        differ = 0
        for r in range(args.rounds):
            restore(wrapper, stale)
            seconds, pages, out = local(args, wrapper, url, work, r)
            expected = sorted_lines(out, args.heal_stale)
            rates["local"].append(pages / seconds)
            per_page["local"].append(seconds / pages)
            line = [f"round {r + 1}: local {pages} pages in {seconds:.2f}s ({pages / seconds:.0f}/s)"]
            for k in ks:
                restore(wrapper, stale)
                seconds, pages, out, db_cpu, version = backend(args, pg, wrapper, url, work, r, k)
                versions.append(version)
                rates[k].append(pages / seconds)
                db_ms[k].append(1000 * db_cpu / pages)
                if k == 1:
                    per_page[1].append(seconds / pages)
                got = sorted_lines(out, args.heal_stale)
                ok = got == expected
                same = same and ok
                # Pages whose record differs: a line of the local crawl's that this run does not have.
                differ = max(differ, len(set(expected) - set(got)))
                if not ok and os.environ.get("MEND_BENCH_DIFF"):
                    import difflib
                    for d in list(difflib.unified_diff(expected, got, lineterm="", n=0))[:6]:
                        print("   ", d[:400], flush=True)
                line.append(f"{k} workers {pages} pages in {seconds:.2f}s ({pages / seconds:.0f}/s, "
                            f"PostgreSQL {1000 * db_cpu / pages:.2f} ms CPU a page)"
                            + ("" if ok else " DIFFERENT RECORDS"))
            print("; ".join(line), flush=True)
        median = {str(k): statistics.median(v) for k, v in rates.items()}
        result = {
            "site": f"generated shop, {args.shop:,} products" if args.shop else f"fixture blog, {args.posts:,} posts",
            "pages": pages,
            "posts": args.posts,
            "rounds": args.rounds,
            "concurrency_per_process": args.concurrency,
            "latency_ms": args.latency_ms,
            "pages_per_s": median,
            "ratio_to_one_worker": {str(k): median[str(k)] / median["1"] for k in ks},
            "backend_cost_per_page_ratio": statistics.median(per_page[1]) / statistics.median(per_page["local"]),
            "same_records": same,
            "most_pages_differing": differ,
            "heal_stale": args.heal_stale,
            "job_wrapper_versions": sorted(set(v for v in versions if v is not None)),
            "postgres_cpu_ms_per_page": {str(k): statistics.median(v) for k, v in db_ms.items()},
        }
        print("median pages/s: " + ", ".join(f"{k}: {v:.0f}" for k, v in median.items()))
        print("ratio to one worker: " + ", ".join(f"{k}: {v:.2f}x" for k, v in result["ratio_to_one_worker"].items()))
        print("PostgreSQL CPU a page (ms): " + ", ".join(
            f"{k}: {v:.2f}" for k, v in result["postgres_cpu_ms_per_page"].items()))
        print(f"seconds per page, one worker over the local crawl: {result['backend_cost_per_page_ratio']:.2f}x; "
              f"same records everywhere: {same}")
        if args.heal_stale:
            print(f"job wrapper versions at the end: {result['job_wrapper_versions']}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=2)
        return 0 if same else 1
    finally:
        site.kill()
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
