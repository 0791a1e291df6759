//! The two per-record sequences the streamed trace hands to the second pass, kept small:
//! the live flags as a bit a record ([`Flags`], where a `Vec<bool>` took a byte: 2.4 MB at
//! 2 GB), and the thread's order as the differences between its record indices, a
//! variable-length byte or so each ([`Order`], where 32-bit indices took four: the order
//! is file order but for the few records hung beside the chain, so nearly every step is a
//! small forward one). Both are held through the whole second pass.

/// A flag a record, in words of 64.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    words: Vec<u64>,
    len: usize,
}

impl Flags {
    /// `len` flags, all clear.
    pub fn new(len: usize) -> Flags {
        Flags {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Flag `i`.
    ///
    /// # Panics
    /// Past the last flag, as a slice's index does.
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "flag {i} of {}", self.len);
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Sets flag `i`, giving whether it was set before.
    ///
    /// # Panics
    /// Past the last flag.
    pub fn set(&mut self, i: usize) -> bool {
        let was = self.get(i);
        self.words[i / 64] |= 1 << (i % 64);
        was
    }

    /// The flags, in order.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(|i| self.words[i / 64] >> (i % 64) & 1 == 1)
    }
}

/// A sequence of record indices, each kept as its difference from the one before (zigzag
/// LEB128: a byte for a step of -64 to 63, two up to ±8K): the thread's order in about a
/// byte a record. Read in order, from either end: a number's last byte is the only one
/// without its high bit, so the bytes split into numbers read backwards as well.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Order {
    bytes: Vec<u8>,
    len: usize,
    /// The first and last indices (the starts of a forward and a backward read).
    first: u32,
    last: u32,
}

impl Order {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `i` at the end.
    pub fn push(&mut self, i: u32) {
        let step = match self.len {
            0 => {
                self.first = i;
                0
            }
            _ => i64::from(i) - i64::from(self.last),
        };
        let mut z = ((step << 1) ^ (step >> 63)) as u64;
        loop {
            let low = (z & 0x7f) as u8;
            z >>= 7;
            if z == 0 {
                self.bytes.push(low);
                break;
            }
            self.bytes.push(low | 0x80);
        }
        self.last = i;
        self.len += 1;
    }

    /// Whether `i` is in the sequence (a read of it all).
    pub fn contains(&self, i: u32) -> bool {
        self.iter().any(|j| j == i)
    }

    /// The indices, first to last (`.rev()` for last to first).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            bytes: &self.bytes,
            front: 0,
            front_cur: self.first,
            back: self.bytes.len(),
            back_cur: self.last,
            left: self.len,
        }
    }

    /// The same indices, last to first.
    pub fn reversed(&self) -> Order {
        let mut out = Order::default();
        out.bytes.reserve(self.bytes.len());
        self.iter().rev().for_each(|i| out.push(i));
        out
    }
}

/// The step a number decodes to.
fn step(bytes: &[u8]) -> i64 {
    let z = (bytes.iter().rev()).fold(0u64, |z, &b| z << 7 | u64::from(b & 0x7f));
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

/// [`Order::iter`], from either end (`rev` reads it last to first): cloned, it reads on
/// from the same places.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    bytes: &'a [u8],
    /// Where the next number from the front starts, and the index before it.
    front: usize,
    front_cur: u32,
    /// Where the number that led to `back_cur` ends (the back's next index).
    back: usize,
    back_cur: u32,
    left: usize,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        self.left = self.left.checked_sub(1)?;
        let len = 1
            + (self.bytes[self.front..].iter())
                .take_while(|&&b| b & 0x80 != 0)
                .count();
        let s = step(&self.bytes[self.front..self.front + len]);
        self.front += len;
        self.front_cur = (i64::from(self.front_cur) + s) as u32;
        Some(self.front_cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<u32> {
        self.left = self.left.checked_sub(1)?;
        let out = self.back_cur;
        // The number that led to `out`: its last byte is at `back - 1`, its others before
        // it with their high bit.
        let before = (self.bytes[..self.back - 1].iter().rev())
            .take_while(|&&b| b & 0x80 != 0)
            .count();
        let from = self.back - 1 - before;
        self.back_cur = (i64::from(self.back_cur) - step(&self.bytes[from..self.back])) as u32;
        self.back = from;
        Some(out)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FromIterator<u32> for Order {
    fn from_iter<T: IntoIterator<Item = u32>>(it: T) -> Order {
        let mut out = Order::default();
        it.into_iter().for_each(|i| out.push(i));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases() -> Vec<Vec<u32>> {
        vec![
            vec![],
            vec![0],
            vec![u32::MAX],
            vec![
                5,
                6,
                7,
                9,
                8,
                100,
                3,
                3,
                70_000,
                0,
                u32::MAX,
                0,
                63,
                127,
                191,
            ],
            (0..5000).map(|i| (i * 7919) % 100_003).collect(),
            (0..300).collect(),
        ]
    }

    #[test]
    fn an_order_reads_back_what_was_pushed_from_either_end() {
        for want in cases() {
            let order: Order = want.iter().copied().collect();
            assert_eq!(order.len(), want.len());
            assert_eq!(order.iter().collect::<Vec<_>>(), want);
            let back: Vec<u32> = want.iter().rev().copied().collect();
            assert_eq!(order.iter().rev().collect::<Vec<_>>(), back);
            assert_eq!(order.reversed().iter().collect::<Vec<_>>(), back);
            for &i in &want {
                assert!(order.contains(i));
            }
        }
        let order: Order = [4, 2].into_iter().collect();
        assert!(!order.contains(3));
    }

    #[test]
    fn an_iterator_cloned_part_way_reads_on_from_there() {
        let want: Vec<u32> = (0..1000).map(|i| i * 3 % 977).collect();
        let order: Order = want.iter().copied().collect();
        let mut it = order.iter();
        for k in 0..want.len() {
            assert_eq!(it.clone().collect::<Vec<_>>(), want[k..]);
            assert_eq!(it.len(), want.len() - k);
            it.next();
        }
        assert_eq!(it.next(), None);
    }

    #[test]
    fn reading_from_both_ends_meets_in_the_middle() {
        let want: Vec<u32> = vec![9, 3, 70_000, 4, 4, 0, u32::MAX, 12];
        let order: Order = want.iter().copied().collect();
        for front in 0..=want.len() {
            let mut it = order.iter();
            let head: Vec<u32> = it.by_ref().take(front).collect();
            let tail: Vec<u32> = it.by_ref().rev().collect();
            assert_eq!(head, want[..front]);
            assert_eq!(
                tail,
                want[front..].iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(it.next(), None);
        }
    }

    #[test]
    fn nearby_steps_take_a_byte() {
        let order: Order = (0..1000u32).map(|i| i * 2 + (i % 3)).collect();
        assert_eq!(order.bytes.len(), 1000);
    }

    #[test]
    fn flags_set_and_read() {
        let mut f = Flags::new(130);
        assert_eq!(f.len(), 130);
        assert!(!f.set(0) && !f.set(64) && !f.set(129));
        assert!(f.set(129));
        let on: Vec<usize> = (f.iter().enumerate())
            .filter(|p| p.1)
            .map(|p| p.0)
            .collect();
        assert_eq!(on, [0, 64, 129]);
        assert!(Flags::new(0).is_empty());
    }

    #[test]
    #[should_panic(expected = "flag 130 of 130")]
    fn a_flag_past_the_end_panics() {
        Flags::new(130).get(130);
    }
}
