//! Host fused multiply-add: one correctly rounded `x * y + z` (round to nearest even), by the FMA instruction
//! where the CPU has it. Rust's `mul_add` calls the C library's `fma` when the binary is built for a CPU
//! without FMA (the default x86-64 target); that call cost more than the rest of an `f.fma` lane. Both give the
//! same bits (the operation is exactly rounded either way), so which one runs never shows in results.

/// x * y + z with one rounding (binary32).
#[inline]
pub fn fused_f32(x: f32, y: f32, z: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above).
        return unsafe { fma_instruction::f32(x, y, z) };
    }
    x.mul_add(y, z)
}

/// x * y + z with one rounding (binary64).
#[inline]
pub fn fused_f64(x: f64, y: f64, z: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above).
        return unsafe { fma_instruction::f64(x, y, z) };
    }
    x.mul_add(y, z)
}

#[cfg(target_arch = "x86_64")]
mod fma_instruction {
    /// `mul_add` compiled with FMA enabled: the instruction itself.
    #[target_feature(enable = "fma")]
    pub unsafe fn f32(x: f32, y: f32, z: f32) -> f32 {
        x.mul_add(y, z)
    }

    /// `mul_add` compiled with FMA enabled: the instruction itself.
    #[target_feature(enable = "fma")]
    pub unsafe fn f64(x: f64, y: f64, z: f64) -> f64 {
        x.mul_add(y, z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instruction and the library agree, on cases where a separate multiply and add would not.
    #[test]
    fn fused_is_one_rounding() {
        let (x, y) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON);
        assert_eq!(fused_f32(x, y, -1.0).to_bits(), x.mul_add(y, -1.0).to_bits());
        assert_ne!(fused_f32(x, y, -1.0), x * y - 1.0);
        let (a, b) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON);
        assert_eq!(fused_f64(a, b, -1.0).to_bits(), a.mul_add(b, -1.0).to_bits());
        assert_ne!(fused_f64(a, b, -1.0), a * b - 1.0);
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let (x, y, z) =
                (f32::from_bits(s as u32), f32::from_bits((s >> 32) as u32), f32::from_bits((s >> 16) as u32));
            let (a, b) = (fused_f32(x, y, z), x.mul_add(y, z));
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{x:e} {y:e} {z:e}");
            let (p, q, r) = (f64::from_bits(s), f64::from_bits(s.rotate_left(21)), f64::from_bits(s.rotate_left(42)));
            let (c, d) = (fused_f64(p, q, r), p.mul_add(q, r));
            assert!(c.to_bits() == d.to_bits() || (c.is_nan() && d.is_nan()), "{p:e} {q:e} {r:e}");
        }
    }
}
