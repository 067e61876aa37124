// Rotation by any angle, bilinear, for `rotate`: see cflow_kernels.h.

#include <string.h>

#include "cflow_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>

// The four taps of an opaque interior pixel in fixed point: `p` holds the top two pixels, `q` the bottom two, `fx` and
// `fy` the fractions in 256ths of a pixel (0…256). The horizontal mixes keep 1/128 of a level, the vertical mix
// rounds once to nearest: within half a level of the exact bilinear value at the 256th-pixel position.
static inline void interior_sse2(const uint8_t *p, const uint8_t *q, int fx, int fy, uint8_t *out) {
    const __m128i zero = _mm_setzero_si128();
    // Left column (top-left, bottom-left) and right column (top-right, bottom-right), four 16-bit channels each.
    const __m128i top = _mm_loadl_epi64((const __m128i *)p), bottom = _mm_loadl_epi64((const __m128i *)q);
    const __m128i pairs = _mm_unpacklo_epi32(top, bottom);
    const __m128i left = _mm_unpacklo_epi8(pairs, zero), right = _mm_unpackhi_epi8(pairs, zero);
    // left · (256 − fx) + right · fx ≤ 255 · 256 fits 16 unsigned bits; halved, it fits the signed ones madd takes.
    const __m128i mixed = _mm_add_epi16(
        _mm_mullo_epi16(left, _mm_set1_epi16((short)(256 - fx))), _mm_mullo_epi16(right, _mm_set1_epi16((short)fx)));
    const __m128i rows = _mm_srli_epi16(mixed, 1);
    // Top and bottom of each channel side by side, weighted (256 − fy, fy) and summed: 2^15 times the value.
    const __m128i columns = _mm_unpacklo_epi16(rows, _mm_srli_si128(rows, 8));
    const __m128i weights = _mm_set1_epi32((int)(((unsigned)fy << 16) | (unsigned)(256 - fy)));
    const __m128i sums = _mm_madd_epi16(columns, weights);
    const __m128i whole = _mm_srli_epi32(_mm_add_epi32(sums, _mm_set1_epi32(1 << 14)), 15);
    const int32_t pixel = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(whole, whole), zero));
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

// One output pixel sampled bilinearly in floats at (x0 + fx, y0 + fy): premultiplied if asked, taps outside the
// picture reading `fill`.
static void bilinear_pixel(
    const uint8_t *source, ptrdiff_t width, ptrdiff_t height, ptrdiff_t x0, ptrdiff_t y0, float fx, float fy,
    int premultiply, const float fill[4], uint8_t *out) {
    const float w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
    float v[4];
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height) {
        const uint8_t *p = source + (y0 * width + x0) * 4, *q = p + width * 4;
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
    for (int c = 0; c < 3; c++) out[c] = to_byte(v[c] * scale);
    out[3] = to_byte(v[3]);
}

void cflow_rotate_rows(
    const uint8_t *source, ptrdiff_t width, ptrdiff_t height, uint8_t *output, ptrdiff_t out_width,
    ptrdiff_t first_row, ptrdiff_t end_row, const float transform[6], const float fill[4], int premultiply) {
    // Source coordinates in 32.32 fixed point, stepped along the row with integer adds: no float-to-int conversion
    // per pixel, and 2^-32 steps keep a row's drift far below a 256th of a pixel.
    const double one = 4294967296.0;
    const int64_t step_x = (int64_t)(transform[0] * one), step_y = (int64_t)(transform[3] * one);
    // The rows are walked in spans of 128 pixels: a span of every row in the band reads a patch of the source that
    // stays in L1, where a whole output row would read a slanted line across hundreds of source rows.
    enum { span = 128 };
    // What a pixel whose four taps all miss the picture becomes, worked out once.
    uint8_t background[4];
    const float fill_scale = premultiply ? (fill[3] > 0 ? 255.0f / fill[3] : 0.0f) : 1.0f;
    for (int c = 0; c < 3; c++) background[c] = to_byte(fill[c] * fill_scale);
    background[3] = to_byte(fill[3]);
    for (ptrdiff_t span_start = 0; span_start < out_width; span_start += span) {
        const ptrdiff_t span_end = span_start + span < out_width ? span_start + span : out_width;
        for (ptrdiff_t oy = first_row; oy < end_row; oy++) {
            uint8_t *row = output + oy * out_width * 4;
            // The source point of the output pixel centre (span_start + ½, oy + ½).
            const double start_x = transform[0] * (span_start + 0.5) + transform[1] * (oy + 0.5) + transform[2];
            const double start_y = transform[3] * (span_start + 0.5) + transform[4] * (oy + 0.5) + transform[5];
            int64_t sx = (int64_t)(start_x * one), sy = (int64_t)(start_y * one);
            for (ptrdiff_t ox = span_start; ox < span_end; ox++, sx += step_x, sy += step_y) {
                // Arithmetic shifts: the floor, also for points left of or above the picture.
                const ptrdiff_t x0 = (ptrdiff_t)(sx >> 32), y0 = (ptrdiff_t)(sy >> 32);
                const uint32_t frac_x = (uint32_t)sx, frac_y = (uint32_t)sy;
#if defined(__SSE2__)
                if (!premultiply && (size_t)x0 < (size_t)(width - 1) && (size_t)y0 < (size_t)(height - 1)) {
                    const uint8_t *p = source + (y0 * width + x0) * 4;
                    // The fractions rounded to 256ths: 0…256.
                    const int fx = (int)(((uint64_t)frac_x + (1u << 23)) >> 24);
                    const int fy = (int)(((uint64_t)frac_y + (1u << 23)) >> 24);
                    interior_sse2(p, p + width * 4, fx, fy, row + ox * 4);
                    continue;
                }
#endif
                if (x0 < -1 || y0 < -1 || x0 >= width || y0 >= height) {
                    memcpy(row + ox * 4, background, 4);
                    continue;
                }
                bilinear_pixel(
                    source, width, height, x0, y0, (float)frac_x / (float)one, (float)frac_y / (float)one, premultiply,
                    fill, row + ox * 4);
            }
        }
    }
}

// Source pixel (sx, sy) lands at (h−1−sy, sx) clockwise, (sy, w−1−sx) anticlockwise, in the h × w result.
static inline void turn_pixel(
    const uint32_t *source, ptrdiff_t width, ptrdiff_t height, uint32_t *output, ptrdiff_t sx, ptrdiff_t sy,
    int clockwise) {
    if (clockwise) {
        output[sx * height + height - 1 - sy] = source[sy * width + sx];
    } else {
        output[(width - 1 - sx) * height + sy] = source[sy * width + sx];
    }
}

#if defined(__SSE2__)
// Four source rows of four pixels at (sx, sy) become four output runs of four: one register transpose instead of
// sixteen scattered stores.
static inline void turn_block4(
    const uint32_t *source, ptrdiff_t width, ptrdiff_t height, uint32_t *output, ptrdiff_t sx, ptrdiff_t sy,
    int clockwise) {
    const uint32_t *p = source + sy * width + sx;
    const __m128i r0 = _mm_loadu_si128((const __m128i *)p);
    const __m128i r1 = _mm_loadu_si128((const __m128i *)(p + width));
    const __m128i r2 = _mm_loadu_si128((const __m128i *)(p + 2 * width));
    const __m128i r3 = _mm_loadu_si128((const __m128i *)(p + 3 * width));
    const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
    const __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    __m128i columns[4] = {
        _mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1), _mm_unpacklo_epi64(t2, t3),
        _mm_unpackhi_epi64(t2, t3)};
    for (int j = 0; j < 4; j++) {
        if (clockwise) {
            // Column sx + j read upwards: output row sx + j, from x = h − 4 − sy, the rows reversed.
            _mm_storeu_si128(
                (__m128i *)(output + (sx + j) * height + height - 4 - sy),
                _mm_shuffle_epi32(columns[j], _MM_SHUFFLE(0, 1, 2, 3)));
        } else {
            _mm_storeu_si128((__m128i *)(output + (width - 1 - sx - j) * height + sy), columns[j]);
        }
    }
}
#endif

void cflow_rotate_quarter(
    const uint32_t *source, ptrdiff_t width, ptrdiff_t height, uint32_t *output, ptrdiff_t first_row,
    ptrdiff_t end_row, int clockwise) {
    // The source is walked in tiles 128 pixels wide, so that the output rows a tile writes stay in cache (128 measured
    // faster than 32 or 64), and within a tile in 4 × 4 blocks transposed in registers; the edges that do not fill a
    // block go pixel by pixel.
    enum { tile = 128 };
    for (ptrdiff_t ty = first_row; ty < end_row; ty += tile) {
        const ptrdiff_t y_end = ty + tile < end_row ? ty + tile : end_row;
        for (ptrdiff_t tx = 0; tx < width; tx += tile) {
            const ptrdiff_t x_end = tx + tile < width ? tx + tile : width;
            ptrdiff_t sy = ty;
#if defined(__SSE2__)
            for (; sy + 4 <= y_end; sy += 4) {
                ptrdiff_t sx = tx;
                for (; sx + 4 <= x_end; sx += 4) turn_block4(source, width, height, output, sx, sy, clockwise);
                for (; sx < x_end; sx++) {
                    for (ptrdiff_t k = 0; k < 4; k++) turn_pixel(source, width, height, output, sx, sy + k, clockwise);
                }
            }
#endif
            for (; sy < y_end; sy++) {
                for (ptrdiff_t sx = tx; sx < x_end; sx++) turn_pixel(source, width, height, output, sx, sy, clockwise);
            }
        }
    }
}

void cflow_reverse_row(const uint32_t *source, ptrdiff_t width, uint32_t *output) {
    ptrdiff_t x = 0;
#if defined(__SSE2__)
    for (; x + 4 <= width; x += 4) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(source + x));
        _mm_storeu_si128((__m128i *)(output + width - 4 - x), _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3)));
    }
#endif
    for (; x < width; x++) output[width - 1 - x] = source[x];
}
