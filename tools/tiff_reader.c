/* tiff_reader.c — a TIFF file open for reading (tiff_reader.h). Every directory is read and checked
 * when the file is opened, so a stack that cannot be read whole is refused before any pixel is
 * decoded; rows are then decoded page by page, strip by strip or tile by tile. */
#ifdef CLS_WITH_TIFF

#include "tiff_reader.h"

#include "tiff_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tiff_reader {
    TIFF *tif;
    tiff_messages messages;
    size_t pages, page; /* the current directory */
    tiff_layout layout; /* the current page's */
    size_t chunk_bytes; /* the largest page's */
};

/* ImageJ writes a stack above 4 GiB as one page followed by the others' data ("images=N" in its
 * description): reading the page alone would lose the rest. 0 when that is not the case. */
static unsigned long imagej_hidden_images(const char *description, size_t pages)
{
    const char *images = description && strncmp(description, "ImageJ=", 7) == 0 ? strstr(description, "\nimages=")
                                                                              : NULL;
    unsigned long n = images ? strtoul(images + 8, NULL, 10) : 0;
    return n > pages ? n : 0;
}

/* Page P's layout against page 1's (SHAPE). */
static int check_page(const tiff_layout *l, const cls_host_image *shape, size_t p, size_t pages, const char *path,
                      char *error, size_t error_size)
{
    if (l->width == shape->width && l->height == shape->height && l->channels == shape->channels &&
        l->type == shape->type)
        return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                      "page %zu of %zu is %zu x %zu, %zu channel%s of %s, but page 1 is %zu x %zu, %zu channel%s of "
                      "%s: a stack's pages must share size, channels and type (split it, e.g. with tiffsplit)",
                      p + 1, pages, l->width, l->height, l->channels, l->channels == 1 ? "" : "s",
                      image_type_name(l->type), shape->width, shape->height, shape->channels,
                      shape->channels == 1 ? "" : "s", image_type_name(shape->type));
}

/* Reads every directory: the layouts, the pages' tags and the file's compression into SHAPE. */
static int read_directories(tiff_reader *r, cls_host_image *shape, image_meta *meta, char *error, size_t error_size)
{
    const char *path = r->messages.path;
    for (size_t p = 0; p < r->pages; ++p) {
        if (p > 0 && !TIFFReadDirectory(r->tif))
            return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot read page %zu of %zu: %s", p + 1,
                              r->pages, tiff_reason(&r->messages, "damaged or truncated directory"));
        tiff_layout l;
        int status = tiff_page_layout(r->tif, &r->messages, &l, error, error_size);
        if (status == IMAGE_OK && p == 0)
            *shape = (cls_host_image){.width = l.width, .height = l.height, .channels = l.channels, .type = l.type,
                                      .pages = r->pages};
        if (status == IMAGE_OK) status = check_page(&l, shape, p, r->pages, path, error, error_size);
        if (status != IMAGE_OK && p > 0 && error && !strstr(error, "page "))
            snprintf(error + strlen(error), error_size - strlen(error), " (page %zu of %zu)", p + 1, r->pages);
        if (status != IMAGE_OK) return status;
        if (l.file_sample == 8) meta->narrowed_f64 = 1;
        if (l.chunk_bytes > r->chunk_bytes) r->chunk_bytes = l.chunk_bytes;
        tiff_read_page_meta(r->tif, &meta->pages[p]);
    }
    uint16_t compression = COMPRESSION_NONE;
    TIFFSetDirectory(r->tif, 0);
    TIFFGetFieldDefaulted(r->tif, TIFFTAG_COMPRESSION, &compression);
    meta->compression = tiff_compression_of(compression);
    unsigned long hidden = imagej_hidden_images(meta->pages[0].description, r->pages);
    if (hidden)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "an ImageJ stack of %lu images stored as %zu page%s (a file above 4 GiB): "
                          "only stacks with one TIFF page per image are supported",
                          hidden, r->pages, r->pages == 1 ? "" : "s");
    return tiff_page_layout(r->tif, &r->messages, &r->layout, error, error_size);
}

/* The pages of the open file, checked, into SHAPE. */
static int read_pages(tiff_reader *r, cls_host_image *shape, char *error, size_t error_size)
{
    tiff_messages *m = &r->messages;
    const char *path = m->path;
    const int had_warning = m->warning[0] != '\0';
    r->pages = TIFFNumberOfDirectories(r->tif);
    /* A damaged chain of directories would make the count short: refuse it rather than drop pages. */
    if (m->error[0] || (!had_warning && m->warning[0] && tiff_structural(m->warning)))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "damaged list of pages: %s",
                          tiff_reason(m, "?"));
    if (r->pages == 0) return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no image in the file");
    if (!TIFFSetDirectory(r->tif, 0))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot read page 1: %s",
                          tiff_reason(m, "damaged directory"));
    image_meta *meta = calloc(1, sizeof *meta);
    if (meta) meta->pages = calloc(r->pages, sizeof *meta->pages);
    if (!meta || !meta->pages) {
        free(meta);
        return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path, "out of memory");
    }
    meta->page_count = r->pages;
    const int status = read_directories(r, shape, meta, error, error_size);
    shape->meta = meta; /* freed with the shape, also on failure */
    return status;
}

int tiff_reader_open(int fd, const char *path, tiff_reader **out, cls_host_image *shape, char *error,
                     size_t error_size)
{
    *out = NULL;
    memset(shape, 0, sizeof *shape);
    tiff_reader *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path, "out of memory");
    }
    r->messages.path = path;
    /* "m": read(), not mmap, so a file cut short while we read it gives an error, not SIGBUS. */
    r->tif = tiff_open(fd, path, "rm", &r->messages);
    if (!r->tif) {
        close(fd);
        tiff_release_messages();
        const int status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "not a valid TIFF file: %s",
                                      tiff_reason(&r->messages, "cannot read the header"));
        free(r);
        return status;
    }
    const int status = read_pages(r, shape, error, error_size);
    if (status != IMAGE_OK) {
        tiff_reader_close(r);
        image_free(shape);
        return status;
    }
    *out = r;
    return IMAGE_OK;
}

/* Makes PAGE the current directory (the next one by reading on, others by seeking). */
static int go_to_page(tiff_reader *r, size_t page, char *error, size_t error_size)
{
    if (page == r->page) return IMAGE_OK;
    const int ok = page == r->page + 1 ? TIFFReadDirectory(r->tif) : TIFFSetDirectory(r->tif, (tdir_t)page);
    if (!ok)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, r->messages.path, "cannot read page %zu of %zu: %s",
                          page + 1, r->pages, tiff_reason(&r->messages, "damaged directory"));
    r->page = page;
    return tiff_page_layout(r->tif, &r->messages, &r->layout, error, error_size);
}

int tiff_reader_rows(tiff_reader *r, size_t page, size_t y0, size_t rows, cls_host_image *band, size_t first_plane,
                     size_t band_row, char *error, size_t error_size)
{
    int status = go_to_page(r, page, error, error_size);
    if (status == IMAGE_OK)
        status = tiff_read_rows(r->tif, &r->layout, band, first_plane, y0, rows, band_row, &r->messages, error,
                                error_size);
    if (status != IMAGE_OK && page > 0 && error && !strstr(error, "page "))
        snprintf(error + strlen(error), error_size - strlen(error), " (page %zu of %zu)", page + 1, r->pages);
    return status;
}

void tiff_reader_read_ahead(tiff_reader *r, size_t page, size_t y0, size_t rows)
{
    uint16_t planar = PLANARCONFIG_CONTIG;
    TIFFGetFieldDefaulted(r->tif, TIFFTAG_PLANARCONFIG, &planar);
    if (page != r->page || TIFFIsTiled(r->tif) || planar != PLANARCONFIG_CONTIG || !rows) return;
    const uint32_t first = TIFFComputeStrip(r->tif, (uint32_t)y0, 0);
    const uint32_t last = TIFFComputeStrip(r->tif, (uint32_t)(y0 + rows - 1), 0);
    uint64_t start = UINT64_MAX, end = 0;
    for (uint32_t strip = first; strip <= last; ++strip) {
        const uint64_t offset = TIFFGetStrileOffset(r->tif, strip), stop = offset + TIFFGetStrileByteCount(r->tif, strip);
        if (offset < start) start = offset;
        if (stop > end) end = stop;
    }
    if (end > start) (void)posix_fadvise(TIFFFileno(r->tif), (off_t)start, (off_t)(end - start), POSIX_FADV_WILLNEED);
}

size_t tiff_reader_chunk_bytes(const tiff_reader *r) { return r->chunk_bytes; }

int tiff_reader_check(const tiff_reader *r, char *error, size_t error_size)
{
    const tiff_messages *m = &r->messages;
    if (m->warning[0] && tiff_structural(m->warning))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, m->path, "damaged TIFF structure: %s", m->warning);
    return IMAGE_OK;
}

void tiff_reader_close(tiff_reader *r)
{
    if (!r) return;
    if (r->tif) TIFFClose(r->tif);
    tiff_release_messages();
    free(r);
}

#endif /* CLS_WITH_TIFF */
