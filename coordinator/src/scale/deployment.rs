//! The autoscaler's hands: read and set the replicas of a pool's worker
//! Deployment through its `scale` subresource (all the chart's Role grants).

use async_trait::async_trait;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};

/// Scaling failures.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// The Kubernetes API refused or failed a call.
    #[error("{op} of deployment {deployment} failed: {source}")]
    Kube {
        /// `get-scale` or `patch-scale`.
        op: &'static str,
        /// Deployment name.
        deployment: String,
        /// What the API said.
        source: Box<kube::Error>,
    },
    /// No Kubernetes configuration (in-cluster or kubeconfig) was found.
    #[error("no Kubernetes configuration: {0}")]
    Config(String),
}

impl ScaleError {
    /// Bounded error code, usable as a metric label.
    pub fn code(&self) -> &'static str {
        match self {
            ScaleError::Kube { source, .. } => match source.as_ref() {
                kube::Error::Api(s) if s.code == 404 => "scale-not-found",
                kube::Error::Api(s) if s.code == 403 => "scale-forbidden",
                _ => "scale-api",
            },
            ScaleError::Config(_) => "scale-config",
        }
    }
}

/// Reads and sets the replica count of worker Deployments.
#[async_trait]
pub trait WorkerScaler: Send + Sync {
    /// Replicas the Deployment asks for now.
    ///
    /// # Errors
    /// When the API is unreachable or the Deployment does not exist.
    async fn replicas(&self, deployment: &str) -> Result<u32, ScaleError>;

    /// Sets the Deployment's replicas.
    ///
    /// # Errors
    /// As [`WorkerScaler::replicas`], or when the patch is refused.
    async fn scale(&self, deployment: &str, replicas: u32) -> Result<(), ScaleError>;
}

/// [`WorkerScaler`] over the Kubernetes API, in one namespace.
pub struct KubeScaler {
    api: Api<Deployment>,
}

impl KubeScaler {
    /// Deployments in `namespace` through `client`.
    pub fn new(client: kube::Client, namespace: &str) -> KubeScaler {
        KubeScaler {
            api: Api::namespaced(client, namespace),
        }
    }

    /// A scaler from the in-cluster service account (or a kubeconfig).
    ///
    /// # Errors
    /// When neither is available.
    pub async fn infer(namespace: &str) -> Result<KubeScaler, ScaleError> {
        let config = kube::Config::infer()
            .await
            .map_err(|e| ScaleError::Config(e.to_string()))?;
        KubeScaler::from_config(config, namespace)
    }

    /// A scaler for the API server and credentials of `config`.
    ///
    /// # Errors
    /// When the client cannot be built from `config` (TLS settings).
    pub fn from_config(config: kube::Config, namespace: &str) -> Result<KubeScaler, ScaleError> {
        // kube's rustls (ring) and reqwest's (aws-lc-rs) link two crypto
        // providers, so rustls cannot pick one by itself; an error here only
        // means one is installed already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client =
            kube::Client::try_from(config).map_err(|e| ScaleError::Config(e.to_string()))?;
        Ok(KubeScaler::new(client, namespace))
    }
}

#[async_trait]
impl WorkerScaler for KubeScaler {
    async fn replicas(&self, deployment: &str) -> Result<u32, ScaleError> {
        let scale = self
            .api
            .get_scale(deployment)
            .await
            .map_err(|e| ScaleError::Kube {
                op: "get-scale",
                deployment: deployment.to_string(),
                source: Box::new(e),
            })?;
        let n = scale.spec.and_then(|s| s.replicas).unwrap_or(0);
        Ok(u32::try_from(n).unwrap_or(0))
    }

    async fn scale(&self, deployment: &str, replicas: u32) -> Result<(), ScaleError> {
        let patch = serde_json::json!({ "spec": { "replicas": replicas } });
        self.api
            .patch_scale(deployment, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|e| ScaleError::Kube {
                op: "patch-scale",
                deployment: deployment.to_string(),
                source: Box::new(e),
            })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::{Request, Response};
    use kube::client::Body;
    use std::pin::pin;
    use tower_test::mock;

    fn scale_json(name: &str, replicas: u32) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": { "name": name, "namespace": "evals" },
            "spec": { "replicas": replicas },
            "status": { "replicas": replicas }
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn scale_patches_the_deployments_scale_subresource() {
        let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
        let server = tokio::spawn(async move {
            let mut handle = pin!(handle);
            let (req, send) = handle.next_request().await.expect("a request is sent");
            assert_eq!(req.method(), http::Method::PATCH);
            assert_eq!(
                req.uri().path(),
                "/apis/apps/v1/namespaces/evals/deployments/adfarm-worker-judge/scale"
            );
            assert_eq!(
                req.headers().get(http::header::CONTENT_TYPE).unwrap(),
                "application/merge-patch+json"
            );
            let body = req.into_body().collect_bytes().await.unwrap();
            let patch: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(patch, serde_json::json!({ "spec": { "replicas": 3 } }));
            send.send_response(Response::new(Body::from(scale_json(
                "adfarm-worker-judge",
                3,
            ))));
        });
        let scaler = KubeScaler::new(kube::Client::new(service, "default"), "evals");
        scaler.scale("adfarm-worker-judge", 3).await.unwrap();
        server.await.unwrap();
    }

    #[tokio::test]
    async fn replicas_reads_the_scale_subresource() {
        let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
        let server = tokio::spawn(async move {
            let mut handle = pin!(handle);
            let (req, send) = handle.next_request().await.expect("a request is sent");
            assert_eq!(req.method(), http::Method::GET);
            assert_eq!(
                req.uri().path(),
                "/apis/apps/v1/namespaces/evals/deployments/adfarm-worker-generate/scale"
            );
            send.send_response(Response::new(Body::from(scale_json(
                "adfarm-worker-generate",
                7,
            ))));
        });
        let scaler = KubeScaler::new(kube::Client::new(service, "default"), "evals");
        assert_eq!(scaler.replicas("adfarm-worker-generate").await.unwrap(), 7);
        server.await.unwrap();
    }

    #[tokio::test]
    async fn a_missing_deployment_is_a_bounded_error() {
        let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
        let server = tokio::spawn(async move {
            let mut handle = pin!(handle);
            let (_req, send) = handle.next_request().await.expect("a request is sent");
            let status = serde_json::json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "deployments.apps \"x\" not found",
                "reason": "NotFound", "code": 404
            });
            let mut resp = Response::new(Body::from(serde_json::to_vec(&status).unwrap()));
            *resp.status_mut() = http::StatusCode::NOT_FOUND;
            send.send_response(resp);
        });
        let scaler = KubeScaler::new(kube::Client::new(service, "default"), "evals");
        let e = scaler.scale("x", 1).await.unwrap_err();
        assert_eq!(e.code(), "scale-not-found");
        server.await.unwrap();
    }
}
