"""mend in a Scrapy crawl: records from a wrapper, healed once per crawl.

Enable the extension and name the wrapper in the project's settings::

    EXTENSIONS = {"mend.scrapy.MendExtension": 500}
    MEND_WRAPPER = "wrappers/blog.yaml"   # required
    MEND_HEAL = "propose"                 # "off", "propose" or "auto"; the wrapper's adapt.mode if unset
    MEND_STORE = None                     # the store's path; $MEND_STORE or the wrapper's default if unset

and take the records of a response in a callback::

    from mend.scrapy import records

    def parse_post(self, response):
        yield from records(response)

Every response given to ``records`` is a page of one ``mend.Job`` for the
whole crawl. A page that a redesign broke is healed at once and its records
are the healed ones; each heal is decided once, when the spider closes: a
proposal in the store for ``mend log`` / ``show`` / ``approve`` / ``review``
(``propose``), or the wrapper file rewritten (``auto``).

The crawl's stats collector gets ``mend/pages``, ``mend/records``,
``mend/violations``, and at the end ``mend/heals/proposed``,
``mend/heals/applied``, ``mend/heals/abstained`` and
``mend/field_coverage/<pattern>`` (the share of items with a value, as
Spidermon's field coverage). A field health drop against the store's
baselines is logged as a warning.

What it refuses: without ``MEND_WRAPPER`` the extension is not enabled
(``NotConfigured``); ``records`` of a response that no running extension
received raises ``RuntimeError``.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any, Iterator, Optional

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import Response, TextResponse

import mend

__all__ = ["MendExtension", "records"]

logger = logging.getLogger(__name__)

# The extension that received each response, so that ``records(response)``
# needs no other argument; weak, so that a response is never kept alive.
_receivers: "weakref.WeakKeyDictionary[Response, MendExtension]" = weakref.WeakKeyDictionary()
# The extensions of crawls still running, for a response that came another
# way (one built in a test, or replaced by a middleware).
_running: list["MendExtension"] = []


class MendExtension:
    """A ``mend.Job`` for the crawl: one page per response given to
    ``records``, the job's heals decided when the spider closes."""

    def __init__(self, crawler: Any, wrapper: str, heal: Optional[str], store: Optional[str]):
        self.crawler = crawler
        self.stats = crawler.stats
        self.wrapper = mend.Wrapper(wrapper)
        self.job = mend.Job(self.wrapper, heal=heal, store=store)
        self.summary: Optional[mend.JobSummary] = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> "MendExtension":
        settings = crawler.settings
        wrapper = settings.get("MEND_WRAPPER")
        if not wrapper:
            raise NotConfigured("MEND_WRAPPER names no wrapper file")
        extension = cls(crawler, str(wrapper), settings.get("MEND_HEAL"), settings.get("MEND_STORE"))
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.response_received, signal=signals.response_received)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Any) -> None:
        _running.append(self)

    def response_received(self, response: Response, request: Any, spider: Any) -> None:
        _receivers[response] = self

    def records(self, response: Response) -> list[dict[str, Any]]:
        """The records of ``response``, a page of the crawl's job."""
        page = self._page(response)
        self.stats.inc_value("mend/pages")
        self.stats.inc_value("mend/records", len(page.records))
        self.stats.inc_value("mend/violations", len(page.violations))
        return page.records

    def _page(self, response: Response) -> "mend.Page":
        if not isinstance(response, TextResponse):
            return self.job.page(response.body, url=response.url)
        # The body goes as bytes, decoded by mend in the charset Scrapy
        # found for it (headers, BOM, <meta>), the one the spider's own
        # selectors see: no text is decoded and encoded again in Python.
        # Scrapy names charsets as Python's codecs do; one that is not also
        # a WHATWG label (``latin-1``, ``euc_jp``) goes as Scrapy's text.
        try:
            return self.job.page(response.body, url=response.url, encoding=response.encoding)
        except ValueError:
            return self.job.page(response.text, url=response.url)

    def spider_closed(self, spider: Any, reason: str) -> None:
        if self in _running:
            _running.remove(self)
        summary = self.job.finish()
        self.summary = summary
        self.stats.set_value("mend/heals/proposed", summary.proposed)
        self.stats.set_value("mend/heals/applied", summary.applied)
        self.stats.set_value("mend/heals/abstained", summary.abstained)
        for pattern, share in summary.field_coverage.items():
            self.stats.set_value(f"mend/field_coverage/{pattern}", share)
        for drop in summary.health_drops:
            logger.warning("mend: health: %s", drop)
        if summary.failure:
            logger.error("mend: %s", summary.failure)
        if summary.notice_failure:
            logger.error("mend: the wrapper's notice was not delivered: %s", summary.notice_failure)
        if summary.proposed:
            logger.info(
                "mend: %d heal(s) proposed in %s; review them with `mend log --pending`",
                summary.proposed,
                summary.store,
            )


def records(response: Response) -> Iterator[dict[str, Any]]:
    """Yields the records of ``response`` through the crawl's job."""
    extension = _receivers.get(response)
    if extension is None:
        if len(_running) != 1:
            raise RuntimeError(
                "no running mend.scrapy.MendExtension received this response: "
                "add it to EXTENSIONS and set MEND_WRAPPER"
            )
        extension = _running[0]
    yield from extension.records(response)
