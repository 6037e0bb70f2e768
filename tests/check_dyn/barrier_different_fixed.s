; The fixed twin of barrier_different.s: both waves wait at one barrier.
.kernel barrier_different_fixed
.workgroup 64
.args 8
    csr.r u19, wave_id
    b.nz u19, other
    nop
other:
    barrier
    end
