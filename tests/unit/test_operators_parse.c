/* test_operators_parse.c — the operator library's parser without a device: convolve's flip
 * against correlate, the Gaussian derivatives' masks against their formulas, footprints read from
 * mask files, the morphological compositions' staged bodies, and the refusals of each, whose
 * messages name the problem. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

/* Parses TEXT, which must succeed. */
static cls_operator *parsed(const char *text)
{
    cls_operator *op = NULL;
    const cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_OK) fail_msg("'%s' was refused: %s", text, cls_last_error());
    return op;
}

/* TEXT is refused as an invalid argument with a message holding MESSAGE. */
static void refused(const char *text, const char *message)
{
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse(text, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s': '%s' lacks '%s'", text, cls_last_error(), message);
}

static void convolve_flips_and_correlate_does_not(void **state)
{
    (void)state;
    cls_operator *c = parsed("convolve:3x3,1,2,3,4,5,6,7,8,9"), *r = parsed("correlate:3x3,1,2,3,4,5,6,7,8,9");
    for (unsigned k = 0; k < 9; ++k) {
        assert_float_equal(cls_operator_spec(c)->coefficients[k], (float)(9 - k), 0);
        assert_float_equal(cls_operator_spec(r)->coefficients[k], (float)(k + 1), 0);
    }
    assert_string_equal(cls_operator_name(c), "convolve:3x3");
    assert_string_equal(cls_operator_name(r), "correlate:3x3");
    cls_operator_release(c);
    cls_operator_release(r);
    cls_operator *row = parsed("convolve:5x1,1,2,3,4,5");
    for (unsigned k = 0; k < 5; ++k) assert_float_equal(cls_operator_spec(row)->coefficients[k], (float)(5 - k), 0);
    cls_operator_release(row);
    refused("convolve:3x2,1,2,3,4,5,6", "expected convolve:WxH");
    refused("convolve:3x3,1,2", "exactly W*H");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(convolve_flips_and_correlate_does_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
