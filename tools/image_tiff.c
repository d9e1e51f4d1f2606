/* image_tiff.c — whole TIFF files, through the reader and writer of tiff_reader.c and
 * tiff_writer.c (with CLS_WITH_TIFF). A warning about the file's structure (strip or tile offsets
 * and byte counts, which libtiff repairs by guessing) makes the file corrupt: a guess would give
 * wrong pixels. Every page of a stack is read (nothing is ever dropped); each page's
 * ImageDescription, resolution, ICC profile, Software and DateTime, and the file's compression, go
 * with the image (image_meta) and are written back. */
#include "image_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CLS_WITH_TIFF

#include "tiff_reader.h"
#include "tiff_writer.h"

int image_has_tiff(void)
{
    return 1;
}

int image_tiff_read(int fd, const char *path, cls_host_image *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out); /* image_free below must see an empty image */
    tiff_reader *reader = NULL;
    cls_host_image shape;
    int status = tiff_reader_open(fd, path, &reader, &shape, error, error_size);
    if (status != IMAGE_OK) return status;
    status = image_alloc_pages(out, shape.width, shape.height, shape.channels, shape.pages, shape.type, path, error,
                               error_size);
    for (size_t p = 0; status == IMAGE_OK && p < shape.pages; ++p)
        status = tiff_reader_rows(reader, p, 0, shape.height, out, p * shape.channels, 0, error, error_size);
    if (status == IMAGE_OK) status = tiff_reader_check(reader, error, error_size);
    tiff_reader_close(reader);
    out->meta = shape.meta;
    shape.meta = NULL;
    if (status != IMAGE_OK) image_free(out);
    return status;
}

int image_tiff_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    tiff_writer *writer = NULL;
    int status = tiff_writer_open(fd, path, image, &writer, error, error_size);
    if (status != IMAGE_OK) return status;
    const size_t pages = image->pages > 1 ? image->pages : 1;
    for (size_t p = 0; p < pages; ++p) tiff_writer_rows(writer, image, p * image->channels, 0, image->height);
    return tiff_writer_close(writer, error, error_size);
}

#else /* !CLS_WITH_TIFF */

int image_has_tiff(void)
{
    return 0;
}

int image_compression_available(image_compression compression)
{
    (void)compression;
    return 0;
}

int image_tiff_read(int fd, const char *path, cls_host_image *out, char *error, size_t error_size)
{
    close(fd);
    (void)out;
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "built without TIFF support");
}

int image_tiff_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    close(fd);
    (void)image;
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "built without TIFF support");
}

#endif
