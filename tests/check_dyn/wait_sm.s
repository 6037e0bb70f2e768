; Planted: a uniform load's result is read before `wait sm=0`.
.kernel wait_sm
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    u.add.i u8, u6, 4           ; PLANTED: reads u6 before wait sm=0
    wait sm=0
    end
