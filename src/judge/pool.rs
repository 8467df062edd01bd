//! The pool of expected entries: the artifacts that may land on the port,
//! indexed to be found in constant time, and where an observed one could
//! have come from.

use std::cell::OnceCell;
use std::fmt;

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use super::index::Index;
use super::json::{json_eq, json_hash, unencodable_replaced, Eq};
use super::work::tally;
use crate::code::Place;
use crate::model;
use crate::model::{candidate_entries, may_deliver, Holder};
use crate::wire::{self, kind, Case, Held, Holds, JsonRef, Landed, Node, ToolArtifact};

/// An artifact the case says may land, borrowed from the case.
pub(super) type Expected<'a> = Landed<'a, Held<'a>>;

/// An observed payload being matched: a tree, or the compact JSON of one
/// that was let go ([`wire::write_value`]), read back only when a
/// comparison first needs it. Most entries that match nothing are
/// explained by the payload's hash alone (no artifact shares it) and its
/// text.
pub(super) enum Payload<'v> {
    Tree(&'v Value),
    Text(&'v [u8], OnceCell<Value>),
}

impl Payload<'_> {
    /// The payload as a tree.
    pub(super) fn tree(&self) -> &Value {
        match self {
            Payload::Tree(v) => v,
            Payload::Text(text, tree) => tree.get_or_init(|| read_back(text)),
        }
    }

    /// How `expected` compares with this payload ([`json_eq`]). A payload
    /// kept as text that is byte for byte what [`wire::write_value`]
    /// writes of `expected` is the same, without being read back: so an
    /// entry read from the outcome's text and landed as it should is
    /// never made a tree.
    pub(super) fn compared_to(&self, expected: Held<'_>) -> Eq {
        if let Payload::Text(text, _) = self {
            tally(|w| w.compared += 1);
            // `expected` written into a sink that compares as it goes:
            // no copy of a payload is made to compare it.
            let mut rest = Rest(Some(text));
            wire::write_value(&mut rest, expected);
            if rest.0.is_some_and(<[u8]>::is_empty) {
                return Eq::Same;
            }
        }
        json_eq(expected, self.tree())
    }
}

/// What is left of a text being compared with what is written; `None`
/// once a write has differed from it, after which nothing is looked at.
struct Rest<'t>(Option<&'t [u8]>);

impl wire::Sink for Rest<'_> {
    fn push(&mut self, byte: u8) {
        self.extend_from_slice(&[byte]);
    }

    fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.0 = self.0.and_then(|text| text.strip_prefix(bytes));
    }

    /// Not counted: nothing written here asks where a part is.
    fn written(&self) -> usize {
        0
    }
}

/// Compact JSON, as [`Value`]'s own `Display` writes it.
impl fmt::Display for Payload<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Payload::Tree(v) => v.fmt(f),
            Payload::Text(text, _) => f.write_str(&String::from_utf8_lossy(text)),
        }
    }
}

/// A value [`wire::write_value`] wrote, read back: compact JSON of a value
/// read from an outcome within the nesting bound, so it reads.
pub(super) fn read_back(text: &[u8]) -> Value {
    wire::parse_value(text).unwrap_or_else(|e| {
        debug_assert!(false, "a value written did not read back: {e}");
        Value::Null
    })
}

/// Where an observed artifact's `type` and `payload` came from.
pub(super) enum Source<'v> {
    /// Kept artifact `index` of call `call` (the index among its kept ones),
    /// the entry the tool returned.
    Kept {
        call: usize,
        index: usize,
        entry: Held<'v>,
    },
    /// An entry call `call` returned but RT-TOOL-2 drops: which, and why.
    Dropped {
        call: usize,
        entry: String,
        why: String,
    },
    /// Nowhere in any call's artifacts.
    Nowhere,
}

/// The artifacts that may land on the port, which of them have, and
/// indexes that find one by call id, `type` and payload in constant time:
/// the call id and `type` exactly (each numbered), the payload by
/// [`json_hash`], so `1` finds `1.0`, then checked with [`json_eq`].
pub(super) struct Pool<'p> {
    pub(super) artifacts: &'p [Expected<'p>],
    /// Which artifacts an observed entry has matched.
    pub(super) used: Vec<bool>,
    /// Each artifact's index among its call's.
    kept: Vec<u32>,
    /// Each artifact's payload's [`json_hash`].
    hashes: Vec<u64>,
    /// Each call id and each type among the artifacts, numbered.
    ids: HashMap<&'p str, u32>,
    kinds: HashMap<&'p str, u32>,
    /// Each artifact's call id and type, by their numbers.
    numbers: Vec<(u32, u32)>,
    /// By call id, type and payload.
    by_call: Index<(u32, u32, u64)>,
    /// By type and payload, whatever the call; built when first needed.
    by_artifact: Option<Index<(u32, u64)>>,
    /// By call id and type; built when first needed.
    by_kind: Option<Index<(u32, u32)>>,
    /// Those whose payload does not encode ([`model::encodable`]), by call
    /// id and type; built when first needed.
    unencodable: Option<Index<(u32, u32)>>,
}

impl<'p> Pool<'p> {
    pub(super) fn new(artifacts: &'p [Expected<'p>]) -> Pool<'p> {
        let hashes: Vec<u64> = artifacts.iter().map(|a| json_hash(a.payload)).collect();
        let (mut ids, mut kinds) = (HashMap::new(), HashMap::new());
        let number = |map: &mut HashMap<&'p str, u32>, s: &'p str| {
            let next = map.len() as u32;
            *map.entry(s).or_insert(next)
        };
        let numbers: Vec<(u32, u32)> = artifacts
            .iter()
            .map(|a| (number(&mut ids, a.tool_call_id), number(&mut kinds, a.kind)))
            .collect();
        // Each artifact's index among its call's: how many of that call's
        // came before it.
        let mut seen = vec![0; ids.len()];
        let kept = numbers
            .iter()
            .map(|&(id, _)| {
                seen[id as usize] += 1;
                seen[id as usize] - 1
            })
            .collect();
        let by_call = Index::new(
            (numbers.iter().enumerate()).map(|(p, &(id, kind))| (p, (id, kind, hashes[p]))),
        );
        Pool {
            artifacts,
            used: vec![false; artifacts.len()],
            kept,
            hashes,
            ids,
            kinds,
            numbers,
            by_call,
            by_artifact: None,
            by_kind: None,
            unencodable: None,
        }
    }

    /// The first unused artifact of call `id` (of any call when `None`)
    /// with this `type` and a payload equal to `payload` as JSON, and how
    /// equal. `hash` is the payload's [`json_hash`].
    pub(super) fn unused(
        &mut self,
        id: Option<&str>,
        kind_: &Value,
        payload: &Payload<'_>,
        hash: u64,
    ) -> Option<(usize, Eq)> {
        let kind = *self.kinds.get(kind_.as_str()?)?;
        let artifacts = self.artifacts;
        let mut eq = Eq::Different;
        let mut test = |p: usize| {
            eq = payload.compared_to(artifacts[p].payload);
            eq != Eq::Different
        };
        let found = match id {
            Some(id) => {
                let key = (*self.ids.get(id)?, kind, hash);
                self.by_call.first(&key, Some(&self.used), &mut test)
            }
            None => by_artifact(&mut self.by_artifact, &self.numbers, &self.hashes).first(
                &(kind, hash),
                Some(&self.used),
                &mut test,
            ),
        };
        found.map(|p| (p, eq))
    }

    /// The first artifact, used or not, with this `type` and payload.
    pub(super) fn first(
        &mut self,
        kind_: &Value,
        payload: &Payload<'_>,
        hash: u64,
    ) -> Option<usize> {
        let kind = *self.kinds.get(kind_.as_str()?)?;
        let artifacts = self.artifacts;
        by_artifact(&mut self.by_artifact, &self.numbers, &self.hashes).first(
            &(kind, hash),
            None,
            |p| payload.compared_to(artifacts[p].payload) != Eq::Different,
        )
    }

    /// The first unused artifact of call `id` with this `type`.
    pub(super) fn unused_of_kind(&mut self, id: &str, kind_: &Value) -> Option<usize> {
        let key = (*self.ids.get(id)?, *self.kinds.get(kind_.as_str()?)?);
        let numbers = &self.numbers;
        let by_kind = self
            .by_kind
            .get_or_insert_with(|| Index::new(numbers.iter().copied().enumerate()));
        by_kind.first(&key, Some(&self.used), |_| true)
    }

    /// The first unused artifact of call `id` with this `type` whose
    /// payload does not encode, if `payload` is that payload with something
    /// else in place of a number no double holds and no other change; and
    /// the pointer to the first such place ([`unencodable_replaced`]). One
    /// comparison at most, so an entry costs what its payload does.
    pub(super) fn altered(
        &mut self,
        id: &str,
        kind_: &Value,
        payload: &Payload<'_>,
    ) -> Option<(usize, String)> {
        let key = (*self.ids.get(id)?, *self.kinds.get(kind_.as_str()?)?);
        let (artifacts, numbers) = (self.artifacts, &self.numbers);
        let index = self.unencodable.get_or_insert_with(|| {
            Index::new(
                (numbers.iter().copied().enumerate())
                    .filter(|&(p, _)| !model::encodable(artifacts[p].payload)),
            )
        });
        let p = index.first(&key, Some(&self.used), |_| true)?;
        unencodable_replaced(artifacts[p].payload, payload.tree()).map(|at| (p, at))
    }

    /// "artifact 2" of its call: the index among the call's kept artifacts.
    pub(super) fn kept_name(&self, p: usize) -> String {
        format!("artifact {}", self.kept[p])
    }

    /// `place`, of artifact `p`: its call (by index) and its index among
    /// the call's kept artifacts.
    pub(super) fn place(
        &self,
        p: usize,
        mut place: Place,
        call_of: &HashMap<&str, usize>,
    ) -> Place {
        place.call = call_of.get(self.artifacts[p].tool_call_id).copied();
        place.artifact = Some(self.kept[p] as usize);
        place
    }
}

/// The pool's index by type and payload, whatever the call, built in `slot`
/// when first needed.
fn by_artifact<'s>(
    slot: &'s mut Option<Index<(u32, u64)>>,
    numbers: &[(u32, u32)],
    hashes: &[u64],
) -> &'s mut Index<(u32, u64)> {
    slot.get_or_insert_with(|| {
        Index::new((numbers.iter().enumerate()).map(|(p, &(_, kind))| (p, (kind, hashes[p]))))
    })
}

/// One entry a call's result could be said to hold ([`candidate_entries`]).
pub(super) struct SourceEntry<'a> {
    call: usize,
    place: Holder,
    at: usize,
    pub(super) entry: Held<'a>,
    /// Its index among the call's kept entries, if it is one.
    kept: Option<usize>,
}

/// Every entry the calls' results could be said to hold, in call order,
/// indexed by the [`json_hash`] of its `type` and of its `payload`.
pub(super) struct Sources<'a> {
    pub(super) entries: Vec<SourceEntry<'a>>,
    /// One call's entries by (call, type, payload).
    pub(super) of_call: HashMap<(usize, u64, u64), Vec<usize>>,
    /// The entries RT-TOOL-2 drops, by (type, payload).
    pub(super) dropped: HashMap<(u64, u64), Vec<usize>>,
}

impl<'a> Sources<'a> {
    pub(super) fn new(case: &'a Case<Held<'a>>) -> Sources<'a> {
        let mut sources = Sources {
            entries: Vec::new(),
            of_call: HashMap::new(),
            dropped: HashMap::new(),
        };
        for (call, c) in case.calls.iter().enumerate() {
            let succeeded = may_deliver(c.result);
            let mut kept = 0;
            for (place, at, entry) in candidate_entries(c.result) {
                let (Some(t), Some(p)) = (entry.get("type"), entry.get("payload")) else {
                    continue;
                };
                let is_kept = succeeded && model::well_formed(entry).is_some();
                let s = sources.entries.len();
                sources.entries.push(SourceEntry {
                    call,
                    place,
                    at,
                    entry,
                    kept: is_kept.then_some(kept),
                });
                kept += usize::from(is_kept);
                let (t, p) = (json_hash(t), json_hash(p));
                sources.of_call.entry((call, t, p)).or_default().push(s);
                if !is_kept {
                    sources.dropped.entry((t, p)).or_default().push(s);
                }
            }
        }
        sources
    }

    /// Entry `s` as what explains an observed artifact.
    pub(super) fn source(&self, case: &Case<Held<'_>>, s: usize) -> Source<'a> {
        let SourceEntry {
            call,
            place,
            at,
            entry,
            kept,
        } = self.entries[s];
        if let Some(index) = kept {
            return Source::Kept { call, index, entry };
        }
        let id = &case.calls[call].tool_call_id;
        let name = match place {
            Holder::Artifacts => format!("entry {at} of call {id}'s artifacts"),
            Holder::Reserved => {
                format!("entry {at} under the reserved `artifacts` key of call {id}'s data")
            }
        };
        let why = match model::well_formed(entry) {
            Some(_) => match case.calls[call].result.get("success") {
                Some(s) if matches!(s.node(), Node::Bool(false)) => {
                    "the call failed, and a call that failed carries no artifacts".to_string()
                }
                other => format!(
                    "its `success` is {}, not true, and only a call that succeeded carries artifacts",
                    other.map_or("absent", kind)
                ),
            },
            // A source entry has a `type` and a `payload` ([`Sources::new`]).
            None => {
                let (t, p) = (entry.get("type"), entry.get("payload"));
                match t.and_then(JsonRef::as_str) {
                    Some("") => "its type is empty (RT-TOOL-6 refuses it)".to_string(),
                    Some(_) => format!("its payload is {}, not an object", p.map_or("null", kind)),
                    None => format!("its type is {}, not a string", t.map_or("null", kind)),
                }
            }
        };
        Source::Dropped {
            call,
            entry: name,
            why,
        }
    }
}

/// What each call could be said to have produced ([`model::may_land`]):
/// of a call of RT-TOOL-1's shape the artifacts it keeps, of any other the
/// well-formed entries of its `artifacts` (an array, or an object read as
/// one entry and as a map of entries) and of the reserved key in its
/// `data`, unless the call did not succeed ([`model::may_deliver`]). What
/// may land on the port, each at most once.
pub fn lenient_pool<R: Holds>(case: &Case<R>) -> Vec<ToolArtifact> {
    model::may_land(case)
        .into_iter()
        .map(Landed::to_artifact)
        .collect()
}
