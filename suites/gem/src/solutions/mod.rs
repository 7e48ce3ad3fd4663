//! The GEM-Bench solutions and what they share: the ad-free answer request
//! (identical for GI-R, GIR-R, GIR-P and the no-ads control, so the LLM
//! cache turns it into one call), the item's ad pool, call accounting and
//! the `Output.meta` every solution writes.
//!
//! `Output.meta` fields: `solution`, `dataset`, `ad` (`{id, name, url,
//! desc, category}` or null), `no_ad_reason` (when `ad` is null), `calls`
//! (one [`CallRecord`] per model call, cached ones included), `ittft`,
//! `ottft`, `embedding_tokens`, plus per-solution fields (`slot`,
//! `retrieved`, `choices`, ...).

pub mod adchat;
pub mod adllm;
pub mod noads;
pub mod params;

use super::cost::{self, CallRecord};
use super::data::GemData;
use super::item::{Dataset, ItemView};
use super::metrics::{self, names, unscored};
use adfarm_llm::{ChatRequest, Completion, LlmError, Message, Provider};
use adfarm_proto::{Output, Score, Usage, Verdict};
use adfarm_suite::{DataError, Solved};
use serde::Serialize;

/// System prompt of the ad-free answer.
pub const ASSISTANT_SYSTEM: &str = "You are a helpful assistant.";

/// Sampling settings a solution takes from its spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenSettings {
    /// Output token cap of answer calls.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f32,
}

/// The ad-free answer request. GI-R, GIR-R, GIR-P and `no-ads` all send
/// exactly this, so with equal settings and seed the cache (keyed by the
/// request) serves it once per query and seed.
pub fn ad_free_request(query: &str, settings: GenSettings, seed: u64) -> ChatRequest {
    let mut r = ChatRequest::new(vec![
        Message::system(ASSISTANT_SYSTEM),
        Message::user(query),
    ]);
    r.max_tokens = settings.max_tokens;
    r.temperature = settings.temperature;
    r.seed = seed;
    r
}

/// Asks `llm` the ad-free answer request for `query` and records the call
/// in `trace` as the `answer` step.
///
/// # Errors
/// The model call's.
pub async fn answer_ad_free(
    llm: &dyn Provider,
    query: &str,
    settings: GenSettings,
    seed: u64,
    trace: &mut Trace,
) -> Result<Completion, LlmError> {
    let answer = llm.chat(&ad_free_request(query, settings, seed)).await?;
    trace.chat("answer", &answer);
    Ok(answer)
}

/// An ad a solution chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChosenAd {
    /// Ad id: `<topic>#<i>` in the ad database, the product id in CA-Prod.
    pub id: String,
    /// Name (CA-Prod: title).
    pub name: String,
    /// Link.
    pub url: String,
    /// Description.
    pub desc: String,
    /// Topic or cluster.
    pub category: String,
}

/// Model calls of one solve, in order.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// LLM calls.
    pub calls: Vec<CallRecord>,
    /// Embedding tokens (not part of ITTFT/OTTFT, which count LLM tokens).
    pub embedding_tokens: u64,
}

impl Trace {
    /// Records a call's usage under `step`.
    pub fn usage(&mut self, step: &str, u: &Usage) {
        self.calls.push(CallRecord {
            step: step.into(),
            model: u.model.clone(),
            input: u.input,
            output: u.output,
            cached: u.cached,
            latency_ms: u.latency_ms,
        });
    }

    /// Records a chat completion.
    pub fn chat(&mut self, step: &str, c: &Completion) {
        self.usage(step, &c.usage);
    }

    /// Records embedding calls.
    pub fn embed(&mut self, usage: &[Usage]) {
        self.embedding_tokens += usage.iter().map(|u| u.input).sum::<u64>();
    }
}

/// One ad a solution may pick: its view plus the text to embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolAd {
    /// The ad.
    pub ad: ChosenAd,
    /// `name: desc.`
    pub embed_text: String,
}

/// The ads an item may carry: the query's own candidates on CA-Prod, the
/// ad database (one entry per distinct text) otherwise.
///
/// # Errors
/// [`DataError::Param`] when a CA-Prod item names an unknown query or a
/// product that is not one of its candidates.
pub fn pool(data: &GemData, item: &ItemView) -> Result<Vec<PoolAd>, DataError> {
    match item.dataset {
        Dataset::CaProd => {
            let ca = &data.ca_prod;
            let q = item.ca_query(data)?;
            item.candidates
                .iter()
                .map(|pid| {
                    let c = q.candidates.iter().find(|c| c.product_id == *pid);
                    let p = ca.products.get(pid);
                    match (c, p) {
                        (Some(c), Some(p)) => Ok(PoolAd {
                            ad: ChosenAd {
                                id: p.id.to_string(),
                                name: p.title.clone(),
                                url: p.url.clone(),
                                desc: p.desc.clone(),
                                category: ca.category(c),
                            },
                            embed_text: super::data::embed_text(&p.title, &p.desc),
                        }),
                        _ => Err(DataError::Param {
                            field: "item.meta.candidates".into(),
                            reason: format!(
                                "product {pid} is not a candidate of query {}",
                                q.query_id
                            ),
                        }),
                    }
                })
                .collect()
        }
        Dataset::MtHuman | Dataset::LmMarket => Ok(data
            .ads
            .retrieval_pool()
            .into_iter()
            .map(|a| PoolAd {
                embed_text: a.embed_text(),
                ad: ChosenAd {
                    id: a.id.clone(),
                    name: a.name.clone(),
                    url: a.url.clone(),
                    desc: a.desc.clone(),
                    category: a.topic.clone(),
                },
            })
            .collect()),
    }
}

/// Generation-time scores: ad selected, injection rate, and on CA-Prod the
/// selection accuracy (CTR) of the chosen product id.
pub fn generation_scores(
    data: &GemData,
    item: &ItemView,
    text: &str,
    ad: Option<&ChosenAd>,
) -> Vec<Score> {
    let mut scores = vec![
        Score {
            metric: names::AD_SELECTED.into(),
            verdict: metrics::ad_selected(ad.is_some()),
        },
        Score {
            metric: names::INJECTION_RATE.into(),
            verdict: metrics::injection_rate(text, ad.map(|a| (a.name.as_str(), a.url.as_str()))),
        },
    ];
    if item.dataset == Dataset::CaProd {
        let verdict = match ad {
            None => Verdict::Unscored(unscored::NO_AD.into()),
            Some(a) => ctr_verdict(data, item, &a.id),
        };
        scores.push(Score {
            metric: names::CTR.into(),
            verdict,
        });
    }
    scores
}

/// CTR of choosing product `id` for a CA-Prod item: 100 if relevant, 0 if
/// not, unscored for a label conflict or a non-candidate.
pub fn ctr_verdict(data: &GemData, item: &ItemView, id: &str) -> Verdict {
    use super::caprod::Label;
    let cand = item.ca_query(data).ok().and_then(|q| {
        let pid: u64 = id.parse().ok()?;
        q.candidates.iter().find(|c| c.product_id == pid)
    });
    match cand.map(|c| c.label) {
        Some(Label::Relevant) => Verdict::Score(100.0),
        Some(Label::NotRelevant) => Verdict::Score(0.0),
        Some(Label::Conflict) => Verdict::Unscored(unscored::LABEL_CONFLICT.into()),
        None => Verdict::Unscored(unscored::NOT_A_CANDIDATE.into()),
    }
}

/// Assembles the result: meta (common fields merged with `extra`) and the
/// generation-time scores.
pub fn finish(
    data: &GemData,
    item: &ItemView,
    solution: &str,
    text: String,
    ad: Result<ChosenAd, String>,
    trace: Trace,
    extra: serde_json::Map<String, serde_json::Value>,
) -> Solved {
    let chosen = ad.as_ref().ok();
    let scores = if solution == "no-ads" {
        vec![]
    } else {
        generation_scores(data, item, &text, chosen)
    };
    let mut meta = serde_json::Map::new();
    meta.insert("solution".into(), solution.into());
    meta.insert("dataset".into(), item.dataset.as_str().into());
    meta.insert(
        "ad".into(),
        chosen.map_or(serde_json::Value::Null, |a| serde_json::json!(a)),
    );
    if let Err(reason) = &ad {
        meta.insert("no_ad_reason".into(), reason.clone().into());
    }
    meta.insert("ittft".into(), cost::ittft(&trace.calls).into());
    meta.insert("ottft".into(), cost::ottft(&trace.calls).into());
    meta.insert("embedding_tokens".into(), trace.embedding_tokens.into());
    meta.insert("calls".into(), serde_json::json!(trace.calls));
    meta.extend(extra);
    Solved {
        output: Output {
            text,
            meta: serde_json::Value::Object(meta),
        },
        scores,
    }
}
