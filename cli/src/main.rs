//! `adfarm`: the one binary. Raw clap arguments become settings (files read,
//! environment merged, validated) and then a command runs.

mod args;
mod deploy;
#[cfg(test)]
mod doc_commands;
mod exit;
mod inspect;
mod leaderboard;
mod local;
mod progress;
mod remote;
mod review;
mod shutdown;
mod toolbox;

use anyhow::Result;
use args::{Args, AssetsCommand, Command, DevCommand, LeaderboardCommand, ReviewCommand};
use clap::{Args as _, CommandFactory, FromArgMatches};
use std::time::Duration;

fn main() -> std::process::ExitCode {
    if let Some(run) = child_entry() {
        return run();
    }
    // Every TLS client of the process (model endpoints, asset downloads,
    // Kubernetes) uses ring: reqwest is built without a provider of its own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the async runtime starts");
    let exit = runtime.block_on(serve());
    // Blocking work of a job dropped at the end of the grace (a suite's
    // simulation step, say) must not hold the exit.
    runtime.shutdown_timeout(Duration::from_secs(1));
    exit
}

/// A suite's child-process entry named by `adfarm <suite> <name>`, found
/// before any runtime or logging starts (see `Suite::child_entries`).
fn child_entry() -> Option<fn() -> std::process::ExitCode> {
    let mut argv = std::env::args().skip(1);
    let (suite, name) = (argv.next()?, argv.next()?);
    let suite = adfarm_suites::suite(&suite, &adfarm_suites::SuiteContext::default())?;
    let entry = suite.child_entries().iter().find(|e| e.name == name)?;
    Some(entry.run)
}

async fn serve() -> std::process::ExitCode {
    let args = parse_args();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ADFARM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match dispatch(args).await {
        Ok(exit) => exit.into(),
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::Exit::of_error(&e).into()
        }
    }
}

/// The suites' own commands, listed under `adfarm --help`.
fn suite_commands() -> Vec<clap::Command> {
    let ctx = adfarm_suites::SuiteContext::default();
    adfarm_suites::SUITES
        .iter()
        .filter_map(|name| adfarm_suites::suite(name, &ctx)?.command())
        .collect()
}

/// The arguments, with the suites' commands named in the help text (they
/// are parsed by the suite that owns them).
fn parse_args() -> Args {
    let mut help = String::from("Suite commands (adfarm <suite> <command> --help):\n");
    for c in suite_commands() {
        for sub in c.get_subcommands() {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            help.push_str(&format!(
                "  {} {:<12} {about}\n",
                c.get_name(),
                sub.get_name()
            ));
        }
    }
    let matches = Args::command().after_help(help).get_matches();
    Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// `adfarm <suite> <command> ...`: parsed and run by the suite.
async fn suite_command(
    home: &std::path::Path,
    ctx: &adfarm_suites::SuiteContext,
    argv: Vec<String>,
) -> Result<()> {
    let name = argv.first().cloned().unwrap_or_default();
    let suite = adfarm_suites::suite(&name, ctx)
        .filter(|s| s.command().is_some())
        .ok_or_else(|| {
            let valid: Vec<String> = suite_commands()
                .iter()
                .map(|c| c.get_name().to_string())
                .collect();
            anyhow::anyhow!(
                "unknown command {name:?}; suite commands: {}",
                valid.join(", ")
            )
        })?;
    // Every suite command may read a sweep's stored results: the store's
    // flags are the farm's, accepted after any of its subcommands.
    let command = args::Backend::augment_args(suite.command().expect("checked above"))
        .mut_args(|a| match a.get_id().as_str() {
            "redis" | "store" | "prefix" => a.global(true),
            _ => a,
        })
        .bin_name(format!("adfarm {name}"));
    let matches = command
        .try_get_matches_from(&argv)
        .unwrap_or_else(|e| e.exit());
    let backend = args::Backend::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let models = toolbox::Models {
        home: home.to_path_buf(),
        ctx: ctx.clone(),
        backend,
    };
    Ok(suite.run_command(&matches, &models).await?)
}

async fn dispatch(args: Args) -> Result<exit::Exit> {
    let home = args.home.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("adfarm")
    });
    let ctx = deploy::suite_context(&home);
    let grace = Duration::from_secs(args.grace_secs);
    let shutdown_token = || shutdown::on_signals(grace);
    if let Some(addr) = args.metrics_addr {
        let bound = adfarm_backbone::metrics::serve(addr).await?;
        tracing::info!(addr = %bound, "Serving Prometheus metrics.");
    }
    let done = match args.command {
        Command::Plan { sweep } => inspect::plan(&sweep, &home, &ctx),
        Command::Run(run) => {
            return deploy::run_embedded(&home, &ctx, run, shutdown_token(), grace).await
        }
        Command::Coordinator(c) => {
            return deploy::coordinator(&home, &ctx, c, shutdown_token()).await
        }
        Command::Worker(w) => deploy::worker(&home, &ctx, w, shutdown_token(), grace).await,
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
        Command::Leaderboard {
            command:
                LeaderboardCommand::Build {
                    config,
                    out,
                    split,
                    with_outputs,
                    backend,
                },
        } => {
            let split = leaderboard::split(&split);
            leaderboard::build(&home, &ctx, &config, &out, split, with_outputs, &backend).await
        }
        Command::Review { command } => match command {
            ReviewCommand::Serve {
                sweep,
                addr,
                url,
                backend,
            } => {
                review::serve(
                    &home,
                    &ctx,
                    &sweep,
                    &addr,
                    url.as_deref(),
                    &backend,
                    shutdown_token(),
                )
                .await
            }
            ReviewCommand::Invite {
                sweep,
                name,
                admin,
                url,
                backend,
            } => review::invite(&home, &ctx, &sweep, &name, admin, &url, &backend).await,
            ReviewCommand::Judge { sweep, backend } => {
                review::judge(&home, &ctx, &sweep, &backend).await
            }
            ReviewCommand::Export {
                sweep,
                format,
                out,
                backend,
            } => review::export(&home, &ctx, &sweep, &format, out.as_deref(), &backend).await,
        },
        Command::Assets {
            command: AssetsCommand::Fetch { names },
        } => local::fetch(&home, &ctx, &names),
        Command::Assets {
            command: AssetsCommand::List,
        } => local::list(&home, &ctx),
        Command::Suite(argv) => suite_command(&home, &ctx, argv).await,
        Command::DeadLetters {
            purge,
            max,
            cluster,
        } => deploy::dead_letters(&cluster, max, purge).await,
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
    };
    done.map(|()| exit::Exit::Completed)
}
