/* image_raw.h — what the volume formats with a text header (MetaImage, image_metaimage.c; NRRD,
 * image_nrrd.c) share: their voxels, raw samples interleaved per voxel, x fastest, then y, then
 * z, read into and written from the planar host image (a slice a page); and their header's lines
 * of spacing, origin and orientation, carried to an output of the same format. */
#ifndef CLS_TOOLS_IMAGE_RAW_H
#define CLS_TOOLS_IMAGE_RAW_H

#include "image_io.h"

#include <stdio.h>

/* The voxels as a file stores them. */
typedef struct raw_layout {
    size_t width, height, depth, channels;
    cls_pixel_type type; /* the image's; f32 from 8-byte doubles (narrowed, meta->narrowed_f64) */
    size_t file_bytes;   /* bytes of one sample in the file */
    int big_endian;
} raw_layout;

/* The bytes of the voxels in the file (0 on overflow). */
uint64_t raw_bytes(const raw_layout *layout);
/* Where a header says its voxels are. */
typedef struct raw_source {
    raw_layout layout;
    const char *data_file; /* beside the header (relative to its folder); NULL: the header's file */
    uint64_t offset;       /* of the voxels in their file */
    int at_end;            /* the voxels end their file (MetaImage's HeaderSize, NRRD's byte skip -1) */
} raw_source;

/* Reads the voxels SOURCE places (FD: the header's file of FILE_SIZE bytes) into *OUT
 * (allocated here, a slice a page; doubles narrowed, noted in its meta) with the header's lines
 * CARRIED (NULL: none) kept for FORMAT's writer. A file that ends before the voxels is
 * IMAGE_ERR_CORRUPT. */
int raw_read(int fd, uint64_t file_size, const raw_source *source, image_format format, const char *carried,
             const char *path, cls_host_image *out, char *error, size_t error_size);
/* Writes IMAGE to FD (closed here): the header HEADER writes, then the voxels, little-endian,
 * flushed to disk. */
int raw_write(int fd, const char *path, const cls_host_image *image, void (*header)(FILE *, const cls_host_image *),
              char *error, size_t error_size);
/* The carried lines for an output of FORMAT, or NULL (none, or another format's). */
const char *raw_carried(const cls_host_image *image, image_format format);
/* A format's reading of its header: TEXT (LENGTH bytes, its own to cut into strings) into *SOURCE,
 * whose strings may point into TEXT, and the lines to carry into CARRIED (room for
 * raw_read_headed's CARRIED_PER_BYTE times LENGTH bytes and 64 more). */
typedef int (*raw_header_reader)(char *text, size_t length, char *carried, raw_source *source, const char *path,
                                 char *error, size_t error_size);
/* Reads a volume whose header starts FD (FILE_SIZE bytes; closed here): its text (up to 1 MiB)
 * through READ_HEADER, then the voxels it places, as raw_read. */
int raw_read_headed(int fd, uint64_t file_size, image_format format, raw_header_reader read_header,
                    size_t carried_per_byte, const char *path, cls_host_image *out, char *error, size_t error_size);
#endif
