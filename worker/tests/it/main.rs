//! The worker against the fake OpenAI-compatible server (in-process):
//!
//! - [`openai`]: the client, its error classes and the retry loop under
//!   paused time.
//! - [`tools`]: tool calls over the wire, and the re-ask of an unusable call.
//! - [`gateway`]: identical requests in flight at once are made once, in
//!   one process and across workers sharing Redis.
//! - [`stop`]: a stopped worker's jobs still running after the grace go
//!   back to the queue, unrecorded.
//! - [`sweep_wait`]: a job of an unregistered sweep waits for it through
//!   RabbitMQ, then is dead-lettered (not refused) past the wait.

mod gateway;
mod openai;
mod stop;
mod sweep_wait;
mod tools;

use adfarm_fake_llm::{serve, FakeLlmConfig, Stats};
use adfarm_llm::{ChatRequest, Message};
use adfarm_worker::openai::OpenAiClient;
use serde_json::Value;
use std::time::Duration;

/// A fake server on a free port, stopped when dropped.
pub struct Fake {
    /// Its OpenAI base URL (`http://host:port/v1`).
    pub base: String,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Fake {
    /// Serves `cfg` on `127.0.0.1`.
    pub async fn start(cfg: FakeLlmConfig) -> Fake {
        let (addr, task) = serve(cfg, "127.0.0.1:0").await.expect("fake binds");
        Fake {
            base: format!("http://{addr}/v1"),
            task,
        }
    }

    /// A client of `model` on this server, with a 5 s timeout.
    pub fn client(&self, model: &str) -> OpenAiClient {
        OpenAiClient::new(&self.base, model, None, Duration::from_secs(5)).unwrap()
    }

    /// The server's counters (`GET /stats`).
    pub async fn stats(&self) -> Stats {
        let url = self.base.replace("/v1", "/stats");
        reqwest::get(url).await.unwrap().json().await.unwrap()
    }

    /// Posts `body` by hand, to compare with what the client sent.
    pub async fn raw_chat(&self, body: &Value) -> Value {
        reqwest::Client::new()
            .post(format!("{}/chat/completions", self.base))
            .json(body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Clears the counters and fault draws (`POST /stats/reset`).
    pub async fn reset(&self) {
        let url = self.base.replace("/v1", "/stats/reset");
        let status = reqwest::Client::new().post(url).send().await.unwrap();
        assert!(status.status().is_success());
    }
}

/// A system prompt and `prompt` from the user.
pub fn request(prompt: &str) -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("You write short ads."),
        Message::user(prompt),
    ])
}
