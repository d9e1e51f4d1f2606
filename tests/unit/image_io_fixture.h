/* image_io_fixture.h — what the image I/O tests share: a temporary folder for each test program
 * and files in it, test images, the checks of image_read and image_write (same image back, the
 * error class and a message naming the file), and with libtiff, TIFFs of any layout written with
 * libtiff directly. */
#ifndef CLS_TEST_IMAGE_IO_FIXTURE_H
#define CLS_TEST_IMAGE_IO_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "image_io.h"
#ifdef CLS_WITH_TIFF
#include <tiffio.h>
#endif

/* ---- Files and folders ---- */

/* cmocka group setup and teardown: make this run's temporary folder (under $TMPDIR, else /tmp),
 * and remove it with all it holds. */
int image_io_setup(void **state);
int image_io_teardown(void **state);
/* ROOT/NAME, ROOT the temporary folder, in one of 8 rotating buffers. */
const char *at(const char *name);
/* Writes SIZE bytes of DATA (or the string TEXT) to PATH, failing the test on any error. */
void write_bytes(const char *path, const void *data, size_t size);
void write_text(const char *path, const char *text);
/* The whole file PATH, in a malloc'd buffer (one byte more than *size); the caller frees it. */
unsigned char *read_bytes(const char *path, size_t *size);
/* 1 when PATH exists (a dangling link counts), else 0. */
int exists(const char *path);

/* ---- Images ---- */

/* The random numbers of make_image's NOISE, one sequence per test program: seeded with 12345,
 * a test sets lcg_state to start a sequence of its own. */
extern uint32_t lcg_state;
uint32_t lcg(void);
/* An asymmetric pattern over the whole range of TYPE; f32 includes -0, a subnormal, a huge
 * value, infinity and NaN (compared bit for bit). NOISE: random values instead. */
cls_host_image make_image(size_t width, size_t height, size_t channels, cls_pixel_type type, unsigned seed,
                          int noise);
/* GOT has WANT's size, channels, type and every pixel bit for bit. */
void assert_same_image(const cls_host_image *want, const cls_host_image *got);
/* image_read and image_write that must succeed (the message is shown when they do not). */
cls_host_image read_ok(const char *path);
void write_ok(const char *path, const cls_host_image *image);
/* IMAGE written to PATH and read back the same. */
void round_trip(const char *path, const cls_host_image *image);
/* image_read(PATH) fails with CODE, leaves *out empty, and its message names PATH (and KEYWORD). */
void expect_read_error(const char *path, int code, const char *keyword);
/* image_write(PATH) fails with CODE and its message names PATH. */
void expect_write_error(const char *path, const cls_host_image *image, int code);

/* ---- TIFF files written with libtiff directly ---- */

#ifdef CLS_WITH_TIFF
/* The photometric interpretation of CHANNELS samples: RGB from 3 on, else min-is-black. */
uint16_t photometric_for(size_t channels);
/* Writes IMAGE as a TIFF in the given organization: 16x16 tiles or strips of 5 rows, planar
 * configuration contiguous or separate, compression, byte order. */
void write_tiff_layout(const char *path, const cls_host_image *image, int tiled, int separate, uint16_t compression,
                       int big_endian);
#endif

#endif
