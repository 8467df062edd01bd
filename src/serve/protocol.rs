//! The protocol served: requests read, each answered with the outcome the
//! fault or the variant makes of the reference's, or broken the way a
//! process fault breaks it, and each reply written as its text.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

use super::outcome::outcome;
use super::space;
use super::variant::{escaped, vary};
use super::{Fault, Variant, STRIKE};
use crate::model;
use crate::wire::{self, Case};

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
///
/// A request line and a reply are read into and written from buffers kept
/// across requests: a request of a case over RT-TOOL-6's floors is a
/// megabyte or more, and a fresh buffer for each one cost as much again in
/// pages the kernel zeroes.
pub fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    settings: Settings,
) -> io::Result<()> {
    let mut server = Server {
        settings,
        runs: 0,
        remembered: false,
        memory: space::Memory::default(),
    };
    let (mut line, mut text) = (Vec::new(), Vec::new());
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if blank(&line) {
            continue;
        }
        let request = match Request::read(&line)? {
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
        let reply = match server.answer(request, &mut output)? {
            Answer::Reply(reply) => reply,
            Answer::Nothing => continue,
            Answer::End(done) => return done,
        };
        server.write(reply, &mut text);
        output.write_all(&text)?;
        output.flush()?;
    }
    Ok(())
}

/// A server between requests: how it behaves, and what it keeps from one
/// request to the next.
struct Server {
    /// How it behaves.
    settings: Settings,
    /// The `run` requests so far.
    runs: u64,
    /// The last explicit exposure, for [`Fault::StickyExposure`].
    remembered: bool,
    /// What a fault that keeps state remembers from one run to the next.
    memory: space::Memory,
}

/// What a server does with a request.
enum Answer {
    /// It writes this reply.
    Reply(Reply),
    /// It writes nothing (`start`, under [`Fault::NoStart`]).
    Nothing,
    /// It stops serving, with this result (`stop`, or a process fault).
    End(io::Result<()>),
}

impl Server {
    /// The answer to `request`; a process fault may write to `output`
    /// first.
    fn answer(&mut self, request: Request, output: &mut impl Write) -> io::Result<Answer> {
        let (fault, settings) = (self.settings.fault, &self.settings);
        let reply: Reply = match request.cmd.as_deref() {
            Some("start") if fault == Some(Fault::NoStart) => return Ok(Answer::Nothing),
            Some("start") => json!({"ready": true, "version": crate::harness::PROTOCOL_VERSION,
                "implementation": {"name": announced(settings), "language": "rust",
                    "version": env!("CARGO_PKG_VERSION"), "fault": fault.map(|f| format!("{f:?}")),
                    "variant": settings.variant.map(|v| format!("{v:?}"))}})
            .into(),
            Some("stop") => return Ok(Answer::End(Ok(()))),
            Some("run") => return self.run(request, output),
            _ => json!({"errored": true, "message": "unknown command"}).into(),
        };
        Ok(Answer::Reply(reply))
    }

    /// The answer to a `run` request: after the delay, the process fault
    /// if its time has come, else the reply to its case.
    fn run(&mut self, request: Request, output: &mut impl Write) -> io::Result<Answer> {
        let fault = self.settings.fault;
        self.runs += 1;
        std::thread::sleep(self.settings.delay);
        let seq = request.seq;
        let strike = if self.settings.strike == 0 {
            STRIKE
        } else {
            self.settings.strike
        };
        if let Some(done) = process_fault(fault, self.runs >= strike, &seq, output)? {
            return Ok(Answer::End(done));
        }
        let seq = if fault == Some(Fault::WrongSeq) {
            json!(seq.as_u64().unwrap_or(0) + 1)
        } else {
            seq
        };
        let reply = match request.case {
            Some(Ok(case))
                if fault == Some(Fault::ErrorOverFloors)
                    && !model::floor_reasons(&case, &|p| model::encoded_len(p)).is_empty() =>
            {
                json!({"seq": seq, "errored": true, "message": "the run is over its artifact bounds"})
                .into()
            }
            Some(Ok(case)) if fault.is_none() && self.settings.variant.is_none() => {
                Reply::Outcome(seq, model::outcome(&case))
            }
            Some(Ok(case)) => json!({"seq": seq, "outcome": self.served(&case)}).into(),
            Some(Err(e)) => json!({"seq": seq, "errored": true, "message": e.to_string()}).into(),
            None => json!({"seq": seq, "errored": true, "message": "no case"}).into(),
        };
        Ok(Answer::Reply(reply))
    }

    /// The outcome served for `case` under a fault or a variant: the
    /// reference's, broken by the fault (with what it remembers), then met
    /// another way by the variant.
    fn served(&mut self, case: &Case) -> Value {
        let fault = self.settings.fault;
        let mut outcome = match fault {
            Some(f) if space::stateful(f) => {
                let mut outcome = outcome(case, None);
                space::broken(case, f, &mut outcome, &mut self.memory);
                outcome
            }
            _ => outcome(case, fault),
        };
        if fault == Some(Fault::StickyExposure) {
            match case.exposed {
                Some(choice) => self.remembered = choice,
                None => outcome["exposed"] = self.remembered.into(),
            }
        }
        if let Some(variant) = self.settings.variant {
            vary(case, variant, &mut outcome);
        }
        outcome
    }

    /// The text of `reply` in `text`, a line (twice, under
    /// [`Fault::ExtraLines`]): escaped by an escaping variant, cut by
    /// [`Fault::SplitSurrogate`], or as it is.
    fn write(&self, reply: Reply, text: &mut Vec<u8>) {
        let fault = self.settings.fault;
        text.clear();
        match (self.settings.variant, reply) {
            (Some(Variant::EscapeNonAscii), reply) => text.extend_from_slice(
                escaped(&reply.into_value().to_string(), |c| !c.is_ascii()).as_bytes(),
            ),
            (Some(Variant::EscapeAll), reply) => text
                .extend_from_slice(escaped(&reply.into_value().to_string(), |_| true).as_bytes()),
            (_, reply) if fault == Some(Fault::SplitSurrogate) => {
                text.extend_from_slice(split_surrogates(&reply.into_value()).as_bytes());
            }
            (variant, reply) => {
                if variant == Some(Variant::ChattyStderr) {
                    eprintln!("rt-tool-3 serve: answered request {}", self.runs);
                }
                reply.write(text);
            }
        }
        text.push(b'\n');
        if fault == Some(Fault::ExtraLines) {
            *text = text.repeat(2);
        }
    }
}

/// The name `serve` announces in its `start` reply: `rt-tool-3 serve`, with
/// the fault and the variant it was started with (`rt-tool-3 serve --fault
/// spoof-id`), so that runs against different ones can be told apart in a
/// report that compares them.
fn announced(settings: &Settings) -> String {
    use clap::ValueEnum;
    let mut name = String::from("rt-tool-3 serve");
    let flags = [
        ("fault", settings.fault.and_then(|f| f.to_possible_value())),
        (
            "variant",
            settings.variant.and_then(|v| v.to_possible_value()),
        ),
    ];
    for (flag, value) in flags {
        if let Some(value) = value {
            name.push_str(&format!(" --{flag} {}", value.get_name()));
        }
    }
    name
}

/// Whether a request line holds nothing but whitespace (it is passed
/// over). A request starts with `{`, which settles it at once; any other
/// line is looked at as text.
fn blank(line: &[u8]) -> bool {
    match line.trim_ascii_start().first() {
        None => true,
        Some(b'{') => false,
        Some(_) => std::str::from_utf8(line).is_ok_and(|s| s.trim().is_empty()),
    }
}

/// A request, read: its `cmd` if that is a string, its `seq` (`null` if
/// it has none) and its `case`, if it has one, parsed or refused.
struct Request {
    cmd: Option<String>,
    seq: Value,
    case: Option<Result<Case, wire::Refusal>>,
}

impl Request {
    /// Reads a request line: `Ok(Err(_))` if it is not JSON, an error if
    /// it is not UTF-8 (serving ends, as it always has).
    ///
    /// A request of `diff`'s own shape (an object of `cmd`, `seq` and
    /// `case`, each once, and a case [`Case::from_json`] takes) is read in
    /// one pass, the case straight from the line. Any other line is read
    /// the long way, as a JSON value whose `case` is written out and parsed
    /// again, so that whatever that way answers (a repeated field inside
    /// the case taken at its last value, where the error in a refused case
    /// is) stays as it was; the one pass only gives the same request
    /// sooner. It is taken only when every byte of the line was read
    /// (every string decoded, so checked as UTF-8) and nothing is nested
    /// deeper than [`wire::MAX_DEPTH`].
    fn read(line: &[u8]) -> io::Result<Result<Request, wire::Refusal>> {
        if let Some(request) = Self::read_direct(line) {
            return Ok(Ok(request));
        }
        let Ok(line) = std::str::from_utf8(line) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ));
        };
        Ok(wire::parse_value(line.as_bytes()).map(|request| Request {
            cmd: request
                .get("cmd")
                .and_then(Value::as_str)
                .map(str::to_owned),
            seq: request.get("seq").cloned().unwrap_or(Value::Null),
            case: request
                .get("case")
                .map(|c| wire::parse::<Case>(c.to_string().as_bytes())),
        }))
    }

    /// The one pass of [`Request::read`]: `None` unless the line is of
    /// `diff`'s own shape.
    fn read_direct(line: &[u8]) -> Option<Request> {
        use serde::de::{Deserializer, MapAccess, Visitor};
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = (Option<Value>, Option<Value>, Option<Case>);
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a request of cmd, seq and case")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut cmd, mut seq, mut case) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    let repeated = match key.as_str() {
                        "cmd" => cmd.replace(map.next_value::<wire::Json>()?.0).is_some(),
                        "seq" => seq.replace(map.next_value::<wire::Json>()?.0).is_some(),
                        "case" => case.replace(map.next_value::<Case>()?).is_some(),
                        _ => true,
                    };
                    if repeated {
                        return Err(serde::de::Error::custom("not of diff's shape"));
                    }
                }
                Ok((cmd, seq, case))
            }
        }
        if !wire::within_depth(line) {
            return None;
        }
        let mut de = serde_json::Deserializer::from_slice(line);
        de.disable_recursion_limit();
        let (cmd, seq, case) = de.deserialize_map(Fields).ok()?;
        de.end().ok()?;
        Some(Request {
            cmd: cmd.as_ref().and_then(Value::as_str).map(str::to_owned),
            seq: seq.unwrap_or(Value::Null),
            case: case.map(Ok),
        })
    }
}

/// A reply: any JSON value, or the reference outcome of a request, kept as
/// the model gives it and written straight as JSON (the bytes the value
/// `{"seq": …, "outcome": …}` is written as), not copied into a value
/// first: its payloads are most of the bytes `serve` writes.
enum Reply {
    Json(Value),
    Outcome(Value, wire::Outcome),
}

impl From<Value> for Reply {
    fn from(value: Value) -> Reply {
        Reply::Json(value)
    }
}

impl Reply {
    /// The reply as one JSON value.
    fn into_value(self) -> Value {
        match self {
            Reply::Json(value) => value,
            Reply::Outcome(seq, outcome) => json!({"seq": seq, "outcome": outcome}),
        }
    }

    /// Appends the reply to `out` as compact JSON.
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Reply::Json(value) => wire::write_value(out, value),
            Reply::Outcome(seq, outcome) => {
                out.extend_from_slice(b"{\"seq\":");
                wire::write_value(out, seq);
                out.extend_from_slice(b",\"outcome\":");
                outcome.write_json(out);
                out.push(b'}');
            }
        }
    }
}

/// The text of `reply` with each prose that holds a character outside the
/// Basic Multilingual Plane cut between the halves of the first one's
/// surrogate pair ([`Fault::SplitSurrogate`]). serde_json writes no lone
/// surrogate, so the cut prose ends in a placeholder, and the placeholder
/// with the string's closing quote becomes the escape of the high half.
fn split_surrogates(reply: &Value) -> String {
    let mut reply = reply.clone();
    let mut cuts = Vec::new();
    let messages = reply
        .get_mut("outcome")
        .and_then(|o| o.get_mut("messages"))
        .and_then(Value::as_array_mut);
    for m in messages.into_iter().flatten() {
        let Some(content) = m.get("content").and_then(Value::as_str) else {
            continue;
        };
        let Some((at, c)) = content.char_indices().find(|(_, c)| c.len_utf16() == 2) else {
            continue;
        };
        let mut halves = [0u16; 2];
        c.encode_utf16(&mut halves);
        let placeholder = format!("\u{fdd1}cut {}\u{fdd1}\"", cuts.len());
        let cut = format!("{}{}", &content[..at], placeholder.trim_end_matches('"'));
        m["content"] = Value::String(cut);
        cuts.push((placeholder, halves[0]));
    }
    let mut text = reply.to_string();
    for (placeholder, high) in cuts {
        text = text.replacen(&placeholder, &format!("\\u{high:04x}\""), 1);
    }
    text
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
