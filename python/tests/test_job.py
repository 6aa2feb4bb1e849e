"""``mend.Job``: pages given one at a time, heals decided once per job.

Run after ``pip install .`` at the project root: ``pytest python/tests``.
The command-line binary is ``$MEND_BIN``, else ``target/debug/mend``.
"""

import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

import mend

ROOT = Path(__file__).resolve().parents[2]
MEND = str(Path(os.environ.get("MEND_BIN", ROOT / "target" / "debug" / "mend")).resolve())
WALKTHROUGH = ROOT / "examples" / "walkthrough"

BOOK = """\
name: book
patterns:
  - name: title
    xpath: //h1
    extract: normalized
    constraints: {min: 1, max: 1}
  - name: price
    xpath: //p[@class='price']
    type: number
    constraints: {min: 1, max: 1, regex: '^£\\d+\\.\\d\\d$'}
  - name: stock
    xpath: //p[@class='stock']
    extract: normalized
    constraints: {max: 1}
"""


def run(*args, cwd):
    return subprocess.run([MEND, *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def project(tmp_path):
    """The README's walkthrough: a wrapper snapshotted on the old page."""
    for name in ("product.html", "product-redesigned.html"):
        shutil.copy(WALKTHROUGH / name, tmp_path / name)
    (tmp_path / "book.yaml").write_text(BOOK)
    snap = run("snapshot", "book.yaml", "product.html", cwd=tmp_path)
    assert snap.returncode == 0, snap.stderr
    return tmp_path


def redesigned(project, i):
    """The redesigned page of book ``i``: another title and price."""
    html = (project / "product-redesigned.html").read_text()
    return html.replace("The Tide Between Us", f"Book {i}").replace("£12.99", f"£1{i}.50")


def proposals(project):
    log = run("log", "--json", cwd=project)
    assert log.returncode == 0, log.stderr
    return [e for e in json.loads(log.stdout) if e["status"] == "proposed"]


def test_a_redesign_met_on_three_pages_is_one_proposal_and_every_page_healed(project):
    wrapper = mend.Wrapper(project / "book.yaml")
    before = (project / "book.yaml").read_text()
    job = mend.Job(wrapper, heal="propose")
    pages = [job.page(redesigned(project, i), url=f"https://shop.example/p/{i}") for i in range(3)]
    summary = job.finish()
    # Every page got the price the redesign moved: an engine that abstained
    # would leave it empty, with a violation.
    for i, page in enumerate(pages):
        assert page.records[0]["price"] == float(f"1{i}.50")
    assert summary.pages == 3
    assert summary.proposed == 1
    assert summary.applied == 0
    assert summary.store is not None
    found = proposals(project)
    assert len(found) == 1, found
    assert found[0]["pattern"] == "price"
    # A proposal leaves the wrapper file as it was.
    assert (project / "book.yaml").read_text() == before


def test_auto_rewrites_the_wrapper_once_and_the_next_job_needs_no_heal(project):
    wrapper = mend.Wrapper(project / "book.yaml")
    before = (project / "book.yaml").read_text()
    with mend.Job(wrapper, heal="auto") as job:
        for i in range(3):
            page = job.page(redesigned(project, i), url=f"https://shop.example/p/{i}")
            assert page.records[0]["price"] == float(f"1{i}.50")
    after = (project / "book.yaml").read_text()
    assert after != before and "price-now" in after
    again = mend.Job(mend.Wrapper(project / "book.yaml"), heal="off")
    page = again.page(redesigned(project, 7))
    summary = again.finish()
    assert page.violations == [] and page.records[0]["price"] == 17.50
    assert summary.violations == 0 and summary.proposed == 0 and summary.applied == 0


def test_without_healing_the_redesign_is_violations_and_nothing_is_stored(project):
    wrapper = mend.Wrapper(project / "book.yaml")
    job = mend.Job(wrapper, heal="off")
    page = job.page((project / "product-redesigned.html").read_bytes())
    summary = job.finish()
    assert page.violations
    assert summary.violations >= 1 and summary.proposed == 0 and summary.applied == 0
    assert proposals(project) == []


def test_a_job_counts_coverage_per_pattern_and_refuses_pages_when_finished(project):
    wrapper = mend.Wrapper(project / "book.yaml")
    job = mend.Job(wrapper, heal="off", store=project / "elsewhere.db")
    job.page((project / "product.html").read_bytes())
    summary = job.finish()
    assert summary.field_coverage["title"] == 1.0
    assert summary.field_coverage["price"] == 1.0
    with pytest.raises(mend.JobError):
        job.page("<html></html>")
    with pytest.raises(mend.JobError):
        job.finish()
    with pytest.raises(ValueError):
        mend.Job(wrapper, heal="sometimes")


class _Hook(http.server.BaseHTTPRequestHandler):
    """A webhook on 127.0.0.1 that keeps every JSON body posted to it."""

    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def hook():
    _Hook.received = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", _Hook.received
    server.shutdown()
    server.server_close()


def with_notify(project, url):
    (project / "book.yaml").write_text(BOOK + f"adapt:\n  notify: {url}\n")
    return mend.Wrapper(project / "book.yaml")


def test_a_job_that_leaves_a_proposal_sends_the_wrappers_notice_once(project, hook):
    url, received = hook
    job = mend.Job(with_notify(project, url), heal="propose")
    for i in range(3):
        job.page(redesigned(project, i), url=f"https://shop.example/p/{i}")
    summary = job.finish()
    assert summary.notice_failure is None
    assert len(received) == 1, received
    notice = received[0]
    assert notice["source"] == "mend.Job"
    assert notice["wrapper"] == "book"
    assert notice["pages"] == 3 and notice["proposals"] == 1
    # The notice cites the proposal as `mend show` takes it.
    [cited] = notice["proposal_ids"]
    shown = run("show", cited, "--json", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["pattern"] == "price"


def test_a_job_with_nothing_for_a_person_sends_no_notice(project, hook):
    url, received = hook
    job = mend.Job(with_notify(project, url), heal="off")
    job.page((project / "product.html").read_text())
    summary = job.finish()
    assert summary.violations == 0
    assert received == [] and summary.notice_failure is None


def test_a_notice_that_cannot_be_delivered_is_said_in_the_summary(project):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    job = mend.Job(with_notify(project, f"http://127.0.0.1:{port}/hook"), heal="propose")
    job.page(redesigned(project, 1))
    summary = job.finish()
    assert summary.proposed == 1
    assert summary.notice_failure and str(port) in summary.notice_failure
