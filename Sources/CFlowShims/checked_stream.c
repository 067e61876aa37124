#define _GNU_SOURCE
#include "cflow_checked_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    size_t bytes_per_check;
    cflow_stream_should_continue should_continue;
    void *context;
} checked_stream;

static ssize_t read_checked(void *cookie, char *out, size_t count) {
    checked_stream *stream = cookie;
    if (stream->offset > 0 && !stream->should_continue(stream->context, stream->offset)) {
        errno = ECANCELED;
        return -1;
    }
    size_t left = stream->size - stream->offset;
    if (count > left) count = left;
    if (count > stream->bytes_per_check) count = stream->bytes_per_check;
    memcpy(out, stream->data + stream->offset, count);
    stream->offset += count;
    return (ssize_t)count;
}

static int seek_checked(void *cookie, off64_t *offset, int whence) {
    checked_stream *stream = cookie;
    off64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off64_t)stream->offset : (off64_t)stream->size;
    off64_t target = base + *offset;
    if (target < 0 || target > (off64_t)stream->size) {
        errno = EINVAL;
        return -1;
    }
    stream->offset = (size_t)target;
    *offset = target;
    return 0;
}

static int close_checked(void *cookie) {
    free(cookie);
    return 0;
}

FILE *cflow_checked_stream_open(
    const uint8_t *data, size_t size, size_t bytes_per_check, cflow_stream_should_continue should_continue,
    void *context) {
    checked_stream *stream = malloc(sizeof *stream);
    if (!stream) return NULL;
    *stream = (checked_stream){data, size, 0, bytes_per_check ? bytes_per_check : 1, should_continue, context};
    cookie_io_functions_t functions = {.read = read_checked, .seek = seek_checked, .close = close_checked};
    FILE *file = fopencookie(stream, "r", functions);
    if (!file) free(stream);
    return file;
}
