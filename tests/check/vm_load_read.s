; A global load's result read before `wait vm`.
; expect: read_before_wait v5 vm 8
.kernel vm_load_read
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.shl.i v4, v0, 2
    ld.b32 v5, v4, u4, 0
    v.add v6, v5, v5
    st.b32 v6, v4, u4, 0
    end
