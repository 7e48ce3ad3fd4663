//! Knowledge base.
