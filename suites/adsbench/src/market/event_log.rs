//! The episode's event log: every auction the agent entered, every
//! conversion landing, every budget-cap hit, every account change applied,
//! every competitor entry. Each event is written in a fixed little-endian
//! encoding and fed to BLAKE3, so the digest is stable across runs and
//! platforms: same seed + same account changes → same digest.

use super::account::{AccountChange, BiddingStrategy, ResourceName, Status};
use super::ad::Approval;
use super::budget::Cap;
use super::calendar::SimTime;
use super::vocabulary::MatchType;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// An auction the agent entered (placed or not).
    Auction {
        time: SimTime,
        opportunity: u32,
        query: u32,
        campaign_id: u64,
        ad_group_id: u64,
        criterion_id: u64,
        bid_micros: i64,
        /// `None` when the agent was outranked or under the reserve.
        slot: Option<u8>,
        price_micros: i64,
        clicked: bool,
        cost_micros: i64,
    },
    /// A conversion landing `time`, attributed to the click at `click_time`.
    Conversion {
        time: SimTime,
        click_time: SimTime,
        campaign_id: u64,
        criterion_id: u64,
        value_micros: i64,
    },
    /// A campaign's cap started binding: the first auction it sat out
    /// because of `cap` today, or since its budget last changed.
    BudgetCapHit {
        time: SimTime,
        campaign_id: u64,
        cap: Cap,
    },
    /// Delivery past a cap in the auction logged just before: credited
    /// back, so that auction's `cost_micros` is what was charged. Logged
    /// only when a credit is due, so a log without credits hashes as it
    /// did before credits were recorded.
    OverdeliveryCredit {
        time: SimTime,
        campaign_id: u64,
        /// The cap the charge went past.
        cap: Cap,
        credit_micros: i64,
    },
    /// A change applied before the tick at `time`.
    AccountChange {
        time: SimTime,
        change: AccountChange,
        resource: ResourceName,
    },
    CompetitorEntered {
        time: SimTime,
        competitor: u32,
    },
    /// From `time` on, `per_search` bot searches follow every real search
    /// the agent's keywords match, each clicking the agent's ad whenever
    /// it shows (click fraud). Logged only when set, so a log without
    /// click fraud hashes as before.
    BotSearches {
        time: SimTime,
        per_search: u32,
    },
    /// From `time` on, the product the agent's keywords with text `text`
    /// advertise is out of stock: their clicks never convert. Logged only
    /// when set, so a log without a stock change hashes as before.
    OutOfStock {
        time: SimTime,
        text: String,
    },
    /// From `time` on, a searcher searches `text` every tick (the red
    /// team's planted search term). Logged only when set, so a log
    /// without one hashes as before.
    PlantedSearch {
        time: SimTime,
        text: String,
    },
}

/// Canonical byte writer.
struct Enc<'a>(&'a mut Vec<u8>);

impl Enc<'_> {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn time(&mut self, t: SimTime) {
        self.u32(t.day);
        self.u32(t.tick);
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn status(&mut self, s: Status) {
        self.u8(s as u8);
    }
    fn opt<T: Copy>(&mut self, v: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(x) => {
                self.u8(1);
                f(self, x);
            }
        }
    }
    fn strategy(&mut self, s: BiddingStrategy) {
        match s {
            BiddingStrategy::ManualCpc => self.u8(0),
            BiddingStrategy::TargetCpa { target_cpa_micros } => {
                self.u8(1);
                self.i64(target_cpa_micros);
            }
        }
    }
    fn match_type(&mut self, m: MatchType) {
        self.u8(m as u8);
    }
    fn resource(&mut self, r: ResourceName) {
        match r {
            ResourceName::Campaign {
                customer_id,
                campaign_id,
            } => {
                self.u8(0);
                self.u64(customer_id);
                self.u64(campaign_id);
            }
            ResourceName::AdGroup {
                customer_id,
                ad_group_id,
            } => {
                self.u8(1);
                self.u64(customer_id);
                self.u64(ad_group_id);
            }
            ResourceName::Keyword {
                customer_id,
                ad_group_id,
                criterion_id,
            } => {
                self.u8(2);
                self.u64(customer_id);
                self.u64(ad_group_id);
                self.u64(criterion_id);
            }
            ResourceName::Ad {
                customer_id,
                ad_group_id,
                ad_id,
            } => {
                self.u8(3);
                self.u64(customer_id);
                self.u64(ad_group_id);
                self.u64(ad_id);
            }
        }
    }
    fn change(&mut self, c: &AccountChange) {
        match c {
            AccountChange::CreateCampaign {
                name,
                daily_budget_micros,
                status,
                bidding_strategy,
            } => {
                self.u8(0);
                self.str(name);
                self.i64(*daily_budget_micros);
                self.status(*status);
                self.strategy(*bidding_strategy);
            }
            AccountChange::UpdateCampaign {
                campaign_id,
                name,
                daily_budget_micros,
                status,
                bidding_strategy,
            } => {
                self.u8(1);
                self.u64(*campaign_id);
                match name {
                    None => self.u8(0),
                    Some(n) => {
                        self.u8(1);
                        self.str(n);
                    }
                }
                self.opt(*daily_budget_micros, Self::i64);
                self.opt(*status, Self::status);
                self.opt(*bidding_strategy, Self::strategy);
            }
            AccountChange::CreateAdGroup {
                campaign_id,
                name,
                status,
                cpc_bid_micros,
            } => {
                self.u8(2);
                self.u64(*campaign_id);
                self.str(name);
                self.status(*status);
                self.i64(*cpc_bid_micros);
            }
            AccountChange::UpdateAdGroup {
                ad_group_id,
                name,
                status,
                cpc_bid_micros,
            } => {
                self.u8(3);
                self.u64(*ad_group_id);
                match name {
                    None => self.u8(0),
                    Some(n) => {
                        self.u8(1);
                        self.str(n);
                    }
                }
                self.opt(*status, Self::status);
                self.opt(*cpc_bid_micros, Self::i64);
            }
            AccountChange::CreateKeyword {
                ad_group_id,
                text,
                match_type,
                status,
                cpc_bid_micros,
            } => {
                self.u8(4);
                self.u64(*ad_group_id);
                self.str(text);
                self.match_type(*match_type);
                self.status(*status);
                self.opt(*cpc_bid_micros, Self::i64);
            }
            AccountChange::CreateNegativeKeyword {
                ad_group_id,
                text,
                match_type,
            } => {
                self.u8(6);
                self.u64(*ad_group_id);
                self.str(text);
                self.match_type(*match_type);
            }
            AccountChange::UpdateKeyword {
                criterion_id,
                status,
                cpc_bid_micros,
            } => {
                self.u8(5);
                self.u64(*criterion_id);
                self.opt(*status, Self::status);
                self.opt(*cpc_bid_micros, |e, b| e.opt(b, Self::i64));
            }
            AccountChange::SetGenderExclusion {
                campaign_id,
                gender,
                excluded,
            } => {
                self.u8(7);
                self.u64(*campaign_id);
                self.u8(*gender as u8);
                self.u8(u8::from(*excluded));
            }
            AccountChange::SetAgeExclusion {
                campaign_id,
                age,
                excluded,
            } => {
                self.u8(11);
                self.u64(*campaign_id);
                self.u8(*age as u8);
                self.u8(u8::from(*excluded));
            }
            AccountChange::CreateAd {
                ad_group_id,
                copy,
                status,
            } => {
                self.u8(8);
                self.u64(*ad_group_id);
                for texts in [&copy.headlines, &copy.descriptions, &copy.final_urls] {
                    self.u64(texts.len() as u64);
                    for t in texts {
                        self.str(t);
                    }
                }
                self.status(*status);
            }
            AccountChange::UpdateAd { ad_id, status } => {
                self.u8(9);
                self.u64(*ad_id);
                self.status(*status);
            }
            AccountChange::ReviewAd { ad_id, approval } => {
                self.u8(10);
                self.u64(*ad_id);
                match approval {
                    Approval::Approved => self.u8(0),
                    Approval::Disapproved { topic, message } => {
                        self.u8(1);
                        self.str(topic);
                        self.str(message);
                    }
                }
            }
        }
    }
}

impl Event {
    /// Appends the canonical encoding: a tag byte, then fixed-width fields.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut e = Enc(out);
        match self {
            Event::Auction {
                time,
                opportunity,
                query,
                campaign_id,
                ad_group_id,
                criterion_id,
                bid_micros,
                slot,
                price_micros,
                clicked,
                cost_micros,
            } => {
                e.u8(0);
                e.time(*time);
                e.u32(*opportunity);
                e.u32(*query);
                e.u64(*campaign_id);
                e.u64(*ad_group_id);
                e.u64(*criterion_id);
                e.i64(*bid_micros);
                e.opt(*slot, Enc::u8);
                e.i64(*price_micros);
                e.u8(u8::from(*clicked));
                e.i64(*cost_micros);
            }
            Event::Conversion {
                time,
                click_time,
                campaign_id,
                criterion_id,
                value_micros,
            } => {
                e.u8(1);
                e.time(*time);
                e.time(*click_time);
                e.u64(*campaign_id);
                e.u64(*criterion_id);
                e.i64(*value_micros);
            }
            Event::BudgetCapHit {
                time,
                campaign_id,
                cap,
            } => {
                e.u8(2);
                e.time(*time);
                e.u64(*campaign_id);
                e.u8(*cap as u8);
            }
            Event::AccountChange {
                time,
                change,
                resource,
            } => {
                e.u8(3);
                e.time(*time);
                e.change(change);
                e.resource(*resource);
            }
            Event::CompetitorEntered { time, competitor } => {
                e.u8(4);
                e.time(*time);
                e.u32(*competitor);
            }
            Event::OverdeliveryCredit {
                time,
                campaign_id,
                cap,
                credit_micros,
            } => {
                e.u8(5);
                e.time(*time);
                e.u64(*campaign_id);
                e.u8(*cap as u8);
                e.i64(*credit_micros);
            }
            Event::BotSearches { time, per_search } => {
                e.u8(6);
                e.time(*time);
                e.u32(*per_search);
            }
            Event::OutOfStock { time, text } => {
                e.u8(7);
                e.time(*time);
                e.str(text);
            }
            Event::PlantedSearch { time, text } => {
                e.u8(8);
                e.time(*time);
                e.str(text);
            }
        }
    }
}

/// The log: events (optionally kept) and the running digest over them.
#[derive(Debug, Clone)]
pub struct EventLog {
    keep: bool,
    events: Vec<Event>,
    count: u64,
    hasher: blake3::Hasher,
    scratch: Vec<u8>,
}

impl EventLog {
    /// `keep: false` keeps only the digest and count (long benchmarks).
    pub fn new(keep: bool) -> EventLog {
        EventLog {
            keep,
            events: Vec::new(),
            count: 0,
            hasher: blake3::Hasher::new(),
            scratch: Vec::with_capacity(256),
        }
    }

    pub fn push(&mut self, event: Event) {
        self.scratch.clear();
        event.encode(&mut self.scratch);
        // Length-prefixed so event boundaries are part of the digest.
        self.hasher
            .update(&(self.scratch.len() as u32).to_le_bytes());
        self.hasher.update(&self.scratch);
        self.count += 1;
        if self.keep {
            self.events.push(event);
        }
    }

    /// Kept events (empty when the log keeps only its digest).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// BLAKE3 over every event so far, as lowercase hex.
    pub fn digest(&self) -> String {
        self.hasher.finalize().to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_depends_on_content_and_order() {
        let t = SimTime { day: 0, tick: 1 };
        let a = Event::BudgetCapHit {
            time: t,
            campaign_id: 1,
            cap: Cap::Daily,
        };
        let b = Event::CompetitorEntered {
            time: t,
            competitor: 3,
        };
        let mut x = EventLog::new(true);
        let mut y = EventLog::new(false);
        for log in [&mut x, &mut y] {
            log.push(a.clone());
            log.push(b.clone());
        }
        assert_eq!(
            x.digest(),
            y.digest(),
            "keeping events does not change the digest"
        );
        assert_eq!(x.events().len(), 2);
        assert!(y.events().is_empty());
        let mut z = EventLog::new(true);
        z.push(b);
        z.push(a);
        assert_ne!(x.digest(), z.digest());
        // Pinned: the encoding is a compatibility promise for stored digests.
        let mut one = Vec::new();
        Event::BudgetCapHit {
            time: t,
            campaign_id: 1,
            cap: Cap::Monthly,
        }
        .encode(&mut one);
        assert_eq!(one, [2, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_credit_has_its_own_tag_and_leaves_other_encodings_alone() {
        let mut one = Vec::new();
        Event::OverdeliveryCredit {
            time: SimTime { day: 0, tick: 1 },
            campaign_id: 1,
            cap: Cap::Daily,
            credit_micros: 2,
        }
        .encode(&mut one);
        assert_eq!(
            one,
            [5, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
        );
    }
}
