/* tiff_fixture.c — what the command's TIFF stack tests share (tiff_fixture.h). */
#include "tiff_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

static const char *command_path;
static char folder[64];

const char *fixture_folder(void) { return folder; }
const char *fixture_command(void) { return command_path; }

const char *path_of(const char *name)
{
    static char paths[8][256];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 256, "%s/%s", folder, name);
    return path;
}

/* Runs `clstencil filter ARGUMENTS`; returns its exit status (output in log.txt). */
int filter(const char *format, ...)
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

int logged(const char *text)
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

int exists(const char *name)
{
    struct stat st;
    return stat(path_of(name), &st) == 0;
}

uint16_t pixel(int page, int x, int y)
{
    return (uint16_t)(((x * 7919 + y * 104729 + page * 15485863) % 65536) ^ (page * 0x5555));
}

/* Writes pages FIRST..LAST-1 of the test stack (u16, gray) as one file, with per-page tags, in
 * libtiff's open MODE ("w" classic TIFF, "w8" BigTIFF); every page described by DESCRIPTION, or
 * (NULL) by an ImageJ stack's text. */
void write_described(const char *name, const char *mode, int first, int last, uint16_t compression,
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

void write_stack_as(const char *name, const char *mode, int first, int last, uint16_t compression,
                           int width_of_last)
{
    write_described(name, mode, first, last, compression, width_of_last, NULL);
}

void write_stack(const char *name, int first, int last, uint16_t compression, int width_of_last)
{
    write_stack_as(name, "w", first, last, compression, width_of_last);
}

/* Reads every page of NAME (u16 gray W x H) into PIXELS[page][y][x]; returns the page count. */
int read_stack(const char *name, uint16_t pixels[][H][W], int max_pages)
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

uint16_t (*alloc_pages(void))[H][W]
{
    uint16_t (*pages)[H][W] = calloc(PAGES + 1, sizeof *pages);
    assert_non_null(pages);
    return pages;
}

/* Whether two files hold the same bytes. */
int same_files(const char *a, const char *b)
{
    char command[1024];
    snprintf(command, sizeof command, "cmp -s '%s' '%s'", path_of(a), path_of(b));
    return system(command) == 0;
}

/* An index of an axis of N under mirror (dcba|abcd) or repeat, any distance outside. */
int folded(int i, int n, int repeat)
{
    if (repeat) return ((i % n) + n) % n;
    const int period = 2 * n;
    int j = ((i % period) + period) % period;
    return j < n ? j : period - 1 - j;
}


int tiff_cases_run(int argc, char **argv, const struct CMUnitTest *all, const char *const *names, size_t count)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PATH-TO-CLSTENCIL CASE\n", argv[0]);
        return 2;
    }
    command_path = argv[1];
    TIFFSetWarningHandler(NULL);
    snprintf(folder, sizeof folder, "/tmp/cls-tiff-stack-XXXXXX");
    if (!mkdtemp(folder)) return 2;
    int result = 2;
    for (size_t i = 0; i < count; ++i)
        if (strcmp(argv[2], names[i]) == 0) result = _cmocka_run_group_tests(names[i], &all[i], 1, NULL, NULL);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "cannot remove %s\n", folder);
    return result;
}
