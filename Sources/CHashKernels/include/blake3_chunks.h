#ifndef PRORES_DECODE_BLAKE3_CHUNKS_H
#define PRORES_DECODE_BLAKE3_CHUNKS_H
#include <stddef.h>
#include <stdint.h>

/// x86-64 only (other CPUs compress in Swift): the unkeyed BLAKE3 chaining
/// values of `count` whole 1 KiB chunks, several at once, one chunk per SIMD
/// lane (8 with AVX2, else 4 with SSE2). Chunk i's bytes are at `chunks[i]`
/// and its chunk counter is `counter + i`; `count` is a multiple of 4. No
/// chunk is finalised as the root: the caller keeps a message's last chunk.
/// Chunk i's CV goes to `cvs[8 * i]` to `cvs[8 * i + 7]`.
void pd_blake3_hash_chunks(const uint8_t *const *chunks, size_t count, uint64_t counter, uint32_t *cvs);

#endif
