//! Wrappers: the YAML format, its schema, and the typed model it loads into.

mod model;

pub use model::*;
