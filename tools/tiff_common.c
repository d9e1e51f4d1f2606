/* tiff_common.c — the libtiff calls the TIFF reader and writer share (tiff_internal.h): messages
 * captured per file, never printed; a page's layout checked; rows decoded from strips or tiles
 * into planes. */
#ifdef CLS_WITH_TIFF

#include "tiff_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tiles above this many pixels are refused: a corrupt tile size must not cost a huge buffer. */
#define MAX_TILE_PIXELS ((uint64_t)1 << 26)

/* For libtiff messages that bypass the per-file handlers (none are expected). */
static _Thread_local tiff_messages *current_messages;

static void capture(tiff_messages *m, int is_error, const char *module, const char *format, va_list args)
{
    if (!m)
        return;
    char *slot = is_error ? m->error : m->warning, text[200];
    vsnprintf(text, sizeof text, format, args);
    /* the first of each kind, except that a warning about the data replaces a harmless one */
    if (slot[0] && (is_error || tiff_structural(slot) || !tiff_structural(text)))
        return;
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

/* Layout warnings mean that libtiff filled in missing offsets or recomputed byte counts, or
 * discarded data a strip's decoding overran; others (unknown tags, unsorted tags) are harmless. */
int tiff_structural(const char *warning)
{
    static const char *const words[] = {"strip", "tile", "bytecount", "offset", "incorrect count", "bogus",
                                        "sanity", "truncat", "premature", "corrupt", "invalid", "cannot",
                                        "overrun", "discard"};
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

const char *tiff_reason(const tiff_messages *m, const char *fallback)
{
    return m->error[0] ? m->error : m->warning[0] ? m->warning : fallback;
}

TIFF *tiff_open(int fd, const char *path, const char *mode, tiff_messages *m)
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

void tiff_release_messages(void)
{
    current_messages = NULL;
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

/* tifffile describes a page of separate planes as {"shape": [..., C, H, W]}; the page is read and
 * written back with its samples interleaved, [..., H, W, C]: DESCRIPTION with its shape so (the
 * same text where it holds no such shape), for tifffile to read the output as it is. */
static char *interleaved_description(char *description, uint16_t samples)
{
    json_object *root = description && description[0] == '{' ? json_tokener_parse(description) : NULL, *shape = NULL;
    size_t n = 0;
    if (root && json_object_object_get_ex(root, "shape", &shape) && json_object_is_type(shape, json_type_array))
        n = json_object_array_length(shape);
    if (n >= 3 && json_object_get_int64(json_object_array_get_idx(shape, n - 3)) == samples) {
        json_object *channels = json_object_get(json_object_array_get_idx(shape, n - 3));
        json_object_array_del_idx(shape, n - 3, 1);
        json_object_array_add(shape, channels);
        char *text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
        if (text) {
            free(description);
            description = text;
        }
    }
    json_object_put(root);
    return description;
}

void tiff_read_page_meta(TIFF *tif, image_page_meta *page)
{
    page->description = copy_text(tif, TIFFTAG_IMAGEDESCRIPTION);
    uint16_t planar = PLANARCONFIG_CONTIG, samples = 1;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    if (planar == PLANARCONFIG_SEPARATE && samples > 1)
        page->description = interleaved_description(page->description, samples);
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

image_compression tiff_compression_of(uint16_t code)
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

uint16_t tiff_compression_code(image_compression compression)
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
    return TIFFIsCODECConfigured(tiff_compression_code(compression));
}

/* The pixel type of BPS-bit samples of FORMAT; 0 when unsupported. */
static int pixel_type_of(uint16_t format, uint16_t bps, cls_pixel_type *type)
{
    if ((format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID) && (bps == 8 || bps == 16))
        *type = bps == 8 ? CLS_PIXEL_U8 : CLS_PIXEL_U16;
    else if (format == SAMPLEFORMAT_INT && bps == 16)
        *type = CLS_PIXEL_I16;
    else if (format == SAMPLEFORMAT_IEEEFP && bps == 16)
        *type = CLS_PIXEL_F16;
    else if (format == SAMPLEFORMAT_IEEEFP && (bps == 32 || bps == 64))
        *type = CLS_PIXEL_F32; /* 64-bit floats are narrowed as they are read */
    else
        return 0;
    return 1;
}

/* What a photometric interpretation of SPP samples cannot be read as (NULL: it can). */
static const char *unsupported_layout(TIFF *tif, uint16_t photometric, uint16_t spp, uint16_t compression,
                                      cls_pixel_type type)
{
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK: return spp > 2 ? "gray images with more than 2 samples per pixel" : NULL;
    case PHOTOMETRIC_RGB: return spp < 3 ? "RGB images with fewer than 3 samples per pixel" : NULL;
    case PHOTOMETRIC_YCBCR:
        /* JPEG-compressed YCbCr: libjpeg converts to RGB. */
        if (compression == COMPRESSION_JPEG && type == CLS_PIXEL_U8 && spp == 3) {
            TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
            return NULL;
        }
        return "YCbCr images (other than JPEG-compressed)";
    case PHOTOMETRIC_PALETTE: return "palette (colour-mapped) images";
    case PHOTOMETRIC_MINISWHITE: return "min-is-white images";
    case PHOTOMETRIC_SEPARATED: return "CMYK (separated) images";
    default: return "this photometric interpretation";
    }
}

/* The chunk (strip or tile) size of the current page into L; IMAGE_OK or an error class. */
static int chunk_layout(TIFF *tif, tiff_layout *l, const char *path, char *error, size_t error_size)
{
    const size_t row_bytes = l->width * l->spc * l->file_sample;
    if (!l->tiled) {
        uint32_t rps = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        const size_t rows = (rps == 0 || rps > l->height) ? l->height : rps;
        l->chunk_bytes = rows * row_bytes;
        return IMAGE_OK;
    }
    uint32_t tw = 0, tl = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &tl);
    if (tw == 0 || tl == 0)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "bad tile size %u x %u", tw, tl);
    if ((uint64_t)tw * tl > MAX_TILE_PIXELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "tiles of %u x %u are too large", tw, tl);
    l->chunk_bytes = (size_t)tw * tl * l->spc * l->file_sample;
    if ((uint64_t)TIFFTileSize64(tif) != (uint64_t)l->chunk_bytes)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "unexpected tile layout (subsampled or packed samples)");
    return IMAGE_OK;
}

int tiff_page_layout(TIFF *tif, const tiff_messages *m, tiff_layout *out, char *error, size_t error_size)
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
    if (!pixel_type_of(format, bps, &type))
        return image_fail(
            error, error_size, IMAGE_ERR_UNSUPPORTED, path,
            "%u-bit %s samples (8- and 16-bit unsigned integers, 16-bit signed integers and 16-, 32- and "
            "64-bit floats are supported)",
            (unsigned)bps, sample_format_name(format));
    const char *layout = unsupported_layout(tif, photometric, spp, compression, type);
    if (layout)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "%s are not supported (photometric %u)", layout, (unsigned)photometric);
    if (planar != PLANARCONFIG_CONTIG && planar != PLANARCONFIG_SEPARATE)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "bad planar configuration %u",
                          (unsigned)planar);
    *out = (tiff_layout){.width = width, .height = height, .channels = spp, .type = type,
                         .spc = planar == PLANARCONFIG_SEPARATE ? 1 : spp, .file_sample = bps / 8u,
                         .tiled = TIFFIsTiled(tif), .compression = compression};
    if ((uint64_t)TIFFScanlineSize64(tif) != (uint64_t)width * out->spc * out->file_sample)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "unexpected scanline layout (subsampled or packed samples)");
    return chunk_layout(tif, out, path, error, error_size);
}

/* The rows of [Y0, Y0 + ROWS) within [FROM, FROM + COUNT) as [*first, *first + *count). */
static void overlap(size_t y0, size_t rows, size_t from, size_t count, size_t *first, size_t *n)
{
    *first = y0 > from ? y0 : from;
    const size_t end = y0 + rows < from + count ? y0 + rows : from + count;
    *n = end > *first ? end - *first : 0;
}

/* Where strips hold their rows as they are (uncompressed, in this machine's byte and bit order),
 * the run of strips from STRIP on that lies back to back in the file, each of BYTES: how many, at
 * most COUNT. Such a run is read with one pread() instead of a libtiff call a strip (an 8192x8192
 * f32 TIFF of one row a strip: about 100 ms in 8192 calls, 54 ms in a read a band). */
static size_t plain_run(TIFF *tif, const tiff_layout *l, uint32_t strip, size_t count, uint64_t bytes)
{
    uint16_t fill_order = FILLORDER_MSB2LSB;
    TIFFGetFieldDefaulted(tif, TIFFTAG_FILLORDER, &fill_order);
    if (l->compression != COMPRESSION_NONE || fill_order != FILLORDER_MSB2LSB ||
        (TIFFIsByteSwapped(tif) && l->file_sample > 1))
        return 0;
    uint64_t next = TIFFGetStrileOffset(tif, strip);
    size_t run = 0;
    while (run < count && TIFFGetStrileByteCount(tif, strip + (uint32_t)run) == bytes &&
           TIFFGetStrileOffset(tif, strip + (uint32_t)run) == next) {
        next += bytes;
        ++run;
    }
    return run;
}

/* Reads BYTES at OFFSET of the file into TO; 0 where the file ends before them or fails. */
static int read_at(TIFF *tif, uint64_t offset, unsigned char *to, size_t bytes)
{
    const int fd = TIFFFileno(tif);
    while (bytes > 0) {
        const ssize_t got = pread(fd, to, bytes, (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        to += got, offset += (uint64_t)got, bytes -= (size_t)got;
    }
    return 1;
}

static int read_strip_rows(TIFF *tif, const tiff_layout *l, cls_host_image *band, size_t first_plane, size_t y0,
                           size_t rows, size_t band_row, unsigned char *buffer, const tiff_messages *m, char *error,
                           size_t error_size)
{
    const size_t row_bytes = l->width * l->spc * l->file_sample, rps = l->chunk_bytes / row_bytes;
    const size_t strips_per_plane = (l->height + rps - 1) / rps, planes = l->channels / l->spc;
    const size_t bytes = image_sample_bytes(l->type);
    if ((uint64_t)TIFFNumberOfStrips(tif) < (uint64_t)strips_per_plane * planes)
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, m->path, "%u strips, %zu expected",
                          (unsigned)TIFFNumberOfStrips(tif), strips_per_plane * planes);
    for (size_t p = 0; p < planes; ++p)
        for (size_t s = y0 / rps; s * rps < y0 + rows; ++s) {
            const size_t sy = s * rps, in_strip = l->height - sy < rps ? l->height - sy : rps;
            const tmsize_t want = (tmsize_t)(in_strip * row_bytes);
            const uint32_t strip = (uint32_t)(p * strips_per_plane + s);
            /* A strip of one sample a pixel wholly inside the rows: decoded in place, not copied. */
            unsigned char *in_place = NULL;
            if (l->spc == 1 && l->file_sample == bytes && band->width == l->width && sy >= y0 &&
                sy + in_strip <= y0 + rows)
                in_place = (unsigned char *)band->pixels + (first_plane + p) * image_plane_bytes(band) +
                           (band_row + sy - y0) * row_bytes;
            /* and with the whole strips after it, where they lie back to back as they are */
            const size_t whole = in_place && in_strip == rps ? (y0 + rows - sy) / rps : 0;
            const size_t run = whole > 1 ? plain_run(tif, l, strip, whole, (uint64_t)want) : 0;
            if (run > 1 && read_at(tif, TIFFGetStrileOffset(tif, strip), in_place, run * (size_t)want)) {
                s += run - 1;
                continue;
            }
            if (TIFFReadEncodedStrip(tif, strip, in_place ? in_place : buffer, want) != want)
                return image_fail(error, error_size, IMAGE_ERR_CORRUPT, m->path, "cannot decode strip %u: %s",
                                  (unsigned)strip, tiff_reason(m, "truncated or damaged data"));
            if (in_place) continue;
            if (l->file_sample != bytes) narrow_doubles(buffer, in_strip * l->width * l->spc);
            size_t first, count;
            overlap(y0, rows, sy, in_strip, &first, &count);
            scatter(band, buffer + (first - sy) * l->width * l->spc * bytes, l->width, l->spc, first_plane + p, 0,
                    band_row + first - y0, l->width, count);
        }
    return IMAGE_OK;
}

static int read_tile_rows(TIFF *tif, const tiff_layout *l, cls_host_image *band, size_t first_plane, size_t y0,
                          size_t rows, size_t band_row, unsigned char *buffer, const tiff_messages *m, char *error,
                          size_t error_size)
{
    uint32_t tw = 0, tl = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &tl);
    const size_t planes = l->channels / l->spc, bytes = image_sample_bytes(l->type);
    for (size_t p = 0; p < planes; ++p)
        for (size_t ty = y0 / tl * tl; ty < y0 + rows; ty += tl)
            for (size_t x0 = 0; x0 < l->width; x0 += tw) {
                const uint32_t tile = TIFFComputeTile(tif, (uint32_t)x0, (uint32_t)ty, 0, (uint16_t)p);
                if (TIFFReadEncodedTile(tif, tile, buffer, (tmsize_t)l->chunk_bytes) != (tmsize_t)l->chunk_bytes)
                    return image_fail(error, error_size, IMAGE_ERR_CORRUPT, m->path, "cannot decode tile %u: %s",
                                      (unsigned)tile, tiff_reason(m, "truncated or damaged data"));
                if (l->file_sample != bytes) narrow_doubles(buffer, (size_t)tw * tl * l->spc);
                size_t first, count;
                overlap(y0, rows, ty, l->height - ty < tl ? l->height - ty : tl, &first, &count);
                const size_t cols = l->width - x0 < tw ? l->width - x0 : tw;
                scatter(band, buffer + (first - ty) * tw * l->spc * bytes, tw, l->spc, first_plane + p, x0,
                        band_row + first - y0, cols, count);
            }
    return IMAGE_OK;
}

int tiff_read_rows(TIFF *tif, const tiff_layout *layout, cls_host_image *band, size_t first_plane, size_t y0,
                   size_t rows, size_t band_row, const tiff_messages *m, char *error, size_t error_size)
{
    unsigned char *buffer = malloc(layout->chunk_bytes);
    if (!buffer) return image_fail(error, error_size, IMAGE_ERR_RESOURCE, m->path, "out of memory");
    const int status =
        layout->tiled
            ? read_tile_rows(tif, layout, band, first_plane, y0, rows, band_row, buffer, m, error, error_size)
            : read_strip_rows(tif, layout, band, first_plane, y0, rows, band_row, buffer, m, error, error_size);
    free(buffer);
    return status;
}

#endif /* CLS_WITH_TIFF */
