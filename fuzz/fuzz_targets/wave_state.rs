//! `lanejit wave` state loader: arbitrary bytes load as a state or fail with an error; a state that loads
//! builds a wave, runs a short kernel from it under a small budget and deadline, and dumps to JSON that loads
//! again (as a state: the output-only fields are dropped first).
#![no_main]

use lanejit::state_json::StateJson;
use lanejit::wave::{run_wave_limited, WaveLimits};
use lanejit::{Engine, Kernel};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::Duration;

fn kernel() -> &'static Kernel {
    static K: OnceLock<Kernel> = OnceLock::new();
    K.get_or_init(|| {
        Kernel::from_asm("fuzz.s", "    v.add.i v1, v1, 1\n    u.li u3, 7\n    end\n")
            .expect("the fixed kernel assembles")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(state) = StateJson::parse(text) else { return };
    state.to_wave().expect("a parsed state builds a wave");
    let limits = WaveLimits { budget: 100, deadline: Some(Duration::from_secs(1)), install_seed: None };
    let Ok(out) = run_wave_limited(kernel(), &state, Engine::Interp, limits, None) else { return };
    let mut dumped = out.to_json();
    dumped.trap = None;
    dumped.retired = None;
    let json = serde_json::to_string(&dumped).expect("a dump serialises");
    StateJson::parse(&json).expect("a dump loads as a state");
});
