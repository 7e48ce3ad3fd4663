//! GAQL, the Google Ads Query Language, for the simulated Ads API: the
//! subset an ads agent needs, checked by Google's rules and answered from a
//! [`RowSource`].
//!
//! - [`lexer`] and [`parser`]: text to a syntax tree ([`ast`]), with the
//!   character offset of every token;
//! - [`catalog`]: resources, fields, types and what may go with what;
//! - [`validate`]: Google's semantic rules, giving a [`Plan`], with the
//!   operator and value type rules in [`typing`];
//! - [`source`]: the data seam the market implements; [`eval`] runs a plan
//!   over it; [`value`], [`date_range`] and [`pattern`] are the typed pieces.
//!
//! Design decision: a hand-written lexer and recursive-descent parser, no
//! grammar crate. GAQL is small (one statement, six clauses, no nesting
//! beyond a value list), and what matters is Google's *error codes*: the
//! same "unexpected token" is EXPECTED_FROM after SELECT's fields,
//! EXPECTED_BY after ORDER, EXPECTED_AND inside BETWEEN, EXPECTED_LIST after
//! IN. A generated parser (pest, chumsky) reports an expected-token set that
//! would have to be mapped back to those codes case by case; a SQL parser
//! accepts far more than GAQL (OR, joins, functions) and would need fencing
//! on top. Hand-written, each grammar rule names its own error at the token
//! where it fails, and positions come from the lexer for free.

pub mod ast;
pub mod catalog;
pub mod date_range;
pub mod eval;
pub mod lexer;
pub mod parser;
pub mod pattern;
pub mod source;
pub mod typing;
pub mod validate;
pub mod value;

pub use catalog::{DataType, FieldSpec, Resource};
pub use date_range::DateSpan;
pub use eval::{execute, ResultRow};
pub use parser::parse;
pub use source::{Counts, EntityRow, RowSource, StatCell};
pub use validate::{plan, Plan};
pub use value::Value;
