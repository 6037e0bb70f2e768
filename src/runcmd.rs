//! `lanejit run`: launch a kernel file with buffers given on the command line, or a bundled example whose
//! answer is checked against its Rust reference.

use crate::examples::{self, Size};
use crate::launch::{launch_traced, LaunchStats};
use crate::trace::PrintTracer;
use crate::{Device, Engine, Kernel, LaunchConfig, LaunchError};
use anyhow::{anyhow, bail, Result};

pub struct RunOptions {
    pub grid: Option<[u32; 3]>,
    pub wg: Option<[u32; 3]>,
    pub buffers: Vec<String>,
    pub args: Vec<String>,
    pub engine: Engine,
    pub trace: bool,
    pub threads: Option<usize>,
    pub show: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    U32,
    I32,
    F32,
}

struct BufferSpec {
    elem: Elem,
    count: usize,
    init: String,
}

fn parse_buffer(s: &str) -> Result<BufferSpec> {
    let parts: Vec<&str> = s.splitn(3, ':').collect();
    let elem = match parts[0] {
        "u32" => Elem::U32,
        "i32" => Elem::I32,
        "f32" => Elem::F32,
        t => bail!("buffer `{s}`: unknown type `{t}` (u32, i32 or f32)"),
    };
    let count = parts.get(1).ok_or_else(|| anyhow!("buffer `{s}`: expected TYPE:COUNT[:INIT]"))?
        .parse::<usize>().map_err(|_| anyhow!("buffer `{s}`: COUNT must be a non-negative integer"))?;
    Ok(BufferSpec { elem, count, init: parts.get(2).unwrap_or(&"zero").to_string() })
}

fn fill(b: &BufferSpec) -> Result<Vec<u32>> {
    let num = |i: usize| match b.elem { Elem::F32 => (i as f32).to_bits(), _ => i as u32 };
    Ok(match b.init.as_str() {
        "zero" => vec![0; b.count],
        "iota" => (0..b.count).map(num).collect(),
        s if s.starts_with("const=") => vec![scalar(&s[6..], b.elem)?; b.count],
        s if s.starts_with("rand=") => {
            let seed = s[5..].parse::<u64>().map_err(|_| anyhow!("`{s}`: seed must be an integer"))?;
            examples::pseudo_random(seed, b.count)
        }
        s => bail!("unknown buffer initialiser `{s}` (zero, iota, const=V, rand=SEED)"),
    })
}

fn scalar(s: &str, elem: Elem) -> Result<u32> {
    let bad = || anyhow!("`{s}` is not a number");
    if elem == Elem::F32 || s.contains('.') {
        return Ok(s.parse::<f32>().map_err(|_| bad())?.to_bits());
    }
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| bad());
    }
    let v = s.parse::<i64>().map_err(|_| bad())?;
    if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        bail!("`{s}` does not fit 32 bits");
    }
    Ok(v as u32)
}

fn show(words: &[u32], elem: Elem, n: usize) -> String {
    let items: Vec<String> = words.iter().take(n).map(|w| match elem {
        Elem::U32 => w.to_string(),
        Elem::I32 => (*w as i32).to_string(),
        Elem::F32 => format!("{}", f32::from_bits(*w)),
    }).collect();
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

fn report(stats: &LaunchStats) {
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    println!("stats: {} workgroups, {} waves, {} instructions, {} lane-ops, {:.3} ms, {:.1} M lane-ops/s",
        stats.workgroups, stats.waves, stats.retired, stats.lane_ops, secs * 1e3, stats.lane_ops as f64 / secs / 1e6);
}

fn finish(r: Result<LaunchStats, LaunchError>) -> Result<LaunchStats> {
    match r {
        Ok(s) => Ok(s),
        Err(LaunchError::Trap { trap, stats }) => {
            report(&stats);
            bail!("trap: {trap}")
        }
        Err(e) => Err(e.into()),
    }
}

pub fn run_file(kernel: &Kernel, o: &RunOptions) -> Result<()> {
    let device = Device::new()?;
    let specs = o.buffers.iter().map(|b| parse_buffer(b)).collect::<Result<Vec<_>>>()?;
    let mut addrs = Vec::new();
    for s in &specs {
        addrs.push(examples::upload(&device, &fill(s)?).map_err(|e| anyhow!(e))?);
    }
    let scalars = o.args.iter().map(|a| scalar(a, Elem::U32)).collect::<Result<Vec<_>>>()?;
    let cfg = LaunchConfig {
        grid: o.grid.unwrap_or([1, 1, 1]), workgroup: o.wg, args: examples::args(&addrs, &scalars),
        engine: o.engine, threads: if o.trace { Some(1) } else { o.threads }, ..Default::default()
    };
    let stats = finish(launch_with(&device, kernel, &cfg, o.trace))?;
    for (i, (s, a)) in specs.iter().zip(&addrs).enumerate() {
        let words = device.read_u32s(*a, s.count).map_err(|e| anyhow!(e))?;
        println!("buffer {i} @ {a:#x}: {}", show(&words, s.elem, o.show));
    }
    report(&stats);
    Ok(())
}

pub fn run_example(name: &str, o: &RunOptions) -> Result<()> {
    let ex = examples::by_name(name).ok_or_else(|| anyhow!("no bundled example `{name}` (see --list)"))?;
    let kernel = Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source).map_err(|e| anyhow!("{e}"))?;
    let device = Device::new()?;
    let setup = (ex.setup)(&device, Size::Default).map_err(|e| anyhow!(e))?;
    let mut cfg = setup.cfg;
    cfg.engine = o.engine;
    cfg.threads = if o.trace { Some(1) } else { o.threads };
    if let Some(g) = o.grid {
        cfg.grid = g;
    }
    cfg.workgroup = o.wg.or(cfg.workgroup);
    println!("example `{}`: {}", ex.name, ex.about);
    let stats = finish(launch_with(&device, &kernel, &cfg, o.trace))?;
    let summary = (setup.check)(&device).map_err(|e| anyhow!("wrong answer: {e}"))?;
    println!("check: OK ({summary})");
    report(&stats);
    Ok(())
}
