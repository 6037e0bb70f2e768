; Planted: a barrier reached with half of the wave's threads disabled in EXEC.
.kernel barrier_partial_exec
.workgroup 32
.args 8
    cmp.lt.u32.vi u10, v0, 16
    exec.and.save u11, u10
    barrier                     ; PLANTED: only lanes 0..15 are active
    exec.set u11
    end
