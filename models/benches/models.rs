//! Throughput and memory of the local models (release build):
//!
//!     cargo bench -p adfarm-models --bench models
//!
//! Each part runs in its own child process (this binary re-executed with
//! `embed`, `products`, `generate` or `agents`; name one to run only it, and after
//! `agents` one of its rows: `default`, `raised`, `tight`), so the peak
//! RSS (VmHWM) of one is not inflated by another. Assets come from
//! `$ADFARM_HOME` or the default home and are fetched when missing. Prints
//! a Markdown table.
//!
//! With `ADFARM_LLAMA_CPP_PYTHON` naming a Python that has llama-cpp-python,
//! the full run also runs llama.cpp (`llamacpp_peer.py` beside this file) on the
//! same GGUF and the same prompt tokens, right after the generator's rows,
//! and prints both sides with their ratios.

use adfarm_llm::{ChatRequest, Message, Tool, ToolChoice};
use adfarm_models::generator::{request_prompt, GenOptions, Generation};
use adfarm_models::{assets, LocalEmbedder, LocalLlm};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

fn home() -> PathBuf {
    let home = std::env::var_os("ADFARM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(assets::default_home);
    if let Err(e) = assets::ensure(&home, &[]) {
        eprintln!("cannot fetch assets: {e}");
        std::process::exit(2);
    }
    home
}

/// Peak resident set of this process so far, MiB.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// CPU seconds (user + system) this process has used.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may contain spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    // utime and stime are fields 14 and 15 of the whole line, in 1/100 s.
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// The 1-minute load average, to judge how busy the machine was.
fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default()
}

fn row(what: &str, value: String, note: &str) {
    println!("| {what} | {value} | {note} |");
}

/// 1,200 sentences of 5 to ~30 words from a deterministic generator.
fn sentences() -> Vec<String> {
    const SUBJECTS: &[&str] = &[
        "The new phone",
        "My grandmother",
        "A small bakery downtown",
        "This running shoe",
        "The electric car",
        "Our customer support team",
        "The budget airline",
        "A cheap laptop",
        "The coffee machine",
        "Every student in the class",
    ];
    const VERBS: &[&str] = &[
        "is",
        "was never",
        "has become",
        "seems",
        "will be",
        "looks",
        "felt",
        "remains",
    ];
    const TAILS: &[&str] = &[
        "surprisingly good value for the money",
        "the best purchase I made this year",
        "too loud in the morning",
        "a reliable choice for long trips across the country",
        "hard to set up without reading the manual twice",
        "popular with families who travel on weekends",
        "worth it if you care about battery life and a bright screen",
        "available in three colours and two sizes",
    ];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..1200)
        .map(|i| {
            let mut s = format!(
                "{} {} {}",
                SUBJECTS[next(SUBJECTS.len())],
                VERBS[next(VERBS.len())],
                TAILS[next(TAILS.len())]
            );
            // Mostly one clause, sometimes two: typical sentence lengths.
            for _ in 0..next(4) / 2 {
                s.push_str(", and ");
                s.push_str(TAILS[next(TAILS.len())]);
            }
            if i % 3 == 0 {
                s = format!("Question {i}: would you say that {s}?");
            }
            s
        })
        .collect()
}

fn bench_embed() {
    let dir = assets::embedder_dir(&home());
    let t = Instant::now();
    let e = LocalEmbedder::load(&dir).expect("load embedder");
    let load = t.elapsed().as_secs_f64();
    let rss_loaded = peak_rss_mib();
    let texts = sentences();
    e.embed_blocking(&texts[..64]).expect("warm-up");
    let (t, cpu0) = (Instant::now(), cpu_secs());
    let out = e.embed_blocking(&texts).expect("embed");
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu0;
    row(
        "embedding, batch 32",
        format!("{:.0} sentences/s", texts.len() as f64 / secs),
        &format!(
            "{} sentences, {:.1} tokens each, {:.0} tokens/s; {:.1} CPU s in {:.1} s; load {}",
            texts.len(),
            out.tokens as f64 / texts.len() as f64,
            out.tokens as f64 / secs,
            cpu,
            secs,
            load_avg()
        ),
    );
    row(
        "embedder load",
        format!("{load:.2} s"),
        "safetensors read + BERT build",
    );
    row(
        "embedder peak RSS",
        format!("{rss_loaded:.0} MiB"),
        &format!("after load; {:.0} MiB after the run", peak_rss_mib()),
    );
}

fn chat(system: &str, user: String, max_tokens: u32) -> ChatRequest {
    let mut r = ChatRequest::new(vec![Message::system(system), Message::user(user)]);
    r.max_tokens = max_tokens;
    r
}

fn long_text() -> String {
    let base = "Our online store sells running shoes, rain jackets, backpacks and water \
                bottles. Customers often ask about sizes, delivery times, returns and \
                discounts for students. ";
    let mut s = String::new();
    for i in 0..44 {
        s.push_str(&format!("Note {i}: "));
        s.push_str(base);
    }
    s.push_str("\nSummarise the notes above in one sentence.");
    s
}

/// Question `i` of a judge about one ad-injected response; with `shared`
/// false the prompt starts with the question number, so no prefix is shared.
fn judge_question(i: usize, shared: bool) -> ChatRequest {
    let response = "Business etiquette in Japan rewards preparation. Exchange business cards \
        with both hands and a slight bow, and take a moment to read the card before putting it \
        away. Punctuality matters: arrive a few minutes early. Gifts are common, wrapped \
        modestly and offered with humility. For travel between meetings, the [Japan Rail \
        Pass](https://www.japanrailpass.net) covers most bullet trains and saves time and \
        money. In meetings, wait to be seated, let the senior person speak first and avoid \
        direct refusals; silence is often a sign of consideration rather than disagreement.";
    let dims = [
        "relevance",
        "correctness",
        "fluency",
        "tone",
        "voice",
        "helpfulness",
    ];
    let question = format!(
        "Metric {}: rate only the dimension {}.\n- good: the response does this well\n\
         - moderate: partly, with visible flaws\n- bad: it fails at this\n\
         Answer with a single word: good, moderate or bad.",
        i / 2,
        dims[i % dims.len()]
    );
    let system = "You are a careful judge of chatbot responses. Answer only what is asked.";
    let system = if shared {
        system.to_string()
    } else {
        format!("[{i}] {system}")
    };
    chat(
        &system,
        format!(
            "User question:\nWhat business etiquette should I know for a trip to Japan?\n\n\
             Chatbot response:\n{response}\n\n---\n{question}"
        ),
        4,
    )
}

/// An ad-platform agent's turn: two tools, a call required; `k` makes the
/// system prompt distinct, so no run reuses another's cached prefix.
fn tool_turn(k: usize, ask: &str) -> ChatRequest {
    let mut r = chat(
        &format!("[{k}] You manage ad campaigns. Use the tools."),
        ask.to_string(),
        96,
    );
    r.tools = vec![
        Tool {
            name: "set_budget".into(),
            description: "Set a campaign's daily budget.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {
                "campaign_id": {"type": "integer", "minimum": 1},
                "daily_budget": {"type": "number", "minimum": 1, "maximum": 10000},
                "currency": {"enum": ["USD", "EUR", "GBP"]}
            }, "required": ["campaign_id", "daily_budget"]}),
        },
        Tool {
            name: "create_ad".into(),
            description: "Create a text ad.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {
                "headline": {"type": "string", "maxLength": 30},
                "keywords": {"type": "array", "items": {"type": "string"}, "maxItems": 4}
            }, "required": ["headline", "keywords"]}),
        },
    ];
    r.tool_choice = Some(ToolChoice::Required);
    r
}

/// Sixteen agent conversations at once, as an agent sweep runs them: one
/// long system prompt, then turns that each extend the conversation with
/// the model's reply and a tool result. Returns the wall time and the
/// prompt tokens in all and reused. A fresh model per call, so one budget's
/// cache does not help the other; `kv_memory` bytes of keys and values.
fn agent_turns(
    gguf: &std::path::Path,
    budget: Option<usize>,
    kv_memory: usize,
) -> (f64, u64, u64, adfarm_models::generator::KvMemory) {
    let llm = LocalLlm::load_within(gguf, kv_memory).expect("load generator");
    if let Some(tokens) = budget {
        llm.reserve_prefix_cache(tokens);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let system = format!("You are an ad-analytics agent.\n{}", long_text());
    let t = Instant::now();
    let (tokens, reused) = rt.block_on(async {
        let handles: Vec<_> = (0..16)
            .map(|c| {
                let llm = llm.clone();
                let system = system.clone();
                tokio::spawn(async move {
                    let mut req = chat(
                        &system,
                        format!(
                            "Task {c}: how much did account {} spend yesterday?",
                            100 + c
                        ),
                        48,
                    );
                    let (mut tokens, mut reused) = (0, 0);
                    for turn in 0..3 {
                        let g = llm
                            .generate(&req, GenOptions { ignore_eos: true })
                            .await
                            .expect("turn");
                        tokens += g.input_tokens;
                        reused += g.reused_tokens;
                        req.messages.push(Message::assistant(g.text));
                        req.messages.push(Message::user(format!(
                            "<tool_res>r{turn}: account {} spent {}.{:02} CNY on {} ad \
                             groups; clicks {}, conversions {}.</tool_res>",
                            100 + c,
                            1_000 + 37 * c,
                            turn * 7,
                            3 + turn,
                            420 + c,
                            12 + turn
                        )));
                    }
                    (tokens, reused)
                })
            })
            .collect();
        let (mut tokens, mut reused) = (0, 0);
        for h in handles {
            let (t, r) = h.await.expect("conversation");
            tokens += t;
            reused += r;
        }
        (tokens, reused)
    });
    (t.elapsed().as_secs_f64(), tokens, reused, llm.kv_memory())
}

/// The generator's 4-bit products on one thread, groups of eight weight
/// rows one at a time and two at a time, with their ratio: the kernels
/// alone, without the rest of a forward pass around them.
fn bench_products() {
    let gguf = assets::generator_gguf(&home());
    let rates = adfarm_models::generator::product_rates(&gguf).expect("product rates");
    for r in rates {
        let paired = r.paired.map_or("no AVX-512 VNNI".to_string(), |p| {
            format!("two at a time {p:.0} (×{:.2})", p / r.alone)
        });
        row(
            &format!(
                "4-bit product, {} ({}×{}), {} activation row{}, one thread",
                r.name,
                r.rows,
                r.k,
                r.acts,
                if r.acts == 1 { "" } else { "s" }
            ),
            format!("{:.0} GMAC/s", r.alone),
            &format!("groups one at a time; {paired} GMAC/s; load {}", load_avg()),
        );
    }
}

fn bench_generate() {
    let gguf = assets::generator_gguf(&home());
    let t = Instant::now();
    let llm = LocalLlm::load(&gguf).expect("load generator");
    let load = t.elapsed().as_secs_f64();
    let rss_loaded = peak_rss_mib();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let ignore_eos = GenOptions { ignore_eos: true };
    let short = chat(
        "You are a helpful assistant.",
        "Write a short story about a robot who learns to paint.".into(),
        128,
    );
    let long = chat("You are a helpful assistant.", long_text(), 64);
    let mut figures = Vec::new();
    rt.block_on(async {
        llm.generate(&short, ignore_eos).await.expect("warm-up");
        for (name, req, runs) in [("short", &short, 10), ("long", &long, 3)] {
            // Prefill alone (one output token), best of `runs`: short runs
            // are at the mercy of other processes' time slices.
            let mut prefill: Option<Generation> = None;
            for k in 0..runs {
                // A different first message each time: a cached prefix of the
                // previous run would make this a measure of the cache.
                let mut one = req.clone();
                one.max_tokens = 1;
                one.messages[0].content = format!("[{k}] {}", one.messages[0].content);
                let g = llm.generate(&one, ignore_eos).await.expect("generate");
                if prefill
                    .as_ref()
                    .is_none_or(|b| g.prefill_time < b.prefill_time)
                {
                    prefill = Some(g);
                }
            }
            let p = prefill.expect("runs");
            row(
                &format!("prefill, {name} prompt"),
                format!(
                    "{:.0} tok/s",
                    p.input_tokens as f64 / p.prefill_time.as_secs_f64()
                ),
                &format!(
                    "{} prompt tokens, best of {runs}; load {}",
                    p.input_tokens,
                    load_avg()
                ),
            );
            let mut best: Option<Generation> = None;
            for _ in 0..3 {
                let g = llm.generate(req, ignore_eos).await.expect("generate");
                if best.as_ref().is_none_or(|b| g.decode_time < b.decode_time) {
                    best = Some(g);
                }
            }
            let g = best.expect("three runs");
            figures.push(serde_json::json!({
                "name": name,
                "tokens": llm.encode(&request_prompt(req).expect("prompt")).expect("tokens"),
                "decode": g.output_tokens,
                "prefill_runs": runs,
                "decode_runs": 3,
                "prefill_tok_s": p.input_tokens as f64 / p.prefill_time.as_secs_f64(),
                "decode_tok_s": (g.output_tokens - 1) as f64 / g.decode_time.as_secs_f64(),
            }));
            row(
                &format!("decode, {name} prompt"),
                format!(
                    "{:.1} tok/s",
                    (g.output_tokens - 1) as f64 / g.decode_time.as_secs_f64()
                ),
                &format!(
                    "{} output tokens after {} prompt tokens, best of 3",
                    g.output_tokens, g.input_tokens
                ),
            );
        }
        for batch in [1usize, 4, 8] {
            let topics = [
                "a robot", "the sea", "a city", "a cat", "winter", "a train", "music", "a garden",
            ];
            let handles: Vec<_> = (0..batch)
                .map(|i| {
                    let llm = llm.clone();
                    let req = chat(
                        "You are a helpful assistant.",
                        format!("Write a short story about {}.", topics[i]),
                        128,
                    );
                    tokio::spawn(async move {
                        let g = llm.generate(&req, GenOptions { ignore_eos: true }).await;
                        (g, Instant::now())
                    })
                })
                .collect();
            let mut tokens = 0u64;
            let mut first_decode: Option<Instant> = None;
            let mut last_end: Option<Instant> = None;
            for h in handles {
                let (g, end) = h.await.expect("task");
                let g = g.expect("generate");
                tokens += g.output_tokens - 1;
                let start = end - g.decode_time;
                first_decode = Some(first_decode.map_or(start, |f| f.min(start)));
                last_end = Some(last_end.map_or(end, |l| l.max(end)));
            }
            let window = match (first_decode, last_end) {
                (Some(a), Some(b)) => (b - a).as_secs_f64(),
                _ => f64::NAN,
            };
            row(
                &format!("decode, batch {batch}"),
                format!("{:.1} tok/s", tokens as f64 / window),
                &format!("aggregate of {batch} sequences × 127 tokens, short prompts"),
            );
        }
        // A judge's twelve closed-choice questions about one response, asked
        // at once as the GEM-Bench judge asks them: the response first, the
        // question last, so eleven prefills reuse the first one's prefix.
        // Against the same prompts made distinct from their first token.
        let options: Vec<String> = ["good", "moderate", "bad"].map(String::from).to_vec();
        for (label, shared) in [
            ("distinct prompts", false),
            ("shared response prefix", true),
        ] {
            let t = Instant::now();
            let handles: Vec<_> = (0..12)
                .map(|i| {
                    let llm = llm.clone();
                    let options = options.clone();
                    let req = judge_question(i, shared);
                    tokio::spawn(async move { llm.rank(&req, &options).await })
                })
                .collect();
            let (mut tokens, mut reused) = (0, 0);
            for h in handles {
                let r = h.await.expect("task").expect("rank");
                tokens += r.input_tokens;
                reused += r.reused_tokens;
            }
            row(
                &format!("judge one response, 12 questions, {label}"),
                format!("{:.2} s", t.elapsed().as_secs_f64()),
                &format!("{tokens} tokens scored, {reused} reused from a cached prefix"),
            );
        }
        // One agent turn that must call a tool, alone (best of 5); then
        // one agent (one system prompt and tool set) on eight tasks at once,
        // as a sweep runs it.
        let asks = [
            "Set campaign 42's daily budget to 150 euros.",
            "Write an ad for a cosy coffee shop.",
            "Raise campaign 7's budget to 900 dollars a day.",
            "Create an ad for running shoes with two keywords.",
            "Campaign 3 should spend at most 75 pounds daily.",
            "Make an ad headline for a bakery.",
            "Cut campaign 12's budget to 20 euros.",
            "Write an ad for winter jackets.",
        ];
        let mut best: Option<(f64, Generation)> = None;
        for k in 0..5 {
            let t = Instant::now();
            let g = llm
                .generate(&tool_turn(k, asks[0]), GenOptions::default())
                .await
                .expect("tool call");
            let secs = t.elapsed().as_secs_f64();
            if best.as_ref().is_none_or(|b| secs < b.0) {
                best = Some((secs, g));
            }
        }
        let (secs, g) = best.expect("five runs");
        let call = g.tool_call.expect("a call");
        row(
            "tool call, one request",
            format!("{secs:.2} s"),
            &format!(
                "{} prompt + {} output tokens (forced included): prefill {:.2} s, \
                 writing {:.2} s; best of 5; load {}; {}({})",
                g.input_tokens,
                g.output_tokens,
                g.prefill_time.as_secs_f64(),
                g.decode_time.as_secs_f64(),
                load_avg(),
                call.name,
                call.arguments
            ),
        );
        let t = Instant::now();
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let llm = llm.clone();
                let req = tool_turn(100, asks[i]);
                tokio::spawn(async move { llm.generate(&req, GenOptions::default()).await })
            })
            .collect();
        let (mut out, mut reused) = (0, 0);
        for h in handles {
            let g = h.await.expect("task").expect("tool call");
            out += g.output_tokens;
            reused += g.reused_tokens;
        }
        row(
            "tool calls, one agent, 8 tasks at once",
            format!("{:.2} s", t.elapsed().as_secs_f64()),
            &format!(
                "{out} output tokens in all, {reused} prompt tokens reused; load {}",
                load_avg()
            ),
        );
    });
    if let Some(path) = std::env::var_os(FIGURES) {
        std::fs::write(path, serde_json::to_vec(&figures).expect("json")).expect("write figures");
    }
    row(
        "generator load",
        format!("{load:.2} s"),
        "GGUF read, Q4_1 blocks kept, Q8_0 re-quantised",
    );
    row(
        "generator peak RSS",
        format!("{rss_loaded:.0} MiB"),
        &format!("after load; {:.0} MiB after the run", peak_rss_mib()),
    );
}

/// The agent rows, in their own process: each loads its own model and
/// fills a larger cache than the other generator rows. `only`: one row,
/// `default`, `raised` or `tight` (`-- agents tight`).
fn bench_agents(only: Option<String>) {
    let gguf = assets::generator_gguf(&home());
    let default = adfarm_models::generator::DEFAULT_KV_MEMORY_BYTES;
    // The last: memory for about two thirds of the conversations, so
    // turns wait for room and some conversations are prefilled again.
    for (name, budget, memory) in [
        ("default", None, default),
        ("raised", Some(65_536), default),
        ("tight", Some(65_536), 768 << 20),
    ] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let (secs, tokens, reused, kv) = agent_turns(&gguf, budget, memory);
        row(
            &format!(
                "agent turns, 16 conversations × 3 turns, prefix cache {}{}",
                budget.map_or("default (16,384 tokens)".to_string(), |b| format!(
                    "raised to {b} tokens"
                )),
                if memory == default {
                    String::new()
                } else {
                    format!(", memory budget {} MiB", memory >> 20)
                }
            ),
            format!("{secs:.1} s"),
            &format!(
                "{tokens} prompt tokens, {reused} reused from cached prefixes; 48 output \
                 tokens a turn; keys and values peaked at {} of {} MiB; peak RSS so far \
                 {:.0} MiB; load {}",
                kv.peak >> 20,
                kv.budget >> 20,
                peak_rss_mib(),
                load_avg()
            ),
        );
    }
}

/// Where the `generate` child leaves its prefill and decode figures, with
/// the prompt tokens they were measured on, for the comparison.
const FIGURES: &str = "ADFARM_BENCH_FIGURES";

/// llama.cpp on the prompts of `figures` (the `generate` child's), then
/// each measure on both sides with the ratio.
fn compare_with_llama_cpp(python: &std::ffi::OsStr, figures: &std::path::Path) {
    let ours: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(figures).expect("figures")).expect("json");
    let job = serde_json::json!({
        "gguf": assets::generator_gguf(&home()),
        "threads": 2,
        "runs": ours,
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/llamacpp_peer.py");
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("llama.cpp child");
    std::io::Write::write_all(
        child.stdin.as_mut().expect("stdin"),
        &serde_json::to_vec(&job).expect("json"),
    )
    .expect("write job");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("llama.cpp child");
    if !out.status.success() {
        eprintln!("llama.cpp comparison failed: {}", out.status);
        std::process::exit(1);
    }
    println!();
    println!("| measure | AdFarm | llama.cpp, 2 threads | ratio |");
    println!("|---|---:|---:|---:|");
    let theirs: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("llama.cpp figure"))
        .collect();
    for (a, b) in ours.iter().zip(&theirs) {
        let tokens = a["tokens"].as_array().map_or(0, Vec::len);
        for (what, key) in [("prefill", "prefill_tok_s"), ("decode", "decode_tok_s")] {
            let (x, y) = (
                a[key].as_f64().unwrap_or(f64::NAN),
                b[key].as_f64().unwrap_or(f64::NAN),
            );
            println!(
                "| {what}, {} prompt ({tokens} tokens) | {x:.1} tok/s | {y:.1} tok/s | {:.2}× |",
                a["name"].as_str().unwrap_or("?"),
                x / y
            );
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; our own mode is the first plain word.
    let mode = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    match mode.as_str() {
        "embed" => bench_embed(),
        "products" => bench_products(),
        "generate" => bench_generate(),
        "agents" => bench_agents(
            std::env::args()
                .skip(1)
                .filter(|a| !a.starts_with('-'))
                .nth(1),
        ),
        _ => {
            home();
            println!("| measure | value | note |");
            println!("|---|---|---|");
            let exe = std::env::current_exe().expect("current exe");
            let llama = std::env::var_os("ADFARM_LLAMA_CPP_PYTHON");
            let figures =
                std::env::temp_dir().join(format!("adfarm-bench-{}.json", std::process::id()));
            for m in ["embed", "products", "generate", "agents"] {
                let status = Command::new(&exe)
                    .arg(m)
                    .env(FIGURES, &figures)
                    .status()
                    .expect("child");
                if !status.success() {
                    eprintln!("{m} benchmark failed: {status}");
                    std::process::exit(1);
                }
                // Right after our generator's rows, so both sides see the
                // same machine.
                if let (Some(python), "generate") = (&llama, m) {
                    compare_with_llama_cpp(python, &figures);
                    println!();
                    println!("| measure | value | note |");
                    println!("|---|---|---|");
                }
            }
            if llama.is_none() {
                eprintln!(
                    "llama.cpp not compared: set ADFARM_LLAMA_CPP_PYTHON to a Python with \
                     llama-cpp-python (see models/README.md)"
                );
            }
            let _ = std::fs::remove_file(&figures);
        }
    }
}
