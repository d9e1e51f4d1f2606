/* tiff_writer.c — a TIFF written a band of rows at a time (tiff_writer.h): each page's tags when
 * its first row comes, its directory after its last; flushed to disk at the end. */
#ifdef CLS_WITH_TIFF

#include "tiff_writer.h"

#include "tiff_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tiff_writer {
    TIFF *tif;
    tiff_messages messages;
    cls_host_image shape;       /* pixels NULL */
    size_t page, row;           /* where the next row goes */
    unsigned char *row_buffer;  /* one interleaved row */
    int failed;
};

/* The carried tags of one page. */
static int set_page_meta(TIFF *tif, const image_page_meta *page)
{
    int ok = 1;
    if (page->description) ok = ok && TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, page->description);
    if (page->software) ok = ok && TIFFSetField(tif, TIFFTAG_SOFTWARE, page->software);
    if (page->datetime) ok = ok && TIFFSetField(tif, TIFFTAG_DATETIME, page->datetime);
    if (page->has_resolution)
        ok = ok && TIFFSetField(tif, TIFFTAG_XRESOLUTION, page->x_resolution) &&
             TIFFSetField(tif, TIFFTAG_YRESOLUTION, page->y_resolution) &&
             TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, page->resolution_unit);
    if (page->icc) ok = ok && TIFFSetField(tif, TIFFTAG_ICCPROFILE, page->icc_size, page->icc);
    return ok;
}

/* Strips of about this many bytes (whole rows, at least one): libtiff's default of 8 KiB made an
 * 8192-wide f32 image a strip a row, and its 8192 strips took 190-220 ms to write against
 * 90-100 ms in strips of 16-32 rows (256 MiB, this project's 2-core machine). */
#define STRIP_BYTES ((size_t)512 << 10)

static uint32_t rows_per_strip(const cls_host_image *image)
{
    const size_t row = image->width * image->channels * image_sample_bytes(image->type);
    const size_t rows = row < STRIP_BYTES ? STRIP_BYTES / row : 1;
    return (uint32_t)(rows < image->height ? rows : image->height > 0 ? image->height : 1);
}

/* Sets the tags of page PAGE of a file of SHAPE's size, type, channels and metadata: contiguous
 * samples in strips of about STRIP_BYTES, compressed as SHAPE->meta says with a predictor (horizontal differences for
 * integers, the floating-point one for floats), the page's carried tags. */
static int set_tags(TIFF *tif, const cls_host_image *image, size_t page)
{
    const uint16_t spp = (uint16_t)image->channels;
    const int is_float = !image_type_is_integer(image->type);
    const uint16_t sample_format = is_float                        ? SAMPLEFORMAT_IEEEFP
                                   : image->type == CLS_PIXEL_I16 ? SAMPLEFORMAT_INT
                                                                  : SAMPLEFORMAT_UINT;
    const image_meta *meta = image->meta;
    uint16_t compression = tiff_compression_code(meta ? meta->compression : IMAGE_COMPRESSION_DEFAULT);
    if (!TIFFIsCODECConfigured(compression))
        compression = TIFFIsCODECConfigured(COMPRESSION_LZW) ? COMPRESSION_LZW : COMPRESSION_NONE;
    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)image->width) &&
             TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)image->height) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * image_sample_bytes(image->type))) &&
             TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, sample_format) &&
             TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION, compression) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip(image));
    if (ok && compression != COMPRESSION_NONE)
        ok = TIFFSetField(tif, TIFFTAG_PREDICTOR, is_float ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    if (ok && (spp == 2 || spp == 4)) {
        const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (ok && meta && page < meta->page_count)
        ok = set_page_meta(tif, &meta->pages[page]);
    return ok;
}

/* Classic TIFF or BigTIFF ("w" or "w8") for a file of IMAGE's pages. */
static const char *write_mode(const cls_host_image *image)
{
    const uint64_t samples = (uint64_t)image->width * image->height * image->channels * (image->pages ? image->pages : 1);
    /* Classic TIFF ends at 4 GiB; LZW may expand data by up to about half. */
    return samples * image_sample_bytes(image->type) > ((uint64_t)1 << 31) ? "w8" : "w";
}

/* Interleaves one row of COUNT samples of BYTES each from IN into every CH-th sample of OUT. */
static void interleave(unsigned char *out, const unsigned char *in, size_t count, size_t ch, size_t bytes)
{
    switch (bytes) { /* a copy of a constant size a sample: no call per sample */
    case 1:
        for (size_t x = 0; x < count; ++x) out[x * ch] = in[x];
        break;
    case 2:
        for (size_t x = 0; x < count; ++x) memcpy(out + x * ch * 2, in + x * 2, 2);
        break;
    default:
        for (size_t x = 0; x < count; ++x) memcpy(out + x * ch * 4, in + x * 4, 4);
        break;
    }
}

/* Writes rows BAND_ROW... of BAND's planes FIRST_PLANE... as rows Y0... of the current page;
 * ROW_BUFFER holds one interleaved row (a gray row goes to libtiff as it is). libtiff may change
 * the row it is given (byte swapping, predictors), so only a plain row is passed in place. */
static int write_rows(TIFF *tif, const cls_host_image *band, size_t first_plane, size_t band_row, size_t y0,
                    size_t rows, unsigned char *row_buffer)
{
    const size_t bytes = image_sample_bytes(band->type), plane = image_plane_bytes(band);
    const size_t ch = band->channels, w = band->width;
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetField(tif, TIFFTAG_COMPRESSION, &compression);
    const int in_place = ch == 1 && compression == COMPRESSION_NONE && !TIFFIsByteSwapped(tif);
    int ok = 1;
    for (size_t r = 0; ok && r < rows; ++r) {
        unsigned char *row = row_buffer;
        for (size_t c = 0; c < ch; ++c) {
            unsigned char *in = (unsigned char *)band->pixels + (first_plane + c) * plane + (band_row + r) * w * bytes;
            if (in_place) row = in;
            else interleave(row_buffer + c * bytes, in, w, ch, bytes);
        }
        ok = TIFFWriteScanline(tif, row, (uint32_t)(y0 + r), 0) == 1;
    }
    return ok;
}

int tiff_writer_open(int fd, const char *path, const cls_host_image *shape, tiff_writer **out, char *error,
                     size_t error_size)
{
    *out = NULL;
    tiff_writer *w = calloc(1, sizeof *w);
    if (w) w->row_buffer = malloc(shape->width * shape->channels * image_sample_bytes(shape->type));
    if (!w || !w->row_buffer) {
        close(fd);
        if (w) free(w);
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "out of memory");
    }
    w->messages.path = path;
    w->shape = *shape;
    w->shape.pixels = NULL;
    if (!w->shape.pages) w->shape.pages = 1;
    w->tif = tiff_open(fd, path, write_mode(shape), &w->messages);
    if (!w->tif) {
        close(fd);
        tiff_release_messages();
        const int status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot create the TIFF: %s",
                                      tiff_reason(&w->messages, "libtiff failed"));
        free(w->row_buffer);
        free(w);
        return status;
    }
    *out = w;
    return IMAGE_OK;
}

int tiff_writer_rows(tiff_writer *w, const cls_host_image *band, size_t first_plane, size_t band_row, size_t rows)
{
    while (!w->failed && rows > 0 && w->page < w->shape.pages) {
        if (w->row == 0 && !set_tags(w->tif, &w->shape, w->page)) w->failed = 1;
        const size_t n = rows < w->shape.height - w->row ? rows : w->shape.height - w->row;
        if (!w->failed && !write_rows(w->tif, band, first_plane, band_row, w->row, n, w->row_buffer)) w->failed = 1;
        band_row += n;
        rows -= n;
        if ((w->row += n) == w->shape.height) {
            if (!w->failed && !TIFFWriteDirectory(w->tif)) w->failed = 1;
            w->row = 0;
            ++w->page;
        }
    }
    if (rows > 0) w->failed = 1; /* more rows than the pages hold */
    return w->failed ? IMAGE_ERR_WRITE : IMAGE_OK;
}

int tiff_writer_close(tiff_writer *w, char *error, size_t error_size)
{
    int ok = !w->failed && w->page == w->shape.pages, e = 0;
    if (ok && !TIFFFlush(w->tif)) ok = 0;
    if (ok && fsync(TIFFFileno(w->tif)) != 0) {
        e = errno;
        ok = 0;
    }
    const int complete = w->page == w->shape.pages;
    TIFFClose(w->tif); /* closes the file */
    tiff_release_messages();
    int status = IMAGE_OK;
    if (!ok)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, w->messages.path, "cannot write: %s",
                            e                        ? strerror(e)
                            : !complete && !w->failed ? "the image ended early"
                                                      : tiff_reason(&w->messages, "libtiff failed"));
    free(w->row_buffer);
    free(w);
    return status;
}

#endif /* CLS_WITH_TIFF */
