//! One rendered document checked against its Kubernetes type.

use adfarm_deploy_check::{Chart, Rendered};
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

pub fn chart_dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
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

/// Renders `chart` with `overrides` and checks every document; returns the
/// kinds found, or every failure.
pub fn check_chart(chart: &Path, overrides: &[&Path]) -> Result<Vec<(String, String)>, String> {
    let chart = Chart::load(chart).map_err(|e| e.to_string())?;
    let rendered: Vec<Rendered> = chart
        .render(overrides, "adfarm", "adfarm")
        .map_err(|e| e.to_string())?;
    let mut kinds = Vec::new();
    let mut failures = Vec::new();
    for r in &rendered {
        for doc in &r.documents {
            match check_document(doc) {
                Ok(k) => kinds.push((r.template.clone(), k)),
                Err(e) => failures.push(format!("{}: {e}", r.template)),
            }
        }
    }
    if failures.is_empty() {
        Ok(kinds)
    } else {
        Err(failures.join("\n"))
    }
}
