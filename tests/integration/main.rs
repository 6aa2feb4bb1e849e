//! mend's integration tests, compiled and linked as one test binary (each
//! `tests/*.rs` file would be a binary of its own, linked against the whole
//! library, which costs most of a test build on a small machine). Each module
//! is what used to be a file of its own; the helpers they share are the
//! modules of `tests/support/`.
//!
//! `cargo test --test integration` runs them; a filter picks a module, e.g.
//! `cargo test --test integration cli_heal::`. `tests/peak_memory.rs` stays a
//! binary of its own: it installs a counting global allocator.

#[path = "../support/mod.rs"]
mod support;

mod cli_backend;
mod cli_change_scope;
mod cli_crawl;
mod cli_crawl_exits;
mod cli_crawl_outputs;
mod cli_drift;
mod cli_env;
mod cli_harden;
mod cli_heal;
mod cli_health;
mod cli_history;
mod cli_learn;
mod cli_review;
mod cli_run;
mod cli_similarity;
mod cli_stdout;
mod cli_template;
mod cli_validate;
mod cli_xpath;
mod core_purity;
mod fixture_site;
mod generate_robustness;
mod generate_transfer;
mod heal_real_pages;
mod heal_robustness;
mod html_robustness;
mod module_layers;
mod readme_walkthrough;
mod render;
mod review_browser;
mod review_page;
mod site_template_swde;
mod swde_booksamillion;
mod test_groups;
mod wrapper_changes;
mod xpath_conformance;
mod xpath_fuzz;
mod xpath_generate_properties;
mod xpath_properties;
