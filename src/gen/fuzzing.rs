//! [`arbitrary::Arbitrary`] for [`Case`], for fuzzers: a valid case from
//! unstructured bytes.

use super::*;

// arbitrary

/// Builds a valid case from unstructured bytes, for fuzzers: zero to four
/// calls with unique string ids (a repeated id gets its index appended), and
/// results that are mostly result-shaped objects (a `success` that is
/// usually a boolean, `data`, `artifacts` holding well-formed and malformed
/// entries with spoofed ids, near-miss keys and canaries, decoys) and
/// sometimes any JSON. Values nest at most a few levels deep; numbers are
/// exact as doubles; canaries appear only outside `data`.
impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Case> {
        let exposed = match u.int_in_range(0u8..=2)? {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        };
        let n = u.int_in_range(0usize..=4)?;
        let mut raw = Vec::with_capacity(n);
        for i in 0..n {
            raw.push(arb_id(u, i)?);
        }
        let ids = unique_ids(raw);
        let mut calls = Vec::with_capacity(n);
        for id in &ids {
            let siblings: Vec<&str> = ids
                .iter()
                .filter(|x| *x != id)
                .map(String::as_str)
                .collect();
            let result = arb_result(u, &siblings)?;
            calls.push(Call {
                tool_call_id: id.clone(),
                result,
            });
        }
        Ok(Case { exposed, calls })
    }
}

pub(super) fn arb_pick<'s>(
    u: &mut Unstructured<'_>,
    from: &[&'s str],
) -> arbitrary::Result<&'s str> {
    Ok(from[u.choose_index(from.len())?])
}

pub(super) fn arb_id(u: &mut Unstructured<'_>, i: usize) -> arbitrary::Result<String> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 | 1 => format!("c{}", u.int_in_range(1u8..=5)?),
        2 => arb_pick(u, EDGE_IDS)?.to_owned(),
        _ => format!("call_{i}_{}", arb_text(u)?),
    })
}

pub(super) fn arb_text(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => arb_pick(u, ODD_STRINGS)?.to_owned(),
        1 => arb_pick(u, TYPES)?.to_owned(),
        _ => <&str>::arbitrary(u)?.chars().take(16).collect(),
    })
}

pub(super) fn arb_canary(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    Ok(format!("{CANARY_PREFIX}{:016x}", u64::arbitrary(u)?))
}

pub(super) fn arb_number(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    Ok(if bool::arbitrary(u)? {
        Value::from(u.int_in_range(-1000i64..=1000)?)
    } else {
        quarter(u.int_in_range(-4000i64..=4000)?)
    })
}

/// Any JSON at most `depth` containers deep, with no canary.
pub(super) fn arb_json(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let top = if depth == 0 { 3 } else { 5 };
    Ok(match u.int_in_range(0u8..=top)? {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => arb_number(u)?,
        3 => Value::String(arb_text(u)?),
        4 => {
            let n = u.int_in_range(0usize..=3)?;
            let mut a = Vec::with_capacity(n);
            for _ in 0..n {
                a.push(arb_json(u, depth - 1)?);
            }
            Value::Array(a)
        }
        _ => arb_object(u, depth)?,
    })
}

pub(super) fn arb_object(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<Value> {
    let n = u.int_in_range(0usize..=3)?;
    let mut m = Map::new();
    for _ in 0..n {
        let k = arb_text(u)?;
        m.insert(k, arb_json(u, depth.saturating_sub(1))?);
    }
    Ok(Value::Object(m))
}

pub(super) fn arb_payload(u: &mut Unstructured<'_>, siblings: &[&str]) -> arbitrary::Result<Value> {
    let mut p = arb_object(u, 3)?;
    if let Value::Object(m) = &mut p {
        match u.int_in_range(0u8..=5)? {
            0 => {
                m.insert("secret".into(), arb_canary(u)?.into());
            }
            1 => {
                let id = arb_spoof(u, siblings)?;
                m.insert("meta".into(), json!({ "tool_call_id": id }));
            }
            2 => {
                let text = format!("{INSTRUCTIONS}{}", arb_pick(u, INSTRUCTION_TAILS)?);
                m.insert("text".into(), text.into());
            }
            _ => {}
        }
    }
    Ok(p)
}

pub(super) fn arb_spoof(u: &mut Unstructured<'_>, siblings: &[&str]) -> arbitrary::Result<String> {
    Ok(match (u.int_in_range(0u8..=2)?, siblings) {
        (0, [_, ..]) => arb_pick(u, siblings)?.to_owned(),
        (1, _) => arb_canary(u)?,
        _ => format!("c{}", u.int_in_range(1u8..=5)?),
    })
}

pub(super) fn arb_entry(u: &mut Unstructured<'_>, siblings: &[&str]) -> arbitrary::Result<Value> {
    let kind = |u: &mut Unstructured<'_>| -> arbitrary::Result<String> {
        Ok(match u.int_in_range(0u8..=3)? {
            0 => arb_canary(u)?,
            1 => arb_text(u)?,
            _ => arb_pick(u, TYPES)?.to_owned(),
        })
    };
    Ok(match u.int_in_range(0u8..=11)? {
        0 => arb_json(u, 1)?,
        1 => json!({"payload": arb_payload(u, siblings)?}),
        2 => json!({"type": arb_json(u, 1)?, "payload": arb_payload(u, siblings)?}),
        3 => json!({"type": "", "payload": arb_payload(u, siblings)?}),
        4 => json!({"type": kind(u)?}),
        5 => json!({"type": kind(u)?, "payload": arb_json(u, 1)?}),
        _ => {
            let mut m = Map::new();
            m.insert("type".into(), kind(u)?.into());
            m.insert("payload".into(), arb_payload(u, siblings)?);
            if bool::arbitrary(u)? {
                m.insert("tool_call_id".into(), arb_spoof(u, siblings)?.into());
            }
            if bool::arbitrary(u)? {
                let k = arb_pick(u, NEAR_MISS_KEYS)?;
                m.insert(k.into(), arb_canary(u)?.into());
            }
            Value::Object(m)
        }
    })
}

pub(super) fn arb_result(u: &mut Unstructured<'_>, siblings: &[&str]) -> arbitrary::Result<Value> {
    if u.ratio(1u8, 8)? {
        return arb_json(u, 3);
    }
    let mut m = Map::new();
    match u.int_in_range(0u8..=9)? {
        0 => {}
        1 => {
            m.insert("success".into(), arb_json(u, 0)?);
        }
        2 => {
            m.insert("success".into(), false.into());
        }
        _ => {
            m.insert("success".into(), true.into());
        }
    }
    if bool::arbitrary(u)? || u.is_empty() {
        m.insert("data".into(), arb_json(u, 3)?);
    }
    match u.int_in_range(0u8..=7)? {
        0 => {}
        1 => {
            m.insert("artifacts".into(), Value::Null);
        }
        2 => {
            m.insert("artifacts".into(), arb_entry(u, siblings)?);
        }
        _ => {
            let n = u.int_in_range(0usize..=5)?;
            let mut entries = Vec::with_capacity(n);
            for _ in 0..n {
                entries.push(arb_entry(u, siblings)?);
            }
            m.insert("artifacts".into(), Value::Array(entries));
        }
    }
    if u.ratio(1u8, 5)? {
        let k = arb_pick(u, DECOY_KEYS)?;
        let v = if k == "tool_call_id" {
            arb_spoof(u, siblings)?
        } else {
            arb_canary(u)?
        };
        m.insert(k.into(), v.into());
    }
    Ok(Value::Object(m))
}
