//! The real chart: default values, the production example, and the value
//! sets that switch scaling and the API.

use crate::check::{chart_dir, check_chart, helm, render, values};
use adfarm_deploy_check::Manifest;
use std::path::Path;

fn count(kinds: &[(String, String)], kind: &str) -> usize {
    kinds.iter().filter(|(_, k)| k == kind).count()
}

fn checked(overrides: &[&Path]) -> Vec<(String, String)> {
    check_chart(&chart_dir("../helm/adfarm"), overrides).unwrap_or_else(|e| panic!("{e}"))
}

fn find<'a>(manifests: &'a [Manifest], kind: &str, name: &str) -> &'a serde_yaml::Value {
    &manifests
        .iter()
        .find(|m| m.kind() == kind && m.name() == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
        .document
}

fn args(container: &serde_yaml::Value) -> Vec<&str> {
    container["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

#[test]
fn default_values_render_into_valid_kubernetes_objects() {
    let kinds = checked(&[]);
    // The coordinator and one worker pool per lane.
    assert_eq!(count(&kinds, "Deployment"), 5, "{kinds:?}");
    assert_eq!(count(&kinds, "PodDisruptionBudget"), 4);
    assert_eq!(count(&kinds, "Service"), 2, "coordinator and workers");
    for kind in [
        "ConfigMap",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "NetworkPolicy",
    ] {
        assert!(count(&kinds, kind) >= 1, "no {kind} in {kinds:?}");
    }
    assert_eq!(count(&kinds, "ScaledObject"), 0);
    assert_eq!(count(&kinds, "ServiceMonitor"), 0);
}

#[test]
fn the_default_install_runs_a_coordinator_serving_its_api() {
    let manifests = render("demo", &[]);
    let deployment = find(&manifests, "Deployment", "demo-coordinator");
    let c = &deployment["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        args(c),
        [
            "coordinator",
            "--serve",
            "0.0.0.0:8080",
            "--metrics-addr",
            "0.0.0.0:9464"
        ],
        "no sweep file: nothing to autoscale"
    );
    assert_eq!(c["ports"][1]["name"], "api");
    assert_eq!(c["ports"][1]["containerPort"], 8080);
    let service = find(&manifests, "Service", "demo-coordinator");
    assert_eq!(service["spec"]["ports"][1]["name"], "api");
    assert_eq!(service["spec"]["ports"][1]["port"], 8080);
    let policy = find(&manifests, "NetworkPolicy", "demo");
    assert_eq!(policy["spec"]["ingress"][1]["ports"][0]["port"], 8080);
    for lane in ["solve", "model", "embed", "cpu"] {
        let w = find(&manifests, "Deployment", &format!("demo-worker-{lane}"));
        let c = &w["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(args(c)[..3], ["worker", "--lanes", lane]);
        assert_eq!(w["spec"]["replicas"], 1);
    }
}

#[test]
fn objects_are_named_after_the_release_and_their_component() {
    let manifests = render("demo", &[]);
    let mut names: Vec<String> = manifests
        .iter()
        .map(|m| format!("{} {}", m.kind(), m.name()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ConfigMap demo-sweeps",
            "Deployment demo-coordinator",
            "Deployment demo-worker-cpu",
            "Deployment demo-worker-embed",
            "Deployment demo-worker-model",
            "Deployment demo-worker-solve",
            "NetworkPolicy demo",
            "PodDisruptionBudget demo-worker-cpu",
            "PodDisruptionBudget demo-worker-embed",
            "PodDisruptionBudget demo-worker-model",
            "PodDisruptionBudget demo-worker-solve",
            "Role demo-scaler",
            "RoleBinding demo-scaler",
            "Service demo-coordinator",
            "Service demo-workers",
            "ServiceAccount demo",
        ]
    );
    let coordinator = find(&manifests, "Deployment", "demo-coordinator");
    assert_eq!(
        coordinator["metadata"]["labels"]["app.kubernetes.io/name"],
        "adfarm"
    );
}

#[test]
fn name_overrides_change_the_prefix_and_the_app_label() {
    let name = values("nameOverride: farm\n");
    let manifests = render("demo", &[name.path()]);
    let coordinator = find(&manifests, "Deployment", "demo-farm-coordinator");
    assert_eq!(
        coordinator["metadata"]["labels"]["app.kubernetes.io/name"],
        "farm"
    );
    let full = values("nameOverride: farm\nfullnameOverride: evals\n");
    let manifests = render("demo", &[full.path()]);
    find(&manifests, "Deployment", "evals-coordinator");
    find(&manifests, "Deployment", "evals-worker-solve");
}

#[test]
fn a_coordinator_without_its_api_needs_a_sweep_file() {
    let off = values("coordinator:\n  api:\n    enabled: false\n");
    let err = helm()
        .template("demo", "evals", &chart_dir("../helm/adfarm"), &[off.path()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("/coordinator/sweepFile"), "{err}");
}

#[test]
fn production_values_render_into_valid_kubernetes_objects() {
    let prod = chart_dir("../helm/adfarm/examples/values-production.yaml");
    let kinds = checked(&[&prod]);
    assert_eq!(
        count(&kinds, "Deployment"),
        5,
        "coordinator and four pools: {kinds:?}"
    );
    assert_eq!(count(&kinds, "ScaledObject"), 4);
    assert_eq!(count(&kinds, "ServiceMonitor"), 1);
    assert_eq!(
        count(&kinds, "HorizontalPodAutoscaler"),
        0,
        "KEDA replaces the HPA"
    );
}

#[test]
fn hpa_fallback_renders_when_keda_is_off() {
    let hpa = values("hpa:\n  enabled: true\n");
    let kinds = checked(&[hpa.path()]);
    assert_eq!(count(&kinds, "HorizontalPodAutoscaler"), 4);
}

#[test]
fn keda_and_the_service_monitor_render_on_default_values() {
    let on = values("keda:\n  enabled: true\nmetrics:\n  serviceMonitor:\n    enabled: true\n");
    let kinds = checked(&[on.path()]);
    assert_eq!(count(&kinds, "ScaledObject"), 4);
    assert_eq!(count(&kinds, "ServiceMonitor"), 1);
}

#[test]
fn production_workers_get_keys_from_secrets_and_run_hardened() {
    let prod = chart_dir("../helm/adfarm/examples/values-production.yaml");
    let manifests = render("adfarm", &[&prod]);
    let model = find(&manifests, "Deployment", "adfarm-worker-model");
    let c = &model["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        args(c),
        [
            "worker",
            "--lanes",
            "model",
            "--metrics-addr",
            "0.0.0.0:9464"
        ]
    );
    let env = c["env"].as_sequence().unwrap();
    let key = env.iter().find(|e| e["name"] == "OPENAI_API_KEY").unwrap();
    assert_eq!(
        key["valueFrom"]["secretKeyRef"]["name"],
        "adfarm-provider-keys"
    );
    let amqp = env.iter().find(|e| e["name"] == "ADFARM_AMQP_URL").unwrap();
    assert!(
        amqp.get("value").is_none(),
        "the AMQP URL comes from a Secret"
    );
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["securityContext"]["capabilities"]["drop"][0], "ALL");
    assert_eq!(
        model["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"],
        true
    );
}

#[test]
fn coordinator_autoscales_without_keda_and_gets_its_pools() {
    let sweep =
        values("sweeps:\n  s.toml: |\n    name = \"s\"\ncoordinator:\n  sweepFile: s.toml\n");
    let keda = values("keda:\n  enabled: true\n");
    checked(&[sweep.path()]);
    checked(&[sweep.path(), keda.path()]);
    let coordinator = |files: &[&Path]| {
        let manifests = render("adfarm", files);
        find(&manifests, "Deployment", "adfarm-coordinator")["spec"]["template"]["spec"]
            ["containers"][0]
            .clone()
    };
    let c = coordinator(&[sweep.path()]);
    let a = args(&c);
    assert_eq!(a[..3], ["coordinator", "--sweep", "/sweeps/s.toml"]);
    assert!(a.contains(&"--autoscale"), "{a:?}");
    let env = c["env"].as_sequence().unwrap();
    let value = |name: &str| env.iter().find(|e| e["name"] == name).unwrap().clone();
    assert_eq!(
        value("ADFARM_WORKER_DEPLOYMENT_PREFIX")["value"],
        "adfarm-worker-"
    );
    assert_eq!(
        value("ADFARM_WORKER_POOLS")["value"],
        "solve=solve:0:10,model=model:0:10,embed=embed:0:4,cpu=cpu:0:4"
    );
    assert_eq!(
        value("ADFARM_K8S_NAMESPACE")["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.namespace"
    );
    // With KEDA scaling the pools, the coordinator leaves them alone.
    let c = coordinator(&[sweep.path(), keda.path()]);
    assert!(!args(&c).contains(&"--autoscale"));
}

/// The grace a container's process gets (`ADFARM_GRACE_SECS`) and its pod's
/// `terminationGracePeriodSeconds`.
fn graces(deployment: &serde_yaml::Value) -> (u64, u64) {
    let pod = &deployment["spec"]["template"]["spec"];
    let env = pod["containers"][0]["env"].as_sequence().unwrap();
    let process = env
        .iter()
        .find(|e| e["name"] == "ADFARM_GRACE_SECS")
        .and_then(|e| e["value"].as_str())
        .expect("ADFARM_GRACE_SECS is set")
        .parse()
        .unwrap();
    let pod = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    (process, pod)
}

#[test]
fn every_pod_outlives_the_grace_its_process_gets() {
    let longer = values("shutdown:\n  graceSeconds: 45\n");
    for (overrides, grace) in [(vec![], 20), (vec![longer.path()], 45)] {
        let manifests = render("demo", &overrides);
        let mut names = vec!["demo-coordinator".to_string()];
        names.extend(["solve", "model", "embed", "cpu"].map(|l| format!("demo-worker-{l}")));
        for name in names {
            let (process, pod) = graces(find(&manifests, "Deployment", &name));
            assert_eq!(process, grace, "{name}");
            assert!(pod > process, "{name}: pod {pod} s, process {process} s");
        }
    }
}

#[test]
fn a_pool_sets_the_local_generators_memory_budget_only_when_given() {
    let pools = values(
        "workers:\n  pools:\n    - name: local\n      lanes: [solve, model]\n      replicas: 1\n      minReplicas: 0\n      maxReplicas: 2\n      kvMemoryMib: 3072\n      resources:\n        limits: { memory: 6Gi }\n    - name: remote\n      lanes: [embed, cpu]\n      replicas: 1\n      minReplicas: 0\n      maxReplicas: 2\n      resources: {}\n",
    );
    checked(&[pools.path()]);
    let manifests = render("adfarm", &[pools.path()]);
    let budget = |deployment: &str| {
        find(&manifests, "Deployment", deployment)["spec"]["template"]["spec"]["containers"][0]
            ["env"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "ADFARM_KV_MEMORY_MIB")
            .map(|e| e["value"].as_str().unwrap().to_string())
    };
    assert_eq!(budget("adfarm-worker-local").as_deref(), Some("3072"));
    assert_eq!(budget("adfarm-worker-remote"), None, "unset: the default");

    // The process refuses a budget under 64 MiB; the chart refuses it first.
    let small = values(
        &std::fs::read_to_string(pools.path())
            .unwrap()
            .replace("3072", "32"),
    );
    let err = helm()
        .template(
            "adfarm",
            "evals",
            &chart_dir("../helm/adfarm"),
            &[small.path()],
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("kvMemoryMib"), "{err}");
}
