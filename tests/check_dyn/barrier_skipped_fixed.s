; The fixed twin of barrier_skipped.s: every wave reaches the barrier, then wave 1 ends.
.kernel barrier_skipped_fixed
.workgroup 64
.args 8
    csr.r u19, wave_id
    barrier
    b.nz u19, done
    nop
done:
    end
