; Software pipelining gone wrong: the next element is loaded at the end of the body and read at its top, but
; the only wait is after the loop. Only the back edge carries the hazard (the first load is waited for).
; expect: read_before_wait v5 vm 11
.kernel loop_back_edge
    u.ld.b64 u4, u0, 0
    wait sm=0
    u.li u6, 4
    ld.b32 v5, v0, u4, 0
    wait vm=0
loop:
    v.add v6, v6, v5
    ld.b32 v5, v0, u4, 4
    u.add.i u6, u6, -1
    b.nz u6, loop
    wait vm=0
    end
