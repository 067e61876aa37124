// Rotation by any angle, bilinear, for `rotate`: see cflow_kernels.h.

#include <string.h>

#include "cflow_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>

// The four taps of an opaque interior pixel at once: the two pixels at `p` and the two at `q` widened to floats,
// weighted, summed, clamped, rounded and stored as one RGBA8 pixel.
static inline void interior_sse2(
    const uint8_t *p, const uint8_t *q, float w00, float w10, float w01, float w11, uint8_t *out) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i top = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)p), zero);
    const __m128i bottom = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)q), zero);
    __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(top, zero)), _mm_set1_ps(w00));
    v = _mm_add_ps(v, _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(top, zero)), _mm_set1_ps(w10)));
    v = _mm_add_ps(v, _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(bottom, zero)), _mm_set1_ps(w01)));
    v = _mm_add_ps(v, _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(bottom, zero)), _mm_set1_ps(w11)));
    v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), _mm_set1_ps(255.0f));
    const __m128i whole = _mm_cvttps_epi32(_mm_add_ps(v, _mm_set1_ps(0.5f)));
    const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(whole, whole), zero);
    const int32_t pixel = _mm_cvtsi128_si32(bytes);
    memcpy(out, &pixel, 4);
}
#endif

// The RGBA of source pixel (x, y) as floats, premultiplied if asked, or `fill` outside the picture.
static inline void tap(
    const uint8_t *source, ptrdiff_t width, ptrdiff_t height, ptrdiff_t x, ptrdiff_t y, int premultiply,
    const float fill[4], float out[4]) {
    if (x < 0 || y < 0 || x >= width || y >= height) {
        for (int c = 0; c < 4; c++) out[c] = fill[c];
        return;
    }
    const uint8_t *p = source + (y * width + x) * 4;
    const float scale = premultiply ? p[3] / 255.0f : 1.0f;
    for (int c = 0; c < 3; c++) out[c] = p[c] * scale;
    out[3] = p[3];
}

static inline uint8_t to_byte(float v) { return (uint8_t)(int32_t)((v < 0 ? 0 : v > 255 ? 255 : v) + 0.5f); }

void cflow_rotate_rows(
    const uint8_t *source, ptrdiff_t width, ptrdiff_t height, uint8_t *output, ptrdiff_t out_width,
    ptrdiff_t first_row, ptrdiff_t end_row, const float transform[6], const float fill[4], int premultiply) {
    for (ptrdiff_t oy = first_row; oy < end_row; oy++) {
        uint8_t *row = output + oy * out_width * 4;
        // Source coordinates of the output pixel centre (ox + ½, oy + ½), stepped along the row.
        float sx = transform[0] * 0.5f + transform[1] * (oy + 0.5f) + transform[2];
        float sy = transform[3] * 0.5f + transform[4] * (oy + 0.5f) + transform[5];
        for (ptrdiff_t ox = 0; ox < out_width; ox++, sx += transform[0], sy += transform[3]) {
            // floor without a libm call (baseline x86-64 has no rounding instruction): truncate, then step down
            // for negatives.
            ptrdiff_t x0 = (ptrdiff_t)sx, y0 = (ptrdiff_t)sy;
            x0 -= sx < (float)x0;
            y0 -= sy < (float)y0;
            const float fx = sx - (float)x0, fy = sy - (float)y0;
            const float w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
            float v[4];
            if (x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height) {
                const uint8_t *p = source + (y0 * width + x0) * 4, *q = p + width * 4;
#if defined(__SSE2__)
                if (!premultiply) {
                    interior_sse2(p, q, w00, w10, w01, w11, row + ox * 4);
                    continue;
                }
#endif
                if (premultiply) {
                    const float a00 = p[3] * w00 / 255.0f, a10 = p[7] * w10 / 255.0f;
                    const float a01 = q[3] * w01 / 255.0f, a11 = q[7] * w11 / 255.0f;
                    for (int c = 0; c < 3; c++) v[c] = p[c] * a00 + p[c + 4] * a10 + q[c] * a01 + q[c + 4] * a11;
                    v[3] = p[3] * w00 + p[7] * w10 + q[3] * w01 + q[7] * w11;
                } else {
                    for (int c = 0; c < 4; c++) v[c] = p[c] * w00 + p[c + 4] * w10 + q[c] * w01 + q[c + 4] * w11;
                }
            } else {
                float t00[4], t10[4], t01[4], t11[4];
                tap(source, width, height, x0, y0, premultiply, fill, t00);
                tap(source, width, height, x0 + 1, y0, premultiply, fill, t10);
                tap(source, width, height, x0, y0 + 1, premultiply, fill, t01);
                tap(source, width, height, x0 + 1, y0 + 1, premultiply, fill, t11);
                for (int c = 0; c < 4; c++) v[c] = t00[c] * w00 + t10[c] * w10 + t01[c] * w01 + t11[c] * w11;
            }
            const float scale = premultiply ? (v[3] > 0 ? 255.0f / v[3] : 0.0f) : 1.0f;
            for (int c = 0; c < 3; c++) row[ox * 4 + c] = to_byte(v[c] * scale);
            row[ox * 4 + 3] = to_byte(v[3]);
        }
    }
}

void cflow_rotate_quarter(
    const uint32_t *source, ptrdiff_t width, ptrdiff_t height, uint32_t *output, ptrdiff_t first_row,
    ptrdiff_t end_row, int clockwise) {
    // Source pixel (sx, sy) lands at (h−1−sy, sx) clockwise, (sy, w−1−sx) anticlockwise, in the h × w result. The
    // source is walked in 32×32 tiles so that the rows written stay in cache too.
    enum { tile = 32 };
    for (ptrdiff_t ty = first_row; ty < end_row; ty += tile) {
        const ptrdiff_t y_end = ty + tile < end_row ? ty + tile : end_row;
        for (ptrdiff_t tx = 0; tx < width; tx += tile) {
            const ptrdiff_t x_end = tx + tile < width ? tx + tile : width;
            for (ptrdiff_t sy = ty; sy < y_end; sy++) {
                const uint32_t *row = source + sy * width;
                if (clockwise) {
                    uint32_t *column = output + (height - 1 - sy);
                    for (ptrdiff_t sx = tx; sx < x_end; sx++) column[sx * height] = row[sx];
                } else {
                    uint32_t *column = output + sy;
                    for (ptrdiff_t sx = tx; sx < x_end; sx++) column[(width - 1 - sx) * height] = row[sx];
                }
            }
        }
    }
}
