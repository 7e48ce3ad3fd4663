//! Lints and renders a chart with the real helm, validates the output with
//! kubernetes-validate, and checks each document against its Kubernetes type.

use adfarm_deploy_check::{Helm, KubernetesValidate, Manifest, Tool};
use k8s_openapi::api::{
    apps::v1::Deployment,
    autoscaling::v2::HorizontalPodAutoscaler,
    core::v1::{ConfigMap, Service, ServiceAccount},
    networking::v1::NetworkPolicy,
    policy::v1::PodDisruptionBudget,
    rbac::v1::{Role, RoleBinding},
};
use serde::{de::DeserializeOwned, Serialize};
use std::path::{Path, PathBuf};

/// The Kubernetes version kubernetes-validate checks against: the one of
/// k8s-openapi's `v1_35` feature, which the typed checks use.
const KUBERNETES_VERSION: &str = "1.35.0";

pub fn chart_dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `$ADFARM_HOME`, defaulting as `scripts/ensure-helm` does.
fn adfarm_home() -> PathBuf {
    if let Some(home) = std::env::var_os("ADFARM_HOME").filter(|h| !h.is_empty()) {
        return home.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    cache.join("adfarm")
}

fn locate(tool: Tool) -> PathBuf {
    tool.locate(
        std::env::var_os(tool.env),
        &adfarm_home(),
        std::env::var_os("PATH"),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

pub fn helm() -> Helm {
    Helm::new(locate(Tool::HELM))
}

fn kubernetes_validate() -> KubernetesValidate {
    KubernetesValidate::new(locate(Tool::KUBERNETES_VALIDATE), KUBERNETES_VERSION)
}

/// The real chart rendered as release `release` in namespace `evals`.
pub fn render(release: &str, overrides: &[&Path]) -> Vec<Manifest> {
    helm()
        .manifests(release, "evals", &chart_dir("../helm/adfarm"), overrides)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A values file holding `yaml`, removed when the returned guard drops.
pub fn values(yaml: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, yaml.as_bytes()).unwrap();
    f
}

/// Drops nulls, which the typed round trip omits too.
fn strip_nulls(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => serde_json::Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.into_iter().map(strip_nulls).collect())
        }
        other => other,
    }
}

/// Deserialises `doc` into `T` and back: an unknown or misplaced field is
/// lost on the way and shows as a difference.
fn typed<T: DeserializeOwned + Serialize>(doc: &serde_json::Value) -> Result<(), String> {
    let t: T = serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    let back = strip_nulls(serde_json::to_value(&t).map_err(|e| e.to_string())?);
    let want = strip_nulls(doc.clone());
    if back != want {
        return Err(format!(
            "fields lost in the typed round trip:\nrendered: {want}\ntyped:    {back}"
        ));
    }
    Ok(())
}

fn require(doc: &serde_json::Value, pointers: &[&str]) -> Result<(), String> {
    for p in pointers {
        match doc.pointer(p) {
            None | Some(serde_json::Value::Null) => return Err(format!("missing {p}")),
            _ => {}
        }
    }
    Ok(())
}

/// Checks one document; returns its kind.
pub fn check_document(doc: &serde_yaml::Value) -> Result<String, String> {
    let doc: serde_json::Value = serde_json::to_value(doc).map_err(|e| e.to_string())?;
    let kind = doc
        .get("kind")
        .and_then(|k| k.as_str())
        .ok_or("document has no kind")?
        .to_string();
    let api = doc.get("apiVersion").and_then(|k| k.as_str()).unwrap_or("");
    match (api, kind.as_str()) {
        ("apps/v1", "Deployment") => typed::<Deployment>(&doc),
        ("v1", "Service") => typed::<Service>(&doc),
        ("v1", "ConfigMap") => typed::<ConfigMap>(&doc),
        ("v1", "ServiceAccount") => typed::<ServiceAccount>(&doc),
        ("policy/v1", "PodDisruptionBudget") => typed::<PodDisruptionBudget>(&doc),
        ("networking.k8s.io/v1", "NetworkPolicy") => typed::<NetworkPolicy>(&doc),
        ("autoscaling/v2", "HorizontalPodAutoscaler") => typed::<HorizontalPodAutoscaler>(&doc),
        ("rbac.authorization.k8s.io/v1", "Role") => typed::<Role>(&doc),
        ("rbac.authorization.k8s.io/v1", "RoleBinding") => typed::<RoleBinding>(&doc),
        ("monitoring.coreos.com/v1", "ServiceMonitor") => require(
            &doc,
            &[
                "/metadata/name",
                "/spec/selector/matchLabels",
                "/spec/endpoints/0/port",
            ],
        ),
        ("keda.sh/v1alpha1", "ScaledObject") => require(
            &doc,
            &[
                "/metadata/name",
                "/spec/scaleTargetRef/name",
                "/spec/minReplicaCount",
                "/spec/maxReplicaCount",
                "/spec/triggers/0/type",
                "/spec/triggers/0/metadata/queueName",
            ],
        ),
        (api, kind) => Err(format!("unexpected {api} {kind}")),
    }
    .map_err(|e| format!("{kind}: {e}"))?;
    require(&doc, &["/metadata/name"])?;
    Ok(kind)
}

/// Lints `chart` with `overrides` (`helm lint --strict`), renders it
/// (`helm template`), validates the output (`kubernetes-validate --strict`)
/// and checks every document against its type; returns the (template, kind)
/// of each document, or every failure.
pub fn check_chart(chart: &Path, overrides: &[&Path]) -> Result<Vec<(String, String)>, String> {
    let helm = helm();
    let validate = kubernetes_validate();
    helm.lint(chart, overrides).map_err(|e| e.to_string())?;
    let text = helm
        .template("adfarm", "adfarm", chart, overrides)
        .map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    if let Err(e) = validate.validate(&text) {
        failures.push(e.to_string());
    }
    let manifests = adfarm_deploy_check::split(&text).map_err(|e| e.to_string())?;
    let mut kinds = Vec::new();
    for m in &manifests {
        match check_document(&m.document) {
            Ok(k) => kinds.push((m.template.clone(), k)),
            Err(e) => failures.push(format!("{}: {e}", m.template)),
        }
    }
    if failures.is_empty() {
        Ok(kinds)
    } else {
        Err(failures.join("\n"))
    }
}
