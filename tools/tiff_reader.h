/* tiff_reader.h — a TIFF file open for reading, its pages checked up front and their rows decoded
 * on demand: the whole image at once (image_tiff.c) or a band of rows at a time for images larger
 * than the memory a run may use (filter_stream.c). Only with CLS_WITH_TIFF. */
#ifndef CLS_TOOLS_TIFF_READER_H
#define CLS_TOOLS_TIFF_READER_H

#include "image_io.h"

#include <stddef.h>

typedef struct tiff_reader tiff_reader;

/* Opens FD (owned from now on) and checks every page: a file of several pages is a stack when
 * every page has the first's size, type and channels, else it is refused, naming the page.
 * *SHAPE receives the size, channels, pages, type and metadata (which *SHAPE then owns: free it
 * with image_free); its pixels stay NULL. IMAGE_OK or an error class with "PATH: reason". */
int tiff_reader_open(int fd, const char *path, tiff_reader **out, cls_host_image *shape, char *error,
                     size_t error_size);
/* Decodes rows [Y0, Y0 + ROWS) of page PAGE into rows BAND_ROW... of BAND's planes FIRST_PLANE...
 * (BAND is planar, as wide as the image, of its type). Pages are cheapest in order. */
int tiff_reader_rows(tiff_reader *reader, size_t page, size_t y0, size_t rows, cls_host_image *band,
                     size_t first_plane, size_t band_row, char *error, size_t error_size);
/* Asks the system to read rows [Y0, Y0 + ROWS) of page PAGE from the disk, for a tiff_reader_rows
 * to come: the current page's strips of interleaved samples (other layouts: nothing). */
void tiff_reader_read_ahead(tiff_reader *reader, size_t page, size_t y0, size_t rows);
/* The bytes the reader decodes a strip or tile into (what a band costs besides its rows). */
size_t tiff_reader_chunk_bytes(const tiff_reader *reader);
/* Whether a structural warning came up while reading (the pixels may be wrong): IMAGE_OK or
 * IMAGE_ERR_CORRUPT with the reason. */
int tiff_reader_check(const tiff_reader *reader, char *error, size_t error_size);
void tiff_reader_close(tiff_reader *reader);

#endif
