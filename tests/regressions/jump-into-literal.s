; Hand-made: the second word of a 64-bit instruction is 0x00000068, the encoding of `end`; a jump lands on it.
; Code is decoded at every word offset, so every engine must run `end` there.
.kernel midword
    u.li u1, 5
    v.add.k v1, v1, 0x68
    j -4
