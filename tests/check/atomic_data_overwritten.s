; An atomic's data register (read by the outstanding atomic, and written with its old value) overwritten
; before `wait vm`, and a shared store's data overwritten before `wait ls`.
; expect: overwrite_before_wait v7 vm 12
; expect: store_source_overwritten v7 vm 12
; expect: store_source_overwritten v8 ls 14
.kernel atomic_data_overwritten
.shared 256
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.li v7, 1
    atom.add.u32 v7, v0, u4, 0
    v.li v7, 2
    st.b32 v8, v0, u6, 0, sp=shared
    v.li v8, 3
    end
