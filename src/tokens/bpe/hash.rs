//! The vocabulary table's hash, shared with `build/vocab.rs` (which lays the table out with it):
//! the two must agree bit for bit, so this file depends on nothing but `core`.

/// A 64-bit hash of a token's bytes: FxHash's multiply-rotate over 8-byte words (the last
/// one zero-padded), seeded with the length. Tokens are short, so this is one to three
/// multiplications; the table takes the top bits, which the multiplications mix best.
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = step(h, u64::from_le_bytes(b));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        h = step(h, u64::from_le_bytes(b));
    }
    h
}
