/* image_pnm.c — binary PGM/PPM (P5/P6, u8/u16) and PFM (Pf/PF, f32): reading and writing, the
 * whole image or a band of rows at a time (pnm_file.h). A sample above the header's maximum value
 * makes the file corrupt (it would pass unscaled). */
#define _DEFAULT_SOURCE /* pwritev */
#include "image_io.h"
#include "pnm_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct pnm_reader {
    FILE *file;
    uint64_t consumed; /* header bytes read so far */
} pnm_reader;

static int next_char(pnm_reader *r)
{
    int c = getc(r->file);
    if (c != EOF)
        r->consumed++;
    return c;
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips a comment whose '#' was just read; returns the character that ends it. */
static int skip_comment(pnm_reader *r)
{
    int c;
    do
        c = next_char(r);
    while (c != EOF && c != '\n' && c != '\r');
    return c;
}

/* Reads one header token (skipping blanks and comments) into BUF, NUL-terminated and cut to
 * SIZE - 1; *end gets the character that ended it (a blank, '#' or EOF), already consumed.
 * Returns 0 when no token is left. */
static int read_token(pnm_reader *r, char *buf, size_t size, int *end)
{
    int c;
    for (;;) {
        c = next_char(r);
        if (c == '#')
            c = skip_comment(r);
        if (c == EOF)
            return 0;
        if (!is_space(c))
            break;
    }
    size_t n = 0;
    while (c != EOF && !is_space(c) && c != '#') {
        if (n + 1 < size)
            buf[n++] = (char)c;
        c = next_char(r);
    }
    buf[n] = '\0';
    for (size_t i = 0; i < n; ++i) /* it may be quoted in a message: no binary junk on the terminal */
        if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
            buf[i] = '?';
    *end = c;
    return 1;
}

/* A decimal number saturated at 2^40; -1 if TEXT is not all digits. */
static int64_t parse_count(const char *text)
{
    int64_t value = 0;
    if (!*text)
        return -1;
    for (; *text; ++text) {
        if (*text < '0' || *text > '9')
            return -1;
        value = value * 10 + (*text - '0');
        if (value > ((int64_t)1 << 40))
            value = (int64_t)1 << 40;
    }
    return value;
}

static uint32_t load32(const unsigned char *p, int little)
{
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

/* Spreads one interleaved file row into row Y of the planes. */
static void unpack_row(const unsigned char *row, cls_host_image *image, size_t y, int pfm_little)
{
    const size_t w = image->width, ch = image->channels, plane = image_plane_bytes(image);
    for (size_t c = 0; c < ch; ++c) {
        unsigned char *base = (unsigned char *)image->pixels + c * plane;
        for (size_t x = 0; x < w; ++x) {
            const size_t s = x * ch + c, i = y * w + x;
            if (image->type == CLS_PIXEL_U8) {
                base[i] = row[s];
            } else if (image->type == CLS_PIXEL_U16) {
                uint16_t v = (uint16_t)(row[2 * s] << 8 | row[2 * s + 1]);
                memcpy(base + 2 * i, &v, 2);
            } else {
                uint32_t bits = load32(row + 4 * s, pfm_little);
                float v;
                memcpy(&v, &bits, 4);
                memcpy(base + 4 * i, &v, 4);
            }
        }
    }
}

/* Whether a file row holds IMAGE's row as it lies in memory (one channel of bytes, or of floats in
 * the file's byte order when that is the host's), so that it is read and written in place. */
static int row_as_stored(const cls_host_image *image, int pfm_little)
{
    const uint16_t one = 1;
    const int host_little = *(const unsigned char *)&one == 1;
    return image->channels == 1 &&
           (image->type == CLS_PIXEL_U8 || (image->type == CLS_PIXEL_F32 && pfm_little == host_little));
}

/* The first sample of a file row above MAXVAL: its index, or -1 when there is none. */
static long long sample_above(const unsigned char *row, size_t samples, int wide, unsigned maxval, unsigned *value)
{
    for (size_t s = 0; s < samples; ++s) {
        const unsigned v = wide ? (unsigned)(row[2 * s] << 8 | row[2 * s + 1]) : row[s];
        if (v > maxval) {
            *value = v;
            return (long long)s;
        }
    }
    return -1;
}

static int pnm_header(pnm_reader *r, const char *path, cls_host_image *shape, int *pfm_little,
                      unsigned *maxval, char *error, size_t error_size)
{
    int c0 = next_char(r), c1 = next_char(r), end = 0;
    int pfm = 0;
    shape->channels = 1;
    if (c0 != 'P')
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                          "not a PGM, PPM or PFM file (bad signature)");
    switch (c1) {
    case '5': break;
    case '6': shape->channels = 3; break;
    case 'f': pfm = 1; break;
    case 'F': pfm = 1; shape->channels = 3; break;
    case '1':
    case '4':
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "PBM bitmaps are not supported");
    case '2':
    case '3':
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "plain (ASCII) PGM/PPM is not supported; use binary P5/P6");
    case '7':
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "PAM (P7) is not supported");
    default:
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                          "not a PGM, PPM or PFM file (bad signature)");
    }
    static const char *const fields[] = {"width", "height", "maximum value"};
    int64_t values[3] = {0, 0, 0};
    char token[64];
    for (int i = 0; i < 3; ++i) {
        if (!read_token(r, token, sizeof token, &end))
            return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                              "bad header: it ends before the %s", pfm && i == 2 ? "scale" : fields[i]);
        if (pfm && i == 2) {
            char *stop;
            double scale = strtod(token, &stop);
            if (*stop || !isfinite(scale) || scale == 0)
                return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                                  "bad header: the PFM scale '%s' is not a non-zero number", token);
            *pfm_little = scale < 0;
        } else if ((values[i] = parse_count(token)) <= 0 || (i == 2 && values[i] > 65535)) {
            return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                              "bad header: the %s '%s' is not %s", fields[i], token,
                              i == 2 ? "in 1..65535" : "a positive integer");
        }
    }
    /* Exactly one blank separates the header from the pixels. */
    if (!is_space(end))
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                          end == EOF ? "truncated: no pixel data after the header"
                                     : "bad header: no blank after the last field");
    shape->width = (size_t)values[0];
    shape->height = (size_t)values[1];
    *maxval = pfm ? 0 : (unsigned)values[2];
    shape->type = pfm ? CLS_PIXEL_F32 : values[2] <= 255 ? CLS_PIXEL_U8 : CLS_PIXEL_U16;
    return IMAGE_OK;
}

/* An open PGM/PPM/PFM whose rows are read or written a band at a time (positioned reads and
 * writes after the header). */
struct pnm_file {
    FILE *file;           /* owns the descriptor */
    int writing;
    uint64_t data_offset; /* where the first file row starts */
    size_t height, row_bytes;
    int little;           /* PFM samples little-endian */
    int bottom_up;        /* PFM: rows stored bottom to top */
    unsigned maxval;      /* PGM/PPM; samples above it make the file corrupt */
    unsigned char *row;   /* one file row, for conversions */
};

static pnm_file *pnm_new(int fd, const char *mode, const char *path, int code, char *error, size_t error_size)
{
    pnm_file *f = calloc(1, sizeof *f);
    FILE *file = f ? fdopen(fd, mode) : NULL;
    if (!file) {
        const int e = f ? errno : ENOMEM;
        free(f);
        close(fd);
        image_fail(error, error_size, code, path, "%s", strerror(e));
        return NULL;
    }
    f->file = file;
    return f;
}

/* What follows the pixel data, EXTRA bytes at AT: nothing or white space (a final newline), else
 * refused, so that nothing is dropped unsaid: a second image of a Netpbm stream (unsupported) or
 * other bytes (corrupt). */
static int check_after_data(int fd, uint64_t at, uint64_t extra, const char *path, char *error, size_t error_size)
{
    unsigned char head[64];
    const ssize_t got = pread(fd, head, extra < sizeof head ? (size_t)extra : sizeof head, (off_t)at);
    if (got < 0) return image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "read error: %s", strerror(errno));
    size_t k = 0;
    while (k < (size_t)got && is_space(head[k])) ++k;
    if (k == (size_t)got && extra <= sizeof head) return IMAGE_OK;
    if (k + 1 < (size_t)got && head[k] == 'P' && head[k + 1] && strchr("123456Ff", head[k + 1]))
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "a second image follows the first (%llu more bytes): one image a file is read",
                          (unsigned long long)extra);
    return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "%llu bytes after the pixel data",
                      (unsigned long long)extra);
}

int pnm_open(int fd, const char *path, uint64_t file_size, pnm_file **out, cls_host_image *shape, char *error,
             size_t error_size)
{
    memset(shape, 0, sizeof *shape);
    pnm_file *f = *out = pnm_new(fd, "rb", path, IMAGE_ERR_UNREADABLE, error, error_size);
    if (!f) return IMAGE_ERR_UNREADABLE;
    pnm_reader reader = {f->file, 0};
    int status = pnm_header(&reader, path, shape, &f->little, &f->maxval, error, error_size);
    if (status == IMAGE_OK && ferror(f->file))
        status = image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "read error");
    /* Check the size before anything is allocated, so a lying header costs nothing. */
    size_t pixels = 0, data_bytes = 0;
    if (status == IMAGE_OK &&
        (!image_mul(shape->width, shape->height, &pixels) || pixels > IMAGE_MAX_PLANE_PIXELS ||
         !image_mul(shape->width, shape->channels * image_sample_bytes(shape->type), &f->row_bytes) ||
         !image_mul(f->row_bytes, shape->height, &data_bytes)))
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                            "image too large (%zu x %zu; at most 2^31 pixels)", shape->width, shape->height);
    const uint64_t present = file_size > reader.consumed ? file_size - reader.consumed : 0;
    if (status == IMAGE_OK && present < (uint64_t)data_bytes)
        status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                            "truncated pixel data: %zu bytes expected after the header, %llu present",
                            data_bytes, (unsigned long long)present);
    if (status == IMAGE_OK && present > (uint64_t)data_bytes)
        status = check_after_data(fileno(f->file), reader.consumed + data_bytes, present - data_bytes, path, error,
                                  error_size);
    f->data_offset = reader.consumed;
    f->height = shape->height;
    f->bottom_up = shape->type == CLS_PIXEL_F32;
    if (status == IMAGE_OK && !(f->row = malloc(f->row_bytes)))
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
    if (status != IMAGE_OK) {
        pnm_close(f, path, NULL, 0);
        *out = NULL;
    }
    return status;
}

int pnm_read_rows(pnm_file *f, const char *path, size_t y0, size_t rows, cls_host_image *band, size_t band_row,
                  char *error, size_t error_size)
{
    const int pfm = band->type == CLS_PIXEL_F32, in_place = row_as_stored(band, f->little);
    const int fd = fileno(f->file);
    for (size_t k = 0; k < rows; ++k) {
        const size_t y = y0 + k, file_row = pfm ? f->height - 1 - y : y; /* PFM stores rows bottom to top */
        unsigned char *target = in_place ? (unsigned char *)band->pixels + (band_row + k) * f->row_bytes : f->row;
        const ssize_t got = pread(fd, target, f->row_bytes, (off_t)(f->data_offset + (uint64_t)file_row * f->row_bytes));
        if (got != (ssize_t)f->row_bytes)
            return got < 0 ? image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "read error: %s", strerror(errno))
                           : image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                                        "truncated pixel data (row %zu of %zu)", y, f->height);
        unsigned value = 0;
        const long long above = pfm || f->maxval == 255 || f->maxval == 65535
                                    ? -1
                                    : sample_above(target, band->width * band->channels, f->maxval > 255, f->maxval,
                                                   &value);
        if (above >= 0)
            return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path,
                              "sample %u at x %llu, y %zu is above the header's maximum value %u", value,
                              (unsigned long long)above / band->channels, y, f->maxval);
        if (!in_place) unpack_row(f->row, band, band_row + k, f->little);
    }
    return IMAGE_OK;
}

void pnm_read_ahead(pnm_file *f, size_t y0, size_t rows)
{
    const size_t first = f->bottom_up ? f->height - y0 - rows : y0; /* the rows' first in the file */
    (void)posix_fadvise(fileno(f->file), (off_t)(f->data_offset + (uint64_t)first * f->row_bytes),
                        (off_t)(rows * f->row_bytes), POSIX_FADV_WILLNEED);
}

int pnm_close(pnm_file *f, const char *path, char *error, size_t error_size)
{
    if (!f) return IMAGE_OK;
    int e = 0;
    if (f->writing && (fflush(f->file) != 0 || fsync(fileno(f->file)) != 0)) e = errno;
    if (fclose(f->file) != 0 && !e && f->writing) e = errno;
    free(f->row);
    free(f);
    return e ? image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(e)) : IMAGE_OK;
}

int image_pnm_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error,
                   size_t error_size)
{
    memset(out, 0, sizeof *out); /* image_free below must see an empty image */
    pnm_file *file = NULL;
    cls_host_image shape;
    int status = pnm_open(fd, path, file_size, &file, &shape, error, error_size);
    if (status == IMAGE_OK)
        status = image_alloc(out, shape.width, shape.height, shape.channels, shape.type, path, error, error_size);
    if (status == IMAGE_OK) status = pnm_read_rows(file, path, 0, shape.height, out, 0, error, error_size);
    pnm_close(file, path, NULL, 0);
    if (status != IMAGE_OK) image_free(out);
    return status;
}

int image_pnm_check(image_format format, const char *path, const cls_host_image *image, char *error,
                    size_t error_size)
{
    const size_t ch = image->channels;
    const int is_float = image->type == CLS_PIXEL_F32;
    const int is_unsigned = image->type == CLS_PIXEL_U8 || image->type == CLS_PIXEL_U16;
    const char *need = NULL;
    if (image->pages > 1)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "a stack of %zu pages: PGM, PPM, PNM and PFM hold one image (write a .tif)",
                          image->pages);
    if (format == IMAGE_FORMAT_PFM && (!is_float || (ch != 1 && ch != 3)))
        need = "PFM holds 1 or 3 channels of f32";
    else if (format == IMAGE_FORMAT_PGM && (!is_unsigned || ch != 1))
        need = "PGM holds 1 channel of u8 or u16";
    else if (format == IMAGE_FORMAT_PPM && (!is_unsigned || ch != 3))
        need = "PPM holds 3 channels of u8 or u16";
    else if (format == IMAGE_FORMAT_PNM && (!is_unsigned || (ch != 1 && ch != 3)))
        need = "PNM holds 1 or 3 channels of u8 or u16";
    if (!need)
        return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                      "%s, not %zu channel%s of %s (a .tif holds any)", need, ch, ch == 1 ? "" : "s",
                      image_type_name(image->type));
}

/* Interleaves row Y of the planes into ROW in file order. */
static void pack_row(unsigned char *row, const cls_host_image *image, size_t y)
{
    const size_t w = image->width, ch = image->channels, plane = image_plane_bytes(image);
    for (size_t c = 0; c < ch; ++c) {
        const unsigned char *base = (const unsigned char *)image->pixels + c * plane;
        for (size_t x = 0; x < w; ++x) {
            const size_t s = x * ch + c, i = y * w + x;
            if (image->type == CLS_PIXEL_U8) {
                row[s] = base[i];
            } else if (image->type == CLS_PIXEL_U16) {
                uint16_t v;
                memcpy(&v, base + 2 * i, 2);
                row[2 * s] = (unsigned char)(v >> 8);
                row[2 * s + 1] = (unsigned char)(v & 0xff);
            } else { /* little-endian, announced by the negative scale */
                uint32_t bits;
                memcpy(&bits, base + 4 * i, 4);
                for (int b = 0; b < 4; ++b)
                    row[4 * s + (size_t)b] = (unsigned char)(bits >> (8 * b));
            }
        }
    }
}

int pnm_create(int fd, const char *path, const cls_host_image *shape, pnm_file **out, char *error, size_t error_size)
{
    pnm_file *f = *out = pnm_new(fd, "wb", path, IMAGE_ERR_WRITE, error, error_size);
    if (!f) return IMAGE_ERR_WRITE;
    f->writing = 1;
    f->height = shape->height;
    f->little = 1; /* PFMs are written little-endian, announced by the negative scale */
    f->row_bytes = shape->width * shape->channels * image_sample_bytes(shape->type);
    const int written = shape->type == CLS_PIXEL_F32
                            ? fprintf(f->file, "P%c\n%zu %zu\n-1.0\n", shape->channels == 1 ? 'f' : 'F', shape->width,
                                      shape->height)
                            : fprintf(f->file, "P%c\n%zu %zu\n%u\n", shape->channels == 1 ? '5' : '6', shape->width,
                                      shape->height, shape->type == CLS_PIXEL_U8 ? 255u : 65535u);
    const long offset = written < 0 || fflush(f->file) != 0 ? -1 : ftell(f->file);
    f->data_offset = offset < 0 ? 0 : (uint64_t)offset;
    if (offset >= 0 && (f->row = malloc(f->row_bytes))) return IMAGE_OK;
    const int e = offset < 0 ? errno : ENOMEM;
    f->writing = 0;
    pnm_close(f, path, NULL, 0);
    *out = NULL;
    return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(e));
}

/* Rows Y0.. of BAND (from BAND_ROW) stored as the file stores them: runs of up to ROWS_A_WRITE
 * rows in one pwritev each, in file order (a PFM's rows go bottom-up). */
static int write_stored_rows(pnm_file *f, size_t y0, size_t rows, const cls_host_image *band, size_t band_row)
{
    enum { ROWS_A_WRITE = 64 };
    const int pfm = band->type == CLS_PIXEL_F32;
    struct iovec rows_in_file_order[ROWS_A_WRITE];
    for (size_t k = 0; k < rows;) {
        const size_t n = rows - k < ROWS_A_WRITE ? rows - k : ROWS_A_WRITE;
        for (size_t i = 0; i < n; ++i) {
            const size_t r = band_row + (pfm ? k + n - 1 - i : k + i);
            rows_in_file_order[i] = (struct iovec){(unsigned char *)band->pixels + r * f->row_bytes, f->row_bytes};
        }
        const size_t first = pfm ? f->height - y0 - k - n : y0 + k; /* the run's first row in the file */
        const off_t offset = (off_t)(f->data_offset + (uint64_t)first * f->row_bytes);
        if (pwritev(fileno(f->file), rows_in_file_order, (int)n, offset) != (ssize_t)(n * f->row_bytes))
            return IMAGE_ERR_WRITE;
        k += n;
    }
    return IMAGE_OK;
}

int pnm_write_rows(pnm_file *f, size_t y0, size_t rows, const cls_host_image *band, size_t band_row)
{
    const int pfm = band->type == CLS_PIXEL_F32, in_place = row_as_stored(band, f->little);
    if (in_place) return write_stored_rows(f, y0, rows, band, band_row);
    for (size_t k = 0; k < rows; ++k) {
        const size_t y = y0 + k, file_row = pfm ? f->height - 1 - y : y;
        pack_row(f->row, band, band_row + k);
        if (pwrite(fileno(f->file), f->row, f->row_bytes,
                   (off_t)(f->data_offset + (uint64_t)file_row * f->row_bytes)) != (ssize_t)f->row_bytes)
            return IMAGE_ERR_WRITE;
    }
    return IMAGE_OK;
}

int image_pnm_write(int fd, image_format format, const char *path, const cls_host_image *image,
                    char *error, size_t error_size)
{
    (void)format; /* image_pnm_check has matched the image to the extension */
    pnm_file *file = NULL;
    int status = pnm_create(fd, path, image, &file, error, error_size);
    if (status == IMAGE_OK && pnm_write_rows(file, 0, image->height, image, 0) != IMAGE_OK)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(errno));
    const int closed = pnm_close(file, path, status == IMAGE_OK ? error : NULL, error_size);
    return status == IMAGE_OK ? closed : status;
}
