//! Two scripted agents for baselines: one that sets fixed bids and never
//! touches them, and one that paces with a daily bid rule (raise bids when
//! yesterday under-spent, lower them when it over-spent or the CPA ran
//! above target). Both build the same account on their first decision.

use super::account::{AccountChange, BiddingStrategy, ResourceName, Status};
use super::calendar::Date;
use super::episode::Market;
use super::error::MarketError;
use super::policy::{Cadence, Policy};
use super::vocabulary::MatchType;

/// The account the scripted agents build.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedAccount {
    pub campaign_name: String,
    pub daily_budget_micros: i64,
    pub default_cpc_micros: i64,
    /// (text, match type, max CPC micros).
    pub keywords: Vec<(String, MatchType, i64)>,
}

impl Default for ScriptedAccount {
    fn default() -> Self {
        ScriptedAccount {
            campaign_name: "Running gear".into(),
            daily_budget_micros: 30_000_000,
            default_cpc_micros: 800_000,
            keywords: vec![
                ("running shoes".into(), MatchType::Broad, 1_200_000),
                ("sneakers".into(), MatchType::Phrase, 900_000),
                ("winter jacket".into(), MatchType::Exact, 1_000_000),
                ("backpack".into(), MatchType::Broad, 700_000),
            ],
        }
    }
}

/// The ids of an account [`ScriptedAccount::open`] built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedAccount {
    pub campaign_id: u64,
    pub ad_group_id: u64,
    /// In the spec's keyword order.
    pub keyword_ids: Vec<u64>,
}

impl ScriptedAccount {
    /// Builds the account in `market` now, with the same changes the
    /// scripted policies make over their first decisions.
    ///
    /// # Errors
    /// The first change the market refuses (the field at fault is named).
    pub fn open(&self, market: &mut Market) -> Result<OpenedAccount, MarketError> {
        let mut builder = Builder::default();
        loop {
            let changes = builder.next(self);
            if changes.is_empty() {
                break;
            }
            for change in changes {
                let outcome = market.apply(change);
                builder.applied(&outcome);
                outcome?;
            }
        }
        Ok(OpenedAccount {
            campaign_id: builder.campaign_id.expect("every step applied"),
            ad_group_id: builder.ad_group_id.expect("every step applied"),
            keyword_ids: builder.keyword_ids,
        })
    }
}

/// Builds the account step by step (each step needs the previous id).
#[derive(Debug, Clone, Default)]
struct Builder {
    campaign_id: Option<u64>,
    ad_group_id: Option<u64>,
    keyword_ids: Vec<u64>,
    keywords_requested: bool,
}

impl Builder {
    fn next(&mut self, spec: &ScriptedAccount) -> Vec<AccountChange> {
        match (self.campaign_id, self.ad_group_id) {
            (None, _) => vec![AccountChange::CreateCampaign {
                name: spec.campaign_name.clone(),
                daily_budget_micros: spec.daily_budget_micros,
                status: Status::Enabled,
                bidding_strategy: BiddingStrategy::ManualCpc,
            }],
            (Some(campaign_id), None) => vec![AccountChange::CreateAdGroup {
                campaign_id,
                name: format!("{} ad group", spec.campaign_name),
                status: Status::Enabled,
                cpc_bid_micros: spec.default_cpc_micros,
            }],
            (Some(_), Some(ad_group_id)) if !self.keywords_requested => {
                self.keywords_requested = true;
                spec.keywords
                    .iter()
                    .map(|(text, match_type, bid)| AccountChange::CreateKeyword {
                        ad_group_id,
                        text: text.clone(),
                        match_type: *match_type,
                        status: Status::Enabled,
                        cpc_bid_micros: Some(*bid),
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn applied(&mut self, outcome: &Result<ResourceName, MarketError>) {
        match outcome {
            Ok(ResourceName::Campaign { campaign_id, .. }) if self.campaign_id.is_none() => {
                self.campaign_id = Some(*campaign_id)
            }
            Ok(ResourceName::AdGroup { ad_group_id, .. }) if self.ad_group_id.is_none() => {
                self.ad_group_id = Some(*ad_group_id)
            }
            Ok(ResourceName::Keyword { criterion_id, .. })
                if !self.keyword_ids.contains(criterion_id) =>
            {
                self.keyword_ids.push(*criterion_id)
            }
            _ => {}
        }
    }

    fn built(&self) -> bool {
        self.keywords_requested
    }
}

/// Sets its bids once and leaves them.
#[derive(Debug, Clone, Default)]
pub struct FixedBids {
    pub spec: ScriptedAccount,
    builder: Builder,
}

impl FixedBids {
    pub fn new(spec: ScriptedAccount) -> FixedBids {
        FixedBids {
            spec,
            builder: Builder::default(),
        }
    }
}

impl Policy for FixedBids {
    fn cadence(&self) -> Cadence {
        Cadence::Daily
    }

    fn act(&mut self, _market: &Market) -> Vec<AccountChange> {
        self.builder.next(&self.spec)
    }

    fn applied(&mut self, _change: &AccountChange, outcome: &Result<ResourceName, MarketError>) {
        self.builder.applied(outcome);
    }
}

/// Each morning, scales every keyword bid by yesterday's spend against the
/// budget: × `step` under `low` × B, ÷ `step` over `high` × B, and ÷ `step`
/// when yesterday's CPA exceeded `target_cpa_micros`.
#[derive(Debug, Clone)]
pub struct PacingRule {
    pub spec: ScriptedAccount,
    pub target_cpa_micros: i64,
    pub low: f64,
    pub high: f64,
    pub step: f64,
    builder: Builder,
    decided_on: Option<Date>,
}

impl PacingRule {
    pub fn new(spec: ScriptedAccount, target_cpa_micros: i64) -> PacingRule {
        PacingRule {
            spec,
            target_cpa_micros,
            low: 0.8,
            high: 1.05,
            step: 1.15,
            builder: Builder::default(),
            decided_on: None,
        }
    }

    fn adjust(&mut self, market: &Market) -> Vec<AccountChange> {
        let (Some(campaign_id), true) = (self.builder.campaign_id, market.now().day > 0) else {
            return Vec::new();
        };
        let Some(campaign) = market.account().campaign(campaign_id) else {
            return Vec::new();
        };
        let yesterday = market.date().plus_days(-1);
        let row = market.metrics().campaign_day(campaign_id, yesterday);
        let budget = campaign.daily_budget_micros as f64;
        let spend = row.cost_micros as f64;
        let mut factor = 1.0;
        if spend < self.low * budget {
            factor *= self.step;
        } else if spend > self.high * budget {
            factor /= self.step;
        }
        if row
            .cpa()
            .is_some_and(|cpa| cpa * 1e6 > self.target_cpa_micros as f64)
        {
            factor /= self.step;
        }
        if factor == 1.0 {
            return Vec::new();
        }
        self.builder
            .keyword_ids
            .iter()
            .filter_map(|&id| {
                let k = market.account().keyword(id)?;
                let bid = market.account().effective_cpc_micros(k) as f64 * factor;
                Some(AccountChange::set_keyword_bid(
                    id,
                    (bid.round() as i64).clamp(50_000, 20_000_000),
                ))
            })
            .collect()
    }
}

impl Policy for PacingRule {
    fn cadence(&self) -> Cadence {
        Cadence::Daily
    }

    fn act(&mut self, market: &Market) -> Vec<AccountChange> {
        if !self.builder.built() {
            return self.builder.next(&self.spec);
        }
        // One adjustment a morning, however many rounds the runner asks.
        if self.decided_on == Some(market.date()) {
            return Vec::new();
        }
        self.decided_on = Some(market.date());
        self.adjust(market)
    }

    fn applied(&mut self, _change: &AccountChange, outcome: &Result<ResourceName, MarketError>) {
        self.builder.applied(outcome);
    }
}
