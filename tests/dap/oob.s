; Debugger fixture: lane i stores at byte 16*i of a 128-byte buffer, so lanes 8 and up fault.
; Arguments: out (u32, 32 of them).
.kernel oob
.workgroup 32
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    v.shl.i v4, v0, 4           ; 16 bytes a lane: past the end from lane 8
    st.b32 v0, v4, u8, 0        ; the faulting store
    end
