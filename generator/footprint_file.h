/* footprint_file.h — footprints of the rank and morphology operators read from a text file (their
 * mask:FILE argument), internal. The file draws the footprint: one line per row, one character
 * per pixel, 1 for a pixel of the footprint and 0 for one outside it. */
#ifndef CLS_FOOTPRINT_FILE_H
#define CLS_FOOTPRINT_FILE_H

#include "clstencil.h"

/* Footprint files larger than this are refused unread (63 rows of 63 cells need some 8 KiB). */
#define CLS_FOOTPRINT_FILE_MAX_BYTES 65536

/* Reads the footprint file PATH. Lines that are blank or start with '#' are skipped; every other
 * line is a row of cells '0' or '1', which spaces, tabs or commas may separate. Every row holds as
 * many cells as the first; at most CLS_MAX_MASK rows and columns (an even side's
 * output pixel is cell side/2, scipy's rule), and at
 * least one cell is 1. On success *cells is a malloc'd width x height array, row-major, 1 for the
 * footprint's pixels. Otherwise CLS_ERR_INVALID_ARGUMENT with a message naming the file and, for
 * a bad row or cell, its line. */
cls_status cls_footprint_file_read(const char *path, unsigned char **cells, unsigned *width, unsigned *height);

#endif
