//! A JSON value read where it lies, whichever way it is held: a
//! serde_json [`Value`] tree, or a case's [`compact`](super::compact) tree.
//!
//! The model reads a result through [`JsonRef`] so that one function
//! serves both: the generators, `diff` and `serve` hold small cases as
//! `Value`s, and `verdict` holds a case of any size as a compact tree of a
//! dozen bytes a value, where a `Value` takes 72 and an object's entry
//! 104. Each reading gives the same answer for the same JSON text: key
//! order and every digit kept, a repeated key's last value where its first
//! stood.

use serde_json::Value;

/// A borrowed JSON value: what it is, and its parts.
pub trait JsonRef<'a>: Copy + 'a {
    /// An array's items, in order.
    type Items: ExactSizeIterator<Item = Self>;
    /// An object's members, in order, each key once.
    type Members: ExactSizeIterator<Item = (&'a str, Self)>;

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
