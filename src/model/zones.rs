//! How much of a case's reference outcome is normative, call by call.
//!
//! A call whose result is of RT-TOOL-1's shape owes the artifacts it keeps,
//! whatever the other calls of its run returned: ¶1 asks for "every call's
//! artifacts", and RT-TOOL-2 drops per entry, never per run. A call of any
//! other shape (what an untrusted tool can return) may deliver, or not, any
//! of its lenient pool ([`deliverable`]). The run's RT-TOOL-6 floors count
//! each lenient pool at its largest, so a run that keeps every owed artifact
//! and every lenient one within the floors owes each of its owed ones, and
//! no conforming runtime that delivers the lenient ones and drops an owed
//! one a bound no longer fits is charged. The [`Zone`] says the same of the
//! case as a whole, for a reader: strict when every call is of the shape
//! and the run within the floors.

use serde::Serialize;

use super::{floors, rt_tool_2_kept, well_formed, RESERVED_KEY};
use crate::wire::{kind, Call, Case, Holds, JsonRef, Landed, Node};

/// How much of a case's reference outcome is normative.
///
/// The judgement itself is per call ([`of_rt_tool_1_shape`]): in a lenient
/// case, the calls its reasons do not name are still judged in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "zone", content = "reasons", rename_all = "lowercase")]
pub enum Zone {
    /// Every result is an object with a boolean `success`, `artifacts` is
    /// absent, null or an array, `data` does not carry RT-TOOL-2's reserved
    /// key, and the run is within RT-TOOL-6's floors: the expected
    /// `tool_artifacts` is fully determined.
    Strict,
    /// Some call's result is not of that shape, or the run is over
    /// RT-TOOL-6's floors. The reasons say which call made it so, and how
    /// (or what the run holds). Only the safety half is judged of the calls
    /// they name; every other call's kept artifacts are owed, all of them
    /// within the floors and all a bound may not drop over them.
    Lenient(Vec<String>),
}

/// Classifies a (valid) case as strict or lenient, saying why.
pub fn zone<R: Holds>(case: &Case<R>) -> Zone {
    zone_of(
        shape_reasons(case),
        floor_reasons(case, &|p| super::encoded_len(p)),
    )
}

/// The zone of a case whose [`shape_reasons`] and [`floor_reasons`] are
/// already found: strict when both are empty.
pub fn zone_of(mut reasons: Vec<String>, floors: Vec<String>) -> Zone {
    reasons.extend(floors);
    if reasons.is_empty() {
        Zone::Strict
    } else {
        Zone::Lenient(reasons)
    }
}

/// Why a case's results are not all of RT-TOOL-1's shape, call by call
/// ([`call_shape_reasons`]); empty when they all are.
pub fn shape_reasons<R: Holds>(case: &Case<R>) -> Vec<String> {
    case.calls.iter().flat_map(call_shape_reasons).collect()
}

/// Why one call's result is not of RT-TOOL-1's shape (an object with a
/// boolean `success`, `artifacts` absent, null or an array, and a `data`
/// without the reserved key), each reason naming the call; empty when it
/// is, and then what it keeps is owed.
pub fn call_shape_reasons<R: Holds>(call: &Call<R>) -> Vec<String> {
    misshapes(call.result())
        .map(|m| m.reason(&call.tool_call_id))
        .collect()
}

/// Whether a result is of RT-TOOL-1's shape ([`call_shape_reasons`] says
/// why not): its call owes every artifact it keeps, whatever its siblings
/// returned, and its prose has a reference rendering.
pub fn of_rt_tool_1_shape<'a, J: JsonRef<'a>>(result: J) -> bool {
    misshapes(result).next().is_none()
}

/// One way a result is not of RT-TOOL-1's shape.
enum Misshape {
    NotObject(&'static str),
    NoSuccess,
    Success(&'static str),
    Artifacts(&'static str),
    Reserved,
}

impl Misshape {
    fn reason(&self, id: &str) -> String {
        match self {
            Misshape::NotObject(kind) => format!("call {id}: result is {kind}, not an object"),
            Misshape::NoSuccess => format!("call {id}: result has no `success`"),
            Misshape::Success(kind) => format!("call {id}: `success` is {kind}, not a boolean"),
            Misshape::Artifacts(kind) => format!("call {id}: `artifacts` is {kind}, not an array"),
            Misshape::Reserved => format!(
                "call {id}: `data` still carries RT-TOOL-2's reserved `artifacts` key, which is lifted off before a result is made (lifting its well-formed entries and dropping them are both accepted)"
            ),
        }
    }
}

/// Each way `result` is not of RT-TOOL-1's shape, in the order the reasons
/// are given; none when it is. Allocates nothing.
fn misshapes<'a, J: JsonRef<'a>>(result: J) -> impl Iterator<Item = Misshape> {
    if !result.is_object() {
        return [Some(Misshape::NotObject(kind(result))), None, None]
            .into_iter()
            .flatten();
    }
    let success = match result.get("success").map(|s| (s, s.node())) {
        Some((_, Node::Bool(_))) => None,
        None => Some(Misshape::NoSuccess),
        Some((other, _)) => Some(Misshape::Success(kind(other))),
    };
    let artifacts = match result.get("artifacts").map(|a| (a, a.node())) {
        None | Some((_, Node::Null | Node::Array(_))) => None,
        Some((other, _)) => Some(Misshape::Artifacts(kind(other))),
    };
    let reserved = result
        .get("data")
        .is_some_and(|data| data.is_object() && data.get(RESERVED_KEY).is_some())
        .then_some(Misshape::Reserved);
    [success, artifacts, reserved].into_iter().flatten()
}

/// Whether a result may deliver artifacts: its `success` is `true`, or, in
/// a result not of RT-TOOL-1's shape, absent. RT-TOOL-2: "a call that failed
/// or was declined carries no artifacts"; a `success` of `"false"` (a
/// string, which a loosely typed runtime reads as truthy), `1` or `null` is
/// no success.
pub fn may_deliver<'a>(result: impl JsonRef<'a>) -> bool {
    result.get("success").is_none_or(JsonRef::is_true)
}

/// Where a result holds artifact entries.
#[derive(Clone, Copy)]
pub(crate) enum Holder {
    /// Its `artifacts`.
    Artifacts,
    /// RT-TOOL-2's reserved key in its `data`.
    Reserved,
}

/// Every entry a result's artifacts could be said to hold, with where it
/// is and its index there: the items of an `artifacts` array; of an object
/// (a result not of RT-TOOL-1's shape), the object itself, read as a single
/// entry, and its values, read as a map of entries; and likewise under
/// RT-TOOL-2's reserved key in an object `data` (not of that shape either),
/// which a runtime may lift.
pub(crate) fn candidate_entries<'a, J: JsonRef<'a>>(result: J) -> Vec<(Holder, usize, J)> {
    fn of<'a, J: JsonRef<'a>>(place: Holder, v: Option<J>, out: &mut Vec<(Holder, usize, J)>) {
        let Some(v) = v else { return };
        match v.node() {
            Node::Array(a) => out.extend(a.enumerate().map(|(i, e)| (place, i, e))),
            Node::Object(o) => out.extend(
                std::iter::once(v)
                    .chain(o.map(|(_, e)| e))
                    .enumerate()
                    .map(|(i, e)| (place, i, e)),
            ),
            _ => {}
        }
    }
    let mut out = Vec::new();
    of(Holder::Artifacts, result.get("artifacts"), &mut out);
    let reserved = result
        .get("data")
        .filter(|d| d.is_object())
        .and_then(|d| d.get(RESERVED_KEY));
    of(Holder::Reserved, reserved, &mut out);
    out
}

/// The `(type, payload)` of each entry a result may deliver, in its own
/// order: of a result of RT-TOOL-1's shape, the artifacts it keeps
/// ([`rt_tool_2_kept`]), each owed; of any other, its lenient pool, each
/// well-formed entry of its `artifacts` (an array, or an object read as one
/// entry and as a map of entries) and of the reserved key in its `data`,
/// which may be delivered or not, unless the call did not succeed
/// ([`may_deliver`]). The two agree
/// where both apply: of a result of the shape, the lenient pool is what it
/// keeps.
pub fn deliverable<'a, J: JsonRef<'a>>(result: J) -> impl Iterator<Item = (&'a str, J)> {
    let owed = of_rt_tool_1_shape(result);
    let kept = owed.then(|| rt_tool_2_kept(result));
    let lenient = (!owed && may_deliver(result)).then(|| {
        candidate_entries(result)
            .into_iter()
            .filter_map(|(_, _, e)| well_formed(e))
    });
    kept.into_iter()
        .flatten()
        .chain(lenient.into_iter().flatten())
}

/// Every artifact the case's calls may deliver ([`deliverable`]), in call
/// order and then each result's own, borrowed from the case: what may land
/// on the port, once each. Of a case whose results are all of RT-TOOL-1's
/// shape, the reference's `tool_artifacts`.
pub fn may_land<R: Holds>(case: &Case<R>) -> Vec<Landed<'_, R::Ref<'_>>> {
    let mut landed = Vec::new();
    for call in &case.calls {
        landed.extend(deliverable(call.result()).map(|(kind, payload)| Landed {
            kind,
            payload,
            tool_call_id: &call.tool_call_id,
        }));
    }
    landed
}

/// Why a case is over RT-TOOL-6's floors; empty when it is within them.
///
/// What each call may deliver counts at its largest ([`deliverable`]): a
/// call of RT-TOOL-1's shape its kept artifacts, any other its whole
/// lenient pool. So a run within them is within them however many of the
/// lenient entries a runtime delivers, and every owed artifact is owed.
/// Each payload's encoded size is told by `size`: [`super::encoded_len`],
/// or nothing for a case known to be far below the floors.
pub fn floor_reasons<'c, R: Holds>(
    case: &'c Case<R>,
    size: &dyn Fn(R::Ref<'c>) -> usize,
) -> Vec<String> {
    let mut reasons = Vec::new();
    // Owed and lenient artifacts, and all their bytes.
    let (mut owed, mut lenient, mut run_bytes) = (0, 0, 0);
    for call in &case.calls {
        let of_shape = of_rt_tool_1_shape(call.result());
        for (i, (_, payload)) in deliverable(call.result()).enumerate() {
            let bytes = size(payload);
            if bytes > floors::PAYLOAD_BYTES {
                let which = match of_shape {
                    true => "kept artifact",
                    false => "entry it may deliver",
                };
                reasons.push(format!(
                    "call {}: {which} {i} encodes to up to {bytes} bytes, over RT-TOOL-6's floor of {} per artifact",
                    call.tool_call_id,
                    floors::PAYLOAD_BYTES
                ));
            }
            match of_shape {
                true => owed += 1,
                false => lenient += 1,
            }
            run_bytes += bytes;
        }
    }
    let more = match lenient {
        0 => String::new(),
        n => format!(" and may deliver {n} more"),
    };
    if owed + lenient > floors::ARTIFACTS {
        reasons.push(format!(
            "the run keeps {owed} artifacts{more}, over RT-TOOL-6's floor of {}",
            floors::ARTIFACTS
        ));
    }
    if run_bytes > floors::RUN_BYTES {
        let with = match lenient {
            0 => "",
            _ => ", with those it may deliver,",
        };
        reasons.push(format!(
            "the run's payloads{with} encode to up to {run_bytes} bytes, over RT-TOOL-6's floor of {}",
            floors::RUN_BYTES
        ));
    }
    reasons
}
