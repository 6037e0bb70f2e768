; The fixed twin of cross_flag: every workgroup adds its part with an atomic, then counts itself done with
; another; the last one (whichever it is) reads the total with an atomic and writes it.
; Arguments: buf (u32 x 3: total, done, out). Grid: 2 workgroups of 32.
.kernel last_block
.workgroup 32
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    csr.r u14, grid_x
    u.add.i u10, u2, 20         ; this workgroup's part: 20 + id
    v.mov.u v1, u10
    v.li v2, 0
    exec.elect u15
    atom.add.u32 v1, v2, u8, 0  ; total += part
    wait vm=0
    v.li v3, 1
    atom.add.u32 v3, v2, u8, 4  ; old = done++ (after the add above: it was waited for)
    wait vm=0
    readfirst u16, v3
    u.add.i u16, u16, 1
    u.sne u17, u16, u14
    b.nz u17, out               ; not the last workgroup
    v.li v4, 0
    atom.add.u32 v4, v2, u8, 0  ; read the total atomically
    wait vm=0
    st.b32 v4, v2, u8, 8        ; out = total
    wait vst=0
out:
    end
