; Debugger fixture: out[lane] = lane + 100 (one wave). Arguments: out (u32, 32 of them).
.kernel store_id
.workgroup 32
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    v.shl.i v4, v0, 2           ; byte offset of this lane's word
    v.add.i v5, v0, 100         ; the value
    st.b32 v5, v4, u8, 0        ; out[lane] = value
    end
