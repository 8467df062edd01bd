//! The judge of one outcome, [`Judge`], and the clauses it checks on the
//! outcome as a whole: the exposure (clause 2) and the prose (clause 3).

use std::cell::OnceCell;

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use super::findings::{quoted, Violation, Warning};
use super::leak::LeakScan;
use super::observed::{Part, Said};
use super::pool::Sources;
use super::{Options, ProseMode};
use crate::code::{Code, Place};
use crate::model;
use crate::wire::{self, kind, Call, Case, Held, Message};

/// One outcome being judged: the case, how strictly, and the findings so
/// far.
pub(super) struct Judge<'a> {
    pub(super) case: &'a Case<Held<'a>>,
    /// Whether each call's result, by index, is of RT-TOOL-1's shape
    /// ([`model::of_rt_tool_1_shape`]): what it keeps is owed whatever its
    /// siblings returned, and its prose has a reference rendering.
    pub(super) owes: Vec<bool>,
    pub(super) options: Options,
    pub(super) violations: Vec<Violation>,
    pub(super) warnings: Vec<Warning>,
    /// Each call's index by its id.
    pub(super) call_of: HashMap<&'a str, usize>,
    /// Where artifacts could have come from, indexed when first needed.
    pub(super) sources: OnceCell<Sources<'a>>,
}

impl<'a> Judge<'a> {
    /// A judge of one outcome of `case`, with no finding yet.
    pub(super) fn new(case: &'a Case<Held<'a>>, options: Options) -> Judge<'a> {
        Judge {
            case,
            owes: (case.calls.iter())
                .map(|call| model::of_rt_tool_1_shape(call.result))
                .collect(),
            options,
            violations: Vec::new(),
            warnings: Vec::new(),
            call_of: call_index(&case.calls),
            sources: OnceCell::new(),
        }
    }

    pub(super) fn violation(&mut self, code: Code, place: Place, message: String) {
        self.violations.push(Violation::new(code, place, message));
    }

    pub(super) fn warning(&mut self, code: Code, place: Place, message: String) {
        self.warnings.push(Warning {
            code,
            place,
            message,
        });
    }

    /// Clause 2: the observed exposure. Returns it when it is a boolean.
    pub(super) fn exposure(&mut self, observed: Option<&Value>, expected: bool) -> Option<bool> {
        let (code, why) = match (self.case.exposed, observed) {
            (_, Some(Value::Bool(b))) if *b == expected => return Some(*b),
            (None, Some(Value::Bool(true))) => (
                Code::ExposedByDefault,
                "the author made no choice, yet the port is exposed".to_string(),
            ),
            (Some(choice), Some(Value::Bool(b))) => (
                Code::ExposureOverridden,
                format!("the author set exposed: {choice}, yet the outcome says exposed: {b}"),
            ),
            (_, Some(other)) => (
                Code::ExposedNotBoolean,
                format!("the outcome's `exposed` is {}, not a boolean", kind(other)),
            ),
            (_, None) => (
                Code::ExposedMissing,
                "the outcome has no `exposed`".to_string(),
            ),
        };
        self.violation(code, Place::key("exposed"), why);
        observed.and_then(Value::as_bool)
    }

    /// Clause 3: one message per call, matched to its call by
    /// `tool_call_id`, and no leak into it.
    pub(super) fn prose(&mut self, observed: &Part<Vec<Said<'_>>>, reference: &[Message]) {
        let messages = match observed {
            Part::List(m) => m,
            Part::NotList(kind) => {
                let msg = format!("messages is {kind}, not a list");
                return self.violation(Code::MessagesNotList, Place::key("messages"), msg);
            }
            Part::Absent => {
                let msg = "the outcome has no messages".to_string();
                return self.violation(Code::MessagesMissing, Place::default(), msg);
            }
        };
        let calls = &self.case.calls;
        let mut contents: Vec<Option<&str>> = vec![None; calls.len()];
        // Each answered call's message, by its index in `messages`.
        let mut message_at = vec![0; calls.len()];
        let mut answered = vec![false; calls.len()];
        // The calls the messages answer, in the order they came.
        let mut answering = Vec::with_capacity(messages.len());
        for (i, message) in messages.iter().enumerate() {
            let Some(id) = message.id.as_deref() else {
                let msg = format!("messages[{i}] has no string tool_call_id");
                self.violation(
                    Code::MessageIdMissing,
                    Place::message(i, "/tool_call_id"),
                    msg,
                );
                continue;
            };
            let Some(&c) = self.call_of.get(id) else {
                let msg = format!(
                    "messages[{i}] answers tool_call_id {}, which is no call of this invocation",
                    quoted(id)
                );
                let place = Place::message(i, "/tool_call_id");
                self.violation(Code::MessageUnknownCall, place, msg);
                continue;
            };
            if std::mem::replace(&mut answered[c], true) {
                let msg =
                    format!("messages[{i}] is a second message for call {id}: each call gets one");
                let place = Place::message(i, "").of_call(Some(c));
                self.violation(Code::SecondMessage, place, msg);
                continue;
            }
            answering.push(c);
            match message.content.as_deref() {
                Some(content) => {
                    // A string cut between the halves of a surrogate pair
                    // ([`wire::parse_reply`]): no prose a model can read.
                    if let Some((_, unit)) = wire::lone_surrogates(content).first() {
                        let msg = format!(
                            "the prose of call {id} holds a lone surrogate \\u{unit:04x}: it is not a Unicode string (a string cut between the halves of a surrogate pair, as slicing it by UTF-16 length does)"
                        );
                        let place = Place::message(i, "/content").of_call(Some(c));
                        self.violation(Code::LoneSurrogate, place, msg);
                    }
                    contents[c] = Some(content);
                    message_at[c] = i;
                }
                None => {
                    let msg = format!("messages[{i}] (call {id}) has no string content");
                    let place = Place::message(i, "/content").of_call(Some(c));
                    self.violation(Code::ContentMissing, place, msg);
                }
            }
        }
        self.unanswered(&answered, &answering);
        self.leaks_and_rendering(contents, &message_at, reference);
    }

    /// Clause 3's one message per call: a call no message answers, and
    /// messages out of call order (each was matched by `tool_call_id`).
    fn unanswered(&mut self, answered: &[bool], answering: &[usize]) {
        let calls = &self.case.calls;
        for (c, call) in calls.iter().enumerate().filter(|&(c, _)| !answered[c]) {
            let msg = format!(
                "call {} has no message: each call gets one",
                call.tool_call_id
            );
            self.violation(Code::MessageMissing, Place::call(c), msg);
        }
        if !answering.is_sorted() {
            let msg =
                "messages are not in call order; each was matched to its call by tool_call_id";
            self.warning(
                Code::MessagesOutOfOrder,
                Place::key("messages"),
                msg.to_string(),
            );
        }
    }

    /// Each call's prose, by its message (`message_at`): no leak into it
    /// unless sibling cases judge ¶3, and in the exact reading the reference
    /// rendering, of a call whose result is of RT-TOOL-1's shape (whatever
    /// its siblings returned, and over RT-TOOL-6's floors too, which bound
    /// artifacts, not prose).
    fn leaks_and_rendering(
        &mut self,
        contents: Vec<Option<&str>>,
        message_at: &[usize],
        reference: &[Message],
    ) {
        let calls = &self.case.calls;
        // Built for the first prose that is read, if one is.
        let mut scan: Option<LeakScan<'_>> = None;
        let mut allowed = Vec::new();
        for (c, (call, content)) in calls.iter().zip(contents).enumerate() {
            let Some(content) = content else { continue };
            let at = Place::message(message_at[c], "/content").of_call(Some(c));
            // A prose that is the reference rendering of the call's own
            // `data` holds nothing the call may not draw on: the scan
            // excuses whatever a rendering of that `data` holds, and this
            // is one ([`LeakScan::leaks`]). Such a prose, the usual one
            // for a string `data`, is compared, not read.
            let rendered = reference.get(c).is_some_and(|m| m.content == content);
            let leaks = if self.options.siblings || rendered {
                Vec::new()
            } else {
                let scan = scan.get_or_insert_with(|| {
                    let scan = LeakScan::new(self.case, self.options.prose);
                    allowed = vec![0; scan.strings.len()];
                    scan
                });
                scan.leaks(c, content, &mut allowed)
            };
            for &(secret, whose) in &leaks {
                let msg = format!(
                    "the prose of call {} contains {}, found only in {whose}: a call's prose comes from its own data alone",
                    call.tool_call_id,
                    quoted(secret)
                );
                let place = Place {
                    from: Some(whose.to_string()),
                    ..at.clone()
                };
                self.violation(Code::ProseLeak, place, msg);
            }
            if leaks.is_empty()
                && self.owes[c]
                && self.options.prose == ProseMode::Exact
                && content != reference[c].content
            {
                let msg = format!(
                    "the prose of call {} is {}, not the reference rendering {}",
                    call.tool_call_id,
                    quoted(content),
                    quoted(&reference[c].content)
                );
                self.violation(Code::ProseNotReference, at, msg);
            }
        }
    }
}

/// Each call's index by its id (the first call of an id, were one repeated).
pub(super) fn call_index<R>(calls: &[Call<R>]) -> HashMap<&str, usize> {
    let mut index = HashMap::with_capacity(calls.len());
    for (c, call) in calls.iter().enumerate() {
        index.entry(call.tool_call_id.as_str()).or_insert(c);
    }
    index
}

/// Each call's prose in an outcome: the `content` of the first message
/// answering its `tool_call_id`, if that is a string.
pub fn contents<'o>(outcome: &'o Value, calls: &[Call]) -> Vec<Option<&'o str>> {
    let messages = outcome
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // The first message answering each id.
    let mut first: HashMap<&str, &Value> = HashMap::new();
    for m in messages {
        if let Some(id) = m.get("tool_call_id").and_then(Value::as_str) {
            first.entry(id).or_insert(m);
        }
    }
    calls
        .iter()
        .map(|call| {
            first
                .get(call.tool_call_id.as_str())
                .and_then(|m| m.get("content"))
                .and_then(Value::as_str)
        })
        .collect()
}
