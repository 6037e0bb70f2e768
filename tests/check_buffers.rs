//! The uninit checker's opt-in watch of device memory (`Checks::buffers`, on a device that tracks its bytes:
//! `Device::track_uninit_memory`), and wait hazards on the image counter `tex`. Kernels in `tests/check_dyn/`;
//! the one finding of a planted kernel is at its `PLANTED` line.

use lanejit::check::{render_text, Checks, Finding};
use lanejit::image::{Dim, ImageFormat, ImageSpec};
use lanejit::{ConfigError, Device, Engine, Kernel, KernelArgs, LaunchConfig, LaunchError, LANES};

const BUFFERS: Checks = Checks { buffers: true, ..Checks::ALL };

#[path = "check_dyn/kernels.rs"]
mod kernels;

/// Kernel `name` of `tests/check_dyn/` and its `PLANTED` line (0 for a fixed twin).
fn kernel(name: &str) -> (Kernel, u64) {
    let k = Kernel::from_asm(&format!("{name}.s"), &kernels::source(name)).unwrap();
    (k, kernels::planted_line(name).unwrap_or(0))
}

/// A device that tracks its bytes, with a fresh 32-word buffer.
fn tracked() -> (Device, u64) {
    let device = Device::new().unwrap();
    device.track_uninit_memory().unwrap();
    let buf = device.alloc((LANES * 4) as u64).unwrap().addr;
    (device, buf)
}

fn findings(device: &Device, kernel: &Kernel, args: KernelArgs, check: Checks, engine: Engine) -> Vec<Finding> {
    let cfg = LaunchConfig { args: args.into(), check, engine, ..Default::default() };
    device.launch(kernel, &cfg).unwrap_or_else(|e| panic!("{e}")).findings
}

fn one_uninit_output_at(found: &[Finding], line: u64, lanes: u32) {
    assert_eq!(found.len(), 1, "{}", render_text(found));
    let json = found[0].to_json();
    assert_eq!((json["check"].as_str(), json["sink"].as_str()), (Some("uninit"), Some("kernel_output")), "{json}");
    assert_eq!((json["register"].as_str(), json["line"].as_u64()), (Some("v7"), Some(line)), "{json}");
    assert_eq!(json["lanes"].as_u64(), Some(lanes as u64), "{json}");
}

#[test]
fn a_never_written_buffer_word_reaching_an_output_is_reported_on_every_engine() {
    let (k, line) = kernel("uninit_buffer");
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let (device, buf) = tracked();
        one_uninit_output_at(&findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, engine), line, u32::MAX);
    }
}

#[test]
fn words_the_host_wrote_are_defined_and_the_others_reported_by_lane() {
    let (k, line) = kernel("uninit_buffer");
    let (device, buf) = tracked();
    device.write_u32s(buf, &[7; LANES / 2]).unwrap();
    let found = findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp);
    one_uninit_output_at(&found, line, u32::MAX << (LANES / 2));
    let (device, buf) = tracked();
    device.write_u32s(buf, &[7; LANES]).unwrap();
    assert!(findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp).is_empty());
}

#[test]
fn the_kernels_own_stores_define_words_and_garbage_stays_garbage() {
    let (fixed, _) = kernel("uninit_buffer_fixed");
    let (device, buf) = tracked();
    assert!(findings(&device, &fixed, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp).is_empty());
    // The fixed kernel defined every word: the planted one now reads defined values.
    let (planted, line) = kernel("uninit_buffer");
    assert!(findings(&device, &planted, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp).is_empty());
    // A planted run on a fresh buffer stores garbage-derived values: they stay undefined for the next launch.
    let (device, buf) = tracked();
    for _ in 0..2 {
        let found = findings(&device, &planted, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp);
        one_uninit_output_at(&found, line, u32::MAX);
    }
}

#[test]
fn a_launch_nothing_watches_counts_as_writing_everything() {
    let (k, _) = kernel("uninit_buffer");
    for unwatched in [Checks::default(), Checks::ALL] {
        let (device, buf) = tracked();
        findings(&device, &k, KernelArgs::new().ptr(buf), unwatched, Engine::Jit);
        assert!(findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp).is_empty(), "{unwatched}");
    }
}

#[test]
fn without_the_buffers_check_device_memory_is_defined() {
    let (k, _) = kernel("uninit_buffer");
    let (device, buf) = tracked();
    assert!(findings(&device, &k, KernelArgs::new().ptr(buf), Checks::ALL, Engine::Interp).is_empty());
}

#[test]
fn the_buffers_check_on_a_device_that_does_not_track_is_refused() {
    let (k, _) = kernel("uninit_buffer");
    let device = Device::new().unwrap();
    let buf = device.alloc(128).unwrap().addr;
    let cfg = LaunchConfig { args: KernelArgs::new().ptr(buf).into(), check: BUFFERS, ..Default::default() };
    let err = device.launch(&k, &cfg).unwrap_err();
    assert!(matches!(err, LaunchError::Config(ConfigError::UntrackedMemory)), "{err}");
    assert!(err.to_string().contains("Device::track_uninit_memory"), "{err}");
    assert_eq!(Checks::parse("buffers"), Ok(Checks { uninit: true, buffers: true, ..Checks::default() }));
    assert_eq!(
        Checks::parse("all,buffers").map(|c| c.to_string()).as_deref(),
        Ok("waits,races,barriers,uninit,buffers")
    );
}

/// `name` with a fresh 32x1 r32ui image (written with `texels` unless `None`) and an output buffer.
fn image_launch(name: &str, texels: Option<u32>, check: Checks) -> (Vec<Finding>, u64) {
    let (k, line) = kernel(name);
    let (device, out) = tracked();
    let img = device.image(&ImageSpec::new(Dim::D2d, ImageFormat::R32ui, LANES as u32, 1, 1)).unwrap();
    if let Some(t) = texels {
        img.write(&t.to_le_bytes().repeat(LANES)).unwrap();
    }
    let args = KernelArgs::new().image(&img.descriptor()).ptr(out);
    let found = findings(&device, &k, args, check, Engine::Jit);
    if let (true, Some(t)) = (found.is_empty(), texels) {
        assert_eq!(device.read_u32s(out, LANES).unwrap(), vec![t + 1; LANES], "{name}");
    }
    (found, line)
}

#[test]
fn an_image_result_read_before_its_wait_is_a_tex_hazard() {
    let waits = Checks { waits: true, ..Checks::default() };
    let (found, line) = image_launch("wait_tex", Some(5), waits);
    assert_eq!(found.len(), 1, "{}", render_text(&found));
    let json = found[0].to_json();
    assert_eq!((json["kind"].as_str(), json["counter"].as_str()), (Some("read_before_wait"), Some("tex")), "{json}");
    assert_eq!((json["register"].as_str(), json["line"].as_u64()), (Some("v10"), Some(line)), "{json}");
    assert!(image_launch("wait_tex_fixed", Some(5), BUFFERS).0.is_empty());
}

#[test]
fn texels_of_an_image_nothing_wrote_are_undefined() {
    let (found, _) = image_launch("wait_tex_fixed", None, BUFFERS);
    assert_eq!(found.len(), 1, "{}", render_text(&found));
    let json = found[0].to_json();
    assert_eq!((json["sink"].as_str(), json["register"].as_str()), (Some("kernel_output"), Some("v11")), "{json}");
    assert!(image_launch("wait_tex_fixed", None, Checks::ALL).0.is_empty());
}

#[test]
fn an_atomic_on_never_written_device_bytes_is_reported_at_the_atomic() {
    let (k, line) = kernel("uninit_atomic");
    let (device, buf) = tracked();
    let found = findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp);
    assert_eq!(found.len(), 1, "{}", render_text(&found));
    let json = found[0].to_json();
    assert_eq!((json["sink"].as_str(), json["register"].as_str()), (Some("atomic_memory"), Some("v5")), "{json}");
    // Lane 0 reads garbage and leaves garbage: every later lane reads garbage too.
    assert_eq!((json["line"].as_u64(), json["lanes"].as_u64()), (Some(line), Some(u32::MAX as u64)), "{json}");
    let (device, buf) = tracked();
    device.write_u32s(buf, &[0]).unwrap();
    assert!(findings(&device, &k, KernelArgs::new().ptr(buf), BUFFERS, Engine::Interp).is_empty());
}
