/* image_io_fixture.c — the shared parts of the image I/O tests (see image_io_fixture.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io_fixture.h"

/* ---- Files and folders ---- */

static char root[256]; /* this run's temporary folder */

/* ROOT/NAME, in one of 8 rotating buffers. */
const char *at(const char *name)
{
    static char ring[8][512];
    static unsigned next;
    char *path = ring[next++ % 8];
    snprintf(path, sizeof ring[0], "%s/%s", root, name);
    return path;
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            char sub[1024];
            struct stat st;
            snprintf(sub, sizeof sub, "%s/%s", path, entry->d_name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(dir);
    }
    rmdir(path);
}

int image_io_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/test_image_io.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(root) ? 0 : -1;
}

int image_io_teardown(void **state)
{
    (void)state;
    remove_tree(root);
    return 0;
}

void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(data, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    assert_int_equal(fseek(file, 0, SEEK_END), 0);
    long n = ftell(file);
    assert_true(n >= 0);
    rewind(file);
    unsigned char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, file), (size_t)n);
    fclose(file);
    *size = (size_t)n;
    return data;
}

int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- Images ---- */

uint32_t lcg_state = 12345;
uint32_t lcg(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

/* An asymmetric pattern over the whole range of TYPE; f32 includes -0, a subnormal, a huge
 * value, infinity and NaN (compared bit for bit). NOISE: random values instead. */
cls_host_image make_image(size_t width, size_t height, size_t channels, cls_pixel_type type, unsigned seed,
                          int noise)
{
    cls_host_image image;
    char error[256];
    assert_int_equal(image_alloc(&image, width, height, channels, type, "memory", error, sizeof error),
                     IMAGE_OK);
    const size_t n = width * height;
    for (size_t c = 0; c < channels; ++c)
        for (size_t i = 0; i < n; ++i) {
            const size_t x = i % width, y = i / width;
            const uint32_t r = noise ? lcg() : 0;
            if (type == CLS_PIXEL_U8) {
                ((uint8_t *)image.pixels)[c * n + i] = (uint8_t)(noise ? r : x * 7 + y * 13 + c * 61 + seed);
            } else if (type == CLS_PIXEL_U16) {
                ((uint16_t *)image.pixels)[c * n + i] =
                    (uint16_t)(noise ? r : x * 1031 + y * 7919 + c * 20011 + seed * 3);
            } else if (type == CLS_PIXEL_I16) { /* negative and positive values, both extremes */
                ((int16_t *)image.pixels)[c * n + i] =
                    (int16_t)((int32_t)((noise ? r : x * 1031 + y * 7919 + c * 20011 + seed * 3) % 65536u) - 32768);
            } else if (type == CLS_PIXEL_F16) { /* every bit pattern: signs, subnormals, infinities, NaN */
                ((uint16_t *)image.pixels)[c * n + i] =
                    (uint16_t)(noise ? r : x * 1031 + y * 7919 + c * 20011 + seed * 3);
            } else {
                float v = (float)x * 0.5f - (float)y * 1.25f + (float)c * 100.0f + (float)seed;
                if (noise)
                    v = (float)r / 1000.0f;
                else if (i % 17 == 3)
                    v = -0.0f;
                else if (i % 29 == 5)
                    v = 1e-40f;
                else if (i % 31 == 7)
                    v = 3.0e38f;
                else if (i % 37 == 11)
                    v = -INFINITY;
                else if (i % 41 == 13)
                    v = NAN;
                ((float *)image.pixels)[c * n + i] = v;
            }
        }
    return image;
}

void assert_same_image(const cls_host_image *want, const cls_host_image *got)
{
    assert_int_equal(got->width, want->width);
    assert_int_equal(got->height, want->height);
    assert_int_equal(got->channels, want->channels);
    assert_int_equal(got->type, want->type);
    assert_non_null(got->pixels);
    assert_memory_equal(got->pixels, want->pixels, image_plane_bytes(want) * want->channels);
}

cls_host_image read_ok(const char *path)
{
    cls_host_image image;
    char error[512] = "";
    int status = image_read(path, &image, error, sizeof error);
    if (status != IMAGE_OK)
        print_error("image_read(%s): %s\n", path, error);
    assert_int_equal(status, IMAGE_OK);
    return image;
}

void write_ok(const char *path, const cls_host_image *image)
{
    char error[512] = "";
    int status = image_write(path, image, error, sizeof error);
    if (status != IMAGE_OK)
        print_error("image_write(%s): %s\n", path, error);
    assert_int_equal(status, IMAGE_OK);
}

void round_trip(const char *path, const cls_host_image *image)
{
    write_ok(path, image);
    cls_host_image back = read_ok(path);
    assert_same_image(image, &back);
    image_free(&back);
}

/* image_read(PATH) fails with CODE, leaves *out empty, and its message names PATH (and KEYWORD). */
void expect_read_error(const char *path, int code, const char *keyword)
{
    cls_host_image image;
    char error[512] = "";
    memset(&image, 0x5a, sizeof image);
    int status = image_read(path, &image, error, sizeof error);
    if (status != code || !strstr(error, path) || (keyword && !strstr(error, keyword)))
        print_error("image_read(%s) = %s, want %s; message: %s\n", path, image_error_class_name(status),
                    image_error_class_name(code), error);
    assert_int_equal(status, code);
    assert_non_null(strstr(error, path));
    if (keyword)
        assert_non_null(strstr(error, keyword));
    assert_null(image.pixels);
    assert_int_equal(image.width, 0);
}

void expect_write_error(const char *path, const cls_host_image *image, int code)
{
    char error[512] = "";
    int status = image_write(path, image, error, sizeof error);
    if (status != code || !strstr(error, path))
        print_error("image_write(%s) = %s, want %s; message: %s\n", path, image_error_class_name(status),
                    image_error_class_name(code), error);
    assert_int_equal(status, code);
    assert_non_null(strstr(error, path));
}

/* ---- TIFF files written with libtiff directly ---- */

#ifdef CLS_WITH_TIFF

uint16_t photometric_for(size_t channels)
{
    return channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
}

/* Writes IMAGE as a TIFF in the given organization: 16x16 tiles or strips of 5 rows, planar
 * configuration contiguous or separate, compression, byte order. */
void write_tiff_layout(const char *path, const cls_host_image *image, int tiled, int separate, uint16_t compression,
                       int big_endian)
{
    TIFF *tif = TIFFOpen(path, big_endian ? "wb" : "wl");
    assert_non_null(tif);
    const size_t bytes = image_sample_bytes(image->type), plane = image_plane_bytes(image);
    const size_t w = image->width, h = image->height, spp = image->channels;
    const int is_float = image->type == CLS_PIXEL_F32 || image->type == CLS_PIXEL_F16;
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)w));
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)h));
    assert_true(TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)spp));
    assert_true(TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * bytes)));
    assert_true(TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, is_float                        ? SAMPLEFORMAT_IEEEFP
                                                        : image->type == CLS_PIXEL_I16 ? SAMPLEFORMAT_INT
                                                                                       : SAMPLEFORMAT_UINT));
    assert_true(TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric_for(spp)));
    assert_true(
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG));
    assert_true(TIFFSetField(tif, TIFFTAG_COMPRESSION, compression));
    /* libtiff 4.5 writes the floating-point predictor wrongly into a file of the other byte
     * order (it swaps the samples before differencing; checked by decoding such a file by hand),
     * so float files of the other byte order go without a predictor. */
    const uint16_t host_one = 1;
    unsigned char host_first;
    memcpy(&host_first, &host_one, 1);
    const int swapped = big_endian == (host_first == 1);
    if (compression != COMPRESSION_NONE && compression != COMPRESSION_PACKBITS && !(is_float && swapped))
        assert_true(TIFFSetField(tif, TIFFTAG_PREDICTOR,
                                 is_float ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL));
    if (spp == 2 || spp == 4) {
        const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        assert_true(TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra));
    }
    const size_t chunk_w = tiled ? 16 : w, chunk_h = tiled ? 16 : 5;
    if (tiled) {
        assert_true(TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)chunk_w));
        assert_true(TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)chunk_h));
    } else {
        assert_true(TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)chunk_h));
    }
    const size_t planes = separate ? spp : 1, spc = separate ? 1 : spp;
    const size_t chunk_bytes = chunk_w * chunk_h * spc * bytes;
    unsigned char *buffer = malloc(chunk_bytes);
    assert_non_null(buffer);
    for (size_t p = 0; p < planes; ++p)
        for (size_t y0 = 0; y0 < h; y0 += chunk_h)
            for (size_t x0 = 0; x0 < w; x0 += chunk_w) {
                const size_t rows = h - y0 < chunk_h ? h - y0 : chunk_h,
                             cols = w - x0 < chunk_w ? w - x0 : chunk_w;
                memset(buffer, 0, chunk_bytes);
                for (size_t r = 0; r < rows; ++r)
                    for (size_t x = 0; x < cols; ++x)
                        for (size_t k = 0; k < spc; ++k)
                            memcpy(buffer + ((r * chunk_w + x) * spc + k) * bytes,
                                   (const unsigned char *)image->pixels + (separate ? p : k) * plane +
                                       ((y0 + r) * w + x0 + x) * bytes,
                                   bytes);
                tmsize_t written;
                if (tiled)
                    written = TIFFWriteEncodedTile(
                        tif, TIFFComputeTile(tif, (uint32_t)x0, (uint32_t)y0, 0, (uint16_t)p), buffer,
                        (tmsize_t)chunk_bytes);
                else
                    written = TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, (uint32_t)y0, (uint16_t)p),
                                                    buffer, (tmsize_t)(rows * w * spc * bytes));
                assert_true(written >= 0);
            }
    free(buffer);
    TIFFClose(tif);
}

#endif
