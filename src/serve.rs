//! The reference model served over the protocol, as a conforming
//! implementation that adapters and harnesses can be tested against, and,
//! with a [`Fault`], as a known-broken one that shows what `diff` catches.
//!
//! Each fault breaks one thing. The clause faults are written against the
//! reference outcome, the way a real runtime goes wrong; the process faults
//! break the protocol instead.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

use crate::judge::{Clause, Code};
use crate::model;
use crate::wire::{self, Case};

mod space;
pub use space::{ATTACHMENT_KEYS, ERROR_FLAG_KEYS, EXPOSURE_KEYS, META_KEYS, TEXT_KEYS};

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
    /// Drops the artifacts made to be seen (`image`, `file`, `chart`)
    /// while the port is hidden, "since no one will see them", and
    /// delivers the rest: delivery that depends on the exposure through
    /// the content (breaks `RT-TOOL-3 ¶4`; a sibling with other content
    /// delivers every artifact while hidden, so only a sibling that
    /// changes the exposure alone names it).
    HiddenDropsMedia,
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
    /// Takes the entry's `tool_call_id` from a string `tool_call_id` at the
    /// top level of the call's result: a tool that answers with a message
    /// envelope of its own, passed through (breaks `RT-TOOL-3 ¶1`; mirrors
    /// langchain-ai/langgraph#7989, a tool's own `ToolMessage` bound to a
    /// sibling's id).
    ResultId,
    /// Takes the entry's `tool_call_id` from a string `tool_call_id` at the
    /// top level of the call's `data` (the data merged into each entry's
    /// metadata; breaks `RT-TOOL-3 ¶1`).
    DataId,
    /// Takes the entry's `tool_call_id` from the first string
    /// `tool_call_id` anywhere in the payload, however deep (a recursive
    /// `$..tool_call_id` lookup, or a deep merge of the payload into the
    /// entry; breaks `RT-TOOL-3 ¶1`).
    DeepId,
    /// Takes the entry's `tool_call_id` from the entry's own `toolCallId`,
    /// the camelCase spelling of TypeScript SDKs, when it is a string
    /// (breaks `RT-TOOL-3 ¶1`).
    CamelCaseId,
    /// Attributes every artifact to the last call: ids kept in a map keyed
    /// by tool name, or a closure that captured the loop variable (breaks
    /// `RT-TOOL-3 ¶1`; mirrors cline/cline#8036, results tracked by tool
    /// name, where each call overwrote the one before).
    LastCallId,
    /// Reads the entry's `type` and `payload` case-insensitively, the last
    /// spelling winning (`Type`, `PAYLOAD`), as a case-insensitive map does
    /// (breaks `RT-TOOL-3 ¶1`).
    CaseInsensitiveKeys,
    /// Lowercases `type` ("cleaning up" a kind as if it were a MIME type;
    /// breaks `RT-TOOL-3 ¶1`).
    LowercaseType,
    /// Trims whitespace off `type` ("cleaning up" a kind; breaks
    /// `RT-TOOL-3 ¶1`).
    TrimType,
    /// Drops every null-valued key from the payload, at any depth
    /// (pydantic's `exclude_none`, Go's `omitempty`; breaks `RT-TOOL-3 ¶1`).
    DropNullKeys,
    /// Drops an artifact whose payload is the empty object (a falsy test,
    /// `if artifact["payload"]:`; breaks `RT-TOOL-3 ¶1`).
    DropEmptyPayload,
    /// Turns an empty object nested in the payload into an empty array:
    /// PHP's `json_decode($json, true)` with only the top level cast back
    /// to an object (breaks `RT-TOOL-3 ¶1`; mirrors
    /// mpociot/laravel-apidoc-generator#821, `{"foo":{}}` read back as
    /// `{"foo":[]}`, and nextcloud/integration_openai#243).
    EmptyObjectAsArray,
    /// Parses every payload string that is itself valid JSON (`"0"`,
    /// `"true"`, `"null"`, `"[1]"`) into the value it spells (breaks
    /// `RT-TOOL-3 ¶1`; mirrors kenneth-liao/mcp-launchpad#24, which
    /// auto-parses JSON strings in MCP tool output).
    ParseJsonStrings,
    /// Removes `__proto__` and `constructor` keys from the payload, at any
    /// depth, as a prototype-pollution-safe parser does (breaks
    /// `RT-TOOL-3 ¶1`; mirrors ton-js/json-parser#2, where such a parser
    /// turns `{"__proto__": 1}` into `{}`).
    StripProtoKeys,
    /// Writes an integer beyond 32 bits as a string, as protobuf's JSON
    /// mapping writes an int64 (breaks `RT-TOOL-3 ¶1`).
    Int64AsString,
    /// Drops an artifact whose payload `url` the call's prose already
    /// carries ("the link is in the message already"; breaks
    /// `RT-TOOL-3 ¶1`).
    DropUrlInData,
    /// Drops an artifact equal to one an earlier call of the run delivered
    /// (attachments de-duplicated across tool messages; breaks
    /// `RT-TOOL-3 ¶1`).
    DedupeAcrossCalls,
    /// Reads an `artifacts` that is a string holding a JSON list as that
    /// list, and keeps its entries (breaks `RT-TOOL-3 ¶1`: nothing but the
    /// call's artifacts lands).
    ParseArtifactsString,
    /// Exposes the port when the author made no choice and the run
    /// delivers artifacts ("show it when there is something to show";
    /// breaks `RT-TOOL-3 ¶2`).
    ExposeWithArtifacts,
    /// Never exposes the port, whatever the author chose (the artifacts
    /// channel taken for a system channel no one sees; breaks
    /// `RT-TOOL-3 ¶2`, which the author's choice overrides, EXPO-2).
    AlwaysHidden,
    /// Remembers the last explicit exposure and applies it to later runs
    /// that make no choice (state shared across invocations, a mutable
    /// default; breaks `RT-TOOL-3 ¶2`).
    StickyExposure,
    /// Feeds the model the whole result as JSON, artifacts included
    /// (breaks `RT-TOOL-3 ¶3`; mirrors LibreChat-AI/agents#16, artifacts
    /// sent to the LLM).
    StringifyResult,
    /// Feeds the model the result as JSON less its `artifacts` key, so its
    /// decoys and `error` go with it (breaks `RT-TOOL-3 ¶3`).
    ResultMinusArtifacts,
    /// Builds the prose from the artifacts' payload strings when `data` is
    /// null, absent or empty (a fallback "so the model sees something";
    /// breaks `RT-TOOL-3 ¶3`).
    ArtifactsWhenEmpty,
    /// Gives every call the prose of all calls, joined (parallel results
    /// batched into one message; breaks `RT-TOOL-3 ¶3`).
    MergedProse,
    /// Appends `[resource link: URL]` to the prose for each kept artifact
    /// whose payload has a string `url` (breaks `RT-TOOL-3 ¶3`; mirrors
    /// stacklok/mecatl#223, whose `flattenContent` writes MCP resource
    /// links into the text the model reads).
    ResourceLinkProse,
    /// Delivers nothing when the author hid the port (`exposed: false`),
    /// but delivers when the author made no choice (breaks `RT-TOOL-3 ¶4`).
    DropWhenAuthorHides,
    /// Delivers nothing until the author decides (`exposed` null): delivery
    /// waits on an exposure decision (breaks `RT-TOOL-3 ¶4`).
    DropWhenUndecided,
    /// Keeps an entry whose `type` is the empty string (a `typeof type ===
    /// "string"` test; breaks `RT-TOOL-2`, RT-TOOL-6 refusing an empty
    /// `type`).
    KeepEmptyType,
    /// Keeps an entry whose payload is an array or null, which JavaScript's
    /// `typeof payload === "object"` admits (breaks `RT-TOOL-2`).
    TypeofObject,
    /// Takes a call for failed only when it carries an `error`, so a
    /// `success: false` without one delivers (breaks `RT-TOOL-2`; mirrors
    /// AIPexStudio/AIPex#234, `success: false` payloads reported as
    /// completed calls).
    ErrorMeansFailure,
    /// Lifts every entry under the reserved `artifacts` key of a successful
    /// call's `data` that has a `type` and a `payload`, without RT-TOOL-2's
    /// test of them (breaks `RT-TOOL-2`).
    LiftUnfiltered,
    /// Stops collecting at the first artifact over RT-TOOL-6's 512,000-byte
    /// floor, where a drop is per artifact and a later one that fits is
    /// still kept (a `break` for a `continue`; breaks `RT-TOOL-6`).
    StopAtOversize,
    /// Appends the JSON of a result's metadata object (`_meta`, MCP's
    /// spelling, or `meta`, `metadata`) to its call's prose (breaks
    /// `RT-TOOL-3 ¶3`: metadata is not `data`).
    MetaProse,
    /// Appends a result's text under other frameworks' keys (`text`,
    /// `output`, `summary`, `observation` …) to its call's prose (breaks
    /// `RT-TOOL-3 ¶3`).
    FrameworkTextProse,
    /// Drops an artifact whose payload is over 65,535 bytes of compact JSON
    /// (a 64 KiB column, frame or message), far under RT-TOOL-6's 512,000
    /// (breaks `RT-TOOL-3 ¶1`).
    CapPayload64k,
    /// Writes every payload number that has a fraction or an exponent with
    /// six decimals (`toFixed(6)`, Go's `%f`), so `1.5e-7` becomes 0
    /// (breaks `RT-TOOL-3 ¶1`).
    SixDecimals,
    /// Cuts every payload string to 32,767 characters (a spreadsheet cell,
    /// a `VARCHAR(32767)`; breaks `RT-TOOL-3 ¶1`).
    CapStrings,
    /// Also delivers the well-formed entries of a successful result's
    /// `attachments`, `files` or `toolArtifacts` list, another framework's
    /// spelling of artifacts (breaks `RT-TOOL-3 ¶1`: nothing but the call's
    /// artifacts lands).
    AttachmentsKey,
    /// When the author made no choice, takes the port's exposure from a
    /// boolean `exposed`, `visible` or `show_artifacts` in a result (breaks
    /// `RT-TOOL-3 ¶2`: the tool is not the author).
    ResultExposure,
    /// Takes a result with `isError: true` (MCP's spelling) or `is_error:
    /// true` for failed, whatever its `success`, and delivers none of its
    /// artifacts (breaks `RT-TOOL-3 ¶1`).
    ErrorFlagDrops,
    /// Keeps each call id's first prose and feeds it again to every later
    /// call with that id, in this run or a later one (a cache keyed by call
    /// id; breaks `RT-TOOL-3 ¶3`: the prose is not built from this result's
    /// data).
    ProseCacheById,
    /// Drops an artifact equal to one an earlier run delivered (attachments
    /// de-duplicated across turns of a conversation; breaks `RT-TOOL-3 ¶1`).
    DedupeAcrossRuns,
    /// Gives a call whose result equals an earlier call's of the run that
    /// call's artifacts, id and all (tool output memoized by its content;
    /// breaks `RT-TOOL-3 ¶1`).
    MemoByResult,
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
    /// Cuts each prose that holds a character outside the Basic
    /// Multilingual Plane (an emoji) between the halves of the first one's
    /// surrogate pair, keeping the high half: a prose truncated by UTF-16
    /// length (JavaScript's `slice`) at a budget that falls inside the pair,
    /// written as a lone `\ud83d` escape (breaks `protocol`: the prose is
    /// no Unicode string; mirrors anthropics/claude-code#56064, a tool's
    /// error truncated mid-pair, and vertesia/llumiverse#462,
    /// `substring(0, maxChars)` splitting a pair).
    SplitSurrogate,
}

impl Fault {
    /// The clause a fault breaks, or `None` for a fault of the process.
    pub fn clause(self) -> Option<Clause> {
        use Fault::*;
        match self {
            SpoofId | ExtraKeys | DropLast | FirstCall | PayloadId | ResultId | DataId | DeepId
            | CamelCaseId | LastCallId | CaseInsensitiveKeys | LowercaseType | TrimType
            | DropNullKeys | DropEmptyPayload | EmptyObjectAsArray | ParseJsonStrings
            | StripProtoKeys | Int64AsString | DropUrlInData | DedupeAcrossCalls
            | ParseArtifactsString | CapPayload64k | SixDecimals | CapStrings | AttachmentsKey
            | ErrorFlagDrops | DedupeAcrossRuns | MemoByResult => Some(Clause::KeyByKey),
            ExposedByDefault | ExposeWithArtifacts | AlwaysHidden | StickyExposure
            | ResultExposure => Some(Clause::NotExposedByDefault),
            LeakPayload | DecoyProse | CountInProse | SwapProse | ErrorInProse
            | FailedErrorProse | ReservedInProse | StringifyResult | ResultMinusArtifacts
            | ArtifactsWhenEmpty | MergedProse | ResourceLinkProse | MetaProse
            | FrameworkTextProse | ProseCacheById => Some(Clause::ProseFromData),
            HiddenDrops | StripHidden | HiddenDropsMedia | DropWhenAuthorHides
            | DropWhenUndecided => Some(Clause::DeliveryRegardless),
            KeepMalformed | KeepFailed | TruthySuccess | KeepEmptyType | TypeofObject
            | ErrorMeansFailure | LiftUnfiltered => Some(Clause::Filter),
            DropOverCount | ErrorOverFloors | StopAtOversize => Some(Clause::Bounds),
            SplitSurrogate => Some(Clause::Protocol),
            Crash | Hang | Garbage | WrongSeq | NoStart | PartialLine | HugeLine | StderrFlood
            | ExtraLines => None,
        }
    }
}

impl Fault {
    /// The codes a clause fault's findings of its clause carry (each
    /// on some case of the catalogue's run, none other): what kind of
    /// finding each way of breaking the clause is. Empty for a fault of the
    /// process.
    pub fn codes(self) -> &'static [Code] {
        use Fault::*;
        match self {
            SpoofId | PayloadId | ResultId | DataId | DeepId | CamelCaseId => {
                &[Code::UnknownCallId, Code::WrongCallId]
            }
            // The entry's own keys, its `tool_call_id` among them whatever
            // it holds, override the call's.
            ExtraKeys => &[
                Code::CallIdNotString,
                Code::ExtraKey,
                Code::MissingArtifact,
                Code::UnknownCallId,
                Code::WrongCallId,
            ],
            FirstCall | LastCallId | MemoByResult => &[Code::WrongCallId],
            DropLast | DropEmptyPayload | DropUrlInData | DedupeAcrossCalls | CapPayload64k
            | ErrorFlagDrops | DedupeAcrossRuns => &[Code::MissingArtifact],
            // Another `type` (or the payload under another spelling): no
            // call's artifact, and the call's own missing.
            CaseInsensitiveKeys | LowercaseType => {
                &[Code::MissingArtifact, Code::UnproducedArtifact]
            }
            // A trimmed `type` may be that of another artifact of the call.
            TrimType => &[
                Code::MissingArtifact,
                Code::RepeatedArtifact,
                Code::UnproducedArtifact,
            ],
            DropNullKeys | EmptyObjectAsArray | ParseJsonStrings | StripProtoKeys
            | Int64AsString | SixDecimals | CapStrings => &[Code::PayloadAltered],
            ParseArtifactsString | AttachmentsKey => &[Code::UnproducedArtifact],
            ExposedByDefault | ExposeWithArtifacts | StickyExposure | ResultExposure => {
                &[Code::ExposedByDefault]
            }
            AlwaysHidden => &[Code::ExposureOverridden],
            LeakPayload | DecoyProse | ErrorInProse | FailedErrorProse | ReservedInProse
            | StringifyResult | ResultMinusArtifacts | ArtifactsWhenEmpty | ResourceLinkProse
            | MetaProse | FrameworkTextProse => &[Code::ProseCanary],
            CountInProse | ProseCacheById => &[Code::ProseChanged],
            SwapProse | MergedProse => &[Code::ProseOfAnotherCall],
            HiddenDrops | StripHidden | HiddenDropsMedia | DropWhenAuthorHides
            | DropWhenUndecided => &[Code::DeliveryDependsOnExposure],
            KeepMalformed | KeepFailed | TruthySuccess | KeepEmptyType | TypeofObject
            | ErrorMeansFailure | LiftUnfiltered => &[Code::DroppedEntryDelivered],
            DropOverCount | StopAtOversize => &[Code::DroppedWithinBounds],
            ErrorOverFloors => &[Code::ErroredOverFloors],
            SplitSurrogate => &[Code::LoneSurrogate],
            Crash | Hang | Garbage | WrongSeq | NoStart | PartialLine | HugeLine | StderrFlood
            | ExtraLines => &[],
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
    /// Delivers the artifacts in the reverse order: across calls the order
    /// is free, and within a call another order is only a warning.
    Reversed,
    /// Writes the keys of every object of the outcome in another order
    /// (`exposed` first, `tool_call_id` before `type`).
    KeyOrder,
    /// Sorts the keys of every payload object, at every depth.
    SortedPayloadKeys,
    /// Writes every non-ASCII character as a `\uXXXX` escape, as Python's
    /// `ensure_ascii` and PHP's `json_encode` do.
    EscapeNonAscii,
    /// Writes every character of every string as a `\uXXXX` escape.
    EscapeAll,
    /// Writes every integer with a fraction, `1` as `1.0`, as a language
    /// that holds every number as a double may.
    IntegersAsFloats,
    /// Logs a line on stderr for every request, and answers correctly.
    ChattyStderr,
    /// Drops, with a warning on stderr, each artifact over a bound set
    /// exactly at RT-TOOL-6's floors, measured in its own compact JSON: a
    /// payload over 512,000 bytes, any kept after the 50th, any that no
    /// longer fits 2,000,000 bytes beside those delivered (a later, smaller
    /// one still kept).
    DropAtFloors,
    /// Writes every payload number in another spelling of the same value,
    /// `125` as `0.125E3`, `-0.5` as `-0.5E0`, as a serialiser that
    /// normalises numbers to scientific notation may.
    RespellNumbers,
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
    let fault = settings.fault;
    let mut runs = 0u64;
    // The last explicit exposure, for [`Fault::StickyExposure`].
    let mut remembered = false;
    let mut memory = space::Memory::default();
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
        let reply: Reply = match request.cmd.as_deref() {
            Some("start") if fault == Some(Fault::NoStart) => continue,
            Some("start") => json!({"ready": true, "version": crate::harness::PROTOCOL_VERSION,
                "implementation": {"name": announced(&settings), "language": "rust",
                    "version": env!("CARGO_PKG_VERSION"), "fault": fault.map(|f| format!("{f:?}")),
                    "variant": settings.variant.map(|v| format!("{v:?}"))}})
            .into(),
            Some("stop") => return Ok(()),
            Some("run") => {
                runs += 1;
                std::thread::sleep(settings.delay);
                let seq = request.seq;
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
                match request.case {
                    Some(Ok(case))
                        if fault == Some(Fault::ErrorOverFloors)
                            && !model::floor_reasons(&case, &model::encoded_len).is_empty() =>
                    {
                        json!({"seq": seq, "errored": true, "message": "the run is over its artifact bounds"})
                        .into()
                    }
                    Some(Ok(case)) if fault.is_none() && settings.variant.is_none() => {
                        Reply::Outcome(seq, model::outcome(&case))
                    }
                    Some(Ok(case)) => {
                        let mut outcome = match fault {
                            Some(f) if space::stateful(f) => {
                                let mut outcome = outcome(&case, None);
                                space::broken(&case, f, &mut outcome, &mut memory);
                                outcome
                            }
                            _ => outcome(&case, fault),
                        };
                        if fault == Some(Fault::StickyExposure) {
                            match case.exposed {
                                Some(choice) => remembered = choice,
                                None => outcome["exposed"] = remembered.into(),
                            }
                        }
                        if let Some(variant) = settings.variant {
                            vary(&case, variant, &mut outcome);
                        }
                        json!({"seq": seq, "outcome": outcome}).into()
                    }
                    Some(Err(e)) => {
                        json!({"seq": seq, "errored": true, "message": e.to_string()}).into()
                    }
                    None => json!({"seq": seq, "errored": true, "message": "no case"}).into(),
                }
            }
            _ => json!({"errored": true, "message": "unknown command"}).into(),
        };
        text.clear();
        match (settings.variant, reply) {
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
                    eprintln!("rt-tool-3 serve: answered request {runs}");
                }
                reply.write(&mut text);
            }
        }
        text.push(b'\n');
        if fault == Some(Fault::ExtraLines) {
            text = text.repeat(2);
        }
        output.write_all(&text)?;
        output.flush()?;
    }
    Ok(())
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
        Ok(
            wire::parse::<Value>(line.as_bytes()).map(|request| Request {
                cmd: request
                    .get("cmd")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                seq: request.get("seq").cloned().unwrap_or(Value::Null),
                case: request
                    .get("case")
                    .map(|c| wire::parse::<Case>(c.to_string().as_bytes())),
            }),
        )
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
                        "cmd" => cmd.replace(map.next_value::<Value>()?).is_some(),
                        "seq" => seq.replace(map.next_value::<Value>()?).is_some(),
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
        Some(Fault::HiddenDropsMedia) if hidden => outcome
            .tool_artifacts
            .retain(|a| !matches!(a.kind.as_str(), "image" | "file" | "chart")),
        _ => {}
    }
    let mut value = serde_json::to_value(&outcome).unwrap_or(Value::Null);
    let entries = || kept(case);
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
        Some(f) if space::covers(f) => {
            space::broken(case, f, &mut value, &mut space::Memory::default())
        }
        Some(f) => rebuilt(case, f, &mut value),
        None => {}
    }
    value
}

/// Each call's entries that RT-TOOL-2 keeps, with their call, in the order
/// the reference delivers them.
fn kept(case: &Case) -> impl Iterator<Item = (&wire::Call, &Value)> {
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
}

/// A delivered entry, built key by key.
fn entry(kind: &Value, payload: &Value, id: &str) -> Value {
    json!({"type": kind, "payload": payload, "tool_call_id": id})
}

/// The clause faults written as another runtime's own loop over the
/// results: the port, the exposure or the prose rebuilt the way that
/// runtime builds it.
fn rebuilt(case: &Case, fault: Fault, value: &mut Value) {
    let messages = |value: &mut Value| -> Vec<Value> {
        value["messages"].as_array().cloned().unwrap_or_default()
    };
    match fault {
        Fault::ResultId
        | Fault::DataId
        | Fault::DeepId
        | Fault::CamelCaseId
        | Fault::LastCallId => {
            let last = case.calls.last().map(|c| c.tool_call_id.as_str());
            let list = kept(case)
                .map(|(call, e)| {
                    let claimed = match fault {
                        Fault::ResultId => call.result.get("tool_call_id"),
                        Fault::DataId => {
                            call.result.get("data").and_then(|d| d.get("tool_call_id"))
                        }
                        Fault::DeepId => first_key(&e["payload"], "tool_call_id"),
                        Fault::CamelCaseId => e.get("toolCallId"),
                        _ => None,
                    };
                    let id = match (claimed, last) {
                        (Some(Value::String(id)), _) => id.as_str(),
                        (_, Some(last)) if fault == Fault::LastCallId => last,
                        _ => call.tool_call_id.as_str(),
                    };
                    entry(&e["type"], &e["payload"], id)
                })
                .collect();
            value["tool_artifacts"] = Value::Array(list);
        }
        Fault::CaseInsensitiveKeys => {
            let mut list = Vec::new();
            for call in &case.calls {
                let ok = call.result.get("success") == Some(&Value::Bool(true));
                let Some(Value::Array(entries)) = call.result.get("artifacts").filter(|_| ok)
                else {
                    continue;
                };
                for e in entries.iter().filter_map(Value::as_object) {
                    let last = |name: &str| {
                        e.iter()
                            .rev()
                            .find(|(k, _)| k.to_lowercase() == name)
                            .map(|(_, v)| v)
                    };
                    let read = json!({"type": last("type"), "payload": last("payload")});
                    if let Some((kind, payload)) = model::well_formed(&read) {
                        list.push(entry(&kind.into(), payload, &call.tool_call_id));
                    }
                }
            }
            value["tool_artifacts"] = Value::Array(list);
        }
        Fault::LowercaseType
        | Fault::TrimType
        | Fault::DropNullKeys
        | Fault::EmptyObjectAsArray
        | Fault::ParseJsonStrings
        | Fault::StripProtoKeys
        | Fault::Int64AsString => {
            for out in value["tool_artifacts"].as_array_mut().into_iter().flatten() {
                let kind = out["type"].as_str().unwrap_or_default();
                match fault {
                    Fault::LowercaseType => out["type"] = kind.to_lowercase().into(),
                    Fault::TrimType => out["type"] = kind.trim().into(),
                    Fault::EmptyObjectAsArray => {
                        for v in out["payload"].as_object_mut().into_iter().flatten() {
                            clean(v.1, fault);
                        }
                    }
                    _ => clean(&mut out["payload"], fault),
                }
            }
        }
        Fault::DropEmptyPayload | Fault::DropUrlInData | Fault::DedupeAcrossCalls => {
            let mut earlier: Vec<&Value> = Vec::new();
            let mut list = Vec::new();
            for (c, call) in case.calls.iter().enumerate() {
                let prose = model::clause_3_prose(call).content;
                let mine: Vec<&Value> = kept(case)
                    .filter(|(k, _)| k.tool_call_id == call.tool_call_id)
                    .map(|(_, e)| e)
                    .collect();
                for e in &mine {
                    let payload = &e["payload"];
                    let dropped = match fault {
                        Fault::DropEmptyPayload => {
                            payload.as_object().is_some_and(|p| p.is_empty())
                        }
                        Fault::DropUrlInData => payload["url"]
                            .as_str()
                            .is_some_and(|url| prose.contains(url)),
                        _ => earlier.iter().any(|x| {
                            x["type"] == e["type"]
                                && crate::judge::json_eq(&x["payload"], payload)
                                    != crate::judge::Eq::Different
                        }),
                    };
                    if !dropped {
                        list.push(entry(&e["type"], payload, &case.calls[c].tool_call_id));
                    }
                }
                earlier.extend(mine);
            }
            value["tool_artifacts"] = Value::Array(list);
        }
        Fault::ParseArtifactsString => {
            let mut extra = Vec::new();
            for call in &case.calls {
                let ok = call.result.get("success") == Some(&Value::Bool(true));
                if let Some(Value::String(text)) = call.result.get("artifacts").filter(|_| ok) {
                    if let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(text) {
                        for (kind, payload) in entries.iter().filter_map(model::well_formed) {
                            extra.push(entry(&kind.into(), payload, &call.tool_call_id));
                        }
                    }
                }
            }
            if let Some(list) = value["tool_artifacts"].as_array_mut() {
                list.extend(extra);
            }
        }
        Fault::ExposeWithArtifacts => {
            let delivers = value["tool_artifacts"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
            if case.exposed.is_none() && delivers {
                value["exposed"] = true.into();
            }
        }
        Fault::AlwaysHidden => value["exposed"] = false.into(),
        Fault::StringifyResult
        | Fault::ResultMinusArtifacts
        | Fault::ArtifactsWhenEmpty
        | Fault::ResourceLinkProse => {
            let mut list = messages(value);
            for (m, call) in list.iter_mut().zip(&case.calls) {
                let content = m["content"].as_str().unwrap_or_default().to_owned();
                let artifacts = kept(case).filter(|(k, _)| k.tool_call_id == call.tool_call_id);
                m["content"] = match fault {
                    Fault::StringifyResult => call.result.to_string().into(),
                    Fault::ResultMinusArtifacts => {
                        let mut result = call.result.clone();
                        if let Value::Object(r) = &mut result {
                            r.shift_remove("artifacts");
                        }
                        result.to_string().into()
                    }
                    Fault::ArtifactsWhenEmpty => {
                        let empty = matches!(call.result.get("data"), None | Some(Value::Null))
                            || call.result["data"] == json!("");
                        if !empty {
                            continue;
                        }
                        let mut strings = Vec::new();
                        for (_, e) in artifacts {
                            crate::judge::strings(&e["payload"], &mut |s| {
                                strings.push(s.to_owned())
                            });
                        }
                        strings.join(" ").into()
                    }
                    _ => {
                        let mut content = content;
                        for (_, e) in artifacts {
                            if let Some(url) = e["payload"]["url"].as_str() {
                                content.push_str(&format!(" [resource link: {url}]"));
                            }
                        }
                        content.into()
                    }
                };
            }
            value["messages"] = Value::Array(list);
        }
        Fault::MergedProse => {
            let mut list = messages(value);
            let all: Vec<&str> = list.iter().filter_map(|m| m["content"].as_str()).collect();
            let joined = all.join("\n");
            for m in &mut list {
                m["content"] = joined.clone().into();
            }
            value["messages"] = Value::Array(list);
        }
        Fault::DropWhenAuthorHides | Fault::DropWhenUndecided => {
            let drops = match fault {
                Fault::DropWhenAuthorHides => case.exposed == Some(false),
                _ => case.exposed.is_none(),
            };
            if drops {
                value["tool_artifacts"] = json!([]);
            }
        }
        Fault::KeepEmptyType
        | Fault::TypeofObject
        | Fault::ErrorMeansFailure
        | Fault::LiftUnfiltered => {
            let mut list = Vec::new();
            for call in &case.calls {
                let success = call.result.get("success");
                let ok = success == Some(&Value::Bool(true));
                let error = call.result.get("error").is_some_and(|e| !e.is_null());
                let (entries, delivers) = match fault {
                    Fault::ErrorMeansFailure => (call.result.get("artifacts"), ok || !error),
                    Fault::LiftUnfiltered => (call.result.get("artifacts"), ok),
                    _ => (call.result.get("artifacts"), ok),
                };
                let Some(Value::Array(entries)) = entries.filter(|_| delivers) else {
                    continue;
                };
                for e in entries {
                    let (kind, payload) = (&e["type"], &e["payload"]);
                    let keeps = model::well_formed(e).is_some()
                        || match fault {
                            Fault::KeepEmptyType => kind == "" && payload.is_object(),
                            Fault::TypeofObject => {
                                kind.as_str().is_some_and(|k| !k.is_empty())
                                    && (payload.is_array() || payload.is_null())
                                    && e.get("payload").is_some()
                            }
                            _ => false,
                        };
                    if keeps {
                        list.push(entry(kind, payload, &call.tool_call_id));
                    }
                }
                let reserved = call
                    .result
                    .get("data")
                    .filter(|d| d.is_object())
                    .and_then(|d| d.get(model::RESERVED_KEY));
                if let (Fault::LiftUnfiltered, true, Some(Value::Array(lifted))) =
                    (fault, ok, reserved)
                {
                    for e in lifted
                        .iter()
                        .filter(|e| e.get("type").is_some() && e.get("payload").is_some())
                    {
                        list.push(entry(&e["type"], &e["payload"], &call.tool_call_id));
                    }
                }
            }
            value["tool_artifacts"] = Value::Array(list);
        }
        Fault::StopAtOversize => {
            let list: Vec<Value> = kept(case)
                .take_while(|(_, e)| {
                    model::encoded_len(&e["payload"]) <= model::floors::PAYLOAD_BYTES
                })
                .map(|(call, e)| entry(&e["type"], &e["payload"], &call.tool_call_id))
                .collect();
            value["tool_artifacts"] = Value::Array(list);
        }
        _ => {}
    }
}

/// The first value under `key` in `v`, depth first, in document order.
fn first_key<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            if k == key && x.is_string() {
                Some(x)
            } else {
                first_key(x, key)
            }
        }),
        Value::Array(a) => a.iter().find_map(|x| first_key(x, key)),
        _ => None,
    }
}

/// A payload "cleaned up" the way `fault` cleans it, at every depth.
fn clean(v: &mut Value, fault: Fault) {
    match v {
        Value::Object(m) if fault == Fault::EmptyObjectAsArray && m.is_empty() => {
            *v = json!([]);
        }
        Value::Object(m) => {
            m.retain(|k, x| match fault {
                Fault::DropNullKeys => !x.is_null(),
                Fault::StripProtoKeys => k != "__proto__" && k != "constructor",
                _ => true,
            });
            m.values_mut().for_each(|x| clean(x, fault));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| clean(x, fault)),
        Value::String(s) if fault == Fault::ParseJsonStrings => {
            if let Ok(parsed) = serde_json::from_str::<Value>(s) {
                *v = parsed;
            }
        }
        Value::Number(n) if fault == Fault::Int64AsString => {
            let text = n.to_string();
            let int = text.bytes().all(|b| b.is_ascii_digit() || b == b'-');
            if int
                && text
                    .parse::<i64>()
                    .map_or(true, |i| i32::try_from(i).is_err())
            {
                *v = Value::String(text);
            }
        }
        _ => {}
    }
}

/// An outcome met another conforming way: `variant` applied to it (the
/// escaping variants apply to the text of the reply instead).
fn vary(case: &Case, variant: Variant, outcome: &mut Value) {
    let artifacts = |o: &mut Value| -> Vec<Value> {
        o["tool_artifacts"].as_array().cloned().unwrap_or_default()
    };
    match variant {
        Variant::Lift => lift(case, outcome),
        Variant::Reversed => {
            let mut list = artifacts(outcome);
            list.reverse();
            outcome["tool_artifacts"] = Value::Array(list);
        }
        Variant::KeyOrder => {
            let reorder = |v: &Value, keys: &[&str]| -> Value {
                Value::Object(
                    keys.iter()
                        .map(|k| ((*k).to_owned(), v[*k].clone()))
                        .collect(),
                )
            };
            let list = artifacts(outcome)
                .iter()
                .map(|a| reorder(a, &["tool_call_id", "payload", "type"]))
                .collect();
            let messages = outcome["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| reorder(m, &["content", "tool_call_id"]))
                .collect();
            *outcome = json!({"exposed": outcome["exposed"].clone()});
            outcome["tool_artifacts"] = Value::Array(list);
            outcome["messages"] = Value::Array(messages);
        }
        Variant::SortedPayloadKeys | Variant::IntegersAsFloats => {
            for a in outcome["tool_artifacts"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                restyle(&mut a["payload"], variant);
            }
        }
        Variant::DropAtFloors => {
            let (mut count, mut bytes) = (0, 0);
            let mut list = artifacts(outcome);
            list.retain(|a| {
                let size = serde_json::to_string(&a["payload"]).map_or(0, |s| s.len());
                let keep = size <= model::floors::PAYLOAD_BYTES
                    && count < model::floors::ARTIFACTS
                    && bytes + size <= model::floors::RUN_BYTES;
                if keep {
                    count += 1;
                    bytes += size;
                } else {
                    eprintln!("rt-tool-3 serve: dropped an artifact of {size} bytes over a bound");
                }
                keep
            });
            outcome["tool_artifacts"] = Value::Array(list);
        }
        Variant::RespellNumbers => {
            for a in outcome["tool_artifacts"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                respell(&mut a["payload"]);
            }
        }
        Variant::EscapeNonAscii | Variant::EscapeAll | Variant::ChattyStderr => {}
    }
}

/// Every number in `v` spelled `0.DIGITS` and an exponent, the same value:
/// `-12.5e3` as `-0.125E5`.
fn respell(v: &mut Value) {
    match v {
        Value::Object(m) => m.values_mut().for_each(respell),
        Value::Array(a) => a.iter_mut().for_each(respell),
        Value::Number(n) => {
            let text = n.to_string();
            let (sign, unsigned) = match text.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => ("", text.as_str()),
            };
            let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
                Some((m, e)) => (m, e.trim_start_matches('+').parse::<i64>().unwrap_or(0)),
                None => (unsigned, 0),
            };
            let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let digits = format!("{int}{frac}");
            let digits = digits.trim_start_matches('0');
            let spelled = match digits.is_empty() {
                true => format!("{sign}0.0E0"),
                false => {
                    let e = exponent - frac.len() as i64 + digits.len() as i64;
                    format!("{sign}0.{digits}E{e}")
                }
            };
            if let Ok(Value::Number(m)) = serde_json::from_str(&spelled) {
                *n = m;
            }
        }
        _ => {}
    }
}

/// A payload restyled by `variant`, at every depth: its object keys sorted,
/// or its integers written with a fraction.
fn restyle(v: &mut Value, variant: Variant) {
    match v {
        Value::Object(m) => {
            if variant == Variant::SortedPayloadKeys {
                m.sort_keys();
            }
            m.values_mut().for_each(|x| restyle(x, variant));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| restyle(x, variant)),
        Value::Number(n) if variant == Variant::IntegersAsFloats => {
            let text = n.to_string();
            if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                if let Ok(Value::Number(float)) = serde_json::from_str(&format!("{text}.0")) {
                    *n = float;
                }
            }
        }
        _ => {}
    }
}

/// JSON text with every character inside a string for which `escape`
/// holds written as `\uXXXX` (two escapes outside the Basic Multilingual
/// Plane); escapes already there are kept.
fn escaped(json: &str, escape: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(json.len());
    // `raw`: characters still to copy as they are, those of an escape.
    let (mut in_string, mut raw) = (false, 0);
    for c in json.chars() {
        if raw > 0 {
            raw -= 1;
            // `\uXXXX`: four hex digits follow the `u`.
            if c == 'u' && raw == 0 {
                raw = 4;
            }
            out.push(c);
        } else if in_string && c == '\\' {
            raw = 1;
            out.push(c);
        } else if c == '"' {
            in_string = !in_string;
            out.push(c);
        } else if in_string && escape(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
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
