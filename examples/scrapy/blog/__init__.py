"""The fixture blog, crawled by Scrapy, its posts read by a mend wrapper."""
