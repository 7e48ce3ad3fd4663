//! Writing one tool call that is valid whatever the model prefers, by
//! walking the schema. The fixed parts (the `<tool_call>` wrapper, braces,
//! keys, quotes, commas) are forced: written as text and fed to the model
//! in one go. Where the schema leaves a choice (`leaf`), the model's masked
//! logits decide (`choice`):
//!
//! - The tool's name, an `enum` value and "which optional property next,
//!   or close the object" are literals: tokens must be prefixes of a
//!   remaining candidate, and once one candidate is left its rest is forced.
//! - Strings take tokens that are whole UTF-8 without quote, backslash or
//!   control character; numbers take single digits (SmolLM2 writes digits
//!   one per token) that keep a value in bounds reachable; arrays choose
//!   between another item and `]`.
//!
//! Termination: every decision keeps `spent + cost(shortest finish) <=
//! limit`, counting one token per byte of text still to force (a token
//! writes at least one byte), so a call never takes more than `limit`
//! tokens. The engine makes `limit` the request's `max_tokens`, or the
//! shortest call's cost ([`super::CallPlan::floor`]) when that is more.

use super::choice::{opener_tokens, options, Budget};
use super::leaf::{After, Leaf, Literal, Pick, Role};
use super::schema::{ArrayShape, ObjectShape, Shape, SEP};
use super::{CallPlan, Mode, Vocab};
use crate::error::ModelError;
use crate::generator::prompt::{ARGS_KEY, CALLS_CLOSE, CALLS_OPEN, CALL_CLOSE, NAME_KEY};
use crate::generator::sampling::{sample, Rng};
use crate::generator::tokenizer::ChatTokenizer;
use adfarm_llm::ToolCall;
use std::sync::Arc;

/// What the engine does next for a sequence writing a call.
pub(crate) enum Next {
    /// Feed these tokens (already part of the reply) and come back with the
    /// logits after the last.
    Feed(Vec<u32>),
    /// The call is written; these last tokens (end-of-turn included) need
    /// no forward pass.
    Done { tokens: Vec<u32>, call: ToolCall },
    /// The model answers in text, starting with this token.
    Text(u32),
}

enum Frame {
    Call,
    Object {
        obj: Arc<ObjectShape>,
        next_required: usize,
        next_optional: usize,
        written: usize,
    },
    Array {
        arr: Arc<ArrayShape>,
        items: usize,
    },
}

impl Frame {
    /// Most tokens to close this frame once its current value is written.
    fn rest(&self) -> usize {
        match self {
            Frame::Call => CALL_CLOSE.len() + CALLS_CLOSE.len() + 1,
            Frame::Object {
                obj, next_required, ..
            } => {
                1 + obj.required[*next_required..]
                    .iter()
                    .map(|p| SEP.len() + p.cost_with(p.shape.min_cost()))
                    .sum::<usize>()
            }
            Frame::Array { arr, items } => {
                1 + arr.min_items.saturating_sub(*items) * (SEP.len() + arr.item.min_cost())
            }
        }
    }
}

enum Decided {
    Token(u32),
    Silent,
    Text(u32),
}

/// One call being written.
pub(crate) struct CallWriter {
    plan: CallPlan,
    limit: usize,
    temperature: f32,
    top_p: f32,
    stack: Vec<Frame>,
    leaf: Option<Leaf>,
    /// Text to force, not yet turned into tokens.
    forced: String,
    /// Everything written so far.
    text: Vec<u8>,
    /// Tokens written so far.
    emitted: usize,
    tool: usize,
    /// Byte range of the arguments object in `text`.
    args: (usize, usize),
}

impl CallWriter {
    /// A writer of the call `plan` asks for, in at most `limit` tokens
    /// (at least [`CallPlan::floor`]), sampling as the request says.
    pub(crate) fn new(plan: CallPlan, limit: usize, temperature: f32, top_p: f32) -> CallWriter {
        let auto = plan.mode == Mode::Auto;
        let mut w = CallWriter {
            plan,
            limit,
            temperature,
            top_p,
            stack: Vec::new(),
            leaf: None,
            forced: String::new(),
            text: Vec::new(),
            emitted: 0,
            tool: 0,
            args: (0, 0),
        };
        if auto {
            w.leaf = Some(Leaf::Opener);
        } else {
            w.begin();
        }
        w
    }

    /// Takes the logits after everything written so far and says what to
    /// feed next.
    ///
    /// # Errors
    /// [`ModelError::Tokenizer`] when forced text cannot be encoded;
    /// [`ModelError::Inference`] when no token is allowed (a broken
    /// invariant, not an input).
    pub(crate) fn advance(
        &mut self,
        logits: &[f32],
        tok: &ChatTokenizer,
        rng: &mut Rng,
    ) -> Result<Next, ModelError> {
        let mut feed = Vec::new();
        let mut fresh = true;
        loop {
            let leaf = match self.leaf.take() {
                Some(Leaf::Literal(lit)) => match self.settle(lit) {
                    Some(lit) => Leaf::Literal(lit),
                    None => continue,
                },
                Some(leaf) => leaf,
                None if self.structure() => continue,
                None => {
                    self.flush(tok, &mut feed)?;
                    feed.push(tok.im_end);
                    self.emitted += 1;
                    return Ok(Next::Done {
                        tokens: feed,
                        call: self.call()?,
                    });
                }
            };
            if !self.forced.is_empty() {
                self.flush(tok, &mut feed)?;
                fresh = false;
            }
            if !fresh {
                self.leaf = Some(leaf);
                return Ok(Next::Feed(feed));
            }
            match self.decide(leaf, logits, &tok.vocab, rng)? {
                Decided::Token(t) => {
                    feed.push(t);
                    self.emitted += 1;
                    self.text.extend_from_slice(tok.vocab.bytes(t));
                    fresh = false;
                }
                Decided::Silent => {}
                Decided::Text(t) => return Ok(Next::Text(t)),
            }
        }
    }

    fn call(&self) -> Result<ToolCall, ModelError> {
        let args = String::from_utf8(self.text[self.args.0..self.args.1].to_vec())
            .map_err(|e| ModelError::Inference(format!("tool call arguments: {e}")))?;
        Ok(ToolCall {
            id: self.plan.call_id.clone(),
            name: self.plan.tools[self.tool].name.clone(),
            arguments: args,
        })
    }

    fn flush(&mut self, tok: &ChatTokenizer, feed: &mut Vec<u32>) -> Result<(), ModelError> {
        if self.forced.is_empty() {
            return Ok(());
        }
        let ids = tok.encode(&self.forced)?;
        self.emitted += ids.len();
        self.text.extend_from_slice(self.forced.as_bytes());
        feed.extend(ids);
        self.forced.clear();
        Ok(())
    }

    /// Tokens spent, counting forced text not yet encoded at a byte each.
    fn spent(&self) -> usize {
        self.emitted + self.forced.len()
    }

    /// Most tokens to finish every open frame once the current value is written.
    fn rest(&self) -> usize {
        self.stack.iter().map(Frame::rest).sum()
    }

    /// [`CallWriter::rest`] without the frame on top.
    fn rest_below_top(&self) -> usize {
        self.stack.iter().rev().skip(1).map(Frame::rest).sum()
    }

    fn begin(&mut self) {
        self.stack.push(Frame::Call);
        self.forced.push_str(CALLS_OPEN);
        self.forced.push_str(NAME_KEY);
        let tools = self.plan.candidates();
        let names = tools
            .iter()
            .map(|&i| self.plan.tools[i].name_json.clone())
            .collect();
        self.leaf = Some(Leaf::Literal(Literal::new(names, Role::Tool(tools))));
    }

    /// Starts writing a value of `shape`.
    fn start(&mut self, shape: &Shape) {
        match shape {
            Shape::Str {
                min_chars,
                max_chars,
            } => {
                self.forced.push('"');
                self.leaf = Some(Leaf::Str {
                    chars: 0,
                    tokens: 0,
                    min_chars: *min_chars,
                    max_chars: *max_chars,
                });
            }
            Shape::Int(bounds) => self.leaf = Some(Leaf::number(*bounds, None)),
            Shape::Num(bounds, real) => self.leaf = Some(Leaf::number(*bounds, Some(*real))),
            Shape::Literal(texts) => {
                self.leaf = Some(Leaf::Literal(Literal::new(texts.clone(), Role::Value)))
            }
            Shape::Array(arr) => {
                self.forced.push('[');
                self.stack.push(Frame::Array {
                    arr: Arc::clone(arr),
                    items: 0,
                });
            }
            Shape::Object(obj) => {
                self.forced.push('{');
                self.stack.push(Frame::Object {
                    obj: Arc::clone(obj),
                    next_required: 0,
                    next_optional: 0,
                    written: 0,
                });
            }
        }
    }

    /// Writes what the frame on top forces next; false once the call is
    /// complete.
    fn structure(&mut self) -> bool {
        let Some(top) = self.stack.last_mut() else {
            return false;
        };
        match top {
            Frame::Call => {
                self.args.1 = self.text.len() + self.forced.len();
                self.forced.push_str(CALL_CLOSE);
                self.forced.push_str(CALLS_CLOSE);
                self.stack.pop();
            }
            Frame::Object {
                obj,
                next_required,
                next_optional,
                written,
            } => {
                let obj = Arc::clone(obj);
                let sep = if *written > 0 { SEP } else { "" };
                if let Some(p) = obj.required.get(*next_required) {
                    *next_required += 1;
                    *written += 1;
                    self.forced.push_str(&format!("{sep}{}: ", p.key));
                    self.start(&p.shape);
                } else if *next_optional < obj.optional.len() {
                    let mut keys: Vec<String> = obj.optional[*next_optional..]
                        .iter()
                        .map(|p| format!("{sep}{}: ", p.key))
                        .collect();
                    keys.push("}".into());
                    self.leaf = Some(Leaf::Literal(Literal::new(keys, Role::Keys)));
                } else {
                    self.forced.push('}');
                    self.stack.pop();
                }
            }
            Frame::Array { arr, items } => {
                let arr = Arc::clone(arr);
                if *items < arr.min_items {
                    self.next_item();
                } else if *items >= arr.max_items {
                    self.forced.push(']');
                    self.stack.pop();
                } else {
                    let items = *items;
                    self.leaf = Some(Leaf::More { arr, items });
                }
            }
        }
        true
    }

    /// Starts another item of the array on top.
    fn next_item(&mut self) {
        if let Some(Frame::Array { arr, items }) = self.stack.last_mut() {
            if *items > 0 {
                self.forced.push_str(SEP);
            }
            *items += 1;
            let item = arr.item.clone();
            self.start(&item);
        }
    }

    /// Most tokens after candidate `c` of a literal until everything is closed.
    fn follow(&self, role: &Role, c: usize) -> usize {
        match role {
            Role::Tool(tools) => {
                let args = &self.plan.tools[tools[c]].args;
                ARGS_KEY.len() + args.min_cost() + self.rest()
            }
            Role::Value => self.rest(),
            Role::Keys => {
                let below = self.rest_below_top();
                match self.stack.last() {
                    Some(Frame::Object {
                        obj, next_optional, ..
                    }) if next_optional + c < obj.optional.len() => {
                        obj.optional[next_optional + c].shape.min_cost() + 1 + below
                    }
                    _ => below,
                }
            }
        }
    }

    /// Drops candidates that no longer fit, forces what the rest share;
    /// `None` once one candidate is left and written.
    fn settle(&mut self, mut lit: Literal) -> Option<Literal> {
        let room = self.limit.saturating_sub(self.spent());
        let mut costs = vec![usize::MAX; lit.cands.len()];
        for &c in &lit.alive {
            costs[c] = lit.rest(c).len() + self.follow(&lit.role, c);
        }
        lit.keep_affordable(&costs, room);
        if let [c] = lit.alive[..] {
            self.forced.push_str(lit.rest(c));
            self.finish(lit.role, c);
            return None;
        }
        self.forced.push_str(&lit.take_shared());
        Some(lit)
    }

    /// A literal's candidate `c` is written.
    fn finish(&mut self, role: Role, c: usize) {
        match role {
            Role::Tool(tools) => {
                self.tool = tools[c];
                self.forced.push_str(ARGS_KEY);
                self.args.0 = self.text.len() + self.forced.len();
                let args = Shape::Object(Arc::clone(&self.plan.tools[self.tool].args));
                self.start(&args);
            }
            Role::Value => {}
            Role::Keys => {
                let Some(Frame::Object {
                    obj,
                    next_optional,
                    written,
                    ..
                }) = self.stack.last_mut()
                else {
                    return;
                };
                let j = *next_optional + c;
                match obj.optional.get(j).map(|p| p.shape.clone()) {
                    Some(shape) => {
                        *next_optional = j + 1;
                        *written += 1;
                        self.start(&shape);
                    }
                    None => {
                        self.stack.pop();
                    }
                }
            }
        }
    }

    fn decide(
        &mut self,
        leaf: Leaf,
        logits: &[f32],
        vocab: &Vocab,
        rng: &mut Rng,
    ) -> Result<Decided, ModelError> {
        let rest = match &leaf {
            Leaf::More { .. } => 1 + self.rest_below_top(),
            _ => self.rest(),
        };
        let budget = Budget {
            spent: self.spent(),
            limit: self.limit,
            rest,
        };
        let pick =
            options(&leaf, logits, vocab, &budget).sample(self.temperature, self.top_p, rng)?;
        match pick {
            Pick::Text => {
                let mut text = logits.to_vec();
                for t in opener_tokens(vocab) {
                    text[t as usize] = f32::NEG_INFINITY;
                }
                Ok(Decided::Text(sample(
                    &text,
                    self.temperature,
                    self.top_p,
                    rng,
                )))
            }
            Pick::Call => {
                self.begin();
                Ok(Decided::Silent)
            }
            pick => Ok(self.apply(leaf, pick, vocab)),
        }
    }

    /// Moves past decision `pick` taken at `leaf`.
    fn apply(&mut self, leaf: Leaf, pick: Pick, vocab: &Vocab) -> Decided {
        match leaf.after(pick, vocab) {
            After::Open(leaf) => self.leaf = Some(leaf),
            After::Ended(close) => self.forced.push_str(close),
            After::Chosen(role, c) => self.finish(role, c),
            After::More => self.next_item(),
            After::Close => {
                self.forced.push(']');
                self.stack.pop();
            }
        }
        match pick {
            Pick::Token(t) => Decided::Token(t),
            _ => Decided::Silent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_llm::{ChatRequest, Message, Tool, ToolChoice};
    use serde_json::{json, Value};

    fn plan(tools: &[(&str, Value)], choice: ToolChoice) -> CallPlan {
        let mut r = ChatRequest::new(vec![Message::user("go")]);
        r.tools = tools
            .iter()
            .map(|(name, parameters)| Tool {
                name: name.to_string(),
                description: String::new(),
                parameters: parameters.clone(),
            })
            .collect();
        r.tool_choice = Some(choice);
        CallPlan::for_request(&r).unwrap().unwrap()
    }

    const MERGES: &[(&str, &str)] = &[
        ("\"", ","),
        (" ", "\""),
        ("t", "r"),
        ("u", "e"),
        ("tr", "ue"),
        ("1", "0"),
    ];

    /// Control tokens, bytes and merges.
    const VOCAB: usize = 3 + 256 + MERGES.len();

    fn tokenizer() -> ChatTokenizer {
        ChatTokenizer::tiny(MERGES)
    }

    /// Logits of a model that likes nothing in particular: a hash of the
    /// seed, the step and the token.
    fn noise(seed: u64, step: u64, n: usize) -> Vec<f32> {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003) ^ step);
        (0..n)
            .map(|_| sample(&[0.0; 64], 1.0, 1.0, &mut rng) as f32 / 8.0 - 4.0)
            .collect()
    }

    /// Runs a writer to the end; `Err` carries the first text token.
    fn write(
        mut w: CallWriter,
        tok: &ChatTokenizer,
        seed: u64,
        mut logits: impl FnMut(u64) -> Vec<f32>,
    ) -> Result<(ToolCall, Vec<u32>), u32> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        for step in 0.. {
            match w.advance(&logits(step), tok, &mut rng).expect("advance") {
                Next::Feed(t) => out.extend(t),
                Next::Done { tokens, call } => {
                    out.extend(tokens);
                    return Ok((call, out));
                }
                Next::Text(t) => return Err(t),
            }
        }
        unreachable!("the loop returns")
    }

    fn rich() -> Value {
        json!({"type": "object", "properties": {
            "city": {"type": "string", "maxLength": 12},
            "code": {"type": "string", "minLength": 3},
            "n": {"type": "integer", "minimum": 10, "maximum": 250},
            "x": {"type": "number"},
            "level": {"enum": [1, 10, 100, "high"]},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "minItems": 1, "maxItems": 3},
            "where": {"type": "object", "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "note": {"type": "string"}
            }, "required": ["lat"]}
        }, "required": ["city", "n", "where"]})
    }

    #[test]
    fn any_logits_give_a_valid_call_within_the_limit() {
        let tok = tokenizer();
        let n = VOCAB;
        for seed in 0..150 {
            // Either tool with room, or the rich one within its floor or a
            // little more.
            let choice = match seed % 3 {
                0 => ToolChoice::Required,
                _ => ToolChoice::Tool("a".into()),
            };
            let p = plan(&[("a", rich()), ("b", json!({}))], choice);
            let args = Shape::Object(Arc::clone(&p.tools[0].args));
            let limit = [400, p.floor(), p.floor() + 30][seed as usize % 3];
            let temperature = if seed % 2 == 0 { 0.0 } else { 1.0 };
            let w = CallWriter::new(p, limit, temperature, 0.9);
            let (call, tokens) = write(w, &tok, seed, |s| noise(seed, s, n)).expect("a call");
            assert!(tokens.len() <= limit, "{} tokens > {limit}", tokens.len());
            let v: Value = serde_json::from_str(&call.arguments).expect(&call.arguments);
            if call.name == "a" {
                assert!(args.admits(&v), "{}", call.arguments);
            } else {
                assert_eq!(v, json!({}));
            }
            let text = format!(
                "<tool_call>[\n{{\"name\": \"{}\", \"arguments\": {}}}\n]</tool_call><|im_end|>",
                call.name, call.arguments
            );
            assert_eq!(tok.decode(&tokens).unwrap(), text);
        }
    }

    #[test]
    fn a_forced_tool_is_named_and_the_same_seed_writes_the_same_call() {
        let tok = tokenizer();
        let n = VOCAB;
        let run = |seed| {
            let p = plan(
                &[("a", rich()), ("b", json!({}))],
                ToolChoice::Tool("a".into()),
            );
            let w = CallWriter::new(p, 200, 0.8, 1.0);
            write(w, &tok, seed, |s| noise(seed, s, n)).expect("a call")
        };
        let (a, ta) = run(3);
        assert_eq!((a.name.as_str(), a.id.as_str()), ("a", "call_0"));
        assert_eq!(run(3), (a.clone(), ta));
        assert_ne!(run(4).0, a, "another seed, another call");
    }

    #[test]
    fn auto_follows_the_mass_of_the_call_opener() {
        let tok = tokenizer();
        let lt = tok.encode("<").unwrap()[0] as usize;
        let n = VOCAB;
        let auto = || CallWriter::new(plan(&[("b", json!({}))], ToolChoice::Auto), 50, 0.0, 1.0);
        let wants = |first: usize| {
            move |step: u64| {
                let mut l = vec![0.0; n];
                l[if step == 0 { first } else { 0 }] = 9.0;
                l
            }
        };
        let (call, _) = write(auto(), &tok, 0, wants(lt)).expect("a call");
        assert_eq!(call.arguments, "{}");
        let hi = tok.encode("H").unwrap()[0];
        assert_eq!(write(auto(), &tok, 0, wants(hi as usize)), Err(hi));
    }
}
