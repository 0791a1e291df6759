//! A tokenizer's vocabulary as laid out by `build/vocab.rs`: static bytes in the binary, read in
//! place. Nothing is decoded or rebuilt at start-up; the OS pages in what lookups touch.
//!
//! Three tables per encoding, all little-endian:
//! - `slots`: an open-addressing hash table (linear probing, a power of two long, under
//!   40% full) of `u64`: the rank in the low 32 bits, bits 16..48 of the token's
//!   [`hash`] above them as a tag; `u64::MAX` is an empty slot.
//! - `starts`: `u32` offsets, one per rank plus one: token `r` is `bytes[starts[r]..starts[r + 1]]`.
//! - `bytes`: every token's bytes, in rank order.

use super::hash::hash;

const EMPTY: u64 = u64::MAX;

pub struct Vocab {
    slots: &'static [u8],
    starts: &'static [u8],
    bytes: &'static [u8],
    /// `64 - log2(number of slots)`: a hash's top bits pick its first slot.
    shift: u32,
}

impl Vocab {
    pub const fn new(slots: &'static [u8], starts: &'static [u8], bytes: &'static [u8]) -> Vocab {
        let n = slots.len() / 8;
        assert!(n.is_power_of_two(), "slot count must be a power of two");
        Vocab {
            slots,
            starts,
            bytes,
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// The number of ranks (tokens) in the vocabulary.
    pub fn len(&self) -> usize {
        self.starts.len() / 4 - 1
    }

    /// The rank of the token whose bytes are exactly `piece`, if there is one.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        let h = hash(piece);
        let tag = (h >> 16) as u32;
        let mask = self.slots.len() / 8 - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = read_u64(self.slots, i);
            if slot == EMPTY {
                return None;
            }
            if (slot >> 32) as u32 == tag && self.token(slot as u32) == piece {
                return Some(slot as u32);
            }
            i = (i + 1) & mask;
        }
    }

    /// The bytes of the token of rank `rank`.
    #[inline]
    pub fn token(&self, rank: u32) -> &'static [u8] {
        let r = rank as usize;
        &self.bytes[read_u32(self.starts, r) as usize..read_u32(self.starts, r + 1) as usize]
    }
}

#[inline]
fn read_u64(table: &[u8], i: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&table[i * 8..i * 8 + 8]);
    u64::from_le_bytes(b)
}

#[inline]
fn read_u32(table: &[u8], i: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&table[i * 4..i * 4 + 4]);
    u32::from_le_bytes(b)
}
