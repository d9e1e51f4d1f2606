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
    const cls_status status = cls_operator_parse(text, &op);
    if (status != CLS_ERR_INVALID_ARGUMENT) fail_msg("'%s' gave %s, not CLS_ERR_INVALID_ARGUMENT", text, cls_status_name(status));
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

/* The 1-D weights of derivative ORDER as the test states them: g(i) = exp(-i^2 / 2 sigma^2) / sum,
 * times 1, i / sigma^2 (the slope of a ramp comes out positive) or (i^2 - sigma^2) / sigma^4. */
static double derivative_weight(int i, int half, double sigma, unsigned order)
{
    double total = 0;
    for (int k = -half; k <= half; ++k) total += exp(-(double)(k * k) / (2 * sigma * sigma));
    const double g = exp(-(double)(i * i) / (2 * sigma * sigma)) / total, s2 = sigma * sigma;
    return order == 0 ? g : order == 1 ? i / s2 * g : (i * i - s2) / (s2 * s2) * g;
}

static void gaussian_derivatives_are_products_of_the_weights(void **state)
{
    (void)state;
    static const unsigned orders[][2] = {{1, 0}, {0, 1}, {2, 0}, {1, 2}, {0, 0}, {2, 2}};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; ++t) {
        char text[64];
        snprintf(text, sizeof text, "gaussian_d:1.3,%u,%u,7", orders[t][0], orders[t][1]);
        cls_operator *op = parsed(text);
        const cls_spec *spec = cls_operator_spec(op);
        assert_int_equal(spec->mask_width, 7);
        assert_int_equal(spec->mask_height, 7);
        assert_null(spec->body);
        for (int j = -3; j <= 3; ++j)
            for (int i = -3; i <= 3; ++i) {
                const double expected = derivative_weight(i, 3, 1.3, orders[t][0]) * derivative_weight(j, 3, 1.3, orders[t][1]);
                assert_float_equal(spec->coefficients[(j + 3) * 7 + i + 3], expected, 1e-7 + 1e-6 * fabs(expected));
            }
        cls_operator_release(op);
    }
    /* the Laplacian of Gaussian is the sum of the two second derivatives */
    cls_operator *xx = parsed("gaussian_d:1.5,2,0,9"), *yy = parsed("gaussian_d:1.5,0,2,9"), *log = parsed("log:1.5,9");
    for (unsigned k = 0; k < 81; ++k)
        assert_float_equal(cls_operator_spec(xx)->coefficients[k] + cls_operator_spec(yy)->coefficients[k],
                           cls_operator_spec(log)->coefficients[k], 1e-6);
    assert_string_equal(cls_operator_name(xx), "gaussian_d:1.5,2,0,9");
    cls_operator_release(xx);
    cls_operator_release(yy);
    cls_operator_release(log);
    /* the default window is scipy's truncate 4.0: 2 * int(4 * 1.5 + 0.5) + 1 */
    cls_operator *fallback = parsed("GAUSSIAN_D:1.5,1,1");
    assert_int_equal(cls_operator_spec(fallback)->mask_width, 13);
    assert_string_equal(cls_operator_name(fallback), "gaussian_d:1.5,1,1,13");
    cls_operator_release(fallback);
}

static void gaussian_derivative_refusals(void **state)
{
    (void)state;
    refused("gaussian_d:1,3,0", "orders 0, 1 or 2");
    refused("gaussian_d:1,0,-1", "orders 0, 1 or 2");
    refused("gaussian_d:1,0.5,1", "orders 0, 1 or 2");
    refused("gaussian_d:1,1", "expected gaussian_d:SIGMA,ORDER_X,ORDER_Y[,SIZE]");
    refused("gaussian_d:1,1,1,5,5", "expected gaussian_d:SIGMA,ORDER_X,ORDER_Y[,SIZE]");
    refused("gaussian_d:0,1,1", "SIGMA '0' is not a finite number above 0");
    refused("gaussian_d:x,1,1", "SIGMA 'x'");
    refused("gaussian_d:1,1,1,4", "the window SIZE must be odd");
    refused("gaussian_d:8,1,0", "larger than 63: give a SIZE");
    refused("gaussian_d:1e-20,2,0,3", "SIGMA is too small");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(convolve_flips_and_correlate_does_not),
        cmocka_unit_test(gaussian_derivatives_are_products_of_the_weights),
        cmocka_unit_test(gaussian_derivative_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
