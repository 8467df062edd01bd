//! Generators of valid [`Case`]s: proptest strategies, an
//! [`arbitrary::Arbitrary`] implementation, and a seeded stream of cases.
//!
//! Every case generated here is *valid* ([`crate::reading`], "The zones"): call ids are
//! unique strings, and everything else lives inside a `result`, which may be
//! any JSON. The generators aim at the ways a runtime gets RT-TOOL-3 wrong;
//! each adversary is a named feature of the [`Census`] (`rt-tool-3 cases
//! --census N`), with the mistake it exposes and the share of cases that
//! must show it:
//!
//! - several calls in one invocation, so artifacts must be told apart, and
//!   the same artifact in one call twice or in two calls;
//! - spoofed ids at every place a runtime might read one: on an artifact
//!   entry, at a payload's top level, nested one to four objects deep in a
//!   payload, inside `data`, and at a result's top level, each a sibling
//!   call's real id, the call's own id, or no call's ([`Place`], [`Kind`]);
//! - `type` values a normaliser would change: padded, blank, cased, with a
//!   look-alike or invisible character, over 256 bytes;
//! - payloads with a `type` or `payload` key of their own, which a runtime
//!   that spreads or unwraps the payload takes for the entry's;
//! - extra keys on entries, arbitrary or near misses of the real ones
//!   ([`NEAR_MISS_KEYS`]: `Type`, `"type "`, `"type\u{200b}"`, a Cyrillic
//!   `tуpe`, `tool-call-id`, `__proto__`, `constructor` …);
//! - strings shared by `data` and an artifact's payload (a URL, a file name),
//!   and canaries ([`canary`]): strings placed only outside `data`, in
//!   artifacts and in result-level decoys, so that seeing one in the prose is
//!   certainly a leak ([`canary_strings`] finds them again);
//! - result-level decoys ([`DECOY_KEYS`]: `content`, `prose`, `message`,
//!   `tool_call_id`, `artifacts_text`);
//! - failed calls (`success: false`) that carry artifacts;
//! - malformed entries, in every way RT-TOOL-2 drops one ([`malformed_entry`]);
//! - smuggling through `data`: an `artifacts` key inside it,
//!   delimiter-like strings ([`DELIMITERS`]), and MCP-style typed content
//!   blocks (`text`, `resource_link`);
//! - instruction-like text inside artifacts ([`INSTRUCTIONS`]);
//! - every JSON type in every place of a result: `success`, `data`,
//!   `error` ([`error`]), `artifacts`, an entry's `type`, `payload` and
//!   `tool_call_id`, `data`'s reserved `artifacts` key, and keys the rule
//!   never names;
//! - strings with every character a parser or a line splitter trips on:
//!   NUL, CR, U+2028, U+2029 and U+0085 (which JSON leaves unescaped and
//!   `str.splitlines` splits at), the BOM, non-characters, characters
//!   outside the Basic Multilingual Plane, and the text of a surrogate
//!   escape (`\ud800` as six characters; never a lone surrogate, which a
//!   case may not hold);
//! - a minority (about a fifth) of lenient-zone cases ([`lenient_case`]): a
//!   result that is not an object, `artifacts` that is not an array, no
//!   boolean `success`, and runs above RT-TOOL-6's floors (over 50 kept
//!   artifacts, or a payload over 512,000 encoded bytes);
//! - RT-TOOL-6's bounds at their edges ([`near_bound_case`],
//!   [`count_case`]): payloads solved to 512,000 bytes exactly and a few
//!   bytes either side, and runs to 2,000,000, under each [`Measure`] a
//!   runtime may take (compact, escaped, the oracle's own, UTF-16 units,
//!   pretty-printed, base64, the whole entry), an artifact that no longer
//!   fits the run before a smaller one that still does, and runs keeping
//!   exactly 49, 50 or 51 artifacts over several calls with malformed
//!   entries between them.
//!
//! Sizes are small by default (up to four calls, up to about five entries a
//! call) so that proptest's shrinking ends near a minimal case, but the
//! generators reach the edges: empty and unusual strings, payloads nested 20
//! deep and, in about one result in a hundred, 64 to [`DEEPEST_PAYLOAD`]
//! (501) levels, where a request nests 508 deep and a report holding the
//! case 512, the oracle's bound and PHP's ([`deep_entry`]), exactly 45 to 51
//! kept artifacts, and over 50. Every generated number is exact as an
//! IEEE-754 double (integers within ±2^53, quarters), or one drawn across
//! the whole range that a double at least approximates ([`wide_number`]),
//! so an implementation in any language can replay a case as it is.
//!
//! [`case`] is the top-level strategy; [`cases`] turns it into a
//! reproducible stream (the `rt-tool-3 cases` command).
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! use rt_tool_3::{gen, model};
//!
//! let mut runner = TestRunner::deterministic();
//! let case = gen::case().new_tree(&mut runner).unwrap().current();
//! let outcome = model::outcome(&case);
//! for canary in gen::canary_strings(&case) {
//!     assert!(outcome.messages.iter().all(|m| !m.content.contains(&canary)));
//! }
//! ```

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::ValueTree;
use proptest::test_runner::{
    Config, FailurePersistence, FileFailurePersistence, PersistedSeed, RngAlgorithm, TestRng,
    TestRunner,
};
use serde_json::{json, Map, Number, Value};

use crate::wire::{Call, Case};

mod canary;
mod cases;
mod census;
mod edges;
mod entries;
mod exposure;
mod fuzzing;
mod ids;
mod measures;
mod pattern;
mod payloads;
mod plain;
mod ranges;
mod results;
mod stream;
mod typed;
mod union;

pub use self::canary::*;
pub use self::cases::*;
pub use self::census::{
    chance_each, chance_of_at_most, features, fewest_cases, lower_floor, Census, Feature, Kind,
    Place, Seen, Share, CHANCE, LOWER_FLOORS,
};
pub use self::edges::*;
pub use self::entries::*;
pub use self::exposure::*;
pub use self::ids::*;
pub use self::measures::*;
use self::pattern::Pattern;
pub use self::payloads::*;
pub use self::plain::*;
pub use self::ranges::{significant_digits, Ranges};
pub use self::results::*;
pub use self::stream::*;
pub use self::typed::*;
use self::union::one_of;
