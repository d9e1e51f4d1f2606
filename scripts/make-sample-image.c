/* make-sample-image.c — writes data/sample.tif, the synthetic test image of `clstencil filter`:
 * 256 x 256, 8-bit grey, an uncompressed single-strip little-endian TIFF (65,760 bytes). It
 * holds a smooth gradient, a dark and a bright disc with anti-aliased edges, a checkerboard, a
 * ring, and a patch of pseudo-random texture (xorshift32, fixed seed), so the output is the same
 * byte for byte on every machine. Standalone C99, no libraries:
 *
 *     cc -O2 -o make-sample-image scripts/make-sample-image.c && ./make-sample-image data/sample.tif
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { SIZE = 256, SUPERSAMPLE = 4 };

static uint32_t rng_state = 0x2545F491u;

static uint32_t xorshift32(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

/* The fraction (0..1) of pixel (x, y) inside the annulus r0 <= r < r1 around (cx, cy). */
static double coverage(int x, int y, double cx, double cy, double r0, double r1)
{
    int inside = 0;
    for (int j = 0; j < SUPERSAMPLE; ++j)
        for (int i = 0; i < SUPERSAMPLE; ++i) {
            const double dx = x + (i + 0.5) / SUPERSAMPLE - cx, dy = y + (j + 0.5) / SUPERSAMPLE - cy;
            const double d2 = dx * dx + dy * dy;
            inside += d2 >= r0 * r0 && d2 < r1 * r1;
        }
    return (double)inside / (SUPERSAMPLE * SUPERSAMPLE);
}

static double blend(double under, double over, double alpha) { return under + (over - under) * alpha; }

static void draw(uint8_t pixels[SIZE][SIZE])
{
    for (int y = 0; y < SIZE; ++y)
        for (int x = 0; x < SIZE; ++x) {
            double v = 40.0 + 120.0 * x / (SIZE - 1) + 40.0 * y / (SIZE - 1); /* gradient */
            v = blend(v, 20.0, coverage(x, y, 72, 72, 0, 28));             /* dark disc */
            v = blend(v, 230.0, coverage(x, y, 180, 68, 0, 44));           /* bright disc */
            if (x >= 16 && x < 112 && y >= 144 && y < 240)                  /* checkerboard */
                v = ((x - 16) / 12 + (y - 144) / 12) % 2 ? 220.0 : 30.0;
            if (x >= 136 && x < 248 && y >= 136 && y < 248)                 /* texture */
                v = 90.0 + (double)(xorshift32() % 81);
            v = blend(v, 250.0, coverage(x, y, 192, 192, 30, 36));         /* ring */
            const long rounded = (long)(v + 0.5);
            pixels[y][x] = (uint8_t)(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
        }
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFFu), put16(p + 2, v >> 16); }

/* One IFD entry: tag, type (3 SHORT, 4 LONG, 2 ASCII), count, value or offset. */
static uint8_t *entry(uint8_t *p, unsigned tag, unsigned type, uint32_t count, uint32_t value)
{
    put16(p, tag);
    put16(p + 2, type);
    put32(p + 4, count);
    if (type == 3 && count == 1) put16(p + 8, value), put16(p + 10, 0);
    else put32(p + 8, value);
    return p + 12;
}

int main(int argc, char **argv)
{
    static const char description[] = "clstencil sample image (synthetic, scripts/make-sample-image.c)";
    enum { ENTRIES = 11, IFD = 8, IFD_BYTES = 2 + ENTRIES * 12 + 4 };
    const uint32_t text_at = IFD + IFD_BYTES, pixels_at = (text_at + sizeof description + 15) / 16 * 16;
    static uint8_t pixels[SIZE][SIZE], header[512];
    const char *path = argc > 1 ? argv[1] : "data/sample.tif";
    draw(pixels);

    memcpy(header, "II", 2);
    put16(header + 2, 42);
    put32(header + 4, IFD);
    uint8_t *p = header + IFD;
    put16(p, ENTRIES);
    p += 2;
    p = entry(p, 256, 3, 1, SIZE);                      /* ImageWidth */
    p = entry(p, 257, 3, 1, SIZE);                      /* ImageLength */
    p = entry(p, 258, 3, 1, 8);                         /* BitsPerSample */
    p = entry(p, 259, 3, 1, 1);                         /* Compression: none */
    p = entry(p, 262, 3, 1, 1);                         /* PhotometricInterpretation: min-is-black */
    p = entry(p, 270, 2, sizeof description, text_at);  /* ImageDescription */
    p = entry(p, 273, 4, 1, pixels_at);                 /* StripOffsets */
    p = entry(p, 277, 3, 1, 1);                         /* SamplesPerPixel */
    p = entry(p, 278, 3, 1, SIZE);                      /* RowsPerStrip */
    p = entry(p, 279, 4, 1, SIZE * SIZE);               /* StripByteCounts */
    p = entry(p, 284, 3, 1, 1);                         /* PlanarConfiguration: contiguous */
    put32(p, 0);                                        /* no further IFD */
    memcpy(header + text_at, description, sizeof description);

    FILE *file = fopen(path, "wb");
    if (!file || fwrite(header, 1, pixels_at, file) != pixels_at ||
        fwrite(pixels, 1, sizeof pixels, file) != sizeof pixels || fclose(file) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
