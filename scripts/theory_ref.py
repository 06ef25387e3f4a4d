#!/usr/bin/python3
"""theory_ref.py -- an independent high-precision reference for src/model/theory.h.

Prints CSV on stdout:  function,m,n,k,extra,value
  function  the theory_* name without its prefix
  extra     k_opt, fpr_optimal: bits per item;  bits_per_item: p;
            fpr_blocked: BLOCK_BITS:EXACT;  fpr_splitblock: EXACT;
            fill_blocked: BLOCK_BITS;  otherwise empty
  value     30 significant digits (a whole number for k_opt_int)

The routes differ on purpose from the C code's:
  * fpr_exact at small m (16, 64 and the blocks of 64 bits) and at m = 1009
    for few throws comes from the occupancy distribution of X, in exact
    integer arithmetic: N_t(i) = number of throw sequences of length t that
    occupy exactly i bins, N_{t+1}(i) = i N_t(i) + (m-i+1) N_t(i-1), so
    P(X = i) = N_T(i)/m^T = C(m,i) i! S(T,i)/m^T and FPR = sum P(X=i)(i/m)^k
    as a Fraction;
  * for huge T at small m, the same distribution from the explicit
    inclusion-exclusion for S(T,i), in mpmath with the working precision
    raised until the cancellation cannot matter;
  * for large m, FPR = sum_j S(k,j) (m)_j/m^k P_j with P_j by plain
    inclusion-exclusion, again at a precision raised to cover the
    cancellation (no conditioning trick);
  * mixtures over block loads are summed over every load L from 0 until
    the remaining tail is below 1e-45 of the sum; only the densest cases
    (hundreds of thousands of loads) use the generating-function closed
    form, at raised precision.
Values are checked against each other (exact vs mpmath) where both apply.
Run with Debian's /usr/bin/python3 (python3-mpmath).
"""
import math
import sys
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

mp.dps = 50
OUT = []
LN2 = None


def emit(function, m, n, k, extra, value):
    if isinstance(value, int):
        text = str(value)
    else:
        text = mpmath.nstr(mpf(value), 30, min_fixed=-4, max_fixed=5)
    OUT.append(f"{function},{m},{n},{k},{extra},{text}")


def agree(a, b, digits=25):
    a, b = mpf(a), mpf(b)
    if a == b:
        return True
    return abs(a - b) <= max(abs(a), abs(b)) * mpf(10) ** (-digits)


# ---- exact combinatorics --------------------------------------------------

def stirling2_row(k):
    """S(k, j) for j = 0..k, exact integers."""
    row = [1]
    for n in range(1, k + 1):
        new = [0] * (n + 1)
        for j in range(1, n + 1):
            new[j] = j * (row[j] if j < len(row) else 0) + row[j - 1]
        row = new
    return row


def falling(m, j):
    out = 1
    for i in range(j):
        out *= m - i
    return out


class OccupancyChain:
    """Exact counts N_t(i) of throw sequences occupying i of m bins."""

    def __init__(self, m):
        self.m = m
        self.t = 0
        self.counts = [1]  # index i = occupied bins

    def advance_to(self, t):
        m = self.m
        c = self.counts
        while self.t < t:
            top = min(len(c), m)  # new length min(t+2, m+1)
            new = [0] * (top + 1)
            for i in range(len(c)):
                if c[i] == 0:
                    continue
                new[i] += i * c[i]
                if i < m:
                    new[i + 1] += (m - i) * c[i]
            while len(new) > 1 and new[-1] == 0:
                new.pop()
            c = new
            self.t += 1
        self.counts = c

    def fpr(self, k):
        """E[(X/m)^k] as a Fraction."""
        num = sum(ci * (i ** k) for i, ci in enumerate(self.counts))
        return Fraction(num, self.m ** (self.t + k))


def fraction_to_mpf(fr):
    with mp.workdps(60):
        return mpf(fr.numerator) / mpf(fr.denominator)


def fpr_exact_chain(m, n, k):
    chain = OccupancyChain(m)
    chain.advance_to(k * n)
    return fraction_to_mpf(chain.fpr(k))


def alternating(terms_fn, count, start_dps=60, need=40):
    """sum_{l=0..count} terms_fn(l) (signed), precision raised until the
    result keeps `need` digits after the cancellation.  Returns mpf."""
    dps = start_dps
    while True:
        with mp.workdps(dps):
            terms = [terms_fn(l) for l in range(count + 1)]
            total = mpmath.fsum(terms)
            size = mpmath.fsum(abs(t) for t in terms)
            if total != 0:
                lost = mpmath.log10(size / abs(total))
            else:
                lost = mpf(dps)
            if dps - lost >= need:
                return +total
            dps = int(lost) + need + 20 if total != 0 else dps * 2
            if dps > 40000:
                raise RuntimeError("cancellation too deep")


def cover_probs(m, T, jmax, need=40):
    """P_j, j = 0..jmax: the chance that j given bins of m are all hit by T
    throws, by inclusion-exclusion sum_l (-1)^l C(j,l) (1-l/m)^T, each at
    a precision raised until `need` digits survive the cancellation."""
    powers = {}

    def pw(dps):
        if dps not in powers:
            with mp.workdps(dps):
                powers[dps] = [(1 - mpf(l) / m) ** T for l in range(jmax + 1)]
        return powers[dps]

    out = [mpf(1)]
    for j in range(1, jmax + 1):
        if T < j:
            out.append(mpf(0))
            continue
        dps = 60
        while True:
            e = pw(dps)
            with mp.workdps(dps):
                terms = [(-1) ** l * math.comb(j, l) * e[l] for l in range(j + 1)]
                total = mpmath.fsum(terms)
                size = mpmath.fsum(abs(t) for t in terms)
                lost = mpmath.log10(size / abs(total)) if total != 0 else mpf(dps)
            if dps - lost >= need:
                out.append(total)
                break
            dps = int(lost) + need + 20 if total != 0 else dps * 2
            dps = ((dps + 99) // 100) * 100
            if dps > 40000:
                raise RuntimeError("cancellation too deep")
    return out


def fpr_exact_stirling(m, n, k):
    if n == 0:
        return mpf(0)
    T = k * n
    S = stirling2_row(k)
    jmax = min(k, m)
    cover = cover_probs(m, T, jmax)
    total = mpf(0)
    with mp.workdps(60):
        for j in range(1, jmax + 1):
            w = mpf(S[j] * falling(m, j)) / mpf(m) ** k
            total += w * cover[j]
    return total


def fpr_exact_occupancy_mp(m, n, k):
    """sum_i P(X=i)(i/m)^k, P(X=i) = C(m,i) sum_l (-1)^l C(i,l) ((i-l)/m)^T."""
    T = k * n
    total = mpf(0)
    for i in range(1, m + 1):
        p = alternating(lambda l: (-1) ** l * math.comb(i, l) * (mpf(i - l) / m) ** T, i)
        total += math.comb(m, i) * p * (mpf(i) / m) ** k
    return total


def fpr_exact_ref(m, n, k):
    if n == 0:
        return mpf(0)
    T = k * n
    if m <= 64 and T <= 4000:
        return fpr_exact_chain(m, n, k)
    if m <= 64:
        return fpr_exact_occupancy_mp(m, n, k)
    if m <= 1100 and T <= 300:
        return fpr_exact_chain(m, n, k)
    return fpr_exact_stirling(m, n, k)


# ---- standard filter ---------------------------------------------------------

def fill_expected(m, n, k):
    with mp.workdps(80):
        return 1 - (1 - 1 / mpf(m)) ** (k * n)


def fill_sd(m, n, k):
    T = k * n
    if m == 1 or T <= 1:
        return mpf(0)
    if T <= 3000:
        q = Fraction(m - 1, m)
        r = Fraction(m - 2, m)
        var = m * (m - 1) * r ** T + m * q ** T - m * m * q ** (2 * T)
        with mp.workdps(60):
            return mpmath.sqrt(fraction_to_mpf(var)) / m
    dps = 60
    prev = None
    while True:
        with mp.workdps(dps):
            M = mpf(m)
            q = 1 - 1 / M
            var = M * (M - 1) * (1 - 2 / M) ** T + M * q ** T - M * M * q ** (2 * T)
            sd = mpmath.sqrt(var) / M if var > 0 else mpf(0)
        if prev is not None and agree(prev, sd, 40):
            return sd
        prev = sd
        dps *= 2


def fpr_classic(m, n, k):
    with mp.workdps(60):
        return (1 - mpmath.exp(-mpf(k) * n / m)) ** k


def fpr_finite(m, n, k):
    return fill_expected(m, n, k) ** k


# ---- partitioned -----------------------------------------------------------

def slices(m, k):
    return [((i + 1) * m) // k - (i * m) // k for i in range(k)]


def fpr_partitioned(m, n, k):
    with mp.workdps(60):
        out = mpf(1)
        for s in slices(m, k):
            out *= 1 - (1 - 1 / mpf(s)) ** n
        return out


def fill_partitioned(m, n, k):
    with mp.workdps(60):
        bits = mpf(0)
        for s in slices(m, k):
            bits += s * (1 - (1 - 1 / mpf(s)) ** n)
        return bits / m


# ---- load mixtures -----------------------------------------------------------

def mix_loads(n, nb, poisson, per_load, tail=mpf(10) ** -45):
    """sum_L w(L) per_load(L) over all L from 0; w binomial(n, 1/nb) or
    Poisson(n/nb); stops past the mode when the geometric tail bound of
    the weights (per_load <= 1) is below tail * sum."""
    with mp.workdps(60):
        p = 1 / mpf(nb)
        lam = mpf(n) / nb
        if poisson:
            w = mpmath.exp(-lam)
        else:
            w = (1 - p) ** n
        total = mpf(0)
        L = 0
        while True:
            v = per_load(L)
            total += w * v
            if not poisson and L == n:
                break
            ratio = lam / (L + 1) if poisson else (n - L) / mpf(L + 1) * p / (1 - p)
            nxt = w * ratio
            ratio2 = lam / (L + 2) if poisson else (n - L - 1) / mpf(L + 2) * p / (1 - p)
            if ratio2 < 1 and total > 0 and nxt / (1 - ratio2) <= tail * total:
                break
            if nxt == 0:
                break
            w = nxt
            L += 1
        return total


def fpr_blocked_exact(m, n, k, B):
    nb = m // B
    if n == 0:
        return mpf(0)
    if nb == 1:
        return fpr_exact_ref(B, n, k)
    if B <= 64:
        chain = OccupancyChain(B)

        def per_load(L):
            chain.advance_to(k * L)
            return fraction_to_mpf(chain.fpr(k))
    else:
        def per_load(L):
            return fpr_exact_stirling(B, L, k)
    return mix_loads(n, nb, False, per_load)


def fpr_blocked_exact_closed(m, n, k, B):
    """Dense loads: sum_j P(D=j) sum_l (-1)^l C(j,l) G((1-l/B)^k)."""
    nb = m // B
    S = stirling2_row(k)
    total = mpf(0)
    with mp.workdps(80):
        p = 1 / mpf(nb)
        for j in range(1, min(k, B) + 1):
            w = mpf(S[j] * falling(B, j)) / mpf(B) ** k
            cj = alternating(lambda l: (-1) ** l * math.comb(j, l) *
                             (1 - p * (1 - (1 - mpf(l) / B) ** k)) ** n, j)
            total += w * cj
    return total


def fpr_blocked_approx(m, n, k, B):
    nb = m // B
    if n == 0:
        return mpf(0)
    return mix_loads(n, nb, True, lambda L: (1 - mpmath.exp(-mpf(k) * L / B)) ** k)


def fpr_blocked_approx_closed(m, n, k, B):
    lam = mpf(n) / (m // B)
    return alternating(lambda i: (-1) ** i * math.comb(k, i) *
                       mpmath.exp(-lam * (1 - mpmath.exp(-mpf(i) * k / B))), k)


def fill_blocked(m, n, k, B):
    nb = m // B
    with mp.workdps(60):
        per_key = (1 - (1 - 1 / mpf(B)) ** k) / nb
        return 1 - (1 - per_key) ** n


def split_per_load(L):
    return (1 - (mpf(31) / 32) ** L) ** 8


def fpr_splitblock(m, n, exact):
    if n == 0:
        return mpf(0)
    nb = m // 256
    if exact and nb == 1:
        with mp.workdps(60):
            return split_per_load(n)
    return mix_loads(n, nb, not exact, split_per_load)


def fpr_splitblock_closed(m, n, exact):
    nb = m // 256

    def term(i):
        x = 1 - (mpf(31) / 32) ** i
        g = (1 - x / nb) ** n if exact else mpmath.exp(-mpf(n) / nb * x)
        return (-1) ** i * math.comb(8, i) * g
    return alternating(term, 8)


def fill_splitblock(m, n):
    nb = m // 256
    with mp.workdps(60):
        return 1 - (1 - 1 / (32 * mpf(nb))) ** n


# ---- the grid --------------------------------------------------------------

def standard_grid():
    cases = set()
    ms = [2, 16, 64, 1009, 2 ** 20, 2 ** 40]
    ks = [1, 2, 3, 7, 16, 64]
    for m in ms:
        ns = {0, 1, 2, 3, 8}
        for ratio in (1000, 100, 16, 8, 2, 1):
            if m // ratio >= 1:
                ns.add(m // ratio)
        ns.add(m * 2)
        ns.add(m * 100)  # 0.01 bits per item
        ns = sorted(x for x in ns if x <= 10 ** 12)
        for n in ns:
            for k in ks:
                cases.add((m, n, k))
    # extremes
    cases.add((16, 10 ** 12, 64))
    cases.add((16, 10 ** 12, 1))
    cases.add((2 ** 40, 10 ** 12, 64))
    cases.add((2 ** 40, 10 ** 12, 1))
    cases.add((2 ** 40, 1, 64))
    cases.add((2 ** 40, 2, 64))
    cases.add((2 ** 40, 2 ** 40 // 1000, 64))  # 1000 bits per item
    # fpr near 1e-300: k = 64 at ~3.3e6 bits per item
    cases.add((2 ** 40, 330000, 64))
    cases.add((2 ** 40, 340000, 64))
    cases.add((1, 5, 3))
    cases.add((1009, 30, 64))
    return sorted(cases)


def main():
    # Cross-checks of the independent routes.
    for (m, n, k) in [(16, 3, 3), (64, 8, 3), (64, 30, 7), (16, 40, 64)]:
        a = fpr_exact_chain(m, n, k)
        b = fpr_exact_stirling(m, n, k)
        assert agree(a, b), (m, n, k, a, b)
    assert agree(fpr_exact_occupancy_mp(16, 20, 3), fpr_exact_chain(16, 20, 3))
    assert agree(fpr_exact_chain(1009, 40, 7), fpr_exact_stirling(1009, 40, 7))

    for (m, n, k) in standard_grid():
        emit("fill_expected", m, n, k, "", fill_expected(m, n, k))
        emit("fill_sd", m, n, k, "", fill_sd(m, n, k))
        emit("fpr_classic", m, n, k, "", fpr_classic(m, n, k))
        emit("fpr_finite", m, n, k, "", fpr_finite(m, n, k))
        emit("fpr_exact", m, n, k, "", fpr_exact_ref(m, n, k))

    # Sizing.
    with mp.workdps(50):
        ln2 = mpmath.log(2)
        for b in (0.01, 0.5, 1.0, 4.0, 9.585058377367439, 10.0, 16.0, 100.0, 1000.0, 1437.0):
            emit("k_opt", 0, 0, 0, repr(b), mpf(b) * ln2)
            emit("fpr_optimal", 0, 0, 0, repr(b), mpmath.exp(-ln2 ** 2 * mpf(b)))
        for p in (0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-30, 1e-300, 0.999999):
            emit("bits_per_item", 0, 0, 0, repr(p), -mpmath.log(mpf(p)) / ln2 ** 2)
    for (m, n) in [(16, 2), (64, 8), (64, 0), (1009, 100), (1009, 3), (2 ** 20, 2 ** 17),
                   (2 ** 20, 100000), (2 ** 20, 10 ** 6), (2 ** 40, 2 ** 36)]:
        if n == 0:
            emit("k_opt_int", m, n, 0, "", 1)
            continue
        vals = [(fpr_exact_ref(m, n, k), k) for k in range(1, 65)]
        best = min(vals)
        second = min(v for v in vals if v[1] != best[1])
        assert second[0] > best[0] * (1 + mpf(10) ** -6), (m, n, best, second)
        emit("k_opt_int", m, n, 0, "", best[1])

    # Partitioned.
    for m in (64, 1009, 2 ** 20, 2 ** 40):
        for k in (1, 3, 7, 16, 64):
            for n in sorted({1, 2, max(1, m // 100), max(1, m // 10), max(1, m // 2), m, 3 * m}):
                emit("fpr_partitioned", m, n, k, "", fpr_partitioned(m, n, k))
                emit("fill_partitioned", m, n, k, "", fill_partitioned(m, n, k))
    emit("fpr_partitioned", 2 ** 40, 10 ** 12, 64, "", fpr_partitioned(2 ** 40, 10 ** 12, 64))
    emit("fpr_partitioned", 2 ** 40, 0, 7, "", mpf(0))

    # Blocked, 64-bit blocks (exact occupancy) and 512-bit blocks.
    for (nb, n) in [(1, 1), (1, 5), (1, 12), (16, 8), (16, 32), (16, 128), (1024, 512), (1024, 4096),
                    (1024, 20000), (2 ** 34, 2 ** 33)]:
        m = 64 * nb
        for k in (1, 3, 8, 12, 16, 64):
            if k * (n / nb) > 3000:
                continue
            emit("fpr_blocked", m, n, k, "64:1", fpr_blocked_exact(m, n, k, 64))
            emit("fpr_blocked", m, n, k, "64:0", fpr_blocked_approx(m, n, k, 64))
            emit("fill_blocked", m, n, k, "64", fill_blocked(m, n, k, 64))
    for (nb, n) in [(2, 3), (2, 40), (2048, 2048), (2048, 20000), (2048, 100000), (2 ** 31, 10 ** 9),
                    (2 ** 31, 2 ** 34)]:
        m = 512 * nb
        for k in (1, 3, 7, 16, 64):
            if k * (n / nb) > 2000:
                continue
            emit("fpr_blocked", m, n, k, "512:1", fpr_blocked_exact(m, n, k, 512))
            emit("fpr_blocked", m, n, k, "512:0", fpr_blocked_approx(m, n, k, 512))
            emit("fill_blocked", m, n, k, "512", fill_blocked(m, n, k, 512))
    # dense: closed forms at raised precision, checked against the sums once
    assert agree(fpr_blocked_exact_closed(512 * 2048, 100000, 7, 512),
                 fpr_blocked_exact(512 * 2048, 100000, 7, 512))
    assert agree(fpr_blocked_approx_closed(512 * 2048, 100000, 7, 512),
                 fpr_blocked_approx(512 * 2048, 100000, 7, 512))
    for (m, n, k) in [(2 ** 40, 10 ** 12, 7), (2 ** 40, 10 ** 12, 64), (2 ** 20, 10 ** 8, 3),
                      (512, 10 ** 12, 64)]:
        if m == 512:
            emit("fpr_blocked", m, n, k, "512:1", fpr_exact_ref(512, n, k))
        else:
            emit("fpr_blocked", m, n, k, "512:1", fpr_blocked_exact_closed(m, n, k, 512))
        emit("fpr_blocked", m, n, k, "512:0", fpr_blocked_approx_closed(m, n, k, 512))
        emit("fill_blocked", m, n, k, "512", fill_blocked(m, n, k, 512))

    # Split block.
    for (m, n) in [(256, 1), (256, 20), (256 * 16, 8), (256 * 16, 100), (2 ** 20, 1000), (2 ** 20, 4096),
                   (2 ** 20, 40000), (2 ** 40, 2 ** 32), (2 ** 40, 10 ** 9)]:
        for exact in (1, 0):
            emit("fpr_splitblock", m, n, 8, str(exact), fpr_splitblock(m, n, exact))
        emit("fill_splitblock", m, n, 8, "", fill_splitblock(m, n))
    assert agree(fpr_splitblock_closed(2 ** 20, 40000, 1), fpr_splitblock(2 ** 20, 40000, 1))
    for (m, n) in [(2 ** 40, 10 ** 12), (2 ** 20, 10 ** 9)]:
        for exact in (1, 0):
            emit("fpr_splitblock", m, n, 8, str(exact), fpr_splitblock_closed(m, n, exact))
        emit("fill_splitblock", m, n, 8, "", fill_splitblock(m, n))

    print("function,m,n,k,extra,value")
    print("\n".join(OUT))


if __name__ == "__main__":
    main()
