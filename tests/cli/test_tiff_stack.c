/* test_tiff_stack.c — `clstencil filter` on multi-page TIFF stacks and TIFF metadata, read back
 * with libtiff: every page of a 3-page u16 stack filtered exactly as that page alone, each page's
 * ImageDescription, resolution, ICC profile, Software and DateTime carried over, each
 * --compression (and the input's compression by default), pages of different sizes refused
 * (exit 6), a truncated last page (exit 5) with no output written, and stacks larger than the
 * memory the run may use filtered in bands of rows to the same pages, and so an image of 16 MiB
 * that fits it; and PGM, PPM and PFM images of that size in bands too (standard input and output
 * included); and a stack's pages as a volume's slices (a volume's operator). Test files are made here with libtiff (and one by hand, its directories before its
 * pixels), the PNM ones by hand.
 * Usage: test_tiff_stack PATH-TO-CLSTENCIL CASE
 *        (CASE: stack, metadata, compression, errors, bands, large, pnm_bands, volume) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

enum { W = 37, H = 23, PAGES = 3, ICC_SIZE = 64 };

static const char *command_path, *test_case;
static char folder[64];

static const char *path_of(const char *name)
{
    static char paths[8][256];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 256, "%s/%s", folder, name);
    return path;
}

/* Runs `clstencil filter ARGUMENTS`; returns its exit status (output in log.txt). */
static int filter(const char *format, ...)
{
    char arguments[1024], command[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(arguments, sizeof arguments, format, args);
    va_end(args);
    snprintf(command, sizeof command, "cd '%s' && '%s' filter %s > log.txt 2>&1", folder, command_path, arguments);
    const int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int logged(const char *text)
{
    char buffer[4096] = {0};
    FILE *f = fopen(path_of("log.txt"), "r");
    if (!f) return 0;
    size_t n = fread(buffer, 1, sizeof buffer - 1, f);
    fclose(f);
    buffer[n] = '\0';
    if (!strstr(buffer, text)) print_error("log: %s\nwanted: %s\n", buffer, text);
    return strstr(buffer, text) != NULL;
}

static int exists(const char *name)
{
    struct stat st;
    return stat(path_of(name), &st) == 0;
}

static uint16_t pixel(int page, int x, int y)
{
    return (uint16_t)(((x * 7919 + y * 104729 + page * 15485863) % 65536) ^ (page * 0x5555));
}

/* Writes pages FIRST..LAST-1 of the test stack (u16, gray) as one file, with per-page tags, in
 * libtiff's open MODE ("w" classic TIFF, "w8" BigTIFF); every page described by DESCRIPTION, or
 * (NULL) by an ImageJ stack's text. */
static void write_described(const char *name, const char *mode, int first, int last, uint16_t compression,
                            int width_of_last, const char *stack_description)
{
    TIFF *tif = TIFFOpen(path_of(name), mode);
    assert_non_null(tif);
    unsigned char icc[ICC_SIZE];
    for (int i = 0; i < ICC_SIZE; ++i) icc[i] = (unsigned char)(i * 13 + 5);
    for (int p = first; p < last; ++p) {
        const int w = p == last - 1 && width_of_last ? width_of_last : W;
        char description[1024];
        snprintf(description, sizeof description, "%s", stack_description ? stack_description : "");
        if (!stack_description)
            snprintf(description, sizeof description, "ImageJ=1.54f\nimages=%d\npage=%d\n", last - first, p);
        assert_true(TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)w));
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)H);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 8);
        TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, description);
        TIFFSetField(tif, TIFFTAG_SOFTWARE, "stack-maker 1.0");
        TIFFSetField(tif, TIFFTAG_DATETIME, "2024:01:02 03:04:05");
        TIFFSetField(tif, TIFFTAG_XRESOLUTION, 2.5f + (float)p);
        TIFFSetField(tif, TIFFTAG_YRESOLUTION, 4.0f);
        TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_CENTIMETER);
        TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)ICC_SIZE, icc);
        uint16_t row[64];
        for (int y = 0; y < H; ++y) {
            for (int x = 0; x < w; ++x) row[x] = pixel(p, x, y);
            assert_int_equal(TIFFWriteScanline(tif, row, (uint32_t)y, 0), 1);
        }
        assert_true(TIFFWriteDirectory(tif));
    }
    TIFFClose(tif);
}

static void write_stack_as(const char *name, const char *mode, int first, int last, uint16_t compression,
                           int width_of_last)
{
    write_described(name, mode, first, last, compression, width_of_last, NULL);
}

static void write_stack(const char *name, int first, int last, uint16_t compression, int width_of_last)
{
    write_stack_as(name, "w", first, last, compression, width_of_last);
}

/* Reads every page of NAME (u16 gray W x H) into PIXELS[page][y][x]; returns the page count. */
static int read_stack(const char *name, uint16_t pixels[][H][W], int max_pages)
{
    TIFF *tif = TIFFOpen(path_of(name), "r");
    assert_non_null(tif);
    int pages = 0;
    do {
        assert_true(pages < max_pages);
        uint32_t w = 0, h = 0;
        uint16_t bps = 0;
        TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
        TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bps);
        assert_int_equal(w, W);
        assert_int_equal(h, H);
        assert_int_equal(bps, 16);
        for (int y = 0; y < H; ++y) assert_int_equal(TIFFReadScanline(tif, pixels[pages][y], (uint32_t)y, 0), 1);
        ++pages;
    } while (TIFFReadDirectory(tif));
    TIFFClose(tif);
    return pages;
}

static uint16_t (*alloc_pages(void))[H][W]
{
    uint16_t (*pages)[H][W] = calloc(PAGES + 1, sizeof *pages);
    assert_non_null(pages);
    return pages;
}

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

/* Whether two files hold the same bytes. */
static int same_files(const char *a, const char *b)
{
    char command[1024];
    snprintf(command, sizeof command, "cmp -s '%s' '%s'", path_of(a), path_of(b));
    return system(command) == 0;
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
             "< gray.pfm > piped.pfm 2> log.txt", folder, command_path);
    assert_int_equal(system(piped), 0);
    assert_true(same_files("one/gray.pfm", "piped.pfm"));
    setenv("CLSTENCIL_MEMORY_MAX", "12M", 1);
    assert_int_equal(filter("gray.pfm limited.pfm --op gaussian:5 --border mirror101 -v"), 0);
    unsetenv("CLSTENCIL_MEMORY_MAX");
    assert_true(logged("bands: "));
    assert_true(same_files("one/gray.pfm", "limited.pfm"));
}

/* An index of an axis of N under mirror (dcba|abcd) or repeat, any distance outside. */
static int folded(int i, int n, int repeat)
{
    if (repeat) return ((i % n) + n) % n;
    const int period = 2 * n;
    int j = ((i % period) + period) % period;
    return j < n ? j : period - 1 - j;
}

/* Checks OUT's volume of DEPTH pages from FIRST, STEP pages apart: the extreme (MAXIMUM, else the
 * minimum) over a cube of REACH around each voxel of IN's same pages, mirrored or repeated. */
static void expect_extremes(uint16_t (*in)[H][W], uint16_t (*out)[H][W], int first, int step, int depth, int reach,
                            int maximum, int repeat, const char *what)
{
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                int best = maximum ? 0 : 65535;
                for (int k = -reach; k <= reach; ++k)
                    for (int j = -reach; j <= reach; ++j)
                        for (int i = -reach; i <= reach; ++i) {
                            const int v = in[first + step * folded(z + k, depth, repeat)][folded(y + j, H, repeat)]
                                            [folded(x + i, W, repeat)];
                            best = maximum ? (v > best ? v : best) : (v < best ? v : best);
                        }
                const int got = out[first + step * z][y][x];
                if (got != best) fail_msg("%s: voxel (%d, %d, %d) is %d, expected %d", what, x, y, z, got, best);
            }
}

/* The minimum over a cube of REACH around each voxel of IN's volume (DEPTH pages from FIRST, STEP
 * apart), mirrored, into the same pages of OUT. */
static void minimum_into(uint16_t (*in)[H][W], uint16_t (*out)[H][W], int first, int step, int depth, int reach)
{
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                int best = 65535;
                for (int k = -reach; k <= reach; ++k)
                    for (int j = -reach; j <= reach; ++j)
                        for (int i = -reach; i <= reach; ++i) {
                            const int v = in[first + step * folded(z + k, depth, 0)][folded(y + j, H, 0)][folded(x + i, W, 0)];
                            best = v < best ? v : best;
                        }
                out[first + step * z][y][x] = (uint16_t)best;
            }
}

/* A volume's operator takes the stack's pages as its slices: the minimum over 3x3x3 (mirror) and
 * the maximum over 5x5x5 (repeat, deeper than the three pages) equal the pages' own, exactly. */
static void test_volume(void **state)
{
    (void)state;
    write_stack("vol.tif", 0, PAGES, COMPRESSION_NONE, 0);
    uint16_t (*in)[H][W] = alloc_pages(), (*out)[H][W] = alloc_pages();
    assert_int_equal(read_stack("vol.tif", in, PAGES), PAGES);
    static const struct { const char *op, *border; int reach, maximum, repeat; } cases[] = {
        {"min3d:3", "mirror", 1, 0, 0}, {"max3d:5", "repeat", 2, 1, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        assert_int_equal(filter("vol.tif vol-out.tif --op %s --border %s", cases[c].op, cases[c].border), 0);
        assert_int_equal(read_stack("vol-out.tif", out, PAGES + 1), PAGES);
        expect_extremes(in, out, 0, 1, PAGES, cases[c].reach, cases[c].maximum, cases[c].repeat, cases[c].op);
    }
    free(in);
    free(out);
}

enum { HYPER_PAGES = 6 };

/* A hyperstack's volumes: an ImageJ hyperstack of 2 channels x 3 slices (channel fastest), OME-TIFFs
 * of 3 slices x 2 channels (XYZCT) and of 2 frames x 3 slices (XYTZC, prefixed elements), each
 * volume filtered alone; descriptions whose axes do not account for the pages refused (exit 6)
 * with no output. */
static void test_hyperstack(void **state)
{
    (void)state;
    static const struct { const char *description, *kind; int volumes[2][2]; } cases[] = {
        {"ImageJ=1.54f\nimages=6\nchannels=2\nslices=3\nhyperstack=true\nmode=composite\nspacing=0.5\n",
         "ImageJ hyperstack", {{0, 2}, {1, 2}}},
        {"<?xml version=\"1.0\"?><OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\"><Image ID=\"Image:0\">"
         "<Pixels ID=\"Pixels:0\" DimensionOrder=\"XYZCT\" Type=\"uint16\" SizeX=\"37\" SizeY=\"23\" SizeZ=\"3\" "
         "SizeC=\"2\" SizeT=\"1\" PhysicalSizeZ=\"2.0\"></Pixels></Image></OME>",
         "OME-TIFF", {{0, 1}, {3, 1}}},
        {"<ome:OME xmlns:ome=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\"><ome:Image ID=\"Image:0\">"
         "<ome:Pixels DimensionOrder=\"XYTZC\" SizeZ=\"3\" SizeC=\"1\" SizeT=\"2\"></ome:Pixels></ome:Image></ome:OME>",
         "OME-TIFF", {{0, 2}, {1, 2}}},
    };
    uint16_t (*in)[H][W] = calloc(HYPER_PAGES, sizeof *in), (*out)[H][W] = calloc(HYPER_PAGES + 1, sizeof *out);
    assert_non_null(in);
    assert_non_null(out);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        write_described("hyper.tif", "w", 0, HYPER_PAGES, COMPRESSION_NONE, 0, cases[c].description);
        assert_int_equal(read_stack("hyper.tif", in, HYPER_PAGES), HYPER_PAGES);
        assert_int_equal(filter("hyper.tif hyper-out.tif --op max3d:3 --border mirror -v"), 0);
        assert_true(logged(cases[c].kind));
        assert_int_equal(read_stack("hyper-out.tif", out, HYPER_PAGES + 1), HYPER_PAGES);
        for (int v = 0; v < 2; ++v)
            expect_extremes(in, out, cases[c].volumes[v][0], cases[c].volumes[v][1], 3, 1, 1, 0, cases[c].kind);
    }
    static const struct { const char *description, *why; } refused[] = {
        {"ImageJ=1.54f\nimages=4\nchannels=2\nslices=2\n", "2 channels x 2 slices x 1 frame, but the file has 6 pages"},
        {"<OME><Image ID=\"Image:0\"><Pixels DimensionOrder=\"XYZCT\" SizeZ=\"4\" SizeC=\"2\" SizeT=\"1\"></Pixels>"
         "</Image></OME>", "SizeZ 4, SizeC 2, SizeT 1"},
        {"<OME><Image ID=\"Image:0\"><Pixels DimensionOrder=\"XYZCT\" SizeZ=\"3\" SizeC=\"1\" SizeT=\"1\"></Pixels>"
         "</Image><Image ID=\"Image:1\"><Pixels DimensionOrder=\"XYZCT\" SizeZ=\"3\" SizeC=\"1\" SizeT=\"1\">"
         "</Pixels></Image></OME>", "several images"},
    };
    for (size_t r = 0; r < sizeof refused / sizeof refused[0]; ++r) {
        write_described("bad.tif", "w", 0, HYPER_PAGES, COMPRESSION_NONE, 0, refused[r].description);
        assert_int_equal(filter("bad.tif bad-out.tif --op max3d:3"), 6);
        assert_true(logged(refused[r].why));
        assert_false(exists("bad-out.tif"));
        assert_int_equal(filter("bad.tif bad-out.tif --op max:3"), 0); /* a 2-D operator: page by page */
        remove(path_of("bad-out.tif"));
    }
    free(in);
    free(out);
}

/* A volume that does not fit the device memory the run may use goes in slabs of slices, each with
 * the slices the mask reaches (wrapped around the ends along a repeat z axis): the same bytes as
 * one piece, for a walk, a rank and passes, plain stacks and a hyperstack's volumes; a budget that
 * not even one slice with its reach fits is exit 7, no output. */
static void test_volume_slabs(void **state)
{
    (void)state;
    write_stack("plain.tif", 0, 6, COMPRESSION_NONE, 0);
    write_described("hyper.tif", "w", 0, 10, COMPRESSION_NONE, 0,
                    "ImageJ=1.54f\nimages=10\nchannels=2\nslices=5\nhyperstack=true\n");
    static const char *ops[] = {"gaussian3d:3", "median3d:3", "gaussian3d:5"};
    static const char *borders[] = {"mirror", "repeat", "clamp,clamp,repeat"};
    /* a slice of 37x23 u16 in and out: 3,404 bytes (a hyperstack's spans two pages: 6,808), and
     * 6,808 more of f32 temporaries for a mask run as passes (5x5x5). 10K and 20K hold three
     * slices of a walk: one output slice a slab; a pass's slices do not fit. */
    static const struct { const char *file, *budget; } stacks[] = {{"plain.tif", "10K"}, {"hyper.tif", "20K"}};
    for (size_t f = 0; f < 2; ++f)
        for (size_t o = 0; o < 3; ++o)
            for (size_t b = 0; b < 3; ++b) {
                assert_int_equal(filter("%s one.tif --op %s --border %s", stacks[f].file, ops[o], borders[b]), 0);
                const int slabbed = o < 2; /* 5x5x5 reaches two slices: a slab of one does not fit */
                assert_int_equal(filter("%s slabs.tif --op %s --border %s --max-device-memory %s -v", stacks[f].file,
                                        ops[o], borders[b], stacks[f].budget),
                                 slabbed ? 0 : 7);
                if (!slabbed) {
                    assert_true(logged("even a slab of one slice"));
                    assert_false(exists("slabs.tif"));
                    continue;
                }
                assert_true(logged(f == 0 ? "slabs:     6 of 1 slices" : "slabs:     5 of 1 slices"));
                if (!same_files("one.tif", "slabs.tif"))
                    fail_msg("%s %s %s: slabs differ from one piece", stacks[f].file, ops[o], borders[b]);
                remove(path_of("slabs.tif"));
            }
}

/* A stack larger than the memory the run may use goes through a volume's operator in slabs read
 * from and written to the files: the same bytes as in memory (a plain stack, a hyperstack's
 * interleaved volumes; repeat wraps around the ends), the description carried; a budget that not
 * even one slice with its reach fits is exit 7, no output. */
static void test_volume_file_slabs(void **state)
{
    (void)state;
    write_stack("plain.tif", 0, 12, COMPRESSION_NONE, 0);
    const char *hyper = "ImageJ=1.54f\nimages=20\nchannels=2\nslices=10\nhyperstack=true\n";
    write_described("hyper.tif", "w", 0, 20, COMPRESSION_LZW, 0, hyper);
    /* a slice: 37x23 u16 in and out, 3,404 bytes (a hyperstack's two pages: 6,808); half the budget
     * holds the slabs' buffers: 30K four slices (two output slices a slab), 45K three (one) */
    static const struct { const char *file, *budget, *slabs; } stacks[] = {{"plain.tif", "30K", "slabs:     6 of 2"},
                                                                          {"hyper.tif", "45K", "slabs:     10 of 1"}};
    static const char *ops[] = {"gaussian3d:3", "median3d:3"};
    static const char *borders[] = {"mirror", "clamp,clamp,repeat"};
    for (size_t f = 0; f < 2; ++f)
        for (size_t o = 0; o < 2; ++o)
            for (size_t b = 0; b < 2; ++b) {
                assert_int_equal(filter("%s one.tif --op %s --border %s", stacks[f].file, ops[o], borders[b]), 0);
                setenv("CLSTENCIL_MEMORY_MAX", stacks[f].budget, 1);
                const int code = filter("%s slabs.tif --op %s --border %s -v", stacks[f].file, ops[o], borders[b]);
                unsetenv("CLSTENCIL_MEMORY_MAX");
                assert_int_equal(code, 0);
                assert_true(logged(stacks[f].slabs));
                assert_true(logged("files:     in slabs"));
                if (!same_files("one.tif", "slabs.tif"))
                    fail_msg("%s %s %s: slabs from the file differ from one piece", stacks[f].file, ops[o], borders[b]);
            }
    TIFF *tif = TIFFOpen(path_of("slabs.tif"), "r");
    assert_non_null(tif);
    const char *description = NULL;
    assert_true(TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description));
    assert_string_equal(description, hyper);
    TIFFClose(tif);
    remove(path_of("slabs.tif"));
    setenv("CLSTENCIL_MEMORY_MAX", "12K", 1);
    const int code = filter("plain.tif slabs.tif --op gaussian3d:3");
    unsetenv("CLSTENCIL_MEMORY_MAX");
    assert_int_equal(code, 7);
    assert_true(logged("even a slab of one slice"));
    assert_false(exists("slabs.tif"));
}

/* A MetaImage volume (the test stack's voxels) through a volume's operator into an NRRD: the same
 * voxels as the TIFF stack's run, little-endian after the header's empty line. */
static void test_volume_files(void **state)
{
    (void)state;
    write_stack("vol.tif", 0, PAGES, COMPRESSION_NONE, 0);
    FILE *mha = fopen(path_of("vol.mha"), "wb");
    assert_non_null(mha);
    fprintf(mha, "NDims = 3\nDimSize = %d %d %d\nElementSpacing = 0.5 0.5 2\nElementType = MET_USHORT\n"
                 "ElementDataFile = LOCAL\n", W, H, PAGES);
    for (int p = 0; p < PAGES; ++p)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const uint16_t v = pixel(p, x, y);
                assert_int_equal(fwrite(&v, 2, 1, mha), 1);
            }
    fclose(mha);
    assert_int_equal(filter("vol.tif vol-out.tif --op max3d:3 --border mirror"), 0);
    assert_int_equal(filter("vol.mha vol-out.nrrd --op max3d:3 --border mirror"), 0);
    uint16_t (*want)[H][W] = alloc_pages();
    assert_int_equal(read_stack("vol-out.tif", want, PAGES), PAGES);
    FILE *nrrd = fopen(path_of("vol-out.nrrd"), "rb");
    assert_non_null(nrrd);
    char line[256];
    while (fgets(line, sizeof line, nrrd) && strcmp(line, "\n") != 0)
        if (strncmp(line, "sizes:", 6) == 0) assert_string_equal(line, "sizes: 37 23 3\n");
    uint16_t (*got)[H][W] = alloc_pages();
    assert_int_equal(fread(got, sizeof *got, PAGES, nrrd), PAGES);
    assert_int_equal(fgetc(nrrd), EOF);
    fclose(nrrd);
    assert_memory_equal(got, want, PAGES * sizeof *want);
    free(want);
    free(got);
}

/* Volumes' operators one after another: an opening (--op min3d:3 --op max3d:3) of a plain stack
 * and of a hyperstack's volumes equals the maximum of the minimum, and in slabs on the device
 * the same bytes. */
static void test_volume_chain(void **state)
{
    (void)state;
    write_stack("plain.tif", 0, 6, COMPRESSION_NONE, 0);
    write_described("hyper.tif", "w", 0, 10, COMPRESSION_NONE, 0,
                    "ImageJ=1.54f\nimages=10\nchannels=2\nslices=5\nhyperstack=true\n");
    static const struct { const char *file; int pages, volumes, step; } stacks[] = {{"plain.tif", 6, 1, 1},
                                                                                   {"hyper.tif", 10, 2, 2}};
    uint16_t (*in)[H][W] = calloc(10, sizeof *in), (*mid)[H][W] = calloc(10, sizeof *mid),
             (*out)[H][W] = calloc(11, sizeof *out);
    assert_true(in && mid && out);
    for (size_t f = 0; f < 2; ++f) {
        assert_int_equal(read_stack(stacks[f].file, in, stacks[f].pages), stacks[f].pages);
        assert_int_equal(filter("%s open.tif --op min3d:3 --op max3d:3 --border mirror -v", stacks[f].file), 0);
        assert_true(logged("a pipeline of volumes' operators"));
        assert_int_equal(read_stack("open.tif", out, stacks[f].pages + 1), stacks[f].pages);
        const int depth = stacks[f].pages / stacks[f].volumes;
        for (int v = 0; v < stacks[f].volumes; ++v) {
            minimum_into(in, mid, v, stacks[f].step, depth, 1);
            expect_extremes(mid, out, v, stacks[f].step, depth, 1, 1, 0, stacks[f].file);
        }
        if (f) continue; /* five slices: a slab of one with two on each side is the whole volume */
        /* two stages reach two slices each way; a slice holds its input, its output and the f32
         * image between the stages, 6,808 bytes: 35K hold five, one output slice a slab */
        assert_int_equal(filter("%s slabs.tif --op min3d:3 --op max3d:3 --border mirror --max-device-memory 35K -v",
                                stacks[f].file), 0);
        assert_true(logged("slabs:     6 of 1 slices, each with the 2 slices"));
        assert_true(same_files("open.tif", "slabs.tif"));
    }
    free(in), free(mid), free(out);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_tiff_stack PATH-TO-CLSTENCIL CASE\n");
        return 2;
    }
    command_path = argv[1];
    test_case = argv[2];
    TIFFSetWarningHandler(NULL);
    snprintf(folder, sizeof folder, "/tmp/cls-tiff-stack-XXXXXX");
    if (!mkdtemp(folder)) return 2;
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_stack), cmocka_unit_test(test_metadata), cmocka_unit_test(test_compression),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_bands), cmocka_unit_test(test_large),
        cmocka_unit_test(test_pnm_bands), cmocka_unit_test(test_volume), cmocka_unit_test(test_hyperstack),
        cmocka_unit_test(test_volume_slabs), cmocka_unit_test(test_volume_file_slabs),
        cmocka_unit_test(test_volume_files), cmocka_unit_test(test_volume_chain)};
    const char *names[] = {"stack",     "metadata", "compression", "errors",    "bands",
                           "large",     "pnm_bands", "volume",     "hyperstack", "volume_slabs",
                           "volume_file_slabs", "volume_files",
                           "volume_chain"};
    int result = 2;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (strcmp(test_case, names[i]) == 0) result = _cmocka_run_group_tests(names[i], &all[i], 1, NULL, NULL);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "cannot remove %s\n", folder);
    return result;
}
