"""The Scrapy extension on the fixture blog (``examples/scrapy``).

The blog is served on 127.0.0.1 by the project's ``fixture_site`` example
(``$MEND_FIXTURE_SITE``, else ``target/debug/examples/fixture_site``); the
tests are skipped when it is not built or Scrapy is not installed, and fail
instead under CI (``$CI`` set), where both must be there.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

CI = bool(os.environ.get("CI"))
if not CI:
    pytest.importorskip("scrapy")

ROOT = Path(__file__).resolve().parents[2]
MEND = str(Path(os.environ.get("MEND_BIN", ROOT / "target" / "debug" / "mend")).resolve())
SITE = Path(
    os.environ.get("MEND_FIXTURE_SITE", ROOT / "target" / "debug" / "examples" / "fixture_site")
).resolve()
EXAMPLE = ROOT / "examples" / "scrapy"

import mend  # noqa: E402

pytestmark = pytest.mark.skipif(
    not CI and not SITE.is_file(), reason=f"needs the fixture site at {SITE}"
)


class Site:
    """The fixture blog, served until the test ends (and at most 5 minutes)."""

    def __init__(self, *flags):
        self.process = subprocess.Popen(
            [str(SITE), "--fast", "--posts", "12", "--seconds", "300", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url

    def stop(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture
def site():
    site = Site()
    yield site
    site.stop()


@pytest.fixture
def redesigned_site():
    site = Site("--redesigned")
    yield site
    site.stop()


@pytest.fixture
def wrapper(tmp_path):
    """The blog's wrapper, copied so that its store is the test's."""
    path = tmp_path / "blog.yaml"
    shutil.copy(ROOT / "examples" / "site" / "blog.yaml", path)
    return path


def mend_cli(*args, cwd):
    return subprocess.run([MEND, *args], capture_output=True, text=True, cwd=cwd)


def scrapy_crawl(start, wrapper, out, *settings):
    """Runs the example's spider; gives its records and its log."""
    flags = ["-s", f"MEND_WRAPPER={wrapper}"]
    for setting in settings:
        flags += ["-s", setting]
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "posts", "-a", f"start={start}", "-O", str(out),
         *flags],
        capture_output=True,
        text=True,
        cwd=EXAMPLE,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in out.read_text().splitlines()], done.stderr


def stat(log, name):
    found = re.search(rf"'{re.escape(name)}': ([0-9.]+)", log)
    return float(found.group(1)) if found else None


def canonical(records, site=None):
    """The records in a comparable form; the links of ``site`` made relative
    to it, for the same pages served from another port."""
    texts = (json.dumps(r, sort_keys=True) for r in records)
    if site is not None:
        texts = (t.replace(site.url, "/") for t in texts)
    return sorted(texts)


def mend_crawl(start, wrapper, tmp_path):
    out = tmp_path / "mend.ndjson"
    done = mend_cli("crawl", str(wrapper), start, "--out", str(out), "--heal", "off", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def records_of(pages):
    return [r for page in pages for r in page["records"]]


def test_a_scrapy_crawl_gives_the_records_of_mend_crawl_and_counts_them(site, wrapper, tmp_path):
    expected = records_of(mend_crawl(site.url, wrapper, tmp_path))
    got, log = scrapy_crawl(site.url, wrapper, tmp_path / "scrapy.jsonl")
    assert len(expected) == 11
    assert canonical(got) == canonical(expected)
    assert stat(log, "mend/pages") == 11
    assert stat(log, "mend/violations") == 0
    assert stat(log, "mend/heals/proposed") == 0
    assert stat(log, "mend/field_coverage/title") == 1.0


def test_wrapper_extract_gives_mend_crawls_records_on_every_post(site, wrapper, tmp_path):
    pages = mend_crawl(site.url, wrapper, tmp_path)
    loaded = mend.Wrapper(wrapper)
    for page in pages:
        with urllib.request.urlopen(page["page"]) as response:
            body = response.read()
        got = loaded.extract(body, url=page["page"])
        assert got.records == page["records"], page["page"]
        assert got.violations == page["violations"], page["page"]


def test_a_redesign_is_one_proposal_per_change_and_the_records_are_healed(
    site, redesigned_site, wrapper, tmp_path
):
    crawled = mend_crawl(site.url, wrapper, tmp_path)
    expected = records_of(crawled)
    posts = [page["page"] for page in crawled[:3]]
    snap = mend_cli("snapshot", str(wrapper), *posts, cwd=tmp_path)
    assert snap.returncode == 0, snap.stderr
    got, log = scrapy_crawl(redesigned_site.url, wrapper, tmp_path / "healed.jsonl",
                            "MEND_HEAL=propose")
    # The redesign moved the title and the author on all 11 posts: each
    # pattern is one proposal, standing for every page, and every record
    # is what the blog says (an engine that abstained would leave the two
    # fields empty).
    assert canonical(got, redesigned_site) == canonical(expected, site)
    assert stat(log, "mend/heals/proposed") == 2
    listed = mend_cli("log", "--json", "--pending", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    proposals = json.loads(listed.stdout)
    assert sorted(p["pattern"] for p in proposals) == ["author", "title"]
    assert all(p["page_count"] == 11 for p in proposals), proposals
