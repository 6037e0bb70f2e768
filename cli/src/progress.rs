//! Progress bars for long work (`fuzz` campaigns, `bench`, long `run`s and profiles), drawn with `indicatif`
//! on standard error and only when it is a terminal: piped or redirected output and `--json` get nothing extra.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lanejit::{LaunchConfig, LaunchProgress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a bar is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// A launch shorter than this shows no bar at all (nothing flickers on the many short runs).
const LAUNCH_BAR_AFTER: Duration = Duration::from_millis(500);

/// Bars are drawn: standard error is a terminal and the output is not JSON.
pub fn wanted(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// A bar of `len` steps with `template` (indicatif's syntax), or a hidden one when `show` is false.
pub fn bar(show: bool, len: u64, template: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(style);
    bar.enable_steady_tick(TICK);
    bar
}

/// A bar of workgroups done for one launch, drawn from another thread while the launch runs, from
/// `LAUNCH_BAR_AFTER` on; ends (and clears itself) when dropped.
pub struct LaunchBar {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl LaunchBar {
    /// With `show`, counts `cfg`'s workgroups (setting `cfg.progress`); else does nothing.
    pub fn start(show: bool, cfg: &mut LaunchConfig) -> LaunchBar {
        let done = Arc::new(AtomicBool::new(false));
        if !show {
            return LaunchBar { done, thread: None };
        }
        let progress = cfg.progress.get_or_insert_with(LaunchProgress::new).clone();
        let total = cfg.grid.iter().map(|&d| d as u64).product::<u64>();
        let from = progress.done();
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || draw(&progress, from, total, &stop));
        LaunchBar { done, thread: Some(thread) }
    }
}

/// Draws the launch's bar until `stop`.
fn draw(progress: &LaunchProgress, from: u64, total: u64, stop: &AtomicBool) {
    let t0 = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    while !stop.load(Relaxed) {
        std::thread::sleep(TICK);
        if bar.is_none() && t0.elapsed() >= LAUNCH_BAR_AFTER {
            let template = "{spinner} launch {bar:40} {pos}/{len} workgroups [{elapsed_precise}, {eta} left]";
            bar = Some(self::bar(true, total, template));
        }
        if let Some(b) = &bar {
            b.set_position(progress.done().saturating_sub(from).min(total));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

impl Drop for LaunchBar {
    fn drop(&mut self) {
        self.done.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
