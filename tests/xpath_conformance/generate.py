#!/usr/bin/env python3
"""Deterministic XPath expression generator for the mend conformance test.

For each page of a fixed list, the generator reads the page through the
oracle (so it sees the same tree the oracle evaluates on), collects what the
page actually contains (tag names, attribute names and values, class tokens,
ids, words of text, element paths) and fills a fixed list of expression
templates with those values.  Every template names the part of XPath 1.0 it
exercises; together they cover all thirteen axes, all node tests, every core
function, every operator, unions and filter expressions.

Each candidate is evaluated by the oracle before it is accepted.  A candidate
is thrown away when the oracle cannot render its result faithfully (see
README.md, "What is not compared"), when its result would be very large, or
when a template asked for a non-empty result and did not get one; the
template is then retried with other values from the page, a bounded number
of times.  All random choices come from a random.Random seeded with the seed
and the page's relative path, so the same seed always yields the same cases.

Usage:
    generate.py [--data DIR] [--out DIR] [--limit-pages N] [--seed N]

writes, for every page, PAGE_ID.exprs (one expression per line, as mend's
batch mode reads it) and PAGE_ID.cases.json (the same expressions with the
oracle's form where it differs, and the template that made each one), and
prints how many cases each page got.
"""

import argparse
import json
import os
import random
import re
import sys
from collections import Counter, OrderedDict

# The scripts import each other from this folder; no bytecode cache is
# written so that running the test leaves the work tree clean.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import oracle  # noqa: E402

DEFAULT_SEED = 1009

# The pages the test runs on, relative to the data directory.  They were
# chosen to cover several sources and the awkward corners of real HTML:
# gzipped Zyte news pages with inline SVG, namespace declarations, comments
# lxml has to alter and names that are not XML names; SWDE book pages from
# 2009; the three Google home page versions; and the four mutated SFTM pages
# (two of which use <template>).  The HTML5 trees of all of them were checked
# to be identical under html5lib and html5ever (see README.md).
PAGES = [
    "zyte_article_extraction_benchmark/html/076f4f33bf75059db581bedf36e76fb65e89a8f7752db3339aa3ea11c5122f32.html.gz",
    "zyte_article_extraction_benchmark/html/0dd1357045727799a447563fd8851f4ebe79f042073ea16991a9b67aa595f81a.html.gz",
    "zyte_article_extraction_benchmark/html/287e4d9f4af31733aad6534aefb2bd00fb344ec8d6ebf1ac99dbc4d762da0ca4.html.gz",
    "zyte_article_extraction_benchmark/html/3cb5e2f46626d5bb0345759453036f7eabc0b0c7796b796513606bf693060ced.html.gz",
    "zyte_article_extraction_benchmark/html/3d8f3404cf975af824d7866b7679bc45189c3eea6adb32f0a125a0904b1abbb2.html.gz",
    "zyte_article_extraction_benchmark/html/c4a3637c6696f238cf9fe1c7fbb17bbb6731a71d4f5fe399b9b4fc3294a96a6b.html.gz",
    "swde_subset/pages/book/book-booksamillion-2000/0000.htm",
    "swde_subset/pages/book/book-christianbook-2000/0000.htm",
    "similocator_google_ebay/google/2018-01-01/index.html",
    "similocator_google_ebay/google/2021-01-01/index.html",
    "similocator_google_ebay/google/2023-01-01/index.html",
    "sftm_mutants/baidu_mutant.html",
    "sftm_mutants/linkedin_mutant.html",
    "sftm_mutants/simple_mutant.html",
    "sftm_mutants/youtube_mutant.html",
]

# Names the generator may put into an expression: NCNames without a colon,
# which lxml stores unchanged and which mean the same to lxml and to mend.
_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_WORD = re.compile(r"\w{4,24}")
_SAFE_TEXT = re.compile(r"^[^\x00-\x1f\x7f]*$")


def quote(value):
    """An XPath 1.0 string literal for `value`, or None if it cannot be written.

    XPath 1.0 has no escapes, so a value holding both kinds of quote has no
    literal; values with control characters or line breaks are refused too,
    because the batch file holds one expression per line.
    """
    if value is None or not _SAFE_TEXT.match(value):
        return None
    if "'" not in value:
        return "'%s'" % value
    if '"' not in value:
        return '"%s"' % value
    return None


def class_test(token):
    return "contains(concat(' ', normalize-space(@class), ' '), ' %s ')" % token


class Skip(Exception):
    """A template cannot be filled from this page (or from this draw)."""


def need(value):
    if value is None or value == [] or value == "":
        raise Skip()
    return value


class PageFacts:
    """What the generator knows about one page, gathered from the oracle's model."""

    def __init__(self, page):
        self.page = page
        # HTML elements (not in SVG or MathML, with plain names) that sit in
        # plain HTML all the way up; only these are used as anchors, so that
        # paths, names and the namespace axis mean the same on both sides.
        self.elements = []
        self.info = {}
        excluded = set()
        for element, node in page.iter_elements():
            parent = element.getparent()
            if element.tag.startswith("{") or (parent is not None and parent in excluded):
                excluded.add(element)
                continue
            if not all(_SAFE_NAME.match(step.split("[")[0]) and not oracle._CODED_NAME.search(step)
                       for step in node.path.strip("/").split("/")):
                excluded.add(element)
                continue
            self.elements.append(element)
            self.info[element] = node
        # Local names that also occur on SVG or MathML elements: a name test
        # or name() comparison with one of them would depend on how the two
        # sides name foreign elements, so templates that compare names avoid them.
        self.foreign_local_names = {e.tag.split("}", 1)[1] for e in excluded if e.tag.startswith("{")}
        self.tags = Counter(e.tag for e in self.elements)
        self.by_tag = {}
        for element in self.elements:
            self.by_tag.setdefault(element.tag, []).append(element)
        # Attribute facts: (element, name, value) triples with safe names.
        self.attributes = []
        for element in self.elements:
            for name, value in element.attrib.items():
                # A name lxml had to escape (html5lib writes `xmlns:fb` as
                # `xmlnsU0003Afb`) is not the DOM's name, and a name with a
                # colon cannot be a name test without a prefix binding.
                if _SAFE_NAME.match(name) and name != "xmlns" and not oracle._CODED_NAME.search(name):
                    self.attributes.append((element, name, value))
        self.attr_names = Counter(name for _, name, _ in self.attributes)
        self.class_tokens = Counter()
        for element in self.elements:
            for token in (element.get("class") or "").split():
                if quote(token) and "'" not in token:
                    self.class_tokens[token] += 1
        self.ids = [e.get("id") for e in self.elements if e.get("id") and quote(e.get("id"))]
        self.body = [e for e in self.elements if self.path(e).startswith("/html/body/")]

    def path(self, element):
        return self.info[element].path

    def value(self, element):
        return self.page.node_value(self.info[element])


class Generator:
    """Fills the template list for one page."""

    def __init__(self, page, relpath, page_index, seed=DEFAULT_SEED):
        self.page = page
        self.facts = PageFacts(page)
        self.rng = random.Random("%s:%s" % (seed, relpath))
        self.page_index = page_index

    # -- drawing values from the page ---------------------------------------

    def pick(self, seq):
        seq = list(seq)
        need(seq)
        return self.rng.choice(seq)

    def tag(self, min_count=1, max_count=10**9, exclude=()):
        tags = sorted(t for t, n in self.facts.tags.items() if min_count <= n <= max_count and t not in exclude)
        return self.pick(tags)

    def element(self, predicate=None, pool=None):
        pool = self.facts.body if pool is None else pool
        if predicate is not None:
            pool = [e for e in pool if predicate(e)]
        return self.pick(pool)

    def small(self, element, limit=400):
        """True when an element's string-value is short enough to show in a result."""
        return len(self.facts.value(element)) <= limit

    def attribute(self, predicate=None):
        pool = self.facts.attributes
        if predicate is not None:
            pool = [a for a in pool if predicate(a)]
        return self.pick(pool)

    def word(self, element):
        words = sorted(set(_WORD.findall(self.facts.value(element))))
        return self.pick([w for w in words if quote(w)])

    def rotate(self, variants, k=1):
        """Variant number (page_index * k + i) of a fixed list, so that all
        pages together use every variant even though each page uses few."""
        start = self.page_index * k
        return [variants[(start + i) % len(variants)] for i in range(k)]

    # -- the templates ------------------------------------------------------
    #
    # Each template returns (expr, oracle_expr) or a bare expr, or raises
    # Skip.  Its entry in TEMPLATES says whether it must produce a non-empty
    # node-set or string to be accepted.

    def t_absolute_path(self):
        element = self.element(lambda e: self.facts.path(e).count("/") >= 4 and self.small(e))
        return self.facts.path(element)

    def t_absolute_path_text(self):
        element = self.element(lambda e: e.text and e.text.strip() and self.small(e))
        return self.facts.path(element) + "/text()"

    def t_relative_from_root(self):
        # A relative path at the top level starts at the root node (see
        # README.md); lxml starts at the root element, so the oracle gets the
        # equivalent absolute path.
        body = self.page.tree.getroot().find("body")
        k = self.rng.randint(1, max(1, min(len(body) if body is not None else 0, 4)))
        return "html/body/*[%d]/@*" % k, "/html/body/*[%d]/@*" % k

    def t_relative_dot(self):
        return "./html/head/*[1]", "/./html/head/*[1]"

    def t_relative_self(self):
        return "concat(count(self::node()), count(html), count(..))", "concat(count(/self::node()), count(/html), count(/..))"

    def t_descendant(self):
        tag = self.tag(1, 25, exclude=("html", "head", "body", "script", "style"))
        return "//%s" % tag

    def t_descendant_twice(self):
        element = self.element(lambda e: len(self.facts.path(e).split("/")) > 4)
        ancestors = [a.tag for a in element.iterancestors() if a.tag not in ("html", "body")]
        return "//%s//%s" % (self.pick(ancestors), element.tag)

    def t_child_step(self):
        element = self.element(lambda e: e.getparent().tag not in ("html", "body") and self.small(e.getparent(), 2000))
        return "//%s/%s" % (element.getparent().tag, element.tag)

    def t_count_descendant(self):
        return "count(//%s)" % self.tag()

    def t_head_children(self):
        return "/html/head/*[not(self::script) and not(self::style)]"

    def t_attribute_present(self):
        _, name, _ = self.attribute()
        tags = sorted({e.tag for e, n, _ in self.facts.attributes if n == name})
        return "//%s[@%s]" % (self.pick(tags), name)

    def t_attribute_equals(self):
        element, name, value = self.attribute(lambda a: quote(a[2]) and len(a[2]) <= 80)
        return "//*[@%s=%s]" % (name, quote(value))

    def t_attribute_of_match(self):
        element, name, value = self.attribute(lambda a: quote(a[2]) and len(a[2]) <= 80 and len(a[0].attrib) >= 2)
        other = self.pick(n for n in element.attrib.keys() if n != name and _SAFE_NAME.match(n) and n != "xmlns" and not oracle._CODED_NAME.search(n))
        return "//%s[@%s=%s]/@%s" % (element.tag, name, quote(value), other)

    def t_attribute_not_equals(self):
        element, name, value = self.attribute(lambda a: quote(a[2]) and self.facts.attr_names[a[1]] >= 2)
        return "count(//%s[@%s!=%s])" % (element.tag, name, quote(value))

    def t_attribute_nodes(self):
        element, name, _ = self.attribute()
        return "//%s/@%s" % (element.tag, name)

    def t_attribute_count(self):
        return "count(//@%s)" % self.pick(sorted(self.facts.attr_names))

    def t_attribute_and_not(self):
        element, name, _ = self.attribute()
        others = sorted(n for n in self.facts.attr_names if n != name)
        return "//%s[@%s and not(@%s)]" % (element.tag, name, self.pick(others))

    def t_attribute_wildcard(self):
        element = self.element(lambda e: len(e.attrib) >= 2)
        return self.facts.path(element) + "/@*"

    def t_attribute_starts_with(self):
        element, name, value = self.attribute(lambda a: len(a[2]) >= 3 and quote(a[2][:3]))
        prefix = value[: self.rng.randint(1, min(6, len(value)))]
        return "//%s[starts-with(@%s, %s)]/@%s" % (element.tag, name, need(quote(prefix)), name)

    def t_attribute_contains(self):
        element, name, value = self.attribute(lambda a: len(a[2]) >= 6)
        start = self.rng.randint(0, len(value) - 3)
        part = value[start : start + 3]
        return "count(//*[contains(@%s, %s)])" % (name, need(quote(part)))

    def t_class_token(self):
        token = self.pick(sorted(self.facts.class_tokens))
        return "//*[%s]/@class" % class_test(token)

    def t_class_token_count(self):
        token = self.pick(sorted(self.facts.class_tokens))
        tags = sorted({e.tag for e in self.facts.elements if token in (e.get("class") or "").split()})
        return "count(//%s[%s])" % (self.pick(tags), class_test(token))

    def t_class_substring_not_token(self):
        token = self.pick(sorted(t for t in self.facts.class_tokens if len(t) >= 4))
        part = token[: len(token) - 1]
        return "count(//*[contains(@class, '%s')][not(%s)])" % (part, class_test(part))

    def t_position_first(self):
        tag = self.tag(2, exclude=("html", "head", "body"))
        return "//%s[1]/@*[1]" % tag if self.rng.random() < 0.5 else "count(//%s[1])" % tag

    def t_position_last(self):
        element = self.element(lambda e: self.small(e) and len(self.facts.by_tag[e.tag]) >= 2)
        return "//%s[last()]" % element.tag

    def t_position_less(self):
        element = self.element(lambda e: self.small(e, 200) and len(self.facts.by_tag[e.tag]) >= 3)
        return "//%s[position() < 3]" % element.tag

    def t_position_last_minus(self):
        element = self.element(lambda e: self.small(e) and len(self.facts.by_tag[e.tag]) >= 3)
        return "//%s[last()-1]" % element.tag

    def t_filter_index(self):
        tag = self.tag(3, exclude=("html", "head", "body"))
        k = self.rng.randint(1, self.facts.tags[tag])
        return "(//%s)[%d]" % (tag, k)

    def t_filter_last_child(self):
        tag = self.tag(2, exclude=("html", "head", "body"))
        last = self.facts.by_tag[tag][-1]
        children = sorted({c.tag for c in last if isinstance(c.tag, str) and c in self.facts.info})
        return "(//%s)[last()]/%s" % (tag, self.pick(children))

    def t_filter_range(self):
        tag = self.tag(4, exclude=("html", "head", "body"))
        return "(//%s)[position() > 1 and position() <= 3]/@*" % tag

    def t_predicate_order(self):
        element, name, _ = self.attribute(lambda a: len(self.facts.by_tag[a[0].tag]) >= 3)
        return "count(//%s[@%s][2]) + 10 * count(//%s[2][@%s])" % (element.tag, name, element.tag, name)

    def t_predicate_child_last(self):
        element = self.element(lambda e: len(e) > 0 and e.getparent().tag not in ("html",))
        child = self.pick(sorted({c.tag for c in element if c in self.facts.info}))
        return "count(//%s[%s][last()]/preceding::*)" % (element.tag, child)

    def t_filter_text(self):
        tag = self.tag(2, exclude=("html", "head", "script", "style"))
        return "(//%s/text())[2]" % tag

    def t_filter_then_attributes(self):
        element = self.element(lambda e: len(e.attrib) >= 1)
        return "(//%s)[1]/@*" % element.tag

    def t_filter_union_last(self):
        a = self.tag(1, 40, exclude=("html", "head", "body"))
        b = self.tag(1, 40, exclude=("html", "head", "body", a))
        return "name((//%s | //%s)[last()])" % (a, b)

    # Axes, each anchored on one element of the page given by its path.

    def anchor(self, predicate=None, small=400):
        return self.element(lambda e: self.small(e, small) and (predicate is None or predicate(e)))

    def t_axis_ancestor(self):
        element = self.anchor(lambda e: len(self.facts.path(e).split("/")) > 4)
        parent = element.getparent()
        return "%s/ancestor::%s[1]/@*" % (self.facts.path(element), parent.tag)

    def t_axis_ancestor_count(self):
        return "count(%s/ancestor::*)" % self.facts.path(self.anchor())

    def t_axis_ancestor_or_self(self):
        element = self.anchor(lambda e: self.small(e.getparent(), 2000))
        return "%s/ancestor-or-self::*[2]" % self.facts.path(element)

    def t_axis_ancestor_or_self_nodes(self):
        return "count(%s/ancestor-or-self::node())" % self.facts.path(self.anchor())

    def t_axis_attribute(self):
        element, name, _ = self.attribute(lambda a: self.small(a[0]))
        return "%s/attribute::%s" % (self.facts.path(element), name)

    def t_axis_child(self):
        element = self.anchor(lambda e: len(e) > 0, small=2000)
        return "%s/child::node()" % self.facts.path(element)

    def t_axis_descendant(self):
        element = self.anchor(lambda e: len(e) > 0, small=300)
        return "%s/descendant::*" % self.facts.path(element)

    def t_axis_descendant_count(self):
        element = self.anchor(lambda e: len(e) > 0, small=10**9)
        return "count(%s/descendant::node())" % self.facts.path(element)

    def t_axis_descendant_or_self(self):
        element = self.anchor(lambda e: len(e) > 0, small=1000)
        tags = sorted({d.tag for d in element.iter() if d in self.facts.info})
        return "%s/descendant-or-self::%s" % (self.facts.path(element), self.pick(tags))

    def t_axis_following(self):
        element = self.anchor()
        return "%s/following::*[1]" % self.facts.path(element)

    def t_axis_following_text(self):
        element = self.anchor(small=10**9)
        return "count(%s/following::text())" % self.facts.path(element)

    def t_axis_following_sibling(self):
        element = self.anchor(lambda e: e.getnext() is not None)
        return "%s/following-sibling::*[1]" % self.facts.path(element)

    def t_axis_following_sibling_nodes(self):
        element = self.anchor(lambda e: e.getnext() is not None and self.small(e.getparent(), 1500))
        return "%s/following-sibling::node()" % self.facts.path(element)

    def t_axis_namespace(self):
        element = self.anchor(small=10**9)
        path = self.facts.path(element)
        return "concat(count(%s/namespace::*), ' ', name(%s/namespace::*[1]), ' ', string(%s/namespace::xml))" % (path, path, path)

    def t_axis_parent(self):
        element = self.anchor(lambda e: self.small(e.getparent(), 1500))
        return "%s/parent::%s" % (self.facts.path(element), element.getparent().tag)

    def t_axis_parent_abbreviated(self):
        element = self.anchor(lambda e: self.small(e.getparent(), 1500))
        return "%s/../@*" % self.facts.path(element)

    def t_axis_preceding(self):
        element = self.anchor(lambda e: len(self.facts.path(e).split("/")) > 4)
        return "%s/preceding::*[1]" % self.facts.path(element)

    def t_axis_preceding_count(self):
        return "count(%s/preceding::node())" % self.facts.path(self.anchor(small=10**9))

    def t_axis_preceding_text(self):
        return "%s/preceding::text()[1]" % self.facts.path(self.anchor(small=10**9))

    def t_axis_preceding_sibling(self):
        element = self.anchor(lambda e: e.getprevious() is not None)
        return "%s/preceding-sibling::*[last()]" % self.facts.path(element)

    def t_axis_self(self):
        element = self.anchor()
        return "%s/self::%s" % (self.facts.path(element), element.tag)

    def t_axis_self_other(self):
        element = self.anchor(small=10**9)
        other = "span" if element.tag != "span" else "div"
        return "count(%s/self::node()) + count(%s/self::%s)" % (self.facts.path(element), self.facts.path(element), other)

    def t_axis_from_text(self):
        tag = self.tag(2, exclude=("html", "head", "script", "style"))
        return "(//%s/text())[1]/following-sibling::node()[1]" % tag

    def t_axis_from_attribute(self):
        element, name, _ = self.attribute()
        return "count((//%s/@%s)[1]/ancestor::*) + count((//%s/@%s)[1]/preceding::*)" % (element.tag, name, element.tag, name)

    def t_axis_attribute_parent(self):
        element, name, _ = self.attribute(lambda a: self.small(a[0]))
        return "(//%s/@%s)[last()]/parent::*" % (element.tag, name)

    def t_axis_comment_sibling(self):
        return "name((//comment())[1]/preceding-sibling::*[1])"

    def t_reverse_axis_position(self):
        element = self.anchor(lambda e: len(self.facts.path(e).split("/")) > 4, small=10**9)
        return "name(%s/ancestor::*[last()]) = 'html' and name(%s/ancestor::*[1]) = '%s'" % (
            self.facts.path(element),
            self.facts.path(element),
            element.getparent().tag,
        )

    # Node tests.

    def t_node_test_node(self):
        element = self.anchor(lambda e: len(e) > 0 or e.text, small=1500)
        return "%s/node()" % self.facts.path(element)

    def t_node_test_text(self):
        tag = self.tag(1, 30, exclude=("script", "style"))
        return "//%s/text()" % tag

    def t_node_test_comment(self):
        return "(//comment())[%d]" % self.rng.randint(1, 3)

    def t_node_test_comment_count(self):
        return "count(//comment()) + count(/comment())"

    def t_node_test_pi(self):
        return "count(//processing-instruction()) + count(//processing-instruction('xml-stylesheet')) + count(/processing-instruction())"

    def t_node_test_star(self):
        element = self.anchor(lambda e: len(e) > 0, small=1000)
        return "%s/*" % self.facts.path(element)

    def t_node_counts(self):
        counts = "count(//node()), ' ', count(//text()), ' ', count(//*)"
        flags = self.page.flags
        # Counting every attribute is only safe where lxml holds exactly the
        # attributes the DOM has: namespace declarations that html5lib stored
        # as attributes would be counted by lxml alone.
        if not flags["xmlns_namespace_attributes"]:
            counts += ", ' ', count(//@*)"
        return "concat(%s)" % counts

    def t_top_level_nodes(self):
        return "count(/node()) - count(/*)"

    # String functions.

    def t_string(self):
        element = self.anchor(lambda e: self.facts.value(e).strip())
        return "string(%s)" % self.facts.path(element)

    def t_string_attribute(self):
        element, name, _ = self.attribute()
        return "string(//%s/@%s)" % (element.tag, name)

    def t_concat(self):
        element, name, _ = self.attribute(lambda a: len(a[2]) < 100)
        path = self.facts.path(element)
        return "concat(%s/@%s, '|', name(%s), '|', count(%s/*), '|', %s/@%s)" % (path, name, path, path, path, name)

    def t_starts_with(self):
        element = self.anchor(lambda e: _WORD.search(self.facts.value(e)))
        text = " ".join(self.facts.value(element).split())
        prefix = text[: self.rng.randint(1, min(len(text), 12))]
        return "starts-with(normalize-space(%s), %s)" % (self.facts.path(element), need(quote(prefix)))

    def t_contains(self):
        element = self.anchor(lambda e: _WORD.search(self.facts.value(e)), small=10**9)
        word = self.word(element)
        return "count(//%s[contains(., %s)])" % (element.tag, quote(word))

    def t_substring_before_after(self):
        element, name, value = self.attribute(lambda a: re.search(r"[/=\-_ .:]", a[2]) and len(a[2]) < 200)
        separator = self.pick(sorted(set(re.findall(r"[/=\-_ .:]", value))))
        s = "//%s[@%s=%s]/@%s" % (element.tag, name, need(quote(value)), name)
        return "concat(substring-before(%s, '%s'), '#', substring-after(%s, '%s'))" % (s, separator, s, separator)

    SUBSTRING_ARGS = [
        "1.5, 2.6",
        "0, 3",
        "0 div 0, 3",
        "1, 0 div 0",
        "-42, 1 div 0",
        "-1 div 0, 1 div 0",
        "2",
        "-0.5",
        "0.5, 1.4",
        "3, -1",
        "1 div 0",
        "-1, 3",
    ]

    def t_substring(self):
        element = self.anchor(lambda e: len(self.facts.value(e).strip()) >= 4)
        path = self.facts.path(element)
        parts = ["substring(normalize-space(%s), %s)" % (path, args) for args in self.rotate(self.SUBSTRING_ARGS, 3)]
        return "concat(%s)" % ", '|', ".join(parts)

    def t_string_length(self):
        element = self.anchor(small=10**9)
        path = self.facts.path(element)
        return "string-length(%s) - string-length(normalize-space(%s))" % (path, path)

    def t_string_length_plain(self):
        element, name, _ = self.attribute()
        return "string-length(string((//%s/@%s)[1]))" % (element.tag, name)

    def t_normalize_space(self):
        element = self.anchor(lambda e: self.facts.value(e).strip())
        return "normalize-space(%s)" % self.facts.path(element)

    def t_normalize_space_literal(self):
        return "normalize-space(concat('  a  ', ' b', '   c '))"

    def t_translate(self):
        element, name, value = self.attribute(lambda a: re.search("[a-z]", a[2]) and len(a[2]) < 200)
        return "translate((//%s/@%s)[1], 'abcdefghijklmnopqrstuvwxyz-', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')" % (element.tag, name)

    def t_translate_short(self):
        element = self.anchor(lambda e: _WORD.search(self.facts.value(e)))
        word = self.word(element)
        return "translate(%s, %s, %s)" % (quote(word), quote(word[:3]), quote(word[1:2]))

    # Boolean functions.

    def t_boolean(self):
        tag = self.tag()
        return "boolean(//%s) and not(//nosuchtag) and true() and not(false()) and boolean('x') and not(boolean(''))" % tag

    def t_boolean_numbers(self):
        return "concat(boolean(0), boolean(-0), boolean(0 div 0), boolean(1 div 0), boolean(0.5), boolean('0'), boolean(/..))"

    def t_lang(self):
        tag = self.tag(1, exclude=("html",))
        return "count(//%s[lang('en')]) + count(/html[lang('en')]) + count(//*[lang('')])" % tag

    # Number functions.

    def t_number_attribute(self):
        element, name, value = self.attribute(lambda a: re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", a[2]) is not None)
        return "number((//%s/@%s)[1]) + 1" % (element.tag, name)

    NUMBER_STRINGS = ["'  12 '", "'-.5'", "'5.'", "'+5'", "''", "'.'", "'1 1'", "'0x10'", "'Infinity'", "'-0'", "'12abc'", "'   '"]

    def t_number_strings(self):
        return "concat(%s)" % ", ' ', ".join("number(%s)" % s for s in self.rotate(self.NUMBER_STRINGS, 3))

    def t_number_of_nodes(self):
        tag = self.tag(1, 50, exclude=("html", "head", "body"))
        return "number(//%s)" % tag

    def t_sum(self):
        element, name, _ = self.attribute(lambda a: re.fullmatch(r"\d+", a[2]) is not None)
        return "sum(//%s/@%s)" % (element.tag, name)

    def t_sum_text(self):
        tag = self.tag(1, 20, exclude=("html", "head", "body"))
        return "sum(//%s)" % tag

    ROUNDING = [
        "round(-0.5)",
        "1 div round(-0.5)",
        "round(0.5)",
        "round(2.5)",
        "round(-2.5)",
        "round(-1.5)",
        "1 div ceiling(-0.5)",
        "floor(-0.5)",
        "round(0 div 0)",
        "ceiling(1 div 0)",
        "floor(-1 div 0)",
        "1 div round(-0.4)",
        "round(1.4999)",
        "ceiling(-1.5)",
        "floor(2.75)",
    ]

    def t_rounding(self):
        return self.rotate(self.ROUNDING, 2)

    def t_rounding_counts(self):
        tag = self.tag()
        return "concat(floor(count(//%s) div 4), ' ', ceiling(count(//%s) div 4), ' ', round(count(//%s) div 4))" % (tag, tag, tag)

    def t_count_and_last(self):
        element = self.element(lambda e: len(self.facts.by_tag[e.tag]) >= 2 and self.small(e))
        return "//%s[position() = last()]" % element.tag

    def t_last_comparison(self):
        element = self.element(lambda e: len(e) >= 2)
        return "count(//%s[count(*) > 1][last() > 1])" % element.tag

    def t_top_level_position(self):
        # At the top level the context is the root node alone, so position()
        # and last() are both 1; lxml refuses to evaluate them there.
        return "position() + 10 * last()", "11"

    # id(), following HTML: an element's ID is its id attribute, and the
    # first element in document order wins when several share one.

    def id_form(self, tokens):
        seen = []
        for token in tokens:
            if token not in seen:
                seen.append(token)
        if not seen:
            return "/.."
        return " | ".join("(//*[@id=%s])[1]" % need(quote(t)) for t in seen)

    def t_id(self):
        ident = self.pick(sorted(i for i in self.facts.ids if not re.search(r"\s", i)))
        return "id(%s)/@*" % quote(ident), "(%s)/@*" % self.id_form([ident])

    def t_id_many(self):
        idents = sorted(set(i for i in self.facts.ids if not re.search(r"\s", i)))
        need(idents)
        chosen = self.rng.sample(idents, min(2, len(idents))) + ["no-such-id-%d" % self.page_index]
        literal = " ".join(chosen)
        return "count(id(%s))" % need(quote(literal)), "count(%s)" % self.id_form(chosen)

    def t_id_nodeset(self):
        element = self.element(lambda e: e.get("id") and quote(e.get("id")) and len(self.facts.by_tag[e.tag]) >= 1)
        tokens = []
        for other in self.facts.by_tag[element.tag]:
            if other.get("id") is not None:
                tokens.extend(other.get("id").split())
        return "count(id(//%s/@id))" % element.tag, "count(%s)" % self.id_form(tokens)

    # Names.

    def t_names(self):
        element = self.anchor(small=10**9)
        path = self.facts.path(element)
        return "concat(local-name(%s), '|', name(%s), '|', namespace-uri(%s))" % (path, path, path)

    def t_names_attribute(self):
        element, name, _ = self.attribute()
        path = self.facts.path(element)
        return "concat(name(%s/@%s), '|', local-name(%s/@%s), '|', namespace-uri(%s/@%s))" % ((path, name) * 3)

    def t_names_of_root(self):
        return "concat('[', name(/), '|', local-name(/), '|', namespace-uri(/), '|', name(/*), ']')"

    def t_names_context(self):
        # The context node at the top level is the root node, whose names are
        # empty; lxml would use the root element, so it gets explicit forms.
        return "concat(name(), '|', local-name(), '|', namespace-uri())", "concat(name(/), '|', local-name(/), '|', namespace-uri(/))"

    def t_name_test_function(self):
        tag = self.tag(1, 50, exclude=self.facts.foreign_local_names)
        return "count(//*[local-name()='%s']) = count(//%s) and count(//*[name()='%s']) = count(//%s)" % (tag, tag, tag, tag)

    def t_foreign_elements(self):
        # SVG and MathML elements keep their namespace, so they are reached
        # through namespace-uri() and local-name() rather than a name test;
        # their paths use the svg: and math: prefixes.
        namespace = self.pick(sorted({e.tag[1:].split("}")[0] for e in self.page.tree.iter() if isinstance(e.tag, str) and e.tag.startswith("{")}))
        k = self.rng.randint(1, 3)
        return "(//*[namespace-uri()='%s'])[position() <= %d]" % (namespace, k)

    def t_foreign_names(self):
        return "concat(count(//*[namespace-uri()='%s']), ' ', local-name((//*[namespace-uri()='%s'])[last()]))" % (oracle.SVG_NS, oracle.SVG_NS)

    def t_html_namespace(self):
        return "count(//*[namespace-uri()='']) - count(//*[namespace-uri()!=''])"

    # Operators.

    def t_arithmetic(self):
        a = self.tag()
        b = self.tag()
        return "count(//%s) + count(//%s) * 2 - 1" % (a, b)

    def t_div_mod(self):
        tag = self.tag()
        return "concat(count(//%s) div 4, ' ', count(//%s) mod 3, ' ', -count(//%s), ' ', - - count(//%s))" % ((tag,) * 4)

    ARITHMETIC = ["5 mod -2", "-5 mod 2", "5.5 mod 2", "-5.5 mod 2", "1 div 0", "-1 div 0", "0 div 0", "5 mod 0", "1 - -1", "0.25 * 4", "-(2 + 3)"]

    def t_arithmetic_edges(self):
        return self.rotate(self.ARITHMETIC, 2)

    def t_compare_nodeset_string(self):
        element = self.anchor(lambda e: 0 < len(self.facts.value(e)) < 60 and quote(self.facts.value(e)))
        return "//%s = %s" % (element.tag, quote(self.facts.value(element)))

    def t_compare_nodeset_string_ne(self):
        element, name, value = self.attribute(lambda a: quote(a[2]))
        return "//%s/@%s != %s" % (element.tag, name, quote(value))

    def t_compare_nodesets(self):
        _, name, _ = self.attribute(lambda a: self.facts.attr_names[a[1]] >= 2)
        tags = sorted({e.tag for e, n, _ in self.facts.attributes if n == name})
        a = self.pick(tags)
        b = self.pick(tags)
        return "concat(//%s/@%s = //%s/@%s, ' ', //%s/@%s != //%s/@%s)" % (a, name, b, name, a, name, b, name)

    def t_compare_nodeset_number(self):
        element, name, value = self.attribute(lambda a: re.fullmatch(r"\d+", a[2]) is not None)
        n = int(value)
        return "concat(//%s/@%s > %d, ' ', //%s/@%s <= %d, ' ', //%s/@%s = %d)" % (
            element.tag, name, max(n - 1, 0), element.tag, name, n, element.tag, name, n)

    def t_compare_nodeset_boolean(self):
        tag = self.tag()
        return "concat(//%s = true(), ' ', //nosuchtag = false(), ' ', true() != //%s, ' ', //nosuchtag = //%s)" % (tag, tag, tag)

    COMPARISONS = ["'1' = 1", "'abc' < 'abd'", "2 > 1 = true()", "1 < 2 < 3", "3 > 2 > 1", "'1.0' = 1", "true() = 1", "false() = ''", "'a' != 'a '", "0 = -0", "(0 div 0) = (0 div 0)", "(0 div 0) != (0 div 0)", "1 div 0 > 10000"]

    def t_compare_scalars(self):
        return "concat(%s)" % ", ' ', ".join("(%s)" % c for c in self.rotate(self.COMPARISONS, 3))

    def t_and_or(self):
        a = self.tag()
        return "count(//%s) > 0 and count(//nosuchtag) > 0 or not(//nosuchtag) and 1 = 1" % a

    def t_relational_counts(self):
        a = self.tag()
        b = self.tag()
        return "concat(count(//%s) <= count(//%s), count(//%s) >= count(//%s), count(//%s) < count(//%s))" % (a, b, a, b, b, a)

    # Unions.

    def t_union(self):
        a = self.tag(1, 8, exclude=("html", "head", "body"))
        b = self.tag(1, 8, exclude=("html", "head", "body", a))
        return "//%s | //%s" % (a, b)

    def t_union_first(self):
        a = self.tag(1, exclude=("html", "head", "body"))
        b = self.tag(1, exclude=("html", "head", "body", a))
        return "name((//%s | //%s)[1])" % (a, b)

    def t_union_duplicates(self):
        element = self.anchor()
        path = self.facts.path(element)
        return "%s | %s | %s/self::*" % (path, path, path)

    def t_union_mixed(self):
        element = self.anchor(lambda e: len(e.attrib) > 0)
        path = self.facts.path(element)
        return "%s/@* | %s | %s/text()" % (path, path, path)

    def t_union_count(self):
        a = self.tag()
        b = self.tag()
        return "count(//%s | //%s) <= count(//%s) + count(//%s)" % (a, b, a, b)

    # Text-based predicates.

    def t_text_contains(self):
        element = self.anchor(lambda e: _WORD.search(self.facts.value(e)), small=300)
        return "//%s[contains(., %s)]/@*" % (element.tag, quote(self.word(element)))

    def t_text_equals(self):
        element = self.anchor(lambda e: e.text and 0 < len(e.text) < 50 and quote(e.text))
        return "//*[text()=%s]" % quote(element.text)

    def t_normalized_equals(self):
        element = self.anchor(lambda e: 0 < len(self.facts.value(e).strip()) < 60)
        text = " ".join(self.facts.value(element).split())
        return "//%s[normalize-space()=%s]" % (element.tag, need(quote(text)))

    def t_text_nodes_contains(self):
        element = self.anchor(lambda e: e.text and _WORD.search(e.text), small=10**9)
        word = self.pick(sorted(set(w for w in _WORD.findall(element.text) if quote(w))))
        return "//text()[contains(., %s)]" % quote(word)

    def t_text_starts_with(self):
        element = self.anchor(lambda e: _WORD.match(" ".join(self.facts.value(e).split())), small=200)
        word = _WORD.match(" ".join(self.facts.value(element).split())).group(0)
        return "//%s[starts-with(normalize-space(.), %s)]" % (element.tag, need(quote(word)))

    def t_text_function_contains(self):
        element = self.anchor(lambda e: e.text and _WORD.search(e.text), small=400)
        word = self.pick(sorted(set(w for w in _WORD.findall(element.text) if quote(w))))
        return "//%s[contains(text(), %s)]" % (element.tag, quote(word))

    # Expressions that must fail to compile or to evaluate.

    ERRORS = ["//%s[", "no-such-function()", "//%s/@", "count()", "1 +", "//%s[@id='x']]", "concat('a')", "//%s[)", "sum('1')", "count(3)", "string(1, 2)", "//@", "$undefined"]

    def t_errors(self):
        tag = self.tag()
        return [e.replace("%s", tag) for e in self.rotate(self.ERRORS, 2)]


# (template name, category, must the result be non-empty?)
TEMPLATES = [
    ("absolute_path", "path", True),
    ("absolute_path_text", "path", True),
    ("relative_from_root", "path", False),
    ("relative_dot", "path", False),
    ("relative_self", "path", False),
    ("descendant", "path", True),
    ("descendant_twice", "path", True),
    ("child_step", "path", True),
    ("count_descendant", "path", False),
    ("head_children", "path", False),
    ("attribute_present", "attribute", True),
    ("attribute_equals", "attribute", True),
    ("attribute_of_match", "attribute", True),
    ("attribute_not_equals", "attribute", False),
    ("attribute_nodes", "attribute", True),
    ("attribute_count", "attribute", False),
    ("attribute_and_not", "attribute", False),
    ("attribute_wildcard", "attribute", True),
    ("attribute_starts_with", "attribute", True),
    ("attribute_contains", "attribute", False),
    ("class_token", "class", True),
    ("class_token_count", "class", False),
    ("class_substring_not_token", "class", False),
    ("position_first", "position", False),
    ("position_last", "position", True),
    ("position_less", "position", True),
    ("position_last_minus", "position", True),
    ("filter_index", "filter", True),
    ("filter_last_child", "filter", True),
    ("filter_range", "filter", False),
    ("predicate_order", "position", False),
    ("predicate_child_last", "position", False),
    ("filter_text", "filter", False),
    ("filter_then_attributes", "filter", True),
    ("filter_union_last", "filter", True),
    ("axis_ancestor", "axis", False),
    ("axis_ancestor_count", "axis", False),
    ("axis_ancestor_or_self", "axis", True),
    ("axis_ancestor_or_self_nodes", "axis", False),
    ("axis_attribute", "axis", True),
    ("axis_child", "axis", True),
    ("axis_descendant", "axis", True),
    ("axis_descendant_count", "axis", False),
    ("axis_descendant_or_self", "axis", True),
    ("axis_following", "axis", True),
    ("axis_following_text", "axis", False),
    ("axis_following_sibling", "axis", True),
    ("axis_following_sibling_nodes", "axis", True),
    ("axis_namespace", "axis", False),
    ("axis_parent", "axis", True),
    ("axis_parent_abbreviated", "axis", False),
    ("axis_preceding", "axis", True),
    ("axis_preceding_count", "axis", False),
    ("axis_preceding_text", "axis", False),
    ("axis_preceding_sibling", "axis", True),
    ("axis_self", "axis", True),
    ("axis_self_other", "axis", False),
    ("axis_from_text", "axis", False),
    ("axis_from_attribute", "axis", False),
    ("axis_attribute_parent", "axis", True),
    ("axis_comment_sibling", "axis", False),
    ("reverse_axis_position", "axis", False),
    ("node_test_node", "node-test", True),
    ("node_test_text", "node-test", False),
    ("node_test_comment", "node-test", False),
    ("node_test_comment_count", "node-test", False),
    ("node_test_pi", "node-test", False),
    ("node_test_star", "node-test", True),
    ("node_counts", "node-test", False),
    ("top_level_nodes", "node-test", False),
    ("string", "string", True),
    ("string_attribute", "string", False),
    ("concat", "string", True),
    ("starts_with", "string", False),
    ("contains", "string", False),
    ("substring_before_after", "string", False),
    ("substring", "string", False),
    ("string_length", "string", False),
    ("string_length_plain", "string", False),
    ("normalize_space", "string", True),
    ("normalize_space_literal", "string", False),
    ("translate", "string", True),
    ("translate_short", "string", False),
    ("boolean", "boolean", False),
    ("boolean_numbers", "boolean", False),
    ("lang", "boolean", False),
    ("number_attribute", "number", False),
    ("number_strings", "number", False),
    ("number_of_nodes", "number", False),
    ("sum", "number", False),
    ("sum_text", "number", False),
    ("rounding", "number", False),
    ("rounding_counts", "number", False),
    ("count_and_last", "number", True),
    ("last_comparison", "number", False),
    ("top_level_position", "number", False),
    ("id", "id", False),
    ("id_many", "id", False),
    ("id_nodeset", "id", False),
    ("names", "name", False),
    ("names_attribute", "name", False),
    ("names_of_root", "name", False),
    ("names_context", "name", False),
    ("name_test_function", "name", False),
    ("foreign_elements", "name", True),
    ("foreign_names", "name", False),
    ("html_namespace", "name", False),
    ("arithmetic", "operator", False),
    ("div_mod", "operator", False),
    ("arithmetic_edges", "operator", False),
    ("compare_nodeset_string", "operator", False),
    ("compare_nodeset_string_ne", "operator", False),
    ("compare_nodesets", "operator", False),
    ("compare_nodeset_number", "operator", False),
    ("compare_nodeset_boolean", "operator", False),
    ("compare_scalars", "operator", False),
    ("and_or", "operator", False),
    ("relational_counts", "operator", False),
    ("union", "union", True),
    ("union_first", "union", True),
    ("union_duplicates", "union", True),
    ("union_mixed", "union", True),
    ("union_count", "union", False),
    ("text_contains", "text", True),
    ("text_equals", "text", True),
    ("normalized_equals", "text", True),
    ("text_nodes_contains", "text", True),
    ("text_starts_with", "text", True),
    ("text_function_contains", "text", True),
    ("errors", "error", False),
]

ATTEMPTS = 8


def _non_empty(result):
    if "nodes" in result:
        return bool(result["nodes"])
    if "value" in result:
        return result["value"] != ""
    return False


def generate_cases(page, relpath, page_index, seed=DEFAULT_SEED):
    """Return (cases, skipped templates) for one parsed page."""
    if page.flags["form_feeds"]:
        # html5lib replaces U+000C in text with a space because lxml cannot
        # store it, while an HTML5 DOM keeps it; string-values anywhere near
        # one would differ for reasons that have nothing to do with XPath.
        raise ValueError("%s contains U+000C, which the oracle cannot represent; choose another page" % relpath)
    generator = Generator(page, relpath, page_index, seed)
    cases = []
    seen = set()
    skipped = []
    for name, category, non_empty in TEMPLATES:
        method = getattr(generator, "t_" + name)
        accepted = False
        for _ in range(ATTEMPTS):
            try:
                produced = method()
            except Skip:
                continue
            if not isinstance(produced, list):
                produced = [produced]
            batch = []
            for item in produced:
                expr, oracle_expr = item if isinstance(item, tuple) else (item, None)
                if "\n" in expr or "\r" in expr or expr in seen:
                    batch = None
                    break
                result, problem = page.evaluate(expr, oracle_expr)
                wants_error = category == "error"
                if problem or ("error" in result) != wants_error or (non_empty and not _non_empty(result)):
                    batch = None
                    break
                case = OrderedDict(expr=expr)
                if oracle_expr is not None:
                    case["oracle_expr"] = oracle_expr
                case["template"] = name
                case["category"] = category
                batch.append(case)
            if batch:
                for case in batch:
                    seen.add(case["expr"])
                cases.extend(batch)
                accepted = True
                break
        if not accepted:
            skipped.append(name)
    return cases, skipped


def page_id(relpath):
    """A short, stable file-name-safe name for a page."""
    parts = relpath.replace(".html.gz", "").replace(".html", "").replace(".htm", "").split("/")
    if parts[0].startswith("zyte"):
        return "zyte-" + parts[-1][:12]
    if parts[0].startswith("swde"):
        site = re.sub(r"^book-(.*)-2000$", r"\1", parts[-2])
        return "swde-%s-%s" % (site, parts[-1])
    if parts[0].startswith("similocator"):
        return "%s-%s" % (parts[1], parts[2])
    return "sftm-" + parts[-1]


def resolve_pages(data_dir, limit=None):
    """The page list with full paths; Zyte ids may be given as prefixes."""
    resolved = []
    for relpath in PAGES[:limit] if limit else PAGES:
        full = os.path.join(data_dir, relpath)
        if not os.path.exists(full):
            folder, name = os.path.split(full)
            prefix = name.split(".")[0]
            matches = sorted(f for f in os.listdir(folder) if f.startswith(prefix)) if os.path.isdir(folder) else []
            if len(matches) != 1:
                raise SystemExit("page not found (or ambiguous): %s" % full)
            full = os.path.join(folder, matches[0])
            relpath = os.path.relpath(full, data_dir)
        resolved.append((relpath, full))
    return resolved


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generate XPath conformance cases from real pages.")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "shared", "data"), help="data directory (default: %(default)s)")
    parser.add_argument("--out", default="xpath_conformance_cases", help="output directory (default: %(default)s)")
    parser.add_argument("--limit-pages", type=int, help="use only the first N pages")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--template-contents", choices=("children", "fragment"), default="children",
                        help="how <template> contents are modelled (see README.md)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    total = 0
    for index, (relpath, full) in enumerate(resolve_pages(args.data, args.limit_pages)):
        page = oracle.OraclePage(full, template_contents=args.template_contents)
        cases, skipped = generate_cases(page, relpath, index, args.seed)
        write_page_files(args.out, relpath, cases)
        total += len(cases)
        print("%-40s %3d cases (templates not usable here: %s)" % (page_id(relpath), len(cases), ", ".join(skipped) or "none"))
    print("total: %d cases" % total)
    return 0


def write_page_files(out_dir, relpath, cases):
    """Write PAGE_ID.exprs and PAGE_ID.cases.json; returns the two paths."""
    pid = page_id(relpath)
    exprs_path = os.path.join(out_dir, pid + ".exprs")
    cases_path = os.path.join(out_dir, pid + ".cases.json")
    with open(exprs_path, "w", encoding="utf-8") as handle:
        for case in cases:
            handle.write(case["expr"] + "\n")
    with open(cases_path, "w", encoding="utf-8") as handle:
        json.dump({"page": relpath, "cases": cases}, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    return exprs_path, cases_path


if __name__ == "__main__":
    sys.exit(main())
