//! The site's content: posts and their comments, made up from the word lists
//! below with a generator seeded by each thing's number, so that every start
//! of the site serves the same text (the sprawl's threads and topics are
//! written with the same prose). It decides what the site says, never how a
//! page is laid out (`html.rs`, `sprawl.rs`) or served (`server.rs`).

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::truth::{Comment, Post, Trap};
use super::{SiteOptions, Variant};

/// Posts per listing page, in both variants.
pub const PER_PAGE: usize = 10;

/// The first post's publication time; each later post comes two days after
/// the one before it.
fn first_published() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 1, 3, 8, 0, 0)
        .single()
        .expect("a valid time")
}

/// Which post plays which part in the blog variant. Numbers beyond the
/// site's post count play none.
pub struct Roles;

impl Roles {
    /// The post that `/old/post-3` redirects to.
    pub const REDIRECTED: usize = 3;
    /// The two posts whose first images have the same bytes.
    pub const SAME_IMAGE: [usize; 2] = [4, 7];
    /// The post that answers after [`super::SLOW_DELAY`].
    pub const SLOW: usize = 5;
    /// The post that answers 500 twice, then 200.
    pub const FAILS_TWICE: usize = 6;
    /// The post that answers 429 once, then 200.
    pub const RATE_LIMITED: usize = 8;
    /// The post whose content a script writes.
    pub const JS_ONLY: usize = 9;
    /// The post whose comments load in chunks behind a button.
    pub const SHOW_MORE: usize = 10;
}

/// Comments of the show-more post shown with the page; each of the
/// [`SHOW_MORE_CHUNKS`] chunks fetched by the button holds as many again.
pub const COMMENTS_PER_CHUNK: usize = 3;
/// Chunks the show-more button fetches before it is removed.
pub const SHOW_MORE_CHUNKS: usize = 3;

/// splitmix64: small, seedable, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    /// A generator for the thing `kind` number `n` (kinds keep the streams
    /// of a post and of a thread with the same number apart).
    pub fn new(kind: u64, n: usize) -> Rng {
        Rng(kind
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(n as u64))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.between(0, items.len() - 1)]
    }
}

const TITLE_STARTS: &[&str] = &[
    "Notes on",
    "A week of",
    "Lessons from",
    "Thinking about",
    "Small fixes for",
    "The trouble with",
    "Revisiting",
    "Against",
    "In praise of",
    "Starting over with",
];

const TITLE_SUBJECTS: &[&str] = &[
    "tidal gardens",
    "sourdough starters",
    "old bicycles",
    "winter light",
    "paper maps",
    "rain barrels",
    "quiet mornings",
    "borrowed tools",
    "hand-bound notebooks",
    "allotment soil",
    "night trains",
    "bread & butter pickles",
    "slow radios",
    "patched jackets",
    "harbour walks",
    "kitchen shelves",
];

const AUTHORS: &[&str] = &[
    "Maren Holt",
    "Idris Okafor",
    "Tomasz Wilk",
    "Ada Ferreira",
    "Noor Haddad",
    "Liesel O'Brien",
];

const COMMENTERS: &[&str] = &[
    "pebble",
    "Jonas K.",
    "allotment_annie",
    "R. Mistry",
    "quietfox",
    "Beatrix",
    "tern",
    "Old Tom",
];

const OPENERS: &[&str] = &[
    "This week",
    "Last spring",
    "Every morning",
    "After the storm",
    "On the first cold day",
    "For a while",
    "Against all advice",
    "Once the kettle had boiled",
];

const SUBJECTS: &[&str] = &[
    "the garden",
    "my neighbour",
    "the old shed",
    "the kettle",
    "our street",
    "the river path",
    "the workbench",
    "the back fence",
];

const PREDICATES: &[&str] = &[
    "needed more care than expected",
    "turned out simpler than it looked",
    "taught me some patience",
    "kept surprising everyone",
    "went quiet for a few days",
    "asked for a second look",
    "became the week's small project",
    "smelled of rain and cut grass",
];

const CLOSERS: &[&str] = &[
    "and that was fine",
    "which I wrote down at once",
    "so I tried again",
    "before anyone noticed",
    "though the cat disagreed",
    "and the notebook filled up",
];

const REMARKS: &[&str] = &[
    "Lovely write-up, thanks.",
    "I tried this last year & it worked.",
    "Could you say more about the second step?",
    "Took me < 10 minutes, honestly.",
    "Same here; the shed is a mystery.",
    "Saving this for the weekend.",
    "My grandmother swore by the \"slow\" way.",
    "Not convinced, but I'll give it a go.",
];

const TAGS: &[&str] = &["garden", "kitchen", "bicycles", "reading", "weather"];

/// The tags of the blog variant, in the order the site lists them.
pub fn tags() -> &'static [&'static str] {
    TAGS
}

/// A subject of the generated prose (`the garden`).
pub fn subject(rng: &mut Rng) -> &'static str {
    rng.pick(SUBJECTS)
}

/// A sentence of the generated prose.
pub fn sentence(rng: &mut Rng) -> String {
    format!(
        "{}, {} {}, {}.",
        rng.pick(OPENERS),
        rng.pick(SUBJECTS),
        rng.pick(PREDICATES),
        rng.pick(CLOSERS)
    )
}

/// A paragraph of two to four sentences.
pub fn paragraph(rng: &mut Rng) -> String {
    let count = rng.between(2, 4);
    (0..count)
        .map(|_| sentence(rng))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` in lower case, every run of other characters than letters and
/// digits a single `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// The number of comments post `n` has: up to four, twelve for the
/// show-more post.
fn comment_count(n: usize, show_more: bool) -> usize {
    if show_more {
        COMMENTS_PER_CHUNK * (SHOW_MORE_CHUNKS + 1)
    } else {
        n % 5
    }
}

/// A comment; the number `k` keeps a post's comments apart.
fn comment(rng: &mut Rng, k: usize) -> Comment {
    let who = rng.pick(COMMENTERS).to_owned();
    let text = format!("{} (#{k})", rng.pick(REMARKS));
    Comment { who, text }
}

/// The trap a post of the blog variant is, when traps are on.
fn trap_of(n: usize, options: &SiteOptions) -> Option<Trap> {
    if options.variant != Variant::Blog {
        return None;
    }
    if options.fast {
        return (options.rate_limited && n == Roles::RATE_LIMITED).then_some(Trap::RateLimitedOnce);
    }
    match n {
        Roles::SLOW => Some(Trap::SlowPost),
        Roles::FAILS_TWICE => Some(Trap::FailsTwice),
        Roles::RATE_LIMITED => Some(Trap::RateLimitedOnce),
        _ => None,
    }
}

/// The media number of post `n`'s image `k` (from 1): `/media/{n}{k}.png`
/// read as decimal, so post 12's second image is `/media/122.png`.
pub fn media_id(n: usize, k: usize) -> usize {
    n * 10 + k
}

/// Post `n` (from 1) of a site whose URLs start with `base` (no trailing
/// slash).
pub fn post(n: usize, base: &str, options: &SiteOptions) -> Post {
    let mut rng = Rng::new(1, n);
    let title = format!(
        "{} {}",
        TITLE_STARTS[n % TITLE_STARTS.len()],
        TITLE_SUBJECTS[(n * 7) % TITLE_SUBJECTS.len()]
    );
    let published = first_published()
        + Duration::days(2 * (n as i64 - 1))
        + Duration::minutes((n as i64 * 37) % 600);
    let blog = options.variant == Variant::Blog;
    let (js_only, show_more) = if options.script_mix {
        (blog && n % 4 == 2, blog && n % 4 == 3)
    } else {
        (blog && n == Roles::JS_ONLY, blog && n == Roles::SHOW_MORE)
    };
    let path = if js_only && !options.script_mix {
        format!("/js/post-{n}/")
    } else {
        format!("/{}/{}-{n}/", published.format("%Y/%m"), slug(&title))
    };
    let author = AUTHORS[(n * 5) % AUTHORS.len()].to_owned();
    let paragraphs = rng.between(2, 5);
    let body = (0..paragraphs).map(|_| paragraph(&mut rng)).collect();
    let images = (1..=1 + n % 3)
        .map(|k| format!("{base}/media/{}.png", media_id(n, k)))
        .collect();
    let comments = (1..=comment_count(n, show_more))
        .map(|k| comment(&mut rng, k))
        .collect();
    let tags = if blog {
        let mut tags = vec![TAGS[n % TAGS.len()].to_owned()];
        if n.is_multiple_of(3) {
            tags.push(TAGS[(n + 2) % TAGS.len()].to_owned());
        }
        tags
    } else {
        Vec::new()
    };
    Post {
        number: n,
        url: format!("{base}{path}"),
        path,
        title,
        date: published.format("%Y-%m-%d").to_string(),
        published,
        modified: published,
        version: 1,
        author,
        body,
        comments,
        images,
        tags,
        js_only,
        show_more,
        trap: trap_of(n, options),
    }
}

/// The paragraph `update_post` adds to a post for its `version`.
pub fn update_paragraph(n: usize, version: u32) -> String {
    let mut rng = Rng::new(2, n * 1000 + version as usize);
    format!("Update {version}: {}", sentence(&mut rng))
}
