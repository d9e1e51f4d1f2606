/* image_tiff.c — TIFF through libtiff (with CLS_WITH_TIFF); libtiff's messages are captured, never
 * printed. A warning about the file's structure (strip or tile offsets and byte counts, which
 * libtiff repairs by guessing) makes the file corrupt: a guess would give wrong pixels. A file of
 * several pages is read as a stack when every page has the first's size, type and channels (else
 * it is refused, naming the page): nothing is ever dropped. Each page's ImageDescription,
 * resolution, ICC profile, Software and DateTime, and the file's compression, go with the image
 * (image_meta) and are written back. */
#include "image_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CLS_WITH_TIFF

#include <stdarg.h>
#include <tiffio.h>

/* Tiles above this many pixels are refused: a corrupt tile size must not cost a huge buffer. */
#define MAX_TILE_PIXELS ((uint64_t)1 << 26)

int image_has_tiff(void)
{
    return 1;
}

/* The first error and the first warning libtiff reported for one file. */
typedef struct tiff_messages {
    const char *path;
    char error[256], warning[256];
} tiff_messages;

/* For libtiff messages that bypass the per-file handlers (none are expected). */
static _Thread_local tiff_messages *current_messages;

static void capture(tiff_messages *m, int is_error, const char *module, const char *format, va_list args)
{
    if (!m)
        return;
    char *slot = is_error ? m->error : m->warning, text[200];
    if (slot[0])
        return;
    vsnprintf(text, sizeof text, format, args);
    /* libtiff often names the file as the module; our message names it already. */
    if (module && *module && strcmp(module, m->path) != 0)
        snprintf(slot, sizeof m->error, "%s: %s", module, text);
    else
        snprintf(slot, sizeof m->error, "%s", text);
}

static int on_error(TIFF *tif, void *user, const char *module, const char *format, va_list args)
{
    (void)tif;
    capture(user, 1, module, format, args);
    return 1; /* handled: the global handlers are not called */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list args)
{
    (void)tif;
    capture(user, 0, module, format, args);
    return 1;
}

static void global_error(const char *module, const char *format, va_list args)
{
    if (current_messages)
        capture(current_messages, 1, module, format, args);
}

static void global_warning(const char *module, const char *format, va_list args)
{
    if (current_messages)
        capture(current_messages, 0, module, format, args);
}

/* Whether a libtiff warning is about the layout of the data: these mean the pixels read may be
 * wrong (libtiff fills in missing offsets or recomputes byte counts). Others (unknown tags,
 * unsorted tags) are harmless. */
static int structural(const char *warning)
{
    static const char *const words[] = {"strip", "tile", "bytecount", "offset", "incorrect count", "bogus",
                                        "sanity", "truncat", "premature", "corrupt", "invalid", "cannot"};
    char lower[256];
    size_t n = 0;
    for (; warning[n] && n + 1 < sizeof lower; ++n)
        lower[n] = (char)(warning[n] >= 'A' && warning[n] <= 'Z' ? warning[n] - 'A' + 'a' : warning[n]);
    lower[n] = '\0';
    if (strstr(lower, "tags are not sorted")) return 0; /* "invalid TIFF directory; tags are not sorted" */
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
        if (strstr(lower, words[i])) return 1;
    return 0;
}

static const char *reason(const tiff_messages *m, const char *fallback)
{
    return m->error[0] ? m->error : m->warning[0] ? m->warning : fallback;
}

static TIFF *tiff_open(int fd, const char *path, const char *mode, tiff_messages *m)
{
    TIFFSetErrorHandler(global_error);
    TIFFSetWarningHandler(global_warning);
    current_messages = m;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options) {
        TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, m);
        TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, m);
    }
    TIFF *tif = TIFFFdOpenExt(fd, path, mode, options); /* on failure fd stays open */
    if (options)
        TIFFOpenOptionsFree(options);
    return tif;
}

/* Copies ROWS x COLS pixels of a decoded chunk (CHUNK_WIDTH pixels a row, SPC interleaved
 * samples a pixel, sample k going to channel FIRST + k) into the planes at (X0, Y0). */
static void scatter(cls_host_image *image, const unsigned char *chunk, size_t chunk_width, size_t spc,
                    size_t first, size_t x0, size_t y0, size_t cols, size_t rows)
{
    const size_t bytes = image_sample_bytes(image->type), plane = image_plane_bytes(image);
    for (size_t k = 0; k < spc; ++k) {
        unsigned char *dst = (unsigned char *)image->pixels + (first + k) * plane;
        for (size_t r = 0; r < rows; ++r) {
            unsigned char *out = dst + ((y0 + r) * image->width + x0) * bytes;
            const unsigned char *in = chunk + (r * chunk_width * spc + k) * bytes;
            if (spc == 1)
                memcpy(out, in, cols * bytes);
            else if (bytes == 1)
                for (size_t x = 0; x < cols; ++x)
                    out[x] = in[x * spc];
            else if (bytes == 2)
                for (size_t x = 0; x < cols; ++x)
                    memcpy(out + 2 * x, in + 2 * x * spc, 2);
            else
                for (size_t x = 0; x < cols; ++x)
                    memcpy(out + 4 * x, in + 4 * x * spc, 4);
        }
    }
}

/* A decoded chunk of COUNT 64-bit floats narrowed in place to 32-bit floats (the same order,
 * packed at the start): f64 files are read as f32. */
static void narrow_doubles(unsigned char *chunk, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        double wide;
        memcpy(&wide, chunk + i * sizeof wide, sizeof wide);
        const float narrow = (float)wide;
        memcpy(chunk + i * sizeof narrow, &narrow, sizeof narrow);
    }
}

/* FILE_SAMPLE: the bytes of one sample in the file (8 for f64 read as f32, else the image's). */
static int read_strips(TIFF *tif, cls_host_image *out, size_t base, size_t planes, size_t spc, size_t file_sample,
                       const tiff_messages *m, char *error, size_t error_size)
{
    const char *path = m->path;
    uint32_t rps = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
    const size_t height = out->height, rows_per_strip = (rps == 0 || rps > height) ? height : rps;
    const size_t row_bytes = out->width * spc * file_sample; /* < the image size */
    const size_t strips_per_plane = (height + rows_per_strip - 1) / rows_per_strip;
    if ((uint64_t)TIFFNumberOfStrips(tif) < (uint64_t)strips_per_plane * planes)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "%u strips, %zu expected",
                          (unsigned)TIFFNumberOfStrips(tif), strips_per_plane * planes);
    unsigned char *buffer = malloc(rows_per_strip * row_bytes);
    if (!buffer)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
    int status = IMAGE_OK;
    for (size_t p = 0; p < planes && status == IMAGE_OK; ++p)
        for (size_t s = 0; s < strips_per_plane; ++s) {
            const size_t y0 = s * rows_per_strip;
            const size_t rows = height - y0 < rows_per_strip ? height - y0 : rows_per_strip;
            const tmsize_t want = (tmsize_t)(rows * row_bytes);
            if (TIFFReadEncodedStrip(tif, (uint32_t)(p * strips_per_plane + s), buffer, want) != want) {
                status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot decode strip %zu: %s",
                                    p * strips_per_plane + s, reason(m, "truncated or damaged data"));
                break;
            }
            if (file_sample != image_sample_bytes(out->type)) narrow_doubles(buffer, rows * out->width * spc);
            scatter(out, buffer, out->width, spc, base + p, 0, y0, out->width, rows);
        }
    free(buffer);
    return status;
}

static int read_tiles(TIFF *tif, cls_host_image *out, size_t base, size_t planes, size_t spc, size_t file_sample,
                      const tiff_messages *m, char *error, size_t error_size)
{
    const char *path = m->path;
    uint32_t tw = 0, tl = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &tl);
    if (tw == 0 || tl == 0)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "bad tile size %u x %u", tw, tl);
    if ((uint64_t)tw * tl > MAX_TILE_PIXELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "tiles of %u x %u are too large",
                          tw, tl);
    const size_t tile_bytes = (size_t)tw * tl * spc * file_sample;
    if ((uint64_t)TIFFTileSize64(tif) != (uint64_t)tile_bytes)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "unexpected tile layout (subsampled or packed samples)");
    unsigned char *buffer = malloc(tile_bytes);
    if (!buffer)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
    int status = IMAGE_OK;
    for (size_t p = 0; p < planes && status == IMAGE_OK; ++p)
        for (size_t y0 = 0; y0 < out->height && status == IMAGE_OK; y0 += tl)
            for (size_t x0 = 0; x0 < out->width; x0 += tw) {
                const uint32_t tile = TIFFComputeTile(tif, (uint32_t)x0, (uint32_t)y0, 0, (uint16_t)p);
                if (TIFFReadEncodedTile(tif, tile, buffer, (tmsize_t)tile_bytes) != (tmsize_t)tile_bytes) {
                    status =
                        image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot decode tile %u: %s",
                                   (unsigned)tile, reason(m, "truncated or damaged data"));
                    break;
                }
                const size_t cols = out->width - x0 < tw ? out->width - x0 : tw;
                const size_t rows = out->height - y0 < tl ? out->height - y0 : tl;
                if (file_sample != image_sample_bytes(out->type)) narrow_doubles(buffer, (size_t)tw * tl * spc);
                scatter(out, buffer, tw, spc, base + p, x0, y0, cols, rows);
            }
    free(buffer);
    return status;
}

static const char *sample_format_name(uint16_t format)
{
    switch (format) {
    case SAMPLEFORMAT_UINT: return "unsigned integer";
    case SAMPLEFORMAT_INT: return "signed integer";
    case SAMPLEFORMAT_IEEEFP: return "floating-point";
    case SAMPLEFORMAT_VOID: return "untyped";
    default: return "complex";
    }
}

static char *copy_text(TIFF *tif, uint32_t tag)
{
    const char *text = NULL;
    return TIFFGetField(tif, tag, &text) && text ? strdup(text) : NULL;
}

/* The current page's carried tags into PAGE (absent ones stay empty). */
static void read_page_meta(TIFF *tif, image_page_meta *page)
{
    page->description = copy_text(tif, TIFFTAG_IMAGEDESCRIPTION);
    page->software = copy_text(tif, TIFFTAG_SOFTWARE);
    page->datetime = copy_text(tif, TIFFTAG_DATETIME);
    float x = 0, y = 0;
    if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y) && x > 0 && y > 0) {
        page->has_resolution = 1;
        page->x_resolution = x;
        page->y_resolution = y;
        uint16_t unit = RESUNIT_INCH;
        TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
        page->resolution_unit = unit;
    }
    uint32_t size = 0;
    void *icc = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &size, &icc) && icc && size > 0 && (page->icc = malloc(size))) {
        memcpy(page->icc, icc, size);
        page->icc_size = size;
    }
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

/* Reads the current directory as page PAGE of OUT (allocating OUT, a stack of PAGES pages, at
 * page 0; later pages must match it). */
/* One page into OUT; *NARROWED is set when its samples were 64-bit floats read as f32. */
static int read_image(TIFF *tif, cls_host_image *out, size_t page, size_t pages, const tiff_messages *m,
                      int *narrowed, char *error, size_t error_size)
{
    const char *path = m->path;
    uint32_t width = 0, height = 0;
    uint16_t spp = 1, bps = 1, format = SAMPLEFORMAT_UINT, photometric = 0, planar = PLANARCONFIG_CONTIG;
    uint16_t compression = COMPRESSION_NONE;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no image size in the TIFF directory");
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;

    if (!TIFFIsCODECConfigured(compression)) {
        const TIFFCodec *codec = TIFFFindCODEC(compression);
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "compression %s (%u) cannot be decoded by this libtiff",
                          codec ? codec->name : "unknown", (unsigned)compression);
    }
    if (spp < 1 || spp > IMAGE_MAX_CHANNELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "%u samples per pixel (1 to 4 are supported)", (unsigned)spp);
    cls_pixel_type type;
    if ((format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID) && (bps == 8 || bps == 16))
        type = bps == 8 ? CLS_PIXEL_U8 : CLS_PIXEL_U16;
    else if (format == SAMPLEFORMAT_INT && bps == 16)
        type = CLS_PIXEL_I16;
    else if (format == SAMPLEFORMAT_IEEEFP && bps == 16)
        type = CLS_PIXEL_F16;
    else if (format == SAMPLEFORMAT_IEEEFP && (bps == 32 || bps == 64))
        type = CLS_PIXEL_F32; /* 64-bit floats are narrowed as they are read */
    else
        return image_fail(
            error, error_size, IMAGE_ERR_UNSUPPORTED, path,
            "%u-bit %s samples (8- and 16-bit unsigned integers, 16-bit signed integers and 16-, 32- and "
            "64-bit floats are supported)",
            (unsigned)bps, sample_format_name(format));
    const char *layout = NULL;
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK:
        if (spp > 2)
            layout = "gray images with more than 2 samples per pixel";
        break;
    case PHOTOMETRIC_RGB:
        if (spp < 3)
            layout = "RGB images with fewer than 3 samples per pixel";
        break;
    case PHOTOMETRIC_YCBCR:
        /* JPEG-compressed YCbCr: libjpeg converts to RGB. */
        if (compression == COMPRESSION_JPEG && type == CLS_PIXEL_U8 && spp == 3)
            TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        else
            layout = "YCbCr images (other than JPEG-compressed)";
        break;
    case PHOTOMETRIC_PALETTE: layout = "palette (colour-mapped) images"; break;
    case PHOTOMETRIC_MINISWHITE: layout = "min-is-white images"; break;
    case PHOTOMETRIC_SEPARATED: layout = "CMYK (separated) images"; break;
    default: layout = "this photometric interpretation"; break;
    }
    if (layout)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "%s are not supported (photometric %u)", layout, (unsigned)photometric);
    if (planar != PLANARCONFIG_CONTIG && planar != PLANARCONFIG_SEPARATE)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "bad planar configuration %u",
                          (unsigned)planar);

    if (page == 0) {
        int status = image_alloc_pages(out, width, height, spp, pages, type, path, error, error_size);
        if (status != IMAGE_OK)
            return status;
    } else if (width != out->width || height != out->height || spp != out->channels || type != out->type) {
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "page %zu of %zu is %u x %u, %u channel%s of %s, but page 1 is %zu x %zu, %zu channel%s of "
                          "%s: a stack's pages must share size, channels and type (split it, e.g. with tiffsplit)",
                          page + 1, pages, (unsigned)width, (unsigned)height, (unsigned)spp, spp == 1 ? "" : "s",
                          image_type_name(type), out->width, out->height, out->channels,
                          out->channels == 1 ? "" : "s", image_type_name(out->type));
    }
    const size_t spc = planar == PLANARCONFIG_SEPARATE ? 1 : spp, planes = spp / spc, base = page * spp;
    const size_t file_sample = bps / 8u;
    if ((uint64_t)TIFFScanlineSize64(tif) != (uint64_t)width * spc * file_sample)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "unexpected scanline layout (subsampled or packed samples)");
    if (bps == 64) *narrowed = 1;
    return TIFFIsTiled(tif) ? read_tiles(tif, out, base, planes, spc, file_sample, m, error, error_size)
                            : read_strips(tif, out, base, planes, spc, file_sample, m, error, error_size);
}

/* The compression the writer keeps by default for a file compressed with CODE. */
static image_compression compression_of(uint16_t code)
{
    switch (code) {
    case COMPRESSION_NONE: return IMAGE_COMPRESSION_NONE;
    case COMPRESSION_LZW: return IMAGE_COMPRESSION_LZW;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return IMAGE_COMPRESSION_DEFLATE;
    case COMPRESSION_ZSTD: return IMAGE_COMPRESSION_ZSTD;
    default: return IMAGE_COMPRESSION_DEFAULT; /* JPEG, PackBits...: LZW, lossless */
    }
}

/* Every page of an open file into OUT and its metadata. */
static int read_pages(TIFF *tif, cls_host_image *out, tiff_messages *m, char *error, size_t error_size)
{
    const char *path = m->path;
    const int had_warning = m->warning[0] != '\0';
    const tdir_t pages = TIFFNumberOfDirectories(tif);
    /* A damaged chain of directories would make the count short: refuse it rather than drop pages. */
    if (m->error[0] || (!had_warning && m->warning[0] && structural(m->warning)))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "damaged list of pages: %s",
                          reason(m, "?"));
    if (pages == 0)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "no image in the file");
    if (!TIFFSetDirectory(tif, 0))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "cannot read page 1: %s",
                          reason(m, "damaged directory"));
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
                                (unsigned)p + 1, (unsigned)pages, reason(m, "damaged or truncated directory"));
            break;
        }
        status = read_image(tif, out, p, pages, m, &meta->narrowed_f64, error, error_size);
        if (status != IMAGE_OK && p > 0 && status != IMAGE_ERR_RESOURCE && error && !strstr(error, "page "))
            snprintf(error + strlen(error), error_size - strlen(error), " (page %u of %u)", (unsigned)p + 1,
                     (unsigned)pages);
        if (status != IMAGE_OK)
            break;
        read_page_meta(tif, &metas[p]);
        if (p == 0) {
            uint16_t compression = COMPRESSION_NONE;
            TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
            meta->compression = compression_of(compression);
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
                            reason(&m, "cannot read the header"));
    } else {
        status = read_pages(tif, out, &m, error, error_size);
        if (status == IMAGE_OK && m.warning[0] && structural(m.warning))
            status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "damaged TIFF structure: %s",
                                m.warning);
        TIFFClose(tif);
    }
    current_messages = NULL;
    if (status != IMAGE_OK)
        image_free(out);
    return status;
}

static uint16_t compression_code(image_compression compression)
{
    switch (compression) {
    case IMAGE_COMPRESSION_NONE: return COMPRESSION_NONE;
    case IMAGE_COMPRESSION_DEFLATE: return COMPRESSION_ADOBE_DEFLATE;
    case IMAGE_COMPRESSION_ZSTD: return COMPRESSION_ZSTD;
    default: return COMPRESSION_LZW;
    }
}

int image_compression_available(image_compression compression)
{
    return TIFFIsCODECConfigured(compression_code(compression));
}

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

/* Sets the tags of a contiguous, strip-organized TIFF page with the image's type and channels, the
 * chosen compression (with a predictor: horizontal differences for integers, the floating-point
 * one for floats) and the page's carried tags. */
static int set_tags(TIFF *tif, const cls_host_image *image, size_t page)
{
    const uint16_t spp = (uint16_t)image->channels;
    const int is_float = !image_type_is_integer(image->type);
    const uint16_t sample_format = is_float                        ? SAMPLEFORMAT_IEEEFP
                                   : image->type == CLS_PIXEL_I16 ? SAMPLEFORMAT_INT
                                                                  : SAMPLEFORMAT_UINT;
    const image_meta *meta = image->meta;
    uint16_t compression = compression_code(meta ? meta->compression : IMAGE_COMPRESSION_DEFAULT);
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
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
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

int image_tiff_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    tiff_messages m = {.path = path};
    const size_t bytes = image_sample_bytes(image->type), plane = image_plane_bytes(image);
    const size_t ch = image->channels, w = image->width, pages = image->pages > 1 ? image->pages : 1;
    /* Classic TIFF ends at 4 GiB; LZW may expand data by up to about half. */
    TIFF *tif = tiff_open(fd, path, (uint64_t)plane * ch * pages > ((uint64_t)1 << 31) ? "w8" : "w", &m);
    if (!tif) {
        close(fd);
        current_messages = NULL;
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot create the TIFF: %s",
                          reason(&m, "libtiff failed"));
    }
    unsigned char *row = malloc(w * ch * bytes);
    int ok = row != NULL;
    for (size_t p = 0; ok && p < pages; ++p) {
        ok = set_tags(tif, image, p);
        for (size_t y = 0; ok && y < image->height; ++y) {
            for (size_t c = 0; c < ch; ++c) {
                const unsigned char *in =
                    (const unsigned char *)image->pixels + (p * ch + c) * plane + y * w * bytes;
                for (size_t x = 0; x < w; ++x)
                    memcpy(row + (x * ch + c) * bytes, in + x * bytes, bytes);
            }
            ok = TIFFWriteScanline(tif, row, (uint32_t)y, 0) == 1;
        }
        ok = ok && TIFFWriteDirectory(tif);
    }
    free(row);
    int e = 0;
    if (ok && !TIFFFlush(tif))
        ok = 0;
    if (ok && fsync(TIFFFileno(tif)) != 0) {
        e = errno;
        ok = 0;
    }
    TIFFClose(tif); /* closes fd */
    current_messages = NULL;
    if (ok)
        return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s",
                      e ? strerror(e) : reason(&m, "libtiff failed"));
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
