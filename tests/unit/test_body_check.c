/* test_body_check.c — the rules for user-written operator bodies (generator/body_check.c) and
 * the operator parser's parameter checks (generator/operators.c): each rule refused with a
 * message naming it, and ordinary bodies accepted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "body_check.h"
#include "generator.h"

static void refused(const char *body, unsigned width, unsigned height, const char *message)
{
    assert_int_equal(cls_body_check(body, width, height), CLS_ERR_INVALID_ARGUMENT);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' gave '%s', not '%s'", body, cls_last_error(), message);
}

static void accepted(const char *body, unsigned width, unsigned height)
{
    if (cls_body_check(body, width, height) != CLS_OK) fail_msg("'%s' refused: %s", body, cls_last_error());
}

static void ordinary_bodies_pass(void **state)
{
    (void)state;
    accepted("float best = -INFINITY;\nFOR_WINDOW(dx, dy) best = fmax(best, IN(dx, dy));\nOUT = best;\n", 3, 3);
    accepted("OUT = IN(2, -2) + IN(-2, 2);", 5, 5);
    accepted("OUT = IN(0, 0) == 1.0f ? (float)x : (float)y + width * height;", 1, 1);
    accepted("float a = fmax(x, y), b = 2; OUT += a * b; /* sum */", 3, 3);
    accepted("for (int i = 0; i < 3; ++i) OUT += IN(i - 1, 0) * MASK(i - 1, 0);", 3, 3);
    accepted("#pragma unroll\nOUT = \"#define OUT\"[0];", 3, 3);
}

static void window_reads(void **state)
{
    (void)state;
    refused("OUT = IN(0, 100);", 3, 3, "IN(0, 100) reads outside the 3x3 window");
    refused("OUT = IN(-3, 0);", 5, 5, "IN(-3, 0) reads outside the 5x5 window");
    refused("OUT = IN(0x10, 0);", 3, 3, "outside");
}

/* Any name a body declares is its own (it runs in a function of its own): the generated code's
 * names carry the reserved prefix cls_, and the macros keep theirs. */
static void names(void **state)
{
    (void)state;
    accepted("float x = IN(0, 0); OUT = x;", 3, 3);
    accepted("float sum = IN(0, 0), input = 2, width = 3; OUT = sum * input + width;", 3, 3);
    accepted("OUT = IN(0, 0); for (int y = 0; y < 2; ++y) {}", 3, 3);
    refused("OUT = cls_input[-100000];", 3, 3, "'cls_input': names starting with cls_ are reserved");
    refused("float CLS_X = 1; OUT = CLS_X;", 3, 3, "'CLS_X': names starting with cls_ are reserved");
    refused("float MASK_W = 1; OUT = 1;", 3, 3, "declares 'MASK_W', a macro of the generated code");
    refused("int a, TILE_W; OUT = 1;", 3, 3, "declares 'TILE_W'");
    refused("#define OUT best\nfloat best = 1; OUT = best;", 3, 3, "#define or #undef of 'OUT'");
    refused("# undef IN\nOUT = 1;", 3, 3, "#define or #undef of 'IN'");
    refused("#define cls_out 1\nOUT = 1;", 3, 3, "#define or #undef of 'cls_out'");
    refused("#include \"/etc/passwd\"\nOUT = 1;", 3, 3, "#include");
    refused("OUT = 1; return;", 3, 3, "'return' would skip writing the output");
}

/* Private arrays: sizes the checker evaluates, at most CLS_BODY_MAX_PRIVATE_BYTES together. */
static void private_arrays(void **state)
{
    (void)state;
    accepted("float v[MASK_W * MASK_H]; v[0] = IN(0, 0); OUT = v[0];", 63, 63);   /* 15,876 bytes */
    accepted("#define N (2 * HALF_W + 1)\nfloat v[N][N]; OUT = v[0][0];", 31, 31);
    accepted("const float w[] = {1, 2, 1}; OUT = w[1];", 3, 3);
    accepted("int a[1024], b[2048]; OUT = a[0] + b[0];", 3, 3);                    /* 12,288 bytes */
    accepted("double4 d[8]; OUT = d[0].x;", 3, 3);
    refused("float a[100000]; OUT = a[7];", 3, 3, "line 1: its arrays take 400000 bytes of private memory per pixel");
    refused("float a[1024];\nfloat4 b[1024]; OUT = 1;", 3, 3, "line 2: its arrays take 20480 bytes");
    refused("#define N 70\n#define M (N * N)\nfloat v[M]; OUT = v[0];", 3, 3, "19600 bytes");
    refused("float v[65536][65536][65536]; OUT = 1;", 3, 3, "at most 16384 are accepted");
    refused("const int n = 4;\nfloat v[n]; OUT = v[0];", 3, 3, "line 2: the size of array 'v' is not a constant");
    refused("float v[]; OUT = v[0];", 3, 3, "the size of array 'v' is not a constant");
    refused("#define A B\n#define B A\nfloat v[A]; OUT = 1;", 3, 3, "the size of array 'v' is not a constant");
}

static void out_assignment(void **state)
{
    (void)state;
    refused("/* OUT = 1; */ float a = IN(0, 0);", 3, 3, "never assigns OUT");
    refused("// OUT = 1\nfloat a = 1;", 3, 3, "never assigns OUT");
    refused("float a = OUT == 1;", 3, 3, "never assigns OUT");
    accepted("OUT -= 1;", 3, 3);
}

/* A body written in value_t may run in lanes, at any rows or, where its other words stand in
 * "#if ROWS > 1" sections only, at one row; not where it names a scalar word or not value_t. */
static void lane_bodies(void **state)
{
    (void)state;
    assert_int_equal(cls_body_in_lanes("value_t m = INFINITY;\nFOR_WINDOW(dx, dy) m = fmin(m, IN(dx, dy));\nOUT = m;"), 2);
    assert_int_equal(cls_body_in_lanes("OUT = fmax(IN(-1, 0), IN(1, 0));"), 0); /* no value_t: scalar */
    assert_int_equal(cls_body_in_lanes("value_t a = IN(0, 0);\nfloat b = 1.0f;\nOUT = a * b;"), 0);
    assert_int_equal(cls_body_in_lanes("value_t a = IN(0, 0);\nOUT = a * x;"), 0); /* x: one column a lane */
    assert_int_equal(cls_body_in_lanes("value_t a = IN(0, 0);\nOUT = isnan(a) ? 0.0f : a;"), 0);
    assert_int_equal(cls_body_in_lanes("value_t v = IN(0, 0); /* float x */\nOUT = v;"), 2); /* comments are no words */
    const char *one_row = "#if ROWS > 1\nfloat s = IN(0, 0);\n#ifdef A\n#endif\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k) = s;\n"
                          "#else\nvalue_t v = IN(0, 0);\nOUT_AT(0) = v;\n#endif\n";
    assert_int_equal(cls_body_in_lanes(one_row), 1);
    assert_int_equal(cls_body_in_lanes("#if ROWS > 2\nfloat s = 0.0f;\n#endif\nvalue_t v = IN(0, 0);\nOUT = v;"), 0);
    /* a form of its own for a column of rows in two lanes: scalars beyond one row */
    const char *two_lanes = "#if ROWS > 1\n#if LANES == 2\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k).s1 = IN(1, k).s0;\n"
                            "#else\nfloat s = IN(0, 0);\nfor (int k = 0; k < ROWS; ++k) OUT_AT(k) = s;\n#endif\n"
                            "#else\nvalue_t v = IN(0, 0);\nOUT_AT(0) = v;\n#endif\n";
    accepted(two_lanes, 3, 3);
    assert_int_equal(cls_body_in_lanes(two_lanes), 1);
    assert_int_equal(cls_body_row_lanes(two_lanes), 2);
    assert_int_equal(cls_body_row_lanes(one_row), 0);
    assert_int_equal(cls_body_row_lanes("#if ROWS > 1 && LANES == 8\n#endif\nOUT = IN(0, 0);"), 8);
    assert_int_equal(cls_body_row_lanes("#if LANES == 3\n#endif\nOUT = IN(0, 0);"), 0);       /* not a vector width */
    assert_int_equal(cls_body_row_lanes("int LANES_2 = 0; /* #if LANES == 2 */\nOUT = IN(0, 0);"), 0); /* no directive */
    assert_int_equal(cls_body_row_lanes("#if ROWS > 1\nint a = LANES == 2;\n#endif\nOUT = IN(0, 0);"), 0); /* another line */
    refused("#define LANES 2\nOUT = IN(0, 0);", 3, 3, "#define or #undef of 'LANES'");
}

/* A body that writes OUT_AT(k) computes a column of ROWS outputs; it does not also use OUT. */
static void column_bodies(void **state)
{
    (void)state;
    const char *column = "for (int k = 0; k < ROWS; ++k) OUT_AT(k) = IN(0, k);";
    accepted(column, 3, 3);
    assert_true(cls_body_writes_rows(column));
    assert_false(cls_body_writes_rows("OUT = IN(0, 0); /* OUT_AT(0) = 1; */"));
    accepted("OUT_AT(ROWS - 1) += 1;", 3, 3);
    refused("OUT_AT(0) = 1; OUT = 2;", 3, 3, "uses both OUT (one output) and OUT_AT(k)");
    refused("float a = OUT; OUT_AT(0) = a;", 3, 3, "uses both OUT");
    refused("float a = OUT_AT(0);", 3, 3, "never assigns OUT_AT(k)");
    refused("int k = 0; float a = OUT_AT(k++);", 3, 3, "never assigns OUT_AT(k)");
    accepted("++OUT_AT(0);", 3, 3);
    accepted("OUT_AT(ROWS - 1)--;", 3, 3);
    accepted("float s[ROWS]; for (int k = 0; k < ROWS; ++k) OUT_AT(k) = s[k] = IN(0, k);", 3, 3);
    refused("float s[ROWS * 1000]; OUT_AT(0) = 1;", 3, 3, "32000 bytes"); /* ROWS counts as 8 */
    refused("float OUT_AT = 1; OUT = OUT_AT;", 3, 3, "declares 'OUT_AT', a macro of the generated code");
    refused("#define OUT_AT(k) x\nOUT = 1;", 3, 3, "#define or #undef of 'OUT_AT'");
}

static void structure_and_size(void **state)
{
    (void)state;
    refused("OUT = 1; } if (1) {", 3, 3, "closes a bracket the body did not open");
    refused("OUT = (1;", 3, 3, "never closed");
    refused("OUT = 1; /* open", 3, 3, "unterminated comment");
    refused("OUT = \"open;", 3, 3, "unterminated");
    refused("OUT = 1;\n\x01", 3, 3, "line 2: control byte 0x01");
    char deep[200] = "OUT = ";
    for (int i = 0; i < 40; ++i) strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 40; ++i) strcat(deep, ")");
    strcat(deep, ";");
    refused(deep, 3, 3, "nest deeper than 32");
    refused("OUT = - - - - - - - - - - - - - - - - - - 1;", 3, 3, "more than 16 operators in a row");
    char *big = malloc(CLS_BODY_MAX_BYTES + 16);
    assert_non_null(big);
    memset(big, ' ', CLS_BODY_MAX_BYTES + 8);
    memcpy(big, "OUT = 1;", 8);
    big[CLS_BODY_MAX_BYTES + 8] = '\0';
    refused(big, 3, 3, "at most 65536 are accepted");
    free(big);
}

static void user_operator_checks_its_body(void **state)
{
    (void)state;
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_user("OUT = IN(0, 2);", 3, 3, NULL, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    assert_int_equal(cls_operator_user("OUT = IN(0, 2);", 5, 5, NULL, &op), CLS_OK);
    cls_operator_release(op);
}

static void parse_refused(const char *text, const char *message)
{
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse(text, &op), CLS_ERR_INVALID_ARGUMENT);
    assert_null(op);
    if (!strstr(cls_last_error(), message)) fail_msg("'%s' gave '%s', not '%s'", text, cls_last_error(), message);
}

static void operator_parameters(void **state)
{
    (void)state;
    parse_refused("bilateral:3,1e-20", "SIGMA_R '1e-20' is too small");
    parse_refused("bilateral:1e-200,1", "SIGMA_D '1e-200' is out of range");
    parse_refused("gaussian:5,1e-200", "SIGMA '1e-200' is out of range");
    parse_refused("gaussian:5,inf", "SIGMA 'inf' is not a finite number");
    parse_refused("gaussian:5,nan", "SIGMA 'nan' is not a finite number");
    parse_refused("gaussian:5,-1", "SIGMA '-1' is not a finite number above 0");
    parse_refused("bilateral:1e300,1", "SIGMA_D '1e300' is out of range");
    cls_operator *op = NULL;
    assert_int_equal(cls_operator_parse("gaussian:63", &op), CLS_OK);
    assert_false(cls_operator_spec(op)->bake_coefficients); /* 3969 taps: a buffer, not literals */
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("log:5,29", &op), CLS_OK);
    assert_false(cls_operator_spec(op)->bake_coefficients); /* 841 taps, not of rank 1 */
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("gaussian:31", &op), CLS_OK);
    assert_true(cls_operator_spec(op)->bake_coefficients); /* rank 1: literals up to 31x31 */
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("box:31", &op), CLS_OK);
    assert_true(cls_operator_spec(op)->bake_coefficients);
    cls_operator_release(op);
    assert_int_equal(cls_operator_parse("gaussian:5", &op), CLS_OK);
    assert_true(cls_operator_spec(op)->bake_coefficients);
    cls_operator_release(op);
}

/* A volume's body: IN(dx, dy, dz) with literals inside the window, MASK_D and HALF_D in array
 * sizes, one output (no OUT_AT). */
static void volume_bodies(void **state)
{
    (void)state;
    const char *sum = "float s = 0.0f;\nFOR_WINDOW(dx, dy, dz) s += MASK(dx, dy, dz) * IN(dx, dy, dz);\nOUT = s;";
    assert_int_equal(cls_body_check_volume(sum, 3, 5, 7), CLS_OK);
    assert_int_equal(cls_body_check_volume("OUT = IN(1, -2, 3);", 3, 5, 7), CLS_OK);
    assert_int_equal(cls_body_check_volume("float v[MASK_W * MASK_H * MASK_D]; v[HALF_D] = 0; OUT = v[0];", 3, 3, 3),
                     CLS_OK);
    assert_int_equal(cls_body_check_volume("OUT = IN(1, -2, 4);", 3, 5, 7), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "line 1: IN(1, -2, 4) reads outside the 3x5x7 window (|dx| <= 1, "
                                             "|dy| <= 2, |dz| <= 3): declare a larger window (user:FILE,WxHxD)"));
    assert_int_equal(cls_body_check_volume("OUT_AT(0) = IN(0, 0, 0);", 3, 3, 3), CLS_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(cls_last_error(), "writes one output, OUT: not OUT_AT(k)"));
    assert_int_equal(cls_body_check_volume("float v[MASK_D * 2000]; OUT = v[0];", 3, 3, 3), CLS_ERR_INVALID_ARGUMENT);
    refused("float v[MASK_D]; OUT = v[0];", 3, 3, "is not a constant"); /* 2-D: no depth */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordinary_bodies_pass), cmocka_unit_test(window_reads),
        cmocka_unit_test(names),                cmocka_unit_test(private_arrays),
        cmocka_unit_test(out_assignment),
        cmocka_unit_test(column_bodies),        cmocka_unit_test(volume_bodies),
        cmocka_unit_test(lane_bodies),
        cmocka_unit_test(structure_and_size),   cmocka_unit_test(user_operator_checks_its_body),
        cmocka_unit_test(operator_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
