/* fuzz_image.c — the image readers on arbitrary bytes: the file is an in-memory file (memfd) and
 * the reader is chosen at build time (FUZZ_TIFF: TIFF through libtiff; else PGM/PPM/PFM). Every
 * input must give IMAGE_OK with a whole image, or an error class with a message. */
#define _GNU_SOURCE /* memfd_create */
#include "harness.h"
#include "image_io.h"

#include <assert.h>
#include <sys/mman.h>
#include <unistd.h>

/* At most 2^24 pixels: a header may claim 2^31, which is valid but only slows the fuzzer. */
static int small_images(size_t width, size_t height, size_t channels, cls_pixel_type type, const char *path,
                        char *error, size_t error_size)
{
    (void)channels, (void)type;
    if ((uint64_t)width * height <= (1u << 24)) return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path, "larger than the fuzzer's budget");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0; /* image_read refuses empty files before any reader */
    image_set_alloc_check(small_images);
    const int fd = memfd_create("fuzz-image", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) abort();
    cls_host_image image;
    char error[1024] = "";
#ifdef FUZZ_TIFF
    const int status = image_tiff_read(fd, "fuzz.tif", &image, error, sizeof error);
#else
    const int status = image_pnm_read(fd, "fuzz.pnm", size, &image, error, sizeof error);
#endif
    if (status == IMAGE_OK) {
        assert(image.pixels && image.width && image.height && image.channels >= 1 && image.channels <= 4);
        image_free(&image);
    } else {
        assert(error[0] && !image.pixels);
    }
    return 0;
}
