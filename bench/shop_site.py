#!/usr/bin/env python3
"""Writes a shop, a static web site unlike the project's fixture blog, for
crawl benchmarks: the crawlers are then measured on markup, URLs and a link
structure the project was not written against.

The shop has categories, each a paginated listing of product cards (24 a
page, `rel="next"` between pages), and a page per product with its name,
price, a table of specifications, a description and breadcrumbs; every
page has a header menu of all categories and a footer of fixed links. The
content comes from a fixed seed, so the same arguments write the same
site. Served with `examples/fixture_site --root DIR`.

Usage:
    python3 bench/shop_site.py DIR [--products N] [--categories K]
"""

import argparse
import html
import os
import random

PER_PAGE = 24
ADJECTIVES = ["Compact", "Sturdy", "Quiet", "Bright", "Folding", "Classic", "Portable", "Smart",
              "Heavy-duty", "Slim", "Wireless", "Recycled"]
NOUNS = ["kettle", "lamp", "backpack", "drill", "chair", "speaker", "tent", "blender", "bicycle pump",
         "desk", "jacket", "thermos"]
BRANDS = ["Norrland", "Castor", "Avenir", "Kestrel", "Morrow", "Tallis", "Quill", "Ondine"]
MATERIALS = ["steel", "oak", "recycled plastic", "aluminium", "canvas", "glass"]
CATEGORIES = ["Kitchen", "Garden", "Outdoor", "Office", "Tools", "Audio", "Lighting", "Travel",
              "Sport", "Home"]


def slug(text):
    out = "".join(c.lower() if c.isalnum() else "-" for c in text)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def layout(title, categories, main):
    menu = "".join(f'<li><a href="/c/{slug(c)}/">{html.escape(c)}</a></li>' for c in categories)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)} | Kestrel Supply</title></head>\n<body>\n"
        f"<header class=\"site\"><a class=\"logo\" href=\"/\">Kestrel Supply</a>"
        f"<nav class=\"menu\"><ul>{menu}</ul></nav></header>\n"
        f"<main id=\"content\">{main}</main>\n"
        "<footer><a href=\"/\">Home</a> <span>Prices include VAT.</span></footer>\n"
        "</body></html>\n"
    )


def product(rng, n, category):
    name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {n}"
    return {
        "id": n,
        "name": name,
        "path": f"/p/{n}-{slug(name)}.html",
        "category": category,
        "price": f"{rng.randint(3, 400)}.{rng.choice(['00', '50', '95', '99'])}",
        "brand": rng.choice(BRANDS),
        "material": rng.choice(MATERIALS),
        "weight": f"{rng.randint(1, 90) / 10:.1f} kg",
        "description": [
            f"The {name.lower()} is made of {rng.choice(MATERIALS)} and built to last.",
            f"Ships in {rng.randint(1, 5)} working days from our warehouse.",
        ][: rng.randint(1, 2)],
    }


def product_page(p, categories):
    specs = "".join(f"<tr><th>{k}</th><td>{html.escape(v)}</td></tr>"
                    for k, v in [("Brand", p["brand"]), ("Material", p["material"]),
                                 ("Weight", p["weight"])])
    desc = "".join(f"<p>{html.escape(t)}</p>" for t in p["description"])
    main = (
        f"<nav class=\"crumbs\"><a href=\"/\">Home</a> › "
        f"<a href=\"/c/{slug(p['category'])}/\">{html.escape(p['category'])}</a></nav>"
        f"<div class=\"product\" itemscope><h1 itemprop=\"name\">{html.escape(p['name'])}</h1>"
        f"<div class=\"buy\"><span class=\"amount\" itemprop=\"price\">{p['price']}</span>"
        f"<span class=\"currency\">EUR</span><button type=\"button\">Add to basket</button></div>"
        f"<table class=\"specs\">{specs}</table><div class=\"desc\">{desc}</div></div>"
    )
    return layout(p["name"], categories, main)


def listing_page(category, page, pages, items, categories):
    cards = "".join(
        f"<div class=\"card\"><a class=\"card-link\" href=\"{p['path']}\"><h3>{html.escape(p['name'])}</h3>"
        f"</a><span class=\"from\">{p['price']} EUR</span></div>" for p in items)
    base = f"/c/{slug(category)}/"
    nav = ""
    if page > 1:
        prev = base if page == 2 else f"{base}page/{page - 1}/"
        nav += f"<a rel=\"prev\" href=\"{prev}\">Previous</a>"
    if page < pages:
        nav += f"<a rel=\"next\" href=\"{base}page/{page + 1}/\">Next</a>"
    main = (f"<h1>{html.escape(category)}</h1><p class=\"count\">Page {page} of {pages}</p>"
            f"<section class=\"grid\">{cards}</section><nav class=\"pages\">{nav}</nav>")
    return layout(f"{category}, page {page}", categories, main)


def write(root, path, text):
    target = os.path.join(root, path.lstrip("/"))
    if target.endswith("/"):
        target += "index.html"
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)


def generate(root, products, categories):
    """Writes the shop into `root`; gives its product pages' paths and the
    number of pages written."""
    rng = random.Random(0x5409)
    cats = CATEGORIES[:categories]
    items = [product(rng, n, cats[n % len(cats)]) for n in range(1, products + 1)]
    written = 0
    for p in items:
        write(root, p["path"], product_page(p, cats))
        written += 1
    for c in cats:
        mine = [p for p in items if p["category"] == c]
        pages = max(1, -(-len(mine) // PER_PAGE))
        for k in range(1, pages + 1):
            chunk = mine[(k - 1) * PER_PAGE:k * PER_PAGE]
            path = f"/c/{slug(c)}/" if k == 1 else f"/c/{slug(c)}/page/{k}/"
            write(root, path, listing_page(c, k, pages, chunk, cats))
            written += 1
    main = "<h1>Kestrel Supply</h1><p>Everything for home, garden and the road.</p>"
    write(root, "/", layout("Welcome", cats, main))
    return [p["path"] for p in items], written + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--products", type=int, default=2000)
    ap.add_argument("--categories", type=int, default=8)
    args = ap.parse_args()
    paths, pages = generate(args.dir, args.products, args.categories)
    print(f"{pages} pages, {len(paths)} products, in {args.dir}")


if __name__ == "__main__":
    main()
