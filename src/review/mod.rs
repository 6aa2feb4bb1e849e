//! Review of adaptations beyond the command line: stored pages made safe to
//! show (`sanitize`, pure), and the local review page that shows them
//! (`server`, axum on 127.0.0.1).

pub mod sanitize;
pub mod server;
