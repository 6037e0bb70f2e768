//! `lanejit run`: launch a kernel file with buffers given on the command line, or a bundled example whose
//! answer is checked against its Rust reference.
//!
//! The buffers and arguments are parsed in `buffers` ([`parse_buffer`]), a series of launches (`--repeat`,
//! within one deadline for the whole command) runs in `series` and is timed in [`timing`], and the files a run
//! writes are checked before the launch and written after it in [`saves`].

mod buffers;
pub mod explore;
pub mod saves;
mod series;
pub mod timing;

pub(crate) use buffers::{names_infinity, parse_f32};
pub use buffers::{parse_buffer, BufferSpec};

use crate::bufio::Elem;
use crate::cli::Failed;
use crate::examples::{self, Size};
use crate::imageio::{parse_image, parse_image_saves, read_texels, save_image, upload_images, write_texels, ImageArg};
use anyhow::{anyhow, bail, Result};
use buffers::{check_arg_bytes, check_fits, scalar, upload_buffers, write_init};
use lanejit::launch::{launch_traced, LaunchStats};
use lanejit::trace::PrintTracer;
use lanejit::{Device, Engine, Kernel, LaunchConfig, LaunchError};
use series::Series;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `lanejit run` does with a kernel file (and `lanejit bench KERNEL`).
pub struct RunOptions {
    /// Grid in workgroups (default 1,1,1).
    pub grid: Option<[u32; 3]>,
    /// Workgroup shape (default: the kernel's `.workgroup`).
    pub wg: Option<[u32; 3]>,
    /// `--buffer` specifications, as text.
    pub buffers: Vec<String>,
    /// `--image` specifications, as text (`imageio::parse_image` checks them).
    pub images: Vec<String>,
    /// `INDEX=PATH`: after the launch (also after a trap), image INDEX is written to PATH (PNG or raw).
    pub image_saves: Vec<String>,
    /// `--arg` scalars, as text.
    pub args: Vec<String>,
    /// The engine.
    pub engine: Engine,
    /// Print every executed instruction (one thread).
    pub trace: bool,
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
    /// Elements of each buffer to print.
    pub show: usize,
    /// The launch's instruction budget (`None`: the launch's default).
    pub budget: Option<u64>,
    /// The launch's wall-clock deadline (`None`: the launch's default).
    pub deadline: Option<Duration>,
    /// How the kernel is compiled and tiered.
    pub compile: lanejit::CompileConfig,
    /// `INDEX=PATH`: after the launch (also after a trap), buffer INDEX is written to PATH (`.npy` or raw).
    pub saves: Vec<String>,
    /// Print one JSON object (statistics, trap, buffers) instead of text.
    pub json: bool,
    /// Launches of the kernel (at least 1): the later ones time it on the buffers the earlier ones left.
    pub repeat: u32,
    /// When the command started: `run`'s deadline covers everything from then, every launch of `--repeat`
    /// included (`bench KERNEL` gives each launch the whole deadline).
    pub started: Instant,
    /// Checkers to run (`lanejit::check`; none by default).
    pub check: lanejit::check::Checks,
    /// The interleaving of waves and workgroups (`--schedule`).
    pub schedule: lanejit::Schedule,
    /// `--schedule` as given (with `--explore` it names a policy, not one schedule).
    pub schedule_text: Option<String>,
    /// `--record FILE`: the launch is written there as a record file (`lanejit::record`).
    pub record: Option<PathBuf>,
    /// `--timeline FILE`: the launch's timeline is written there (`lanejit::timeline`).
    pub timeline: Option<PathBuf>,
}

impl RunOptions {
    /// The launch configuration's limits and threads from these options (`--trace` runs on one thread).
    pub(crate) fn apply(&self, cfg: &mut LaunchConfig) {
        cfg.engine = self.engine;
        cfg.threads = if self.trace { Some(1) } else { self.threads };
        cfg.check = self.check;
        cfg.schedule = self.schedule;
        cfg.timeline = self.timeline.clone();
        if let Some(b) = self.budget {
            cfg.budget = b;
        }
        if let Some(d) = self.deadline {
            cfg.deadline = Some(d);
        }
    }
}

/// The first `n` of a buffer's `total` elements (`words` holds at least those), with the total when there are
/// more.
fn show(words: &[u32], total: u64, elem: Elem, n: usize) -> String {
    let items: Vec<String> = words
        .iter()
        .take(n)
        .map(|w| match elem {
            Elem::U32 => w.to_string(),
            Elem::I32 => (*w as i32).to_string(),
            Elem::F32 => format!("{}", f32::from_bits(*w)),
        })
        .collect();
    let more = if total > n as u64 { format!(", … ({total} total)") } else { String::new() };
    format!("[{}{more}]", items.join(", "))
}

/// Launches as `launch_with` does, writing the record file `o.record` asks for (a failure to write it is an
/// error of its own: exit code 2).
fn launch_recorded(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    o: &RunOptions,
) -> Result<Result<LaunchStats, LaunchError>> {
    let Some(path) = &o.record else { return Ok(launch_with(device, kernel, cfg, o)) };
    let mut record = lanejit::record::Record::capture(device, kernel, cfg)?;
    let result = launch_with(device, kernel, cfg, o);
    if matches!(result, Ok(_) | Err(LaunchError::Trap { .. })) {
        record.finish(device, &result)?;
        std::fs::write(path, record.to_json()).map_err(|e| anyhow!("--record {}: {e}", path.display()))?;
    }
    Ok(result)
}

/// Launches as `o` says: traced, or with a bar of the workgroups done on a terminal (`crate::progress`).
fn launch_with(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    o: &RunOptions,
) -> Result<LaunchStats, LaunchError> {
    if o.trace {
        return launch_traced(device, kernel, cfg, &mut PrintTracer { out: std::io::stdout() });
    }
    if !crate::progress::wanted(o.json) {
        return device.launch(kernel, cfg);
    }
    let mut cfg = cfg.clone();
    let _bar = crate::progress::LaunchBar::start(true, &mut cfg);
    device.launch(kernel, &cfg)
}

fn stats_json(s: &LaunchStats) -> serde_json::Value {
    serde_json::json!({
        "workgroups": s.workgroups, "waves": s.waves, "retired": s.retired, "interpreted": s.interpreted,
        "lane_ops": s.lane_ops, "elapsed_s": s.elapsed.as_secs_f64(),
        "findings": lanejit::check::render_json(&s.findings),
    })
}

/// `--timeline FILE`, checked before anything is prepared: one plain launch (no `--trace`, `--repeat`,
/// `--check` or `--schedule`), never the kernel file, and writable (exit code 2 otherwise).
pub fn check_timeline(o: &RunOptions, kernel: Option<&Path>) -> Result<()> {
    let Some(path) = &o.timeline else { return Ok(()) };
    let refuse = |what: &str| anyhow!("--timeline records one plain launch: it does not go with {what}");
    if o.trace {
        return Err(refuse("--trace"));
    }
    if o.repeat > 1 {
        return Err(refuse("--repeat"));
    }
    if !o.check.is_empty() {
        return Err(refuse("--check"));
    }
    if o.schedule_text.is_some() {
        return Err(refuse("--schedule"));
    }
    if let Some(k) = kernel.filter(|k| k.exists()) {
        crate::cli::refuse_overwrite(path, &[k])?;
    }
    lanejit::timeline::check_path(path).map_err(|e| anyhow!("--timeline {e}"))
}

/// `--trace` prints what the engines run; a checking launch steps the interpreter itself, without the tracer.
fn refuse_trace_with_check(o: &RunOptions) -> Result<()> {
    if o.trace && !o.check.is_empty() {
        bail!("--trace and --check do not go together (a checking launch steps the interpreter itself)");
    }
    Ok(())
}

/// Prints the checkers' findings, one per line.
fn print_findings(s: &LaunchStats) {
    print!("{}", lanejit::check::render_text(&s.findings));
}

/// Any checker finding fails the command (exit code 1), after what it printed.
fn findings_verdict(s: &LaunchStats) -> Result<()> {
    match s.findings.len() {
        0 => Ok(()),
        n => Err(Failed(format!("{n} checker finding{}", if n == 1 { "" } else { "s" })).into()),
    }
}

fn trap_json(r: &Result<LaunchStats, LaunchError>) -> serde_json::Value {
    match r {
        Err(LaunchError::Trap { trap, .. }) => serde_json::json!({
            "kind": trap.kind.name(), "pc": trap.pc, "workgroup": trap.workgroup, "wave": trap.wave,
            "lanes": trap.lanes, "addresses": trap.addrs, "code": trap.code, "detail": trap.detail,
            "message": trap.to_string(),
        }),
        _ => serde_json::Value::Null,
    }
}

/// A buffer element as JSON: integers as numbers, floats as numbers when finite (JSON has no NaN or infinity:
/// those are the strings "nan", "inf", "-inf").
fn elem_json(w: u32, elem: Elem) -> serde_json::Value {
    match elem {
        Elem::U32 => w.into(),
        Elem::I32 => (w as i32).into(),
        Elem::F32 => {
            let f = f32::from_bits(w);
            match f {
                _ if f.is_nan() => "nan".into(),
                _ if f.is_infinite() => (if f > 0.0 { "inf" } else { "-inf" }).into(),
                _ => (f as f64).into(),
            }
        }
    }
}

fn report(stats: &LaunchStats) {
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    println!(
        "stats: {} workgroups, {} waves, {} instructions, {} lane-ops, {:.3} ms, {:.1} M lane-ops/s",
        stats.workgroups,
        stats.waves,
        stats.retired,
        stats.lane_ops,
        secs * 1e3,
        stats.lane_ops as f64 / secs / 1e6
    );
}

/// A trap is the kernel's failure (exit code 1); a configuration error is the user's (exit code 2).
fn finish(r: Result<LaunchStats, LaunchError>) -> Result<LaunchStats> {
    if let Err(LaunchError::Trap { stats, .. }) = &r {
        print_findings(stats);
        report(stats);
    }
    finish_quiet(r)
}

/// A kernel file's inputs as parsed: buffers, scalar arguments and images.
pub type Inputs = (Vec<BufferSpec>, Vec<u32>, Vec<ImageArg>);

/// The buffers, scalar arguments and images of `o`, parsed and checked against the limits, before any device
/// exists.
pub fn parse_inputs(o: &RunOptions) -> Result<Inputs> {
    let specs = o.buffers.iter().map(|b| parse_buffer(b)).collect::<Result<Vec<_>>>()?;
    let scalars = o.args.iter().map(|a| scalar(a, Elem::U32)).collect::<Result<Vec<_>>>()?;
    let images = o.images.iter().map(|i| parse_image(i)).collect::<Result<Vec<_>>>()?;
    check_arg_bytes(images.len(), specs.len(), scalars.len())?;
    for (text, s) in o.buffers.iter().zip(&specs) {
        s.bytes(text)?;
    }
    Ok((specs, scalars, images))
}

/// A kernel file's launch as `run` sets it up: its buffers allocated and filled on a device, and the launch
/// configuration with their addresses and the scalar arguments.
#[derive(Debug)]
pub struct PreparedLaunch {
    /// The buffers, in `--buffer` order.
    pub specs: Vec<BufferSpec>,
    /// Their device addresses.
    pub addrs: Vec<u64>,
    /// The images, in `--image` order.
    pub images: Vec<ImageArg>,
    /// Their device addresses.
    pub image_addrs: Vec<u64>,
    /// The launch configuration (arguments, grid, limits, engine and threads from the options).
    pub cfg: LaunchConfig,
}

impl PreparedLaunch {
    /// Writes every buffer's initial contents again (each repetition of a benchmark starts from the same data;
    /// an `uninit` buffer is zeroed, as it was when it was made).
    pub fn refill(&self, device: &Device) -> Result<()> {
        for (s, &a) in self.specs.iter().zip(&self.addrs) {
            write_init(device, a, s)?;
        }
        for (img, &a) in self.images.iter().zip(&self.image_addrs) {
            write_texels(device, a, &img.layout, &img.texels())?;
        }
        Ok(())
    }

    /// Every buffer's words as they are now, then every image's packed texels as words.
    pub fn read_all(&self, device: &Device) -> Result<Vec<Vec<u32>>> {
        let read = |(s, &a): (&BufferSpec, &u64)| device.read_u32s(a, s.count as usize).map_err(|e| anyhow!(e));
        let mut out: Vec<Vec<u32>> = self.specs.iter().zip(&self.addrs).map(read).collect::<Result<_>>()?;
        for (img, &a) in self.images.iter().zip(&self.image_addrs) {
            let bytes = read_texels(device, a, &img.layout)?;
            out.push(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect());
        }
        Ok(out)
    }
}

/// Allocates and fills the buffers of `inputs` (from [`parse_inputs`]) on `device`, checked to fit first, and
/// builds the launch configuration `o` describes.
/// The kernel arguments are the images' descriptors first (32 bytes each, so that `u.ld.b256 uN, u0, 32*i`
/// loads image i), then the buffers' addresses, then the scalars.
pub fn prepare(device: &Device, o: &RunOptions, inputs: Inputs) -> Result<PreparedLaunch> {
    let (specs, scalars, images) = inputs;
    let arg_bytes = images.len() as u64 * 32 + specs.len() as u64 * 8 + scalars.len() as u64 * 4;
    check_fits(device, &o.buffers, &specs, &images, arg_bytes)?;
    let image_addrs = upload_images(device, &images)?;
    let addrs = upload_buffers(device, &o.buffers, &specs)?;
    let descriptors = images.iter().zip(&image_addrs).map(|(i, &a)| i.layout.descriptor(a));
    let with_images = descriptors.fold(lanejit::KernelArgs::new(), |k, d| k.image(&d));
    let with_addrs = addrs.iter().fold(with_images, |k, &a| k.ptr(a));
    let mut cfg = LaunchConfig {
        grid: o.grid.unwrap_or([1, 1, 1]),
        workgroup: o.wg,
        args: scalars.iter().fold(with_addrs, |k, &s| k.u32(s)).into(),
        ..Default::default()
    };
    o.apply(&mut cfg);
    Ok(PreparedLaunch { specs, addrs, images, image_addrs, cfg })
}

/// The device a run uses: tracking which bytes were written when `--check buffers` asks for it (before any
/// buffer is made, so that every buffer the host leaves unwritten counts as undefined).
pub(crate) fn new_device(o: &RunOptions) -> Result<Device> {
    let device = Device::new()?;
    if o.check.buffers {
        device.track_uninit_memory()?;
    }
    Ok(device)
}

/// `lanejit run FILE`: parses the buffers and arguments, launches (repeatedly with `--repeat`, within one
/// deadline: `series`), saves the buffers and images, then prints the results and the saves that failed.
pub fn run_file(kernel: &Kernel, kernel_path: Option<&Path>, o: &RunOptions) -> Result<()> {
    if o.trace && o.repeat > 1 {
        bail!("--trace goes with one launch, not --repeat {}", o.repeat);
    }
    refuse_trace_with_check(o)?;
    let inputs = parse_inputs(o)?;
    let saves = saves::parse_saves(&o.saves, inputs.0.len())?;
    let image_saves = parse_image_saves(&o.image_saves, &inputs.2)?;
    let created = check_run_outputs(kernel_path, &inputs, &saves, &image_saves)?;
    let device = new_device(o)?;
    let launch = prepare(&device, o, inputs)?;
    let series = match o.repeat {
        1 if o.record.is_some() => Series::one(launch_recorded(&device, kernel, &launch.cfg, o)?),
        _ if o.record.is_some() => bail!("--record writes one launch, not --repeat {}", o.repeat),
        _ => series::run_series(&device, kernel, &launch.cfg, o),
    };
    // The buffers are read and saved whatever the launch did: writes made before a trap stay, and are the
    // first thing one wants to look at.
    let saved = write_outputs(&device, &launch, &saves, &image_saves);
    created.keep();
    let verdict = match o.json {
        true => print_json(&device, kernel, o, &launch, series, &saved),
        false => print_text(&device, o, &launch, series, &saved),
    };
    saves::with_save_errors(verdict, saved.errors)
}

/// Refuses, before the launch, `--save` and `--save-image` files that are inputs (the kernel, a buffer's or an
/// image's file) or each other, or cannot be written (`saves::check_outputs`).
fn check_run_outputs(
    kernel: Option<&Path>,
    (specs, _, images): &Inputs,
    saves: &[(usize, PathBuf)],
    image_saves: &[(usize, PathBuf)],
) -> Result<saves::Created> {
    let buffers: Vec<Option<&Path>> = specs.iter().map(BufferSpec::file).collect();
    let images: Vec<Option<&Path>> = images.iter().map(|i| i.source.as_deref()).collect();
    let label = |opt: &str, (i, p): &(usize, PathBuf)| (format!("{opt} {i}={}", p.display()), p.clone());
    let outputs: Vec<saves::Output> = (saves.iter().map(|s| label("--save", s)))
        .chain(image_saves.iter().map(|s| label("--save-image", s)))
        .collect();
    saves::check_outputs(&outputs, &saves::run_inputs(kernel, &buffers, &images))
}

/// The files a run wrote after its launch, and the messages of those it could not write.
#[derive(Default)]
struct Saved {
    buffers: Vec<(usize, PathBuf)>,
    images: Vec<(usize, PathBuf)>,
    errors: Vec<String>,
}

/// Writes every `--save` and `--save-image` file, each even when an earlier one failed.
fn write_outputs(
    device: &Device,
    launch: &PreparedLaunch,
    saves: &[(usize, PathBuf)],
    image_saves: &[(usize, PathBuf)],
) -> Saved {
    let mut out = Saved::default();
    for (i, path) in saves {
        let (s, a) = (&launch.specs[*i], launch.addrs[*i]);
        let words = device.read_u32s(a, s.count as usize).map_err(anyhow::Error::from);
        match words.and_then(|w| crate::bufio::write_words(path, &w, s.elem)) {
            Ok(()) => out.buffers.push((*i, path.clone())),
            Err(e) => out.errors.push(format!("--save {i}={}: {e:#}", path.display())),
        }
    }
    for (i, path) in image_saves {
        let (img, a) = (&launch.images[*i], launch.image_addrs[*i]);
        match read_texels(device, a, &img.layout).and_then(|t| save_image(path, &img.layout, &t)) {
            Ok(()) => out.images.push((*i, path.clone())),
            Err(e) => out.errors.push(format!("--save-image {i}={}: {e:#}", path.display())),
        }
    }
    out
}

/// A launch's error with, when the deadline stopped the series, where it did.
fn with_cut(e: anyhow::Error, cut: &Option<String>) -> anyhow::Error {
    match cut {
        Some(c) if e.is::<Failed>() => Failed(format!("{e:#} ({c})")).into(),
        _ => e,
    }
}

/// The series' timing when `--repeat` asked for several launches and one completed.
fn series_timing(o: &RunOptions, series: &Series) -> Option<timing::Summary> {
    series.times.summary().filter(|_| o.repeat > 1)
}

/// `run --json`: one object (statistics, trap, buffers, timing), then the verdict.
fn print_json(
    device: &Device,
    kernel: &Kernel,
    o: &RunOptions,
    launch: &PreparedLaunch,
    series: Series,
    saved: &Saved,
) -> Result<()> {
    let mut buffers = Vec::new();
    for (i, (s, &a)) in launch.specs.iter().zip(&launch.addrs).enumerate() {
        let shown = device.read_u32s(a, s.count.min(o.show as u64) as usize)?;
        let values: Vec<_> = shown.into_iter().map(|w| elem_json(w, s.elem)).collect();
        let files = saved.buffers.iter().filter(|(j, _)| *j == i).map(|(_, p)| p.display().to_string());
        buffers.push(serde_json::json!({
            "index": i, "addr": a, "type": s.elem.name(), "count": s.count, "values": values,
            "saved": files.collect::<Vec<_>>(),
        }));
    }
    if let Ok(s) | Err(LaunchError::Trap { stats: s, .. }) = &series.result {
        let timing = series_timing(o, &series).map(|t| {
            let mut j = t.json();
            j["stopped"] = series.cut.clone().into();
            j
        });
        let cfg = &launch.cfg;
        let out = serde_json::json!({
            "kernel": kernel.program.meta.name, "engine": o.engine, "grid": cfg.grid,
            "workgroup": cfg.workgroup.unwrap_or(kernel.program.meta.workgroup),
            "stats": stats_json(s), "trap": trap_json(&series.result), "buffers": buffers, "timing": timing,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    }
    let stats = finish_quiet(series.result).map_err(|e| with_cut(e, &series.cut))?;
    match series.cut {
        Some(c) => Err(Failed(c).into()),
        None => findings_verdict(&stats),
    }
}

/// `run` in text: the buffers and images, the statistics and the timing, then the verdict.
fn print_text(device: &Device, o: &RunOptions, launch: &PreparedLaunch, series: Series, saved: &Saved) -> Result<()> {
    let timing = series_timing(o, &series);
    let trapped = matches!(series.result, Err(LaunchError::Trap { .. }));
    let stats = finish(series.result);
    if stats.is_ok() || trapped {
        print_buffers(device, o, launch, saved)?;
    }
    let stats = match stats {
        Ok(s) => s,
        Err(e) => {
            timing.inspect(|t| println!("{}", t.line()));
            return Err(with_cut(e, &series.cut));
        }
    };
    print_findings(&stats);
    report(&stats);
    timing.inspect(|t| println!("{}", t.line()));
    match series.cut {
        Some(c) => Err(Failed(c).into()),
        None => findings_verdict(&stats),
    }
}

/// Each buffer's first `--show` values and each image's shape, with the files it was saved to.
fn print_buffers(device: &Device, o: &RunOptions, launch: &PreparedLaunch, saved: &Saved) -> Result<()> {
    for (i, (s, a)) in launch.specs.iter().zip(&launch.addrs).enumerate() {
        let words = device.read_u32s(*a, s.count.min(o.show as u64 + 1) as usize)?;
        println!("buffer {i} @ {a:#x}: {}", show(&words, s.count, s.elem, o.show));
    }
    for (i, (img, a)) in launch.images.iter().zip(&launch.image_addrs).enumerate() {
        let files: Vec<String> =
            saved.images.iter().filter(|(j, _)| *j == i).map(|(_, p)| p.display().to_string()).collect();
        let l = &img.layout;
        let to = if files.is_empty() { String::new() } else { format!(", saved to {}", files.join(", ")) };
        let format = img.text.split(':').next().unwrap_or("");
        println!("image {i} @ {a:#x}: {format} {} {}x{}x{}{to}", l.dim.name(), l.width, l.height, l.layers);
    }
    Ok(())
}

/// As `finish`, without printing: a trap is exit code 1, a configuration error 2.
fn finish_quiet(r: Result<LaunchStats, LaunchError>) -> Result<LaunchStats> {
    match r {
        Ok(s) => Ok(s),
        Err(LaunchError::Trap { trap, .. }) => Err(Failed(format!("trap: {trap}")).into()),
        Err(e) => Err(e.into()),
    }
}

/// `lanejit run NAME`: a bundled example, its answer checked. `kernel_name` (`--kernel`) must be its kernel's.
pub fn run_example(name: &str, kernel_name: Option<&str>, o: &RunOptions) -> Result<()> {
    let ex = examples::by_name(name).ok_or_else(|| anyhow!("no bundled example `{name}` (see --list)"))?;
    let kernel = Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source)
        .map_err(|e| anyhow!("{e}"))?
        .with_config(o.compile);
    let own = &kernel.program.meta.name;
    if let Some(k) = kernel_name.filter(|k| k != own) {
        bail!("--kernel `{k}`: the bundled example `{name}` has one kernel, `{own}`");
    }
    let device = new_device(o)?;
    let setup = (ex.setup)(&device, Size::Default).map_err(|e| anyhow!(e))?;
    if !o.buffers.is_empty() || !o.args.is_empty() || !o.images.is_empty() {
        bail!("--buffer, --image and --arg go with a kernel file; the bundled example `{name}` sets up its own");
    }
    let mut cfg = setup.cfg;
    o.apply(&mut cfg);
    if let Some(g) = o.grid {
        cfg.grid = g;
    }
    cfg.workgroup = o.wg.or(cfg.workgroup);
    if !o.saves.is_empty() {
        bail!("--save goes with --buffer: the bundled example `{name}` sets up its own buffers");
    }
    if o.repeat > 1 {
        bail!("--repeat goes with a kernel file; `lanejit bench --filter {name}` measures the bundled examples");
    }
    refuse_trace_with_check(o)?;
    let pictures = crate::imageio::picture_paths(&setup.pictures, &o.image_saves, name)?;
    let outputs: Vec<saves::Output> =
        pictures.iter().map(|(p, path)| (format!("picture `{}`", p.name), path.clone())).collect();
    let created = saves::check_outputs(&outputs, &[])?;
    if o.json {
        let result = launch_recorded(&device, &kernel, &cfg, o)?;
        let check = result.as_ref().ok().map(|_| (setup.check)(&device));
        let stats = match &result {
            Ok(s) | Err(LaunchError::Trap { stats: s, .. }) => stats_json(s),
            Err(_) => return finish_quiet(result).map(drop),
        };
        let out = serde_json::json!({
            "example": ex.name, "engine": o.engine, "grid": cfg.grid, "stats": stats, "trap": trap_json(&result),
            "check": match &check { Some(Ok(summary)) => format!("OK ({summary})"), Some(Err(e)) => format!("wrong answer: {e}"), None => "not run (trap)".into() },
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        let stats = finish_quiet(result)?;
        let errors = save_pictures(&device, &pictures, false);
        created.keep();
        let check = check.unwrap_or(Ok(String::new())).map(drop).map_err(|e| Failed(format!("wrong answer: {e}")));
        return saves::with_save_errors(findings_verdict(&stats).and(check.map_err(Into::into)), errors);
    }
    println!("example `{}`: {}", ex.name, ex.about);
    let stats = finish(launch_recorded(&device, &kernel, &cfg, o)?)?;
    print_findings(&stats);
    let summary = (setup.check)(&device).map_err(|e| Failed(format!("wrong answer: {e}")))?;
    println!("check: OK ({summary})");
    let errors = save_pictures(&device, &pictures, true);
    created.keep();
    report(&stats);
    saves::with_save_errors(findings_verdict(&stats), errors)
}

/// Writes each picture as a PNG, each even when an earlier one failed (`print`: a line for each one written):
/// the messages of those that could not be written.
fn save_pictures(device: &Device, pictures: &[(examples::Picture, PathBuf)], print: bool) -> Vec<String> {
    let mut errors = Vec::new();
    for (p, path) in pictures {
        match crate::imageio::save_picture(device, p, path) {
            Ok(()) if print => println!("picture: {} ({}x{} rgba8)", path.display(), p.width, p.height),
            Ok(()) => {}
            Err(e) => errors.push(format!("picture `{}`: {e:#}", p.name)),
        }
    }
    errors
}
