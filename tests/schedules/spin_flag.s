; Forward progress: workgroup 1 spins until workgroup 0 sets a flag. The fixed order runs workgroup 0 first,
; so it ends; a schedule that runs workgroup 1 alone first (or keeps it ahead) spins until the budget: a hang.
; Arguments: buf (u32 x 2: flag, seen). Grid: 2 workgroups of 32.
.kernel spin_flag
.workgroup 32
    u.ld.b64 u8, u0, 0          ; buf
    wait sm=0
    b.nz u2, spin
    u.li u10, 1
    u.st.b32 u10, u8, 0         ; flag = 1
    wait sm=0
    end
spin:
    u.ld.b32 u11, u8, 0
    wait sm=0
    b.z u11, spin
    u.st.b32 u11, u8, 4         ; seen = flag
    wait sm=0
    end
