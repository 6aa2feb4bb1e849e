//! Which entry of the user's store stands for each heal of a crawl job,
//! and a page's output rewritten to cite those entries (`home.rs` records
//! them; every export cites them).
//!
//! It refuses to cite what has no entry: an adaptation whose heal is not
//! among the citations is given a null `id` and `store`, never a worker's.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::job::PageOutput;

/// The entry of the user's store that stands for one heal of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// The pattern's path of names.
    pub pattern: String,
    /// The XPath the heal found; `None` for an abstention.
    pub new_xpath: Option<String>,
    /// The store's tag.
    pub store: String,
    /// The entry's id in it.
    pub id: i64,
    /// Its status when the job came home (`applied`, `proposed`,
    /// `abstained`), or where it stands now once read again from the store
    /// (`home::citations_now`): only `proposed` waits for a person.
    pub status: String,
}

impl Citation {
    /// How review commands name the entry: `TAG:ID`.
    pub fn reference(&self) -> String {
        format!("{}:{}", self.store, self.id)
    }

    /// Whether this is the entry for the heal of `pattern` that found
    /// `new_xpath`.
    pub fn is_for(&self, pattern: &str, new_xpath: Option<&str>) -> bool {
        self.pattern == pattern && self.new_xpath.as_deref() == new_xpath
    }
}

/// The entries that stand for a job's heals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Citations(pub Vec<Citation>);

impl Citations {
    /// The entry for the heal of `pattern` that found `new_xpath`.
    pub fn find(&self, pattern: &str, new_xpath: Option<&str>) -> Option<&Citation> {
        self.0.iter().find(|c| c.is_for(pattern, new_xpath))
    }

    /// Rewrites a page's citations to the entries at home: each
    /// adaptation's `id` and `store` (null when its heal has no entry), and
    /// the records' `_proposals`, the entries its adaptations and the
    /// pending heals that served it stand for that still wait for a person.
    pub fn cite(&self, out: &mut PageOutput) {
        let mut proposals: Vec<String> = Vec::new();
        let mut wait = |c: &Citation| {
            if c.status == "proposed" && !proposals.contains(&c.reference()) {
                proposals.push(c.reference());
            }
        };
        for a in &mut out.adaptations {
            let found = a["pattern"]
                .as_str()
                .and_then(|p| self.find(p, a["new_xpath"].as_str()));
            let a = Arc::make_mut(a);
            match found {
                Some(c) => {
                    a["id"] = c.id.into();
                    a["store"] = c.store.clone().into();
                    wait(c);
                }
                None => {
                    a["id"] = serde_json::Value::Null;
                    a["store"] = serde_json::Value::Null;
                }
            }
        }
        for f in out.fallbacks.iter().filter(|f| f["pending"] == true) {
            if let Some(c) = f["pattern"]
                .as_str()
                .and_then(|p| self.find(p, f["xpath"].as_str()))
            {
                wait(c);
            }
        }
        let proposals = (!proposals.is_empty()).then(|| serde_json::Value::from(proposals));
        out.set_in_records("_proposals", proposals.as_ref());
    }

    /// An exported line with its citations rewritten; lines of pages that
    /// tried no heal are given back as they are.
    pub fn cite_line<'a>(&self, line: &'a str) -> std::borrow::Cow<'a, str> {
        // Only a page with adaptations or fallbacks names a pattern.
        if !line.contains("\"pattern\"") {
            return line.into();
        }
        let Ok(mut out) = serde_json::from_str::<PageOutput>(line) else {
            return line.into();
        };
        self.cite(&mut out);
        serde_json::to_string(&out).map_or(line.into(), Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn citation(pattern: &str, xpath: Option<&str>, id: i64, status: &str) -> Citation {
        Citation {
            pattern: pattern.to_owned(),
            new_xpath: xpath.map(str::to_owned),
            store: "a5b4a8".to_owned(),
            id,
            status: status.to_owned(),
        }
    }

    fn page(adaptations: Value, fallbacks: Value) -> PageOutput {
        PageOutput {
            page: "http://127.0.0.1/p".to_owned(),
            records: vec![json!({"author": "Ann", "_proposals": ["ffffff:9"]})],
            violations: Vec::new(),
            adaptations: serde_json::from_value::<Vec<Value>>(adaptations)
                .unwrap()
                .into_iter()
                .map(Arc::new)
                .collect(),
            fallbacks: serde_json::from_value(fallbacks).unwrap(),
            error: None,
            ticket: None,
        }
    }

    /// Cites `out` with `citations`; checks the adaptations' ids and the
    /// record's `_proposals` against `ids` and `proposals`.
    fn check(citations: &[Citation], mut out: PageOutput, ids: &[Value], proposals: Option<Value>) {
        Citations(citations.to_vec()).cite(&mut out);
        let got: Vec<Value> = out.adaptations.iter().map(|a| a["id"].clone()).collect();
        assert_eq!(got, ids);
        assert_eq!(out.records[0].get("_proposals").cloned(), proposals);
        assert_eq!(out.records[0]["author"], "Ann");
    }

    #[test]
    fn a_heal_applied_at_home_is_cited_and_no_longer_waits() {
        check(
            &[citation("author", Some("//b"), 4, "applied")],
            page(
                json!([{"id": 9, "store": "ffffff", "pattern": "author", "new_xpath": "//b", "status": "proposed"}]),
                json!([]),
            ),
            &[json!(4)],
            None,
        );
    }

    #[test]
    fn a_proposal_at_home_is_cited_by_the_records_of_every_page_it_served() {
        let home = [citation("author", Some("//b"), 7, "proposed")];
        let found = page(
            json!([{"id": 9, "store": "ffffff", "pattern": "author", "new_xpath": "//b"}]),
            json!([]),
        );
        check(&home, found, &[json!(7)], Some(json!(["a5b4a8:7"])));
        let served = page(
            json!([]),
            json!([{"pattern": "author", "xpath": "//b", "pending": true}]),
        );
        check(&home, served, &[], Some(json!(["a5b4a8:7"])));
    }

    #[test]
    fn a_heal_with_no_entry_at_home_cites_nothing_rather_than_a_workers_id() {
        check(
            &[citation("author", Some("//b"), 7, "proposed")],
            page(
                json!([{"id": 9, "store": "ffffff", "pattern": "author", "new_xpath": "//i"},
                       {"id": 10, "store": "ffffff", "pattern": "title", "new_xpath": null}]),
                json!([]),
            ),
            &[Value::Null, Value::Null],
            None,
        );
    }

    #[test]
    fn an_abstention_is_cited_by_its_pattern() {
        check(
            &[citation("title", None, 3, "abstained")],
            page(
                json!([{"id": 10, "store": "ffffff", "pattern": "title", "new_xpath": null}]),
                json!([]),
            ),
            &[json!(3)],
            None,
        );
    }

    #[test]
    fn a_line_without_heals_is_given_back_as_it_is() {
        let citations = Citations(vec![citation("author", Some("//b"), 7, "proposed")]);
        let line = r#"{"page":"p","records":[{"author":"Ann"}],"violations":[],"adaptations":[]}"#;
        assert!(matches!(
            citations.cite_line(line),
            std::borrow::Cow::Borrowed(_)
        ));
        let healed = serde_json::to_string(&page(
            json!([{"id": 9, "store": "ffffff", "pattern": "author", "new_xpath": "//b"}]),
            json!([]),
        ))
        .unwrap();
        let cited: Value = serde_json::from_str(&citations.cite_line(&healed)).unwrap();
        assert_eq!(cited["adaptations"][0]["id"], 7);
        assert_eq!(cited["records"][0]["_proposals"], json!(["a5b4a8:7"]));
    }
}
