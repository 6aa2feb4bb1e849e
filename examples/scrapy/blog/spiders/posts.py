"""The blog's posts: listings, tags and pagers are followed, and each post
page gives its record through mend (or, with ``-a using=parsel``, the same
fields by parsel's selectors, to compare a crawl's time with and without
mend)."""

import re
from urllib.parse import urlparse

import scrapy

from mend.scrapy import records

# A post's path, as the blog's feed lists them: /2024/01/a-slug-7/.
POST = re.compile(r"^/\d{4}/\d{1,2}/[^/]+-\d+/$")
# Trap links the blog keeps for crawlers: a redirect loop and a 404.
DENY = ("/loop/", "/missing/")


class PostsSpider(scrapy.Spider):
    name = "posts"

    def __init__(self, start="http://127.0.0.1:8787/", using="mend", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]
        self.host = urlparse(start).netloc
        self.using = using

    def parse(self, response):
        for href in response.xpath("//a/@href").getall():
            url = urlparse(response.urljoin(href))
            if url.netloc != self.host or url.path.startswith(DENY):
                continue
            if POST.match(url.path):
                yield response.follow(url.geturl(), callback=self.parse_post)
            else:
                yield response.follow(url.geturl(), callback=self.parse)

    def parse_post(self, response):
        if self.using == "parsel":
            yield from parsel_record(response)
        else:
            yield from records(response)


def parsel_record(response):
    """The wrapper's fields, by parsel."""
    post = response.xpath("//article[@class='post']")
    yield {
        "title": " ".join(post.xpath("./h1[@class='title']//text()").get("").split()),
        "date": post.xpath("./p[@class='meta']/time/@datetime").get(),
        "author": " ".join(post.xpath("./p[@class='meta']/span[@class='author']//text()").get("").split()),
        "body": [" ".join(p.split()) for p in post.xpath("./div[@class='body']/p").xpath("string()").getall()],
        "images": [response.urljoin(s) for s in post.xpath("./ul[@class='images']/li/img/@src").getall()],
        "comments": [
            {
                "who": " ".join(c.xpath("./span[@class='who']").xpath("string()").get("").split()),
                "text": " ".join(c.xpath("./p").xpath("string()").get("").split()),
            }
            for c in response.xpath("//ul[@class='comments']/li[@class='comment']")
        ],
    }
