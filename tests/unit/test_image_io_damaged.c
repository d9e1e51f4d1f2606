/* test_image_io_damaged.c — the clstencil command's image readers on damaged files: a PGM, a PFM
 * and, with libtiff, three TIFFs (image_write's, a tiled big-endian deflate one with separate
 * planes, LZW strips) cut at many lengths and with random bytes changed. Each read answers ok,
 * corrupt or unsupported and never crashes (run under ASan/UBSan). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image_io_fixture.h"

/* Damaged files of every format: cut at many lengths and with random bytes changed. The reader
 * must answer ok, corrupt or unsupported, never crash (run under ASan/UBSan). */
static void check_damaged(const char *path, const unsigned char *data, size_t size)
{
    write_bytes(path, data, size);
    cls_host_image image;
    char error[512] = "";
    int status = image_read(path, &image, error, sizeof error);
    if (status != IMAGE_OK && status != IMAGE_ERR_CORRUPT && status != IMAGE_ERR_UNSUPPORTED)
        print_error("%s: %s\n", path, error);
    assert_true(status == IMAGE_OK || status == IMAGE_ERR_CORRUPT || status == IMAGE_ERR_UNSUPPORTED);
    if (status == IMAGE_OK)
        assert_non_null(image.pixels);
    else
        assert_non_null(strstr(error, path));
    image_free(&image);
}

static void damaged_files_never_crash(void **state)
{
    (void)state;
    lcg_state = 777;
    cls_host_image gray16 = make_image(40, 30, 1, CLS_PIXEL_U16, 4, 0);
    cls_host_image rgb = make_image(40, 30, 3, CLS_PIXEL_F32, 4, 0);
    cls_host_image rgba8 = make_image(40, 30, 4, CLS_PIXEL_U8, 4, 0);
    write_ok(at("base.pgm"), &gray16);
    write_ok(at("base.pfm"), &rgb);
    const char *bases[5] = {"base.pgm", "base.pfm", NULL, NULL, NULL};
    int count = 2;
#ifdef CLS_WITH_TIFF
    write_ok(at("base-w.tif"), &rgba8);
    write_tiff_layout(at("base-t.tif"), &rgb, 1, 1, COMPRESSION_ADOBE_DEFLATE, 1);
    write_tiff_layout(at("base-s.tif"), &gray16, 0, 0, COMPRESSION_LZW, 0);
    bases[count++] = "base-w.tif";
    bases[count++] = "base-t.tif";
    bases[count++] = "base-s.tif";
#endif
    for (int b = 0; b < count; ++b) {
        size_t size;
        unsigned char *data = read_bytes(at(bases[b]), &size);
        unsigned char *copy = malloc(size);
        assert_non_null(copy);
        const char *path = at(strstr(bases[b], ".tif")   ? "damaged.tif"
                              : strstr(bases[b], ".pgm") ? "damaged.pgm"
                                                         : "damaged.pfm");
        for (size_t cut = 0; cut < size; cut += size / 97 + 1)
            check_damaged(path, data, cut);
        for (int round = 0; round < 300; ++round) {
            memcpy(copy, data, size);
            const int changes = 1 + (int)(lcg() % 4);
            for (int k = 0; k < changes; ++k) {
                /* Half the changes land in the first or last 256 bytes: headers and directories. */
                size_t at_byte = lcg() % size;
                if (lcg() % 2)
                    at_byte = lcg() % 2 ? at_byte % 256 : size - 1 - at_byte % 256;
                copy[at_byte % size] = (unsigned char)lcg();
            }
            check_damaged(path, copy, size);
        }
        free(copy);
        free(data);
    }
    image_free(&gray16);
    image_free(&rgb);
    image_free(&rgba8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(damaged_files_never_crash),
    };
    return cmocka_run_group_tests(tests, image_io_setup, image_io_teardown);
}
