//! The Open Bandit Dataset sample, pinned: obp 0.5.7's source distribution
//! ships ZOZOTOWN's logs (random and Bernoulli TS logging policies, 10,000
//! rounds per campaign, 80 items, 3 positions). Digests were measured on the
//! sdist pip downloaded; the asset machinery verifies them on fetch.

use adfarm_proto::asset::{Pin, PinnedFile};

/// Path of the `all` campaign's log under the random logging policy,
/// relative to the asset directory.
pub const RANDOM_ALL: &str = "obp-0.5.7/obp/dataset/obd/random/all/all.csv";
/// Path of the `all` campaign's log under Bernoulli Thompson sampling.
pub const BTS_ALL: &str = "obp-0.5.7/obp/dataset/obd/bts/all/all.csv";

/// `obp==0.5.7`, published on PyPI as an sdist only; paths are inside the
/// tarball (its top directory included).
pub const OBP: Pin = Pin {
    name: "obp",
    package: "obp",
    version: "0.5.7",
    wheel: "obp-0.5.7.tar.gz",
    wheel_sha256: "3060d67fedfcfadf1e7a6f2608987f74412b5eb74d2c567edeb147595c68f2a0",
    files: &[
        PinnedFile {
            path: RANDOM_ALL,
            size: 5_039_451,
            sha256: "7168295b6e0a9eabcf3392320a5dd434e542b68e705d5cd9491499af589812f1",
        },
        PinnedFile {
            path: BTS_ALL,
            size: 5_084_456,
            sha256: "0ad874e4dbf6902f0845dd478ad8dde5ef6903583d3ffaace78411bdad064106",
        },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_an_sdist_with_well_formed_files() {
        assert!(OBP.is_sdist());
        assert_eq!(OBP.dir_name(), "obp-0.5.7");
        assert_eq!(OBP.wheel_sha256.len(), 64);
        for f in OBP.files {
            assert_eq!(f.sha256.len(), 64, "{}", f.path);
            assert!(f.path.starts_with("obp-0.5.7/"), "{}", f.path);
        }
    }
}
