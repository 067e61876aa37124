// Separable Gaussian kernels for `blur` and `sharpen`: plain C loops over contiguous floats that the compiler
// vectorises, built twice on x86-64 (baseline SSE2 and AVX2+FMA) and picked at run time.

#include "cflow_kernels.h"

#if defined(__x86_64__)
#define CFLOW_AVX2 __attribute__((target("avx2,fma")))
#endif

// Horizontal taps: `padded` holds `width + 2 * radius` RGBA pixels as floats (the row with its edge pixels
// repeated `radius` times on each side); out[i] = Σ_k weights[k] · padded[i + 4k] for the `4 * width` floats.
// (Pairing the symmetric taps, as the vertical pass does, measured three times slower here: clang then leaves the
// loop scalar.)
#define CFLOW_GAUSSIAN_ROW_BODY                                                                                   \
    const ptrdiff_t length = 4 * width;                                                                          \
    for (ptrdiff_t i = 0; i < length; i++) out[i] = weights[0] * padded[i];                                     \
    for (ptrdiff_t k = 1; k <= 2 * radius; k++) {                                                                \
        const float w = weights[k];                                                                              \
        const float *from = padded + 4 * k;                                                                      \
        for (ptrdiff_t i = 0; i < length; i++) out[i] += w * from[i];                                           \
    }

// Vertical taps, in chunks that stay in L1: out[i] = Σ_k weights[k] · rows[k][i], the weights symmetric
// (weights[k] = weights[taps − 1 − k], taps odd) so that each pair of rows costs one multiply.
#define CFLOW_WEIGHTED_ROWS_BODY                                                                                  \
    const ptrdiff_t centre = taps / 2;                                                                           \
    for (ptrdiff_t start = 0; start < length; start += 2048) {                                                   \
        const ptrdiff_t end = start + 2048 < length ? start + 2048 : length;                                     \
        for (ptrdiff_t i = start; i < end; i++) out[i] = weights[centre] * rows[centre][i];                     \
        for (ptrdiff_t k = 0; k < centre; k++) {                                                                 \
            const float w = weights[k];                                                                          \
            const float *above = rows[k], *below = rows[taps - 1 - k];                                           \
            for (ptrdiff_t i = start; i < end; i++) out[i] += w * (above[i] + below[i]);                        \
        }                                                                                                        \
    }

static void gaussian_row_generic(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    CFLOW_GAUSSIAN_ROW_BODY
}

static void weighted_rows_generic(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    CFLOW_WEIGHTED_ROWS_BODY
}

#if defined(__x86_64__)
CFLOW_AVX2 static void gaussian_row_avx2(
    const float *padded, ptrdiff_t width, const float *weights, ptrdiff_t radius, float *out) {
    CFLOW_GAUSSIAN_ROW_BODY
}

CFLOW_AVX2 static void weighted_rows_avx2(
    const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t length, float *out) {
    CFLOW_WEIGHTED_ROWS_BODY
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
