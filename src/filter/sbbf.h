/* sbbf.h -- a split-block filter in the form a Parquet file stores it.
 *
 * A Parquet column chunk's Bloom filter is a Thrift compact-protocol
 * BloomFilterHeader followed by the bitset:
 *
 *   header   struct BloomFilterHeader {
 *              1: required i32 numBytes;
 *              2: required BloomFilterAlgorithm algorithm;   union { 1: BLOCK }
 *              3: required BloomFilterHash hash;             union { 1: XXHASH }
 *              4: required BloomFilterCompression compression; union { 1: UNCOMPRESSED }
 *            }
 *            (parquet.thrift; each union member is an empty struct).  With
 *            numBytes below 2^20 it is 15 or 16 bytes: 0x15 and numBytes
 *            zigzag-varint encoded, then three times 0x1c 0x1c 0x00 0x00
 *            (field +1 of type struct, holding field 1 of type struct,
 *            empty, then the union's stop), then the struct's stop 0x00.
 *   bitset   numBytes / 32 blocks of eight little-endian 32-bit words.
 *
 * A value is added as the spec says: h = XXH64(its plain-encoded bytes,
 * seed 0), block = ((h >> 32) * blocks) >> 32, and in word i the bit
 * (uint32(h) * SALT[i]) >> 27.  These are bloomlab's splitblock layout
 * with the parquet scheme (schemes.h), so the filter here is a `filter`
 * that the sweep's loops and the tests use unchanged.
 *
 * The bitset is written and read a byte at a time, by shifts, so the form
 * is the same on a big-endian machine.
 */
#ifndef BLOOMLAB_SBBF_H
#define BLOOMLAB_SBBF_H

#include <stddef.h>
#include <stdint.h>

#include "filter/filters.h"

/* The Parquet writers' bounds on numBytes (Arrow's kMinimumBloomFilterBytes
 * and kMaximumBloomFilterBytes); a reader takes any whole number of blocks
 * within them. */
#define SBBF_MIN_BYTES 32u
#define SBBF_MAX_BYTES (128u * 1024u * 1024u)
/* The longest header bloomlab writes (numBytes up to 2^31 needs 5 varint bytes). */
#define SBBF_HEADER_MAX 20u

/* 0 when `bytes` is a bitset size a Parquet writer makes (a multiple of 32
 * within the bounds above), else -1 with the reason. */
int sbbf_bytes_ok(uint64_t bytes, char *err, size_t err_size);

/* An empty split-block filter of `bytes` bytes (a multiple of 32 within the
 * bounds above).  0, or -1 (a bad size, or no memory) with a reason. */
int sbbf_init(filter *f, uint64_t bytes, char *err, size_t err_size);

/* Add a value's bytes; ask whether they are probably present (1) or not (0). */
void sbbf_insert(filter *f, const void *value, size_t len);
int sbbf_contains(const filter *f, const void *value, size_t len);

/* The filter's bitset size in bytes (m / 8). */
uint64_t sbbf_bitset_bytes(const filter *f);

/* Write the header for numBytes = bitset_bytes into out; returns its length. */
size_t sbbf_header_write(uint32_t bitset_bytes, uint8_t out[SBBF_HEADER_MAX]);

/* The serialised size: header plus bitset. */
size_t sbbf_serialised_size(const filter *f);

/* Write header and bitset into out (room for `room` bytes).  Returns the
 * bytes written, or 0 when the filter is not a splitblock filter of
 * Parquet's sizes or out is too small. */
size_t sbbf_serialise(const filter *f, uint8_t *out, size_t room);

/* Read a serialised filter (header, then bitset) from data[0, len) into a
 * new filter (sbbf_init's; free it with filter_free).  On success returns
 * 0 and the bytes read in *used (NULL: not wanted); on a malformed header,
 * an algorithm, hash or compression other than BLOCK, XXHASH and
 * UNCOMPRESSED, a size outside the bounds or not whole blocks, or a bitset
 * shorter than numBytes, returns -1 with one line in err naming the byte
 * offset and what was found, and leaves no filter to free. */
int sbbf_load(filter *f, const uint8_t *data, size_t len, size_t *used, char *err, size_t err_size);

#endif
