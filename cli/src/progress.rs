//! The progress display of `adfarm run`: one bar per job kind (done/total
//! with an ETA) and a line with tokens and cost so far. When stderr is not a
//! terminal (CI, `nohup`, a log file) the same figures go out as a plain line
//! every [`PLAIN_EVERY`] instead.

use adfarm_backbone::SweepRecord;
use adfarm_coordinator::Progress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often the plain (non-terminal) display prints a line.
const PLAIN_EVERY: Duration = Duration::from_secs(30);

/// Bars for one sweep.
pub struct ProgressView {
    multi: MultiProgress,
    bars: BTreeMap<String, ProgressBar>,
    cost: ProgressBar,
    /// Last plain line, when printing plain lines instead of bars.
    plain: Option<Instant>,
}

impl ProgressView {
    /// Bars for the stages `rec` plans; hidden when `quiet`.
    pub fn new(rec: &SweepRecord, quiet: bool) -> ProgressView {
        let plain = !quiet && !std::io::stderr().is_terminal();
        let target = if quiet || plain {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let multi = MultiProgress::with_draw_target(target);
        let style =
            ProgressStyle::with_template("{prefix:>14} [{bar:30}] {pos}/{len} {msg} ETA {eta}")
                .expect("valid template")
                .progress_chars("=> ");
        let mut bars = BTreeMap::new();
        for (kind, n) in &rec.planned {
            if *n == 0 {
                continue;
            }
            let bar = multi.add(
                ProgressBar::new(*n as u64)
                    .with_style(style.clone())
                    .with_prefix(kind.clone()),
            );
            bars.insert(kind.clone(), bar);
        }
        let cost = multi.add(
            ProgressBar::new_spinner()
                .with_style(ProgressStyle::with_template("{msg}").expect("valid template")),
        );
        ProgressView {
            multi,
            bars,
            cost,
            plain: plain.then(Instant::now),
        }
    }

    /// Prints a line above the bars.
    pub fn note(&mut self, line: &str) {
        if self.multi.is_hidden() {
            eprintln!("{line}");
        } else {
            let _ = self.multi.println(line);
        }
    }

    /// Moves the bars to `p`.
    pub fn update(&mut self, p: &Progress) {
        for (kind, bar) in &self.bars {
            bar.set_position(p.tally.settled(kind) as u64);
            let failed = p.tally.failures(kind) + p.tally.skips(kind);
            if failed > 0 {
                bar.set_message(format!("({failed} failed/skipped)"));
            }
        }
        let (mut input, mut output, mut cached) = (0, 0, 0);
        for (k, u) in &p.tally.usage {
            if k.cached {
                cached += u.input + u.output;
            } else {
                input += u.input;
                output += u.output;
            }
        }
        let budget = p
            .budget_usd
            .map_or(String::new(), |b| format!(" of {b:.2} budget"));
        let tokens = format!(
            "{input} in / {output} out ({cached} cached) | {:.4} USD spent{budget}",
            p.tally.spend_usd()
        );
        if let Some(last) = self.plain {
            if last.elapsed() >= PLAIN_EVERY {
                self.plain = Some(Instant::now());
                eprintln!("{} | tokens {tokens}", self.counts());
            }
        }
        self.cost.set_message(format!("{:>14} {tokens}", "tokens"));
    }

    /// `generate 12/50, judge 3/50, ...` from the bars.
    fn counts(&self) -> String {
        let parts: Vec<String> = self
            .bars
            .iter()
            .map(|(kind, bar)| {
                format!(
                    "{kind} {}/{}",
                    bar.position(),
                    bar.length().unwrap_or_default()
                )
            })
            .collect();
        parts.join(", ")
    }

    /// Leaves the final state on screen.
    pub fn finish(&mut self, p: &Progress) {
        self.update(p);
        if self.plain.is_some() {
            eprintln!("{} | {}", self.counts(), self.cost.message().trim_start());
        }
        for bar in self.bars.values() {
            bar.abandon();
        }
        self.cost.abandon();
    }
}
