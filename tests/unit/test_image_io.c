/* test_image_io.c — the clstencil command's image I/O: every TIFF layout (files written here with
 * libtiff directly), TIFF/PGM/PPM/PFM round trips, each error class naming the file, no partial
 * output on failed writes, and no crash or libtiff noise on damaged files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"
#ifdef CLS_WITH_TIFF
#include <tiffio.h>
#endif

/* ---- Files and folders ---- */

static char root[256]; /* this run's temporary folder */

/* ROOT/NAME, in one of 8 rotating buffers. */
static const char *at(const char *name)
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

static int group_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/test_image_io.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(root) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    remove_tree(root);
    return 0;
}

/* Entries of DIR other than . and ..; *hidden counts those starting with '.' (temporaries). */
static int count_entries(const char *path, int *hidden)
{
    DIR *dir = opendir(path);
    int n = 0;
    *hidden = 0;
    assert_non_null(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        ++n;
        if (entry->d_name[0] == '.')
            ++*hidden;
    }
    closedir(dir);
    return n;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(data, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

static unsigned char *read_bytes(const char *path, size_t *size)
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

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- Images ---- */

static uint32_t lcg_state = 12345;
static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

/* An asymmetric pattern over the whole range of TYPE; f32 includes -0, a subnormal, a huge
 * value, infinity and NaN (compared bit for bit). NOISE: random values instead. */
static cls_host_image make_image(size_t width, size_t height, size_t channels, cls_pixel_type type,
                                 unsigned seed, int noise)
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

static void assert_same_image(const cls_host_image *want, const cls_host_image *got)
{
    assert_int_equal(got->width, want->width);
    assert_int_equal(got->height, want->height);
    assert_int_equal(got->channels, want->channels);
    assert_int_equal(got->type, want->type);
    assert_non_null(got->pixels);
    assert_memory_equal(got->pixels, want->pixels, image_plane_bytes(want) * want->channels);
}

static cls_host_image read_ok(const char *path)
{
    cls_host_image image;
    char error[512] = "";
    int status = image_read(path, &image, error, sizeof error);
    if (status != IMAGE_OK)
        print_error("image_read(%s): %s\n", path, error);
    assert_int_equal(status, IMAGE_OK);
    return image;
}

static void write_ok(const char *path, const cls_host_image *image)
{
    char error[512] = "";
    int status = image_write(path, image, error, sizeof error);
    if (status != IMAGE_OK)
        print_error("image_write(%s): %s\n", path, error);
    assert_int_equal(status, IMAGE_OK);
}

static void round_trip(const char *path, const cls_host_image *image)
{
    write_ok(path, image);
    cls_host_image back = read_ok(path);
    assert_same_image(image, &back);
    image_free(&back);
}

/* image_read(PATH) fails with CODE, leaves *out empty, and its message names PATH (and KEYWORD). */
static void expect_read_error(const char *path, int code, const char *keyword)
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

static void expect_write_error(const char *path, const cls_host_image *image, int code)
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

static uint16_t photometric_for(size_t channels)
{
    return channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
}

/* Writes IMAGE as a TIFF in the given organization: 16x16 tiles or strips of 5 rows, planar
 * configuration contiguous or separate, compression, byte order. */
static void write_tiff_layout(const char *path, const cls_host_image *image, int tiled, int separate,
                              uint16_t compression, int big_endian)
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

/* A one-strip, contiguous TIFF of any sample layout, for the layouts image_read refuses. Data
 * are zeros; compression other than none is written raw. */
static void write_tiff_raw(const char *path, uint32_t w, uint32_t h, uint16_t spp, uint16_t bps,
                           uint16_t format, uint16_t photometric, uint16_t compression)
{
    TIFF *tif = TIFFOpen(path, "w");
    assert_non_null(tif);
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w));
    assert_true(TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h));
    assert_true(TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp));
    assert_true(TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bps));
    assert_true(TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format));
    assert_true(TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric));
    assert_true(TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG));
    assert_true(TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, h));
    assert_true(TIFFSetField(tif, TIFFTAG_COMPRESSION, compression));
    uint16_t map[3][256] = {{0}};
    if (photometric == PHOTOMETRIC_PALETTE)
        assert_true(TIFFSetField(tif, TIFFTAG_COLORMAP, map[0], map[1], map[2]));
    if (photometric == PHOTOMETRIC_SEPARATED)
        assert_true(TIFFSetField(tif, TIFFTAG_INKSET, INKSET_CMYK));
    const uint16_t colour = photometric == PHOTOMETRIC_RGB || photometric == PHOTOMETRIC_SEPARATED ? 3 : 1;
    if (spp > colour && photometric != PHOTOMETRIC_SEPARATED) {
        uint16_t extra[8] = {0};
        assert_true(TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)(spp - colour), extra));
    }
    const size_t size = ((size_t)w * spp * bps + 7) / 8 * h;
    unsigned char *data = calloc(size, 1);
    assert_non_null(data);
    if (compression == COMPRESSION_NONE)
        assert_true(TIFFWriteEncodedStrip(tif, 0, data, (tmsize_t)size) >= 0);
    else
        assert_true(TIFFWriteRawStrip(tif, 0, data, (tmsize_t)size) >= 0);
    free(data);
    TIFFClose(tif);
}

/* A little-endian classic TIFF built by hand: 8-bit gray, one uncompressed strip, with the
 * directory before the pixel data (libtiff writes it after), so cutting the file leaves a
 * valid header over truncated data. Returns the header size (where the data starts). */
static size_t build_tiff_header(unsigned char *out, uint32_t w, uint32_t h, uint32_t data_bytes)
{
    static const uint16_t tags[9] = {256, 257, 258, 259, 262, 273, 277, 278, 279};
    static const uint16_t types[9] = {4, 4, 3, 3, 3, 4, 3, 4, 4}; /* LONG or SHORT */
    const size_t data_offset = 8 + 2 + 9 * 12 + 4;
    const uint32_t values[9] = {w, h, 8, 1, 1, (uint32_t)data_offset, 1, h, data_bytes};
    memset(out, 0, data_offset);
    memcpy(out, "II*\0\x08\0\0\0", 8);
    out[8] = 9;
    for (int i = 0; i < 9; ++i) {
        unsigned char *entry = out + 10 + 12 * i;
        entry[0] = (unsigned char)(tags[i] & 0xff);
        entry[1] = (unsigned char)(tags[i] >> 8);
        entry[2] = (unsigned char)types[i];
        entry[4] = 1; /* count */
        for (int b = 0; b < 4; ++b)
            entry[8 + b] = (unsigned char)(values[i] >> (8 * b));
    }
    return data_offset;
}

#endif

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
    assert_null(before.allocator);
    assert_null(refused.allocator);
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
    static const size_t sizes[3][2] = {{1, 1}, {37, 23}, {300, 210}}; /* the last: many strips */
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
                if (s == 2)
                    assert_true(TIFFNumberOfStrips(tif) > 1);
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

/* ---- Tests: PGM, PPM, PFM ---- */

static void pnm_round_trips(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t channels;
        cls_pixel_type type;
    } cases[] = {
        {"g8.pgm", 1, CLS_PIXEL_U8},  {"g16.pgm", 1, CLS_PIXEL_U16}, {"c8.ppm", 3, CLS_PIXEL_U8},
        {"c16.ppm", 3, CLS_PIXEL_U16}, {"g8.pnm", 1, CLS_PIXEL_U8},  {"c16.pnm", 3, CLS_PIXEL_U16},
        {"g.pfm", 1, CLS_PIXEL_F32},   {"c.pfm", 3, CLS_PIXEL_F32},  {"UP.PGM", 1, CLS_PIXEL_U16},
        {"Up.PfM", 3, CLS_PIXEL_F32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cls_host_image image = make_image(29, 17, cases[i].channels, cases[i].type, (unsigned)i, 0);
        round_trip(at(cases[i].name), &image);
        image_free(&image);
    }
    /* The bytes of a 16-bit PGM: maxval 65535, big-endian samples. */
    cls_host_image image = make_image(2, 1, 1, CLS_PIXEL_U16, 0, 0);
    ((uint16_t *)image.pixels)[0] = 0x0102;
    ((uint16_t *)image.pixels)[1] = 0xfffe;
    write_ok(at("bytes.pgm"), &image);
    size_t size;
    unsigned char *data = read_bytes(at("bytes.pgm"), &size);
    static const char want[] = "P5\n2 1\n65535\n\x01\x02\xff\xfe";
    assert_int_equal(size, sizeof want - 1);
    assert_memory_equal(data, want, sizeof want - 1);
    free(data);
    image_free(&image);
    /* The output gets the permissions of a plain creat(), not mkstemp's 0600. */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(stat(at("bytes.pgm"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
}

static void pnm_headers_by_hand(void **state)
{
    (void)state;
    /* Comments anywhere in the header, maxval 255 -> u8. */
    static const char gray[] =
        "P5\n# made by hand\n3 2 # width height\n#another\n255\n\x01\x02\x03\x04\x05\x06";
    write_bytes(at("hand.pgm"), gray, sizeof gray - 1);
    cls_host_image image = read_ok(at("hand.pgm"));
    assert_int_equal(image.width, 3);
    assert_int_equal(image.height, 2);
    assert_int_equal(image.type, CLS_PIXEL_U8);
    assert_memory_equal(image.pixels, "\x01\x02\x03\x04\x05\x06", 6);
    image_free(&image);
    /* One-line header, maxval 1000 -> u16, big-endian. */
    static const char wide[] = "P5 2 1 1000\n\x01\x02\x03\xe8";
    write_bytes(at("wide.pgm"), wide, sizeof wide - 1);
    image = read_ok(at("wide.pgm"));
    assert_int_equal(image.type, CLS_PIXEL_U16);
    assert_int_equal(((uint16_t *)image.pixels)[0], 0x0102);
    assert_int_equal(((uint16_t *)image.pixels)[1], 1000);
    image_free(&image);
    /* PPM: interleaved RGB becomes three planes. */
    static const char colour[] = "P6#c\n2 1\n255\n\x0a\x14\x1e\x28\x32\x3c";
    write_bytes(at("hand.ppm"), colour, sizeof colour - 1);
    image = read_ok(at("hand.ppm"));
    assert_int_equal(image.channels, 3);
    assert_memory_equal(image.pixels, "\x0a\x28\x14\x32\x1e\x3c", 6);
    image_free(&image);
}

static void put_float(unsigned char *out, float v, int little)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b)
        out[little ? b : 3 - b] = (unsigned char)(bits >> (8 * b));
}

/* PFM rows run bottom to top; the scale's sign gives the byte order. A 2x3 asymmetric image. */
static void pfm_order_and_endianness(void **state)
{
    (void)state;
    for (int little = 0; little < 2; ++little) {
        unsigned char file[64];
        const char *header = little ? "Pf\n2 3\n-2.5\n" : "Pf\n2 3\n1.0\n";
        size_t n = strlen(header);
        memcpy(file, header, n);
        for (int y = 2; y >= 0; --y) /* bottom row first */
            for (int x = 0; x < 2; ++x, n += 4)
                put_float(file + n, (float)(10 * y + x) + 0.5f, little);
        const char *path = at(little ? "little.pfm" : "big.pfm");
        write_bytes(path, file, n);
        cls_host_image image = read_ok(path);
        assert_int_equal(image.width, 2);
        assert_int_equal(image.height, 3);
        assert_int_equal(image.type, CLS_PIXEL_F32);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 2; ++x)
                assert_true(((float *)image.pixels)[y * 2 + x] == (float)(10 * y + x) + 0.5f);
        image_free(&image);
    }
    /* Colour PFM. */
    unsigned char file[64];
    size_t n = strlen("PF\n1 1\n-1\n");
    memcpy(file, "PF\n1 1\n-1\n", n);
    for (int c = 0; c < 3; ++c, n += 4)
        put_float(file + n, (float)c + 0.25f, 1);
    write_bytes(at("rgb.pfm"), file, n);
    cls_host_image image = read_ok(at("rgb.pfm"));
    assert_int_equal(image.channels, 3);
    for (int c = 0; c < 3; ++c)
        assert_true(((float *)image.pixels)[c] == (float)c + 0.25f);
    image_free(&image);
    /* Written: little-endian (negative scale), bottom row first. */
    image = make_image(2, 3, 1, CLS_PIXEL_F32, 0, 0);
    for (int i = 0; i < 6; ++i)
        ((float *)image.pixels)[i] = (float)i + 0.5f;
    write_ok(at("out.pfm"), &image);
    unsigned char *data = read_bytes(at("out.pfm"), &n);
    assert_int_equal(n, 12 + 24);
    assert_memory_equal(data, "Pf\n2 3\n-1.0\n", 12);
    unsigned char want[4];
    put_float(want, 4.5f, 1); /* row 2, column 0 */
    assert_memory_equal(data + 12, want, 4);
    free(data);
    image_free(&image);
}

/* ---- Tests: errors ---- */

static void missing_and_unreadable(void **state)
{
    (void)state;
    expect_read_error(at("nothing.tif"), IMAGE_ERR_MISSING, "does not exist");
    expect_read_error(at("nothing.pgm"), IMAGE_ERR_MISSING, NULL);
    expect_read_error(at("nothing.pfm"), IMAGE_ERR_MISSING, NULL);
    expect_read_error(at("no-folder/x.ppm"), IMAGE_ERR_MISSING, NULL);
    write_text(at("plain-file"), "x");
    expect_read_error(at("plain-file/x.tif"), IMAGE_ERR_MISSING, NULL);
    assert_int_equal(mkdir(at("folder.tif"), 0700), 0);
    assert_int_equal(mkdir(at("folder.pgm"), 0700), 0);
    expect_read_error(at("folder.tif"), IMAGE_ERR_UNREADABLE, "folder");
    expect_read_error(at("folder.pgm"), IMAGE_ERR_UNREADABLE, "folder");
    /* Empty files are corrupt. */
    write_bytes(at("empty.tif"), "", 0);
    write_bytes(at("empty.pgm"), "", 0);
    write_bytes(at("empty.pfm"), "", 0);
    expect_read_error(at("empty.tif"), IMAGE_ERR_CORRUPT, "empty");
    expect_read_error(at("empty.pgm"), IMAGE_ERR_CORRUPT, "empty");
    expect_read_error(at("empty.pfm"), IMAGE_ERR_CORRUPT, "empty");
    /* Unknown extensions. */
    write_text(at("picture.png"), "P5 1 1 255\n\x01");
    expect_read_error(at("picture.png"), IMAGE_ERR_UNSUPPORTED, "extension");
    write_text(at("noextension"), "P5 1 1 255\n\x01");
    expect_read_error(at("noextension"), IMAGE_ERR_UNSUPPORTED, "extension");
}

static void unreadable_permissions(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root reads a file whatever its mode */
    write_text(at("locked.pgm"), "P5 1 1 255\n\x01");
    assert_int_equal(chmod(at("locked.pgm"), 0), 0);
    expect_read_error(at("locked.pgm"), IMAGE_ERR_UNREADABLE, NULL);
    chmod(at("locked.pgm"), 0600);
}

static void corrupt_pnm(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "XY\n1 1\n255\n\x01",
        "P9\n1 1\n255\n\x01",
        "P5\nabc 2\n255\n\x01\x01",
        "P5\n-3 2\n255\n",
        "P5\n3 0\n255\n",
        "P5\n1 1\n0\n\x01",
        "P5\n1 1\n70000\n\x01\x01",
        "P5\n1 1\n255",
        "P5\n1 1\n255#x\n\x01",
        "P5\n1 1",
        "Pf\n1 1\n0\n\x01\x01\x01\x01",
        "Pf\n1 1\nnan\n\x01\x01\x01\x01",
        "PF\n1 1\n1.0x\n\x01\x01\x01\x01",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.%s", i, bad[i][1] == 'f' || bad[i][1] == 'F' ? "pfm" : "pgm");
        write_text(at(name), bad[i]);
        expect_read_error(at(name), IMAGE_ERR_CORRUPT, NULL);
    }
    /* Truncated pixel data: a valid file cut in half. */
    static const char *const names[] = {"cut.pgm", "cut.ppm", "cut.pfm"};
    static const size_t channels[] = {1, 3, 3};
    for (int i = 0; i < 3; ++i) {
        cls_host_image image = make_image(64, 64, channels[i], i == 2 ? CLS_PIXEL_F32 : CLS_PIXEL_U16, 1, 0);
        write_ok(at(names[i]), &image);
        image_free(&image);
        size_t size;
        unsigned char *data = read_bytes(at(names[i]), &size);
        write_bytes(at(names[i]), data, size / 2);
        free(data);
        expect_read_error(at(names[i]), IMAGE_ERR_CORRUPT, "truncated");
    }
}

static void unsupported_pnm(void **state)
{
    (void)state;
    static const char *const plain[] = {"P1\n1 1\n1\n", "P2\n1 1\n255\n1\n", "P3\n1 1\n255\n1 2 3\n",
                                        "P4\n8 1\n\x01", "P7\nWIDTH 1\n"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "plain%zu.pnm", i);
        write_text(at(name), plain[i]);
        expect_read_error(at(name), IMAGE_ERR_UNSUPPORTED, NULL);
    }
    /* More than 2^31 pixels: refused before any allocation, whatever the file holds. */
    write_text(at("huge.pgm"), "P5\n100000 100000\n255\n\x01");
    expect_read_error(at("huge.pgm"), IMAGE_ERR_UNSUPPORTED, "too large");
    write_text(at("huger.pfm"), "Pf\n99999999999999999999999999 1\n-1\n\x01\x01\x01\x01");
    expect_read_error(at("huger.pfm"), IMAGE_ERR_UNSUPPORTED, "too large");
}

static void corrupt_tiff(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    write_text(at("garbage.tif"), "this is not a TIFF file at all");
    expect_read_error(at("garbage.tif"), IMAGE_ERR_CORRUPT, NULL);
    write_bytes(at("badifd.tif"), "II*\0\x00\xff\xff\xff\0\0\0\0", 12);
    expect_read_error(at("badifd.tif"), IMAGE_ERR_CORRUPT, NULL);
    write_bytes(at("bigendian-garbage.tif"), "MM\0*\0\0\0\x08\xff\xff\0\0", 12);
    expect_read_error(at("bigendian-garbage.tif"), IMAGE_ERR_CORRUPT, NULL);
    /* Valid files cut in half: image_write's (LZW strips) and an uncompressed tiled one. Both
     * lose their directory, which libtiff writes last. */
    cls_host_image image = make_image(64, 64, 3, CLS_PIXEL_U16, 2, 0);
    write_ok(at("cut-lzw.tif"), &image);
    write_tiff_layout(at("cut-tiles.tif"), &image, 1, 0, COMPRESSION_NONE, 0);
    image_free(&image);
    static const char *const names[] = {"cut-lzw.tif", "cut-tiles.tif"};
    for (int i = 0; i < 2; ++i) {
        size_t size;
        unsigned char *data = read_bytes(at(names[i]), &size);
        write_bytes(at(names[i]), data, size / 2);
        free(data);
        expect_read_error(at(names[i]), IMAGE_ERR_CORRUPT, NULL);
    }
    /* A directory ahead of its pixel data, the data cut in half, or absent. */
    unsigned char file[8 + 2 + 9 * 12 + 4 + 4096];
    size_t header = build_tiff_header(file, 64, 64, 4096);
    memset(file + header, 7, 4096);
    write_bytes(at("whole.tif"), file, header + 4096);
    cls_host_image whole = read_ok(at("whole.tif"));
    assert_int_equal(((uint8_t *)whole.pixels)[4095], 7);
    image_free(&whole);
    write_bytes(at("cut-data.tif"), file, header + 2048);
    expect_read_error(at("cut-data.tif"), IMAGE_ERR_CORRUPT, NULL);
    write_bytes(at("no-data.tif"), file, header);
    expect_read_error(at("no-data.tif"), IMAGE_ERR_CORRUPT, NULL);
    /* A corrupt LZW stream. */
    image = make_image(64, 64, 1, CLS_PIXEL_U8, 3, 1);
    write_tiff_layout(at("bad-lzw.tif"), &image, 0, 0, COMPRESSION_LZW, 0);
    image_free(&image);
    size_t size;
    unsigned char *data = read_bytes(at("bad-lzw.tif"), &size);
    for (size_t i = 16; i < size / 2; i += 3)
        data[i] = (unsigned char)(data[i] ^ 0x5a);
    write_bytes(at("bad-lzw.tif"), data, size);
    free(data);
    expect_read_error(at("bad-lzw.tif"), IMAGE_ERR_CORRUPT, NULL);
#endif
}

static void unsupported_tiff(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    static const struct {
        const char *name;
        uint16_t spp, bps, format, photometric, compression;
        const char *keyword;
    } cases[] = {
        {"bilevel.tif", 1, 1, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "1-bit"},
        {"u32.tif", 1, 32, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "32-bit unsigned"},
        {"i32.tif", 1, 32, SAMPLEFORMAT_INT, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "signed"},
        {"i8.tif", 3, 8, SAMPLEFORMAT_INT, PHOTOMETRIC_RGB, COMPRESSION_NONE, "signed"},
        {"f24.tif", 1, 24, SAMPLEFORMAT_IEEEFP, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "24-bit"},
        {"palette.tif", 1, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_PALETTE, COMPRESSION_NONE, "palette"},
        {"cmyk.tif", 4, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_SEPARATED, COMPRESSION_NONE, "CMYK"},
        {"five.tif", 5, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "5 samples"},
        {"gray3.tif", 3, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, COMPRESSION_NONE, "gray"},
        {"white.tif", 1, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISWHITE, COMPRESSION_NONE, "min-is-white"},
        {"jpeg2000.tif", 1, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, 34712, "compression"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        write_tiff_raw(at(cases[i].name), 16, 4, cases[i].spp, cases[i].bps, cases[i].format,
                       cases[i].photometric, cases[i].compression);
        expect_read_error(at(cases[i].name), IMAGE_ERR_UNSUPPORTED, cases[i].keyword);
    }
    /* Sizes past 2^31 pixels, refused before any allocation. */
    unsigned char file[8 + 2 + 9 * 12 + 4 + 16];
    size_t header = build_tiff_header(file, 70000, 70000, 16);
    memset(file + header, 0, 16);
    write_bytes(at("huge.tif"), file, sizeof file);
    expect_read_error(at("huge.tif"), IMAGE_ERR_UNSUPPORTED, "too large");
#endif
}

/* Runs image_write with the file size limited to 4 KiB, so that the write fails midway. */
static int write_limited(const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    struct rlimit old, limit;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    limit = old;
    limit.rlim_cur = 4096;
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
    int status = image_write(path, image, error, error_size);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, previous);
    return status;
}

static void failed_writes_leave_nothing(void **state)
{
    (void)state;
    int hidden;
    char error[512];
    char dir[512];
    snprintf(dir, sizeof dir, "%s", at("w"));
    assert_int_equal(mkdir(dir, 0700), 0);
    cls_host_image small = make_image(16, 16, 1, CLS_PIXEL_U8, 0, 0);
    /* A folder that does not exist. */
    expect_write_error(at("w/no-folder/out.pgm"), &small, IMAGE_ERR_WRITE);
    expect_write_error(at("w/no-folder/out.tif"), &small,
                       image_has_tiff() ? IMAGE_ERR_WRITE : IMAGE_ERR_UNSUPPORTED);
    assert_int_equal(count_entries(dir, &hidden), 0);
    /* The destination is a folder: the temporary file is made, then removed. */
    assert_int_equal(mkdir(at("w/folder.pgm"), 0700), 0);
    expect_write_error(at("w/folder.pgm"), &small, IMAGE_ERR_WRITE);
    assert_int_equal(count_entries(dir, &hidden), 1);
    assert_int_equal(hidden, 0);
    /* Images the format cannot hold, and bad images: refused before any file is made. */
    cls_host_image f32 = make_image(4, 4, 1, CLS_PIXEL_F32, 0, 0);
    cls_host_image two = make_image(4, 4, 2, CLS_PIXEL_U8, 0, 0);
    cls_host_image rgb = make_image(4, 4, 3, CLS_PIXEL_U8, 0, 0);
    expect_write_error(at("w/f32.pgm"), &f32, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/f32.ppm"), &f32, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/rgb.pgm"), &rgb, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/gray.ppm"), &small, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/two.pnm"), &two, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/u8.pfm"), &small, IMAGE_ERR_UNSUPPORTED);
    expect_write_error(at("w/out.png"), &small, IMAGE_ERR_UNSUPPORTED);
    cls_host_image bad = small;
    bad.pixels = NULL;
    expect_write_error(at("w/null.pgm"), &bad, IMAGE_ERR_UNSUPPORTED);
    bad = small;
    bad.channels = 5;
    expect_write_error(at("w/five.tif"), &bad, IMAGE_ERR_UNSUPPORTED);
    bad = small;
    bad.width = 0;
    expect_write_error(at("w/empty.pgm"), &bad, IMAGE_ERR_UNSUPPORTED);
    bad = small;
    bad.width = (size_t)1 << 40;
    expect_write_error(at("w/huge.pgm"), &bad, IMAGE_ERR_UNSUPPORTED);
    assert_int_equal(count_entries(dir, &hidden), 1);
    image_free(&f32);
    image_free(&two);
    image_free(&rgb);
    /* A write that fails midway (file size limit): the old file is intact, no new file, no
     * temporary left. */
    cls_host_image noise = make_image(200, 200, 1, CLS_PIXEL_U8, 0, 1);
    cls_host_image noise_f = make_image(120, 120, 3, CLS_PIXEL_F32, 0, 1);
    static const char *const keep[] = {"w/keep.pgm", "w/keep.pfm", "w/keep.tif"};
    static const char *const fresh[] = {"w/new.pgm", "w/new.pfm", "w/new.tif"};
    for (int i = 0; i < (image_has_tiff() ? 3 : 2); ++i) {
        const cls_host_image *big = i == 1 ? &noise_f : &noise;
        cls_host_image kept = make_image(16, 16, 1, i == 1 ? CLS_PIXEL_F32 : CLS_PIXEL_U8, 5, 0);
        write_ok(at(keep[i]), &kept);
        const char *path = at(keep[i]);
        int status = write_limited(path, big, error, sizeof error);
        if (status != IMAGE_ERR_WRITE || !strstr(error, path))
            print_error("%s: %s\n", path, error);
        assert_int_equal(status, IMAGE_ERR_WRITE);
        assert_non_null(strstr(error, path));
        cls_host_image back = read_ok(path);
        assert_same_image(&kept, &back);
        image_free(&back);
        path = at(fresh[i]);
        assert_int_equal(write_limited(path, big, error, sizeof error), IMAGE_ERR_WRITE);
        assert_non_null(strstr(error, path));
        assert_false(exists(path));
        image_free(&kept);
    }
    assert_int_equal(count_entries(dir, &hidden), image_has_tiff() ? 4 : 3);
    assert_int_equal(hidden, 0);
    image_free(&noise);
    image_free(&noise_f);
    image_free(&small);
}

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

/* libtiff's errors and warnings reach the message, never stderr. */
static int saved_stderr = -1;

#ifdef CLS_WITH_TIFF
static void capture_stderr(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(at("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved_stderr >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
}
#endif

/* Restores stderr and returns how many bytes were printed meanwhile (shown, if any). */
static size_t release_stderr(void)
{
    if (saved_stderr < 0)
        return 0;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    saved_stderr = -1;
    size_t size;
    unsigned char *data = read_bytes(at("stderr.txt"), &size);
    if (size)
        fprintf(stderr, "printed while reading TIFFs:\n%.*s\n", (int)size, (const char *)data);
    free(data);
    unlink(at("stderr.txt"));
    return size;
}

static int teardown_stderr(void **state)
{
    (void)state;
    release_stderr();
    return 0;
}

static void libtiff_is_quiet(void **state)
{
    (void)state;
#ifndef CLS_WITH_TIFF
    skip();
#else
    /* Files that make libtiff complain: bad header, truncated data, a corrupt LZW stream, an
     * unknown tag (a warning only). */
    unsigned char file[8 + 2 + 9 * 12 + 4 + 4096];
    size_t header = build_tiff_header(file, 64, 64, 4096);
    write_bytes(at("q-cut.tif"), file, header + 100);
    write_bytes(at("q-garbage.tif"), "II*\0\x00\xff\xff\xff\0\0\0\0", 12);
    cls_host_image image = make_image(64, 64, 1, CLS_PIXEL_U8, 3, 1);
    write_tiff_layout(at("q-lzw.tif"), &image, 0, 0, COMPRESSION_LZW, 0);
    size_t size;
    unsigned char *data = read_bytes(at("q-lzw.tif"), &size);
    for (size_t i = 16; i < size / 2; i += 3)
        data[i] = (unsigned char)(data[i] ^ 0x5a);
    write_bytes(at("q-lzw.tif"), data, size);
    free(data);
    memset(file + header, 1, 4096);
    file[10 + 12 * 4] = 0x99; /* Photometric (262) -> an unknown tag 409 */
    file[10 + 12 * 4 + 1] = 0x01;
    write_bytes(at("q-warning.tif"), file, header + 4096);
    static const char *const names[] = {"q-cut.tif", "q-garbage.tif", "q-lzw.tif", "q-warning.tif"};
    int status[4];
    char messages[4][512];
    capture_stderr();
    for (int i = 0; i < 4; ++i) {
        cls_host_image out;
        status[i] = image_read(at(names[i]), &out, messages[i], sizeof messages[i]);
        image_free(&out);
    }
    /* The same through image_write's libtiff paths. */
    write_ok(at("q-written.tif"), &image);
    assert_int_equal(release_stderr(), 0);
    for (int i = 0; i < 3; ++i) {
        if (status[i] != IMAGE_ERR_CORRUPT)
            print_error("%s: %s\n", names[i], messages[i]);
        assert_int_equal(status[i], IMAGE_ERR_CORRUPT);
        assert_non_null(strstr(messages[i], names[i]));
        assert_true(strlen(messages[i]) > strlen(at(names[i])) + 10);
    }
    assert_int_equal(status[3], IMAGE_OK); /* a missing photometric is guessed: gray */
    image_free(&image);
#endif
}

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
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(tiff_support_matches_build),
        cmocka_unit_test(tiff_write_round_trips),
        cmocka_unit_test(images_use_the_allocator_set),
        cmocka_unit_test(tiff_f64_read_as_f32),
        cmocka_unit_test(tiff_jpeg_ycbcr),
        cmocka_unit_test(pnm_round_trips),
        cmocka_unit_test(pnm_headers_by_hand),
        cmocka_unit_test(pfm_order_and_endianness),
        cmocka_unit_test(missing_and_unreadable),
        cmocka_unit_test(unreadable_permissions),
        cmocka_unit_test(corrupt_pnm),
        cmocka_unit_test(unsupported_pnm),
        cmocka_unit_test(corrupt_tiff),
        cmocka_unit_test(unsupported_tiff),
        cmocka_unit_test(failed_writes_leave_nothing),
        cmocka_unit_test_teardown(libtiff_is_quiet, teardown_stderr),
        cmocka_unit_test(damaged_files_never_crash),
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
    int failed = _cmocka_run_group_tests("test_image_io", tests, n_fixed + LAYOUT_COUNT, group_setup,
                                         group_teardown);
    free(tests);
    return failed;
}
