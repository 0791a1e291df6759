//! Byte-pair merging of one pre-token piece, counting the tokens it becomes: tiktoken's own
//! two algorithms (`_byte_pair_merge` for short pieces, the heap-based
//! `_byte_pair_merge_large` from 100 bytes), so counts are tiktoken's by construction.
//! Neither allocates: short pieces merge in a stack array, long ones in per-thread buffers.

use std::collections::BinaryHeap;

use super::vocab::Vocab;

/// From this length on, tiktoken merges with a heap (its threshold).
const LARGE: usize = 100;
const NONE: u32 = u32::MAX;

/// Reusable buffers for long pieces (one per counting thread).
#[derive(Default)]
pub struct Scratch {
    state: Vec<State>,
    heap: BinaryHeap<Merge>,
}

/// The number of tokens `piece` (a pre-token piece, not a whole vocabulary entry, at least
/// two bytes long) encodes to.
pub fn count(vocab: &Vocab, piece: &[u8], scratch: &mut Scratch) -> usize {
    debug_assert!(piece.len() >= 2);
    if piece.len() < LARGE {
        short(vocab, piece)
    } else {
        large(vocab, piece, scratch)
    }
}

/// tiktoken's `_byte_pair_merge`: `parts` holds (start, rank of the pair starting there);
/// repeatedly merge the lowest-ranked pair (the leftmost of equals). O(n·merges), fast for
/// the short pieces nearly all text is made of.
fn short(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let rank = |r: &[u8]| vocab.rank(r).unwrap_or(NONE);
    let mut parts = [(0u32, NONE); LARGE + 1];
    for (i, p) in parts.iter_mut().enumerate().take(n - 1) {
        *p = (i as u32, rank(&piece[i..i + 2]));
    }
    parts[n - 1] = ((n - 1) as u32, NONE);
    parts[n] = (n as u32, NONE);
    let mut len = n + 1;
    // The rank of the pair at `i` once parts[i + 1] is gone: the +3 is because it is not
    // removed yet (as in tiktoken).
    let merged = |parts: &[(u32, u32)], len: usize, i: usize| {
        if i + 3 < len {
            rank(&piece[parts[i].0 as usize..parts[i + 3].0 as usize])
        } else {
            NONE
        }
    };
    loop {
        let mut min = (NONE, 0);
        for (i, &(_, r)) in parts[..len - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, i);
            }
        }
        if min.0 == NONE {
            return len - 1;
        }
        let i = min.1;
        if i > 0 {
            parts[i - 1].1 = merged(&parts, len, i - 1);
        }
        parts[i].1 = merged(&parts, len, i);
        parts.copy_within(i + 2..len, i + 1);
        len -= 1;
    }
}

#[derive(Clone, Copy)]
struct State {
    prev: usize,
    end: usize,
    next_end: usize,
    next_rank: u32,
}

/// A candidate merge: the lowest rank first, then the leftmost.
#[derive(PartialEq, Eq)]
struct Merge {
    start: usize,
    rank: u32,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// tiktoken's `_byte_pair_merge_large`: the same merges in O(n log n), with `state[i]`
/// describing the token that starts at byte `i` (while it is one).
fn large(vocab: &Vocab, piece: &[u8], scratch: &mut Scratch) -> usize {
    let Scratch { state, heap } = scratch;
    state.clear();
    heap.clear();
    let n = piece.len();
    state.push(State {
        prev: usize::MAX,
        end: 1,
        next_end: 2,
        next_rank: NONE,
    });
    for i in 0..n - 1 {
        if let Some(rank) = vocab.rank(&piece[i..i + 2]) {
            heap.push(Merge { start: i, rank });
            state[i].next_rank = rank;
        }
        state.push(State {
            prev: i,
            end: i + 2,
            next_end: i + 3,
            next_rank: NONE,
        });
    }
    let potential =
        |state: &mut Vec<State>, heap: &mut BinaryHeap<Merge>, start: usize, end: usize| {
            state[start].next_end = end;
            state[start].next_rank = NONE;
            if end <= n {
                if let Some(rank) = vocab.rank(&piece[start..end]) {
                    heap.push(Merge { start, rank });
                    state[start].next_rank = rank;
                }
            }
        };
    let mut tokens = n;
    while let Some(left) = heap.pop() {
        if left.rank != state[left.start].next_rank {
            continue; // invalidated since it was pushed
        }
        let left_start = left.start;
        let right_start = state[left_start].end;
        let right_end = state[left_start].next_end;
        let right_next_end = state[right_start].next_end;
        state[left_start].end = right_end;
        potential(state, heap, left_start, right_next_end);
        if right_end < state.len() {
            state[right_end].prev = left_start;
        }
        if left_start > 0 {
            let prev_start = state[left_start].prev;
            potential(state, heap, prev_start, right_end);
        }
        state[right_start].next_rank = NONE;
        tokens -= 1;
    }
    tokens
}
