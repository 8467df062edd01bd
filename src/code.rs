//! What kind of finding each violation and warning is, as a stable code, and
//! where it is, as a structured [`Place`].
//!
//! A finding's sentence is for people and may be reworded at any time; its
//! [`Code`] is for machines (a CI panel, a dashboard, a team's own triage)
//! and is contract: a short kebab-case name, one per kind of finding, each
//! belonging to exactly one [`Clause`], never renamed, renumbered or reused.
//! The list, with each code's clause and sentence, is also `src/codes.md`
//! ([`markdown`], kept in sync by a test).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($(
        $variant:ident = $name:literal, $clause:ident, $kind:ident,
            $summary:literal, $template:literal;
    )*) => {
        /// The kind of a finding: every violation and warning of `check` and
        /// `diff` carries one, as its `code`.
        ///
        /// Each code belongs to one clause ([`Code::clause`]), is a violation
        /// or a warning ([`Code::warning`]), and says its finding in one
        /// sentence whose parts that vary are marked `…`
        /// ([`Code::template`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(
                #[doc = concat!("`", $name, "`: ", $summary)]
                $variant,
            )*
        }

        impl Code {
            /// Every code, in the order of the documented list.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code as findings carry it: `extra-key`, `prose-leak`, ….
            pub fn name(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The clause a finding of this kind cites.
            pub fn clause(self) -> Clause {
                match self {
                    $(Code::$variant => Clause::$clause,)*
                }
            }

            /// Whether a finding of this kind is a warning, not a violation.
            pub fn warning(self) -> bool {
                match self {
                    $(Code::$variant => Kind::$kind == Kind::Warning,)*
                }
            }

            /// What a finding of this kind is, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$variant => $summary,)*
                }
            }

            /// The sentence a finding of this kind says, each part that
            /// varies (an index, an id, a value) written `…`.
            pub fn template(self) -> &'static str {
                match self {
                    $(Code::$variant => $template,)*
                }
            }
        }
    };
}

/// Whether a code is a violation's or a warning's.
#[derive(PartialEq, Eq)]
enum Kind {
    Violation,
    Warning,
}

codes! {
    EntryNotObject = "entry-not-object", KeyByKey, Violation,
        "an entry of `tool_artifacts` is not an object",
        "tool_artifacts[…] is …, not an object";
    ExtraKey = "extra-key", KeyByKey, Violation,
        "an entry carries keys beyond `type`, `payload` and `tool_call_id`",
        "tool_artifacts[…] carries key(s) … beyond type, payload and tool_call_id: a tool smuggled them through";
    MissingKey = "missing-key", KeyByKey, Violation,
        "an entry lacks `type`, `payload` or `tool_call_id`",
        "tool_artifacts[…] lacks …";
    CallIdNotString = "call-id-not-string", KeyByKey, Violation,
        "an entry's `tool_call_id` is not a string",
        "tool_artifacts[…].tool_call_id is …, not a string";
    UnknownCallId = "unknown-call-id", KeyByKey, Violation,
        "an entry carries a `tool_call_id` that is no call of the invocation",
        "tool_artifacts[…] carries tool_call_id …, which is no call of this invocation";
    WrongCallId = "wrong-call-id", KeyByKey, Violation,
        "a call's artifact carries another call's id (a spoofed id among them)",
        "artifact … of call … carries tool_call_id …: the entry must carry its own call's id";
    RepeatedArtifact = "repeated-artifact", KeyByKey, Violation,
        "an artifact lands more than once",
        "tool_artifacts[…] repeats artifact … of call …: every artifact lands once";
    PayloadAltered = "payload-altered", KeyByKey, Violation,
        "an artifact's payload was changed on its way to the port",
        "tool_artifacts[…] (call …, type …) has a payload that differs from the artifact's at …: payloads pass through unchanged";
    UnproducedArtifact = "unproduced-artifact", KeyByKey, Violation,
        "an entry is no artifact any call returned",
        "tool_artifacts[…] (… …) was produced by no call";
    MissingArtifact = "missing-artifact", KeyByKey, Violation,
        "an owed artifact (kept by a call whose result is of RT-TOOL-1's shape) is not on the port",
        "artifact … of call … (… …) is missing from tool_artifacts";
    MissingArtifactWhileHidden = "missing-artifact-while-hidden", KeyByKey, Violation,
        "an owed artifact is not on the port, and the port is hidden (`diff` tells whether RT-TOOL-3 ¶4 is broken too)",
        "artifact … of call … (… …) is missing from tool_artifacts (the port is hidden: a runtime that delivers it only while the port is shown breaks RT-TOOL-3 ¶4, which `diff` tells apart)";
    ArtifactsOutOfOrder = "artifacts-out-of-order", KeyByKey, Violation,
        "`tool_artifacts` is not in the reference order (only under `--strict-order`)",
        "tool_artifacts is not in the reference order (call order, then each result's order)";
    ExposedByDefault = "exposed-by-default", NotExposedByDefault, Violation,
        "the author made no choice and the port is exposed",
        "the author made no choice, yet the port is exposed";
    ExposureOverridden = "exposure-overridden", NotExposedByDefault, Violation,
        "the author chose an exposure and the outcome says the other",
        "the author set exposed: …, yet the outcome says exposed: …";
    ProseLeak = "prose-leak", ProseFromData, Violation,
        "a call's prose holds a string found only outside its own `data` (one finding per string)",
        "the prose of call … contains …, found only in …: a call's prose comes from its own data alone";
    ProseNotReference = "prose-not-reference", ProseFromData, Violation,
        "a call's prose is not the reference rendering (only under `--prose exact`)",
        "the prose of call … is …, not the reference rendering …";
    ProseCanary = "prose-canary", ProseFromData, Violation,
        "a call's prose holds a canary put in its artifacts, decoys, other keys or error (`diff`)",
        "with its artifacts, decoys, other keys and error swapped for canaries, the prose of call … contains the canary …: prose comes from data alone";
    ProseChanged = "prose-changed", ProseFromData, Violation,
        "a call's prose changed when all but its `data` changed (`diff`)",
        "the prose of call … changed from … to … when only its call id, place, neighbours, artifacts, result-level keys and error changed, not its data (prose kept by call id, numbered by place, or drawn from more than data)";
    ProseAlone = "prose-alone", ProseFromData, Violation,
        "a call's prose beside the other calls is not its prose sent alone (`diff`)",
        "the prose of call … is … beside the other calls and … sent alone: prose comes from the call's own data alone (numbered by place, shared out, or drawn from another call)";
    ProseOfAnotherCall = "prose-of-another-call", ProseFromData, Violation,
        "a call's prose holds the marker put in another call's `data`, or the `data` of the call the canary sibling adds (`diff`)",
        "the prose of call … carries the marker of call …'s data: each call's prose comes from its own result's data";
    DeliveryDependsOnExposure = "delivery-depends-on-exposure", DeliveryRegardless, Violation,
        "the port carries other artifacts with the port exposed than hidden (`diff`)",
        "with exposed: … the port carries …, with exposed: … it carries …: delivery must not depend on exposure";
    DroppedEntryDelivered = "dropped-entry-delivered", Filter, Violation,
        "an entry RT-TOOL-2 drops (malformed, or of a call that did not succeed) is on the port",
        "tool_artifacts[…] is …, which RT-TOOL-2 drops: …";
    UnencodableAltered = "unencodable-altered", Bounds, Violation,
        "an artifact whose payload holds a number no IEEE double can hold is delivered altered, not dropped",
        "tool_artifacts[…] (call …, type …) is … of call … with … at …, a number no IEEE double can hold, delivered as …: RT-TOOL-6 drops an artifact whose payload does not encode, with a warning, and does not alter it (a payload passes through unchanged, RT-TOOL-3 ¶1)";
    DroppedWithinBounds = "dropped-within-bounds", Bounds, Violation,
        "over the floors, an owed artifact is missing that no bound may drop",
        "tool_artifacts holds … entries (… bytes at most) for the run's … kept artifacts…, yet … missing: a bound may drop an artifact only once … are kept or it no longer fits … bytes, and the rest are still kept";
    ErroredOverFloors = "errored-over-floors", Bounds, Violation,
        "the implementation errored on a run over RT-TOOL-6's floors, where the run is not failed (`diff`)",
        "the implementation errored on a run over RT-TOOL-6's floors (…): over a bound an artifact is dropped with a warning, and the run is not failed; it said: …";
    ExposedNotBoolean = "exposed-not-boolean", Protocol, Violation,
        "the outcome's `exposed` is not a boolean",
        "the outcome's `exposed` is …, not a boolean";
    ExposedMissing = "exposed-missing", Protocol, Violation,
        "the outcome has no `exposed`",
        "the outcome has no `exposed`";
    PortNotList = "port-not-list", Protocol, Violation,
        "the outcome's `tool_artifacts` is not a list",
        "tool_artifacts is …, not a list";
    PortMissing = "port-missing", Protocol, Violation,
        "the outcome has no `tool_artifacts`",
        "the outcome has no tool_artifacts";
    PortMissingWhileHidden = "port-missing-while-hidden", Protocol, Violation,
        "the outcome has no `tool_artifacts` while the port is hidden (a runtime that strips hidden outputs; `diff` tells whether RT-TOOL-3 ¶4 is broken)",
        "the outcome has no tool_artifacts while the port is hidden (a runtime that strips hidden outputs, EXPO-14, from the result breaks RT-TOOL-3 ¶4; `diff` tells the two apart by running the case exposed too)";
    MessagesNotList = "messages-not-list", Protocol, Violation,
        "the outcome's `messages` is not a list",
        "messages is …, not a list";
    MessagesMissing = "messages-missing", Protocol, Violation,
        "the outcome has no `messages`",
        "the outcome has no messages";
    MessageIdMissing = "message-id-missing", Protocol, Violation,
        "a message has no string `tool_call_id`",
        "messages[…] has no string tool_call_id";
    MessageUnknownCall = "message-unknown-call", Protocol, Violation,
        "a message answers a `tool_call_id` that is no call of the invocation",
        "messages[…] answers tool_call_id …, which is no call of this invocation";
    SecondMessage = "second-message", Protocol, Violation,
        "a call is answered by more than one message",
        "messages[…] is a second message for call …: each call gets one";
    ContentMissing = "content-missing", Protocol, Violation,
        "a message has no string `content`",
        "messages[…] (call …) has no string content";
    LoneSurrogate = "lone-surrogate", Protocol, Violation,
        "a call's prose holds a lone surrogate: it is no Unicode string",
        "the prose of call … holds a lone surrogate …: it is not a Unicode string (a string cut between the halves of a surrogate pair, as slicing it by UTF-16 length does)";
    MessageMissing = "message-missing", Protocol, Violation,
        "a call has no message",
        "call … has no message: each call gets one";
    UnknownOutcomeKey = "unknown-outcome-key", Protocol, Warning,
        "the outcome has a key the contract does not define (ignored)",
        "the outcome has a key `…` the contract does not define; it was ignored";
    MessagesOutOfOrder = "messages-out-of-order", Protocol, Warning,
        "the messages are not in call order (each is matched by its `tool_call_id`)",
        "messages are not in call order; each was matched to its call by tool_call_id";
    DoublePrecision = "double-precision", KeyByKey, Warning,
        "an entry matches its artifact only up to an IEEE double's precision (RFC 8259 §6)",
        "tool_artifacts[…] (call …) matches its artifact only up to the precision of an IEEE double";
    CallOrder = "call-order", KeyByKey, Warning,
        "a call's artifacts arrived in another order than the call returned them",
        "the artifacts of call … arrived in another order than the call returned them";
    UnencodableDropped = "unencodable-dropped", Bounds, Warning,
        "an artifact whose payload holds a number no IEEE double can hold is missing, as RT-TOOL-6 may drop it",
        "… of call … is missing; its payload holds a number no IEEE double can hold, which may not encode in the implementation's language, and RT-TOOL-6 drops such an artifact with a warning";
}

impl Code {
    /// The code of a name, as [`Code::name`] spells it.
    pub fn of_name(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Whether `message` is a sentence of this code's [`Code::template`]:
    /// its fixed parts in order, anything in place of each `…`.
    pub fn fits(self, message: &str) -> bool {
        let mut parts = self.template().split('…');
        let first = parts.next().unwrap_or_default();
        let Some(mut rest) = message.strip_prefix(first) else {
            return false;
        };
        let mut parts = parts.peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                return rest.ends_with(part);
            }
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let name = Cow::<'de, str>::deserialize(d)?;
        Code::of_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown finding code {name:?}")))
    }
}

impl schemars::JsonSchema for Code {
    fn schema_name() -> Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        schemars::json_schema!({
            "description": "The kind of a finding: a stable code, one per kind, listed in src/codes.md.",
            "type": "string",
            "enum": names,
        })
    }
}

/// Where a finding is, as far as it is about one place: each part that
/// does not apply is left out of the JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Place {
    /// The call, by its index in the case's `calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    /// The expected artifact, by its index among its call's kept artifacts
    /// (`artifact 0` of the call is its first kept one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<usize>,
    /// The observed entry, by its index in the outcome's `tool_artifacts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// The observed message, by its index in the outcome's `messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    /// A JSON Pointer (RFC 6901) into the observed outcome: the entry, the
    /// key or the part of a payload at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// For a string that should not be where it is (a leak), where in the
    /// case it was found: `the artifacts of call c1`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl Place {
    /// Call `c`.
    pub fn call(c: usize) -> Place {
        Place {
            call: Some(c),
            ..Place::default()
        }
    }

    /// Observed entry `i` of `tool_artifacts`, at `/tool_artifacts/i` and
    /// then `more` (a pointer's tail, each segment escaped).
    pub fn entry(i: usize, more: &str) -> Place {
        Place {
            entry: Some(i),
            path: Some(format!("/tool_artifacts/{i}{more}")),
            ..Place::default()
        }
    }

    /// Observed message `i`, at `/messages/i` and then `more`.
    pub fn message(i: usize, more: &str) -> Place {
        Place {
            message: Some(i),
            path: Some(format!("/messages/{i}{more}")),
            ..Place::default()
        }
    }

    /// The top-level `key` of the outcome.
    pub fn key(key: &str) -> Place {
        Place {
            path: Some(format!("/{}", pointer_segment(key))),
            ..Place::default()
        }
    }

    /// This place, of call `c`.
    pub fn of_call(mut self, c: Option<usize>) -> Place {
        self.call = c;
        self
    }
}

/// A key as one segment of a JSON Pointer: `~` written `~0`, `/` `~1`.
pub fn pointer_segment(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        key.replace('~', "~0").replace('/', "~1").into()
    } else {
        key.into()
    }
}

/// The ways a run of `diff` ends on a fault of the implementation's
/// process (exit 2), each by its stable code and what it means: the
/// `code` of a report's `fault` and of the standing's `fault_code`, and the
/// `type` of the JUnit `error`.
pub const PROCESS_FAULTS: [(&str, &str); 8] = [
    (
        "cannot-start",
        "the implementation's command could not be started",
    ),
    (
        "no-ready",
        "the implementation did not answer `start` with `\"ready\": true`",
    ),
    (
        "crashed",
        "the implementation ended, or closed its stdout, while a reply was owed",
    ),
    ("hung", "no reply within `--timeout`"),
    (
        "garbage",
        "a reply that is not one JSON object with `outcome`, `errored: true` or `skipped: true`",
    ),
    ("line-too-long", "a reply line longer than `--max-line`"),
    ("wrong-seq", "a reply to another request than the one owed"),
    (
        "extra-lines",
        "a line nobody asked for (a second reply to a request already answered, a line after the last reply, or after `stop`)",
    ),
];

/// The other ways a command ends with exit 2, each by its stable code:
/// with `--json`, the `code` of the one line `{"error": {"code", "message"}}`
/// written on stdout when nothing else was.
pub const EXIT_2: [(&str, &str); 2] = [
    (
        "invalid-input",
        "an input is not what it must be (a case, an outcome, a file to replay or merge, an argument); nothing was judged",
    ),
    (
        "cannot-write",
        "an output could not be written (stdout, `--save`, `--standing`, a report)",
    ),
];

/// The documented list of codes, as Markdown: `src/codes.md` is this.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Finding codes\n\n\
         <!-- Generated from `src/code.rs` by `rt_tool_3::code::markdown`; a test keeps it in sync. -->\n\n\
         Every violation and warning of `rt-tool-3 check --json` and `rt-tool-3 diff --json` (and of\n\
         a `--save` file) carries a `code`, one of those below, and a `place`. The sentence a finding\n\
         says (`message`) may be reworded at any time; its code never is, nor is a code reused for\n\
         another kind of finding. Each code belongs to one clause. In a template, `…` marks a part\n\
         that varies.\n\n\
         A `place` holds those of these that apply: `call` (the call's index in the case's `calls`),\n\
         `artifact` (the expected artifact's index among its call's kept ones), `entry` (the index in\n\
         the observed `tool_artifacts`), `message` (the index in the observed `messages`), `path` (a\n\
         JSON Pointer into the observed outcome) and `from` (where a leaked string was found).\n\n\
         | code | clause | kind | what it says | template |\n|---|---|---|---|---|\n",
    );
    for code in Code::ALL {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            code.name(),
            code.clause().id(),
            if code.warning() {
                "warning"
            } else {
                "violation"
            },
            cell(code.summary()),
            cell(code.template()),
        ));
    }
    out.push_str(
        "\n## Process faults\n\n\
         A run that ends on a fault of the implementation's process (exit 2) says which in its\n\
         report's `fault.code` (`diff --json`, `--save`), the standing's `fault_code`, and the\n\
         `type` of the JUnit `error`:\n\n\
         | code | what happened |\n|---|---|\n",
    );
    for (code, meaning) in PROCESS_FAULTS {
        out.push_str(&format!("| `{code}` | {meaning} |\n"));
    }
    out.push_str(
        "\nAny other exit 2 is one of these. With `--json` (`check`, `diff`, `merge`, `cases`), a\n\
         command that ends so before writing anything on stdout writes there one line,\n\
         `{\"error\": {\"code\": …, \"message\": …}}`, its code one of the process faults above or:\n\n\
         | code | what happened |\n|---|---|\n",
    );
    for (code, meaning) in EXIT_2 {
        out.push_str(&format!("| `{code}` | {meaning} |\n"));
    }
    out
}

/// What a finding cites: a paragraph of RT-TOOL-3, a neighbouring rule the
/// clauses rely on, or the wire contract itself.
///
/// The specification cites a clause by paragraph, `RT-TOOL-3 ¶1` … `¶4`
/// (the rule's id with a dotted item number would read as the id of
/// another rule), and a neighbouring rule by its id. Every clause is named
/// once, here.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Clause {
    /// ¶1: key by key, real call ids, every kept artifact once.
    #[serde(rename = "RT-TOOL-3 ¶1")]
    KeyByKey,
    /// ¶2: not exposed by default.
    #[serde(rename = "RT-TOOL-3 ¶2")]
    NotExposedByDefault,
    /// ¶3: prose from `data` alone.
    #[serde(rename = "RT-TOOL-3 ¶3")]
    ProseFromData,
    /// ¶4: delivery regardless of exposure.
    #[serde(rename = "RT-TOOL-3 ¶4")]
    DeliveryRegardless,
    /// RT-TOOL-2: malformed entries and calls that did not succeed surface
    /// nothing.
    #[serde(rename = "RT-TOOL-2")]
    Filter,
    /// RT-TOOL-6: what an implementation must still deliver above its
    /// bounds, that an artifact whose payload does not encode is dropped
    /// whole (never delivered altered), and that a run over them is not
    /// failed.
    #[serde(rename = "RT-TOOL-6")]
    Bounds,
    /// Not a rule: the outcome is not of the contract's shape (a missing
    /// key, a wrong type, a message for no call or two for one).
    #[serde(rename = "protocol")]
    Protocol,
}

/// A [`Clause`] as structured JSON: `{"rule": "RT-TOOL-3", "paragraph": 1}`,
/// `{"rule": "RT-TOOL-2", "paragraph": null}`, or both null for the
/// contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Cite {
    /// The rule's id, when a rule is broken.
    pub rule: Option<&'static str>,
    /// The paragraph of that rule, when the citation names one.
    pub paragraph: Option<u8>,
}

impl Clause {
    /// Every clause, in citation order.
    pub const ALL: [Clause; 7] = [
        Clause::KeyByKey,
        Clause::NotExposedByDefault,
        Clause::ProseFromData,
        Clause::DeliveryRegardless,
        Clause::Filter,
        Clause::Bounds,
        Clause::Protocol,
    ];

    /// The citation as the specification writes it: `RT-TOOL-3 ¶1`,
    /// `RT-TOOL-2`; `protocol` for the contract.
    pub fn id(self) -> &'static str {
        match self {
            Clause::KeyByKey => "RT-TOOL-3 ¶1",
            Clause::NotExposedByDefault => "RT-TOOL-3 ¶2",
            Clause::ProseFromData => "RT-TOOL-3 ¶3",
            Clause::DeliveryRegardless => "RT-TOOL-3 ¶4",
            Clause::Filter => "RT-TOOL-2",
            Clause::Bounds => "RT-TOOL-6",
            Clause::Protocol => "protocol",
        }
    }

    /// What the clause asks, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            Clause::KeyByKey => {
                "artifacts on their own port, built key by key with the call's real id"
            }
            Clause::NotExposedByDefault => "the port not exposed by default",
            Clause::ProseFromData => "each call's prose from its own result's data alone",
            Clause::DeliveryRegardless => "delivery regardless of exposure",
            Clause::Filter => "malformed entries and calls that did not succeed surface nothing",
            Clause::Bounds => {
                "above the floors only what a bound may drop is missing, an artifact that does not encode is dropped, not altered, and the run is not failed"
            }
            Clause::Protocol => "the outcome has the contract's shape",
        }
    }

    /// The citation, structured.
    pub fn cite(self) -> Cite {
        let (rule, paragraph) = match self {
            Clause::KeyByKey => (Some(crate::RULE), Some(1)),
            Clause::NotExposedByDefault => (Some(crate::RULE), Some(2)),
            Clause::ProseFromData => (Some(crate::RULE), Some(3)),
            Clause::DeliveryRegardless => (Some(crate::RULE), Some(4)),
            Clause::Filter => (Some("RT-TOOL-2"), None),
            Clause::Bounds => (Some("RT-TOOL-6"), None),
            Clause::Protocol => (None, None),
        };
        Cite { rule, paragraph }
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}
