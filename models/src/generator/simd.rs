//! x86-64 building blocks the block kernels share.
//!
//! The 8-bit products come in instruction sets that give the same
//! integers: AVX2 (`maddubs` to 16-bit pairs, then `madd` to 32 bits; a
//! pair never saturates, since one side stays within ±127 and the other
//! within 0..=127) and VNNI's `dpbusd`, one instruction, in its AVX-VNNI
//! form or its AVX-512 VNNI form on 256-bit registers (CPUs with AVX-512
//! but not AVX-VNNI, such as AMD Zen 4). A block's products are summed in
//! integers, exactly, and the float work around them is shared code, so a
//! kernel gives the same bits on any of them, and VNNI is only faster.
//!
//! 4-bit weights leave AVX2 room to spare: a `maddubs` pair of nibble
//! products is at most 2 · 15 · 127, so a block's eight `maddubs` add up
//! in 16 bits (at most 30,480 a lane) and widen once, with one `madd`,
//! instead of once each: 9 multiplies a block instead of 16, the same
//! integers.

use std::arch::x86_64::*;

/// Adds to each of eight 32-bit lanes of `acc` the four `u8 × i8` products
/// of its four byte pairs.
pub(super) trait ByteDot {
    /// # Safety
    /// The instruction set of the implementor must be available.
    unsafe fn dot_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i;

    /// [`ByteDot::dot_add`] where every byte of `u` is a nibble (at most
    /// 15), into a partial sum that only [`ByteDot::nibble_sum`] reads. A
    /// block's two partials take at most eight of these between them.
    ///
    /// # Safety
    /// As [`ByteDot::dot_add`].
    #[inline(always)]
    unsafe fn nibble_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        Self::dot_add(acc, u, s)
    }

    /// The eight 32-bit lane sums of two nibble partials.
    ///
    /// # Safety
    /// As [`ByteDot::dot_add`].
    #[inline(always)]
    unsafe fn nibble_sum(a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi32(a, b)
    }
}

/// AVX2: `maddubs` then `madd` with ones, then an add.
pub(super) struct Avx2;

/// AVX-VNNI's `dpbusd`.
pub(super) struct Vnni;

/// AVX-512 VNNI's `dpbusd` on 256-bit registers (AVX-512VL).
pub(super) struct Vnni512;

impl ByteDot for Avx2 {
    #[inline(always)]
    unsafe fn dot_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        let pairs = _mm256_maddubs_epi16(u, s);
        _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }

    /// Sixteen 16-bit sums of product pairs, each at most 2 · 15 · 127 per
    /// call, so eight calls over two partials stay below 2^15.
    #[inline(always)]
    unsafe fn nibble_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        _mm256_add_epi16(acc, _mm256_maddubs_epi16(u, s))
    }

    #[inline(always)]
    unsafe fn nibble_sum(a: __m256i, b: __m256i) -> __m256i {
        _mm256_madd_epi16(_mm256_add_epi16(a, b), _mm256_set1_epi16(1))
    }
}

impl ByteDot for Vnni {
    #[inline(always)]
    unsafe fn dot_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, u, s)
    }
}

impl ByteDot for Vnni512 {
    #[inline(always)]
    unsafe fn dot_add(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        _mm256_dpbusd_epi32(acc, u, s)
    }
}

/// Block `b`'s eight values of `first` then of `second` (two groups'
/// scales or minima), in one 512-bit vector.
///
/// # Safety
/// AVX-512F must be available; both slices hold block `b`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn pair(first: &[f32], second: &[f32], b: usize) -> __m512 {
    const GROUP: usize = 8;
    let lo = _mm256_castps_pd(_mm256_loadu_ps(first.as_ptr().add(b * GROUP)));
    let hi = _mm256_castps_pd(_mm256_loadu_ps(second.as_ptr().add(b * GROUP)));
    _mm512_castpd_ps(_mm512_insertf64x4::<1>(_mm512_castpd256_pd512(lo), hi))
}

/// The 32 nibble bytes at `at` of two groups, first group's then the
/// second's, as their low nibbles and their high nibbles (each a byte of
/// at most 15).
///
/// # Safety
/// AVX-512F and AVX-512BW must be available; both slices hold 32 bytes
/// from `at`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) unsafe fn nibble_pair(first: &[u8], second: &[u8], at: usize) -> (__m512i, __m512i) {
    let low = _mm512_set1_epi8(0x0F);
    let one = _mm256_loadu_si256(first.as_ptr().add(at) as *const __m256i);
    let two = _mm256_loadu_si256(second.as_ptr().add(at) as *const __m256i);
    let raw = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(one), two);
    (
        _mm512_and_si512(raw, low),
        _mm512_and_si512(_mm512_srli_epi16::<4>(raw), low),
    )
}

/// Sum of the eight lanes of `v`, in a fixed order.
///
/// # Safety
/// AVX must be available.
#[inline(always)]
pub(super) unsafe fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps::<0b01>(s, s));
    _mm_cvtss_f32(s)
}
