"""mend's Python module against the command line, on the project's examples.

Run after ``pip install .`` at the project root: ``pytest python/tests``.
The command-line binary is ``$MEND_BIN``, else ``target/debug/mend``.
"""

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

import mend

ROOT = Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN", str(ROOT / "target" / "debug" / "mend"))

# Every shipped example: a wrapper and the page it was written for.
EXAMPLES = [
    ("wrappers/bookshop.yaml", "examples/pages/bookshop.html"),
    ("wrappers/article.yaml", "examples/pages/article.html"),
    ("wrappers/exchange-rates.yaml", "examples/pages/exchange-rates.html"),
]


def mend_run(wrapper, page):
    out = subprocess.run(
        [MEND, "run", str(ROOT / wrapper), str(ROOT / page), "--format", "json", "--quiet",
         "--heal", "off"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("wrapper,page", EXAMPLES)
def test_records_equal_mend_runs(wrapper, page):
    expected = mend_run(wrapper, page)
    got = mend.Wrapper(ROOT / wrapper).extract((ROOT / page).read_bytes())
    assert got.records == expected["records"]
    assert got.violations == expected["violations"]


def test_str_and_bytes_give_the_same_records():
    wrapper = mend.Wrapper(ROOT / "wrappers/bookshop.yaml")
    data = (ROOT / "examples/pages/bookshop.html").read_bytes()
    assert wrapper.extract(data).records == wrapper.extract(data.decode("utf-8")).records


def test_an_encoding_decodes_bytes_whatever_the_page_declares(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\npatterns:\n  - {name: price, xpath: '//p', constraints: {max: 1}}\n")
    wrapper = mend.Wrapper(path)
    page = b"<meta charset=utf-8><p>\xa310.00</p>"
    assert wrapper.extract(page).records[0]["price"] == "\ufffd10.00"
    assert wrapper.extract(page, encoding="latin1").records[0]["price"] == "\u00a310.00"
    with mend.Job(wrapper, heal="off", store=tmp_path / "s.db") as job:
        assert job.page(page, encoding="latin1").records[0]["price"] == "\u00a310.00"
    with pytest.raises(ValueError):
        wrapper.extract(page, encoding="klingon")
    with pytest.raises(ValueError):
        wrapper.extract(page.decode("latin1"), encoding="latin1")


def test_a_url_resolves_relative_links():
    wrapper = mend.Wrapper(ROOT / "wrappers/bookshop.yaml")
    page = wrapper.extract(
        (ROOT / "examples/pages/bookshop.html").read_bytes(), url="https://books.example/c/"
    )
    urls = [book["url"] for book in page.records[0]["book"]]
    assert urls and all(u.startswith("https://") for u in urls)


def test_an_invalid_wrapper_raises_with_line_and_column(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: shop\npatterns:\n  - name: a\n    xpath: //li[\n")
    with pytest.raises(mend.WrapperError) as caught:
        mend.Wrapper(path)
    assert (caught.value.line, caught.value.column) == (4, 17)
    assert "XPath" in caught.value.message
    assert "w.yaml:4:17" in str(caught.value)


def test_a_css_wrapper_extracts_and_a_bad_selector_is_placed(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: shop\npatterns:\n  - name: titles\n    css: li h3 > a::attr(title)\n")
    titles = mend.Wrapper(path).extract((ROOT / "examples/pages/bookshop.html").read_bytes())
    assert titles.records[0]["titles"][0] == "The Tide Between Us"
    path.write_text("name: shop\npatterns:\n  - name: a\n    css: a:hover\n")
    with pytest.raises(mend.WrapperError) as caught:
        mend.Wrapper(path)
    assert caught.value.line == 4 and "hover" in caught.value.message


def test_wrong_input_raises_and_never_crashes(tmp_path):
    wrapper = mend.Wrapper(ROOT / "wrappers/bookshop.yaml")
    with pytest.raises(TypeError):
        wrapper.extract(42)
    with pytest.raises(ValueError):
        wrapper.extract("<p>", url="not a url")
    with pytest.raises(OSError):
        mend.Wrapper(tmp_path / "missing.yaml")
    # Any bytes at all are a page.
    assert wrapper.extract(b"\xff\x00<<<").records is not None


def test_threads_extract_side_by_side():
    wrapper = mend.Wrapper(ROOT / "wrappers/bookshop.yaml")
    data = (ROOT / "examples/pages/bookshop.html").read_bytes()
    expected = wrapper.extract(data).records
    results = []

    def work():
        for _ in range(20):
            results.append(wrapper.extract(data).records == expected)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 80 and all(results)
