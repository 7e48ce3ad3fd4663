//! Redis servers of a test's own (a restart, a cluster), beside the shared
//! one: `redis-server` on free ports of 127.0.0.1, data in temporary
//! directories, killed when dropped.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `redis-server` on a free port of 127.0.0.1, data in a temporary
/// directory.
pub struct OwnRedis {
    port: u16,
    dir: tempfile::TempDir,
    persistent: bool,
    cluster: bool,
    child: Option<Child>,
}

impl OwnRedis {
    /// A standalone server, with an append-only file when `persistent`.
    pub fn start(persistent: bool) -> OwnRedis {
        OwnRedis::launched(persistent, false)
    }

    /// A node of a Redis Cluster (not yet joined to one).
    pub fn cluster_node() -> OwnRedis {
        OwnRedis::launched(false, true)
    }

    fn launched(persistent: bool, cluster: bool) -> OwnRedis {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut r = OwnRedis {
            port,
            dir: tempfile::tempdir().expect("a temporary directory"),
            persistent,
            cluster,
            child: None,
        };
        r.launch();
        r
    }

    /// Starts (or restarts) the server.
    pub fn launch(&mut self) {
        let aof = if self.persistent { "yes" } else { "no" };
        let cluster = if self.cluster { "yes" } else { "no" };
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--cluster-enabled", cluster])
            .args([
                "--save",
                "",
                "--appendonly",
                aof,
                "--appendfsync",
                "everysec",
            ])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts (apt-get install redis-server)");
        self.child = Some(child);
        let up = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(25));
            std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
        });
        assert!(up, "redis-server answers on port {}", self.port);
    }

    /// Stops it the way an operator restarts it: SHUTDOWN (which writes
    /// the append-only file), or a crash when `kill`.
    pub fn stop(&mut self, kill: bool) {
        let mut child = self.child.take().expect("running");
        if kill {
            let _ = child.kill();
        } else {
            let _ = Command::new("redis-cli")
                .args(["-p", &self.port.to_string(), "shutdown"])
                .status();
        }
        let _ = child.wait();
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Three cluster nodes joined into one Redis Cluster (no replicas).
pub struct OwnCluster {
    nodes: Vec<OwnRedis>,
}

impl OwnCluster {
    /// Starts three nodes and creates the cluster; waits until it serves.
    pub fn start() -> OwnCluster {
        let nodes: Vec<OwnRedis> = (0..3).map(|_| OwnRedis::cluster_node()).collect();
        let mut create = Command::new("redis-cli");
        create.arg("--cluster").arg("create");
        for n in &nodes {
            create.arg(format!("127.0.0.1:{}", n.port()));
        }
        let status = create
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("redis-cli runs");
        assert!(status.success(), "redis-cli --cluster create: {status}");
        let ok = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            nodes.iter().all(|n| {
                Command::new("redis-cli")
                    .args(["-p", &n.port().to_string(), "cluster", "info"])
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("cluster_state:ok"))
            })
        });
        assert!(ok, "the cluster did not reach cluster_state:ok");
        OwnCluster { nodes }
    }

    /// The cluster's URL for `--redis`: every node as a seed.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port()))
            .collect();
        format!("redis+cluster://{}", hosts.join(","))
    }
}
