/* test_level.h — how much of a test's matrix runs. The default suite runs representatives of
 * every dimension (each border mode, partition, variant family, pixel type and edge-case image
 * size appears, with the other knobs rotated so every pair of values meets somewhere);
 * CLS_TEST_EXHAUSTIVE=1 (the `exhaustive` CTest label, `scripts/test.sh --exhaustive`) runs the
 * full product, as before a release and after changes to generated code. */
#ifndef CLS_TEST_LEVEL_H
#define CLS_TEST_LEVEL_H

#include <stdlib.h>
#include <string.h>

/* 1 when the full matrix was asked for. */
static inline int cls_test_exhaustive(void)
{
    const char *value = getenv("CLS_TEST_EXHAUSTIVE");
    return value && *value && strcmp(value, "0") != 0;
}

/* In the default suite, 1 for one case in `period` (rotating with `index`), else 0; always 1
 * when exhaustive. Picks representatives deterministically. */
static inline int cls_test_pick(unsigned index, unsigned period)
{
    return cls_test_exhaustive() || period <= 1 || index % period == 0;
}

#endif
