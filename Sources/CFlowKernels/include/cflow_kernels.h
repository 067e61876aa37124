// Resampling kernels for CPUs with AVX2 and FMA, chosen at run time.
//
// Swift compiles for the baseline x86-64 (SSE2) and cannot target one function at a newer instruction set;
// C can (`__attribute__((target))`), so the two resampling passes have AVX2+FMA versions here, called only
// when `cflow_has_avx2_fma()` says the CPU has both. Elsewhere FlowImaging's portable Swift passes run, or, for the
// fixed-point resize of opaque images, the scalar C versions beside the AVX2 ones.
#ifndef CFLOW_KERNELS_H
#define CFLOW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// 1 when the CPU supports AVX2 and FMA (always 0 off x86-64).
int cflow_has_avx2_fma(void);

/// Horizontal pass: for each of `rows` rows of `in_width` RGBA8 pixels, output pixel `x` (of `out_width`) is
/// Σ_t weights[x * stride + t] · pixel[starts[x] + t] over `counts[x]` taps, as four floats in `middle`.
/// `weights` holds each weight splatted to four floats (`4 * out_width * stride` floats, `stride` even, taps
/// past `counts[x]` zero); `row` is scratch for `2 * (in_width + 1)` pixels as floats (rows are done in pairs).
/// R, G and B are multiplied by A / 255 once widened (the fixed-point kernels below serve opaque images).
void cflow_resample_horizontal_avx2(
    const uint8_t *source, ptrdiff_t in_width, ptrdiff_t rows, const float *weights, ptrdiff_t stride,
    const ptrdiff_t *starts, const ptrdiff_t *counts, ptrdiff_t out_width, float *row, float *middle);

/// Vertical taps of two output rows over one window: `a[i] = Σ_t wa[t] · rows[t * row_length + i]` and
/// likewise `b` with `wb`, for `taps` rows of `row_length` floats.
void cflow_resample_vertical_pair_avx2(
    const float *rows, ptrdiff_t row_length, ptrdiff_t taps, const float *wa, const float *wb, float *a, float *b);

/// A 3×3 colour matrix (`m` row by row) on `count` RGBA8 pixels: each of R, G, B becomes its row · (R, G, B),
/// plus ½, clamped to 0…255 and truncated (so rounded); alpha is copied.
void cflow_color_matrix_avx2(const uint8_t *source, uint8_t *destination, ptrdiff_t count, const float m[9]);

/// `count` floats to bytes: each clamped to 0…255, plus ½, truncated (so rounded).
void cflow_round_to_bytes_avx2(const float *values, ptrdiff_t count, uint8_t *bytes);

/// Horizontal Gaussian taps over one row: `padded` holds `width + 2 * radius` RGBA pixels as floats (the row with
/// its edge pixels repeated `radius` times on each side); `out[i] = Σ_k weights[k] · padded[i + 4k]` for the
/// `4 * width` floats of `out`, over the `2 * radius + 1` weights. `avx2` non-zero (only where
/// `cflow_has_avx2_fma()` says so) picks the AVX2+FMA version, whose sums differ only by float rounding.
void cflow_gaussian_row(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out, int avx2);

/// Vertical taps: `out[i] = Σ_k weights[k] · rows[k][i]` for `k < taps` and `i < length`; `taps` is odd and the
/// weights symmetric. `avx2` as above.
void cflow_weighted_rows(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out, int avx2);

/// One RGBA8 row of `width` pixels widened to floats (colour premultiplied by alpha if asked) at
/// `padded + 4 * radius`, its first and last pixels repeated `radius` times before and after.
void cflow_widen_padded(const uint8_t *row, ptrdiff_t width, ptrdiff_t radius, int premultiply, float *padded);

/// `count` blurred RGBA pixels (floats, premultiplied if `premultiplied`) to RGBA8: colour divided by alpha when
/// premultiplied, each channel clamped to 0…255 and rounded to nearest.
void cflow_blur_finish(const float *sums, ptrdiff_t count, int premultiplied, uint8_t *out);

/// The unsharp mask of `count` pixels: each colour channel `o` of `original` becomes `o + amount · (o − b)`, `b` its
/// blurred value from `sums` (divided by alpha when `premultiplied`), clamped and rounded, where |o − b| ≥
/// `threshold`, and stays `o` elsewhere; alpha is copied.
void cflow_sharpen_finish(
    const float *sums, const uint8_t *original, ptrdiff_t count, int premultiplied, float amount, float threshold,
    uint8_t *out);

/// Rotation by any angle: output rows `first_row` ..< `end_row` of `out_width` RGBA8 pixels, each sampling the
/// `width` × `height` RGBA8 `source` bilinearly at (sx, sy) = (t0·x + t1·y + t2, t3·x + t4·y + t5) for its centre
/// (x, y) = (ox + ½, oy + ½), in source pixel coordinates (pixel centres at whole numbers). Taps outside the source
/// read `fill` (RGBA floats, premultiplied if `premultiply`). With `premultiply` the taps are premultiplied by alpha
/// and the result divided by its alpha; every channel is then clamped to 0…255 and rounded to nearest. Without it,
/// pixels whose taps all lie inside are mixed in fixed point at the point rounded to a 256th of a pixel (x86-64):
/// within a level of the exact bilinear value, as the float path is.
void cflow_rotate_rows(
    const uint8_t *source, ptrdiff_t width, ptrdiff_t height, uint8_t *output, ptrdiff_t out_width,
    ptrdiff_t first_row, ptrdiff_t end_row, const float transform[6], const float fill[4], int premultiply);

/// A quarter turn of `width` × `height` pixels (32-bit words, any channel order): source rows `first_row` ..<
/// `end_row` are written to the `height` × `width` `output`, turned clockwise if `clockwise`, else anticlockwise.
void cflow_rotate_quarter(
    const uint32_t *source, ptrdiff_t width, ptrdiff_t height, uint32_t *output, ptrdiff_t first_row,
    ptrdiff_t end_row, int clockwise);

/// One row of `width` pixels (32-bit words) written to `output` in reverse order; `output` must not overlap it.
void cflow_reverse_row(const uint32_t *source, ptrdiff_t width, uint32_t *output);

/// Fixed-point horizontal pass over one row of opaque RGBA8 pixels: output pixel `x` (of `out_width`) is
/// Σ_k coefficients[x * stride + k] · pixel[starts[x] + k] over `counts[x]` taps, per channel, plus half of
/// 2^`shift`, shifted right by `shift` (flooring) and saturated to int16. `stride` is a multiple of 4 and the
/// coefficients past `counts[x]` are 0; the AVX2 version reads taps four at a time, so `row` must be readable for
/// 3 pixels past the last one. The sums are exact integers: both versions give the same values. `avx2` non-zero
/// only where `cflow_has_avx2_fma()` says so.
void cflow_resample_fixed_row(
    const uint8_t *row, const int16_t *coefficients, ptrdiff_t stride, const ptrdiff_t *starts,
    const ptrdiff_t *counts, ptrdiff_t out_width, int shift, int16_t *out, int avx2);

/// Fixed-point vertical pass: `out[i]` = (Σ_k weights[k] · rows[k][i] + 2^(`shift` − 1)) >> `shift`, clamped to
/// 0…255, for `k < taps` and `i < length`. Exact integer sums: both versions give the same bytes.
void cflow_resample_fixed_rows(
    const int16_t *const *rows, const int16_t *weights, ptrdiff_t taps, int shift, ptrdiff_t length, uint8_t *out,
    int avx2);

#endif
