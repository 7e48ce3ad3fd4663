//! One mutate operation as the `mutate` tool takes it, and back:
//! `{"update": {"resource_name", "fields"}}`, `{"create": {"resource",
//! "fields"}}` or `{"remove": NAME}`, with an optional `note`. A model's
//! calls and a stored episode's patch share this form, so a patch's
//! operations are calls a model could have made.
//!
//! Values read by their JSON kind (numbers keep theirs, strings stay
//! strings: enum and resource-name fields accept them), except where the
//! field's type says otherwise as Google's JSON does: an `INT64` may come
//! as a string of digits and a `DATE` as `YYYY-MM-DD`. Written values take
//! the kind that reads back to the same value.

use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

use crate::api::error::{ErrorCode, GoogleAdsError, GoogleAdsFailure};
use crate::api::mutate::{resource_of, OperationKind};
use crate::api::MutateOperation;
use crate::gaql::catalog::{lookup, DataType};
use crate::gaql::{Resource, Value};
use crate::market::Date;

/// `FieldError.INVALID_VALUE` at `field`.
pub(super) fn invalid(field: &str, message: String) -> GoogleAdsFailure {
    GoogleAdsError::new(ErrorCode::Other("FieldError.INVALID_VALUE"), message)
        .triggered_by(field)
        .into()
}

/// `FieldError.REQUIRED` at `field`.
pub(super) fn required(field: &str) -> GoogleAdsFailure {
    GoogleAdsError::new(
        ErrorCode::Other("FieldError.REQUIRED"),
        format!("{field} is required."),
    )
    .triggered_by(field)
    .into()
}

/// A JSON argument as an API value, by its JSON kind.
fn value_of(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int64(i),
            None => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value_of).collect()),
        Json::Object(_) => Value::String(v.to_string()),
    }
}

/// `v` read as field `path` of `resource` holds it: a string of digits for
/// an `INT64`, a date for a `DATE`; anything else by its JSON kind (the
/// API then judges it).
fn typed(resource: Option<Resource>, path: &str, v: &Json) -> Value {
    let spec = resource.and_then(|r| lookup(&format!("{r}.{path}")));
    match (spec.map(|s| (s.data_type, s.repeated)), v) {
        (Some((DataType::Int64, false)), Json::String(s)) => {
            s.parse::<i64>().map_or_else(|_| value_of(v), Value::Int64)
        }
        (Some((DataType::Date, false)), Json::String(s)) => {
            Date::parse(s).map_or_else(|_| value_of(v), Value::Date)
        }
        _ => value_of(v),
    }
}

fn fields_of(
    resource: Option<Resource>,
    v: Option<&Json>,
    at: &str,
) -> Result<BTreeMap<String, Value>, GoogleAdsFailure> {
    let obj = v
        .and_then(Json::as_object)
        .ok_or_else(|| invalid(at, format!("{at} must be an object of field values")))?;
    Ok(obj
        .iter()
        .map(|(k, v)| (k.clone(), typed(resource, k, v)))
        .collect())
}

/// Operation `i` of a request as written, read into the API's terms.
///
/// # Errors
/// `FieldError.REQUIRED` or `FieldError.INVALID_VALUE` at the operation's
/// path when it is not exactly one of create, update and remove, or its
/// parts are missing or of the wrong kind.
pub fn read(i: usize, op: &Json) -> Result<MutateOperation, GoogleAdsFailure> {
    let at = format!("operations[{i}]");
    let obj = op
        .as_object()
        .ok_or_else(|| invalid(&at, format!("{at} must be an object")))?;
    let note = obj.get("note").and_then(Json::as_str).map(str::to_string);
    let kinds: Vec<&str> = ["update", "create", "remove"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    let made = match kinds.as_slice() {
        ["update"] => {
            let u = &obj["update"];
            let name = u
                .get("resource_name")
                .and_then(Json::as_str)
                .ok_or_else(|| required(&format!("{at}.update.resource_name")))?;
            let resource = resource_of(name).ok();
            let fields = fields_of(resource, u.get("fields"), &format!("{at}.update.fields"))?;
            MutateOperation::update(name, fields.iter().map(|(k, v)| (k.as_str(), v.clone())))
        }
        ["create"] => {
            let c = &obj["create"];
            let resource = c
                .get("resource")
                .and_then(Json::as_str)
                .and_then(|r| Resource::ALL.into_iter().find(|x| x.name() == r))
                .ok_or_else(|| {
                    invalid(
                        &at,
                        format!("{at}.create.resource must name a resource (campaign_budget, campaign, ad_group, ad_group_criterion)"),
                    )
                })?;
            let fields = fields_of(
                Some(resource),
                c.get("fields"),
                &format!("{at}.create.fields"),
            )?;
            MutateOperation::create(
                resource,
                fields.iter().map(|(k, v)| (k.as_str(), v.clone())),
            )
        }
        ["remove"] => {
            let name = obj["remove"]
                .as_str()
                .ok_or_else(|| invalid(&at, format!("{at}.remove must be a resource name")))?;
            MutateOperation::remove(name)
        }
        _ => {
            return Err(invalid(
                &at,
                format!("{at} must hold exactly one of update, create or remove"),
            ))
        }
    };
    Ok(match note {
        Some(n) => made.with_note(n),
        None => made,
    })
}

/// A value as [`read`] takes it back: numbers as JSON numbers, text and
/// dates as strings.
fn json_of(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int64(n) => json!(n),
        // A whole double written as `2.0` still reads back as a double.
        Value::Double(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
        Value::String(s) | Value::Enum(s) | Value::ResourceName(s) => Json::String(s.clone()),
        Value::Date(d) => Json::String(d.to_string()),
        Value::List(items) => Json::Array(items.iter().map(json_of).collect()),
    }
}

fn fields_json(fields: &BTreeMap<String, Value>) -> Json {
    Json::Object(
        fields
            .iter()
            .map(|(k, v)| (k.clone(), json_of(v)))
            .collect::<Map<String, Json>>(),
    )
}

/// `op` in the tool's form, which [`read`] reads back to the same
/// operation. An update's masked fields absent from its values are written
/// as `null` (cleared), as the tool's update clears them.
pub fn write(op: &MutateOperation) -> Json {
    let mut out = match &op.kind {
        OperationKind::Create { resource, fields } => json!({
            "create": {"resource": resource.name(), "fields": fields_json(fields)}
        }),
        OperationKind::Update {
            resource_name,
            fields,
            update_mask,
        } => {
            let mut masked: BTreeMap<String, Value> = update_mask
                .iter()
                .map(|p| (p.clone(), Value::Null))
                .collect();
            for (k, v) in fields {
                if update_mask.contains(k) {
                    masked.insert(k.clone(), v.clone());
                }
            }
            json!({
                "update": {"resource_name": resource_name, "fields": fields_json(&masked)}
            })
        }
        OperationKind::Remove { resource_name } => json!({ "remove": resource_name }),
    };
    if let Some(note) = &op.change_note {
        out["note"] = Json::String(note.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(op: &MutateOperation) -> MutateOperation {
        read(0, &write(op)).expect("a written operation reads back")
    }

    #[test]
    fn written_operations_read_back_to_the_same_operation() {
        let ops = [
            MutateOperation::update(
                "customers/1/adGroupCriteria/2~3",
                [("cpc_bid_micros", Value::Int64(1_150_000))],
            )
            .with_note("pacing: spent 20.00 of 30.00"),
            MutateOperation::update(
                "customers/1/campaigns/2",
                [("status", Value::String("PAUSED".into()))],
            ),
            MutateOperation::create(
                Resource::AdGroupCriterion,
                [
                    ("ad_group", Value::String("customers/1/adGroups/2".into())),
                    ("keyword.text", Value::String("running shoes".into())),
                    ("keyword.match_type", Value::String("EXACT".into())),
                    ("negative", Value::Bool(true)),
                ],
            ),
            MutateOperation::remove("customers/1/adGroups/2"),
        ];
        for op in &ops {
            assert_eq!(&round_trip(op), op, "{}", write(op));
        }
    }

    #[test]
    fn int64_as_digits_and_dates_read_by_the_fields_type() {
        let op = read(
            0,
            &json!({"update": {"resource_name": "customers/1/campaigns/2",
                "fields": {"end_date": "2025-03-09"}}}),
        )
        .expect("an update");
        let OperationKind::Update { fields, .. } = &op.kind else {
            panic!("an update")
        };
        assert_eq!(
            fields["end_date"],
            Value::Date(Date::parse("2025-03-09").expect("a date"))
        );
        let op = read(
            0,
            &json!({"update": {"resource_name": "customers/1/adGroupCriteria/2~3",
                "fields": {"cpc_bid_micros": "1150000", "keyword.text": "42"}}}),
        )
        .expect("an update");
        let OperationKind::Update { fields, .. } = &op.kind else {
            panic!("an update")
        };
        assert_eq!(fields["cpc_bid_micros"], Value::Int64(1_150_000));
        // A string field keeps its digits as text.
        assert_eq!(fields["keyword.text"], Value::String("42".into()));
    }
}
