//! The parent side: spawns the child with an empty environment, sends the
//! request, and turns its reply, or the way it died, into a `Reply`.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use super::protocol::{ChildLine, ErrorKind, Reply, Request, RunError};
use super::{CPU_SECONDS, OUTPUT_LIMIT, WALL_SECONDS};

/// The child's stdout kept: printed pieces and the reply, each holding at
/// most 16 KiB of output, JSON-escaped. Anything past it is drained unread.
const REPLY_CAP: u64 = (OUTPUT_LIMIT as u64) * 16 + 64 * 1024;
const STDERR_CAP: u64 = 8 * 1024;

// Signal numbers on Linux, named for the causes the runner reports.
const SIGABRT: i32 = 6;
const SIGKILL: i32 = 9;
const SIGSEGV: i32 = 11;
const SIGXCPU: i32 = 24;

/// Runs calculator snippets, each in a fresh child process.
#[derive(Debug, Clone)]
pub struct Calculator {
    program: PathBuf,
    args: Vec<OsString>,
    wall: Duration,
}

impl Calculator {
    /// A calculator whose child is `program args...`, a process that calls
    /// [`run_stdio`](crate::run_stdio) first thing and nothing else.
    pub fn new(
        program: impl Into<PathBuf>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> Calculator {
        Calculator {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            wall: Duration::from_secs(WALL_SECONDS),
        }
    }

    /// Runs `code` with earlier tool results readable as variables
    /// (`("r1", json)`...). Blocks for up to the wall-clock limit: async
    /// callers run it on a blocking thread.
    pub fn run(&self, code: &str, variables: &[(String, serde_json::Value)]) -> Reply {
        let variables = variables
            .iter()
            .map(|(name, value)| (name.clone(), value.to_string()))
            .collect();
        self.run_request(&Request {
            code: code.to_string(),
            variables,
        })
    }

    /// Like `run`, with each variable given as JSON text (its key order kept).
    pub fn run_request(&self, request: &Request) -> Reply {
        // A snippet past the limit is refused here, never piped to a child.
        if let Some(refused) = super::child::too_long(&request.code) {
            return refused;
        }
        let payload = match serde_json::to_vec(request) {
            Ok(p) => p,
            Err(e) => {
                return failure(
                    ErrorKind::Crashed,
                    format!("could not encode the request: {e}"),
                )
            }
        };
        let mut child = match Command::new(&self.program)
            .args(&self.args)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                return failure(
                    ErrorKind::Crashed,
                    format!(
                        "could not start the calculator ({}): {e}",
                        self.program.display()
                    ),
                )
            }
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return failure(
                ErrorKind::Crashed,
                "the calculator's pipes were not set up".into(),
            );
        };
        // A child that dies early closes its stdin; the write error is moot then.
        let writer = thread::spawn(move || {
            let _ = stdin.write_all(&payload);
        });
        let err_reader = thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.take(STDERR_CAP).read_to_end(&mut buf);
            buf
        });
        let (done, finished) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = Vec::new();
            let mut kept = stdout.take(REPLY_CAP);
            let _ = kept.read_to_end(&mut buf);
            // Keep reading so a chatty child never blocks on a full pipe.
            let _ = std::io::copy(&mut kept.into_inner(), &mut std::io::sink());
            let _ = done.send(buf);
        });
        // stdout closes when the child exits: that is the end of the run.
        let (stdout_bytes, timed_out) = match finished.recv_timeout(self.wall) {
            Ok(bytes) => (bytes, false),
            Err(_) => {
                let _ = child.kill();
                // The killed child's stdout closes; what it printed arrives.
                let bytes = finished
                    .recv_timeout(Duration::from_secs(1))
                    .unwrap_or_default();
                (bytes, true)
            }
        };
        let status = child.wait();
        let _ = writer.join();
        let stderr_text =
            String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
        let (printed, reply) = parse_child_stdout(&stdout_bytes);
        if timed_out {
            return failure(
                ErrorKind::Timeout,
                format!(
                    "the snippet ran past the {} s wall-clock limit and was stopped",
                    self.wall.as_secs()
                ),
            )
            .with_output(printed);
        }
        let status = match status {
            Ok(s) => s,
            Err(e) => {
                return failure(
                    ErrorKind::Crashed,
                    format!("waiting for the calculator: {e}"),
                )
            }
        };
        match reply {
            Some(reply) if status.success() => reply,
            _ => classify_death(status.signal(), status.code(), &stderr_text).with_output(printed),
        }
    }
}

/// Splits the child's stdout into what it printed and its final reply.
fn parse_child_stdout(bytes: &[u8]) -> (String, Option<Reply>) {
    let mut printed = String::new();
    let mut reply = None;
    for line in bytes.split(|b| *b == b'\n') {
        match serde_json::from_slice::<ChildLine>(line) {
            Ok(ChildLine::Printed(text)) if printed.len() + text.len() <= OUTPUT_LIMIT => {
                printed.push_str(&text)
            }
            Ok(ChildLine::Printed(_)) => {}
            Ok(ChildLine::Reply(r)) => reply = Some(r),
            // A line cut short by a kill, or none at all.
            Err(_) => {}
        }
    }
    (printed, reply)
}

fn classify_death(signal: Option<i32>, code: Option<i32>, stderr: &str) -> Reply {
    if stderr.contains("memory allocation") || stderr.contains("out of memory") {
        return failure(
            ErrorKind::Memory,
            format!(
                "MemoryError: the snippet needed more than the calculator's {} MiB",
                super::MEMORY_BYTES >> 20
            ),
        );
    }
    if stderr.contains("overflowed its stack") {
        return failure(
            ErrorKind::Memory,
            "MemoryError: nesting or recursion too deep".into(),
        );
    }
    match signal {
        Some(SIGXCPU) | Some(SIGKILL) => failure(
            ErrorKind::Timeout,
            format!("the snippet used more than {CPU_SECONDS} s of CPU time and was stopped (an endless loop?)"),
        ),
        Some(SIGABRT) | Some(SIGSEGV) => failure(
            ErrorKind::Memory,
            format!("MemoryError: the snippet needed more than the calculator's {} MiB", super::MEMORY_BYTES >> 20),
        ),
        _ => {
            let how = match (signal, code) {
                (Some(s), _) => format!("signal {s}"),
                (_, Some(c)) => format!("exit code {c}"),
                _ => "an unknown status".into(),
            };
            let detail = stderr.lines().last().unwrap_or("").trim();
            failure(ErrorKind::Crashed, format!("the calculator process ended with {how} without a reply {detail}").trim_end().to_string())
        }
    }
}

impl Reply {
    fn with_output(mut self, output: String) -> Reply {
        self.output = output;
        self
    }
}

fn failure(kind: ErrorKind, message: String) -> Reply {
    Reply {
        output: String::new(),
        error: Some(RunError { kind, message }),
    }
}
