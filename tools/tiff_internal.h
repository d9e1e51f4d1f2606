/* tiff_internal.h — what the TIFF reader (tiff_reader.c) and writer (tiff_writer.c) share:
 * libtiff's messages captured per file, a page's layout checked, rows of a page decoded into
 * planes, the compressions' codes. Only with CLS_WITH_TIFF. */
#ifndef CLS_TOOLS_TIFF_INTERNAL_H
#define CLS_TOOLS_TIFF_INTERNAL_H

#include "image_io.h"

#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>

/* The first error and the first warning libtiff reported for one file. */
typedef struct tiff_messages {
    const char *path;
    char error[256], warning[256];
} tiff_messages;

/* Opens FD with libtiff's mode ("rm", "w", "w8"), its messages going to M (on failure FD stays
 * open); tiff_release_messages when done with the file. */
TIFF *tiff_open(int fd, const char *path, const char *mode, tiff_messages *m);
void tiff_release_messages(void);
/* The captured error, else the warning, else FALLBACK. */
const char *tiff_reason(const tiff_messages *m, const char *fallback);
/* Whether a libtiff warning is about the layout of the data (the pixels read may be wrong). */
int tiff_structural(const char *warning);

/* How the current page stores its pixels. */
typedef struct tiff_layout {
    size_t width, height, channels;
    cls_pixel_type type;  /* 64-bit floats are read as f32 */
    size_t spc;           /* samples a pixel in one chunk: channels (contiguous) or 1 (planar) */
    size_t file_sample;   /* bytes of a sample in the file (8 for f64) */
    int tiled;
    uint16_t compression;
    size_t chunk_bytes;   /* the buffer one strip or tile decodes into */
} tiff_layout;

/* Checks the current page's size, samples, type and photometric interpretation: IMAGE_OK, or
 * an error class with "PATH: reason" in ERROR. */
int tiff_page_layout(TIFF *tif, const tiff_messages *m, tiff_layout *out, char *error, size_t error_size);
/* Decodes rows [Y0, Y0 + ROWS) of the current page into rows BAND_ROW... of BAND's planes
 * FIRST_PLANE... (BAND is planar, as wide as the page). */
int tiff_read_rows(TIFF *tif, const tiff_layout *layout, cls_host_image *band, size_t first_plane, size_t y0,
                   size_t rows, size_t band_row, const tiff_messages *m, char *error, size_t error_size);
/* The current page's carried tags (absent ones stay empty); the compression a writer keeps for
 * a file compressed with CODE. */
void tiff_read_page_meta(TIFF *tif, image_page_meta *page);
image_compression tiff_compression_of(uint16_t code);

/* The libtiff code of a compression (LZW for the default). */
uint16_t tiff_compression_code(image_compression compression);

#endif
