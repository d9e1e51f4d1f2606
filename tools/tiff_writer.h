/* tiff_writer.h — a TIFF file written row by row, page after page: the whole image at once
 * (image_tiff.c) or a band of rows at a time for images larger than the memory a run may use
 * (filter_stream.c). Contiguous samples in strips; BigTIFF when the pixels pass 2 GiB. Only with
 * CLS_WITH_TIFF. */
#ifndef CLS_TOOLS_TIFF_WRITER_H
#define CLS_TOOLS_TIFF_WRITER_H

#include "image_io.h"

#include <stddef.h>

typedef struct tiff_writer tiff_writer;

/* Starts a TIFF on FD (owned from now on) for pages of SHAPE's size, channels and type, with
 * SHAPE->meta's tags and compression (SHAPE's pixels are not used; SHAPE->meta must outlive the
 * writer). IMAGE_OK or IMAGE_ERR_WRITE with "PATH: reason". */
int tiff_writer_open(int fd, const char *path, const cls_host_image *shape, tiff_writer **out, char *error,
                     size_t error_size);
/* Appends rows BAND_ROW... of BAND's planes FIRST_PLANE... (planar, as wide as the image) as the
 * next ROWS rows; a page's last row ends the page. IMAGE_OK or IMAGE_ERR_WRITE (the reason comes
 * from tiff_writer_close). */
int tiff_writer_rows(tiff_writer *writer, const cls_host_image *band, size_t first_plane, size_t band_row,
                     size_t rows);
/* Flushes the file to disk and closes it: IMAGE_OK only when every row of every page was
 * written; else IMAGE_ERR_WRITE with the reason. Frees the writer either way. */
int tiff_writer_close(tiff_writer *writer, char *error, size_t error_size);

#endif
