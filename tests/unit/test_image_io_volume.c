/* test_image_io_volume.c — MetaImage and NRRD in the clstencil command's image I/O: round trips of
 * every type and channel count they hold, images and volumes (a slice a page); headers written
 * by hand (detached data files, big-endian samples, header and byte skips, doubles narrowed, a
 * vector axis of channels, "Key=Value" without spaces), their spacing and orientation lines
 * carried to an output of the same format; and refusals naming what is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io_fixture.h"

/* A volume of PAGES slices of random samples (any bits: NaN and infinities among f32's). */
static cls_host_image make_volume(size_t width, size_t height, size_t channels, size_t pages, cls_pixel_type type)
{
    cls_host_image image;
    char error[256];
    assert_int_equal(image_alloc_pages(&image, width, height, channels, pages, type, "volume", error, sizeof error),
                     IMAGE_OK);
    unsigned char *bytes = image.pixels;
    for (size_t k = 0; k < image_plane_bytes(&image) * image_plane_count(&image); ++k) bytes[k] = (unsigned char)lcg();
    return image;
}

static void expect_same_volume(const cls_host_image *want, const cls_host_image *got)
{
    assert_int_equal(got->width, want->width);
    assert_int_equal(got->height, want->height);
    assert_int_equal(got->channels, want->channels);
    assert_int_equal(got->pages ? got->pages : 1, want->pages ? want->pages : 1);
    assert_int_equal(got->type, want->type);
    assert_memory_equal(got->pixels, want->pixels, image_plane_bytes(want) * image_plane_count(want));
}

static void volume_round_trips(void **state)
{
    (void)state;
    static const char *formats[] = {"mha", "nrrd", "MHA", "Nrrd"};
    static const cls_pixel_type types[] = {CLS_PIXEL_U8, CLS_PIXEL_U16, CLS_PIXEL_I16, CLS_PIXEL_F32};
    static const size_t channels[] = {1, 3}, pages[] = {1, 5};
    for (size_t f = 0; f < 4; ++f)
        for (size_t t = 0; t < 4; ++t)
            for (size_t c = 0; c < 2; ++c)
                for (size_t p = 0; p < 2; ++p) {
                    cls_host_image image = make_volume(13, 7, channels[c], pages[p], types[t]);
                    char name[32];
                    snprintf(name, sizeof name, "v%zu%zu%zu.%s", t, c, p, formats[f]);
                    write_ok(at(name), &image);
                    cls_host_image back = read_ok(at(name));
                    expect_same_volume(&image, &back);
                    image_free(&back);
                    image_free(&image);
                }
}

/* The samples of a 3x2x2 volume: 0, 1, ..., 11. */
static void expect_counting(const cls_host_image *image, cls_pixel_type type)
{
    assert_int_equal(image->width, 3);
    assert_int_equal(image->height, 2);
    assert_int_equal(image->pages, 2);
    assert_int_equal(image->type, type);
    for (size_t k = 0; k < 12; ++k) {
        const double value = type == CLS_PIXEL_U16 ? ((const uint16_t *)image->pixels)[k]
                             : type == CLS_PIXEL_I16 ? ((const int16_t *)image->pixels)[k]
                                                     : ((const float *)image->pixels)[k];
        assert_true(value == (double)k);
    }
}

static void headers_by_hand(void **state)
{
    (void)state;
    unsigned char big[24], little_doubles[96 + 8];
    for (int k = 0; k < 12; ++k) big[2 * k] = 0, big[2 * k + 1] = (unsigned char)k;
    memset(little_doubles, 0, sizeof little_doubles);
    for (int k = 0; k < 12; ++k) {
        const double value = k;
        memcpy(little_doubles + 8 + 8 * k, &value, 8); /* after 8 bytes a byte skip passes */
    }
    /* MetaImage: a detached big-endian u16 volume, HeaderSize -1 (the voxels at the file's end),
     * "Key=Value" without spaces. */
    write_bytes(at("big.raw"), "padding!", 8);
    FILE *raw = fopen(at("big.raw"), "ab");
    assert_non_null(raw);
    assert_int_equal(fwrite(big, 1, sizeof big, raw), sizeof big);
    fclose(raw);
    write_text(at("big.mhd"), "NDims=3\nDimSize=3 2 2\nElementType=MET_USHORT\nElementByteOrderMSB=True\n"
                              "HeaderSize=-1\nElementDataFile=big.raw\n");
    cls_host_image image = read_ok(at("big.mhd"));
    expect_counting(&image, CLS_PIXEL_U16);
    image_free(&image);
    /* NRRD: a detached header with a byte skip, doubles narrowed to f32. */
    write_bytes(at("d.raw"), little_doubles, sizeof little_doubles);
    write_text(at("d.nhdr"), "NRRD0005\n# by hand\ntype: double\ndimension: 3\nsizes: 3 2 2\nendian: little\n"
                             "encoding: raw\nbyte skip: 8\ndata file: d.raw\n");
    image = read_ok(at("d.nhdr"));
    expect_counting(&image, CLS_PIXEL_F32);
    assert_true(image.meta && image.meta->narrowed_f64);
    image_free(&image);
    /* NRRD: an attached i16 volume, big-endian, with spacing lines and a key/value pair carried
     * to a written NRRD and not to a MetaImage. */
    static const char header[] = "NRRD0004\ntype: short\ndimension: 3\nsizes: 3 2 2\nspace: right-anterior-superior\n"
                                 "space directions: (0.5,0,0) (0,0.5,0) (0,0,2)\nspace origin: (1,2,3)\n"
                                 "endian: big\nencoding: raw\nscanner:=by hand\n\n";
    unsigned char file[sizeof header - 1 + sizeof big];
    memcpy(file, header, sizeof header - 1);
    memcpy(file + sizeof header - 1, big, sizeof big);
    write_bytes(at("s.nrrd"), file, sizeof file);
    image = read_ok(at("s.nrrd"));
    expect_counting(&image, CLS_PIXEL_I16);
    write_ok(at("s2.nrrd"), &image);
    write_ok(at("s2.mha"), &image);
    image_free(&image);
    size_t size;
    char *written = (char *)read_bytes(at("s2.nrrd"), &size);
    assert_non_null(strstr(written, "space directions: (0.5,0,0) (0,0.5,0) (0,0,2)\n"));
    assert_non_null(strstr(written, "space origin: (1,2,3)\nscanner:=by hand\n"));
    assert_non_null(strstr(written, "endian: little\n"));
    free(written);
    written = (char *)read_bytes(at("s2.mha"), &size);
    assert_null(strstr(written, "space"));
    free(written);
    /* NRRD: a detached RGB-color axis of channels first. */
    const unsigned char rgb[] = {1, 2, 3, 4, 5, 6};
    write_bytes(at("rgb.raw"), rgb, sizeof rgb);
    write_text(at("rgb.nhdr"), "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 3 2 1\nkinds: RGB-color domain domain\n"
                               "encoding: raw\ndata file: rgb.raw\n");
    image = read_ok(at("rgb.nhdr"));
    assert_int_equal(image.channels, 3);
    assert_int_equal(image.width, 2);
    const unsigned char planar[] = {1, 4, 2, 5, 3, 6};
    assert_memory_equal(image.pixels, planar, sizeof planar);
    image_free(&image);
}

static void refusals(void **state)
{
    (void)state;
    static const struct { const char *name, *text; int code; const char *keyword; } files[] = {
        {"zip.mha", "NDims = 2\nDimSize = 2 2\nElementType = MET_UCHAR\nCompressedData = True\nElementDataFile = LOCAL\nxxxx",
         IMAGE_ERR_UNSUPPORTED, "CompressedData"},
        {"int.mha", "NDims = 2\nDimSize = 2 2\nElementType = MET_INT\nElementDataFile = LOCAL\nxxxxxxxxxxxxxxxx",
         IMAGE_ERR_UNSUPPORTED, "MET_INT"},
        {"4d.mha", "NDims = 4\nDimSize = 2 2 2 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\nx", IMAGE_ERR_UNSUPPORTED,
         "NDims 4"},
        {"short.mha", "NDims = 3\nDimSize = 2 2 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\nxxxxx",
         IMAGE_ERR_CORRUPT, "slice 2 of 2"},
        {"gone.mhd", "NDims = 2\nDimSize = 2 2\nElementType = MET_UCHAR\nElementDataFile = gone.raw\n", IMAGE_ERR_MISSING,
         "gone.raw"},
        {"nodata.mha", "NDims = 2\nDimSize = 2 2\nElementType = MET_UCHAR\n", IMAGE_ERR_CORRUPT, "ElementDataFile"},
        {"gz.nrrd", "NRRD0004\ntype: uchar\ndimension: 2\nsizes: 2 2\nencoding: gzip\n\nxxxx", IMAGE_ERR_UNSUPPORTED,
         "encoding gzip"},
        {"noend.nrrd", "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: raw\n\nxxxxxxxxxxxxxxxx",
         IMAGE_ERR_CORRUPT, "endian"},
        {"magic.nrrd", "NRRB0004\n\n", IMAGE_ERR_CORRUPT, "magic"},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        write_text(at(files[f].name), files[f].text);
        expect_read_error(at(files[f].name), files[f].code, files[f].keyword);
    }
    cls_host_image image = make_volume(4, 3, 1, 2, CLS_PIXEL_F16);
    expect_write_error(at("half.nrrd"), &image, IMAGE_ERR_UNSUPPORTED);
    image_free(&image);
    image = make_volume(4, 3, 1, 2, CLS_PIXEL_F32);
    expect_write_error(at("out.mhd"), &image, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("out.nhdr"), &image, IMAGE_ERR_UNSUPPORTED);
    assert_false(exists(at("out.mhd")));
    image_free(&image);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(volume_round_trips), cmocka_unit_test(headers_by_hand),
                                       cmocka_unit_test(refusals)};
    return cmocka_run_group_tests(tests, image_io_setup, image_io_teardown);
}
