#ifndef FEEDLINE_CSHA256_H
#define FEEDLINE_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Compresses `blocks` consecutive 64-byte blocks of `data` into the SHA-256 `state` (8 words,
/// FIPS 180-4 order). Uses the x86 SHA extensions when the CPU has them, portable C otherwise.
void feedline_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// Whether `feedline_sha256_blocks` uses the CPU's SHA instructions (for benchmarks and tests).
int feedline_sha256_accelerated(void);

/// The portable path alone, so tests can check both paths against each other.
void feedline_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
