//! The longer candidates of one window of the leak scan, as a trie over
//! their bytes past the window: what a window met in a text is walked
//! along ([`super::Text`]).

use super::{common_prefix, WINDOW};

/// The candidates of one window longer than it, as a trie over their
/// bytes after the window: each node an edge of bytes, read from one of the
/// candidates it leads to (`string`, from `start` to `end`), and its
/// children by their first byte. Built one candidate at a time, each read
/// once: linear in their bytes, whatever they share.
#[derive(Default)]
pub(super) struct Trie {
    /// The root (all of them, from the window's end) first.
    pub(super) nodes: Vec<Node>,
}

/// One edge of a [`Trie`].
#[derive(Clone)]
pub(super) struct Node {
    /// Where the edge starts and ends in `string`'s bytes.
    pub(super) start: usize,
    pub(super) end: usize,
    /// A candidate the edge is part of; the one it ends, when `whole`.
    pub(super) string: usize,
    /// Whether a candidate ends where the edge does.
    pub(super) whole: bool,
    /// The children, by the first byte of each, in order.
    pub(super) children: Vec<(u8, usize)>,
}

impl Trie {
    /// Adds candidate `s` of `strings`, which starts with the window.
    pub(super) fn insert(&mut self, s: usize, strings: &[(&str, usize)]) {
        let bytes = strings[s].0.as_bytes();
        let leaf = |start: usize| Node {
            start,
            end: bytes.len(),
            string: s,
            whole: true,
            children: Vec::new(),
        };
        if self.nodes.is_empty() {
            self.nodes.push(leaf(WINDOW));
            return;
        }
        let (mut node, mut depth) = (0, WINDOW);
        // Each turn but the last goes down to a child, which holds a byte
        // of the candidate at least: at most one turn a byte.
        for _ in 0..=bytes.len() {
            let Node { end, string, .. } = self.nodes[node];
            let edge = &strings[string].0.as_bytes()[depth..end];
            depth += common_prefix(edge, &bytes[depth..]);
            if depth < end {
                // The candidate leaves the edge (or ends) inside it: the
                // edge splits there, its rest a child of its own.
                let mut rest = self.nodes[node].clone();
                rest.start = depth;
                let rest_at = self.nodes.len();
                let first = strings[string].0.as_bytes()[depth];
                self.nodes.push(rest);
                let cut = &mut self.nodes[node];
                cut.end = depth;
                cut.whole = depth == bytes.len();
                cut.string = s;
                cut.children = vec![(first, rest_at)];
                if depth < bytes.len() {
                    self.add_child(node, bytes[depth], leaf(depth));
                }
                return;
            }
            if depth == bytes.len() {
                let ends = &mut self.nodes[node];
                ends.whole = true;
                ends.string = s;
                return;
            }
            match self.child(node, bytes[depth]) {
                Some(child) => node = child,
                None => return self.add_child(node, bytes[depth], leaf(depth)),
            }
        }
    }

    /// The child of `node` whose edge starts with `byte`.
    pub(super) fn child(&self, node: usize, byte: u8) -> Option<usize> {
        let children = &self.nodes[node].children;
        let at = children.binary_search_by_key(&byte, |&(b, _)| b).ok()?;
        Some(children[at].1)
    }

    fn add_child(&mut self, node: usize, byte: u8, child: Node) {
        let at = self.nodes.len();
        self.nodes.push(child);
        let children = &mut self.nodes[node].children;
        let i = children.partition_point(|&(b, _)| b < byte);
        children.insert(i, (byte, at));
    }
}
