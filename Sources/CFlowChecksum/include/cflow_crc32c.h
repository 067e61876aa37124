// CRC-32C with the processor's own instruction (SSE4.2 `crc32`), which Swift cannot issue: the journal checks
// every record it writes and reads, a few hundred bytes a node.
#ifndef CFLOW_CRC32C_H
#define CFLOW_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has the instruction (`cflow_crc32c_update` may be called only then).
int cflow_crc32c_available(void);

/// Goes on with a CRC-32C register (not inverted: start from 0xFFFFFFFF, invert the result) over `size` bytes.
uint32_t cflow_crc32c_update(uint32_t crc, const void *bytes, size_t size);

#endif
