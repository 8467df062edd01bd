//! An observed outcome read part by part: from a parsed [`Value`], or
//! straight from its JSON text, the port's entries matched as they are
//! read, so that an entry that lands as it should is let go at once.
//!
//! Either way the judge sees the same parts in the same order: the keys
//! the contract does not define, the exposure, the port entry by entry,
//! and each message's id and content; [`Reading::finish`] then judges
//! them in the order the clauses come. A repeated key keeps its last
//! value, as a parsed [`Value`] does.

use std::borrow::Cow;
use std::fmt;

use foldhash::{HashSet, HashSetExt};
use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::clauses::Judge;
use super::pool::Expected;
use super::port::PortRun;
use super::written::{Buffer, Entry, Written};
use super::{NotAnOutcome, Wanted};
use crate::code::{Code, Place};
use crate::wire::{self, kind, untrusted};

/// What one message says: its `tool_call_id` and its `content`, each
/// only if it is a string.
pub(super) struct Said<'v> {
    pub(super) id: Option<Cow<'v, str>>,
    pub(super) content: Option<Cow<'v, str>>,
}

impl<'v> Said<'v> {
    fn of(message: &'v Value) -> Said<'v> {
        let field = |key| message.get(key).and_then(Value::as_str).map(Cow::Borrowed);
        Said {
            id: field("tool_call_id"),
            content: field("content"),
        }
    }

    fn owned(message: Value) -> Said<'static> {
        let Value::Object(mut fields) = message else {
            return Said {
                id: None,
                content: None,
            };
        };
        let mut field = |key| match fields.swap_remove(key) {
            Some(Value::String(s)) => Some(Cow::Owned(s)),
            _ => None,
        };
        Said {
            id: field("tool_call_id"),
            content: field("content"),
        }
    }
}

/// A list of the outcome: absent, something else (what it is), or read.
pub(super) enum Part<T> {
    Absent,
    NotList(&'static str),
    List(T),
}

/// An outcome being read, and the judge it is read for.
pub(super) struct Reading<'a, 'p, 'v> {
    judge: Judge<'a>,
    may_land: &'p [Expected<'p>],
    /// The keys the contract does not define, each once, in the order met.
    unknown: Vec<Cow<'v, str>>,
    seen: HashSet<String>,
    exposed: Option<Cow<'v, Value>>,
    port: Part<PortRun<'p, 'v>>,
    messages: Part<Vec<Said<'v>>>,
}

impl<'a, 'p, 'v> Reading<'a, 'p, 'v> {
    pub(super) fn new(judge: Judge<'a>, may_land: &'p [Expected<'p>]) -> Self {
        Reading {
            judge,
            may_land,
            unknown: Vec::new(),
            seen: HashSet::new(),
            exposed: None,
            port: Part::Absent,
            messages: Part::Absent,
        }
    }

    /// Reads a parsed outcome's members.
    pub(super) fn members(&mut self, outcome: &'v serde_json::Map<String, Value>) {
        for (key, value) in outcome {
            match key.as_str() {
                "exposed" => self.exposed = Some(Cow::Borrowed(value)),
                "messages" => {
                    self.messages = match value {
                        Value::Array(m) => Part::List(m.iter().map(Said::of).collect()),
                        other => Part::NotList(kind(other)),
                    }
                }
                "tool_artifacts" => match value {
                    Value::Array(entries) => {
                        self.port_list();
                        for (i, entry) in entries.iter().enumerate() {
                            self.entry(i, Cow::Borrowed(entry), None);
                        }
                    }
                    other => self.port_kind(kind(other)),
                },
                _ => self.unknown(Cow::Borrowed(key)),
            }
        }
    }

    fn unknown(&mut self, key: Cow<'v, str>) {
        if self.seen.insert(key.to_string()) {
            self.unknown.push(key);
        }
    }

    /// A port that is a list, about to be read: what a port read before
    /// found is let go (a repeated key keeps its last value).
    fn port_list(&mut self) {
        self.judge.violations.clear();
        self.judge.warnings.clear();
        self.port = Part::List(self.judge.port_run(self.may_land));
    }

    fn port_kind(&mut self, kind: &'static str) {
        self.judge.violations.clear();
        self.judge.warnings.clear();
        self.port = Part::NotList(kind);
    }

    fn entry(&mut self, i: usize, entry: Cow<'v, Value>, written: Option<Written>) {
        if let Part::List(run) = &mut self.port {
            self.judge.port_entry(run, i, entry, written);
        }
    }

    /// Judges what was read: the keys no one defined, the exposure
    /// (clause 2), the port (clauses 1 and 4), then the prose (clause 3).
    /// While the outcome is read only the port's entries are judged, so
    /// every finding so far is the port's.
    pub(super) fn finish(self, reference: Wanted<'_>) -> (Judge<'a>, std::ops::Range<usize>) {
        let Reading {
            mut judge,
            unknown,
            exposed,
            port,
            messages,
            ..
        } = self;
        let port_violations = std::mem::take(&mut judge.violations);
        let port_warnings = std::mem::take(&mut judge.warnings);
        for key in unknown {
            let msg = format!(
                "the outcome has a key `{key}` the contract does not define; it was ignored"
            );
            judge.warning(Code::UnknownOutcomeKey, Place::key(&key), msg);
        }
        judge.warnings.extend(port_warnings);
        let exposed = judge.exposure(exposed.as_deref(), reference.exposed);
        let start = judge.violations.len();
        judge.violations.extend(port_violations);
        match port {
            Part::List(run) => judge.port_end(run, exposed),
            Part::NotList(kind) => judge.port_absent(Some(kind), exposed),
            Part::Absent => judge.port_absent(None, exposed),
        }
        let range = start..judge.violations.len();
        judge.prose(&messages, reference.messages);
        (judge, range)
    }
}

impl Reading<'_, '_, 'static> {
    /// Reads an outcome from its JSON text, nested no deeper than
    /// [`wire::MAX_DEPTH`]: `Err` if it is no JSON, `Ok(Err)` if it is no
    /// object.
    pub(super) fn text(&mut self, bytes: &[u8]) -> Result<Result<(), NotAnOutcome>, wire::Refusal> {
        wire::parse_seed(bytes, Top(self, bytes.len()))
    }
}

/// Reads the outcome's top level: an object is read member by member;
/// anything else is no outcome. With it, the length of the outcome's
/// text, the most any of its payloads can take written.
struct Top<'r, 'a, 'p>(&'r mut Reading<'a, 'p, 'static>, usize);

type Read = Result<(), NotAnOutcome>;

fn not_an_object(kind: &str) -> Read {
    Err(NotAnOutcome(format!(
        "the outcome is {kind}, not an object"
    )))
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_, '_> {
    type Value = Read;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Read, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_, '_> {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an outcome")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let (reading, len) = (self.0, self.1);
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Ok(()));
        };
        // serde_json's private key, its value a number's own text: the
        // outcome is that number ([`untrusted`]).
        let mut key = Some(first);
        if key.as_deref() == Some(wire::SERDE_NUMBER_KEY) {
            if let untrusted::Read::Number(_) = map.next_value_seed(untrusted::AfterNumberKey)? {
                return Ok(not_an_object("a number"));
            }
            reading.unknown(Cow::Borrowed(wire::SERDE_NUMBER_KEY));
            key = map.next_key::<String>()?;
        }
        while let Some(k) = key {
            match k.as_str() {
                "exposed" => {
                    reading.exposed = Some(Cow::Owned(map.next_value_seed(untrusted::Any)?));
                }
                "messages" => reading.messages = map.next_value_seed(Messages)?,
                "tool_artifacts" => map.next_value_seed(Port {
                    reading: &mut *reading,
                    payloads: Buffer::new(len),
                })?,
                _ => {
                    reading.unknown(Cow::Owned(k));
                    // Read, not skipped: serde_json skips a string's
                    // bytes without checking they are UTF-8.
                    map.next_value_seed(untrusted::Any)?;
                }
            }
            key = map.next_key::<String>()?;
        }
        Ok(Ok(()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read, A::Error> {
        while seq.next_element_seed(untrusted::Any)?.is_some() {}
        Ok(not_an_object("an array"))
    }

    fn visit_unit<E: Error>(self) -> Result<Read, E> {
        Ok(not_an_object("null"))
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<Read, E> {
        Ok(not_an_object("a boolean"))
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<Read, E> {
        Ok(not_an_object("a number"))
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<Read, E> {
        Ok(not_an_object("a number"))
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<Read, E> {
        Ok(not_an_object("a number"))
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<Read, E> {
        Ok(not_an_object("a string"))
    }
}

/// Reads a list of the outcome element by element, each element read by
/// [`Elements::Seed`] and handed to `each`; anything else is read whole,
/// as [`untrusted::Any`] reads it, for what it is.
trait Elements<'de>: Sized {
    /// The part once read.
    type Part;
    /// An element as read.
    type Element;
    /// What reads one element.
    type Seed<'s>: DeserializeSeed<'de, Value = Self::Element>
    where
        Self: 's;
    fn seed(&mut self) -> Self::Seed<'_>;
    fn each(&mut self, i: usize, element: Self::Element);
    fn list(self) -> Self::Part;
    fn not_list(self, kind: &'static str) -> Self::Part;
}

/// [`Elements`] as a visitor.
struct List<E>(E);

impl<'de, E: Elements<'de>> Visitor<'de> for List<E> {
    type Value = E::Part;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<E::Part, A::Error> {
        let mut i = 0;
        while let Some(element) = seq.next_element_seed(self.0.seed())? {
            self.0.each(i, element);
            i += 1;
        }
        Ok(self.0.list())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<E::Part, A::Error> {
        let value = untrusted::Any.visit_map(map)?;
        Ok(self.0.not_list(kind(&value)))
    }

    fn visit_unit<Er: Error>(self) -> Result<E::Part, Er> {
        Ok(self.0.not_list("null"))
    }

    fn visit_bool<Er: Error>(self, _: bool) -> Result<E::Part, Er> {
        Ok(self.0.not_list("a boolean"))
    }

    fn visit_i64<Er: Error>(self, _: i64) -> Result<E::Part, Er> {
        Ok(self.0.not_list("a number"))
    }

    fn visit_u64<Er: Error>(self, _: u64) -> Result<E::Part, Er> {
        Ok(self.0.not_list("a number"))
    }

    fn visit_f64<Er: Error>(self, _: f64) -> Result<E::Part, Er> {
        Ok(self.0.not_list("a number"))
    }

    fn visit_str<Er: Error>(self, _: &str) -> Result<E::Part, Er> {
        Ok(self.0.not_list("a string"))
    }
}

/// The `messages`: each message's id and content kept, the rest let go.
struct Messages;

impl<'de> Elements<'de> for Vec<Said<'static>> {
    type Part = Part<Vec<Said<'static>>>;
    type Element = Value;
    type Seed<'s> = untrusted::Any;

    fn seed(&mut self) -> untrusted::Any {
        untrusted::Any
    }

    fn each(&mut self, _: usize, message: Value) {
        self.push(Said::owned(message));
    }

    fn list(self) -> Self::Part {
        Part::List(self)
    }

    fn not_list(self, kind: &'static str) -> Self::Part {
        Part::NotList(kind)
    }
}

impl<'de> DeserializeSeed<'de> for Messages {
    type Value = Part<Vec<Said<'static>>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(List(Vec::new()))
    }
}

/// The `tool_artifacts`: each entry matched as it is read, its payload
/// written into the buffer rather than made a tree.
struct Port<'r, 'a, 'p> {
    reading: &'r mut Reading<'a, 'p, 'static>,
    payloads: Buffer,
}

impl<'de> Elements<'de> for Port<'_, '_, '_> {
    type Part = ();
    type Element = (Value, Option<u64>);
    type Seed<'s>
        = Entry<'s>
    where
        Self: 's;

    fn seed(&mut self) -> Entry<'_> {
        Entry(&mut self.payloads)
    }

    fn each(&mut self, i: usize, (entry, hash): (Value, Option<u64>)) {
        let written = hash.map(|hash| self.payloads.written(hash));
        self.reading.entry(i, Cow::Owned(entry), written);
    }

    fn list(self) {}

    fn not_list(self, kind: &'static str) {
        self.reading.port_kind(kind);
    }
}

impl<'de> DeserializeSeed<'de> for Port<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.reading.port_list();
        deserializer.deserialize_any(List(self))
    }
}
