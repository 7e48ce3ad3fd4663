//! A W3C WebDriver client over `chromedriver`, just large enough for tests
//! that drive a page with the keyboard: sessions on headless Chromium,
//! navigation, elements, scripts, key presses and alerts.

use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running chromedriver; killed when dropped.
pub struct Driver {
    child: Child,
    base: String,
    http: reqwest::Client,
}

/// One browser (its own profile and cookies).
pub struct Browser<'d> {
    driver: &'d Driver,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // chromedriver leads its own process group: the browsers it started
        // go with it, even when a failed test never closed them.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it answers.
    pub async fn start() -> Driver {
        let port = crate::free_port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "chromedriver is needed (apt-get install chromium-driver; scripts/test \
                     installs it): {e}"
                )
            });
        let driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(r) = driver
                .http
                .get(format!("{}/status", driver.base))
                .send()
                .await
            {
                if r.status().is_success() {
                    return driver;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("chromedriver did not answer within 20 s");
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("chromedriver answers");
        let v: Value = resp.json().await.expect("chromedriver answers JSON");
        v["value"].clone()
    }

    /// A new headless browser with its own profile.
    pub async fn browser(&self) -> Browser<'_> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run",
                         "--disable-background-networking", "--disable-sync"]
            }
        }}});
        let v = self
            .call(reqwest::Method::POST, "/session", Some(caps))
            .await;
        let session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        Browser {
            driver: self,
            session,
        }
    }
}

impl Browser<'_> {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        self.driver
            .call(method, &format!("/session/{}{path}", self.session), body)
            .await
    }

    /// Opens `url` and waits for the page to load.
    pub async fn go(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    /// Runs `script` in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// The page's visible text.
    pub async fn text(&self) -> String {
        self.eval("return document.body.innerText;")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Presses and releases each key of `keys` in turn (`\u{E007}` is
    /// Enter), as a user typing would.
    pub async fn press(&self, keys: &str) {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|c| {
                [
                    json!({"type": "keyDown", "value": c.to_string()}),
                    json!({"type": "keyUp", "value": c.to_string()}),
                ]
            })
            .collect();
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        )
        .await;
    }

    /// The text of an open alert, prompt or confirm dialog, if one is open.
    pub async fn dialog(&self) -> Option<String> {
        let v = self.call(reqwest::Method::GET, "/alert/text", None).await;
        v.as_str().map(str::to_string)
    }

    /// Presses `keys` and waits for the document they lead to (a form
    /// post and its redirect) to finish loading.
    pub async fn press_and_wait(&self, keys: &str) {
        self.eval("window.adfarmOldPage = true;").await;
        self.press(keys).await;
        self.wait_for_load().await;
    }

    /// Waits until a document that is not the one marked by
    /// [`Browser::press_and_wait`] has finished loading.
    pub async fn wait_for_load(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let v = self
                .eval("return !window.adfarmOldPage && document.readyState === 'complete';")
                .await;
            if v == true {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("page did not finish loading");
    }

    /// Ends the session (closes the browser).
    pub async fn close(self) {
        self.driver
            .call(
                reqwest::Method::DELETE,
                &format!("/session/{}", self.session),
                None,
            )
            .await;
    }
}
