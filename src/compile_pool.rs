//! The process's compile threads: tiering hands them its compilations (`tier::HotBlocks`), so that no launch
//! worker ever waits for Cranelift. Threads are started on first use, as many as the largest
//! `CompileConfig::compile_threads` asked for so far, and live for the process. They run at a lower scheduling
//! priority than the launch workers (nice +`COMPILE_NICE` on Linux), so that on a machine whose cores a launch
//! keeps busy a compilation takes about a tenth of one core instead of a third of the launch's time, and takes
//! whole cores when the workers are idle.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};

/// A compilation to run.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// Nice value added to a compile thread (Linux: per thread). At +10 the scheduler gives a thread about 110/1024
/// of a core it shares with a worker at +0.
const COMPILE_NICE: i32 = 10;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
    /// Jobs taken by a thread and not yet finished.
    running: usize,
}

#[derive(Default)]
struct Pool {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued (threads wait for work) and when one finishes (`wait_idle`).
    changed: Condvar,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// Queues `job` for one of at least `threads` compile threads (started here if fewer run). Returns the job
/// when no thread could be started, for the caller to run itself.
pub(crate) fn submit(threads: usize, job: Job) -> Result<(), Job> {
    let p = pool();
    let mut q = p.queue.lock().expect("compile queue");
    while q.threads < threads {
        let started = std::thread::Builder::new().name(format!("lanejit-compile-{}", q.threads)).spawn(serve);
        if started.is_err() {
            break;
        }
        q.threads += 1;
    }
    if q.threads == 0 {
        return Err(job);
    }
    q.jobs.push_back(job);
    p.changed.notify_all();
    Ok(())
}

/// Blocks until no compilation is queued or running (benchmarks and tests that want the compiled code).
pub(crate) fn wait_idle() {
    let p = pool();
    let mut q = p.queue.lock().expect("compile queue");
    while !q.jobs.is_empty() || q.running > 0 {
        q = p.changed.wait(q).expect("compile queue");
    }
}

/// A compile thread: runs queued jobs, one at a time, for the life of the process.
fn serve() {
    lower_priority();
    let p = pool();
    loop {
        let job = {
            let mut q = p.queue.lock().expect("compile queue");
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    q.running += 1;
                    break job;
                }
                q = p.changed.wait(q).expect("compile queue");
            }
        };
        // A panic in Cranelift must not take the thread (and every later compilation) with it; the tiering
        // state it belongs to records the failure itself (`HotBlocks` stays on the code it has).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        let mut q = p.queue.lock().expect("compile queue");
        q.running -= 1;
        p.changed.notify_all();
    }
}

#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: setpriority on the calling thread (who 0 = this thread on Linux); failure leaves the priority as is.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, COMPILE_NICE);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}
