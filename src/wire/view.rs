//! A JSON value read where it lies, whichever way it is held: a
//! serde_json [`Value`] tree, or a case's [`compact`](super::compact) tree.
//!
//! The model reads a result through [`JsonRef`] so that one function
//! serves both: the generators, `diff` and `serve` hold small cases as
//! `Value`s, and `verdict` and `check` hold a case of any size as a
//! compact tree of a dozen bytes a value, where a `Value` takes 72 and an
//! object's entry 104. The judge reads one concrete type over both,
//! [`Held`], so that its indexes of a case are written once. Each reading gives the same answer for the same JSON text: key
//! order and every digit kept, a repeated key's last value where its first
//! stood.

use std::fmt;

use serde_json::Value;

use super::compact::{self, Compact};

/// A borrowed JSON value: what it is, and its parts.
pub trait JsonRef<'a>: Copy + 'a {
    /// An array's items, in order.
    type Items: ExactSizeIterator<Item = Self> + Clone;
    /// An object's members, in order, each key once.
    type Members: ExactSizeIterator<Item = (&'a str, Self)> + Clone;

    /// What the value is.
    fn node(self) -> Node<'a, Self>;

    /// The value of an object's member `key`; `None` when the value is no
    /// object or has no such key.
    fn get(self, key: &str) -> Option<Self> {
        match self.node() {
            Node::Object(mut members) => members.find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string.
    fn as_str(self) -> Option<&'a str> {
        match self.node() {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the value is `true`.
    fn is_true(self) -> bool {
        matches!(self.node(), Node::Bool(true))
    }

    /// Whether the value is an object.
    fn is_object(self) -> bool {
        matches!(self.node(), Node::Object(_))
    }

    /// The value a JSON pointer (RFC 6901) points to, as `Value::pointer`
    /// finds it: `""` is the value itself.
    fn pointer(self, pointer: &str) -> Option<Self> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut tokens = pointer.strip_prefix('/')?.split('/');
        tokens.try_fold(self, |at, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match at.node() {
                Node::Object(_) => at.get(&token),
                Node::Array(mut items) => {
                    let leading_zero = token.starts_with('0') && token.len() > 1;
                    if token.starts_with('+') || leading_zero {
                        return None;
                    }
                    items.nth(token.parse().ok()?)
                }
                _ => None,
            }
        })
    }

    /// The value as a serde_json tree.
    fn to_value(self) -> Value {
        match self.node() {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            // Text a JSON reader accepted as a number, so always one.
            Node::Number(n) => n.parse().map_or(Value::Null, Value::Number),
            Node::String(s) => Value::String(s.to_owned()),
            Node::Array(items) => Value::Array(items.map(JsonRef::to_value).collect()),
            Node::Object(members) => {
                Value::Object(members.map(|(k, v)| (k.to_owned(), v.to_value())).collect())
            }
        }
    }
}

/// What an IEEE double makes of a JSON number's text: only a finite one
/// survives (serde_json's `Number::as_f64` with `arbitrary_precision`).
pub fn double(number: &str) -> Option<f64> {
    number.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// What a [`JsonRef`] is: the six kinds of JSON value, a number as its
/// text.
pub enum Node<'a, J: JsonRef<'a>> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(&'a str),
    /// A string, unescaped.
    String(&'a str),
    /// An array's items.
    Array(J::Items),
    /// An object's members.
    Object(J::Members),
}

/// A member of a serde_json object, its key as `&str`.
type Member<'a> = (&'a String, &'a Value);

fn member<'a>((k, v): Member<'a>) -> (&'a str, &'a Value) {
    (k, v)
}

impl<'a> JsonRef<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;
    type Members =
        std::iter::Map<serde_json::map::Iter<'a>, fn(Member<'a>) -> (&'a str, &'a Value)>;

    fn node(self) -> Node<'a, Self> {
        match self {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.as_str()),
            Value::String(s) => Node::String(s),
            Value::Array(a) => Node::Array(a.iter()),
            Value::Object(o) => Node::Object(
                o.iter()
                    .map(member as fn(Member<'a>) -> (&'a str, &'a Value)),
            ),
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        Value::get(self, key)
    }

    fn to_value(self) -> Value {
        self.clone()
    }
}

/// A result as the judge reads it, whichever tree holds it: one type, so
/// that the judge's indexes of a case are written once.
#[derive(Clone, Copy)]
pub enum Held<'a> {
    /// In a `Value` tree.
    Tree(&'a Value),
    /// In a compact tree.
    Compact(Compact<'a>),
}

/// Compact JSON, as `Value`'s `Display` writes it.
impl fmt::Display for Held<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Held::Tree(v) => write!(f, "{v}"),
            Held::Compact(v) => write!(f, "{v:?}"),
        }
    }
}

impl fmt::Debug for Held<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A [`Held`]'s array items.
#[derive(Clone)]
pub enum HeldItems<'a> {
    /// Of a `Value`.
    Tree(std::slice::Iter<'a, Value>),
    /// Of a compact tree.
    Compact(compact::Items<'a>),
}

impl<'a> Iterator for HeldItems<'a> {
    type Item = Held<'a>;

    fn next(&mut self) -> Option<Held<'a>> {
        match self {
            HeldItems::Tree(i) => i.next().map(Held::Tree),
            HeldItems::Compact(i) => i.next().map(Held::Compact),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            HeldItems::Tree(i) => i.size_hint(),
            HeldItems::Compact(i) => i.size_hint(),
        }
    }
}

impl ExactSizeIterator for HeldItems<'_> {}

/// A [`Held`]'s object members.
#[derive(Clone)]
pub enum HeldMembers<'a> {
    /// Of a `Value`.
    Tree(<&'a Value as JsonRef<'a>>::Members),
    /// Of a compact tree.
    Compact(compact::Members<'a>),
}

impl<'a> Iterator for HeldMembers<'a> {
    type Item = (&'a str, Held<'a>);

    fn next(&mut self) -> Option<(&'a str, Held<'a>)> {
        match self {
            HeldMembers::Tree(i) => i.next().map(|(k, v)| (k, Held::Tree(v))),
            HeldMembers::Compact(i) => i.next().map(|(k, v)| (k, Held::Compact(v))),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            HeldMembers::Tree(i) => i.size_hint(),
            HeldMembers::Compact(i) => i.size_hint(),
        }
    }
}

impl ExactSizeIterator for HeldMembers<'_> {}

impl<'a> JsonRef<'a> for Held<'a> {
    type Items = HeldItems<'a>;
    type Members = HeldMembers<'a>;

    fn node(self) -> Node<'a, Self> {
        match self {
            Held::Tree(v) => match v.node() {
                Node::Array(i) => Node::Array(HeldItems::Tree(i)),
                Node::Object(m) => Node::Object(HeldMembers::Tree(m)),
                other => other.scalar(),
            },
            Held::Compact(v) => match v.node() {
                Node::Array(i) => Node::Array(HeldItems::Compact(i)),
                Node::Object(m) => Node::Object(HeldMembers::Compact(m)),
                other => other.scalar(),
            },
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        match self {
            Held::Tree(v) => v.get(key).map(Held::Tree),
            Held::Compact(v) => v.get(key).map(Held::Compact),
        }
    }
}

impl<'a, J: JsonRef<'a>> Node<'a, J> {
    /// A scalar as the node of another kind of [`JsonRef`]; an array or an
    /// object as `null` (never asked of one).
    fn scalar<K: JsonRef<'a>>(self) -> Node<'a, K> {
        match self {
            Node::Bool(b) => Node::Bool(b),
            Node::Number(n) => Node::Number(n),
            Node::String(s) => Node::String(s),
            Node::Null | Node::Array(_) | Node::Object(_) => Node::Null,
        }
    }
}
