"""Settings of the example: mend's extension reads the blog's posts with
``examples/site/blog.yaml`` unless ``-s MEND_WRAPPER=...`` names another."""

from pathlib import Path

BOT_NAME = "blog"
SPIDER_MODULES = ["blog.spiders"]
NEWSPIDER_MODULE = "blog.spiders"

# mend: the wrapper, how broken pages heal, and where heals are stored.
EXTENSIONS = {"mend.scrapy.MendExtension": 500}
MEND_WRAPPER = str(Path(__file__).resolve().parents[2] / "site" / "blog.yaml")
MEND_HEAL = "propose"
MEND_STORE = None

# A polite crawl of a site on this machine.
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 8
DOWNLOAD_DELAY = 0
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
