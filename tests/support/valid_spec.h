/* valid_spec.h — a valid spec that unit tests start from: a 3x3 box with every other setting at
 * its default. */
#ifndef CLS_TEST_VALID_SPEC_H
#define CLS_TEST_VALID_SPEC_H

#include "generator.h"

static float box3[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static cls_spec valid_spec(void)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    return spec;
}

#endif
