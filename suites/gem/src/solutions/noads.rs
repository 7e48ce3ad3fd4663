//! The no-ads control: the plain ad-free answer, as a reference row. Its
//! request is the one GI-R, GIR-R and GIR-P start from, so the cache
//! serves all four with one call.

use super::{answer_ad_free, finish, params, GenSettings, Trace};
use crate::data::GemData;
use crate::item::ItemView;
use adfarm_proto::{Item, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use std::sync::Arc;

/// The no-ads control.
pub struct NoAds {
    settings: GenSettings,
    data: Arc<GemData>,
}

impl NoAds {
    /// Checks the control's spec: it takes no parameters.
    ///
    /// # Errors
    /// Any parameter.
    pub fn check(spec: &SolutionSpec) -> Result<(), DataError> {
        params::table("no-ads", &spec.params, &[]).map(|_| ())
    }

    /// Builds the control from its spec (it takes no params).
    pub fn new(spec: &SolutionSpec, data: Arc<GemData>) -> NoAds {
        NoAds {
            settings: GenSettings {
                max_tokens: spec.max_tokens,
                temperature: spec.temperature,
            },
            data,
        }
    }
}

#[async_trait]
impl Solution for NoAds {
    fn name(&self) -> &str {
        "no-ads"
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let view = ItemView::parse(item)?;
        let mut trace = Trace::default();
        let answer =
            answer_ad_free(models.llm, &view.query, self.settings, seed, &mut trace).await?;
        Ok(finish(
            &self.data,
            &view,
            "no-ads",
            answer.text,
            Err("control".into()),
            trace,
            serde_json::Map::new(),
        ))
    }
}
