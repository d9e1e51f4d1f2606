/* fuzz_operator.c — the operator parser ("gaussian:5,1.2", "convolve:3x3,...") on arbitrary text:
 * every operator it accepts has a valid spec with finite coefficients. */
#include "generator.h"
#include "harness.h"

#include <assert.h>
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    cls_operator *op = NULL;
    if (cls_operator_parse(text, &op) == CLS_OK) {
        const cls_spec *spec = cls_operator_spec(op);
        assert(cls_spec_validate(spec) == CLS_OK);
        const size_t taps = (size_t)spec->mask_width * spec->mask_height * (spec->mask_count ? spec->mask_count : 1);
        for (size_t k = 0; k < taps; ++k) assert(isfinite(spec->coefficients[k]));
        cls_operator_release(op);
    } else {
        assert(op == NULL && cls_last_error()[0]);
    }
    free(text);
    return 0;
}
