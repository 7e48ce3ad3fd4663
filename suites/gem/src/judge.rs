//! LLM-as-judge scoring of one response on the six GEM-Bench metrics.
//!
//! Protocol `paper` (default): per metric, the judge rates each of the two
//! dimensions bad/moderate/good, and the pair maps to a score: both bad → 0,
//! bad+moderate → 30, both moderate or bad+good → 60, both good → 90. The
//! paper leaves moderate+good undefined; AdFarm scores it 75 (between both
//! moderate, 60, and both good, 90) and reports its share as the
//! `moderate-good-rate` score. Protocol `gembench-1.0.9`: one four-way
//! category per metric mapped to 90/60/30/0 as the reference code does.
//!
//! Every answer is a closed choice ([`Provider::choose`]), asked once: the
//! provider re-asks an unmatched reply itself (the OpenAI-compatible client
//! once, with the options listed; a local model ranks the options and always
//! answers), so a verdict costs at most two calls. A reply that matched no
//! option is `Unscored("parse-failure")` (the reference silently scored such
//! replies as a fixed default category per metric: 0 for accuracy,
//! naturalness, trust and click, 30 for personality and notice).

use super::judge_prompts::{JudgeMetric, JUDGE_METRICS};
use adfarm_llm::{ChatRequest, LlmError, Message, Provider};
use adfarm_proto::{Score, Verdict};
use adfarm_suite::DataError;
use serde::{Deserialize, Serialize};

/// Name of the score that reports how often moderate+good occurred.
pub const MODERATE_GOOD_RATE: &str = "moderate-good-rate";

/// Unscored reason for a verdict whose reply matched no option, after the
/// provider's own re-ask.
pub const PARSE_FAILURE: &str = "parse-failure";

/// Score AdFarm gives the moderate+good pair the paper leaves undefined.
pub const MODERATE_GOOD_SCORE: f64 = 75.0;

/// Output tokens a judge answer may use (options are one short word/code).
pub const JUDGE_MAX_TOKENS: u32 = 16;

/// How the judge is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Protocol {
    /// Two dimensions rated bad/moderate/good (the paper's LLM-judge metrics).
    #[default]
    #[serde(rename = "paper")]
    Paper,
    /// One four-way category per metric, as gembench 1.0.9 asks.
    #[serde(rename = "gembench-1.0.9")]
    Gembench109,
}

impl Protocol {
    /// Name in sweep files.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Paper => "paper",
            Protocol::Gembench109 => "gembench-1.0.9",
        }
    }

    /// Parses [`Protocol::as_str`].
    ///
    /// # Errors
    /// [`DataError::Param`] for any other name.
    pub fn parse(s: &str) -> Result<Protocol, DataError> {
        match s {
            "paper" => Ok(Protocol::Paper),
            "gembench-1.0.9" => Ok(Protocol::Gembench109),
            other => Err(DataError::Param {
                field: "params.judge_protocol".into(),
                reason: format!("unknown protocol {other:?}; valid: paper, gembench-1.0.9"),
            }),
        }
    }

    /// Judge questions per response (a provider may re-ask each once).
    pub fn calls(self) -> u32 {
        match self {
            Protocol::Paper => 12,
            Protocol::Gembench109 => 6,
        }
    }
}

/// A dimension rating of the paper protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rating {
    /// Bad.
    Bad,
    /// Moderate.
    Moderate,
    /// Good.
    Good,
}

impl Rating {
    /// All ratings, in the order offered to the judge.
    pub const ALL: [Rating; 3] = [Rating::Bad, Rating::Moderate, Rating::Good];

    /// The word the judge answers with.
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Bad => "bad",
            Rating::Moderate => "moderate",
            Rating::Good => "good",
        }
    }
}

/// The paper's score for a pair of dimension ratings (order-free).
pub fn paper_score(a: Rating, b: Rating) -> f64 {
    use Rating::*;
    match (a, b) {
        (Bad, Bad) => 0.0,
        (Bad, Moderate) | (Moderate, Bad) => 30.0,
        (Moderate, Moderate) | (Bad, Good) | (Good, Bad) => 60.0,
        (Moderate, Good) | (Good, Moderate) => MODERATE_GOOD_SCORE,
        (Good, Good) => 90.0,
    }
}

/// Whether a pair is the case the paper leaves undefined.
pub fn is_moderate_good(a: Rating, b: Rating) -> bool {
    a.min(b) == Rating::Moderate && a.max(b) == Rating::Good
}

/// The ad a response carries, as the judge is told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdView {
    /// Product name.
    pub name: String,
    /// Link.
    pub url: String,
}

/// The judge's standing instructions, the same for every question.
const JUDGE_SYSTEM: &str = "You are a careful judge of chatbot responses. You are shown a \
user's question and a chatbot's response, then asked one rating question about the response. \
Answer only what is asked.";

/// The question and response first, the rating task last: every question
/// about one response then starts with the same tokens, so a provider that
/// caches prompt prefixes (the local model does) reads the response once.
fn request(query: &str, response: &str, task: &str) -> ChatRequest {
    let user = format!("User question:\n{query}\n\nChatbot response:\n{response}\n\n---\n{task}");
    let mut r = ChatRequest::new(vec![Message::system(JUDGE_SYSTEM), Message::user(user)]);
    r.max_tokens = JUDGE_MAX_TOKENS;
    r
}

/// The metric's heading in a task, with the advertised product when the
/// metric looks at the ad.
fn metric_heading(m: &JudgeMetric, ad: Option<&AdView>) -> String {
    let mut s = format!("Metric: {} ({})\n", m.name, m.objective);
    if m.shows_ad {
        match ad {
            Some(a) => s.push_str(&format!(
                "Sponsored product placed in the response: {} ({})\n",
                a.name, a.url
            )),
            None => s.push_str("Sponsored product placed in the response: none\n"),
        }
    }
    s
}

/// The closed-choice request for one dimension (paper protocol).
pub fn dimension_request(
    m: &JudgeMetric,
    dim: usize,
    query: &str,
    response: &str,
    ad: Option<&AdView>,
) -> ChatRequest {
    let d = &m.dims[dim.min(1)];
    let task = format!(
        "{}Rate only this dimension: {}. {}\n- good: {}\n- moderate: {}\n- bad: {}\n\
         Answer with a single word: good, moderate or bad.",
        metric_heading(m, ad),
        d.name,
        d.question,
        d.good,
        d.moderate,
        d.bad
    );
    request(query, response, &task)
}

/// The closed-choice request for one metric (gembench-1.0.9 protocol).
pub fn category_request(
    m: &JudgeMetric,
    query: &str,
    response: &str,
    ad: Option<&AdView>,
) -> ChatRequest {
    let mut task = format!(
        "{}Weigh two dimensions: {} ({}) and {} ({}).\nChoose the one category that fits best:\n",
        metric_heading(m, ad),
        m.dims[0].name,
        m.dims[0].question,
        m.dims[1].name,
        m.dims[1].question
    );
    for c in &m.categories {
        task.push_str(&format!("- {}: {}\n", c.code, c.meaning));
    }
    task.push_str("Answer with the category code only.");
    request(query, response, &task)
}

/// One metric's verdict, and whether it was the moderate+good case.
async fn judge_metric(
    llm: &dyn Provider,
    protocol: Protocol,
    m: &JudgeMetric,
    query: &str,
    response: &str,
    ad: Option<&AdView>,
) -> Result<(Verdict, bool), LlmError> {
    match protocol {
        Protocol::Paper => {
            let opts: Vec<String> = Rating::ALL.iter().map(|r| r.as_str().into()).collect();
            let r0 = dimension_request(m, 0, query, response, ad);
            let r1 = dimension_request(m, 1, query, response, ad);
            let (a, b) =
                futures::future::try_join(llm.choose(&r0, &opts), llm.choose(&r1, &opts)).await?;
            let rating = |i: Option<usize>| i.and_then(|i| Rating::ALL.get(i).copied());
            Ok(match (rating(a.index), rating(b.index)) {
                (Some(x), Some(y)) => (Verdict::Score(paper_score(x, y)), is_moderate_good(x, y)),
                _ => (Verdict::Unscored(PARSE_FAILURE.into()), false),
            })
        }
        Protocol::Gembench109 => {
            let opts: Vec<String> = m.categories.iter().map(|c| c.code.into()).collect();
            let req = category_request(m, query, response, ad);
            let idx = llm.choose(&req, &opts).await?.index;
            Ok(match idx.and_then(|i| m.categories.get(i)) {
                Some(c) => (Verdict::Score(f64::from(c.score)), false),
                None => (Verdict::Unscored(PARSE_FAILURE.into()), false),
            })
        }
    }
}

/// The six judge scores of one response (metric names as in
/// [`JUDGE_METRICS`]), plus [`MODERATE_GOOD_RATE`] under the paper
/// protocol. Metrics are asked concurrently.
///
/// # Errors
/// The provider's failures; an unparsable verdict is not an error.
pub async fn judge_response(
    llm: &dyn Provider,
    protocol: Protocol,
    query: &str,
    response: &str,
    ad: Option<&AdView>,
) -> Result<Vec<Score>, LlmError> {
    if response.trim().is_empty() {
        // Nothing to judge: every metric is unscored, and no judge is asked.
        let empty = || Verdict::Unscored(crate::metrics::unscored::EMPTY_RESPONSE.into());
        let mut scores: Vec<Score> = JUDGE_METRICS
            .iter()
            .map(|m| Score {
                metric: m.name.into(),
                verdict: empty(),
            })
            .collect();
        if protocol == Protocol::Paper {
            scores.push(Score {
                metric: MODERATE_GOOD_RATE.into(),
                verdict: empty(),
            });
        }
        return Ok(scores);
    }
    let results = futures::future::try_join_all(
        JUDGE_METRICS
            .iter()
            .map(|m| judge_metric(llm, protocol, m, query, response, ad)),
    )
    .await?;
    let mut scores: Vec<Score> = JUDGE_METRICS
        .iter()
        .zip(&results)
        .map(|(m, (v, _))| Score {
            metric: m.name.into(),
            verdict: v.clone(),
        })
        .collect();
    if protocol == Protocol::Paper {
        let scored = results
            .iter()
            .filter(|(v, _)| matches!(v, Verdict::Score(_)))
            .count();
        let mg = results.iter().filter(|(_, mg)| *mg).count();
        scores.push(Score {
            metric: MODERATE_GOOD_RATE.into(),
            verdict: if scored == 0 {
                Verdict::Unscored(PARSE_FAILURE.into())
            } else {
                Verdict::Score(100.0 * mg as f64 / scored as f64)
            },
        });
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_mapping_covers_every_combination() {
        use Rating::*;
        let table = [
            (Bad, Bad, 0.0),
            (Bad, Moderate, 30.0),
            (Bad, Good, 60.0),
            (Moderate, Bad, 30.0),
            (Moderate, Moderate, 60.0),
            (Moderate, Good, 75.0),
            (Good, Bad, 60.0),
            (Good, Moderate, 75.0),
            (Good, Good, 90.0),
        ];
        for (a, b, want) in table {
            assert_eq!(paper_score(a, b), want, "{a:?}+{b:?}");
            assert_eq!(
                is_moderate_good(a, b),
                want == MODERATE_GOOD_SCORE,
                "{a:?}+{b:?}"
            );
        }
    }

    #[test]
    fn protocols_parse_and_reject_unknown_names() {
        assert_eq!(Protocol::parse("paper").unwrap(), Protocol::Paper);
        assert_eq!(
            Protocol::parse("gembench-1.0.9").unwrap(),
            Protocol::Gembench109
        );
        assert!(Protocol::parse("x")
            .unwrap_err()
            .to_string()
            .contains("valid: paper"));
    }

    #[test]
    fn ad_is_shown_only_to_notice_and_click() {
        let ad = AdView {
            name: "Osprey".into(),
            url: "https://osprey.com".into(),
        };
        for m in &JUDGE_METRICS {
            let r = dimension_request(m, 0, "q", "r", Some(&ad));
            let shown = r.messages[1].content.contains("Osprey");
            assert_eq!(shown, m.name == "notice" || m.name == "click", "{}", m.name);
        }
    }
}
