/* test_build_log.c — what the host reads from build logs and writes into NVIDIA's PTX: register,
 * spill and stack numbers of an NVIDIA log (-cl-nv-verbose), positions inside a user-written body
 * mapped back to the body's own lines for compilers that ignore #line, and a source's register
 * cap as a .maxnreg directive after the entry's parameter list. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "build.h"

static void reads_registers_and_spills(void **state)
{
    (void)state;
    static const char *log =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'clstencil_filter' for 'sm_90'\n"
        "ptxas info    : Function properties for clstencil_filter\n"
        "ptxas         .     24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads\n"
        "ptxas info    : Used 72 registers, 412 bytes cmem[0]\n";
    cls_build_info info;
    memset(&info, 0, sizeof info);
    cls_parse_ptxas_info(log, &info);
    assert_int_equal(info.registers, 72);
    assert_int_equal(info.stack_frame_bytes, 24);
    assert_int_equal(info.spill_store_bytes, 16);
    assert_int_equal(info.spill_load_bytes, 12);
}

static void other_logs_leave_zeros(void **state)
{
    (void)state;
    cls_build_info info;
    memset(&info, 0, sizeof info);
    cls_parse_ptxas_info("warning: Used 12 registers somewhere else\n", &info);
    cls_parse_ptxas_info("", &info);
    cls_parse_ptxas_info("ptxas info : Used", &info);
    assert_int_equal(info.registers, 0);
    assert_int_equal(info.spill_store_bytes, 0);
}

static void body_positions_are_mapped(void **state)
{
    (void)state;
    /* two copies of a two-line body, at generated lines 4-5 and 10-11 */
    static const char *source = "/* 1 */\n/* 2 */\n#line 1 \"operator\"\nfloat v = IN(0, 0);\nOUT = v +* 2;\n"
                                "\n#line 7 \"clstencil\"\n/* 8 */\n#line 1 \"operator\"\nfloat v = IN(0, 0);\n"
                                "OUT = v +* 2;\n\n#line 13 \"clstencil\"\n";
    static const char *log = "<kernel>:5:13: error: expected expression\n"
                             "<kernel>:11:13: error: expected expression\n"
                             "<kernel>:8:1: note: elsewhere\n"
                             "operator:2:13: error: already mapped\n"
                             "no position here\n";
    strbuf out;
    strbuf_init(&out);
    cls_map_body_lines(source, log, &out);
    assert_string_equal(strbuf_text(&out), "operator:2:13: error: expected expression\n"
                                           "operator:2:13: error: expected expression\n"
                                           "<kernel>:8:1: note: elsewhere\n"
                                           "operator:2:13: error: already mapped\n"
                                           "no position here\n");
    strbuf_free(&out);
}

static void register_cap_goes_into_the_ptx(void **state)
{
    (void)state;
    static const char ptx[] = ".version 8.0\n.target sm_90\n"
                              ".entry other(\n\t.param .u64 a\n)\n{\n\tret;\n}\n"
                              ".entry clstencil_filter(\n\t.param .u64 input,\n\t.param .align 16 .b8 roi[16]\n)\n"
                              "{\n\tret;\n}\n";
    char *patched = cls_ptx_with_maxnreg(ptx, sizeof ptx, "clstencil_filter", 64);
    assert_non_null(patched);
    assert_string_equal(strstr(patched, ".entry clstencil_filter("),
                        ".entry clstencil_filter(\n\t.param .u64 input,\n\t.param .align 16 .b8 roi[16]\n)\n"
                        ".maxnreg 64\n{\n\tret;\n}\n");
    assert_non_null(strstr(patched, ".entry other(\n\t.param .u64 a\n)\n{")); /* other entries as they were */
    free(patched);
    /* a binary without the NUL, and one without the entry */
    patched = cls_ptx_with_maxnreg(ptx, sizeof ptx - 1, "clstencil_filter", 48);
    assert_non_null(strstr(patched, ")\n.maxnreg 48\n{"));
    free(patched);
    assert_null(cls_ptx_with_maxnreg(ptx, sizeof ptx, "clstencil_fresh", 64));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_registers_and_spills),
        cmocka_unit_test(other_logs_leave_zeros),
        cmocka_unit_test(body_positions_are_mapped),
        cmocka_unit_test(register_cap_goes_into_the_ptx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
