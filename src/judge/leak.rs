//! The leak scan of ¶3: the strings a call's prose may not contain, found
//! in one pass of an Aho–Corasick automaton over windows, the longer ones
//! walked in a trie.

use std::fmt;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, Span};

use super::work::tally;

mod trie;
use super::ProseMode;
use crate::model;
use crate::wire::{self, Call, Case, Held, Holds, JsonRef};
use trie::{Node, Trie};

/// What one outcome's prose may not contain, call by call: string values of
/// [`LEAK_MIN_CHARS`] or more found anywhere in the case outside that call's
/// own `data` (less the reserved key), each with where it was found.
///
/// A call's prose comes from its own result's `data` alone: another call's
/// `data` or `error`, any artifact, a result-level decoy, the entries under
/// `data.artifacts` and the call's own `error` when it succeeded are all
/// candidates. A failed call's own `error` is allowed unless the prose is
/// read by the letter ([`ProseMode::failed_error_allowed`]). A string that
/// also occurs in what the call may draw on (its id, its `data` in any
/// rendering) is never a candidate, so a rendering of the implementation's
/// own cannot be mistaken for a leak.
///
/// Every candidate string is looked for in what each call may draw on in
/// one pass of an Aho–Corasick automaton over the first bytes of each
/// (a longer one is then compared in place); the lists themselves hold
/// each candidate once for every call it is one for.
pub fn leak_candidates<R: Holds>(case: &Case<R>, mode: ProseMode) -> Vec<Vec<(String, String)>> {
    let case = case.held();
    let scan = LeakScan::build(&case, mode, Some(Vec::new()));
    let mut allowed = vec![0; scan.strings.len()];
    (0..case.calls.len())
        .map(|i| {
            scan.mark_allowed(i, &mut allowed);
            scan.met
                .iter()
                .flatten()
                .filter(|&&(s, _, skip)| skip != Some(i) && allowed[s] != i + 1)
                .map(|&(s, place, _)| {
                    (scan.strings[s].0.to_owned(), scan.places[place].to_string())
                })
                .collect()
        })
        .collect()
}

/// The leak scan of one case: every string [`leak_candidates`] names, each
/// once, and an Aho–Corasick automaton that finds all of them that occur in
/// a text in one pass over it.
///
/// A call's candidates are the same for every call, in the same order, but
/// for those in what the call may draw on: a string of its own `data` is
/// always there, so the call's own `data` needs no skipping to find its
/// first leak. So a call's first leak is the first candidate string (in the
/// order met) that its prose holds and what it may draw on does not: two
/// passes of the automaton, over those two texts.
pub(super) struct LeakScan<'c> {
    case: &'c Case<Held<'c>>,
    mode: ProseMode,
    /// Each candidate string once, in the order first met, with where.
    pub(super) strings: Vec<(&'c str, usize)>,
    /// Where candidates are met: "the data of call c1", …
    places: Vec<Whose<'c>>,
    /// Each meeting of a candidate: the string, where, and the call whose
    /// own `data` (or bare result) it is in, which skips it. Kept only for
    /// [`leak_candidates`], which lists them all: the judge names a leak
    /// where its string was first met (32 bytes a candidate on 200,000
    /// calls, 13 MB, for nothing).
    met: Option<Meetings>,
    /// For each string, the call in whose own `data` (or bare result) it
    /// was first met, if it was: never a leak in that call's prose, which
    /// may always draw on it (a string under the reserved key is met as
    /// such first).
    own: Vec<Option<usize>>,
    /// Each window once ([`WINDOW`]): a candidate's first `WINDOW` bytes,
    /// or the whole of a shorter one.
    windows: Vec<&'c [u8]>,
    /// For each window, the candidate that is that window whole, if one is.
    whole_of: Vec<Option<usize>>,
    /// For each window of `WINDOW` bytes with candidates longer than it
    /// that start with it, those candidates as a trie: found where the
    /// window is, then walked there in place. Most windows have none, and
    /// hold nothing here.
    longer: HashMap<usize, Trie>,
    /// The automaton over `windows`, so its size does not grow with a
    /// candidate's length; `None` only if it could not be built (then the
    /// texts are searched string by string).
    automaton: Option<NFA>,
    /// Whether some candidate is longer than its window.
    long: bool,
}

/// Meetings of candidates: each the string, where, and the call that skips
/// it ([`LeakScan`]'s `met`).
type Meetings = Vec<(usize, usize, Option<usize>)>;

impl<'c> LeakScan<'c> {
    pub(super) fn new(case: &'c Case<Held<'c>>, mode: ProseMode) -> LeakScan<'c> {
        LeakScan::build(case, mode, None)
    }

    /// [`LeakScan::new`], each meeting of a candidate kept in `met` if it
    /// is `Some`.
    fn build(case: &'c Case<Held<'c>>, mode: ProseMode, met: Option<Meetings>) -> LeakScan<'c> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut scan = LeakScan::empty(case, mode, met);
        let mut meet = |scan: &mut LeakScan<'c>, v: Held<'c>, whose: Whose<'c>, skip| {
            // The place is kept once a candidate is met there.
            let place = scan.places.len();
            string_values(v, &mut |s| {
                // Fewer bytes than the least is fewer characters: the
                // string's text need not be read.
                if s.len() < LEAK_MIN_CHARS || s.chars().count() < LEAK_MIN_CHARS {
                    return;
                }
                if scan.places.len() == place {
                    scan.places.push(whose);
                }
                let id = *ids.entry(s).or_insert_with(|| {
                    scan.strings.push((s, place));
                    scan.own.push(skip);
                    scan.strings.len() - 1
                });
                if let Some(met) = &mut scan.met {
                    met.push((id, place, skip));
                }
            });
        };
        for (j, other) in case.calls.iter().enumerate() {
            let id = &other.tool_call_id;
            let wire::Node::Object(result) = other.result.node() else {
                meet(&mut scan, other.result, Whose::Result(id), Some(j));
                continue;
            };
            for (key, v) in result {
                let (whose, skip) = match key {
                    "success" => continue,
                    "data" => {
                        if let Some(reserved) = v.get(model::RESERVED_KEY) {
                            meet(&mut scan, reserved, Whose::Reserved(id), None);
                        }
                        // Another call's data whole: the reserved key's
                        // strings were named as such above, and come first.
                        (Whose::Data(id), Some(j))
                    }
                    "error" => (Whose::Error(id), None),
                    "artifacts" => (Whose::Artifacts(id), None),
                    _ => (Whose::Other(id, key), None),
                };
                meet(&mut scan, v, whose, skip);
            }
        }
        // Each string is met once now: the index of them is not needed
        // while the automaton is built, which is when the scan weighs most.
        drop(ids);
        scan.index();
        scan
    }

    /// A scan with no candidate yet.
    fn empty(case: &'c Case<Held<'c>>, mode: ProseMode, met: Option<Meetings>) -> LeakScan<'c> {
        LeakScan {
            case,
            mode,
            strings: Vec::new(),
            places: Vec::new(),
            met,
            own: Vec::new(),
            windows: Vec::new(),
            whole_of: Vec::new(),
            longer: HashMap::new(),
            automaton: None,
            long: false,
        }
    }

    /// Builds the windows and the automaton over `strings`.
    fn index(&mut self) {
        let scan = self;
        // A string shorter than `WINDOW` is its own window, and no other
        // string's (each is met once): only windows of `WINDOW` bytes, which
        // longer strings share, are looked up.
        let mut window_ids: HashMap<&[u8], usize> = HashMap::new();
        for (id, &(string, _)) in scan.strings.iter().enumerate() {
            let window = &string.as_bytes()[..string.len().min(WINDOW)];
            let mut new_window = || {
                scan.windows.push(window);
                scan.whole_of.push(None);
                scan.windows.len() - 1
            };
            let w = if window.len() < WINDOW {
                new_window()
            } else {
                *window_ids.entry(window).or_insert_with(new_window)
            };
            if window.len() == string.len() {
                scan.whole_of[w] = Some(id);
            } else {
                scan.longer.entry(w).or_default().insert(id, &scan.strings);
            }
        }
        scan.long = !scan.longer.is_empty();
        if !scan.windows.is_empty() {
            tally(|w| w.built += scan.windows.iter().map(|w| w.len() as u64).sum::<u64>());
            scan.automaton = NFA::new(&scan.windows).ok();
        }
    }

    /// Marks with `i + 1` each candidate string found in what call `i` may
    /// draw on: every rendering of its `data` (less the reserved key) and
    /// of what else it may draw on, each string in them, and its id, as
    /// one text.
    fn mark_allowed(&self, i: usize, marks: &mut [usize]) {
        let call = &self.case.calls[i];
        let own_error = call.result.get("success").is_some_and(JsonRef::is_true)
            || !self.mode.failed_error_allowed();
        let mut text = Text::new(self);
        allowed_of(call, own_error, &mut |v| {
            text.write(|out| {
                wire::write_sorted(out, v);
                out.push(Text::BETWEEN);
                wire::write_value(out, v);
                out.push(Text::BETWEEN);
            });
            strings(v, &mut |s| {
                text.write(|out| {
                    out.extend_from_slice(s.as_bytes());
                    out.push(Text::BETWEEN);
                });
            });
        });
        text.feed(&call.tool_call_id);
        for s in text.found() {
            marks[s] = i + 1;
        }
    }

    /// Call `i`'s leaks: each candidate string in `content` not marked
    /// with `i + 1` by [`LeakScan::mark_allowed`], once, in the order the
    /// candidates were first met, with where it was first met. What the
    /// call may draw on is read only when `content` holds a string met
    /// outside the call's own `data`: a prose drawn from that `data` alone,
    /// the usual one, has nothing to be excused, and is the only text read,
    /// however large the `data`.
    pub(super) fn leaks(
        &self,
        i: usize,
        content: &str,
        allowed: &mut [usize],
    ) -> Vec<(&'c str, Whose<'c>)> {
        let mut text = Text::new(self);
        text.read(content.as_bytes());
        let mut found: Vec<usize> = text
            .found()
            .into_iter()
            .filter(|&s| self.own[s] != Some(i))
            .collect();
        if found.is_empty() {
            return Vec::new();
        }
        self.mark_allowed(i, allowed);
        found.retain(|&s| allowed[s] != i + 1);
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|s| {
                let (string, place) = self.strings[s];
                (string, self.places[place])
            })
            .collect()
    }
}

/// Where a candidate string was met, said when a leak of it is: "the data
/// of call c1". Kept as the call's id (and the key) and said only then, so
/// that a case of many calls does not hold a sentence for each.
#[derive(Clone, Copy, Debug)]
pub(super) enum Whose<'c> {
    /// A result that is not an object.
    Result(&'c str),
    /// The reserved `artifacts` key of a call's `data`.
    Reserved(&'c str),
    Data(&'c str),
    Error(&'c str),
    Artifacts(&'c str),
    /// Any other key of a result, beside its `data`.
    Other(&'c str, &'c str),
}

impl fmt::Display for Whose<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Whose::Result(id) => write!(f, "the result of call {id}"),
            Whose::Reserved(id) => write!(f, "the reserved `artifacts` key of call {id}'s data"),
            Whose::Data(id) => write!(f, "the data of call {id}"),
            Whose::Error(id) => write!(f, "the error of call {id}"),
            Whose::Artifacts(id) => write!(f, "the artifacts of call {id}"),
            Whose::Other(id, key) => write!(f, "the `{key}` of call {id}'s result, not its data"),
        }
    }
}

/// How many bytes of each candidate the leak scan's automaton holds: a
/// longer candidate is found where its first `WINDOW` bytes are, then
/// compared there in place. An automaton costs some tens of bytes for each
/// byte it holds, so one over whole candidates took 2 GB for a single 32 MB
/// string; over windows it holds at most `WINDOW` bytes a candidate.
const WINDOW: usize = 64;

/// One text the leak scan reads, fed in pieces.
struct Text<'s, 'c> {
    scan: &'s LeakScan<'c>,
    /// Where the automaton is, and where it starts.
    state: Option<StateID>,
    start: Option<StateID>,
    /// Pieces not read yet: many small ones are read as one. Where some
    /// candidate is longer than its window, the whole text waits here, so
    /// that a candidate can be compared where its window is found.
    pending: Vec<u8>,
    /// The match states met, each read once, and the strings they found.
    seen: HashSet<StateID>,
    /// The last match state met.
    last_seen: Option<StateID>,
    found: Vec<usize>,
    /// Each window met with candidates longer than it: those not found
    /// yet in this text (each is found once), and how far each agreed
    /// where the window was last met.
    groups: Vec<Group>,
    /// The group of the window of `WINDOW` bytes that ends in a match
    /// state, if one does and has longer candidates: found once a state,
    /// then looked up.
    long_at: HashMap<StateID, Option<usize>>,
    /// The last match state met and its entry in `long_at`: a text that
    /// repeats meets the same one again and again.
    last: Option<(StateID, Option<usize>)>,
    /// The whole text, kept only when there is no automaton.
    whole: Vec<u8>,
}

impl<'s, 'c> Text<'s, 'c> {
    /// How much of a text is read at once.
    const CHUNK: usize = 65_536;

    /// What parts two pieces of a text (two renderings, two strings): a
    /// byte no UTF-8 string holds, so no candidate is found across two
    /// pieces, each of which the call may draw on, but not the two as one.
    const BETWEEN: u8 = 0xFF;

    fn new(scan: &'s LeakScan<'c>) -> Text<'s, 'c> {
        let state = scan
            .automaton
            .as_ref()
            .and_then(|a| a.start_state(Anchored::No).ok());
        Text {
            scan,
            state,
            start: state,
            pending: Vec::new(),
            seen: HashSet::new(),
            last_seen: None,
            found: Vec::new(),
            groups: Vec::new(),
            long_at: HashMap::new(),
            last: None,
            whole: Vec::new(),
        }
    }

    fn feed(&mut self, piece: &str) {
        self.write(|out| out.extend_from_slice(piece.as_bytes()));
    }

    /// Feeds what `write` appends, written straight where pieces wait.
    fn write(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.pending);
        if self.pending.len() >= Self::CHUNK && !self.scan.long {
            self.read_pending();
        }
    }

    fn read_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.read(&pending);
        self.pending = pending;
        self.pending.clear();
    }

    /// Reads the next bytes of the text, which end where a piece ends (and
    /// are the whole text, if a candidate is longer than its window).
    /// The bytes it reads are counted: all of them but those the
    /// automaton jumps over ([`Text::periods_to_skip`]).
    fn read(&mut self, bytes: &[u8]) {
        let (Some(automaton), Some(mut state)) = (&self.scan.automaton, self.state) else {
            tally(|w| w.scanned += bytes.len() as u64);
            return self.whole.extend_from_slice(bytes);
        };
        let mut jumped = 0;
        // Where no candidate can start, the automaton's prefilter skips
        // ahead (memchr and the like), to the end of what is read if none
        // can: no match runs from one piece into the next, which
        // [`Text::BETWEEN`] parts.
        let prefilter = automaton.prefilter();
        // Each turn reads one byte, so the loop ends; the prefilter only
        // moves the start of what is left forward.
        let mut rest = 0..bytes.len();
        loop {
            if let Some(prefilter) = prefilter.filter(|_| Some(state) == self.start) {
                match prefilter
                    .find_in(bytes, Span::from(rest.clone()))
                    .into_option()
                {
                    Some(next) => rest.start = next,
                    None => break,
                }
            }
            let Some(at) = rest.next() else { break };
            state = automaton.next_state(Anchored::No, state, bytes[at]);
            if !automaton.is_match(state) {
                continue;
            }
            // A state holds every window that ends where it is, overlaps
            // included, so reading each once finds every candidate that is
            // its window whole. A text that repeats meets the same state
            // again and again: the last one met is not looked up again.
            if self.last_seen != Some(state) {
                if self.seen.insert(state) {
                    let scan = self.scan;
                    self.found
                        .extend((0..automaton.match_len(state)).filter_map(|m| {
                            scan.whole_of[automaton.match_pattern(state, m).as_usize()]
                        }));
                }
                self.last_seen = Some(state);
            }
            if !self.scan.long {
                continue;
            }
            // A longer candidate is compared wherever its window is: at most
            // one window of `WINDOW` bytes ends here, and only such a window
            // has longer candidates (a shorter one is a candidate whole).
            let group = match self.last.filter(|&(last, _)| last == state) {
                Some((_, group)) => group,
                None => {
                    let (scan, groups) = (self.scan, &mut self.groups);
                    let group = *self.long_at.entry(state).or_insert_with(|| {
                        let w = (0..automaton.match_len(state))
                            .map(|m| automaton.match_pattern(state, m).as_usize())
                            .find(|w| scan.longer.contains_key(w))?;
                        groups.push(Group::new(w, &scan.longer[&w]));
                        Some(groups.len() - 1)
                    });
                    self.last = Some((state, group));
                    group
                }
            };
            let Some(group) = group else { continue };
            if let Some((step, to)) = self.compare(group, bytes, at + 1 - WINDOW) {
                if let Some(past) = self.periods_to_skip(at, step, to) {
                    jumped += past - rest.start;
                    rest.start = past;
                }
            }
        }
        self.state = Some(state);
        tally(|w| w.scanned += (bytes.len() - jumped) as u64);
    }

    /// Where to read on from, past whole periods of a repeat that can
    /// show nothing new: `at`, the byte just read, ends a window met at
    /// `at + 1 - WINDOW`, from where to `to` each byte of the text is the
    /// one `step` back ([`Text::compare`]).
    ///
    /// The automaton's state after a byte depends on the `WINDOW` bytes
    /// that end there alone (the longest of them that starts a window), so
    /// from `at` to `to` each state is the one `step` back: the same
    /// candidates found, the same windows met, and where a window is met
    /// the text agrees with where it was met a step back as far as a walk
    /// can go (its window's longest candidate not found yet), if that
    /// stays short of `to`. So the automaton can go on from `at + k·step`
    /// in the state it has now, for any `k` that keeps every walk it skips
    /// short of `to`. Every window's walk is then started afresh where it
    /// is next met, which costs up to its longest candidate not found: a
    /// jump is taken only when it passes four times what those walks can
    /// cost, so that what the jumps cost stays within what the text's
    /// bytes cost.
    ///
    /// For example, a 16 MB prose of one phrase of 18 bytes and 16,000
    /// candidates of 1,000 bytes of that phrase and a number: the walks
    /// find none, the repeat is checked once to the end at the second
    /// meeting, and the automaton jumps from there to 1,000 bytes before
    /// the end.
    fn periods_to_skip(&mut self, at: usize, step: usize, to: usize) -> Option<usize> {
        // The furthest a walk can go; past `at`, at least the next byte
        // is read.
        let walks = |g: &Group| if g.left > 0 { g.longest } else { 0 };
        let reach = self.groups.iter().map(walks).max().unwrap_or(0).max(1);
        let periods = to.checked_sub(at + reach)? / step;
        let skip = periods * step;
        // A window restarted costs its next walk, or a check of its
        // repeat again, a window at least.
        let restarts: usize = self
            .groups
            .iter()
            .filter(|g| g.at.is_some())
            .map(|g| walks(g).max(WINDOW))
            .sum();
        if skip <= restarts.saturating_mul(4) {
            return None;
        }
        self.groups.iter_mut().for_each(Group::restart);
        Some(at + skip + 1)
    }

    /// Walks the trie of `group`'s window along `text` where the window
    /// starts, `at`, finding each candidate the text holds there.
    ///
    /// Walking from the window afresh at each place would read the text
    /// again and again where it repeats: `n` candidates that share a long
    /// prefix with a text that repeats it meet their window at every
    /// period. So each window remembers where it was last met and the path
    /// its walk took. Where the text from here on repeats what it held one
    /// step back (the step between the two places), over as far as the
    /// walk went, the walk would go the same way and find nothing new:
    /// nothing is read but that repeat, checked once for the whole text.
    /// Where the repeat breaks, `j` bytes on, the walk goes the same way
    /// for `j` bytes, and goes on from there, in the node that holds byte
    /// `j`. A trie, not a list: the candidates that agree with the text
    /// for `j` bytes are those below one node, so what is looked at is the
    /// path, not every candidate (`n` candidates of a window and a text
    /// that meets it `m` times, its repeat broken at each meeting, cost
    /// `n·m` with a list).
    ///
    /// Worked example: candidates `W+"ab"` and `W+"ac"` (W the window) are
    /// a root edge `"a"` with children `b` and `c`; a text `W+"ax"+W+"ac"`
    /// walks `a` then stops at `x`, then at the second meeting repeats `a`
    /// (one byte of repeat, checked), resumes in the root edge after it,
    /// takes child `c` and finds `W+"ac"`.
    ///
    /// Where the walk can find nothing new, the step between the last two
    /// meetings and where the text stops repeating it from `at` on, for
    /// [`Text::periods_to_skip`].
    ///
    /// A window whose candidates are all found is walked no more, but its
    /// repeats are still checked, so that the automaton can jump over them.
    fn compare(&mut self, group: usize, text: &[u8], at: usize) -> Option<(usize, usize)> {
        let (strings, group) = (&self.scan.strings, &mut self.groups[group]);
        let trie = &self.scan.longer[&group.window];
        let j = match group.at.replace(at) {
            None => 0,
            Some(before) => {
                // From where it was checked to, the text is checked on to
                // where it stops repeating what it held a step back, each
                // byte once: a repeat found for one step holds for the next
                // step too. Between two meetings at other steps it reaches
                // no further than the window met: were it to reach past it,
                // the window would also occur a step back, between two
                // meetings, a meeting of its own. So from `at` to `to` each
                // byte is the one `step` back: the window met here and a
                // step back covers what a check at another step reached.
                let step = at - before;
                let from = group.repeats_to.max(at);
                let to = from + common_prefix(&text[from..], &text[from - step..]);
                group.repeats_to = to;
                // The walk goes as before, where the repeat goes past the
                // byte it stopped at.
                if group.left == 0 || to > at + group.reach {
                    return Some((step, to));
                }
                to - at
            }
        };
        if group.left == 0 {
            return None;
        }
        // The walk as far as the text repeats it: the root, and the nodes
        // it passed that start before byte `j` (one that starts at `j` was
        // taken for the byte there, which the text no longer holds).
        let mut depth = j.max(WINDOW);
        let kept = group
            .path
            .partition_point(|&node| trie.nodes[node].start < depth);
        group.path.truncate(kept.max(1));
        let text = &text[at..];
        // Each turn but the last goes down to a child, which holds a byte
        // of the text at least: at most one turn a byte.
        for _ in 0..=text.len() {
            let node = *group.path.last().expect("the root at least");
            let Node { end, string, .. } = trie.nodes[node];
            let edge = strings[string].0.as_bytes().get(depth..end).unwrap_or(&[]);
            depth += common_prefix(edge, text.get(depth..).unwrap_or(&[]));
            if depth < end {
                break;
            }
            if trie.nodes[node].whole && !std::mem::replace(&mut group.found[node], true) {
                self.found.push(string);
                group.left -= 1;
            }
            let Some(&byte) = text.get(depth) else { break };
            let Some(child) = trie.child(node, byte) else {
                break;
            };
            group.path.push(child);
        }
        group.reach = depth;
        None
    }

    /// The candidate strings found in the text (in no order, maybe twice).
    fn found(mut self) -> Vec<usize> {
        self.read_pending();
        if self.state.is_some() {
            return self.found;
        }
        (0..self.scan.strings.len())
            .filter(|&s| {
                memchr::memmem::find(&self.whole, self.scan.strings[s].0.as_bytes()).is_some()
            })
            .collect()
    }
}

/// A window met in a text: its trie's nodes found in this text (each
/// candidate is found once), and where the window was last met and the
/// path its walk took there ([`Text::compare`]).
struct Group {
    /// The window, in [`LeakScan::longer`].
    window: usize,
    /// The bytes of its longest candidate: no walk goes further from where
    /// the window starts.
    longest: usize,
    /// For each node of the trie, whether its candidate was found.
    found: Vec<bool>,
    /// How many of the window's candidates are not found yet.
    left: usize,
    /// Where the window was last met, once it was.
    at: Option<usize>,
    /// From `at` up to here, each byte of the text is the one the step
    /// between the last two meetings before it.
    repeats_to: usize,
    /// The nodes the last walk passed, from the root.
    path: Vec<usize>,
    /// Where the last walk stopped, from `at`: no candidate agreed with
    /// the text further.
    reach: usize,
}

impl Group {
    /// The window `window`, with trie `trie`, not met yet.
    fn new(window: usize, trie: &Trie) -> Group {
        Group {
            window,
            longest: trie.nodes.iter().map(|n| n.end).max().unwrap_or(0),
            found: vec![false; trie.nodes.len()],
            left: trie.nodes.iter().filter(|n| n.whole).count(),
            at: None,
            repeats_to: 0,
            path: vec![0],
            reach: 0,
        }
    }

    /// The window not met yet, but for the candidates found.
    fn restart(&mut self) {
        self.at = None;
        self.repeats_to = 0;
        self.path.truncate(1);
        self.reach = 0;
    }
}

/// How many bytes `a` and `b` share at their start, each counted as a
/// byte the leak scan read.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    // A block at a time while the blocks agree (a compare at vector
    // speed: a repeat is checked over a whole text at once), then a byte
    // at a time.
    const BLOCK: usize = 64;
    let blocks = a.chunks_exact(BLOCK).zip(b.chunks_exact(BLOCK));
    let mut same = blocks.take_while(|(x, y)| x == y).count() * BLOCK;
    same += a[same..]
        .iter()
        .zip(&b[same..])
        .take_while(|(x, y)| x == y)
        .count();
    tally(|work| work.scanned += same as u64);
    same
}

/// Feeds `allow` what a call's prose may draw on: its `data` without the
/// reserved key, its `success`, a failed call's `error` unless `own_error`
/// says it is a candidate, and a result that is not an object at all.
fn allowed_of(call: &Call<Held<'_>>, own_error: bool, allow: &mut impl FnMut(Held<'_>)) {
    let result = call.result;
    if !result.is_object() {
        return allow(result);
    }
    match result.get("data") {
        // The reserved key (of an object `data`: `get` finds no key in
        // anything else) is lenient ground: its `data` is copied without
        // it, once.
        Some(data) if data.get(model::RESERVED_KEY).is_some() => {
            let data = data.to_value();
            allow(Held::Tree(&model::without_reserved_key(&data)));
        }
        Some(data) => allow(data),
        None => {}
    }
    if let Some(success) = result.get("success") {
        allow(success);
    }
    if let Some(error) = result.get("error").filter(|_| !own_error) {
        allow(error);
    }
}

/// The shortest string that counts as a leak when one outcome is judged.
pub const LEAK_MIN_CHARS: usize = 8;

/// Every string value (not key) in a value.
fn string_values<'v>(v: impl JsonRef<'v>, f: &mut impl FnMut(&'v str)) {
    match v.node() {
        wire::Node::String(s) => f(s),
        wire::Node::Array(items) => items.for_each(|x| string_values(x, f)),
        wire::Node::Object(members) => members.for_each(|(_, x)| string_values(x, f)),
        _ => {}
    }
}

/// Every string in a value, keys included.
pub(crate) fn strings<'v>(v: impl JsonRef<'v>, f: &mut impl FnMut(&'v str)) {
    match v.node() {
        wire::Node::String(s) => f(s),
        wire::Node::Array(items) => items.for_each(|x| strings(x, f)),
        wire::Node::Object(members) => members.for_each(|(k, x)| {
            f(k);
            strings(x, f)
        }),
        _ => {}
    }
}
