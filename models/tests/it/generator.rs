use crate::llm;
use adfarm_llm::{ChatRequest, Completion, Message, Provider};
use adfarm_models::generator::{chat_prompt, Finish, GenOptions};
use adfarm_models::{assets, LocalLlm};
use adfarm_proto::{Role, UsageSource};

fn ask(q: &str, max_tokens: u32) -> ChatRequest {
    let mut r = ChatRequest::new(vec![Message::user(q)]);
    r.max_tokens = max_tokens;
    r
}

/// The replies to `reqs` asked one at a time, then asked all at once.
async fn alone_then_together(
    l: &'static LocalLlm,
    reqs: &[ChatRequest],
) -> (Vec<Completion>, Vec<Completion>) {
    let mut alone = Vec::new();
    for r in reqs {
        alone.push(l.chat(r).await.unwrap());
    }
    let handles: Vec<_> = reqs
        .iter()
        .cloned()
        .map(|r| tokio::spawn(async move { l.chat(&r).await }))
        .collect();
    let mut together = Vec::new();
    for h in handles {
        together.push(h.await.unwrap().unwrap());
    }
    (alone, together)
}

#[test]
fn chat_template_round_trips_through_the_gguf_tokenizer() {
    let l = llm();
    let prompt = chat_prompt(&[
        Message::system("Be brief."),
        Message::user("Hello there!  What's 12+30?\nTabs\tand ünïcödé 😀"),
        Message::assistant(" 42."),
        Message::user("Thanks"),
    ]);
    let ids = l.encode(&prompt).unwrap();
    assert_eq!(l.decode(&ids).unwrap(), prompt);
    // Control tokens are single ids and nothing precedes the first one (no
    // spurious prefix space).
    assert_eq!(ids[0], 1, "<|im_start|>");
    assert_eq!(l.decode(&ids[1..2]).unwrap(), "system");
    assert_eq!(ids.iter().filter(|&&t| t == 2).count(), 4, "<|im_end|> ×4");
    assert_eq!(l.decode(&l.encode("Hello").unwrap()).unwrap(), "Hello");
    assert_eq!(l.encode("Hello").unwrap().len(), 1);
    // Digits are split one by one (llama.cpp's `smollm` pre-tokenizer).
    assert_eq!(l.encode("2024").unwrap().len(), 4);
}

#[tokio::test]
async fn greedy_is_repeatable_and_reports_exact_usage() {
    let l = llm();
    let req = ask("What is 2+2?", 24);
    let a = l.chat(&req).await.unwrap();
    let b = l.chat(&req).await.unwrap();
    assert_eq!(a, b);
    assert!(a.text.contains('4'), "{}", a.text);
    let prompt_tokens = l.encode(&chat_prompt(&req.messages)).unwrap().len() as u64;
    assert_eq!(a.usage.input, prompt_tokens);
    assert!(a.usage.output >= 1 && a.usage.output <= 24);
    assert_eq!(a.usage.source, UsageSource::Reported);
    assert_eq!(a.usage.role, Role::Generation);
    assert_eq!(
        l.with_role(Role::Judge)
            .chat(&req)
            .await
            .unwrap()
            .usage
            .role,
        Role::Judge
    );
}

#[tokio::test]
async fn sampling_follows_the_seed_and_max_tokens() {
    let l = llm();
    let mut req = ask("Write a short poem about the sea.", 20);
    req.temperature = 0.9;
    req.top_p = Some(0.95);
    req.seed = 11;
    let a = l
        .generate(&req, GenOptions { ignore_eos: true })
        .await
        .unwrap();
    let b = l
        .generate(&req, GenOptions { ignore_eos: true })
        .await
        .unwrap();
    assert_eq!(a.text, b.text);
    assert_eq!(a.output_tokens, 20);
    assert_eq!(a.finish, Finish::Length);
    req.seed = 12;
    let c = l
        .generate(&req, GenOptions { ignore_eos: true })
        .await
        .unwrap();
    assert_ne!(a.text, c.text);
}

#[tokio::test]
async fn stop_strings_cut_the_reply() {
    let l = llm();
    let mut req = ask("Count from 1 to 10, separated by commas.", 40);
    let full = l.generate(&req, GenOptions::default()).await.unwrap();
    let words: Vec<&str> = full.text.split_whitespace().collect();
    assert!(words.len() >= 3, "{}", full.text);
    let stop = words[2].to_string();
    req.stop = vec![stop.clone()];
    let cut = l.generate(&req, GenOptions::default()).await.unwrap();
    assert_eq!(cut.finish, Finish::Stop);
    assert!(!cut.text.contains(&stop));
    assert!(
        full.text.starts_with(&cut.text),
        "{:?} vs {:?}",
        cut.text,
        full.text
    );
    assert!(cut.output_tokens < full.output_tokens);
}

#[tokio::test]
async fn concurrent_requests_batch_without_changing_results() {
    let l = llm();
    let reqs: Vec<ChatRequest> = ["Name a fruit.", "Name a color.", "What is 2+2?", "Say hi."]
        .iter()
        .map(|q| ask(q, 16))
        .collect();
    let (alone, together) = alone_then_together(l, &reqs).await;
    assert_eq!(alone, together);
}

/// Long contexts decoding together share the attention among threads
/// (three sequences of 1.6k positions are above the threshold): each reply
/// is the one it gets alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_contexts_decoding_together_give_the_replies_they_get_alone() {
    let l = llm();
    let passage = "The campaign spent its daily budget by noon on weekdays and by \
                   evening on weekends; clicks were cheapest on video sites. "
        .repeat(80);
    let reqs: Vec<ChatRequest> = [
        "Summarise it.",
        "When was the budget spent?",
        "Which sites?",
    ]
    .iter()
    .map(|q| ask(&format!("{passage}\n{q}"), 12))
    .collect();
    assert!(l.encode(&passage).unwrap().len() > 1_500);
    let (alone, together) = alone_then_together(l, &reqs).await;
    let text = |cs: &[Completion]| cs.iter().map(|c| c.text.clone()).collect::<Vec<_>>();
    assert_eq!(text(&alone), text(&together));
}

#[tokio::test]
async fn choose_ranks_options_by_likelihood() {
    let l = llm();
    let req = ask("What is the capital of France? Answer with one word.", 8);
    let options: Vec<String> = ["London", "Paris", "Berlin"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let c = l.choose(&req, &options).await.unwrap();
    assert_eq!(c.index, Some(1), "{c:?}");
    assert_eq!(c.completion.text, "Paris");
    assert_eq!(c.completion.usage.output, 0);
    let r = l.rank(&req, &options).await.unwrap();
    assert_eq!(r.log_likelihoods.len(), 3);
    assert!(r.log_likelihoods.iter().all(|x| x.is_finite() && *x < 0.0));
    // Always a valid index, even for options the model finds absurd.
    let odd: Vec<String> = vec!["".into(), "zzzz qqqq".into()];
    let c = l.choose(&req, &odd).await.unwrap();
    assert!(c.index.is_some_and(|i| i < 2));
}

/// A judge-shaped request: a long shared passage, then one question.
fn about_passage(question: &str) -> ChatRequest {
    let passage = "Running shoes wear out after about 500 to 800 kilometres. The foam in the \
        midsole loses its bounce, the tread flattens and the heel counter softens, so the shoe \
        stops absorbing impact the way it did when new. Runners who log many kilometres each \
        week often rotate two pairs, letting the foam recover between runs. Signs that a pair \
        is done include new aches in the knees or shins, visible creases in the midsole and \
        uneven wear on the outsole. A specialist store can look at the wear pattern and suggest \
        a model with more support or more cushioning, depending on how the runner lands.";
    let mut r = ChatRequest::new(vec![
        Message::system("You judge texts. Answer with one word."),
        Message::user(format!("Text:\n{passage}\n\n---\n{question}")),
    ]);
    r.max_tokens = 12;
    r.temperature = 0.7;
    r.seed = 11;
    r
}

fn yes_no() -> Vec<String> {
    vec!["yes".into(), "no".into(), "maybe not".into()]
}

#[tokio::test]
async fn a_reused_prompt_prefix_gives_bit_identical_results() {
    let path = assets::generator_gguf(&crate::home());
    let (warm, fresh) = (
        LocalLlm::load(&path).unwrap(),
        LocalLlm::load(&path).unwrap(),
    );
    let first = about_passage("Is the text about shoes?");
    let second =
        about_passage("Does the text give a distance in kilometres? Think of the numbers.");
    let w1 = warm.rank(&first, &yes_no()).await.unwrap();
    assert_eq!(w1.reused_tokens, 0);
    let w2 = warm.rank(&second, &yes_no()).await.unwrap();
    let f2 = fresh.rank(&second, &yes_no()).await.unwrap();
    assert!(w2.reused_tokens >= 64, "{w2:?}");
    assert_eq!(w2.reused_tokens % 32, 0);
    assert_eq!(f2.reused_tokens, 0);
    assert_eq!(
        w2.log_likelihoods, f2.log_likelihoods,
        "bit-identical scores"
    );
    assert_eq!(w2.input_tokens, f2.input_tokens, "usage counts every token");
    // Sampled generation after reuse follows the same path as a fresh one.
    let wg = warm.generate(&second, GenOptions::default()).await.unwrap();
    let fg = fresh
        .generate(&second, GenOptions::default())
        .await
        .unwrap();
    assert!(
        wg.reused_tokens > 0 && fg.reused_tokens > 0,
        "both saw the prompt already"
    );
    let other = LocalLlm::load(&path).unwrap();
    let og = other
        .generate(&second, GenOptions::default())
        .await
        .unwrap();
    assert_eq!(og.reused_tokens, 0);
    assert_eq!(
        (wg.text.as_str(), wg.output_tokens),
        (og.text.as_str(), og.output_tokens)
    );
    assert_eq!(fg.text, og.text);
}

#[tokio::test]
async fn concurrent_questions_about_one_passage_prefill_it_once() {
    let path = assets::generator_gguf(&crate::home());
    let together = LocalLlm::load(&path).unwrap();
    let questions = [
        "Is the text about shoes?",
        "Is the text about food?",
        "Does the text mention knees?",
        "Is the text written for runners?",
        "Does the text recommend a store?",
        "Is the text longer than a tweet?",
    ];
    let handles: Vec<_> = questions
        .iter()
        .map(|q| {
            let l = together.clone();
            let r = about_passage(q);
            tokio::spawn(async move { l.rank(&r, &yes_no()).await })
        })
        .collect();
    let mut reused = 0;
    for (q, h) in questions.iter().zip(handles) {
        let got = h.await.unwrap().unwrap();
        reused += got.reused_tokens;
        let fresh = LocalLlm::load(&path).unwrap();
        let want = fresh.rank(&about_passage(q), &yes_no()).await.unwrap();
        assert_eq!(got.log_likelihoods, want.log_likelihoods, "{q}");
    }
    // All but the first waited for the passage instead of computing it.
    assert!(reused >= 5 * 64, "reused {reused} tokens");
}

#[tokio::test]
async fn a_memory_budget_bounds_keys_and_values_and_changes_no_reply() {
    let path = assets::generator_gguf(&crate::home());
    let questions = [
        "Is the text about shoes?",
        "Is the text about food?",
        "Does the text mention knees?",
        "Is the text written for runners?",
    ];
    let reference = llm();
    let per_token = reference.kv_memory().per_token;
    let longest = questions
        .iter()
        .map(|q| {
            let r = about_passage(q);
            reference.encode(&chat_prompt(&r.messages)).unwrap().len() + r.max_tokens as usize
        })
        .max()
        .unwrap();
    // Room for two and a half of these sequences: most requests wait for
    // room, and the prefix cache gives way to the sequences.
    let budget = (longest as u64 * per_token * 5 / 2) as usize;
    let small = LocalLlm::load_within(&path, budget).unwrap();
    let handles: Vec<_> = questions
        .iter()
        .map(|q| {
            let (l, r) = (small.clone(), about_passage(q));
            tokio::spawn(async move {
                let chat = l.generate(&r, GenOptions::default()).await;
                let rank = l.rank(&r, &yes_no()).await;
                (chat, rank)
            })
        })
        .collect();
    for (q, h) in questions.iter().zip(handles) {
        let (chat, rank) = h.await.unwrap();
        let r = about_passage(q);
        let want = reference.generate(&r, GenOptions::default()).await.unwrap();
        let chat = chat.unwrap();
        assert_eq!(
            (&chat.text, chat.output_tokens),
            (&want.text, want.output_tokens)
        );
        let want = reference.rank(&r, &yes_no()).await.unwrap();
        assert_eq!(rank.unwrap().log_likelihoods, want.log_likelihoods, "{q}");
    }
    let m = small.kv_memory();
    assert_eq!(m.budget, budget as u64 / per_token * per_token);
    assert!(m.peak <= m.budget, "{m:?}");
    assert!(m.peak >= longest as u64 * per_token, "{m:?}");
    // A request that needs more than the whole budget fails and says why.
    let tiny = LocalLlm::load_within(&path, (per_token * 100) as usize).unwrap();
    let err = tiny
        .generate(&about_passage(questions[0]), GenOptions::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("memory budget for keys and values"), "{err}");
}
