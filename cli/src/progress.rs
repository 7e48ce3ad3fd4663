//! The progress display of `adfarm run`: one bar per job kind (done/total
//! with an ETA) and a line with tokens and cost so far.

use adfarm_backbone::SweepRecord;
use adfarm_coordinator::Progress;
use adfarm_proto::JobKind;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;

/// Bars for one sweep.
pub struct ProgressView {
    multi: MultiProgress,
    bars: BTreeMap<JobKind, ProgressBar>,
    cost: ProgressBar,
}

impl ProgressView {
    /// Bars for the kinds `rec` plans; hidden when `quiet`.
    pub fn new(rec: &SweepRecord, quiet: bool) -> ProgressView {
        let target = if quiet {
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
                    .with_prefix(kind.as_str().to_string()),
            );
            bars.insert(*kind, bar);
        }
        let cost = multi.add(
            ProgressBar::new_spinner()
                .with_style(ProgressStyle::with_template("{msg}").expect("valid template")),
        );
        ProgressView { multi, bars, cost }
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
            bar.set_position(p.tally.settled(*kind) as u64);
            let failed = p.tally.failures(*kind) + p.tally.skips(*kind);
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
        self.cost.set_message(format!(
            "{:>14} {input} in / {output} out ({cached} cached) | {:.4} USD spent{budget}",
            "tokens",
            p.tally.spend_usd()
        ));
    }

    /// Leaves the final state on screen.
    pub fn finish(&mut self, p: &Progress) {
        self.update(p);
        for bar in self.bars.values() {
            bar.abandon();
        }
        self.cost.abandon();
    }
}
