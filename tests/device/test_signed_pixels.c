/* test_signed_pixels.c — signed 16-bit images (CLS_PIXEL_I16) on the default device: values
 * across the whole range, negative ones included, through a mask with negative taps in every
 * border mode, on the global path (naive and isp-warp with blocks of outputs) and the image path;
 * i16 out is the CPU reference rounded to nearest even and saturated at -32768 and 32767, i16 in
 * with f32 out the reference within f32 rounding; every pixel, borders included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clstencil.h>

#include "reference/reference.h"

enum { W = 41, H = 29 };

static int16_t input[W * H];
static cls_context *context;
/* A sharpening mask whose sums leave the i16 range on strong edges (saturation is exercised). */
static const float mask[9] = {-1.0f, -2.0f, -1.0f, -2.0f, 13.5f, -2.0f, -1.0f, -2.0f, -1.0f};

static int setup(void **state)
{
    (void)state;
    unsigned seed = 11;
    for (int k = 0; k < W * H; ++k) {
        seed = seed * 1103515245u + 12345u;
        input[k] = (int16_t)((int)((seed >> 8) % 65536u) - 32768);
    }
    return cls_context_create(NULL, &context) == CLS_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cls_context_release(context);
    return 0;
}

/* One filter of the mask over the i16 input into OUTPUT_TYPE, against the reference. */
static void check(cls_border border, cls_partition partition, cls_input_path path, unsigned rows, unsigned cols,
                  cls_pixel_type output_type)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = 3;
    spec.coefficients = mask;
    spec.border = border;
    spec.border_value = -300.0f;
    spec.partition = partition;
    spec.input_path = path;
    spec.rows_per_item = rows;
    spec.cols_per_item = cols;
    spec.input_type = CLS_PIXEL_I16;
    spec.output_type = output_type;
    cls_filter *filter = NULL;
    if (cls_filter_create(context, &spec, &filter) != CLS_OK)
        fail_msg("%s %s: %s", cls_border_name(border), cls_partition_name(partition), cls_last_error());
    static unsigned char out[W * H * 4];
    static double expected[W * H];
    const cls_image_desc desc = {CLS_IMAGE_DESC_INIT, .width = W, .height = H};
    assert_int_equal(cls_filter_run_host(filter, input, out, &desc), CLS_OK);
    const ref_image image = {input, W, H, 0, CLS_PIXEL_I16};
    assert_int_equal(ref_stencil(&image, mask, 3, 3, border, -300.0f, expected), 0);
    for (unsigned y = 0; y < H; ++y)
        for (unsigned x = 0; x < W; ++x) {
            const size_t k = (size_t)y * W + x;
            if (border == CLS_BORDER_UNDEFINED && !ref_window_inside(x, y, W, H, 3, 3)) continue;
            const double got = ref_load(output_type, out + k * cls_pixel_size(output_type));
            const int ok = output_type == CLS_PIXEL_F32 ? ref_f32_close(got, expected[k])
                                                        : got == ref_to_output(output_type, expected[k]);
            if (!ok)
                fail_msg("%s %s input %d, %u x %u per item, -> %s: (%u, %u) is %.9g, expected %.9g",
                         cls_border_name(border), cls_partition_name(partition), (int)path, rows, cols,
                         cls_pixel_type_name(output_type), x, y, got, ref_to_output(output_type, expected[k]));
        }
    cls_filter_release(filter);
}

static void test_i16_every_border(void **state)
{
    (void)state;
    for (int b = CLS_BORDER_UNDEFINED; b <= CLS_BORDER_CONSTANT; ++b) {
        check((cls_border)b, CLS_PARTITION_NAIVE, CLS_INPUT_GLOBAL, 1, 1, CLS_PIXEL_I16);
        const unsigned block = b == CLS_BORDER_UNDEFINED ? 1 : 2; /* blocks need a defined border */
        check((cls_border)b, CLS_PARTITION_ISP_WARP, CLS_INPUT_GLOBAL, block, block, CLS_PIXEL_I16);
        check((cls_border)b, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_GLOBAL, 1, 1, CLS_PIXEL_F32);
    }
}

static void test_i16_image_path(void **state)
{
    (void)state;
    const cls_device_caps *caps = cls_context_device(context);
    if (!caps || !caps->image_support) {
        print_message("the device has no image support: the image path is not tested\n");
        return;
    }
    check(CLS_BORDER_CLAMP, CLS_PARTITION_ISP_BLOCK, CLS_INPUT_IMAGE, 1, 1, CLS_PIXEL_I16);
    check(CLS_BORDER_MIRROR, CLS_PARTITION_NAIVE, CLS_INPUT_IMAGE, 1, 1, CLS_PIXEL_F32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i16_every_border),
        cmocka_unit_test(test_i16_image_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
