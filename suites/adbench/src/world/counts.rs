//! The additive counters of delivery. Every reported ratio (CTR, CPC, CVR,
//! cost per conversion) is computed from summed counters, never averaged,
//! so any grouping of the same rows gives consistent ratios.

use std::ops::AddAssign;

/// Delivery counters of one cell (or any sum of cells).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Impressions (`view_count`).
    pub views: u64,
    /// Valid clicks; never more than views.
    pub clicks: u64,
    /// Cost in fen (1/100 CNY).
    pub cost: u64,
    /// Conversions; never more than clicks.
    pub conversions: u64,
    /// Deep conversions; never more than conversions.
    pub deep: u64,
}

impl Counts {
    /// True when nothing was delivered.
    pub fn is_zero(&self) -> bool {
        *self == Counts::default()
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.views += o.views;
        self.clicks += o.clicks;
        self.cost += o.cost;
        self.conversions += o.conversions;
        self.deep += o.deep;
    }
}

impl std::iter::Sum for Counts {
    fn sum<I: Iterator<Item = Counts>>(iter: I) -> Counts {
        let mut t = Counts::default();
        for c in iter {
            t += c;
        }
        t
    }
}
