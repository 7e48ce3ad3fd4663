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
/// `kinds` has [`JobKind::Judge`]; when it has [`JobKind::EmbedMetrics`],
/// one embed-metrics job for the sweep's embedder and one more per
/// `embedding_ablation` embedder (same output, another scorer).
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
                // The primary job's config is the suite parameters alone, as
                // before ablations existed, so its id and stored result stay.
                let config = config_bytes(&suite_params);
                let job = JobSpec::EmbedMetrics {
                    cell: cell.clone(),
                    item: item.clone(),
                    parent: parent.id.clone(),
                    embedder: None,
                };
                out.push(Envelope::new(parent.sweep.clone(), job, &config));
                for name in &spec.embedding_ablation {
                    let config = config_bytes(&(suite_params, identity(spec.provider(name))));
                    let job = JobSpec::EmbedMetrics {
                        cell: cell.clone(),
                        item: item.clone(),
                        parent: parent.id.clone(),
                        embedder: Some(name.clone()),
                    };
                    out.push(Envelope::new(parent.sweep.clone(), job, &config));
                }
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
        JobKind::EmbedMetrics if kinds.contains(&JobKind::EmbedMetrics) => {
            1 + spec.embedding_ablation.len() as u64
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JobId;

    fn spec(ablation: &[&str]) -> SweepSpec {
        serde_json::from_value(serde_json::json!({
            "name": "s",
            "suites": [{"name": "gem", "datasets": ["mt-human"], "params": {"p": 1}}],
            "solutions": [{"name": "gi-r", "provider": "gen"}],
            "providers": [
                {"name": "gen", "kind": "openai-compatible", "model": "g", "requests_per_minute": 60.0},
                {"name": "emb", "kind": "openai-compatible", "model": "e1", "requests_per_minute": 60.0},
                {"name": "emb-b", "kind": "openai-compatible", "model": "e2", "requests_per_minute": 60.0},
                {"name": "emb-c", "kind": "local", "model": "e3", "requests_per_minute": 60.0}
            ],
            "judges": ["gen"],
            "embedder": "emb",
            "embedding_ablation": ablation
        }))
        .expect("a sweep spec")
    }

    fn parent(spec: &SweepSpec) -> Envelope {
        let item = Item {
            id: "0".into(),
            input: "q".into(),
            meta: serde_json::Value::Null,
        };
        generate_job(
            &spec.id(),
            spec,
            &spec.suites[0],
            "mt-human",
            item,
            &spec.solutions[0],
            1,
        )
    }

    fn embed_jobs(spec: &SweepSpec, parent: &Envelope) -> Vec<(Option<String>, JobId)> {
        follow_ups(spec, parent, &[JobKind::Judge, JobKind::EmbedMetrics])
            .into_iter()
            .filter_map(|e| match e.job {
                JobSpec::EmbedMetrics { embedder, .. } => Some((embedder, e.id)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_ablation_embedder_adds_one_embed_metrics_job_with_its_own_id() {
        let kinds = [JobKind::Judge, JobKind::EmbedMetrics];
        let s = spec(&["emb-b", "emb-c"]);
        let p = parent(&s);
        let jobs = embed_jobs(&s, &p);
        let names: Vec<Option<&str>> = jobs.iter().map(|(n, _)| n.as_deref()).collect();
        assert_eq!(names, [None, Some("emb-b"), Some("emb-c")]);
        let ids: std::collections::BTreeSet<&JobId> = jobs.iter().map(|(_, id)| id).collect();
        assert_eq!(ids.len(), 3, "distinct ids");
        assert_eq!(follow_up_count(&s, &kinds, JobKind::EmbedMetrics), 3);
        assert_eq!(follow_up_count(&s, &kinds, JobKind::Judge), 1);
        assert_eq!(
            follow_ups(&s, &p, &kinds).len() as u64,
            follow_up_count(&s, &kinds, JobKind::Judge)
                + follow_up_count(&s, &kinds, JobKind::EmbedMetrics)
        );
        assert_eq!(
            follow_up_count(&s, &[JobKind::Judge], JobKind::EmbedMetrics),
            0
        );
        assert!(embed_jobs(&s, &p).iter().all(|(_, id)| id.0.len() == 32));
    }

    #[test]
    fn an_ablation_leaves_the_primary_embed_metrics_id_unchanged() {
        let plain = spec(&[]);
        let ablated = spec(&["emb-b"]);
        assert_ne!(
            plain.id(),
            ablated.id(),
            "the ablation is part of the sweep"
        );
        // Same sweep id and parent: only the follow-ups differ.
        let p = parent(&plain);
        let before = embed_jobs(&plain, &p);
        let after = embed_jobs(&ablated, &p);
        assert_eq!(before.len(), 1);
        assert_eq!(after.len(), 2);
        assert_eq!(before[0], after[0]);
        // The primary job's id is the one earlier versions derived: the
        // variant as it was before `embedder`, the suite parameters as config.
        #[derive(Serialize)]
        #[serde(tag = "kind", rename_all = "kebab-case")]
        enum Before<'a> {
            EmbedMetrics {
                cell: &'a Cell,
                item: &'a Item,
                parent: &'a JobId,
            },
        }
        let JobSpec::Generate { cell, item } = &p.job else {
            panic!("a generate job");
        };
        let legacy = Before::EmbedMetrics {
            cell,
            item,
            parent: &p.id,
        };
        let body = serde_json::to_vec(&legacy).expect("serialises");
        let config = serde_json::to_vec(&Some(&plain.suites[0].params)).expect("serialises");
        let id = JobId(crate::content_hash(&[b"job", &body, &config]));
        assert_eq!(before[0].1, id);
    }

    #[test]
    fn a_spec_without_ablation_serialises_without_the_field() {
        let json = serde_json::to_string(&spec(&[])).expect("serialises");
        assert!(!json.contains("embedding_ablation"), "{json}");
        assert!(serde_json::to_string(&spec(&["emb-b"]))
            .expect("serialises")
            .contains("\"embedding_ablation\":[\"emb-b\"]"));
    }
}
