// libjpeg's scanline API, so that a long JPEG decode can stop between batches of rows; its errors longjmp, so C.
#ifndef CFLOW_JPEG_ROWS_H
#define CFLOW_JPEG_ROWS_H

#include <stddef.h>
#include <stdint.h>

/// The outcome of `cflow_jpeg_decode_rows`.
typedef struct {
    /// 0 decoded, 1 failed (`message` says why), 2 stopped by `should_continue`.
    int status;
    /// libjpeg's error, or its last warning when `status` is 0 and `warnings` > 0.
    char message[200];
    /// How many warnings libjpeg emitted (damaged but readable data, stray bytes, a file ending early).
    int warnings;
} cflow_jpeg_status;

/// Asked between batches of rows with the rows decoded so far; return 0 to stop.
typedef int (*cflow_jpeg_should_continue)(void *context, size_t rows_done);

/// Decodes `data` at the DCT scale `scale_num`/8 into `out`, `width` × `height` pixels of four bytes (what
/// TurboJPEG computes for that scale: the sides rounded up), as RGBA, or as Adobe CMYK when `cmyk` is non-zero
/// (for CMYK and YCCK files), with libjpeg's defaults (the ones TurboJPEG uses: islow DCT, fancy upsampling), except
/// that at scales 4/8 and 2/8 blocks are sampled rather than box-averaged (jpeg_sampled_idct.c).
/// `should_continue` is asked every `rows_per_check` rows.
cflow_jpeg_status cflow_jpeg_decode_rows(
    const uint8_t *data, size_t size, int scale_num, int cmyk, uint8_t *out, size_t width, size_t height,
    size_t rows_per_check, cflow_jpeg_should_continue should_continue, void *context);

#endif
