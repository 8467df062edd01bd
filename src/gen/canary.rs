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
    let finder = memchr::memmem::Finder::new(CANARY_PREFIX);
    let mut found = BTreeSet::new();
    for call in &case.calls {
        crate::judge::strings(&call.result, &mut |s| {
            found.extend(hex_after(s, &finder));
        });
    }
    // Fixed-width lowercase hex sorts as its number does.
    found
        .into_iter()
        .map(|n| format!("{CANARY_PREFIX}{n:016x}"))
        .collect()
}

/// The number written as 16 lowercase hex digits right after each place
/// `s` holds `finder`'s needle, as a canary and a sibling's token write
/// them: `"see CANARY-0123456789abcdefZ"` gives `0x0123_4567_89ab_cdef`
/// for `CANARY-`, and `"CANARY-0123"` nothing.
pub(crate) fn hex_after<'s>(
    s: &'s str,
    finder: &'s memchr::memmem::Finder<'_>,
) -> impl Iterator<Item = u64> + 's {
    let after = finder.needle().len();
    // Most strings of a case have no room for the needle and 16 digits,
    // and are not searched at all.
    let room = s.len() >= after + 16;
    let haystack = if room { s.as_bytes() } else { &[] };
    finder.find_iter(haystack).filter_map(move |at| {
        let digits = s.as_bytes().get(at + after..at + after + 16)?;
        digits.iter().try_fold(0u64, |n, &b| {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                _ => return None,
            };
            Some(n << 4 | u64::from(digit))
        })
    })
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
