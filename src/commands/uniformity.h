/* uniformity.h -- `bloomlab uniformity`: are a hash's bit positions uniform?
 *
 * The theory of every layout assumes each of a key's k positions is uniform
 * over the filter.  This test looks at that assumption alone, without a
 * filter: hash n keys of a key set through a scheme into m buckets by the
 * same multiply-shift reduction a standard filter uses (schemes.h), count
 * every one of the k positions of every key, and compare the N = n k counts
 * c_j with the uniform expectation E = N / m by Pearson's statistic
 *
 *     chi2 = sum_j (c_j - E)^2 / E,      dof = m - 1.
 *
 * Under uniform independent positions chi2 follows chi-square with m - 1
 * degrees of freedom (the approximation needs E >= 5, which the command
 * enforces); the p-value is its upper tail P(chi2_{m-1} > chi2).
 *
 * The flag uses a 5-sigma bound, the one the FPR z-scores use: the two-sided
 * normal tail beyond 5 sd, alpha = erfc(5 / sqrt 2) = 5.73e-7.
 *   nonuniform   p < alpha: the counts scatter far more than chance allows.
 *   too_uniform  p > 1 - alpha: far less than chance allows -- positions laid
 *                down like a counter (first8 on sequential keys), not drawn.
 *   ok           otherwise.
 * At alpha a perfect hash is flagged once in 1.7 million tests, so a flag is
 * a property of the hash and key set, not bad luck.  What the test cannot
 * see: the k positions of one key are counted as if independent, so a
 * scheme whose positions repeat inside a key shows up only through the
 * extra scatter that causes, and a correlation between keys that leaves
 * the marginal counts flat (double hashing's shared h2) is invisible here:
 * the FPR z-scores of `bloomlab sweep` are the test for that.
 */
#ifndef BLOOMLAB_UNIFORMITY_H
#define BLOOMLAB_UNIFORMITY_H

#include <stdint.h>

#include "base/hashes.h"
#include "harness/keys.h"
#include "filter/schemes.h"

typedef struct {
    double chi2;
    double dof;
    double p_value;        /* P(chi2_dof > chi2) */
    uint64_t count_min;    /* the emptiest and fullest bucket */
    uint64_t count_max;
    double ns_per_key;     /* hashing and positions only: keys are made outside the clock */
} uniformity_result;

/* The flag bound: erfc(5 / sqrt 2), the two-sided 5-sigma normal tail. */
double uniformity_alpha(void);
/* "ok", "nonuniform" or "too_uniform" for a p-value. */
const char *uniformity_flag(double p_value);

/* Count the k positions of keys 0..n-1 (present side, trial 0 of `seed`,
 * exactly the keys a sweep's first trial inserts) in m buckets.  hash may
 * be NULL for the ideal scheme.  The caller has checked m >= 2, 1 <= k <=
 * 64, the key set's size and (course) m a power of two.  Returns 0, or -1
 * when the m counters cannot be allocated. */
int uniformity_measure(const hasher *hash, scheme_kind scheme, const keyset *keys, uint64_t m,
                       uint64_t n, unsigned k, uint64_t seed, uniformity_result *out);

int cmd_uniformity(int argc, char **argv);

#endif
