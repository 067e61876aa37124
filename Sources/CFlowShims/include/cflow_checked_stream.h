// A read-only stdio stream over memory that asks a callback before every read, so that a decoder reading through
// stdio (libpng's simplified API) can be stopped midway without changing how it decodes.
#ifndef CFLOW_CHECKED_STREAM_H
#define CFLOW_CHECKED_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// Asked before each read with the bytes read so far; return 0 to make the read fail.
typedef int (*cflow_stream_should_continue)(void *context, size_t bytes_done);

/// A `FILE` reading `size` bytes at `data` (neither copied nor freed: they must outlive the stream), which asks
/// `should_continue` before each read of at most `bytes_per_check` bytes and fails that read (as an I/O error,
/// `errno` ECANCELED) when it returns 0. It can seek (`rewind`). Close it with `fclose`. NULL when out of memory.
FILE *cflow_checked_stream_open(
    const uint8_t *data, size_t size, size_t bytes_per_check, cflow_stream_should_continue should_continue,
    void *context);

#endif
