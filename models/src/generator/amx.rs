//! Prompt chunks' 4-bit products on Intel AMX, where the CPU and the
//! kernel allow it.
//!
//! A prompt chunk multiplies many activation rows by every weight, and the
//! vector kernels (`q4.rs`) spend most of their time there: per block of 32
//! values they load, unpack and broadcast for every eight weight rows and
//! every activation row. AMX's `tdpbssd` takes a tile of 16 activation rows
//! and a tile of 16 weight rows (two of the matrix's groups) and sums each
//! pair's 32 byte products of a block in one instruction. The integer sums
//! are exact either way, and each block's sum is then converted, scaled and
//! accumulated lane by lane with the very operations the vector kernels
//! use, in the same order (the minima's term in its own chain, added last),
//! so every product keeps its bits whichever kernel ran it.
//!
//! Linux hands a process AMX's tile registers only when it asks
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM)`); [`Amx::here`] asks once and answers
//! `None` where the CPU lacks AMX-INT8 or AVX-512BW, or the kernel refuses,
//! or `ADFARM_AMX` is `off` (to compare the two kernels on one machine, or
//! to rule the tiles out when chasing a fault).

use super::q4::Q4Matrix;
use super::q8::{Activations, GROUP, QK};
use super::simd::{nibble_pair, pair};
use std::arch::asm;
use std::arch::x86_64::*;
use std::ops::Range;
use std::sync::OnceLock;

/// Activation rows (and weight rows) of one tile.
pub(crate) const TILE: usize = 16;

/// Proof that this process may run AMX tiles and the AVX-512 around them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Amx(());

impl Amx {
    /// AMX where this CPU has AMX-INT8 and AVX-512BW and the kernel grants
    /// the tile registers, unless `ADFARM_AMX` is `off` (or `0`, `false`);
    /// decided once per process.
    pub(crate) fn here() -> Option<Amx> {
        static HERE: OnceLock<bool> = OnceLock::new();
        let wanted = || {
            let off = std::env::var("ADFARM_AMX").is_ok_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "off" | "0" | "false"
                )
            });
            !off && granted()
        };
        HERE.get_or_init(wanted).then_some(Amx(()))
    }
}

/// CPUID leaf 7's AMX-TILE and AMX-INT8 bits, AVX-512's, then the kernel's
/// permission for the tile data (XTILEDATA, state component 18).
fn granted() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    let leaf7 = __cpuid_count(7, 0);
    let amx = (leaf7.edx >> 24) & 0b11 == 0b11;
    if !amx
        || !is_x86_feature_detected!("avx512f")
        || !is_x86_feature_detected!("avx512bw")
        || !is_x86_feature_detected!("fma")
    {
        return false;
    }
    // SAFETY: a plain system call with integer arguments; it changes only
    // which register state the kernel saves for this process.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
    }
}

/// The 64-byte operand of `ldtilecfg` (palette 1).
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

/// tmm0: the sums, 16 activation rows × 16 weight rows of `i32`;
/// tmm1: 16 activation rows' 32 bytes of a block;
/// tmm2: a block of 16 weight rows in four-byte columns (VNNI order).
const CONFIG: TileConfig = {
    let mut bytes_per_row = [0u16; 16];
    let mut rows = [0u8; 16];
    bytes_per_row[0] = 64;
    rows[0] = TILE as u8;
    bytes_per_row[1] = QK as u16;
    rows[1] = TILE as u8;
    bytes_per_row[2] = 64;
    rows[2] = (QK / 4) as u8;
    TileConfig {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        bytes_per_row,
        rows,
    }
};

/// One block's unpacked weights for a pair of groups: eight rows of 64
/// bytes, row `j` holding value `4j..4j+4` of each of the 16 weight rows.
const PAIR_BLOCK_BYTES: usize = QK / 4 * 64;

/// Sums of one tile, as `tilestored` writes them.
#[repr(C, align(64))]
struct Sums([[i32; TILE]; TILE]);

impl Q4Matrix {
    /// Weight groups `g` and `g + 1` against activation rows `rows` (a
    /// multiple of [`TILE`] of them), written into `part` (`rows.len()` rows
    /// of `width`, this pair's 16 columns from `col`; a padding row's
    /// column is not written, `lanes` says how many are real).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn amx_pair(
        &self,
        _amx: Amx,
        g: usize,
        xq: &Activations,
        rows: Range<usize>,
        part: &mut [f32],
        width: usize,
        col: usize,
        lanes: usize,
    ) {
        debug_assert!(rows.len().is_multiple_of(TILE) && lanes <= 2 * GROUP);
        let (first, second) = (self.group(g), self.group(g + 1));
        let kb = first.d.len() / GROUP;
        let mut unpacked = vec![0u8; kb * PAIR_BLOCK_BYTES];
        // SAFETY: `Amx` proves AMX-INT8, AVX-512BW and the tile permission;
        // every slice holds `kb` whole blocks, `xq`'s rows `k = 32 · kb`
        // bytes each, and `part` `rows.len() × width` values.
        unsafe {
            unpack(first.qs, second.qs, &mut unpacked);
            asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, readonly));
            for a0 in rows.clone().step_by(TILE) {
                let out = tile(&unpacked, first.d, second.d, first.m, second.m, xq, a0);
                for (a, values) in out.iter().enumerate() {
                    let at = (a0 - rows.start + a) * width + col;
                    part[at..at + lanes].copy_from_slice(&values[..lanes]);
                }
            }
            asm!("tilerelease", options(nostack, nomem));
        }
    }
}

/// Both groups' nibbles as bytes in `tdpbssd`'s order for its second
/// operand: block by block, row `c` (value `4c..4c+4`, the low nibbles of
/// a group's vector `c`) and row `4 + c` (value `16+4c..16+4c+4`, the high
/// nibbles), the first group's eight weight rows then the second's.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn unpack(first: &[u8], second: &[u8], out: &mut [u8]) {
    let chunk = GROUP * 4;
    for (b, block) in out.chunks_exact_mut(PAIR_BLOCK_BYTES).enumerate() {
        for c in 0..4 {
            let (lo, hi) = nibble_pair(first, second, b * 4 * chunk + c * chunk);
            _mm512_storeu_si512(block.as_mut_ptr().add(c * 64) as *mut __m512i, lo);
            _mm512_storeu_si512(block.as_mut_ptr().add((4 + c) * 64) as *mut __m512i, hi);
        }
    }
}

/// Activation rows `a0..a0+16` against the pair's 16 weight rows: per
/// block, one `tdpbssd` into zeroed sums, then per activation row the
/// vector kernels' `scaled += f32(sum) · (d · dx)`; the minima's chain
/// `Σ m · sx` after all blocks, and their sum last.
#[target_feature(enable = "avx512f,avx512bw,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile(
    unpacked: &[u8],
    d1: &[f32],
    d2: &[f32],
    m1: &[f32],
    m2: &[f32],
    xq: &Activations,
    a0: usize,
) -> [[f32; 2 * GROUP]; TILE] {
    let (k, kb) = (xq.k(), d1.len() / GROUP);
    let acts = xq.tile(a0, TILE);
    let rows: [_; TILE] = std::array::from_fn(|a| xq.row(a0 + a));
    let mut sums = Sums([[0; TILE]; TILE]);
    let mut scaled = [_mm512_setzero_ps(); TILE];
    for b in 0..kb {
        asm!(
            "tilezero tmm0",
            "tileloadd tmm1, [{a} + {k} * 1]",
            "tileloadd tmm2, [{w} + {wstride} * 1]",
            "tdpbssd tmm0, tmm1, tmm2",
            "tilestored [{s} + {sstride} * 1], tmm0",
            a = in(reg) acts.as_ptr().add(b * QK),
            k = in(reg) k,
            w = in(reg) unpacked.as_ptr().add(b * PAIR_BLOCK_BYTES),
            wstride = in(reg) 64usize,
            s = in(reg) sums.0.as_mut_ptr(),
            sstride = in(reg) 64usize,
            options(nostack),
        );
        let d = pair(d1, d2, b);
        for (a, acc) in scaled.iter_mut().enumerate() {
            let sum = _mm512_cvtepi32_ps(_mm512_load_si512(sums.0[a].as_ptr() as *const __m512i));
            let scale = _mm512_mul_ps(d, _mm512_set1_ps(*rows[a].d.get_unchecked(b)));
            *acc = _mm512_fmadd_ps(sum, scale, *acc);
        }
    }
    let mut minima = [_mm512_setzero_ps(); TILE];
    for b in 0..kb {
        let m = pair(m1, m2, b);
        for (a, acc) in minima.iter_mut().enumerate() {
            *acc = _mm512_fmadd_ps(m, _mm512_set1_ps(*rows[a].s.get_unchecked(b)), *acc);
        }
    }
    let mut out = [[0f32; 2 * GROUP]; TILE];
    for (a, out) in out.iter_mut().enumerate() {
        _mm512_storeu_ps(out.as_mut_ptr(), _mm512_add_ps(scaled[a], minima[a]));
    }
    out
}
