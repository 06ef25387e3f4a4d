/* bench.h -- `bloomlab bench`: throughput against filter size, and the
 * machine's own random-access ceiling measured by the same command.
 *
 * What is timed.  Keys are made by keyset_fill in chunks of 64 batches
 * outside the clock; the clock runs over the filter's loops only
 * (filter_ops_for: insert_many and query_many over each chunk; on an
 * AVX-512 CPU those are avx512.h's loops for every layout (unblocked ones
 * query in phases once the filter outgrows L2), and the output says so; standard filters
 * larger than the last-level cache stage their inserts, and ns_insert includes filter_flush).
 *
 * Medians of passes.  This machine shares its host: a pass can run 10-50%
 * slow while another tenant loads it, so every figure is the median of
 * timed passes, not one mean.  ns_insert: the median over whole fills of an
 * empty filter with n keys, as many fills as --ops inserts take, and 5 at
 * least when n <= --ops (a bigger filter is filled once).  Then 2e5 absent
 * queries run untimed (the first queries after filling a filter of hundreds
 * of MiB ran slower for some milliseconds, page-table and TLB warm-up:
 * docs/PERFORMANCE.md, "Moved from comments"); ns_absent and
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
 *                read (the structure of the filter loops), a continuous
 *                stream prefetching 32 lines ahead, or the addresses given:
 *                2048 of them computed off the clock, then read on it, one
 *                after another or prefetching 32 ahead; the fastest is the
 *                ceiling -- the throughput with misses overlapped.
 *   update       the same ways, each touch setting one bit of a random word
 *                of the line (what an insert does at each position: a read,
 *                then a write the line must come back for); the fastest.
 * The random lines come from mix64 of a counter.  A loop that computes its
 * addresses is bound by that arithmetic in L1 and L2, and even beyond it
 * the arithmetic holds places in the core's window that misses would take:
 * with the addresses given (on the clock only the touches), a line read
 * cost less than half as much in L2 and less beyond it (far past the L3
 * the prefetched stream wins; the timings: docs/PERFORMANCE.md, "Moved
 * from comments").  So the ceiling is the memory system's own
 * rate, below what any loop that makes its addresses can reach.
 *
 * Floors.  A loop that takes keys one pass each touches L lines a key, so
 * it cannot beat L times the ceiling: L * ns_independent a query and
 * L_present * ns_update an insert.  --peers prints each configuration's
 * floors beside its times.
 *
 * Filter plugins.  --filter plugin:PATH.so times a user's filter beside
 * bloomlab's standard layout of each size, the two interleaved and the
 * least of 3 rounds taken (speed.h, the timing `bloomlab check` uses):
 * rows of section plugin, one for each, the plugin's name in `system`.
 * Only what was measured here, in this run, is set beside bloomlab's.
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
 * These are the lines a query needs; the phased query loops (batch.c,
 * and avx512.c's past L2) fetch a little more (1 + 2f + 4f^3 + ... for an absent key: 2.5 against
 * 1.98 at f = 1/2, k = 7), which the fraction counts against it.
 */
#ifndef BLOOMLAB_BENCH_H
#define BLOOMLAB_BENCH_H

#include <stdint.h>

#include "filter/filters.h"

/* Expected distinct cache lines an absent / present query touches. */
double bench_lines_absent(layout_kind layout, unsigned k, double fill, double lines);
double bench_lines_present(layout_kind layout, unsigned k, double lines);

/* A byte count: a number (numbers.h) with an optional binary suffix K, M, G
 * (or Ki, Mi, Gi, KiB, MiB, GiB): 16K = 16384.  0, or -1 when malformed. */
int bench_parse_bytes(const char *text, uint64_t *out);

#endif
