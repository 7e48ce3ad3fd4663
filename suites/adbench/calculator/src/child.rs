//! The calculator's child process: it limits itself (address space, CPU
//! seconds, no core files), reads one request from stdin, interprets it,
//! streams what it prints to stdout and ends with the reply. The
//! production binary reaches this through a hidden subcommand (a suite's
//! child entry); this crate's tests through its `calculator-child` bin.

use std::io::{Read, Write};
use std::process::ExitCode;

use nix::sys::resource::{setrlimit, Resource};

use super::error::{Fault, Raised};
use super::interp::{Echo, Interp, REFUSED_IMPORT};
use super::json;
use super::parser::parse_program;
use super::protocol::{ChildLine, ErrorKind, Reply, Request, RunError};
use super::{CODE_CHARS, CPU_SECONDS, MEMORY_BYTES, OUTPUT_LIMIT};

/// The interpreter recurses natively per Python call and nesting level; it
/// runs on a thread with this much stack (inside the address-space limit).
const STACK_BYTES: usize = 48 << 20;

/// Limits this process before it reads any snippet.
fn limit_self() -> Result<(), String> {
    let set = |r: Resource, soft: u64, hard: u64| {
        setrlimit(r, soft, hard).map_err(|e| format!("setrlimit {r:?}: {e}"))
    };
    set(Resource::RLIMIT_AS, MEMORY_BYTES, MEMORY_BYTES)?;
    // SIGXCPU at the soft limit, SIGKILL a second later should it be caught.
    set(Resource::RLIMIT_CPU, CPU_SECONDS, CPU_SECONDS + 1)?;
    set(Resource::RLIMIT_CORE, 0, 0)?;
    Ok(())
}

/// The child's whole life: limit, read, interpret, reply. Returns the exit
/// code: 0 after a reply (whatever the snippet did), 3 when the limits
/// cannot be set or the request cannot be read. Call it first thing,
/// before any runtime or thread pool starts: the 256 MiB address-space
/// limit counts everything already mapped.
pub fn run_stdio() -> ExitCode {
    if let Err(e) = limit_self() {
        eprintln!("calculator: {e}");
        return ExitCode::from(3);
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("calculator: reading the request: {e}");
        return ExitCode::from(3);
    }
    let reply = match serde_json::from_str::<Request>(&input) {
        Ok(request) => evaluate_on_big_stack(request),
        Err(e) => {
            eprintln!("calculator: bad request: {e}");
            return ExitCode::from(3);
        }
    };
    if !write_line(&ChildLine::Reply(reply)) {
        return ExitCode::from(3);
    }
    ExitCode::SUCCESS
}

/// Writes one protocol line to stdout, flushed so the runner has it even
/// if this process is killed next.
fn write_line(line: &ChildLine) -> bool {
    let Ok(mut text) = serde_json::to_string(line) else {
        return false;
    };
    text.push('\n');
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .is_ok()
}

fn evaluate_on_big_stack(request: Request) -> Reply {
    let echo = |printed: &str| {
        write_line(&ChildLine::Printed(printed.to_string()));
    };
    let worker = std::thread::Builder::new()
        .name("calculator".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            evaluate_echoing(&request, Some(Box::new(echo)), |reply| {
                // Reply and exit before the snippet's values are dropped: a
                // million-deep nested list would overflow the stack freeing
                // itself, long after it printed the right answer.
                if write_line(&ChildLine::Reply(reply.clone())) {
                    std::process::exit(0);
                }
            })
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(reply)) => reply,
        Ok(Err(_)) => crashed("the interpreter panicked"),
        Err(_) => Reply {
            output: String::new(),
            error: Some(RunError {
                kind: ErrorKind::Memory,
                message: "could not start the interpreter within the memory limit".into(),
            }),
        },
    }
}

fn crashed(message: &str) -> Reply {
    Reply {
        output: String::new(),
        error: Some(RunError {
            kind: ErrorKind::Crashed,
            message: message.into(),
        }),
    }
}

/// Interprets one request in this process (no limits of its own: the
/// caller is the limited child, or a test).
pub fn evaluate(request: &Request) -> Reply {
    evaluate_echoing(request, None, |_| {})
}

/// Interprets `request`; `finish` sees the reply while the interpreter's
/// values are still alive (see `evaluate_on_big_stack`).
fn evaluate_echoing(request: &Request, echo: Option<Echo>, finish: impl FnOnce(&Reply)) -> Reply {
    if let Some(refused) = too_long(&request.code) {
        finish(&refused);
        return refused;
    }
    let mut interp = Interp::new(OUTPUT_LIMIT);
    interp.out.echo = echo;
    for (name, text) in &request.variables {
        if !is_identifier(name) {
            return failed(
                ErrorKind::Crashed,
                format!("variable name {name:?} is not an identifier"),
                String::new(),
            );
        }
        match json::parse(text) {
            Ok(v) => interp.set_global(name, v),
            Err(e) => {
                return failed(
                    ErrorKind::Crashed,
                    format!("variable {name} is not valid JSON: {e}"),
                    String::new(),
                )
            }
        }
    }
    let result = parse_program(&request.code).and_then(|program| interp.run(&program));
    let output = std::mem::take(&mut interp.out.text);
    let reply = match result {
        Ok(()) => Reply { output, error: None },
        Err(Raised::Exception(e)) if e.kind == REFUSED_IMPORT => {
            let at = e.line.map(|l| format!("line {l}: ")).unwrap_or_default();
            failed(ErrorKind::Refused, format!("{at}{}", e.message), output)
        }
        Err(Raised::Exception(e)) => {
            let at = match (e.line, &e.function) {
                (Some(l), Some(f)) => format!(" (line {l}, in {f})"),
                (Some(l), None) => format!(" (line {l})"),
                _ => String::new(),
            };
            let text = if e.message.is_empty() {
                format!("{}{at}", e.kind)
            } else {
                format!("{}: {}{at}", e.kind, e.message)
            };
            failed(ErrorKind::Runtime, text, output)
        }
        Err(Raised::Fault(f)) => match f {
            Fault::Refused(m) => failed(ErrorKind::Refused, m, output),
            Fault::Syntax(m) => failed(ErrorKind::Syntax, format!("SyntaxError: {m}"), output),
            Fault::Memory(m) => failed(ErrorKind::Memory, format!("MemoryError: {m}"), output),
            Fault::OutputFull => failed(
                ErrorKind::OutputTooLong,
                format!("output passed {} KiB and was cut there; print less (totals, or the first rows)", OUTPUT_LIMIT / 1024),
                output,
            ),
        },
    };
    finish(&reply);
    reply
}

/// The refusal of a snippet past [`CODE_CHARS`], naming the limit.
pub(crate) fn too_long(code: &str) -> Option<Reply> {
    let chars = code.chars().count();
    (chars > CODE_CHARS).then(|| {
        failed(
            ErrorKind::Refused,
            format!("the snippet is {chars} characters; the calculator runs at most {CODE_CHARS}, so send a shorter one"),
            String::new(),
        )
    })
}

fn failed(kind: ErrorKind, message: String, output: String) -> Reply {
    Reply {
        output,
        error: Some(RunError { kind, message }),
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
