; Planted: a load's address is computed from v9, which nothing wrote (the ABI sets only v0..v2).
.kernel uninit_address
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.shl.i v5, v9, 2
    ld.b32 v6, v5, u6, 0        ; PLANTED: the address v5 comes from the never-written v9
    wait vm=0
    end
