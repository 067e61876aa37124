#include "cflow_crc32c.h"

#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>

int cflow_crc32c_available(void) { return __builtin_cpu_supports("sse4.2"); }

__attribute__((target("sse4.2"))) uint32_t cflow_crc32c_update(uint32_t crc, const void *bytes, size_t size) {
    const unsigned char *next = bytes;
    uint64_t wide = crc;
    for (; size >= 8; size -= 8, next += 8) {
        uint64_t word;
        memcpy(&word, next, 8);  // unaligned and little-endian, as the checksum reads bytes
        wide = _mm_crc32_u64(wide, word);
    }
    uint32_t narrow = (uint32_t)wide;
    for (; size > 0; size--, next++) narrow = _mm_crc32_u8(narrow, *next);
    return narrow;
}
#else
int cflow_crc32c_available(void) { return 0; }

uint32_t cflow_crc32c_update(uint32_t crc, const void *bytes, size_t size) {
    (void)bytes;
    (void)size;
    return crc;  // never called: not available
}
#endif
