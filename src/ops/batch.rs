//! Many files at once: the files are worked on in parallel (one per core), while their
//! output is printed in input order by the calling thread, as soon as every earlier file
//! is done. A progress bar counts finished files on a terminal.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::context::Context;
use crate::exit::{is_broken_pipe, ExitStatus};
use crate::ops::walk::Input;
use crate::render::capture::{self, Captured};
use crate::render::json::{FailedFile, FileEntry};

/// Runs `work` on every file and hands each result to `emit`, in input order.
///
/// With one file, `work` runs on the calling thread and prints as it goes, exactly as a
/// single-file command always did (and the tokenizer is built meanwhile). With several, up to `max_workers` files (at most one
/// per core) are worked on at once; what `work` prints through the printer is held back
/// and replayed before its `emit`, so the output reads as if the files were done one by
/// one. An error from `emit` (a closed stdout) stops the run: files not yet started are
/// left alone, and the error is returned.
pub fn run<T: Send>(
    ctx: &Context,
    files: &[PathBuf],
    what: &str,
    max_workers: usize,
    work: impl Fn(&Path) -> T + Sync,
    mut emit: impl FnMut(&Path, T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let [one] = files {
        // Build the tokenizer while the file is read and parsed. Not in batch runs: the
        // workers need it almost at once anyway, and warm-cache runs need none at all.
        ctx.prewarm(one);
        return emit(one, work(one));
    }
    run_items(
        ctx,
        files,
        what,
        max_workers,
        |p| work(p),
        |p, value| emit(p, value),
    )
}

/// [`run`] over the inputs a walk gave (files, or sessions of an agent's database).
pub fn run_inputs<T: Send>(
    ctx: &Context,
    inputs: &[Input],
    what: &str,
    max_workers: usize,
    work: impl Fn(&Input) -> T + Sync,
    mut emit: impl FnMut(&Input, T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let [one] = inputs {
        ctx.prewarm(&one.path);
        return emit(one, work(one));
    }
    run_items(ctx, inputs, what, max_workers, work, emit)
}

/// [`run`] over any items (the sessions of an agent's database are one file, many items),
/// without [`run`]'s tokenizer prewarming for a lone file.
pub fn run_items<I: Sync, T: Send>(
    ctx: &Context,
    items: &[I],
    what: &str,
    max_workers: usize,
    work: impl Fn(&I) -> T + Sync,
    emit: impl FnMut(&I, T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    run_items_one_heavy(ctx, items, what, max_workers, |_| false, work, emit)
}

/// [`run_items`] where the items `heavy` picks (large files, whose measuring holds memory
/// in proportion to their size) are worked on one at a time, while light items go on in
/// parallel beside them: the run's peak is one heavy item's, not one per worker.
pub fn run_items_one_heavy<I: Sync, T: Send>(
    ctx: &Context,
    items: &[I],
    what: &str,
    max_workers: usize,
    heavy: impl Fn(&I) -> bool + Sync,
    work: impl Fn(&I) -> T + Sync,
    mut emit: impl FnMut(&I, T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let [one] = items {
        return emit(one, work(one));
    }
    let cores = crate::tokens::parallel::available();
    let workers = cores.min(max_workers).max(1);
    if workers > 1 {
        crate::mem::for_many_files();
    }
    let bar = ctx.printer.progress_bar(items.len() as u64, what);
    let result = in_order_one_heavy(
        items.len(),
        workers,
        |i| heavy(&items[i]),
        |i| {
            let _flight = ctx.file_in_flight();
            capture::capture(|| work(&items[i]))
        },
        |i, (value, captured): (T, Captured)| {
            let shown = bar.suspend(|| {
                ctx.printer.replay(captured)?;
                emit(&items[i], value)
            });
            bar.inc(1);
            shown
        },
    );
    bar.finish_and_clear();
    if workers > 1 {
        // What the files' work freed goes back to the system before the run's last steps
        // (its caches saved, its report made): glibc kept ~20 MB of it in its arenas after
        // a cold listing of 3,000 sessions, under the large blocks those steps map anew.
        crate::mem::give_back();
    }
    result
}

/// One file's outcome, from the calling thread: an error is reported (and makes `status`
/// an error) so that the other files go on; a closed stdout ends the run.
pub fn reported<T>(
    ctx: &Context,
    outcome: anyhow::Result<T>,
    status: &mut ExitStatus,
) -> anyhow::Result<Option<T>> {
    match outcome {
        Ok(value) => Ok(Some(value)),
        Err(e) if is_broken_pipe(&e) => Err(e),
        Err(e) => {
            ctx.report(&e);
            *status = status.worst(ExitStatus::Error);
            Ok(None)
        }
    }
}

/// [`reported`] for commands whose `--json` lists every file: an error is reported the
/// same way and becomes the file's entry, with its path and the error's one line.
pub fn entry<T>(
    ctx: &Context,
    path: &Path,
    outcome: anyhow::Result<T>,
    status: &mut ExitStatus,
) -> anyhow::Result<FileEntry<T>> {
    match outcome {
        Ok(value) => Ok(FileEntry::Done(value)),
        Err(e) if is_broken_pipe(&e) => Err(e),
        Err(e) => {
            ctx.report(&e);
            *status = status.worst(ExitStatus::Error);
            Ok(FileEntry::Failed(FailedFile {
                path: crate::ops::load::display(path),
                error: format!("{e:#}"),
            }))
        }
    }
}

/// Runs `work(i)` for `i` in `0..n` on `workers` threads and calls `emit(i, result)` on the
/// calling thread in increasing `i`, each as soon as it and all before it are done. After
/// an `emit` error no new item is started and the error is returned.
pub fn in_order<T: Send, E>(
    n: usize,
    workers: usize,
    work: impl Fn(usize) -> T + Sync,
    emit: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    in_order_one_heavy(n, workers, |_| false, work, emit)
}

/// [`in_order`] where no two items that `heavy` picks are worked on at the same time. The
/// gate is taken before `work` starts, so a worker that waits for it has not yet counted
/// its item as in flight (the heavy item meanwhile counts on every core it is given).
pub fn in_order_one_heavy<T: Send, E>(
    n: usize,
    workers: usize,
    heavy: impl Fn(usize) -> bool + Sync,
    work: impl Fn(usize) -> T + Sync,
    mut emit: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    let gate = std::sync::Mutex::new(());
    let work = |i| {
        let gate = heavy(i).then(|| gate.lock().unwrap_or_else(|p| p.into_inner()));
        let value = work(i);
        if gate.is_some() {
            // What the heavy item freed goes back to the system before the next one
            // (glibc would keep it in the arena it was freed to).
            crate::mem::give_back();
        }
        value
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, n.max(1)) {
            let tx = tx.clone();
            let (next, stop, work) = (&next, &stop, &work);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n || tx.send((i, work(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut ready = BTreeMap::new();
        let mut due = 0;
        let mut result = Ok(());
        for (i, value) in rx {
            ready.insert(i, value);
            while let Some(value) = ready.remove(&due) {
                if result.is_ok() {
                    result = emit(due, value);
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                due += 1;
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_come_out_in_input_order_even_when_finished_out_of_order() {
        // Item 0 finishes last: it waits until every other item is done.
        let others_done = AtomicUsize::new(0);
        let n = 20;
        let mut seen = Vec::new();
        in_order(
            n,
            2,
            |i| {
                if i == 0 {
                    while others_done.load(Ordering::SeqCst) < n - 1 {
                        std::thread::yield_now();
                    }
                } else {
                    others_done.fetch_add(1, Ordering::SeqCst);
                }
                i * 10
            },
            |i, v| {
                seen.push((i, v));
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        let want: Vec<(usize, usize)> = (0..n).map(|i| (i, i * 10)).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn heavy_items_are_never_worked_on_together_while_light_ones_go_on() {
        // Every third item is heavy; each records how many heavy items were running.
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let light_beside_heavy = AtomicBool::new(false);
        let heavy = |i: usize| i.is_multiple_of(3);
        let mut seen = Vec::new();
        in_order_one_heavy(
            60,
            4,
            heavy,
            |i| {
                if heavy(i) {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    running.fetch_sub(1, Ordering::SeqCst);
                } else if running.load(Ordering::SeqCst) > 0 {
                    light_beside_heavy.store(true, Ordering::SeqCst);
                }
                i
            },
            |i, v| {
                seen.push((i, v));
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert!(light_beside_heavy.load(Ordering::SeqCst));
        assert_eq!(seen, (0..60).map(|i| (i, i)).collect::<Vec<_>>());
    }

    #[test]
    fn an_emit_error_stops_new_work_and_is_returned() {
        let started = AtomicUsize::new(0);
        // Items after 3 wait until 3 has been emitted, so the run cannot finish first.
        let gate = AtomicBool::new(false);
        let mut emitted = Vec::new();
        let result = in_order(
            1000,
            2,
            |i| {
                started.fetch_add(1, Ordering::SeqCst);
                while i > 3 && !gate.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                i
            },
            |i, _| {
                emitted.push(i);
                if i == 3 {
                    gate.store(true, Ordering::SeqCst);
                    Err("closed")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("closed"));
        assert_eq!(
            emitted,
            vec![0, 1, 2, 3],
            "nothing is emitted after an error"
        );
        assert!(started.load(Ordering::SeqCst) < 100, "new work stopped");
    }

    #[test]
    fn no_items_is_fine() {
        let r = in_order(0, 4, |i| i, |_, _| Err::<(), _>("never called"));
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn a_warning_given_once_names_the_first_file_in_input_order() {
        // Item 0 warns last (it waits for the others), yet its warning is the one shown:
        // the once-per-run choice is made as the output is replayed in order.
        let printer = crate::render::Printer::plain();
        let others_done = AtomicUsize::new(0);
        let n = 6;
        let ((), out) = capture::capture(|| {
            in_order(
                n,
                2,
                |i| {
                    if i == 0 {
                        while others_done.load(Ordering::SeqCst) < n - 1 {
                            std::thread::yield_now();
                        }
                    }
                    let held = capture::capture(|| printer.warn_once("k", &format!("file {i}")));
                    others_done.fetch_add(1, Ordering::SeqCst);
                    held.1
                },
                |_, held| printer.replay(held),
            )
            .unwrap();
        });
        assert_eq!(
            out.text(capture::Stream::Stderr),
            "ctxctl: warning: file 0\n"
        );
    }
}
