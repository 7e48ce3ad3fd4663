//! The real chart, with default values and the production example.

use crate::check::{chart_dir, check_chart};

fn count(kinds: &[(String, String)], kind: &str) -> usize {
    kinds.iter().filter(|(_, k)| k == kind).count()
}

#[test]
fn default_values_render_into_valid_kubernetes_objects() {
    let kinds = check_chart(&chart_dir("../helm/adfarm"), &[]).unwrap_or_else(|e| panic!("{e}"));
    // One worker pool per lane; no coordinator without a sweep file.
    assert_eq!(count(&kinds, "Deployment"), 4, "{kinds:?}");
    assert_eq!(count(&kinds, "PodDisruptionBudget"), 4);
    for kind in [
        "ConfigMap",
        "Service",
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
fn production_values_render_into_valid_kubernetes_objects() {
    let prod = chart_dir("../helm/adfarm/examples/values-production.yaml");
    let kinds =
        check_chart(&chart_dir("../helm/adfarm"), &[&prod]).unwrap_or_else(|e| panic!("{e}"));
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
    let dir = tempdir();
    let over = dir.join("hpa.yaml");
    std::fs::write(&over, "hpa:\n  enabled: true\n").unwrap();
    let kinds =
        check_chart(&chart_dir("../helm/adfarm"), &[&over]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&kinds, "HorizontalPodAutoscaler"), 4);
}

#[test]
fn production_workers_get_keys_from_secrets_and_run_hardened() {
    let prod = chart_dir("../helm/adfarm/examples/values-production.yaml");
    let chart = adfarm_deploy_check::Chart::load(&chart_dir("../helm/adfarm")).unwrap();
    let rendered = chart.render(&[&prod], "adfarm", "adfarm").unwrap();
    let workers = rendered
        .iter()
        .find(|r| r.template == "worker-deployment.yaml")
        .unwrap();
    let model = workers
        .documents
        .iter()
        .find(|d| d["metadata"]["name"] == "adfarm-adfarm-worker-model")
        .expect("model pool");
    let c = &model["spec"]["template"]["spec"]["containers"][0];
    let args: Vec<&str> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        args,
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

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("adfarm-deploy-check-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn coordinator_autoscales_without_keda_and_gets_its_pools() {
    let dir = tempdir();
    let over = dir.join("autoscale.yaml");
    std::fs::write(
        &over,
        "sweeps:\n  s.toml: |\n    name = \"s\"\ncoordinator:\n  sweepFile: s.toml\n",
    )
    .unwrap();
    let chart = adfarm_deploy_check::Chart::load(&chart_dir("../helm/adfarm")).unwrap();
    let coordinator = |files: &[&std::path::Path]| {
        let rendered = chart.render(files, "adfarm", "evals").unwrap();
        let doc = rendered
            .iter()
            .find(|r| r.template == "coordinator-deployment.yaml")
            .unwrap()
            .documents[0]
            .clone();
        doc["spec"]["template"]["spec"]["containers"][0].clone()
    };
    let c = coordinator(&[&over]);
    let args: Vec<&str> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(args.contains(&"--autoscale"), "{args:?}");
    let env = c["env"].as_sequence().unwrap();
    let value = |name: &str| env.iter().find(|e| e["name"] == name).unwrap().clone();
    assert_eq!(
        value("ADFARM_WORKER_DEPLOYMENT_PREFIX")["value"],
        "adfarm-adfarm-worker-"
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
    let keda = dir.join("keda.yaml");
    std::fs::write(&keda, "keda:\n  enabled: true\n").unwrap();
    let c = coordinator(&[&over, &keda]);
    assert!(!c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|a| a == "--autoscale"));
}

#[test]
fn api_only_coordinator_serves_its_api_port() {
    let dir = tempdir();
    let over = dir.join("api.yaml");
    std::fs::write(
        &over,
        "coordinator:\n  api:\n    enabled: true\n    port: 8080\n",
    )
    .unwrap();
    let kinds =
        check_chart(&chart_dir("../helm/adfarm"), &[&over]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&kinds, "Deployment"), 5, "coordinator and four pools");
    let chart = adfarm_deploy_check::Chart::load(&chart_dir("../helm/adfarm")).unwrap();
    let rendered = chart.render(&[&over], "adfarm", "evals").unwrap();
    let doc = |template: &str| {
        rendered
            .iter()
            .find(|r| r.template == template)
            .unwrap()
            .documents[0]
            .clone()
    };
    let deployment = doc("coordinator-deployment.yaml");
    let c = &deployment["spec"]["template"]["spec"]["containers"][0];
    let args: Vec<&str> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&args[..3], ["coordinator", "--serve", "0.0.0.0:8080"]);
    assert!(!args.contains(&"--sweep"), "{args:?}");
    assert_eq!(c["ports"][1]["containerPort"], 8080);
    let service = doc("coordinator-service.yaml");
    assert_eq!(service["spec"]["ports"][1]["name"], "api");
    let policy = doc("networkpolicy.yaml");
    assert_eq!(policy["spec"]["ingress"][1]["ports"][0]["port"], 8080);
}
