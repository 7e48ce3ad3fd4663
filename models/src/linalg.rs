//! Dense f32 products on `gemm` (runtime AVX2/AVX-512 dispatch), threaded
//! with rayon only when large enough to pay for it, and the row softmax both
//! models' attention applies between them.

use gemm::Parallelism;

/// Products at least this large (m·n·k) are split across threads.
const PARALLEL_FROM: usize = 1 << 21;

/// `dst (m × n, row stride dst_rs) [+]= lhs (m × k) · rhs (k × n)`, where
/// `lhs` and `rhs` are `(slice, row stride, column stride)`; `read_dst`
/// adds to what `dst` holds (a bias).
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
    // SAFETY: the strides describe matrices inside the given slices (the
    // callers' layouts; dst checked above), and dst does not alias lhs/rhs.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            dst_rs as isize,
            read_dst,
            lhs.0.as_ptr(),
            lhs.2 as isize,
            lhs.1 as isize,
            rhs.0.as_ptr(),
            rhs.2 as isize,
            rhs.1 as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            par,
        )
    }
}

/// In-place softmax of `row` scaled by `scale` (max-subtracted for stability).
pub(crate) fn softmax(row: &mut [f32], scale: f32) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for s in row.iter_mut() {
        *s = ((*s - max) * scale).exp();
        sum += *s;
    }
    let inv = 1.0 / sum;
    for s in row.iter_mut() {
        *s *= inv;
    }
}
