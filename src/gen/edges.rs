//! Cases at the edges of RT-TOOL-6's bounds: payloads solved to 512,000
//! bytes exactly and a few bytes either side under each [`Measure`] a
//! runtime may use, runs solved to 2,000,000, artifacts that no longer fit
//! the run before smaller ones that still do, and runs that keep exactly
//! 49, 50 or 51 artifacts with malformed entries between them.
//!
//! A bound met only far from its edge shows nothing: at 768 cases of 0.9.0
//! the largest kept payload under 512,000 bytes was 317 to 454 KB and the
//! smallest over it 512,146, so a runtime measuring pretty-printed JSON,
//! base64, the whole entry or UTF-16 units, or testing `>=` for `>`, was
//! never seen. Here each payload is built of parts that make its measures
//! differ (characters outside ASCII, characters only PHP or Go escapes,
//! records and a chain that pretty-printing indents) and then padded with
//! ASCII letters, which cost one byte under every measure, to its target
//! under its measure exactly: under base64 a target is a multiple of 4,
//! `4·⌈n/3⌉` of `n` compact bytes.
//!
//! Worked example: to put a payload at 512,001 bytes pretty-printed, the
//! parts are drawn (say 120 records and a chain 30 deep, 4,100 bytes of
//! indentation, and 150 `é`, 600 bytes more escaped), the payload without
//! padding is measured pretty-printed (say 9,600 bytes), and 502,401
//! letters are added. Its longest plausible encoding is then about 508,500
//! bytes, within RT-TOOL-6's floor: a runtime that measures pretty-printed
//! JSON drops an artifact it owes.
//!
//! The measures of one recipe stay within about 6,000 bytes of one another
//! (base64 apart, a third more than compact), so a payload at 512,000
//! under one of them is within 2 % of it under every other, and a run of
//! five such payloads at 2,000,000 within 2 % of it under every other: each
//! such case counts in the census for six measures, and the base64 ones for
//! the seventh.

use super::*;

/// Characters of the Basic Multilingual Plane outside ASCII: two or three
/// bytes, one UTF-16 unit, a six-byte escape. The line ends JSON leaves
/// unescaped, the BOM and a non-character among them.
const BMP: &[char] = &[
    'é', '€', '\u{2028}', '\u{2029}', '\u{85}', '\u{feff}', '\u{fffe}', '日',
];
/// Characters outside it: four bytes, two units, twelve bytes escaped.
const ASTRAL: &[char] = &['🦀', '\u{1fffe}', '𝄞'];
/// Characters only some encoders escape: `/` (PHP), `<`, `>`, `&`, `'`, `+`
/// and the backtick (Go, .NET).
const SOME_ESCAPE: &[char] = &['/', '<', '>', '&', '\'', '+', '`'];
/// Characters every JSON encoder escapes.
const ESCAPED: &[char] = &['"', '\\', '\n', '\r', '\t', '\u{0}', '\u{1f}'];

/// What a payload at a bound is made of beside its padding: how many of
/// each kind of character, records and levels of nesting.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Recipe {
    bmp: usize,
    astral: usize,
    some_escape: usize,
    escaped: usize,
    /// Records in a list, each broken over lines and indented when
    /// pretty-printed (about 26 bytes more each).
    rows: usize,
    /// Objects nested in a chain: pretty-printing indents level `l` by
    /// `2l` spaces, about `2k²` bytes for `k` levels.
    chain: usize,
}

impl Recipe {
    /// The payload of this recipe with an empty `pad`.
    fn body(&self) -> Map<String, Value> {
        let mut text = String::new();
        let mut put = |set: &[char], n: usize| {
            for i in 0..n {
                text.push(set[i % set.len()]);
                text.push('x');
            }
        };
        put(BMP, self.bmp);
        put(ASTRAL, self.astral);
        put(SOME_ESCAPE, self.some_escape);
        put(ESCAPED, self.escaped);
        let mut m = Map::new();
        m.insert("name".into(), "edge.txt".into());
        m.insert("text".into(), text.into());
        if self.rows > 0 {
            let row = json!({"k": "v", "s": "r"});
            m.insert("rows".into(), Value::Array(vec![row; self.rows]));
        }
        if self.chain > 0 {
            let chain = (0..self.chain).fold(json!(0), |inner, _| json!({"d": inner}));
            m.insert("tree".into(), chain);
        }
        m.insert("pad".into(), "".into());
        m
    }
}

/// A recipe for a payload solved under `measure`. For the measures a
/// runtime might take over the oracle's own (pretty-printed, the entry),
/// mostly one whose excess under that measure is more than the escapes
/// add, so that a payload just over 512,000 bytes under it is owed; for
/// the others, any mix, and at times ASCII alone (compact, escaped, the
/// oracle's own and UTF-16 then the same, so that a payload at exactly
/// 512,000 bytes is owed and an off-by-one under any of them shows): half
/// the time under the oracle's own measure, a fifth under the others.
fn recipe(measure: Measure) -> BoxedStrategy<Recipe> {
    let plain = (0usize..=100, 0usize..=30).prop_map(|(rows, chain)| Recipe {
        rows,
        chain,
        ..Recipe::default()
    });
    let mixed = |bmp: usize, astral: usize, some: usize, rows, chain: usize| {
        (0..=bmp, 0..=astral, 0..=some, 0usize..=8, rows, 0..=chain).prop_map(
            |(bmp, astral, some_escape, escaped, rows, chain)| Recipe {
                bmp,
                astral,
                some_escape,
                escaped,
                rows,
                chain,
            },
        )
    };
    match measure {
        // The escapes add at most 31 bytes, under the entry's keys (46 or
        // more).
        Measure::Entry => (
            0usize..=2,
            0usize..=1,
            0usize..=3,
            0usize..=100,
            0usize..=12,
        )
            .prop_map(|(bmp, astral, some_escape, rows, chain)| Recipe {
                bmp,
                astral,
                some_escape,
                rows,
                chain,
                escaped: 0,
            })
            .boxed(),
        Measure::Pretty => one_of![
            3 => mixed(150, 20, 100, 80usize..=140, 30),
            1 => mixed(500, 60, 200, 0usize..=100, 30),
        ]
        .boxed(),
        Measure::Encoded => one_of![1 => mixed(500, 60, 200, 0usize..=100, 30), 1 => plain].boxed(),
        _ => one_of![4 => mixed(500, 60, 200, 0usize..=100, 30), 1 => plain].boxed(),
    }
}

/// `body` with `pad` set to `n` letters of `word` (and spaces).
fn padded(mut body: Map<String, Value>, n: usize, word: &str) -> Value {
    let unit = format!("{word} ");
    let mut pad = unit.repeat(n / unit.len() + 1);
    pad.truncate(n);
    body.insert("pad".into(), pad.into());
    Value::Object(body)
}

/// A payload of `recipe` whose size under `measure`, as the entry of type
/// `kind` of call `id`, is `target` (under base64, `target` rounded down to
/// a multiple of 4); `None` when the recipe alone is already larger.
pub(super) fn solved(
    recipe: &Recipe,
    measure: Measure,
    target: usize,
    (kind, id): (&str, &str),
    word: &str,
) -> Option<Value> {
    let body = recipe.body();
    let unpadded = Sizes::of(&Value::Object(body.clone()), kind, id);
    let n = match measure {
        Measure::Base64 => (target / 4 * 3).checked_sub(unpadded.get(Measure::Compact))?,
        m => target.checked_sub(unpadded.get(m))?,
    };
    Some(padded(body, n, word))
}

/// How far from a bound, in units of the measure (4 bytes under base64,
/// else 1): exactly at it most often (an off-by-one `>=` shows), just over
/// it (a payload the oracle still owes, measured larger), one under, or a
/// few either side.
const OFFSETS: [i64; 12] = [0, 1, 2, 3, 5, -1, -2, -3, -5, 12, -12, 64];

fn offset() -> BoxedStrategy<i64> {
    one_of![
        4 => Just(0i64),
        3 => select(OFFSETS[1..5].to_vec()),
        2 => Just(-1i64),
        1 => select(OFFSETS[6..].to_vec()),
    ]
    .boxed()
}

/// How a case near a byte bound lays out its payloads.
#[derive(Clone, Copy, Debug)]
pub(super) enum Layout {
    /// One payload at 512,000 bytes and the first offset, then a small one.
    Single,
    /// Three payloads at 512,000 bytes and an offset each, a fourth that
    /// brings the run to 2,000,000 and `run`, and a small one.
    Exact { run: i64 },
    /// Three payloads at 512,000 bytes and an offset each, a fourth going
    /// `over` bytes past 2,000,000 (it does not fit the run's budget), then
    /// a small one that still fits.
    Overflow { over: usize },
}

/// The targets, in the order collected, of a case near a byte bound
/// under a measure whose unit is `unit` (4 for base64, else 1): the
/// payload bound plus each of `at`, and `small` bytes for the last.
fn targets(layout: Layout, at: [i64; 3], unit: i64, small: usize) -> Vec<usize> {
    let payload = crate::model::floors::PAYLOAD_BYTES as i64;
    let run = crate::model::floors::RUN_BYTES as i64;
    let unit_down = |n: i64| n / unit * unit;
    let near = at.map(|a| payload + a * unit);
    let three: i64 = near.iter().sum();
    let small = unit_down(small as i64);
    let sizes = match layout {
        Layout::Single => vec![near[0], small],
        Layout::Exact { run: off } => {
            let fourth = run + off * unit - three - small;
            vec![near[0], near[1], near[2], fourth, small]
        }
        Layout::Overflow { over } => {
            let fourth = run + unit_down(over as i64).max(unit) - three;
            vec![near[0], near[1], near[2], fourth, small]
        }
    };
    sizes.into_iter().map(|s| s.max(0) as usize).collect()
}

/// A case near a byte bound: one to three successful calls whose kept
/// artifacts are the payloads of one layout under one [`Measure`], in
/// order across the calls, a malformed entry or two among them, an
/// ordinary `data` each. Base64 as often as the six others together, whose
/// payloads land near the bound under each of them at once; of those, the
/// measures a runtime gets wrong most (pretty-printed, the entry, the
/// oracle's own at exactly 512,000) four times as often as the others. The
/// layouts: one payload at 512,000 bytes or a few either side, then a small
/// one (a fifth of these cases); three at 512,000 or a few either side, a
/// fourth that brings the run to 2,000,000 exactly or a few bytes either
/// side, and a small one; or three at 512,000, a fourth that no longer fits
/// the run's 2,000,000 bytes, and a small one after it that still does.
/// Nothing else in the case is kept, so a run solved to 2,000,000 bytes is
/// exactly that.
pub fn near_bound_case() -> BoxedStrategy<Case> {
    let measure = one_of![
        15 => Just(Measure::Base64),
        4 => Just(Measure::Pretty),
        4 => Just(Measure::Entry),
        4 => Just(Measure::Encoded),
        1 => Just(Measure::Compact),
        1 => Just(Measure::Ascii),
        1 => Just(Measure::Utf16),
    ];
    let layout = one_of![
        1 => Just(Layout::Single),
        2 => offset().prop_map(|run| Layout::Exact { run }),
        2 => one_of![Just(1usize), 2usize..=16, 1_000usize..=8_000]
            .prop_map(|over| Layout::Overflow { over }),
    ];
    // One recipe of each kind, the measure's taken: no `prop_flat_map`.
    let recipes = (
        recipe(Measure::Entry),
        recipe(Measure::Pretty),
        recipe(Measure::Encoded),
        recipe(Measure::Compact),
    );
    let at = [offset(), offset(), offset()];
    (
        (exposed(), measure, layout, at, 100usize..=2_000),
        recipes,
        vec((call_id(), data(), plain_type()), 1..=3),
        (
            vec(malformed_entry(), 0..=2),
            any::<(Index, Index)>(),
            matching("[a-z]{1,8}"),
        ),
    )
        .prop_map(
            |((exposed, measure, layout, at, small), recipes, calls, (malformed, cuts, word))| {
                let recipe = match measure {
                    Measure::Entry => recipes.0,
                    Measure::Pretty => recipes.1,
                    Measure::Encoded => recipes.2,
                    _ => recipes.3,
                };
                let plan = Plan {
                    measure,
                    layout,
                    at,
                    small,
                    recipe,
                    word,
                };
                near_bound(exposed, plan, calls, malformed, cuts)
            },
        )
        .boxed()
}

/// What [`near_bound_case`] draws of a case beside its calls.
struct Plan {
    measure: Measure,
    layout: Layout,
    at: [i64; 3],
    small: usize,
    recipe: Recipe,
    word: String,
}

/// The case of `plan`, its payloads spread in order over `calls` (cut at
/// `cuts`), the malformed entries each after one of them.
fn near_bound(
    exposed: Option<bool>,
    plan: Plan,
    calls: Vec<(String, Option<Value>, String)>,
    malformed: Vec<Value>,
    cuts: (Index, Index),
) -> Case {
    let ids = unique_ids(calls.iter().map(|(id, _, _)| id.clone()));
    let n = calls.len();
    let measure = plan.measure;
    // The small payload last, solved first: the others make up the run.
    let last = n - 1;
    let entry = |call: usize| (calls[call].2.as_str(), ids[call].as_str());
    let solve = |recipe: &Recipe, under: Measure, call: usize, target: usize| {
        solved(recipe, under, target, entry(call), &plan.word)
            .unwrap_or_else(|| Value::Object(recipe.body()))
    };
    let small = solve(&Recipe::default(), measure, last, plan.small);
    let size = |p: &Value, call: usize, m: Measure| {
        let (kind, id) = entry(call);
        Sizes::of(p, kind, id).get(m)
    };
    let unit = if measure == Measure::Base64 { 4 } else { 1 };
    let sizes = targets(plan.layout, plan.at, unit, size(&small, last, measure));
    let k = sizes.len();
    let mut bounds = [cuts.0.index(k), cuts.1.index(k)];
    bounds.sort_unstable();
    // Payload `i` goes to call `call_of(i)`: the calls in order, each
    // taking the payloads up to its cut, the last taking the small one.
    let call_of = |i: usize| match i + 1 == k {
        true => last,
        false => bounds[..n - 1].iter().filter(|&&b| b <= i).count(),
    };
    let mut payloads: Vec<Value> = sizes[..k - 1]
        .iter()
        .enumerate()
        .map(|(i, &target)| solve(&plan.recipe, measure, call_of(i), target))
        .collect();
    payloads.push(small);
    // A run at 2,000,000 is solved under the oracle's own measure when the
    // payloads' is no larger (compact, escaped, UTF-16): an off-by-one
    // there shows only where the run is owed.
    if let (Layout::Exact { run }, Some(under)) = (plan.layout, run_measure(measure)) {
        let others: usize = (0..k)
            .filter(|&i| i != 3)
            .map(|i| size(&payloads[i], call_of(i), under))
            .sum();
        let target = (crate::model::floors::RUN_BYTES as i64 + run) as usize;
        payloads[3] = solve(
            &plan.recipe,
            under,
            call_of(3),
            target.saturating_sub(others),
        );
    }
    let mut artifacts: Vec<Vec<Value>> = vec![Vec::new(); n];
    for (i, payload) in payloads.into_iter().enumerate() {
        let call = call_of(i);
        artifacts[call].push(json!({"type": calls[call].2, "payload": payload}));
        if let Some(m) = malformed.get(i) {
            artifacts[call].push(m.clone());
        }
    }
    let raw = calls
        .into_iter()
        .zip(artifacts)
        .map(|((id, data, _), artifacts)| (id, succeeded(data, artifacts)))
        .collect();
    assemble(exposed, raw)
}

/// The measure a run at 2,000,000 bytes is solved under, where it is not
/// the payloads' own: the oracle's, for a measure never larger than it.
fn run_measure(measure: Measure) -> Option<Measure> {
    match measure {
        Measure::Compact | Measure::Ascii | Measure::Utf16 => Some(Measure::Encoded),
        _ => None,
    }
}

/// A successful call's result: `data` if any, and `artifacts`.
fn succeeded(data: Option<Value>, artifacts: Vec<Value>) -> Value {
    let mut m = Map::new();
    m.insert("success".into(), true.into());
    if let Some(data) = data {
        m.insert("data".into(), data);
    }
    m.insert("artifacts".into(), Value::Array(artifacts));
    Value::Object(m)
}

/// A run that keeps exactly 49, 50 or 51 artifacts, at RT-TOOL-6's floor
/// of 50 and either side, over one to five successful calls (cut at drawn
/// places), a malformed entry after about one kept entry in four, and in
/// three cases of ten a failed call first whose well-formed entries are
/// not kept: a runtime that counts what RT-TOOL-2 drops, or that stops
/// counting at a call's end, meets its bound early or late. The kept
/// entries cycle through one to five drawn ones, so the case stays small,
/// numbered by their call (`"part": j` in the payload) and of an ordinary
/// type (`plain_type`): none alike across calls, none a normaliser
/// changes, so that a runtime that de-duplicates or trims is first shown
/// on a case within the floors (with the entries alike across calls,
/// `dedupe-across-calls` was first shown on a run of 51, where RT-TOOL-6
/// is cited for what is missing, on 4 seeds of 10).
pub fn count_case() -> BoxedStrategy<Case> {
    (
        // 51 twice as often: 49 and 50 also come from `strict_case`.
        (exposed(), select(vec![49usize, 50, 51, 51])),
        vec((well_formed_entry(), plain_type()), 1..=5),
        vec(malformed_entry(), 1..=3),
        vec((call_id(), data()), 1..=5),
        (vec(any::<Index>(), 4), any::<u64>()),
        proptest::option::weighted(0.3, (call_id(), vec(well_formed_entry(), 1..=3))),
    )
        .prop_map(
            |((exposed, n), kept, malformed, calls, (cuts, mask), failed)| {
                let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(n + 1)).collect();
                bounds.truncate(calls.len() - 1);
                bounds.sort_unstable();
                let mut artifacts: Vec<Vec<Value>> = vec![Vec::new(); calls.len()];
                for (i, (entry, kind)) in kept.iter().cycle().take(n).enumerate() {
                    let call = bounds.iter().filter(|&&b| b <= i).count();
                    let mut entry = entry.clone();
                    entry["type"] = Value::String(kind.clone());
                    entry["payload"]["part"] = Value::from(call);
                    artifacts[call].push(entry);
                    if (mask >> (i % 63)) & 3 == 0 {
                        artifacts[call].push(malformed[i % malformed.len()].clone());
                    }
                }
                let failed = failed.map(|(id, entries)| {
                    let result =
                        json!({"success": false, "error": "quota exceeded", "artifacts": entries});
                    (id, result)
                });
                let raw = failed
                    .into_iter()
                    .chain(
                        calls
                            .into_iter()
                            .zip(artifacts)
                            .map(|((id, data), artifacts)| (id, succeeded(data, artifacts))),
                    )
                    .collect();
                assemble(exposed, raw)
            },
        )
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes of a case's kept payloads, in the order collected.
    fn kept(case: &Case) -> Vec<Sizes> {
        case.calls
            .iter()
            .flat_map(|c| {
                crate::model::rt_tool_2_kept(&c.result)
                    .map(|(kind, p)| Sizes::of(p, kind, &c.tool_call_id))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn payloads_are_solved_to_their_target_exactly() {
        let recipe = Recipe {
            bmp: 40,
            astral: 5,
            some_escape: 20,
            escaped: 3,
            rows: 30,
            chain: 12,
        };
        for measure in Measure::ALL {
            for target in [512_000usize, 512_001, 511_999, 20_000] {
                let p = solved(&recipe, measure, target, ("file", "c1"), "lorem").unwrap();
                let got = Sizes::of(&p, "file", "c1").get(measure);
                let want = match measure {
                    Measure::Base64 => target / 4 * 4,
                    _ => target,
                };
                assert_eq!(got, want, "{measure:?} at {target}");
            }
        }
        assert!(solved(&recipe, Measure::Compact, 100, ("file", "c1"), "x").is_none());
    }

    #[test]
    fn every_measure_of_a_recipe_differs_but_stays_within_two_percent() {
        let mut runner = TestRunner::deterministic();
        for measure in Measure::ALL {
            for _ in 0..40 {
                let recipe = recipe(measure).new_tree(&mut runner).unwrap().current();
                let p = solved(&recipe, measure, 512_000, ("link", "c1"), "ab").unwrap();
                let sizes = Sizes::of(&p, "link", "c1");
                for m in Measure::ALL {
                    if (m == Measure::Base64) != (measure == Measure::Base64) {
                        continue;
                    }
                    assert!(
                        Bound::Payload.near(sizes.get(m)),
                        "{measure:?}: {m:?} {} of {recipe:?}",
                        sizes.get(m)
                    );
                }
            }
        }
    }

    #[test]
    fn runs_are_solved_to_their_layout() {
        let mut runner = TestRunner::deterministic();
        let strategy = near_bound_case();
        let (mut exact, mut overflow) = (0, 0);
        for _ in 0..60 {
            let case = strategy.new_tree(&mut runner).unwrap().current();
            let sizes = kept(&case);
            // Which measure it was solved under: the one at the bound.
            let on = |m: Measure| {
                let unit = if m == Measure::Base64 { 4 } else { 1 };
                let d = sizes[0].get(m) as i64 - 512_000;
                d % unit == 0 && OFFSETS.contains(&(d / unit))
            };
            let measure = *Measure::ALL
                .iter()
                .find(|&&m| on(m))
                .expect("one at the bound");
            let run = |m: Measure| sizes.iter().map(|s| s.get(m)).sum::<usize>();
            if sizes.len() < 5 {
                continue;
            }
            for m in Measure::ALL {
                if (m == Measure::Base64) == (measure == Measure::Base64) {
                    assert!(Bound::Run.near(run(m)), "{m:?}: {}", run(m));
                }
            }
            for s in &sizes[..3] {
                let unit = if measure == Measure::Base64 { 4 } else { 1 };
                let d = s.get(measure) as i64 - 512_000;
                assert!(d % unit == 0 && OFFSETS.contains(&(d / unit)), "{d}");
            }
            let before: usize = sizes[..4].iter().map(|s| s.get(measure)).sum();
            if before > 2_000_000 {
                overflow += 1;
                let three: usize = sizes[..3].iter().map(|s| s.get(measure)).sum();
                assert!(three + sizes[4].get(measure) <= 2_000_000);
            } else {
                exact += 1;
                let under = run_measure(measure).unwrap_or(measure);
                assert!(run(under).abs_diff(2_000_000) <= 64 * 4);
            }
        }
        assert!(exact > 5 && overflow > 5, "{exact} exact, {overflow} over");
    }

    #[test]
    fn counts_are_exact_over_several_calls() {
        let mut runner = TestRunner::deterministic();
        let strategy = count_case();
        let mut seen = BTreeSet::new();
        for _ in 0..200 {
            let case = strategy.new_tree(&mut runner).unwrap().current();
            let n = kept(&case).len();
            assert!((49..=51).contains(&n), "{n}");
            seen.insert((n, case.calls.len() > 1));
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
    }
}
