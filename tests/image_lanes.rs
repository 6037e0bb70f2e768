//! Optimised code's `img.load` and `img.store` hand their lanes to a routine of the JIT crate
//! (`jit/src/runtime/texels.rs`), written from the ISA's rules rather than by calling the interpreter. Here every
//! format, both directions and a spread of EXEC shapes and coordinates (in range, one past the row or column,
//! far out, a second trip whose texels leave the allocation or break the alignment) run on the interpreter and
//! on every JIT engine through the fuzzer's oracle, which compares registers, memory, traps and counts.
//! Each program runs its instruction twice: the first trip caches the image's region, the second runs inline.

use lanejit::state_json::StateJson;
use lanejit::LANES;
use lanejit::{Engine, Kernel};
use lanejit_cli::fuzz::oracle::{check_kernel_with, AutoMode, CheckOptions};
use lanejit_jit::mutants;

/// Image base address (the allocation holds `ALLOC_BYTES`).
const BASE: u64 = 0x1_0000_0000;
const ALLOC_BYTES: usize = 1024;
/// Format codes: r32ui, r32f, rgba8, rgba32f (`ImageFormat::code`).
const FORMATS: [u32; 4] = [0, 1, 2, 3];

/// EXEC shapes: every lane, none, one low, one high, alternate, halves, a scattered mask.
const EXECS: [u32; 8] = [u32::MAX, 0, 1, 1 << 31, 0x5555_5555, 0xffff_0000, 0x0000_ffff, 0x0f0f_00ff];

/// A loop running `insn` twice; the y register moves by `dy` rows between trips.
fn program(insn: &str, dy: i32) -> String {
    format!("u.li u20, 2\nloop:\n{insn}\nv.add.i v3, v3, {dy}\nu.add.i u20, u20, -1\nb.nz u20, loop\nend\n")
}

/// Coordinates: x and y per lane for a pattern (`kind`) of an image W x H.
fn coords(kind: usize, w: u32, h: u32) -> (Vec<u32>, Vec<u32>) {
    let lanes = 0..LANES as u32;
    match kind {
        // Every lane in range, row 0 (two lanes per texel where W < LANES).
        0 => (lanes.clone().map(|l| l % w).collect(), vec![0; LANES]),
        // x up to W + 1 (one past the row, and beyond), y in range.
        1 => (lanes.clone().map(|l| l % (w + 2)).collect(), lanes.map(|l| l % h).collect()),
        // y up to H (one past the last row), some lanes far out.
        2 => (
            lanes.clone().map(|l| if l % 7 == 3 { u32::MAX - l } else { l % w }).collect(),
            lanes.map(|l| l % (h + 1)).collect(),
        ),
        // Every lane on the last row: the second trip (one row further) is out of range for all.
        _ => (lanes.map(|l| l % w).collect(), vec![h - 1; LANES]),
    }
}

/// Memory of the allocation: bytes spelling their offset, with some NaN and 0..1 floats for the conversions.
fn memory_hex() -> String {
    let words: Vec<u32> = (0..ALLOC_BYTES as u32 / 4)
        .map(|i| match i % 5 {
            0 => 0x3f00_0000 + i,
            1 => 0x7fc0_0001,
            2 => 0x80ff_7f01u32.rotate_left(i),
            _ => i.wrapping_mul(0x0101_0101),
        })
        .collect();
    words.iter().flat_map(|w| w.to_le_bytes()).map(|b| format!("{b:02x}")).collect()
}

/// A state: the descriptor in u8..u15, x in v2, y in v3, data in v10..v13.
fn state(format: u32, exec: u32, (xs, ys): (Vec<u32>, Vec<u32>), (w, h, pitch): (u32, u32, u32)) -> StateJson {
    let data: Vec<u32> =
        (0..LANES as u32).map(|l| [0x3f80_0000, 0x3e80_0000 + l, 0xbf00_0000, 0x7fc0_0000][l as usize % 4]).collect();
    let json = serde_json::json!({
        "exec": exec,
        "v": {"2": xs, "3": ys, "10": data, "11": vec![0x3f40_0000u32; LANES], "12": vec![0xaaaau32; LANES], "13": vec![0x437f_0000u32; LANES]},
        "u": {"8": BASE as u32, "9": (BASE >> 32) as u32, "10": w, "11": h, "12": 0, "13": pitch, "14": format, "15": 0},
        "memory": [{"addr": BASE, "hex": memory_hex()}],
    });
    serde_json::from_value(json).expect("a valid state")
}

/// Runs every case of one instruction; returns the differences found (empty when every engine agrees).
fn differences(insn: &str) -> Vec<String> {
    let mut found = Vec::new();
    for dy in [1, 0] {
        let source = program(insn, dy);
        for format in FORMATS {
            let texel = if format == 3 { 16 } else { 4 };
            // (W, H, pitch): a tight image, one whose pitch is padded (4 bytes: misaligned rgba32f rows), one
            // whose rows reach the allocation's end.
            for (w, h) in [(8, 4), (5, 3)] {
                for pitch in [w * texel, w * texel + 4, ALLOC_BYTES as u32 / h] {
                    for exec in EXECS {
                        for kind in 0..4 {
                            let init = state(format, exec, coords(kind, w, h), (w, h, pitch));
                            found.extend(one(&source, &init).map(|d| {
                                format!("{insn} dy={dy} format={format} {w}x{h} pitch={pitch} exec={exec:#x} coords={kind}: {d}")
                            }));
                        }
                    }
                }
            }
        }
    }
    found
}

/// The oracle on one case, with every block promoted to optimised code before it runs.
fn one(source: &str, init: &StateJson) -> Option<String> {
    let config = lanejit::tier::CompileConfig { share: false, ..lanejit_cli::fuzz::kernel_config(Default::default()) };
    let kernel = Kernel::from_asm("image_lanes", source).expect("assembles").with_config(config);
    let mut found = None;
    for only in [Engine::Jit, Engine::Auto] {
        kernel.jit_promotion.reset(0);
        let opts = CheckOptions { only: Some(only), ..CheckOptions::campaign(AutoMode::Hot, &[]) };
        match check_kernel_with(&kernel, init, &opts, None) {
            Ok(None) => {}
            Ok(Some(d)) => found = Some(format!("{only:?}: {d:?}")),
            Err(e) => found = Some(format!("{only:?}: {e}")),
        }
    }
    found
}

const LOADS: [&str; 2] = ["img.load v10, v2, u8, 2d, dmask=rgba", "img.load v10, v2, u8, 2d, dmask=ga"];
const STORES: [&str; 2] = ["img.store v10, v2, u8, 2d, dmask=rgba", "img.store v10, v2, u8, 2d, dmask=rb"];

/// One test (the planted-bug switch is process-wide): every case agrees; then two planted bugs of the routine
/// (151: x compared with W + 1; 153: lanes stored descending) are seen by these cases, so they can fail.
#[test]
fn image_loads_and_stores_agree_with_the_interpreter() {
    mutants::set(None).expect("deselecting always works");
    for insn in LOADS.into_iter().chain(STORES) {
        let d = differences(insn);
        assert!(d.is_empty(), "{} differences, first: {}", d.len(), d[0]);
    }
    for (id, insn) in [(151, LOADS[0]), (153, STORES[0])] {
        mutants::set(Some(id)).expect("the test suite builds the planted bugs");
        let d = differences(insn);
        mutants::set(None).expect("deselecting always works");
        assert!(!d.is_empty(), "planted bug {id} went unseen by the {insn} cases");
    }
}
