//! What an embedding harness pays around its kernels, printed as a table (no criterion: these are one-shot
//! figures for issue notes, each the median or the mean of many runs): host copies of 64 MiB each way,
//! the first launch of a kernel (compile included), the cost of a one-wave launch over 10,000 launches on one
//! `Device` (first and last thousand, so that growth shows), and the same with `threads: Some(2)`.
//! `cargo bench --bench embedding`.

use lanejit::{Device, Engine, Kernel, LaunchConfig};
use std::time::{Duration, Instant};

const COPY_BYTES: usize = 64 << 20;
const LAUNCHES: usize = 10_000;
const SLICE: usize = 1_000;

fn main() {
    // `cargo bench` passes `--bench`; a filter argument other than ours means another bench target was chosen.
    if std::env::args().skip(1).any(|a| !a.starts_with("--") && a != "embedding") {
        return;
    }
    let dev = Device::new().expect("device");
    host_copies(&dev);
    let one_wave = Kernel::from_asm("one_wave.s", ".kernel one_wave\n.workgroup 32\n    end\n").expect("assembles");
    first_launch(&dev);
    for threads in [None, Some(1), Some(2)] {
        launch_overhead(&dev, &one_wave, threads);
    }
}

fn gbps(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64() / 1e9
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn host_copies(dev: &Device) {
    let buf = dev.alloc(COPY_BYTES as u64).expect("alloc");
    let data: Vec<u8> = (0..COPY_BYTES).map(|i| (i * 7) as u8).collect();
    dev.write(buf.addr, &data).expect("warm the pages");
    let write = median((0..7).map(|_| timed(|| dev.write(buf.addr, &data).expect("write"))).collect());
    let read = median((0..7).map(|_| timed(|| drop(dev.read(buf.addr, COPY_BYTES as u64).expect("read")))).collect());
    let mut out = vec![0u8; COPY_BYTES];
    dev.read_into(buf.addr, &mut out).expect("touch the host pages");
    let read_into = median((0..7).map(|_| timed(|| dev.read_into(buf.addr, &mut out).expect("read_into"))).collect());
    println!(
        "host copy of 64 MiB (median of 7): write {:.2} GB/s, read (fresh Vec) {:.2} GB/s, read_into (reused buffer) {:.2} GB/s",
        gbps(COPY_BYTES, write),
        gbps(COPY_BYTES, read),
        gbps(COPY_BYTES, read_into)
    );
    dev.free(buf.addr).expect("free");
}

fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// A fresh kernel's first launch on each engine: assembling excluded, compiling included (saxpy, one wave).
fn first_launch(dev: &Device) {
    let ex = lanejit_cli::examples::by_name("saxpy").expect("bundled saxpy");
    let setup = (ex.setup)(dev, lanejit_cli::examples::Size::Small).expect("setup");
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let times: Vec<Duration> = (0..5)
            .map(|_| {
                let k = Kernel::from_asm("saxpy", ex.source).expect("assembles");
                let cfg = LaunchConfig { engine, grid: [1, 1, 1], ..setup.cfg.clone() };
                timed(|| {
                    dev.launch(&k, &cfg).expect("launch");
                })
            })
            .collect();
        println!(
            "first launch of saxpy (one workgroup, compile included, median of 5), {engine:?}: {:?}",
            median(times)
        );
    }
}

fn launch_overhead(dev: &Device, k: &Kernel, threads: Option<usize>) {
    let cfg = LaunchConfig { engine: Engine::Jit, threads, ..Default::default() };
    dev.launch(k, &cfg).expect("warm-up launch");
    let mut slices = Vec::new();
    for _ in 0..LAUNCHES / SLICE {
        let t = Instant::now();
        for _ in 0..SLICE {
            dev.launch(k, &cfg).expect("launch");
        }
        slices.push(t.elapsed() / SLICE as u32);
    }
    println!(
        "one-wave launch, {LAUNCHES} launches, threads {threads:?}: first thousand {:.2} µs each, last thousand {:.2} µs, best thousand {:.2} µs",
        slices[0].as_secs_f64() * 1e6,
        slices[slices.len() - 1].as_secs_f64() * 1e6,
        slices.iter().min().unwrap().as_secs_f64() * 1e6
    );
}
