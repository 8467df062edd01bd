//! The `tool_artifacts` port judged: clause 1 and RT-TOOL-2 entry by entry,
//! RT-TOOL-6's bounds, and what explains an entry that matches nothing.

use std::borrow::Cow;
use std::cell::OnceCell;

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use super::clauses::Judge;
use super::findings::quoted;
use super::json::{first_difference, json_eq, json_hash, Eq};
use super::pool::Expected;
use super::pool::{read_back, Payload, Pool, Source, Sources};
use super::written::Written;
use crate::code::{self, Code, Place};
use crate::model;
use crate::wire::{self, kind, JsonRef};

/// The `tool_artifacts` port of one outcome being judged, its entries
/// matched one by one as they are read: the pool, the artifacts matched
/// in the order their entries came, and the entries that matched none,
/// kept to be explained once every entry is read.
pub(super) struct PortRun<'p, 'v> {
    pool: Pool<'p>,
    order: Vec<usize>,
    unmatched: Vec<Unmatched<'v>>,
}

/// An entry of the port that matched nothing, as much of it as what
/// explains it reads ([`Judge::diagnose`]): its place, its parts and its
/// payload's [`json_hash`].
struct Unmatched<'v> {
    i: usize,
    parts: Parts<'v>,
    hash: u64,
}

/// An unmatched entry's `type`, payload and call id.
enum Parts<'v> {
    /// Borrowed from an outcome parsed whole.
    Borrowed(&'v Value, &'v Value, &'v str),
    /// Of an entry read from the outcome's text and let go: its `type`
    /// and payload written back as compact JSON one after the other (the
    /// payload from `split`), each read again when it is explained, and
    /// its call id. On 100,000 small entries no call produced, the entries
    /// kept as trees were most of `check`'s memory: an entry `{"type":
    /// "note", "payload": {"seq": 1000}, …}` takes about 800 bytes as a
    /// tree, its `"note"{"seq":1000}` 19 as text.
    Written {
        text: Box<[u8]>,
        split: usize,
        id: Box<str>,
    },
}

impl<'v> Unmatched<'v> {
    /// Its payload's longest plausible encoding ([`model::encoded_len`]).
    fn encoded_len(&self) -> usize {
        match &self.parts {
            Parts::Borrowed(_, payload, _) => model::encoded_len(*payload),
            Parts::Written { text, split, .. } => model::encoded_len(&read_back(&text[*split..])),
        }
    }

    /// Entry `i`'s parts; `None` if it lacks one (which
    /// [`Judge::entry_shape`] has said). A payload read apart from its
    /// entry ([`Written`]) is taken as written.
    fn of(
        i: usize,
        entry: Cow<'v, Value>,
        written: Option<Written<'_>>,
        hash: u64,
    ) -> Option<Unmatched<'v>> {
        let parts = match entry {
            Cow::Borrowed(entry) => {
                let (kind, payload, id) = shape(entry)?;
                Parts::Borrowed(kind, payload, id)
            }
            Cow::Owned(entry) => {
                let (kind, payload, id) = shape(&entry)?;
                let mut text = Vec::new();
                wire::write_value(&mut text, kind);
                let split = text.len();
                match written {
                    Some(written) => text.extend_from_slice(written.text),
                    None => wire::write_value(&mut text, payload),
                }
                Parts::Written {
                    text: text.into(),
                    split,
                    id: id.into(),
                }
            }
        };
        Some(Unmatched { i, parts, hash })
    }
}

impl<'a> Judge<'a> {
    /// Whether artifact `p` of the pool is owed: its call's result is of
    /// RT-TOOL-1's shape ([`model::of_rt_tool_1_shape`]).
    fn owed(&self, pool: &Pool<'_>, p: usize) -> bool {
        let call = self.call_of.get(pool.artifacts[p].tool_call_id);
        call.is_some_and(|&c| self.owes[c])
    }

    /// The port's entries, about to be read.
    pub(super) fn port_run<'p, 'v>(&self, may_land: &'p [Expected<'p>]) -> PortRun<'p, 'v> {
        PortRun {
            pool: Pool::new(may_land),
            order: Vec::new(),
            unmatched: Vec::new(),
        }
    }

    /// Clause 1 and RT-TOOL-2 for entry `i` of the port, as it is read: its
    /// shape, then the first unused artifact of the call it claims with its
    /// `type` and payload, found through the index. Every entry that is an
    /// artifact as it should be is matched so first, so what explains the
    /// others ([`Judge::port_end`]) does not depend on their place. An
    /// entry read from the outcome's text comes with its payload
    /// [`Written`], its place in `entry` holding `null`.
    pub(super) fn port_entry<'v>(
        &mut self,
        run: &mut PortRun<'_, 'v>,
        i: usize,
        entry: Cow<'v, Value>,
        written: Option<Written<'_>>,
    ) {
        let Some((kind_, payload, id)) = self.entry_shape(i, &entry) else {
            return;
        };
        let (payload, hash) = match &written {
            Some(w) => (Payload::Text(w.text, OnceCell::new()), w.hash),
            None => (Payload::Tree(payload), json_hash(payload)),
        };
        let found = run.pool.unused(Some(id), kind_, &payload, hash);
        drop(payload);
        let Some((p, eq)) = found else {
            run.unmatched.extend(Unmatched::of(i, entry, written, hash));
            return;
        };
        run.pool.used[p] = true;
        run.order.push(p);
        if eq == Eq::Lossy {
            let msg = format!("tool_artifacts[{i}] (call {id}) matches its artifact only up to the precision of an IEEE double");
            let place = run.pool.place(p, Place::entry(i, ""), &self.call_of);
            self.warning(Code::DoublePrecision, place, msg);
        }
    }

    /// Clause 1 and RT-TOOL-2 (and clause 4 where one outcome shows it,
    /// and RT-TOOL-6 above the floors) once every entry of the port is read:
    /// what is wrong with each that matched nothing, the order within each
    /// call, and what is missing of what the calls of RT-TOOL-1's shape owe
    /// (whatever the other calls returned).
    pub(super) fn port_end(&mut self, run: PortRun<'_, '_>, exposed: Option<bool>) {
        let PortRun {
            mut pool,
            order,
            unmatched,
        } = run;
        // Over the floors, what the port holds is weighed: every entry of
        // the contract's shape, matched or not, since an entry delivered
        // altered is no drop (its own finding says what is wrong with it).
        // The floors are measured only when that, or a missing artifact,
        // asks; the entries that matched nothing are weighed before they
        // are explained, each let go once it is.
        let mut over = None;
        let mut over_floors = |judge: &Judge<'_>| {
            *over.get_or_insert_with(|| {
                !model::floor_reasons(judge.case, &|p| model::encoded_len(p)).is_empty()
            })
        };
        let held = order.len() + unmatched.len();
        // (The floors are not measured for a port whose every entry
        // matched: nothing unmatched weighs anything.)
        let unmatched_bytes: usize = if unmatched.is_empty() {
            0
        } else if over_floors(self) {
            unmatched.iter().map(Unmatched::encoded_len).sum()
        } else {
            0
        };
        for Unmatched { i, parts, hash } in unmatched {
            match parts {
                Parts::Borrowed(kind_, payload, id) => {
                    self.diagnose(i, kind_, &Payload::Tree(payload), hash, id, &mut pool);
                }
                Parts::Written { text, split, id } => {
                    let (kind_, payload) = text.split_at(split);
                    let payload = Payload::Text(payload, OnceCell::new());
                    self.diagnose(i, &read_back(kind_), &payload, hash, &id, &mut pool);
                }
            }
        }
        self.order_within_calls(pool.artifacts, &order);
        let missing: Vec<usize> = (0..pool.artifacts.len())
            .filter(|&p| !pool.used[p] && self.owed(&pool, p))
            .collect();
        // Within the floors, each call's lenient pool counted at its
        // largest, every owed artifact is owed; over them, each one a bound
        // may not drop.
        if !missing.is_empty() {
            if over_floors(self) {
                let bytes: usize = (order.iter())
                    .map(|&p| model::encoded_len(pool.artifacts[p].payload))
                    .sum();
                self.bounds(&pool, &missing, (held, bytes + unmatched_bytes));
            } else {
                self.missing_artifacts(&pool, missing, exposed == Some(false));
            }
        }
        // The reference order is of the owed artifacts: what a call of
        // another shape delivers may come anywhere.
        if self.options.strict_order && !order.iter().filter(|&&p| self.owed(&pool, p)).is_sorted()
        {
            let msg = "tool_artifacts is not in the reference order (call order, then each result's order)";
            let place = Place::key("tool_artifacts");
            self.violation(Code::ArtifactsOutOfOrder, place, msg.to_string());
        }
    }

    /// Clause 1 (and clause 4 where one outcome shows it): a port that is
    /// not a list (`Some` of what it is), or none at all.
    pub(super) fn port_absent(&mut self, is: Option<&str>, exposed: Option<bool>) {
        let (code, place, msg) = match is {
            Some(kind) => (
                Code::PortNotList,
                Place::key("tool_artifacts"),
                format!("tool_artifacts is {kind}, not a list"),
            ),
            None if exposed == Some(false) => (
                Code::PortMissingWhileHidden,
                Place::default(),
                "the outcome has no tool_artifacts while the port is hidden (a runtime that strips hidden outputs, EXPO-14, from the result breaks RT-TOOL-3 ¶4; `diff` tells the two apart by running the case exposed too)".to_string(),
            ),
            None => (
                Code::PortMissing,
                Place::default(),
                "the outcome has no tool_artifacts".to_string(),
            ),
        };
        self.violation(code, place, msg);
    }

    /// Clause 1 within the floors: each owed artifact missing from the
    /// port, a violation, or a warning where its payload may not encode in
    /// the implementation's language (RT-TOOL-6).
    fn missing_artifacts(&mut self, pool: &Pool<'_>, missing: Vec<usize>, hidden: bool) {
        // A payload no double can hold may not encode in the
        // implementation's language: RT-TOOL-6 drops it with a warning.
        let (unencodable, missing): (Vec<usize>, Vec<usize>) = missing
            .into_iter()
            .partition(|&p| !model::encodable(pool.artifacts[p].payload));
        for p in unencodable {
            let msg = format!(
                "{} of call {} is missing; its payload holds a number no IEEE double can hold, which may not encode in the implementation's language, and RT-TOOL-6 drops such an artifact with a warning",
                pool.kept_name(p),
                pool.artifacts[p].tool_call_id
            );
            let place = pool.place(p, Place::default(), &self.call_of);
            self.warning(Code::UnencodableDropped, place, msg);
        }
        // Missing is what one outcome shows (¶1). Whether it is missing
        // because the port is hidden (¶4) takes a second run, which `diff`
        // makes; a person reading `check` is told where to look.
        let (code, while_hidden) = if hidden && !self.options.siblings {
            (Code::MissingArtifactWhileHidden, " (the port is hidden: a runtime that delivers it only while the port is shown breaks RT-TOOL-3 ¶4, which `diff` tells apart)")
        } else {
            (Code::MissingArtifact, "")
        };
        for p in missing {
            let want = &pool.artifacts[p];
            let msg = format!(
                "{} of call {} ({} {}) is missing from tool_artifacts{while_hidden}",
                pool.kept_name(p),
                want.tool_call_id,
                want.kind,
                want.payload
            );
            let place = pool.place(p, Place::default(), &self.call_of);
            self.violation(code, place, msg);
        }
    }

    /// RT-TOOL-6 over the floors: every owed artifact missing from the port
    /// must be one a conforming bound may have dropped ([`model::may_drop`])
    /// beside what the port holds, `(delivered, delivered_bytes)`: its
    /// entries, owed, lenient or wrong, and their payloads' encoded bytes.
    fn bounds(&mut self, pool: &Pool<'_>, missing: &[usize], held: (usize, usize)) {
        let ((delivered, delivered_bytes), artifacts) = (held, pool.artifacts);
        let owed: Vec<String> = missing
            .iter()
            .filter(|&&p| {
                let size = model::encoded_len(artifacts[p].payload);
                !model::may_drop(artifacts[p].payload, size, delivered, delivered_bytes)
            })
            .map(|&p| {
                format!(
                    "{} of call {}",
                    pool.kept_name(p),
                    artifacts[p].tool_call_id
                )
            })
            .collect();
        if owed.is_empty() {
            return;
        }
        let more = match owed.len() {
            0..=3 => String::new(),
            n => format!(" and {} more", n - 3),
        };
        let verb = if owed.len() == 1 { "is" } else { "are" };
        let kept = (0..artifacts.len()).filter(|&p| self.owed(pool, p)).count();
        let lenient = match artifacts.len() - kept {
            0 => String::new(),
            n => format!(" and {n} entries calls not of RT-TOOL-1's shape may deliver"),
        };
        let msg = format!(
            "tool_artifacts holds {delivered} entries ({delivered_bytes} bytes at most) for the run's {kept} kept artifacts{lenient}, yet {}{more} {verb} missing: a bound may drop an artifact only once {} are kept or it no longer fits {} bytes, and the rest are still kept",
            owed[..owed.len().min(3)].join(", "),
            model::floors::ARTIFACTS,
            model::floors::RUN_BYTES,
        );
        self.violation(Code::DroppedWithinBounds, Place::key("tool_artifacts"), msg);
    }

    /// A warning for each call whose artifacts arrived in another order
    /// than it returned them (the order across calls is free).
    fn order_within_calls(&mut self, pool: &[Expected<'_>], order: &[usize]) {
        let mut arrived: HashMap<&str, Vec<usize>> = HashMap::new();
        for &p in order {
            arrived.entry(pool[p].tool_call_id).or_default().push(p);
        }
        for (c, call) in self.case.calls.iter().enumerate() {
            let id = call.tool_call_id.as_str();
            if !arrived.get(id).is_none_or(|a| a.is_sorted()) {
                let msg = format!(
                    "the artifacts of call {id} arrived in another order than the call returned them"
                );
                self.warning(Code::CallOrder, Place::call(c), msg);
            }
        }
    }

    /// Checks one observed entry has exactly the three keys, and returns them.
    fn entry_shape<'v>(
        &mut self,
        i: usize,
        entry: &'v Value,
    ) -> Option<(&'v Value, &'v Value, &'v str)> {
        let Value::Object(fields) = entry else {
            let msg = format!("tool_artifacts[{i}] is {}, not an object", kind(entry));
            self.violation(Code::EntryNotObject, Place::entry(i, ""), msg);
            return None;
        };
        let extra: Vec<&String> = fields
            .keys()
            .filter(|k| !["type", "payload", "tool_call_id"].contains(&k.as_str()))
            .collect();
        if let Some(first) = extra.first() {
            let shown: Vec<String> = extra.iter().map(|k| quoted(k)).collect();
            let msg = format!(
                "tool_artifacts[{i}] carries key(s) {} beyond type, payload and tool_call_id: a tool smuggled them through",
                shown.join(", ")
            );
            let place = Place::entry(i, &format!("/{}", code::pointer_segment(first)));
            self.violation(Code::ExtraKey, place, msg);
        }
        let keys = ["type", "payload", "tool_call_id"].map(|k| (k, fields.get(k)));
        let [(_, Some(kind_)), (_, Some(payload)), (_, Some(id))] = keys else {
            let missing: Vec<&str> = keys
                .into_iter()
                .filter_map(|(k, v)| v.is_none().then_some(k))
                .collect();
            let msg = format!("tool_artifacts[{i}] lacks {}", missing.join(" and "));
            self.violation(Code::MissingKey, Place::entry(i, ""), msg);
            return None;
        };
        let Value::String(id) = id else {
            let msg = format!(
                "tool_artifacts[{i}].tool_call_id is {}, not a string",
                kind(id)
            );
            self.violation(Code::CallIdNotString, Place::entry(i, "/tool_call_id"), msg);
            return None;
        };
        Some((kind_, payload, id))
    }

    /// Says what is wrong with an observed entry that matched nothing.
    fn diagnose(
        &mut self,
        i: usize,
        kind_: &Value,
        payload: &Payload<'_>,
        hash: u64,
        id: &str,
        pool: &mut Pool<'_>,
    ) {
        let calls = &self.case.calls;
        let source = self.source(kind_, payload, hash, id, pool);
        // Something else in place of a number no double holds, and nothing
        // else changed: not dropped whole, as RT-TOOL-6 drops such an
        // artifact, but altered.
        if let Some((p, at)) = matches!(source, Source::Nowhere)
            .then(|| pool.altered(id, kind_, payload))
            .flatten()
        {
            return self.unencodable_altered(i, id, payload, p, at, pool);
        }
        let entry = Place::entry(i, "");
        let (code, place, msg) = match source {
            _ if !self.call_of.contains_key(id) => {
                if let Some((p, _)) = pool.unused(None, kind_, payload, hash) {
                    pool.used[p] = true;
                }
                let msg = format!("tool_artifacts[{i}] carries tool_call_id {}, which is no call of this invocation", quoted(id));
                let place = Place::entry(i, "/tool_call_id");
                (Code::UnknownCallId, place, msg)
            }
            Source::Kept { call, index, entry } if calls[call].tool_call_id != id => {
                let real = &calls[call].tool_call_id;
                if let Some((p, _)) = pool.unused(Some(real), kind_, payload, hash) {
                    pool.used[p] = true;
                }
                let claim = entry.get("tool_call_id").and_then(JsonRef::as_str);
                let how = if claim == Some(id) {
                    ", the id the artifact itself claims"
                } else {
                    ""
                };
                let msg = format!("artifact {index} of call {real} carries tool_call_id {id}{how}: the entry must carry its own call's id");
                let place = Place {
                    artifact: Some(index),
                    ..Place::entry(i, "/tool_call_id")
                };
                (Code::WrongCallId, place.of_call(Some(call)), msg)
            }
            // The right call's artifact, but its place in the pool is taken.
            Source::Kept { call, index, .. } => {
                let msg = format!("tool_artifacts[{i}] repeats artifact {index} of call {}: every artifact lands once", calls[call].tool_call_id);
                let place = Place {
                    artifact: Some(index),
                    ..entry.of_call(Some(call))
                };
                (Code::RepeatedArtifact, place, msg)
            }
            // Under the id of a call that misses nothing of its type: the
            // entry the call that returned it dropped, said under whose id.
            Source::Dropped {
                call,
                entry: dropped,
                why,
            } => {
                let under = match calls[call].tool_call_id == id {
                    true => String::new(),
                    false => format!(", under call {id}'s id"),
                };
                let msg = format!(
                    "tool_artifacts[{i}] is {dropped}{under}, which RT-TOOL-2 drops: {why}"
                );
                let named = self.call_of.get(id).copied();
                (Code::DroppedEntryDelivered, entry.of_call(named), msg)
            }
            Source::Nowhere => self.altered_or_unproduced(i, kind_, payload, id, entry, pool),
        };
        self.violation(code, place, msg);
    }

    /// An unmatched entry that is an artifact of its call whose payload
    /// does not encode, with something else in place of a number no double
    /// holds (the first at `at`) and nothing else changed: not dropped
    /// whole, as RT-TOOL-6 drops such an artifact, but altered.
    fn unencodable_altered(
        &mut self,
        i: usize,
        id: &str,
        payload: &Payload<'_>,
        p: usize,
        at: String,
        pool: &mut Pool<'_>,
    ) {
        pool.used[p] = true;
        let want = &pool.artifacts[p];
        // What stands there, cut at 100 characters: it may be anything.
        let shown = |text: Option<String>| {
            let text = text.unwrap_or_default();
            match text.char_indices().nth(100) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        };
        let msg = format!(
            "tool_artifacts[{i}] (call {id}, type {}) is {} of call {id} with {} at {}, a number no IEEE double can hold, delivered as {}: RT-TOOL-6 drops an artifact whose payload does not encode, with a warning, and does not alter it (a payload passes through unchanged, RT-TOOL-3 ¶1)",
            want.kind,
            pool.kept_name(p),
            shown(want.payload.pointer(&at).map(|v| v.to_string())),
            if at.is_empty() { "its root" } else { &at },
            shown(payload.tree().pointer(&at).map(Value::to_string)),
        );
        let place = pool.place(p, Place::entry(i, &format!("/payload{at}")), &self.call_of);
        self.violation(Code::UnencodableAltered, place, msg);
    }

    /// An unmatched entry found in no call's artifacts: an artifact of its
    /// call with its payload altered, if the call has an unused one of its
    /// `type`, else an artifact no call produced.
    fn altered_or_unproduced(
        &self,
        i: usize,
        kind_: &Value,
        payload: &Payload<'_>,
        id: &str,
        entry: Place,
        pool: &mut Pool<'_>,
    ) -> (Code, Place, String) {
        match pool.unused_of_kind(id, kind_) {
            Some(p) => {
                pool.used[p] = true;
                let want = &pool.artifacts[p];
                let at = first_difference(want.payload, payload.tree()).unwrap_or_default();
                // A string there cut between the halves of a surrogate
                // pair ([`wire::parse_reply`]) is said so.
                let cut = payload
                    .tree()
                    .pointer(&at)
                    .and_then(Value::as_str)
                    .and_then(|s| wire::lone_surrogates(s).first().map(|&(_, u)| u))
                    .map_or_else(String::new, |u| {
                        format!(" (the string there holds a lone surrogate \\u{u:04x}: it is not a Unicode string)")
                    });
                let shown_at = if at.is_empty() { "its root" } else { &at };
                let msg = format!(
                    "tool_artifacts[{i}] (call {id}, type {}) has a payload that differs from the artifact's at {shown_at}{cut}: payloads pass through unchanged",
                    want.kind
                );
                let place = pool.place(p, Place::entry(i, &format!("/payload{at}")), &self.call_of);
                (Code::PayloadAltered, place, msg)
            }
            None => {
                let msg =
                    format!("tool_artifacts[{i}] ({kind_} {payload}) was produced by no call");
                let named = self.call_of.get(id).copied();
                (Code::UnproducedArtifact, entry.of_call(named), msg)
            }
        }
    }

    /// Finds where an artifact's `type` and `payload` came from: an entry
    /// of some call's `artifacts`, or of the reserved key in its `data`.
    ///
    /// Two calls may return the same artifact. A kept one whose call still
    /// misses it explains the entry best (the first such call); then one of
    /// the call whose id the entry carries, a repeat or a dropped entry;
    /// then, when that call still misses an artifact of the entry's `type`,
    /// nothing ([`Source::Nowhere`]): the entry is that artifact, its
    /// payload changed, and the finding is about the call the entry names;
    /// then any dropped one; then any repeat (the first of each, in call
    /// order). So when a failed call `c1` and a successful `c2` return the
    /// same link, the link under `c1`'s id is `c2`'s mislabelled while
    /// `c2`'s is missing from the port, and `c1`'s own dropped one while it
    /// is there; and when `c2` returns another link, `c1`'s link under
    /// `c2`'s id is `c2`'s link with its payload changed (¶1), not `c1`'s
    /// delivered (RT-TOOL-2), which the entry does not claim.
    ///
    /// The kept entries are the pool's artifacts, in the same order, so the
    /// first unused artifact with this `type` and `payload` names the first
    /// call that still misses it. Everything is found through indexes.
    fn source(
        &self,
        kind_: &Value,
        payload: &Payload<'_>,
        hash: u64,
        id: &str,
        pool: &mut Pool<'_>,
    ) -> Source<'a> {
        let sources = self.sources.get_or_init(|| Sources::new(self.case));
        let kind_hash = json_hash(kind_);
        // The first entry of a list that has this type and payload (the
        // list is found by their hashes; each is then compared as JSON).
        let first = |list: Option<&Vec<usize>>| {
            list.into_iter().flatten().copied().find(|&s| {
                let entry = sources.entries[s].entry;
                let alike = |key, want: &Value| {
                    entry
                        .get(key)
                        .is_some_and(|v| json_eq(v, want) != Eq::Different)
                };
                alike("type", kind_) && alike("payload", payload.tree())
            })
        };
        let of_call = |call: usize| first(sources.of_call.get(&(call, kind_hash, hash)));
        let artifacts = pool.artifacts;
        let call_of = |p: usize| self.call_of.get(artifacts[p].tool_call_id);
        let found = match pool.unused(None, kind_, payload, hash) {
            // A kept entry whose call still misses it.
            Some((p, _)) => call_of(p).and_then(|&c| of_call(c)),
            // The call's own; else, if that call still misses an artifact
            // of this type, nothing (that artifact, altered); else any
            // dropped one, then any repeat.
            None => {
                let own = self.call_of.get(id).and_then(|&c| of_call(c));
                if own.is_none() && pool.unused_of_kind(id, kind_).is_some() {
                    return Source::Nowhere;
                }
                own.or_else(|| first(sources.dropped.get(&(kind_hash, hash))))
                    .or_else(|| {
                        let p = pool.first(kind_, payload, hash)?;
                        call_of(p).and_then(|&c| of_call(c))
                    })
            }
        };
        found.map_or(Source::Nowhere, |s| sources.source(self.case, s))
    }
}

/// An entry's `type`, `payload` and string `tool_call_id`, if it has all
/// three ([`Judge::entry_shape`] says what is wrong when it has not).
fn shape(entry: &Value) -> Option<(&Value, &Value, &str)> {
    let id = entry.get("tool_call_id")?.as_str()?;
    Some((entry.get("type")?, entry.get("payload")?, id))
}
