//! Positions in a list grouped by a key, found in constant time: how the
//! judge finds an observed artifact's candidates among many.

use std::hash::Hash;

use foldhash::{HashMap, HashMapExt};

use super::work::tally;

/// Positions in a list grouped by an index key, each group in the list's
/// order, and for each group how many of its first are known to be used
/// (they stay used).
///
/// Every group's positions are in one list, one group after another, so a
/// group of one position costs its key and three numbers rather than a
/// `Vec` of its own: on 500,000 artifacts of distinct payloads the pool's
/// index by call, type and payload took 75 MB as a map of `Vec`s. Positions
/// are `u32`: a list of more than 2³² items (a pool of 170 GB of
/// artifacts) is never indexed.
pub(super) struct Index<K> {
    groups: HashMap<K, u32>,
    /// Where each group's positions start in `items`, and one more: where
    /// the last ends.
    starts: Vec<u32>,
    items: Vec<u32>,
    /// How many of each group's first positions are known to be used.
    used_before: Vec<u32>,
}

impl<K: Hash + Eq> Index<K> {
    /// Indexes each `(position, key)`, the positions increasing.
    pub(super) fn new(keyed: impl Iterator<Item = (usize, K)>) -> Index<K> {
        let mut groups: HashMap<K, u32> = HashMap::new();
        let mut sizes: Vec<u32> = Vec::new();
        let in_group: Vec<(u32, u32)> = keyed
            .map(|(p, key)| {
                let next = sizes.len() as u32;
                let g = *groups.entry(key).or_insert(next);
                if g == next {
                    sizes.push(0);
                }
                sizes[g as usize] += 1;
                (p as u32, g)
            })
            .collect();
        // Each group's start, then its positions in order: a cursor per
        // group, from its start.
        let mut starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0;
        for &size in &sizes {
            starts.push(at);
            at += size;
        }
        starts.push(at);
        let mut cursor = starts[..sizes.len()].to_vec();
        let mut items = vec![0; in_group.len()];
        for (p, g) in in_group {
            items[cursor[g as usize] as usize] = p;
            cursor[g as usize] += 1;
        }
        Index {
            groups,
            used_before: vec![0; sizes.len()],
            starts,
            items,
        }
    }

    /// The first position under `key` that passes `test`, skipping used
    /// ones if `used` is given. The used positions at the front of a group
    /// are skipped for good, so finding each of n alike artifacts in turn
    /// looks at each position about once.
    pub(super) fn first(
        &mut self,
        key: &K,
        used: Option<&[bool]>,
        mut test: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let g = *self.groups.get(key)? as usize;
        let (start, end) = (self.starts[g] as usize, self.starts[g + 1] as usize);
        let group = &self.items[start..end];
        let (from, skipped) = match used {
            Some(used) => {
                let before = self.used_before[g] as usize;
                let skip = group[before..]
                    .iter()
                    .take_while(|&&p| used[p as usize])
                    .count();
                self.used_before[g] += skip as u32;
                (before + skip, skip)
            }
            None => (0, 0),
        };
        let mut visited = skipped as u64;
        let found = group[from..].iter().map(|&p| p as usize).find(|&p| {
            visited += 1;
            used.is_none_or(|used| !used[p]) && test(p)
        });
        tally(|w| w.visited += visited);
        found
    }
}
