//! `lanejit run`: launch a kernel file with buffers given on the command line, or a bundled example whose
//! answer is checked against its Rust reference.

use crate::cli::Failed;
use crate::examples::{self, Size};
use anyhow::{anyhow, bail, Result};
use lanejit::arena::ALLOC_ALIGN;
use lanejit::launch::{launch_traced, LaunchStats, MAX_ARG_BYTES};
use lanejit::trace::PrintTracer;
use lanejit::{Device, Engine, Kernel, LaunchConfig, LaunchError};
use std::time::Duration;

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
    /// Checkers to run (`lanejit::check`; none by default).
    pub check: lanejit::check::Checks,
}

impl RunOptions {
    /// The launch configuration's limits and threads from these options (`--trace` runs on one thread).
    fn apply(&self, cfg: &mut LaunchConfig) {
        cfg.engine = self.engine;
        cfg.threads = if self.trace { Some(1) } else { self.threads };
        cfg.check = self.check;
        if let Some(b) = self.budget {
            cfg.budget = b;
        }
        if let Some(d) = self.deadline {
            cfg.deadline = Some(d);
        }
    }
}

use crate::bufio::Elem;
use crate::imageio::{parse_image, parse_image_saves, read_texels, save_image, upload_images, write_texels, ImageArg};
use std::path::{Path, PathBuf};

/// How a buffer starts: its initialiser, checked before any memory is filled (a file is read at once).
#[derive(Clone, Debug, PartialEq)]
enum Init {
    Zero,
    /// Allocated and never written by the host: zero on this device, undefined to `--check buffers`.
    Uninit,
    Iota,
    Const(u32),
    Rand(u64),
    File(Vec<u32>),
}

/// A parsed `--buffer`: element type, count and initialiser.
#[derive(Debug, Clone)]
pub struct BufferSpec {
    elem: Elem,
    count: u64,
    init: Init,
}

impl BufferSpec {
    /// The element type's name (`u32`, `i32`, `f32`).
    pub fn type_name(&self) -> &'static str {
        self.elem.name()
    }

    /// Bytes of the buffer, without overflow (a count near 2^64 must not wrap to a small size).
    fn bytes(&self, spec: &str) -> Result<u64> {
        self.count
            .checked_mul(4)
            .ok_or_else(|| anyhow!("buffer `{spec}`: {} elements of 4 bytes overflow a 64-bit size", self.count))
    }
}

/// Parses `TYPE:COUNT[:INIT]` or `TYPE:file=PATH` completely (the initialiser's value included, a file read)
/// before anything is allocated.
pub fn parse_buffer(s: &str) -> Result<BufferSpec> {
    let parts: Vec<&str> = s.splitn(3, ':').collect();
    let elem = match parts[0] {
        "u32" => Elem::U32,
        "i32" => Elem::I32,
        "f32" => Elem::F32,
        t => bail!("buffer `{s}`: unknown type `{t}` (u32, i32 or f32)"),
    };
    if let Some(path) = s.split_once(':').and_then(|(_, rest)| rest.strip_prefix("file=")) {
        let words = crate::bufio::read_words(Path::new(path), elem).map_err(|e| anyhow!("buffer `{s}`: {e:#}"))?;
        return Ok(BufferSpec { elem, count: words.len() as u64, init: Init::File(words) });
    }
    let count = parts
        .get(1)
        .ok_or_else(|| anyhow!("buffer `{s}`: expected TYPE:COUNT[:INIT]"))?
        .parse::<u64>()
        .map_err(|_| anyhow!("buffer `{s}`: COUNT must be an integer in 0..={}", u64::MAX))?;
    let init = match parts.get(2).copied().unwrap_or("zero") {
        "zero" => Init::Zero,
        "uninit" => Init::Uninit,
        "iota" => Init::Iota,
        i if i.starts_with("const=") => Init::Const(scalar(&i[6..], elem).map_err(|e| anyhow!("buffer `{s}`: {e}"))?),
        i if i.starts_with("rand=") => Init::Rand(
            i[5..].parse().map_err(|_| anyhow!("buffer `{s}`: the seed must be an integer in 0..={}", u64::MAX))?,
        ),
        i if i.starts_with("file=") => {
            let words =
                crate::bufio::read_words(Path::new(&i[5..]), elem).map_err(|e| anyhow!("buffer `{s}`: {e:#}"))?;
            if words.len() as u64 != count {
                bail!("buffer `{s}`: the file holds {} elements, not {count} (or write TYPE:file=PATH)", words.len());
            }
            Init::File(words)
        }
        i => bail!("buffer `{s}`: unknown initialiser `{i}` (zero, uninit, iota, const=V, rand=SEED, file=PATH)"),
    };
    Ok(BufferSpec { elem, count, init })
}

/// The buffer's words; called only once its memory is allocated, so the count fits the device.
fn fill(b: &BufferSpec) -> Vec<u32> {
    let n = b.count as usize;
    let num = |i: usize| match b.elem {
        Elem::F32 => (i as f32).to_bits(),
        _ => i as u32,
    };
    match &b.init {
        Init::Zero | Init::Uninit => vec![0; n],
        Init::Iota => (0..n).map(num).collect(),
        Init::Const(v) => vec![*v; n],
        Init::Rand(seed) => examples::pseudo_random(*seed, n),
        Init::File(words) => words.clone(),
    }
}

/// Whether a literal is meant as a float: it has a `.` or a decimal exponent, or is `inf`/`nan`.
fn is_float_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s).to_ascii_lowercase();
    let named = matches!(body.as_str(), "inf" | "infinity" | "nan");
    named || (!body.starts_with("0x") && (body.contains('.') || body.contains('e')))
}

/// An f32 literal, refused when it only reads as infinity because it is too large (`1e40`).
fn parse_f32(s: &str) -> Result<f32> {
    let f: f32 = s.parse().map_err(|_| anyhow!("`{s}` is not a number"))?;
    let named_infinity = s.trim_start_matches(['+', '-']).to_ascii_lowercase().starts_with("inf");
    if f.is_infinite() && !named_infinity {
        bail!("`{s}` is out of the f32 range (largest finite value {:e})", f32::MAX);
    }
    Ok(f)
}

/// A 32-bit scalar: a float literal (or any value of an f32 buffer) as f32 bits; otherwise an integer, decimal
/// (-2^31..2^32) or `0x` hex.
fn scalar(s: &str, elem: Elem) -> Result<u32> {
    if elem == Elem::F32 || is_float_literal(s) {
        return Ok(parse_f32(s)?.to_bits());
    }
    let bad = || anyhow!("`{s}` is not a number");
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| bad());
    }
    let v = s.parse::<i64>().map_err(|_| bad())?;
    if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        bail!("`{s}` does not fit 32 bits");
    }
    Ok(v as u32)
}

/// Kernel argument bytes of `images` descriptors (32 each), `buffers` addresses and `scalars`, checked against
/// [`MAX_ARG_BYTES`] before any buffer is allocated.
fn check_arg_bytes(images: usize, buffers: usize, scalars: usize) -> Result<()> {
    let bytes = images as u64 * 32 + buffers as u64 * 8 + scalars as u64 * 4;
    if bytes > MAX_ARG_BYTES as u64 {
        bail!("{images} images, {buffers} buffers and {scalars} scalars take {bytes} argument bytes, more than the limit of {MAX_ARG_BYTES} (MAX_ARG_BYTES)");
    }
    Ok(())
}

/// Device bytes an allocation of `bytes` takes: rounded up to the granule, plus the guard gap after it.
fn footprint(bytes: u64) -> Option<u64> {
    bytes.max(4).checked_next_multiple_of(ALLOC_ALIGN)?.checked_add(ALLOC_ALIGN)
}

/// Refuses buffers that, with the launch's argument block, cannot fit the device, before anything is
/// allocated or filled (a buffer that takes the whole device would otherwise be filled for nothing).
fn check_fits(
    device: &Device,
    buffers: &[String],
    specs: &[BufferSpec],
    images: &[ImageArg],
    arg_bytes: u64,
) -> Result<()> {
    let capacity = device.arena.capacity();
    let mut total = footprint(arg_bytes).unwrap_or(u64::MAX);
    for img in images {
        total = footprint(img.layout.device_bytes()).and_then(|f| total.checked_add(f)).unwrap_or(u64::MAX);
        if total > capacity {
            bail!("--image `{}` needs {} bytes: with the images before it and the argument block, more than the device capacity of {capacity} bytes", img.text, img.layout.device_bytes());
        }
    }
    for (text, s) in buffers.iter().zip(specs) {
        let bytes = s.bytes(text)?;
        total = footprint(bytes).and_then(|f| total.checked_add(f)).unwrap_or(u64::MAX);
        if total > capacity {
            bail!("buffer `{text}` needs {bytes} bytes: with the buffers before it and the argument block, more than the device capacity of {capacity} bytes");
        }
    }
    Ok(())
}

/// Allocates every buffer first (so that one too large fails at once, naming its real size), then fills them.
fn upload_buffers(device: &Device, buffers: &[String], specs: &[BufferSpec]) -> Result<Vec<u64>> {
    let mut addrs = Vec::with_capacity(specs.len());
    for (text, s) in buffers.iter().zip(specs) {
        let bytes = s.bytes(text)?;
        let a = device.alloc(bytes.max(4)).map_err(|e| anyhow!("buffer `{text}` ({bytes} bytes): {e}"))?;
        addrs.push(a.addr);
    }
    for (s, &a) in specs.iter().zip(&addrs).filter(|(s, _)| s.init != Init::Uninit) {
        device.write_u32s(a, &fill(s)).map_err(|e| anyhow!(e))?;
    }
    Ok(addrs)
}

fn show(words: &[u32], elem: Elem, n: usize) -> String {
    let items: Vec<String> = words
        .iter()
        .take(n)
        .map(|w| match elem {
            Elem::U32 => w.to_string(),
            Elem::I32 => (*w as i32).to_string(),
            Elem::F32 => format!("{}", f32::from_bits(*w)),
        })
        .collect();
    let more = if words.len() > n { format!(", … ({} total)", words.len()) } else { String::new() };
    format!("[{}{more}]", items.join(", "))
}

fn launch_with(device: &Device, kernel: &Kernel, cfg: &LaunchConfig, trace: bool) -> Result<LaunchStats, LaunchError> {
    if trace {
        launch_traced(device, kernel, cfg, &mut PrintTracer { out: std::io::stdout() })
    } else {
        device.launch(kernel, cfg)
    }
}

/// `INDEX=PATH` pairs, each index one of the `buffers` buffers, checked before anything runs.
fn parse_saves(saves: &[String], buffers: usize) -> Result<Vec<(usize, PathBuf)>> {
    saves
        .iter()
        .map(|s| {
            let (i, path) = s.split_once('=').ok_or_else(|| anyhow!("--save `{s}`: expected INDEX=PATH"))?;
            let i: usize = i.parse().map_err(|_| anyhow!("--save `{s}`: INDEX must be a buffer number"))?;
            if i >= buffers {
                bail!("--save `{s}`: there are {buffers} buffers (numbered from 0)");
            }
            Ok((i, PathBuf::from(path)))
        })
        .collect()
}

fn stats_json(s: &LaunchStats) -> serde_json::Value {
    serde_json::json!({
        "workgroups": s.workgroups, "waves": s.waves, "retired": s.retired, "interpreted": s.interpreted,
        "lane_ops": s.lane_ops, "elapsed_s": s.elapsed.as_secs_f64(),
        "findings": lanejit::check::render_json(&s.findings),
    })
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
            device.write_u32s(a, &fill(s)).map_err(|e| anyhow!(e))?;
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
fn new_device(o: &RunOptions) -> Result<Device> {
    let device = Device::new()?;
    if o.check.buffers {
        device.track_uninit_memory()?;
    }
    Ok(device)
}

/// `lanejit run FILE`: parses the buffers and arguments, launches (repeatedly with `--repeat`), prints or saves
/// the results.
pub fn run_file(kernel: &Kernel, o: &RunOptions) -> Result<()> {
    let inputs = parse_inputs(o)?;
    let saves = parse_saves(&o.saves, inputs.0.len())?;
    let image_saves = parse_image_saves(&o.image_saves, &inputs.2)?;
    let device = new_device(o)?;
    let PreparedLaunch { specs, addrs, images, image_addrs, cfg } = prepare(&device, o, inputs)?;
    if o.trace && o.repeat > 1 {
        bail!("--trace goes with one launch, not --repeat {}", o.repeat);
    }
    refuse_trace_with_check(o)?;
    let mut result = launch_with(&device, kernel, &cfg, o.trace);
    let mut times: Vec<Duration> = result.iter().map(|s| s.elapsed).collect();
    for _ in 1..o.repeat {
        if result.is_err() {
            break;
        }
        result = device.launch(kernel, &cfg);
        times.extend(result.iter().map(|s| s.elapsed));
    }
    let timing = timing(&times);
    // The buffers are read and saved whatever the launch did: writes made before a trap stay, and are the
    // first thing one wants to look at.
    for (i, path) in &saves {
        let words = device.read_u32s(addrs[*i], specs[*i].count as usize)?;
        crate::bufio::write_words(path, &words, specs[*i].elem)?;
    }
    for (i, path) in &image_saves {
        save_image(path, &images[*i].layout, &read_texels(&device, image_addrs[*i], &images[*i].layout)?)?;
    }
    let shown = |s: &BufferSpec, a: u64| device.read_u32s(a, s.count.min(o.show as u64) as usize);
    if o.json {
        let mut buffers = Vec::new();
        for (i, (s, &a)) in specs.iter().zip(&addrs).enumerate() {
            let values: Vec<_> = shown(s, a)?.into_iter().map(|w| elem_json(w, s.elem)).collect();
            let saved: Vec<_> = saves.iter().filter(|(j, _)| *j == i).map(|(_, p)| p.display().to_string()).collect();
            buffers.push(serde_json::json!({
                "index": i, "addr": a, "type": s.elem.name(), "count": s.count, "values": values, "saved": saved,
            }));
        }
        let stats = match &result {
            Ok(s) | Err(LaunchError::Trap { stats: s, .. }) => Some(stats_json(s)),
            Err(_) => None,
        };
        if stats.is_some() {
            let out = serde_json::json!({
                "kernel": kernel.program.meta.name, "engine": o.engine, "grid": cfg.grid,
                "workgroup": cfg.workgroup.unwrap_or(kernel.program.meta.workgroup),
                "stats": stats, "trap": trap_json(&result), "buffers": buffers, "timing": timing.as_ref().map(|t| &t.1),
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        let stats = finish_quiet(result)?;
        return findings_verdict(&stats);
    }
    let trapped = matches!(result, Err(LaunchError::Trap { .. }));
    let stats = finish(result);
    if stats.is_ok() || trapped {
        for (i, (s, a)) in specs.iter().zip(&addrs).enumerate() {
            let words = device.read_u32s(*a, s.count as usize)?;
            println!("buffer {i} @ {a:#x}: {}", show(&words, s.elem, o.show));
        }
        for (i, (img, a)) in images.iter().zip(&image_addrs).enumerate() {
            let saved: Vec<String> =
                image_saves.iter().filter(|(j, _)| *j == i).map(|(_, p)| p.display().to_string()).collect();
            let l = &img.layout;
            let to = if saved.is_empty() { String::new() } else { format!(", saved to {}", saved.join(", ")) };
            println!(
                "image {i} @ {a:#x}: {} {} {}x{}x{}{to}",
                img.text.split(':').next().unwrap_or(""),
                l.dim.name(),
                l.width,
                l.height,
                l.layers
            );
        }
    }
    let stats = stats?;
    print_findings(&stats);
    report(&stats);
    if let Some((text, _)) = timing {
        println!("{text}");
    }
    findings_verdict(&stats)
}

/// With more than one launch: a line and a JSON value of the first launch's time (compilation included) and
/// the best and median of the others.
fn timing(times: &[Duration]) -> Option<(String, serde_json::Value)> {
    let (first, rest) = times.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let mut sorted = rest.to_vec();
    sorted.sort();
    let (best, median) = (sorted[0], sorted[sorted.len() / 2]);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let text = format!(
        "timing: {} launches: first {:.3} ms (compilation included), then best {:.3} ms, median {:.3} ms",
        times.len(),
        ms(*first),
        ms(best),
        ms(median)
    );
    let json = serde_json::json!({
        "launches": times.len(), "first_ms": ms(*first), "best_ms": ms(best), "median_ms": ms(median),
    });
    Some((text, json))
}

/// As `finish`, without printing: a trap is exit code 1, a configuration error 2.
fn finish_quiet(r: Result<LaunchStats, LaunchError>) -> Result<LaunchStats> {
    match r {
        Ok(s) => Ok(s),
        Err(LaunchError::Trap { trap, .. }) => Err(Failed(format!("trap: {trap}")).into()),
        Err(e) => Err(e.into()),
    }
}

/// `lanejit run NAME`: a bundled example, its answer checked.
pub fn run_example(name: &str, o: &RunOptions) -> Result<()> {
    let ex = examples::by_name(name).ok_or_else(|| anyhow!("no bundled example `{name}` (see --list)"))?;
    let kernel = Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source)
        .map_err(|e| anyhow!("{e}"))?
        .with_config(o.compile);
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
    if o.json {
        let result = launch_with(&device, &kernel, &cfg, o.trace);
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
        crate::imageio::save_pictures(&device, &pictures)?;
        findings_verdict(&stats)?;
        return check.unwrap_or(Ok(String::new())).map(drop).map_err(|e| Failed(format!("wrong answer: {e}")).into());
    }
    println!("example `{}`: {}", ex.name, ex.about);
    let stats = finish(launch_with(&device, &kernel, &cfg, o.trace))?;
    print_findings(&stats);
    let summary = (setup.check)(&device).map_err(|e| Failed(format!("wrong answer: {e}")))?;
    println!("check: OK ({summary})");
    for (p, path) in &pictures {
        println!("picture: {} ({}x{} rgba8)", path.display(), p.width, p.height);
    }
    crate::imageio::save_pictures(&device, &pictures)?;
    report(&stats);
    findings_verdict(&stats)
}
