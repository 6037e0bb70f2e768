; blur: 3x3 box blur of a 2d rgba8 image into another of the same size, one thread per pixel (x, y).
; The nine taps are img.load with per-lane texel offsets (voff), in order dy = -1, 0, 1 and dx = -1, 0, 1; a
; tap outside the image reads 0 and its status (rsd) 0, so each component is (sum of the taps, in that order,
; in f32 from +0.0) / (number of taps inside), rounded to nearest even; img.store converts to unorm8.
; Arguments: source descriptor (8 words), destination descriptor (8 words), W, H (u32). Grid: ceil(W/16) x ceil(H/16).
.kernel blur
.workgroup 16, 16
    u.ld.b256 u8, u0, 0         ; source descriptor
    u.ld.b256 u16, u0, 32       ; destination descriptor
    u.ld.b64 u24, u0, 64        ; u24 = W, u25 = H
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
    v.li v20, 0                 ; sums r g b a (+0.0)
    v.li v21, 0
    v.li v22, 0
    v.li v23, 0
    v.li v24, 0                 ; taps inside
    v.mov.k v5, 0x3f3f        ; dx = -1, dy = -1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x3f00        ; dx = 0, dy = -1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x3f01        ; dx = 1, dy = -1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x3f          ; dx = -1, dy = 0
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x0           ; dx = 0, dy = 0
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x1           ; dx = 1, dy = 0
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x13f         ; dx = -1, dy = 1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x100         ; dx = 0, dy = 1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    v.mov.k v5, 0x101         ; dx = 1, dy = 1
    img.load v10, v3, u8, 2d, dmask=rgba, rsd, voff
    wait tex=0
    f.add.f32 v20, v20, v10, rm=rne
    f.add.f32 v21, v21, v11, rm=rne
    f.add.f32 v22, v22, v12, rm=rne
    f.add.f32 v23, v23, v13, rm=rne
    v.add v24, v24, v14
    f.cvt.f32.u32 v25, v24, rm=rne
    f.div.f32 v20, v20, v25, rm=rne
    f.div.f32 v21, v21, v25, rm=rne
    f.div.f32 v22, v22, v25, rm=rne
    f.div.f32 v23, v23, v25, rm=rne
    img.store v20, v3, u16, 2d, dmask=rgba
done:
    end
