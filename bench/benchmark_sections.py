"""The generated blocks of BENCHMARKS.md's later sections: what they run and how they read.

bench/benchmarks.py owns the page and its markers; this module gives it, for each block below, the runs
that measure it (`measure`) and the Markdown table made from those runs (`render`). Each run's output goes to
the benchmarks' work folder, so that `--reuse` and `--check` work as for every other block.

* ``quick-slice``: CI's quick slice of the older tracks (google.com, the SFTM mutants, mutations of
  ../shared/data, record lists, reloads, SWDE's other pages), mend beside Scrapling, the robust XPath and no
  healing (bench/heal_harness.py --quick, with the cases .ci/run generates), on the release build;
* ``wide-slice``: CI's validation slice of the wide corpus (200 field cases, 180 record lists of validation
  sites) that bench/heal_floor_wide.json holds, on the release build;
* ``reloads``: mend on four loads of one page that differ only in what changes from load to load, learned
  over three loads and from one snapshot (bench/reload_cases.py, 60 targets; bench/heal_harness.py);
* ``swde-capture``: every SWDE book field, the wrapper captured on page 0000 alone and over three pages,
  run on the site's other pages (bench/heal_harness.py --tracks swde --swde-capture 1|3);
* ``site-templates``: each SWDE book site's template, learned from pages 0000–0003 and laid over pages
  0010–0019, against a labelling by hand of the site's frame (the ignored test
  `site_template_swde::the_template_of_each_swde_site_matches_its_labelled_frame`, which prints them);
* ``site-template-healing``: the same track from page 0000, without and with the site's template learned
  first (--site-template), case by case;
* ``change-sensing``: mend's class of each broken pattern's change against the case's known scope, and
  parent-first search against whole-page search, on the test sites' cases in aggregate (bench/change_scope.py
  reads the scopes; the parent-first run is heal-by-split's);
* ``css-differential``: CSS selectors against parsel on the same HTML5 tree (bench/css_differential.py,
  400 pages, 60 selectors a page);
* ``review-page``: the review list's page over a store of 10,000 adaptations, the server's work from the
  store's rows to the last byte of HTML (`cargo bench --bench review`, criterion's medians);
* ``review-frame``: `mend review` serving the list and a proposal's page alone and while another client reads
  the sanitized frame of a 10 MB page (bench/review_frame.py);
* ``backend-scale``: the PostgreSQL queue at scale, 64 simulated workers over 10,000,000 queued URLs of 100,000
  hosts, requests of 20 and 250 ms (bench/backend_scale.py);
* ``backend-scaling``: `mend crawl --backend` and `mend worker` processes against the local crawl, on a
  generated shop of 1,000 products and on the fixture blog of 300 posts, answers taking 50 ms, and the blog
  healed across workers (`--heal-stale`, 20 ms) (bench/backend_scaling.py);
* ``ci-steps``: a clean clone's `.ci/run`, step by step (bench/ci_steps.py reads its log).

What it refuses: a block whose runs are missing raises FileNotFoundError, which benchmarks.py reports with the
command that makes them; it never renders a table from part of its runs.
"""

import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter

import change_scope
import ci_steps

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ("quick-slice", "wide-slice", "reloads", "swde-capture", "site-templates", "site-template-healing",
            "change-sensing", "css-differential", "review-page", "review-frame",
            "backend-scale", "backend-scaling",
            "ci-steps")

# The SWDE runs and what each holds: the capture pages, and whether the site's template was learned first.
SWDE_RUNS = {"swde-capture-1": ["--swde-capture", "1"], "swde-capture-3": ["--swde-capture", "3"],
             "swde-template": ["--swde-capture", "1", "--site-template"]}


def measure(args, work, needed, run):
    """Makes the runs of the blocks in `needed` with `run(argv, reuse, output)` (benchmarks.py's)."""
    py = sys.executable
    harness = [py, "bench/heal_harness.py", "--data", args.data, "--mend", args.mend, "--jobs", "2",
               "--no-scrapling"]
    if "quick-slice" in needed:
        mutations, reloads = os.path.join(work, "quick-mutations"), os.path.join(work, "quick-reloads")
        run([py, "bench/mutate.py", "--data", args.data, "--out", mutations, "--seed", "1", "--quick",
             "--mend", args.mend], args.reuse, os.path.join(mutations, "cases.jsonl"))
        run([py, "bench/reload_cases.py", "--data", args.data, "--out", reloads, "--seed", "1", "--cases", "30",
             "--mend", args.mend], args.reuse, os.path.join(reloads, "cases.jsonl"))
        out = os.path.join(work, "quick-slice.json")
        run([py, "bench/heal_harness.py", "--data", args.data, "--mend", args.mend, "--jobs", "2", "--quick",
             "--cases", os.path.join(mutations, "cases.jsonl"), "--cases", os.path.join(reloads, "cases.jsonl"),
             "--work", os.path.join(work, "quick-run"), "--json", out], args.reuse, out)
    if "wide-slice" in needed:
        fields, records = os.path.join(work, "wide-slice-fields"), os.path.join(work, "wide-slice-records")
        run([py, "bench/wide_cases.py", "--data", args.data, "--split", "validation", "--max-cases", "200",
             "--out", fields, "--seed", "1", "--mend", args.mend, "--jobs", "2"], args.reuse,
            os.path.join(fields, "cases.jsonl"))
        run([py, "bench/record_cases.py", "--data", args.data, "--split", "validation", "--per-kind", "12",
             "--out", records, "--seed", "1", "--mend", args.mend, "--jobs", "2"], args.reuse,
            os.path.join(records, "cases.jsonl"))
        out = os.path.join(work, "wide-slice.json")
        run([*harness, "--tracks", "wide-mutation,wide-pairs,records", "--cases", os.path.join(fields, "cases.jsonl"),
             "--cases", os.path.join(records, "cases.jsonl"), "--work", os.path.join(work, "wide-slice-run"),
             "--json", out], args.reuse, out)
    if "reloads" in needed:
        cases = os.path.join(work, "reload-cases")
        run([py, "bench/reload_cases.py", "--data", args.data, "--out", cases, "--seed", "1", "--cases", "60",
             "--mend", args.mend], args.reuse, os.path.join(cases, "cases.jsonl"))
        out = os.path.join(work, "reload.json")
        run([*harness, "--tracks", "reload,reload-unlearned", "--cases", os.path.join(cases, "cases.jsonl"),
             "--work", os.path.join(work, "reload-run"), "--json", out], args.reuse, out)
    swde = set()
    if "swde-capture" in needed:
        swde |= {"swde-capture-1", "swde-capture-3"}
    if "site-template-healing" in needed:
        swde |= {"swde-capture-1", "swde-template"}
    for name in sorted(swde):
        out = os.path.join(work, f"{name}.json")
        run([*harness, "--tracks", "swde", "--no-robust", *SWDE_RUNS[name], "--work", os.path.join(work, name),
             "--json", out], args.reuse, out)
    if "change-sensing" in needed:
        measure_change_sensing(args, work, harness, run)
    if "css-differential" in needed:
        out = os.path.join(work, "css-differential.json")
        run([py, "bench/css_differential.py", "--mend", args.mend, "--pages", "400", "--seed", "3",
             "--per-page", "60", "--json", out], args.reuse, out)
    if "site-templates" in needed:
        logged(["cargo", "test", "--test", "integration", "--", "--ignored", "--nocapture",
                "site_template_swde::the_template_of_each_swde_site_matches_its_labelled_frame"],
               os.path.join(work, "site-templates.log"), args)
    if "review-page" in needed:
        logged(["cargo", "bench", "--bench", "review", "--", "--noplot"], os.path.join(work, "review-bench.log"), args)
    if "review-frame" in needed:
        out = os.path.join(work, "review-frame.json")
        run([py, "bench/review_frame.py", "--mend", args.mend, "--json", out], args.reuse, out)
    if "backend-scale" in needed:
        out = os.path.join(work, "backend-scale.json")
        run([py, "bench/backend_scale.py", "--fetch-ms", "20,250", "--out", out], args.reuse, out)
    if "backend-scaling" in needed:
        measure_backend_scaling(args, work)
    if "ci-steps" in needed:
        out = os.path.join(work, "ci-steps.json")
        if not (args.reuse and os.path.exists(out)):
            ci_steps.run_clean_clone(work, args.data, out)


def logged(argv, out, args):
    """Runs `argv` in the checkout with its standard output to `out` (a test's or a bench's printed lines),
    unless --reuse and `out` is there; a run that fails leaves no `out`."""
    if args.reuse and os.path.exists(out):
        return
    print("$ " + " ".join(argv), file=sys.stderr)
    with open(out + ".part", "w", encoding="utf-8") as handle:
        subprocess.run(argv, cwd=args.repo, stdout=handle, check=True)
    os.replace(out + ".part", out)


def measure_backend_scaling(args, work):
    """The crawls of BACKEND_SITES, each to its JSON. The script exits 1, its JSON written, when a run's
    records differ from the local crawl's: that is a result the table shows, not a failed run."""
    for name, site in BACKEND_SITES:
        out = os.path.join(work, f"backend-scaling-{name}.json")
        if args.reuse and os.path.exists(out):
            continue
        # The script runs its crawls in a folder of its own: the binaries are named absolutely.
        argv = [sys.executable, "bench/backend_scaling.py", *site, "--mend", os.path.abspath(args.mend), "--site",
                os.path.abspath(args.site), "--out", out]
        print("$ " + " ".join(argv), file=sys.stderr)
        done = subprocess.run(argv, cwd=args.repo)
        if done.returncode not in (0, 1) or not os.path.exists(out):
            sys.exit(f"bench/backend_scaling.py exited with {done.returncode}")


def measure_change_sensing(args, work, harness, run):
    """The whole-page run of the test sites' cases beside heal-by-split's, and each case's known scope."""
    manifest = os.path.join(work, "heal-cases", "test", "cases.jsonl")
    out = os.path.join(work, "heal-page-test.json")
    run([*harness, "--no-robust", "--tracks", "wide-mutation,wide-pairs", "--cases", manifest,
         "--search-scope", "page", "--work", os.path.join(work, "heal-run-page-test"), "--json", out],
        args.reuse, out)
    known = os.path.join(work, "change-scope-known-test.json")
    if args.reuse and os.path.exists(known):
        return
    print("reading each test case's known scope from its pages", file=sys.stderr)
    cases = change_scope.load_cases([manifest])
    for case in cases.values():  # the manifest names pages relative to the checkout
        for side in ("old", "new"):
            case[side] = os.path.join(args.repo, case[side])
    scopes = {i: change_scope.known_scope(c) for i, c in sorted(cases.items())}
    with open(known, "w", encoding="utf-8") as handle:
        json.dump(scopes, handle, indent=0, sort_keys=True)


def load(work, name):
    with open(os.path.join(work, name), encoding="utf-8") as handle:
        return json.load(handle)


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def cwa(counts, n):
    """correct / wrong / abstain in counts, with the correct share."""
    return f"{counts['correct']:,} / {counts['wrong']:,} / {counts['abstain']:,} ({100 * counts['correct'] / n:.1f}%)"


def applied(case):
    """Whether mend's run applied a heal (the harness marks a run that adapted, abstentions included)."""
    return bool(case["mend"].get("healed")) and case["mend"]["verdict"] != "abstain"


def render(block, work):
    """The Markdown of one block, from its runs in `work`."""
    if block in ("quick-slice", "wide-slice"):
        return render_slice(load(work, f"{block}.json")["summary"]["tracks"])
    return RENDERERS[block](work)


def render_reloads(work):
    """The reload tracks: mend learned over three loads and from one snapshot, beside the robust XPath."""
    tracks = load(work, "reload.json")["summary"]["tracks"]
    names = {"reload": "reload (learned over 3 loads)", "reload-unlearned": "reload-unlearned (one snapshot)"}
    return table(["track", "cases", "mend correct / wrong / abstain", "heals", "violated",
                  "robust XPath correct"],
                 [[names[t], r["n"], cwa(r["mend"], r["n"]), r["mend_heals"], r["mend_violated"],
                   r["robust"]["correct"]] for t, r in ((t, tracks[t]) for t in names)])


def render_swde_capture(work):
    """SWDE from one capture page and from three, with the heals the pages needed and those they did not."""
    rows = []
    for name, label in (("swde-capture-1", "page 0000 alone"), ("swde-capture-3", "three pages")):
        cases = load(work, f"{name}.json")["cases"]
        m = Counter(c["mend"]["verdict"] for c in cases)
        needless = sum(1 for c in cases if c["mend"].get("plain_value_ok"))
        needed = [c for c in cases if c["mend"].get("plain_value_ok") is False]
        healed = sum(1 for c in needed if applied(c))
        n = len(cases)
        rows.append([label, f"{n:,}"] + [f"{m[v]:,} ({100 * m[v] / n:.1f}%)" for v in ("correct", "wrong", "abstain")]
                    + [needless, f"{healed}, {sum(1 for c in needed if c['mend']['verdict'] == 'abstain')}"])
    return table(["captured on", "pages", "correct", "wrong", "abstain",
                  "heals or flags where the XPath still gives the value",
                  "where it does not: heals applied, abstained"], rows)


def render_site_template_healing(work):
    """The SWDE track without and with site templates, and how many cases read the same both ways."""
    runs = [load(work, f"{name}.json")["cases"] for name in ("swde-capture-1", "swde-template")]
    after = {c["id"]: c["mend"] for c in runs[1]}
    same = sum(1 for c in runs[0] if c["id"] in after
               and (after[c["id"]]["verdict"], after[c["id"]].get("value"))
               == (c["mend"]["verdict"], c["mend"].get("value")))
    rows = []
    for label, cases in (("without site templates", runs[0]), ("with site templates", runs[1])):
        m = Counter(c["mend"]["verdict"] for c in cases)
        rows.append([label, f"{len(cases):,}", cwa(m, len(cases)),
                     sum(1 for c in cases if applied(c)),
                     f"{same:,} of {len(runs[0]):,}"])
    return table(["swde track", "cases", "correct / wrong / abstain", "heals applied",
                  "cases with the same verdict and value both ways"], rows)


def render_css_differential(work):
    """The CSS differential's counts."""
    r = load(work, "css-differential.json")
    c = Counter(r["counts"])
    return table(["pages read", "pages compared", "skipped: the parsers' trees differ",
                  "skipped: lxml cannot hold the page", "selectors compared", "that select something",
                  "select what parsel selects", "parsel version", "refused by parsel (not compared)"],
                 [[r["pages_asked"], c["pages"], c["pages skipped: the parsers' trees differ"],
                   c["pages skipped: lxml cannot hold the page"], f"{c['selectors']:,}",
                   f"{c['selectors that select something']:,}", f"**{c['same']:,} of {c['selectors']:,}**",
                   r["parsel"], c["selectors parsel refuses (not compared)"]]])


def render_review_frame(work):
    """The review server's requests alone and beside the large frame."""
    r = load(work, "review-frame.json")
    rows = [[x["request"], f"{x['alone_ms']:.1f} ms", f"{x['during_frame_ms']:.1f} ms"] for x in r["rows"]]
    rows.append([f"the new page's frame, sanitized ({r['frame_bytes'] / 1e6:.1f} MB of a "
                 f"{r['page_bytes'] / 1e6:.1f} MB page)", f"{r['frame_ms']:.0f} ms", ""])
    return table(["request (medians of 5)", "alone", "while the frame is being served"], rows)


def render_backend_scale(work):
    """The queue at scale, one row per request time, with issue 44's goals."""
    rows = [[f"{r['fetch_ms']} ms", f"{r['pages_per_second']:,.0f}", f"{r['lease_p50_ms']} / {r['lease_p99_ms']} ms",
             f"{r['ack_p50_ms']} / {r['ack_p99_ms']} ms", f"**{r['statements_per_page']:.2f}**",
             f"{r['pg_cpu_ms_per_page']:.2f} ms"] for r in load(work, "backend-scale.json")]
    rows.append(["issue 44's goal", "", "p99 < 5 ms", "", "≤ 4", "< 1 ms"])
    return table(["a request takes", "pages/s", "lease p50 / p99", "acknowledgement p50 / p99",
                  "statements a page", "PostgreSQL CPU a page"], rows)


def render_backend_scaling(work):
    """Workers against the local crawl, one row per site."""
    rows = []
    for name, _ in BACKEND_SITES:
        r = load(work, f"backend-scaling-{name}.json")
        rate, ratio, cpu = r["pages_per_s"], r["ratio_to_one_worker"], r["postgres_cpu_ms_per_page"]
        workers = [rate.get(k) and (f"{rate[k]:.0f}" + (f" (**{ratio[k]:.2f}×**)" if k != "1" else ""))
                   or "" for k in ("1", "2", "3")]
        healing = (", `--heal auto` on a stale XPath (the job's wrapper versions at the end: "
                   + ", ".join(map(str, r["job_wrapper_versions"])) + ")") if r["heal_stale"] else ""
        rows.append([f"{r['site']} ({r['pages']:,} pages){healing}, {r['latency_ms']} ms", f"{rate['local']:.0f} pages/s",
                     *workers, " / ".join(f"{cpu[k]:.2f}" if k in cpu else "–" for k in ("1", "2", "3")) + " ms",
                     f"{r['backend_cost_per_page_ratio']:.2f}×",
                     "yes" if r["same_records"] else
                     f"**no**: up to {r['most_pages_differing']} of {r['pages']:,} pages in a run"])
    return table(["site, answers take", "local crawl", "1 worker", "2 workers", "3 workers",
                  "PostgreSQL CPU a page (1 / 2 / 3 workers)", "seconds a page, 1 worker / local",
                  "same records"], rows)


SITE_TEMPLATE_LINE = re.compile(
    r"^book-([\w-]+?)-\d+: template of (\d+) elements; over 10 pages, (\d+) claimed, (\d+) labelled, (\d+) both: "
    r"precision ([\d.]+), recall ([\d.]+); coverage at least ([\d.]+)$", re.M)


def render_site_templates(work):
    """One row per site, from the lines the ignored test prints."""
    with open(os.path.join(work, "site-templates.log"), encoding="utf-8") as handle:
        found = SITE_TEMPLATE_LINE.findall(handle.read())
    if not found:
        sys.exit(f"{os.path.join(work, 'site-templates.log')}: the test printed no site's line")
    return table(["site", "template elements", "claimed over 10 pages", "labelled", "both", "precision", "recall",
                  "least coverage of a page"],
                 [[site, elements, f"{int(claimed):,}", f"{int(labelled):,}", f"{int(both):,}", f"**{p}**", r, cov]
                  for site, elements, claimed, labelled, both, p, r, cov in found])


# The crawls of backend-scaling: I/O-bound scaling on the shop and the blog, and healing across workers.
BACKEND_SITES = (("shop", ["--shop", "1000", "--workers", "1,3", "--latency-ms", "50"]),
                 ("blog", ["--posts", "300", "--workers", "1,2,3", "--latency-ms", "50"]),
                 ("heal", ["--posts", "300", "--workers", "1,2", "--latency-ms", "20", "--rounds", "2",
                           "--heal-stale"]))


# The review bench's lists: its criterion name, the query its log names the page's size by, and the row.
REVIEW_LISTS = (("list_10000", "", "the first of 10,000 adaptations"),
                ("list_10000_last-page", "page=200", "the last (page 200)"),
                ("list_10000_pending", "status=pending", "the first of the 6,000 that wait (`status=pending`)"))


def render_review(work):
    """Criterion's median and its confidence interval per list page, and each page's size from the log."""
    with open(os.path.join(work, "review-bench.log"), encoding="utf-8") as handle:
        sizes = dict(re.findall(r"^review list \?(\S*): (\d+) bytes$", handle.read(), re.M))
    criterion = os.path.join(REPO, "target", "criterion")  # where cargo bench leaves criterion's estimates
    rows = []
    for name, query, label in REVIEW_LISTS:
        est = load(os.path.join(criterion, "review", name, "new"), "estimates.json")["median"]
        ci = est["confidence_interval"]
        rows.append([label, f"**{est['point_estimate'] / 1e6:.0f} ms** ({ci['lower_bound'] / 1e6:.0f}–"
                     f"{ci['upper_bound'] / 1e6:.0f})", f"{int(sizes[query]) / 1e3:.1f} KB",
                     "first content < 500 ms, < 2 MB" if not query else ""])
    return table(["list page (50 rows)", "median (criterion, 20 samples; 95% interval)", "HTML", "goal"], rows)


def render_slice(tracks):
    """Per track: its cases, then correct / wrong / abstain in percent for each tool the run had."""
    tools = [(t, name) for t, name in (("mend", "mend"), ("scrapling", "Scrapling 0.5"), ("robust", "robust XPath"),
                                       ("stale", "no healing"))
             if any(sum((r.get(t) or {}).get(v, 0) for v in ("correct", "wrong", "abstain")) for r in tracks.values())]

    def share(r, tool):
        c = r.get(tool) or {}
        n = sum(c.get(v, 0) for v in ("correct", "wrong", "abstain"))
        return " / ".join(f"{100 * c[v] / n:.1f}" for v in ("correct", "wrong", "abstain")) if n else "-"

    return table(["track", "n"] + [name for _, name in tools],
                 [[t, r["n"]] + [share(r, tool) for tool, _ in tools] for t, r in sorted(tracks.items())])


def render_change_sensing(work):
    """Known scope against mend's class on the test sites' mutations, then both searches per track."""
    known = load(work, "change-scope-known-test.json")
    first = [c for c in load(work, "heal-test.json")["cases"] if c["id"] in known]
    page = {c["id"]: c for c in load(work, "heal-page-test.json")["cases"]}
    columns = change_scope.CLASSES + ["not sensed"]
    fields = [c for c in first if c["track"] == "wide-mutation"]
    matrix = Counter((known[c["id"]], change_scope.sensed(c)) for c in fields)
    rows = []
    for scope, label in (("none", "none (controls)"), ("local", "local"), ("structural", "structural"),
                         ("deleted", "deleted target"), ("unknown", "unknown (a page the reader cannot match)")):
        n = sum(v for (s, _), v in matrix.items() if s == scope)
        if n:
            rows.append([label] + [matrix[(scope, c)] for c in columns] + [n])
    scored = [(known[c["id"]], change_scope.sensed(c)) for c in fields
              if change_scope.sensed(c) != "not sensed" and known[c["id"]] in change_scope.CLASSES]
    agree = sum(1 for k, s in scored if k == s)
    shares = []
    for scope in ("local", "structural"):
        right = sum(1 for k, s in scored if k == s == scope)
        called = sum(1 for _, s in scored if s == scope)
        there = sum(1 for k, _ in scored if k == scope)
        shares.append(f"{scope}: precision {right / max(called, 1):.3f}, recall {right / max(there, 1):.3f}")
    summary = (f"Of {len(scored)} sensed cases with a known scope, **{agree} ({100 * agree / max(len(scored), 1):.1f}%)** "
               f"are classed as known; " + "; ".join(shares) + ".")
    sensing = table(["known \\ mend (test sites, mutations)"] + columns + ["cases"], rows)

    def verdicts(cases):
        v = Counter((c.get("mend") or {}).get("verdict") for c in cases)
        return f"{v['correct']} / {v['wrong']} / {v['abstain']}"

    def median_ms(cases):
        ms = [c["mend"]["run_ms"] for c in cases if (c.get("mend") or {}).get("run_ms")]
        return f"{statistics.median(ms):.1f} ms" if ms else "-"

    groups = {}
    for c in first:
        if c["id"] in page:
            groups.setdefault(c["track"], []).append(c)
            if change_scope.sensed(c) == "local":
                groups.setdefault("of them, sensed local", []).append(c)
    search = []
    for name, cases in groups.items():
        other = [page[c["id"]] for c in cases]
        differ = sum(1 for a, b in zip(cases, other) if a["mend"]["verdict"] != (b.get("mend") or {}).get("verdict"))
        search.append([name, len(cases), verdicts(cases), verdicts(other), differ, median_ms(cases),
                       median_ms(other)])
    return sensing + "\n\n" + summary + "\n\n" + table(
        ["track (test sites)", "cases", "parent-first c / w / a", "whole page c / w / a", "verdicts that differ",
         "`mend run` median, parent-first", "whole page"], search)


RENDERERS = {
    "reloads": render_reloads,
    "swde-capture": render_swde_capture,
    "site-template-healing": render_site_template_healing,
    "change-sensing": render_change_sensing,
    "css-differential": render_css_differential,
    "site-templates": render_site_templates,
    "review-page": render_review,
    "review-frame": render_review_frame,
    "backend-scale": render_backend_scale,
    "backend-scaling": render_backend_scaling,
    "ci-steps": lambda work: ci_steps.render(load(work, "ci-steps.json")),
}


def main():
    """Prints the blocks named on the command line, rendered from the runs in --work (CI checks with it that
    the renderers read what the harness writes today)."""
    import argparse
    ap = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    ap.add_argument("--work", required=True, help="the folder that holds the blocks' runs")
    ap.add_argument("blocks", nargs="+", choices=SECTIONS)
    args = ap.parse_args()
    for block in args.blocks:
        print(f"<!-- {block} -->\n{render(block, args.work)}\n")


if __name__ == "__main__":
    main()
