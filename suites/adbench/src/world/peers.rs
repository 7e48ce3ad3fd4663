//! Other advertisers' creatives over the three days before D, the pool
//! `get_top_good_creative` ranks. Peers come and go (each slot hosts a
//! succession of creatives), so the answer moves with the date.

use super::calendar::Day;
use super::catalog::{CreativeType, Industry, SiteSet};
use super::counts::Counts;
use super::rng::{binomial, gamma_factor, hash, mix, poisson, range, uniform};
use super::World;

/// Peer slots per (industry, site set, creative type).
const SLOTS: u64 = 40;

/// A peer creative with its delivery over the three days before D.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerCreative {
    /// Opaque creative id.
    pub id: u64,
    /// What the creative shows, for the agent to learn from.
    pub description: String,
    /// Summed delivery over the three days.
    pub counts: Counts,
}

const HOOKS: [&str; 8] = [
    "opens with a price cut in the first second",
    "shows a real customer testimonial",
    "before/after comparison",
    "countdown to a limited-time offer",
    "close-up product demo",
    "question headline addressed to the viewer",
    "celebrity-style presenter",
    "user-generated footage",
];
const LOOKS: [&str; 6] = [
    "bright high-contrast palette",
    "minimal white background",
    "large bold caption",
    "vertical full-screen layout",
    "three-image grid",
    "warm lifestyle scene",
];
const CALLS: [&str; 5] = [
    "'Download now' button",
    "'Get a quote' form",
    "'Shop now' button",
    "'Book a visit' button",
    "'Follow us' button",
];

impl World {
    /// The peer creatives of an industry, site set and type over D−3..D−1.
    pub fn peer_creatives(
        &self,
        industry: Industry,
        site: SiteSet,
        kind: CreativeType,
    ) -> Vec<PeerCreative> {
        let cls = (industry as u64) << 8 | (site as u64) << 1 | kind as u64;
        let mut out = Vec::new();
        for slot in 0..SLOTS {
            let hs = hash(&[self.seed(), 201, cls, slot]);
            // Each slot's creatives live `life` days; the phase staggers slots.
            let life = range(hs, 5, 30) as i32;
            let phase = range(mix(hs), 0, 29) as i32;
            let mut by_gen: Vec<(i32, Counts)> = Vec::new();
            for back in 1..=3 {
                let day: Day = self.today().plus(-back);
                let gen = (day.0 + phase).div_euclid(life);
                let hg = hash(&[self.seed(), 202, cls, slot, gen as u64]);
                let quality = libm::pow(10.0, uniform(hg, -0.3, 0.3));
                let hd = hash(&[hg, day.0 as u64]);
                let views = poisson(
                    hd,
                    20_000.0 * uniform(mix(hg), 0.3, 3.0) * gamma_factor(mix(hd), 6.0),
                );
                let ctr = industry.base_ctr() * site.ctr_factor() * kind.ctr_factor() * quality;
                let clicks = binomial(mix(hd ^ 1), views, ctr.min(0.3));
                let cost = (clicks as f64 * uniform(mix(hd ^ 2), 80.0, 600.0)).round() as u64;
                let conversions = binomial(
                    mix(hd ^ 3),
                    clicks,
                    (industry.base_cvr() * quality.sqrt()).min(0.6),
                );
                let deep = binomial(mix(hd ^ 4), conversions, industry.deep_rate());
                let c = Counts {
                    views,
                    clicks,
                    cost,
                    conversions,
                    deep,
                };
                match by_gen.iter_mut().find(|(g, _)| *g == gen) {
                    Some((_, acc)) => *acc += c,
                    None => by_gen.push((gen, c)),
                }
            }
            for (gen, counts) in by_gen {
                let hg = hash(&[self.seed(), 202, cls, slot, gen as u64]);
                let description = format!(
                    "{} {}: {}, {}, {}",
                    industry.name().to_lowercase(),
                    kind.name().to_lowercase(),
                    HOOKS[(hg % 8) as usize],
                    LOOKS[((hg >> 8) % 6) as usize],
                    CALLS[((hg >> 16) % 5) as usize]
                );
                out.push(PeerCreative {
                    id: 9_000_000_000 + (hg % 1_000_000_000),
                    description,
                    counts,
                });
            }
        }
        out
    }
}
