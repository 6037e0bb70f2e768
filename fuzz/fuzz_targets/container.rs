//! Container loader: arbitrary bytes load or fail cleanly; a loaded container writes back to the same bytes.
#![no_main]

use lanejit_isa::container;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = container::read_any(data) {
        if data.starts_with(&container::MAGIC) {
            assert_eq!(container::write(&p), data);
        }
    }
    let _ = lanejit::Kernel::from_bytes(data);
});
