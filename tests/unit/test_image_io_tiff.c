/* test_image_io_tiff.c — TIFF in the clstencil command's image I/O: every layout written with
 * libtiff directly (pixel type, channel count, strips or tiles, planar configuration, with
 * compression and byte order rotating; one test case each) read back sample for sample;
 * image_write's TIFFs read back, with the tags it sets; 64-bit floats read as f32; JPEG-compressed
 * YCbCr decoded to RGB; TIFF support as the build says (without libtiff, .tif paths are
 * unsupported and the other cases are skipped); and the allocator image_alloc takes pixels from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_io_fixture.h"

/* Without TIFF support, .tif paths are unsupported ("built without TIFF support"). */
static void tiff_support_matches_build(void **state)
{
    (void)state;
#ifdef CLS_WITH_TIFF
    assert_int_equal(image_has_tiff(), 1);
#else
    assert_int_equal(image_has_tiff(), 0);
    write_text(at("plain.tif"), "II*\0");
    expect_read_error(at("plain.tif"), IMAGE_ERR_UNSUPPORTED, "built without TIFF support");
    cls_host_image image = make_image(4, 4, 1, CLS_PIXEL_U8, 0, 0);
    expect_write_error(at("plain-out.tif"), &image, IMAGE_ERR_UNSUPPORTED);
    assert_false(exists(at("plain-out.tif")));
    image_free(&image);
#endif
}

/* ---- Tests: TIFF layouts ---- */

typedef struct tiff_layout {
    cls_pixel_type type;
    size_t channels;
    int tiled, separate, index;
    char name[64];
} tiff_layout;

enum { LAYOUT_COUNT = 5 * 4 * 2 * 2 };
static tiff_layout layouts[LAYOUT_COUNT];

static void make_layouts(void)
{
    static const cls_pixel_type types[5] = {CLS_PIXEL_U8, CLS_PIXEL_U16, CLS_PIXEL_I16, CLS_PIXEL_F16,
                                            CLS_PIXEL_F32};
    static const char *const type_names[5] = {"u8", "u16", "i16", "f16", "f32"};
    int i = 0;
    for (int t = 0; t < 5; ++t)
        for (size_t ch = 1; ch <= 4; ++ch)
            for (int tiled = 0; tiled < 2; ++tiled)
                for (int separate = 0; separate < 2; ++separate, ++i) {
                    tiff_layout *l = &layouts[i];
                    l->type = types[t];
                    l->channels = ch;
                    l->tiled = tiled;
                    l->separate = separate;
                    l->index = i;
                    snprintf(l->name, sizeof l->name, "tiff_read_%s_c%zu_%s_%s", type_names[t], ch,
                             tiled ? "tiles" : "strips", separate ? "separate" : "contig");
                }
}

/* One layout: written with libtiff (37x23, so strips and tiles are partial at the edges), read
 * with image_read, every sample compared. Compression and byte order rotate over the layouts. */
static void tiff_layout_round_trip(void **state)
{
#ifndef CLS_WITH_TIFF
    (void)state;
    skip();
#else
    static const uint16_t compressions[] = {COMPRESSION_NONE,     COMPRESSION_LZW,  COMPRESSION_ADOBE_DEFLATE,
                                            COMPRESSION_PACKBITS, COMPRESSION_ZSTD, COMPRESSION_LZMA};
    const tiff_layout *l = *state;
    uint16_t compression = compressions[l->index % 6];
    if (!TIFFIsCODECConfigured(compression))
        compression = COMPRESSION_LZW;
    char name[80];
    snprintf(name, sizeof name, "%s.tif", l->name);
    const char *path = at(name);
    cls_host_image image = make_image(37, 23, l->channels, l->type, (unsigned)l->index, 0);
    write_tiff_layout(path, &image, l->tiled, l->separate, compression, (l->index / 6) % 2);
    cls_host_image back = read_ok(path);
    assert_same_image(&image, &back);
    image_free(&back);
    image_free(&image);
    unlink(path);
#endif
}

/* 64-bit float TIFFs (strips and tiles, 2 channels) are read as f32, each sample the double
 * rounded to float, and the metadata says so. */
static void tiff_f64_read_as_f32(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    enum { FW = 37, FH = 23, FC = 2 };
    static double samples[FW * FH * FC];
    for (size_t i = 0; i < FW * FH * FC; ++i) samples[i] = (double)i * 1.000000123 - 400.0 + 1e-9 * (double)(i % 7);
    for (int tiled = 0; tiled < 2; ++tiled) {
        const char *path = at(tiled ? "f64_tiles.tif" : "f64_strips.tif");
        TIFF *tif = TIFFOpen(path, "w");
        assert_non_null(tif);
        assert_true(TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, FW) && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, FH) &&
                    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, FC) && TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 64) &&
                    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP) &&
                    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
                    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG));
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        assert_true(TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra));
        if (tiled) {
            assert_true(TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16) && TIFFSetField(tif, TIFFTAG_TILELENGTH, 16));
            static double tile[16 * 16 * FC];
            for (uint32_t y0 = 0; y0 < FH; y0 += 16)
                for (uint32_t x0 = 0; x0 < FW; x0 += 16) {
                    memset(tile, 0, sizeof tile);
                    for (uint32_t y = y0; y < y0 + 16 && y < FH; ++y)
                        for (uint32_t x = x0; x < x0 + 16 && x < FW; ++x)
                            memcpy(&tile[((y - y0) * 16 + (x - x0)) * FC], &samples[(y * FW + x) * FC], FC * sizeof(double));
                    assert_true(TIFFWriteTile(tif, tile, x0, y0, 0, 0) > 0);
                }
        } else {
            assert_true(TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 5));
            for (uint32_t y = 0; y < FH; ++y) assert_true(TIFFWriteScanline(tif, &samples[y * FW * FC], y, 0) == 1);
        }
        TIFFClose(tif);
        cls_host_image image = read_ok(path);
        assert_int_equal(image.type, CLS_PIXEL_F32);
        assert_int_equal(image.channels, FC);
        assert_non_null(image.meta);
        assert_true(image.meta->narrowed_f64);
        const float *pixels = image.pixels;
        for (size_t c = 0; c < FC; ++c)
            for (size_t i = 0; i < FW * FH; ++i)
                if (pixels[c * FW * FH + i] != (float)samples[i * FC + c])
                    fail_msg("%s: channel %zu sample %zu is %.9g, expected %.9g", path, c, i,
                             (double)pixels[c * FW * FH + i], (double)(float)samples[i * FC + c]);
        image_free(&image);
        unlink(path);
    }
#endif
}

/* An allocator that counts its calls and refuses when told to (image_set_allocator). */
typedef struct counting_allocator {
    int allocated, released, refuse;
    size_t last_bytes;
} counting_allocator;

static void *counting_allocate(void *context, size_t bytes)
{
    counting_allocator *c = context;
    if (c->refuse) return NULL;
    ++c->allocated;
    c->last_bytes = bytes;
    return calloc(1, bytes);
}

static void counting_release(void *context, void *pixels, size_t bytes)
{
    counting_allocator *c = context;
    ++c->released;
    assert_int_equal(bytes, c->last_bytes);
    free(pixels);
}

/* An image whose allocator was a local variable of a function that has returned. */
static void alloc_with_a_local_allocator(cls_host_image *image, counting_allocator *counts)
{
    const image_allocator allocator = {counting_allocate, counting_release, counts};
    char error[256];
    image_set_allocator(&allocator);
    assert_int_equal(image_alloc(image, 16, 2, 1, CLS_PIXEL_F32, "m", error, sizeof error), IMAGE_OK);
    image_set_allocator(NULL);
}

/* Fills the stack where alloc_with_a_local_allocator's allocator was. */
static void overwrite_the_stack(void)
{
    volatile unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; ++i) junk[i] = 0xA5;
}

/* The allocator set may go before the images it made: image_free still returns their pixels. */
static void images_outlive_their_allocator(void **state)
{
    (void)state;
    counting_allocator counts = {0};
    cls_host_image image;
    alloc_with_a_local_allocator(&image, &counts);
    overwrite_the_stack();
    image_free(&image);
    assert_int_equal(counts.allocated, 1);
    assert_int_equal(counts.released, 1);
}

/* image_alloc takes pixels from the allocator set, image_free returns them there; an image made
 * before (or when the allocator refuses) comes from calloc and goes back to free. */
static void images_use_the_allocator_set(void **state)
{
    (void)state;
    counting_allocator counts = {0};
    const image_allocator allocator = {counting_allocate, counting_release, &counts};
    char error[256];
    cls_host_image before, with, refused;
    assert_int_equal(image_alloc(&before, 8, 4, 1, CLS_PIXEL_U16, "m", error, sizeof error), IMAGE_OK);
    image_set_allocator(&allocator);
    assert_int_equal(image_alloc(&with, 8, 4, 3, CLS_PIXEL_F32, "m", error, sizeof error), IMAGE_OK);
    assert_int_equal(counts.allocated, 1);
    assert_int_equal(counts.last_bytes, 8 * 4 * 3 * 4);
    counts.refuse = 1;
    assert_int_equal(image_alloc(&refused, 8, 4, 1, CLS_PIXEL_U8, "m", error, sizeof error), IMAGE_OK);
    image_set_allocator(NULL);
    assert_true(before.allocator.release && before.allocator.release == refused.allocator.release); /* pages */
    assert_int_equal((uintptr_t)before.pixels % 4096, 0);
    assert_int_equal((uintptr_t)refused.pixels % 4096, 0);
    image_free(&before);
    image_free(&refused);
    assert_int_equal(counts.released, 0);
    image_free(&with);
    assert_int_equal(counts.released, 1);
}

static void tiff_write_round_trips(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    static const cls_pixel_type types[5] = {CLS_PIXEL_U8, CLS_PIXEL_U16, CLS_PIXEL_I16, CLS_PIXEL_F16,
                                            CLS_PIXEL_F32};
    static const size_t sizes[3][2] = {{1, 1}, {37, 23}, {700, 900}}; /* the last: several strips */
    for (int t = 0; t < 5; ++t)
        for (size_t ch = 1; ch <= 4; ++ch)
            for (int s = 0; s < 3; ++s) {
                cls_host_image image =
                    make_image(sizes[s][0], sizes[s][1], ch, types[t], (unsigned)(t + s), 0);
                round_trip(at("written.tif"), &image);
                /* The tags the brief asks for. */
                TIFF *tif = TIFFOpen(at("written.tif"), "r");
                assert_non_null(tif);
                uint16_t photometric = 0, planar = 0, format = 0, compression = 0, count = 0, *extra = NULL;
                assert_true(TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric));
                assert_int_equal(photometric, photometric_for(ch));
                TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
                assert_int_equal(planar, PLANARCONFIG_CONTIG);
                TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
                assert_int_equal(format, types[t] == CLS_PIXEL_F32 || types[t] == CLS_PIXEL_F16 ? SAMPLEFORMAT_IEEEFP
                                         : types[t] == CLS_PIXEL_I16 ? SAMPLEFORMAT_INT
                                                                     : SAMPLEFORMAT_UINT);
                TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
                assert_true(compression == COMPRESSION_LZW || compression == COMPRESSION_NONE);
                assert_false(TIFFIsTiled(tif));
                if (ch == 2 || ch == 4) {
                    assert_true(TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &count, &extra));
                    assert_int_equal(count, 1);
                    assert_int_equal(extra[0], EXTRASAMPLE_UNASSALPHA);
                }
                /* strips of whole rows, about 512 KiB each */
                uint32_t rows_per_strip = 0;
                assert_true(TIFFGetField(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip));
                const size_t row_bytes = sizes[s][0] * ch * image_sample_bytes(types[t]);
                const size_t expected = (512u << 10) / row_bytes;
                assert_int_equal(rows_per_strip, expected < sizes[s][1] ? expected : sizes[s][1]);
                if (s == 2) assert_true(TIFFNumberOfStrips(tif) > 1);
                TIFFClose(tif);
                image_free(&image);
            }
    /* Extensions in any case; overwriting an existing file. */
    cls_host_image image = make_image(5, 4, 3, CLS_PIXEL_U16, 9, 0);
    round_trip(at("UPPER.TIF"), &image);
    round_trip(at("Mixed.Tiff"), &image);
    round_trip(at("Mixed.Tiff"), &image);
    image_free(&image);
#endif
}

/* JPEG-compressed YCbCr (the usual "JPEG in TIFF") decodes to RGB, within JPEG's error. */
static void tiff_jpeg_ycbcr(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    if (!TIFFIsCODECConfigured(COMPRESSION_JPEG))
        skip();
    const uint32_t w = 64, h = 48;
    const char *path = at("jpeg.tif");
    TIFF *tif = TIFFOpen(path, "w");
    assert_non_null(tif);
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w));
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h));
    assert_true(TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3));
    assert_true(TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8));
    assert_true(TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG));
    assert_true(TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_JPEG));
    assert_true(TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR));
    assert_true(TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB));
    assert_true(TIFFSetField(tif, TIFFTAG_JPEGQUALITY, 95));
    assert_true(TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16));
    unsigned char row[64 * 3];
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            row[3 * x] = (unsigned char)(40 + 2 * x);
            row[3 * x + 1] = (unsigned char)(60 + 3 * y);
            row[3 * x + 2] = 128;
        }
        assert_int_equal(TIFFWriteScanline(tif, row, y, 0), 1);
    }
    TIFFClose(tif);
    cls_host_image image = read_ok(path);
    assert_int_equal(image.channels, 3);
    assert_int_equal(image.type, CLS_PIXEL_U8);
    const uint8_t *p = image.pixels;
    int worst = 0;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const int want[3] = {40 + 2 * (int)x, 60 + 3 * (int)y, 128};
            for (int c = 0; c < 3; ++c) {
                int d = abs((int)p[c * w * h + y * w + x] - want[c]);
                worst = d > worst ? d : worst;
            }
        }
    assert_true(worst <= 12);
    image_free(&image);
#endif
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(tiff_support_matches_build),
        cmocka_unit_test(tiff_write_round_trips),
        cmocka_unit_test(images_use_the_allocator_set),
        cmocka_unit_test(images_outlive_their_allocator),
        cmocka_unit_test(tiff_f64_read_as_f32),
        cmocka_unit_test(tiff_jpeg_ycbcr),
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests = calloc(n_fixed + LAYOUT_COUNT, sizeof *tests);
    if (!tests)
        return 1;
    memcpy(tests, fixed, sizeof fixed);
    make_layouts();
    for (size_t i = 0; i < LAYOUT_COUNT; ++i)
        tests[n_fixed + i] =
            (struct CMUnitTest){layouts[i].name, tiff_layout_round_trip, NULL, NULL, &layouts[i]};
    int failed = _cmocka_run_group_tests("test_image_io_tiff", tests, n_fixed + LAYOUT_COUNT, image_io_setup,
                                         image_io_teardown);
    free(tests);
    return failed;
}
