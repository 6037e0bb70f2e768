; Planted: shared memory nothing wrote is loaded and stored to the output buffer.
.kernel uninit_shared
.workgroup 32
.shared 128
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u20, 0, sp=shared
    wait ls=0
    wait sm=0
    st.b32 v6, v5, u6, 0        ; PLANTED: v6 holds shared bytes never written
    wait vst=0
    end
