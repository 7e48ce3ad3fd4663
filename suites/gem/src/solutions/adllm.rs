//! Ad-LLM (paper Algorithm 1) in its three named configurations:
//! GI-R (answer-based retrieval, insert), GIR-R (answer-based, insert,
//! rewrite) and GIR-P (query-based, insert, rewrite). Steps: the ad-free
//! answer; sentence split; top-t ads by embedding similarity to the query
//! (-P) or the answer (-R); the (ad, slot) pair with the least flow
//! disturbance Ψ; insertion as `[name](url): desc.`; for GIR, one rewrite
//! call that smooths the passage around the ad. With `ads` = k > 1 the
//! choice is repeated k times (the paper's remark), each time over the
//! remaining retrieved ads and the passage with the earlier ads in it.
//!
//! Params (all optional): `top_t` (5), `psi` (`linear` | `log-weighted`),
//! `alpha` (2.0, log-weighted only), `ads` (1), `rewrite_max_tokens`
//! (2 × max_tokens).

use super::{answer_ad_free, finish, params, pool, GenSettings, Trace};
use crate::data::GemData;
use crate::inject::{ad_sentence, best_ad_and_slot, insert_ads, Psi, Slot};
use crate::item::{Dataset, ItemView};
use crate::retrieval::{embed_all, top_t, IndexCache};
use crate::split::sentence_spans;
use adfarm_llm::{ChatRequest, LlmError, Message};
use adfarm_proto::{Item, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use serde_json::json;
use std::sync::Arc;

/// Default number of retrieved candidates.
pub const DEFAULT_TOP_T: usize = 5;

/// What the retrieval query embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The user's query (-P).
    Prompt,
    /// The ad-free answer (-R).
    Response,
}

/// Validated Ad-LLM parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdLlmParams {
    /// Retrieved candidates t.
    pub top_t: usize,
    /// Slot scoring.
    pub psi: Psi,
    /// Ads to insert (k).
    pub ads: usize,
    /// Output cap of the rewrite call.
    pub rewrite_max_tokens: u32,
}

impl AdLlmParams {
    /// Parses solution params; `max_tokens` sets the rewrite default.
    ///
    /// # Errors
    /// [`DataError::Param`] for unknown fields or invalid values.
    pub fn parse(v: &serde_json::Value, max_tokens: u32) -> Result<AdLlmParams, DataError> {
        let obj = params::table(
            "an Ad-LLM solution",
            v,
            &["top_t", "psi", "alpha", "ads", "rewrite_max_tokens"],
        )?;
        let alpha = params::number(obj, "alpha")?.unwrap_or(2.0);
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(params::param_err("alpha", "must be a positive number"));
        }
        let psi = match params::text(obj, "psi")?.unwrap_or("linear") {
            "linear" => Psi::Linear,
            "log-weighted" => Psi::LogWeighted { alpha },
            other => {
                return Err(params::param_err(
                    "psi",
                    format!("unknown {other:?}; valid: linear, log-weighted"),
                ))
            }
        };
        let top_t = params::count(obj, "top_t")?.map_or(DEFAULT_TOP_T, |v| v as usize);
        let ads = params::count(obj, "ads")?.map_or(1, |v| v as usize);
        if top_t == 0 {
            return Err(params::param_err("top_t", "must be at least 1"));
        }
        if ads == 0 || ads > top_t {
            return Err(params::param_err(
                "ads",
                format!("must be between 1 and top_t ({top_t})"),
            ));
        }
        Ok(AdLlmParams {
            top_t,
            psi,
            ads,
            rewrite_max_tokens: params::count(obj, "rewrite_max_tokens")?
                .map_or(max_tokens.saturating_mul(2), |v| {
                    v.min(u32::MAX as u64) as u32
                }),
        })
    }
}

/// System prompt of the GIR rewrite step (AdFarm's wording).
pub const REWRITE_SYSTEM: &str = "You are a careful copy editor. The passage you receive \
contains sponsored content marked with <ad> and </ad>. Edit only the sponsored content and \
the words right around it so that it reads as a natural, helpful part of the passage. Keep \
its markdown link exactly as written. Leave every other sentence, fact, heading and list \
item as it is, and add no other promotion. Return the whole passage without the <ad> marks \
and without any comment.";

/// One Ad-LLM configuration.
pub struct AdLlm {
    name: &'static str,
    basis: Basis,
    rewrite: bool,
    params: AdLlmParams,
    settings: GenSettings,
    data: Arc<GemData>,
    index: Arc<IndexCache>,
}

impl AdLlm {
    /// Builds `gi-r`, `gir-r` or `gir-p` from its spec.
    ///
    /// # Errors
    /// Unknown name or invalid params.
    pub fn new(
        spec: &SolutionSpec,
        data: Arc<GemData>,
        index: Arc<IndexCache>,
    ) -> Result<AdLlm, DataError> {
        let (name, basis, rewrite) = match spec.name.as_str() {
            "gi-r" => ("gi-r", Basis::Response, false),
            "gir-r" => ("gir-r", Basis::Response, true),
            "gir-p" => ("gir-p", Basis::Prompt, true),
            other => {
                return Err(DataError::Param {
                    field: "name".into(),
                    reason: format!("{other:?} is not an Ad-LLM solution"),
                })
            }
        };
        Ok(AdLlm {
            name,
            basis,
            rewrite,
            params: AdLlmParams::parse(&spec.params, spec.max_tokens)?,
            settings: GenSettings {
                max_tokens: spec.max_tokens,
                temperature: spec.temperature,
            },
            data,
            index,
        })
    }

    /// The rewrite request for a passage with `<ad>`-marked insertions.
    pub fn rewrite_request(&self, marked: &str, seed: u64) -> ChatRequest {
        let mut r = ChatRequest::new(vec![Message::system(REWRITE_SYSTEM), Message::user(marked)]);
        r.max_tokens = self.params.rewrite_max_tokens;
        r.temperature = self.settings.temperature;
        r.seed = seed;
        r
    }
}

fn no_embedder(name: &str) -> JobError {
    JobError::Data(DataError::Param {
        field: "embedder".into(),
        reason: format!("{name} retrieves ads by embedding: configure an embedding model"),
    })
}

#[async_trait]
impl Solution for AdLlm {
    fn name(&self) -> &str {
        self.name
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let view = ItemView::parse(item)?;
        let embedder = models.embedder.ok_or_else(|| no_embedder(self.name))?;
        let mut trace = Trace::default();
        let answer =
            answer_ad_free(models.llm, &view.query, self.settings, seed, &mut trace).await?;
        let text = answer.text;

        let spans = sentence_spans(&text);
        let mut texts: Vec<String> = spans.iter().map(|r| text[r.clone()].to_string()).collect();
        texts.push(match self.basis {
            Basis::Prompt => view.query.clone(),
            Basis::Response => text.clone(),
        });
        let (mut node_vecs, usage) = embed_all(embedder, &texts).await?;
        trace.embed(&usage);
        let query_vec = node_vecs
            .pop()
            .ok_or_else(|| LlmError::Malformed("embedder returned no vectors".into()))?;

        let ads = pool(&self.data, &view)?;
        let ad_texts: Vec<String> = ads.iter().map(|a| a.embed_text.clone()).collect();
        let ad_vecs = if view.dataset == Dataset::CaProd {
            let (v, u) = embed_all(embedder, &ad_texts).await?;
            trace.embed(&u);
            Arc::new(v)
        } else {
            self.index.vectors(embedder, &ad_texts).await?
        };
        let retrieved = top_t(&query_vec, &ad_vecs, self.params.top_t);

        // Nodes: Ok(i) is original sentence i, Err(p) the ad at pool index p.
        let mut nodes: Vec<Result<usize, usize>> = (0..spans.len()).map(Ok).collect();
        let mut remaining: Vec<usize> = retrieved.iter().map(|(i, _)| *i).collect();
        let mut chosen: Vec<(usize, Slot)> = vec![];
        for _ in 0..self.params.ads {
            let cands: Vec<&[f32]> = remaining.iter().map(|&p| ad_vecs[p].as_slice()).collect();
            let Some((j, slot)) = best_ad_and_slot(&node_vecs, &cands, self.params.psi) else {
                break;
            };
            let p = remaining.remove(j);
            let at = slot.after.map_or(0, |a| a + 1);
            nodes.insert(at, Err(p));
            node_vecs.insert(at, ad_vecs[p].clone());
            chosen.push((p, slot));
        }

        // Each ad goes after the last original sentence before it.
        let mut placements: Vec<(Option<usize>, usize)> = vec![];
        let mut last = None;
        for n in &nodes {
            match *n {
                Ok(i) => last = Some(i),
                Err(p) => placements.push((last, p)),
            }
        }
        let render = |marked: bool| {
            let list: Vec<(Option<usize>, String)> = placements
                .iter()
                .map(|&(after, p)| {
                    let a = &ads[p].ad;
                    let s = ad_sentence(&a.name, &a.url, &a.desc);
                    (after, if marked { format!("<ad>{s}</ad>") } else { s })
                })
                .collect();
            insert_ads(&text, &spans, &list)
        };
        let mut out = render(false);
        let mut rewrite_failed = false;
        if self.rewrite && !chosen.is_empty() {
            let reply = models
                .llm
                .chat(&self.rewrite_request(&render(true), seed))
                .await?;
            trace.chat("rewrite", &reply);
            // An empty rewrite is GIR's response as it is: scored as the
            // empty answer (the reference keeps an empty reply too), not
            // passed off as GI-R's text; flagged and counted in Table 3.
            let cleaned = reply.text.replace("<ad>", "").replace("</ad>", "");
            out = cleaned.trim().to_string();
            rewrite_failed = out.is_empty();
        }

        let mut extra = serde_json::Map::new();
        extra.insert(
            "retrieval_basis".into(),
            match self.basis {
                Basis::Prompt => "prompt",
                Basis::Response => "response",
            }
            .into(),
        );
        extra.insert(
            "retrieved".into(),
            retrieved
                .iter()
                .map(|(i, sim)| json!({"id": ads[*i].ad.id, "name": ads[*i].ad.name, "similarity": sim}))
                .collect::<Vec<_>>()
                .into(),
        );
        extra.insert(
            "slots".into(),
            chosen
                .iter()
                .map(|(p, s)| json!({"ad_id": ads[*p].ad.id, "after_sentence": s.after, "psi": s.psi}))
                .collect::<Vec<_>>()
                .into(),
        );
        extra.insert(
            "slot".into(),
            chosen.first().map_or(
                serde_json::Value::Null,
                |(_, s)| json!({"after_sentence": s.after, "psi": s.psi}),
            ),
        );
        extra.insert(
            "ads".into(),
            json!(chosen.iter().map(|(p, _)| &ads[*p].ad).collect::<Vec<_>>()),
        );
        extra.insert("ad_free_sentences".into(), spans.len().into());
        extra.insert("rewrite".into(), self.rewrite.into());
        extra.insert("rewrite_failed".into(), rewrite_failed.into());
        let first = chosen
            .first()
            .map(|(p, _)| ads[*p].ad.clone())
            .ok_or_else(|| "no-candidates".to_string());
        Ok(finish(
            &self.data, &view, self.name, out, first, trace, extra,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_default_and_validate() {
        let p = AdLlmParams::parse(&serde_json::Value::Null, 100).unwrap();
        assert_eq!((p.top_t, p.ads, p.rewrite_max_tokens), (5, 1, 200));
        assert_eq!(p.psi, Psi::Linear);
        let p =
            AdLlmParams::parse(&json!({"psi": "log-weighted", "alpha": 3.0, "ads": 2}), 1).unwrap();
        assert_eq!(p.psi, Psi::LogWeighted { alpha: 3.0 });
        for bad in [
            json!({"psi": "cubic"}),
            json!({"top_t": 0}),
            json!({"ads": 6}),
            json!({"alpha": -1.0}),
            json!({"nope": 1}),
        ] {
            assert!(AdLlmParams::parse(&bad, 1).is_err(), "{bad}");
        }
    }
}
