/* test_tiff_stack.c — `clstencil filter` on multi-page TIFF stacks and TIFF metadata, read back
 * with libtiff: every page of a 3-page u16 stack filtered exactly as that page alone, each page's
 * ImageDescription, resolution, ICC profile, Software and DateTime carried over (tifffile's shape
 * of separate planes as the interleaved samples written), each
 * --compression (and the input's compression by default), pages of different sizes refused
 * (exit 6), a truncated last page (exit 5) with no output written, and stacks larger than the
 * memory the run may use filtered in bands of rows to the same pages, and so an image of 16 MiB
 * that fits it; and PGM, PPM and PFM images of that size in bands too (standard input and output
 * included. Test files are made here with libtiff (and one by hand, its directories before its
 * pixels), the PNM ones by hand (volumes: test_tiff_volume.c).
 * Usage: test_tiff_stack PATH-TO-CLSTENCIL CASE
 *        (CASE: stack, metadata, compression, errors, bands, large, pnm_bands) */
#include "tiff_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>

/* Every page of the stack is filtered, and equals that page filtered alone; the same stack as a
 * BigTIFF gives the same pages. */
static void test_stack(void **state)
{
    (void)state;
    write_stack("stack.tif", 0, PAGES, COMPRESSION_LZW, 0);
    assert_int_equal(filter("stack.tif out.tif --op gaussian:5 --border mirror"), 0);
    uint16_t (*in)[H][W] = alloc_pages(), (*out)[H][W] = alloc_pages(), (*alone)[H][W] = alloc_pages();
    assert_int_equal(read_stack("stack.tif", in, PAGES), PAGES);
    assert_int_equal(read_stack("out.tif", out, PAGES + 1), PAGES);
    for (int p = 0; p < PAGES; ++p) {
        char name[32];
        snprintf(name, sizeof name, "page%d.tif", p);
        write_stack(name, p, p + 1, COMPRESSION_NONE, 0);
        assert_int_equal(filter("%s alone.tif --op gaussian:5 --border mirror", name), 0);
        assert_int_equal(read_stack("alone.tif", alone, 1), 1);
        assert_memory_equal(out[p], alone[0], sizeof alone[0]);
        assert_memory_not_equal(out[p], in[p], sizeof in[p]); /* filtered, not copied */
    }
    write_stack_as("big.tif", "w8", 0, PAGES, COMPRESSION_LZW, 0);
    assert_int_equal(filter("big.tif big-out.tif --op gaussian:5 --border mirror"), 0);
    assert_int_equal(read_stack("big-out.tif", alone, PAGES + 1), PAGES);
    assert_memory_equal(alone, out, PAGES * sizeof out[0]);
    free(in);
    free(out);
    free(alone);
}

/* Each page's tags come back as they went in. */
static void test_metadata(void **state)
{
    (void)state;
    write_stack("meta.tif", 0, PAGES, COMPRESSION_NONE, 0);
    assert_int_equal(filter("meta.tif out.tif --op box:3 --type f32"), 0);
    TIFF *tif = TIFFOpen(path_of("out.tif"), "r");
    assert_non_null(tif);
    int p = 0;
    do {
        char want[64];
        snprintf(want, sizeof want, "ImageJ=1.54f\nimages=%d\npage=%d\n", PAGES, p);
        const char *text = NULL;
        assert_true(TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &text));
        assert_string_equal(text, want);
        assert_true(TIFFGetField(tif, TIFFTAG_SOFTWARE, &text));
        assert_string_equal(text, "stack-maker 1.0");
        assert_true(TIFFGetField(tif, TIFFTAG_DATETIME, &text));
        assert_string_equal(text, "2024:01:02 03:04:05");
        float x = 0, y = 0;
        uint16_t unit = 0, format = 0;
        assert_true(TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y));
        assert_true(x == 2.5f + (float)p && y == 4.0f);
        assert_true(TIFFGetField(tif, TIFFTAG_RESOLUTIONUNIT, &unit));
        assert_int_equal(unit, RESUNIT_CENTIMETER);
        assert_true(TIFFGetField(tif, TIFFTAG_SAMPLEFORMAT, &format));
        assert_int_equal(format, SAMPLEFORMAT_IEEEFP);
        uint32_t size = 0;
        const unsigned char *icc = NULL;
        assert_true(TIFFGetField(tif, TIFFTAG_ICCPROFILE, &size, &icc));
        assert_int_equal(size, ICC_SIZE);
        for (int i = 0; i < ICC_SIZE; ++i) assert_int_equal(icc[i], (unsigned char)(i * 13 + 5));
        ++p;
    } while (TIFFReadDirectory(tif));
    TIFFClose(tif);
    assert_int_equal(p, PAGES);
    /* tifffile's description of a page of separate planes, [C, H, W], follows the interleaved
     * samples written: [H, W, C], for tifffile to read the output as it is */
    tif = TIFFOpen(path_of("planes.tif"), "w");
    assert_non_null(tif);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 5);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 4);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_SEPARATE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 4);
    TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, "{\"shape\": [3, 4, 5], \"note\": \"kept\"}");
    unsigned char plane[20];
    for (int c = 0; c < 3; ++c) {
        memset(plane, 40 * c + 1, sizeof plane);
        assert_true(TIFFWriteEncodedStrip(tif, (uint32_t)c, plane, sizeof plane) == (tmsize_t)sizeof plane);
    }
    TIFFClose(tif);
    assert_int_equal(filter("planes.tif planes-out.tif --op box:3"), 0);
    tif = TIFFOpen(path_of("planes-out.tif"), "r");
    assert_non_null(tif);
    const char *text = NULL;
    assert_true(TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &text));
    assert_string_equal(text, "{\"shape\":[4,5,3],\"note\":\"kept\"}");
    TIFFClose(tif);
}

static void expect_compression(const char *name, uint16_t compression, uint16_t predictor)
{
    TIFF *tif = TIFFOpen(path_of(name), "r");
    assert_non_null(tif);
    uint16_t got = 0, got_predictor = PREDICTOR_NONE;
    TIFFGetField(tif, TIFFTAG_COMPRESSION, &got);
    if (got != COMPRESSION_NONE) TIFFGetFieldDefaulted(tif, TIFFTAG_PREDICTOR, &got_predictor);
    TIFFClose(tif);
    assert_int_equal(got, compression);
    assert_int_equal(got_predictor, predictor);
}

/* Each --compression gives the same pixels; the default keeps the input's. */
static void test_compression(void **state)
{
    (void)state;
    static const struct { const char *name; uint16_t code; } codecs[] = {
        {"none", COMPRESSION_NONE}, {"lzw", COMPRESSION_LZW},
        {"deflate", COMPRESSION_ADOBE_DEFLATE}, {"zstd", COMPRESSION_ZSTD}};
    write_stack("c.tif", 0, PAGES, COMPRESSION_NONE, 0);
    assert_int_equal(filter("c.tif ref.tif --op box:3 --compression none"), 0);
    uint16_t (*want)[H][W] = alloc_pages(), (*got)[H][W] = alloc_pages();
    assert_int_equal(read_stack("ref.tif", want, PAGES), PAGES);
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; ++i) {
        if (!TIFFIsCODECConfigured(codecs[i].code)) {
            assert_int_equal(filter("c.tif x.tif --op box:3 --compression %s", codecs[i].name), 1);
            continue;
        }
        assert_int_equal(filter("c.tif x.tif --op box:3 --compression %s", codecs[i].name), 0);
        expect_compression("x.tif", codecs[i].code, codecs[i].code == COMPRESSION_NONE ? PREDICTOR_NONE
                                                                                        : PREDICTOR_HORIZONTAL);
        assert_int_equal(read_stack("x.tif", got, PAGES), PAGES);
        assert_memory_equal(got, want, PAGES * sizeof got[0]);
        /* f32 with the floating-point predictor reads back as written uncompressed. */
        if (codecs[i].code != COMPRESSION_NONE) {
            assert_int_equal(filter("c.tif f.tif --op box:3 --type f32 --compression %s", codecs[i].name), 0);
            expect_compression("f.tif", codecs[i].code, PREDICTOR_FLOATINGPOINT);
            assert_int_equal(filter("f.tif f16.tif --op convolve:1x1,1 --type u16 --compression none"), 0);
            assert_int_equal(read_stack("f16.tif", got, PAGES), PAGES);
            assert_memory_equal(got, want, PAGES * sizeof got[0]);
        }
    }
    /* Default: the input's compression (uncompressed and deflate here), LZW for a PGM. */
    expect_compression("ref.tif", COMPRESSION_NONE, PREDICTOR_NONE);
    assert_int_equal(filter("ref.tif same.tif --op box:1"), 0);
    expect_compression("same.tif", COMPRESSION_NONE, PREDICTOR_NONE);
    write_stack("d.tif", 0, 1, COMPRESSION_ADOBE_DEFLATE, 0);
    assert_int_equal(filter("d.tif dd.tif --op box:3"), 0);
    expect_compression("dd.tif", COMPRESSION_ADOBE_DEFLATE, PREDICTOR_HORIZONTAL);
    FILE *f = fopen(path_of("g.pgm"), "wb");
    assert_non_null(f);
    fprintf(f, "P5\n4 4\n255\n");
    for (int i = 0; i < 16; ++i) fputc(i * 9, f);
    fclose(f);
    assert_int_equal(filter("g.pgm g.tif --op box:3"), 0);
    expect_compression("g.tif", COMPRESSION_LZW, PREDICTOR_HORIZONTAL);
    assert_int_equal(filter("c.tif x.tif --op box:3 --compression jpeg"), 1);
    assert_true(logged("--compression wants none, lzw, deflate or zstd"));
    free(want);
    free(got);
}

static void put16(FILE *f, unsigned v) { fputc((int)(v & 255), f); fputc((int)(v >> 8), f); }
static void put32(FILE *f, uint32_t v) { put16(f, v & 0xffff); put16(f, v >> 16); }
static void entry(FILE *f, unsigned tag, unsigned type, uint32_t value)
{
    put16(f, tag);
    put16(f, type);
    put32(f, 1);
    if (type == 3) {
        put16(f, value);
        put16(f, 0);
    } else {
        put32(f, value);
    }
}

/* A 3-page 8-bit W x H stack, uncompressed, its directories first and its pixels last (as
 * tifffile writes): cutting the file short cuts the last page's pixels only. */
static void write_directories_first(const char *name)
{
    FILE *f = fopen(path_of(name), "wb");
    assert_non_null(f);
    const uint32_t ifd_size = 2 + 9 * 12 + 4, data = 8 + PAGES * ifd_size;
    fputs("II", f);
    put16(f, 42);
    put32(f, 8);
    for (int p = 0; p < PAGES; ++p) {
        put16(f, 9);
        entry(f, 256, 3, W);
        entry(f, 257, 3, H);
        entry(f, 258, 3, 8);
        entry(f, 259, 3, 1);
        entry(f, 262, 3, 1);
        entry(f, 273, 4, data + (uint32_t)(p * W * H));
        entry(f, 277, 3, 1);
        entry(f, 278, 4, H);
        entry(f, 279, 4, W * H);
        put32(f, p + 1 < PAGES ? 8 + (uint32_t)(p + 1) * ifd_size : 0);
    }
    for (int i = 0; i < PAGES * W * H; ++i) fputc(i % 251, f);
    fclose(f);
}

static void truncate_to(const char *name, const char *to, long cut)
{
    char command[1024];
    struct stat st;
    assert_int_equal(stat(path_of(name), &st), 0);
    snprintf(command, sizeof command, "head -c %ld '%s' > '%s'", (long)st.st_size - cut, path_of(name), path_of(to));
    assert_int_equal(system(command), 0);
}

/* Refusals: pages of different sizes (6), an ImageJ stack with fewer pages than images (6), a
 * truncated last page (5), a stack into a PGM (1); no output file in any case. */
static void test_errors(void **state)
{
    (void)state;
    write_stack("mixed.tif", 0, PAGES, COMPRESSION_LZW, W - 2);
    assert_int_equal(filter("mixed.tif out.tif --op box:3"), 6);
    assert_true(logged("page 3 of 3 is 35 x 23"));
    assert_false(exists("out.tif"));

    write_stack("hidden.tif", 0, 1, COMPRESSION_NONE, 0);
    TIFF *tif = TIFFOpen(path_of("hidden.tif"), "r+");
    assert_non_null(tif);
    TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, "ImageJ=1.54f\nimages=5\n");
    assert_true(TIFFRewriteDirectory(tif));
    TIFFClose(tif);
    assert_int_equal(filter("hidden.tif out.tif --op box:3"), 6);
    assert_true(logged("an ImageJ stack of 5 images stored as 1 page"));
    assert_false(exists("out.tif"));

    write_directories_first("first.tif");
    assert_int_equal(filter("first.tif ok.tif --op box:3"), 0); /* the file as made reads */
    truncate_to("first.tif", "cut1.tif", W * H / 2);                /* half of page 3's pixels */
    assert_int_equal(filter("cut1.tif out.tif --op box:3"), 5);
    assert_true(logged("cut1.tif: cannot decode strip"));
    assert_true(logged("(page 3 of 3)"));
    assert_false(exists("out.tif"));

    write_stack("stack.tif", 0, PAGES, COMPRESSION_NONE, 0);   /* libtiff: each page's pixels, then its directory */
    truncate_to("stack.tif", "cut2.tif", 300);
    assert_int_equal(filter("cut2.tif out.tif --op box:3"), 5);
    assert_true(logged("cut2.tif: damaged list of pages"));
    assert_false(exists("out.tif"));

    assert_int_equal(filter("stack.tif out.pgm --op box:3"), 1);
    assert_true(logged("a stack of 3 pages"));
    assert_false(exists("out.pgm"));
}

/* The test stack's pixels again, in 16 x 16 tiles. */
static void write_tiled(const char *name)
{
    TIFF *tif = TIFFOpen(path_of(name), "w");
    assert_non_null(tif);
    for (int p = 0; p < PAGES; ++p) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)W);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)H);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, 16);
        uint16_t tile[16 * 16];
        for (int ty = 0; ty < H; ty += 16)
            for (int tx = 0; tx < W; tx += 16) {
                for (int i = 0; i < 16 * 16; ++i) tile[i] = pixel(p, tx + i % 16, ty + i / 16);
                assert_true(TIFFWriteTile(tif, tile, (uint32_t)tx, (uint32_t)ty, 0, 0) > 0);
            }
        assert_true(TIFFWriteDirectory(tif));
    }
    TIFFClose(tif);
}

/* NAME filtered with ARGUMENTS in one piece and, under a memory cap below the stack's need, in
 * bands: the same pages. */
static void expect_bands_same(const char *name, const char *arguments)
{
    uint16_t (*whole)[H][W] = alloc_pages(), (*bands)[H][W] = alloc_pages();
    assert_int_equal(filter("%s whole.tif %s", name, arguments), 0);
    setenv("CLSTENCIL_MEMORY_MAX", "9K", 1); /* the stack needs 10 KiB for itself and the output */
    const int code = filter("%s bands.tif %s -v", name, arguments);
    unsetenv("CLSTENCIL_MEMORY_MAX");
    assert_int_equal(code, 0);
    assert_true(logged("bands: "));
    assert_int_equal(read_stack("whole.tif", whole, PAGES), PAGES);
    assert_int_equal(read_stack("bands.tif", bands, PAGES + 1), PAGES);
    if (memcmp(whole, bands, PAGES * sizeof whole[0]) != 0) fail_msg("%s %s: the bands differ", name, arguments);
    free(whole);
    free(bands);
}

/* A stack larger than the memory the run may use goes a band of rows at a time: the same pages
 * as in one piece in every border mode, from strips and from tiles, the tags carried; a truncated
 * last page (5) and a cap below one band (7) write nothing. */
static void test_bands(void **state)
{
    (void)state;
    write_stack("s.tif", 0, PAGES, COMPRESSION_LZW, 0);
    write_tiled("t.tif");
    /* two stages in every border mode (the first run builds tiered, the bands' default without
     * the suite's CLSTENCIL_BUILD_GOAL: quick kernels, then the specialized ones), the tiles and the
     * other operators in two; the last case's tags are checked below */
    static const struct { const char *file, *ops, *border; } cases[] = {
        {"s.tif", "--op gaussian:3 --op box:3", "clamp --build tiered"},
        {"s.tif", "--op gaussian:3 --op box:3", "mirror --build first-result"},
        {"s.tif", "--op gaussian:3 --op box:3", "mirror101 --build first-result"},
        {"s.tif", "--op gaussian:3 --op box:3", "repeat --build first-result"},
        {"s.tif", "--op gaussian:3 --op box:3", "constant --value 9000 --build first-result"},
        {"t.tif", "--op gaussian:3 --op box:3", "clamp --build first-result"},
        {"t.tif", "--op gaussian:3 --op box:3", "repeat --build first-result"},
        {"s.tif", "--op opening:3,disk", "clamp --build first-result"},
        {"s.tif", "--op opening:3,disk", "repeat --build first-result"},
        {"s.tif", "--op median:3", "clamp --build first-result"},
        {"s.tif", "--op median:3", "repeat --build first-result"},
        {"s.tif", "--op median:3", "undefined --build first-result"},
    };
    char arguments[256];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        snprintf(arguments, sizeof arguments, "%s --border %s", cases[c].ops, cases[c].border);
        expect_bands_same(cases[c].file, arguments);
    }
    TIFF *tif = TIFFOpen(path_of("bands.tif"), "r");
    assert_non_null(tif);
    const char *text = NULL;
    assert_true(TIFFSetDirectory(tif, 2) && TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &text));
    assert_string_equal(text, "ImageJ=1.54f\nimages=3\npage=2\n");
    TIFFClose(tif);

    write_directories_first("first.tif");
    truncate_to("first.tif", "cut.tif", W * H / 2);
    setenv("CLSTENCIL_MEMORY_MAX", "9K", 1);
    assert_int_equal(filter("cut.tif out.tif --op box:3"), 5);
    assert_true(logged("cut.tif: cannot decode strip"));
    assert_false(exists("out.tif"));
    setenv("CLSTENCIL_MEMORY_MAX", "2K", 1);
    assert_int_equal(filter("s.tif out.tif --op box:5"), 7);
    assert_true(logged("even a band of one row of the image, with the 2 rows above and below it"));
    assert_false(exists("out.tif"));
    unsetenv("CLSTENCIL_MEMORY_MAX");
}

/* An f32 image of SIDE x SIDE pixels: pixel (x, y) a function of both. */
static void write_large(const char *name, uint32_t side)
{
    TIFF *tif = TIFFOpen(path_of(name), "w");
    assert_non_null(tif);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, side);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, side);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 32);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
    float *row = malloc(side * sizeof *row);
    assert_non_null(row);
    for (uint32_t y = 0; y < side; ++y) {
        for (uint32_t x = 0; x < side; ++x) row[x] = (float)((x * 7 + y * 13) % 101) / 101.0f;
        assert_int_equal(TIFFWriteScanline(tif, row, y, 0), 1);
    }
    free(row);
    TIFFClose(tif);
}

/* An image of 16 MiB of pixels or more that fits the memory goes through the bands all the same (its
 * reading, filtering and writing overlap): the same pixels as the run in one piece into a PFM (a
 * batch, which never goes in bands). */
static void test_large(void **state)
{
    (void)state;
    enum { SIDE = 2048 }; /* 16 MiB of f32 */
    write_large("large.tif", SIDE);
    assert_int_equal(mkdir(path_of("whole"), 0700), 0);
    assert_int_equal(filter("large.tif -o whole --format pfm --op gaussian:5 --border mirror"), 0);
    assert_int_equal(rename(path_of("whole/large.pfm"), path_of("whole.pfm")), 0);
    assert_int_equal(filter("large.tif bands.tif --op gaussian:5 --border mirror -v"), 0);
    assert_true(logged("bands: "));
    FILE *pfm = fopen(path_of("whole.pfm"), "rb");
    assert_non_null(pfm);
    char header[32];
    assert_non_null(fgets(header, sizeof header, pfm)); /* Pf */
    assert_non_null(fgets(header, sizeof header, pfm)); /* size */
    assert_non_null(fgets(header, sizeof header, pfm)); /* scale: little-endian */
    float *whole = malloc((size_t)SIDE * SIDE * sizeof *whole), *row = malloc(SIDE * sizeof *row);
    assert_true(whole && row);
    assert_int_equal(fread(whole, sizeof *whole, (size_t)SIDE * SIDE, pfm), (size_t)SIDE * SIDE);
    fclose(pfm);
    TIFF *tif = TIFFOpen(path_of("bands.tif"), "r");
    assert_non_null(tif);
    for (uint32_t y = 0; y < SIDE; ++y) { /* a PFM's rows go bottom to top */
        assert_int_equal(TIFFReadScanline(tif, row, y, 0), 1);
        if (memcmp(row, whole + (size_t)(SIDE - 1 - y) * SIDE, SIDE * sizeof *row) != 0)
            fail_msg("row %u differs from the run in one piece", (unsigned)y);
    }
    TIFFClose(tif);
    free(whole);
    free(row);
}


/* A PGM/PPM/PFM file of W x H pixels of CHANNELS, its samples a function of place and channel. */
static void write_pnm(const char *name, const char *magic, size_t w, size_t h, int channels, int bytes)
{
    FILE *f = fopen(path_of(name), "wb");
    assert_non_null(f);
    fprintf(f, "%s\n%zu %zu\n%s\n", magic, w, h, bytes == 4 ? "-1.0" : bytes == 2 ? "65535" : "255");
    unsigned char *row = malloc(w * (size_t)channels * (size_t)bytes);
    assert_non_null(row);
    for (size_t y = 0; y < h; ++y) {
        for (size_t s = 0; s < w * (size_t)channels; ++s) {
            const unsigned v = (unsigned)((s * 7 + y * 13) % 1009);
            if (bytes == 4) {
                const float value = (float)v / 1009.0f;
                memcpy(row + 4 * s, &value, 4); /* little-endian hosts: the -1.0 scale's order */
            } else if (bytes == 2) {
                row[2 * s] = (unsigned char)(v * 61 >> 8), row[2 * s + 1] = (unsigned char)(v * 61);
            } else {
                row[s] = (unsigned char)v;
            }
        }
        assert_int_equal(fwrite(row, 1, w * (size_t)channels * (size_t)bytes, f), w * (size_t)channels * (size_t)bytes);
    }
    free(row);
    assert_int_equal(fclose(f), 0);
}

/* PGM, PPM and PFM images of 16 MiB or more go through the bands too (PFM's rows bottom to top),
 * and so through standard input and output and under a memory limit: the same bytes as the run in
 * one piece (a batch). */
static void test_pnm_bands(void **state)
{
    (void)state;
    static const struct { const char *name, *magic; size_t w, h; int channels, bytes; } images[] = {
        {"gray.pfm", "Pf", 2400, 1800, 1, 4}, {"rgb.pfm", "PF", 1500, 1000, 3, 4},
        {"rgb16.ppm", "P6", 1700, 1700, 3, 2}, {"gray8.pgm", "P5", 4200, 4100, 1, 1}};
    assert_int_equal(mkdir(path_of("one"), 0700), 0);
    for (size_t i = 0; i < sizeof images / sizeof images[0]; ++i) {
        const char *name = images[i].name;
        write_pnm(name, images[i].magic, images[i].w, images[i].h, images[i].channels, images[i].bytes);
        assert_int_equal(filter("%s -o one --op gaussian:5 --border mirror101", name), 0);
        char one[64], bands[64];
        snprintf(one, sizeof one, "one/%s", name);
        snprintf(bands, sizeof bands, "bands-%s", name);
        assert_int_equal(filter("%s %s --op gaussian:5 --border mirror101 -v", name, bands), 0);
        assert_true(logged("bands: "));
        if (!same_files(one, bands)) fail_msg("%s: the bands differ from the run in one piece", name);
    }
    /* into a TIFF: the same pixels, and --compression holds though a PFM has no tags */
    assert_int_equal(filter("gray.pfm bands.tif --op gaussian:5 --border mirror101 --compression none -v"), 0);
    assert_true(logged("bands: "));
    TIFF *tif = TIFFOpen(path_of("bands.tif"), "r");
    assert_non_null(tif);
    uint16_t compression = 0;
    assert_true(TIFFGetField(tif, TIFFTAG_COMPRESSION, &compression));
    assert_int_equal(compression, COMPRESSION_NONE);
    TIFFClose(tif);
    assert_int_equal(filter("bands.tif back.pfm --op box:1"), 0);
    assert_true(same_files("one/gray.pfm", "back.pfm"));
    /* through standard input and output, and under a memory limit of a few bands */
    char piped[1024];
    snprintf(piped, sizeof piped, "cd '%s' && '%s' filter - - --format pfm --op gaussian:5 --border mirror101 "
             "< gray.pfm > piped.pfm 2> log.txt", fixture_folder(), fixture_command());
    assert_int_equal(system(piped), 0);
    assert_true(same_files("one/gray.pfm", "piped.pfm"));
    setenv("CLSTENCIL_MEMORY_MAX", "12M", 1);
    assert_int_equal(filter("gray.pfm limited.pfm --op gaussian:5 --border mirror101 -v"), 0);
    unsetenv("CLSTENCIL_MEMORY_MAX");
    assert_true(logged("bands: "));
    assert_true(same_files("one/gray.pfm", "limited.pfm"));
}










int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_stack), cmocka_unit_test(test_metadata), cmocka_unit_test(test_compression),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_bands), cmocka_unit_test(test_large),
        cmocka_unit_test(test_pnm_bands)};
    static const char *const names[] = {"stack", "metadata", "compression", "errors", "bands", "large", "pnm_bands"};
    return tiff_cases_run(argc, argv, all, names, sizeof all / sizeof all[0]);
}
