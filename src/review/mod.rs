//! Review of adaptations beyond the command line: stored pages made safe to
//! show side by side in the review page.

pub mod sanitize;
