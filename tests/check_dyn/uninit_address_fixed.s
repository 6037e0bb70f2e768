; The fixed twin of uninit_address.s: the address comes from the thread id.
.kernel uninit_address_fixed
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u6, 0
    wait vm=0
    end
