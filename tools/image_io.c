/* image_io.c — image_read/image_write: format by extension, error classes, writes via a renamed
 * temp file (flushed, and removed on failure or by a signal handler), the allocation check. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "image_io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
    const char *path, *name;
} streams[2]; /* image_name_stream's */

void image_name_stream(const char *path, const char *name)
{
    for (size_t k = 0; k < sizeof streams / sizeof streams[0]; ++k)
        if (!streams[k].path) {
            streams[k].path = path;
            streams[k].name = name;
            return;
        }
}

/* What messages call PATH. */
static const char *shown_name(const char *path)
{
    for (size_t k = 0; path && k < sizeof streams / sizeof streams[0]; ++k)
        if (streams[k].path && strcmp(path, streams[k].path) == 0) return streams[k].name;
    return path ? path : "(null)";
}

int image_fail(char *error, size_t error_size, int code, const char *path, const char *format, ...)
{
    if (error && error_size > 0) {
        int n = snprintf(error, error_size, "%s: ", shown_name(path));
        if (n >= 0 && (size_t)n < error_size) {
            va_list args;
            va_start(args, format);
            vsnprintf(error + n, error_size - (size_t)n, format, args);
            va_end(args);
        }
    }
    return code;
}

static _Thread_local image_alloc_check alloc_check; /* each thread its own */

void image_set_alloc_check(image_alloc_check check) { alloc_check = check; }

static _Thread_local const image_allocator *pixel_allocator; /* each thread its own */

void image_set_allocator(const image_allocator *allocator) { pixel_allocator = allocator; }

/* The temp files being written (by the writers of several devices at once), for
 * image_remove_partial_output; a writer beyond the slots leaves a file that the next run removes. */
enum { PARTIAL_SLOTS = 64 };
static char *volatile partial_outputs[PARTIAL_SLOTS];

void image_remove_partial_output(void)
{
    for (size_t k = 0; k < PARTIAL_SLOTS; ++k) {
        char *path = partial_outputs[k];
        if (path) unlink(path);
    }
}

/* Records TEMP in a free slot; the slot, or PARTIAL_SLOTS when none was free. */
static size_t hold_partial_output(char *temp)
{
    for (size_t k = 0; k < PARTIAL_SLOTS; ++k) {
        char *expected = NULL;
        if (__atomic_compare_exchange_n(&partial_outputs[k], &expected, temp, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return k;
    }
    return PARTIAL_SLOTS;
}

/* The permissions a plain creat() would give a file: 0666 less the umask, read once (umask() is
 * read by setting it, which the writer threads of other devices must not see). */
static mode_t creat_mode;

static void read_umask(void)
{
    const mode_t mask = umask(0);
    umask(mask);
    creat_mode = 0666 & ~mask;
}

static mode_t created_mode(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_umask);
    return creat_mode;
}

int image_mul(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

const char *image_error_class_name(int code)
{
    switch (code) {
    case IMAGE_OK: return "ok";
    case IMAGE_ERR_MISSING: return "missing";
    case IMAGE_ERR_UNREADABLE: return "unreadable";
    case IMAGE_ERR_CORRUPT: return "corrupt";
    case IMAGE_ERR_UNSUPPORTED: return "unsupported";
    case IMAGE_ERR_WRITE: return "write error";
    case IMAGE_ERR_RESOURCE: return "resource limit";
    default: return "unknown";
    }
}

size_t image_sample_bytes(cls_pixel_type type)
{
    return cls_pixel_size(type);
}

const char *image_type_name(cls_pixel_type type)
{
    const char *name = cls_pixel_type_name(type);
    return name ? name : "?";
}

int image_type_is_integer(cls_pixel_type type)
{
    return type == CLS_PIXEL_U8 || type == CLS_PIXEL_U16 || type == CLS_PIXEL_I16;
}

size_t image_plane_bytes(const cls_host_image *image)
{
    size_t pixels, bytes;
    if (!image_mul(image->width, image->height, &pixels) ||
        !image_mul(pixels, image_sample_bytes(image->type), &bytes))
        return 0;
    return bytes;
}

size_t image_plane_count(const cls_host_image *image)
{
    return image->channels * (image->pages > 1 ? image->pages : 1);
}

/* Checks dimensions, channels, pages and every size product; *total gets the byte count. */
static int image_check(size_t width, size_t height, size_t channels, size_t pages, cls_pixel_type type,
                       size_t *total, const char *path, char *error, size_t error_size)
{
    size_t pixels, plane, planes;
    if (width == 0 || height == 0)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "empty image (%zu x %zu)",
                          width, height);
    if (channels < 1 || channels > IMAGE_MAX_CHANNELS)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "%zu channels (1 to %d are supported)", channels, IMAGE_MAX_CHANNELS);
    if (image_sample_bytes(type) == 0)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "unknown pixel type %d",
                          (int)type);
    if (!image_mul(width, height, &pixels) || pixels > IMAGE_MAX_PLANE_PIXELS ||
        !image_mul(pixels, image_sample_bytes(type), &plane) || !image_mul(channels, pages ? pages : 1, &planes) ||
        !image_mul(plane, planes, total))
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "image too large (%zu x %zu; at most 2^31 pixels)", width, height);
    return IMAGE_OK;
}

int image_alloc(cls_host_image *image, size_t width, size_t height, size_t channels,
                cls_pixel_type type, const char *path, char *error, size_t error_size)
{
    return image_alloc_pages(image, width, height, channels, 1, type, path, error, error_size);
}

/* The default pixel memory: pages of the kernel's, zeroed and touched only when written (no memset
 * of an image about to be read over), starting on a page, where a device that shares the host's
 * memory (a CPU device) runs in place (CL_MEM_USE_HOST_PTR wants its base alignment). */
static void *map_pages(void *context, size_t bytes)
{
    (void)context;
    void *pixels = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pixels == MAP_FAILED ? NULL : pixels;
}

static void unmap_pages(void *context, void *pixels, size_t bytes)
{
    (void)context;
    munmap(pixels, bytes);
}

static const image_allocator page_allocator = {map_pages, unmap_pages, NULL};

int image_alloc_pages(cls_host_image *image, size_t width, size_t height, size_t channels, size_t pages,
                      cls_pixel_type type, const char *path, char *error, size_t error_size)
{
    size_t total = 0;
    memset(image, 0, sizeof *image);
    if (pages == 0)
        pages = 1;
    int status = image_check(width, height, channels, pages, type, &total, path, error, error_size);
    if (status != IMAGE_OK)
        return status;
    if (alloc_check &&
        (status = alloc_check(width, height, channels * pages, type, path, error, error_size)) != IMAGE_OK)
        return status;
    const image_allocator *allocator = pixel_allocator;
    void *pixels = allocator ? allocator->allocate(allocator->context, total) : NULL;
    if (!pixels) allocator = &page_allocator, pixels = map_pages(NULL, total);
    if (!pixels)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "not enough memory for a %zu x %zu x %zu image (%zu bytes)", width, height,
                          channels, total);
    image->width = width;
    image->height = height;
    image->channels = channels;
    image->type = type;
    image->pixels = pixels;
    image->allocator = *allocator;
    image->pixel_bytes = total;
    image->pages = pages;
    return IMAGE_OK;
}

void image_meta_free(image_meta *meta)
{
    if (!meta)
        return;
    for (size_t i = 0; i < meta->page_count; ++i) {
        image_page_meta *p = &meta->pages[i];
        free(p->description);
        free(p->software);
        free(p->datetime);
        free(p->icc);
    }
    free(meta->pages);
    free(meta->header);
    free(meta);
}

void image_free(cls_host_image *image)
{
    if (!image)
        return;
    if (image->allocator.release && image->pixels)
        image->allocator.release(image->allocator.context, image->pixels, image->pixel_bytes);
    else
        free(image->pixels);
    image_meta_free(image->meta);
    memset(image, 0, sizeof *image);
}

static const char *const compression_names[] = {"default", "none", "lzw", "deflate", "zstd"};

int image_compression_parse(const char *name, image_compression *out)
{
    for (int i = IMAGE_COMPRESSION_NONE; i <= IMAGE_COMPRESSION_ZSTD; ++i)
        if (name && strcasecmp(name, compression_names[i]) == 0) {
            *out = (image_compression)i;
            return 1;
        }
    return 0;
}

const char *image_compression_name(image_compression compression)
{
    return (unsigned)compression <= IMAGE_COMPRESSION_ZSTD ? compression_names[compression] : "?";
}

image_format image_format_of(const char *path)
{
    static const struct { const char *ext; image_format format; } table[] = {
        {"tif", IMAGE_FORMAT_TIFF}, {"tiff", IMAGE_FORMAT_TIFF}, {"pgm", IMAGE_FORMAT_PGM},
        {"ppm", IMAGE_FORMAT_PPM},  {"pnm", IMAGE_FORMAT_PNM},   {"pfm", IMAGE_FORMAT_PFM},
        {"mha", IMAGE_FORMAT_METAIMAGE}, {"mhd", IMAGE_FORMAT_METAIMAGE}, {"nrrd", IMAGE_FORMAT_NRRD},
        {"nhdr", IMAGE_FORMAT_NRRD},
    };
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return IMAGE_FORMAT_UNKNOWN;
    char ext[8];
    size_t n = strlen(dot + 1);
    if (n == 0 || n >= sizeof ext)
        return IMAGE_FORMAT_UNKNOWN;
    for (size_t i = 0; i <= n; ++i) {
        char c = dot[1 + i];
        ext[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (strcmp(ext, table[i].ext) == 0)
            return table[i].format;
    return IMAGE_FORMAT_UNKNOWN;
}

int image_format_detached(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (strcasecmp(dot, ".mhd") == 0 || strcasecmp(dot, ".nhdr") == 0);
}

static int unknown_extension(const char *path, char *error, size_t error_size)
{
    return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                      "unknown image format (the extension must be " IMAGE_EXTENSIONS ")");
}

int image_open_file(const char *path, int *fd_out, uint64_t *size, char *error, size_t error_size)
{
    /* O_NONBLOCK: a FIFO must not block the open; it is refused below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return image_fail(error, error_size,
                          (e == ENOENT || e == ENOTDIR) ? IMAGE_ERR_MISSING : IMAGE_ERR_UNREADABLE,
                          path, "%s", (e == ENOENT || e == ENOTDIR) ? "does not exist" : strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "%s", strerror(e));
    }
    const char *problem = S_ISDIR(st.st_mode)   ? "is a folder, not an image file"
                          : !S_ISREG(st.st_mode) ? "not a regular file"
                                                 : NULL;
    if (problem) {
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_UNREADABLE, path, "%s", problem);
    }
    if (st.st_size <= 0) {
        close(fd);
        return image_fail(error, error_size, IMAGE_ERR_CORRUPT, path, "empty file");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (uint64_t)st.st_size;
    return IMAGE_OK;
}

int image_read(const char *path, cls_host_image *out, char *error, size_t error_size)
{
    if (error && error_size > 0)
        error[0] = '\0';
    if (!path || !out)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "no path or no image given");
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t size;
    const int opened = image_open_file(path, &fd, &size, error, error_size);
    if (opened != IMAGE_OK) return opened;
    switch (image_format_of(path)) {
    case IMAGE_FORMAT_TIFF: return image_tiff_read(fd, path, out, error, error_size);
    case IMAGE_FORMAT_PGM:
    case IMAGE_FORMAT_PPM:
    case IMAGE_FORMAT_PNM:
    case IMAGE_FORMAT_PFM: return image_pnm_read(fd, path, size, out, error, error_size);
    case IMAGE_FORMAT_METAIMAGE: return image_metaimage_read(fd, path, size, out, error, error_size);
    case IMAGE_FORMAT_NRRD: return image_nrrd_read(fd, path, size, out, error, error_size);
    default: close(fd); return unknown_extension(path, error, error_size);
    }
}

/* Flushes the folder of PATH, so that the rename survives a power loss. */
static void sync_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    int fd = folder ? open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(folder);
}

/* A write that failed under a file-size limit (ulimit -f) says so. */
static void explain_size_limit(char *error, size_t error_size)
{
    struct rlimit limit;
    if (!error || getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return;
    const size_t used = strlen(error);
    if (used + 1 < error_size)
        snprintf(error + used, error_size - used, " (the file-size limit, ulimit -f, is %llu bytes)",
                 (unsigned long long)limit.rlim_cur);
}

/* "DIR/.NAME.clstencil-PID.XXXXXX" for the destination "DIR/NAME" (no "DIR/" without a folder):
 * the temporary file a run writes, named by its process so that a later run can tell one left by a
 * process that was killed (SIGKILL runs no handler) and remove it. */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    const int dir_len = slash ? (int)(slash - path) + 1 : 0;
    const size_t size = strlen(path) + 48;
    char *name = malloc(size);
    if (name)
        snprintf(name, size, "%.*s.%s.clstencil-%ld.XXXXXX", dir_len, path, path + dir_len, (long)getpid());
    return name;
}

/* Removes the temporary files of PATH (temp_template's) whose process is gone. */
static void remove_stale_temps(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    const char *name = slash ? slash + 1 : path;
    DIR *dir = folder ? opendir(folder) : NULL;
    const size_t name_len = strlen(name);
    for (struct dirent *entry; dir && (entry = readdir(dir)) != NULL;) {
        const char *e = entry->d_name;
        if (e[0] != '.' || strncmp(e + 1, name, name_len) != 0 || strncmp(e + 1 + name_len, ".clstencil-", 11) != 0)
            continue;
        char *end = NULL;
        const long pid = strtol(e + 1 + name_len + 11, &end, 10);
        if (pid > 0 && end && *end == '.' && strlen(end) == 7 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            (void)unlinkat(dirfd(dir), e, 0);
    }
    if (dir)
        closedir(dir);
    free(folder);
}

/* image_write_through into PATH, the new file given MODE. */
static int write_through(const char *path, mode_t mode, image_file_writer writer, void *context, char *error,
                         size_t error_size)
{
    remove_stale_temps(path);
    char *temp = temp_template(path);
    if (!temp)
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path, "out of memory");
    int fd = mkstemp(temp);
    if (fd < 0) {
        int e = errno;
        free(temp);
        return image_fail(error, error_size, IMAGE_ERR_WRITE, path,
                          "cannot create a file in its folder: %s", strerror(e));
    }
    const size_t slot = hold_partial_output(temp);
    (void)fchmod(fd, mode); /* mkstemp creates 0600 */
    int status = writer(fd, path, context, error, error_size);
    if (status == IMAGE_OK && rename(temp, path) != 0)
        status = image_fail(error, error_size, IMAGE_ERR_WRITE, path, "cannot replace the file: %s",
                            strerror(errno));
    if (status != IMAGE_OK)
        unlink(temp);
    if (slot < PARTIAL_SLOTS) partial_outputs[slot] = NULL;
    free(temp);
    if (status == IMAGE_OK)
        sync_folder(path);
    else if (status == IMAGE_ERR_WRITE)
        explain_size_limit(error, error_size);
    return status;
}

/* The file that writing PATH replaces: a symbolic link's target (the link stays a link), else
 * PATH; its permissions, for the new file: an existing file's own, else a new file's. */
static char *replaced_file(const char *path, mode_t *mode)
{
    char *target = realpath(path, NULL);
    struct stat old;
    *mode = target && stat(target, &old) == 0 && S_ISREG(old.st_mode) ? old.st_mode & 07777 : created_mode();
    return target ? target : strdup(path);
}

int image_write_through(const char *named, image_file_writer writer, void *context, char *error, size_t error_size)
{
    mode_t mode;
    char *path = replaced_file(named, &mode);
    if (!path)
        return image_fail(error, error_size, IMAGE_ERR_WRITE, named, "out of memory");
    const int status = write_through(path, mode, writer, context, error, error_size);
    free(path);
    return status;
}

int image_format_check(image_format format, const char *path, const cls_host_image *image, char *error,
                       size_t error_size)
{
    if (image_format_detached(path))
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path,
                          "a header whose voxels lie in another file is read, not written: write a .mha or .nrrd");
    if (format == IMAGE_FORMAT_METAIMAGE || format == IMAGE_FORMAT_NRRD)
        return image_volume_check(path, image, error, error_size);
    if (format != IMAGE_FORMAT_TIFF)
        return image_pnm_check(format, path, image, error, error_size);
    return IMAGE_OK;
}

/* image_write's writer: the format of PATH's extension. */
static int write_image(int fd, const char *path, void *context, char *error, size_t error_size)
{
    const cls_host_image *image = context;
    const image_format format = image_format_of(path);
    if (format == IMAGE_FORMAT_TIFF)
        return image_tiff_write(fd, path, image, error, error_size);
    if (format == IMAGE_FORMAT_METAIMAGE)
        return image_metaimage_write(fd, path, image, error, error_size);
    if (format == IMAGE_FORMAT_NRRD)
        return image_nrrd_write(fd, path, image, error, error_size);
    return image_pnm_write(fd, format, path, image, error, error_size);
}

int image_write(const char *path, const cls_host_image *image, char *error, size_t error_size)
{
    size_t total;
    if (error && error_size > 0)
        error[0] = '\0';
    if (!path || !image)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "no path or no image given");
    int status = image_check(image->width, image->height, image->channels, image->pages, image->type, &total,
                             path, error, error_size);
    if (status != IMAGE_OK)
        return status;
    if (!image->pixels)
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "the image has no pixels");
    image_format format = image_format_of(path);
    if (format == IMAGE_FORMAT_UNKNOWN)
        return unknown_extension(path, error, error_size);
    if (format == IMAGE_FORMAT_TIFF && !image_has_tiff())
        return image_fail(error, error_size, IMAGE_ERR_UNSUPPORTED, path, "built without TIFF support");
    if ((status = image_format_check(format, path, image, error, error_size)) != IMAGE_OK)
        return status;
    return image_write_through(path, write_image, (void *)image, error, error_size);
}
