//! Each block's share of a launch's time (`LaunchConfig::block_time`), measured by sampling as `perf` does:
//! every worker has a mark that says what it runs — the start of the compiled block it entered (code compiled
//! with `JitOptions::mark_blocks` stores it at every block entry), `pc | MARK_INTERPRETED` for an instruction
//! the interpreter runs (the run loop and `lanejit_interp::run_marked` store it), `MARK_IDLE` between engine
//! calls — and a sampling thread reads every mark each `SAMPLE_EVERY`, adding one sample to what each busy
//! worker runs. A block's share of time is its share of those samples.
//!
//! Why sampling rather than timing each block: a clock read per block entry costs far more than a block of a
//! few vector instructions (and Cranelift has no cheap cycle counter to emit), while a store of a constant to
//! a fixed address costs about a cycle. Nothing of it exists in code compiled without `mark_blocks`, and the
//! run loop looks at an `Option` once per interpreted instruction or engine call, so a launch that does not
//! ask for it runs as before.

use lanejit_jit::{MARK_IDLE, MARK_INTERPRETED};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the sampling thread reads the workers' marks (10 kHz: a 10 ms launch gets about 100 samples a
/// worker; the thread's wake-ups cost a few percent of one core).
pub const SAMPLE_EVERY: Duration = Duration::from_micros(100);

/// Samples of a launch, per code word (`pc / 4`) of a block start (compiled) or an instruction (interpreted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockTime {
    /// Samples that found a worker in the compiled block starting at that word.
    pub compiled: Vec<u64>,
    /// Samples that found a worker interpreting the instruction at that word.
    pub interpreted: Vec<u64>,
    /// Times the sampling thread read the marks (each busy worker gave one sample).
    pub ticks: u64,
    /// Time from the first to the last reading.
    pub sampled_for: Duration,
}

impl BlockTime {
    /// Samples that found a worker running the kernel's code (compiled or interpreted).
    pub fn samples(&self) -> u64 {
        self.compiled.iter().chain(&self.interpreted).sum()
    }

    /// The samples in `[start, end)` (byte addresses): those in the compiled block starting at `start`, and
    /// those of the instructions interpreted in the range.
    pub fn in_range(&self, start: u32, end: u32) -> (u64, u64) {
        let words = (start / 4) as usize..(end / 4) as usize;
        let compiled = self.compiled.get((start / 4) as usize).copied().unwrap_or(0);
        let interpreted = self.interpreted.get(words).map_or(0, |s| s.iter().sum());
        (compiled, interpreted)
    }
}

/// The sampling thread of one launch and the marks it reads.
pub(crate) struct Sampler {
    marks: Arc<Mutex<Vec<Arc<AtomicU32>>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<BlockTime>>,
}

impl Sampler {
    /// Starts sampling a kernel of `words` code words.
    pub(crate) fn start(words: usize) -> Sampler {
        let marks = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (Arc::clone(&marks), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("lanejit-sampler".into())
            .spawn(move || sample(&m, &s, words))
            .expect("spawning the block-time sampling thread");
        Sampler { marks, stop, thread: Some(thread) }
    }

    /// A new worker's mark, read from now on.
    pub(crate) fn mark(&self) -> Arc<AtomicU32> {
        let mark = Arc::new(AtomicU32::new(MARK_IDLE));
        self.marks.lock().expect("marks").push(Arc::clone(&mark));
        mark
    }

    /// Stops sampling and returns the samples.
    pub(crate) fn finish(mut self) -> BlockTime {
        self.stop.store(true, Relaxed);
        self.thread.take().map(|t| t.join().expect("the sampling thread")).unwrap_or_default()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The sampling thread: reads every mark each `SAMPLE_EVERY` until `stop`.
fn sample(marks: &Mutex<Vec<Arc<AtomicU32>>>, stop: &AtomicBool, words: usize) -> BlockTime {
    let mut t = BlockTime { compiled: vec![0; words], interpreted: vec![0; words], ..BlockTime::default() };
    let t0 = Instant::now();
    while !stop.load(Relaxed) {
        std::thread::sleep(SAMPLE_EVERY);
        t.ticks += 1;
        let mut marks = marks.lock().expect("marks");
        // (A worker that has finished dropped its mark: only this list holds it.)
        marks.retain(|m| Arc::strong_count(m) > 1);
        for mark in marks.iter() {
            let m = mark.load(Relaxed);
            if m == MARK_IDLE {
                continue;
            }
            let (counts, pc) = match m & MARK_INTERPRETED {
                0 => (&mut t.compiled, m),
                _ => (&mut t.interpreted, m & !MARK_INTERPRETED),
            };
            if let Some(c) = counts.get_mut((pc / 4) as usize) {
                *c += 1;
            }
        }
    }
    t.sampled_for = t0.elapsed();
    t
}
