/* bloomlab/bloomlab.h -- libbloomlab: the Bloom filters bloomlab measures,
 * to embed in a program.
 *
 * A filter made here runs the loops bloomlab's experiments time and hold to
 * theory: the same layouts, the same index schemes, the same batched loops
 * (vectorised for AVX2 or AVX-512 where the CPU has them, chosen at run
 * time; BLOOMLAB_ISA=portable in the environment turns them off), so the
 * false-positive rates and speeds in bloomlab's results are this code's.
 *
 *     char err[256];
 *     bloomlab_filter *f = bloomlab_create("blocked512", 1000000, 0.01, err, sizeof err);
 *     if (f == NULL) { fprintf(stderr, "%s\n", err); return 1; }
 *     bloomlab_add(f, "apple", 5);
 *     if (bloomlab_contains(f, "apple", 5) == 1) puts("probably present");
 *     bloomlab_free(f);
 *
 * Build: cc prog.c $(pkg-config --cflags --libs bloomlab)
 * (or --static for libbloomlab.a and what it needs).
 *
 * LAYOUTS (the names of `bloomlab list`):
 *   standard     one array of m bits, k positions anywhere;
 *   counting     m 4-bit counters at the standard positions (4x the memory;
 *                this API adds and asks only);
 *   partitioned  k slices of m/k bits, position i in slice i;
 *   blocked512   512-bit blocks (a cache line): one block a key, k bits in it;
 *   register64   64-bit blocks (one word): one word a key, k bits in it;
 *   splitblock   Apache Parquet's split block: 256-bit blocks of eight 32-bit
 *                words, one bit in each (k = 8).
 * The blocked layouts take m rounded up to whole blocks.
 *
 * KEYS are any bytes (a NULL pointer only with length 0).  A key is hashed
 * once with XXH3 64-bit (xxh3_64, libxxhash) and the seed BLOOMLAB_SEED,
 * and its k positions come from the layout's default index scheme: multiply
 * on blocked512 and register64 (RocksDB's probe sequence inside the
 * block), double hashing (h1 + i h2, h2 a remix of h1) on the others.
 *
 * SIZING.  bloomlab_create(layout, n, p) picks the smallest m (whole
 * blocks) whose false-positive rate, by that layout's own exact formula at
 * its best integer k, is at most p, and that k: the m and k that
 * `bloomlab calc --filter LAYOUT --n N --p P` prints.
 *
 * THREADS.  Adding to a filter needs it to oneself; asking (contains, the
 * sizes, serialising) may run on many threads at once while nothing adds.
 *
 * ERRORS.  Nothing here aborts or prints on bad input.  The constructors
 * and bloomlab_load return NULL and write one line saying why into err
 * (err_size bytes, always NUL-terminated; err may be NULL).  The other
 * calls return -1, BLOOMLAB_ERROR or 0 as each says.
 *
 * THE SERIALISED FORM (version 1), every integer little-endian:
 *   offset  bytes
 *   0       8      magic "BLOOMLAB"
 *   8       4      format version, 1
 *   12      4      k
 *   16      16     layout name, NUL-padded
 *   32      16     scheme name (the layout's default: multiply or double), NUL-padded
 *   48      16     hash name, "xxh3_64", NUL-padded
 *   64      8      hash seed
 *   72      8      m (bits; counters for counting)
 *   80      8      B, the bit array's bytes: 8 ceil(memory bits / 64)
 *   88      B      the bit array as 64-bit words (counting: 16 counters a
 *                  word, counter i in bits 4(i mod 16) .. +3 of word i / 16)
 *   88 + B  8      XXH3_64bits (seed 0) of bytes 0 .. 88 + B - 1
 * bloomlab_load checks the magic, the version, the length, the checksum,
 * the names and the sizes before it allocates anything, and reads no byte
 * past the length it is given.
 */
#ifndef BLOOMLAB_BLOOMLAB_H
#define BLOOMLAB_BLOOMLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the shared library exports: these functions and nothing else. */
#if defined(__GNUC__) || defined(__clang__)
#define BLOOMLAB_API __attribute__((visibility("default")))
#else
#define BLOOMLAB_API
#endif

/* The hash seed of every filter this library creates (XXH3's own default,
 * so XXH3_64bits(key) is the key's hash). */
#define BLOOMLAB_SEED 0u
/* The version of the serialised form bloomlab_serialise writes. */
#define BLOOMLAB_FORMAT_VERSION 1u
/* The bytes of the serialised form around the bit array: 88 before, 8 after. */
#define BLOOMLAB_HEADER_BYTES 88u
#define BLOOMLAB_CHECKSUM_BYTES 8u
/* bloomlab_contains_batch's answer to bad arguments. */
#define BLOOMLAB_ERROR ((size_t)-1)

typedef struct bloomlab_filter bloomlab_filter;

/* The library's version, e.g. "0.1.0" (bloomlab's). */
BLOOMLAB_API const char *bloomlab_version(void);

/* A filter for n items (>= 1) at false-positive rate p (0 < p < 1), sized
 * as SIZING above says; NULL with a reason (an unknown layout, n or p out
 * of range, no memory). */
BLOOMLAB_API bloomlab_filter *bloomlab_create(const char *layout, uint64_t n, double p, char *err,
                                              size_t err_size);

/* A filter of m_bits bits (counters for counting; rounded up to whole
 * blocks, at most 1e15) and k positions a key (1..64; splitblock takes 8
 * only, partitioned needs k <= m); NULL with a reason. */
BLOOMLAB_API bloomlab_filter *bloomlab_create_mk(const char *layout, uint64_t m_bits, unsigned k, char *err,
                                                 size_t err_size);

/* Frees f (NULL does nothing). */
BLOOMLAB_API void bloomlab_free(bloomlab_filter *f);

/* Add the key's len bytes: 0, or -1 (f NULL, or key NULL with len > 0). */
BLOOMLAB_API int bloomlab_add(bloomlab_filter *f, const void *key, size_t len);

/* 1 when the key is probably present, 0 when it is certainly absent, -1
 * for bad arguments (as bloomlab_add). */
BLOOMLAB_API int bloomlab_contains(const bloomlab_filter *f, const void *key, size_t len);

/* Add count keys: key i is lens[i] bytes at keys[i].  0, or -1 when f is
 * NULL, keys or lens is NULL with count > 0, or a key is NULL with its
 * length > 0 (then nothing is added).  Faster than count single adds:
 * the filter keeps a work area of about 56 KB, made at its first call of
 * more than 32 keys and freed by bloomlab_free (where it cannot be made,
 * the keys go 32 at a time: slower, the same bits). */
BLOOMLAB_API int bloomlab_add_batch(bloomlab_filter *f, const void *const *keys, const size_t *lens, size_t count);

/* Ask about count keys (as bloomlab_add_batch takes them): answers[i] = 1
 * for probably present, 0 for absent (answers may be NULL: the count
 * alone).  Returns the count of 1s, or BLOOMLAB_ERROR for bad arguments
 * (then answers is untouched).  Faster than count single asks: a call of
 * more than 32 keys makes a work area of its own (up to about 56 KB; asks
 * may run on many threads at once), freed before it returns (where it
 * cannot be made, the keys go 32 at a time: slower, the same answers). */
BLOOMLAB_API size_t bloomlab_contains_batch(const bloomlab_filter *f, const void *const *keys, const size_t *lens,
                                            size_t count, unsigned char *answers);

/* m: the filter's size in bits (in 4-bit counters for counting), as
 * `bloomlab calc` prints it; 0 for NULL. */
BLOOMLAB_API uint64_t bloomlab_size_bits(const bloomlab_filter *f);
/* The bytes its bits (or counters) take: ceil(memory bits / 8); 0 for NULL. */
BLOOMLAB_API uint64_t bloomlab_size_bytes(const bloomlab_filter *f);
/* k, the positions a key sets; 0 for NULL. */
BLOOMLAB_API unsigned bloomlab_k(const bloomlab_filter *f);
/* The layout's name, e.g. "blocked512"; NULL for NULL. */
BLOOMLAB_API const char *bloomlab_layout(const bloomlab_filter *f);
/* The false-positive rate the layout's exact formula gives this filter
 * holding n distinct items (ideal hashing: what bloomlab's results compare
 * measurements with); NaN for NULL. */
BLOOMLAB_API double bloomlab_expected_fpr(const bloomlab_filter *f, uint64_t n);

/* The bytes bloomlab_serialise writes for f; 0 for NULL. */
BLOOMLAB_API size_t bloomlab_serialised_size(const bloomlab_filter *f);
/* Write f's serialised form into buf: returns the bytes written
 * (bloomlab_serialised_size), or 0 when f or buf is NULL or buf_size is
 * smaller (then buf is untouched). */
BLOOMLAB_API size_t bloomlab_serialise(const bloomlab_filter *f, void *buf, size_t buf_size);
/* A filter from len bytes of a serialised form; NULL with a reason: not a
 * bloomlab filter (wrong magic), a version this library does not read,
 * truncated or trailing bytes, a bad checksum, an unknown layout, scheme or
 * hash, sizes that do not agree, or no memory. */
BLOOMLAB_API bloomlab_filter *bloomlab_load(const void *buf, size_t len, char *err, size_t err_size);

/* APACHE PARQUET.  A Parquet column chunk's split-block Bloom filter, bit for
 * bit as the format defines it: 256-bit blocks of eight 32-bit words, a
 * value's hash XXH64(its plain-encoded bytes, seed 0), its block
 * ((h >> 32) * blocks) >> 32 and in word i the bit (uint32(h) * SALT[i]) >> 27;
 * the stored form is a Thrift compact BloomFilterHeader (numBytes, BLOCK,
 * XXHASH, UNCOMPRESSED) and the bitset.  Such a filter is a splitblock
 * filter whose add and contains hash as Parquet does (add the bytes Parquet
 * hashes: an int64 column's values as 8 little-endian bytes); the other
 * calls, and bloomlab_serialise / bloomlab_load (scheme "parquet", hash
 * "xxh64"), take it as they take any filter.
 *
 * bloomlab_create_parquet: an empty one of bitset_bytes bytes (a multiple
 * of 32 from 32 to 128 MiB, as Parquet writers make them).
 * bloomlab_load_parquet: one read from the header and bitset in buf[0, len)
 * (*used gets the bytes read; used may be NULL); NULL with the byte offset
 * and what was found when the header is malformed, names another
 * algorithm, hash or compression, or the bitset is short.
 * bloomlab_serialise_parquet: header and bitset into buf; the bytes
 * written, or 0 when f is not a Parquet filter or buf is too small (see
 * bloomlab_serialised_size_parquet). */
BLOOMLAB_API bloomlab_filter *bloomlab_create_parquet(uint64_t bitset_bytes, char *err, size_t err_size);
BLOOMLAB_API bloomlab_filter *bloomlab_load_parquet(const void *buf, size_t len, size_t *used, char *err,
                                                    size_t err_size);
BLOOMLAB_API size_t bloomlab_serialised_size_parquet(const bloomlab_filter *f);
BLOOMLAB_API size_t bloomlab_serialise_parquet(const bloomlab_filter *f, void *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif
