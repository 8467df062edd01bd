//! The rule, as a pure function from a [`Case`] to an [`Outcome`].
//!
//! > 1. A node that invokes tools surfaces every call's artifacts on a
//! >    dedicated `tool_artifacts` output port, as a list of exactly
//! >    `{type, payload, tool_call_id}` entries built key by key, so a tool can
//! >    neither override the real `tool_call_id` nor smuggle keys of its own
//! >    through.
//! > 2. That port is not exposed by default.
//! > 3. The prose fed back to the model is built from a result's `data` alone
//! >    and never from its artifacts.
//! > 4. Delivery of a run's artifacts must not depend on whether the author
//! >    exposed the port.
//!
//! — RT-TOOL-3, FlowDrop Workflow Specification 1.0-draft, CC BY 4.0.
//!
//! Each clause is one function below, named after it, and so is the RT-TOOL-2
//! filter the clauses rely on. [`outcome`] puts them together; how much of
//! that outcome is normative is decided call by call: a call whose result is
//! of RT-TOOL-1's shape owes what it keeps, whatever its siblings returned
//! ([`of_rt_tool_1_shape`], [`deliverable`]), and [`zone`] says the same of
//! the case for a reader. Nothing here does I/O, keeps state, or panics,
//! whatever JSON a tool returned.

use std::borrow::Cow;

use serde_json::Value;

use crate::wire::{
    double, write_sorted, write_sorted_object, Call, Case, Holds, JsonRef, Landed, Message, Node,
    Outcome, Reference,
};

mod zones;

pub use zones::{
    call_shape_reasons, deliverable, floor_reasons, may_deliver, may_land, of_rt_tool_1_shape,
    shape_reasons, zone, zone_of, Zone,
};
pub(crate) use zones::{candidate_entries, Holder};

/// The reference outcome of a case: the four clauses put together.
pub fn outcome<R: Holds>(case: &Case<R>) -> Outcome {
    reference(case).to_outcome()
}

/// [`outcome`], its artifacts borrowed from the case.
pub fn reference<R: Holds>(case: &Case<R>) -> Reference<'_, R::Ref<'_>> {
    Reference {
        messages: case.calls.iter().map(clause_3_prose).collect(),
        tool_artifacts: clause_4_delivery(&case.calls).collect(),
        exposed: clause_2_not_exposed_by_default(case.exposed),
    }
}

/// Clause 1: a call's kept artifacts, each built key by key as exactly
/// `{type, payload, tool_call_id}`.
///
/// The `type` and `payload` are the artifact's own; the `tool_call_id` is the
/// call's, whatever the artifact claims. Nothing else of the entry is read, so
/// an entry `{"type": "link", "payload": {…}, "tool_call_id": "c2", "Type": "x"}`
/// returned by call `c1` lands as `{"type": "link", "payload": {…},
/// "tool_call_id": "c1"}`.
///
/// Each entry borrows its parts from the case; [`Landed::to_artifact`]
/// copies them into the entry the port carries.
pub fn clause_1_key_by_key<R: Holds>(
    call: &Call<R>,
) -> impl Iterator<Item = Landed<'_, R::Ref<'_>>> + '_ {
    rt_tool_2_kept(call.result()).map(|(kind, payload)| Landed {
        kind,
        payload,
        tool_call_id: &call.tool_call_id,
    })
}

/// Clause 2: with no instance choice, the port is not exposed. An instance
/// choice overrides the node type's default (EXPO-2).
pub fn clause_2_not_exposed_by_default(instance_choice: Option<bool>) -> bool {
    instance_choice.unwrap_or(false)
}

/// Clause 3: the prose for a call, built from its result's `data` alone.
///
/// An object `data` first loses RT-TOOL-2's reserved `artifacts` key, which
/// "never reaches the prose a tool-consuming node feeds the model":
/// `{"result": "x", "artifacts": [{…}]}` is read as `{"result": "x"}`. That
/// much is normative. The rendering that follows is the reference's own
/// choice, not normative (see [`crate::reading`]): `data` a string gives that
/// string; an object whose only key is `result`, holding a string, gives
/// that string (the rule's example); null or absent gives the empty string;
/// anything else gives compact JSON with object keys sorted. A result that
/// is not an object has no `data`.
pub fn clause_3_prose<R: Holds>(call: &Call<R>) -> Message {
    let content = call.result().get("data").map_or_else(String::new, render);
    Message {
        tool_call_id: call.tool_call_id.clone(),
        content,
    }
}

/// The reference rendering of a `data`, its reserved key removed.
fn render<'a, J: JsonRef<'a>>(data: J) -> String {
    let members = match data.node() {
        Node::Null => return String::new(),
        Node::String(s) => return s.to_owned(),
        Node::Object(members) => prose_members(members),
        _ => return sorted_compact_json(data),
    };
    let mut kept = members.clone();
    if let (Some(("result", result)), None) = (kept.next(), kept.next()) {
        if let Some(s) = result.as_str() {
            return s.to_owned();
        }
    }
    let mut out = Vec::new();
    write_sorted_object(&mut out, members);
    String::from_utf8_lossy(&out).into_owned()
}

/// RT-TOOL-2's reserved key, which a tool node's output may carry and which
/// is always removed from the result's `data` (defined with the wire
/// shapes, the contract's names).
pub use crate::wire::RESERVED_KEY;

/// `data` as the prose may see it: an object without RT-TOOL-2's reserved
/// [`RESERVED_KEY`], anything else as it is.
pub fn without_reserved_key(data: &Value) -> Cow<'_, Value> {
    match data {
        Value::Object(o) if o.contains_key(RESERVED_KEY) => Cow::Owned(Value::Object(
            prose_members(o.iter().map(|(k, v)| (k.as_str(), v)))
                .map(|(k, v)| (k.to_owned(), v.clone()))
                .collect(),
        )),
        other => Cow::Borrowed(other),
    }
}

/// The members of an object `data` the prose may see: all but
/// [`RESERVED_KEY`].
pub fn prose_members<'a, J: JsonRef<'a>>(
    members: impl Iterator<Item = (&'a str, J)> + Clone,
) -> impl Iterator<Item = (&'a str, J)> + Clone {
    members.filter(|(k, _)| *k != RESERVED_KEY)
}

/// Clause 4: the run's artifacts, in call order then each result's own order.
///
/// Exposure is not an argument: delivery cannot depend on it.
pub fn clause_4_delivery<R: Holds>(
    calls: &[Call<R>],
) -> impl Iterator<Item = Landed<'_, R::Ref<'_>>> + '_ {
    calls.iter().flat_map(clause_1_key_by_key)
}

/// RT-TOOL-2's filter: the `(type, payload)` of each entry a result keeps.
///
/// A call that failed or was declined (its `success` is not `true`) carries no
/// artifacts, and neither does a result whose `artifacts` is not an array. Of
/// the entries, one with a string `type` and an object `payload` is kept and
/// any other is dropped without failing the call; RT-TOOL-6 also refuses an
/// empty `type`. So of `["link", {"type": "", "payload": {}}, {"type": "note",
/// "payload": "x"}, {"type": "link", "payload": {"url": "u"}}]` only the last
/// is kept.
pub fn rt_tool_2_kept<'a, J: JsonRef<'a>>(result: J) -> impl Iterator<Item = (&'a str, J)> {
    let succeeded = result.get("success").is_some_and(JsonRef::is_true);
    let entries = match result.get("artifacts").map(JsonRef::node) {
        Some(Node::Array(entries)) if succeeded => Some(entries),
        _ => None,
    };
    entries.into_iter().flatten().filter_map(well_formed)
}

/// RT-TOOL-2's test for one entry: `Some((type, payload))` when it is kept.
pub fn well_formed<'a, J: JsonRef<'a>>(entry: J) -> Option<(&'a str, J)> {
    let kind = entry.get("type")?.as_str()?;
    let payload = entry.get("payload")?;
    (!kind.is_empty() && payload.is_object()).then_some((kind, payload))
}

/// RT-TOOL-6's floors, read conservatively: "KB" and "MB" as 1,000 and
/// 1,000,000 bytes, and a payload's size as its longest plausible encoding.
/// A case under them is one every conforming implementation must deliver in
/// full; above them an implementation may drop artifacts, with a warning.
pub mod floors {
    /// Encoded payload bytes per artifact.
    pub const PAYLOAD_BYTES: usize = 512_000;
    /// Artifacts per run.
    pub const ARTIFACTS: usize = 50;
    /// Encoded payload bytes per run.
    pub const RUN_BYTES: usize = 2_000_000;
}

/// RT-TOOL-6 above the floors: whether an owed artifact (a kept one of a
/// call of RT-TOOL-1's shape) that a run did not deliver may have been
/// dropped by a conforming implementation, given how many artifacts the
/// run did deliver and their encoded bytes (every entry it delivered: of
/// calls of another shape, and wrong ones, included).
///
/// RT-TOOL-6 lets an implementation bound what one run collects, at or above
/// the floors, and drop "with a warning" an artifact that does not encode or
/// that exceeds a bound; "a drop is per artifact, so a later, smaller
/// artifact that fits the remaining budget is still kept". So an artifact
/// within the per-artifact floor that encodes is dropped only when the run
/// already holds a count's worth (at least [`floors::ARTIFACTS`]) or when it
/// no longer fits the remaining budget (at least [`floors::RUN_BYTES`]),
/// whatever the order it was collected in. Sizes are the longest plausible
/// encoding, never less than the implementation's own, so this errs toward
/// no false alarm. For example, of 51 artifacts of 100 bytes each, a run that
/// delivers 50 may have dropped the last; one that delivers none may not
/// have dropped any.
pub fn may_drop<'a>(
    payload: impl JsonRef<'a>,
    size: usize,
    delivered: usize,
    delivered_bytes: usize,
) -> bool {
    !encodable(payload)
        || size > floors::PAYLOAD_BYTES
        || delivered >= floors::ARTIFACTS
        || delivered_bytes.saturating_add(size) > floors::RUN_BYTES
}

/// Whether every number in a value survives as a finite IEEE double: one
/// that does not (`1e400`) may not encode at all in the implementation's
/// language, and RT-TOOL-6 drops such an artifact with a warning.
pub fn encodable<'a>(v: impl JsonRef<'a>) -> bool {
    match v.node() {
        Node::Number(n) => double(n).is_some(),
        Node::Array(mut items) => items.all(encodable),
        Node::Object(mut members) => members.all(|(_, v)| encodable(v)),
        _ => true,
    }
}

/// The longest plausible compact encoding of a value, in bytes: every
/// non-ASCII character escaped as `\uXXXX` (twice for one outside the Basic
/// Multilingual Plane) and `/` as `\/`, as PHP's `json_encode` does by
/// default, and `<`, `>`, `&`, `'`, `+` and the backtick as `\uXXXX`, as Go's
/// `encoding/json` and .NET's `System.Text.Json` do. So no case near a floor
/// is within it in one language and over it in another.
///
/// It is never more than [`ENCODED_PER_BYTE`] times the length of the
/// value's compact JSON.
pub fn encoded_len<'a>(v: impl JsonRef<'a>) -> usize {
    /// What each byte of UTF-8 costs encoded. A character is charged to its
    /// first byte: `é` (two bytes) and `€` (three) are one UTF-16 unit, 6
    /// bytes as `\u00e9`; `😀` (four) is two, 12 bytes as `\ud83d\ude00`.
    const COST: [u8; 256] = {
        let mut cost = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            cost[b] = match b as u8 {
                b'"' | b'\\' | b'/' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
                b'<' | b'>' | b'&' | b'\'' | b'+' | b'`' => 6,
                0x00..=0x1f => 6,
                0x20..=0x7f => 1,
                0x80..=0xbf => 0,
                0xc0..=0xef => 6,
                0xf0..=0xff => 12,
            };
            b += 1;
        }
        cost
    };
    fn charged(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .map(|&b| usize::from(COST[usize::from(b)]))
            .sum()
    }
    /// A byte that costs 1: ASCII, printable, none of the escaped ones.
    /// Written without the table, so a block of them is checked at vector
    /// speed: a payload of half a megabyte is mostly such blocks.
    fn plain(b: u8) -> bool {
        (0x20..0x80).contains(&b)
            & (b != b'"')
            & (b != b'\\')
            & (b != b'/')
            & (b != b'<')
            & (b != b'>')
            & (b != b'&')
            & (b != b'\'')
            & (b != b'+')
            & (b != b'`')
    }
    fn string_len(s: &str) -> usize {
        let mut blocks = s.as_bytes().chunks_exact(32);
        let mut len = 2;
        for block in &mut blocks {
            len += match block.iter().fold(true, |all, &b| all & plain(b)) {
                true => block.len(),
                false => charged(block),
            };
        }
        len + charged(blocks.remainder())
    }
    match v.node() {
        Node::Null => 4,
        Node::Bool(b) => 4 + usize::from(!b),
        Node::Number(n) => n.len(),
        Node::String(s) => string_len(s),
        Node::Array(items) => {
            2 + items.len().saturating_sub(1) + items.map(encoded_len).sum::<usize>()
        }
        Node::Object(members) => {
            2 + members.len().saturating_sub(1)
                + members
                    .map(|(k, v)| string_len(k) + 1 + encoded_len(v))
                    .sum::<usize>()
        }
    }
}

/// The most [`encoded_len`] charges for a byte of a value's compact JSON:
/// six, for `<`, `>`, `&`, `'`, `+` and the backtick, which compact JSON
/// writes as themselves. A two-byte character costs six (`é` as
/// `\u00e9`), a three-byte one six, a four-byte one twelve; a control
/// character costs no more than its own escape takes; quotes, brackets,
/// separators, numbers, `null` and booleans cost what they take. So a case
/// whose compact JSON is at most a sixth of [`floors::PAYLOAD_BYTES`] long
/// is within every byte floor, however its payloads encode.
pub const ENCODED_PER_BYTE: usize = 6;

/// Compact JSON with every object's keys sorted, numbers as their own digits.
pub fn sorted_compact_json<'a>(v: impl JsonRef<'a>) -> String {
    let mut out = Vec::new();
    write_sorted(&mut out, v);
    // Written from strings, so always UTF-8.
    match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}
