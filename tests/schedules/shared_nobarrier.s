; Planted order dependence: each wave writes its slot of shared memory, then (with no barrier) reads the
; other wave's slot. The fixed order runs wave 0 to its end first, so it reads zeros; another order does not.
; Arguments: out (u32, one per thread). Grid: 1 workgroup of 64 (2 waves).
.kernel shared_nobarrier
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
    v.xor.i v6, v0, 32          ; the other wave's thread
    v.shl.i v6, v6, 2
    ld.b32 v7, v6, u20, 0, sp=shared
    wait ls=0
    st.b32 v7, v4, u8, 0
    end
