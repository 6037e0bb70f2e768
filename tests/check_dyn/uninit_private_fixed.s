; The fixed twin of uninit_private.s: the private word is written first.
.kernel uninit_private_fixed
.workgroup 32
.private 16
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0
    v.li v4, 4
    st.b32 v0, v4, u20, 0, sp=private
    wait vst=0
    ld.b32 v6, v4, u20, 0, sp=private
    wait vm=0
    v.shl.i v5, v0, 2
    wait sm=0
    st.b32 v6, v5, u6, 0
    wait vst=0
    end
