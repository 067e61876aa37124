// Separable Gaussian kernels for `blur` and `sharpen`: plain C loops over contiguous floats that the compiler
// vectorises, and on x86-64 AVX2+FMA versions of the two passes picked at run time.

#include "cflow_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CFLOW_AVX2 __attribute__((target("avx2,fma")))
#endif

// Horizontal taps: `padded` holds `width + 2 * radius` RGBA pixels as floats (the row with its edge pixels
// repeated `radius` times on each side); out[i] = Σ_k weights[k] · padded[i + 4k] for the `4 * width` floats.
// (Pairing the symmetric taps, as the vertical pass does, measured three times slower here: clang then leaves the
// loop scalar.)
static void gaussian_row_generic(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    const ptrdiff_t length = 4 * width;
    for (ptrdiff_t i = 0; i < length; i++) out[i] = weights[0] * padded[i];
    for (ptrdiff_t k = 1; k <= 2 * radius; k++) {
        const float w = weights[k];
        const float *from = padded + 4 * k;
        for (ptrdiff_t i = 0; i < length; i++) out[i] += w * from[i];
    }
}

// Vertical taps, in chunks that stay in L1: out[i] = Σ_k weights[k] · rows[k][i], the weights symmetric
// (weights[k] = weights[taps − 1 − k], taps odd) so that each pair of rows costs one multiply.
static void weighted_rows_generic(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    const ptrdiff_t centre = taps / 2;
    for (ptrdiff_t start = 0; start < length; start += 2048) {
        const ptrdiff_t end = start + 2048 < length ? start + 2048 : length;
        for (ptrdiff_t i = start; i < end; i++) out[i] = weights[centre] * rows[centre][i];
        for (ptrdiff_t k = 0; k < centre; k++) {
            const float w = weights[k];
            const float *above = rows[k], *below = rows[taps - 1 - k];
            for (ptrdiff_t i = start; i < end; i++) out[i] += w * (above[i] + below[i]);
        }
    }
}

#if defined(__x86_64__)
// The AVX2 builds keep 32 outputs in four registers across all the taps and store them once: the plain loops above
// read and write the whole output row once per tap, which for a photo's row (32 KB of floats) runs from L2.
CFLOW_AVX2 static void gaussian_row_avx2(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    const ptrdiff_t length = 4 * width, taps = 2 * radius + 1;
    ptrdiff_t i = 0;
    for (; i + 32 <= length; i += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (ptrdiff_t k = 0; k < taps; k++) {
            const __m256 w = _mm256_broadcast_ss(weights + k);
            const float *from = padded + i + 4 * k;
            a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(from), a0);
            a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(from + 8), a1);
            a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(from + 16), a2);
            a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(from + 24), a3);
        }
        _mm256_storeu_ps(out + i, a0);
        _mm256_storeu_ps(out + i + 8, a1);
        _mm256_storeu_ps(out + i + 16, a2);
        _mm256_storeu_ps(out + i + 24, a3);
    }
    for (; i < length; i += 4) {
        __m128 a = _mm_setzero_ps();
        for (ptrdiff_t k = 0; k < taps; k++) {
            a = _mm_fmadd_ps(_mm_set1_ps(weights[k]), _mm_loadu_ps(padded + i + 4 * k), a);
        }
        _mm_storeu_ps(out + i, a);
    }
}

CFLOW_AVX2 static void weighted_rows_avx2(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    const ptrdiff_t centre = taps / 2;
    ptrdiff_t i = 0;
    for (; i + 32 <= length; i += 32) {
        const __m256 wc = _mm256_broadcast_ss(weights + centre);
        const float *middle = rows[centre] + i;
        __m256 a0 = _mm256_mul_ps(wc, _mm256_loadu_ps(middle));
        __m256 a1 = _mm256_mul_ps(wc, _mm256_loadu_ps(middle + 8));
        __m256 a2 = _mm256_mul_ps(wc, _mm256_loadu_ps(middle + 16));
        __m256 a3 = _mm256_mul_ps(wc, _mm256_loadu_ps(middle + 24));
        for (ptrdiff_t k = 0; k < centre; k++) {
            const __m256 w = _mm256_broadcast_ss(weights + k);
            const float *above = rows[k] + i, *below = rows[taps - 1 - k] + i;
            a0 = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(above), _mm256_loadu_ps(below)), a0);
            a1 = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(above + 8), _mm256_loadu_ps(below + 8)), a1);
            a2 = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(above + 16), _mm256_loadu_ps(below + 16)), a2);
            a3 = _mm256_fmadd_ps(w, _mm256_add_ps(_mm256_loadu_ps(above + 24), _mm256_loadu_ps(below + 24)), a3);
        }
        _mm256_storeu_ps(out + i, a0);
        _mm256_storeu_ps(out + i + 8, a1);
        _mm256_storeu_ps(out + i + 16, a2);
        _mm256_storeu_ps(out + i + 24, a3);
    }
    for (; i < length; i++) {
        float a = weights[centre] * rows[centre][i];
        for (ptrdiff_t k = 0; k < centre; k++) a += weights[k] * (rows[k][i] + rows[taps - 1 - k][i]);
        out[i] = a;
    }
}
#endif

void cflow_gaussian_row(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out, int avx2) {
#if defined(__x86_64__)
    if (avx2) {
        gaussian_row_avx2(padded, width, weights, radius, out);
        return;
    }
#endif
    (void)avx2;
    gaussian_row_generic(padded, width, weights, radius, out);
}

void cflow_weighted_rows(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out, int avx2) {
#if defined(__x86_64__)
    if (avx2) {
        weighted_rows_avx2(rows, weights, taps, length, out);
        return;
    }
#endif
    (void)avx2;
    weighted_rows_generic(rows, weights, taps, length, out);
}

static inline uint8_t gaussian_byte(float v) { return (uint8_t)(int32_t)((v < 0 ? 0 : v > 255 ? 255 : v) + 0.5f); }

void cflow_widen_padded(const uint8_t *row, ptrdiff_t width, ptrdiff_t radius, int premultiply, float *padded) {
    float *body = padded + radius * 4;
    for (ptrdiff_t i = 0; i < width * 4; i++) body[i] = row[i];
    if (premultiply) {
        for (ptrdiff_t p = 0; p < width; p++) {
            const float scale = body[p * 4 + 3] / 255.0f;
            for (int c = 0; c < 3; c++) body[p * 4 + c] *= scale;
        }
    }
    for (ptrdiff_t k = 0; k < radius; k++) {
        for (int c = 0; c < 4; c++) {
            padded[k * 4 + c] = body[c];
            body[(width + k) * 4 + c] = body[(width - 1) * 4 + c];
        }
    }
}

void cflow_blur_finish(const float *sums, ptrdiff_t count, int premultiplied, uint8_t *out) {
    if (!premultiplied) {
        for (ptrdiff_t i = 0; i < count * 4; i++) out[i] = gaussian_byte(sums[i]);
        return;
    }
    for (ptrdiff_t p = 0; p < count; p++) {
        const float alpha = sums[p * 4 + 3];
        const float scale = alpha > 0 ? 255.0f / alpha : 0.0f;
        for (int c = 0; c < 3; c++) out[p * 4 + c] = gaussian_byte(sums[p * 4 + c] * scale);
        out[p * 4 + 3] = gaussian_byte(alpha);
    }
}

void cflow_sharpen_finish(
    const float *sums, const uint8_t *original, ptrdiff_t count, int premultiplied, float amount, float threshold,
    uint8_t *out) {
    for (ptrdiff_t p = 0; p < count; p++) {
        const float alpha = sums[p * 4 + 3];
        const float scale = premultiplied ? (alpha > 0 ? 255.0f / alpha : 0.0f) : 1.0f;
        for (int c = 0; c < 3; c++) {
            const float o = original[p * 4 + c];
            const float difference = o - sums[p * 4 + c] * scale;
            const float magnitude = difference < 0 ? -difference : difference;
            out[p * 4 + c] = magnitude >= threshold ? gaussian_byte(o + amount * difference) : original[p * 4 + c];
        }
        out[p * 4 + 3] = original[p * 4 + 3];
    }
}
