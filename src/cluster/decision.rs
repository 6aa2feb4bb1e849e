//! One decision per change, counted across a job's workers.
//!
//! A local run writes a heal only when it held on `adapt.min_pages` of the
//! pages that broke the same way (`runtime::ledger`). A crawl job's item
//! pages are spread over workers, so no worker sees enough of them: each
//! page's verdict goes into `mend_heal_pages` instead. A worker reads the
//! heals still open, offers them to its page before searching
//! (`Runtime::offer_pending`), heals in `propose` mode, and records what
//! held on the page, or that nothing did. Once a heal has held on
//! `min_pages` pages, counted over every worker, the worker that saw it
//! happen decides it: under the job's advisory lock it runs the local
//! decision again over the first pages that heal held on, in `auto` mode,
//! and publishes what that writes as the job's next wrapper version.
//! When the job ends, a heal that held on fewer pages stays a proposal, as
//! in a local run.
//!
//! The module only reads and writes the table; running the decision is
//! the worker's (`worker.rs`), which holds the job's healing state.
//!
//! ## What it refuses
//!
//! A page votes for a heal only with an adaptation `proposed` or `applied`,
//! or a pending heal that served it; a rejected or abstaining adaptation
//! votes for nothing, and a fallback to an XPath of the wrapper's history is
//! no vote. A page counts once per pattern and wrapper version, its first
//! verdict: a page leased again adds nothing. Its bytes are kept only with a
//! vote for a heal, and only while that heal has fewer than `keep` pages
//! kept. An open heal whose pattern does not parse as a pattern path is not
//! offered.

use tokio_postgres::Client;
use url::Url;

use super::BackendError;
use crate::fetch::Page;
use crate::job::PageOutput;
use crate::wrapper::PatternPath;

/// What one page says about one pattern that broke on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vote {
    /// The pattern that broke.
    pub pattern: String,
    /// The heal that held on the page; `None` when nothing did.
    pub new_xpath: Option<String>,
    /// Whether the page found the heal itself (rather than took one that
    /// another page found).
    pub found: bool,
}

/// A heal with the pages it held on so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The pattern it heals.
    pub pattern: String,
    /// The XPath it writes.
    pub new_xpath: String,
    /// Pages it held on, over all workers.
    pub held: i64,
    /// Pages on which the pattern broke, over all workers.
    pub broke: i64,
}

/// The votes of a page, read from its output in `propose` mode: each heal
/// it found (an adaptation with a new XPath), each pattern it abstained on,
/// and each pending heal that served it (its fallbacks marked pending).
pub fn votes_of(out: &PageOutput) -> Vec<Vote> {
    let text = |v: &serde_json::Value, key: &str| v[key].as_str().map(str::to_owned);
    let mut votes: Vec<Vote> = Vec::new();
    for a in &out.adaptations {
        let Some(pattern) = text(a, "pattern") else {
            continue;
        };
        let healed = matches!(a["status"].as_str(), Some("proposed" | "applied"));
        let new_xpath = text(a, "new_xpath").filter(|_| healed);
        votes.push(Vote {
            pattern,
            found: new_xpath.is_some(),
            new_xpath,
        });
    }
    for f in out.fallbacks.iter().filter(|f| f["pending"] == true) {
        if let (Some(pattern), Some(xpath)) = (text(f, "pattern"), text(f, "xpath")) {
            votes.push(Vote {
                pattern,
                new_xpath: Some(xpath),
                found: false,
            });
        }
    }
    // A pattern counts once per page: its first verdict, as a page
    // extracts a pattern once.
    let mut seen = std::collections::HashSet::new();
    votes.retain(|v| seen.insert(v.pattern.clone()));
    votes
}

/// The heals of `version` still open, most pages first (then the one found
/// first), as `Runtime::offer_pending` takes them.
pub async fn open_heals(
    client: &Client,
    job: i64,
    version: i32,
) -> Result<Vec<(PatternPath, String)>, BackendError> {
    let rows = client
        .query(
            "SELECT pattern, new_xpath FROM mend_heal_pages
             WHERE job_id = $1 AND wrapper_version = $2 AND new_xpath IS NOT NULL
             GROUP BY pattern, new_xpath
             ORDER BY count(*) DESC, min(voted_at), pattern, new_xpath",
            &[&job, &version],
        )
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let pattern: PatternPath = r.get::<_, &str>(0).parse().ok()?;
            Some((pattern, r.get::<_, String>(1)))
        })
        .collect())
}

/// Records a page's votes at `version` (once per page and pattern: a page
/// leased again after its worker died does not count twice), keeping its
/// bytes while the heal it voted for (or the abstention, so that the job's
/// abstentions come home too) has fewer than `keep` pages kept, and
/// gives the tally of each heal it voted for.
#[allow(clippy::too_many_arguments)]
pub async fn record(
    client: &Client,
    job: i64,
    version: i32,
    worker: &str,
    page: &Page,
    url: &Url,
    votes: &[Vote],
    keep: i64,
) -> Result<Vec<Tally>, BackendError> {
    let mut tallies = Vec::new();
    for vote in votes {
        client
            .execute(
                "INSERT INTO mend_heal_pages
                     (job_id, wrapper_version, pattern, url, new_xpath, found, page, charset, worker)
                 SELECT $1, $2, $3, $4, $5, $6,
                        CASE WHEN (
                            SELECT count(*) FROM mend_heal_pages
                            WHERE job_id = $1 AND wrapper_version = $2 AND pattern = $3
                              AND new_xpath IS NOT DISTINCT FROM $5::TEXT
                              AND page IS NOT NULL) < $9
                        THEN $7::BYTEA END,
                        $8, $10
                 ON CONFLICT DO NOTHING",
                &[
                    &job,
                    &version,
                    &vote.pattern,
                    &url.as_str(),
                    &vote.new_xpath,
                    &vote.found,
                    &page.bytes,
                    &page.charset,
                    &keep,
                    &worker,
                ],
            )
            .await?;
        if let Some(xpath) = &vote.new_xpath {
            tallies.push(tally(client, job, version, &vote.pattern, xpath).await?);
        }
    }
    Ok(tallies)
}

/// How many pages a heal held on, and on how many its pattern broke.
pub async fn tally(
    client: &Client,
    job: i64,
    version: i32,
    pattern: &str,
    xpath: &str,
) -> Result<Tally, BackendError> {
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE new_xpath = $4), count(*) FROM mend_heal_pages
             WHERE job_id = $1 AND wrapper_version = $2 AND pattern = $3",
            &[&job, &version, &pattern, &xpath],
        )
        .await?;
    Ok(Tally {
        pattern: pattern.to_owned(),
        new_xpath: xpath.to_owned(),
        held: row.get(0),
        broke: row.get(1),
    })
}

/// The kept pages a heal held on, the pages that found it first, then in
/// the order they were recorded: what the decision runs over.
pub async fn pages(
    client: &Client,
    job: i64,
    version: i32,
    tally: &Tally,
    limit: i64,
) -> Result<Vec<Page>, BackendError> {
    let rows = client
        .query(
            "SELECT url, page, charset FROM mend_heal_pages
             WHERE job_id = $1 AND wrapper_version = $2 AND pattern = $3 AND new_xpath = $4
               AND page IS NOT NULL
             ORDER BY found DESC, voted_at, url COLLATE \"C\"
             LIMIT $5",
            &[&job, &version, &tally.pattern, &tally.new_xpath, &limit],
        )
        .await?;
    Ok(rows.iter().map(page_of).collect())
}

/// Every page kept for the job's heals, each once, in URL order: what
/// `mend crawl --backend` runs the local decision over to bring a
/// `propose` job's proposals into the user's store.
pub async fn kept_pages(client: &Client, job: i64) -> Result<Vec<Page>, BackendError> {
    let rows = client
        .query(
            "SELECT DISTINCT ON (url) url, page, charset FROM mend_heal_pages
             WHERE job_id = $1 AND page IS NOT NULL
             ORDER BY url, wrapper_version DESC",
            &[&job],
        )
        .await?;
    Ok(rows.iter().map(page_of).collect())
}

/// A kept page from its row: URL, bytes, charset.
fn page_of(row: &tokio_postgres::Row) -> Page {
    let url: String = row.get(0);
    Page {
        url: Url::parse(&url).ok(),
        name: url,
        bytes: row.get(1),
        charset: row.get(2),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(adaptations: serde_json::Value, fallbacks: serde_json::Value, expected: &[Vote]) {
        let out = PageOutput {
            page: "p".into(),
            records: vec![],
            violations: vec![],
            adaptations: serde_json::from_value(adaptations).unwrap(),
            fallbacks: serde_json::from_value(fallbacks).unwrap(),
            error: None,
            ticket: None,
        };
        assert_eq!(votes_of(&out), expected);
    }

    fn vote(pattern: &str, xpath: Option<&str>, found: bool) -> Vote {
        Vote {
            pattern: pattern.into(),
            new_xpath: xpath.map(Into::into),
            found,
        }
    }

    #[test]
    fn a_heal_found_is_a_vote_for_it() {
        check(
            json!([{"pattern": "post/author", "status": "proposed", "new_xpath": "//b"}]),
            json!([]),
            &[vote("post/author", Some("//b"), true)],
        );
    }

    #[test]
    fn an_abstention_or_a_rejection_votes_for_nothing() {
        check(
            json!([
                {"pattern": "a", "status": "abstained", "new_xpath": null},
                {"pattern": "b", "status": "rejected", "new_xpath": "//x"}
            ]),
            json!([]),
            &[vote("a", None, false), vote("b", None, false)],
        );
    }

    #[test]
    fn a_pending_heal_that_served_the_page_is_a_vote_but_a_history_xpath_is_not() {
        check(
            json!([]),
            json!([
                {"pattern": "a", "xpath": "//old"},
                {"pattern": "b", "xpath": "//new", "pending": true}
            ]),
            &[vote("b", Some("//new"), false)],
        );
    }
}
