//! The change set of an episode: every operation of every committed mutate
//! request, in order, with the day it was made and the agent's note, kept
//! by a [`Recorder`] the harness hands the agent in place of the sandbox.
//! An episode stores it (see `Outcome::changes`) so people can review how
//! an agent managed its account, and why, and so its patch replays on the
//! scenario's start state (see [`super::patch`]): each change keeps the
//! tick and request it was sent in and the operation as sent.

use super::model_agent::operation;
use crate::api::error::GoogleAdsFailure;
use crate::api::mutate::OperationKind;
use crate::api::{MutateOperation, MutateResponse};
use crate::gaql::ResultRow;
use crate::market::Date;
use crate::sandbox::{AdsClient, Sandbox};
use crate::score::explain::{cites_observed, Observed};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One committed operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The simulated day it was made, `YYYY-MM-DD`.
    pub date: String,
    /// `create`, `update` or `remove`.
    pub operation: String,
    /// The resource changed, or the resource type created.
    pub resource: String,
    /// The fields set, by name, as text (money in micros, as the API has it).
    pub fields: BTreeMap<String, String>,
    /// The agent's reason, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Whether the note cites a metric the agent had observed at its
    /// observed value ([`cites_observed`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cites_observed: bool,
    /// When and how it was sent; `None` for a change not made through the
    /// API (a test's, or one stored without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<Sent>,
}

/// Where a change sits in its episode and the operation as sent: what a
/// replay sends again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// The tick it was sent before, counted from the episode's start (the
    /// decision point's).
    pub tick: u64,
    /// Its mutate request among those the agent's decision at `tick`
    /// committed, from 0.
    pub request: u32,
    /// The operation in the `mutate` tool's form ([`operation::write`]).
    pub operation: serde_json::Value,
}

impl Change {
    /// `op` as made on `date`.
    pub fn of(date: Date, op: &MutateOperation) -> Change {
        let text = |fields: &BTreeMap<String, crate::gaql::Value>| {
            fields
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect()
        };
        let (operation, resource, fields) = match &op.kind {
            OperationKind::Create { resource, fields } => {
                ("create", resource.name().to_string(), text(fields))
            }
            OperationKind::Update {
                resource_name,
                fields,
                update_mask,
            } => {
                // A masked field absent from `fields` is cleared.
                let mut set: BTreeMap<String, String> = text(fields);
                for path in update_mask {
                    set.entry(path.clone()).or_insert_with(|| "null".into());
                }
                set.retain(|k, _| update_mask.contains(k));
                ("update", resource_name.clone(), set)
            }
            OperationKind::Remove { resource_name } => {
                ("remove", resource_name.clone(), BTreeMap::new())
            }
        };
        Change {
            date: date.to_string(),
            operation: operation.into(),
            resource,
            fields,
            note: op.change_note.clone(),
            cites_observed: false,
            sent: None,
        }
    }

    /// `op` as made now in `sandbox` in the decision's `request`-th
    /// committed mutate request, its note checked against every value the
    /// agent's searches returned so far.
    pub fn made(sandbox: &Sandbox, op: &MutateOperation, request: u32) -> Change {
        let mut c = Change::of(sandbox.today(), op);
        c.sent = Some(Sent {
            tick: sandbox.market().now().ordinal(),
            request,
            operation: operation::write(op),
        });
        if let Some(note) = &c.note {
            let observed: Vec<Observed> = sandbox
                .observed()
                .iter()
                .map(|(field, value)| Observed::new(*field, *value))
                .collect();
            c.cites_observed = cites_observed(note, &observed);
        }
        c
    }
}

/// The sandbox as an agent's client, keeping the operations of each
/// mutate request that commits (a refused request commits nothing).
pub struct Recorder<'s> {
    sandbox: &'s mut Sandbox,
    changes: &'s mut Vec<Change>,
    /// Mutate requests committed so far.
    committed: u32,
}

impl<'s> Recorder<'s> {
    /// A client of `sandbox` for one decision that appends to `changes`.
    pub fn new(sandbox: &'s mut Sandbox, changes: &'s mut Vec<Change>) -> Recorder<'s> {
        Recorder {
            sandbox,
            changes,
            committed: 0,
        }
    }
}

impl AdsClient for Recorder<'_> {
    fn customer_id(&self) -> u64 {
        self.sandbox.customer_id()
    }

    fn today(&self) -> Date {
        self.sandbox.today()
    }

    fn search(&mut self, query: &str) -> Result<Vec<ResultRow>, GoogleAdsFailure> {
        self.sandbox.search(query)
    }

    fn mutate(
        &mut self,
        operations: Vec<MutateOperation>,
    ) -> Result<MutateResponse, GoogleAdsFailure> {
        let made: Vec<Change> = operations
            .iter()
            .map(|op| Change::made(self.sandbox, op, self.committed))
            .collect();
        // The sandbox's requests are atomic: all of them commit or none.
        let response = self.sandbox.mutate(operations)?;
        if !made.is_empty() {
            self.committed += 1;
        }
        self.changes.extend(made);
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaql::{Resource, Value};

    fn day() -> Date {
        Date::new(2025, 3, 1).expect("a valid date")
    }

    #[test]
    fn an_update_keeps_its_masked_fields_and_its_note() {
        let op = MutateOperation::update(
            "customers/1/adGroupCriteria/2~3",
            [("cpc_bid_micros", Value::Int64(1_150_000))],
        )
        .with_note("pacing: yesterday spent 20.00 of 30.00");
        let c = Change::of(day(), &op);
        assert_eq!(c.date, "2025-03-01");
        assert_eq!(c.operation, "update");
        assert_eq!(c.resource, "customers/1/adGroupCriteria/2~3");
        assert_eq!(
            c.fields,
            BTreeMap::from([("cpc_bid_micros".to_string(), "1150000".to_string())])
        );
        assert_eq!(
            c.note.as_deref(),
            Some("pacing: yesterday spent 20.00 of 30.00")
        );
    }

    #[test]
    fn a_create_names_its_resource_type_and_a_remove_has_no_fields() {
        let create =
            MutateOperation::create(Resource::AdGroup, [("name", Value::String("Shoes".into()))]);
        let c = Change::of(day(), &create);
        assert_eq!(
            (c.operation.as_str(), c.resource.as_str()),
            ("create", "ad_group")
        );
        assert_eq!(c.note, None);
        let r = Change::of(day(), &MutateOperation::remove("customers/1/adGroups/2"));
        assert_eq!(r.operation, "remove");
        assert!(r.fields.is_empty());
    }
}
