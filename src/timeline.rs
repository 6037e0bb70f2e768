//! A launch's timeline (`LaunchConfig::timeline`): Chrome Trace Event JSON, which Perfetto's UI
//! (ui.perfetto.dev) and chrome://tracing open. One process (the launch), one track per worker thread with a
//! slice per workgroup and, inside it, a slice per stretch of a wave (from when it starts or resumes until it
//! ends or waits at a barrier; a kernel without barriers has one per wave), marked compiled, interpreted or
//! mixed; barrier waits as slices from a workgroup's first wave reaching the barrier until the first resumes;
//! compilations on their own tracks (one per compile thread); traps as instant events; counters of waves in
//! flight and instructions retired. Only `X` (complete), `i`, `C` and `M` events are written, so every slice
//! carries its own end.
//!
//! Size stays bounded: after `TIMELINE_EVENT_LIMIT` slices, a worker's further workgroups are merged into one
//! aggregated slice per run of workgroups, and the file says so (`otherData.truncated`, a process label and an
//! instant event where detail stopped). The file is written to a temporary file next to the destination,
//! created before the launch (an unwritable path fails before anything runs), and renamed over the
//! destination at the end, so nothing half-written is left.

use lanejit_interp::{Trap, TrapKind};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

/// Slices (and instants) a timeline holds in detail before workgroups are aggregated. At about 150 bytes an
/// event, the file stays under 30 MB however large the launch.
pub const TIMELINE_EVENT_LIMIT: u64 = 150_000;
/// Events a worker reserves from the limit at a time (so that workers do not contend for the count).
const RESERVE: u64 = 256;
/// The process id of the launch in the file.
const PID: u32 = 1;
/// Compile tracks are numbered from here (worker tracks from 0: 0 is the calling thread, N rayon's thread N-1).
const COMPILE_TID: u32 = 1000;
/// The track counters are written on (Chrome keys counters by process and name; the track only keeps them ordered).
const COUNTER_TID: u32 = 999;
/// The counters are sampled at most this often, and at most about `COUNTER_SAMPLES` times in a launch.
const COUNTER_EVERY_NS: u64 = 100_000;
const COUNTER_SAMPLES: u64 = 4000;

/// One event, timed in nanoseconds from the launch's start.
struct Event {
    name: String,
    cat: &'static str,
    ph: &'static str,
    ts: u64,
    dur: u64,
    tid: u32,
    args: Value,
}

/// The destination and the temporary file the timeline is written to first (removed when dropped unless
/// renamed over the destination).
struct TimelineFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<std::fs::File>,
}

impl TimelineFile {
    /// Creates the temporary file next to `path`: a path that cannot be written (a missing or read-only
    /// directory, a directory itself) fails here, before the launch.
    fn create(path: &Path) -> Result<TimelineFile, String> {
        let shown = path.display();
        if path.is_dir() {
            return Err(format!("{shown} is a directory"));
        }
        let name = path.file_name().ok_or_else(|| format!("{shown} names no file"))?;
        let tmp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(|e| format!("{shown}: {e}"))?;
        Ok(TimelineFile { path: path.to_path_buf(), tmp, file: Some(file) })
    }

    /// Writes `doc` to the temporary file and renames it over the destination.
    fn commit(&mut self, doc: &Value) -> Result<(), String> {
        let file = self.file.take().ok_or("the timeline was written already")?;
        let mut out = std::io::BufWriter::new(file);
        let written = serde_json::to_writer(&mut out, doc).map_err(|e| e.to_string()).and_then(|()| {
            out.flush().map_err(|e| e.to_string())?;
            out.get_ref().sync_all().map_err(|e| e.to_string())
        });
        drop(out);
        written.and_then(|()| std::fs::rename(&self.tmp, &self.path).map_err(|e| e.to_string()))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Drop for TimelineFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Checks that a timeline can be written at `path` (as a launch does before it starts: a temporary file is
/// created next to it and removed again), so that a tool can refuse a bad path before it prepares anything.
pub fn check_path(path: &Path) -> Result<(), String> {
    TimelineFile::create(path).map(drop)
}

/// What every worker of one launch records into.
pub(crate) struct Recorder {
    origin: Instant,
    file: Mutex<TimelineFile>,
    events: Mutex<Vec<Event>>,
    /// Events still allowed in detail (`TIMELINE_EVENT_LIMIT` less those reserved).
    left: AtomicI64,
    /// When the limit was first reached (ns from the origin; `u64::MAX`: not reached).
    limit_hit: AtomicU64,
    /// Workgroups aggregated instead of shown in detail.
    aggregated: AtomicU64,
    /// Waves started in workgroups still running.
    in_flight: AtomicI64,
    /// When the counters were last sampled (ns from the origin).
    last_sample: AtomicU64,
}

impl Recorder {
    /// Creates the temporary file for `path` (the error names the path) and starts the clock.
    pub(crate) fn create(path: &Path, origin: Instant) -> Result<Recorder, String> {
        Ok(Recorder {
            origin,
            file: Mutex::new(TimelineFile::create(path)?),
            events: Mutex::new(Vec::new()),
            left: AtomicI64::new(TIMELINE_EVENT_LIMIT as i64),
            limit_hit: AtomicU64::new(u64::MAX),
            aggregated: AtomicU64::new(0),
            in_flight: AtomicI64::new(0),
            last_sample: AtomicU64::new(0),
        })
    }

    fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.origin).as_nanos() as u64
    }

    /// Up to `RESERVE` more events for a worker (0 once the limit is reached).
    fn reserve(&self) -> u64 {
        let before = self.left.fetch_sub(RESERVE as i64, Relaxed);
        if before <= 0 {
            self.limit_hit.fetch_min(self.ns(Instant::now()), Relaxed);
            return 0;
        }
        (before as u64).min(RESERVE)
    }

    /// A trap, as an instant event on the track of the thread that saw it (`stopped: KIND`, category `stop`,
    /// for a limit or a cancellation, which stop the launch from outside the kernel).
    pub(crate) fn trap(&self, t: &Trap, wg_index: u64) {
        let args = json!({
            "kind": t.kind.name(), "pc": format!("{:#x}", t.pc), "workgroup": t.workgroup, "wave": t.wave,
            "workgroup_index": wg_index, "message": t.to_string(),
        });
        let (name, cat) = match stop_name(t) {
            "trap" => (format!("trap: {}", t.kind.name()), "trap"),
            _ => (format!("stopped: {}", t.kind.name()), "stop"),
        };
        let ev = Event { name, cat, ph: "i", ts: self.ns(Instant::now()), dur: 0, tid: worker_tid(), args };
        self.events.lock().expect("timeline").push(ev);
    }

    /// Samples the counters unless they were sampled lately (`retired`: the launch's count so far).
    fn sample(&self, retired: u64) {
        let now = self.ns(Instant::now());
        let last = self.last_sample.load(Relaxed);
        let every = COUNTER_EVERY_NS.max(now / COUNTER_SAMPLES);
        if now < last + every || self.last_sample.compare_exchange(last, now, Relaxed, Relaxed).is_err() {
            return;
        }
        let counter = |name: &str, args: Value| Event {
            name: name.into(),
            cat: "counter",
            ph: "C",
            ts: now,
            dur: 0,
            tid: COUNTER_TID,
            args,
        };
        let waves = self.in_flight.load(Relaxed).max(0);
        let mut events = self.events.lock().expect("timeline");
        events.push(counter("waves in flight", json!({ "waves": waves })));
        events.push(counter("instructions retired", json!({ "retired": retired })));
    }

    /// Writes the file: the events of every worker, the compilations of `code` during the launch, and the
    /// metadata naming the process and tracks. `title` names the launch.
    pub(crate) fn write(&self, title: &str, code: &lanejit_interp::Code) -> Result<(), String> {
        let mut events = std::mem::take(&mut *self.events.lock().expect("timeline"));
        let compile_threads = self.compilations(code, &mut events);
        let hit = self.limit_hit.load(Relaxed);
        let aggregated = self.aggregated.load(Relaxed);
        let note = (hit != u64::MAX).then(|| {
            format!(
                "timeline limited to {TIMELINE_EVENT_LIMIT} events: from {:.3} ms on, {aggregated} workgroups are \
                 shown as aggregated slices, without their waves",
                hit as f64 / 1e6
            )
        });
        if let Some(n) = &note {
            let args = json!({ "note": n });
            events.push(Event {
                name: "detail limit reached".into(),
                cat: "limit",
                ph: "i",
                ts: hit,
                dur: 0,
                tid: 0,
                args,
            });
        }
        // Per track by time; a slice before those it encloses (same start: the longer first).
        events.sort_by_key(|e| (e.tid, e.ts, std::cmp::Reverse(e.dur)));
        let mut out = metadata(title, &events, &compile_threads, note.as_deref());
        out.extend(events.iter().map(event_json));
        let doc = json!({
            "traceEvents": out,
            "displayTimeUnit": "ns",
            "otherData": { "lanejit": crate::BUILD, "truncated": note.is_some(), "note": note },
        });
        self.file.lock().expect("timeline file").commit(&doc)
    }

    /// Adds the compilations of `code` that ended during the launch as slices; the compile threads' names by track.
    fn compilations(&self, code: &lanejit_interp::Code, events: &mut Vec<Event>) -> BTreeMap<u32, String> {
        let mut threads: BTreeMap<String, u32> = BTreeMap::new();
        for c in crate::compile_log::compilations_since(code, self.origin) {
            let next = COMPILE_TID + threads.len() as u32;
            let tid = *threads.entry(c.thread.clone()).or_insert(next);
            let ts = self.ns(c.start);
            // A compilation still running when the launch ended is shown up to then.
            let end = c.took.map_or_else(|| self.ns(Instant::now()), |t| self.ns(c.start + t));
            let shown: Vec<String> = c.blocks.iter().take(16).map(|pc| format!("{pc:#x}")).collect();
            let args = json!({
                "tier": c.tier, "blocks": c.blocks.len(), "block_pcs": shown.join(" "), "ok": c.ok,
                "finished": c.took.is_some(), "ms": c.took.map(|t| t.as_secs_f64() * 1e3),
            });
            let name = format!("compile {} ({} blocks)", c.tier, c.blocks.len());
            events.push(Event { name, cat: "compile", ph: "X", ts, dur: end - ts, tid, args });
        }
        threads.into_iter().map(|(name, tid)| (tid, name)).collect()
    }
}

/// The track of the calling thread: 0 outside a rayon pool, else the rayon thread's index plus one.
fn worker_tid() -> u32 {
    rayon::current_thread_index().map_or(0, |i| i as u32 + 1)
}

fn event_json(e: &Event) -> Value {
    let mut v = json!({
        "name": e.name, "cat": e.cat, "ph": e.ph, "ts": e.ts as f64 / 1e3, "pid": PID, "tid": e.tid, "args": e.args,
    });
    match e.ph {
        "X" => v["dur"] = json!(e.dur as f64 / 1e3),
        "i" => v["s"] = json!("t"),
        _ => {}
    }
    v
}

/// `M` events: the process's name (and the truncation note as its label), each track's name and order.
fn metadata(title: &str, events: &[Event], compile: &BTreeMap<u32, String>, note: Option<&str>) -> Vec<Value> {
    let meta = |name: &str, tid: u32, args: Value| json!({ "name": name, "cat": "__metadata", "ph": "M", "ts": 0, "pid": PID, "tid": tid, "args": args });
    let mut out = vec![meta("process_name", 0, json!({ "name": title }))];
    if let Some(n) = note {
        out.push(meta("process_labels", 0, json!({ "labels": n })));
    }
    let mut tids: Vec<u32> = events.iter().map(|e| e.tid).collect();
    tids.push(0);
    tids.sort_unstable();
    tids.dedup();
    for tid in tids {
        let name = match tid {
            0 => "launching thread".to_string(),
            COUNTER_TID => "counters".to_string(),
            t if t >= COMPILE_TID => format!("compile: {}", compile.get(&t).map_or("?", String::as_str)),
            t => format!("worker {}", t - 1),
        };
        out.push(meta("thread_name", tid, json!({ "name": name })));
        out.push(meta("thread_sort_index", tid, json!({ "sort_index": tid })));
    }
    out
}

/// The stretch of a wave being recorded.
struct Stretch {
    wave: usize,
    start: Instant,
    retired: u64,
    interpreted: u64,
}

/// The workgroup being recorded by a worker.
struct Group {
    index: u64,
    start: Instant,
    /// Shown in detail (else added to the worker's aggregate).
    detailed: bool,
    /// Waves started (bit per wave index), and those that reached the open barrier.
    started: u64,
    arrived: u64,
    /// The open barrier: when its first wave arrived, and the barrier's pc.
    barrier: Option<(Instant, u32)>,
    retired: u64,
    /// Stretches not shown because the limit was reached within the workgroup.
    hidden: u64,
}

/// Consecutive workgroups of one worker shown as one slice (past the limit).
struct Aggregate {
    first: u64,
    last: u64,
    start: Instant,
    end: Instant,
    workgroups: u64,
    retired: u64,
}

/// What one worker records (kept by the worker, handed to the recorder when it is dropped).
pub(crate) struct WorkerTimeline<'r> {
    rec: &'r Recorder,
    tid: u32,
    events: Vec<Event>,
    /// Events reserved from the limit and not used yet.
    reserved: u64,
    group: Option<Group>,
    stretch: Option<Stretch>,
    aggregate: Option<Aggregate>,
}

impl<'r> WorkerTimeline<'r> {
    pub(crate) fn new(rec: &'r Recorder) -> Self {
        WorkerTimeline {
            rec,
            tid: worker_tid(),
            events: Vec::new(),
            reserved: 0,
            group: None,
            stretch: None,
            aggregate: None,
        }
    }

    /// Takes one event from the reservation (reserving more when it is used up): false past the limit.
    fn take_event(&mut self) -> bool {
        if self.reserved == 0 {
            self.reserved = self.rec.reserve();
        }
        let ok = self.reserved > 0;
        self.reserved = self.reserved.saturating_sub(1);
        ok
    }

    fn slice(&mut self, name: String, cat: &'static str, start: Instant, end: Instant, args: Value) {
        let (ts, end) = (self.rec.ns(start), self.rec.ns(end));
        self.events.push(Event { name, cat, ph: "X", ts, dur: end.saturating_sub(ts), tid: self.tid, args });
    }

    /// Workgroup `index` starts.
    pub(crate) fn workgroup_begin(&mut self, index: u64) {
        let detailed = self.take_event();
        self.group = Some(Group {
            index,
            start: Instant::now(),
            detailed,
            started: 0,
            arrived: 0,
            barrier: None,
            retired: 0,
            hidden: 0,
        });
    }

    /// Wave `wave` of the workgroup starts or resumes: a barrier its waves waited at is over when a wave
    /// that reached it goes on.
    pub(crate) fn stretch_begin(&mut self, wave: usize) {
        let now = Instant::now();
        let Some(g) = &mut self.group else { return };
        if g.started & (1 << wave) == 0 {
            g.started |= 1 << wave;
            self.rec.in_flight.fetch_add(1, Relaxed);
        }
        if g.arrived & (1 << wave) != 0 {
            self.close_barrier(now);
        }
        self.stretch = Some(Stretch { wave, start: now, retired: 0, interpreted: 0 });
    }

    /// One engine call of the stretch retired `retired` instructions, `interpreted` of them in the interpreter.
    pub(crate) fn ran(&mut self, retired: u64, interpreted: u64) {
        if let Some(s) = &mut self.stretch {
            s.retired += retired;
            s.interpreted += interpreted;
        }
    }

    /// The stretch ends: `how` the wave stopped (`end`, `barrier`, `trap`, `preempted`), `pc` where;
    /// `retired_so_far` is the launch's count for the counters.
    pub(crate) fn stretch_end(&mut self, how: &'static str, pc: u32, retired_so_far: u64) {
        self.close_stretch(how, pc);
        self.rec.sample(retired_so_far);
    }

    /// Ends the open stretch (if any) as `stretch_end` does, without sampling the counters.
    fn close_stretch(&mut self, how: &'static str, pc: u32) {
        let now = Instant::now();
        let Some(s) = self.stretch.take() else { return };
        let engine = match (s.interpreted, s.retired) {
            (0, _) => "compiled",
            (i, r) if i == r => "interpreter",
            _ => "mixed",
        };
        if let Some(g) = &mut self.group {
            g.retired += s.retired;
            if how == "barrier" {
                g.arrived |= 1 << s.wave;
                g.barrier.get_or_insert((now, pc));
            }
        }
        if self.group.as_ref().is_some_and(|g| g.detailed) {
            if self.take_event() {
                let args = json!({
                    "engine": engine, "retired": s.retired, "interpreted": s.interpreted, "stop": how,
                    "pc": format!("{pc:#x}"),
                });
                self.slice(format!("wave {}", s.wave), engine_cat(engine), s.start, now, args);
            } else if let Some(g) = &mut self.group {
                g.hidden += 1;
            }
        }
    }

    /// Closes the open barrier wait (a slice from its first arrival to `now`) and clears the arrivals.
    fn close_barrier(&mut self, now: Instant) {
        let Some(g) = &mut self.group else { return };
        let waves = std::mem::take(&mut g.arrived).count_ones();
        let Some((start, pc)) = g.barrier.take() else { return };
        if g.detailed && self.take_event() {
            let args = json!({ "pc": format!("{pc:#x}"), "waves": waves });
            self.slice("barrier wait".into(), "barrier", start, now, args);
        }
    }

    /// The open stretch (if any) was cut by `t`: the kernel trapped, or a limit or a cancellation stopped it
    /// (`stop_name`), with the wave at `pc`.
    pub(crate) fn stretch_cut(&mut self, t: &Trap, pc: u32) {
        self.close_stretch(stop_name(t), pc);
    }

    /// The open stretch was cut because a lower workgroup trapped (the launch stops), with the wave at `pc`.
    pub(crate) fn stretch_cut_preempted(&mut self, pc: u32) {
        self.close_stretch("preempted", pc);
    }

    /// The workgroup ends (`outcome`: `done`, `trap`, `preempted`).
    pub(crate) fn workgroup_end(&mut self, wg_id: [u32; 3], outcome: &'static str) {
        if self.stretch.is_some() {
            // (The launch closes the stretches it cuts, `stretch_cut`: this is a stop it did not name.)
            self.close_stretch("stopped", 0);
        }
        let now = Instant::now();
        self.close_barrier(now);
        let Some(g) = self.group.take() else { return };
        self.rec.in_flight.fetch_sub(g.started.count_ones() as i64, Relaxed);
        if g.detailed {
            let mut args = json!({
                "workgroup": wg_id, "index": g.index, "waves": g.started.count_ones(), "retired": g.retired,
                "outcome": outcome,
            });
            if g.hidden > 0 {
                args["stretches_not_shown"] = json!(g.hidden);
            }
            self.slice(format!("workgroup {}", g.index), "workgroup", g.start, now, args);
            return;
        }
        self.rec.aggregated.fetch_add(1, Relaxed);
        let a = self.aggregate.get_or_insert(Aggregate {
            first: g.index,
            last: g.index,
            start: g.start,
            end: now,
            workgroups: 0,
            retired: 0,
        });
        (a.last, a.end) = (g.index, now);
        a.workgroups += 1;
        a.retired += g.retired;
    }

    /// Hands the events to the recorder (the aggregate of workgroups past the limit as one slice).
    pub(crate) fn finish(&mut self) {
        if let Some(a) = self.aggregate.take() {
            let args = json!({
                "workgroups": a.workgroups, "first": a.first, "last": a.last, "retired": a.retired,
                "note": "past the timeline's event limit: these workgroups are aggregated",
            });
            let name = format!("workgroups {}..={} (aggregated)", a.first, a.last);
            self.slice(name, "aggregated", a.start, a.end, args);
        }
        let mut events = std::mem::take(&mut self.events);
        self.rec.events.lock().expect("timeline").append(&mut events);
    }
}

/// The category of a wave's slice, by where it ran (Perfetto colours slices by name; the category filters).
fn engine_cat(engine: &str) -> &'static str {
    match engine {
        "compiled" => "wave,compiled",
        "interpreter" => "wave,interpreter",
        _ => "wave,mixed",
    }
}

/// How a trap stops a wave in the timeline: `trap` (the kernel's own), `budget`, `deadline` or `cancelled` (a
/// limit or the host stopped the launch from outside the kernel).
fn stop_name(t: &Trap) -> &'static str {
    match t.kind {
        TrapKind::BudgetExceeded => "budget",
        TrapKind::DeadlineExceeded => "deadline",
        TrapKind::Cancelled => "cancelled",
        _ => "trap",
    }
}
