//! The reference model served over the protocol, as a conforming
//! implementation that adapters and harnesses can be tested against, and,
//! with a [`Fault`], as a known-broken one that shows what `diff` catches.
//!
//! Each fault breaks one thing. The clause faults are written against the
//! reference outcome, the way a real runtime goes wrong; the process faults
//! break the protocol instead.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

use crate::judge::Clause;
use crate::model;
use crate::wire::{self, Case};

/// One seeded fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    /// Copies the artifact's own `tool_call_id` when it carries one.
    SpoofId,
    /// Passes every key of the tool's entry through.
    ExtraKeys,
    /// Loses the last artifact of every run.
    DropLast,
    /// Attributes every artifact to the first call.
    FirstCall,
    /// Exposes the port unless the author hid it.
    ExposedByDefault,
    /// Appends each artifact's payload strings to its call's prose.
    LeakPayload,
    /// Uses a result-level `content` decoy as the prose when there is one.
    DecoyProse,
    /// Mentions how many artifacts the call returned in its prose.
    CountInProse,
    /// Delivers nothing while the port is not exposed.
    HiddenDrops,
    /// Strips the `tool_artifacts` port from the outcome while it is hidden.
    StripHidden,
    /// Keeps entries whose `payload` is not an object.
    KeepMalformed,
    /// Keeps the artifacts of failed calls.
    KeepFailed,
    /// Exits after a few requests.
    Crash,
    /// Stops answering after a few requests.
    Hang,
    /// Prints a line that is not JSON after a few requests.
    Garbage,
    /// Answers with the wrong `seq`.
    WrongSeq,
    /// Never answers `start`.
    NoStart,
    /// Prints half a reply, then exits.
    PartialLine,
    /// Prints a 100 MB line.
    HugeLine,
    /// Writes 1 MB to stderr for every request, and answers correctly.
    StderrFlood,
    /// Prints each reply twice.
    ExtraLines,
}

impl Fault {
    /// The clause a fault breaks, or `None` for a fault of the process.
    pub fn clause(self) -> Option<Clause> {
        use Fault::*;
        match self {
            SpoofId | ExtraKeys | DropLast | FirstCall => Some(Clause::KeyByKey),
            ExposedByDefault => Some(Clause::NotExposedByDefault),
            LeakPayload | DecoyProse | CountInProse => Some(Clause::ProseFromData),
            HiddenDrops | StripHidden => Some(Clause::DeliveryRegardless),
            KeepMalformed | KeepFailed => Some(Clause::Filter),
            Crash | Hang | Garbage | WrongSeq | NoStart | PartialLine | HugeLine | StderrFlood
            | ExtraLines => None,
        }
    }
}

/// After how many requests a process fault strikes.
const STRIKE: u64 = 4;

/// How a server behaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// The seeded fault, if any.
    pub fault: Option<Fault>,
    /// A pause before each reply, to stand in for a slow implementation.
    pub delay: std::time::Duration,
}

/// Serves the protocol on `input` and `output` until `stop` or end of input.
pub fn serve(input: impl BufRead, mut output: impl Write, settings: Settings) -> io::Result<()> {
    let fault = settings.fault;
    let mut runs = 0u64;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = match wire::parse(line.as_bytes()) {
            Ok(request) => request,
            Err(e) => {
                writeln!(
                    output,
                    "{}",
                    json!({"errored": true, "message": format!("not a request: {e}")})
                )?;
                output.flush()?;
                continue;
            }
        };
        let reply = match request.get("cmd").and_then(Value::as_str) {
            Some("start") if fault == Some(Fault::NoStart) => continue,
            Some("start") => json!({"ready": true, "version": crate::harness::PROTOCOL_VERSION,
                "implementation": {"name": "rt-tool-3 serve", "language": "rust",
                    "version": env!("CARGO_PKG_VERSION"), "fault": fault.map(|f| format!("{f:?}"))}}),
            Some("stop") => return Ok(()),
            Some("run") => {
                runs += 1;
                std::thread::sleep(settings.delay);
                let seq = request.get("seq").cloned().unwrap_or(Value::Null);
                if let Some(done) = process_fault(fault, runs, &seq, &mut output)? {
                    return done;
                }
                let seq = if fault == Some(Fault::WrongSeq) {
                    json!(seq.as_u64().unwrap_or(0) + 1)
                } else {
                    seq
                };
                match request
                    .get("case")
                    .map(|c| wire::parse::<Case>(c.to_string().as_bytes()))
                {
                    Some(Ok(case)) => json!({"seq": seq, "outcome": outcome(&case, fault)}),
                    Some(Err(e)) => json!({"seq": seq, "errored": true, "message": e.to_string()}),
                    None => json!({"seq": seq, "errored": true, "message": "no case"}),
                }
            }
            _ => json!({"errored": true, "message": "unknown command"}),
        };
        let mut text = reply.to_string();
        text.push('\n');
        if fault == Some(Fault::ExtraLines) {
            text = text.repeat(2);
        }
        output.write_all(text.as_bytes())?;
        output.flush()?;
    }
    Ok(())
}

/// Strikes with a process fault when its time has come. `Some` ends serving.
fn process_fault(
    fault: Option<Fault>,
    runs: u64,
    seq: &Value,
    output: &mut impl Write,
) -> io::Result<Option<io::Result<()>>> {
    if fault == Some(Fault::StderrFlood) {
        let mut err = io::stderr().lock();
        let chunk = [b'!'; 1024];
        for _ in 0..1024 {
            err.write_all(&chunk)?;
        }
    }
    if runs < STRIKE {
        return Ok(None);
    }
    match fault {
        Some(Fault::Crash) => std::process::exit(3),
        Some(Fault::Hang) => loop {
            std::thread::park();
        },
        Some(Fault::Garbage) => {
            output.write_all(b"Traceback (most recent call last): not json\n")?;
            output.flush()?;
            Ok(None)
        }
        Some(Fault::PartialLine) => {
            write!(output, "{{\"seq\":{seq},\"outcome\":{{\"messa")?;
            output.flush()?;
            Ok(Some(Ok(())))
        }
        Some(Fault::HugeLine) => {
            let chunk = [b' '; 1 << 20];
            for _ in 0..100 {
                output.write_all(&chunk)?;
            }
            output.write_all(b"\n")?;
            output.flush()?;
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// The reference outcome, broken by a clause fault.
pub fn outcome(case: &Case, fault: Option<Fault>) -> Value {
    let mut outcome = model::outcome(case);
    let hidden = !outcome.exposed;
    match fault {
        Some(Fault::ExposedByDefault) => outcome.exposed = case.exposed.unwrap_or(true),
        Some(Fault::DropLast) => {
            outcome.tool_artifacts.pop();
        }
        Some(Fault::FirstCall) => {
            if let Some(first) = case.calls.first() {
                for a in &mut outcome.tool_artifacts {
                    a.tool_call_id = first.tool_call_id.clone();
                }
            }
        }
        Some(Fault::HiddenDrops) if hidden => outcome.tool_artifacts.clear(),
        _ => {}
    }
    let mut value = serde_json::to_value(&outcome).unwrap_or(Value::Null);
    let entries = || {
        case.calls.iter().flat_map(|call| {
            let ok = call.result.get("success") == Some(&Value::Bool(true));
            let entries = match call.result.get("artifacts") {
                Some(Value::Array(a)) if ok => a.as_slice(),
                _ => &[],
            };
            entries
                .iter()
                .filter(|e| model::well_formed(e).is_some())
                .map(move |e| (call, e))
        })
    };
    match fault {
        Some(f @ (Fault::SpoofId | Fault::ExtraKeys)) => {
            for ((_, entry), out) in
                entries().zip(value["tool_artifacts"].as_array_mut().into_iter().flatten())
            {
                for (k, v) in entry.as_object().into_iter().flatten() {
                    if f == Fault::ExtraKeys || (k == "tool_call_id" && v.is_string()) {
                        out[k] = v.clone();
                    }
                }
            }
        }
        Some(Fault::LeakPayload) => {
            let mut leaks = vec![String::new(); case.calls.len()];
            for (call, entry) in entries() {
                let i = case
                    .calls
                    .iter()
                    .position(|c| c.tool_call_id == call.tool_call_id)
                    .unwrap_or(0);
                if let Some(Value::Object(p)) = entry.get("payload") {
                    for v in p.values().filter_map(Value::as_str) {
                        leaks[i].push(' ');
                        leaks[i].push_str(v);
                    }
                }
            }
            for (m, leak) in value["messages"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(leaks)
            {
                let content = format!("{}{leak}", m["content"].as_str().unwrap_or_default());
                m["content"] = Value::String(content);
            }
        }
        Some(Fault::DecoyProse) => {
            for (m, call) in value["messages"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(&case.calls)
            {
                if let Some(Value::String(decoy)) = call.result.get("content") {
                    m["content"] = Value::String(decoy.clone());
                }
            }
        }
        Some(Fault::CountInProse) => {
            for (m, call) in value["messages"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(&case.calls)
            {
                if let Some(Value::Array(a)) = call
                    .result
                    .get("artifacts")
                    .filter(|a| a.as_array().is_some_and(|a| !a.is_empty()))
                {
                    let content = format!(
                        "{} ({} artifacts)",
                        m["content"].as_str().unwrap_or_default(),
                        a.len()
                    );
                    m["content"] = Value::String(content);
                }
            }
        }
        Some(Fault::StripHidden) if hidden => {
            if let Value::Object(o) = &mut value {
                o.remove("tool_artifacts");
            }
        }
        Some(f @ (Fault::KeepMalformed | Fault::KeepFailed)) => {
            let mut extra = Vec::new();
            for call in &case.calls {
                let failed = call.result.get("success") == Some(&Value::Bool(false));
                let Some(Value::Array(entries)) = call.result.get("artifacts") else {
                    continue;
                };
                for e in entries {
                    let kept = match f {
                        Fault::KeepMalformed => {
                            !failed
                                && model::well_formed(e).is_none()
                                && e.get("type").is_some_and(Value::is_string)
                                && e.get("payload").is_some()
                        }
                        _ => failed && model::well_formed(e).is_some(),
                    };
                    if kept {
                        extra.push(json!({"type": e["type"], "payload": e["payload"], "tool_call_id": call.tool_call_id}));
                    }
                }
            }
            if let Some(list) = value["tool_artifacts"].as_array_mut() {
                list.extend(extra);
            }
        }
        _ => {}
    }
    value
}
