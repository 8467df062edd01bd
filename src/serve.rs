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
    /// Feeds each call the prose of the next call's `data` (results paired
    /// to calls by position after parallel calls finish out of order).
    SwapProse,
    /// Appends a successful call's `error` to its prose.
    ErrorInProse,
    /// Appends a failed call's `error` to its prose: passes the default
    /// reading of ¶3, breaks its letter (`--prose letter`).
    FailedErrorProse,
    /// Renders `data` with RT-TOOL-2's reserved `artifacts` key left in.
    ReservedInProse,
    /// Delivers the artifacts of a call whose `success` is truthy the way
    /// JavaScript reads it (`"false"`, `"yes"`, `1`), not only `true`.
    TruthySuccess,
    /// Takes the entry's `tool_call_id` from the payload's own top-level
    /// `tool_call_id` when it has one (a payload spread into the entry).
    PayloadId,
    /// Delivers nothing once a run keeps more than 50 artifacts, where
    /// RT-TOOL-6 keeps the first 50.
    DropOverCount,
    /// Errors on a run over RT-TOOL-6's floors, where the run is not failed.
    ErrorOverFloors,
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
            SpoofId | ExtraKeys | DropLast | FirstCall | PayloadId => Some(Clause::KeyByKey),
            ExposedByDefault => Some(Clause::NotExposedByDefault),
            LeakPayload | DecoyProse | CountInProse | SwapProse | ErrorInProse
            | FailedErrorProse | ReservedInProse => Some(Clause::ProseFromData),
            HiddenDrops | StripHidden => Some(Clause::DeliveryRegardless),
            KeepMalformed | KeepFailed | TruthySuccess => Some(Clause::Filter),
            DropOverCount | ErrorOverFloors => Some(Clause::Bounds),
            Crash | Hang | Garbage | WrongSeq | NoStart | PartialLine | HugeLine | StderrFlood
            | ExtraLines => None,
        }
    }
}

/// At which request a process fault strikes, unless told otherwise.
pub const STRIKE: u64 = 4;

/// A conforming variant: another way to meet the rule than the reference's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// Lifts the well-formed entries under RT-TOOL-2's reserved `artifacts`
    /// key of a successful call's `data` onto the port, key by key, with the
    /// call's id (the reference drops them; both are accepted).
    Lift,
}

/// How a server behaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// The seeded fault, if any.
    pub fault: Option<Fault>,
    /// A conforming variant, if any.
    pub variant: Option<Variant>,
    /// At which `run` request a process fault strikes (the first is 1);
    /// 0 means [`STRIKE`].
    pub strike: u64,
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
                    "version": env!("CARGO_PKG_VERSION"), "fault": fault.map(|f| format!("{f:?}")),
                    "variant": settings.variant.map(|v| format!("{v:?}"))}}),
            Some("stop") => return Ok(()),
            Some("run") => {
                runs += 1;
                std::thread::sleep(settings.delay);
                let seq = request.get("seq").cloned().unwrap_or(Value::Null);
                let strike = if settings.strike == 0 {
                    STRIKE
                } else {
                    settings.strike
                };
                if let Some(done) = process_fault(fault, runs >= strike, &seq, &mut output)? {
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
                    Some(Ok(case))
                        if fault == Some(Fault::ErrorOverFloors)
                            && !model::floor_reasons(&case, &model::encoded_len).is_empty() =>
                    {
                        json!({"seq": seq, "errored": true, "message": "the run is over its artifact bounds"})
                    }
                    Some(Ok(case)) => {
                        let mut outcome = outcome(&case, fault);
                        if settings.variant == Some(Variant::Lift) {
                            lift(&case, &mut outcome);
                        }
                        json!({"seq": seq, "outcome": outcome})
                    }
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
    struck: bool,
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
    if !struck {
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
        Some(Fault::SwapProse) if case.calls.len() > 1 => {
            let n = case.calls.len();
            for (i, m) in value["messages"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .enumerate()
            {
                m["content"] = model::clause_3_prose(&case.calls[(i + 1) % n])
                    .content
                    .into();
            }
        }
        Some(f @ (Fault::ErrorInProse | Fault::FailedErrorProse | Fault::ReservedInProse)) => {
            for (m, call) in value["messages"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(&case.calls)
            {
                let succeeded = call.result.get("success") == Some(&Value::Bool(true));
                let content = m["content"].as_str().unwrap_or_default().to_owned();
                let more = match (f, call.result.get("error"), call.result.get("data")) {
                    (Fault::ErrorInProse, Some(Value::String(e)), _) if succeeded => e.clone(),
                    (Fault::FailedErrorProse, Some(Value::String(e)), _) if !succeeded => e.clone(),
                    (Fault::ReservedInProse, _, Some(data))
                        if data.get(model::RESERVED_KEY).is_some() =>
                    {
                        model::sorted_compact_json(&data[model::RESERVED_KEY])
                    }
                    _ => continue,
                };
                m["content"] = format!("{content} {more}").into();
            }
        }
        Some(Fault::TruthySuccess) => {
            let truthy = |v: Option<&Value>| match v {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => !s.is_empty(),
                Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
                Some(Value::Array(_) | Value::Object(_)) => true,
                Some(Value::Null) | None => false,
            };
            let mut extra = Vec::new();
            for call in &case.calls {
                if call.result.get("success") == Some(&Value::Bool(true))
                    || !truthy(call.result.get("success"))
                {
                    continue;
                }
                if let Some(Value::Array(entries)) = call.result.get("artifacts") {
                    for (k, p) in entries.iter().filter_map(model::well_formed) {
                        extra.push(
                            json!({"type": k, "payload": p, "tool_call_id": call.tool_call_id}),
                        );
                    }
                }
            }
            if let Some(list) = value["tool_artifacts"].as_array_mut() {
                list.extend(extra);
            }
        }
        Some(Fault::PayloadId) => {
            for ((_, entry), out) in
                entries().zip(value["tool_artifacts"].as_array_mut().into_iter().flatten())
            {
                if let Some(Value::String(id)) = entry["payload"].get("tool_call_id") {
                    out["tool_call_id"] = id.clone().into();
                }
            }
        }
        Some(Fault::DropOverCount) => {
            if let Some(list) = value["tool_artifacts"].as_array_mut() {
                if list.len() > model::floors::ARTIFACTS {
                    list.clear();
                }
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

/// The [`Variant::Lift`] of an outcome: each successful call's well-formed
/// entries under the reserved key of its `data`, lifted onto the port.
fn lift(case: &Case, outcome: &mut Value) {
    let mut lifted = Vec::new();
    for call in &case.calls {
        if call.result.get("success") != Some(&Value::Bool(true)) {
            continue;
        }
        let reserved = call
            .result
            .get("data")
            .filter(|d| d.is_object())
            .and_then(|d| d.get(model::RESERVED_KEY));
        if let Some(Value::Array(entries)) = reserved {
            for (k, p) in entries.iter().filter_map(model::well_formed) {
                lifted.push(json!({"type": k, "payload": p, "tool_call_id": call.tool_call_id}));
            }
        }
    }
    if let Some(list) = outcome["tool_artifacts"].as_array_mut() {
        list.extend(lifted);
    }
}
