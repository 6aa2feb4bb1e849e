#!/usr/bin/env python3
"""Regenerates the tables of BENCHMARKS.md with one command.

A generated block of BENCHMARKS.md stands between two markers,

    <!-- generated: NAME -->
    ...
    <!-- end: NAME -->

and belongs to this script: it runs what measures the block, renders the table and writes it between the
markers. Everything outside the markers is prose a person writes and this script never touches.

Healing blocks (all from the same runs, so that the tools are compared on the same cases):

* ``heal-by-split``: mend on the wide corpus's cases, test sites first, then validation and train
  (bench/wide_cases.py, bench/heal_harness.py with Scrapling and the robust XPath beside mend);
* ``heal-peers-test``: mend, Scrapling 0.5, no healing and the robust XPath on test sites;
* ``pair-errors``: mend's wrong answers on pages of one site by split, by who gave them and by what they hold
  (bench/pair_errors.py);
* ``heal-carry-back``: what the XPaths mend's heals wrote select on the page the wrapper was captured on,
  by split (the same cases, mend alone: carry-{split}.json);
* ``records-by-split``: record lists of the same splits (bench/record_cases.py --split), mend by split and
  the robust XPath on test sites.

Speed blocks (each peer timed in the same run as mend, on this machine; release builds):

* ``parse-speed``: parsing and ten XPaths on one core against lxml and selectolax's Lexbor
  (bench/parse_vs_lxml.py, 5 repetitions, with target/release/examples/parse_extract_throughput);
* ``heal-speed``: a heal's latency at 3,000, 15,000 and 60,000 elements, whole processes, against Scrapling's
  relocation call (bench/heal_speed.py, 21 repetitions);
* ``peak-memory``: peak resident memory of `mend run --heal off` on two pages of 200 MB (bench/peak_memory.py);
* ``crawl-speed``: `mend crawl` against Scrapy on the fixture blog of 2,000 posts and on a generated shop of 2,000
  products, politeness off on both sides (bench/crawl_vs_scrapy.py, 3 alternating rounds, with
  target/release/examples/fixture_site serving the sites on 127.0.0.1);
* ``drift-cost``: `mend run --heal off` on 200 SWDE pages with and without tree-grams (bench/drift_cost.py,
  21 alternating rounds);
* ``store-growth``: a store's size over 100 heal-then-revert cycles, and after `mend gc` (bench/store_growth.py);
* ``hostile-scale``: inputs built to find quadratic time or unbounded recursion, whole processes, 5 repetitions
  (bench/hostile_scale.py);
* ``xpath-speed``: `mend run` against parsel on 181 Zyte pages, whole processes in back-to-back pairs
  (bench/run_vs_parsel.py), and XPath evaluation alone against lxml on the same trees (bench/xpath_vs_lxml.py,
  with target/release/examples/xpath_throughput);
* ``site-redesign``: one redesign over 200 SWDE pages of one site, `--heal propose` against `--heal off`, the
  entries it leaves in the store, and `--jobs 1` against `--jobs 2` (bench/site_redesign.py, 5 rounds);
* ``python-speed``: the Python module's `Wrapper.extract` against parsel's `Selector` on 181 Zyte pages
  (bench/python_vs_parsel.py), and a Scrapy crawl of the fixture blog through `mend.scrapy` against the same
  crawl with parsel (bench/scrapy_overhead.py). It needs the module built in release (`pip install .`) in the
  interpreter that runs this script.

Blocks of the later sections, made and read by bench/benchmark_sections.py (its module doc says what each runs):
``quick-slice`` and ``wide-slice`` (CI's healing slices), ``reloads``, ``swde-capture``, ``site-templates``,
``site-template-healing``, ``change-sensing``, ``css-differential``, ``review-page`` and ``ci-steps`` (a clean
clone's `.ci/run`, step by step; bench/ci_steps.py).

Runs go to target/benchmarks/.  With --reuse a step whose output is already there is not run again (a run
of the split's cases takes minutes; the whole set about an hour on 2 cores).

    python3 bench/benchmarks.py [--reuse] [--only BLOCK]... [--mend target/release/mend] [--example PATH] [--xpath-example PATH]
        [--site PATH]
    python3 bench/benchmarks.py --check     # render from the runs in target/benchmarks; exit 1 on a difference,
                                            # 2 when a block has no runs there (it names the command that makes them)

What it refuses: a block whose markers are missing or out of order (it says which, and writes nothing), a
block whose runs are missing (it says which, and writes nothing), and a run that does not finish (its exit is
passed on). Test sites are read in aggregate only, as
everywhere in bench/.
"""

import argparse
import json
import os
import re
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import benchmark_sections  # noqa: E402
from benchmark_sections import table  # noqa: E402
import pair_errors  # noqa: E402
from split_report import cell, tally  # noqa: E402

SPLITS = ("test", "validation", "train")
DOC = os.path.join(REPO, "BENCHMARKS.md")
HEALING = ("heal-by-split", "heal-peers-test", "pair-errors", "heal-carry-back", "records-by-split")
SPEED = ("parse-speed", "heal-speed", "peak-memory", "crawl-speed", "drift-cost", "store-growth", "hostile-scale",
         "xpath-speed", "python-speed", "site-redesign")
BLOCKS = HEALING + SPEED + benchmark_sections.SECTIONS


def run(argv, reuse, output):
    """Runs one step unless --reuse and its output is there (a split whose run is there makes no cases)."""
    if reuse and os.path.exists(output):
        print(f"reusing {os.path.relpath(output, REPO)}", file=sys.stderr)
        return
    print("$ " + " ".join(argv), file=sys.stderr)
    done = subprocess.run(argv, cwd=REPO)
    if done.returncode != 0:
        sys.exit(f"{argv[1]} exited with {done.returncode}")


def measure(args, work, needed):
    """The harness runs the blocks in `needed` read: each split's cases made, then run."""
    py = sys.executable
    common = ["--data", args.data]
    # (runs' name, their cases' name, case generator and its own arguments, the harness's own arguments)
    kinds = []
    heal_cases = ["bench/wide_cases.py", "--jobs", "2"]
    heal_tracks = ["--tracks", "wide-mutation,wide-pairs"]
    if {"heal-by-split", "heal-peers-test", "pair-errors"} & set(needed):
        kinds.append(("heal", "heal", heal_cases, heal_tracks))
    if "heal-carry-back" in needed:
        # The same cases, mend alone: what its heals' XPaths select on the capture page.
        kinds.append(("carry", "heal", heal_cases, heal_tracks + ["--no-scrapling", "--no-robust"]))
    if "records-by-split" in needed:
        kinds.append(("records", "records", ["bench/record_cases.py"], ["--tracks", "records", "--no-scrapling"]))
    for name, case_name, generator, harness in kinds:
        for s in SPLITS:
            cases = os.path.join(work, f"{case_name}-cases", s)
            out = os.path.join(work, f"{name}-{s}.json")
            if args.reuse and os.path.exists(out):
                continue
            run([py, *generator, *common, "--split", s, "--out", cases, "--seed", "1", "--mend", args.mend],
                args.reuse, os.path.join(cases, "cases.jsonl"))
            run([py, "bench/heal_harness.py", *common, *harness, "--cases", os.path.join(cases, "cases.jsonl"),
                 "--mend", args.mend, "--jobs", "2", "--work", os.path.join(work, f"{name}-run-{s}"),
                 "--json", out, "--report", os.path.join(work, f"{name}-{s}.md")], args.reuse, out)


def measure_speed(args, work, needed):
    """The speed benchmarks of the blocks in `needed`, one after the other (they time on a quiet machine)."""
    py = sys.executable
    if "parse-speed" in needed:
        out = os.path.join(work, "parse-speed.json")
        run([py, "bench/parse_vs_lxml.py", "--rounds", "5", "--data", args.data, "--mend-cmd", args.example,
             "--out", out], args.reuse, out)
    if "heal-speed" in needed:
        out = os.path.join(work, "heal-speed.json")
        run([py, "bench/heal_speed.py", "--sizes", "3000,15000,60000", "--reps", "21", "--data", args.data,
             "--mend", args.mend, "--out", out], args.reuse, out)
    if "peak-memory" in needed:
        out = os.path.join(work, "peak-memory.json")
        run([py, "bench/peak_memory.py", "--data", args.data, "--mend", args.mend, "--json", out], args.reuse, out)
    if "drift-cost" in needed:
        out = os.path.join(work, "drift-cost.json")
        run([py, "bench/drift_cost.py", "--rounds", "21", "--data", args.data, "--mend", args.mend, "--json", out],
            args.reuse, out)
    if "store-growth" in needed:
        out = os.path.join(work, "store-growth.json")
        run([py, "bench/store_growth.py", "--cycles", "100", "--mend", args.mend, "--json", out], args.reuse, out)
    if "hostile-scale" in needed:
        out = os.path.join(work, "hostile-scale.json")
        run([py, "bench/hostile_scale.py", "--mend", args.mend, "--json", out], args.reuse, out)
    if "xpath-speed" in needed:
        zyte = os.path.join(args.data, "zyte_article_extraction_benchmark", "html")
        out = os.path.join(work, "run-vs-parsel.json")
        run([py, "bench/run_vs_parsel.py", "--data", zyte, "--mend", args.mend, "--out", out], args.reuse, out)
        out = os.path.join(work, "xpath-vs-lxml.json")
        xpaths = f"{args.xpath_example} --exprs bench/xpath_expressions.txt"
        run([py, "bench/xpath_vs_lxml.py", "--data", zyte, "--mend-cmd", xpaths, "--out", out], args.reuse, out)
    if "site-redesign" in needed:
        out = os.path.join(work, "site-redesign.json")
        run([py, "bench/site_redesign.py", "--mend", args.mend, "--rounds", "5", "--json", out], args.reuse, out)
    if "python-speed" in needed:
        try:
            import mend  # noqa: F401
        except ImportError:
            sys.exit("python-speed needs the Python module: `pip install .` (a release build) first")
        zyte = os.path.join(args.data, "zyte_article_extraction_benchmark", "html")
        out = os.path.join(work, "python-vs-parsel.json")
        run([py, "bench/python_vs_parsel.py", "--data", zyte, "--json", out], args.reuse, out)
        out = os.path.join(work, "scrapy-overhead.json")
        run([py, "bench/scrapy_overhead.py", "--site", args.site, "--posts", "400", "--rounds", "5", "--json", out],
            args.reuse, out)
    if "crawl-speed" in needed:
        for site in (["--posts", "2000"], ["--shop", "2000"]):
            out = os.path.join(work, f"crawl-speed-{site[0][2:]}.json")
            run([py, "bench/crawl_vs_scrapy.py", *site, "--rounds", "3", "--mend", args.mend, "--site", args.site,
                 "--out", out], args.reuse, out)


def speed(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def spread(values, digits=2):
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}"


def render_speed(block, work):
    """The Markdown of a speed block, from its run in `work`."""
    if block == "parse-speed":
        sets = speed(os.path.join(work, "parse-speed.json"))["sets"]
        names = {"zyte": "Zyte article pages", "swde": "SWDE book pages"}
        rows = []
        for name, r in sets.items():
            lexbor = "paired_ratio_selectolax" in r
            rows.append([
                f"{r['pages']} {names.get(name, name)}",
                f"{r['mend_pages_per_second']:,.0f}", f"{r['lxml_pages_per_second']:,.0f}",
                f"{r['selectolax_pages_per_second']:,.0f}" if lexbor else "-",
                f"**{r['paired_ratio']:.2f}×** ({spread(r['paired_ratios'])})",
                f"**{r['paired_ratio_selectolax']:.2f}×** ({spread(r['paired_ratios_selectolax'])})" if lexbor else "-",
            ])
        return table(["pages", "mend pages/s", "lxml pages/s", "selectolax pages/s", "mend / lxml",
                      "mend / selectolax"], rows)
    if block == "heal-speed":
        result = speed(os.path.join(work, "heal-speed.json"))
        rows = []
        for r in result["rows"]:
            row = [f"{r['elements']:,}", f"{r['bytes'] / 1e6:.1f}", f"{r['mend_off_ms']:,.0f} ms",
                   f"{r['mend_auto_ms']:,.0f} ms ({r['mend_auto_p95_ms']:,.0f})",
                   f"**{r['mend_heal_ms']:,.0f} ms ({r['mend_heal_p95_ms']:,.0f})**",
                   "yes" if r.get("mend_correct") else f"no ({r.get('mend_status')})"]
            if result.get("scrapling"):
                reloc = r["scrapling_reloc_ms"]
                row += [f"{reloc:,.0f} ms", "yes" if r.get("scrapling_correct") else "no",
                        f"{reloc / max(r['mend_heal_ms'], 1e-3):,.0f}×"]
            rows.append(row)
        head = ["elements", "MB", "mend `--heal off`", "mend `--heal auto` (p95)", "mend heal (p95)", "mend right"]
        if result.get("scrapling"):
            head += [f"Scrapling {result['scrapling']} relocation", "Scrapling right", "relocation / mend heal"]
        return table(head, rows)
    if block == "peak-memory":
        rows = speed(os.path.join(work, "peak-memory.json"))
        return table(["page", "MB", "peak resident memory", "× the page", "median wall time"],
                     [[r["page"], f"{r['bytes'] / 1e6:,.1f}", f"{r['peak_rss'] / 1e6:,.0f} MB",
                       f"**{r['ratio']:.2f}×**", f"{r['median_seconds']:.1f} s"] for r in rows])
    if block == "drift-cost":
        r = speed(os.path.join(work, "drift-cost.json"))
        return table(["pages", "tree-grams", "with the drift check", "without (no tree-grams)", "ratio", "goal"],
                     [[str(r["pages"]), str(r["treegrams"]), f"{r['median_s_with_drift_check'] * 1e3:.1f} ms",
                       f"{r['median_s_without'] * 1e3:.1f} ms", f"**{r['ratio']:.3f}**", "≤ 1.10"]])
    if block == "store-growth":
        r = speed(os.path.join(work, "store-growth.json"))
        (c0, s0), (c1, s1) = r["sizes"][0], r["sizes"][-1]
        return table(["cycles", "store size", "growth per cycle", "applied heals `mend log` lists",
                      f"after `mend gc --keep-runs {r['keep_runs']}`"],
                     [[f"{c0} → {c1}", f"{s0 / 1e6:.2f} MB → {s1 / 1e6:.2f} MB",
                       f"{(s1 - s0) / (c1 - c0) / 1e3:.1f} KB", str(r["still_applied"]),
                       f"{r['after_gc'] / 1e6:.2f} MB"]])
    if block == "crawl-speed":
        runs = [speed(os.path.join(work, f"crawl-speed-{site}.json")) for site in ("posts", "shop")]
        return table(["site", "pages fetched, mend / Scrapy", "mend pages/s", "Scrapy pages/s", "mend / Scrapy",
                      "peak memory, mend / Scrapy", "same items"],
                     [[r["site"], f"{r['mend_pages'][0]:,} / {r['scrapy_pages'][0]:,}",
                       f"{r['mend_pages_per_s']:,.0f}", f"{r['scrapy_pages_per_s']:,.0f}",
                       f"**{r['ratio_median']:.1f}×** ({spread(r['ratios'], 1)})",
                       f"{r['mend_peak_mib']:.0f} / {r['scrapy_peak_mib']:.0f} MiB",
                       "yes" if r["posts_extracted_equal"] else "no"] for r in runs])
    if block == "hostile-scale":
        r = speed(os.path.join(work, "hostile-scale.json"))
        on = f" (on {r['file_system']})" if r.get("file_system") else ""
        for row in r["rows"]:
            if row["input"].startswith("snapshot"):
                row["input"] += on
        return table(["input", "MB", "median wall time (range)", "user + system CPU", "peak resident memory",
                      "goal"],
                     [[row["input"].replace("<", "`<").replace(">", ">`"), f"{row['mb']:.1f}",
                       f"**{row['wall']:.2f} s** ({row['wall_min']:.2f}–{row['wall_max']:.2f})",
                       f"{row['user']:.2f} + {row['system']:.2f} s", f"{row['peak_mb']:,.0f} MB",
                       f"< {row['goal']:g} s" if row["goal"] else "-"] for row in r["rows"]])
    if block == "xpath-speed":
        run_ = speed(os.path.join(work, "run-vs-parsel.json"))
        xp = speed(os.path.join(work, "xpath-vs-lxml.json"))
        pairs = run_["paired_ratios"]
        xpairs = xp["paired_ratios"]
        return table(["work", "pages", "mend", "peer", "mend / peer"], [
            ["`mend run` (whole process) against parsel, parse and 10 XPaths", str(run_["pages"]),
             f"{run_['mend']['pages_per_second']:,.0f} pages/s",
             f"{run_['parsel']['pages_per_second']:,.0f} pages/s (parsel {run_['parsel_version']})",
             f"**{run_['ratio_mend_over_parsel_paired']:.2f}×** ({spread(pairs)})"],
            [f"XPath evaluation alone against lxml, {len(xp['expressions'])} expressions, the same trees",
             str(len(xp["pages"])), f"{xp['mend_result']['expressions_per_second']:,.0f} evaluations/s",
             f"{xp['lxml_result']['expressions_per_second']:,.0f} evaluations/s (lxml {xp['lxml']})",
             f"**{xp['paired_ratio_mend_over_lxml']:.1f}×** ({spread(xpairs, 1)})"],
        ])
    if block == "site-redesign":
        r = speed(os.path.join(work, "site-redesign.json"))
        stored = {}
        for pattern, pages in r["proposals_stored"]:
            stored.setdefault(pattern, []).append(str(pages))
        return table(["pages", "`--heal off`", "`--heal propose`", "propose / off", "distinct proposals in the output",
                      "proposals in the store (pages each)", "entries of any status",
                      "`--jobs 1` and `--jobs 2` identical"],
                     [[str(r["pages"]), f"{r['off_median']:.3f} s", f"{r['propose_median']:.3f} s",
                       f"**{r['ratio']:.2f}×** (goal ≤ {r['max_ratio']:g}×)", str(r["proposals_in_output"]),
                       f"{len(r['proposals_stored'])} (" + ", ".join(f"{p} {' + '.join(n)}" for p, n in stored.items())
                       + ")", str(r["entries"]), "yes" if r["jobs_identical"] else "no"]])
    if block == "python-speed":
        py = speed(os.path.join(work, "python-vs-parsel.json"))
        crawl = speed(os.path.join(work, "scrapy-overhead.json"))
        given = {"text": "text (`Selector(text=)`, `extract(str)`)",
                 "bytes": "UTF-8 bytes (`Selector(body=)`, `extract(bytes)`)"}
        extraction = table(["pages given as", "pages", f"parsel {py['parsel']}", "mend", "mend / parsel"],
                           [[given[r["given_as"]], str(py["pages"]), f"{r['parsel_pages_per_second']:,.0f} pages/s",
                             f"{r['mend_pages_per_second']:,.0f} pages/s",
                             f"**{r['ratio']:.2f}×** ({spread(r['paired_ratios'])})"] for r in py["rows"]])
        scrapy = table(["Scrapy crawl of the fixture blog", "post pages", "parsel", "mend.scrapy",
                        "crawl time, mend / parsel"],
                       [["median crawl time", str(crawl["posts"]), f"{crawl['parsel_median']:.2f} s",
                         f"{crawl['mend_median']:.2f} s",
                         f"**{crawl['ratio_median']:.2f}** ({spread(crawl['ratios'])})"]])
        return extraction + "\n\n" + scrapy
    raise ValueError(block)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["cases"]


def plain(c):
    """A cell without its case count."""
    text = cell(c)
    return text.rsplit(" (", 1)[0] if text != "-" else text


def render(block, work):
    """The Markdown of one block, from the runs in `work`."""
    if block in SPEED:
        return render_speed(block, work)
    if block in benchmark_sections.SECTIONS:
        return benchmark_sections.render(block, work)
    if block == "heal-by-split":
        tallies = [tally(load(os.path.join(work, f"heal-{s}.json")), "mend") for s in SPLITS]
        rows = sorted({r for t in tallies for r in t})
        return table(["track", "test sites", "validation sites", "train sites"],
                     [[r] + [cell(t.get(r)) for t in tallies] for r in rows])
    if block == "heal-peers-test":
        cases = load(os.path.join(work, "heal-test.json"))
        tools = [tally(cases, t) for t in ("mend", "scrapling", "stale", "robust")]
        rows = sorted(tools[0])
        return table(["track (test sites)", "mend", "Scrapling 0.5", "no healing", "robust XPath"],
                     [[r] + [cell(t.get(r)) for t in tools] for r in rows])
    if block == "pair-errors":
        manifest = pair_errors.read_manifests(
            [os.path.join(work, "heal-cases", s, "cases.jsonl") for s in SPLITS])
        rows = []
        for s in SPLITS:
            with open(os.path.join(work, f"heal-{s}.json"), encoding="utf-8") as handle:
                rows.append(pair_errors.row(f"{s} sites", json.load(handle), manifest))
        return table(pair_errors.HEAD, rows)
    if block == "heal-carry-back":
        rows = []
        for s in SPLITS:
            with open(os.path.join(work, f"carry-{s}.json"), encoding="utf-8") as handle:
                tracks = json.load(handle)["summary"]["tracks"]
            for track, t in sorted(tracks.items()):
                c = t["carries_back"]
                written = sum(c.values())
                share = f"**{100 * c['same'] / written:.1f}%**" if written else "-"
                rows.append([f"{track}, {s} sites", f"{written:,}", f"{c['same']:,} ({share})",
                             f"{c['more']:,}", f"{c['nothing']:,}", f"{c['other']:,}"])
        return table(["track", "XPaths written by heals", "select the captured target",
                      "it and more", "nothing", "other nodes"], rows)
    if block == "records-by-split":
        runs = [load(os.path.join(work, f"records-{s}.json")) for s in SPLITS]
        mend = [tally(c, "mend") for c in runs]
        robust = tally(runs[0], "robust")
        rows = sorted({r for t in mend for r in t})
        return table(["track", "mend, test sites", "validation sites", "train sites", "robust XPath, test sites"],
                     [[r] + [cell(t.get(r)) for t in mend] + [plain(robust.get(r))] for r in rows])
    raise ValueError(block)


def blocks_of(text):
    """{name: (start, end)} of each generated block's body, or exit naming a broken marker."""
    spans = {}
    for m in re.finditer(r"<!-- generated: ([a-z-]+) -->\n", text):
        name = m.group(1)
        end = text.find(f"<!-- end: {name} -->", m.end())
        if end < 0:
            sys.exit(f"BENCHMARKS.md: the block {name} has no end marker")
        spans[name] = (m.end(), end)
    return spans


def read_page(wanted, missing_says):
    """BENCHMARKS.md's text and its blocks' spans; exits, writing nothing, when a wanted block has no markers."""
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    spans = blocks_of(text)
    missing = [b for b in wanted if b not in spans]
    if missing:
        sys.exit(f"BENCHMARKS.md {missing_says} {', '.join(missing)}")
    return text, spans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", choices=BLOCKS, help="this block only (may repeat)")
    ap.add_argument("--reuse", action="store_true", help="keep a step's output when it is already there")
    ap.add_argument("--check", action="store_true",
                    help="render from the runs already in --work and exit 1 when a block differs; run nothing")
    ap.add_argument("--mend", default="target/release/mend")
    ap.add_argument("--example", default="target/release/examples/parse_extract_throughput",
                    help="the parse and extract example parse-speed times")
    ap.add_argument("--xpath-example", default="target/release/examples/xpath_throughput",
                    help="the XPath evaluation example xpath-speed times")
    ap.add_argument("--site", default="target/release/examples/fixture_site",
                    help="the fixture site's server crawl-speed crawls")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(REPO), "shared", "data"))
    ap.add_argument("--work", default=os.path.join(REPO, "target", "benchmarks"))
    args = ap.parse_args()
    args.repo = REPO
    wanted = args.only or list(BLOCKS)
    text, spans = read_page(wanted, "has no markers for")
    if not args.check:
        os.makedirs(args.work, exist_ok=True)
        # Change sensing reads the test sites' run of heal-by-split beside its own.
        measure(args, args.work, wanted + ["heal-by-split"] * ("change-sensing" in wanted))
        measure_speed(args, args.work, wanted)
        benchmark_sections.measure(args, args.work, wanted, run)
        # The runs take minutes to most of an hour: the page is read again, so
        # that what a person wrote meanwhile stays.
        text, spans = read_page(wanted, "lost during the runs its markers for")
    differ, missing = [], []
    # From the last block to the first, so that earlier offsets stay right.
    for name in sorted(wanted, key=lambda b: -spans[b][0]):
        start, end = spans[name]
        try:
            body = render(name, args.work) + "\n"
        except FileNotFoundError as e:  # a fresh checkout: the runs were never made here
            missing.append((name, e.filename))
            continue
        if text[start:end] != body:
            differ.append(name)
            text = text[:start] + body + text[end:]
    for name, path in missing:
        print(f"BENCHMARKS.md: {name} has no runs to render ({path} is missing); "
              f"make them with: python3 bench/benchmarks.py --only {name}", file=sys.stderr)
    if missing:
        sys.exit(2)
    if args.check:
        for name in differ:
            print(f"BENCHMARKS.md: {name} differs from the runs in {args.work}", file=sys.stderr)
        sys.exit(1 if differ else 0)
    with open(DOC, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"BENCHMARKS.md: {len(differ)} of {len(wanted)} blocks rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
