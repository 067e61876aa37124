#include "cflow_tiff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

struct cflow_tiff {
    TIFF *tif;
    const uint8_t *data;
    size_t size;
    toff_t position;
    char message[256];
};

static tmsize_t memory_read(thandle_t handle, void *buffer, tmsize_t count) {
    struct cflow_tiff *file = handle;
    if (count < 0 || file->position >= file->size) return 0;
    size_t available = file->size - (size_t)file->position;
    size_t n = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, file->data + file->position, n);
    file->position += n;
    return (tmsize_t)n;
}

static tmsize_t memory_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle, (void)buffer, (void)count;
    return 0;
}

static toff_t memory_seek(thandle_t handle, toff_t offset, int whence) {
    struct cflow_tiff *file = handle;
    toff_t base = whence == SEEK_CUR ? file->position : whence == SEEK_END ? file->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    file->position = base + offset;
    return file->position;
}

static int memory_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t memory_size(thandle_t handle) { return ((struct cflow_tiff *)handle)->size; }

static int memory_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle, (void)base, (void)size;
    return 0;
}

static void memory_unmap(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

// The first error is the cause; later ones are its consequences.
static int keep_error(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif, (void)module;
    struct cflow_tiff *file = user;
    if (file->message[0] == 0) vsnprintf(file->message, sizeof file->message, format, arguments);
    return 1;
}

// Warnings (unknown tags, private fields) are about files libtiff reads anyway: not printed to standard error.
static int ignore_warning(TIFF *tif, void *user, const char *module, const char *format, va_list arguments) {
    (void)tif, (void)user, (void)module, (void)format, (void)arguments;
    return 1;
}

cflow_tiff *cflow_tiff_open(const uint8_t *data, size_t size, size_t max_single_allocation, char *message) {
    struct cflow_tiff *file = calloc(1, sizeof *file);
    if (!file) {
        snprintf(message, 256, "out of memory");
        return NULL;
    }
    file->data = data;
    file->size = size;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        free(file);
        snprintf(message, 256, "out of memory");
        return NULL;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, keep_error, file);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ignore_warning, file);
    // "rm": read only, no memory mapping (the bytes are in memory already).
    file->tif = TIFFClientOpenExt(
        "flowrun", "rm", file, memory_read, memory_write, memory_seek, memory_close, memory_size, memory_map,
        memory_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!file->tif) {
        snprintf(message, 256, "%s", file->message[0] ? file->message : "not a TIFF file libtiff can open");
        free(file);
        return NULL;
    }
    return file;
}

cflow_tiff_info cflow_tiff_get_info(cflow_tiff *file) {
    cflow_tiff_info info = {0};
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    TIFFGetField(file->tif, TIFFTAG_IMAGEWIDTH, &info.width);
    TIFFGetField(file->tif, TIFFTAG_IMAGELENGTH, &info.height);
    TIFFGetFieldDefaulted(file->tif, TIFFTAG_ORIENTATION, &info.orientation);
    TIFFGetFieldDefaulted(file->tif, TIFFTAG_BITSPERSAMPLE, &info.bits_per_sample);
    TIFFGetFieldDefaulted(file->tif, TIFFTAG_SAMPLESPERPIXEL, &info.samples_per_pixel);
    if (TIFFGetField(file->tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0) {
        info.has_alpha = extra[0] == EXTRASAMPLE_ASSOCALPHA || extra[0] == EXTRASAMPLE_UNASSALPHA;
    }
    if (info.orientation < 1 || info.orientation > 8) info.orientation = 1;
    return info;
}

const uint8_t *cflow_tiff_icc_profile(cflow_tiff *file, uint32_t *size) {
    void *data = NULL;
    if (!TIFFGetField(file->tif, TIFFTAG_ICCPROFILE, size, &data)) return NULL;
    return data;
}

const uint8_t *cflow_tiff_xmp(cflow_tiff *file, uint32_t *size) {
    void *data = NULL;
    if (!TIFFGetField(file->tif, TIFFTAG_XMLPACKET, size, &data)) return NULL;
    return data;
}

// A premultiplied channel divided by its alpha, rounded; unchanged where alpha is 0 or 255.
static uint8_t unpremultiplied(uint8_t value, uint8_t alpha) {
    if (alpha == 0 || alpha == 255) return value;
    unsigned straight = ((unsigned)value * 255 + alpha / 2) / alpha;
    return (uint8_t)(straight > 255 ? 255 : straight);
}

int cflow_tiff_read_rgba(
    cflow_tiff *file, uint8_t *rgba, uint32_t width, uint32_t height, cflow_tiff_should_continue should_continue,
    void *context) {
    char reason[1024] = "";
    if (!TIFFRGBAImageOK(file->tif, reason)) {
        snprintf(file->message, sizeof file->message, "%s", reason);
        return 1;
    }
    TIFFRGBAImage image;
    if (!TIFFRGBAImageBegin(&image, file->tif, 1, reason)) {
        if (file->message[0] == 0) snprintf(file->message, sizeof file->message, "%s", reason);
        return 1;
    }
    // As stored, top row first: asking for the file's own orientation makes libtiff flip nothing; the caller turns
    // the pixels (libtiff would not transpose orientations 5 to 8).
    image.req_orientation = image.orientation;
    // Bands of whole strips or tiles, so that no strip or tile is decoded twice.
    uint32_t band = 0;
    if (TIFFIsTiled(file->tif)) {
        TIFFGetField(file->tif, TIFFTAG_TILELENGTH, &band);
    } else {
        TIFFGetFieldDefaulted(file->tif, TIFFTAG_ROWSPERSTRIP, &band);
    }
    if (band == 0 || band > height) band = height;
    // At least 64 rows a band (several strips of a few rows each), so that the checks cost nothing.
    uint32_t rows_per_band = band * ((64 + band - 1) / band);
    int status = 0;
    for (uint32_t row = 0; row < height && status == 0; row += rows_per_band) {
        if (row > 0 && !should_continue(context, row)) {
            status = 2;
            break;
        }
        uint32_t rows = height - row < rows_per_band ? height - row : rows_per_band;
        image.row_offset = (int)row;
        image.col_offset = 0;
        uint32_t *out = (uint32_t *)(void *)(rgba + (size_t)row * width * 4);
        if (!TIFFRGBAImageGet(&image, out, width, rows)) {
            if (file->message[0] == 0) snprintf(file->message, sizeof file->message, "cannot read rows %u to %u", row, row + rows);
            status = 1;
        }
    }
    TIFFRGBAImageEnd(&image);
    if (status != 0) return status;
    // libtiff packs each pixel as ABGR in a 32-bit word, which is R, G, B, A in memory on a little-endian machine,
    // with alpha premultiplied (it converts unassociated alpha): undo that.
    size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++) {
        uint32_t pixel = ((uint32_t *)(void *)rgba)[i];
        uint8_t r = TIFFGetR(pixel), g = TIFFGetG(pixel), b = TIFFGetB(pixel), a = TIFFGetA(pixel);
        rgba[i * 4] = unpremultiplied(r, a);
        rgba[i * 4 + 1] = unpremultiplied(g, a);
        rgba[i * 4 + 2] = unpremultiplied(b, a);
        rgba[i * 4 + 3] = a;
    }
    return 0;
}

const char *cflow_tiff_message(cflow_tiff *file) { return file->message; }

void cflow_tiff_close(cflow_tiff *file) {
    if (!file) return;
    TIFFClose(file->tif);
    free(file);
}
