/* theory.c -- the formulas bloomlab sets beside its measurements.
 *
 * Everything is computed in long double (x87 80-bit, 64-bit mantissa,
 * exponent range to 1e-4951) and rounded to double once, at the end.  The
 * integers involved (m <= 2^64, T = k n <= 6.4e13) are exact in it.
 *
 * NOTATION.  A standard filter is m bins ("bits"); inserting n items throws
 * T = k n balls, each into a uniform bin, independently, with replacement.
 * X is the number of occupied bins (bits set), Y = m - X the empty ones,
 * q = 1 - 1/m the chance one throw misses a given bin.
 *
 * FILL.  E[Y] = m q^T, so E[X/m] = 1 - q^T = -expm1(T log1p(-1/m)), which
 * has no cancellation at any T/m.
 *
 * FILL SD.  E[Y(Y-1)] = m(m-1)(1-2/m)^T (two given bins both empty), so
 *     Var Y = m q^T (1 - q^T) + m(m-1) q^2T [((1-2/m)/q^2)^T - 1],
 * and (1-2/m)/q^2 = 1 - 1/(m-1)^2.  Both terms are about T when T << m
 * while Var Y is about T^2/2m (pairs of balls that collide): relative
 * cancellation m/T.  Write d = 1/(m-1), so 1/q = 1 + d, and factor out q^2T:
 *     Var Y = m q^2T f,   f = [(1+d)^T - 1] + [(1-d^2)^T - 1] / d.
 * Expanding both binomially, the d^1 terms (+T d and -T d) cancel exactly:
 *     f = sum_{j>=2} C(T,j) d^j  +  sum_{i>=2} (-1)^i C(T,i) d^(2i-1),
 * whose terms fall like (T d)^j / j!, so for T d <= 1 the series is summed
 * term by term with no cancellation (the signed terms are d^3 T smaller
 * than the leading C(T,2) d^2).  For T d > 1 the direct form is used: there
 * the subtracted term is at most Ta/(e^Ta - 1) <= 0.6 of the first one
 * (a = -log q), so no more than two bits are lost.  T = 0 or 1 and m = 1
 * give Var Y = 0 exactly.
 *
 * FALSE POSITIVES.  A query for an absent key probes k independent
 * uniform bins, so FPR = E[(X/m)^k] (Bose et al. 2008; Christensen,
 * Roginsky and Jimeno 2010).  The classic (1 - e^(-kn/m))^k and the finite
 * (1 - q^T)^k replace X/m by its mean; by Jensen exact >= finite > classic.
 * Exact: the k probes land on D distinct bins, P(D = j) = S(k,j) (m)_j / m^k
 * (S: Stirling numbers of the second kind, (m)_j the falling factorial),
 * and a false positive needs those j bins all occupied:
 *     FPR = sum_{j=1..min(k,m)} P(D = j) P_j,
 *     P_j = P(j given bins all hit) = sum_{l=0..j} (-1)^l C(j,l) (1-l/m)^T.
 * All terms of the outer sum are positive.  The inclusion-exclusion for P_j
 * is used when its result is at least 1e-6 of the sum of its absolute
 * terms (error then below 1e-11 relative).  Otherwise (T j/m small, P_j
 * maybe as tiny as 1e-1000) condition on the number N of balls that land
 * in the j bins, N ~ Binomial(T, j/m); given N they are uniform on the j
 * bins, so with C_j(N) = P(N balls onto j bins cover all j) = j! S(N,j)/j^N
 *     P_j = sum_{N>=j} Binom(N; T, j/m) C_j(N).
 * From S(N+1,j) = j S(N,j) + S(N,j-1), the C_j obey a recurrence with only
 * positive terms, for all j at once:
 *     C_j(N+1) = C_j(N) + C_{j-1}(N) ((j-1)/j)^N,   C_0(0) = 1,
 * and the binomial weights follow from the one at N = j by the ratio
 * (T-N)/(N+1) p/(1-p).  The sum stops when the remaining binomial tail
 * (bounded by a geometric series, since C_j <= 1) is below 1e-18 of it.
 * In this regime T j/m is below ~150 (where the inclusion-exclusion
 * cancels by 1e6 at j = 64), so N stays in the hundreds.
 *
 * SIZING.  With m/n bits per item, the classic formula is least at
 * k = (m/n) ln 2, where it equals 2^-k = exp(-(ln 2)^2 m/n); inverted,
 * m/n = -ln p / (ln 2)^2.  The best integer k is searched with fpr_exact.
 *
 * PARTITIONED.  Slice i is bits [floor(i m/k), floor((i+1) m/k)); its size
 * s_i is floor(m/k) or floor(m/k)+1 (exactly m mod k slices are the
 * larger).  Each key sets one uniform bit per slice, so slices are
 * independent and FPR = prod_i (1 - (1 - 1/s_i)^n) exactly; the fill is
 * sum_i s_i (1 - (1 - 1/s_i)^n) / m.  The caller ensures m >= k (a slice of
 * no bits gives FPR 1).
 *
 * BLOCKED.  nb = m/B blocks; a key picks one block, so a block's load is
 * L ~ Binomial(n, 1/nb), and given L the block is a standard filter of B
 * bits: FPR = E_L[fpr_exact(B, L, k)].  Putze, Sanders and Singler (2007)
 * approximate it by E[(1 - e^(-kL/B))^k] with L ~ Poisson(n/nb).  Both
 * mixtures have closed forms through the generating function
 * G(z) = E[z^L] = (1 - (1-z)/nb)^n, resp. e^(-(n/nb)(1-z)):
 *     exact:  sum_j P(D=j) sum_l (-1)^l C(j,l) G((1-l/B)^k),
 *     approx: sum_i (-1)^i C(k,i) G(e^(-ik/B)),
 * used when their inclusion-exclusions do not cancel (same 1e-6 test);
 * otherwise the loads are few and the mixture is summed over L directly,
 * from the mode outwards, until the remaining tail, bounded by a geometric
 * series times the monotone per-load FPR, is below 1e-18 of the sum.
 * The binomial and Poisson weights at the mode use Loader's saddle-point
 * form (as R's dbinom does), which stays exact to ~1e-18 for n = 1e12.
 * The fill: a bit is set by one key with chance (1 - (1-1/B)^k)/nb.
 * The caller ensures m is a multiple of B with m >= B (no block: FPR 1).
 *
 * SPLIT BLOCK.  nb = m/256 blocks of eight 32-bit words; given its load L,
 * each word holds L uniform bit settings out of 32, independently, so
 * FPR | L = (1 - (31/32)^L)^8 and FPR = E_L of that (binomial, or Poisson
 * for the approximation), with the same closed form / direct sum pair.
 * A bit is set by one key with chance 1/(32 nb).
 *
 * ONE FILTER'S RATE, AND ITS VARIANCE.  Fix a built filter: an absent
 * query with ideal positions is a false positive with probability F, a
 * function of the filter's bits alone.  Over the filters E[F] is the exact
 * formula of the layout, and E[F^2] is the chance that two independent
 * absent queries of one filter are both false positives.  A trial asking q
 * absent keys of one filter counts x ~ Binomial(q, F) given F, so its rate
 * r = x/q has
 *     Var r = E[F(1-F)]/q + Var F,    E[F(1-F)] = E[F] - E[F]^2 - Var F,
 * and the mean of T independent trials Var r / T: known under the null at
 * any T, T = 1 included (stats.h uses it).  Var F, layout by layout:
 *   standard (and counting, whose F counts the counters above zero: the
 *     same law): k probes with replacement, F = (X/m)^k, so
 *     E[F^2] = E[(X/m)^2k]: the exact formula's sum with 2k probes (and
 *     still k n throws; PROBES_MAX).
 *     Var F = E[F^2] - E[F]^2 loses the digits the two share: its absolute
 *     error is ~1e-11 E[F]^2, which beside the query term E[F]/q matters
 *     only past q E[F] = 1e9 false positives in one trial.
 *   partitioned: F = prod_i Y_i, Y_i = X_i/s_i the fill of slice i.  The
 *     slices are independent (each key sets one bit in each), so
 *     E[F^2]/E[F]^2 = prod_i (1 + Var Y_i / E[Y_i]^2), and
 *         Var F = E[F]^2 expm1(sum_i log1p(Var X_i / (s_i E[Y_i])^2)),
 *     Var X_i the occupancy variance of n throws into s_i bins (FILL SD):
 *     nothing cancels.
 *   blocked: F = (1/nb) sum_b G_b, G_b = (X_b/B)^k.  Given the loads the
 *     blocks are independent, E[G | L] = g(L) = fpr_exact(B, L, k) and
 *     E[G^2 | L] = h(L) = E[(X/B)^2k | L].  Two queries meet in one
 *     block with chance 1/nb; with S = E[h(L)] and C = E[g(L1) g(L2)] over
 *     two blocks' (multinomial) loads,
 *         Var F = (S - C)/nb + (C - E[g(L)]^2),
 *     the second term the covariance of two blocks (negative: a key in one
 *     is not in the other), summed as a difference of laws so that it does
 *     not cancel:
 *         C - E[g]^2 = sum_a P(L1 = a) g(a) sum_c [P(L2 = c | L1 = a) - P(L2 = c)] g(c),
 *     L2 | L1 = a ~ Binomial(n - a, 1/(nb - 1)).  g and h are tabulated
 *     over the loads that carry all but 1e-18 of E[g]^2.  nb = 1 is the
 *     standard filter of B bits.
 *   split block: the same with g(L) = w^8, w = 1 - (31/32)^L, and
 *     h(L) = (w^2 + Var X_L / 32^2)^8: given L the eight words are
 *     independent, each the occupancy X_L of L throws into 32 bits.
 */
#include "model/theory.h"

#include <math.h>
#include <stdlib.h>

typedef long double real;

#define K_MAX 64
/* Probes of one question: k for the false-positive rate, 2k for its second
 * moment (two independent queries, VARIANCE above). */
#define PROBES_MAX (2 * K_MAX)
#define TAIL_REL 1e-18L       /* a truncated tail is below this * kept sum */
#define ALTERNATING_OK 1e-6L  /* an alternating sum is kept when result >= this * sum |terms| */
#define LN_2 0.693147180559945309417232121458176568L
#define LN_SQRT_2PI 0.918938533204672741780329736405617640L
#define LN_2PI 1.837877066409345483560659472811235280L

/* ---- small helpers ---------------------------------------------------- */

/* (1 - ratio)^exponent for 0 <= ratio <= 1; exponent 0 gives 1. */
static real power_of_one_minus(real ratio, real exponent)
{
    if (exponent == 0)
        return 1;
    return expl(exponent * log1pl(-ratio));
}

/* 1 - (1 - ratio)^exponent, without cancellation. */
static real one_minus_power_of_one_minus(real ratio, real exponent)
{
    if (exponent == 0)
        return 0;
    return -expm1l(exponent * log1pl(-ratio));
}

/* x^k for 0 <= x <= 1 through logs, so 1e-300 and below is fine. */
static real probability_power(real x, unsigned k)
{
    if (x <= 0)
        return 0;
    return expl(k * logl(x));
}

/* Row j of Pascal's triangle from row j - 1, in place (exact while the
 * entries stay below 2^64, j <= 67; beyond, rounded to 1e-19 relative). */
static void pascal_next_row(unsigned j, real row[PROBES_MAX + 1])
{
    row[j] = 1;
    for (unsigned l = j - 1; l >= 1; l--)
        row[l] += row[l - 1];
    row[0] = 1;
}

/* sum_{l=0..j} (-1)^l C(j,l) g[l], binom = row j of Pascal's triangle.
 * Returns 0 and the sum in *out, or -1 when the result is below
 * ALTERNATING_OK of the sum of absolute terms (too much would cancel). */
static int alternating_binomial_sum(unsigned j, const real binom[], const real g[], real *out)
{
    real plus = 0, minus = 0;
    for (unsigned l = 0; l <= j; l += 2)
        plus += binom[l] * g[l];
    for (unsigned l = 1; l <= j; l += 2)
        minus += binom[l] * g[l];
    real result = plus - minus;
    if (!(result >= ALTERNATING_OK * (plus + minus)))
        return -1;
    *out = result;
    return 0;
}

/* P(D = j), j = 0..k: the k probes of one query hit exactly j distinct
 * bins of m.  S(k,j) (m)_j / m^k, zero for j > m. */
static void distinct_probe_probs(real bins, unsigned k, real prob[PROBES_MAX + 1])
{
    real stirling[PROBES_MAX + 1] = {0};
    stirling[0] = 1;
    for (unsigned row = 1; row <= k; row++) {
        for (unsigned j = row; j >= 1; j--)
            stirling[j] = j * stirling[j] + stirling[j - 1];
        stirling[0] = 0;
    }
    real falling_over_power = 1; /* (m)_j / m^j */
    real log_bins = logl(bins);
    prob[0] = 0;
    for (unsigned j = 1; j <= k; j++) {
        falling_over_power *= 1 - (real)(j - 1) / bins;
        if (falling_over_power <= 0) {
            prob[j] = 0;
            continue;
        }
        prob[j] = stirling[j] * falling_over_power * expl(((real)j - (real)k) * log_bins);
    }
}

/* ---- coverage of j given bins by T throws ----------------------------- */

struct conditioned_sum {
    int active;
    real success;  /* j/m */
    real odds;     /* p/(1-p) */
    real weight;   /* Binom(N; T, p) at the current N */
    real total;
};

/* P_j for the j marked in need[] by conditioning on the N balls that fall
 * into the j bins (see the top comment).  Requires throws >= j. */
static void coverage_by_conditioning(real bins, real throws, unsigned jmax, const int need[],
                                     real cover[])
{
    real covered[PROBES_MAX + 1] = {0}; /* C_c(N), c = 0..jmax */
    real miss_power[PROBES_MAX + 1];    /* ((c-1)/c)^N */
    struct conditioned_sum sum[PROBES_MAX + 1];
    unsigned pending = 0;

    real log_choose = 0; /* ln C(T, c) */
    real log_bins = logl(bins);
    covered[0] = 1;
    for (unsigned c = 0; c <= jmax; c++) {
        miss_power[c] = 1;
        sum[c].active = 0;
        if (c > 0)
            log_choose += logl((throws - (c - 1)) / c);
        if (c == 0 || !need[c])
            continue;
        sum[c].active = 1;
        sum[c].total = 0;
        sum[c].success = (real)c / bins;
        if (c < bins) {
            /* Binom(N = c; T, c/m) */
            real log_weight = log_choose + c * (logl((real)c) - log_bins) +
                              (throws - c) * log1pl(-sum[c].success);
            sum[c].weight = expl(log_weight);
            sum[c].odds = sum[c].success / (1 - sum[c].success);
        } else {
            sum[c].weight = 1; /* all balls land in the j = m bins: N = T */
            sum[c].odds = 0;
        }
        pending++;
    }

    real miss_step[PROBES_MAX + 1]; /* (c-1)/c */
    for (unsigned c = 1; c <= jmax; c++)
        miss_step[c] = (real)(c - 1) / c;
    for (real balls = 0; pending > 0; balls++) {
        /* covered[] holds C_c(balls); the binomial ratios without p/(1-p): */
        real step = (throws - balls) / (balls + 1);
        real next_step = (throws - balls - 1) / (balls + 2);
        for (unsigned c = 1; c <= jmax; c++) {
            struct conditioned_sum *s = &sum[c];
            if (!s->active || balls < c)
                continue;
            if (s->odds == 0) { /* j = m: N = T */
                if (balls == throws) {
                    s->total = covered[c];
                    s->active = 0;
                    pending--;
                }
                continue;
            }
            s->total += s->weight * covered[c];
            real next = s->weight * step * s->odds;
            real next_ratio = next_step * s->odds;
            if (next == 0 || balls >= throws ||
                (next_ratio < 1 && next / (1 - next_ratio) <= TAIL_REL * s->total)) {
                s->active = 0;
                pending--;
            }
            s->weight = next;
        }
        for (unsigned c = jmax; c >= 1; c--) {
            covered[c] += covered[c - 1] * miss_power[c];
            miss_power[c] *= miss_step[c];
        }
        covered[0] = 0;
    }
    for (unsigned c = 1; c <= jmax; c++)
        if (need[c])
            cover[c] = sum[c].total;
}

/* P_j, j = 1..jmax: the chance that j given bins of m are all hit by T
 * uniform throws. */
static void coverage_probs(real bins, real throws, unsigned jmax, real cover[PROBES_MAX + 1])
{
    real all_empty[PROBES_MAX + 1]; /* (1 - l/m)^T: l given bins all missed */
    int need[PROBES_MAX + 1] = {0};
    int any = 0;

    for (unsigned l = 0; l <= jmax; l++)
        all_empty[l] = power_of_one_minus((real)l / bins, throws);
    real binom[PROBES_MAX + 1] = {1, 1};
    cover[0] = 1;
    cover[1] = one_minus_power_of_one_minus(1 / bins, throws);
    for (unsigned j = 2; j <= jmax; j++) {
        pascal_next_row(j, binom);
        if (throws < j)
            cover[j] = 0;
        else if (alternating_binomial_sum(j, binom, all_empty, &cover[j]) != 0)
            need[j] = any = 1;
    }
    if (any)
        coverage_by_conditioning(bins, throws, jmax, need, cover);
}

/* ---- standard filter -------------------------------------------------- */

/* E[(X/m)^probes] when k n throws fill m bins, given P(D = j) for this m
 * and this many probes: probes = k is the false-positive rate, probes = 2k
 * its second moment (ONE FILTER'S RATE). */
static real fill_power_moment(uint64_t m, uint64_t n, unsigned k, unsigned probes,
                              const real distinct[PROBES_MAX + 1])
{
    if (n == 0 || m == 0)
        return 0;
    if (m == 1)
        return 1;
    real bins = (real)m, throws = (real)k * (real)n;
    unsigned jmax = (uint64_t)probes < m ? probes : (unsigned)m;
    real cover[PROBES_MAX + 1];
    coverage_probs(bins, throws, jmax, cover);
    real moment = 0;
    for (unsigned j = 1; j <= jmax; j++)
        moment += distinct[j] * cover[j];
    return moment;
}

/* E[(X/m)^k] given P(D = j) for this m and k. */
static real fpr_exact_given_distinct(uint64_t m, uint64_t n, unsigned k,
                                     const real distinct[PROBES_MAX + 1])
{
    return fill_power_moment(m, n, k, k, distinct);
}

static real fill_power_moment_ld(uint64_t m, uint64_t n, unsigned k, unsigned probes)
{
    if (n == 0 || m <= 1)
        return fill_power_moment(m, n, k, probes, 0);
    real distinct[PROBES_MAX + 1];
    distinct_probe_probs((real)m, probes, distinct);
    return fill_power_moment(m, n, k, probes, distinct);
}

static real fpr_exact_ld(uint64_t m, uint64_t n, unsigned k)
{
    return fill_power_moment_ld(m, n, k, k);
}

static real fill_expected_ld(uint64_t m, uint64_t n, unsigned k)
{
    if (m == 0)
        return 0;
    return one_minus_power_of_one_minus(1 / (real)m, (real)k * (real)n);
}

static real fpr_classic_ld(real bins, real items, unsigned k)
{
    if (items == 0)
        return 0;
    return probability_power(-expm1l(-(k * items) / bins), k);
}

/* Var Y for T throws into m bins (see the top comment). */
static real empty_bins_variance(real bins, real throws)
{
    if (bins <= 1 || throws <= 1)
        return 0;
    real d = 1 / (bins - 1);
    real log_miss = log1pl(-1 / bins);
    if (throws * d <= 1) {
        real f = 0;
        real term = throws * d; /* C(T,j) d^j */
        for (unsigned j = 2; j < 200; j++) {
            term *= (throws - (j - 1)) / j * d;
            f += term;
            if (term <= 1e-22L * f)
                break;
        }
        real term2 = -throws * d; /* (-1)^i C(T,i) d^(2i-1) */
        for (unsigned i = 2; i < 200; i++) {
            term2 *= -(throws - (i - 1)) / i * d * d;
            f += term2;
            if (fabsl(term2) <= 1e-22L * f)
                break;
        }
        return bins * expl(2 * throws * log_miss) * f;
    }
    real miss_all = expl(throws * log_miss);
    real pair_excess = -expm1l(throws * log1pl(-d * d));
    return bins * miss_all * (1 - miss_all) -
           bins * (bins - 1) * miss_all * miss_all * pair_excess;
}

double theory_fill_expected(uint64_t m, uint64_t n, unsigned k)
{
    return (double)fill_expected_ld(m, n, k);
}

double theory_fill_sd(uint64_t m, uint64_t n, unsigned k)
{
    if (m == 0)
        return 0;
    real variance = empty_bins_variance((real)m, (real)k * (real)n);
    if (!(variance > 0))
        return 0;
    return (double)(sqrtl(variance) / (real)m);
}

double theory_fpr_classic(uint64_t m, uint64_t n, unsigned k)
{
    if (m == 0)
        return n ? 1 : 0;
    return (double)fpr_classic_ld((real)m, (real)n, k);
}

double theory_fpr_finite(uint64_t m, uint64_t n, unsigned k)
{
    return (double)probability_power(fill_expected_ld(m, n, k), k);
}

double theory_fpr_exact(uint64_t m, uint64_t n, unsigned k)
{
    return (double)fpr_exact_ld(m, n, k);
}

/* ---- sizing ------------------------------------------------------------- */

double theory_k_opt(double bits_per_item)
{
    return (double)((real)bits_per_item * LN_2);
}

unsigned theory_k_opt_int(uint64_t m, uint64_t n)
{
    if (n == 0)
        return 1;
    unsigned best_k = 1;
    real best_fpr = fpr_exact_ld(m, n, 1);
    for (unsigned k = 2; k <= K_MAX; k++) {
        real fpr = fpr_exact_ld(m, n, k);
        if (fpr < best_fpr) {
            best_fpr = fpr;
            best_k = k;
        }
    }
    return best_k;
}

double theory_fpr_optimal(double bits_per_item)
{
    return (double)expl(-LN_2 * LN_2 * (real)bits_per_item);
}

double theory_bits_per_item(double p)
{
    return (double)(-logl((real)p) / (LN_2 * LN_2));
}

/* ---- partitioned ------------------------------------------------------ */

/* Slices: (k - big) of `small` bits and `big` of small + 1. */
static void slice_sizes(uint64_t m, unsigned k, real *small, unsigned *big)
{
    *small = (real)(m / k);
    *big = (unsigned)(m % k);
}

static real fpr_partitioned_ld(uint64_t m, uint64_t n, unsigned k)
{
    if (n == 0)
        return 0;
    real small;
    unsigned big;
    slice_sizes(m, k, &small, &big);
    if (small == 0)
        return 1;
    real log_fpr = (k - big) * logl(one_minus_power_of_one_minus(1 / small, (real)n)) +
                   big * logl(one_minus_power_of_one_minus(1 / (small + 1), (real)n));
    return expl(log_fpr);
}

double theory_fpr_partitioned(uint64_t m, uint64_t n, unsigned k)
{
    return (double)fpr_partitioned_ld(m, n, k);
}

double theory_fill_partitioned(uint64_t m, uint64_t n, unsigned k)
{
    if (n == 0 || m == 0)
        return 0;
    real small;
    unsigned big;
    slice_sizes(m, k, &small, &big);
    real set_bits = big * (small + 1) * one_minus_power_of_one_minus(1 / (small + 1), (real)n);
    if (small > 0)
        set_bits += (k - big) * small * one_minus_power_of_one_minus(1 / small, (real)n);
    return (double)(set_bits / (real)m);
}

/* ---- block loads -------------------------------------------------------- */

/* Load of one block: Binomial(trials, success) or Poisson(mean). */
struct load_law {
    int poisson;
    real trials, success, mean;
};

/* ln n! - (n + 1/2) ln n + n - ln sqrt(2 pi), n >= 1 (Loader 2000). */
static real stirling_error(real n)
{
    if (n <= 50)
        return lgammal(n + 1) - (n + 0.5L) * logl(n) + n - LN_SQRT_2PI;
    const real s0 = 1.0L / 12, s1 = 1.0L / 360, s2 = 1.0L / 1260, s3 = 1.0L / 1680,
               s4 = 1.0L / 1188, s5 = 691.0L / 360360;
    real nn = n * n;
    return (s0 - (s1 - (s2 - (s3 - (s4 - s5 / nn) / nn) / nn) / nn) / nn) / n;
}

/* x ln(x/mean) + mean - x, without cancellation near x = mean. */
static real deviance_part(real x, real mean)
{
    if (fabsl(x - mean) < 0.1L * (x + mean)) {
        real v = (x - mean) / (x + mean), v2 = v * v;
        real s = (x - mean) * v, ej = 2 * x * v;
        for (unsigned j = 1; j < 10000; j++) {
            ej *= v2;
            real s1 = s + ej / (2 * j + 1);
            if (s1 == s)
                break;
            s = s1;
        }
        return s;
    }
    return x * logl(x / mean) + mean - x;
}

static real load_pmf(const struct load_law *law, real load)
{
    if (law->poisson) {
        if (load == 0)
            return expl(-law->mean);
        return expl(-stirling_error(load) - deviance_part(load, law->mean)) /
               sqrtl(2 * 3.14159265358979323846264338327950288L * load);
    }
    real n = law->trials, p = law->success;
    if (load == 0)
        return expl(n * log1pl(-p));
    if (load == n)
        return expl(n * logl(p));
    real lc = stirling_error(n) - stirling_error(load) - stirling_error(n - load) -
              deviance_part(load, n * p) - deviance_part(n - load, n * (1 - p));
    real lf = LN_2PI + logl(load) + log1pl(-load / n);
    return expl(lc - 0.5L * lf);
}

/* pmf(load + 1) / pmf(load) */
static real load_ratio_up(const struct load_law *law, real load)
{
    if (law->poisson)
        return law->mean / (load + 1);
    if (load >= law->trials)
        return 0;
    return (law->trials - load) / (load + 1) * law->success / (1 - law->success);
}

static real load_mode(const struct load_law *law)
{
    if (law->poisson)
        return floorl(law->mean);
    real mode = floorl((law->trials + 1) * law->success);
    return mode > law->trials ? law->trials : mode;
}

/* 1 - E[z^L], given 1 - z. */
static real load_pgf_complement(const struct load_law *law, real one_minus_z)
{
    if (law->poisson)
        return -expm1l(-law->mean * one_minus_z);
    return -expm1l(law->trials * log1pl(-law->success * one_minus_z));
}

/* E[z^L], given 1 - z. */
static real load_pgf(const struct load_law *law, real one_minus_z)
{
    if (law->poisson)
        return expl(-law->mean * one_minus_z);
    return expl(law->trials * log1pl(-law->success * one_minus_z));
}

typedef real (*per_load_fpr)(real load, const void *ctx);

/* E[f(L)] for f nondecreasing in L with 0 <= f <= 1, summed from the mode
 * outwards; each side stops when its remaining tail is below TAIL_REL of
 * the sum (geometric bound on the weights, f bounded by 1 above and by the
 * last value below). */
static real mix_over_loads(const struct load_law *law, per_load_fpr f, const void *ctx)
{
    real mode = load_mode(law);
    real mode_weight = load_pmf(law, mode);
    real sum = 0;

    real weight = mode_weight;
    for (real load = mode;; load++) {
        sum += weight * f(load, ctx);
        real next = weight * load_ratio_up(law, load);
        if (next == 0)
            break;
        real next_ratio = load_ratio_up(law, load + 1);
        if (next_ratio < 1 && sum > 0 && next / (1 - next_ratio) <= TAIL_REL * sum)
            break;
        weight = next;
    }
    weight = mode_weight;
    for (real load = mode; load > 0; load--) {
        real below = weight / load_ratio_up(law, load - 1); /* pmf(load - 1) */
        real value = f(load - 1, ctx);
        if (value == 0 || below == 0)
            break;
        sum += below * value;
        /* remaining: sum_{t < load-1} pmf(t) f(t) <= value * pmf(load-2)/(1-s) */
        if (load - 1 == 0)
            break;
        real below2 = below / load_ratio_up(law, load - 2);
        real s = load >= 3 ? 1 / load_ratio_up(law, load - 3) : 0;
        if (s < 1 && value * below2 / (1 - s) <= TAIL_REL * sum)
            break;
        weight = below;
    }
    return sum;
}

static struct load_law block_load_law(uint64_t n, uint64_t blocks, int exact)
{
    struct load_law law;
    law.poisson = !exact;
    law.trials = (real)n;
    law.success = 1 / (real)blocks;
    law.mean = (real)n / (real)blocks;
    return law;
}

/* ---- blocked ------------------------------------------------------------- */

struct blocked_ctx {
    uint64_t block_bits;
    unsigned k;
    real distinct[PROBES_MAX + 1]; /* P(D = j) within a block */
};

static real blocked_exact_at_load(real load, const void *ctx)
{
    const struct blocked_ctx *b = ctx;
    return fpr_exact_given_distinct(b->block_bits, (uint64_t)load, b->k, b->distinct);
}

static real blocked_classic_at_load(real load, const void *ctx)
{
    const struct blocked_ctx *b = ctx;
    return fpr_classic_ld((real)b->block_bits, load, b->k);
}

/* Closed form of E_L[fpr_exact(B, L, k)]; -1 when it would cancel. */
static int blocked_exact_closed(const struct load_law *law, real block, unsigned k, real *out)
{
    unsigned jmax = k < block ? k : (unsigned)block;
    real pgf[PROBES_MAX + 1], distinct[PROBES_MAX + 1];
    pgf[0] = 1;
    for (unsigned l = 1; l <= jmax; l++)
        pgf[l] = load_pgf(law, one_minus_power_of_one_minus((real)l / block, k));
    distinct_probe_probs(block, k, distinct);
    real fpr = distinct[1] *
               load_pgf_complement(law, one_minus_power_of_one_minus(1 / block, k));
    real binom[PROBES_MAX + 1] = {1, 1};
    for (unsigned j = 2; j <= jmax; j++) {
        real cover;
        pascal_next_row(j, binom);
        if (alternating_binomial_sum(j, binom, pgf, &cover) != 0)
            return -1;
        fpr += distinct[j] * cover;
    }
    *out = fpr;
    return 0;
}

/* Closed form of E_L[(1 - e^(-kL/B))^k], L Poisson; -1 when it cancels. */
static int blocked_classic_closed(const struct load_law *law, real block, unsigned k, real *out)
{
    real pgf[PROBES_MAX + 1], binom[PROBES_MAX + 1] = {1, 1};
    for (unsigned i = 0; i <= k; i++)
        pgf[i] = load_pgf(law, -expm1l(-(real)(i * k) / block));
    for (unsigned j = 2; j <= k; j++)
        pascal_next_row(j, binom);
    return alternating_binomial_sum(k, binom, pgf, out);
}

double theory_fpr_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits, int exact)
{
    if (n == 0)
        return 0;
    uint64_t blocks = block_bits ? m / block_bits : 0;
    if (blocks == 0)
        return 1;
    if (exact && blocks == 1)
        return (double)fpr_exact_ld(block_bits, n, k);
    struct load_law law = block_load_law(n, blocks, exact);
    struct blocked_ctx ctx;
    ctx.block_bits = block_bits;
    ctx.k = k;
    real fpr;
    if (exact) {
        if (blocked_exact_closed(&law, block_bits, k, &fpr) != 0) {
            distinct_probe_probs(block_bits, k, ctx.distinct);
            fpr = mix_over_loads(&law, blocked_exact_at_load, &ctx);
        }
    } else {
        if (blocked_classic_closed(&law, block_bits, k, &fpr) != 0)
            fpr = mix_over_loads(&law, blocked_classic_at_load, &ctx);
    }
    return (double)fpr;
}

double theory_fill_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits)
{
    uint64_t blocks = block_bits ? m / block_bits : 0;
    if (n == 0 || blocks == 0)
        return 0;
    real per_key = one_minus_power_of_one_minus(1 / (real)block_bits, k) / (real)blocks;
    return (double)one_minus_power_of_one_minus(per_key, (real)n);
}

/* ---- split block --------------------------------------------------------- */

#define SPLIT_BLOCK_BITS 256
#define SPLIT_WORDS 8
#define SPLIT_WORD_BITS 32

static real splitblock_at_load(real load, const void *ctx)
{
    (void)ctx;
    real word_hit = one_minus_power_of_one_minus(1.0L / SPLIT_WORD_BITS, load);
    return probability_power(word_hit, SPLIT_WORDS);
}

static int splitblock_closed(const struct load_law *law, real *out)
{
    real pgf[SPLIT_WORDS + 1], binom[PROBES_MAX + 1] = {1, 1};
    for (unsigned i = 0; i <= SPLIT_WORDS; i++)
        pgf[i] = load_pgf(law, one_minus_power_of_one_minus(1.0L / SPLIT_WORD_BITS, i));
    for (unsigned j = 2; j <= SPLIT_WORDS; j++)
        pascal_next_row(j, binom);
    return alternating_binomial_sum(SPLIT_WORDS, binom, pgf, out);
}

double theory_fpr_splitblock(uint64_t m, uint64_t n, int exact)
{
    if (n == 0)
        return 0;
    uint64_t blocks = m / SPLIT_BLOCK_BITS;
    if (blocks == 0)
        return 1;
    if (exact && blocks == 1)
        return (double)splitblock_at_load((real)n, 0);
    struct load_law law = block_load_law(n, blocks, exact);
    real fpr;
    if (splitblock_closed(&law, &fpr) != 0)
        fpr = mix_over_loads(&law, splitblock_at_load, 0);
    return (double)fpr;
}

double theory_fill_splitblock(uint64_t m, uint64_t n)
{
    uint64_t blocks = m / SPLIT_BLOCK_BITS;
    if (n == 0 || blocks == 0)
        return 0;
    return (double)one_minus_power_of_one_minus(1 / ((real)SPLIT_WORD_BITS * (real)blocks),
                                                (real)n);
}

/* ---- the variance of one filter's rate ------------------------------------ */

double theory_fpr_var_standard(uint64_t m, uint64_t n, unsigned k)
{
    real mean = fpr_exact_ld(m, n, k);
    real var = fill_power_moment_ld(m, n, k, 2 * k) - mean * mean;
    return var > 0 ? (double)var : 0;
}

/* Var X / (s E[X/s])^2 for n throws into s bins: the squared coefficient of
 * variation of one slice's fill. */
static real fill_cv_squared(real bins, real throws)
{
    real fill = one_minus_power_of_one_minus(1 / bins, throws);
    if (!(fill > 0))
        return 0;
    return empty_bins_variance(bins, throws) / (bins * bins * fill * fill);
}

double theory_fpr_var_partitioned(uint64_t m, uint64_t n, unsigned k)
{
    real small;
    unsigned big;
    slice_sizes(m, k, &small, &big);
    if (n == 0 || small == 0)
        return 0; /* F is 0, or 1 (a slice without bits), for every filter */
    real mean = fpr_partitioned_ld(m, n, k);
    real log_ratio = (k - big) * log1pl(fill_cv_squared(small, (real)n)) +
                     big * log1pl(fill_cv_squared(small + 1, (real)n));
    return (double)(mean * mean * expm1l(log_ratio));
}

/* One block's false-positive chance G given its load L: g = E[G | L] and
 * h = E[G^2 | L]. */
typedef void (*block_moments)(real load, const void *ctx, real *g, real *h);

/* Loads tabulated at most; past it (tens of thousands of keys in a block)
 * the filter is full to double precision (Var F = 0 then), or else the
 * variance is not computed (NaN). */
#define LOAD_TABLE_MAX 4096

/* The loads [first, first + count) that carry all but TAIL_REL of E[g]^2
 * (see the top comment), walking out from the mode by the pmf's ratios.
 * g is nondecreasing in L and at most 1, so above the table the tail is at
 * most its weight, and below it at most g times its weight, each bounded by
 * a geometric series.  Returns -1 when more than LOAD_TABLE_MAX loads are
 * needed. */
static int load_range(const struct load_law *law, block_moments moments, const void *ctx, real *first,
                      size_t *count)
{
    real mode = load_mode(law), mode_weight = load_pmf(law, mode), g, h;
    moments(mode, ctx, &g, &h);
    real mean_g = mode_weight * g, hi = mode, lo = mode;
    for (real weight = mode_weight; hi < law->trials && hi - lo < LOAD_TABLE_MAX; hi++) {
        real next = weight * load_ratio_up(law, hi), next_ratio = load_ratio_up(law, hi + 1);
        if (next == 0 || (next_ratio < 1 && next / (1 - next_ratio) <= TAIL_REL * mean_g * mean_g))
            break;
        moments(hi + 1, ctx, &g, &h);
        mean_g += next * g;
        weight = next;
    }
    for (real weight = mode_weight; lo > 0 && hi - lo < LOAD_TABLE_MAX; lo--) {
        real below = weight / load_ratio_up(law, lo - 1);
        moments(lo - 1, ctx, &g, &h);
        real shrink = lo >= 2 ? 1 / load_ratio_up(law, lo - 2) : 0; /* pmf(lo-2) / pmf(lo-1) */
        if (below * g == 0 || (shrink < 1 && below * g / (1 - shrink) <= TAIL_REL * mean_g * mean_g))
            break;
        mean_g += below * g;
        weight = below;
    }
    if (hi - lo >= LOAD_TABLE_MAX)
        return -1;
    *first = lo;
    *count = (size_t)(hi - lo) + 1;
    return 0;
}

/* weight[i] = pmf(first + i) of law, by the ratios from the first one. */
static void load_weights(const struct load_law *law, real first, size_t count, real weight[])
{
    weight[0] = first <= law->trials ? load_pmf(law, first) : 0;
    for (size_t i = 1; i < count; i++)
        weight[i] = weight[i - 1] * load_ratio_up(law, first + (real)(i - 1));
}

/* sum_c [P(L2 = c | L1 = a) - P(L2 = c)] g(c) over the table: L2 | L1 = a
 * is Binomial(n - a, 1/(nb - 1)), a point at n - a when nb = 2. */
static real load_shift_effect(uint64_t n, uint64_t blocks, real a, real first, size_t count,
                              const real weight[], const real g[], real given[])
{
    if (blocks == 2) {
        for (size_t i = 0; i < count; i++)
            given[i] = first + (real)i == (real)n - a;
    } else {
        struct load_law law = {0, (real)n - a, 1 / (real)(blocks - 1), 0};
        load_weights(&law, first, count, given);
    }
    real effect = 0;
    for (size_t i = 0; i < count; i++)
        effect += (given[i] - weight[i]) * g[i];
    return effect;
}

/* Var F of a filter of nb blocks holding n keys (top comment: blocked). */
static real block_mean_variance(uint64_t n, uint64_t blocks, block_moments moments, const void *ctx)
{
    real g1, h1;
    if (n == 0 || blocks == 0)
        return 0;
    if (blocks == 1) {
        moments((real)n, ctx, &g1, &h1);
        return h1 > g1 * g1 ? h1 - g1 * g1 : 0;
    }
    struct load_law law = block_load_law(n, blocks, 1);
    real first;
    size_t count;
    if (load_range(&law, moments, ctx, &first, &count) != 0) {
        /* Tens of thousands of keys a block: every block is full to double
         * precision (Var F <= 1 - E[F] < 1e-15), else give up */
        moments(load_mode(&law), ctx, &g1, &h1);
        return g1 >= 1 - 1e-15L ? 0 : NAN;
    }
    real *table = malloc(4 * count * sizeof *table);
    if (table == NULL)
        return NAN;
    real *weight = table, *g = table + count, *h = table + 2 * count, *given = table + 3 * count;
    load_weights(&law, first, count, weight);
    real mean_g = 0, mean_h = 0;
    for (size_t i = 0; i < count; i++) {
        moments(first + (real)i, ctx, &g[i], &h[i]);
        mean_g += weight[i] * g[i];
        mean_h += weight[i] * h[i];
    }
    real covariance = 0; /* C - E[g]^2 */
    for (size_t i = 0; i < count; i++)
        if (weight[i] * g[i] > 0)
            covariance += weight[i] * g[i] *
                          load_shift_effect(n, blocks, first + (real)i, first, count, weight, g, given);
    free(table);
    real both = mean_g * mean_g + covariance; /* C */
    real var = (mean_h - both) / (real)blocks + covariance;
    return var > 0 ? var : 0;
}

struct blocked_moments_ctx {
    uint64_t block_bits;
    unsigned k;
    real distinct[PROBES_MAX + 1];        /* k probes */
    real distinct_twice[PROBES_MAX + 1];  /* 2k probes */
};

static void blocked_moments(real load, const void *ctx, real *g, real *h)
{
    const struct blocked_moments_ctx *b = ctx;
    *g = fpr_exact_given_distinct(b->block_bits, (uint64_t)load, b->k, b->distinct);
    *h = fill_power_moment(b->block_bits, (uint64_t)load, b->k, 2 * b->k, b->distinct_twice);
}

double theory_fpr_var_blocked(uint64_t m, uint64_t n, unsigned k, unsigned block_bits)
{
    uint64_t blocks = block_bits ? m / block_bits : 0;
    struct blocked_moments_ctx ctx;
    ctx.block_bits = block_bits;
    ctx.k = k;
    if (blocks == 0)
        return 0; /* no block: F = 1 */
    distinct_probe_probs(block_bits, k, ctx.distinct);
    distinct_probe_probs(block_bits, 2 * k, ctx.distinct_twice);
    return (double)block_mean_variance(n, blocks, blocked_moments, &ctx);
}

static void splitblock_moments(real load, const void *ctx, real *g, real *h)
{
    (void)ctx;
    real word_fill = one_minus_power_of_one_minus(1.0L / SPLIT_WORD_BITS, load);
    real word_fill_squared = word_fill * word_fill +
                             empty_bins_variance(SPLIT_WORD_BITS, load) / (SPLIT_WORD_BITS * SPLIT_WORD_BITS);
    *g = probability_power(word_fill, SPLIT_WORDS);
    *h = probability_power(word_fill_squared, SPLIT_WORDS);
}

double theory_fpr_var_splitblock(uint64_t m, uint64_t n)
{
    uint64_t blocks = m / SPLIT_BLOCK_BITS;
    if (blocks == 0)
        return 0;
    return (double)block_mean_variance(n, blocks, splitblock_moments, 0);
}
