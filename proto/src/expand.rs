//! How a sweep expands into jobs: the generate job of an (item, solution,
//! seed) and the follow-ups of a generate job. Coordinator and workers both
//! call these, so a job's id is the same whoever builds it.

use crate::job::{Cell, Envelope, Item, JobKind, JobSpec, SweepId};
use crate::sweep::{ProviderSpec, SolutionSpec, SuiteSpec, SweepSpec};
use serde::Serialize;

/// The parts of a provider that determine its answers (not limits or prices).
#[derive(Serialize)]
struct ModelIdentity<'a> {
    kind: crate::ProviderKind,
    base_url: Option<&'a str>,
    model: &'a str,
}

fn identity(p: Option<&ProviderSpec>) -> Option<ModelIdentity<'_>> {
    p.map(|p| ModelIdentity {
        kind: p.kind,
        base_url: p.base_url.as_deref(),
        model: &p.model,
    })
}

fn config_bytes(parts: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(parts).expect("config serialises")
}

/// The generate job of `item` × `solution` × `seed`.
pub fn generate_job(
    sweep: &SweepId,
    spec: &SweepSpec,
    suite: &SuiteSpec,
    dataset: &str,
    item: Item,
    solution: &SolutionSpec,
    seed: u64,
) -> Envelope {
    let config = config_bytes(&(
        &suite.params,
        solution,
        identity(spec.provider(&solution.provider)),
    ));
    let cell = Cell {
        suite: suite.name.clone(),
        dataset: dataset.to_string(),
        solution: solution.name.clone(),
        seed,
    };
    Envelope::new(sweep.clone(), JobSpec::Generate { cell, item }, &config)
}

/// The jobs that follow generate job `parent`: one judge job per judge when
/// `kinds` has [`JobKind::Judge`], one embed-metrics job when it has
/// [`JobKind::EmbedMetrics`].
pub fn follow_ups(spec: &SweepSpec, parent: &Envelope, kinds: &[JobKind]) -> Vec<Envelope> {
    let JobSpec::Generate { cell, item } = &parent.job else {
        return Vec::new();
    };
    let suite_params = spec
        .suites
        .iter()
        .find(|s| s.name == cell.suite)
        .map(|s| &s.params);
    let mut out = Vec::new();
    for kind in kinds {
        match kind {
            JobKind::Judge => {
                for judge in &spec.judges {
                    let config = config_bytes(&(suite_params, identity(spec.provider(judge))));
                    let job = JobSpec::Judge {
                        cell: cell.clone(),
                        item: item.clone(),
                        parent: parent.id.clone(),
                        judge: judge.clone(),
                    };
                    out.push(Envelope::new(parent.sweep.clone(), job, &config));
                }
            }
            JobKind::EmbedMetrics => {
                let config = config_bytes(&suite_params);
                let job = JobSpec::EmbedMetrics {
                    cell: cell.clone(),
                    item: item.clone(),
                    parent: parent.id.clone(),
                };
                out.push(Envelope::new(parent.sweep.clone(), job, &config));
            }
            JobKind::Generate => {}
        }
    }
    out
}

/// Follow-up jobs per generate job.
pub fn follow_up_count(spec: &SweepSpec, kinds: &[JobKind], kind: JobKind) -> u64 {
    match kind {
        JobKind::Judge if kinds.contains(&JobKind::Judge) => spec.judges.len() as u64,
        JobKind::EmbedMetrics if kinds.contains(&JobKind::EmbedMetrics) => 1,
        _ => 0,
    }
}
