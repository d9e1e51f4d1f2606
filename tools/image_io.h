/* image_io.h — reading and writing planar host images (TIFF, PGM/PPM, PFM) for the clstencil command. */
#ifndef CLS_TOOLS_IMAGE_IO_H
#define CLS_TOOLS_IMAGE_IO_H

#include <clstencil.h>
#include <stddef.h>
#include <stdint.h>

/* Error classes returned by image_read and image_write. */
enum {
    IMAGE_OK = 0,
    IMAGE_ERR_MISSING,     /* the input file does not exist */
    IMAGE_ERR_UNREADABLE,  /* it cannot be opened or read: permissions, a folder, an I/O error */
    IMAGE_ERR_CORRUPT,     /* bad header, truncated data, a decoding error */
    IMAGE_ERR_UNSUPPORTED, /* a valid file in a layout or type we do not handle, or too large */
    IMAGE_ERR_WRITE,       /* the output cannot be written */
    IMAGE_ERR_RESOURCE     /* a resource limit: not enough memory for the image */
};

/* Where image_alloc takes pixel memory from (NULL, the default: zeroed pages mapped for the image,
 * starting on a page): allocate returns BYTES of zeroed memory or NULL (then the default serves),
 * release takes back what it gave; an image keeps a copy of its allocator, so image_free returns
 * its pixels where they came from even after the allocator set has gone. */
typedef struct image_allocator {
    void *(*allocate)(void *context, size_t bytes);
    void (*release)(void *context, void *pixels, size_t bytes);
    void *context;
} image_allocator;

/* A host image. Planar: channel c starts at (char *)pixels + c * image_plane_bytes(image); each
 * plane holds width*height samples, row-major, tightly packed, in host byte order. */
typedef struct cls_host_image {
    size_t width, height, channels; /* channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    cls_pixel_type type;            /* CLS_PIXEL_U8, _U16, _I16, _F16 or _F32 */
    void *pixels;
    /* A stack (a multi-page TIFF): PAGES pages of the same size, type and channels, page p's
     * channel c in plane p * channels + c (image_plane_count planes in all). 0 means 1. */
    size_t pages;
    struct image_meta *meta; /* owned (image_free); NULL: nothing known */
    image_allocator allocator; /* where the pixels came from (a copy; release NULL: free) */
    size_t pixel_bytes;
} cls_host_image;

/* Output compression (TIFF). DEFAULT: LZW. */
typedef enum image_compression {
    IMAGE_COMPRESSION_DEFAULT = 0,
    IMAGE_COMPRESSION_NONE,
    IMAGE_COMPRESSION_LZW,
    IMAGE_COMPRESSION_DEFLATE,
    IMAGE_COMPRESSION_ZSTD
} image_compression;

/* Tags of one TIFF page carried from input to output (NULL / 0: absent). */
typedef struct image_page_meta {
    char *description, *software, *datetime;
    int has_resolution;
    float x_resolution, y_resolution;
    uint16_t resolution_unit;
    void *icc;
    uint32_t icc_size;
} image_page_meta;

/* What a reader knew of a file besides its pixels, and how the writer should compress. */
typedef struct image_meta {
    image_compression compression; /* the input's (when it is one of these), or a choice */
    int narrowed_f64;              /* the input's samples were 64-bit floats, read as f32 */
    size_t page_count;             /* entries in PAGES (the writer uses those it has) */
    image_page_meta *pages;
    char *header;                  /* a volume header's lines of spacing, origin, orientation (image_raw.h) */
    int header_format;             /* the image_format they belong to */
} image_meta;

#define IMAGE_MAX_CHANNELS 4
#define IMAGE_MAX_PLANE_PIXELS ((size_t)1 << 31) /* larger images are refused as unsupported */

/* A check image_alloc makes before it allocates (the caller's memory budget): IMAGE_OK, or an
 * error class after writing "PATH: reason" into ERROR. NULL (the default) checks nothing.
 * CHANNELS is the number of planes: channels x pages for a stack. */
typedef int (*image_alloc_check)(size_t width, size_t height, size_t channels, cls_pixel_type type,
                                 const char *path, char *error, size_t error_size);
void image_set_alloc_check(image_alloc_check check);
/* The allocator of the images image_alloc makes from now on (NULL: calloc). */
void image_set_allocator(const image_allocator *allocator);
/* Removes the temporary file of an image_write in progress (async-signal-safe: for a signal
 * handler that then ends the process). */
void image_remove_partial_output(void);

/* Messages name the file PATH, a standard stream's temporary copy, NAME ("standard input");
 * called before any image is read or written (two such names at most). */
void image_name_stream(const char *path, const char *name);
/* Reads PATH; the format follows the extension (.tif .tiff .pgm .ppm .pnm .pfm, any case). On
 * success *out owns its pixels (image_free); on failure *out is empty and ERROR (if not NULL)
 * holds "PATH: reason". Returns IMAGE_OK or an IMAGE_ERR_* class. */
/* Opens PATH for reading as an image file: a regular file that is not empty (a folder, a FIFO or
 * a device is refused without blocking). *fd (blocking reads) and *size, or an IMAGE_ERR_ code
 * after a message. */
int image_open_file(const char *path, int *fd, uint64_t *size, char *error, size_t error_size);
int image_read(const char *path, cls_host_image *out, char *error, size_t error_size);
/* Writes IMAGE to PATH through a temporary file in the same folder, flushed to disk, renamed
 * over PATH, and the folder flushed, so a failure or power loss never leaves a partial file. TIFF keeps type, channels,
 * pages and the metadata in IMAGE->meta (compressed as meta->compression says); .pgm takes 1 channel and
 * .ppm 3 (u8 or u16), .pnm either; .pfm takes 1 or 3 channels of f32; they hold one page. */
int image_write(const char *path, const cls_host_image *image, char *error, size_t error_size);
/* image_write's way of writing, for a writer of one's own (a file written a band at a time):
 * WRITER gets a temporary file in PATH's folder (and closes it) and returns IMAGE_OK or an error
 * class with "PATH: reason" in ERROR; the file replaces PATH only on IMAGE_OK, else it is removed. */
typedef int (*image_file_writer)(int fd, const char *path, void *context, char *error, size_t error_size);
int image_write_through(const char *path, image_file_writer writer, void *context, char *error, size_t error_size);
void image_free(cls_host_image *image);
void image_meta_free(image_meta *meta);
/* Planes in all: channels x pages. */
size_t image_plane_count(const cls_host_image *image);
/* "none", "lzw", "deflate", "zstd" to a compression (0 for an unknown name); whether this build
 * can write it (TIFF only); its name. */
int image_compression_parse(const char *name, image_compression *out);
int image_compression_available(image_compression compression);
const char *image_compression_name(image_compression compression);
/* 1 when TIFF support (libtiff) was compiled in. */
int image_has_tiff(void);
/* "missing", "unreadable", "corrupt", "unsupported", "write error" or "ok". */
const char *image_error_class_name(int code);

/* Bytes of one sample, and of one plane (0 if it overflows). */
size_t image_sample_bytes(cls_pixel_type type);
/* "u8", "u16", "i16", "f16" or "f32". */
const char *image_type_name(cls_pixel_type type);
/* Whether samples of TYPE are integers (u8, u16, i16), not floats (f16, f32). */
int image_type_is_integer(cls_pixel_type type);
size_t image_plane_bytes(const cls_host_image *image);
/* Allocates zeroed planes after checking the channel count and every size product; a failure
 * is IMAGE_ERR_UNSUPPORTED with the reason in ERROR. */
int image_alloc(cls_host_image *image, size_t width, size_t height, size_t channels,
                cls_pixel_type type, const char *path, char *error, size_t error_size);
/* The same for a stack of PAGES pages (the check sees channels x pages planes). */
int image_alloc_pages(cls_host_image *image, size_t width, size_t height, size_t channels, size_t pages,
                      cls_pixel_type type, const char *path, char *error, size_t error_size);

/* ---- Internal: shared by image_io.c, image_pnm.c and image_tiff.c. ---- */

typedef enum image_format {
    IMAGE_FORMAT_UNKNOWN = 0,
    IMAGE_FORMAT_TIFF,
    IMAGE_FORMAT_PGM,
    IMAGE_FORMAT_PPM,
    IMAGE_FORMAT_PNM,
    IMAGE_FORMAT_PFM,
    IMAGE_FORMAT_METAIMAGE, /* .mha (one file), read also as .mhd (a header naming its data file) */
    IMAGE_FORMAT_NRRD       /* .nrrd (one file), read also as .nhdr (detached) */
} image_format;

/* The format of PATH's extension (.tif .tiff .pgm .ppm .pnm .pfm .mha .mhd .nrrd .nhdr, any
 * case), or UNKNOWN; *detached: a header whose voxels are in another file (.mhd, .nhdr). */
image_format image_format_of(const char *path);
int image_format_detached(const char *path);
/* The extensions image_format_of knows, for messages. */
#define IMAGE_EXTENSIONS ".tif, .tiff, .pgm, .ppm, .pnm, .pfm, .mha, .nrrd (and to read, .mhd or .nhdr)"
/* Writes "PATH: reason" into ERROR and returns CODE. */
int image_fail(char *error, size_t error_size, int code, const char *path, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
/* *out = a * b, or 0 returned on overflow. */
int image_mul(size_t a, size_t b, size_t *out);

/* The readers take ownership of FD (an open regular file of FILE_SIZE > 0 bytes) and close it. */
int image_tiff_read(int fd, const char *path, cls_host_image *out, char *error, size_t error_size);
int image_pnm_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error,
                   size_t error_size);
/* Whether IMAGE fits FORMAT, before any file is created: IMAGE_OK or IMAGE_ERR_UNSUPPORTED. */
int image_pnm_check(image_format format, const char *path, const cls_host_image *image, char *error,
                    size_t error_size);
/* The writers take ownership of FD (the temporary file), write, flush to disk and close it;
 * PATH is the destination named in messages. */
int image_tiff_write(int fd, const char *path, const cls_host_image *image, char *error,
                     size_t error_size);
int image_pnm_write(int fd, image_format format, const char *path, const cls_host_image *image,
                    char *error, size_t error_size);
/* MetaImage and NRRD (image_metaimage.c, image_nrrd.c): a volume, a slice a page. */
int image_metaimage_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error,
                         size_t error_size);
int image_metaimage_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size);
int image_nrrd_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error,
                    size_t error_size);
int image_nrrd_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size);
/* Whether PATH's FORMAT can hold IMAGE (PNM's channels and types, the volume formats' types; a
 * detached header is not written): IMAGE_OK, or IMAGE_ERR_UNSUPPORTED with the reason. */
int image_format_check(image_format format, const char *path, const cls_host_image *image, char *error,
                       size_t error_size);
/* Whether the volume formats hold IMAGE: not f16 (neither has half floats), at most 4 channels. */
int image_volume_check(const char *path, const cls_host_image *image, char *error, size_t error_size);

#endif
