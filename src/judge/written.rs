//! A port entry read from the outcome's text with its payload never made a
//! tree: the payload is written as compact JSON and hashed as it is read.
//!
//! A payload read as a [`Value`] takes 5 to 10 times its text: one entry
//! of 1,000,000 keys was 260 MB, held beside the case while it was matched.
//! Written as it is read, it takes its compact text, byte for byte what
//! [`wire::write_value`] writes of its tree, and its [`json_hash`], fed in
//! the order the tree's would be; an artifact whose payload is written so
//! alike is the same payload without reading it back
//! ([`Payload::compared_to`](super::pool::Payload::compared_to)).
//!
//! An object whose key comes twice is the one case the two differ: the
//! tree keeps the last value where the first stood. Such a payload is read
//! back from its text, as a tree, and written and hashed from that.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::json::{self, json_hash, Seeded};
use super::pool::read_back;
use crate::wire::{self, untrusted};

/// An observed payload as compact JSON text, and its [`json_hash`].
pub(super) struct Written<'b> {
    pub(super) text: &'b [u8],
    pub(super) hash: u64,
}

/// Where the port's payloads are written, one at a time: sized once to
/// the outcome's length, the most a payload's compact text can take, of
/// which only what is written becomes resident. A payload never copies
/// itself into a buffer twice its size to grow, as one 40 MB payload did
/// (the copy is the peak, the old and the new buffer at once).
pub(super) struct Buffer(Vec<u8>);

impl Buffer {
    /// Room for `len` bytes, if the system gives it; otherwise the buffer
    /// grows as it must.
    pub(super) fn new(len: usize) -> Buffer {
        let mut text = Vec::new();
        // A refusal is no error: the buffer grows as a `Vec` does.
        text.try_reserve_exact(len).ok();
        Buffer(text)
    }

    /// The payload last written, with its hash.
    pub(super) fn written(&self, hash: u64) -> Written<'_> {
        Written {
            text: &self.0,
            hash,
        }
    }
}

/// Reads one entry of the port: an object member by member, its
/// `payload` [`Written`] into the buffer (the payload's place holding
/// `null`, its hash returned) and every other member a [`Value`];
/// anything else a [`Value`], as [`untrusted::Any`] reads it.
///
/// Neither this visitor nor [`Write`] takes a float: with
/// `arbitrary_precision`, serde_json hands over every number that is no
/// `i64` or `u64` as its text ([`untrusted`]).
pub(super) struct Entry<'b>(pub(super) &'b mut Buffer);

impl<'de> DeserializeSeed<'de> for Entry<'_> {
    type Value = (Value, Option<u64>);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Entry<'_> {
    type Value = (Value, Option<u64>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        untrusted::Any.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Buffer(buffer) = self.0;
        let mut fields = Map::new();
        let mut payload = None;
        let mut key = map.next_key::<String>()?;
        if let Some(first) = key.take_if(|k| k == wire::SERDE_NUMBER_KEY) {
            match map.next_value_seed(untrusted::AfterNumberKey)? {
                untrusted::Read::Number(text) => {
                    let n = text.parse().map_err(A::Error::custom)?;
                    return Ok((Value::Number(n), None));
                }
                untrusted::Read::Json(value) => fields.insert(first, value),
            };
            key = map.next_key::<String>()?;
        }
        // A repeated key keeps its last value where its first stood, as
        // `untrusted::Any` reads an object.
        while let Some(k) = key {
            if k == "payload" {
                payload = Some(map.next_value_seed(Payload(buffer))?);
                fields.insert(k, Value::Null);
            } else {
                let value = map.next_value_seed(untrusted::Any)?;
                fields.insert(k, value);
            }
            key = map.next_key::<String>()?;
        }
        Ok((Value::Object(fields), payload))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        untrusted::Any.visit_seq(seq).map(|v| (v, None))
    }

    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((Value::Null, None))
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok((Value::Bool(b), None))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Self::Value, E> {
        untrusted::Any.visit_i64(n).map(|v| (v, None))
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Self::Value, E> {
        untrusted::Any.visit_u64(n).map(|v| (v, None))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok((Value::String(s.to_owned()), None))
    }
}

/// Writes a payload into the buffer, in place of the last; its hash.
struct Payload<'b>(&'b mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Payload<'_> {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<u64, D::Error> {
        let text = self.0;
        text.clear();
        let (mut hash, mut repeated) = (json::seeded(), false);
        let write = Write {
            out: text,
            hash: &mut hash,
            repeated: &mut repeated,
        };
        deserializer.deserialize_any(write)?;
        if !repeated {
            return Ok(std::hash::Hasher::finish(&hash));
        }
        let tree = read_back(text);
        text.clear();
        wire::write_value(text, &tree);
        Ok(json_hash(&tree))
    }
}

/// Writes one value to `out` and feeds it to `hash`; sets `repeated` if an
/// object of it may have a key twice.
struct Write<'b> {
    out: &'b mut Vec<u8>,
    hash: &'b mut Seeded,
    repeated: &'b mut bool,
}

impl Write<'_> {
    fn number<E: Error>(self, n: &Number) -> Result<(), E> {
        self.out.extend_from_slice(n.as_str().as_bytes());
        json::feed_number(n.as_str(), self.hash);
        Ok(())
    }

    /// A member's value, from its key on: written after the key, hashed
    /// alone; the member's hash.
    fn member<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<u64, A::Error> {
        wire::write_str(self.out, key);
        self.out.push(b':');
        let mut hash = json::member(key);
        map.next_value_seed(Write {
            out: self.out,
            hash: &mut hash,
            repeated: self.repeated,
        })?;
        Ok(std::hash::Hasher::finish(&hash))
    }
}

impl<'de> DeserializeSeed<'de> for Write<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Write<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        untrusted::Any.expecting(f)
    }

    fn visit_unit<E: Error>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        json::feed_null(self.hash);
        Ok(())
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<(), E> {
        self.out
            .extend_from_slice(if b { b"true" as &[u8] } else { b"false" });
        json::feed_bool(b, self.hash);
        Ok(())
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<(), E> {
        self.number(&n.into())
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<(), E> {
        self.number(&n.into())
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<(), E> {
        wire::write_str(self.out, s);
        json::feed_str(s, self.hash);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.out.push(b'[');
        json::feed_array_open(self.hash);
        let mut len = 0;
        loop {
            let at = self.out.len();
            if len > 0 {
                self.out.push(b',');
            }
            let item = Write {
                out: self.out,
                hash: self.hash,
                repeated: self.repeated,
            };
            if seq.next_element_seed(item)?.is_none() {
                self.out.truncate(at);
                break;
            }
            len += 1;
        }
        self.out.push(b']');
        json::feed_array_close(len, self.hash);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.out.push(b'{');
        let mut keys = Keys::default();
        let (mut len, mut members) = (0usize, 0u64);
        let mut key = map.next_key::<String>()?;
        if let Some(first) = key.take_if(|k| k == wire::SERDE_NUMBER_KEY) {
            match map.next_value_seed(untrusted::AfterNumberKey)? {
                untrusted::Read::Number(text) => {
                    self.out.pop();
                    let n = text.parse().map_err(A::Error::custom)?;
                    return self.number(&n);
                }
                untrusted::Read::Json(value) => {
                    wire::write_str(self.out, &first);
                    self.out.push(b':');
                    wire::write_value(self.out, &value);
                    let mut hash = json::member(&first);
                    json::feed(&value, &mut hash);
                    members = std::hash::Hasher::finish(&hash);
                    keys.met(&first);
                    len = 1;
                }
            }
            key = map.next_key::<String>()?;
        }
        while let Some(k) = key {
            if len > 0 {
                self.out.push(b',');
            }
            if keys.met(&k) {
                *self.repeated = true;
            }
            members = members.wrapping_add(self.member(&k, &mut map)?);
            len += 1;
            key = map.next_key::<String>()?;
        }
        if keys.repeated() {
            *self.repeated = true;
        }
        self.out.push(b'}');
        json::feed_object(len, members, self.hash);
        Ok(())
    }
}

/// The keys of one object, by their hash, to tell whether one came twice
/// (or, as rarely as two 64-bit hashes collide, whether two keys share a
/// hash; either way the payload is read back, which is right for both).
/// The first few are looked through as they come; past them, the hashes
/// are gathered and sorted once the object ends, a word a key.
#[derive(Default)]
struct Keys {
    few: [u64; Keys::FEW],
    count: usize,
    many: Vec<u64>,
}

impl Keys {
    const FEW: usize = 8;

    /// Whether `key` was met before, as far as can be told yet.
    fn met(&mut self, key: &str) -> bool {
        let h = std::hash::Hasher::finish(&json::member(key));
        if self.count < Self::FEW {
            if self.few[..self.count].contains(&h) {
                return true;
            }
            self.few[self.count] = h;
            self.count += 1;
            return false;
        }
        if self.many.is_empty() {
            self.many.extend(self.few);
        }
        self.many.push(h);
        false
    }

    /// Whether a key came twice, once every key is met.
    fn repeated(mut self) -> bool {
        self.many.sort_unstable();
        self.many.windows(2).any(|w| w[0] == w[1])
    }
}
