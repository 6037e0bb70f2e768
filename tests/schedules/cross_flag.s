; Planted order dependence: workgroup 0 writes data then sets a flag; workgroup 1 reads the flag once and
; copies the data if it is set, else writes 0. Nothing orders workgroups: the fixed order runs 0 first.
; Arguments: buf (u32 x 3: data, flag, out). Grid: 2 workgroups of 32.
.kernel cross_flag
.workgroup 32
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    b.nz u2, reader
    u.li u10, 42
    u.st.b32 u10, u8, 0         ; data = 42
    u.li u11, 1
    u.st.b32 u11, u8, 4         ; flag = 1
    wait sm=0
    end
reader:
    u.ld.b32 u12, u8, 4         ; flag
    wait sm=0
    u.li u13, 0
    b.z u12, write
    u.ld.b32 u13, u8, 0         ; data
    wait sm=0
write:
    u.st.b32 u13, u8, 8         ; out
    wait sm=0
    end
