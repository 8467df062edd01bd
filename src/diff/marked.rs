//! The marked sibling: the case with its exposure flipped and a marker in
//! each call's `data`, made in place and undone, and written from the
//! case's bytes.

use serde_json::Value;

use super::tokens::Tokens;
use crate::judge::{self, Violation};
use crate::wire::{self, Call, Case, CaseSpans};

/// The exposure of the marked sibling: `true` to `false`, anything else to
/// `true`, so one of the two has the port exposed.
pub(super) fn flip(exposed: Option<bool>) -> Option<bool> {
    Some(exposed != Some(true))
}

/// The marked sibling as changes to the case: the exposure flipped, and a
/// marker in each call's `data` where it can hold one.
pub(super) struct Marked {
    /// Each call's marker and where it goes, where its `data` could hold
    /// one.
    marks: Vec<Option<(String, Place)>>,
}

/// Where a marker goes in a call's `data`: after a space at the end of a
/// string, under [`MARKER_KEY`] at the end of an object, or as the last
/// item of an array. Each is undone by taking off what was put at the end.
#[derive(Clone, Copy)]
enum Place {
    Appended,
    Keyed,
    Pushed,
}

impl Marked {
    /// Each call's marker, where its `data` could hold one.
    pub(super) fn markers(&self) -> impl Iterator<Item = Option<&str>> {
        self.marks
            .iter()
            .map(|m| m.as_ref().map(|(marker, _)| marker.as_str()))
    }

    /// `f` of `case` marked: the markers put in and the exposure flipped,
    /// then taken out and set back, so `case` is as it was.
    pub(super) fn within<R>(&self, case: &mut Case, f: impl FnOnce(&Case) -> R) -> R {
        let exposed = case.exposed;
        self.mark(case, true);
        case.exposed = flip(exposed);
        let result = f(case);
        self.mark(case, false);
        case.exposed = exposed;
        result
    }

    /// Puts the markers in (`put`) or takes them out.
    fn mark(&self, case: &mut Case, put: bool) {
        for (call, mark) in case.calls.iter_mut().zip(&self.marks) {
            let Some((marker, place)) = mark else {
                continue;
            };
            let data = call.result.as_object_mut().and_then(|r| r.get_mut("data"));
            match (place, data) {
                (Place::Appended, Some(Value::String(s))) if put => {
                    s.push(' ');
                    s.push_str(marker);
                }
                (Place::Appended, Some(Value::String(s))) => {
                    s.truncate(s.len().saturating_sub(marker.len() + 1));
                }
                (Place::Keyed, Some(Value::Object(o))) if put => {
                    o.insert(MARKER_KEY.into(), Value::String(marker.clone()));
                }
                (Place::Keyed, Some(Value::Object(o))) => {
                    o.shift_remove(MARKER_KEY);
                }
                (Place::Pushed, Some(Value::Array(a))) if put => {
                    a.push(Value::String(marker.clone()));
                }
                (Place::Pushed, Some(Value::Array(a))) => {
                    a.pop();
                }
                _ => {}
            }
        }
    }

    /// Appends the marked sibling of the case written in `out` at `spans`
    /// ([`Case::write_json_spanned`]) as compact JSON, with `exposed`: the
    /// bytes [`Case::write_json`] writes for it (`Marked::within`), made
    /// from the case's. The marked sibling is the case with its exposure
    /// flipped and each marker put at the end of its call's `data`, so its
    /// bytes are the case's with `exposed` written anew and each marker
    /// written in before the last byte of its `data` (a string's closing
    /// quote, an object's brace, an array's bracket): ` MARKER…` in a
    /// string, `,"rt_tool_3_marker":"MARKER…"` in an object and
    /// `,"MARKER…"` in an array (without the comma when it was empty). The
    /// rest is copied: the artifacts are most of a case's bytes.
    pub(super) fn write_json(&self, out: &mut Vec<u8>, spans: &CaseSpans, exposed: Option<bool>) {
        out.extend_from_within(spans.whole.start..spans.exposed.start);
        out.extend_from_slice(wire::exposed_json(exposed));
        let mut from = spans.exposed.end;
        for (mark, data) in self.marks.iter().zip(&spans.data) {
            let (Some((marker, place)), Some(data)) = (mark, data) else {
                continue;
            };
            let last = data.end - 1;
            out.extend_from_within(from..last);
            let comma: &[u8] = if data.len() > 2 { b"," } else { b"" };
            // A marker is "MARKER" and hex digits: written as it is.
            let marker = marker.as_bytes();
            let parts: &[&[u8]] = match place {
                Place::Appended => &[b" ", marker],
                Place::Keyed => &[comma, b"\"", MARKER_KEY.as_bytes(), b"\":\"", marker, b"\""],
                Place::Pushed => &[comma, b"\"", marker, b"\""],
            };
            parts.iter().for_each(|part| out.extend_from_slice(part));
            from = last;
        }
        out.extend_from_within(from..spans.whole.end);
    }

    /// ¶3 per call: no call's prose carries another call's marker.
    pub(super) fn foreign_markers(
        &self,
        calls: &[Call],
        contents: &[Option<&str>],
    ) -> Vec<Violation> {
        let mut found = Vec::new();
        for (i, content) in contents.iter().enumerate() {
            let Some(content) = content else { continue };
            let foreign = self
                .markers()
                .enumerate()
                .find(|(j, m)| *j != i && m.is_some_and(|m| content.contains(m)));
            if let Some((j, _)) = foreign {
                let place = judge::Place {
                    from: Some(format!("the data of call {}", calls[j].tool_call_id)),
                    ..judge::Place::call(i)
                };
                found.push(Violation::new(
                    judge::Code::ProseOfAnotherCall,
                    place,
                    format!(
                        "the prose of call {} carries the marker of call {}'s data: each call's prose comes from its own result's data",
                        calls[i].tool_call_id, calls[j].tool_call_id
                    ),
                ));
            }
        }
        found
    }
}

/// The key a marker takes in an object `data`.
pub const MARKER_KEY: &str = "rt_tool_3_marker";

/// The marked sibling: the exposure flipped, and each call's `data` given a
/// marker of its own where it can hold one (a string gets it appended after
/// a space, an object under [`MARKER_KEY`], an array as a last item; a
/// number or a boolean cannot, and neither can a result that is not an
/// object). An empty `data` (absent, null or `""`) is left empty: the canary
/// sibling is built from this one, so a call whose empty `data` an
/// implementation fills from its artifacts shows their canaries there.
pub(super) fn marked_sibling(case: &Case) -> Marked {
    let mut tokens = Tokens::new(case, "MARKER", 1);
    let mut marks = Vec::with_capacity(case.calls.len());
    for call in &case.calls {
        let mark = match &call.result {
            Value::Object(result) => {
                // Drawn for every object result, placed or not.
                let marker = tokens.fresh("MARKER");
                let place = match result.get("data") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if s.is_empty() => None,
                    Some(Value::String(_)) => Some(Place::Appended),
                    Some(Value::Object(o)) if !o.contains_key(MARKER_KEY) => Some(Place::Keyed),
                    Some(Value::Array(_)) => Some(Place::Pushed),
                    Some(_) => None,
                };
                place.map(|place| (marker, place))
            }
            _ => None,
        };
        marks.push(mark);
    }
    Marked { marks }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::sent::Sent;
    use super::*;
    use crate::gen;
    use crate::judge::ProseMode;

    /// The marked sibling written from the case's bytes is the bytes
    /// `Case::write_json` writes for it, behind whatever the buffer held:
    /// on generated cases, and on each place a marker goes, empty or not.
    #[test]
    fn the_marked_sibling_written_from_the_case_is_written_as_itself() {
        let one = |data: &str| {
            Case::from_json(format!(r#"{{"exposed": true, "calls": [{{"tool_call_id": "c1", "result": {{"data": {data}, "artifacts": [{{"type": "t", "payload": {{"data": "x"}}}}]}}}}, {{"tool_call_id": "c2", "result": [{data}]}}]}}"#).as_bytes())
                .unwrap()
        };
        let placed = [
            r#""a\"b""#,
            "{}",
            r#"{"k": [1]}"#,
            "[]",
            "[{}]",
            "3",
            r#""""#,
            "null",
        ]
        .map(one);
        for case in placed.into_iter().chain(gen::cases(5).take(2000)) {
            let mut sent = Sent::new(case, ProseMode::DataOnly);
            let mut out = b"earlier requests".to_vec();
            let spans = sent.case.write_json_spanned(&mut out);
            let exposed = flip(sent.case.exposed);
            let from = out.len();
            sent.marked.write_json(&mut out, &spans, exposed);
            let mut want = Vec::new();
            sent.with_marked(|m| m.write_json(&mut want));
            assert_eq!(
                String::from_utf8_lossy(&out[from..]),
                String::from_utf8_lossy(&want)
            );
        }
    }

    /// The marked sibling is the case with its exposure flipped and each
    /// marker put at the end of its call's `data` (after a space in a
    /// string, under [`MARKER_KEY`] in an object, as the last item of an
    /// array), and making it leaves the case as it was, byte for byte.
    #[test]
    fn the_marked_sibling_is_the_case_marked_and_leaves_it_whole() {
        let mut placed = [0; 3];
        for case in gen::cases(11).take(400) {
            let written = serde_json::to_string(&case).unwrap();
            let mut sent = Sent::new(case.clone(), ProseMode::DataOnly);
            let marked = sent.with_marked(Case::clone);
            assert_eq!(serde_json::to_string(&sent.case).unwrap(), written);
            assert_eq!(marked.exposed, Some(case.exposed != Some(true)));
            assert_eq!(marked.calls.len(), case.calls.len());
            for ((call, got), marker) in case
                .calls
                .iter()
                .zip(&marked.calls)
                .zip(sent.marked.markers())
            {
                let mut want = call.result.clone();
                let data = want.as_object_mut().and_then(|r| r.get_mut("data"));
                match (marker, data) {
                    (None, _) => {}
                    (Some(m), Some(Value::String(s))) => {
                        *s = format!("{s} {m}");
                        placed[0] += 1;
                    }
                    (Some(m), Some(Value::Object(o))) => {
                        o.insert(MARKER_KEY.into(), json!(m));
                        placed[1] += 1;
                    }
                    (Some(m), Some(Value::Array(a))) => {
                        a.push(json!(m));
                        placed[2] += 1;
                    }
                    (Some(m), other) => panic!("marker {m} placed in {other:?}"),
                }
                assert_eq!(got.tool_call_id, call.tool_call_id);
                assert_eq!(
                    serde_json::to_string(&got.result).unwrap(),
                    serde_json::to_string(&want).unwrap()
                );
            }
        }
        assert!(
            placed.iter().all(|&n| n > 0),
            "each place was tried: {placed:?}"
        );
    }
}
