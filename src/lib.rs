//! mend: a self-healing web wrapper runtime.
pub mod dom;
