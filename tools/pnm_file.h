/* pnm_file.h — a PGM/PPM/PFM file open for its rows: read a band at a time (filter_stream.c, and
 * image_pnm_read for the whole image) or written a band at a time, in any order (PFM stores its
 * rows bottom to top). Bands are planar host images as wide as the file, of its type. */
#ifndef CLS_TOOLS_PNM_FILE_H
#define CLS_TOOLS_PNM_FILE_H

#include "image_io.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pnm_file pnm_file;

/* Opens FD (owned from now on; FILE_SIZE bytes) and checks its header and size: *SHAPE gets the
 * size, channels and type (no pixels). IMAGE_OK or an error class with "PATH: reason". */
int pnm_open(int fd, const char *path, uint64_t file_size, pnm_file **out, cls_host_image *shape, char *error,
             size_t error_size);
/* Image rows [Y0, Y0 + ROWS) into rows BAND_ROW... of BAND. */
int pnm_read_rows(pnm_file *file, const char *path, size_t y0, size_t rows, cls_host_image *band, size_t band_row,
                  char *error, size_t error_size);
/* Asks the system to read image rows [Y0, Y0 + ROWS) from the disk, for a pnm_read_rows to come. */
void pnm_read_ahead(pnm_file *file, size_t y0, size_t rows);
/* Starts a file for images of SHAPE's size, channels and type on FD (owned from now on), the
 * format following the type (PFM for f32, else PGM or PPM). IMAGE_OK or IMAGE_ERR_WRITE. */
int pnm_create(int fd, const char *path, const cls_host_image *shape, pnm_file **out, char *error, size_t error_size);
/* Rows BAND_ROW... of BAND as image rows [Y0, Y0 + ROWS): IMAGE_OK or IMAGE_ERR_WRITE (errno set). */
int pnm_write_rows(pnm_file *file, size_t y0, size_t rows, const cls_host_image *band, size_t band_row);
/* Closes the file, flushed to disk first when it was written: IMAGE_OK, or IMAGE_ERR_WRITE with
 * "PATH: reason" in ERROR (which may be NULL). NULL is fine. */
int pnm_close(pnm_file *file, const char *path, char *error, size_t error_size);

#endif
