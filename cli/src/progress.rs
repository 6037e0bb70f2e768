//! Progress bars for long work (`fuzz` campaigns, `bench` and `bench --first-launch`, long `run`s and
//! profiles, explorations), drawn with `indicatif` on standard error and only when it is a terminal: piped or
//! redirected output and `--json` get nothing extra.
//!
//! Test setting: with `LANEJIT_PROGRESS=lines` in the environment, bars are drawn also when standard error is
//! not a terminal (never with `--json`), as plain lines, from the start and at every redraw, so that a test can
//! see them.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use lanejit::{LaunchConfig, LaunchProgress};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a bar is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// Work shorter than this (a launch, an exploration) shows no bar at all (nothing flickers on the many short
/// runs).
const BAR_AFTER: Duration = Duration::from_millis(500);
/// The environment variable of the test setting, and its value.
const FORCE_VAR: &str = "LANEJIT_PROGRESS";
const FORCE_LINES: &str = "lines";

/// Bars drawn as plain lines whatever standard error is (the test setting).
fn forced() -> bool {
    std::env::var(FORCE_VAR).is_ok_and(|v| v == FORCE_LINES)
}

/// Bars are drawn: standard error is a terminal (or the test setting is on) and the output is not JSON.
pub fn wanted(json: bool) -> bool {
    !json && (std::io::stderr().is_terminal() || forced())
}

/// A bar of `len` steps with `template` (indicatif's syntax), or a hidden one when `show` is false.
pub fn bar(show: bool, len: u64, template: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    let target = match std::io::stderr().is_terminal() {
        true => ProgressDrawTarget::stderr(),
        false => ProgressDrawTarget::term_like(Box::new(Lines)),
    };
    let bar = ProgressBar::with_draw_target(Some(len), target).with_style(style);
    bar.enable_steady_tick(TICK);
    bar
}

/// The test setting's target: every line drawn goes to standard error as it is, cursor moves do nothing.
#[derive(Debug)]
struct Lines;

impl TermLike for Lines {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        writeln!(std::io::stderr(), "{s}")
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        match s.trim().is_empty() {
            true => Ok(()),
            false => writeln!(std::io::stderr(), "{s}"),
        }
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// A bar drawn from another thread while some work runs, from `BAR_AFTER` on (at once with the test setting),
/// its position and message read from counters the work adds to; ends (and clears itself) when dropped.
pub struct Watch {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    /// With `show`, draws a bar of `len` steps with `template` whose position and `{msg}` `read` gives;
    /// else does nothing.
    pub fn start(
        show: bool,
        len: u64,
        template: &'static str,
        read: impl Fn() -> (u64, String) + Send + 'static,
    ) -> Watch {
        let done = Arc::new(AtomicBool::new(false));
        if !show {
            return Watch { done, thread: None };
        }
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || draw(len, template, &read, &stop));
        Watch { done, thread: Some(thread) }
    }
}

/// Draws a `Watch`'s bar until `stop`.
fn draw(len: u64, template: &str, read: &dyn Fn() -> (u64, String), stop: &AtomicBool) {
    let t0 = Instant::now();
    let after = if forced() { Duration::ZERO } else { BAR_AFTER };
    let mut bar: Option<ProgressBar> = None;
    while !stop.load(Relaxed) {
        std::thread::sleep(TICK);
        if bar.is_none() && t0.elapsed() >= after {
            bar = Some(self::bar(true, len, template));
        }
        if let Some(b) = &bar {
            let (pos, msg) = read();
            b.set_position(pos.min(len));
            b.set_message(msg);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.done.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A bar of workgroups done for one launch (a `Watch`).
pub struct LaunchBar {
    _watch: Watch,
}

impl LaunchBar {
    /// With `show`, counts `cfg`'s workgroups (setting `cfg.progress`); else does nothing.
    pub fn start(show: bool, cfg: &mut LaunchConfig) -> LaunchBar {
        if !show {
            return LaunchBar { _watch: Watch::start(false, 0, "", || (0, String::new())) };
        }
        let progress: LaunchProgress = cfg.progress.get_or_insert_with(LaunchProgress::new).clone();
        let total = cfg.grid.iter().map(|&d| d as u64).product::<u64>();
        let from = progress.done();
        let template = "{spinner} launch {bar:40} {pos}/{len} workgroups [{elapsed_precise}, {eta} left]";
        let read = move || (progress.done().saturating_sub(from), String::new());
        LaunchBar { _watch: Watch::start(true, total, template, read) }
    }
}
