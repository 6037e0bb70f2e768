; Planted: a global load's result is read before `wait vm=0`.
.kernel wait_vm
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0          ; the buffer
    wait sm=0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u6, 0
    v.add.i v7, v6, 1           ; PLANTED: reads v6 before wait vm=0
    wait vm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
