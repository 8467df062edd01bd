//! What every test binary shares: the binary under test, a fresh temporary
//! directory for a test, and a process run under a watchdog. Each binary's
//! `main.rs` takes this module in with `#[path = "../support/mod.rs"]`.

// Each binary uses only some of these.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `rt-tool-3` binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_rt-tool-3");

/// A fresh directory `rt-tool-3-NAME-PID` under the system's temporary
/// directory, created. Tests write only there or under `target/`; each
/// removes its own when it is done with it.
pub fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rt-tool-3-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Waits for `child`, reading its stdout and stderr (where piped) on
/// threads of their own so that neither pipe fills. A child still running
/// after `limit` is killed and the test fails naming `what`: a stuck oracle
/// must show up as a failure, not as a stuck test suite.
pub fn watch(mut child: Child, limit: Duration, what: &str) -> Output {
    let started = Instant::now();
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    }
}

/// `rt-tool-3 serve ARGS` given `lines` on stdin (after which stdin is
/// closed): its exit, stdout and stderr.
pub fn serve(args: &[&str], lines: &[u8]) -> Output {
    run(&[&["serve"], args].concat(), lines)
}

/// `rt-tool-3 ARGS` given `stdin`, which is written on a thread of its own
/// (the binary may refuse early and close its end: that is not a failure).
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary ends");
    writer.join().expect("the writer ends");
    out
}
