/* test_image_io_errors.c — the errors of the clstencil command's image I/O: each error class of
 * image_read (missing, unreadable, corrupt, unsupported) on PGM/PPM/PFM and TIFF files, its
 * message naming the file; failed writes (no folder, a folder in the way, an image the format
 * cannot hold, a write cut short by the file size limit), which leave no partial output and no
 * temporary file and keep an older file intact; and libtiff's errors and warnings, which reach the
 * message, never stderr. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io_fixture.h"

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

/* ---- TIFF files written with libtiff directly ---- */

#ifdef CLS_WITH_TIFF

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
    /* Bytes after the pixel data: a final newline is read, anything else refused. */
    write_text(at("newline.pgm"), "P5\n1 1\n255\n\x01\n");
    cls_host_image one = read_ok(at("newline.pgm"));
    image_free(&one);
    write_text(at("after.pgm"), "P5\n1 1\n255\n\x01junk");
    expect_read_error(at("after.pgm"), IMAGE_ERR_CORRUPT, "4 bytes after the pixel data");
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
    /* A Netpbm stream of two images: the second is not dropped unsaid. */
    write_text(at("two.pgm"), "P5\n1 1\n255\n\x01P5\n1 1\n255\n\x02");
    expect_read_error(at("two.pgm"), IMAGE_ERR_UNSUPPORTED, "a second image follows the first");
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
    /* A PackBits strip whose runs decode past it: libtiff discards the rest with a warning. */
    image = make_image(64, 64, 1, CLS_PIXEL_U8, 3, 1);
    write_tiff_layout(at("bad-packbits.tif"), &image, 0, 0, COMPRESSION_PACKBITS, 0);
    image_free(&image);
    TIFF *tif = TIFFOpen(at("bad-packbits.tif"), "r");
    assert_non_null(tif);
    uint64_t *offsets = NULL, *counts = NULL;
    assert_true(TIFFGetField(tif, TIFFTAG_STRIPOFFSETS, &offsets) && TIFFGetField(tif, TIFFTAG_STRIPBYTECOUNTS, &counts));
    const uint64_t offset = offsets[0], count = counts[0];
    TIFFClose(tif);
    data = read_bytes(at("bad-packbits.tif"), &size);
    for (uint64_t i = 0; i + 1 < count; i += 2)
        data[offset + i] = 0x81; /* a run: the next byte 128 times */
    write_bytes(at("bad-packbits.tif"), data, size);
    free(data);
    expect_read_error(at("bad-packbits.tif"), IMAGE_ERR_CORRUPT, "overrun");
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

int main(void)
{
    /* In this order: the noise images of corrupt_tiff, failed_writes_leave_nothing and
     * libtiff_is_quiet continue one random sequence (lcg). */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_and_unreadable),
        cmocka_unit_test(unreadable_permissions),
        cmocka_unit_test(corrupt_pnm),
        cmocka_unit_test(unsupported_pnm),
        cmocka_unit_test(corrupt_tiff),
        cmocka_unit_test(unsupported_tiff),
        cmocka_unit_test(failed_writes_leave_nothing),
        cmocka_unit_test_teardown(libtiff_is_quiet, teardown_stderr),
    };
    return cmocka_run_group_tests(tests, image_io_setup, image_io_teardown);
}
