; Planted: a shared-memory load (counter ls, not vm) is read before `wait ls=0`.
.kernel wait_ls
.workgroup 32
.shared 128
.args 8
    u.ld.b64 u6, u0, 0
    u.li u20, 0                 ; shared base
    v.shl.i v5, v0, 2
    st.b32 v0, v5, u20, 0, sp=shared
    wait ls=0
    ld.b32 v6, v5, u20, 0, sp=shared
    wait vm=0                   ; the wrong counter: shared loads raise ls
    v.add v7, v6, v6            ; PLANTED: reads v6 before wait ls=0
    wait sm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
