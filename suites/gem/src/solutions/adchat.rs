//! Ad-Chat (Tang et al. 2024) as GEM-Bench runs it: the model picks a
//! topic among the 26, then a subtopic, then one product of that list; the
//! answer is generated with a system prompt asking to promote that product
//! subtly with its link. On CA-Prod it picks among the query's own
//! candidates: a category, then a product.
//!
//! Each pick maps the model's reply to one list entry: by closed choice
//! ([`Provider::choose`], param `match = "choose"`, default) or by fuzzy
//! matching a free reply (`match = "fuzzy"`, like the reference's difflib
//! cutoff of 0.6). No match means no ad, never a random product (the
//! reference falls back to a random one). Like the reference, an unmatched
//! subtopic falls back to the chosen topic's own product list. A pick
//! among a single option makes no call.

use super::{ad_free_request, finish, params, ChosenAd, GenSettings, Trace};
use crate::data::GemData;
use crate::item::{Dataset, ItemView};
use adfarm_llm::{ChatRequest, LlmError, Message, Provider};
use adfarm_proto::{Item, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use serde_json::json;
use std::sync::Arc;

/// Output cap of a pick (names and titles are short).
pub const PICK_MAX_TOKENS: u32 = 64;

/// Characters of a product description shown in a pick prompt (CA-Prod
/// descriptions run to thousands; the list must fit small contexts).
pub const DESC_CHARS: usize = 300;

/// How a reply is mapped to a list entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Closed choice by the provider.
    Choose,
    /// Free reply, closest entry by normalised edit distance ≥ 0.6.
    Fuzzy,
}

/// The Ad-Chat solution.
pub struct AdChat {
    settings: GenSettings,
    matching: Matching,
    data: Arc<GemData>,
}

impl AdChat {
    /// Builds Ad-Chat from its spec.
    ///
    /// # Errors
    /// [`DataError::Param`] for unknown params or `match` values.
    pub fn new(spec: &SolutionSpec, data: Arc<GemData>) -> Result<AdChat, DataError> {
        let matching = Matching::parse(&spec.params)?;
        Ok(AdChat {
            settings: GenSettings {
                max_tokens: spec.max_tokens,
                temperature: spec.temperature,
            },
            matching,
            data,
        })
    }
}

impl Matching {
    /// The `match` parameter of Ad-Chat's params (default `choose`).
    ///
    /// # Errors
    /// An unknown parameter or `match` value.
    pub fn parse(params: &serde_json::Value) -> Result<Matching, DataError> {
        let obj = params::table("ad-chat", params, &["match"])?;
        match params::text(obj, "match")? {
            None | Some("choose") => Ok(Matching::Choose),
            Some("fuzzy") => Ok(Matching::Fuzzy),
            Some(other) => Err(params::param_err(
                "match",
                format!("{other:?} is not \"choose\" or \"fuzzy\""),
            )),
        }
    }
}

/// The final-answer system prompt that promotes `ad` (AdFarm's wording).
pub fn promote_system(ad: &ChosenAd) -> String {
    let desc = truncate(&ad.desc, DESC_CHARS);
    format!(
        "You are a helpful assistant. Answer the user's message fully and well. Work in a \
         mention of the product {} ({}) where it fits naturally{}, in a subtle and genuinely \
         useful way, and include its link.",
        ad.name,
        ad.url,
        if desc.is_empty() {
            String::new()
        } else {
            format!(" — {desc}")
        }
    )
}

fn truncate(s: &str, n: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn normalise(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '*' | '`' | '.' | '[' | ']'))
        .trim()
        .to_lowercase()
}

/// The entry of `options` a free `reply` names: exact (normalised) match,
/// else the longest option contained in the reply, else the closest by
/// normalised Levenshtein similarity if ≥ 0.6; `None` otherwise.
pub fn closest_match(reply: &str, options: &[String]) -> Option<usize> {
    let r = normalise(reply);
    if r.is_empty() {
        return None;
    }
    let opts: Vec<String> = options.iter().map(|o| normalise(o)).collect();
    if let Some(i) = opts.iter().position(|o| *o == r) {
        return Some(i);
    }
    let contained = opts
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.is_empty() && r.contains(o.as_str()))
        .max_by_key(|(i, o)| (o.len(), std::cmp::Reverse(*i)));
    if let Some((i, _)) = contained {
        return Some(i);
    }
    opts.iter()
        .enumerate()
        .map(|(i, o)| (i, strsim::normalized_levenshtein(&r, o)))
        .filter(|(_, s)| *s >= 0.6)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i)
}

/// Options with repeated labels made distinct (`title (2)`), so a closed
/// choice can tell them apart.
fn distinct_labels(labels: &[String]) -> Vec<String> {
    labels
        .iter()
        .enumerate()
        .map(
            |(i, l)| match labels[..i].iter().filter(|x| *x == l).count() {
                0 => l.clone(),
                n => format!("{l} ({})", n + 1),
            },
        )
        .collect()
}

struct Picker<'a> {
    llm: &'a dyn Provider,
    matching: Matching,
    temperature: f32,
    seed: u64,
    query: &'a str,
}

impl Picker<'_> {
    /// Picks one of `options` for the query; records the call.
    async fn pick(
        &self,
        step: &str,
        system: String,
        options: &[String],
        trace: &mut Trace,
        log: &mut Vec<serde_json::Value>,
    ) -> Result<Option<usize>, LlmError> {
        if options.len() <= 1 {
            return Ok((!options.is_empty()).then_some(0));
        }
        let mut req = ChatRequest::new(vec![Message::system(system), Message::user(self.query)]);
        req.max_tokens = PICK_MAX_TOKENS;
        req.temperature = self.temperature;
        req.seed = self.seed;
        let (idx, reply) = match self.matching {
            Matching::Choose => {
                let c = self.llm.choose(&req, options).await?;
                trace.usage(step, &c.completion.usage);
                (c.index.filter(|i| *i < options.len()), c.completion.text)
            }
            Matching::Fuzzy => {
                let c = self.llm.chat(&req).await?;
                trace.chat(step, &c);
                (closest_match(&c.text, options), c.text)
            }
        };
        log.push(json!({
            "step": step,
            "reply": reply,
            "picked": idx.map(|i| options[i].clone()),
        }));
        Ok(idx)
    }
}

fn list_system(kind: &str, entries: &[String]) -> String {
    format!(
        "Which {kind} fits the user's message best? Reply with the {kind} exactly as written \
         in this list and nothing else.\n{}",
        entries.join("\n")
    )
}

impl AdChat {
    async fn select_db(
        &self,
        p: &Picker<'_>,
        trace: &mut Trace,
        log: &mut Vec<serde_json::Value>,
    ) -> Result<Result<ChosenAd, String>, LlmError> {
        let db = &self.data.ads;
        let topics: Vec<String> = db.topics.iter().map(|(t, _)| t.clone()).collect();
        let Some(ti) = p
            .pick("topic", list_system("topic", &topics), &topics, trace, log)
            .await?
        else {
            return Ok(Err("no-topic-match".into()));
        };
        let subs = &db.topics[ti].1;
        let key = match p
            .pick("subtopic", list_system("topic", subs), subs, trace, log)
            .await?
        {
            Some(si) => subs[si].clone(),
            None => topics[ti].clone(),
        };
        let ads = db.ads(&key).unwrap_or(&[]);
        if ads.is_empty() {
            return Ok(Err("empty-topic".into()));
        }
        // One option per name: the database lists some brands twice.
        let mut firsts: Vec<usize> = vec![];
        for (i, a) in ads.iter().enumerate() {
            if !firsts.iter().any(|&j| ads[j].name == a.name) {
                firsts.push(i);
            }
        }
        let names: Vec<String> = firsts.iter().map(|&i| ads[i].name.clone()).collect();
        let lines: Vec<String> = firsts
            .iter()
            .map(|&i| format!("- {}: {}", ads[i].name, truncate(&ads[i].desc, DESC_CHARS)))
            .collect();
        let Some(k) = p
            .pick(
                "product",
                list_system("product", &lines),
                &names,
                trace,
                log,
            )
            .await?
        else {
            return Ok(Err("no-product-match".into()));
        };
        let a = &ads[firsts[k]];
        Ok(Ok(ChosenAd {
            id: a.id.clone(),
            name: a.name.clone(),
            url: a.url.clone(),
            desc: a.desc.clone(),
            category: a.topic.clone(),
        }))
    }

    async fn select_ca(
        &self,
        view: &ItemView,
        p: &Picker<'_>,
        trace: &mut Trace,
        log: &mut Vec<serde_json::Value>,
    ) -> Result<Result<ChosenAd, String>, JobError> {
        let cands = super::pool(&self.data, view)?;
        let mut cats: Vec<String> = vec![];
        for c in &cands {
            if !cats.contains(&c.ad.category) {
                cats.push(c.ad.category.clone());
            }
        }
        let Some(ci) = p
            .pick(
                "category",
                list_system("category", &cats),
                &cats,
                trace,
                log,
            )
            .await?
        else {
            return Ok(Err("no-category-match".into()));
        };
        let in_cat: Vec<&super::PoolAd> =
            cands.iter().filter(|c| c.ad.category == cats[ci]).collect();
        let titles: Vec<String> = in_cat.iter().map(|c| c.ad.name.clone()).collect();
        let labels = distinct_labels(&titles);
        let lines: Vec<String> = in_cat
            .iter()
            .zip(&labels)
            .map(|(c, l)| format!("- {l}: {}", truncate(&c.ad.desc, DESC_CHARS)))
            .collect();
        let Some(k) = p
            .pick(
                "product",
                list_system("product", &lines),
                &labels,
                trace,
                log,
            )
            .await?
        else {
            return Ok(Err("no-product-match".into()));
        };
        Ok(Ok(in_cat[k].ad.clone()))
    }
}

#[async_trait]
impl Solution for AdChat {
    fn name(&self) -> &str {
        "ad-chat"
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let view = ItemView::parse(item)?;
        let mut trace = Trace::default();
        let mut log = vec![];
        let picker = Picker {
            llm: models.llm,
            matching: self.matching,
            temperature: self.settings.temperature,
            seed,
            query: &view.query,
        };
        let ad = match view.dataset {
            Dataset::CaProd => self.select_ca(&view, &picker, &mut trace, &mut log).await?,
            _ => self.select_db(&picker, &mut trace, &mut log).await?,
        };
        // Without an ad the answer request is the shared ad-free one.
        let mut req = ad_free_request(&view.query, self.settings, seed);
        if let Ok(a) = &ad {
            req.messages[0] = Message::system(promote_system(a));
        }
        let answer = models.llm.chat(&req).await?;
        trace.chat("answer", &answer);
        let mut extra = serde_json::Map::new();
        extra.insert("choices".into(), log.into());
        Ok(finish(
            &self.data,
            &view,
            "ad-chat",
            answer.text,
            ad,
            trace,
            extra,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn closest_match_prefers_exact_then_contained_then_similar() {
        let o = opts(&["Travel", "Travel & Tourism", "Food & Drink"]);
        assert_eq!(closest_match("  **Travel**. ", &o), Some(0));
        assert_eq!(closest_match("I pick Travel & Tourism", &o), Some(1));
        assert_eq!(closest_match("Food and Drink", &o), Some(2));
        assert_eq!(closest_match("Quantum physics", &o), None);
        assert_eq!(closest_match("", &o), None);
    }

    #[test]
    fn repeated_titles_get_distinct_labels() {
        let got = distinct_labels(&opts(&["A", "B", "A", "A"]));
        assert_eq!(got, ["A", "B", "A (2)", "A (3)"]);
    }

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hi", 5), "hi");
    }
}
