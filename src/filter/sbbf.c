/* sbbf.c -- Parquet's serialised split-block filter (see sbbf.h).
 *
 * The Thrift compact protocol, as much as a BloomFilterHeader needs.  A
 * struct is a run of fields ended by a 0x00 byte; a field starts with one
 * byte, the field id's delta from the previous field in the high nibble
 * (0: the id follows as a zigzag varint) and its type in the low nibble:
 *
 *   1, 2  bool true / false (no payload)    7   double, 8 bytes
 *   3     byte, 1 byte                      8   binary: varint length, bytes
 *   4-6   i16, i32, i64: zigzag varint      9, 10  list, set: a byte
 *   12    struct (fields, then 0x00)            (count << 4 | element type;
 *   11    map: varint count, then a byte       count 15: varint follows)
 *         (key type << 4 | value type)
 *
 * A varint is little-endian base 128 (7 bits a byte, high bit "more");
 * zigzag maps n to 2n for n >= 0 and to -2n - 1 below.  Fields a reader
 * does not know are skipped, as Thrift's own readers do, so a header that a
 * later format version extends still reads.
 */
#include "filter/sbbf.h"

#include <stdio.h>
#include <string.h>

enum {
    T_STOP = 0,
    T_TRUE = 1,
    T_FALSE = 2,
    T_BYTE = 3,
    T_I16 = 4,
    T_I32 = 5,
    T_I64 = 6,
    T_DOUBLE = 7,
    T_BINARY = 8,
    T_LIST = 9,
    T_SET = 10,
    T_MAP = 11,
    T_STRUCT = 12
};

#define NESTING_MAX 16 /* a header nests two deep; deeper is not a header */

typedef struct {
    const uint8_t *data;
    size_t len, at;
    char *err;
    size_t err_size;
    int failed;
} reader;

static int fail(reader *r, const char *what)
{
    if (!r->failed)
        snprintf(r->err, r->err_size, "byte %zu of the Bloom filter header: %s", r->at, what);
    r->failed = 1;
    return -1;
}

static int read_byte(reader *r, uint8_t *out)
{
    if (r->at >= r->len)
        return fail(r, "the data ends inside the header");
    *out = r->data[r->at++];
    return 0;
}

static int read_varint(reader *r, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (read_byte(r, &b) != 0)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return fail(r, "a varint longer than 10 bytes");
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static int skip_value(reader *r, unsigned type, unsigned depth);

/* A field's header: its type, and its id, a delta on the previous one
 * (*id) in the byte's high half or, when that is 0, a zigzag varint of its
 * own.  1 at the struct's stop byte, 0 for a field, -1 on an error. */
static int read_field_head(reader *r, int64_t *id, unsigned *type)
{
    uint8_t head;
    if (read_byte(r, &head) != 0)
        return -1;
    if (head == T_STOP)
        return 1;
    if ((head >> 4) == 0) {
        uint64_t raw;
        if (read_varint(r, &raw) != 0)
            return -1;
        *id = unzigzag(raw);
    } else {
        *id += head >> 4;
    }
    *type = head & 0x0f;
    return 0;
}


/* Skip the rest of a struct whose header byte has been read up to its fields. */
static int skip_struct(reader *r, unsigned depth)
{
    if (depth > NESTING_MAX)
        return fail(r, "structs nested more than 16 deep");
    int64_t id = 0;
    unsigned type;
    for (;;) {
        int at = read_field_head(r, &id, &type);
        if (at != 0)
            return at > 0 ? 0 : -1;
        if (skip_value(r, type, depth + 1) != 0)
            return -1;
    }
}

static int skip_bytes(reader *r, uint64_t count)
{
    if (count > r->len - r->at)
        return fail(r, "the data ends inside the header");
    r->at += (size_t)count;
    return 0;
}

static int skip_value(reader *r, unsigned type, unsigned depth)
{
    uint64_t v;
    uint8_t b;
    switch (type) {
    case T_TRUE:
    case T_FALSE:
        return 0;
    case T_BYTE:
        return read_byte(r, &b);
    case T_I16:
    case T_I32:
    case T_I64:
        return read_varint(r, &v);
    case T_DOUBLE:
        return skip_bytes(r, 8);
    case T_BINARY:
        return read_varint(r, &v) != 0 ? -1 : skip_bytes(r, v);
    case T_LIST:
    case T_SET: {
        if (read_byte(r, &b) != 0)
            return -1;
        uint64_t count = b >> 4;
        if (count == 15 && read_varint(r, &count) != 0)
            return -1;
        for (uint64_t i = 0; i < count; i++)
            if (skip_value(r, b & 0x0f, depth + 1) != 0)
                return -1;
        return 0;
    }
    case T_MAP: {
        if (read_varint(r, &v) != 0)
            return -1;
        if (v == 0)
            return 0;
        if (read_byte(r, &b) != 0)
            return -1;
        for (uint64_t i = 0; i < v; i++)
            if (skip_value(r, b >> 4, depth + 1) != 0 || skip_value(r, b & 0x0f, depth + 1) != 0)
                return -1;
        return 0;
    }
    case T_STRUCT:
        return skip_struct(r, depth);
    default: {
        char what[64];
        snprintf(what, sizeof what, "unknown Thrift field type %u", type);
        return fail(r, what);
    }
    }
}

/* A union of empty structs (algorithm, hash, compression): the id of the
 * member that is set.  The member's own fields, if a later version adds
 * any, are skipped. */
static int read_union(reader *r, int64_t *member)
{
    *member = -1;
    int64_t id = 0;
    unsigned type;
    for (;;) {
        int at = read_field_head(r, &id, &type);
        if (at < 0)
            return -1;
        if (at > 0)
            return *member >= 0 ? 0 : fail(r, "a union with no member set");
        if (type != T_STRUCT)
            return fail(r, "a union member that is not a struct");
        if (*member >= 0)
            return fail(r, "a union with two members set");
        *member = id;
        if (skip_struct(r, 2) != 0)
            return -1;
    }
}

/* The header's fields; numBytes in *bytes. */
static int read_header(reader *r, uint64_t *bytes)
{
    static const char *const UNION_NAME[5] = {"", "", "algorithm", "hash", "compression"};
    static const char *const UNION_WANT[5] = {"", "", "BLOCK", "XXHASH", "UNCOMPRESSED"};
    int seen[5] = {0};
    int64_t id = 0;
    unsigned type;
    for (;;) {
        int at = read_field_head(r, &id, &type);
        if (at < 0)
            return -1;
        if (at > 0)
            break;
        if (id == 1 && type == T_I32) {
            uint64_t raw;
            if (read_varint(r, &raw) != 0)
                return -1;
            int64_t value = unzigzag(raw);
            if (value < 0) {
                char what[96];
                snprintf(what, sizeof what, "numBytes = %lld is negative", (long long)value);
                return fail(r, what);
            }
            *bytes = (uint64_t)value;
            seen[1] = 1;
        } else if (id >= 2 && id <= 4 && type == T_STRUCT) {
            int64_t member;
            if (read_union(r, &member) != 0)
                return -1;
            if (member != 1) {
                char what[128];
                snprintf(what, sizeof what, "%s is member %lld of its union; bloomlab reads %s (member 1) only",
                         UNION_NAME[id], (long long)member, UNION_WANT[id]);
                return fail(r, what);
            }
            seen[id] = 1;
        } else if (id >= 1 && id <= 4) {
            return fail(r, "a required field of the wrong type");
        } else if (skip_value(r, type, 1) != 0) {
            return -1;
        }
    }
    for (int i = 1; i <= 4; i++)
        if (!seen[i]) {
            static const char *const FIELD[5] = {"", "numBytes", "algorithm", "hash", "compression"};
            char what[96];
            snprintf(what, sizeof what, "the header ends without its required field %s", FIELD[i]);
            return fail(r, what);
        }
    return 0;
}

static int bytes_valid(uint64_t bytes)
{
    return bytes >= SBBF_MIN_BYTES && bytes <= SBBF_MAX_BYTES && bytes % 32 == 0;
}

int sbbf_bytes_ok(uint64_t bytes, char *err, size_t err_size)
{
    if (!bytes_valid(bytes)) {
        snprintf(err, err_size, "numBytes = %llu is not a whole number of 32-byte blocks from %u to %u",
                 (unsigned long long)bytes, SBBF_MIN_BYTES, SBBF_MAX_BYTES);
        return -1;
    }
    return 0;
}

int sbbf_init(filter *f, uint64_t bytes, char *err, size_t err_size)
{
    if (sbbf_bytes_ok(bytes, err, err_size) != 0)
        return -1;
    if (filter_init(f, LAYOUT_SPLITBLOCK, 8 * bytes, 8) != 0) {
        snprintf(err, err_size, "no memory for a filter of %llu bytes", (unsigned long long)bytes);
        return -1;
    }
    return 0;
}

void sbbf_insert(filter *f, const void *value, size_t len)
{
    const scheme_ctx ctx = {NULL, 0, 0}; /* the parquet scheme reads neither */
    filter_insert_one(f, SCHEME_PARQUET, &ctx, value, len, 0);
}

int sbbf_contains(const filter *f, const void *value, size_t len)
{
    const scheme_ctx ctx = {NULL, 0, 0};
    return filter_query_one(f, SCHEME_PARQUET, &ctx, value, len, 0);
}

uint64_t sbbf_bitset_bytes(const filter *f) { return f->m / 8; }

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t sbbf_header_write(uint32_t bitset_bytes, uint8_t out[SBBF_HEADER_MAX])
{
    size_t n = 0;
    out[n++] = 0x10 | T_I32; /* field 1, numBytes */
    n += put_varint(out + n, 2 * (uint64_t)bitset_bytes); /* zigzag of a value >= 0 */
    for (int field = 2; field <= 4; field++) {
        out[n++] = 0x10 | T_STRUCT; /* the next field: a union */
        out[n++] = 0x10 | T_STRUCT; /* its member 1: BLOCK, XXHASH, UNCOMPRESSED */
        out[n++] = T_STOP;          /* the member's (empty) struct ends */
        out[n++] = T_STOP;          /* the union ends */
    }
    out[n++] = T_STOP;
    return n;
}

static int is_parquet_sized(const filter *f)
{
    return f->layout == LAYOUT_SPLITBLOCK && f->m % 8 == 0 && bytes_valid(f->m / 8);
}

size_t sbbf_serialised_size(const filter *f)
{
    uint8_t header[SBBF_HEADER_MAX];
    return sbbf_header_write((uint32_t)sbbf_bitset_bytes(f), header) + (size_t)sbbf_bitset_bytes(f);
}

size_t sbbf_serialise(const filter *f, uint8_t *out, size_t room)
{
    if (!is_parquet_sized(f) || room < sbbf_serialised_size(f))
        return 0;
    const uint64_t bytes = sbbf_bitset_bytes(f);
    size_t n = sbbf_header_write((uint32_t)bytes, out);
    /* Bit b of the filter is bit b % 64 of words[b / 64]: byte t holds bits
     * 8t .. 8t+7, so the spec's little-endian 32-bit word j of block i is
     * bytes 32i + 4j .. +3 with its bit x at filter bit 256i + 32j + x,
     * where cursor_position puts it. */
    for (uint64_t t = 0; t < bytes; t++)
        out[n + t] = (uint8_t)(f->words[t / 8] >> (8 * (t % 8)));
    return n + (size_t)bytes;
}

int sbbf_load(filter *f, const uint8_t *data, size_t len, size_t *used, char *err, size_t err_size)
{
    reader r = {data, len, 0, err, err_size, 0};
    uint64_t bytes = 0;
    if (read_header(&r, &bytes) != 0)
        return -1;
    char why[200];
    if (sbbf_bytes_ok(bytes, why, sizeof why) != 0) {
        snprintf(err, err_size, "the Bloom filter header (%zu bytes): %s", r.at, why);
        return -1;
    }
    if (len - r.at < bytes) {
        snprintf(err, err_size, "the Bloom filter header says numBytes = %llu, but %zu bytes follow it",
                 (unsigned long long)bytes, len - r.at);
        return -1;
    }
    if (sbbf_init(f, bytes, err, err_size) != 0)
        return -1;
    const uint8_t *bitset = data + r.at;
    for (uint64_t t = 0; t < bytes; t++)
        f->words[t / 8] |= (uint64_t)bitset[t] << (8 * (t % 8));
    if (used != NULL)
        *used = r.at + (size_t)bytes;
    return 0;
}
