//! Canaries: strings placed only outside `data` (in artifacts and in
//! result-level decoys), so that seeing one in the prose is certainly a leak.

use super::*;

/// The prefix of every canary; a canary is this prefix and 16 lowercase hex
/// digits, e.g. `CANARY-00c0ffee00c0ffee`.
pub const CANARY_PREFIX: &str = "CANARY-";

/// A canary: [`CANARY_PREFIX`] and 16 random hex digits. The generators put
/// canaries only outside `data`, so one seen in the prose is a leak.
pub fn canary() -> BoxedStrategy<String> {
    any::<u64>()
        .prop_map(|x| format!("{CANARY_PREFIX}{x:016x}"))
        .boxed()
}

/// Every canary ([`CANARY_PREFIX`] and 16 lowercase hex digits) found in a
/// case's results, in its strings and its object keys, sorted, without
/// repeats. The generators here put canaries only outside `data`.
pub fn canary_strings(case: &Case) -> Vec<String> {
    fn scan(s: &str, found: &mut BTreeSet<String>) {
        for (at, _) in s.match_indices(CANARY_PREFIX) {
            let hex = &s[at + CANARY_PREFIX.len()..];
            let digits = hex
                .bytes()
                .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
                .count();
            if digits >= 16 {
                found.insert(s[at..at + CANARY_PREFIX.len() + 16].to_owned());
            }
        }
    }
    fn walk(v: &Value, found: &mut BTreeSet<String>) {
        match v {
            Value::String(s) => scan(s, found),
            Value::Array(a) => a.iter().for_each(|x| walk(x, found)),
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                scan(k, found);
                walk(x, found);
            }),
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    for call in &case.calls {
        walk(&call.result, &mut found);
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canaries_are_found_in_values_and_keys() {
        let case = Case::from_json(
            br#"{"calls": [{"tool_call_id": "c1", "result": {"artifacts": [
                {"type": "link", "payload": {"x": "see CANARY-0123456789abcdefZ",
                 "CANARY-fedcba9876543210": 1, "short": "CANARY-0123"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(
            canary_strings(&case),
            ["CANARY-0123456789abcdef", "CANARY-fedcba9876543210"]
        );
    }
}
