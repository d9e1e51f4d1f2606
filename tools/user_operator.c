/* user_operator.c — `filter --op user:FILE[,WxH]` or `user:FILE,WxHxD`: an operator body read
 * from a file (a regular file of bounded size), over the window given or 3x3; with a depth, a
 * volume's operator. */
#include "user_operator.h"

#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a body file may hold before the library's own limit on bodies is checked. */
#define BODY_FILE_MAX (1 << 20)

char *user_operator_read_body(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat info;
    const char *problem = NULL;
    int error = fd < 0 ? errno : fstat(fd, &info) != 0 ? errno : 0;
    if (!error && S_ISDIR(info.st_mode)) error = EISDIR;
    else if (!error && !S_ISREG(info.st_mode)) problem = "not a regular file";
    else if (!error && info.st_size > BODY_FILE_MAX) problem = "larger than 1 MiB (an operator body is at most 64 KiB)";
    char *text = !error && !problem ? malloc((size_t)info.st_size + 1) : NULL;
    size_t size = 0;
    if (!error && !problem && !text) error = ENOMEM;
    while (text && !error && size < (size_t)info.st_size) {
        const ssize_t got = read(fd, text + size, (size_t)info.st_size - size);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) error = errno;
        if (got <= 0) break;
        size += (size_t)got;
    }
    if (fd >= 0) close(fd);
    if (error || problem) {
        fprintf(stderr, "clstencil: cannot read the operator body %s: %s\n", path,
                problem ? problem : strerror(error));
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* WxH, or WxHxD (*depth then its depth, else 0). */
static int parse_window(const char *text, unsigned *width, unsigned *height, unsigned *depth)
{
    *depth = 0;
    const char *second = strchr(text, 'x'), *third = second ? strchr(second + 1, 'x') : NULL;
    if (!third) return parse_size(text, width, height);
    char flat[32], *end = NULL;
    if ((size_t)(third - text) >= sizeof flat) return 0;
    memcpy(flat, text, (size_t)(third - text));
    flat[third - text] = '\0';
    const unsigned long d = strtoul(third + 1, &end, 10);
    if (!(third[1] >= '0' && third[1] <= '9') || *end || d % 2 == 0 || d > CLS_MAX_MASK_DEPTH) return 0;
    *depth = (unsigned)d;
    return parse_size(flat, width, height);
}

cls_status command_operator_parse(const char *text, cls_operator **out, int *read_failed)
{
    *read_failed = 0;
    return strncasecmp(text, "user:", 5) == 0 ? user_operator_parse(text + 5, out, read_failed)
                                              : cls_operator_parse(text, out);
}

cls_status user_operator_parse(const char *spec, cls_operator **out, int *read_failed)
{
    char *path = strdup(spec);
    if (!path) return CLS_ERR_OUT_OF_MEMORY;
    unsigned width = 3, height = 3, depth = 0;
    char *comma = strrchr(path, ',');
    struct stat info;
    if (comma && parse_window(comma + 1, &width, &height, &depth)) *comma = '\0';
    else width = height = 3, depth = 0; /* a comma that belongs to the file name; sscanf may have written */
    if (comma && *comma && stat(path, &info) != 0) { /* neither FILE,WxH nor a file named so */
        char excerpt[256];
        printable_excerpt(comma + 1, excerpt, sizeof excerpt);
        fprintf(stderr, "clstencil: --op user:%s: '%s' is not a window WxH or WxHxD (odd sides, 1 to 63; "
                        "the depth to 31), "
                        "and no file is named %s\n", spec, excerpt, path);
        free(path);
        *read_failed = 1;
        return CLS_ERR_INVALID_ARGUMENT;
    }
    char *body = user_operator_read_body(path);
    cls_status status = CLS_ERR_IO;
    *read_failed = !body;
    if (body)
        status = depth ? cls_operator_user_volume(body, width, height, depth, NULL, out)
                       : cls_operator_user(body, width, height, NULL, out);
    free(body);
    free(path);
    return status;
}
