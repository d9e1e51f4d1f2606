/* band_io.h — an image file read or written a band of rows at a time, a TIFF (with libtiff) or a
 * PGM/PPM/PNM/PFM alike: what filter_stream.c streams through. Bands are planar host images as
 * wide as the image, of its type, with all of a page's channels. */
#ifndef CLS_TOOLS_BAND_IO_H
#define CLS_TOOLS_BAND_IO_H

#include "image_io.h"

#include <stddef.h>

/* Whether PATH's format (its extension) is read and written in bands by this build. */
int band_io_format(const char *path);

typedef struct band_reader band_reader;
/* Opens PATH and checks it: *SHAPE receives the size, channels, pages, type and metadata (owned
 * by *SHAPE: image_free), no pixels. IMAGE_OK or an error class with "PATH: reason". */
int band_reader_open(const char *path, band_reader **out, cls_host_image *shape, char *error, size_t error_size);
/* Rows [Y0, Y0 + ROWS) of page PAGE into rows BAND_ROW... of BAND. */
int band_reader_rows(band_reader *reader, size_t page, size_t y0, size_t rows, cls_host_image *band,
                     size_t band_row, char *error, size_t error_size);
/* The memory the reader decodes into besides the bands (a TIFF's strip or tile). */
size_t band_reader_chunk_bytes(const band_reader *reader);
/* Whether a structural warning came up while reading: IMAGE_OK or IMAGE_ERR_CORRUPT. */
int band_reader_check(const band_reader *reader, char *error, size_t error_size);
void band_reader_close(band_reader *reader);

typedef struct band_writer band_writer;
/* Starts the file on FD (owned from now on) in PATH's format for pages of SHAPE's size, channels
 * and type (and a TIFF's tags and compression in SHAPE->meta, which must outlive the writer). */
int band_writer_open(int fd, const char *path, const cls_host_image *shape, band_writer **out, char *error,
                     size_t error_size);
/* Appends rows BAND_ROW... of BAND as the next ROWS rows (a page's last row ends the page). */
int band_writer_rows(band_writer *writer, const cls_host_image *band, size_t band_row, size_t rows);
/* Flushes the file to disk and closes it: IMAGE_OK only when every row was written; frees the
 * writer either way. */
int band_writer_close(band_writer *writer, char *error, size_t error_size);

#endif
