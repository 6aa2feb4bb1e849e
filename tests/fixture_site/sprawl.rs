//! The sprawl variant's pages besides its posts: the home page, the forum
//! and its threads, the wiki and its topics, and the listing pages that only
//! a few links buried among threads and topics lead to. The layout is a
//! function of the post count alone, so every start links the same pages.

use std::fmt::Write;

use super::Variant;
use super::content::{self, PER_PAGE, Rng};
use super::html::{SPRAWL_NAME, escape, layout, post_list};
use super::truth::Post;

/// The pages of the sprawl variant besides its posts, sized so that posts
/// are about a tenth of all pages: a home page, a forum index and its
/// threads, a wiki main page and its topics, and one listing page per ten
/// posts.
#[derive(Clone, Copy, Debug)]
pub struct Sprawl {
    /// Forum threads, `/forum/t/1` up.
    pub threads: usize,
    /// Wiki topics, `/wiki/Topic_1` up.
    pub topics: usize,
    /// Listing pages, `/list/1` up.
    pub lists: usize,
}

impl Sprawl {
    /// The layout for `posts` posts.
    pub fn new(posts: usize) -> Sprawl {
        let lists = posts.div_ceil(PER_PAGE).max(1);
        // Nine pages that are no item for each post: the home page, the
        // forum index and the wiki main page, the listing pages, and
        // threads and topics in equal parts for the rest.
        let others = (9 * posts).saturating_sub(3 + lists).max(2);
        let threads = others.div_ceil(2);
        Sprawl {
            threads,
            topics: others - threads,
            lists,
        }
    }

    /// The thread that carries the one link to listing page `k` (k ≥ 2),
    /// somewhere in the middle of the forum rather than near its index.
    pub fn thread_linking_list(&self, k: usize) -> usize {
        1 + (k * 37 + self.threads / 2) % self.threads
    }

    /// The topic that carries a second link to listing page `k` (k ≥ 2).
    pub fn topic_linking_list(&self, k: usize) -> usize {
        1 + (k * 53 + self.topics / 3) % self.topics
    }

    /// The threads thread `n` links: the one before and after it and two
    /// further off.
    pub fn thread_links(&self, n: usize) -> Vec<usize> {
        let t = self.threads;
        let mut out = Vec::new();
        for m in [
            n.wrapping_sub(1),
            n + 1,
            1 + (n * 7) % t,
            1 + (n * 13 + 5) % t,
        ] {
            if (1..=t).contains(&m) && m != n && !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// The topics topic `n` links, chosen as [`Sprawl::thread_links`] does.
    pub fn topic_links(&self, n: usize) -> Vec<usize> {
        let w = self.topics;
        let mut out = Vec::new();
        for m in [
            n.wrapping_sub(1),
            n + 1,
            1 + (n * 11) % w,
            1 + (n * 17 + 3) % w,
        ] {
            if (1..=w).contains(&m) && m != n && !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// The title of thread `n`.
    pub fn thread_title(n: usize) -> String {
        let mut rng = Rng::new(3, n);
        format!(
            "{} {}?",
            rng.pick(&[
                "Anyone else seeing",
                "Help with",
                "Thoughts on",
                "Best way to fix"
            ]),
            content::subject(&mut rng)
        )
    }

    /// The title of topic `n`.
    pub fn topic_title(n: usize) -> String {
        format!("Topic {n}")
    }
}

/// The sprawl's home page: the forum, the wiki and the first listing page.
pub fn home() -> String {
    let main = format!(
        "<h1 class=\"site-title\">{SPRAWL_NAME}</h1>\n<ul class=\"sections\">\n<li><a \
         href=\"/forum/\">Forum</a>: questions and answers</li>\n<li><a \
         href=\"/wiki/Main_Page\">Wiki</a>: what we know</li>\n<li><a href=\"/list/1\">Blog \
         posts</a></li>\n<li><a href=\"/private/secret/\">Members' area</a></li>\n</ul>\n"
    );
    layout(Variant::Sprawl, "Home", "", &main)
}

/// The forum's index: the first threads.
pub fn forum_index(sprawl: &Sprawl) -> String {
    let mut main = String::from("<h1>Forum</h1>\n<ul class=\"threads\">\n");
    for n in 1..=sprawl.threads.min(PER_PAGE) {
        let _ = writeln!(
            main,
            r#"<li><a href="/forum/t/{n}">{}</a></li>"#,
            escape(&Sprawl::thread_title(n))
        );
    }
    main.push_str("</ul>\n");
    layout(Variant::Sprawl, "Forum", "", &main)
}

/// A few messages of a thread or lines of a topic.
fn chatter(kind: u64, n: usize) -> String {
    let mut rng = Rng::new(kind, n);
    let mut out = String::new();
    for _ in 0..rng.between(2, 4) {
        let _ = writeln!(out, "<p>{}</p>", escape(&content::sentence(&mut rng)));
    }
    out
}

/// Forum thread `n`: its messages, links to related threads and the index,
/// and, in a few threads, the link to a listing page.
pub fn thread(sprawl: &Sprawl, n: usize) -> String {
    let mut main = format!(
        "<h1>{}</h1>\n<div class=\"thread\">\n{}</div>\n<p class=\"related\">Related:",
        escape(&Sprawl::thread_title(n)),
        chatter(4, n)
    );
    for m in sprawl.thread_links(n) {
        let _ = write!(
            main,
            r#" <a href="/forum/t/{m}">{}</a>"#,
            escape(&Sprawl::thread_title(m))
        );
    }
    main.push_str("</p>\n");
    for k in 2..=sprawl.lists {
        if sprawl.thread_linking_list(k) == n {
            let _ = writeln!(
                main,
                r#"<p class="aside">Someone asked for the <a href="/list/{k}">older blog posts</a>.</p>"#
            );
        }
    }
    main.push_str("<p><a href=\"/forum/\">Back to the forum</a></p>\n");
    layout(Variant::Sprawl, &Sprawl::thread_title(n), "", &main)
}

/// The wiki's main page: the first topics.
pub fn wiki_main(sprawl: &Sprawl) -> String {
    let mut main = String::from("<h1>Wiki</h1>\n<ul class=\"topics\">\n");
    for n in 1..=sprawl.topics.min(PER_PAGE) {
        let _ = writeln!(
            main,
            r#"<li><a href="/wiki/Topic_{n}">{}</a></li>"#,
            Sprawl::topic_title(n)
        );
    }
    main.push_str("</ul>\n");
    layout(Variant::Sprawl, "Wiki", "", &main)
}

/// Wiki topic `n`, linked like a thread.
pub fn topic(sprawl: &Sprawl, n: usize) -> String {
    let mut main = format!(
        "<h1>{}</h1>\n<div class=\"wiki-text\">\n{}</div>\n<p class=\"see-also\">See also:",
        Sprawl::topic_title(n),
        chatter(5, n)
    );
    for m in sprawl.topic_links(n) {
        let _ = write!(
            main,
            r#" <a href="/wiki/Topic_{m}">{}</a>"#,
            Sprawl::topic_title(m)
        );
    }
    main.push_str("</p>\n");
    for k in 2..=sprawl.lists {
        if sprawl.topic_linking_list(k) == n {
            let _ = writeln!(
                main,
                r#"<p class="footnote">An index of <a href="/list/{k}">blog posts</a> was kept here.</p>"#
            );
        }
    }
    main.push_str("<p><a href=\"/wiki/Main_Page\">Main page</a></p>\n");
    layout(Variant::Sprawl, &Sprawl::topic_title(n), "", &main)
}

/// Sprawl listing page `k`: its posts (newest first) and the way home; no
/// link to the other listing pages.
pub fn list_page(k: usize, posts: &[&Post]) -> String {
    let main = format!(
        "<h1>Blog posts, list {k}</h1>\n{}<p><a href=\"/\">Home</a></p>\n",
        post_list(posts)
    );
    layout(Variant::Sprawl, &format!("Blog posts {k}"), "", &main)
}
