//! Where each record of a Claude Code transcript starts in the file ([`Offsets`]), in
//! about 2 bytes a record rather than the 4 (plus a word per 4 GiB) of a 32-bit offset: a
//! record's offset is the one of the first record of its block of [`BLOCK`], plus the
//! steps from record to record in between (the length of a record and the blank lines
//! after it, mostly well under 64 KiB; the few longer ones kept aside). The index holds it
//! through the trace and the whole second read of a 2 GB transcript, millions of records.
//!
//! Reading an offset sums at most `BLOCK - 1` steps: a few dozen additions for a record
//! the second read asks for, against the parse of its text.

/// Records a block holds: one 8-byte anchor for each (1 bit a record).
const BLOCK: usize = 64;

/// The step kept for a step of this many bytes or more, the whole step kept aside.
const ESCAPED: u16 = u16::MAX;

/// The offsets of a transcript's records, pushed in file order.
#[derive(Debug, Default)]
pub struct Offsets {
    /// The offset of records 0, `BLOCK`, 2 `BLOCK`, ...
    anchors: Vec<u64>,
    /// For each record but the last, the next record's offset minus its own, or
    /// [`ESCAPED`] for a step that large or larger.
    steps: Vec<u16>,
    /// The escaped steps whole, by record index, in order.
    escapes: Vec<(u32, u64)>,
    /// The last record's offset.
    last: u64,
}

impl Offsets {
    /// How many records it holds.
    pub fn len(&self) -> usize {
        match self.anchors.is_empty() {
            true => 0,
            false => self.steps.len() + 1,
        }
    }

    /// Adds the next record's offset; `None` (nothing added) when it is before the last
    /// one's or past 2^32 records.
    pub fn push(&mut self, at: u64) -> Option<()> {
        let n = self.len();
        if let Some(prev) = n.checked_sub(1) {
            let step = at.checked_sub(self.last)?;
            match u16::try_from(step).ok().filter(|&s| s < ESCAPED) {
                Some(s) => self.steps.push(s),
                None => {
                    self.escapes.push((u32::try_from(prev).ok()?, step));
                    self.steps.push(ESCAPED);
                }
            }
        }
        if n.is_multiple_of(BLOCK) {
            self.anchors.push(at);
        }
        self.last = at;
        Some(())
    }

    /// Where record `i` starts.
    ///
    /// # Panics
    /// When it holds no record `i`.
    pub fn get(&self, i: usize) -> u64 {
        assert!(i < self.len(), "offset {i} of {}", self.len());
        let block = i / BLOCK;
        let from = block * BLOCK;
        let (mut sum, mut escaped) = (0u64, false);
        for &s in &self.steps[from..i] {
            sum += u64::from(s);
            escaped |= s == ESCAPED;
        }
        if escaped {
            sum += self.escaped(from..i);
        }
        self.anchors[block] + sum
    }

    /// The next record's offset minus record `i`'s (`i` not the last).
    pub fn step(&self, i: usize) -> u64 {
        match self.steps[i] {
            ESCAPED => u64::from(ESCAPED) + self.escaped(i..i + 1),
            s => u64::from(s),
        }
    }

    /// What the escaped steps of records `range` hold beyond their [`ESCAPED`].
    fn escaped(&self, range: std::ops::Range<usize>) -> u64 {
        let at = |end: usize| self.escapes.partition_point(|&(k, _)| (k as usize) < end);
        let escapes = &self.escapes[at(range.start)..at(range.end)];
        escapes.iter().map(|&(_, s)| s - u64::from(ESCAPED)).sum()
    }

    /// Keeps the first `n` records' offsets.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.last = match n.checked_sub(1) {
            Some(k) => self.get(k),
            None => 0,
        };
        self.anchors.truncate(n.div_ceil(BLOCK));
        self.steps.truncate(n.saturating_sub(1));
        let kept = self.steps.len();
        (self.escapes).truncate(self.escapes.partition_point(|&(k, _)| (k as usize) < kept));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(ats: &[u64]) -> Offsets {
        let mut o = Offsets::default();
        for &at in ats {
            o.push(at).expect("pushed");
        }
        o
    }

    fn all(o: &Offsets) -> Vec<u64> {
        (0..o.len()).map(|i| o.get(i)).collect()
    }

    /// Offsets over several blocks, with steps of every size class: small, just under and
    /// at the escape, far past it, across 4 GiB and past 16 GiB, and none at all.
    fn varied() -> Vec<u64> {
        let mut ats = Vec::new();
        let mut at = 0u64;
        for k in 0..300u64 {
            ats.push(at);
            at += match k % 11 {
                0 => 65_534,
                1 => 65_535,
                2 => 65_536,
                3 => 1 << 20,
                4 if k == 59 => 1 << 32,
                5 if k == 137 => 3 << 32,
                6 => 0,
                _ => 1 + k * 7,
            };
        }
        ats
    }

    #[test]
    fn every_offset_comes_back_across_blocks_escapes_and_4_gib() {
        let ats = varied();
        let o = of(&ats);
        assert_eq!(o.len(), ats.len());
        assert_eq!(all(&o), ats);
        assert!(*ats.last().unwrap() > 4 << 32, "the offsets pass 16 GiB");
        // Only the steps of 65,535 bytes or more are kept aside.
        let big = ats.windows(2).filter(|w| w[1] - w[0] >= 65_535).count();
        assert_eq!(o.escapes.len(), big);
        assert_eq!(o.anchors.len(), 300usize.div_ceil(BLOCK));
        for i in 0..ats.len() - 1 {
            assert_eq!(o.step(i), ats[i + 1] - ats[i], "step {i}");
        }
    }

    #[test]
    fn offsets_come_back_across_a_4_gib_line_in_small_steps() {
        let ats: Vec<u64> = (0..200).map(|k| (1 << 32) - 1000 + 10 * k).collect();
        let o = of(&ats);
        assert_eq!(all(&o), ats);
        assert!(o.escapes.is_empty());
    }

    #[test]
    fn an_offset_before_the_last_is_refused_and_adds_nothing() {
        let mut o = of(&[5, 100]);
        assert_eq!(o.push(99), None);
        assert_eq!(all(&o), [5, 100]);
        o.push(100)
            .expect("a step of 0: an empty record cannot be, but is kept");
        assert_eq!(all(&o), [5, 100, 100]);
    }

    #[test]
    fn cut_short_it_keeps_the_first_offsets_and_takes_more() {
        let ats = varied();
        // At a block's start and end, inside one, past an escape, and to none at all.
        for n in [0, 1, 2, 63, 64, 65, 128, 150, 299, 300, 400] {
            let mut o = of(&ats);
            o.truncate(n);
            let n = n.min(ats.len());
            assert_eq!(o.len(), n);
            assert_eq!(all(&o), &ats[..n], "cut to {n}");
            // What is pushed after the cut reads back as if pushed on the first `n` alone.
            let next = ats[..n].last().map_or(7, |&a| a + 70_000);
            o.push(next).expect("pushed");
            o.push(next + 3).expect("pushed");
            let mut want = ats[..n].to_vec();
            want.extend([next, next + 3]);
            assert_eq!(all(&o), want, "cut to {n}, then pushed");
        }
    }

    #[test]
    fn it_takes_about_2_bytes_a_record() {
        let o = of(&(0..64_000).map(|k| k * 900).collect::<Vec<_>>());
        let bytes = o.steps.len() * 2 + o.anchors.len() * 8 + o.escapes.len() * 16;
        assert_eq!(bytes, 127_998 + 8_000);
    }
}
