; Twin of vm_load_read.s: the wait is in place.
.kernel vm_load_read_fixed
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.shl.i v4, v0, 2
    ld.b32 v5, v4, u4, 0
    wait vm=0
    v.add v6, v5, v5
    st.b32 v6, v4, u4, 0
    end
