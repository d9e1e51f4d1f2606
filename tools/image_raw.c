/* image_raw.c — raw voxels and carried header lines of the volume formats (image_raw.h). */
#include "image_raw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t raw_bytes(const raw_layout *l)
{
    size_t voxels, samples, bytes;
    if (!image_mul(l->width, l->height, &voxels) || !image_mul(voxels, l->depth, &voxels) ||
        !image_mul(voxels, l->channels, &samples) || !image_mul(samples, l->file_bytes, &bytes))
        return 0;
    return bytes;
}

/* One sample of SIZE bytes at FROM into the image's TO: byte order swapped where it differs from
 * this machine's (little-endian), doubles narrowed to f32. */
static void sample_in(const unsigned char *from, size_t size, int big_endian, cls_pixel_type type, unsigned char *to)
{
    unsigned char bytes[8];
    for (size_t b = 0; b < size; ++b) bytes[b] = from[big_endian ? size - 1 - b : b];
    if (size == 8 && type == CLS_PIXEL_F32) {
        double value;
        memcpy(&value, bytes, sizeof value);
        const float narrowed = (float)value;
        memcpy(to, &narrowed, sizeof narrowed);
        return;
    }
    memcpy(to, bytes, size);
}

/* The header lines CARRIED appended to OUT's meta for FORMAT's writer. */
static int carry(cls_host_image *out, image_format format, const char *carried, const char *path, char *error,
                 size_t error_size)
{
    if (!carried || !*carried) return IMAGE_OK;
    if ((!out->meta && !(out->meta = calloc(1, sizeof *out->meta))) || !(out->meta->header = strdup(carried)))
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
    out->meta->header_format = (int)format;
    return IMAGE_OK;
}

/* The voxels at OFFSET of FD into *OUT. */
static int read_voxels(int fd, uint64_t offset, const raw_layout *l, image_format format, const char *carried,
                       const char *path, cls_host_image *out, char *error, size_t error_size)
{
    int status = image_alloc_pages(out, l->width, l->height, l->channels, l->depth, l->type, path, error, error_size);
    if (status != IMAGE_OK) return status;
    const size_t pixels = l->width * l->height, slice_bytes = pixels * l->channels * l->file_bytes;
    const size_t sample = image_sample_bytes(l->type), plane = image_plane_bytes(out);
    unsigned char *slice = malloc(slice_bytes);
    if (!slice) status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
    for (size_t z = 0; status == IMAGE_OK && z < l->depth; ++z) {
        size_t done = 0;
        while (done < slice_bytes) {
            const ssize_t got = pread(fd, slice + done, slice_bytes - done, (off_t)(offset + z * slice_bytes + done));
            if (got <= 0) break;
            done += (size_t)got;
        }
        if (done < slice_bytes) {
            status = image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "the voxels end early: slice %zu of %zu %s",
                                z + 1, l->depth, done ? "is cut short" : "is missing");
            break;
        }
        unsigned char *page = (unsigned char *)out->pixels + z * l->channels * plane;
        for (size_t p = 0; p < pixels; ++p)
            for (size_t c = 0; c < l->channels; ++c)
                sample_in(slice + (p * l->channels + c) * l->file_bytes, l->file_bytes, l->big_endian, l->type,
                          page + c * plane + p * sample);
    }
    free(slice);
    if (status == IMAGE_OK && l->file_bytes == 8 && l->type == CLS_PIXEL_F32) {
        if (!out->meta && !(out->meta = calloc(1, sizeof *out->meta)))
            status = image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory");
        else
            out->meta->narrowed_f64 = 1;
    }
    if (status == IMAGE_OK) status = carry(out, format, carried, path, error, error_size);
    if (status != IMAGE_OK) image_free(out);
    return status;
}

int raw_write(int fd, const char *path, const cls_host_image *image, void (*header)(FILE *, const cls_host_image *),
              char *error, size_t error_size)
{
    FILE *file = fdopen(fd, "wb");
    if (!file) {
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot open the file");
    }
    header(file, image);
    const size_t channels = image->channels ? image->channels : 1, depth = image->pages ? image->pages : 1;
    const size_t pixels = image->width * image->height, sample = image_sample_bytes(image->type);
    const size_t plane = image_plane_bytes(image);
    unsigned char *slice = malloc(pixels * channels * sample);
    int status = slice ? IMAGE_OK : image_fail(error, error_size, IMAGE_ERR_WRITE, path, "out of memory");
    for (size_t z = 0; status == IMAGE_OK && z < depth; ++z) {
        const unsigned char *page = (const unsigned char *)image->pixels + z * channels * plane;
        for (size_t p = 0; p < pixels; ++p)
            for (size_t c = 0; c < channels; ++c)
                memcpy(slice + (p * channels + c) * sample, page + c * plane + p * sample, sample);
        if (fwrite(slice, sample, pixels * channels, file) != pixels * channels)
            status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(errno));
    }
    free(slice);
    if ((fflush(file) != 0 || fsync(fileno(file)) != 0) && status == IMAGE_OK)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot write: %s", strerror(errno));
    if (fclose(file) != 0 && status == IMAGE_OK)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot close: %s", strerror(errno));
    return status;
}

/* Opens the data file NAME of the header at PATH (relative to the header's folder): a descriptor
 * and its *size, or -1 with the reason in ERROR (IMAGE_ERR_MISSING or UNREADABLE in *code). */
static int open_data(const char *path, const char *name, uint64_t *size, int *code, char *error, size_t error_size)
{
    const char *slash = strrchr(path, '/');
    const int folder = name[0] == '/' || !slash ? 0 : (int)(slash - path) + 1;
    char *data = malloc((size_t)folder + strlen(name) + 1);
    if (!data) {
        *code = image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "out of memory");
        return -1;
    }
    sprintf(data, "%.*s%s", folder, path, name);
    const int fd = open(data, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        *code = image_fail(error, error_size, e == ENOENT ? IMAGE_ERR_MISSING : IMAGE_ERR_UNREADABLE, path,
                           "its data file %s: %s", data, strerror(e));
    }
    const off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    *size = end > 0 ? (uint64_t)end : 0;
    free(data);
    return fd;
}

int raw_read(int fd, uint64_t file_size, const raw_source *source, image_format format, const char *carried,
             const char *path, cls_host_image *out, char *error, size_t error_size)
{
    int status = IMAGE_OK, data = source->data_file ? open_data(path, source->data_file, &file_size, &status, error, error_size) : fd;
    const uint64_t bytes = raw_bytes(&source->layout);
    const uint64_t offset = !source->at_end ? source->offset : file_size > bytes ? file_size - bytes : 0;
    if (data >= 0) status = read_voxels(data, offset, &source->layout, format, carried, path, out, error, error_size);
    if (data >= 0 && data != fd) close(data);
    return status;
}

const char *raw_carried(const cls_host_image *image, image_format format)
{
    return image->meta && image->meta->header && image->meta->header_format == (int)format ? image->meta->header : NULL;
}

enum { HEADER_MAX = 1 << 20 };

/* The header's text: the first bytes of FD (up to 1 MiB, *length of them) as a string; NULL with
 * the reason in ERROR. */
static char *header_text(int fd, uint64_t file_size, const char *path, size_t *length, char *error, size_t error_size)
{
    const size_t size = file_size < HEADER_MAX ? (size_t)file_size : HEADER_MAX;
    char *text = malloc(size + 1);
    size_t done = 0;
    while (text && done < size) {
        const ssize_t got = pread(fd, text + done, size - done, (off_t)done);
        if (got <= 0) break;
        done += (size_t)got;
    }
    if (!text || done < size) {
        free(text);
        image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "cannot read its header");
        return NULL;
    }
    text[size] = '\0';
    *length = size;
    return text;
}

int raw_read_headed(int fd, uint64_t file_size, image_format format, raw_header_reader read_header,
                    size_t carried_per_byte, const char *path, cls_host_image *out, char *error, size_t error_size)
{
    size_t length = 0;
    char *text = header_text(fd, file_size, path, &length, error, error_size);
    char *carried = text ? calloc(carried_per_byte * length + 64, 1) : NULL;
    raw_source source = {0};
    int status = !text ? IMAGE_ERR_UNREADABLE
                 : !carried ? image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "out of memory")
                            : read_header(text, length, carried, &source, path, error, error_size);
    if (status == IMAGE_OK) status = raw_read(fd, file_size, &source, format, carried, path, out, error, error_size);
    close(fd);
    free(text);
    free(carried);
    return status;
}
