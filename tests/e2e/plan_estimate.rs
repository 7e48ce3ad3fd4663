//! `adfarm plan` on GEM-Bench: the estimate prices embedding calls like
//! the others, a corrupt asset is named with the command that fetches it
//! again, and a retrieval solution with no embedding model is refused.

use crate::{assets_home, Farm};
use std::path::Path;
use std::process::{ExitStatus, Stdio};

/// Price of the embedder's input, USD per million tokens: high, so the
/// row's USD shows at four decimals.
const EMBED_PRICE: f64 = 100.0;

/// GEM-Bench's MT-Human (10 items) × GI-R × 2 seeds, one judge, and a
/// priced OpenAI-compatible embedder `emb` for retrieval and the
/// embedding metrics.
fn gem_sweep() -> String {
    let provider = |name: &str, model: &str, input: f64, output: f64| {
        format!(
            "\n[[providers]]\nname = \"{name}\"\nkind = \"openai-compatible\"\n\
             base_url = \"http://127.0.0.1:9/v1\"\nmodel = \"{model}\"\nrequests_per_minute = 60\n\
             input_usd_per_mtok = {input:?}\noutput_usd_per_mtok = {output:?}\n"
        )
    };
    format!(
        "name = \"e2e-embed-estimate\"\nseeds = [1, 2]\njudges = [\"judge\"]\nembedder = \"emb\"\n\n\
         [[suites]]\nname = \"gem\"\ndatasets = [\"mt-human\"]\n\n\
         [[solutions]]\nname = \"gi-r\"\nprovider = \"gen\"\nmax_tokens = 100\n{}{}{}",
        provider("gen", "gen-1", 1.0, 2.0),
        provider("judge", "judge-1", 1.0, 2.0),
        provider("emb", "text-embedding-3-small", EMBED_PRICE, 0.0),
    )
}

/// `adfarm --home <home> plan <sweep>`: status, stdout, stderr.
async fn plan(farm: &Farm, home: &str, sweep: &Path) -> (ExitStatus, String, String) {
    let sweep = sweep.to_string_lossy();
    let mut cmd = farm.command("plan", &["--home", home, "plan", &sweep]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = cmd.output().await.expect("adfarm plan starts");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_estimate_has_an_embedding_row_with_calls_tokens_and_usd() {
    let farm = Farm::new("plan-embed");
    let sweep = farm.write("gem.toml", &gem_sweep());
    let (status, stdout, stderr) = plan(&farm, &assets_home(), &sweep).await;
    assert!(status.success(), "{stderr}");
    let row: Vec<&str> = stdout
        .lines()
        .find(|l| l.starts_with("emb "))
        .unwrap_or_else(|| panic!("no embedder row in:\n{stdout}"))
        .split_whitespace()
        .collect();
    // provider, model, role, calls, input tokens, output tokens, USD.
    assert_eq!(row[..3], ["emb", "text-embedding-3-small", "embedding"]);
    let number = |i: usize| -> f64 { row[i].parse().expect("a number") };
    // 10 items × 2 seeds: one retrieval call in each GI-R run and one
    // embed-metrics job per run.
    assert_eq!(number(3), 40.0, "{stdout}");
    let input = number(4);
    assert!(input > 0.0, "{stdout}");
    assert_eq!(number(5), 0.0, "{stdout}");
    let usd = input * EMBED_PRICE / 1e6;
    assert!((number(6) - usd).abs() < 1e-4, "{usd} vs {stdout}");
}

/// Copies the directory `from` to `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("a readable directory") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

#[tokio::test]
async fn plan_on_a_corrupt_asset_says_how_to_fetch_it_again() {
    let farm = Farm::new("plan-corrupt");
    let home = farm.path("corrupt-home");
    let asset = Path::new("assets/gembench-1.0.9");
    copy_dir(&Path::new(&assets_home()).join(asset), &home.join(asset));
    let file = "GemBench/benchmarking/dataset/MT_Human/prompts.json";
    let victim = home.join(asset).join(file);
    let mut bytes = std::fs::read(&victim).expect("the pinned file");
    bytes.push(b' ');
    std::fs::write(&victim, bytes).expect("tampered");

    let sweep = farm.write("gem.toml", &gem_sweep());
    let (status, stdout, stderr) = plan(&farm, &home.to_string_lossy(), &sweep).await;
    assert!(
        !status.success(),
        "plan accepted a corrupt asset:\n{stdout}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("gembench==1.0.9"), "{stderr}");
    assert!(stderr.contains(file), "{stderr}");
    assert!(stderr.contains("run `adfarm assets fetch`"), "{stderr}");
}

#[tokio::test]
async fn a_retrieval_solution_without_an_embedder_is_refused_at_plan() {
    let farm = Farm::new("plan-no-embedder");
    let text = gem_sweep().replace("embedder = \"emb\"\n", "");
    let sweep = farm.write("no-embedder.toml", &text);
    let (status, stdout, stderr) = plan(&farm, &assets_home(), &sweep).await;
    assert_eq!(
        status.code(),
        Some(2),
        "bad input exits 2:\n{stdout}{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("no-embedder.toml:"),
        "names the file: {stderr}"
    );
    assert!(stderr.contains("solutions[0].embedder:"), "{stderr}");
    assert!(
        stderr.contains("gi-r retrieves ads by embedding"),
        "{stderr}"
    );
}
