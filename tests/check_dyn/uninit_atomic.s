; Planted (with the `buffers` check): every lane adds 1 to a counter word the host never zeroed. Its fixed
; use is the same kernel after the host wrote the word (tests/check_buffers.rs).
.kernel uninit_atomic
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0          ; the counter
    wait sm=0
    v.li v5, 0
    v.li v6, 1
    atom.add.u32 v6, v5, u6, 0  ; PLANTED: the counter was never written
    wait vm=0
    end
