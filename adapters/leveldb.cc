// leveldb.cc -- LevelDB's built-in Bloom filter (leveldb::NewBloomFilterPolicy,
// Debian's libleveldb-dev 1.23) as a bloomlab filter plugin:
// build/adapters/leveldb.so.
//
// LevelDB builds a filter once, over a table block's keys: CreateFilter(keys)
// sizes it for exactly those keys (bits = max(64, keys x bits_per_key),
// rounded up to whole bytes) and appends k as the filter's last byte;
// KeyMayMatch(key, filter) asks it.  So here:
//   - add() only buffers the keys (copies);
//   - the filter is built lazily by the first contains() (or bits(),
//     bits_set(), size_bytes(), which bloomlab asks after the adds) over the
//     set of keys added so far (duplicates once: LevelDB's table keys are
//     distinct), and built again when keys were added since (bloomlab check
//     fills one filter step by step); contains may be called from several
//     threads at once, so a build runs under a mutex and is published by an
//     atomic count of the keys it holds;
//   - bits_per_key = round(m / expected_n): the experiment's m and
//     expected_n only carry it (peers.ini: m = 1e6 at expected_n = 1e5 is
//     10 bits per key); the filter's m is then keys x bits_per_key at the
//     load, whatever the expected n was (LevelDB never sees it), reported by
//     bits() as the filter string's bits, (size - 1) x 8;
//   - k: LevelDB does not expose it in its header.  Its rule, in
//     util/bloom.cc's BloomFilterPolicy constructor, is
//     k = (size_t)(bits_per_key * 0.69), clamped to 1..30; create refuses
//     (NULL) a k asked that is not that one, and the build checks it
//     against the k byte LevelDB wrote (abort, loudly, if they differ);
//   - seed: LevelDB hashes with a fixed seed (0xbc9f1d34) and takes none:
//     ignored (each trial still draws its own keys).
// fpr is the classic (1 - e^{-kn/m})^k at the filter's own m.
// choose(n, p) is LevelDB's one knob: the fewest whole bits per key (1..1000)
// whose classic rate at LevelDB's k for them meets p (10 for p = 0.01: k = 6,
// 0.84%; 11 for bloomlab's standard 10 bits at k = 7, 0.82%), m = n x that.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
#include <bloomlab/filter.h>
}

namespace {

unsigned leveldb_k(int bits_per_key)  // util/bloom.cc's rule
{
    size_t k = static_cast<size_t>(bits_per_key * 0.69);
    if (k < 1)
        k = 1;
    if (k > 30)
        k = 30;
    return static_cast<unsigned>(k);
}

double classic(double bits_per_key, unsigned k)  // (1 - e^{-k n/m})^k
{
    return std::pow(1 - std::exp(-static_cast<double>(k) / bits_per_key), k);
}

const size_t NOT_BUILT = static_cast<size_t>(-1);

struct Adapter {
    std::unique_ptr<const leveldb::FilterPolicy> policy;
    unsigned k = 0;
    std::vector<std::string> keys;  // buffered by add
    mutable std::mutex building;
    mutable std::atomic<size_t> built_for{NOT_BUILT};  // keys.size() when the filter was built
    mutable std::string filter;

    void build() const
    {
        std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
        std::sort(slices.begin(), slices.end(),
                  [](const leveldb::Slice &a, const leveldb::Slice &b) { return a.compare(b) < 0; });
        slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
        filter.clear();
        policy->CreateFilter(slices.data(), static_cast<int>(slices.size()), &filter);
        if (filter.empty() || static_cast<unsigned char>(filter.back()) != k) {
            std::fprintf(stderr, "leveldb adapter: LevelDB wrote k = %d, the adapter computed %u\n",
                         filter.empty() ? -1 : static_cast<unsigned char>(filter.back()), k);
            std::abort();
        }
    }

    // add never runs beside a query, so keys.size() is stable while queries read
    const std::string &get() const
    {
        if (built_for.load(std::memory_order_acquire) != keys.size()) {
            std::lock_guard<std::mutex> hold(building);
            if (built_for.load(std::memory_order_relaxed) != keys.size()) {
                build();
                built_for.store(keys.size(), std::memory_order_release);
            }
        }
        return filter;
    }
};

void *create(uint64_t m, unsigned k, uint64_t expected_n, uint64_t seed)
{
    (void)seed;  // LevelDB has no seed
    if (expected_n == 0 || m == 0)
        return nullptr;
    double per_key = std::round(static_cast<double>(m) / static_cast<double>(expected_n));
    if (per_key < 1 || per_key > 1000 || leveldb_k(static_cast<int>(per_key)) != k)
        return nullptr;  // not LevelDB's own k at that bits_per_key: refused, never relabelled
    auto *a = new (std::nothrow) Adapter;
    if (a == nullptr)
        return nullptr;
    a->policy.reset(leveldb::NewBloomFilterPolicy(static_cast<int>(per_key)));
    a->k = k;
    return a;
}

void destroy(void *filter) { delete static_cast<Adapter *>(filter); }

void add(void *filter, const void *key, size_t len)
{
    static_cast<Adapter *>(filter)->keys.emplace_back(static_cast<const char *>(key), len);
}

int contains(const void *filter, const void *key, size_t len)
{
    const Adapter *a = static_cast<const Adapter *>(filter);
    return a->policy->KeyMayMatch(leveldb::Slice(static_cast<const char *>(key), len), a->get()) ? 1 : 0;
}

uint64_t size_bytes(const void *filter) { return static_cast<const Adapter *>(filter)->get().size(); }

uint64_t bits(const void *filter) { return (static_cast<const Adapter *>(filter)->get().size() - 1) * 8; }

uint64_t bits_set(const void *filter)
{
    const std::string &f = static_cast<const Adapter *>(filter)->get();
    uint64_t set = 0;
    for (size_t i = 0; i + 1 < f.size(); i++)
        set += static_cast<uint64_t>(__builtin_popcount(static_cast<unsigned char>(f[i])));
    return set;
}

double fpr(uint64_t m, uint64_t n, unsigned k)
{
    return classic(static_cast<double>(m) / static_cast<double>(n), k);
}

int choose(uint64_t n, double p, uint64_t *m, unsigned *k)
{
    if (n == 0 || !(p > 0 && p < 1))
        return -1;
    for (int per_key = 1; per_key <= 1000; per_key++)
        if (classic(per_key, leveldb_k(per_key)) <= p) {
            *m = n * static_cast<uint64_t>(per_key);
            *k = leveldb_k(per_key);
            return 0;
        }
    return -1;
}

bloomlab_filter_api make_api()
{
    bloomlab_filter_api api{};
    api.abi = BLOOMLAB_FILTER_ABI;
    api.name = "leveldb";
    api.create = create;
    api.destroy = destroy;
    api.add = add;
    api.contains = contains;
    api.size_bytes = size_bytes;
    api.bits = bits;
    api.bits_set = bits_set;
    api.fpr = fpr;
    api.choose = choose;
    return api;
}

}  // namespace

extern "C" {
extern const bloomlab_filter_api bloomlab_filter_plugin;
const bloomlab_filter_api bloomlab_filter_plugin = make_api();
}
