; Planted: wave 1 ends without reaching the barrier wave 0 waits at (a barrier in divergent code).
.kernel barrier_skipped
.workgroup 64
.args 8
    csr.r u19, wave_id
    b.nz u19, done
    barrier                     ; wave 0 waits here alone
done:
    end                         ; PLANTED: wave 1 ends here without the barrier
