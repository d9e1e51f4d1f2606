/* test_body_policy.c — auto's policy for operator bodies (plan/policy.c): the lanes a record names,
 * and the device's rows by the body's window and whether it writes its column of outputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "policy.h"
#include "support/policy_check.h"

/* The columns and rows the policy gives spec, asserted. */
static void expect_block(const cls_kernel_policy *policy, const cls_spec *spec, unsigned cols, unsigned rows)
{
    cls_spec resolved;
    assert_int_equal(resolve(policy, spec, &resolved), CLS_OK);
    assert_int_equal(resolved.cols_per_item, cols);
    if (rows) assert_int_equal(resolved.rows_per_item, rows);
}

/* A body that runs in lanes takes the record's body_lanes columns: one row, or 4 where it writes a
 * column of outputs at any rows; a body in floats, a record without lanes, the spec's own block
 * and an undefined border keep theirs; a record with row_body_lanes alone gives lanes to the
 * column writers only. */
static void a_policy_runs_lane_bodies_in_lanes(void **state)
{
    (void)state;
    static const char *const column = "for (int k = 0; k < ROWS; ++k) { value_t v = IN(0, k); OUT_AT(k) = v; }";
    static const char *const one_row = /* lanes at one row only */
        "#if ROWS > 1\nfloat s = IN(0, 0);\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k) = s;\n#else\n"
        "value_t v = IN(0, 0);\nOUT_AT(0) = v;\n#endif\n";
    cls_kernel_policy cpu = cls_kernel_policy_default();
    cpu.rows = 64, cpu.body_lanes = 8;
    cpu.limits.border_groups_fold_fully = 1;
    cls_spec spec = valid_spec();
    spec.body = "value_t m = INFINITY;\nFOR_WINDOW(dx, dy) m = fmin(m, IN(dx, dy));\nOUT = m;";
    expect_block(&cpu, &spec, 8, 1);
    spec.body = column;
    expect_block(&cpu, &spec, 8, 4);
    spec.body = one_row;
    expect_block(&cpu, &spec, 8, 1);
    spec.body = "float m = INFINITY;\nFOR_WINDOW(dx, dy) m = fmin(m, IN(dx, dy));\nOUT = m;";
    expect_block(&cpu, &spec, 1, 0);
    spec.body = "value_t v = IN(0, 0);\nOUT = v;";
    spec.cols_per_item = 2; /* the spec's own */
    expect_block(&cpu, &spec, 2, 0);
    spec.cols_per_item = 0, spec.border = CLS_BORDER_UNDEFINED;
    expect_block(&cpu, &spec, 1, 0);
    spec.border = CLS_BORDER_CLAMP;
    cpu.body_lanes = 0; /* a record without lanes */
    expect_block(&cpu, &spec, 1, 0);
    cls_kernel_policy gpu = cpu; /* lanes only for a body that writes a column of rows in lanes */
    gpu.row_body_lanes = 4;
    expect_block(&gpu, &spec, 1, 0);
    spec.body = column;
    expect_block(&gpu, &spec, 4, 4);
    spec.body = one_row;
    expect_block(&gpu, &spec, 1, 0);
    /* a body with its own form for a column of rows in two lanes: those lanes and the device's
     * rows where it coarsens rows (8 here), one row in the CPU record's 8 lanes */
    spec.body = "#if ROWS > 1\n#if LANES == 2\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k).s1 = IN(1, k).s0;\n#else\n"
                "float s = IN(0, 0);\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k) = s;\n#endif\n#else\nvalue_t v = IN(0, 0);\n"
                "OUT_AT(0) = v;\n#endif\n";
    gpu.rows = 8;
    expect_block(&gpu, &spec, 2, 8);
    cpu.body_lanes = 8;
    expect_block(&cpu, &spec, 8, 1);
}

/* Where the device coarsens rows (8 here), a body takes them over at most 25 pixels; one that
 * writes its column of outputs over up to 49 (the 7x7 ranks' walk), three quarters of them. */
static void bodies_take_the_device_rows_by_their_window(void **state)
{
    (void)state;
    cls_kernel_policy gpu = cls_kernel_policy_default();
    gpu.rows = 8;
    static float ones[81]; /* up to 9x9: the bodies read no coefficients, the spec's checks do */
    for (unsigned k = 0; k < 81; ++k) ones[k] = 1.0f;
    cls_spec spec = valid_spec();
    spec.coefficients = ones;
    static const char *const column = "#if ROWS > 1\nfloat s = IN(0, 0);\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k) = s;\n"
                                      "#else\nOUT_AT(0) = IN(0, 0);\n#endif\n";
    static const struct { unsigned side; int column; unsigned rows; } cases[] = {
        {5, 0, 8}, {5, 1, 8}, {7, 0, 1}, {7, 1, 6}, {9, 1, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        spec.body = cases[k].column ? column : "OUT = IN(0, 0);";
        spec.mask_width = spec.mask_height = cases[k].side;
        expect_block(&gpu, &spec, 1, cases[k].rows);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_policy_runs_lane_bodies_in_lanes),
        cmocka_unit_test(bodies_take_the_device_rows_by_their_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
