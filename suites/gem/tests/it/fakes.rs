//! Deterministic in-test models and a tiny hand-made GEM-Bench dataset.

use adfarm_gem::caprod::{CaProd, CaProduct, CaQuery, Candidate, Label};
use adfarm_gem::data::{AdDb, GemData, Query};
use adfarm_llm::{ChatRequest, Choice, Completion, Embedder, Embeddings, LlmError, Provider};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;
use std::sync::Mutex;

type ChatFn = dyn Fn(&ChatRequest) -> String + Send + Sync;
type ChooseFn = dyn Fn(&ChatRequest, &[String]) -> Option<usize> + Send + Sync;

/// A scripted chat model that logs every request.
pub struct FakeLlm {
    pub chat_fn: Box<ChatFn>,
    pub choose_fn: Box<ChooseFn>,
    pub log: Mutex<Vec<(String, ChatRequest)>>,
}

fn tokens(s: &str) -> u64 {
    s.split_whitespace().count() as u64
}

fn usage(req: &ChatRequest, reply: &str) -> Usage {
    Usage {
        model: "fake".into(),
        role: Role::Generation,
        input: req.messages.iter().map(|m| tokens(&m.content)).sum(),
        output: tokens(reply),
        cached: false,
        source: UsageSource::Counted,
        latency_ms: 0,
    }
}

impl FakeLlm {
    pub fn new(
        chat_fn: impl Fn(&ChatRequest) -> String + Send + Sync + 'static,
        choose_fn: impl Fn(&ChatRequest, &[String]) -> Option<usize> + Send + Sync + 'static,
    ) -> FakeLlm {
        FakeLlm {
            chat_fn: Box::new(chat_fn),
            choose_fn: Box::new(choose_fn),
            log: Mutex::new(vec![]),
        }
    }

    pub fn requests(&self) -> Vec<(String, ChatRequest)> {
        self.log.lock().unwrap().clone()
    }
}

#[async_trait]
impl Provider for FakeLlm {
    fn model(&self) -> &str {
        "fake"
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        self.log.lock().unwrap().push(("chat".into(), req.clone()));
        let text = (self.chat_fn)(req);
        Ok(Completion {
            usage: usage(req, &text),
            text,
            tool_calls: vec![],
        })
    }

    async fn choose(&self, req: &ChatRequest, options: &[String]) -> Result<Choice, LlmError> {
        self.log
            .lock()
            .unwrap()
            .push(("choose".into(), req.clone()));
        let index = (self.choose_fn)(req, options);
        let text = index.map_or("???".to_string(), |i| options[i].clone());
        Ok(Choice {
            index,
            completion: Completion {
                usage: usage(req, &text),
                text,
                tool_calls: vec![],
            },
        })
    }
}

/// Bag-of-words embeddings: each lower-cased word (letters only, plural
/// `s` dropped) adds 1 to a hashed bucket; vectors are L2-normalised.
pub struct FakeEmbedder {
    pub calls: Mutex<usize>,
}

impl FakeEmbedder {
    pub fn new() -> FakeEmbedder {
        FakeEmbedder {
            calls: Mutex::new(0),
        }
    }
}

pub const DIM: usize = 64;

pub fn bow(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text.split(|c: char| !c.is_alphabetic()) {
        let w = w.to_lowercase();
        let w = w.trim_end_matches('s');
        if w.len() < 3
            || [
                "the", "and", "for", "with", "are", "you", "your", "thi", "that",
            ]
            .contains(&w)
        {
            continue;
        }
        let h = blake3::hash(w.as_bytes());
        v[h.as_bytes()[0] as usize % DIM] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

#[async_trait]
impl Embedder for FakeEmbedder {
    fn model(&self) -> &str {
        "fake-bow"
    }

    async fn embed(&self, texts: &[String]) -> Result<Embeddings, LlmError> {
        *self.calls.lock().unwrap() += 1;
        // A real embedder answers later; let concurrent callers interleave.
        tokio::task::yield_now().await;
        Ok(Embeddings {
            vectors: texts.iter().map(|t| bow(t)).collect(),
            usage: Usage {
                model: "fake-bow".into(),
                role: Role::Embedding,
                input: texts.iter().map(|t| tokens(t)).sum(),
                output: 0,
                cached: false,
                source: UsageSource::Counted,
                latency_ms: 0,
            },
        })
    }
}

fn ad(name: &str, url: &str, desc: &str) -> (String, String, String) {
    (name.into(), url.into(), desc.into())
}

/// Two topics, three subtopics (one empty), a handful of ads; two prompts
/// per chatbot dataset; two CA-Prod queries with a duplicate title and a
/// label conflict.
pub fn tiny_data() -> GemData {
    let ads = AdDb::new(
        vec![
            ("Travel".into(), vec!["Luggage".into(), "Hotels".into()]),
            ("Food".into(), vec!["Cookware".into()]),
        ],
        vec![
            (
                "Travel".into(),
                vec![ad(
                    "Lonely Planet",
                    "https://www.lonelyplanet.com/",
                    "Travel guide books for city trips",
                )],
            ),
            (
                "Luggage".into(),
                vec![
                    ad(
                        "Osprey Farpoint",
                        "https://www.osprey.com/",
                        "Travel backpack for city trips in Paris and Rome",
                    ),
                    ad(
                        "Samsonite",
                        "https://www.samsonite.com/",
                        "Hard shell suitcase luggage",
                    ),
                    ad(
                        "Osprey Farpoint",
                        "https://www.osprey.com/",
                        "Travel backpack for city trips in Paris and Rome",
                    ),
                ],
            ),
            ("Hotels".into(), vec![]),
            ("Food".into(), vec![]),
            (
                "Cookware".into(),
                vec![ad(
                    "Le Creuset",
                    "https://www.lecreuset.com/",
                    "Cast iron cookware pots and pans",
                )],
            ),
        ],
    );
    let q = |t: &str, c: &str| Query {
        text: t.into(),
        category: c.into(),
    };
    let p = |id: u64, title: &str, desc: &str| {
        (
            id,
            CaProduct {
                id,
                title: title.into(),
                desc: desc.into(),
                url: format!("https://shop.example/{id}"),
            },
        )
    };
    let c = |product_id, label, cluster_id| Candidate {
        product_id,
        label,
        cluster_id,
    };
    GemData {
        mt_human: vec![q("Plan a city trip to Paris for three days.", "Travel")],
        lm_market: vec![
            q("Plan a city trip to Paris for three days.", "Travel"),
            q("Which pots are best for cooking stew?", "Food"),
        ],
        ads,
        ca_prod: CaProd {
            queries: vec![
                CaQuery {
                    query_id: 7,
                    text: "red summer dress".into(),
                    candidates: vec![
                        c(1, Label::Relevant, 5),
                        c(2, Label::NotRelevant, 5),
                        c(3, Label::Conflict, 5),
                        c(4, Label::NotRelevant, 1),
                    ],
                    rows: 5,
                    relevant_rows: 2,
                    duplicates: vec![3],
                },
                CaQuery {
                    query_id: 8,
                    text: "slip on shoes".into(),
                    candidates: vec![c(4, Label::Relevant, 1), c(5, Label::NotRelevant, 1)],
                    rows: 2,
                    relevant_rows: 1,
                    duplicates: vec![],
                },
            ],
            products: [
                p(1, "Summer Dress", "Red summer dress, cotton"),
                p(2, "Summer Dress", "Blue winter dress, wool"),
                p(3, "Party Dress", "Red party dress"),
                p(4, "Loafers", "Slip on shoes"),
                p(5, "Boots", "Winter boots"),
            ]
            .into_iter()
            .collect(),
            clusters: [(5, "Dresses".to_string()), (1, "Footwear".to_string())]
                .into_iter()
                .collect(),
        },
    }
}
