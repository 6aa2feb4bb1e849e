#!/usr/bin/env python3
"""mend's CSS selectors against parsel's, on the same HTML5 tree.

For each page of a seeded sample of ../shared/data, the page is parsed by
html5lib into an lxml tree (the HTML5 algorithm mend's parser follows, with
no namespace on HTML elements), and selectors are generated from what the
page holds: its tags, classes, ids and attributes, with every operator and
combinator, :nth-child / :nth-of-type (and -last) over a range of an+b,
:not(), :first-child / :last-child / :only-child / :empty, the -of-type
forms, selector lists, ::text and ::attr(). parsel (cssselect and lxml)
evaluates each on the html5lib tree; `mend xpath PAGE --exprs FILE --css
--json` evaluates the same selectors on mend's own tree.

A page whose element tree differs between the two parsers (the list of
every element's path) is skipped and counted: the comparison is of the
selectors, not of the parsers. Elements are compared by path, in document
order; text and attribute nodes by value, in order.

Exits 1 when any selector selects differently or mend refuses one parsel
accepts; prints the first differences.

    python3 bench/css_differential.py --mend target/debug/mend --pages 150 [--json OUT]
"""

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import warnings

import html5lib
import lxml.etree
from parsel import Selector

# html5lib warns of every name XML cannot hold; the trees are compared
# whole below, so a page where that matters is skipped, not misjudged.
warnings.simplefilter("ignore")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def html5_trees(data):
    """The page's HTML5 trees, in lxml, with no namespaces (html5lib puts SVG
    and MathML elements in theirs, where mend's tree, and lxml's own HTML
    parser that parsel uses, have plain names): first with the bytes read
    as UTF-8 when they are valid UTF-8, as mend reads them (html5lib alone
    guesses windows-1252 for a page that says nothing), then as html5lib
    decodes them."""
    inputs = [data]
    try:
        inputs.insert(0, data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    for source in inputs:
        tree = html5lib.parse(source, treebuilder="lxml", namespaceHTMLElements=False)
        for el in tree.getroot().iter():
            if isinstance(el.tag, str) and el.tag.startswith("{"):
                el.tag = el.tag.split("}", 1)[1]
        lxml.etree.cleanup_namespaces(tree)
        yield tree


def pages(limit, seed):
    """A seeded sample of the data's pages, across its folders."""
    found = sorted(
        p
        for p in DATA.rglob("*")
        if p.is_file() and re.search(r"\.html?(\.gz)?$", p.name)
    )
    random.Random(seed).shuffle(found)
    return found[:limit]


def read(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def ident(s):
    """`s` as a CSS identifier, escaped where it must be."""
    out = []
    for i, c in enumerate(s):
        ok = c.isascii() and (c.isalnum() or c in "-_") or not c.isascii()
        if i == 0 and (c.isdigit() or (c == "-" and len(s) > 1 and s[1].isdigit())):
            ok = False
        if c == "-" and i == 0 and len(s) == 1:
            ok = False
        out.append(c if ok and c.isprintable() else "\\%x " % ord(c))
    return "".join(out)


def string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def nth(rng):
    if rng.random() < 0.2:
        return rng.choice(["odd", "even"])
    a, b = rng.randint(-3, 3), rng.randint(-2, 6)
    if a == 0:
        return str(b)
    sign = "+" if b >= 0 else "-"
    return f"{a}n{sign}{abs(b)}"


class Vocabulary:
    """What a page holds that a selector can name."""

    def __init__(self, root):
        self.tags, self.classes, self.ids, self.attrs = [], [], [], []
        self.pairs = []  # (parent tag, child tag)
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            self.tags.append(el.tag)
            parent = el.getparent()
            if parent is not None and isinstance(parent.tag, str):
                self.pairs.append((parent.tag, el.tag))
            for name, value in el.attrib.items():
                if "\\" in value:
                    # cssselect drops an escaped backslash (`\5c `) where
                    # CSS keeps it; such values are left out.
                    continue
                if name == "class":
                    self.classes.extend(value.split())
                elif name == "id" and value:
                    self.ids.append(value)
                elif re.fullmatch(r"[a-z][a-z0-9_-]*", name):
                    self.attrs.append((name, value))

    def simple(self, rng):
        kind = rng.choice(["tag", "class", "tagclass", "id", "attr", "attr", "pseudo", "not"])
        tag = ident(rng.choice(self.tags))
        if kind == "class" and self.classes:
            return "." + ident(rng.choice(self.classes))
        if kind == "tagclass" and self.classes:
            return tag + "." + ident(rng.choice(self.classes))
        if kind == "id" and self.ids:
            return "#" + ident(rng.choice(self.ids))
        if kind == "attr" and self.attrs:
            name, value = rng.choice(self.attrs)
            op = rng.choice(["", "=", "~=", "|=", "^=", "$=", "*="])
            if not op:
                return f"{tag}[{name}]"
            if op in ("^=", "$=", "*=") and value:
                cut = rng.randint(0, len(value))
                value = value[:cut] if op == "^=" else value[cut:] if op == "$=" else value[cut // 2 : cut]
            if op == "~=" and value.split():
                value = rng.choice(value.split())
            if op == "|=" and "-" in value:
                value = value.split("-")[0]
            return f"[{name}{op}{string(value)}]"
        if kind == "pseudo":
            pseudo = rng.choice(
                [
                    ":first-child",
                    ":last-child",
                    ":only-child",
                    ":empty",
                    ":first-of-type",
                    ":last-of-type",
                    ":only-of-type",
                    f":nth-child({nth(rng)})",
                    f":nth-last-child({nth(rng)})",
                    f":nth-of-type({nth(rng)})",
                    f":nth-last-of-type({nth(rng)})",
                ]
            )
            return tag + pseudo
        if kind == "not":
            inner = rng.choice(
                [".%s" % ident(rng.choice(self.classes)) if self.classes else "p", "div", "[href]", ":first-child"]
            )
            return f"{tag}:not({inner})"
        return tag

    def selector(self, rng):
        shape = rng.choice(["simple", "child", "descendant", "adjacent", "sibling", "list"])
        if shape == "simple":
            s = self.simple(rng)
        elif shape == "list":
            s = self.simple(rng) + ", " + self.simple(rng)
        else:
            parent, child = rng.choice(self.pairs) if self.pairs else ("div", "p")
            left = rng.choice([ident(parent), self.simple(rng)])
            right = rng.choice([ident(child), self.simple(rng)])
            combinator = {"child": " > ", "descendant": " ", "adjacent": " + ", "sibling": " ~ "}[shape]
            s = left + combinator + right
        ending = rng.random()
        if ending < 0.1 and "," not in s:
            s += "::text"
        elif ending < 0.2 and "," not in s and self.attrs:
            s += "::attr(%s)" % rng.choice(self.attrs)[0]
        return s


def parsel_results(root, tree, selector):
    """What parsel selects: element paths, or values for text and attributes."""
    try:
        found = Selector(root=root, type="html").css(selector)
    except Exception as e:  # cssselect refuses it
        return ("refused", str(e))
    out = []
    for x in found:
        if isinstance(x.root, str):
            out.append(("value", str(x.root)))
        else:
            out.append(("path", tree.getpath(x.root)))
    return ("ok", out)


def mend_results(mend, page, selectors):
    with tempfile.NamedTemporaryFile("w", suffix=".css", delete=False) as f:
        f.write("\n".join(selectors) + "\n")
        exprs = f.name
    run = subprocess.run(
        [mend, "xpath", str(page), "--exprs", exprs, "--css", "--json"],
        capture_output=True,
        text=True,
    )
    Path(exprs).unlink()
    if run.returncode != 0:
        raise SystemExit(f"mend xpath failed on {page}: {run.stderr}")
    return [json.loads(line) for line in run.stdout.split("\n") if line]


def as_compared(mend_line):
    if "error" in mend_line:
        return ("refused", mend_line["error"])
    out = []
    for node in mend_line.get("nodes", []):
        path = node["path"]
        if "/@" in path or re.search(r"/text\(\)(\[\d+\])?$", path):
            out.append(("value", node["value"]))
        else:
            out.append(("path", path))
    return ("ok", out)


def element_paths(mend, page):
    line = mend_results_xpath(mend, page, "//*")
    return [n["path"] for n in line["nodes"]]


def mend_results_xpath(mend, page, expr):
    run = subprocess.run([mend, "xpath", str(page), expr, "--json"], capture_output=True, text=True)
    return json.loads(run.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mend", default=str(ROOT / "target" / "debug" / "mend"))
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--per-page", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", help="write the counts here too, with the arguments and parsel's version")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    counts = Counter()
    differences = []
    for page in pages(args.pages, args.seed):
        elements = element_paths(args.mend, page)
        tree = None
        try:
            for candidate in html5_trees(read(page)):
                paths = [candidate.getpath(e) for e in candidate.getroot().iter() if isinstance(e.tag, str)]
                if paths == elements:
                    tree = candidate
                    break
        except ValueError:
            # lxml cannot hold control characters that HTML5 keeps.
            counts["pages skipped: lxml cannot hold the page"] += 1
            continue
        if tree is None:
            counts["pages skipped: the parsers' trees differ"] += 1
            continue
        root = tree.getroot()
        counts["pages"] += 1
        vocabulary = Vocabulary(root)
        selectors = [vocabulary.selector(rng) for _ in range(args.per_page)]
        for selector, line in zip(selectors, mend_results(args.mend, page, selectors)):
            theirs = parsel_results(root, tree, selector)
            mine = as_compared(line)
            if theirs[0] == "refused":
                counts["selectors parsel refuses (not compared)"] += 1
                continue
            counts["selectors"] += 1
            if theirs[1]:
                counts["selectors that select something"] += 1
            if mine == theirs:
                counts["same"] += 1
            else:
                counts["different"] += 1
                differences.append((page, selector, mine, theirs))
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")
    if args.json:
        from importlib.metadata import version
        Path(args.json).write_text(json.dumps({
            "pages_asked": args.pages, "per_page": args.per_page, "seed": args.seed,
            "parsel": version("parsel"), "counts": dict(counts), "differences": len(differences),
        }, indent=1) + "\n")
    for page, selector, mine, theirs in differences[:15]:
        print(f"\n{page.relative_to(DATA)}\n  {selector}")
        if mine[0] != "ok" or theirs[0] != "ok":
            print(f"  mend:   {str(mine)[:300]}\n  parsel: {str(theirs)[:300]}")
            continue
        at = next(
            (i for i, (a, b) in enumerate(zip(mine[1], theirs[1])) if a != b),
            min(len(mine[1]), len(theirs[1])),
        )
        print(f"  {len(mine[1])} nodes against {len(theirs[1])}; the first difference, at {at}:")
        print(f"  mend:   {mine[1][at:at + 2]!r:.300}\n  parsel: {theirs[1][at:at + 2]!r:.300}")
    if counts["pages"] == 0 or counts["selectors that select something"] == 0:
        print("nothing was compared", file=sys.stderr)
        return 1
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
