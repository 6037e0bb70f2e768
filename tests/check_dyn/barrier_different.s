; Planted: the two waves wait at different barriers (the launch stops with BarrierDeadlock; the finding is
; still reported).
.kernel barrier_different
.workgroup 64
.args 8
    csr.r u19, wave_id
    b.nz u19, other
    barrier                     ; wave 0 waits here
    end
other:
    barrier                     ; PLANTED: wave 1 waits at another barrier
    end
