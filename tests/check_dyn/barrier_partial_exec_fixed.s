; The fixed twin of barrier_partial_exec.s: EXEC is restored before the barrier. The workgroup of 48 threads
; has a second wave of 16 threads, whose full EXEC holds only them: not a partial EXEC.
.kernel barrier_partial_exec_fixed
.workgroup 48
.args 8
    cmp.lt.u32.vi u10, v0, 16
    exec.and.save u11, u10
    exec.set u11
    barrier
    end
