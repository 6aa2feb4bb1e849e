#!/usr/bin/env python3
"""The PostgreSQL backend's queue at scale: a frontier of many URLs over
many hosts, leased and acknowledged by many simulated workers.

A throwaway PostgreSQL is started (as `bench/backend_scaling.py` starts it,
with `pg_stat_statements` loaded), `target/release/examples/backend_scale`
fills a job's frontier with `--urls` URLs over `--hosts` hosts, and then
runs `--workers` simulated workers until `--pages` pages are acknowledged.
A simulated worker sends the statements mend's workers send (lease,
acknowledge with links and a record, renew); its fetch is a sleep of
`--fetch-ms`.

It reports the fill time, pages per second, the lease call's p50 and p99,
the acknowledgement's, the statements the server ran per page (from
`pg_stat_statements`) and the server's CPU time per page (every PostgreSQL
process's user and system time, from /proc, over the run only). With
`--max-lease-p99-ms`, `--max-statements` or `--max-cpu-ms`, it exits 1
when a measure is over its bound. `--out` writes the JSON.

Usage:
    python3 bench/backend_scale.py [--urls N] [--hosts H] [--workers W] [--pages P]
        [--fetch-ms F[,F...]] [--example PATH] [--max-lease-p99-ms MS] [--max-statements N]
        [--max-cpu-ms MS] [--out FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_scaling import Postgres  # noqa: E402  (one way to start a server)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--urls", type=int, default=10_000_000)
    ap.add_argument("--hosts", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=64)
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--fetch-ms", default="20",
                    help="a request's time; several, comma-separated, run one after the other "
                         "over the same frontier")
    ap.add_argument("--example", default="target/release/examples/backend_scale")
    ap.add_argument("--max-lease-p99-ms", type=float)
    ap.add_argument("--max-statements", type=float)
    ap.add_argument("--max-cpu-ms", type=float)
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.path.exists(args.example):
        sys.exit(f"{args.example} is missing: cargo build --release --example backend_scale")
    pg = Postgres("-c shared_preload_libraries=pg_stat_statements -c shared_buffers=512MB")
    results = []
    try:
        subprocess.run(["psql", "-q", pg.url, "-c", "CREATE EXTENSION pg_stat_statements"],
                       check=True, capture_output=True)
        started = time.monotonic()
        filled = json.loads(subprocess.run(
            [args.example, "--backend", pg.url, "fill", "--urls", str(args.urls),
             "--hosts", str(args.hosts)],
            check=True, capture_output=True, text=True).stdout)
        fill_seconds = time.monotonic() - started
        print(f"frontier: {args.urls:,} URLs over {args.hosts:,} hosts, "
              f"filled in {fill_seconds:.0f} s")
        for fetch in [int(f) for f in args.fetch_ms.split(",")]:
            result = run(args, pg, filled["job"], fetch)
            result.update(urls=args.urls, fill_seconds=round(fill_seconds, 1))
            results.append(result)
    finally:
        pg.stop()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=2)
    over = []
    for r in results:
        if args.max_lease_p99_ms is not None and r["lease_p99_ms"] > args.max_lease_p99_ms:
            over.append(f"lease p99 {r['lease_p99_ms']} ms > {args.max_lease_p99_ms}")
        spp = r["statements_per_page"]
        if args.max_statements is not None and (spp is None or spp > args.max_statements):
            over.append(f"statements per page {spp} > {args.max_statements}")
        if args.max_cpu_ms is not None and r["pg_cpu_ms_per_page"] > args.max_cpu_ms:
            over.append(f"PostgreSQL CPU {r['pg_cpu_ms_per_page']} ms per page > "
                        f"{args.max_cpu_ms}")
    if over:
        sys.exit("over its bound: " + "; ".join(over))


def run(args, pg, job, fetch):
    """One run of the simulated workers over the job, and what it cost the
    server."""
    # The connection before this one ends after it answered; its server
    # process's time is added to the postmaster's only once it has exited.
    time.sleep(2)
    cpu = pg.cpu_seconds()
    done = subprocess.run(
        [args.example, "--backend", pg.url, "run", "--job", str(job),
         "--workers", str(args.workers), "--pages", str(args.pages),
         "--fetch-ms", str(fetch)],
        capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the simulation failed: {done.stderr}")
    time.sleep(1)
    cpu = pg.cpu_seconds() - cpu
    result = json.loads(done.stdout)
    result.update(fetch_ms=fetch,
                  pg_cpu_ms_per_page=round(cpu * 1000 / max(result["pages"], 1), 3))
    print(f"{result['workers']} workers, {result['pages']:,} pages in {result['seconds']} s: "
          f"{result['pages_per_second']} pages/s (fetch {fetch} ms)")
    print(f"  lease: p50 {result['lease_p50_ms']} ms, p99 {result['lease_p99_ms']} ms "
          f"({result['leases']:,} calls)")
    print(f"  acknowledge: p50 {result['ack_p50_ms']} ms, p99 {result['ack_p99_ms']} ms")
    print(f"  statements per page: {result['statements_per_page']}")
    print(f"  PostgreSQL CPU per page: {result['pg_cpu_ms_per_page']} ms")
    return result


if __name__ == "__main__":
    main()
