//! The inference thread: owns the model, takes requests from a channel and
//! runs them with continuous batching — every step feeds one new token of
//! each decoding sequence plus at most one prompt chunk, in one forward pass.

use super::model::{KvCache, Llama, Segment, Want, PREFILL_CHUNK};
use super::sampling::{log_prob, sample, Rng};
use super::tokenizer::ChatTokenizer;
use super::{Finish, Generation, Ranking};
use crate::error::ModelError;
use std::collections::VecDeque;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Sequences decoded together. Past 8 the step time grows about linearly, so
/// more would only raise every request's latency.
pub(crate) const MAX_ACTIVE: usize = 8;

pub(crate) struct ChatJob {
    pub(crate) prompt: String,
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f32,
    pub(crate) top_p: f32,
    pub(crate) seed: u64,
    pub(crate) stop: Vec<String>,
    pub(crate) ignore_eos: bool,
    pub(crate) reply: oneshot::Sender<Result<Generation, ModelError>>,
}

pub(crate) struct ChooseJob {
    pub(crate) prompt: String,
    pub(crate) options: Vec<String>,
    pub(crate) reply: oneshot::Sender<Result<Ranking, ModelError>>,
}

pub(crate) enum Job {
    Chat(ChatJob),
    Choose(ChooseJob),
}

struct ChatSeq {
    job: ChatJob,
    prompt: Vec<u32>,
    fed: usize,
    cache: KvCache,
    /// Sampled tokens (the end-of-turn token included when it ended the reply).
    out: Vec<u32>,
    /// Token to feed next, once the prompt is in.
    pending: [u32; 1],
    rng: Rng,
    started: Option<Instant>,
    prefilled: Option<Instant>,
    done: Option<Result<Generation, ModelError>>,
}

struct ChooseSeq {
    job: ChooseJob,
    prompt: Vec<u32>,
    fed: usize,
    cache: KvCache,
    /// Scored tokens of each option: its text, then `<|im_end|>`.
    options: Vec<Vec<u32>>,
    scores: Vec<f64>,
    /// Next option to feed after the prompt.
    next: usize,
    /// Floats per position in one layer's K cache, for truncation.
    cache_row: usize,
    done: Option<Result<Ranking, ModelError>>,
}

enum Seq {
    Chat(Box<ChatSeq>),
    Choose(Box<ChooseSeq>),
}

impl Seq {
    fn finished(&self) -> bool {
        match self {
            Seq::Chat(s) => s.done.is_some() || s.job.reply.is_closed(),
            Seq::Choose(s) => s.done.is_some() || s.job.reply.is_closed(),
        }
    }

    fn fail(&mut self, e: &ModelError) {
        let e = ModelError::Inference(e.to_string());
        match self {
            Seq::Chat(s) => s.done = Some(Err(e)),
            Seq::Choose(s) => s.done = Some(Err(e)),
        }
    }

    fn reply(self) {
        match self {
            Seq::Chat(s) => {
                if let Some(r) = s.done {
                    let _ = s.job.reply.send(r);
                }
            }
            Seq::Choose(s) => {
                if let Some(r) = s.done {
                    let _ = s.job.reply.send(r);
                }
            }
        }
    }

    /// This step's tokens; `budget` is the prompt tokens still allowed.
    fn segment(&mut self, budget: &mut usize, first_prefill: &mut bool) -> Option<Segment<'_>> {
        let mut admit = |n: usize| {
            if *first_prefill || n <= *budget {
                *first_prefill = false;
                *budget = budget.saturating_sub(n);
                true
            } else {
                false
            }
        };
        match self {
            Seq::Chat(s) => {
                if s.fed < s.prompt.len() {
                    let end = (s.fed + PREFILL_CHUNK).min(s.prompt.len());
                    if !admit(end - s.fed) {
                        return None;
                    }
                    s.started.get_or_insert_with(Instant::now);
                    let want = if end == s.prompt.len() {
                        Want::Last
                    } else {
                        Want::Nothing
                    };
                    Some(Segment {
                        cache: &mut s.cache,
                        tokens: &s.prompt[s.fed..end],
                        want,
                    })
                } else {
                    Some(Segment {
                        cache: &mut s.cache,
                        tokens: &s.pending,
                        want: Want::Last,
                    })
                }
            }
            Seq::Choose(s) => {
                if s.fed < s.prompt.len() {
                    let end = (s.fed + PREFILL_CHUNK).min(s.prompt.len());
                    if !admit(end - s.fed) {
                        return None;
                    }
                    let want = if end == s.prompt.len() {
                        Want::Last
                    } else {
                        Want::Nothing
                    };
                    Some(Segment {
                        cache: &mut s.cache,
                        tokens: &s.prompt[s.fed..end],
                        want,
                    })
                } else {
                    let opt = &s.options[s.next];
                    // The last scored token is predicted, never fed.
                    let feed = &opt[..opt.len() - 1];
                    if !admit(feed.len()) {
                        return None;
                    }
                    Some(Segment {
                        cache: &mut s.cache,
                        tokens: feed,
                        want: Want::All,
                    })
                }
            }
        }
    }

    /// Consumes the logits of this step's segment.
    fn advance(&mut self, logits: Vec<Vec<f32>>, tok: &ChatTokenizer, context: usize) {
        match self {
            Seq::Chat(s) => s.advance(logits, tok, context),
            Seq::Choose(s) => s.advance(logits),
        }
    }
}

impl ChatSeq {
    fn advance(&mut self, logits: Vec<Vec<f32>>, tok: &ChatTokenizer, context: usize) {
        if self.fed < self.prompt.len() {
            self.fed = (self.fed + PREFILL_CHUNK).min(self.prompt.len());
            if self.fed < self.prompt.len() {
                return;
            }
            self.prefilled = Some(Instant::now());
        }
        let Some(row) = logits.last() else {
            self.done = Some(Err(ModelError::Inference("no logits".into())));
            return;
        };
        let mut row = row.clone();
        if self.job.ignore_eos {
            for &id in &tok.stop_ids {
                row[id as usize] = f32::NEG_INFINITY;
            }
        }
        let next = sample(&row, self.job.temperature, self.job.top_p, &mut self.rng);
        self.out.push(next);
        self.pending = [next];
        let mut finish = None;
        let mut text_end = self.out.len();
        if tok.stop_ids.contains(&next) {
            finish = Some(Finish::Stop);
            text_end -= 1;
        }
        let text = match tok.decode(&self.out[..text_end]) {
            Ok(t) => t,
            Err(e) => {
                self.done = Some(Err(e));
                return;
            }
        };
        let mut text = text;
        if let Some(cut) = self
            .job
            .stop
            .iter()
            .filter(|s| !s.is_empty())
            .filter_map(|s| text.find(s.as_str()))
            .min()
        {
            text.truncate(cut);
            finish = Some(Finish::Stop);
        }
        if finish.is_none()
            && (self.out.len() >= self.job.max_tokens as usize || self.cache.len() + 1 >= context)
        {
            finish = Some(Finish::Length);
        }
        if let Some(finish) = finish {
            let now = Instant::now();
            let started = self.started.unwrap_or(now);
            let prefilled = self.prefilled.unwrap_or(now);
            self.done = Some(Ok(Generation {
                text,
                input_tokens: self.prompt.len() as u64,
                output_tokens: self.out.len() as u64,
                finish,
                prefill_time: prefilled.duration_since(started),
                decode_time: now.duration_since(prefilled),
            }));
        }
    }
}

impl ChooseSeq {
    fn advance(&mut self, logits: Vec<Vec<f32>>) {
        if self.fed < self.prompt.len() {
            self.fed = (self.fed + PREFILL_CHUNK).min(self.prompt.len());
            if self.fed < self.prompt.len() {
                return;
            }
            let Some(last) = logits.last() else {
                self.done = Some(Err(ModelError::Inference("no logits".into())));
                return;
            };
            for (score, opt) in self.scores.iter_mut().zip(&self.options) {
                *score = log_prob(last, opt[0]);
            }
        } else {
            let opt = &self.options[self.next];
            for (row, &t) in logits.iter().zip(&opt[1..]) {
                self.scores[self.next] += log_prob(row, t);
            }
            self.cache.truncate(self.prompt.len(), self.kv_row());
            self.next += 1;
        }
        // Single-token options need no forward pass of their own.
        while self.next < self.options.len() && self.options[self.next].len() == 1 {
            self.next += 1;
        }
        if self.next == self.options.len() {
            let mut best = 0;
            for (i, s) in self.scores.iter().enumerate() {
                if *s > self.scores[best] {
                    best = i;
                }
            }
            self.done = Some(Ok(Ranking {
                index: best,
                log_likelihoods: self.scores.clone(),
                input_tokens: (self.prompt.len() + self.options.iter().map(Vec::len).sum::<usize>())
                    as u64,
            }));
        }
    }

    fn kv_row(&self) -> usize {
        self.cache_row
    }
}

pub(crate) struct Engine {
    pub(crate) model: Llama,
    pub(crate) tok: Arc<ChatTokenizer>,
}

impl Engine {
    /// Serves jobs until every sender is dropped.
    pub(crate) fn run(self, rx: mpsc::Receiver<Job>) {
        let mut waiting: VecDeque<Job> = VecDeque::new();
        let mut active: Vec<Seq> = Vec::new();
        loop {
            if active.is_empty() && waiting.is_empty() {
                match rx.recv() {
                    Ok(j) => waiting.push_back(j),
                    Err(_) => return,
                }
            }
            while let Ok(j) = rx.try_recv() {
                waiting.push_back(j);
            }
            while active.len() < MAX_ACTIVE {
                let Some(job) = waiting.pop_front() else {
                    break;
                };
                if let Some(seq) = self.start(job) {
                    active.push(seq);
                }
            }
            if active.is_empty() {
                continue;
            }
            self.step(&mut active);
            let mut i = 0;
            while i < active.len() {
                if active[i].finished() {
                    active.swap_remove(i).reply();
                } else {
                    i += 1;
                }
            }
        }
    }

    fn step(&self, active: &mut [Seq]) {
        let mut budget = PREFILL_CHUNK;
        let mut first_prefill = true;
        let mut owners = Vec::new();
        let mut segs = Vec::new();
        for (i, seq) in active.iter_mut().enumerate() {
            if let Some(seg) = seq.segment(&mut budget, &mut first_prefill) {
                owners.push(i);
                segs.push(seg);
            }
        }
        let result = self.model.forward(&mut segs);
        drop(segs);
        match result {
            Ok(logits) => {
                for (i, l) in owners.into_iter().zip(logits) {
                    active[i].advance(l, &self.tok, self.model.cfg.context);
                }
            }
            Err(e) => {
                tracing::warn!(code = e.code(), error = %e, "Local model forward pass failed.");
                for i in owners {
                    active[i].fail(&e);
                }
            }
        }
    }

    /// Tokenizes a job; answers it at once when there is nothing to run.
    fn start(&self, job: Job) -> Option<Seq> {
        let context = self.model.cfg.context;
        match job {
            Job::Chat(job) => {
                let prompt = match self.tok.encode(&job.prompt) {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = job.reply.send(Err(e));
                        return None;
                    }
                };
                if prompt.is_empty() || prompt.len() >= context {
                    let _ = job.reply.send(Err(too_long(prompt.len(), context)));
                    return None;
                }
                if job.max_tokens == 0 {
                    let _ = job.reply.send(Ok(Generation {
                        text: String::new(),
                        input_tokens: prompt.len() as u64,
                        output_tokens: 0,
                        finish: Finish::Length,
                        prefill_time: Duration::ZERO,
                        decode_time: Duration::ZERO,
                    }));
                    return None;
                }
                let rng = Rng::new(job.seed);
                Some(Seq::Chat(Box::new(ChatSeq {
                    job,
                    prompt,
                    fed: 0,
                    cache: self.model.new_cache(),
                    out: Vec::new(),
                    pending: [0],
                    rng,
                    started: None,
                    prefilled: None,
                    done: None,
                })))
            }
            Job::Choose(job) => {
                let encoded = std::iter::once(&job.prompt)
                    .chain(&job.options)
                    .map(|t| self.tok.encode(t))
                    .collect::<Result<Vec<_>, _>>();
                let mut encoded = match encoded {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = job.reply.send(Err(e));
                        return None;
                    }
                };
                if job.options.is_empty() {
                    let _ = job.reply.send(Err(ModelError::Inference(
                        "no options to choose from".into(),
                    )));
                    return None;
                }
                let prompt = encoded.remove(0);
                let options: Vec<Vec<u32>> = encoded
                    .into_iter()
                    .map(|mut o| {
                        o.push(self.tok.im_end);
                        o
                    })
                    .collect();
                let longest = options.iter().map(Vec::len).max().unwrap_or(0);
                if prompt.is_empty() || prompt.len() + longest >= context {
                    let _ = job
                        .reply
                        .send(Err(too_long(prompt.len() + longest, context)));
                    return None;
                }
                let n = options.len();
                Some(Seq::Choose(Box::new(ChooseSeq {
                    job,
                    prompt,
                    fed: 0,
                    cache: self.model.new_cache(),
                    options,
                    scores: vec![0.0; n],
                    next: 0,
                    done: None,
                    cache_row: self.model.kv_row(),
                })))
            }
        }
    }
}

fn too_long(tokens: usize, context: usize) -> ModelError {
    if tokens == 0 {
        ModelError::Inference("empty prompt".into())
    } else {
        ModelError::Inference(format!(
            "prompt of {tokens} tokens does not fit the model context of {context}"
        ))
    }
}
