/* image_metaimage.c — MetaImage (ITK, 3D Slicer): a text header of "Key = Value" lines ending
 * with ElementDataFile, the voxels after it (.mha, ElementDataFile = LOCAL) or in the file it
 * names (.mhd). Read: 2 or 3 dimensions, 1 to 4 channels, MET_UCHAR, MET_USHORT, MET_SHORT,
 * MET_FLOAT or MET_DOUBLE (as f32), either byte order, uncompressed. Written: .mha, little-endian,
 * with a MetaImage input's other lines (spacing, offset, orientation, ...) carried. */
#include "image_raw.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct { const char *name; cls_pixel_type type; size_t bytes; } element_types[] = {
    {"MET_UCHAR", CLS_PIXEL_U8, 1},   {"MET_USHORT", CLS_PIXEL_U16, 2}, {"MET_SHORT", CLS_PIXEL_I16, 2},
    {"MET_FLOAT", CLS_PIXEL_F32, 4},  {"MET_DOUBLE", CLS_PIXEL_F32, 8},
};

/* The keys this reader interprets and the writer writes anew; other lines are carried. */
static int structural(const char *key)
{
    static const char *keys[] = {"ObjectType", "NDims", "DimSize", "ElementType", "ElementNumberOfChannels",
                                 "ElementDataFile", "BinaryData", "BinaryDataByteOrderMSB", "ElementByteOrderMSB",
                                 "CompressedData", "CompressedDataSize", "HeaderSize"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
        if (strcasecmp(key, keys[k]) == 0) return 1;
    return 0;
}

/* What the header says. */
typedef struct header {
    size_t dims, sizes[3], channels;
    const char *type, *data_file;
    int big_endian, compressed;
    long header_size;
    size_t data_offset; /* after the ElementDataFile line */
} header;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') ++s;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) *--end = '\0';
    return s;
}

static int is_true(const char *value) { return strcasecmp(value, "True") == 0 || strcmp(value, "1") == 0; }

/* Parses TEXT's lines up to ElementDataFile into *h, the other lines into CARRIED. */
static int parse(char *text, header *h, char *carried, const char *path, char *error, size_t error_size)
{
    *h = (header){.channels = 1, .header_size = 0};
    char *line = text;
    while (line && *line) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        char *equals = strchr(line, '=');
        if (!equals) return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "a header line without '=': %.60s", line);
        *equals = '\0';
        char *key = trim(line), *value = trim(equals + 1);
        if (strcasecmp(key, "NDims") == 0) h->dims = strtoul(value, NULL, 10);
        else if (strcasecmp(key, "DimSize") == 0) {
            char *at = value;
            for (size_t k = 0; k < 3 && *at; ++k) h->sizes[k] = strtoul(at, &at, 10);
        } else if (strcasecmp(key, "ElementNumberOfChannels") == 0) h->channels = strtoul(value, NULL, 10);
        else if (strcasecmp(key, "ElementType") == 0) h->type = value;
        else if (strcasecmp(key, "BinaryDataByteOrderMSB") == 0 || strcasecmp(key, "ElementByteOrderMSB") == 0)
            h->big_endian = is_true(value);
        else if (strcasecmp(key, "CompressedData") == 0) h->compressed = is_true(value);
        else if (strcasecmp(key, "HeaderSize") == 0) h->header_size = strtol(value, NULL, 10);
        else if (strcasecmp(key, "ElementDataFile") == 0) {
            h->data_file = value;
            h->data_offset = next ? (size_t)(next - text) : strlen(text) + (size_t)(value - text);
            return IMAGE_OK;
        } else if (!structural(key)) {
            strcat(carried, key);
            strcat(carried, " = ");
            strcat(carried, value);
            strcat(carried, "\n");
        }
        line = next;
    }
    return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "the header has no ElementDataFile line");
}

/* The layout the header gives, checked. */
static int layout_of(const header *h, raw_layout *l, const char *path, char *error, size_t error_size)
{
    if (h->dims < 2 || h->dims > 3 || !h->sizes[0] || !h->sizes[1] || (h->dims == 3 && !h->sizes[2]))
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "NDims %zu with DimSize %zu %zu %zu: 2 or 3 dimensions of at least 1 voxel are read", h->dims,
                          h->sizes[0], h->sizes[1], h->sizes[2]);
    if (h->channels < 1 || h->channels > IMAGE_MAX_CHANNELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "%zu channels: 1 to %d are read",
                          h->channels, IMAGE_MAX_CHANNELS);
    if (h->compressed)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "compressed voxels (CompressedData = True) are not read: write it uncompressed");
    *l = (raw_layout){.width = h->sizes[0], .height = h->sizes[1], .depth = h->dims == 3 ? h->sizes[2] : 1,
                      .channels = h->channels, .big_endian = h->big_endian};
    for (size_t k = 0; h->type && k < sizeof element_types / sizeof element_types[0]; ++k)
        if (strcmp(h->type, element_types[k].name) == 0) {
            l->type = element_types[k].type;
            l->file_bytes = element_types[k].bytes;
            return IMAGE_OK;
        }
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                      "ElementType %s: MET_UCHAR, MET_USHORT, MET_SHORT, MET_FLOAT and MET_DOUBLE are read",
                      h->type ? h->type : "(none)");
}

/* MetaImage's raw_header_reader. */
static int read_header(char *text, size_t length, char *carried, raw_source *source, const char *path, char *error,
                       size_t error_size)
{
    (void)length;
    header h = {0};
    int status = parse(text, &h, carried, path, error, error_size);
    if (status == IMAGE_OK) status = layout_of(&h, &source->layout, path, error, error_size);
    if (status == IMAGE_OK && (strcasecmp(h.data_file, "LIST") == 0 || strchr(h.data_file, '%')))
        status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                            "ElementDataFile %s (a file a slice) is not read: one data file", h.data_file);
    if (status == IMAGE_OK && strcasecmp(h.data_file, "LOCAL") == 0) {
        source->offset = h.data_offset;
    } else if (status == IMAGE_OK) {
        source->data_file = h.data_file;
        source->offset = h.header_size > 0 ? (uint64_t)h.header_size : 0;
        source->at_end = h.header_size == -1;
    }
    return status;
}

int image_metaimage_read(int fd, const char *path, uint64_t file_size, cls_host_image *out, char *error,
                         size_t error_size)
{
    /* "Key=Value" grows to "Key = Value" in the carried lines */
    return raw_read_headed(fd, file_size, IMAGE_FORMAT_METAIMAGE, read_header, 2, path, out, error, error_size);
}

static void write_header(FILE *file, const cls_host_image *image)
{
    const char *type = image->type == CLS_PIXEL_U8    ? "MET_UCHAR"
                       : image->type == CLS_PIXEL_U16 ? "MET_USHORT"
                       : image->type == CLS_PIXEL_I16 ? "MET_SHORT"
                       : image->type == CLS_PIXEL_F64 ? "MET_DOUBLE"
                                                      : "MET_FLOAT";
    const size_t depth = image->pages ? image->pages : 1, channels = image->channels ? image->channels : 1;
    const char *carried = raw_carried(image, IMAGE_FORMAT_METAIMAGE);
    fprintf(file, "ObjectType = Image\nNDims = %d\n%sDimSize = %zu %zu", depth > 1 ? 3 : 2, carried ? carried : "",
            image->width, image->height);
    if (depth > 1) fprintf(file, " %zu", depth);
    fprintf(file, "\n");
    if (channels > 1) fprintf(file, "ElementNumberOfChannels = %zu\n", channels);
    fprintf(file, "BinaryData = True\nBinaryDataByteOrderMSB = False\nCompressedData = False\nElementType = %s\n"
                  "ElementDataFile = LOCAL\n", type);
}

int image_metaimage_write(int fd, const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    return raw_write(fd, path, image, write_header, error, error_size);
}

int image_volume_check(const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    if (image->type != CLS_PIXEL_F16 && image->channels <= IMAGE_MAX_CHANNELS) return IMAGE_OK;
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                      "MetaImage and NRRD hold u8, u16, i16, f32 or f64 samples, not %s (a .tif holds f16)",
                      image_type_name(image->type));
}
