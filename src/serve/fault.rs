//! The seeded faults: each a known way of breaking the rule (or the
//! protocol), named and documented as `serve --fault` lists it, with the
//! clause it breaks and the codes its findings carry.

use crate::judge::{Clause, Code};

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
    /// Lifts RT-TOOL-2's reserved `artifacts` key off `data` only when it
    /// holds a list, and renders `data` with it left in when it holds
    /// anything else (an object, a string …), as `if
    /// isinstance(data.get("artifacts"), list): data.pop("artifacts")`
    /// does (breaks `RT-TOOL-3 ¶3`: the reserved key never reaches the
    /// prose, whatever it holds).
    ReservedListOnly,
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
    /// Reads each payload as serde_json's `Value` does with its
    /// `arbitrary_precision` feature: an object whose first key is
    /// `$serde_json::private::Number` and whose value spells a number
    /// becomes that number (breaks `RT-TOOL-3 ¶1`; a runtime in Rust that
    /// reads a tool's output into `Value` so, as this oracle did before
    /// 0.8.0).
    SerdeNumberKey,
    /// Decodes each payload into PHP's associative arrays
    /// (`json_decode($json, true)`) and encodes it back: an object keyed
    /// `"0"`, `"1"`, … in order becomes a JSON array (breaks `RT-TOOL-3
    /// ¶1`; the empty object's own fault is `empty-object-as-array`).
    PhpAssocArrays,
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
    /// Numbers each call's prose by its place among the invocation's calls
    /// (`[2] …`), as a runtime that labels parallel results by index does
    /// (breaks `RT-TOOL-3 ¶3`: a call's place is not its result's `data`).
    PositionInProse,
    /// Cuts each call's prose to an even share of a 2,000-character budget
    /// (2,000 over the number of calls), as a runtime that splits its
    /// context window between parallel results does (breaks `RT-TOOL-3
    /// ¶3`: how many calls the turn made is not the result's `data`; the
    /// pattern of openshift/lightspeed-service#2870, `per_tool_budget =
    /// tools_token_budget // len(tool_calls)`, and shogo-labs/shogo-ai#839,
    /// `maxBudget / eligibleIndices.length`; a fixed cap per call is a
    /// function of the data alone, and passes).
    SharedBudget,
    /// Gives a call whose `data` equals an earlier call's the prose `(same
    /// result as call ID)` in place of its own, as a runtime that saves
    /// tokens on repeated tool output does (breaks `RT-TOOL-3 ¶3`: the
    /// prose is built from another call, not from this result's `data`;
    /// mirrors rossoctl/context-guru#27, whose `dedup` collapses the later
    /// of two identical tool outputs in a request, and juninmd/tokenix#54,
    /// a repeated command's output collapsed to a reference to the earlier
    /// call).
    DedupeProse,
    /// Drops every artifact of the run when any call's result is not of
    /// RT-TOOL-1's shape (not an object, `success` not a boolean,
    /// `artifacts` neither a list nor null, `data` still carrying the
    /// reserved key): the results validated as one batch against a strict
    /// schema, whose failure leaves the whole turn without artifacts
    /// (breaks `RT-TOOL-3 ¶1`: "every call's artifacts", each call judged
    /// on its own, and RT-TOOL-2 drops per entry, never per run).
    DropAllWhenAnyMalformed,
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
            | StripProtoKeys | Int64AsString | SerdeNumberKey | PhpAssocArrays | DropUrlInData
            | DedupeAcrossCalls | ParseArtifactsString | CapPayload64k | SixDecimals
            | CapStrings | AttachmentsKey | ErrorFlagDrops | DedupeAcrossRuns | MemoByResult => {
                Some(Clause::KeyByKey)
            }
            DropAllWhenAnyMalformed => Some(Clause::KeyByKey),
            ExposedByDefault | ExposeWithArtifacts | AlwaysHidden | StickyExposure
            | ResultExposure => Some(Clause::NotExposedByDefault),
            LeakPayload | DecoyProse | CountInProse | SwapProse | ErrorInProse
            | FailedErrorProse | ReservedInProse | ReservedListOnly | StringifyResult
            | ResultMinusArtifacts | ArtifactsWhenEmpty | MergedProse | ResourceLinkProse
            | MetaProse | FrameworkTextProse | ProseCacheById | PositionInProse | SharedBudget
            | DedupeProse => Some(Clause::ProseFromData),
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
            // Within the floors; over them, RT-TOOL-6's to cite.
            DropAllWhenAnyMalformed => &[Code::MissingArtifact],
            // Another `type` (or the payload under another spelling): no
            // call's artifact, and the call's own missing; a `PAYLOAD` key
            // read as the payload keeps the type and alters the payload.
            CaseInsensitiveKeys => &[
                Code::MissingArtifact,
                Code::PayloadAltered,
                Code::UnproducedArtifact,
            ],
            // A lower-cased `type` may be that of another call's artifact
            // with the same payload (`{}` in two calls, `Link` in one and
            // `link` in the other): the entry reads as that call's,
            // carrying the wrong id (0.10.0's streams show it on seeds 1 to
            // 10). A trimmed one shows no such finding there.
            LowercaseType => &[
                Code::MissingArtifact,
                Code::UnproducedArtifact,
                Code::WrongCallId,
            ],
            TrimType => &[Code::MissingArtifact, Code::UnproducedArtifact],
            DropNullKeys | EmptyObjectAsArray | ParseJsonStrings | StripProtoKeys
            | Int64AsString | SerdeNumberKey | PhpAssocArrays | SixDecimals | CapStrings => {
                &[Code::PayloadAltered]
            }
            ParseArtifactsString | AttachmentsKey => &[Code::UnproducedArtifact],
            ExposedByDefault | ExposeWithArtifacts | StickyExposure | ResultExposure => {
                &[Code::ExposedByDefault]
            }
            AlwaysHidden => &[Code::ExposureOverridden],
            LeakPayload | DecoyProse | ErrorInProse | FailedErrorProse | ReservedInProse
            | ReservedListOnly | StringifyResult | ResultMinusArtifacts | ArtifactsWhenEmpty
            | ResourceLinkProse | MetaProse | FrameworkTextProse => &[Code::ProseCanary],
            // A prose numbered by place keeps the first call's number when
            // that call is sent alone.
            CountInProse | ProseCacheById | PositionInProse => &[Code::ProseChanged],
            // The marked and canary siblings show these too: a repeated
            // `data` that holds no marker (`""`, a number) stays repeated
            // there, and the canary sibling adds a call to share with.
            DedupeProse | SharedBudget => &[Code::ProseAlone, Code::ProseChanged],
            // Sent alone, a call has no other call's prose to take.
            SwapProse | MergedProse => &[Code::ProseAlone, Code::ProseOfAnotherCall],
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
