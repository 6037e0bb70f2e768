; Twin of atomic_data_overwritten.s.
.kernel atomic_data_overwritten_fixed
.shared 256
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.li v7, 1
    atom.add.u32 v7, v0, u4, 0
    wait vm=0
    v.li v7, 2
    st.b32 v8, v0, u6, 0, sp=shared
    wait ls=0
    v.li v8, 3
    end
