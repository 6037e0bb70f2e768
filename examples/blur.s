; blur: 3x3 box blur of a 2d rgba8 image into another of the same size, one thread per pixel (x, y).
; The nine taps are img.load with per-lane texel offsets (voff), in order dy = -1, 0, 1 and dx = -1, 0, 1; a
; tap outside the image reads 0 and its status (rsd) 0, so each component is (sum of the taps, in that order,
; in f32 from +0.0) / (number of taps inside), rounded to nearest even; img.store converts to unorm8.
; Arguments: source descriptor (8 words), destination descriptor (8 words), W, H (u32). Grid: ceil(W/16) x ceil(H/16).
; Written with the assembler's macros (docs/assembler.md): the taps are one macro expanded by two .irp loops.
.equ ARG_SRC, 0                 ; source image descriptor (8 words)
.equ ARG_DST, 32                ; destination image descriptor (8 words)
.equ ARG_SIZE, 64               ; W, H (u32)

; voff's per-lane offsets: signed 6-bit fields, dx in bits 5:0 and dy in bits 13:8.
.macro tap dx, dy
    v.mov.k v5, ((\dy & 0x3f) << 8) | (\dx & 0x3f)
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    .irp c, 0, 1, 2, 3          ; sums v20..v23 (r g b a) += texel v10..v13
    f.add.f32 v2\c, v2\c, v1\c, rm=rne
    .endr
    v.add v24, v24, v14         ; taps inside += status
.endm

.kernel blur
.workgroup 16, 16
    u.ld.b256 u8, u0, ARG_SRC
    u.ld.b256 u16, u0, ARG_DST
    u.ld.b64 u24, u0, ARG_SIZE  ; u24 = W, u25 = H
    wait sm=0
    u.shl.i u28, u2, 4
    u.shl.i u29, u3, 4
    v.add.vu v3, v0, u28        ; x
    v.add.vu v4, v1, u29        ; y (v3, v4: coordinates; v5: the tap's offsets)
    cmp.lt.u32.vu u30, v3, u24
    cmp.lt.u32.vu u31, v4, u25
    u.and u30, u30, u31
    exec.and.save u32, u30
    j.execz done                ; the whole wave is outside the image
    .irp r, v20, v21, v22, v23, v24
    v.li \r, 0                  ; sums r g b a (+0.0), then the taps inside
    .endr
    .irp dy, -1, 0, 1
    .irp dx, -1, 0, 1
    tap \dx, \dy
    .endr
    .endr
    f.cvt.f32.u32 v25, v24, rm=rne
    .irp r, v20, v21, v22, v23
    f.div.f32 \r, \r, v25, rm=rne
    .endr
    img.store v20, v3, u16, 2d, dmask=rgba
done:
    end
