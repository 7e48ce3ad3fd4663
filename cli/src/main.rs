//! `adfarm`: the one binary. Raw clap arguments become settings (files read,
//! environment merged, validated) and then a command runs.

mod args;
mod deploy;
mod gem;
mod inspect;
mod local;
mod progress;
mod remote;

use anyhow::Result;
use args::{Args, AssetsCommand, Command, DevCommand, GemCommand};
use clap::Parser;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ADFARM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match dispatch(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Cancelled on Ctrl-C or SIGTERM: loops stop taking work, jobs in flight settle.
fn shutdown_token() -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler installs");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        t.cancel();
    });
    token
}

async fn dispatch(args: Args) -> Result<()> {
    let home = args.home.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("adfarm")
    });
    let ctx = deploy::suite_context(&home);
    if let Some(addr) = args.metrics_addr {
        let bound = adfarm_backbone::metrics::serve(addr).await?;
        tracing::info!(addr = %bound, "Serving Prometheus metrics.");
    }
    match args.command {
        Command::Plan { sweep } => inspect::plan(&sweep, &ctx),
        Command::Run(run) => deploy::run_embedded(&home, &ctx, run, shutdown_token()).await,
        Command::Coordinator(c) => deploy::coordinator(&ctx, c, shutdown_token()).await,
        Command::Worker(w) => deploy::worker(&home, &ctx, w, shutdown_token()).await,
        Command::Status {
            sweep,
            server: Some(server),
            ..
        } => remote::status(&ctx, &sweep, &server).await,
        Command::Status { sweep, backend, .. } => {
            inspect::status(&home, &ctx, &sweep, &backend).await
        }
        Command::Submit { sweep, server } => remote::submit(&ctx, &sweep, &server).await,
        Command::Report {
            sweep,
            format,
            out,
            server: Some(server),
            ..
        } => remote::report(&ctx, &sweep, &format, out.as_deref(), &server).await,
        Command::Report {
            sweep,
            format,
            out,
            backend,
            ..
        } => inspect::report(&home, &ctx, &sweep, &format, out.as_deref(), &backend).await,
        Command::Assets {
            command: AssetsCommand::Fetch { names },
        } => local::fetch(&home, &names),
        Command::Assets {
            command: AssetsCommand::List,
        } => local::list(&home),
        Command::Gem {
            command: GemCommand::Score(a),
        } => gem::score(&home, a).await,
        Command::Dev {
            command: DevCommand::FakeLlm { addr, config },
        } => {
            let (bound, server) = adfarm_fake_llm::serve(config, addr.as_str()).await?;
            eprintln!("fake LLM server listening on http://{bound}/v1");
            let token = shutdown_token();
            tokio::select! {
                r = server => { r??; }
                _ = token.cancelled() => {}
            }
            Ok(())
        }
    }
}
