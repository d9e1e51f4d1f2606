/* test_pocl_declarations.c — PoCL's builds with only the builtin declarations their sources call:
 * what the declarations hold, a kernel built so computing what the whole header's build computes,
 * a source the reduction misses built whole (and refused in check mode), and a source with an
 * error reported from the whole header's build. On other devices the cases are skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "host.h"
#include "pocl_declarations.h"
#include "support/context_fixture.h"

/* Calls five builtins by name; `fmax` only through a pasted token, which the reduction misses. */
static const char SOURCE[] =
    "#define PASTED(prefix) prefix##max\n"
    "__kernel void declared(__global const float *in, __global float *out) {\n"
    "    const int i = get_global_id(0);\n"
    "    float4 v = vload4(i, in);\n"
    "    out[i] = hypot(v.x, v.y) + fmin(v.z, v.w) + convert_float(convert_uchar_sat(v.x * 100.0f))"
    "%s;\n"
    "}\n";

static void skip_unless_pocl(void)
{
    if (context->caps.vendor != CLS_VENDOR_POCL) skip();
}

/* SOURCE with `tail` after the sum (static storage: one source at a time). */
static const char *source_with(const char *tail)
{
    static char text[1024];
    snprintf(text, sizeof text, SOURCE, tail);
    return text;
}

/* Builds `text` in `mode` and runs it on 16 fixed inputs (4 outputs) into `out`. */
static cls_status build_and_run(const char *mode, const char *text, float out[4])
{
    setenv("CLSTENCIL_POCL_DECLARATIONS", mode, 1);
    const cls_kernel_source kernel = {.text = text, .name = "declared"};
    strbuf options;
    strbuf_init(&options);
    cls_build_options(&context->caps, &options);
    cl_program program = NULL;
    cls_build_info info;
    const cls_status status = cls_build_from_source(context->context, context->device, &context->caps, &kernel,
                                                    strbuf_text(&options), &program, &info);
    strbuf_free(&options);
    if (status != CLS_OK) return status;
    float in[16];
    for (int k = 0; k < 16; ++k) in[k] = 0.37f * (float)k - 2.0f;
    cl_int error;
    cl_mem input = clCreateBuffer(context->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &error);
    cl_mem output = clCreateBuffer(context->context, CL_MEM_WRITE_ONLY, 4 * sizeof(float), NULL, &error);
    cl_kernel k = clCreateKernel(program, "declared", &error);
    assert_int_equal(error, CL_SUCCESS);
    clSetKernelArg(k, 0, sizeof input, &input);
    clSetKernelArg(k, 1, sizeof output, &output);
    const size_t global = 4;
    assert_int_equal(clEnqueueNDRangeKernel(context->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(context->queue, output, CL_TRUE, 0, 4 * sizeof(float), out, 0, NULL, NULL),
                     CL_SUCCESS);
    clReleaseKernel(k);
    clReleaseMemObject(input);
    clReleaseMemObject(output);
    clReleaseProgram(program);
    return CLS_OK;
}

static void declarations_hold_what_the_source_calls(void **state)
{
    (void)state;
    skip_unless_pocl();
    strbuf declarations;
    strbuf_init(&declarations);
    assert_int_equal(cls_pocl_declarations(source_with(""), &declarations), 1);
    const char *text = strbuf_text(&declarations);
    assert_non_null(strstr(text, "float __ovld __cnfn hypot(float, float);"));
    assert_non_null(strstr(text, "float4 __ovld __cnfn hypot(float4, float4);")); /* every overload */
    assert_non_null(strstr(text, "fmin(float, float);"));
    assert_non_null(strstr(text, "convert_uchar_sat(float);"));
    assert_non_null(strstr(text, "get_global_id("));
    assert_non_null(strstr(text, "typedef float float4 __attribute__((ext_vector_type(4)));")); /* the types */
    assert_null(strstr(text, "atan2pi(")); /* never called */
    assert_null(strstr(text, "fmax(float, float)")); /* only pasted */
    assert_null(strstr(text, "Returns the number of dimensions")); /* comments go */
    assert_true(declarations.length < 150000); /* of the whole header's 900 KB */
    assert_int_equal(strcmp(text + declarations.length - 8, "#line 1\n"), 0);
    strbuf_free(&declarations);
}

static void reduced_build_computes_what_the_whole_header_does(void **state)
{
    (void)state;
    skip_unless_pocl();
    float reduced[4], whole[4];
    assert_int_equal(build_and_run("check", source_with(""), reduced), CLS_OK);
    assert_int_equal(build_and_run("off", source_with(""), whole), CLS_OK);
    assert_memory_equal(reduced, whole, sizeof reduced);
    assert_true(whole[1] != 0.0f);
}

static void a_call_the_reduction_misses_builds_whole(void **state)
{
    (void)state;
    skip_unless_pocl();
    const char *pasted = source_with(" + PASTED(f)(v.x, v.y)");
    float on[4], off[4];
    assert_int_equal(build_and_run("on", pasted, on), CLS_OK);
    assert_int_equal(build_and_run("off", pasted, off), CLS_OK);
    assert_memory_equal(on, off, sizeof on);
    assert_int_equal(build_and_run("check", pasted, on), CLS_ERR_BUILD);
    assert_non_null(strstr(cls_last_error(), "CLSTENCIL_POCL_DECLARATIONS=check"));
    assert_non_null(strstr(cls_last_error(), "fmax"));
}

static void an_error_is_told_by_the_whole_header(void **state)
{
    (void)state;
    skip_unless_pocl();
    float out[4];
    assert_int_equal(build_and_run("check", source_with(" + no_such_function(v.x)"), out), CLS_ERR_BUILD);
    const char *message = cls_last_error();
    assert_non_null(strstr(message, "no_such_function"));
    assert_null(strstr(message, "CLSTENCIL_POCL_DECLARATIONS"));
    assert_null(strstr(message, "-D_OPENCL_H_")); /* the options of the whole header's build */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(declarations_hold_what_the_source_calls),
        cmocka_unit_test(reduced_build_computes_what_the_whole_header_does),
        cmocka_unit_test(a_call_the_reduction_misses_builds_whole),
        cmocka_unit_test(an_error_is_told_by_the_whole_header),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
