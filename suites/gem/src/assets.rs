//! The data GEM-Bench reads: one pinned wheel, unpacked under the host's
//! assets directory.

use adfarm_proto::asset::{Pin, PinnedFile};

/// The `gembench==1.0.9` wheel: GEM-Bench's datasets, its judges'
/// scoring principles, and the reference judge agents (their category codes
/// and scores are checked against ours in the tests).
pub const GEMBENCH: Pin = Pin {
    name: "gembench",
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
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/accuracy_agent.py",
            size: 3420,
            sha256: "de54e42510405d6bcf04e2f20e2a93aac875fb93c42b59c0b73fb3caaa68f326",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/naturalness_agent.py",
            size: 3536,
            sha256: "1e227522a92da1b65af52abd6299847d93fe3467c7fb0385b76f76d6c4945ce4",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/personality_agent.py",
            size: 3857,
            sha256: "f0c6b1c043a3a7d0b70d16dff34f6ffcb378aa2a94bafe428595e3aee68366f2",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/trust_agent.py",
            size: 3380,
            sha256: "799e792b9031331074b8f7529ee7e3ab749cd7a31dcbb087ff007d2c4d112fe9",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/notice_products_agent.py",
            size: 3785,
            sha256: "b325400b3e5426a5af83114688630690491d3cbf634cc9e87372f525f3cbe7a1",
        },
        PinnedFile {
            path: "GemBench/benchmarking/evaluator/laaj_evaluator/agents/click_products_agent.py",
            size: 3728,
            sha256: "f7bcf9b4f3c3b6adcd113409e97408c1d22ee867b5c26670de2d0ea3fc468c51",
        },
    ],
};
