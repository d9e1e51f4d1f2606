/* test_image_io_pnm.c — PGM, PPM and PFM in the clstencil command's image I/O: round trips of each
 * type and channel count they hold (extensions in any case), the bytes of a 16-bit PGM and the
 * mode of a written file, headers written by hand (comments, one line, maxval above 255,
 * interleaved RGB), and PFM's rows bottom to top with the byte order given by the scale's sign. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io_fixture.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pnm_round_trips),
        cmocka_unit_test(pnm_headers_by_hand),
        cmocka_unit_test(pfm_order_and_endianness),
    };
    return cmocka_run_group_tests(tests, image_io_setup, image_io_teardown);
}
