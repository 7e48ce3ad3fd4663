//! The inference thread: owns the model, takes requests from a channel and
//! runs them with continuous batching — every step feeds one new token of
//! each decoding sequence plus at most one prompt chunk, in one forward pass.
//! Prompts that start like a recent one resume from its cached keys and
//! values ([`PrefixCache`]) or share them with a running sequence; a request
//! whose prompt shares a long prefix with one still prefilling waits for it
//! rather than computing it twice.
//!
//! Keys and values live within one memory budget: the room each active
//! sequence reserves for its prompt and longest reply, plus the prefix
//! cache. A prompt enters the cache when its sequence finishes, handing
//! over its buffers, so it is never held twice. Positions shared among
//! sequences and kept prompts ([`KvCache::share`]) count once for each of
//! them, so the budget bounds memory from above. A sequence is admitted only
//! when its room fits beside the others'; while others run, it waits rather
//! than evict a prefix that a request queued behind it resumes from (they
//! free room as they finish). So a sweep of long agent conversations waits
//! for room instead of growing, and does not re-prefill conversations that
//! were about to be resumed.

use super::kv::KvCache;
use super::model::{Llama, Segment, Want, PREFILL_CHUNK};
use super::prefix::{common_prefix, reusable, PrefixCache};
use super::sampling::{log_prob, sample, Rng};
use super::tokenizer::ChatTokenizer;
use super::tools::{CallPlan, CallWriter, Mode, Next};
use super::{Finish, Generation, Ranking};
use crate::error::ModelError;
use adfarm_llm::ToolCall;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Sequences decoded together. Past 8 the step time grows about linearly, so
/// more would only raise every request's latency.
pub(crate) const MAX_ACTIVE: usize = 8;

/// Prompt tokens whose keys and values are kept for reuse unless a provider
/// asks for more ([`super::LocalLlm::reserve_prefix_cache`]): 22.5 KiB
/// each for SmolLM2-135M, 360 MiB at most. Enough for judges (the response
/// first, then one question after another) and for a few agent episodes
/// at once, all starting with the same system prompt.
pub(crate) const PREFIX_CACHE_TOKENS: usize = 16_384;

/// Keys and values held, in positions (one K and one V row per layer each),
/// shared with the model's handles.
#[derive(Debug, Default)]
pub(crate) struct KvMeter {
    /// The budget.
    pub(crate) budget: AtomicUsize,
    /// Reserved by active sequences plus held by the prefix cache.
    pub(crate) in_use: AtomicUsize,
    /// The most `in_use` has been.
    pub(crate) peak: AtomicUsize,
}

pub(crate) struct ChatJob {
    pub(crate) prompt: String,
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f32,
    pub(crate) top_p: f32,
    pub(crate) seed: u64,
    pub(crate) stop: Vec<String>,
    pub(crate) ignore_eos: bool,
    /// Tools offered: the reply is a call (or, under `Auto`, maybe text).
    pub(crate) call: Option<CallPlan>,
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

/// A prompt being fed to the model in chunks.
struct Prompt {
    tokens: Vec<u32>,
    /// Tokens already in `cache`.
    fed: usize,
    /// Tokens that came from the prefix cache.
    reused: usize,
    /// Positions the sequence can reach: the prompt and the longest reply.
    positions: usize,
    cache: KvCache,
}

impl Prompt {
    fn done(&self) -> bool {
        self.fed == self.tokens.len()
    }

    /// Starts from a cached prefix instead of position 0.
    fn resume(&mut self, cache: KvCache) {
        self.fed = cache.len();
        self.reused = cache.len();
        self.cache = cache;
    }

    /// Allocates the cache for every position the sequence can reach (on
    /// admission, so waiting sequences hold nothing; a cached prefix comes
    /// with the room already).
    fn reserve(&mut self, row: usize) {
        self.cache.reserve(self.positions, row);
    }

    /// The next chunk, if `admit` lets its size in.
    fn segment(&mut self, admit: &mut impl FnMut(usize) -> bool) -> Option<Segment<'_>> {
        let end = (self.fed + PREFILL_CHUNK).min(self.tokens.len());
        if !admit(end - self.fed) {
            return None;
        }
        let want = if end == self.tokens.len() {
            Want::Last
        } else {
            Want::Nothing
        };
        Some(Segment {
            cache: &mut self.cache,
            tokens: &self.tokens[self.fed..end],
            want,
        })
    }

    /// Records the chunk just fed; true once the whole prompt is in.
    fn advance(&mut self) -> bool {
        self.fed = (self.fed + PREFILL_CHUNK).min(self.tokens.len());
        self.done()
    }
}

struct ChatSeq {
    job: ChatJob,
    prompt: Prompt,
    /// Sampled and forced tokens (the end-of-turn token included when it
    /// ended the reply).
    out: Vec<u32>,
    /// Tokens to feed next, once the prompt is in: the last sampled one, or
    /// a call's forced text.
    pending: Vec<u32>,
    /// Writes the reply as a tool call, until it turns out to be text.
    writer: Option<CallWriter>,
    rng: Rng,
    started: Option<Instant>,
    prefilled: Option<Instant>,
    done: Option<Result<Generation, ModelError>>,
}

struct ChooseSeq {
    job: ChooseJob,
    prompt: Prompt,
    /// Scored tokens of each option: its text, then `<|im_end|>`.
    options: Vec<Vec<u32>>,
    scores: Vec<f64>,
    /// Next option to feed after the prompt.
    next: usize,
    /// Floats per position in one stream of the cache, for truncation.
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
        self.fail_with(ModelError::Inference(e.to_string()));
    }

    fn fail_with(&mut self, e: ModelError) {
        match self {
            Seq::Chat(s) => s.done = Some(Err(e)),
            Seq::Choose(s) => s.done = Some(Err(e)),
        }
    }

    /// Answers the caller; returns the prompt, whose keys and values may be
    /// kept for reuse.
    fn reply(self) -> Prompt {
        match self {
            Seq::Chat(s) => {
                if let Some(r) = s.done {
                    let _ = s.job.reply.send(r);
                }
                s.prompt
            }
            Seq::Choose(s) => {
                if let Some(r) = s.done {
                    let _ = s.job.reply.send(r);
                }
                s.prompt
            }
        }
    }

    fn prompt(&self) -> &Prompt {
        match self {
            Seq::Chat(s) => &s.prompt,
            Seq::Choose(s) => &s.prompt,
        }
    }

    fn prompt_mut(&mut self) -> &mut Prompt {
        match self {
            Seq::Chat(s) => &mut s.prompt,
            Seq::Choose(s) => &mut s.prompt,
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
                if !s.prompt.done() {
                    s.started.get_or_insert_with(Instant::now);
                    return s.prompt.segment(&mut admit);
                }
                Some(Segment {
                    cache: &mut s.prompt.cache,
                    tokens: &s.pending,
                    want: Want::Last,
                })
            }
            Seq::Choose(s) => {
                if !s.prompt.done() {
                    return s.prompt.segment(&mut admit);
                }
                let opt = &s.options[s.next];
                // The last scored token is predicted, never fed.
                let feed = &opt[..opt.len() - 1];
                if !admit(feed.len()) {
                    return None;
                }
                Some(Segment {
                    cache: &mut s.prompt.cache,
                    tokens: feed,
                    want: Want::All,
                })
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
        if !self.prompt.done() {
            if !self.prompt.advance() {
                return;
            }
            self.prefilled = Some(Instant::now());
        }
        let Some(row) = logits.last() else {
            self.done = Some(Err(ModelError::Inference("no logits".into())));
            return;
        };
        let next = match self
            .writer
            .as_mut()
            .map(|w| w.advance(row, tok, &mut self.rng))
        {
            None => {
                let mut row = row.clone();
                if self.job.ignore_eos {
                    for &id in &tok.stop_ids {
                        row[id as usize] = f32::NEG_INFINITY;
                    }
                }
                sample(&row, self.job.temperature, self.job.top_p, &mut self.rng)
            }
            Some(Err(e)) => {
                self.done = Some(Err(e));
                return;
            }
            Some(Ok(Next::Feed(tokens))) => {
                self.out.extend_from_slice(&tokens);
                self.pending = tokens;
                return;
            }
            Some(Ok(Next::Done { tokens, call })) => {
                self.out.extend(tokens);
                self.finish(String::new(), Finish::Stop, Some(call));
                return;
            }
            Some(Ok(Next::Text(first))) => {
                self.writer = None;
                first
            }
        };
        self.out.push(next);
        self.pending = vec![next];
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
            && (self.out.len() >= self.job.max_tokens as usize
                || self.prompt.cache.len() + 1 >= context)
        {
            finish = Some(Finish::Length);
        }
        if let Some(finish) = finish {
            self.finish(text, finish, None);
        }
    }

    fn finish(&mut self, text: String, finish: Finish, tool_call: Option<ToolCall>) {
        let now = Instant::now();
        let started = self.started.unwrap_or(now);
        let prefilled = self.prefilled.unwrap_or(now);
        self.done = Some(Ok(Generation {
            text,
            tool_call,
            input_tokens: self.prompt.tokens.len() as u64,
            reused_tokens: self.prompt.reused as u64,
            output_tokens: self.out.len() as u64,
            finish,
            prefill_time: prefilled.duration_since(started),
            decode_time: now.duration_since(prefilled),
        }));
    }
}

impl ChooseSeq {
    fn advance(&mut self, logits: Vec<Vec<f32>>) {
        if !self.prompt.done() {
            if !self.prompt.advance() {
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
            let fed = self.prompt.tokens.len();
            self.prompt.cache.truncate(fed, self.cache_row);
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
                input_tokens: (self.prompt.tokens.len()
                    + self.options.iter().map(Vec::len).sum::<usize>())
                    as u64,
                reused_tokens: self.prompt.reused as u64,
            }));
        }
    }
}

pub(crate) struct Engine {
    model: Llama,
    tok: Arc<ChatTokenizer>,
    prefixes: PrefixCache,
    /// Positions the active sequences have reserved.
    active_positions: usize,
    meter: Arc<KvMeter>,
}

impl Engine {
    /// `prefix_budget`: tokens the prefix cache may hold, raised by handles;
    /// `meter`: the memory budget (set) and what is held (kept up to date).
    pub(crate) fn new(
        model: Llama,
        tok: Arc<ChatTokenizer>,
        prefix_budget: Arc<AtomicUsize>,
        meter: Arc<KvMeter>,
    ) -> Engine {
        let prefixes = PrefixCache::new(prefix_budget, model.cache_row());
        Engine {
            model,
            tok,
            prefixes,
            active_positions: 0,
            meter,
        }
    }

    fn budget(&self) -> usize {
        self.meter.budget.load(Ordering::Relaxed)
    }

    /// Publishes what is held now.
    fn record(&self) {
        let in_use = self.active_positions + self.prefixes.held();
        self.meter.in_use.store(in_use, Ordering::Relaxed);
        self.meter.peak.fetch_max(in_use, Ordering::Relaxed);
    }

    /// Serves jobs until every sender is dropped.
    pub(crate) fn run(mut self, rx: mpsc::Receiver<Job>) {
        let mut waiting: VecDeque<Seq> = VecDeque::new();
        let mut active: Vec<Seq> = Vec::new();
        loop {
            if active.is_empty() && waiting.is_empty() {
                match rx.recv() {
                    Ok(j) => waiting.extend(self.start(j)),
                    Err(_) => return,
                }
            }
            while let Ok(j) = rx.try_recv() {
                waiting.extend(self.start(j));
            }
            self.admit(&mut waiting, &mut active);
            if active.is_empty() {
                continue;
            }
            self.step(&mut active);
            let mut i = 0;
            while i < active.len() {
                if active[i].finished() {
                    let seq = active.swap_remove(i);
                    self.active_positions -= seq.prompt().positions;
                    let prompt = seq.reply();
                    // What the prefix cache saved, per request: prompts
                    // computed whole again show up here first.
                    tracing::debug!(
                        prompt_tokens = prompt.tokens.len(),
                        reused_tokens = prompt.reused,
                        "Local model request done."
                    );
                    if prompt.done() {
                        let limit = self.budget().saturating_sub(self.active_positions);
                        let queue = queued(&waiting, None);
                        self.prefixes
                            .insert(prompt.tokens, prompt.cache, limit, &queue);
                    }
                } else {
                    i += 1;
                }
            }
            self.record();
        }
    }

    /// Moves waiting sequences into free slots, in arrival order, each
    /// resuming from the longest reusable prefix of its prompt, cached or in
    /// a running sequence. One that would reuse more of a prompt still being
    /// prefilled waits for that prompt; one whose room does not fit the
    /// memory budget beside the active sequences, or fits only by evicting a
    /// prefix that a request queued behind it resumes from, waits for them
    /// (and those after it with it); one that would not fit it alone fails.
    fn admit(&mut self, waiting: &mut VecDeque<Seq>, active: &mut Vec<Seq>) {
        let mut i = 0;
        while active.len() < MAX_ACTIVE && i < waiting.len() {
            if waiting[i].finished() {
                // Its caller has gone.
                waiting.remove(i);
                continue;
            }
            let prompt = &waiting[i].prompt().tokens;
            let cached = self.prefixes.available(prompt);
            let running = active
                .iter()
                .enumerate()
                .filter(|(_, a)| a.prompt().done())
                .map(|(k, a)| {
                    (
                        k,
                        reusable(common_prefix(&a.prompt().tokens, prompt), prompt),
                    )
                })
                .max_by_key(|&(k, n)| (n, k))
                .filter(|&(_, n)| n > cached);
            let reuse = running.map_or(cached, |(_, n)| n);
            let better_soon = active.iter().any(|a| {
                let p = a.prompt();
                !p.done() && reusable(common_prefix(&p.tokens, prompt), prompt) > reuse
            });
            if better_soon {
                i += 1;
                continue;
            }
            let positions = waiting[i].prompt().positions;
            let budget = self.budget();
            if positions > budget {
                let mut seq = waiting.remove(i).expect("index in range");
                seq.fail_with(self.over_budget(positions, budget));
                seq.reply();
                continue;
            }
            if self.active_positions + positions > budget {
                break;
            }
            let limit = budget - self.active_positions - positions;
            // With nothing running, nothing would free room: evict.
            let patient = !active.is_empty();
            let queue = queued(waiting, Some(i));
            let taken = match running {
                Some(_) => self
                    .prefixes
                    .make_room(limit, &queue, patient)
                    .map(|()| None),
                None => self
                    .prefixes
                    .take(prompt, positions, limit, &queue, patient),
            };
            drop(queue);
            let Ok(cache) = taken else {
                break;
            };
            let Some(mut seq) = waiting.remove(i) else {
                break;
            };
            if let Some((k, n)) = running {
                let from = &mut active[k].prompt_mut().cache;
                let cache = from.share(n, positions, self.model.cache_row());
                seq.prompt_mut().resume(cache);
            } else if let Some(cache) = cache {
                seq.prompt_mut().resume(cache);
            }
            seq.prompt_mut().reserve(self.model.cache_row());
            self.active_positions += positions;
            active.push(seq);
            self.record();
        }
    }

    fn over_budget(&self, positions: usize, budget: usize) -> ModelError {
        let mib = |p: usize| (p * self.model.kv_bytes_per_position()) as f64 / (1 << 20) as f64;
        ModelError::Inference(format!(
            "a prompt with room for its reply takes {positions} positions ({:.0} MiB of keys \
             and values); the memory budget for keys and values is {:.0} MiB",
            mib(positions),
            mib(budget)
        ))
    }

    fn step(&mut self, active: &mut [Seq]) {
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

    /// A prompt whose reply (or longest option) takes up to `reply` tokens.
    fn prompt(&self, tokens: Vec<u32>, reply: usize) -> Prompt {
        Prompt {
            positions: (tokens.len() + reply).min(self.model.cfg.context),
            tokens,
            fed: 0,
            reused: 0,
            cache: self.model.new_cache(),
        }
    }

    /// Tokenizes a job; answers it at once when there is nothing to run.
    fn start(&self, job: Job) -> Option<Seq> {
        let context = self.model.cfg.context;
        match job {
            Job::Chat(mut job) => {
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
                let forced_call = job.call.as_ref().is_some_and(|p| p.mode != Mode::Auto);
                if job.max_tokens == 0 && !forced_call {
                    let _ = job.reply.send(Ok(Generation {
                        text: String::new(),
                        tool_call: None,
                        input_tokens: prompt.len() as u64,
                        reused_tokens: 0,
                        output_tokens: 0,
                        finish: Finish::Length,
                        prefill_time: Duration::ZERO,
                        decode_time: Duration::ZERO,
                    }));
                    return None;
                }
                let (writer, reply) = match job.call.take() {
                    None => (None, job.max_tokens as usize),
                    Some(plan) => {
                        // A call never runs past the context: it gets what is
                        // left of it, if that holds the shortest call.
                        let (floor, room) = (plan.floor(), context - 1 - prompt.len());
                        if floor > room {
                            let _ = job.reply.send(Err(too_long(prompt.len() + floor, context)));
                            return None;
                        }
                        let limit = (job.max_tokens as usize).max(floor).min(room);
                        let writer = CallWriter::new(plan, limit, job.temperature, job.top_p);
                        (Some(writer), limit)
                    }
                };
                let rng = Rng::new(job.seed);
                Some(Seq::Chat(Box::new(ChatSeq {
                    job,
                    prompt: self.prompt(prompt, reply),
                    out: Vec::new(),
                    pending: Vec::new(),
                    writer,
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
                    prompt: self.prompt(prompt, longest),
                    options,
                    scores: vec![0.0; n],
                    next: 0,
                    done: None,
                    cache_row: self.model.cache_row(),
                })))
            }
        }
    }
}

/// Prompts of the waiting sequences in the order they will run, but for
/// the one at `skip` (being admitted).
fn queued(waiting: &VecDeque<Seq>, skip: Option<usize>) -> Vec<&[u32]> {
    waiting
        .iter()
        .enumerate()
        .filter(|&(j, _)| Some(j) != skip)
        .map(|(_, s)| s.prompt().tokens.as_slice())
        .collect()
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
