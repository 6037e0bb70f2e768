; A uniform load's result used as an address before `wait sm`.
; expect: read_before_wait u4 sm 6
; expect: read_before_wait u5 sm 6
.kernel sm_uniform_load
    u.ld.b64 u4, u0, 0
    ld.b32 v5, v0, u4, 0
    wait vm=0
    end
