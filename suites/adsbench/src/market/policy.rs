//! The policy seam: an agent decides account changes at fixed points of the
//! simulated clock from what the account can see (its structure, metrics,
//! budget state), and an episode runner alternates decisions and ticks.
//! Policy time is outside the market's own step time.

use super::account::{AccountChange, ResourceName};
use super::calendar::TICKS_PER_DAY;
use super::episode::Market;
use super::error::MarketError;

/// When a policy is asked to act.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cadence {
    /// Before every tick.
    EveryTick,
    /// Before the first tick of each day.
    Daily,
}

impl Cadence {
    fn due(self, tick: u32) -> bool {
        match self {
            Cadence::EveryTick => true,
            Cadence::Daily => tick == 0,
        }
    }
}

/// An agent acting on the account between ticks.
pub trait Policy {
    fn cadence(&self) -> Cadence;

    /// Changes to apply now, in order; `market` is read-only here. The
    /// runner asks again at the same point (up to `MAX_ROUNDS` times) until
    /// the answer is empty, so a policy can create a campaign, learn its id
    /// from `applied`, then create its ad groups.
    fn act(&mut self, market: &Market) -> Vec<AccountChange>;

    /// The outcome of each change, in order.
    fn applied(&mut self, change: &AccountChange, outcome: &Result<ResourceName, MarketError>) {
        let _ = (change, outcome);
    }
}

/// Most `act` rounds at one decision point.
pub const MAX_ROUNDS: u32 = 16;

/// Counts from one episode run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EpisodeRun {
    pub ticks: u64,
    pub decisions: u64,
    pub changes_applied: u64,
    pub changes_rejected: u64,
}

/// Runs `market` to its end under `policy`. `keep_going` is checked before
/// each tick (return false to cancel); rejected changes are reported to the
/// policy and counted, not fatal, as the Ads API would answer them.
pub fn run_episode(
    market: &mut Market,
    policy: &mut dyn Policy,
    mut keep_going: impl FnMut() -> bool,
) -> EpisodeRun {
    let mut run = EpisodeRun::default();
    while !market.is_finished() && keep_going() {
        let now = market.now();
        debug_assert!(now.tick < TICKS_PER_DAY);
        if policy.cadence().due(now.tick) {
            run.decisions += 1;
            for _ in 0..MAX_ROUNDS {
                let changes = policy.act(market);
                if changes.is_empty() {
                    break;
                }
                for change in changes {
                    let outcome = market.apply(change.clone());
                    match outcome {
                        Ok(_) => run.changes_applied += 1,
                        Err(_) => run.changes_rejected += 1,
                    }
                    policy.applied(&change, &outcome);
                }
            }
        }
        market.step_tick();
        run.ticks += 1;
    }
    run
}
