/* test_ptxas_info.c — register, spill and stack numbers read from an NVIDIA build log
 * (-cl-nv-verbose), in the form NVIDIA's OpenCL prints them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_registers_and_spills),
        cmocka_unit_test(other_logs_leave_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
