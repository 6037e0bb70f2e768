; The fixed twin of wait_vst.s.
.kernel wait_vst_fixed
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.shl.i v5, v0, 2
    v.add.i v7, v0, 1
    st.b32 v7, v5, u6, 0
    wait vst=0
    v.li v7, 0
    end
