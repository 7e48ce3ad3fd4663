//! Scoring a finished response: the embedding metrics (the `embed-metrics`
//! follow-up job), reading the ad back from `Output.meta`, and a one-shot
//! scorer for `adfarm gem score`.

use super::judge::{judge_response, AdView, Protocol};
use super::metrics::{self, names, unscored};
use super::split::split_sentences;
use adfarm_llm::{Embedder, LlmError, Provider};
use adfarm_proto::{Score, Verdict};
use serde::Serialize;

/// The ad recorded in `Output.meta.ad`, if any.
pub fn ad_from_meta(meta: &serde_json::Value) -> Option<AdView> {
    let ad = meta.get("ad")?;
    Some(AdView {
        name: ad.get("name")?.as_str()?.to_string(),
        url: ad
            .get("url")
            .and_then(|u| u.as_str())
            .unwrap_or("")
            .to_string(),
    })
}

/// The four embedding metrics' names, in the order they are reported.
const EMBEDDING_METRICS: [&str; 4] = [
    names::RESPONSE_FLOW,
    names::RESPONSE_COHERENCE,
    names::AD_FLOW,
    names::AD_COHERENCE,
];

/// Sentences of `text`, which of them mention `ad`, and RF, RC, AF, AC.
/// Without an ad, AF and AC are unscored (`no-ad`); an empty (or
/// whitespace-only) text leaves all four unscored (`empty-response`)
/// without calling the embedder.
///
/// # Errors
/// The embedder's failures.
pub async fn embedding_scores(
    embedder: &dyn Embedder,
    text: &str,
    ad: Option<&AdView>,
) -> Result<(Vec<String>, Vec<usize>, Vec<Score>), LlmError> {
    if text.trim().is_empty() {
        let scores = EMBEDDING_METRICS
            .iter()
            .map(|m| Score {
                metric: (*m).into(),
                verdict: Verdict::Unscored(unscored::EMPTY_RESPONSE.into()),
            })
            .collect();
        return Ok((Vec::new(), Vec::new(), scores));
    }
    let sentences = split_sentences(text);
    let (emb, _usage) = super::retrieval::embed_all(embedder, &sentences).await?;
    let ad_idx = ad.map_or_else(Vec::new, |a| {
        metrics::ad_sentences(&sentences, &a.name, &a.url)
    });
    let (af, ac) = match ad {
        None => (
            Verdict::Unscored(unscored::NO_AD.into()),
            Verdict::Unscored(unscored::NO_AD.into()),
        ),
        Some(_) => (
            metrics::ad_flow(&emb, &ad_idx),
            metrics::ad_coherence(&emb, &ad_idx),
        ),
    };
    let score = |metric: &str, verdict| Score {
        metric: metric.into(),
        verdict,
    };
    let scores = vec![
        score(names::RESPONSE_FLOW, metrics::response_flow(&emb)),
        score(names::RESPONSE_COHERENCE, metrics::response_coherence(&emb)),
        score(names::AD_FLOW, af),
        score(names::AD_COHERENCE, ac),
    ];
    Ok((sentences, ad_idx, scores))
}

/// What `adfarm gem score` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreReport {
    /// The sentences the splitter produced.
    pub sentences: Vec<String>,
    /// Indices of the ad sentences.
    pub ad_sentences: Vec<usize>,
    /// Injection rate and, with an embedder, RF, RC, AF, AC.
    pub metrics: Vec<Score>,
    /// The six judge verdicts (empty without a judge).
    pub judge: Vec<Score>,
}

/// Scores one response outside a sweep.
///
/// # Errors
/// Model call failures.
pub async fn score_response(
    query: &str,
    response: &str,
    ad: Option<&AdView>,
    embedder: Option<&dyn Embedder>,
    judge: Option<(&dyn Provider, Protocol)>,
) -> Result<ScoreReport, LlmError> {
    let mut report = ScoreReport {
        sentences: split_sentences(response),
        ad_sentences: vec![],
        metrics: vec![],
        judge: vec![],
    };
    if let Some(a) = ad {
        report.ad_sentences = metrics::ad_sentences(&report.sentences, &a.name, &a.url);
        report.metrics.push(Score {
            metric: names::INJECTION_RATE.into(),
            verdict: metrics::injection_rate(response, Some((&a.name, &a.url))),
        });
    }
    if let Some(e) = embedder {
        let (_, _, scores) = embedding_scores(e, response, ad).await?;
        report.metrics.extend(scores);
    }
    if let Some((llm, protocol)) = judge {
        report.judge = judge_response(llm, protocol, query, response, ad).await?;
    }
    Ok(report)
}

#[cfg(test)]
mod empty_tests {
    use super::*;
    use adfarm_llm::{ChatRequest, Choice, Completion, Embeddings};
    use async_trait::async_trait;

    /// A model that fails any call: an empty response must need none.
    struct Unasked;

    #[async_trait]
    impl Embedder for Unasked {
        fn model(&self) -> &str {
            "unasked"
        }
        async fn embed(&self, _: &[String]) -> Result<Embeddings, LlmError> {
            Err(LlmError::Config("the embedder was asked".into()))
        }
    }

    #[async_trait]
    impl Provider for Unasked {
        fn model(&self) -> &str {
            "unasked"
        }
        async fn chat(&self, _: &ChatRequest) -> Result<Completion, LlmError> {
            Err(LlmError::Config("the judge was asked".into()))
        }
        async fn choose(&self, _: &ChatRequest, _: &[String]) -> Result<Choice, LlmError> {
            Err(LlmError::Config("the judge was asked".into()))
        }
    }

    #[tokio::test]
    async fn an_empty_response_is_unscored_as_empty_response_by_every_metric() {
        let ad = AdView {
            name: "Acme".into(),
            url: String::new(),
        };
        for text in ["", "  \n\t "] {
            let (_, _, scores) = embedding_scores(&Unasked, text, Some(&ad))
                .await
                .expect("no embedder call");
            assert_eq!(scores.len(), 4);
            for protocol in [Protocol::Paper, Protocol::Gembench109] {
                let judged = judge_response(&Unasked, protocol, "q", text, Some(&ad))
                    .await
                    .expect("no judge call");
                for s in scores.iter().chain(&judged) {
                    assert_eq!(
                        s.verdict,
                        Verdict::Unscored(unscored::EMPTY_RESPONSE.into()),
                        "{}",
                        s.metric
                    );
                }
            }
        }
    }
}
