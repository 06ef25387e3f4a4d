/* bench.h -- `bloomlab bench`: throughput against filter size, and the
 * machine's own random-access ceiling measured by the same command.
 *
 * What is timed.  Keys are made by keyset_fill in chunks of 64 batches
 * outside the clock; the clock runs over the filter's loops only
 * (filter_ops_for: insert_many and query_many over each chunk; on an
 * AVX-512 CPU those are avx512.h's loops for every layout (unblocked ones
 * query in phases once the filter outgrows L2), and the output says so; standard filters
 * beyond 32 MiB stage their inserts, and ns_insert includes filter_flush).
 *
 * Medians of passes.  This machine shares its host: a pass can run 10-50%
 * slow while another tenant loads it, so every figure is the median of
 * timed passes, not one mean.  ns_insert: the median over whole fills of an
 * empty filter with n keys, as many fills as --ops inserts take, and 5 at
 * least when n <= --ops (a bigger filter is filled once).  Then 2e5 absent
 * queries run untimed (the first queries after filling a filter of hundreds
 * of MiB ran slower for some milliseconds: at 512 MiB and 3e5 timed
 * queries, 49-82 ns against 42 for the same loop timed second); ns_absent and
 * ns_present are medians of 5 passes, each the mean over --ops queries of
 * keys never inserted and of inserted keys; ns_absent_sweep calls
 * query_many over SWEEP_QUERY_BATCHES batches at a time, as sweep.c does.
 * The `harness` rows time what a sweep pays per query -- sweep_query_chunk
 * itself, keyset_fill and query_many together -- on a filter of half this
 * machine's L2 (cache.h), also the median of 5 passes, and so is each
 * ceiling below (at 125 MB its five passes read 8.1, 7.4, 7.0, 6.7 and 6.5
 * ns a line, the buffer warming into the shared L3 as a filter does).
 *
 * The ceiling.  For each size, a buffer of that many bytes (huge pages, as
 * filters get) is read at random cache lines two ways:
 *   dependent    a pointer chase through one random cycle of all lines
 *                (Sattolo's shuffle): each read's address is the previous
 *                read's value, so reads never overlap -- the latency.
 *   independent  batches of 32 random lines: all 32 prefetched, then all
 *                read (the structure of the filter loops), or a continuous
 *                stream prefetching 32 lines ahead; the faster of the two
 *                is the ceiling -- the throughput with misses overlapped.
 *   update       the same, each touch setting one bit of a random word of
 *                the line (what an insert does at each position: a read,
 *                then a write the line must come back for), or plainly one
 *                after another; the fastest of the three.
 * The random lines come from mix64 of a counter (one multiply more than a
 * Weyl sequence, which costs less in cache but read 12-30% slower than mix64
 * at 16 and 64 MiB here); in L1 and L2 the loops are bound by that
 * arithmetic, so fractions above 100% there say only that the filter loops
 * make addresses faster than the ceiling's.
 *
 * Fraction of the ceiling.  A query that touches L distinct cache lines
 * cannot beat L times the independent-read time; the fraction printed is
 *     fraction = L * ns_per_independent_line / ns_per_query.
 * L is computed from the layout and the measured fill f:
 *   blocked512, register64, splitblock   L = 1 (one block never straddles a
 *                                         line: blocks are aligned and at
 *                                         most 64 bytes);
 *   standard, partitioned, counting       an absent key is tested at
 *       position i only if positions 0..i-1 were all set, probability f^i
 *       (early exit); position i lands on a line not yet touched with
 *       probability (1 - 1/lines)^i (uniform positions over `lines` lines),
 *       so L_absent = sum_{i<k} f^i (1 - 1/lines)^i; a present key tests all
 *       k: L_present = lines (1 - (1 - 1/lines)^k), the expected number of
 *       distinct lines among k uniform draws.  (Partitioned positions are
 *       uniform within slices, not over all lines; the formula is the same
 *       to within a line's share.)
 * For filters far larger than the last-level cache both are ~ sum f^i and k.
 * An insert sets its key's bits on L_present lines, so
 *     fraction_insert = L_present * ns_per_update / ns_per_insert.
 * These are the lines a query needs; the phased query loops (filters.c,
 * and avx512.c's past L2) fetch a little more (1 + 2f + 4f^3 + ... for an absent key: 2.5 against
 * 1.98 at f = 1/2, k = 7), which the fraction counts against it.
 */
#ifndef BLOOMLAB_BENCH_H
#define BLOOMLAB_BENCH_H

#include <stdint.h>

#include "filters.h"

/* Expected distinct cache lines an absent / present query touches. */
double bench_lines_absent(layout_kind layout, unsigned k, double fill, double lines);
double bench_lines_present(layout_kind layout, unsigned k, double lines);

/* A byte count: a number (numbers.h) with an optional binary suffix K, M, G
 * (or Ki, Mi, Gi, KiB, MiB, GiB): 16K = 16384.  0, or -1 when malformed. */
int bench_parse_bytes(const char *text, uint64_t *out);

#endif
