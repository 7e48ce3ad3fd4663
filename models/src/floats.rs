//! Stored floating-point weights widened to f32: the one decoding both
//! model files' readers (GGUF and safetensors) share.

/// A stored floating-point element type (little-endian, as both formats
/// store them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Float {
    F32,
    F16,
    Bf16,
}

/// Every element of `bytes` as f32 (exact: f16 and bf16 widen without
/// rounding). A trailing partial element is ignored; callers check lengths.
pub(crate) fn widen(kind: Float, bytes: &[u8]) -> Vec<f32> {
    match kind {
        Float::F32 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        Float::F16 => bytes
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        Float::Bf16 => bytes
            .chunks_exact(2)
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
    }
}
