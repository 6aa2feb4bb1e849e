"""``mend.scrapy`` without a crawl: the extension as Scrapy builds it, fed
responses made here. Skipped without Scrapy, and failing instead under CI
(``$CI`` set), where it must be installed.
"""

import os
from pathlib import Path

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("scrapy")

from scrapy import signals  # noqa: E402
from scrapy.exceptions import NotConfigured  # noqa: E402
from scrapy.http import HtmlResponse, Request  # noqa: E402
from scrapy.spiders import Spider  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from mend.scrapy import MendExtension, records  # noqa: E402

WRAPPER = """\
name: shelf
patterns:
  - name: title
    xpath: //h1
    extract: normalized
    constraints: {min: 1, max: 1}
  - name: price
    xpath: //p[@class='price']
    type: number
    constraints: {max: 1}
"""


def response(url, html, encoding="utf-8"):
    return HtmlResponse(url=url, body=html.encode(encoding), encoding=encoding,
                        request=Request(url))


@pytest.fixture
def extension(tmp_path):
    (tmp_path / "shelf.yaml").write_text(WRAPPER)
    crawler = get_crawler(Spider, {
        "MEND_WRAPPER": str(tmp_path / "shelf.yaml"),
        "MEND_HEAL": "off",
        "MEND_STORE": str(tmp_path / "store.db"),
    })
    crawler.stats.open_spider(None)
    ext = MendExtension.from_crawler(crawler)
    spider = Spider(name="shelf")
    crawler.signals.send_catch_log(signals.spider_opened, spider=spider)
    yield ext, crawler, spider
    if ext.summary is None:
        crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")


def test_records_come_through_the_job_and_the_stats_count_them(extension):
    ext, crawler, spider = extension
    pages = [
        response("https://shop.example/1", "<h1>One</h1><p class=price>3.50</p>"),
        response("https://shop.example/2", "<h1>Two</h1>"),
        response("https://shop.example/3", "<h1>Trois caf\u00e9s \u2013 \u20ac</h1><p class=price>7</p>", "cp1252"),
        # A charset Python names in a way the WHATWG does not.
        response("https://shop.example/4", "<h1>Quatre \u00e9t\u00e9s</h1><p class=price>8</p>", "latin-1"),
    ]
    got = []
    for page in pages:
        crawler.signals.send_catch_log(signals.response_received, response=page,
                                       request=page.request, spider=spider)
        got.extend(records(page))
    assert got == [
        {"title": "One", "price": 3.5},
        {"title": "Two", "price": None},
        {"title": "Trois caf\u00e9s \u2013 \u20ac", "price": 7.0},
        {"title": "Quatre \u00e9t\u00e9s", "price": 8.0},
    ]
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    stats = crawler.stats.get_stats()
    assert stats["mend/pages"] == 4
    assert stats["mend/records"] == 4
    assert stats["mend/violations"] == 0
    assert stats["mend/heals/proposed"] == 0 and stats["mend/heals/applied"] == 0
    assert stats["mend/field_coverage/title"] == 1.0
    assert stats["mend/field_coverage/price"] == pytest.approx(3 / 4)
    assert ext.summary is not None and ext.summary.pages == 4


def test_a_response_the_extension_never_received_goes_to_the_one_running_crawl(extension):
    ext, crawler, spider = extension
    page = response("https://shop.example/9", "<h1>Nine</h1>")
    assert list(records(page)) == [{"title": "Nine", "price": None}]
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    with pytest.raises(RuntimeError):
        list(records(response("https://shop.example/10", "<h1>Ten</h1>")))


def test_without_a_wrapper_the_extension_is_not_enabled():
    with pytest.raises(NotConfigured):
        MendExtension.from_crawler(get_crawler(Spider, {}))
