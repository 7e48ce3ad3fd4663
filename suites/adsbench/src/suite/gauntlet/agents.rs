//! The gauntlet's two reference agents, acting only through the Ads API:
//!
//! - [`OracleAgent`] takes the task's `[[oracle]]` steps, each at the
//!   first decision point at or after its time, finding resources by name
//!   with GAQL, and gives the task's cause as its diagnosis: it shows the
//!   task can be passed inside its scope;
//! - [`DoNothingAgent`] reads nothing and changes nothing: the baseline
//!   every task that needs action must fail.

use super::super::agents::{ApiAgent, DecisionPoint};
use super::scope::{Kind, Touch};
use super::task::{OracleOp, OracleStep, SetValue, Task};
use crate::api::error::GoogleAdsFailure;
use crate::api::MutateOperation;
use crate::gaql::{Resource, Value};
use crate::sandbox::{budget_name, AdsClient};

/// Leaves the account alone and diagnoses nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct DoNothingAgent;

impl ApiAgent for DoNothingAgent {
    fn decide(
        &mut self,
        _client: &mut dyn AdsClient,
        _at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        Ok(())
    }
}

/// Takes a task's reference steps and gives its cause as the diagnosis.
#[derive(Debug, Clone)]
pub struct OracleAgent {
    /// The steps with their tick on the market's clock, in time order.
    steps: Vec<(u64, OracleStep)>,
    /// Steps taken so far.
    done: usize,
    diagnosis: Option<String>,
}

impl OracleAgent {
    /// The oracle of `task` (a loaded task: every step's time is valid).
    pub fn new(task: &Task) -> OracleAgent {
        let steps = task.oracle_timeline();
        OracleAgent {
            steps,
            done: 0,
            diagnosis: task.diagnosis.as_ref().map(|d| d.cause.name().to_string()),
        }
    }
}

impl ApiAgent for OracleAgent {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        at: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        let now = at.now.ordinal();
        let due: Vec<OracleStep> = self.steps[self.done..]
            .iter()
            .take_while(|(t, _)| *t <= now)
            .map(|(_, s)| s.clone())
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        let mut ops = Vec::new();
        for step in &due {
            ops.extend(operations(client, step)?);
        }
        self.done += due.len();
        if ops.is_empty() {
            return Ok(());
        }
        client.mutate(ops).map(|_| ())
    }

    fn diagnosis(&self) -> Option<String> {
        self.diagnosis.clone()
    }
}

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_text).unwrap_or_default().to_string()
}

/// (resource name, name) of every live resource of `kind` (keywords:
/// positive ones, by text; ads by their ad group's name).
fn named(
    client: &mut dyn AdsClient,
    kind: Kind,
) -> Result<Vec<(String, String)>, GoogleAdsFailure> {
    let (query, removed_at) = match kind {
        Kind::Campaign => (
            "SELECT campaign.resource_name, campaign.name, campaign.status FROM campaign",
            2,
        ),
        Kind::Budget => (
            "SELECT campaign.id, campaign.name, campaign.status FROM campaign",
            2,
        ),
        Kind::AdGroup => (
            "SELECT ad_group.resource_name, ad_group.name, ad_group.status FROM ad_group",
            2,
        ),
        Kind::Keyword => (
            "SELECT ad_group_criterion.resource_name, ad_group_criterion.keyword.text, \
             ad_group_criterion.status FROM ad_group_criterion \
             WHERE ad_group_criterion.negative = FALSE",
            2,
        ),
        Kind::Ad => (
            "SELECT ad_group_ad.resource_name, ad_group.name, ad_group_ad.status \
             FROM ad_group_ad",
            2,
        ),
    };
    let customer = client.customer_id();
    Ok(client
        .search(query)?
        .into_iter()
        .filter(|r| text(r.values.get(removed_at)) != "REMOVED")
        .map(|r| {
            let resource = match (kind, r.values.first()) {
                (Kind::Budget, Some(Value::Int64(id))) => budget_name(customer, *id as u64),
                (_, v) => text(v),
            };
            (resource, text(r.values.get(1)))
        })
        .collect())
}

/// The mutate operations of one step.
fn operations(
    client: &mut dyn AdsClient,
    step: &OracleStep,
) -> Result<Vec<MutateOperation>, GoogleAdsFailure> {
    let note = format!("oracle step at {}", step.at);
    match step.op {
        OracleOp::Set => {
            let Some(target) = step.target.as_deref().and_then(|t| Touch::parse(t).ok()) else {
                return Ok(Vec::new());
            };
            let value = match &step.value {
                Some(SetValue::Micros(m)) => Value::Int64(*m),
                Some(SetValue::Text(s)) => Value::Enum(s.clone()),
                None => return Ok(Vec::new()),
            };
            Ok(named(client, target.kind)?
                .into_iter()
                .filter(|(_, name)| *name == target.name)
                .map(|(resource, _)| {
                    MutateOperation::update(resource, [(target.field.as_str(), value.clone())])
                        .with_note(&note)
                })
                .collect())
        }
        OracleOp::CreateKeyword | OracleOp::CreateNegative => {
            let group = step.ad_group.as_deref().unwrap_or_default();
            let Some((ad_group, _)) = named(client, Kind::AdGroup)?
                .into_iter()
                .find(|(_, name)| name == group)
            else {
                return Ok(Vec::new());
            };
            let mut fields = vec![
                ("ad_group", Value::ResourceName(ad_group)),
                (
                    "keyword.text",
                    Value::String(step.text.clone().unwrap_or_default()),
                ),
                (
                    "keyword.match_type",
                    Value::Enum(step.match_type.clone().unwrap_or_default().to_uppercase()),
                ),
            ];
            if step.op == OracleOp::CreateNegative {
                fields.push(("negative", Value::Bool(true)));
            }
            if let Some(bid) = step.bid_micros {
                fields.push(("cpc_bid_micros", Value::Int64(bid)));
            }
            Ok(vec![MutateOperation::create(
                Resource::AdGroupCriterion,
                fields,
            )
            .with_note(&note)])
        }
    }
}
