//! A case's results held as one compact tree: twelve bytes a value, its
//! strings and keys read in place from the case's text.
//!
//! A `serde_json::Value` takes 72 bytes, an object's entry 104 and each
//! string a block of its own, so a case of many small values held as
//! `Value`s weighs seven to fifteen times its text. Here every value is a
//! slot in one array: a kind and two numbers, which for a string or a
//! number are where its text is (in the case's text when it has no
//! escapes, else in one side buffer), and for an array or an object where
//! its items lie (contiguous, an object's as key, value, key, value). The
//! tree is built as serde_json reads the text, so it reads it exactly as
//! [`parse_value`](super::parse_value) does: every digit and key order
//! kept, a repeated key's last value where its first stood, serde_json's
//! private number key a key unless serde_json itself put it there.

use std::fmt;
use std::hash::BuildHasher;
use std::iter::StepBy;
use std::ops::Range;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::parse::{check_depth, parse, refusal, Refusal};
use super::refuse::{CaseVisitor, Results};
use super::shapes::{Call, Case};
use super::view::{Held, JsonRef, Node};

/// One value of a [`Tree`]: its kind, and where its text or its items are.
#[derive(Clone, Copy)]
struct Slot {
    tag: u32,
    start: u32,
    len: u32,
}

const NULL: u32 = 0;
const FALSE: u32 = 1;
const TRUE: u32 = 2;
const NUMBER: u32 = 3;
const STRING: u32 = 4;
const ARRAY: u32 = 5;
const OBJECT: u32 = 6;
/// The kind's bits of a tag.
const KIND: u32 = 7;
/// A tag's flag: the text is in the side buffer, not the case's text.
const SIDE: u32 = 8;

/// The values of a case's results, read from its text.
pub struct Tree<'t> {
    text: &'t str,
    side: String,
    nodes: Vec<Slot>,
}

/// The text of a string's or a number's slot, in the case's text or the
/// side buffer.
fn text_of<'s>(text: &'s str, side: &'s str, slot: Slot) -> &'s str {
    let span = slot.start as usize..(slot.start as usize + slot.len as usize);
    let whole = if slot.tag & SIDE != 0 { side } else { text };
    // Spans are made from the strings they hold, so always in range.
    whole.get(span).unwrap_or_default()
}

impl Tree<'_> {
    fn str(&self, slot: Slot) -> &str {
        text_of(self.text, &self.side, slot)
    }

    fn slot(&self, at: u32) -> Slot {
        self.nodes.get(at as usize).copied().unwrap_or(Slot {
            tag: NULL,
            start: 0,
            len: 0,
        })
    }

    fn at(&self, at: u32) -> Compact<'_> {
        Compact { tree: self, at }
    }
}

/// Reads a case from its JSON text as [`Case::from_json`] does (the same
/// refusals, word for word), its results into one compact [`Tree`], and
/// hands `with` the case, its results borrowed from the tree (as the
/// judge reads them, so it judges this case without a copy of it).
pub fn with_case<T>(bytes: &[u8], with: impl FnOnce(&Case<Held<'_>>) -> T) -> Result<T, Refusal> {
    check_depth(bytes)?;
    // A valid case is UTF-8 throughout: serde_json takes no other bytes in
    // a string, and none but ASCII outside one.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(parse::<Case>(bytes)
            .err()
            .unwrap_or_else(|| Refusal("a case must be UTF-8".to_owned())));
    };
    let mut build = Build {
        text,
        side: String::new(),
        nodes: Vec::with_capacity(most_slots(bytes)),
        stack: Vec::new(),
        number: false,
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let roots = de
        .deserialize_map(CaseVisitor {
            results: &mut build,
        })
        .and_then(|case| de.end().map(|()| case))
        .map_err(refusal)?;
    let Build {
        text, side, nodes, ..
    } = build;
    let tree = Tree { text, side, nodes };
    let case = Case {
        exposed: roots.exposed,
        calls: roots
            .calls
            .into_iter()
            .map(|call| Call {
                tool_call_id: call.tool_call_id,
                result: Held::Compact(tree.at(call.result)),
            })
            .collect(),
    };
    Ok(with(&case))
}

/// The most slots a text's values and keys can take: each but the first
/// follows a `,`, a `:`, a `[` or a `{`. Reserved at once, so the array is
/// never copied to grow; what is reserved and not written is never
/// touched, so it takes no memory.
fn most_slots(bytes: &[u8]) -> usize {
    1 + memchr::memchr3_iter(b',', b':', b'[', bytes).count()
        + memchr::memchr_iter(b'{', bytes).count()
}

/// A value of a [`Tree`].
#[derive(Clone, Copy)]
pub struct Compact<'a> {
    tree: &'a Tree<'a>,
    at: u32,
}

impl fmt::Debug for Compact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        super::write::write_value(&mut out, *self);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

impl<'a> JsonRef<'a> for Compact<'a> {
    type Items = Items<'a>;
    type Members = Members<'a>;

    fn node(self) -> Node<'a, Self> {
        let tree = self.tree;
        let slot = tree.slot(self.at);
        let first = slot.start;
        match slot.tag & KIND {
            FALSE => Node::Bool(false),
            TRUE => Node::Bool(true),
            NUMBER => Node::Number(tree.str(slot)),
            STRING => Node::String(tree.str(slot)),
            ARRAY => Node::Array(Items {
                tree,
                slots: first..first.saturating_add(slot.len),
            }),
            OBJECT => Node::Object(Members {
                tree,
                keys: (first..first.saturating_add(slot.len.saturating_mul(2))).step_by(2),
            }),
            _ => Node::Null,
        }
    }
}

/// An array's items in a [`Tree`].
#[derive(Clone)]
pub struct Items<'a> {
    tree: &'a Tree<'a>,
    slots: Range<u32>,
}

impl<'a> Iterator for Items<'a> {
    type Item = Compact<'a>;

    fn next(&mut self) -> Option<Compact<'a>> {
        self.slots.next().map(|at| self.tree.at(at))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl ExactSizeIterator for Items<'_> {}

/// An object's members in a [`Tree`]: their slots are key, value, key,
/// value, from the object's first.
#[derive(Clone)]
pub struct Members<'a> {
    tree: &'a Tree<'a>,
    keys: StepBy<Range<u32>>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, Compact<'a>);

    fn next(&mut self) -> Option<(&'a str, Compact<'a>)> {
        let key = self.keys.next()?;
        Some((self.tree.str(self.tree.slot(key)), self.tree.at(key + 1)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.keys.size_hint()
    }
}

impl ExactSizeIterator for Members<'_> {}

/// A [`Tree`] as it is built: the values of the containers still open wait
/// on `stack`, and move to `nodes`, contiguous, when their container closes.
pub(super) struct Build<'t> {
    text: &'t str,
    side: String,
    nodes: Vec<Slot>,
    stack: Vec<Slot>,
    /// Set when the value after serde_json's private number key came as the
    /// number's own text.
    number: bool,
}

/// Each call's result read into the tree, as the index of its root.
impl<'de> Results<'de> for &mut Build<'_> {
    type Result = u32;

    fn read<A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<u32, A::Error> {
        let slot = map.next_value_seed(Read { build: self })?;
        self.place(slot)
    }
}

impl Build<'_> {
    /// A slot for `s`, in place when it lies in the text.
    fn text<E: Error>(&mut self, tag: u32, s: &str) -> Result<Slot, E> {
        // A string serde_json lends lies in the text whole; one it copied
        // out of its escapes lies elsewhere, in its scratch buffer.
        if self.text.as_bytes().as_ptr_range().contains(&s.as_ptr()) {
            return Ok(Slot {
                tag,
                start: index(s.as_ptr() as usize - self.text.as_ptr() as usize)?,
                len: index(s.len())?,
            });
        }
        let start = index(self.side.len())?;
        self.side.push_str(s);
        Ok(Slot {
            // No kind has the flag's bit.
            tag: tag + SIDE,
            start,
            len: index(s.len())?,
        })
    }

    /// Moves a value to `nodes`, where it stays: its index.
    fn place<E: Error>(&mut self, slot: Slot) -> Result<u32, E> {
        self.nodes.push(slot);
        index(self.nodes.len() - 1)
    }

    /// Closes a container whose items wait on the stack from `from`.
    fn close<E: Error>(&mut self, tag: u32, from: usize) -> Result<Slot, E> {
        let start = index(self.nodes.len())?;
        let items = self.stack.len() - from;
        let len = if tag == OBJECT { items / 2 } else { items };
        self.nodes.extend(self.stack.drain(from..));
        Ok(Slot {
            tag,
            start,
            len: index(len)?,
        })
    }

    /// Keeps each key of the object whose members wait on the stack from
    /// `from` once: a repeated key's last value where its first stood, as
    /// serde_json's `Map` (with `preserve_order`) inserts it.
    fn once_each(&mut self, from: usize) {
        let Build {
            text, side, stack, ..
        } = self;
        let key = |slot: Slot| text_of(text, side, slot);
        let members = stack.get(from..).unwrap_or_default();
        let hasher = foldhash::fast::FixedState::default();
        let mut hashes: Vec<u64> = members
            .chunks_exact(2)
            .map(|m| hasher.hash_one(key(m[0])))
            .collect();
        hashes.sort_unstable();
        if hashes.windows(2).all(|w| w[0] != w[1]) {
            return;
        }
        drop(hashes);
        let mut first: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
        let mut kept: Vec<Slot> = Vec::with_capacity(members.len());
        for m in members.chunks_exact(2) {
            match first.get(key(m[0])) {
                Some(&i) => kept[i + 1] = m[1],
                None => {
                    first.insert(key(m[0]), kept.len());
                    kept.extend_from_slice(m);
                }
            }
        }
        drop(first);
        stack.truncate(from);
        stack.extend(kept);
    }
}

/// A length or an offset as a slot holds it.
fn index<E: Error>(n: usize) -> Result<u32, E> {
    u32::try_from(n).map_err(|_| E::custom("a case of 4 GiB or more"))
}

/// Reads one value into the tree: its slot, not yet placed.
struct Read<'b, 't> {
    build: &'b mut Build<'t>,
}

impl<'de> DeserializeSeed<'de> for Read<'_, '_> {
    type Value = Slot;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Reads an object's key into the tree.
struct Key<'b, 't> {
    build: &'b mut Build<'t>,
}

impl<'de> DeserializeSeed<'de> for Key<'_, '_> {
    type Value = Slot;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot, D::Error> {
        deserializer.deserialize_str(Read { build: self.build })
    }
}

impl<'de> Visitor<'de> for Read<'_, '_> {
    type Value = Slot;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: Error>(self) -> Result<Slot, E> {
        Ok(Slot {
            tag: NULL,
            start: 0,
            len: 0,
        })
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Slot, E> {
        Ok(Slot {
            tag: if b { TRUE } else { FALSE },
            start: 0,
            len: 0,
        })
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Slot, E> {
        self.build.text(NUMBER, &n.to_string())
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Slot, E> {
        self.build.text(NUMBER, &n.to_string())
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Slot, E> {
        let n = Number::from_f64(n).ok_or_else(|| E::custom("not a JSON number"))?;
        self.build.text(NUMBER, n.as_str())
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Slot, E> {
        self.build.text(STRING, s)
    }

    /// serde_json's readers of text lend a string or copy it out of its
    /// escapes; only a number's own text comes owned, the value of the
    /// one-member map under its private key that serde_json itself hands a
    /// visitor for a number (see [`super::untrusted`]).
    fn visit_string<E: Error>(self, s: String) -> Result<Slot, E> {
        let n: Number = s.parse().map_err(E::custom)?;
        self.build.number = true;
        self.build.text(NUMBER, n.as_str())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Slot, A::Error> {
        let build = self.build;
        let from = build.stack.len();
        while let Some(item) = seq.next_element_seed(Read { build: &mut *build })? {
            build.stack.push(item);
        }
        build.close(ARRAY, from)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot, A::Error> {
        let build = self.build;
        let from = build.stack.len();
        while let Some(key) = map.next_key_seed(Key { build: &mut *build })? {
            let value = map.next_value_seed(Read { build: &mut *build })?;
            // The map was serde_json's own for a number: its value is it.
            if build.number {
                build.number = false;
                return Ok(value);
            }
            build.stack.push(key);
            build.stack.push(value);
        }
        build.once_each(from);
        build.close(OBJECT, from)
    }
}
