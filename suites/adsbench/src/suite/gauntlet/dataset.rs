//! The `gauntlet` dataset: one item per shipped task, in id order, the
//! task itself in `meta` so a solve can run and grade it.

use super::super::scenario::SUITE_PARAMS;
use super::load::shipped;
use super::task::Task;
use adfarm_proto::Item;
use adfarm_suite::{DataError, ItemIter};

/// The dataset's name.
pub const DATASET: &str = "gauntlet";

impl Task {
    /// As a dataset item: id the task's, input its brief, meta the task.
    pub fn item(&self) -> Item {
        Item {
            id: self.id.clone(),
            input: self.brief.clone(),
            meta: serde_json::to_value(self).expect("a task serialises"),
        }
    }

    /// The task an item carries.
    ///
    /// # Errors
    /// [`DataError::Param`] when the item's `meta` is not a valid task.
    pub fn of(item: &Item) -> Result<Task, DataError> {
        let bad = |reason: String| DataError::Param {
            field: format!("item {}: meta", item.id),
            reason,
        };
        let task: Task = serde_json::from_value(item.meta.clone())
            .map_err(|e| bad(format!("not a task: {e}")))?;
        super::check::check(&task).map_err(|(field, why)| bad(format!("{field}: {why}")))?;
        Ok(task)
    }
}

/// The gauntlet's items. The suite's parameters belong to the `scenarios`
/// dataset (`scenarios`) and the composite (`weights`); the gauntlet takes
/// none of its own.
///
/// # Errors
/// A parameter the suite does not take, or a shipped task that does not
/// load (a broken build).
pub fn items(params: &serde_json::Value) -> Result<ItemIter, DataError> {
    if let Some(other) = params
        .as_object()
        .and_then(|o| o.keys().find(|k| !SUITE_PARAMS.contains(&k.as_str())))
    {
        return Err(DataError::Param {
            field: format!("params.{other}"),
            reason: format!("the adsbench suite takes {}", SUITE_PARAMS.join(", ")),
        });
    }
    let tasks = shipped().map_err(|e| DataError::Param {
        field: "gauntlet".into(),
        reason: e.to_string(),
    })?;
    Ok(Box::new(tasks.into_iter().map(|t| Ok(t.item()))))
}
