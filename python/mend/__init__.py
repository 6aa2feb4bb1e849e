"""mend from Python: self-healing web wrappers.

A wrapper is a YAML file of patterns (XPath or CSS), constraints and healing
settings; ``Wrapper(path).extract(html, url)`` gives the page's records, typed
as the wrapper says, with the constraints that failed. The extraction is
mend's Rust library, run with the GIL released.

    >>> import mend
    >>> wrapper = mend.Wrapper("wrappers/bookshop.yaml")
    >>> page = wrapper.extract(open("examples/pages/bookshop.html", "rb").read())
    >>> page.records[0]["book"][0]["title"]
    'The Tide Between Us'

A ``Job`` runs a wrapper over many pages as ``mend run`` does, healing what
breaks and deciding each heal once, at ``finish()``; ``mend.scrapy`` brings
it into a Scrapy crawl.
"""

from mend._mend import Job, JobError, JobSummary, Page, Wrapper, WrapperError, __version__

__all__ = ["Job", "JobError", "JobSummary", "Page", "Wrapper", "WrapperError", "__version__"]
