/* fuzz_numbers.c -- libFuzzer harness for numbers.h: number_parse,
 * number_parse_u64 and number_list_parse on arbitrary text.
 *
 * Contract checked: success gives 1..NUMBER_LIST_MAX finite values (whole
 * ones when integral was asked); failure gives an empty list and a
 * one-line reason; u64 results lie inside [min, max]. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "base/numbers.h"

static void check_list(const char *text, int integral)
{
    number_list list;
    char err[400] = "";
    if (number_list_parse(text, integral, &list, err, sizeof err) != 0) {
        FUZZ_ASSERT(list.count == 0 && list.values == NULL, "a failed parse left %zu values", list.count);
        FUZZ_ASSERT(err[0] != '\0' && strchr(err, '\n') == NULL, "reason '%s'", err);
        return;
    }
    FUZZ_ASSERT(list.count >= 1 && list.count <= NUMBER_LIST_MAX, "count %zu", list.count);
    for (size_t i = 0; i < list.count; i++) {
        double v = list.values[i];
        FUZZ_ASSERT(isfinite(v), "value %zu is %g", i, v);
        if (integral)
            FUZZ_ASSERT(v == floor(v) && fabs(v) <= 9007199254740992.0, "value %zu = %.17g not whole", i, v);
    }
    number_list_free(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    /* first byte: the bounds for number_parse_u64; the rest: the text */
    uint8_t mode = data[0];
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    double d;
    if (number_parse(text, &d) == 0)
        FUZZ_ASSERT(isfinite(d), "number_parse gave %g", d);

    static const uint64_t mins[] = {0, 1, 2, 1000};
    static const uint64_t maxs[] = {UINT64_MAX, 64, 1000000000000ULL, 1024};
    uint64_t min = mins[mode & 3], max = maxs[(mode >> 2) & 3], u = 0;
    if (number_parse_u64(text, min, max, &u) == 0)
        FUZZ_ASSERT(u >= min && u <= max, "%llu outside %llu..%llu", (unsigned long long)u,
                    (unsigned long long)min, (unsigned long long)max);

    check_list(text, mode >> 7);
    free(text);
    return 0;
}
