//! Process memory.

/// Returns memory freed by the program to the system. glibc keeps freed small allocations
/// in its arenas, so millions of message strings freed in the middle of a run would still
/// count in the process's memory while the next big buffer is allocated; `malloc_trim`
/// hands their pages back. Elsewhere the allocator's own policy stands.
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and only releases free memory; it is safe to
    // call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Arenas glibc may keep when many files are worked on at once ([`for_many_files`]).
const MANY_FILES_ARENAS: i32 = 2;
/// Allocations from this size up are mapped on their own when many files are worked on
/// at once, and unmapped when freed ([`for_many_files`]).
const MANY_FILES_MMAP_BYTES: i32 = 256 << 10;

/// Sets the allocator for a run that works on many files side by side (`sessions`, `count
/// -r`), before its worker threads start. glibc gives each thread that allocates while
/// another holds the arena a new arena (up to 8 per core), each keeping what the files
/// counted on it freed; and once a large buffer is freed, it raises the size from which
/// blocks are mapped on their own (up to 32 MiB), so a file's large buffers then stay in
/// the arenas too. Over a 3,000-session home that held ~60 MiB beside a 48 MiB heap
/// peak: [`MANY_FILES_ARENAS`] arenas and a fixed [`MANY_FILES_MMAP_BYTES`] threshold
/// (which also stops it rising) took the listing's peak from ~115 to ~85 MiB. A run on
/// one file keeps glibc's defaults. The settings last for the rest of the process.
pub fn for_many_files() {
    MANY_FILES.store(true, std::sync::atomic::Ordering::Relaxed);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes no pointers; it only changes the allocator's parameters,
    // under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MANY_FILES_ARENAS);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MANY_FILES_MMAP_BYTES);
    }
}

/// Whether [`for_many_files`] set the allocator (which [`for_large_vectors`] then leaves).
static MANY_FILES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Allocations from this size up are mapped on their own in a one-file run over a large
/// file ([`for_large_vectors`]): above the 256 KiB windows a streamed read parses at a
/// time, so that only the vectors that grow with the file are.
const LARGE_VECTOR_MMAP_BYTES: i32 = 1 << 20;

/// Sets the allocator for a one-file read that keeps vectors growing with the file beside
/// windows of text made and freed all along (every streamed agent read). Once glibc
/// has unmapped a freed block it serves blocks up to that size (up to 32 MiB) from its
/// heap, where a vector that doubles is copied and leaves the old block behind as a hole
/// that only small allocations fill: on a 2 GB transcript the per-message counts and the
/// earlier reports doubling past 8 MiB left ~19 MiB of such holes in the peak, and a
/// 300 MB Gemini CLI log's index and tally ~10 MiB. A fixed
/// [`LARGE_VECTOR_MMAP_BYTES`] threshold maps each large vector on its own, grown in place
/// by `mremap` and unmapped when freed. Leaves the settings of [`for_many_files`] alone;
/// the setting lasts for the rest of the process.
pub fn for_large_vectors() {
    if MANY_FILES.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes no pointers; it only changes the allocator's parameters,
    // under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_VECTOR_MMAP_BYTES);
    }
}

/// Frees `value` on another thread: freeing a large structure's many small allocations
/// takes about as long as making them, and nobody waits for it (a one-file run exits
/// meanwhile). When no thread can be started, the value is freed here.
pub fn free_later<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// Items of a collection above which it is freed on another thread ([`free_later`]);
/// fewer cost less to free here than a thread costs to start.
pub const BACKGROUND_FREE: usize = 4096;

/// Frees `items`, on another thread when they are many ([`BACKGROUND_FREE`]).
pub fn free_soon<T: Send + 'static>(items: Vec<T>) {
    if items.len() >= BACKGROUND_FREE {
        free_later(items);
    }
}

/// Items widened at a time by [`widen`], the narrow vector cut back after each step.
const WIDEN_STEP: usize = 1 << 18;

/// `narrow`'s items made wider by `f`, in order, the wide vector written from its end as
/// the narrow one is cut back from its end: a zeroed allocation's pages are the system's
/// until written (`zero` must be the type's all-zero value for that), and a large vector
/// cut back gives its tail's pages back, so the two are not held whole at once. Collecting
/// held both, and at the very end of a long read: a 2 GB Claude Code transcript's counts
/// (4.8 MB as `u32`, 9.6 as `usize`) and earlier reports (4.8 and 9.6 MB) were its peak.
pub fn widen<A: Copy, B: Clone>(mut narrow: Vec<A>, zero: B, f: impl Fn(A) -> B) -> Vec<B> {
    let mut out = vec![zero; narrow.len()];
    while !narrow.is_empty() {
        let from = narrow.len().saturating_sub(WIDEN_STEP);
        for (o, &a) in out[from..].iter_mut().zip(&narrow[from..]) {
            *o = f(a);
        }
        narrow.truncate(from);
        narrow.shrink_to_fit();
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn widening_keeps_the_items_in_order() {
        for n in [
            0,
            1,
            super::WIDEN_STEP - 1,
            super::WIDEN_STEP,
            2 * super::WIDEN_STEP + 7,
        ] {
            let narrow: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let want: Vec<(usize, u64)> = narrow
                .iter()
                .map(|&i| (i as usize, u64::from(i) * 3))
                .collect();
            let got = super::widen(narrow, (0, 0), |i| (i as usize, u64::from(i) * 3));
            assert_eq!(got, want);
        }
    }
}
