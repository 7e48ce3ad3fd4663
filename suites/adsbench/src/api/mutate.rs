//! `mutate`, as a generic layer: create, update (with a field mask) and
//! remove operations applied to any [`MutableAccount`].
//!
//! Google's request semantics live here, once: a request holds 1 to 10,000
//! operations (else OPERATION_REQUIRED / TOO_MANY_MUTATE_OPERATIONS); it is
//! atomic by default (one failing operation and none is committed, and every
//! failing operation is reported by index); with `partial_failure` the valid
//! operations commit and the others come back as errors located at
//! `operations[i]`; with `validate_only` nothing commits and only errors
//! come back. Later operations see earlier ones of the same request (an ad
//! group may be created in a campaign created just before it), so atomic and
//! validate-only requests run on a clone of the account, which is swapped in
//! only on success.

use super::error::{ErrorCode, GoogleAdsError, GoogleAdsFailure, RequestError};
use crate::gaql::catalog::lookup;
use crate::gaql::{DataType, FieldSpec, Resource, Value};
use std::collections::BTreeMap;

/// The most operations one mutate request may hold.
pub const MAX_OPERATIONS: usize = 10_000;

/// What an operation does.
#[derive(Debug, Clone, PartialEq)]
pub enum OperationKind {
    /// Create a `resource` with these fields (`name`, `status`, `keyword.text`
    /// ..., named relative to the resource as in Google's field masks).
    Create {
        /// The resource type created.
        resource: Resource,
        /// Field values.
        fields: BTreeMap<String, Value>,
    },
    /// Change the fields named in `update_mask` of `resource_name`.
    Update {
        /// The entity changed.
        resource_name: String,
        /// New values; a masked field absent here is cleared.
        fields: BTreeMap<String, Value>,
        /// The fields to change.
        update_mask: Vec<String>,
    },
    /// Remove `resource_name`.
    Remove {
        /// The entity removed.
        resource_name: String,
    },
}

/// One operation and the agent's reason for it.
#[derive(Debug, Clone, PartialEq)]
pub struct MutateOperation {
    /// What to do.
    pub kind: OperationKind,
    /// Why (kept in the account's change history; Google has no such field,
    /// the benchmark asks agents for one).
    pub change_note: Option<String>,
}

impl MutateOperation {
    /// A create without a note.
    pub fn create<'a>(
        resource: Resource,
        fields: impl IntoIterator<Item = (&'a str, Value)>,
    ) -> Self {
        MutateOperation {
            kind: OperationKind::Create {
                resource,
                fields: fields
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            },
            change_note: None,
        }
    }

    /// An update of the given fields (the mask is their names), without a note.
    pub fn update<'a>(
        resource_name: impl Into<String>,
        fields: impl IntoIterator<Item = (&'a str, Value)>,
    ) -> Self {
        let fields: BTreeMap<String, Value> = fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        MutateOperation {
            kind: OperationKind::Update {
                resource_name: resource_name.into(),
                update_mask: fields.keys().cloned().collect(),
                fields,
            },
            change_note: None,
        }
    }

    /// A remove without a note.
    pub fn remove(resource_name: impl Into<String>) -> Self {
        MutateOperation {
            kind: OperationKind::Remove {
                resource_name: resource_name.into(),
            },
            change_note: None,
        }
    }

    /// The same operation with a change note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.change_note = Some(note.into());
        self
    }
}

/// A mutate request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MutateRequest {
    /// The customer whose account changes.
    pub customer_id: u64,
    /// The operations, applied in order.
    pub operations: Vec<MutateOperation>,
    /// Commit the valid operations even if others fail.
    pub partial_failure: bool,
    /// Check only; commit nothing.
    pub validate_only: bool,
}

/// A mutate's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MutateResponse {
    /// Per operation, the resource name it created or changed; `None` for a
    /// failed operation (partial failure) and for every operation of a
    /// validate-only request.
    pub results: Vec<Option<String>>,
    /// With partial failure, the failed operations' errors, located by index.
    pub partial_failure_error: Option<GoogleAdsFailure>,
}

/// An account the mutate layer can change: the market's account model
/// implements it. `Clone` lets atomic and validate-only requests run on a
/// scratch copy.
pub trait MutableAccount: Clone {
    /// The customer id (`customers/{id}`).
    fn customer_id(&self) -> u64;

    /// Checks `op` against the current state, changing nothing.
    ///
    /// # Errors
    /// Why the operation cannot be applied (a resource error such as
    /// `CampaignError.DUPLICATE_CAMPAIGN_NAME`).
    fn validate(&self, op: &MutateOperation) -> Result<(), GoogleAdsError>;

    /// Applies `op`, which [`validate`](Self::validate) accepted on this very
    /// state, and returns the resource name it created or changed.
    fn apply(&mut self, op: &MutateOperation) -> String;
}

/// Runs `request` against `account`.
///
/// # Errors
/// Request errors (no operations, more than 10,000, another customer's
/// account); in atomic mode (and
/// validate-only), every failing operation's error, located at its index,
/// with nothing committed.
pub fn mutate<A: MutableAccount>(
    account: &mut A,
    request: &MutateRequest,
) -> Result<MutateResponse, GoogleAdsFailure> {
    if request.customer_id != account.customer_id() {
        return Err(GoogleAdsError::permission_denied(request.customer_id).into());
    }
    let n = request.operations.len();
    if n == 0 {
        return Err(GoogleAdsError::new(
            ErrorCode::RequestError(RequestError::OperationRequired),
            "A mutate request needs at least one operation.",
        )
        .into());
    }
    if n > MAX_OPERATIONS {
        return Err(GoogleAdsError::new(
            ErrorCode::RequestError(RequestError::TooManyMutateOperations),
            format!("{n} operations in one request; at most {MAX_OPERATIONS}."),
        )
        .triggered_by(n.to_string())
        .into());
    }
    let in_place = request.partial_failure && !request.validate_only;
    let mut scratch = (!in_place).then(|| account.clone());
    let target: &mut A = match scratch.as_mut() {
        Some(copy) => copy,
        None => account,
    };
    let mut results = Vec::with_capacity(n);
    let mut errors = Vec::new();
    for (i, op) in request.operations.iter().enumerate() {
        let checked = check_shape(op).and_then(|()| target.validate(op));
        match checked {
            Ok(()) => results.push(Some(target.apply(op))),
            Err(e) => {
                errors.push(e.at_operation(i));
                results.push(None);
            }
        }
    }
    if request.validate_only {
        return if errors.is_empty() {
            Ok(MutateResponse {
                results: vec![None; n],
                partial_failure_error: None,
            })
        } else {
            Err(GoogleAdsFailure { errors })
        };
    }
    if request.partial_failure {
        return Ok(MutateResponse {
            results,
            partial_failure_error: (!errors.is_empty()).then_some(GoogleAdsFailure { errors }),
        });
    }
    if !errors.is_empty() {
        return Err(GoogleAdsFailure { errors });
    }
    if let Some(committed) = scratch {
        *account = committed;
    }
    Ok(MutateResponse {
        results,
        partial_failure_error: None,
    })
}

/// The resource a resource name names (`customers/1/adGroups/2` is an ad group).
///
/// # Errors
/// `RequestError.RESOURCE_NAME_MALFORMED` for anything else.
pub fn resource_of(resource_name: &str) -> Result<Resource, GoogleAdsError> {
    let parts: Vec<&str> = resource_name.split('/').collect();
    let resource = match parts.as_slice() {
        ["customers", c, kind, id] if is_id(c) && !id.is_empty() => match *kind {
            "campaigns" if is_id(id) => Some(Resource::Campaign),
            "campaignBudgets" if is_id(id) => Some(Resource::CampaignBudget),
            "adGroups" if is_id(id) => Some(Resource::AdGroup),
            "adGroupCriteria" => id
                .split_once('~')
                .filter(|(a, b)| is_id(a) && is_id(b))
                .map(|_| Resource::AdGroupCriterion),
            "campaignCriteria" => id
                .split_once('~')
                .filter(|(a, b)| is_id(a) && is_id(b))
                .map(|_| Resource::CampaignCriterion),
            "adGroupAds" => id
                .split_once('~')
                .filter(|(a, b)| is_id(a) && is_id(b))
                .map(|_| Resource::AdGroupAd),
            _ => None,
        },
        _ => None,
    };
    resource.ok_or_else(|| {
        GoogleAdsError::new(
            ErrorCode::RequestError(RequestError::ResourceNameMalformed),
            format!("'{resource_name}' is not a budget, campaign, ad group, ad group criterion, ad group ad or campaign criterion resource name."),
        )
        .triggered_by(resource_name)
    })
}

/// `IMMUTABLE_FIELD` for the first path of `update_mask` not in `mutable`,
/// the fields of `resource` an account lets an update change.
pub fn check_mutable(
    resource: Resource,
    update_mask: &[String],
    mutable: &[&str],
) -> Result<(), GoogleAdsError> {
    match update_mask.iter().find(|p| !mutable.contains(&p.as_str())) {
        Some(path) => Err(GoogleAdsError::new(
            ErrorCode::RequestError(RequestError::ImmutableField),
            format!("{resource}.{path} cannot be changed."),
        )
        .triggered_by(path.as_str())),
        None => Ok(()),
    }
}

/// `FieldError.REQUIRED`: an operation lacks a value for `key`.
pub fn field_required(key: &str) -> GoogleAdsError {
    GoogleAdsError::new(
        ErrorCode::Other("FieldError.REQUIRED"),
        format!("{key} is required."),
    )
    .triggered_by(key)
}

fn is_id(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The generic checks every account shares: an update names the fields it
/// changes; every field exists on the resource and holds a value of its type.
fn check_shape(op: &MutateOperation) -> Result<(), GoogleAdsError> {
    let (resource, fields) = match &op.kind {
        OperationKind::Create { resource, fields } => (*resource, fields),
        OperationKind::Update {
            resource_name,
            fields,
            update_mask,
        } => {
            let resource = resource_of(resource_name)?;
            if update_mask.is_empty() {
                return Err(GoogleAdsError::new(
                    ErrorCode::Other("FieldMaskError.FIELD_MASK_MISSING"),
                    "An update needs an update mask naming the fields it changes.",
                ));
            }
            for path in update_mask {
                field_spec(resource, path)?;
            }
            (resource, fields)
        }
        OperationKind::Remove { resource_name } => {
            resource_of(resource_name)?;
            return Ok(());
        }
    };
    for (path, value) in fields {
        let spec = field_spec(resource, path)?;
        if !fits(spec.data_type, spec.repeated, value) {
            let code = match (spec.data_type, value) {
                (DataType::Enum(_), Value::Enum(_) | Value::String(_)) => {
                    ErrorCode::RequestError(RequestError::InvalidEnumValue)
                }
                _ => ErrorCode::Other("FieldError.INVALID_VALUE"),
            };
            return Err(GoogleAdsError::new(
                code,
                format!("{value} is not a valid {}.", spec.name),
            )
            .triggered_by(value.to_string()));
        }
    }
    Ok(())
}

fn field_spec(resource: Resource, path: &str) -> Result<&'static FieldSpec, GoogleAdsError> {
    lookup(&format!("{resource}.{path}")).ok_or_else(|| {
        GoogleAdsError::new(
            ErrorCode::Other("FieldMaskError.FIELD_NOT_FOUND"),
            format!("{resource} has no field '{path}'."),
        )
        .triggered_by(path)
    })
}

fn fits(t: DataType, repeated: bool, v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::List(items) => repeated && items.iter().all(|i| fits(t, false, i)),
        _ if repeated => false,
        Value::Bool(_) => t == DataType::Bool,
        Value::Int64(_) => matches!(t, DataType::Int64 | DataType::Double),
        Value::Double(_) => t == DataType::Double,
        Value::Date(_) => t == DataType::Date,
        Value::ResourceName(_) => t == DataType::ResourceName,
        Value::String(s) | Value::Enum(s) => match t {
            DataType::Enum(constants) => constants.contains(&s.as_str()),
            DataType::String => matches!(v, Value::String(_)),
            DataType::ResourceName => true,
            _ => false,
        },
    }
}
