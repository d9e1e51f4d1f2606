/* test_select.c — device selection over a synthetic machine (PoCL listed before an NVIDIA GPU):
 * the default, every CLSTENCIL_DEVICE form, and the no-match error listing what exists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "host.h"

static cls_device_caps machine[3];

static int setup(void **state)
{
    (void)state;
    memset(machine, 0, sizeof machine);
    const struct { unsigned p, d; const char *platform, *name, *vendor; cls_vendor v; cls_device_type t; } devices[] = {
        {0, 0, "Portable Computing Language", "pthread-skylake-avx512", "GenuineIntel", CLS_VENDOR_POCL, CLS_DEVICE_CPU},
        {1, 0, "NVIDIA CUDA", "NVIDIA H200", "NVIDIA Corporation", CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU},
        {1, 1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation", CLS_VENDOR_NVIDIA, CLS_DEVICE_GPU},
    };
    for (int i = 0; i < 3; ++i) {
        machine[i].platform_index = devices[i].p;
        machine[i].device_index = devices[i].d;
        snprintf(machine[i].platform_name, sizeof machine[i].platform_name, "%s", devices[i].platform);
        snprintf(machine[i].name, sizeof machine[i].name, "%s", devices[i].name);
        snprintf(machine[i].vendor_name, sizeof machine[i].vendor_name, "%s", devices[i].vendor);
        machine[i].vendor = devices[i].v;
        machine[i].type = devices[i].t;
    }
    return 0;
}

static size_t pick(const char *selector, size_t count)
{
    size_t index = 99;
    assert_int_equal(cls_select_device(machine, count, selector, &index), CLS_OK);
    return index;
}

static void default_prefers_a_gpu_over_platform_0(void **state)
{
    (void)state;
    assert_int_equal(pick(NULL, 3), 1);
    assert_int_equal(pick("", 3), 1);
    assert_int_equal(pick(NULL, 1), 0); /* only the CPU: take it */
}

static void default_prefers_an_accelerator_over_a_cpu(void **state)
{
    (void)state;
    machine[2].type = CLS_DEVICE_ACCELERATOR;
    machine[1].type = CLS_DEVICE_CPU;
    assert_int_equal(pick(NULL, 3), 2);
}

static void by_platform_and_device_index(void **state)
{
    (void)state;
    assert_int_equal(pick("1:1", 3), 2);
    assert_int_equal(pick("0:0", 3), 0);
}

static void by_type(void **state)
{
    (void)state;
    assert_int_equal(pick("cpu", 3), 0);
    assert_int_equal(pick("GPU", 3), 1);
}

static void by_name_substring(void **state)
{
    (void)state;
    assert_int_equal(pick("h100", 3), 2);
    assert_int_equal(pick("NVIDIA", 3), 1);
    assert_int_equal(pick("pocl", 3), 0);     /* the normalized vendor */
    assert_int_equal(pick("portable", 3), 0); /* the platform name */
}

static void no_match_lists_the_devices(void **state)
{
    (void)state;
    static const char *selectors[] = {"2:0", "1:7", "accelerator", "radeon"};
    for (size_t i = 0; i < sizeof selectors / sizeof selectors[0]; ++i) {
        size_t index = 99;
        assert_int_equal(cls_select_device(machine, 3, selectors[i], &index), CLS_ERR_NO_DEVICE);
        assert_int_equal(index, 99);
        const char *message = cls_last_error();
        assert_non_null(strstr(message, selectors[i]));
        assert_non_null(strstr(message, "0:0  cpu  pthread-skylake-avx512"));
        assert_non_null(strstr(message, "1:1  gpu  NVIDIA H100 80GB HBM3"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(default_prefers_a_gpu_over_platform_0, setup),
        cmocka_unit_test_setup(default_prefers_an_accelerator_over_a_cpu, setup),
        cmocka_unit_test_setup(by_platform_and_device_index, setup),
        cmocka_unit_test_setup(by_type, setup),
        cmocka_unit_test_setup(by_name_substring, setup),
        cmocka_unit_test_setup(no_match_lists_the_devices, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
