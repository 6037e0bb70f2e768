//! Image accesses for the generator: a descriptor in `U_IMG..U_IMG+7` (set in the initial state: an image placed
//! in buffer A, sometimes running past its end, sometimes invalid), integer coordinates in `V_IMG..V_IMG+3`
//! (lane ids and masked data, so some lanes fall past an edge and lanes share texels), and `img.load`,
//! `img.store`, `img.sample` and `img.query` on them, mostly in the plain 2d form the JIT runs inline. In a sweep
//! the row coordinate slides after each access, so compiled code meets the same access at new rows (past the
//! image, past the allocation, or misaligned with a padded pitch) with its window cached.
//! Everything here draws from the generator's image stream (`Gen::img`), so a seed's other features — every
//! program the fuzzer made before images — stay as they were.

use super::{find, Gen, MEM_A, MEM_A_SIZE};
use crate::fuzz::prog::*;
use lanejit_interp::image::{Addressing, Descriptor, Filter, ImageFormat, Sampler};
use lanejit_isa::{Dim, InsnId};

/// First register of the image descriptor (8 uniform registers, even).
pub const U_IMG: u8 = 24;
/// First coordinate register (x, y, z or layer, then voff's offsets).
pub const V_IMG: u8 = 28;
/// Widest image the generator makes, texels.
const MAX_WIDTH: i64 = 8;

impl Gen {
    /// Percent chance that a memory item also gets an image access.
    pub(super) const IMAGE_PCT: u32 = 25;
    /// Percent chance that a swept memory item also gets an image access (sweeps meet the JIT's inline path).
    pub(super) const SWEEP_IMAGE_PCT: u32 = 60;

    /// An image access with its coordinate setup; `sweep`: a loop repeats it (the row then slides).
    pub(super) fn image(&mut self, out: &mut Vec<Node>, sweep: bool) {
        let name = *self.img.pick(&["img.load", "img.load", "img.store", "img.store", "img.sample", "img.query"]);
        let id = find(name);
        if name != "img.sample" {
            self.coordinates(out, sweep);
        }
        let o = self.image_op(id, name == "img.sample");
        out.push(Node::Op(o));
        if sweep && self.img.chance(80) {
            let add = find("v.add.i");
            let y = (V_IMG + 1) as i64;
            out.push(Node::Op(op(add, &[("rd", y), ("rs1", y), ("imm", 1)])));
        }
    }

    /// x = lane id & (2 * MAX_WIDTH - 1) (lanes past W, and lanes sharing a texel); y, z masked data (y mostly 0
    /// in a sweep, so that the sliding row starts inside the image and aligned); voff's fields from data.
    fn coordinates(&mut self, out: &mut Vec<Node>, sweep: bool) {
        let (laneid, and_k) = (find("v.laneid"), find("v.and.k"));
        let x = V_IMG as i64;
        out.push(Node::Op(op(laneid, &[("rd", x)])));
        out.push(Node::Op(op(and_k, &[("rd", x), ("rs1", x), ("imm", 2 * MAX_WIDTH - 1)])));
        let y_mask = if sweep && self.img.chance(75) { 0 } else { *self.img.pick(&[0, 1, 3]) };
        let masks = [y_mask, 3, 0x3f3f3f];
        for (k, mask) in masks.into_iter().enumerate() {
            let src = self.img.below(self.pv as u64) as i64;
            out.push(Node::Op(op(and_k, &[("rd", x + 1 + k as i64), ("rs1", src), ("imm", mask)])));
        }
    }

    /// The instruction: data in the pool, coordinates at `V_IMG` (a sample reads pool data as its float
    /// coordinates), descriptor at `U_IMG`; mostly 2d without d16/a16/voff/rsd.
    fn image_op(&mut self, id: InsnId, sample: bool) -> Op {
        let info = id.info();
        let pool = self.pv as u64;
        let r = &mut self.img;
        let vals = info
            .operands
            .iter()
            .map(|o| match o.name {
                "rd" => r.below(pool) as i64,
                "rs1" if sample => r.below(pool) as i64,
                "rs1" => V_IMG as i64,
                "rs3" => U_IMG as i64,
                "dim" => (if r.chance(80) { Dim::D2d } else { *r.pick(&Dim::ALL) }) as i64,
                "toff" => {
                    if r.chance(85) {
                        0
                    } else {
                        4 * r.below(16) as i64
                    }
                }
                "dmask" => r.range(1, 15),
                _ => r.chance(6) as i64,
            })
            .collect();
        Op { id, vals }
    }

    /// The descriptor words of the initial state: a small image in buffer A (rarely running past its end, with a
    /// padded pitch that misaligns rows of 8- and 16-byte texels, or invalid).
    pub(super) fn image_descriptor(&mut self) -> [u32; 8] {
        let r = &mut self.img;
        let format = *r.pick(&ImageFormat::ALL);
        let bytes = format.info().bytes as u64;
        let width = r.range(1, MAX_WIDTH) as u64;
        let (height, layers) = (r.range(1, 4) as u64, r.range(1, 3) as u64);
        // A pitch 4 bytes over the row misaligns every other row of 8- and 16-byte texels.
        let pitch = width * bytes + *r.pick(&[0, bytes, 4, 4]);
        let (height, layers) =
            if pitch * height * layers > MEM_A_SIZE / 2 { (height.min(2), 1) } else { (height, layers) };
        let size = pitch * height * layers;
        // Mostly inside A; sometimes a 2d image whose upper half of rows lies past A's end, the first row outside
        // starting exactly at the end (the window's last bytes).
        let past_end = r.chance(30);
        let (height, layers) = if past_end { (height.max(2), 1) } else { (height, layers) };
        let off = if past_end { MEM_A_SIZE - pitch * (height / 2) } else { 16 * r.below((MEM_A_SIZE - size) / 16 + 1) };
        let mode = |r: &mut crate::fuzz::rng::Rng| *r.pick(&Addressing::ALL);
        let sampler = Sampler { filter: *r.pick(&Filter::ALL), addressing: [mode(r), mode(r), mode(r)] };
        let d = Descriptor {
            base: MEM_A + off,
            width: width as u32,
            height: height as u32,
            layers: layers as u32,
            pitch: pitch as u32,
            format,
            sampler,
        };
        let mut w = d.to_words();
        if r.chance(5) {
            // Invalid: a zero width, a format code no format has, or a sampler bit img.sample refuses.
            let (word, bad) = *r.pick(&[(2, 0), (6, ImageFormat::ALL.len() as u32), (7, 0x80)]);
            w[word] = bad;
        }
        w
    }
}
