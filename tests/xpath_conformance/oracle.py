#!/usr/bin/env python3
"""Reference XPath 1.0 evaluator for the mend conformance test.

The oracle parses a page the way mend does (HTML5 tree construction with
scripting disabled, encoding sniffed from the BOM, then from a <meta> charset
declaration, else UTF-8), using html5lib with its lxml tree builder, and
evaluates XPath 1.0 expressions with lxml (libxml2).  It prints each result in
exactly the JSON shape that `mend xpath PAGE EXPR --json` prints, so that the
two can be compared case by case.

The rendering rules are described in README.md next to this file.  In short:

* a node-set is {"nodes": [{"path": ..., "value": ...}, ...]} in document
  order, where "value" is the XPath string-value of the node;
* a string, boolean or number is {"value": ...}, with NaN and the infinities
  written as the strings "NaN", "Infinity" and "-Infinity";
* an expression that fails to compile or to evaluate is {"error": "..."}.

lxml cannot represent everything an HTML5 parser produces (some names are
not XML names, comments may not contain "--", the document node is never
returned from a node-set, the namespace axis yields bare tuples).  The oracle
therefore keeps its own model of the tree: every node gets a document-order
number, a canonical path and, where lxml had to alter the data, the original
text.  Results that the oracle cannot render faithfully are reported as
"problems"; the expression generator throws such candidates away, so they
never become test cases.

Usage:
    oracle.py PAGE EXPR [--json]
    oracle.py PAGE --exprs FILE [--json]
    oracle.py PAGE --cases FILE.json        (cases written by generate.py)
"""

import argparse
import codecs
import gzip
import json
import math
import re
import sys
import warnings

import html5lib
import webencodings
from lxml import etree

# html5lib warns every time lxml forces it to alter a name or a comment.  The
# oracle records those alterations itself (see _RecordingTreeBuilder and
# OraclePage.flags), so the warnings would only be noise.
warnings.simplefilter("ignore", category=html5lib.constants.DataLossWarning)

SVG_NS = "http://www.w3.org/2000/svg"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"
XMLNS_NS = "http://www.w3.org/2000/xmlns/"

# Element and attribute names in foreign content are written with these
# conventional prefixes in paths, because lxml's own prefixes (ns0, ns1, ...)
# are an accident of how the tree was built and mean nothing to mend.
ELEMENT_PREFIXES = {SVG_NS: "svg", MATHML_NS: "math"}
ATTRIBUTE_PREFIXES = {XLINK_NS: "xlink", XML_NS: "xml", XMLNS_NS: "xmlns"}

# Node-set results larger than this (as JSON) are reported as a problem, so
# that the generator does not produce cases whose output is mostly a copy of
# the page; it keeps the expression files and mend's output small.
MAX_RESULT_CHARS = 200_000

# Number of bytes the encoding prescan looks at, as in the HTML standard.
PRESCAN_BYTES = 1024

_ASCII_WS = b"\t\n\x0c\r "
_CODED_NAME = re.compile(r"U[0-9A-F]{5}")
_LXML_PREFIX = re.compile(r"\bns\d+:")


# ---------------------------------------------------------------------------
# Reading and decoding pages
# ---------------------------------------------------------------------------


def read_page_bytes(path):
    """Return the raw bytes of a page, gunzipping files whose name ends in .gz."""
    with open(path, "rb") as handle:
        data = handle.read()
    if str(path).endswith(".gz"):
        data = gzip.decompress(data)
    return data


class _PrescanEnd(Exception):
    """Raised when the prescan runs off the end of the bytes it may look at."""


def _get_attribute(data, pos):
    """The HTML standard's "get an attribute" step of the encoding prescan.

    Returns (name, value, new_position), or (None, None, new_position) when
    the tag has no further attribute.
    """

    def at(i):
        if i >= len(data):
            raise _PrescanEnd()
        return data[i]

    while at(pos) in _ASCII_WS or at(pos) == 0x2F:
        pos += 1
    if at(pos) == 0x3E:
        return None, None, pos
    name = bytearray()
    value = bytearray()
    while True:
        byte = at(pos)
        if byte == 0x3D and name:
            pos += 1
            break
        if byte in _ASCII_WS:
            while at(pos) in _ASCII_WS:
                pos += 1
            if at(pos) != 0x3D:
                return name.decode("latin-1"), "", pos
            pos += 1
            break
        if byte in (0x2F, 0x3E):
            return name.decode("latin-1"), "", pos
        name.append(byte + 0x20 if 0x41 <= byte <= 0x5A else byte)
        pos += 1
    while at(pos) in _ASCII_WS:
        pos += 1
    byte = at(pos)
    if byte in (0x22, 0x27):
        quote = byte
        pos += 1
        while at(pos) != quote:
            b = at(pos)
            value.append(b + 0x20 if 0x41 <= b <= 0x5A else b)
            pos += 1
        return name.decode("latin-1"), value.decode("latin-1"), pos + 1
    if byte == 0x3E:
        return name.decode("latin-1"), "", pos
    while True:
        b = at(pos)
        if b in _ASCII_WS or b == 0x3E:
            return name.decode("latin-1"), value.decode("latin-1"), pos
        value.append(b + 0x20 if 0x41 <= b <= 0x5A else b)
        pos += 1


def charset_from_content(content):
    """The HTML standard's "extract a character encoding from a meta element"."""
    lower = content.lower()
    pos = 0
    while True:
        found = lower.find("charset", pos)
        if found < 0:
            return None
        pos = found + len("charset")
        while pos < len(content) and content[pos] in "\t\n\x0c\r ":
            pos += 1
        if pos >= len(content) or content[pos] != "=":
            continue
        pos += 1
        while pos < len(content) and content[pos] in "\t\n\x0c\r ":
            pos += 1
        if pos >= len(content):
            return None
        if content[pos] in "\"'":
            end = content.find(content[pos], pos + 1)
            return content[pos + 1 : end] if end >= 0 else None
        end = pos
        while end < len(content) and content[end] not in "\t\n\x0c\r ;":
            end += 1
        return content[pos:end]


def _usable_encoding(label):
    """Map a declared label to the encoding a browser would decode with."""
    encoding = webencodings.lookup(label)
    if encoding is None:
        return None
    # A page cannot really be UTF-16 if an ASCII-compatible prescan could read
    # its <meta>, so the standard says to use UTF-8 instead; x-user-defined
    # in a <meta> likewise means windows-1252.
    if encoding.name in ("utf-16be", "utf-16le"):
        return "utf-8"
    if encoding.name == "x-user-defined":
        return "windows-1252"
    return encoding.name


def prescan_encoding(data):
    """The HTML standard's prescan of a byte stream for a <meta> charset.

    Returns a WHATWG encoding name or None.  Only the first PRESCAN_BYTES
    bytes are examined, as browsers do before they start parsing.
    """
    data = data[:PRESCAN_BYTES]
    pos = 0
    try:
        while pos < len(data):
            if data.startswith(b"<!--", pos):
                end = data.find(b"-->", pos + 2)
                if end < 0:
                    return None
                pos = end + 2
            elif (
                data[pos : pos + 5].lower() == b"<meta"
                and pos + 5 < len(data)
                and data[pos + 5] in b"\t\n\x0c\r /"
            ):
                pos += 6
                seen = set()
                got_pragma = False
                need_pragma = None
                charset = None
                while True:
                    name, value, pos = _get_attribute(data, pos)
                    if name is None:
                        break
                    if name in seen:
                        continue
                    seen.add(name)
                    if name == "http-equiv":
                        if value == "content-type":
                            got_pragma = True
                    elif name == "content":
                        if charset is None:
                            found = charset_from_content(value)
                            if found is not None:
                                charset = found
                                need_pragma = True
                    elif name == "charset":
                        charset = value
                        need_pragma = False
                if need_pragma is not None and charset is not None:
                    if need_pragma is False or got_pragma:
                        encoding = _usable_encoding(charset)
                        if encoding is not None:
                            return encoding
            elif data[pos] == 0x3C and (
                (pos + 1 < len(data) and chr(data[pos + 1]).isascii() and chr(data[pos + 1]).isalpha())
                or (
                    data[pos + 1 : pos + 2] == b"/"
                    and pos + 2 < len(data)
                    and chr(data[pos + 2]).isascii()
                    and chr(data[pos + 2]).isalpha()
                )
            ):
                while pos < len(data) and data[pos] not in _ASCII_WS and data[pos] != 0x3E:
                    pos += 1
                while True:
                    name, _, pos = _get_attribute(data, pos)
                    if name is None:
                        break
            elif data[pos : pos + 2] in (b"<!", b"</", b"<?"):
                end = data.find(b">", pos)
                if end < 0:
                    return None
                pos = end
            pos += 1
    except _PrescanEnd:
        return None
    return None


def sniff_encoding(data):
    """Return (WHATWG encoding name, length of the BOM) for a page's bytes."""
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8", 3
    if data.startswith(b"\xfe\xff"):
        return "utf-16be", 2
    if data.startswith(b"\xff\xfe"):
        return "utf-16le", 2
    return prescan_encoding(data) or "utf-8", 0


def _windows1252_holes(error):
    # Python's cp1252 leaves five bytes undefined; the WHATWG index maps each
    # of them to the C1 control with the same value, and so does encoding_rs.
    chunk = error.object[error.start : error.end]
    return "".join(chr(b) if b in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else "\ufffd" for b in chunk), error.end


codecs.register_error("mend-oracle-cp1252", _windows1252_holes)


def decode_page(data):
    """Decode page bytes to text the way mend does; returns (text, encoding)."""
    encoding, bom = sniff_encoding(data)
    codec = webencodings.lookup(encoding).codec_info.name
    errors = "mend-oracle-cp1252" if encoding == "windows-1252" else "replace"
    return data[bom:].decode(codec, errors), encoding


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

_LxmlTreeBuilder = html5lib.getTreeBuilder("lxml")


class _RecordingTreeBuilder(_LxmlTreeBuilder):
    """html5lib's lxml tree builder, remembering comment text lxml can't hold.

    lxml refuses comments that contain "--" or end with "-", so html5lib
    rewrites them ("--" becomes "- -").  This subclass keeps the original text
    of every comment, keyed by the lxml comment object, so that the oracle
    can report the comment's real string-value.
    """

    def __init__(self, namespaceHTMLElements, fullTree=False):
        super().__init__(namespaceHTMLElements, fullTree)
        originals = self.original_comments = {}
        base_comment = self.commentClass

        class Comment(base_comment):
            def __init__(self, data):
                super().__init__(data)
                originals[self._element] = data

            def _setData(self, data):
                base_comment._setData(self, data)
                originals[self._element] = data

            data = property(base_comment._getData, _setData)

        self.commentClass = Comment


class OracleNode:
    """One node of the oracle's model of the tree."""

    __slots__ = ("order", "path", "kind", "ref", "text", "problem")

    def __init__(self, order, path, kind, ref, text=None, problem=None):
        self.order = order
        self.path = path
        self.kind = kind
        # The lxml object the node's string-value is computed from (an
        # element or comment), or None when `text` already holds the value.
        self.ref = ref
        self.text = text
        # Why the oracle cannot render this node faithfully, or None.
        self.problem = problem


def _decode_name(name):
    """Undo html5lib's escaping of characters that are not allowed in XML names."""
    return _CODED_NAME.sub(lambda m: chr(int(m.group(0)[1:], 16)), name)


def _split_tag(tag):
    if tag.startswith("{"):
        namespace, local = tag[1:].split("}", 1)
        return namespace, local
    return None, tag


def element_step_name(tag):
    """Name of an element as written in a path step (see README.md).

    mend names every element by its local name, SVG and MathML ones included
    (its name tests match local names whatever the namespace), so a foreign
    element's step is its plain local name too.
    """
    _, local = _split_tag(tag)
    return _decode_name(local)


# A token of the expressions the generator writes: a literal, a number, an
# operator or punctuation, or a name (NCNames of the generator's safe form,
# possibly prefixed).  Used only to find element name tests.
_XPATH_TOKEN = re.compile(
    r"""\s*(?:(?P<literal>"[^"]*"|'[^']*')"""
    r"""|(?P<number>\d+(?:\.\d*)?|\.\d+)"""
    r"""|(?P<op>//|::|\.\.|!=|<=|>=|[()\[\]@,|+\-=<>/.*$])"""
    r"""|(?P<name>[A-Za-z_][\w.\-]*(?::(?:[A-Za-z_][\w.\-]*|\*))?))"""
)
_OPERATOR_CONTEXT = {"@", "::", "(", "[", ",", "/", "//", "|", "+", "-", "=", "!=", "<", "<=", ">", ">=",
                     "and", "or", "div", "mod", "*mul"}


def mend_name_tests(expr, names):
    """Rewrite element name tests the way mend matches them.

    mend's unprefixed element name test matches an element's local name in
    any namespace (a documented extension, as lxml.html users expect), while
    XPath 1.0 and libxml2 match only elements in no namespace.  Every element
    name test `x` whose name is in `names` (the local names of the page's SVG
    and MathML elements) becomes `*[local-name()='x']`, which selects exactly
    what mend's `x` selects; positions in later predicates are unchanged,
    because the added predicate is applied first.  Attribute and namespace
    name tests are left alone.  An expression the small tokenizer does not
    understand is returned unchanged.
    """
    if not names:
        return expr
    tokens = []
    pos = 0
    while pos < len(expr):
        if not expr[pos:].strip():
            break
        m = _XPATH_TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            return expr
        kind = m.lastgroup
        tokens.append((kind, m.group(kind), m.start(kind), m.end(kind)))
        pos = m.end()
    out = []
    last = 0
    prev = None  # the previous token's classified text
    prev_prev = None
    for i, (kind, text, start, end) in enumerate(tokens):
        operator_expected = prev is not None and prev not in _OPERATOR_CONTEXT
        rest = expr[end:].lstrip()
        classified = text
        if kind == "op" and text == "*" and operator_expected:
            classified = "*mul"
        elif kind == "name":
            if operator_expected:
                classified = text  # and, or, div, mod
            elif rest.startswith("(") or rest.startswith("::"):
                classified = "fn-or-axis:" + text
            elif prev == "@" or (prev == "::" and prev_prev in ("fn-or-axis:attribute", "fn-or-axis:namespace")):
                classified = "attr-name"
            elif text in names:
                out.append(expr[last:start])
                out.append("*[local-name()='%s']" % text)
                last = end
                classified = "name-test"
            else:
                classified = "name-test"
        prev_prev, prev = prev, classified
    out.append(expr[last:])
    return "".join(out)


def attribute_path_name(attrname):
    """Name of an attribute as written after "@" in a path (see README.md)."""
    namespace, local = _split_tag(attrname)
    local = _decode_name(local)
    if namespace is None:
        return local
    if namespace == XMLNS_NS and local == "xmlns":
        return "xmlns"
    return "%s:%s" % (ATTRIBUTE_PREFIXES.get(namespace, "ns"), local)


_STRING_VALUE = etree.XPath("string(.)")


class OraclePage:
    """A parsed page together with the oracle's model of its nodes."""

    def __init__(self, path, template_contents="children"):
        self.path = str(path)
        raw = read_page_bytes(path)
        self.text, self.encoding = decode_page(raw)
        # Facts about the page that make some expressions unsafe to compare;
        # the generator reads them.  Each is a count of affected items.
        self.flags = {
            "form_feeds": self.text.count("\x0c"),
            "coerced_comments": 0,
            "coerced_names": 0,
            "foreign_elements": 0,
            "xmlns_namespace_attributes": 0,
            "empty_text_nodes": 0,
        }
        parser = html5lib.HTMLParser(tree=_RecordingTreeBuilder, namespaceHTMLElements=False)
        # lxml rejects characters that XML does not allow (most C0 controls);
        # such a page raises ValueError here and cannot be used as a test page.
        self.tree = parser.parse(self.text)
        self.original_comments = parser.tree.original_comments
        if template_contents == "fragment":
            self._detach_template_contents()
        for comment, original in self.original_comments.items():
            if comment.text != original:
                self.flags["coerced_comments"] += 1
        self.nodes = {}
        self.root = OracleNode(0, "/", "root", None)
        self._value_cache = {}
        # Local names of SVG and MathML elements (see mend_name_tests).
        self.foreign_names = set()
        self._build_model()

    def _detach_template_contents(self):
        """Drop the contents of every HTML <template> from the tree.

        html5lib makes a template's contents its children.  The DOM instead
        keeps them in a separate document fragment that is not part of the
        tree (so XPath in a browser never reaches them).  This mode models
        the DOM view; see README.md.
        """
        for template in list(self.tree.iter("template")):
            for child in list(template):
                template.remove(child)
            template.text = None

    # -- model --------------------------------------------------------------

    def _build_model(self):
        order = 1
        top = self.tree.getroot()
        while top.getprevious() is not None:
            top = top.getprevious()
        top_level = []
        while top is not None:
            top_level.append(top)
            top = top.getnext()
        # Each stack entry is (parent path, list of child items), where an item
        # is an lxml node or ("text", owner, is_tail) for a text node.  The
        # children of the root node are the top-level nodes; lxml keeps no text
        # there (an HTML5 parser never puts text at the top level).
        stack = [("", self._child_items(None, top_level))]
        # A manual stack keeps deep pages from hitting Python's recursion limit.
        positions = [0]
        while stack:
            parent_path, items = stack[-1]
            index = positions[-1]
            if index >= len(items):
                stack.pop()
                positions.pop()
                continue
            positions[-1] = index + 1
            item, step = items[index]
            if isinstance(item, tuple):
                _, owner, is_tail = item
                text = owner.tail if is_tail else owner.text
                node = OracleNode(order, parent_path + "/" + step, "text", None, text=text)
                if text == "":
                    node.problem = "empty text node"
                    self.flags["empty_text_nodes"] += 1
                self.nodes[("t", owner, is_tail)] = node
                order += 1
                continue
            path = parent_path + "/" + step
            if isinstance(item, etree._Comment):
                original = self.original_comments.get(item, item.text)
                self.nodes[item] = OracleNode(order, path, "comment", None, text=original)
                order += 1
                continue
            if isinstance(item, etree._ProcessingInstruction):
                self.nodes[item] = OracleNode(order, path, "processing-instruction", item)
                order += 1
                continue
            if not isinstance(item.tag, str):
                # Entities and other exotic lxml nodes never come out of html5lib.
                continue
            namespace, local = _split_tag(item.tag)
            if _CODED_NAME.search(local):
                self.flags["coerced_names"] += 1
            if namespace is not None:
                self.flags["foreign_elements"] += 1
                self.foreign_names.add(_decode_name(local))
            self.nodes[item] = OracleNode(order, path, "element", item)
            order += 1
            # html5lib moves adjusted foreign attributes (xlink:href and the
            # like) behind the others, so their relative order is not the
            # source order an HTML5 parser keeps; every attribute of such an
            # element is therefore marked as not renderable.
            attrnames = list(item.attrib.keys())
            adjusted = any(name.startswith("{") for name in attrnames)
            for attrname in attrnames:
                problem = None
                attr_ns, attr_local = _split_tag(attrname)
                if _CODED_NAME.search(attr_local):
                    self.flags["coerced_names"] += 1
                if attr_ns == XMLNS_NS:
                    self.flags["xmlns_namespace_attributes"] += 1
                    problem = "namespace declaration stored as an attribute"
                elif adjusted:
                    problem = "attribute order of an element with adjusted foreign attributes"
                self.nodes[("a", item, attrname)] = OracleNode(
                    order,
                    "%s/@%s" % (path, attribute_path_name(attrname)),
                    "attribute",
                    None,
                    text=item.get(attrname),
                    problem=problem,
                )
                order += 1
            children = list(item)
            stack.append((path, self._child_items(item, children)))
            positions.append(0)

    @staticmethod
    def _child_items(parent, children):
        """Pair each child node of `parent` with its path step."""
        # Siblings are numbered among those with the same local name, as mend
        # numbers them (it names foreign elements by local name).
        tag_totals = {}
        for child in children:
            if isinstance(child.tag, str):
                step = element_step_name(child.tag)
                tag_totals[step] = tag_totals.get(step, 0) + 1
        tag_seen = {}
        comments = 0
        pis = 0
        texts = 0
        items = []
        if parent is not None and parent.text is not None:
            texts += 1
            items.append((("text", parent, False), "text()[%d]" % texts))
        for child in children:
            if isinstance(child, etree._Comment):
                comments += 1
                items.append((child, "comment()[%d]" % comments))
            elif isinstance(child, etree._ProcessingInstruction):
                pis += 1
                items.append((child, "processing-instruction()[%d]" % pis))
            elif isinstance(child.tag, str):
                step = element_step_name(child.tag)
                tag_seen[step] = tag_seen.get(step, 0) + 1
                if tag_totals[step] > 1:
                    step += "[%d]" % tag_seen[step]
                items.append((child, step))
            if parent is not None and child.tail is not None:
                texts += 1
                items.append((("text", child, True), "text()[%d]" % texts))
        return items

    def node_value(self, node):
        """The XPath string-value of a model node."""
        if node.text is not None:
            return node.text
        if node.kind == "root":
            if "root" not in self._value_cache:
                self._value_cache["root"] = str(self.tree.xpath("string(/)"))
            return self._value_cache["root"]
        if node.kind == "processing-instruction":
            return node.ref.text or ""
        cached = self._value_cache.get(node.order)
        if cached is None:
            cached = str(_STRING_VALUE(node.ref))
            self._value_cache[node.order] = cached
        return cached

    def element_node(self, element):
        return self.nodes.get(element)

    def iter_elements(self):
        """All element nodes of the model as (lxml element, OracleNode), in document order."""
        for key, node in self.nodes.items():
            if node.kind == "element":
                yield key, node

    # -- evaluation ---------------------------------------------------------

    def _lookup(self, item):
        """Find the model node for one item of an lxml node-set result."""
        if isinstance(item, tuple):
            return None, "namespace node in a node-set (lxml gives no owner element)"
        if isinstance(item, etree._Element):
            node = self.nodes.get(item)
            return node, None if node else "node unknown to the model"
        if isinstance(item, str) and hasattr(item, "getparent"):
            owner = item.getparent()
            if item.is_attribute:
                node = self.nodes.get(("a", owner, item.attrname))
            else:
                node = self.nodes.get(("t", owner, bool(item.is_tail)))
            return node, None if node else "string result unknown to the model"
        return None, "unexpected item %r in a node-set" % (item,)

    def evaluate(self, expr, oracle_expr=None):
        """Evaluate one case.

        `expr` is what mend is given; `oracle_expr`, when set, is an
        equivalent form that lxml evaluates instead (see README.md: the
        initial context and id()).  Returns (rendered result, problem), where
        problem is None or a string saying why the result cannot be trusted.
        """
        source = oracle_expr if oracle_expr is not None else expr
        source = mend_name_tests(source, self.foreign_names)
        try:
            result = etree.XPath(source)(self.tree)
        except etree.XPathError as error:
            return {"error": str(error)}, None
        if isinstance(result, list):
            return self._render_nodes(source, result)
        return render_scalar(result), self._scalar_problem(result)

    def _render_nodes(self, source, result):
        found = {}
        for item in result:
            node, problem = self._lookup(item)
            if problem:
                return {"nodes": []}, problem
            if node.problem:
                return {"nodes": []}, "%s at %s" % (node.problem, node.path)
            found[node.order] = node
        # lxml never returns the document node; a union with "/" tells whether
        # the node-set held it (the root node comes first in document order).
        try:
            with_root = etree.XPath("count((%s) | /) = count(%s)" % (source, source))(self.tree)
        except etree.XPathError as error:
            return {"nodes": []}, "cannot test for the root node: %s" % error
        if with_root:
            found[0] = self.root
        rendered = []
        size = 0
        for order in sorted(found):
            node = found[order]
            value = self.node_value(node)
            size += len(value) + len(node.path) + 24
            if size > MAX_RESULT_CHARS:
                return {"nodes": []}, "result larger than %d characters" % MAX_RESULT_CHARS
            rendered.append({"path": node.path, "value": value})
        return {"nodes": rendered}, None

    def _scalar_problem(self, result):
        if not isinstance(result, str):
            return None
        if len(result) > MAX_RESULT_CHARS:
            return "result larger than %d characters" % MAX_RESULT_CHARS
        if self.flags["coerced_names"] and _CODED_NAME.search(result):
            return "string may contain a name lxml had to escape"
        if self.flags["foreign_elements"] and _LXML_PREFIX.search(result):
            return "string may contain a namespace prefix invented by lxml"
        if self.flags["coerced_comments"] and "- -" in result:
            return "string may contain comment text lxml had to alter"
        return None


def render_number(number):
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return number


def render_scalar(result):
    """Render a string, boolean or number result as mend does."""
    if isinstance(result, bool):
        return {"value": result}
    if isinstance(result, float):
        return {"value": render_number(result)}
    if isinstance(result, str):
        return {"value": str(result)}
    raise TypeError("unexpected XPath result type %r" % type(result))


def dumps(result):
    """One result as a single JSON line (mend's --json form)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="HTML page (gzipped if it ends in .gz)")
    parser.add_argument("expr", nargs="?", help="one XPath expression")
    parser.add_argument("--exprs", help="file with one expression per line")
    parser.add_argument("--cases", help="cases file written by generate.py (uses oracle forms)")
    parser.add_argument("--json", action="store_true", help="accepted for symmetry with mend; output is always JSON")
    parser.add_argument("--template-contents", choices=("children", "fragment"), default="children",
                        help="model <template> contents as children (html5lib) or as a detached fragment (DOM)")
    args = parser.parse_args(argv)
    if sum(x is not None for x in (args.expr, args.exprs, args.cases)) != 1:
        parser.error("give exactly one of EXPR, --exprs or --cases")

    page = OraclePage(args.page, template_contents=args.template_contents)
    if args.expr is not None:
        cases = [(args.expr, None)]
    elif args.exprs is not None:
        with open(args.exprs, encoding="utf-8") as handle:
            cases = [(line.rstrip("\n"), None) for line in handle if line.strip()]
    else:
        with open(args.cases, encoding="utf-8") as handle:
            cases = [(c["expr"], c.get("oracle_expr")) for c in json.load(handle)["cases"]]
    out = sys.stdout
    for expr, oracle_expr in cases:
        result, problem = page.evaluate(expr, oracle_expr)
        out.write(dumps(result) + "\n")
        if problem:
            # The printed result is not the true answer in this case; the
            # generator never produces such cases, but a hand-written
            # expression can.
            sys.stderr.write("oracle cannot render %r faithfully: %s\n" % (expr, problem))
    return 0


if __name__ == "__main__":
    sys.exit(main())
