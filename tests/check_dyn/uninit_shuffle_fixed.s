; The fixed twin of uninit_shuffle.s: the shuffled register is v0, which the ABI sets in every lane.
.kernel uninit_shuffle_fixed
.workgroup 20
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    shfl.down.vi v6, v0, 1
    v.shl.i v7, v0, 2
    st.b32 v6, v7, u6, 0
    wait vst=0
    end
