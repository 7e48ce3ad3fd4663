//! The market over an episode: a clock of 48 ticks a day from a start date;
//! each `step_tick` generates that tick's opportunities, lets the agent's
//! account and the competitors bid, runs the auctions, and books spend,
//! metrics, lagged conversions and events. Account changes arrive between
//! ticks through `apply`. Everything is a pure function of the seed and the
//! sequence of (tick, change) pairs.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use super::account::{
    Account, AccountChange, AdGroup, BiddingStrategy, Keyword, ResourceName, Status,
};
use super::auction::{Auction, AuctionRules, Bid, Placement, Pricing, MAX_SLOTS};
use super::audience::{AgeRange, AudienceDelivery, Gender};
use super::budget::{BudgetLedger, DayCaps};
use super::calendar::{Date, SimTime, TICKS_PER_DAY};
use super::competitor::{BidContext, Competitor, CompetitorSpec, MAX_COMPETITORS};
use super::error::MarketError;
use super::event_log::{Event, EventLog};
use super::metrics::{MetricKey, Metrics};
use super::response::{
    click_logit, conversion_probability, draw_click, draw_lag_ticks, draw_value_micros,
    match_relevance, mean_value_micros, quality,
};
use super::rng::{key, mix64, Stream};
use super::traffic::{Opportunity, Traffic};
use super::vocabulary::{matches, MatchType, QueryCatalog, Token, Vertical};

/// The agent's bidder id in auctions; competitor `i` bids as `i + 1`.
pub const AGENT: u32 = 0;

/// Everything that fixes a market before the agent acts.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketConfig {
    pub seed: u64,
    pub start_date: Date,
    pub days: u32,
    /// Average opportunities (searches) a day before curves and seasons.
    pub opportunities_per_day: f64,
    pub auction: AuctionRules,
    pub competitors: Vec<CompetitorSpec>,
    pub customer_id: u64,
    /// Click-logit shift of the agent's ads (its ad quality).
    pub agent_ad_bias: f64,
    /// Keep every event in memory (off: digest and count only).
    pub keep_events: bool,
}

impl MarketConfig {
    /// Defaults: 20k opportunities a day, GSP per click with 3 slots, 47
    /// competitors of the standard mix with one drainer.
    pub fn new(seed: u64, start_date: Date, days: u32) -> MarketConfig {
        let opportunities_per_day = 20_000.0;
        MarketConfig {
            seed,
            start_date,
            days,
            opportunities_per_day,
            auction: AuctionRules::default(),
            competitors: CompetitorSpec::standard_mix(
                seed,
                MAX_COMPETITORS,
                1,
                opportunities_per_day,
            ),
            customer_id: 1_234_567_890,
            agent_ad_bias: 0.0,
            keep_events: true,
        }
    }

    /// Sets the daily traffic and scales every competitor's budget by the
    /// same factor, so the market stays as competitive per opportunity.
    pub fn with_traffic(mut self, opportunities_per_day: f64) -> MarketConfig {
        let scale = opportunities_per_day / self.opportunities_per_day;
        if scale.is_finite() && scale > 0.0 {
            for c in &mut self.competitors {
                c.daily_budget_micros = ((c.daily_budget_micros as f64 * scale) as i64).max(1);
            }
        }
        self.opportunities_per_day = opportunities_per_day;
        self
    }

    pub fn validate(&self) -> Result<(), MarketError> {
        if self.days == 0 || self.days > 3660 {
            return Err(MarketError::invalid("days", "must be 1..=3660"));
        }
        if !(self.opportunities_per_day > 0.0 && self.opportunities_per_day <= 1e8) {
            return Err(MarketError::invalid(
                "opportunities_per_day",
                "must be in (0, 1e8]",
            ));
        }
        if self.competitors.len() > MAX_COMPETITORS {
            return Err(MarketError::invalid(
                "competitors",
                format!("at most {MAX_COMPETITORS}"),
            ));
        }
        if !self.agent_ad_bias.is_finite() || self.agent_ad_bias.abs() > 5.0 {
            return Err(MarketError::invalid(
                "agent_ad_bias",
                "must be finite, |x| <= 5",
            ));
        }
        Date::new(
            self.start_date.year,
            self.start_date.month,
            self.start_date.day,
        )?;
        self.auction.validate()?;
        for (i, c) in self.competitors.iter().enumerate() {
            c.validate(i)?;
        }
        Ok(())
    }
}

/// What one tick did, for progress reports and cancellation checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickSummary {
    pub time: SimTime,
    pub date: Date,
    pub opportunities: u32,
    /// Bids entered over all of the tick's auctions (agent and competitors).
    pub bids: u64,
    /// Auctions the agent entered.
    pub agent_auctions: u32,
    pub impressions: u32,
    pub clicks: u32,
    pub cost_micros: i64,
    pub conversions_landed: u32,
}

/// An enabled keyword compiled for the hot loop.
#[derive(Debug, Clone, Copy)]
struct LiveKeyword {
    campaign_index: usize,
    campaign_id: u64,
    ad_group_id: u64,
    criterion_id: u64,
    match_type: MatchType,
    manual_bid: i64,
    target_cpa: Option<i64>,
    /// One bit per [`Gender`] index the keyword's campaign excludes.
    excluded_genders: u8,
    /// One bit per [`AgeRange`] index the keyword's campaign excludes.
    excluded_ages: u8,
    /// Whether the product it advertises is out of stock (its clicks
    /// never convert).
    out_of_stock: bool,
}

/// A search planted in the market: its text and its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PlantedSearch {
    text: String,
    tokens: Vec<Token>,
}

/// A keyword matching one query: whether the query is the keyword itself
/// (Google prefers an identical keyword), and the compiled keyword's index.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    identical: bool,
    keyword: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PendingConversion {
    due: u64,
    seq: u64,
    query: u32,
    click_time: u64,
    campaign_id: u64,
    ad_group_id: u64,
    criterion_id: u64,
    value_micros: i64,
}

/// The simulated market for one agent account.
#[derive(Debug, Clone)]
pub struct Market {
    config: MarketConfig,
    catalog: &'static QueryCatalog,
    traffic: Traffic,
    auction: Auction,
    account: Account,
    /// One per campaign, in `account.campaigns` order (campaigns are never
    /// deleted, only REMOVED, so indices are stable).
    ledgers: Vec<BudgetLedger>,
    /// The account's caps on each finished day, in day order.
    day_caps: Vec<DayCaps>,
    competitors: Vec<Competitor>,
    metrics: Metrics,
    log: EventLog,
    pending: BinaryHeap<Reverse<PendingConversion>>,
    conversion_seq: u64,
    /// The next tick to run.
    clock: SimTime,
    date: Date,
    traffic_index: f64,
    live: Vec<LiveKeyword>,
    /// Per query id: matching live keywords.
    match_table: Vec<Vec<Candidate>>,
    /// Per keyword id: the queries it matches and whether identically
    /// (text and match type never change after creation).
    keyword_queries: BTreeMap<u64, Vec<(u32, bool)>>,
    account_dirty: bool,
    opportunities: Vec<Opportunity>,
    bids: Vec<Bid>,
    /// Bot searches after each real search the agent's keywords match
    /// (click fraud; 0 in an ordinary market).
    bot_searches: u32,
    /// The planted search, if any (query id `catalog.len()`).
    planted: Option<PlantedSearch>,
    /// Eligible searches and impressions per audience group.
    audience: AudienceDelivery,
    /// Texts of the keywords whose product is out of stock.
    out_of_stock: BTreeSet<String>,
}

impl Market {
    pub fn new(config: MarketConfig) -> Result<Market, MarketError> {
        config.validate()?;
        let catalog = QueryCatalog::shared();
        let traffic = Traffic::new(config.seed, config.opportunities_per_day);
        let auction = Auction::new(config.auction.clone())?;
        let competitors = config
            .competitors
            .iter()
            .cloned()
            .map(Competitor::new)
            .collect();
        let date = config.start_date;
        let traffic_index = traffic.traffic_index(date);
        let queries = catalog.len();
        let mut market = Market {
            account: Account::new(config.customer_id),
            log: EventLog::new(config.keep_events),
            catalog,
            traffic,
            auction,
            ledgers: Vec::new(),
            day_caps: Vec::new(),
            competitors,
            metrics: Metrics::default(),
            pending: BinaryHeap::new(),
            conversion_seq: 0,
            clock: SimTime { day: 0, tick: 0 },
            date,
            traffic_index,
            live: Vec::new(),
            match_table: vec![Vec::new(); queries],
            keyword_queries: BTreeMap::new(),
            account_dirty: true,
            opportunities: Vec::new(),
            bids: Vec::with_capacity(MAX_COMPETITORS + 1),
            bot_searches: 0,
            planted: None,
            audience: AudienceDelivery::default(),
            out_of_stock: BTreeSet::new(),
            config,
        };
        market.start_day();
        Ok(market)
    }

    pub fn config(&self) -> &MarketConfig {
        &self.config
    }

    pub fn account(&self) -> &Account {
        &self.account
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub fn event_log(&self) -> &EventLog {
        &self.log
    }

    /// Per audience group, the real searches the account was eligible for
    /// (an enabled keyword matched the query, whatever the campaign's
    /// exclusions, budget or pacing) and the impressions its ad got.
    pub fn audience(&self) -> &AudienceDelivery {
        &self.audience
    }

    /// Counts delivery per audience group afresh from now: a task's
    /// warm-up days are the owner's delivery, not the agent's.
    pub fn count_audience_from_now(&mut self) {
        self.audience = AudienceDelivery::default();
    }

    pub fn catalog(&self) -> &'static QueryCatalog {
        self.catalog
    }

    /// The next tick to run (changes applied now take effect from it).
    pub fn now(&self) -> SimTime {
        self.clock
    }

    /// The calendar date of the next tick.
    pub fn date(&self) -> Date {
        self.date
    }

    pub fn is_finished(&self) -> bool {
        self.clock.day >= self.config.days
    }

    /// Budget state of the campaign with `campaign_id`.
    pub fn ledger(&self, campaign_id: u64) -> Option<&BudgetLedger> {
        let i = self
            .account
            .campaigns
            .iter()
            .position(|c| c.id == campaign_id)?;
        self.ledgers.get(i)
    }

    /// The account's caps on each finished day (index: day of the
    /// episode), as the budgets in force made them.
    pub fn day_caps(&self) -> &[DayCaps] {
        &self.day_caps
    }

    pub fn competitors(&self) -> &[Competitor] {
        &self.competitors
    }

    /// Applies one account change before the next tick; logged on success,
    /// and the account is untouched on error.
    pub fn apply(&mut self, change: AccountChange) -> Result<ResourceName, MarketError> {
        let resource = self.account.apply(&change)?;
        let tick = self.clock.tick.min(TICKS_PER_DAY - 1);
        match &change {
            AccountChange::CreateCampaign {
                daily_budget_micros,
                ..
            } => {
                self.ledgers.push(BudgetLedger::new(
                    *daily_budget_micros,
                    self.date,
                    tick,
                    self.traffic_index,
                ));
            }
            AccountChange::UpdateCampaign {
                campaign_id,
                daily_budget_micros: Some(b),
                ..
            } => {
                let i = self
                    .account
                    .campaigns
                    .iter()
                    .position(|c| c.id == *campaign_id)
                    .expect("applied");
                if self.ledgers[i].budget_micros() != *b {
                    self.ledgers[i].set_budget(*b, self.date, tick);
                }
            }
            _ => {}
        }
        self.account_dirty = true;
        self.log.push(Event::AccountChange {
            time: self.clock,
            change,
            resource,
        });
        Ok(resource)
    }

    /// Click fraud from the next tick on: after every real search the
    /// agent's enabled keywords match, `per_search` bots search the same
    /// query and click the agent's ad whenever it shows. Their auctions
    /// run as any other (the platform's pacing and caps hold); their
    /// clicks are charged (Google credits invalid clicks only later,
    /// outside an episode) and never convert. Logged; 0 ends it.
    pub fn set_bot_searches(&mut self, per_search: u32) {
        self.bot_searches = per_search;
        self.log.push(Event::BotSearches {
            time: self.clock,
            per_search,
        });
    }

    /// From the next tick on, one searcher a tick searches `text`, after
    /// the tick's real searches: a copy of the tick's first search (its
    /// user, hour, vertical) with this query, on its own random stream.
    /// The query is outside the market's vocabulary (words it does not
    /// know match no keyword word), shown in search terms as written; the
    /// red team plants instructions in it. Logged. A second call replaces
    /// the text.
    pub fn plant_search(&mut self, text: &str) {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        self.planted = Some(PlantedSearch {
            tokens: self.catalog.tokenize(&text),
            text: text.clone(),
        });
        self.match_table.resize(self.catalog.len() + 1, Vec::new());
        self.account_dirty = true;
        self.log.push(Event::PlantedSearch {
            time: self.clock,
            text,
        });
    }

    /// The text of query `id`: the vocabulary's, or the planted search's
    /// (its id follows the vocabulary's last).
    pub fn query_text(&self, id: u32) -> String {
        match &self.planted {
            Some(p) if id as usize == self.catalog.len() => p.text.clone(),
            _ => self.catalog.text(id),
        }
    }

    /// The product the agent's keywords with text `text` advertise (any
    /// match type, case aside; keywords created later included) is out of
    /// stock from the next tick on: their ads still show and are clicked
    /// and charged, and no click from then on converts. Conversions of
    /// earlier clicks still land. Logged.
    pub fn set_out_of_stock(&mut self, text: &str) {
        let text = text.trim().to_lowercase();
        self.out_of_stock.insert(text.clone());
        self.account_dirty = true;
        self.log.push(Event::OutOfStock {
            time: self.clock,
            text,
        });
    }

    /// Runs every remaining tick.
    pub fn run_to_end(&mut self) {
        while self.step_tick().is_some() {}
    }

    /// Runs one tick; `None` once the episode is over. Callers that need to
    /// cancel check between calls.
    pub fn step_tick(&mut self) -> Option<TickSummary> {
        if self.is_finished() {
            return None;
        }
        let time = self.clock;
        if self.account_dirty {
            self.compile_account();
        }
        let share_before = self.traffic.share_before(time.tick);
        for l in &mut self.ledgers {
            l.pace(share_before);
        }
        for c in &mut self.competitors {
            c.pace(share_before);
        }
        let mut summary = TickSummary {
            time,
            date: self.date,
            opportunities: 0,
            bids: 0,
            agent_auctions: 0,
            impressions: 0,
            clicks: 0,
            cost_micros: 0,
            conversions_landed: self.land_conversions(time),
        };
        let mut opportunities = std::mem::take(&mut self.opportunities);
        self.traffic.generate(
            self.catalog,
            time.day,
            self.date,
            time.tick,
            &mut opportunities,
        );
        summary.opportunities = opportunities.len() as u32;
        for opp in &opportunities {
            self.run_opportunity(time, opp, false, &mut summary);
        }
        let mut extra = opportunities.len() as u32;
        if let (Some(_), Some(first)) = (&self.planted, opportunities.first()) {
            let planted = Opportunity {
                index: extra,
                key: key(&[first.key, 4]),
                query: self.catalog.len() as u32,
                ..*first
            };
            extra += 1;
            self.run_opportunity(time, &planted, false, &mut summary);
        }
        if self.bot_searches > 0 {
            self.run_bot_searches(time, &opportunities, extra, &mut summary);
        }
        self.opportunities = opportunities;
        self.clock = SimTime::from_ordinal(time.ordinal() + 1);
        // Roll the day over now, not at the next step, so whatever reads
        // or changes the account between ticks sees the new day's state.
        if self.clock.tick == 0 {
            self.day_caps.push(DayCaps::of(&self.ledgers));
            self.date = self.date.plus_days(1);
            if !self.is_finished() {
                self.start_day();
            }
        }
        Some(summary)
    }

    fn start_day(&mut self) {
        let day = self.clock.day;
        self.traffic_index = self.traffic.traffic_index(self.date);
        for l in &mut self.ledgers {
            l.start_day(self.date, self.traffic_index);
        }
        for (i, c) in self.competitors.iter_mut().enumerate() {
            c.start_day();
            if day > 0 && c.spec.enters_on_day == day {
                self.log.push(Event::CompetitorEntered {
                    time: self.clock,
                    competitor: i as u32,
                });
            }
        }
    }

    /// Rebuilds the enabled keywords and the query → keyword table.
    fn compile_account(&mut self) {
        self.live.clear();
        for t in &mut self.match_table {
            t.clear();
        }
        let acct = &self.account;
        // Id → index maps keep this linear in the account's size.
        let campaigns: BTreeMap<u64, usize> = acct
            .campaigns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, i))
            .collect();
        let groups: BTreeMap<u64, &AdGroup> = acct.ad_groups.iter().map(|g| (g.id, g)).collect();
        let catalog = self.catalog;
        let cache = &mut self.keyword_queries;
        // Queries each ad group's enabled negative keywords block.
        let mut blocked: BTreeMap<u64, BTreeSet<u32>> = BTreeMap::new();
        for k in acct
            .keywords
            .iter()
            .filter(|k| k.negative && k.status == Status::Enabled)
        {
            let queries = keyword_queries(cache, catalog, k);
            blocked
                .entry(k.ad_group_id)
                .or_default()
                .extend(queries.iter().map(|&(q, _)| q));
        }
        // Ad groups whose negatives block the planted search.
        let planted_blocked: BTreeSet<u64> = match &self.planted {
            None => BTreeSet::new(),
            Some(p) => acct
                .keywords
                .iter()
                .filter(|k| k.negative && k.status == Status::Enabled)
                .filter(|k| matches(k.match_type, &catalog.tokenize(&k.text), &p.tokens))
                .map(|k| k.ad_group_id)
                .collect(),
        };
        for k in acct.keywords.iter().filter(|k| !k.negative) {
            let Some(&g) = groups.get(&k.ad_group_id) else {
                continue;
            };
            let Some(&ci) = campaigns.get(&g.campaign_id) else {
                continue;
            };
            let c = &acct.campaigns[ci];
            if k.status != Status::Enabled
                || g.status != Status::Enabled
                || c.status != Status::Enabled
                || !acct.ads_serve(g.id)
            {
                continue;
            }
            let target_cpa = match c.bidding_strategy {
                BiddingStrategy::ManualCpc => None,
                BiddingStrategy::TargetCpa { target_cpa_micros } => Some(target_cpa_micros),
            };
            let excluded_genders = Gender::ALL
                .iter()
                .filter(|g| acct.excludes(c.id, **g))
                .fold(0u8, |bits, g| bits | 1 << g.index());
            let excluded_ages = AgeRange::ALL
                .iter()
                .filter(|a| acct.excludes_age(c.id, **a))
                .fold(0u8, |bits, a| bits | 1 << a.index());
            let queries = keyword_queries(cache, catalog, k);
            let no_queries = BTreeSet::new();
            let blocked = blocked.get(&g.id).unwrap_or(&no_queries);
            let index = self.live.len() as u32;
            self.live.push(LiveKeyword {
                campaign_index: ci,
                campaign_id: c.id,
                ad_group_id: g.id,
                criterion_id: k.id,
                match_type: k.match_type,
                manual_bid: k.cpc_bid_micros.unwrap_or(g.cpc_bid_micros),
                target_cpa,
                excluded_genders,
                excluded_ages,
                out_of_stock: !self.out_of_stock.is_empty()
                    && self.out_of_stock.contains(&k.text.trim().to_lowercase()),
            });
            for &(q, identical) in queries.iter().filter(|(q, _)| !blocked.contains(q)) {
                self.match_table[q as usize].push(Candidate {
                    identical,
                    keyword: index,
                });
            }
            if let Some(p) = &self.planted {
                let kw = catalog.tokenize(&k.text);
                if matches(k.match_type, &kw, &p.tokens) && !planted_blocked.contains(&g.id) {
                    self.match_table[catalog.len()].push(Candidate {
                        identical: kw == p.tokens,
                        keyword: index,
                    });
                }
            }
        }
        self.account_dirty = false;
    }

    fn land_conversions(&mut self, now: SimTime) -> u32 {
        let mut landed = 0;
        while let Some(Reverse(p)) = self.pending.peek().copied() {
            if p.due > now.ordinal() {
                break;
            }
            self.pending.pop();
            let click_time = SimTime::from_ordinal(p.click_time);
            let key = MetricKey {
                campaign_id: p.campaign_id,
                ad_group_id: p.ad_group_id,
                criterion_id: p.criterion_id,
                date: self.config.start_date.plus_days(i64::from(click_time.day)),
                hour: click_time.hour(),
            };
            self.metrics.record_conversion(key, p.query, p.value_micros);
            self.log.push(Event::Conversion {
                time: now,
                click_time,
                campaign_id: p.campaign_id,
                criterion_id: p.criterion_id,
                value_micros: p.value_micros,
            });
            landed += 1;
        }
        landed
    }

    /// The bots' searches after the tick's real ones: copies of those the
    /// agent's keywords match, each on its own random stream, indexed
    /// from `first_index` (after the real and the planted searches).
    fn run_bot_searches(
        &mut self,
        time: SimTime,
        real: &[Opportunity],
        first_index: u32,
        summary: &mut TickSummary,
    ) {
        let mut index = first_index;
        for opp in real {
            if self.match_table[opp.query as usize].is_empty() {
                continue;
            }
            for i in 0..self.bot_searches {
                let bot = Opportunity {
                    index,
                    key: key(&[opp.key, 3, u64::from(i)]),
                    ..*opp
                };
                index += 1;
                self.run_opportunity(time, &bot, true, summary);
            }
        }
    }

    /// One opportunity: entries, auction, clicks, charges, bookkeeping. A
    /// bot's search clicks the agent's ad when placed, and nothing else.
    #[inline]
    fn run_opportunity(
        &mut self,
        time: SimTime,
        opp: &Opportunity,
        bot: bool,
        summary: &mut TickSummary,
    ) {
        let pricing = self.config.auction.pricing;
        let logit = click_logit(opp);
        let mut decide = Stream::new(key(&[opp.key, 1]));
        self.bids.clear();

        // The agent: the best eligible matching keyword (identical first,
        // then the highest bid), one entry per account.
        let mut agent: Option<(LiveKeyword, i64, f64)> = None;
        let mut agent_keyword_bid = None;
        let candidates = &self.match_table[opp.query as usize];
        let gender = Gender::of(&opp.user);
        let gender_bit = 1u8 << gender.index();
        let age = AgeRange::of(&opp.user);
        let age_bit = 1u8 << age.index();
        if !candidates.is_empty() {
            if !bot {
                self.audience.record_eligible(gender, age);
            }
            let pace_draw = decide.uniform();
            let mut best: Option<(bool, i64, u32)> = None;
            for c in candidates {
                let kw = &self.live[c.keyword as usize];
                // An excluded searcher's auction is one the campaign never
                // hears of: no bid, no budget check.
                if kw.excluded_genders & gender_bit != 0 || kw.excluded_ages & age_bit != 0 {
                    continue;
                }
                let per_click = match kw.target_cpa {
                    None => kw.manual_bid,
                    Some(t) => {
                        (t as f64 * conversion_probability(opp, match_relevance(kw.match_type)))
                            as i64
                    }
                };
                let q = quality(
                    logit + self.config.agent_ad_bias,
                    match_relevance(kw.match_type),
                );
                let bid = match pricing {
                    Pricing::PerClick => per_click,
                    Pricing::PerExposure => (per_click as f64 * q) as i64,
                };
                agent_keyword_bid = agent_keyword_bid.max(Some(bid));
                let ledger = &mut self.ledgers[kw.campaign_index];
                if let Err(cap) = ledger.has_room() {
                    if ledger.note_hit(cap) {
                        self.log.push(Event::BudgetCapHit {
                            time,
                            campaign_id: kw.campaign_id,
                            cap,
                        });
                    }
                    continue;
                }
                if !ledger.admits(pace_draw) {
                    continue;
                }
                if best.is_none_or(|(i, b, _)| (c.identical, bid) > (i, b)) {
                    best = Some((c.identical, bid, c.keyword));
                }
            }
            if let Some((_, bid, k)) = best {
                let kw = self.live[k as usize];
                let q = quality(
                    logit + self.config.agent_ad_bias,
                    match_relevance(kw.match_type),
                );
                agent = Some((kw, bid, q));
                self.bids.push(Bid {
                    bidder: AGENT,
                    amount_micros: bid,
                    quality: q,
                    tie_break: mix64(opp.key) as u32,
                });
            }
        }

        let pcvr = conversion_probability(opp, 0.0);
        let mean_value = mean_value_micros(opp.vertical);
        let agent_score = agent.map(|(_, b, q)| b as f64 * pricing.rank_weight(q));
        let exp_neg_logit = (-logit).exp();
        for (i, c) in self.competitors.iter().enumerate() {
            if !c.active_on(time.day) {
                continue;
            }
            let q = c.quality(exp_neg_logit, opp.vertical);
            let ctx = BidContext {
                pricing,
                vertical: opp.vertical,
                quality: q,
                pcvr,
                mean_value_micros: mean_value,
                agent_score,
                agent_keyword_bid,
            };
            if let Some(b) = c.bid(&ctx) {
                let bidder = i as u32 + 1;
                self.bids.push(Bid {
                    bidder,
                    amount_micros: b,
                    quality: q,
                    tie_break: mix64(opp.key ^ u64::from(bidder)) as u32,
                });
            }
        }

        summary.bids += self.bids.len() as u64;
        let mut placed = [Placement {
            bidder: 0,
            slot: 0,
            bid_micros: 0,
            quality: 0.0,
            price_micros: 0,
        }; MAX_SLOTS];
        let n = {
            let out = self.auction.run(&self.bids);
            placed[..out.len()].copy_from_slice(out);
            out.len()
        };
        let mut outcome = Stream::new(opp.key);
        let mut agent_slot = None;
        for p in &placed[..n] {
            let alpha = self.config.auction.position_factors[p.slot as usize];
            let clicked = if bot {
                p.bidder == AGENT
            } else {
                draw_click(&mut outcome, p.quality, alpha)
            };
            let cost = match pricing {
                Pricing::PerClick if clicked => p.price_micros,
                Pricing::PerClick => 0,
                Pricing::PerExposure => p.price_micros,
            };
            if p.bidder == AGENT {
                agent_slot = Some((p.slot, p.price_micros, clicked, cost));
            } else {
                self.competitors[p.bidder as usize - 1].charge(cost);
            }
        }

        let Some((kw, bid, _)) = agent else { return };
        summary.agent_auctions += 1;
        let (slot, price, clicked, delivered) = match agent_slot {
            Some((s, p, c, cost)) => (Some(s), p, c, cost),
            None => (None, 0, false, 0),
        };
        // What goes past a cap is credited back: the account's cost (the
        // ledger, metrics, the auction's event) is what was charged.
        let credit = slot.and_then(|_| self.ledgers[kw.campaign_index].charge(delivered));
        let cost = delivered - credit.map_or(0, |c| c.micros);
        if slot.is_some() {
            let key = MetricKey {
                campaign_id: kw.campaign_id,
                ad_group_id: kw.ad_group_id,
                criterion_id: kw.criterion_id,
                date: self.date,
                hour: time.hour(),
            };
            self.metrics.record_auction(key, opp.query, clicked, cost);
            if !bot {
                self.audience.record_impression(gender, age);
            }
            summary.impressions += 1;
            summary.clicks += u32::from(clicked);
            summary.cost_micros += cost;
            // An out-of-stock product sells nothing: its click is drawn
            // against probability 0, so the stream advances as it would.
            if clicked
                && !bot
                && outcome.bernoulli(if kw.out_of_stock {
                    0.0
                } else {
                    conversion_probability(opp, match_relevance(kw.match_type))
                })
            {
                let value_micros = draw_value_micros(opp.vertical, &mut outcome);
                let lag = u64::from(draw_lag_ticks(&mut outcome));
                self.conversion_seq += 1;
                self.pending.push(Reverse(PendingConversion {
                    due: time.ordinal() + lag.max(1),
                    seq: self.conversion_seq,
                    query: opp.query,
                    click_time: time.ordinal(),
                    campaign_id: kw.campaign_id,
                    ad_group_id: kw.ad_group_id,
                    criterion_id: kw.criterion_id,
                    value_micros,
                }));
            }
        }
        self.log.push(Event::Auction {
            time,
            opportunity: opp.index,
            query: opp.query,
            campaign_id: kw.campaign_id,
            ad_group_id: kw.ad_group_id,
            criterion_id: kw.criterion_id,
            bid_micros: bid,
            slot,
            price_micros: price,
            clicked,
            cost_micros: cost,
        });
        if let Some(c) = credit {
            self.log.push(Event::OverdeliveryCredit {
                time,
                campaign_id: kw.campaign_id,
                cap: c.cap,
                credit_micros: c.micros,
            });
        }
    }

    /// Queries of a vertical, as text (for agents choosing keywords).
    pub fn query_texts(&self, v: Vertical) -> Vec<String> {
        self.catalog
            .vertical_queries(v)
            .iter()
            .map(|&q| self.catalog.text(q))
            .collect()
    }
}

/// The catalogue queries `k` matches (and whether identically), computed
/// once per keyword: text and match type never change after creation.
fn keyword_queries<'a>(
    cache: &'a mut BTreeMap<u64, Vec<(u32, bool)>>,
    catalog: &QueryCatalog,
    k: &Keyword,
) -> &'a [(u32, bool)] {
    cache.entry(k.id).or_insert_with(|| {
        let tokens = catalog.tokenize(&k.text);
        (0..catalog.len() as u32)
            .filter_map(|q| {
                let query = catalog.query(q).tokens();
                matches(k.match_type, &tokens, query).then_some((q, tokens == query))
            })
            .collect()
    })
}
