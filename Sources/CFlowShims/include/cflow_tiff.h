// libtiff over bytes in memory, with its errors (reported through handlers taking a va_list) kept per file.
#ifndef CFLOW_TIFF_H
#define CFLOW_TIFF_H

#include <stddef.h>
#include <stdint.h>

/// A TIFF file open over bytes in memory (neither copied nor freed: they must outlive it).
typedef struct cflow_tiff cflow_tiff;

/// What the first page's header says.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// The TIFF orientation (1–8, as EXIF's); 1 when absent.
    uint16_t orientation;
    uint16_t bits_per_sample;
    uint16_t samples_per_pixel;
    /// Whether it has an alpha channel (an extra sample, associated or not).
    int has_alpha;
} cflow_tiff_info;

/// Asked between bands of rows with the rows decoded so far; return 0 to stop.
typedef int (*cflow_tiff_should_continue)(void *context, size_t rows_done);

/// Opens `size` bytes at `data`, reading the first page's directory; NULL with libtiff's error in `message` (256
/// bytes) when it cannot. A single allocation libtiff makes for it is limited to `max_single_allocation` bytes.
cflow_tiff *cflow_tiff_open(const uint8_t *data, size_t size, size_t max_single_allocation, char *message);

/// The first page's size, orientation, samples and alpha.
cflow_tiff_info cflow_tiff_get_info(cflow_tiff *tiff);

/// The ICC profile (tag 34675) or XMP packet (tag 700) of the first page, pointing into libtiff's memory until
/// `cflow_tiff_close`; NULL when absent.
const uint8_t *cflow_tiff_icc_profile(cflow_tiff *tiff, uint32_t *size);
const uint8_t *cflow_tiff_xmp(cflow_tiff *tiff, uint32_t *size);

/// Decodes the first page as stored (the orientation not applied) into `rgba`, `width` × `height` pixels of straight
/// (not premultiplied) 8-bit RGBA, through libtiff's RGBA interface (every photometric libtiff knows, strips or tiles,
/// 1 to 16 bits), a band of strips or tiles at a time, asking `should_continue` between bands.
/// Returns 0 decoded, 1 failed (`cflow_tiff_message` says why), 2 stopped.
int cflow_tiff_read_rgba(
    cflow_tiff *tiff, uint8_t *rgba, uint32_t width, uint32_t height, cflow_tiff_should_continue should_continue,
    void *context);

/// libtiff's first error on this file, or "".
const char *cflow_tiff_message(cflow_tiff *tiff);

void cflow_tiff_close(cflow_tiff *tiff);

#endif
