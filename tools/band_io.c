/* band_io.c — band_io.h over tiff_reader/tiff_writer and pnm_file: one interface for the formats a
 * run in bands reads and writes. The input's rows are asked of the disk ahead of the bands that read
 * them (the first ones from the moment it is opened), an uncompressed output's blocks are reserved
 * at once, and each band written starts its writeback to the disk, so that the output's final fsync
 * does not write the whole file after the last band. */
#define _GNU_SOURCE /* sync_file_range */
#include "band_io.h"

#include "pnm_file.h"
#ifdef CLS_WITH_TIFF
#include "tiff_reader.h"
#include "tiff_writer.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int band_io_format(const char *path)
{
    const image_format format = image_format_of(path);
    return format == IMAGE_FORMAT_TIFF ? image_has_tiff() : format != IMAGE_FORMAT_UNKNOWN;
}

struct band_reader {
    const char *path;
    pnm_file *pnm; /* else a TIFF */
#ifdef CLS_WITH_TIFF
    tiff_reader *tiff;
#endif
    size_t height, ahead_rows;    /* a page's rows; the rows read ahead of the last band read */
    size_t ahead_page, ahead_end; /* the rows asked of the disk so far: page ahead_page's up to ahead_end */
};

enum { BAND_READ_AHEAD_BYTES = 256 << 20 };

/* Keeps the rows of PAGE from row Y on, up to BAND_READ_AHEAD_BYTES of them, coming from the disk
 * while the bands before them are filtered and written (each row asked once). */
static void read_ahead(band_reader *r, size_t page, size_t y)
{
    if (page != r->ahead_page) r->ahead_page = page, r->ahead_end = 0;
    if (y >= r->height) return;
    const size_t from = y > r->ahead_end ? y : r->ahead_end;
    const size_t to = r->height - y > r->ahead_rows ? y + r->ahead_rows : r->height;
    if (to <= from) return;
    if (r->pnm) pnm_read_ahead(r->pnm, from, to - from);
#ifdef CLS_WITH_TIFF
    else tiff_reader_read_ahead(r->tiff, page, from, to - from);
#endif
    r->ahead_end = to;
}

int band_reader_open(const char *path, band_reader **out, cls_host_image *shape, char *error, size_t error_size)
{
    memset(shape, 0, sizeof *shape);
    band_reader *r = *out = calloc(1, sizeof *r);
    if (!r) return image_fail(error, error_size, IMAGE_ERR_RESOURCE, path, "out of memory");
    r->path = path;
    int fd = -1;
    uint64_t size = 0;
    int status = image_open_file(path, &fd, &size, error, error_size); /* a FIFO is refused, not waited on */
    if (status == IMAGE_OK) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (status == IMAGE_OK && image_format_of(path) != IMAGE_FORMAT_TIFF) {
        status = pnm_open(fd, path, size, &r->pnm, shape, error, error_size);
        shape->pages = 1;
    } else if (status == IMAGE_OK) {
#ifdef CLS_WITH_TIFF
        status = tiff_reader_open(fd, path, &r->tiff, shape, error, error_size);
#else
        close(fd);
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "built without TIFF support");
#endif
    }
    if (status != IMAGE_OK) {
        band_reader_close(r);
        *out = NULL;
        return status;
    }
    const size_t row_bytes = shape->width * shape->channels * image_sample_bytes(shape->type);
    r->height = shape->height;
    r->ahead_rows = row_bytes && BAND_READ_AHEAD_BYTES / row_bytes ? BAND_READ_AHEAD_BYTES / row_bytes : 1;
    read_ahead(r, 0, 0); /* the first bands come from the disk while the device's context is made */
    return status;
}

int band_reader_rows(band_reader *r, size_t page, size_t y0, size_t rows, cls_host_image *band, size_t band_row,
                     char *error, size_t error_size)
{
    read_ahead(r, page, y0 + rows);
    if (r->pnm) return pnm_read_rows(r->pnm, r->path, y0, rows, band, band_row, error, error_size);
#ifdef CLS_WITH_TIFF
    return tiff_reader_rows(r->tiff, page, y0, rows, band, 0, band_row, error, error_size);
#else
    return IMAGE_ERR_UNSUPPORTED;
#endif
}

size_t band_reader_chunk_bytes(const band_reader *r)
{
#ifdef CLS_WITH_TIFF
    if (r && r->tiff) return tiff_reader_chunk_bytes(r->tiff);
#endif
    (void)r;
    return 0;
}

int band_reader_check(const band_reader *r, char *error, size_t error_size)
{
#ifdef CLS_WITH_TIFF
    if (r->tiff) return tiff_reader_check(r->tiff, error, error_size);
#endif
    (void)r, (void)error, (void)error_size;
    return IMAGE_OK;
}

void band_reader_close(band_reader *r)
{
    if (!r) return;
    pnm_close(r->pnm, r->path, NULL, 0);
#ifdef CLS_WITH_TIFF
    tiff_reader_close(r->tiff);
#endif
    free(r);
}

struct band_writer {
    const char *path;
    int fd;        /* the file, owned by pnm or tiff */
    pnm_file *pnm; /* else a TIFF */
    size_t next_row;
    int write_errno; /* a PNM row that could not be written */
#ifdef CLS_WITH_TIFF
    tiff_writer *tiff;
#endif
};

/* Reserves the blocks of an output whose size is known (uncompressed: at least its pixels), so that
 * the bands fill blocks already allocated instead of allocating them a page at a time; where the
 * file system cannot, nothing. The file's size stays as written. */
static void reserve_blocks(int fd, const char *path, const cls_host_image *shape)
{
#ifdef FALLOC_FL_KEEP_SIZE
    const int compressed = image_format_of(path) == IMAGE_FORMAT_TIFF &&
                           (!shape->meta || shape->meta->compression != IMAGE_COMPRESSION_NONE);
    const off_t pixels = (off_t)(image_plane_bytes(shape) * image_plane_count(shape));
    if (!compressed) (void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, pixels);
#else
    (void)fd, (void)path, (void)shape;
#endif
}

int band_writer_open(int fd, const char *path, const cls_host_image *shape, band_writer **out, char *error,
                     size_t error_size)
{
    band_writer *w = *out = calloc(1, sizeof *w);
    if (!w) {
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "out of memory");
    }
    w->path = path;
    w->fd = fd;
    reserve_blocks(fd, path, shape);
    int status;
    if (image_format_of(path) != IMAGE_FORMAT_TIFF) {
        status = pnm_create(fd, path, shape, &w->pnm, error, error_size);
    } else {
#ifdef CLS_WITH_TIFF
        status = tiff_writer_open(fd, path, shape, &w->tiff, error, error_size);
#else
        close(fd);
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "built without TIFF support");
#endif
    }
    if (status != IMAGE_OK) {
        free(w);
        *out = NULL;
    }
    return status;
}

/* Starts the writeback of what was written so far (a pipe or a file system without it: nothing). */
static void start_writeback(const band_writer *w)
{
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)w;
#endif
}

int band_writer_rows(band_writer *w, const cls_host_image *band, size_t band_row, size_t rows)
{
    int status;
    if (w->pnm) {
        status = pnm_write_rows(w->pnm, w->next_row, rows, band, band_row);
        if (status != IMAGE_OK && !w->write_errno) w->write_errno = errno ? errno : EIO;
        w->next_row += rows;
    } else {
#ifdef CLS_WITH_TIFF
        status = tiff_writer_rows(w->tiff, band, 0, band_row, rows);
#else
        status = IMAGE_ERR_WRITE;
#endif
    }
    if (status == IMAGE_OK) start_writeback(w);
    return status;
}

int band_writer_close(band_writer *w, char *error, size_t error_size)
{
    int status = IMAGE_OK;
    if (w->pnm && w->write_errno) {
        pnm_close(w->pnm, w->path, NULL, 0);
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, w->path, "cannot write: %s", strerror(w->write_errno));
    } else if (w->pnm) {
        status = pnm_close(w->pnm, w->path, error, error_size);
    }
#ifdef CLS_WITH_TIFF
    else status = tiff_writer_close(w->tiff, error, error_size);
#endif
    free(w);
    return status;
}
