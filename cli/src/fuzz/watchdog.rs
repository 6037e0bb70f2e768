//! Hangs: a program that an engine runs without end. Every engine stops at its instruction budget, so a run
//! that never returns is itself a bug (a planted budget bug in compiled code does exactly this), and the
//! campaign must report it rather than wait forever. A thread stuck in compiled code cannot be stopped from
//! outside, so the watchdog reports the program and then ends the process (`Options::on_hang`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A program that ran longer than the campaign's hang limit.
#[derive(Clone, Debug)]
pub struct Hang {
    /// Position of the program in the run (0-based), as `Finding::index`.
    pub index: u64,
    /// The program's seed (`lanejit fuzz --seed-range SEED..SEED+1` runs it again).
    pub seed: u64,
    /// How long it had run when the watchdog saw it.
    pub ran: Duration,
    /// What was running: the campaign's run of the program, or one evaluation of a shrink.
    pub phase: &'static str,
}

impl std::fmt::Display for Hang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "program {} (seed {:#x}) did not finish in {:.0} s during {}: an engine runs it without end \
             (every engine must stop at its instruction budget); rerun it with `lanejit fuzz --seed-range {:#x}..{:#x}`",
            self.index,
            self.seed,
            self.ran.as_secs_f64(),
            self.phase,
            self.seed,
            self.seed.wrapping_add(1)
        )
    }
}

/// What the campaign does on a hang: never returns (the hung thread cannot be stopped).
pub type OnHang = fn(&Hang) -> !;

/// The default `OnHang`: the report on standard error, then exit code 1 (a finding).
pub fn exit_on_hang(h: &Hang) -> ! {
    eprintln!("\nHANG {h}");
    std::process::exit(1)
}

/// A program in flight: (index, seed, phase, start).
type Flight = (u64, u64, &'static str, Instant);

struct Shared {
    /// Programs running now, by ticket.
    running: Mutex<HashMap<u64, Flight>>,
    next_ticket: AtomicU64,
    stop: AtomicBool,
}

/// Watches the programs in flight while it lives; stops its thread on drop.
pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A program in flight; it leaves the watch when dropped.
pub struct Watched<'w> {
    dog: &'w Watchdog,
    ticket: u64,
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        self.dog.lock().remove(&self.ticket);
    }
}

impl Watchdog {
    /// Starts watching: a program running longer than `limit` is passed to `on_hang`.
    pub fn start(limit: Duration, on_hang: OnHang) -> Watchdog {
        let shared = Arc::new(Shared {
            running: Mutex::new(HashMap::new()),
            next_ticket: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        // Polls often enough that a hang is reported within a quarter of the limit past it (at most a second).
        let poll = (limit / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        let thread = std::thread::spawn(move || {
            while !s.stop.load(Relaxed) {
                std::thread::sleep(poll);
                let hung = {
                    let running = s.running.lock().unwrap_or_else(|e| e.into_inner());
                    running.values().filter(|r| r.3.elapsed() > limit).min_by_key(|r| r.0).copied()
                };
                if let Some((index, seed, phase, t0)) = hung {
                    on_hang(&Hang { index, seed, ran: t0.elapsed(), phase });
                }
            }
        });
        Watchdog { shared, thread: Some(thread) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Flight>> {
        self.shared.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Watches program `index` (seed `seed`) until the returned guard is dropped.
    pub fn watch(&self, index: u64, seed: u64, phase: &'static str) -> Watched<'_> {
        let ticket = self.shared.next_ticket.fetch_add(1, Relaxed);
        self.lock().insert(ticket, (index, seed, phase, Instant::now()));
        Watched { dog: self, ticket }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hook of the test below: records the hang and parks this watchdog thread for good (the hook must
    /// not return), leaving the test thread to check what it saw.
    fn record(h: &Hang) -> ! {
        *SEEN.lock().unwrap() = Some(h.clone());
        loop {
            std::thread::park();
        }
    }
    static SEEN: Mutex<Option<Hang>> = Mutex::new(None);

    #[test]
    fn a_program_past_the_limit_is_reported_and_a_quick_one_is_not() {
        let dog = Watchdog::start(Duration::from_millis(50), record);
        drop(dog.watch(1, 0x11, "the campaign"));
        let slow = dog.watch(2, 0x22, "the campaign");
        let t0 = Instant::now();
        while SEEN.lock().unwrap().is_none() && t0.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let h = SEEN.lock().unwrap().clone().expect("the slow program is reported");
        assert_eq!((h.index, h.seed), (2, 0x22));
        assert!(h.ran >= Duration::from_millis(50));
        assert!(h.to_string().contains("--seed-range 0x22..0x23"), "{h}");
        drop(slow);
        // The watchdog thread is parked in the hook: leak it rather than join it.
        std::mem::forget(dog);
    }
}
