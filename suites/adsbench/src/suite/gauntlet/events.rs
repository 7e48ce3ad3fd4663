//! The task's events on the market, outside the agent's change set:
//! deterministic owner or platform acts at a time, like the harness's
//! drain. Two kinds shape the market before it starts (a competitor's
//! entry is part of its configuration; the promotion is the market's own
//! window, checked when the task loads), five act between ticks (a stock
//! change stops the product's conversions), and a tracking outage acts on
//! what the API serves, not on the market (the sandbox hides conversions
//! from its searches).

use super::super::harness::set_every_budget;
use super::task::{Event, EventKind, Task};
use crate::market::{
    AccountChange, Approval, BiddingStrategy, CompetitorSpec, Market, MarketConfig, MarketError,
    MatchType, ResourceName, Status, Strategy,
};

/// Which competitor an entrant replaces: the market holds at most 47, and
/// the standard mix fills them, so the first (a truthful bidder) makes way.
pub const ENTRANT_SLOT: usize = 0;

/// The entrant's click-logit shift in the task's vertical (its ads are
/// good there) and elsewhere (it barely shows).
const ENTRANT_BIAS: (f64, f64) = (0.8, -4.0);

/// Sets the task's entrants into `config`: a fixed bidder with strong ads
/// in the task's vertical, from its event's day.
pub fn shape_config(task: &Task, config: &mut MarketConfig) {
    for e in task
        .events
        .iter()
        .filter(|e| e.kind == EventKind::CompetitorEntering)
    {
        let (Some(at), Some(bid), Some(budget)) =
            (task.time_of(&e.at), e.bid_micros, e.budget_micros)
        else {
            continue;
        };
        let home = task.vertical.market().index();
        let mut ad_bias = [ENTRANT_BIAS.1; 6];
        ad_bias[home] = ENTRANT_BIAS.0;
        let spec = CompetitorSpec {
            strategy: Strategy::FixedBid { bid_micros: bid },
            daily_budget_micros: budget,
            ad_bias,
            value_scale: [1.0; 6],
            enters_on_day: at.day,
        };
        if let Some(slot) = config.competitors.get_mut(ENTRANT_SLOT) {
            *slot = spec;
        } else {
            config.competitors.push(spec);
        }
    }
}

/// Applies `event` to `market` now (the market's next tick is its time).
/// Kinds the configuration carries (an entrant, the promotion) or the
/// sandbox serves (a tracking outage) do nothing here.
pub fn apply(market: &mut Market, event: &Event) {
    match event.kind {
        EventKind::InvalidTraffic => {
            market.set_bot_searches(event.bot_searches.unwrap_or(1));
        }
        EventKind::BudgetChange => {
            let Some(budget) = event.budget_micros else {
                return;
            };
            // The task's checks keep the amount in range.
            set_every_budget(market, budget);
        }
        EventKind::DisapprovedAd => {
            // The platform's review disapproves every ad of the ad group,
            // so it stops serving (logged, outside the change set).
            let account = market.account();
            let group = account
                .ad_groups
                .iter()
                .find(|g| Some(&g.name) == event.ad_group.as_ref())
                .map(|g| g.id);
            let ads: Vec<u64> = account
                .ads
                .iter()
                .filter(|a| Some(a.ad_group_id) == group)
                .map(|a| a.id)
                .collect();
            for ad_id in ads {
                let _ = market.apply(AccountChange::ReviewAd {
                    ad_id,
                    approval: destination_not_working(),
                });
            }
        }
        EventKind::StockChange => {
            // The product sells out: its keyword's clicks stop converting,
            // so what they cost from now on is wasted.
            if let Some(text) = &event.keyword {
                market.set_out_of_stock(text);
            }
        }
        EventKind::CompetitorEntering | EventKind::Promotion | EventKind::TrackingOutage => {}
    }
}

/// The review a `disapproved-ad` event gives: Google's policy topic for a
/// landing page that does not load.
fn destination_not_working() -> Approval {
    Approval::Disapproved {
        topic: "DESTINATION_NOT_WORKING".into(),
        message: "The final URL does not load, so the ad cannot serve. Fix the landing page \
                  or create a new ad."
            .into(),
    }
}

/// The owner opens `task`'s account on `market` before the first tick:
/// each campaign, its ad group, its keywords and ads, an ad disapproved
/// before the episode reviewed as such (the red team's runner opens its
/// accounts with it).
///
/// # Errors
/// A campaign, ad group or keyword the market refuses (a loaded task's
/// account always opens).
pub fn open_account(task: &Task, market: &mut Market) -> Result<(), MarketError> {
    let single = task.account.campaigns.len() == 1;
    for c in &task.account.campaigns {
        let budget = match c.budget_micros {
            Some(b) => b,
            None if single => task.scenario.budget_micros,
            None => return Err(MarketError::invalid("budget_micros", "required")),
        };
        let ResourceName::Campaign { campaign_id, .. } =
            market.apply(AccountChange::CreateCampaign {
                name: c.name.clone(),
                daily_budget_micros: budget,
                status: Status::parse("status", &c.status)?,
                bidding_strategy: BiddingStrategy::ManualCpc,
            })?
        else {
            return Err(MarketError::invalid("campaign", "not created"));
        };
        let ResourceName::AdGroup { ad_group_id, .. } =
            market.apply(AccountChange::CreateAdGroup {
                campaign_id,
                name: c.ad_group_name(),
                status: Status::Enabled,
                cpc_bid_micros: c.ad_group_bid_micros,
            })?
        else {
            return Err(MarketError::invalid("ad_group", "not created"));
        };
        for k in &c.keywords {
            let match_type = MatchType::parse("match", &k.match_type.to_uppercase())?;
            market.apply(if k.negative {
                AccountChange::CreateNegativeKeyword {
                    ad_group_id,
                    text: k.text.clone(),
                    match_type,
                }
            } else {
                AccountChange::CreateKeyword {
                    ad_group_id,
                    text: k.text.clone(),
                    match_type,
                    status: Status::parse("status", &k.status)?,
                    cpc_bid_micros: k.bid_micros,
                }
            })?;
        }
        for a in c.ads() {
            let ResourceName::Ad { ad_id, .. } = market.apply(AccountChange::CreateAd {
                ad_group_id,
                copy: a.copy(),
                status: Status::parse("status", &a.status)?,
            })?
            else {
                return Err(MarketError::invalid("ads", "not created"));
            };
            if let Some(d) = a.disapproved {
                market.apply(AccountChange::ReviewAd {
                    ad_id,
                    approval: Approval::Disapproved {
                        topic: d.topic,
                        message: d.message,
                    },
                })?;
            }
        }
    }
    Ok(())
}
