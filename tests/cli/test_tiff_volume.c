/* test_tiff_volume.c — `clstencil filter` with volumes' operators on TIFF stacks, read back with
 * libtiff: a stack's pages as a volume's slices against a reference by hand, ImageJ hyperstacks'
 * and OME-TIFFs' volumes (and descriptions refused), volumes larger than the device and stacks
 * larger than the memory in slabs (the same bytes as one piece), a MetaImage in and an NRRD out,
 * volumes' operators chained, a user-written body of volumes (user:FILE,WxHxD), and a weighted
 * sum by FFT.
 * Usage: test_tiff_volume PATH-TO-CLSTENCIL CASE
 *        (CASE: volume, hyperstack, volume_slabs, volume_file_slabs, volume_files, volume_chain,
 *        volume_user, volume_fft) */
#include "tiff_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

enum { HYPER_PAGES = 6 };

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

/* A user-written body over a 5x5x5 window (user:FILE,5x5x5): the maximum of its voxels equals
 * max3d:5's by hand, repeat, exactly; a window of an even depth is refused (exit 1). */
static void test_volume_user(void **state)
{
    (void)state;
    write_stack("vol.tif", 0, PAGES, COMPRESSION_NONE, 0);
    FILE *body = fopen(path_of("max.cl"), "w");
    assert_non_null(body);
    fputs("float m = -INFINITY;\nFOR_WINDOW(i, j, k) m = fmax(m, IN(i, j, k));\nOUT = m;\n", body);
    fclose(body);
    uint16_t (*in)[H][W] = alloc_pages(), (*out)[H][W] = alloc_pages();
    assert_int_equal(read_stack("vol.tif", in, PAGES), PAGES);
    assert_int_equal(filter("vol.tif user-out.tif --op user:max.cl,5x5x5 --border repeat -v"), 0);
    assert_true(logged("user:5x5x5"));
    assert_int_equal(read_stack("user-out.tif", out, PAGES + 1), PAGES);
    expect_extremes(in, out, 0, 1, PAGES, 2, 1, 1, "user:max.cl,5x5x5");
    assert_int_equal(filter("vol.tif even.tif --op user:max.cl,5x5x4"), 1);
    assert_true(logged("is not a window WxH or WxHxD"));
    free(in);
    free(out);
}

/* A volume's weighted sum by FFT (--method fft): within one unit of the direct sum's voxels, in
 * one piece and in slabs on the device, marked in -v; the slabs count the FFT's tiles (a budget
 * that holds the direct sum's slabs holds none of the FFT's: exit 7, no file); a minimum by FFT
 * is refused (exit 1). */
static void test_volume_fft(void **state)
{
    (void)state;
    write_stack("vol.tif", 0, 6, COMPRESSION_NONE, 0);
    char op[400] = "correlate:3x3x3";
    for (int k = 0; k < 27; ++k) /* positive weights summing to 1 */
        snprintf(op + strlen(op), sizeof op - strlen(op), ",%.6f", (double)(k % 5 + 1) / 79.0);
    assert_int_equal(filter("vol.tif direct.tif --op %s --border mirror --method direct", op), 0);
    assert_int_equal(filter("vol.tif fft.tif --op %s --border mirror --method fft -v", op), 0);
    assert_true(logged("(fft)"));
    assert_int_equal(filter("vol.tif direct_slabs.tif --op %s --border mirror --method direct --max-device-memory 10K -v", op), 0);
    assert_true(logged("slabs:     6 of 1 slices"));
    assert_true(logged(" a work-item in ")); /* the direct walk -v names: slices, columns, groups */
    assert_true(logged("walking "));
    assert_int_equal(filter("vol.tif no.tif --op %s --border mirror --method fft --max-device-memory 10K", op), 7);
    assert_true(logged("the operators' own buffers for such a slab take"));
    assert_false(exists("no.tif"));
    /* 37x23 u16 slices, 3404 bytes in and out; the FFT's 48x32x16 tiles take 400 KiB (a chunk's
     * tile and the spectrum, two layouts): 415 KiB leaves four slices, slabs of two */
    assert_int_equal(filter("vol.tif slabs.tif --op %s --border mirror --method fft --max-device-memory 415K -v", op), 0);
    assert_true(logged("slabs:     3 of 2 slices"));
    uint16_t (*want)[H][W] = calloc(6, sizeof *want), (*got)[H][W] = calloc(7, sizeof *got);
    assert_true(want && got);
    assert_int_equal(read_stack("direct.tif", want, 6), 6);
    static const char *const outputs[] = {"fft.tif", "slabs.tif"};
    for (size_t f = 0; f < 2; ++f) {
        assert_int_equal(read_stack(outputs[f], got, 7), 6);
        for (int z = 0; z < 6; ++z)
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x)
                    if (abs((int)got[z][y][x] - (int)want[z][y][x]) > 1)
                        fail_msg("%s: voxel (%d, %d, %d) is %u, direct %u", outputs[f], x, y, z, got[z][y][x], want[z][y][x]);
    }
    free(want), free(got);
    assert_int_equal(filter("vol.tif min.tif --op min3d:3 --method fft"), 1);
    assert_true(logged("computes a weighted sum"));
    assert_false(exists("min.tif"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_volume),       cmocka_unit_test(test_hyperstack),   cmocka_unit_test(test_volume_slabs),
        cmocka_unit_test(test_volume_file_slabs), cmocka_unit_test(test_volume_files), cmocka_unit_test(test_volume_chain),
        cmocka_unit_test(test_volume_user),  cmocka_unit_test(test_volume_fft)};
    static const char *const names[] = {"volume",            "hyperstack",   "volume_slabs", "volume_file_slabs",
                                        "volume_files",      "volume_chain", "volume_user",  "volume_fft"};
    return tiff_cases_run(argc, argv, all, names, sizeof all / sizeof all[0]);
}
