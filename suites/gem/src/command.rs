//! `adfarm gem score`: GEM-Bench metrics of one response, outside a sweep,
//! for users checking a single answer and for debugging a metric. The
//! binary supplies the models: the local MiniLM embedder always, and with
//! `--judge` a local model or an OpenAI-compatible `BASE_URL#MODEL`.

use crate::judge::{AdView, Protocol};
use crate::scoring::score_response;
use adfarm_proto::Role;
use adfarm_suite::{CommandError, Toolbox};
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// `adfarm gem score`.
#[derive(Debug, Clone, Args)]
pub struct Score {
    /// The user query the response answers.
    #[arg(long)]
    pub query: String,
    /// File holding the response text.
    #[arg(long)]
    pub response: PathBuf,
    /// The injected ad's product name (ad sentences mention it).
    #[arg(long)]
    pub ad_name: Option<String>,
    /// The injected ad's URL.
    #[arg(long)]
    pub ad_url: Option<String>,
    /// Judge: `smollm2-135m-instruct` (local) or an OpenAI-compatible
    /// `BASE_URL#MODEL`, e.g. `https://api.openai.com/v1#gpt-4o-mini`.
    #[arg(long)]
    pub judge: Option<String>,
    /// Judge protocol: paper or gembench-1.0.9.
    #[arg(long, default_value = "paper")]
    pub protocol: String,
    /// API key of an OpenAI-compatible judge.
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
}

/// `adfarm gem`: GEM-Bench's tools.
pub fn command() -> clap::Command {
    clap::Command::new("gem")
        .about("GEM-Bench tools")
        .subcommand_required(true)
        .subcommand(Score::augment_args(clap::Command::new("score").about(
            "Score one response: sentences, ad sentences, RF/RC/AF/AC, injection rate and \
             (with --judge) the six judge verdicts, as JSON",
        )))
}

/// Runs the `adfarm gem` subcommand in `matches`.
///
/// # Errors
/// Bad arguments, an unreadable response file, or a model failure.
pub async fn run(matches: &clap::ArgMatches, toolbox: &dyn Toolbox) -> Result<(), CommandError> {
    match matches.subcommand() {
        Some(("score", m)) => {
            let a = Score::from_arg_matches(m).map_err(|e| CommandError::Input(e.to_string()))?;
            println!("{}", score(&a, toolbox).await?);
            Ok(())
        }
        other => Err(CommandError::Input(format!(
            "gem has no command {:?}",
            other.map(|(n, _)| n).unwrap_or_default()
        ))),
    }
}

/// The JSON report of `adfarm gem score`: the inputs first, then the
/// scoring's fields (sentences, ad_sentences, metrics, judge), so the
/// output is self-describing.
async fn score(a: &Score, toolbox: &dyn Toolbox) -> Result<String, CommandError> {
    let input = |e: String| CommandError::Input(e);
    let response = std::fs::read_to_string(&a.response)
        .map_err(|e| input(format!("cannot read {}: {e}", a.response.display())))?;
    let protocol = Protocol::parse(&a.protocol).map_err(|e| input(e.to_string()))?;
    let ad = match (&a.ad_name, &a.ad_url) {
        (None, None) => None,
        (name, url) => Some(AdView {
            name: name.clone().unwrap_or_default(),
            url: url.clone().unwrap_or_default(),
        }),
    };
    let (embedder, embedder_name) = toolbox.embedder().await?;
    let judge = match &a.judge {
        Some(j) => Some(
            toolbox
                .chat_model(j, a.api_key.as_deref(), Role::Judge)
                .await?,
        ),
        None => None,
    };
    let report = score_response(
        &a.query,
        &response,
        ad.as_ref(),
        Some(embedder.as_ref()),
        judge.as_deref().map(|j| (j, protocol)),
    )
    .await?;
    let mut printed = serde_json::json!({
        "query": a.query,
        "ad": ad.as_ref().map(|ad| serde_json::json!({ "name": ad.name, "url": ad.url })),
        "embedder": embedder_name,
        "judge_model": a.judge.as_deref().map(|j| j.rsplit('#').next().unwrap_or(j)),
        "judge_protocol": a.judge.as_ref().map(|_| protocol.as_str()),
    });
    if let (Some(obj), Ok(serde_json::Value::Object(rest))) =
        (printed.as_object_mut(), serde_json::to_value(&report))
    {
        obj.extend(rest);
    }
    serde_json::to_string_pretty(&printed).map_err(|e| input(e.to_string()))
}
