//! Tokens for siblings, markers, canaries and call ids, that no string of
//! the case holds and no earlier examination of it saw.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::gen;
use crate::judge;
use crate::wire::Case;

/// Tokens for siblings: `PREFIX` and 16 hex digits, drawn from a hash of
/// the call ids, none that some string of the case already holds. The case
/// itself is never serialized nor its artifacts copied.
///
/// A string holds a token exactly where it holds the prefix followed by the
/// token's 16 digits, so the case is read once, for the digits after each
/// place it holds the prefix: `"see CANARY0123456789abcdef!"` takes the
/// number `0x0123_4567_89ab_cdef` from the canaries, `"CANARY-1"` none.
/// How many times the cases whose canary tokens fall in each slot have
/// been examined in this process ([`Tokens::afresh`]): a fixed table, so a
/// campaign of any length holds it in 256 KiB.
static EXAMINED: [AtomicU32; 1 << 16] = [const { AtomicU32::new(0) }; 1 << 16];

pub(super) struct Tokens {
    /// The numbers whose tokens some string of the case holds.
    taken: Vec<u64>,
    state: u64,
}

impl Tokens {
    pub(super) fn new(case: &Case, prefix: &str, salt: u64) -> Tokens {
        let fnv = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        let mut taken = Vec::new();
        let finder = memchr::memmem::Finder::new(prefix);
        // The content too, not the call ids alone: cases with the same ids
        // and other results get other tokens, so a runtime that remembers
        // what it delivered in earlier runs meets new ones. Each string
        // counts by its length and first bytes: a payload of a megabyte
        // is not read twice.
        let mut content = 0xcbf2_9ce4_8422_2325u64;
        for call in &case.calls {
            judge::strings(&call.result, &mut |s| {
                taken.extend(gen::hex_after(s, &finder));
                content = s.len().to_le_bytes().into_iter().fold(content, fnv);
                content = s.bytes().take(32).fold(content, fnv);
            });
        }
        let state = case
            .calls
            .iter()
            .flat_map(|c| c.tool_call_id.bytes().chain([0]))
            .fold(content ^ salt, fnv);
        Tokens { taken, state }
    }

    /// These tokens, made new for every examination of the same case: the
    /// canary sibling of a case sent again (a repeat in the stream, each
    /// step of a shrink) is sent with canaries and ids no earlier run saw,
    /// so a runtime that remembers what it delivered in earlier runs (an
    /// attachment de-duplicated across turns) drops none of them, and the
    /// ¶4 test does not read its shortfall as the exposure's. A slot of
    /// [`EXAMINED`] counts the examinations of the cases whose tokens fall
    /// in it: two cases sharing a slot only count each other's, and every
    /// count a case meets is one it has not met before.
    pub(super) fn afresh(mut self) -> Tokens {
        let slot = &EXAMINED[(self.state % EXAMINED.len() as u64) as usize];
        let before = slot.fetch_add(1, Ordering::Relaxed);
        self.state ^= u64::from(before).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self
    }

    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        loop {
            self.state = self
                .state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if !self.taken.contains(&self.state) {
                break;
            }
        }
        // `format!("{prefix}{:016x}")`, without the formatting machinery:
        // a case's siblings take a few dozen tokens.
        let mut token = String::with_capacity(prefix.len() + 16);
        token.push_str(prefix);
        for shift in (0..16).rev() {
            let digit = (self.state >> (shift * 4)) & 0xf;
            token.push(char::from(b"0123456789abcdef"[digit as usize]));
        }
        token
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use super::super::canary::Canaried;
    use super::super::sent::Sent;
    use super::*;
    use crate::judge::ProseMode;

    /// The tokens of a case's two siblings: its markers, then its canaries.
    fn tokens(case: &Case) -> Vec<String> {
        let sent = Sent::new(case.clone(), ProseMode::DataOnly);
        let markers = sent.marked.markers().flatten().map(str::to_owned);
        markers.chain(sent.canary.canaries).collect()
    }

    /// A case examined again (a repeat in the stream, a step of a shrink)
    /// gets a canary sibling with canaries and call ids that no earlier
    /// examination of it had: a runtime that remembers earlier runs meets
    /// new artifacts and ids in it, every time.
    #[test]
    fn a_case_examined_again_gets_canaries_and_ids_no_earlier_run_saw() {
        let mut with_canaries = 0;
        for case in gen::cases(5).take(100) {
            let canary = |case: &Case| Sent::new(case.clone(), ProseMode::DataOnly).canary;
            let runs: Vec<Canaried> = (0..3).map(|_| canary(&case)).collect();
            for (i, a) in runs.iter().enumerate() {
                for b in &runs[i + 1..] {
                    let ids = |c: &Canaried| -> BTreeSet<String> {
                        c.case
                            .calls
                            .iter()
                            .map(|c| c.tool_call_id.clone())
                            .collect()
                    };
                    assert!(ids(a).is_disjoint(&ids(b)), "{case:?}");
                    let canaries: BTreeSet<&String> = a.canaries.iter().collect();
                    assert!(b.canaries.iter().all(|t| !canaries.contains(t)), "{case:?}");
                }
            }
            with_canaries += usize::from(!runs[0].canaries.is_empty());
        }
        assert!(
            with_canaries > 50,
            "{with_canaries} of 100 cases had canaries"
        );
    }

    #[test]
    fn no_token_of_a_sibling_is_one_the_case_already_holds() {
        let case = |data: &str, note: &str| -> Case {
            let call = |id: &str| {
                json!({"tool_call_id": id, "result": {"success": true, "data": data,
                    "artifacts": [{"type": "link", "payload": {"url": "u", note: note}}]}})
            };
            serde_json::from_value(json!({"calls": [call("c1"), call("c2")]})).unwrap()
        };
        let plain = tokens(&case("d", "n"));
        // The same call ids draw the same tokens, unless the case holds them:
        // here inside its `data`, a payload string and a payload key.
        let (half, rest) = plain.split_at(plain.len() / 2);
        let holding = case(
            &format!("d {}!", half.join("x")),
            &format!("-{}", rest.join(" ")),
        );
        let mut held = String::new();
        for call in &holding.calls {
            judge::strings(&call.result, &mut |s| held.push_str(&format!("{s}\n")));
        }
        assert!(plain.iter().all(|t| held.contains(t.as_str())), "{held}");
        let drawn = tokens(&holding);
        assert_eq!(drawn.len(), plain.len());
        for token in &drawn {
            assert!(
                !held.contains(token.as_str()),
                "{token} is in the case: {held}"
            );
        }
    }
}
