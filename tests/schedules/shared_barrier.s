; The fixed twin of shared_nobarrier: a barrier between the writes and the reads.
.kernel shared_barrier
.workgroup 64
.shared 256
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    u.li u20, 0
    u.li u21, 0
    v.shl.i v4, v0, 2           ; my slot
    v.add.i v5, v0, 1           ; the value: thread id + 1
    st.b32 v5, v4, u20, 0, sp=shared
    wait ls=0
    barrier
    v.xor.i v6, v0, 32          ; the other wave's thread
    v.shl.i v6, v6, 2
    ld.b32 v7, v6, u20, 0, sp=shared
    wait ls=0
    st.b32 v7, v4, u8, 0
    end
