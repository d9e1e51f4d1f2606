/* image_tiff.c — whole TIFF files through libtiff (with CLS_WITH_TIFF; the shared calls are in
 * tiff_common.c). A warning about the file's structure (strip or tile offsets and byte counts,
 * which libtiff repairs by guessing) makes the file corrupt: a guess would give wrong pixels. A
 * file of several pages is read as a stack when every page has the first's size, type and
 * channels (else it is refused, naming the page): nothing is ever dropped. Each page's
 * ImageDescription, resolution, ICC profile, Software and DateTime, and the file's compression, go
 * with the image (image_meta) and are written back. */
#include "image_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CLS_WITH_TIFF

#include "tiff_internal.h"

int image_has_tiff(void)
{
    return 1;
}

/* ImageJ writes a stack above 4 GiB as one page followed by the others' data ("images=N" in its
 * description): reading the page alone would lose the rest. 0 when that is not the case. */
static unsigned long imagej_hidden_images(const char *description, size_t pages)
{
    const char *images = description && strncmp(description, "ImageJ=", 7) == 0 ? strstr(description, "\nimages=")
                                                                              : NULL;
    unsigned long n = images ? strtoul(images + 8, NULL, 10) : 0;
    return n > pages ? n : 0;
}

/* One page into OUT (allocating OUT, a stack of PAGES pages, at page 0; later pages must match
 * it); *NARROWED is set when its samples were 64-bit floats read as f32. */
static int read_image(TIFF *tif, cls_host_image *out, size_t page, size_t pages, const tiff_messages *m,
                      int *narrowed, char *error, size_t error_size)
{
    const char *path = m->path;
    tiff_layout l;
    int status = tiff_page_layout(tif, m, &l, error, error_size);
    if (status != IMAGE_OK)
        return status;
    if (page == 0) {
        if ((status = image_alloc_pages(out, l.width, l.height, l.channels, pages, l.type, path, error,
                                        error_size)) != IMAGE_OK)
            return status;
    } else if (l.width != out->width || l.height != out->height || l.channels != out->channels ||
               l.type != out->type) {
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "page %zu of %zu is %zu x %zu, %zu channel%s of %s, but page 1 is %zu x %zu, %zu channel%s of "
                          "%s: a stack's pages must share size, channels and type (split it, e.g. with tiffsplit)",
                          page + 1, pages, l.width, l.height, l.channels, l.channels == 1 ? "" : "s",
                          image_type_name(l.type), out->width, out->height, out->channels,
                          out->channels == 1 ? "" : "s", image_type_name(out->type));
    }
    if (l.file_sample == 8) *narrowed = 1;
    return tiff_read_rows(tif, &l, out, page * l.channels, 0, l.height, 0, m, error, error_size);
}

/* Every page of an open file into OUT and its metadata. */
static int read_pages(TIFF *tif, cls_host_image *out, tiff_messages *m, char *error, size_t error_size)
{
    const char *path = m->path;
    const int had_warning = m->warning[0] != '\0';
    const tdir_t pages = TIFFNumberOfDirectories(tif);
    /* A damaged chain of directories would make the count short: refuse it rather than drop pages. */
    if (m->error[0] || (!had_warning && m->warning[0] && tiff_structural(m->warning)))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "damaged list of pages: %s",
                          tiff_reason(m, "?"));
    if (pages == 0)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no image in the file");
    if (!TIFFSetDirectory(tif, 0))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot read page 1: %s",
                          tiff_reason(m, "damaged directory"));
    image_meta *meta = calloc(1, sizeof *meta);
    image_page_meta *metas = calloc(pages, sizeof *metas);
    if (!meta || !metas) {
        free(meta);
        free(metas);
        return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path, "out of memory");
    }
    int status = IMAGE_OK;
    for (tdir_t p = 0; p < pages && status == IMAGE_OK; ++p) {
        if (p > 0 && !TIFFReadDirectory(tif)) {
            status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot read page %u of %u: %s",
                                (unsigned)p + 1, (unsigned)pages, tiff_reason(m, "damaged or truncated directory"));
            break;
        }
        status = read_image(tif, out, p, pages, m, &meta->narrowed_f64, error, error_size);
        if (status != IMAGE_OK && p > 0 && status != IMAGE_ERR_RESOURCE && error && !strstr(error, "page "))
            snprintf(error + strlen(error), error_size - strlen(error), " (page %u of %u)", (unsigned)p + 1,
                     (unsigned)pages);
        if (status != IMAGE_OK)
            break;
        tiff_read_page_meta(tif, &metas[p]);
        if (p == 0) {
            uint16_t compression = COMPRESSION_NONE;
            TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
            meta->compression = tiff_compression_of(compression);
            unsigned long hidden = imagej_hidden_images(metas[0].description, pages);
            if (hidden)
                status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                                    "an ImageJ stack of %lu images stored as %u page%s (a file above 4 GiB): "
                                    "only stacks with one TIFF page per image are supported",
                                    hidden, (unsigned)pages, pages == 1 ? "" : "s");
        }
    }
    meta->pages = metas;
    meta->page_count = pages;
    if (status == IMAGE_OK)
        out->meta = meta;
    else
        image_meta_free(meta);
    return status;
}

int image_tiff_read(int fd, const char *path, cls_host_image *out, char *error, size_t error_size)
{
    tiff_messages m = {.path = path};
    memset(out, 0, sizeof *out); /* image_free below must see an empty image */
    /* "m": read(), not mmap, so a file cut short while we read it gives an error, not SIGBUS. */
    TIFF *tif = tiff_open(fd, path, "rm", &m);
    int status;
    if (!tif) {
        close(fd);
        status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "not a valid TIFF file: %s",
                            tiff_reason(&m, "cannot read the header"));
    } else {
        status = read_pages(tif, out, &m, error, error_size);
        if (status == IMAGE_OK && m.warning[0] && tiff_structural(m.warning))
            status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "damaged TIFF structure: %s",
                                m.warning);
        TIFFClose(tif);
    }
    tiff_release_messages();
    if (status != IMAGE_OK)
        image_free(out);
    return status;
}

int image_tiff_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    tiff_messages m = {.path = path};
    const size_t ch = image->channels, pages = image->pages > 1 ? image->pages : 1;
    TIFF *tif = tiff_open(fd, path, tiff_write_mode(image), &m);
    if (!tif) {
        close(fd);
        tiff_release_messages();
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot create the TIFF: %s",
                          tiff_reason(&m, "libtiff failed"));
    }
    unsigned char *row = malloc(image->width * ch * image_sample_bytes(image->type));
    int ok = row != NULL;
    for (size_t p = 0; ok && p < pages; ++p)
        ok = tiff_set_tags(tif, image, p) && tiff_write_rows(tif, image, p * ch, 0, 0, image->height, row) &&
             TIFFWriteDirectory(tif);
    free(row);
    int e = 0;
    if (ok && !TIFFFlush(tif))
        ok = 0;
    if (ok && fsync(TIFFFileno(tif)) != 0) {
        e = errno;
        ok = 0;
    }
    TIFFClose(tif); /* closes fd */
    tiff_release_messages();
    if (ok)
        return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s",
                      e ? strerror(e) : tiff_reason(&m, "libtiff failed"));
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
