//! The site's HTML pages, rendered from its content: the layout every page
//! shares, the blog's listing, tag and about pages, and the post pages of
//! both variants (the plain one, the one a script writes, and the one whose
//! comments load in chunks). Every link is a path on the site; the canonical
//! link is the only absolute URL. Nothing here decides what a page says or
//! when it is served; the sprawl's own pages are in `sprawl.rs`.

use std::fmt::Write;

use super::Variant;
use super::content;
use super::truth::{Comment, Post};

/// The blog's name, in every page's header.
pub const BLOG_NAME: &str = "Tidewater Notes";
/// The sprawl site's name.
pub const SPRAWL_NAME: &str = "Harbour Commons";

/// `text` with the characters HTML and XML give meaning to escaped, for
/// text and for attribute values in double quotes alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The path of an absolute URL of the site.
fn path_of<'a>(url: &'a str, base: &str) -> &'a str {
    url.strip_prefix(base).unwrap_or(url)
}

/// A whole page: head, the site's header and navigation, `main`, a footer.
pub(super) fn layout(variant: Variant, title: &str, head: &str, main: &str) -> String {
    let (name, nav) = match variant {
        Variant::Blog => (
            BLOG_NAME,
            r#"<a href="/">Home</a> <a href="/about/">About</a>"#,
        ),
        Variant::Sprawl => (
            SPRAWL_NAME,
            r#"<a href="/">Home</a> <a href="/forum/">Forum</a> <a href="/wiki/Main_Page">Wiki</a>"#,
        ),
    };
    let feeds = r#"<link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" title="Atom" href="/atom.xml">"#;
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} · {name}</title>
{feeds}
{head}</head>
<body>
<header class="site-header"><a class="home" href="/">{name}</a>
<nav class="site-nav">{nav}</nav>
</header>
<main>
{main}</main>
<footer class="site-footer"><p>© {name}. Text and pictures by the authors.</p></footer>
</body>
</html>
"#,
        title = escape(title),
    )
}

/// The date as people read it, `3 January 2024`.
fn display_date(post: &Post) -> String {
    post.published.format("%-d %B %Y").to_string()
}

fn datetime(post: &Post) -> String {
    post.published.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// One post in a list of posts: its link, date and summary.
fn summary_item(out: &mut String, post: &Post) {
    let _ = writeln!(
        out,
        r#"<li class="post-summary"><a class="post-link" href="{}">{}</a> <time datetime="{}">{}</time>
<p class="summary">{}</p></li>"#,
        escape(&post.path),
        escape(&post.title),
        datetime(post),
        display_date(post),
        escape(post.summary()),
    );
}

pub(super) fn post_list(posts: &[&Post]) -> String {
    let mut out = String::from("<ul class=\"posts\">\n");
    for post in posts {
        summary_item(&mut out, post);
    }
    out.push_str("</ul>\n");
    out
}

/// The path of blog listing page `page` (from 1).
pub fn listing_path(page: usize) -> String {
    if page == 1 {
        "/".to_owned()
    } else {
        format!("/page/{page}/")
    }
}

/// The links of the home page's "From the archive" box: the traps that are
/// not posts, as `(path, text)`.
pub struct ArchiveLinks<'a>(pub &'a [(&'a str, &'a str)]);

/// Blog listing page `page` of `pages`, listing `posts` (newest first);
/// the home page also links the `archive`.
pub fn blog_listing(page: usize, pages: usize, posts: &[&Post], archive: &ArchiveLinks) -> String {
    let mut main = if page == 1 {
        format!(
            "<h1 class=\"site-title\">{BLOG_NAME}</h1>\n<p class=\"tagline\">Small projects, \
             kept notes.</p>\n"
        )
    } else {
        format!("<h1>Older posts, page {page}</h1>\n")
    };
    main.push_str(&post_list(posts));
    main.push_str("<nav class=\"pager\">");
    if page > 1 {
        let _ = write!(
            main,
            r#"<a class="prev" href="{}">Newer posts</a> "#,
            listing_path(page - 1)
        );
    }
    if page < pages {
        let _ = write!(
            main,
            r#"<a class="next" href="{}">Older posts</a>"#,
            listing_path(page + 1)
        );
    }
    main.push_str("</nav>\n<aside class=\"sidebar\">\n<h2>Tags</h2>\n<ul class=\"tag-list\">\n");
    for tag in content::tags() {
        let _ = writeln!(main, r#"<li><a href="/tag/{tag}/">{tag}</a></li>"#);
    }
    main.push_str(
        "</ul>\n<h2>Elsewhere</h2>\n<ul class=\"elsewhere\">\n<li><a href=\"/about/\">About \
         this blog</a></li>\n<li><a href=\"/private/secret/\">Members' area</a></li>\n</ul>\n",
    );
    if page == 1 && !archive.0.is_empty() {
        main.push_str("<h2>From the archive</h2>\n<ul class=\"archive\">\n");
        for (path, text) in archive.0 {
            let _ = writeln!(main, r#"<li><a href="{path}">{}</a></li>"#, escape(text));
        }
        main.push_str("</ul>\n");
    }
    main.push_str("</aside>\n");
    let title = if page == 1 {
        "Home".to_owned()
    } else {
        format!("Page {page}")
    };
    layout(Variant::Blog, &title, "", &main)
}

/// The page of tag `tag`, listing `posts` (newest first).
pub fn tag_page(tag: &str, posts: &[&Post]) -> String {
    let main = format!(
        "<h1>Posts tagged “{}”</h1>\n{}<p><a href=\"/\">All posts</a></p>\n",
        escape(tag),
        post_list(posts)
    );
    layout(Variant::Blog, &format!("Tag {tag}"), "", &main)
}

/// The about page.
pub fn about_page() -> String {
    let main = format!(
        "<h1>About</h1>\n<p>{BLOG_NAME} is written by a few neighbours who fix, grow and \
         bake things, and write down how it went.</p>\n<p><a href=\"/\">Read the latest \
         posts</a></p>\n"
    );
    layout(Variant::Blog, "About", "", &main)
}

/// The page robots.txt forbids, linking further pages that only a crawler
/// ignoring it would find.
pub fn private_page(variant: Variant, path: &str) -> String {
    let main = format!(
        "<h1>Members only</h1>\n<p>You reached {}.</p>\n<ul>\n<li><a \
         href=\"/private/drafts/\">Drafts</a></li>\n<li><a href=\"/private/accounts/\">Accounts</a></li>\n</ul>\n",
        escape(path)
    );
    layout(variant, "Members only", "", &main)
}

/// The page of a 404.
pub fn not_found_page(variant: Variant) -> String {
    layout(
        variant,
        "Not found",
        "",
        "<h1>Not found</h1>\n<p>Nothing lives here. <a href=\"/\">Home</a></p>\n",
    )
}

/// The `<li>` of each comment.
pub fn comment_items(comments: &[Comment]) -> String {
    let mut out = String::new();
    for c in comments {
        let _ = writeln!(
            out,
            r#"<li class="comment"><span class="who">{}</span><p>{}</p></li>"#,
            escape(&c.who),
            escape(&c.text)
        );
    }
    out
}

/// A post's page as served: the whole article, or for the script-only post
/// an empty article and the script that fills it, or for the show-more post
/// the first comments and the button that loads the rest; `redesigned`
/// gives the article the redesign's markup ([`super::SiteOptions`]).
pub fn post_page(variant: Variant, redesigned: bool, post: &Post, base: &str) -> String {
    let head = format!(
        "<link rel=\"canonical\" href=\"{}\">\n<meta name=\"author\" content=\"{}\">\n",
        escape(&post.url),
        escape(&post.author)
    );
    let main = if post.js_only {
        format!(
            "<article class=\"post\" id=\"post\"></article>\n<noscript><p>This post needs \
             JavaScript.</p></noscript>\n<script>\n{}</script>\n",
            fill_script(post, base)
        )
    } else if redesigned {
        article(post, base)
            .replacen("<h1 class=\"title\">", "<h1 class=\"post-title\">", 1)
            .replacen("<span class=\"author\">", "<span class=\"author-name\">", 1)
    } else {
        article(post, base)
    };
    layout(variant, &post.title, &head, &main)
}

fn article(post: &Post, base: &str) -> String {
    let mut out = format!(
        "<article class=\"post\">\n<h1 class=\"title\">{}</h1>\n<p class=\"meta\">By <span \
         class=\"author\">{}</span> on <time datetime=\"{}\">{}</time></p>\n<div \
         class=\"body\">\n",
        escape(&post.title),
        escape(&post.author),
        datetime(post),
        display_date(post)
    );
    for p in &post.body {
        let _ = writeln!(out, "<p>{}</p>", escape(p));
    }
    out.push_str("</div>\n<ul class=\"images\">\n");
    for (k, img) in post.images.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<li><img src="{}" alt="Figure {}" width="16" height="16"></li>"#,
            escape(path_of(img, base)),
            k + 1
        );
    }
    out.push_str("</ul>\n");
    if !post.tags.is_empty() {
        out.push_str("<p class=\"tags\">Tagged");
        for tag in &post.tags {
            let _ = write!(out, r#" <a rel="tag" href="/tag/{tag}/">{tag}</a>"#);
        }
        out.push_str("</p>\n");
    }
    let shown = if post.show_more {
        &post.comments[..content::COMMENTS_PER_CHUNK.min(post.comments.len())]
    } else {
        &post.comments[..]
    };
    let _ = write!(
        out,
        "<section class=\"discussion\">\n<h2>Comments</h2>\n<ul class=\"comments\">\n{}</ul>\n",
        comment_items(shown)
    );
    if post.show_more {
        let _ = write!(
            out,
            "<button class=\"more\" type=\"button\">Show more comments</button>\n<script>\n{}</script>\n",
            show_more_script(post.number)
        );
    }
    out.push_str("</section>\n</article>\n");
    out
}

/// `value` as JSON that can sit inside a `<script>` element.
fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// The script that writes the script-only post into its empty article,
/// about 200 ms after the page has loaded, with the same markup as a plain
/// post.
fn fill_script(post: &Post, base: &str) -> String {
    let data = serde_json::json!({
        "title": post.title,
        "author": post.author,
        "datetime": datetime(post),
        "date": display_date(post),
        "body": post.body,
        "images": post.images.iter().map(|i| path_of(i, base)).collect::<Vec<_>>(),
        "tags": post.tags,
        "comments": post.comments.iter().map(|c| serde_json::json!({"who": c.who, "text": c.text})).collect::<Vec<_>>(),
    });
    format!(
        r#"var post = {};
function el(tag, attrs, text) {{
  var e = document.createElement(tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}}
setTimeout(function () {{
  var article = document.getElementById("post");
  article.appendChild(el("h1", {{"class": "title"}}, post.title));
  var meta = el("p", {{"class": "meta"}});
  meta.append("By ");
  meta.appendChild(el("span", {{"class": "author"}}, post.author));
  meta.append(" on ");
  meta.appendChild(el("time", {{"datetime": post.datetime}}, post.date));
  article.appendChild(meta);
  var body = el("div", {{"class": "body"}});
  post.body.forEach(function (p) {{ body.appendChild(el("p", {{}}, p)); }});
  article.appendChild(body);
  var images = el("ul", {{"class": "images"}});
  post.images.forEach(function (src, i) {{
    var li = el("li", {{}});
    li.appendChild(el("img", {{"src": src, "alt": "Figure " + (i + 1), "width": "16", "height": "16"}}));
    images.appendChild(li);
  }});
  article.appendChild(images);
  if (post.tags.length) {{
    var tags = el("p", {{"class": "tags"}}, "Tagged");
    post.tags.forEach(function (t) {{
      tags.append(" ");
      tags.appendChild(el("a", {{"rel": "tag", "href": "/tag/" + t + "/"}}, t));
    }});
    article.appendChild(tags);
  }}
  var section = el("section", {{"class": "discussion"}});
  section.appendChild(el("h2", {{}}, "Comments"));
  var list = el("ul", {{"class": "comments"}});
  post.comments.forEach(function (c) {{
    var li = el("li", {{"class": "comment"}});
    li.appendChild(el("span", {{"class": "who"}}, c.who));
    li.appendChild(el("p", {{}}, c.text));
    list.appendChild(li);
  }});
  section.appendChild(list);
  article.appendChild(section);
}}, 200);
"#,
        script_json(&data)
    )
}

/// The script of the show-more button: each click fetches the next chunk
/// of comments and appends it after a short delay; the button goes once the
/// last chunk is in.
fn show_more_script(number: usize) -> String {
    format!(
        r#"(function () {{
  var button = document.querySelector("button.more");
  var list = document.querySelector("ul.comments");
  var next = 1, busy = false;
  button.addEventListener("click", function () {{
    if (busy) return;
    busy = true;
    button.disabled = true;
    fetch("/comments/{number}?chunk=" + next)
      .then(function (r) {{ return r.text(); }})
      .then(function (html) {{
        setTimeout(function () {{
          list.insertAdjacentHTML("beforeend", html);
          next += 1;
          busy = false;
          button.disabled = false;
          if (next > {chunks}) button.remove();
        }}, 150);
      }});
  }});
}})();
"#,
        chunks = content::SHOW_MORE_CHUNKS
    )
}
