//! The dataset: generated tasks "the counter starts at S, make it reach T",
//! as many as the suite's `params.items` asks for, no files.

use adfarm_proto::Item;
use adfarm_suite::{DataError, ItemIter};
use serde::{Deserialize, Serialize};

/// The one dataset.
pub const DATASET: &str = "default";

/// Items when `params.items` is not set.
pub const DEFAULT_ITEMS: u64 = 10;

/// Most items `params.items` may ask for: a worked example needs tens,
/// and planning counts every item.
pub const MAX_ITEMS: u64 = 100_000;

/// One task: where the counter starts and where it must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The counter's value when the episode begins.
    pub start: i64,
    /// The value it must hold when the episode ends.
    pub target: i64,
}

impl Task {
    /// Task `i` of the dataset. Targets lie 1 to 5 above the start, so
    /// some take one step of the `add` tool and some take two or more.
    pub fn nth(i: u64) -> Task {
        let start = (3 * i % 10) as i64;
        Task {
            start,
            target: start + 1 + (i % 5) as i64,
        }
    }

    /// What the agent is told.
    pub fn prompt(self) -> String {
        format!(
            "The counter starts at {}. Make it reach {}.",
            self.start, self.target
        )
    }

    /// Task `i` as a dataset item (the task itself in `meta`).
    pub fn item(self, i: u64) -> Item {
        Item {
            id: i.to_string(),
            input: self.prompt(),
            meta: serde_json::to_value(self).expect("a task serialises"),
        }
    }

    /// The task an item of this dataset carries.
    ///
    /// # Errors
    /// [`DataError::Param`] when the item's `meta` is not a task.
    pub fn of(item: &Item) -> Result<Task, DataError> {
        serde_json::from_value(item.meta.clone()).map_err(|e| DataError::Param {
            field: format!("item {}: meta", item.id),
            reason: format!("not a counter task: {e}"),
        })
    }
}

/// Item count from the suite's parameters: `items` (1 to [`MAX_ITEMS`]),
/// and nothing else.
///
/// # Errors
/// [`DataError::Param`] naming `params.<name>` for an unknown parameter or
/// an `items` that is not a positive integer or is above [`MAX_ITEMS`].
pub fn item_count(params: &serde_json::Value) -> Result<u64, DataError> {
    if let Some(other) = params
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "items"))
    {
        return Err(DataError::Param {
            field: format!("params.{other}"),
            reason: "the counter suite takes only `items`".into(),
        });
    }
    match params.get("items") {
        None => Ok(DEFAULT_ITEMS),
        Some(v) => {
            let bad = |reason: String| DataError::Param {
                field: "params.items".into(),
                reason,
            };
            let n = v
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad(format!("must be a positive integer, got {v}")))?;
            if n > MAX_ITEMS {
                return Err(bad(format!("must be at most {MAX_ITEMS}, got {n}")));
            }
            Ok(n)
        }
    }
}

/// The items of `dataset`, lazily.
///
/// # Errors
/// An unknown dataset or invalid parameters (see [`item_count`]).
pub fn items(dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
    if dataset != DATASET {
        return Err(DataError::UnknownDataset {
            suite: crate::SUITE.into(),
            dataset: dataset.into(),
            valid: DATASET.into(),
        });
    }
    let n = item_count(params)?;
    Ok(Box::new((0..n).map(|i| Ok(Task::nth(i).item(i)))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_are_generated_tasks_that_round_trip_through_meta() {
        let items: Vec<Item> = items(DATASET, &json!({"items": 6}))
            .expect("valid")
            .map(|i| i.expect("generated"))
            .collect();
        assert_eq!(items.len(), 6);
        for (i, item) in items.iter().enumerate() {
            let task = Task::of(item).expect("a task");
            assert_eq!(task, Task::nth(i as u64));
            assert!((1..=5).contains(&(task.target - task.start)), "{task:?}");
            assert_eq!(item.input, task.prompt());
        }
        assert_eq!(items[1].input, "The counter starts at 3. Make it reach 5.");
        let default = items_count(&json!({}));
        assert_eq!(default, DEFAULT_ITEMS);
    }

    fn items_count(params: &serde_json::Value) -> u64 {
        items(DATASET, params).expect("valid").count() as u64
    }

    #[test]
    fn bad_parameters_and_datasets_are_named() {
        let field = |p: serde_json::Value| match item_count(&p) {
            Err(DataError::Param { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(json!({"items": 0})), "params.items");
        assert_eq!(field(json!({"items": "3"})), "params.items");
        assert_eq!(field(json!({"itms": 3})), "params.itms");
        let err = items("hard", &json!({}))
            .err()
            .expect("unknown")
            .to_string();
        assert!(err.contains("valid: default"), "{err}");
        let bare = Item {
            id: "7".into(),
            input: "x".into(),
            meta: serde_json::Value::Null,
        };
        assert!(Task::of(&bare).is_err());
    }

    #[test]
    fn an_item_count_above_the_maximum_is_refused_by_field() {
        assert_eq!(
            item_count(&json!({ "items": MAX_ITEMS })).unwrap(),
            MAX_ITEMS
        );
        for n in [MAX_ITEMS + 1, 1_000_000_000_000] {
            match item_count(&json!({ "items": n })) {
                Err(DataError::Param { field, reason }) => {
                    assert_eq!(field, "params.items");
                    assert!(reason.contains("at most 100000"), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
