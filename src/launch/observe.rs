//! What a launch records besides its results when asked: a timeline (`LaunchConfig::timeline`, see
//! `crate::timeline`), a per-instruction profile (`LaunchConfig::profile`, see `crate::profile`) and the
//! count of workgroups done (`LaunchConfig::progress`), samples of what each worker runs
//! (`LaunchConfig::block_time`, see `crate::blocktime`). None of them costs anything when off: the workers
//! look at an `Option` once per workgroup or engine call, never per instruction.

use super::{LaunchConfig, LaunchCtx, LaunchError, LaunchStats, Schedule};
use crate::error::ConfigError;
use crate::profile::Profile;
use crate::timeline::Recorder;
use crate::Kernel;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Workgroups a launch has finished, readable from another thread while it runs (a progress bar). Give a
/// clone to `LaunchConfig::progress`; it counts on from where it stands, so one handle can follow a series.
#[derive(Clone, Debug, Default)]
pub struct LaunchProgress(Arc<AtomicU64>);

impl LaunchProgress {
    /// A count at zero.
    pub fn new() -> LaunchProgress {
        LaunchProgress::default()
    }
    /// Workgroups finished so far (those of a workgroup run without barriers may be counted a run of
    /// workgroups at a time).
    pub fn done(&self) -> u64 {
        self.0.load(Relaxed)
    }
    pub(super) fn add(&self, n: u64) {
        self.0.fetch_add(n, Relaxed);
    }
}

/// What a launch records for its observers (in `LaunchCtx`).
#[derive(Default)]
pub(super) struct Observers {
    pub(super) timeline: Option<Recorder>,
    pub(super) profile: Option<Mutex<Profile>>,
    pub(super) progress: Option<LaunchProgress>,
    pub(super) block_time: Option<crate::blocktime::Sampler>,
}

impl Observers {
    /// Checks that the configuration's observers go with the launch, and creates the timeline's file (an
    /// unwritable path fails here, before anything runs). `origin` is the timeline's time zero.
    pub(super) fn new(kernel: &Kernel, cfg: &LaunchConfig, origin: Instant) -> Result<Observers, LaunchError> {
        let refuse = |what: &str| {
            let why = if cfg.check.is_empty() { "another schedule than `fixed`" } else { "checkers" };
            LaunchError::Config(ConfigError::Observer(format!("{what} does not go with {why}")))
        };
        let plain = cfg.check.is_empty() && cfg.schedule == Schedule::Fixed;
        if cfg.timeline.is_some() && !plain {
            return Err(refuse("a timeline"));
        }
        if cfg.profile && !plain {
            return Err(refuse("a profile"));
        }
        if cfg.block_time && !plain {
            return Err(refuse("block time"));
        }
        if cfg.block_time && cfg.engine != crate::Engine::Interp && !kernel.config().jit.mark_blocks {
            let why = "block time on a compiling engine needs a kernel compiled with JitOptions::mark_blocks";
            return Err(LaunchError::Config(ConfigError::Observer(why.into())));
        }
        let timeline = match &cfg.timeline {
            Some(path) => Some(
                Recorder::create(path, origin)
                    .map_err(|e| LaunchError::Config(ConfigError::Observer(format!("timeline {e}"))))?,
            ),
            None => None,
        };
        Ok(Observers {
            timeline,
            profile: cfg.profile.then(|| Mutex::new(Profile::new(kernel.code.words.len()))),
            progress: cfg.progress.clone(),
            block_time: cfg.block_time.then(|| crate::blocktime::Sampler::start(kernel.code.words.len())),
        })
    }

    /// Nothing to record: the launch runs as fast as it can.
    pub(super) fn none(&self) -> bool {
        self.timeline.is_none() && self.profile.is_none() && self.progress.is_none() && self.block_time.is_none()
    }
}

/// Completes `result` with what the observers recorded: the profile in the statistics, the timeline written
/// (a timeline that cannot be written is an error of its own when the launch succeeded; after a trap the
/// trap is reported).
pub(super) fn finish(
    cx: &LaunchCtx,
    obs: Observers,
    mut result: Result<LaunchStats, LaunchError>,
) -> Result<LaunchStats, LaunchError> {
    if obs.none() {
        return result;
    }
    if let Some(p) = obs.profile {
        let profile = Some(Box::new(p.into_inner().expect("profile")));
        match &mut result {
            Ok(stats) | Err(LaunchError::Trap { stats, .. }) => stats.profile = profile,
            Err(_) => {}
        }
    }
    if let Some(sampler) = obs.block_time {
        let samples = Some(Box::new(sampler.finish()));
        match &mut result {
            Ok(stats) | Err(LaunchError::Trap { stats, .. }) => stats.block_time = samples,
            Err(_) => {}
        }
    }
    if let Some(rec) = obs.timeline {
        let meta = &cx.kernel.program.meta;
        let title = format!("lanejit: kernel {}, engine {:?}, grid {:?}", meta.name, cx.engine, cx.env.grid);
        let written = rec.write(&title, &cx.kernel.code);
        if let (Err(e), Ok(_)) = (written, &result) {
            return Err(LaunchError::Config(ConfigError::Observer(format!("timeline: {e}"))));
        }
    }
    result
}
