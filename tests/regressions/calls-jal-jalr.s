; Hand-made: calls through jal and through jalr with a biased pointer (u.pcrel, then -8 + 8), inside a
; counted loop; the callee reads the retired counter mid-block.
.kernel calls
    u.li u1, 3
    v.li v1, 1
loop:
    jal u48, double
    u.pcrel u49, triple
    u.add.i u49, u49, -8
    jalr u48, u49, 8
    u.add.i u1, u1, -1
    b.nz u1, loop
    csr.r u2, retired
    end
double:
    v.add v1, v1, v1
    jr u48, 0
triple:
    v.mul.i v1, v1, 3
    csr.r u3, retired
    csr.r u4, cycle
    jr u48, 0
