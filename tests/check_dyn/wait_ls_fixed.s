; The fixed twin of wait_ls.s.
.kernel wait_ls_fixed
.workgroup 32
.shared 128
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0                 ; shared base
    v.shl.i v5, v0, 2
    st.b32 v0, v5, u20, 0, sp=shared
    wait ls=0
    ld.b32 v6, v5, u20, 0, sp=shared
    wait ls=0
    v.add v7, v6, v6
    wait sm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
