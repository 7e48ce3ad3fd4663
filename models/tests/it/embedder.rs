use adfarm_llm::Embedder;
use adfarm_models::{assets, LocalEmbedder};
use adfarm_proto::{Role, UsageSource};
use std::sync::OnceLock;

fn embedder() -> &'static LocalEmbedder {
    static E: OnceLock<LocalEmbedder> = OnceLock::new();
    E.get_or_init(|| LocalEmbedder::load(&assets::embedder_dir(&crate::home())).expect("load"))
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Reference numbers made once with an independent implementation; see
/// `tests/fixtures/minilm_reference.py` for how.
#[derive(serde::Deserialize)]
struct Reference {
    sentences: Vec<String>,
    first8: Vec<Vec<f32>>,
    cosine: Vec<Vec<f32>>,
    tokens: Vec<u64>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("../fixtures/minilm_reference.json")).expect("fixture")
}

#[test]
fn cosine_of_the_model_card_pair_is_0_755() {
    let out = embedder()
        .embed_blocking(&[
            "A man is eating food.".to_string(),
            "A man is eating a piece of bread.".to_string(),
        ])
        .unwrap();
    let c = cos(&out.vectors[0], &out.vectors[1]);
    assert!((c - 0.755).abs() <= 0.002, "cosine {c}");
}

#[test]
fn vectors_match_the_independent_reference() {
    let r = reference();
    let out = embedder().embed_blocking(&r.sentences).unwrap();
    assert_eq!(out.tokens, r.tokens.iter().sum::<u64>());
    for (i, v) in out.vectors.iter().enumerate() {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        for (a, b) in v[..8].iter().zip(&r.first8[i]) {
            assert!(
                (a - b).abs() < 2e-4,
                "sentence {i}: {:?} vs {:?}",
                &v[..8],
                r.first8[i]
            );
        }
        for (j, w) in out.vectors.iter().enumerate() {
            let c = cos(v, w);
            assert!(
                (c - r.cosine[i][j]).abs() < 2e-4,
                "cos[{i}][{j}] {c} vs {}",
                r.cosine[i][j]
            );
        }
    }
}

#[test]
fn batching_by_length_keeps_input_order_and_values() {
    let r = reference();
    // Long and short texts interleaved, more than one batch, one over 256 tokens.
    let mut texts: Vec<String> = (0..70)
        .map(|i| r.sentences[i % r.sentences.len()].repeat(1 + i % 4))
        .collect();
    texts.push("word ".repeat(400));
    let batched = embedder().embed_blocking(&texts).unwrap();
    for (i, t) in texts.iter().enumerate().step_by(7) {
        let alone = embedder().embed_blocking(std::slice::from_ref(t)).unwrap();
        let c = cos(&alone.vectors[0], &batched.vectors[i]);
        assert!(c > 0.99999, "text {i}: cos {c}");
    }
    let long = embedder().embed_blocking(&texts[70..]).unwrap();
    assert_eq!(long.tokens, 256, "truncated at 256 tokens");
}

#[test]
fn batches_run_side_by_side_give_the_bits_each_batch_gives_alone() {
    let r = reference();
    let mut texts: Vec<(u64, String)> = (0..40)
        .map(|i| {
            let t = r.sentences[i % r.sentences.len()].repeat(1 + i % 5);
            (
                embedder()
                    .embed_blocking(std::slice::from_ref(&t))
                    .unwrap()
                    .tokens,
                t,
            )
        })
        .collect();
    // Sorted by token count, the call's batches are the consecutive runs of
    // 32, which is what each call below embeds alone.
    texts.sort_by_key(|(n, _)| *n);
    let texts: Vec<String> = texts.into_iter().map(|(_, t)| t).collect();
    let together = embedder().embed_blocking(&texts).unwrap();
    for (b, batch) in texts.chunks(32).enumerate() {
        let alone = embedder().embed_blocking(batch).unwrap();
        for (i, v) in alone.vectors.iter().enumerate() {
            assert!(
                v == &together.vectors[b * 32 + i],
                "batch {b}, text {i}: not the same bits"
            );
        }
    }
}

#[tokio::test]
async fn calls_queued_together_give_the_bits_each_gives_alone() {
    let r = reference();
    let n = r.sentences.len();
    let call = |c: usize, len: usize| -> Vec<String> {
        (0..len)
            .map(|i| r.sentences[(i + c) % n].repeat(1 + (i + c) % 5))
            .collect()
    };
    // The first call keeps the model busy while the others queue behind
    // it, so they are embedded together: batches of different calls share
    // the cores, an empty call among them.
    let calls = [
        call(0, 150),
        call(1, 40),
        call(2, 3),
        Vec::new(),
        call(3, 70),
    ];
    let e = embedder();
    let (a, b, c, d, f) = tokio::join!(
        e.embed_async(calls[0].clone()),
        e.embed_async(calls[1].clone()),
        e.embed_async(calls[2].clone()),
        e.embed_async(calls[3].clone()),
        e.embed_async(calls[4].clone()),
    );
    for (i, together) in [a, b, c, d, f].into_iter().enumerate() {
        let together = together.unwrap();
        let alone = e.embed_blocking(&calls[i]).unwrap();
        assert_eq!(together.tokens, alone.tokens, "call {i}: tokens");
        assert!(
            together.vectors == alone.vectors,
            "call {i}: not the same bits"
        );
    }
}

#[tokio::test]
async fn the_embedder_trait_reports_exact_usage() {
    let r = reference();
    let e: &dyn Embedder = embedder();
    let out = e.embed(&r.sentences[..2]).await.unwrap();
    assert_eq!(out.vectors.len(), 2);
    assert_eq!(out.usage.input, r.tokens[0] + r.tokens[1]);
    assert_eq!(out.usage.output, 0);
    assert_eq!(out.usage.role, Role::Embedding);
    assert_eq!(out.usage.source, UsageSource::Reported);
    assert_eq!(e.embed(&[]).await.unwrap().vectors.len(), 0);
}
