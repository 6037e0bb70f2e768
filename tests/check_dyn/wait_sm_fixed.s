; The fixed twin of wait_sm.s.
.kernel wait_sm_fixed
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    u.add.i u8, u6, 4
    end
