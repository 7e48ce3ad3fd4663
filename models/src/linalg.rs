//! Dense f32 products on `gemm`'s f32 kernels (runtime AVX2/AVX-512
//! dispatch), threaded with rayon only when large enough to pay for it, and
//! the row softmax both models' attention applies between them, and the
//! rule by which the element-wise steps between products share rows among
//! threads.
//!
//! The kernels are called through `gemm-f32` itself rather than the `gemm`
//! crate's generic entry point, which links the kernels of four more number
//! types (f16, f64 and two complex ones) that nothing here multiplies.

use gemm_common::Parallelism;

/// Products at least this large (m·n·k) are split across threads.
const PARALLEL_FROM: usize = 1 << 21;

/// The longest stretch of `k` one `gemm` call sums. `gemm` splits a long
/// `k` into stretches whose length it derives from the cache geometry and
/// the vector width (512 at least), and every stretch's sum is rounded into
/// the destination: left to it, one product would give other bits on
/// another CPU. Within a stretch each output is one chain of fused
/// multiply-adds in order of `k`, whatever the vector width, so splitting
/// here at a fixed length gives every machine the same bits.
const K_STRETCH: usize = 512;

/// The largest `m · n` that `gemm` sums as dot products when both operands
/// run along `k`.
const SUMS_ACROSS: usize = 16 * 16;

/// `dst (m × n, row stride dst_rs) [+]= lhs (m × k) · rhs (k × n)`, where
/// `lhs` and `rhs` are `(slice, row stride, column stride)`; `read_dst`
/// adds to what `dst` holds (a bias).
///
/// Every output is one chain of fused multiply-adds in order of `k` (per
/// stretch of [`K_STRETCH`]), so the bits are the same on AVX2 and AVX-512
/// and on any cache geometry. `gemm` sums small products whose operands
/// both run along `k` (`lhs` column stride 1, `rhs` row stride 1) with
/// vector-wide partial sums instead, whose order follows the vector width:
/// such an `rhs` is copied to rows first.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_into(
    dst: &mut [f32],
    read_dst: bool,
    m: usize,
    n: usize,
    k: usize,
    lhs: (&[f32], usize, usize),
    rhs: (&[f32], usize, usize),
    dst_rs: usize,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let par = if threads > 1 && m * n * k >= PARALLEL_FROM {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    };
    assert!(dst.len() >= (m - 1) * dst_rs + n, "dst too small");
    assert!(
        k == 0 || lhs.0.len() > (m - 1) * lhs.1 + (k - 1) * lhs.2,
        "lhs too small"
    );
    assert!(
        k == 0 || rhs.0.len() > (k - 1) * rhs.1 + (n - 1) * rhs.2,
        "rhs too small"
    );
    let rows_copy;
    let rhs = if lhs.2 == 1 && rhs.1 == 1 && k > 0 && (m * n <= SUMS_ACROSS || m == 1 || n == 1) {
        // k × n with a row stride of at least 2, which no path of gemm's
        // reads as a dot product.
        let stride = n.max(2);
        let mut copy = vec![0f32; k * stride];
        for (d, row) in copy.chunks_exact_mut(stride).enumerate() {
            for (j, v) in row[..n].iter_mut().enumerate() {
                *v = rhs.0[d + j * rhs.2];
            }
        }
        rows_copy = copy;
        (rows_copy.as_slice(), stride, 1)
    } else {
        rhs
    };
    let mut k0 = 0;
    loop {
        let len = (k - k0).min(K_STRETCH);
        // SAFETY: the strides describe matrices inside the given slices
        // (checked above; this stretch's columns of lhs and rows of rhs lie
        // within them), and dst does not alias lhs/rhs.
        unsafe {
            gemm_rows(
                (m, n, len),
                dst.as_mut_ptr(),
                dst_rs as isize,
                read_dst || k0 > 0,
                (
                    lhs.0.as_ptr().add(k0 * lhs.2),
                    lhs.1 as isize,
                    lhs.2 as isize,
                ),
                (
                    rhs.0.as_ptr().add(k0 * rhs.1),
                    rhs.1 as isize,
                    rhs.2 as isize,
                ),
                par,
            )
        }
        k0 += len;
        if k0 >= k {
            break;
        }
    }
}

/// `dst (row stride dst_rs, column stride 1) [+]= lhs · rhs`, operands as
/// `(pointer, row stride, column stride)`: the front end of `gemm`'s
/// generic entry point for this one layout. The kernels prefer a
/// column-major destination, so a row-major one (row stride above 1) is
/// computed as the transposed product `dstᵀ = rhsᵀ · lhsᵀ`, as that entry
/// point does.
///
/// # Safety
/// The strides must describe matrices inside live allocations, and `dst`
/// must not alias `lhs` or `rhs`.
unsafe fn gemm_rows(
    (m, n, k): (usize, usize, usize),
    dst: *mut f32,
    dst_rs: isize,
    read_dst: bool,
    lhs: (*const f32, isize, isize),
    rhs: (*const f32, isize, isize),
    par: Parallelism,
) {
    let kernel = gemm_f32::gemm::f32::get_gemm_fn();
    let (l, l_rs, l_cs) = lhs;
    let (r, r_rs, r_cs) = rhs;
    // SAFETY: as the caller promises; the arguments are the generic entry
    // point's after its transposition, every stride positive.
    unsafe {
        if dst_rs > 1 {
            kernel(
                n, m, k, dst, dst_rs, 1, read_dst, r, r_rs, r_cs, l, l_rs, l_cs, 1.0, 1.0, false,
                false, false, par,
            )
        } else {
            kernel(
                m, n, k, dst, 1, dst_rs, read_dst, l, l_cs, l_rs, r, r_cs, r_rs, 1.0, 1.0, false,
                false, false, par,
            )
        }
    }
}

/// Rows from which row-by-row work between products (norms, activations,
/// quantisation) is shared among the current pool's threads: left on the
/// calling thread, it kept the other core waiting through every prompt
/// chunk. Each row is computed by the same code either way, so the same
/// bits.
const PARALLEL_ROWS_FROM: usize = 16;

/// Rows one pool item takes at least once work is shared.
const ROWS_PER_ITEM: usize = 8;

/// The least number of `items` (`per_row` of them to a row) one pool item
/// takes, for rayon's `with_min_len`: a few rows' worth when there are
/// enough rows and `parallel` allows, else all of them, which keeps the
/// work on the calling thread (no split, no hand-over).
pub(crate) fn min_share(items: usize, per_row: usize, parallel: bool) -> usize {
    if parallel && items >= PARALLEL_ROWS_FROM * per_row {
        ROWS_PER_ITEM * per_row
    } else {
        items.max(1)
    }
}

/// In-place softmax of `row` scaled by `scale` (max-subtracted for stability).
pub(crate) fn softmax(row: &mut [f32], scale: f32) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    crate::exp::exp_shifted(row, max, scale);
    let sum: f32 = row.iter().fold(0.0, |sum, v| sum + v);
    let inv = 1.0 / sum;
    for s in row.iter_mut() {
        *s *= inv;
    }
}

#[cfg(test)]
mod tests {
    use super::{matmul_into, K_STRETCH};

    /// Each output as the scalar chain `matmul_into` promises: fused
    /// multiply-adds in order of `k` from zero, per stretch, each stretch's
    /// sum added to the destination.
    #[allow(clippy::too_many_arguments)]
    fn chain(
        dst: &mut [f32],
        read_dst: bool,
        (m, n, k): (usize, usize, usize),
        lhs: (&[f32], usize, usize),
        rhs: (&[f32], usize, usize),
        dst_rs: usize,
    ) {
        for i in 0..m {
            for j in 0..n {
                let mut out = if read_dst { dst[i * dst_rs + j] } else { 0.0 };
                for (s, lo) in (0..k).step_by(K_STRETCH).enumerate() {
                    let mut acc = 0f32;
                    for d in lo..(lo + K_STRETCH).min(k) {
                        let (a, b) = (lhs.0[i * lhs.1 + d * lhs.2], rhs.0[d * rhs.1 + j * rhs.2]);
                        acc = a.mul_add(b, acc);
                    }
                    out = if s == 0 && !read_dst { acc } else { out + acc };
                }
                dst[i * dst_rs + j] = out;
            }
        }
    }

    fn values(len: usize, seed: u64) -> Vec<f32> {
        let mut next = crate::test_values::uniform(seed);
        (0..len).map(|_| next()).collect()
    }

    /// The bits of every product shape the models use (small dot-product
    /// layouts, single rows and columns, a `k` longer than one stretch, a
    /// threaded one) are those of the scalar chain, so no CPU's vector
    /// width or cache geometry can change them.
    #[test]
    fn products_are_the_scalar_chain_of_fused_multiply_adds() {
        // (m, n, k, rhs along k, read_dst, threads)
        let shapes = [
            (12, 12, 32, true, false, 1),
            (1, 9, 64, true, false, 1),
            (9, 1, 64, true, false, 1),
            (16, 16, 40, false, false, 1),
            (24, 70, 1536, false, true, 1),
            (40, 33, 700, true, false, 1),
            (300, 96, 384, false, true, 2),
        ];
        for (case, &(m, n, k, along_k, read_dst, threads)) in shapes.iter().enumerate() {
            let lhs = values(m * k, 1 + case as u64);
            let rhs = values(k * n, 100 + case as u64);
            // rhs (k × n): along k, (d, j) at j·k + d; else at d·n + j.
            let r = if along_k {
                (rhs.as_slice(), 1, k)
            } else {
                (rhs.as_slice(), n, 1)
            };
            let start = values(m * n, 200 + case as u64);
            let (mut got, mut want) = (start.clone(), start);
            matmul_into(&mut got, read_dst, m, n, k, (&lhs, k, 1), r, n, threads);
            chain(&mut want, read_dst, (m, n, k), (&lhs, k, 1), r, n);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{m} × {n} × {k}");
        }
    }
}
