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
