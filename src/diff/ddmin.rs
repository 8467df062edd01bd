//! Cutting a divergence by halves before the greedy pass: Zeller's delta
//! debugging (ddmin), over the calls and every large array, object and
//! string of the case, from the top down.
//!
//! The greedy pass ([`crate::replay::smaller`]) takes out one key, item or
//! call at a time, so a case whose divergence sits in one number of a flat
//! array of 200,000 took 200,000 steps, each three requests of the whole
//! case (over 1.5 MB): hours. Delta debugging tries leaving out each half
//! first, then each quarter, each eighth, … : the half that does not hold
//! the number goes in one try, and 18 halvings later the array is down to
//! a few items, in some 30 tries whose requests halve with each step.
//!
//! It is a way to get there faster, not what makes a case minimal: the
//! greedy pass, which follows, still tries every key, item, call and
//! simpler value one at a time, and a case is minimal only once a whole
//! pass of it finds nothing smaller, as before. So cutting touches only
//! what it can cut faster than the greedy pass: an array, object or call
//! list of at least [`MANY`] elements, in parts of two or more (one
//! element at a time is the greedy pass's), and a string of at least
//! [`LONG`] characters, which the greedy pass can only empty. Each is cut
//! into at most [`PARTS`] parts: a container whose every element is
//! needed costs at most some thirty failed tries, where a finer cut
//! would cost as many tries as it has elements (a 518,835-character
//! payload over RT-TOOL-6's floor is cut to within a sixteenth of the
//! floor, not to the floor and a byte).

use std::ops::Range;

use serde_json::Value;

use super::report::Vector;
use super::shrink::Cut;
use crate::wire::Case;

/// The fewest elements an array, an object or the list of calls must have
/// to be cut by parts: below it, a half is one or two elements, which the
/// greedy pass takes out as cheaply.
pub(super) const MANY: usize = 8;

/// The fewest characters a string must have to be cut by parts: a shorter
/// one (a type, an id, a URL, a canary) is only emptied, by the greedy
/// pass, as before.
pub(super) const LONG: usize = 64;

/// The most parts a container is cut into: halves, then quarters. Finer
/// parts pay only where the divergence needs elements from more than three
/// of them; they cost a try each wherever it needs every element (the 51
/// artifacts over RT-TOOL-6's floor of 50, a payload over its 512,000
/// bytes), where cutting into sixteenths took 30 failed tries, not 6 (90
/// requests more a divergence, of 512 KB each for a payload).
pub(super) const PARTS: usize = 4;

/// Why cutting stopped before it was done.
pub(super) enum Halt {
    /// A fault, or the time budget (see [`Cut`]): shrinking ends here.
    Cut(Cut),
    /// The limit of tries: the greedy pass takes over from here.
    Tries,
}

/// The case being cut, and what it takes to try a smaller one.
struct Cutter<'s, F> {
    /// The smallest case found so far that still shows the divergence.
    case: Case,
    /// Its vectors, once one smaller than the first was found.
    vectors: Option<Vec<Vector>>,
    tries: u32,
    max_tries: u32,
    shows: &'s mut F,
}

/// One step from a value to one inside it.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Cuts `case` by parts while it still shows the divergence (`shows`),
/// within `max_tries` tries: the smallest case found, its vectors if it is
/// smaller than `case`, and why cutting stopped early, if it did.
pub(super) fn cut<F>(
    case: &Case,
    max_tries: u32,
    shows: &mut F,
) -> (Case, Option<Vec<Vector>>, Option<Halt>)
where
    F: FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
{
    let mut cutter = Cutter {
        case: case.clone(),
        vectors: None,
        tries: 0,
        max_tries,
        shows,
    };
    let halt = cutter.all().err();
    (cutter.case, cutter.vectors, halt)
}

impl<F> Cutter<'_, F>
where
    F: FnMut(&Case) -> Result<Option<Vec<Vector>>, Cut>,
{
    /// The calls, then each call's result from the top down.
    fn all(&mut self) -> Result<(), Halt> {
        if self.case.calls.len() >= MANY {
            self.ddmin(self.case.calls.len(), 2, |case, parts| {
                case.calls.drain(parts);
            })?;
        }
        for call in 0..self.case.calls.len() {
            self.value(call, &mut Vec::new())?;
        }
        Ok(())
    }

    /// Cuts the value at `path` in the result of `call`, then each value
    /// inside it.
    fn value(&mut self, call: usize, path: &mut Vec<Step>) -> Result<(), Halt> {
        let Some(value) = at(&self.case.calls[call].result, path) else {
            return Ok(());
        };
        match value {
            Value::Array(items) if items.len() >= MANY => {
                self.ddmin(items.len(), 2, |case, parts| {
                    if let Some(Value::Array(items)) = at_mut(case, call, path) {
                        items.drain(parts);
                    }
                })?;
            }
            Value::Object(keys) if keys.len() >= MANY => {
                self.ddmin(keys.len(), 2, |case, parts| {
                    if let Some(Value::Object(keys)) = at_mut(case, call, path) {
                        let kept = std::mem::take(keys).into_iter().enumerate();
                        *keys = kept
                            .filter(|(i, _)| !parts.contains(i))
                            .map(|(_, kv)| kv)
                            .collect();
                    }
                })?;
            }
            Value::String(s) if s.chars().nth(LONG - 1).is_some() => {
                self.string(call, path)?;
            }
            _ => {}
        }
        let inside: Vec<Step> = match at(&self.case.calls[call].result, path) {
            Some(Value::Array(items)) => (0..items.len()).map(Step::Index).collect(),
            Some(Value::Object(keys)) => keys.keys().cloned().map(Step::Key).collect(),
            _ => Vec::new(),
        };
        for step in inside {
            path.push(step);
            self.value(call, path)?;
            path.pop();
        }
        Ok(())
    }

    /// Cuts the long string at `path` in the result of `call`: emptied
    /// first (a string the divergence does not need goes in one try, not
    /// in halves), then by parts of characters.
    fn string(&mut self, call: usize, path: &[Step]) -> Result<(), Halt> {
        let mut emptied = self.case.clone();
        if let Some(Value::String(s)) = at_mut(&mut emptied, call, path) {
            s.clear();
        }
        if self.try_case(emptied)? {
            return Ok(());
        }
        let chars = match at(&self.case.calls[call].result, path) {
            Some(Value::String(s)) => s.chars().count(),
            _ => return Ok(()),
        };
        self.ddmin(chars, 1, |case, parts| {
            if let Some(Value::String(s)) = at_mut(case, call, path) {
                let byte = |c: usize| s.char_indices().nth(c).map_or(s.len(), |(b, _)| b);
                let bytes = byte(parts.start)..byte(parts.end);
                s.replace_range(bytes, "");
            }
        })
    }

    /// Zeller's ddmin over a container of `len` elements, leaving out one
    /// part at a time (`leave_out` makes the case without it): halves
    /// first; a part the divergence does not need goes, and the rest is
    /// cut again, in one part fewer (at least two); when no part can go,
    /// each part is halved, until the parts would be smaller than
    /// `min_part` elements or more than [`PARTS`].
    ///
    /// Worked example: 200,000 items, the divergence in item 137,421, and
    /// `min_part` 2. Leaving out items 0 to 99,999 still shows it: 100,000
    /// items, in two parts again. Leaving out the first half of those
    /// (the item is now 37,421) does not; leaving out the second does.
    /// Each halving takes one try or two, and the array is down to two or
    /// three items in 17.
    fn ddmin(
        &mut self,
        mut len: usize,
        min_part: usize,
        leave_out: impl Fn(&mut Case, Range<usize>),
    ) -> Result<(), Halt> {
        let mut n = 2;
        loop {
            let n_now = n.min(len / min_part).min(PARTS);
            if n_now < 2 {
                return Ok(());
            }
            let mut cut_one = false;
            for i in 0..n_now {
                let part = i * len / n_now..(i + 1) * len / n_now;
                if part.len() < min_part {
                    continue;
                }
                let mut smaller = self.case.clone();
                leave_out(&mut smaller, part.clone());
                if self.try_case(smaller)? {
                    len -= part.len();
                    n = (n_now - 1).max(2);
                    cut_one = true;
                    break;
                }
            }
            if !cut_one {
                if n_now >= (len / min_part).min(PARTS) {
                    return Ok(());
                }
                n = n_now * 2;
            }
        }
    }

    /// Tries `smaller`: whether it still shows the divergence, and then it
    /// is the case.
    fn try_case(&mut self, smaller: Case) -> Result<bool, Halt> {
        if self.tries == self.max_tries {
            return Err(Halt::Tries);
        }
        self.tries += 1;
        match (self.shows)(&smaller) {
            Ok(Some(vectors)) => {
                self.case = smaller;
                self.vectors = Some(vectors);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(cut) => Err(Halt::Cut(cut)),
        }
    }
}

/// The value at `path` inside `value`.
fn at<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, step| match (v, step) {
        (Value::Object(keys), Step::Key(k)) => keys.get(k),
        (Value::Array(items), Step::Index(i)) => items.get(*i),
        _ => None,
    })
}

/// The value at `path` in the result of `call` of `case`, to change.
fn at_mut<'c>(case: &'c mut Case, call: usize, path: &[Step]) -> Option<&'c mut Value> {
    let result = &mut case.calls.get_mut(call)?.result;
    path.iter().try_fold(result, |v, step| match (v, step) {
        (Value::Object(keys), Step::Key(k)) => keys.get_mut(k),
        (Value::Array(items), Step::Index(i)) => items.get_mut(*i),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::Call;

    /// A case of one call whose result is `result`.
    fn one_call(result: Value) -> Case {
        Case {
            exposed: None,
            calls: vec![Call {
                tool_call_id: "c1".into(),
                result,
            }],
        }
    }

    /// Cuts `case` with `shows` standing in for the divergence: the case
    /// cut to, how many tries it took, and whether it stopped early.
    fn cut_with(case: &Case, shows: impl Fn(&Case) -> bool) -> (Case, u32, bool) {
        let mut tries = 0;
        let mut as_shown = |c: &Case| {
            tries += 1;
            Ok(shows(c).then(Vec::new))
        };
        let (cut, _, halt) = cut(case, 1024, &mut as_shown);
        (cut, tries, halt.is_some())
    }

    /// The flat array of the payload of the case's first artifact.
    fn values(case: &Case) -> &Vec<Value> {
        case.calls[0].result["artifacts"][0]["payload"]["values"]
            .as_array()
            .expect("values")
    }

    /// One number of 200,000 shows the divergence: halving finds it in
    /// two tries a halving at most, where leaving out one item at a time
    /// took a try for each item before it.
    #[test]
    fn one_item_of_200000_is_found_by_halves() {
        let items: Vec<Value> = (0..200_000)
            .map(|i| match i {
                137_421 => json!(0.5),
                i => json!(i),
            })
            .collect();
        let case = one_call(json!({"success": true, "data": "d",
            "artifacts": [{"type": "table", "payload": {"values": items}}]}));
        let shows = |c: &Case| {
            c.calls[0].result["artifacts"][0]["payload"]["values"]
                .as_array()
                .is_some_and(|v| v.contains(&json!(0.5)))
        };
        let (cut, tries, halted) = cut_with(&case, shows);
        assert!(!halted);
        let kept = values(&cut);
        assert!(kept.len() <= 3 && kept.contains(&json!(0.5)), "{kept:?}");
        // 200,000 halves to 3 in 17 halvings, each one try or two.
        assert!(tries <= 2 * 17, "{tries} tries");
    }

    /// A substring a long string needs is all that is left of it: halves
    /// while the string is long, single characters once it is short.
    #[test]
    fn a_long_string_is_cut_to_what_it_needs() {
        let text = format!("{}needle{}", "a".repeat(6_000), "b".repeat(4_000));
        let case = one_call(json!({"success": true, "data": text}));
        let shows = |c: &Case| {
            c.calls[0].result["data"]
                .as_str()
                .is_some_and(|s| s.contains("needle"))
        };
        let (cut, tries, _) = cut_with(&case, shows);
        assert_eq!(cut.calls[0].result["data"], "needle");
        assert!(tries < 200, "{tries} tries");
    }

    /// A string shorter than [`LONG`] and a container of fewer than
    /// [`MANY`] elements are left to the greedy pass: nothing is tried.
    #[test]
    fn what_the_greedy_pass_does_as_cheaply_is_not_tried() {
        let short = "x".repeat(LONG - 1);
        let few: Vec<Value> = (0..MANY - 1).map(|i| json!(i)).collect();
        let case = one_call(json!({"a": short, "b": few, "c": {"d": 1}}));
        let (cut, tries, _) = cut_with(&case, |_| true);
        assert_eq!(tries, 0);
        assert!(cut == case);
    }

    /// A container whose every element the divergence needs costs a try
    /// for each half and each quarter, all failing, however long it is; a
    /// string one more, emptied first.
    #[test]
    fn a_container_that_needs_every_element_costs_a_bounded_number_of_tries() {
        for n in [MANY, 100, 10_000] {
            let items: Vec<Value> = (0..n).map(|i| json!(i)).collect();
            let text = "x".repeat(n * LONG);
            let case = one_call(json!({"items": items, "text": text}));
            let shows = |c: &Case| {
                let result = &c.calls[0].result;
                result["items"].as_array().map(Vec::len) == Some(n)
                    && result["text"].as_str().map(str::len) == Some(n * LONG)
            };
            let (cut, tries, _) = cut_with(&case, shows);
            assert!(cut == case);
            assert_eq!(tries, (2 + 4) + (1 + 2 + 4), "{n}");
        }
    }

    /// The calls are cut as an array is, and each call's result after them:
    /// of 40 calls, the one whose data the divergence needs is kept, with
    /// at most two others.
    #[test]
    fn calls_are_cut_by_halves_too() {
        let case = Case {
            exposed: Some(true),
            calls: (1..=40)
                .map(|i| Call {
                    tool_call_id: format!("c{i}"),
                    result: json!({"data": format!("call {i}")}),
                })
                .collect(),
        };
        let shows = |c: &Case| c.calls.iter().any(|call| call.tool_call_id == "c17");
        let (cut, tries, _) = cut_with(&case, shows);
        assert!(cut.calls.len() <= 3, "{} calls", cut.calls.len());
        assert!(cut.calls.iter().any(|call| call.tool_call_id == "c17"));
        assert!(tries <= 2 * 6, "{tries} tries");
    }

    /// What stops a try stops cutting at once, with the smallest case found
    /// so far: no try is made after it.
    #[test]
    fn a_spent_budget_stops_cutting_with_the_smallest_case_so_far() {
        let items: Vec<Value> = (0..1000).map(|i| json!(i)).collect();
        let case = one_call(json!({"items": items}));
        let mut tries = 0;
        let mut shows = |c: &Case| {
            tries += 1;
            if tries > 3 {
                return Err(Cut::Time);
            }
            Ok(Some(vec![super::super::examine::vector(
                c.clone(),
                Vec::new(),
                Value::Null,
            )]))
        };
        let (cut, vectors, halt) = cut(&case, 1024, &mut shows);
        assert!(matches!(halt, Some(Halt::Cut(Cut::Time))));
        assert_eq!(tries, 4);
        // Three halvings: 1000, 500, 250, 125.
        assert_eq!(
            cut.calls[0].result["items"].as_array().map(Vec::len),
            Some(125)
        );
        assert!(vectors.is_some_and(|v| v[0].case == cut));
    }
}
