/* filter_batch.c — `clstencil filter IN... -o DIR`: every output named and checked before any
 * work, then the images one after another through one context and one pipeline, going on past a
 * failed image. While image i is written (by a thread of its own), image i+1 is read and
 * filtered: the writing, the larger part of a batch's time, overlaps the rest. With several
 * devices (--device 1:0,1:1 or gpus) each is a lane doing the same, taking the next image when it
 * is free. The written image's memory counts against the next one's budget, and an image that
 * fails beside it is tried again once it is written, so a budget that holds one image at a time
 * still works. On a GPU the images' pixels live in pinned memory. With one device, messages stay
 * in the images' order: an image's are held until the one before it is written. */
#define _GNU_SOURCE /* open_memstream */
#include "filter_batch.h"

#include "commands.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A batch's output: DIR/ the input's file name, its extension replaced with FORMAT's (when
 * given). NULL after a message when the input names no file (exit 1). */
static char *batch_output(const char *dir, const char *input, const char *format)
{
    const char *slash = strrchr(input, '/'), *base = slash ? slash + 1 : input;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        fprintf(stderr, "clstencil filter: '%s' names no file, so no output can be named after it\n", input);
        return NULL;
    }
    const char *dot = strrchr(base, '.');
    const int stem = (int)(format && dot && dot != base ? (size_t)(dot - base) : strlen(base));
    const size_t length = strlen(dir);
    const size_t size = length + 1 + (size_t)stem + 1 + (format ? strlen(format) : 0) + 1;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%s%s%.*s%s%s", dir, length && dir[length - 1] == '/' ? "" : "/", stem, base,
                 format ? "." : "", format ? format : "");
    else {
        fprintf(stderr, "clstencil filter: out of memory\n");
        return NULL;
    }
    return path;
}

/* A file's identity, for the overlap checks. */
typedef struct file_key {
    dev_t dev;
    ino_t ino;
    const char *name;
} file_key;

static int compare_keys(const void *a, const void *b)
{
    const file_key *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(((const file_key *)a)->name, ((const file_key *)b)->name);
}

/* Refuses (exit 1) a batch in which two outputs are one path, or an output is an input (by
 * device and inode: links and other spellings count). */
static int check_batch_overlaps(const filter_args *args, char **outputs)
{
    const size_t n = args->input_count;
    file_key *keys = calloc(n ? n : 1, sizeof *keys);
    size_t known = 0;
    int code = EXIT_OK_;
    if (!keys) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        return EXIT_FAILURE_;
    }
    for (size_t i = 0; i < n; ++i) keys[i].name = outputs[i];
    qsort(keys, n, sizeof *keys, compare_names);
    for (size_t i = 1; i < n && code == EXIT_OK_; ++i)
        if (strcmp(keys[i - 1].name, keys[i].name) == 0) {
            fprintf(stderr, "clstencil filter: two inputs would both be written to %s (inputs with one file name "
                            "in one batch): nothing was filtered\n", keys[i].name);
            code = EXIT_USAGE;
        }
    struct stat info;
    for (size_t i = 0; i < n && code == EXIT_OK_; ++i)
        if (stat(args->inputs[i], &info) == 0)
            keys[known++] = (file_key){info.st_dev, info.st_ino, args->inputs[i]};
    qsort(keys, known, sizeof *keys, compare_keys);
    for (size_t i = 0; i < n && code == EXIT_OK_; ++i) {
        if (stat(outputs[i], &info) != 0) continue;
        const file_key probe = {info.st_dev, info.st_ino, NULL};
        const file_key *hit = bsearch(&probe, keys, known, sizeof *keys, compare_keys);
        if (!hit) continue;
        fprintf(stderr, "clstencil filter: %s is the input %s: writing the result would replace it; choose "
                        "another -o DIR (nothing was filtered)\n", outputs[i], hit->name);
        code = EXIT_USAGE;
    }
    free(keys);
    return code;
}

/* The progress line on a terminal: done of total, the rate and the time left. */
static void show_progress(size_t done, size_t total, double start)
{
    const double seconds = (wall_ms() - start) / 1000.0, rate = seconds > 0 ? (double)done / seconds : 0.0;
    fprintf(stderr, "\r\033[Kclstencil filter: %zu/%zu images, %.1f images/s", done, total, rate);
    if (rate > 0 && done < total) fprintf(stderr, ", %.0f s left", (double)(total - done) / rate);
}

/* Pinned pixel memory for a batch on a GPU (cls_host_alloc): the device copies it at full speed
 * (an H200: 54 GB/s against 1.5-13 GB/s for ordinary memory), and buffers of the images' sizes are
 * kept for the next images, since pinning costs more than one copy saves. */
enum { POOL_BUFFERS = 6 }; /* an image read, one filtered, one written: input and output each */
typedef struct pinned_pool {
    cls_context *context;
    void *buffers[POOL_BUFFERS];
    size_t sizes[POOL_BUFFERS], count;
} pinned_pool;

static void *pool_allocate(void *argument, size_t bytes)
{
    pinned_pool *pool = argument;
    void *pixels = NULL;
    for (size_t k = 0; k < pool->count && !pixels; ++k)
        if (pool->sizes[k] == bytes) {
            pixels = pool->buffers[k];
            pool->buffers[k] = pool->buffers[--pool->count];
            pool->sizes[k] = pool->sizes[pool->count];
        }
    if (!pixels) pixels = cls_host_alloc(pool->context, bytes);
    if (pixels) memset(pixels, 0, bytes);
    return pixels;
}

static void pool_release(void *argument, void *pixels, size_t bytes)
{
    pinned_pool *pool = argument;
    if (pool->count < POOL_BUFFERS) {
        pool->buffers[pool->count] = pixels;
        pool->sizes[pool->count++] = bytes;
    } else {
        cls_host_free(pool->context, pixels);
    }
}

static void pool_empty(pinned_pool *pool)
{
    while (pool->count) cls_host_free(pool->context, pool->buffers[--pool->count]);
}

/* An image on its way out: written by a thread while the next one is read and filtered. */
typedef struct written {
    pthread_t thread;
    int running; /* 1: a thread writes it; 2: written already (no thread could start), not reported */
    size_t index;
    const char *output;
    cls_host_image image;
    image_times times;
    char *held;       /* what reading and filtering it said, printed once it is written */
    int code;
    char error[1024];
} written;

static void *write_image(void *argument)
{
    written *w = argument;
    w->code = filter_write_result(w->output, &w->image, w->error, sizeof w->error, &w->times);
    return NULL;
}

/* The batch's state: counts, the progress line, the first failure, and the next image a lane
 * takes (under LOCK when several lanes run). */
typedef struct batch {
    const filter_args *args;
    char **outputs;
    size_t count, failed, next, lanes;
    int progress, first_failure;
    double start;
    pthread_mutex_t lock;
} batch;

/* One device's share of the batch: its context and pipelines, and its own pinned buffers and
 * writer (a thread of its own for each lane but the first, which runs on the caller's). */
typedef struct lane {
    batch *b;
    filter_args args; /* the batch's, with the lane's device */
    filter_session *session;
    pthread_t thread;
    int started;
} lane;

/* Prints an image's held messages (after the progress line, on a terminal). */
static void print_held(const batch *b, const char *held)
{
    if (held && *held) fprintf(stderr, "%s%s", b->progress ? "\r\033[K" : "", held);
}

/* Counts an image's result and says it with -v. */
static void count_result(batch *b, size_t index, int result, const image_times *times, const char *output)
{
    const filter_args *args = b->args;
    if (result != EXIT_OK_) {
        ++b->failed;
        if (b->first_failure == EXIT_OK_) b->first_failure = result;
        if (args->plan.verbose)
            fprintf(stderr, "[%zu/%zu] %s: failed (exit %d)\n", index + 1, b->count, args->inputs[index], result);
    } else if (args->plan.verbose) {
        fprintf(stderr, "[%zu/%zu] %s -> %s: read %.1f ms, filtered %.1f ms, written %.1f ms\n", index + 1,
                b->count, args->inputs[index], output, times->read_ms, times->filter_ms, times->write_ms);
    }
}

/* Waits for the image being written, if any, and reports it. */
static void finish_writing(batch *b, written *w)
{
    if (!w->running) return;
    if (w->running == 1) pthread_join(w->thread, NULL);
    w->running = 0;
    filter_budget_hold(0);
    pthread_mutex_lock(&b->lock);
    print_held(b, w->held);
    if (w->code != EXIT_OK_) fprintf(stderr, "clstencil filter: %s\n", w->error);
    count_result(b, w->index, w->code, &w->times, w->output);
    pthread_mutex_unlock(&b->lock);
    image_free(&w->image);
    free(w->held);
    w->held = NULL;
}

/* Reads and filters image I into *out. With one lane its messages are held in *held, to be printed
 * once the image before it is written (a terminal's progress line stays while it works: glibc's
 * stderr is a variable); with several, stderr is every lane's, and each prints as it goes. */
static int read_held(lane *l, size_t i, cls_host_image *out, image_times *times, char **held)
{
    const batch *b = l->b;
    const char *input = b->args->inputs[i], *output = b->outputs[i];
    if (b->lanes > 1) return filter_read_and_filter(&l->args, &l->session, input, output, out, times);
    size_t held_size = 0;
    FILE *terminal = stderr, *memory = open_memstream(held, &held_size);
    if (memory) stderr = memory;
    const int result = filter_read_and_filter(&l->args, &l->session, input, output, out, times);
    if (memory) {
        stderr = terminal;
        fclose(memory);
    }
    return result;
}

/* The next image no lane has taken (count when none is left), with the progress line. */
static size_t take_image(batch *b)
{
    pthread_mutex_lock(&b->lock);
    const size_t i = b->next < b->count ? b->next++ : b->count;
    if (b->progress && i < b->count) show_progress(i, b->count, b->start);
    pthread_mutex_unlock(&b->lock);
    return i;
}

/* A lane's work: images taken one after another, each written by a thread while the lane reads
 * and filters the next; on a GPU their pixels in the lane's pinned buffers. */
static void *lane_run(void *argument)
{
    lane *l = argument;
    batch *b = l->b;
    written w = {0};
    pinned_pool pool = {0};
    const image_allocator pinned = {pool_allocate, pool_release, &pool};
    if (cls_context_device(filter_session_context(l->session))->type == CLS_DEVICE_GPU) {
        pool.context = filter_session_context(l->session);
        image_set_allocator(&pinned);
    }
    for (size_t i; (i = take_image(b)) < b->count;) {
        cls_host_image out = {0};
        image_times times = {0};
        char *held = NULL;
        int result = read_held(l, i, &out, &times, &held);
        if (result != EXIT_OK_ && w.running) {
            /* perhaps for the memory the image being written holds: once more after it */
            finish_writing(b, &w);
            free(held);
            held = NULL;
            result = read_held(l, i, &out, &times, &held);
        }
        finish_writing(b, &w);
        if (result != EXIT_OK_) {
            pthread_mutex_lock(&b->lock);
            print_held(b, held);
            count_result(b, i, result, &times, b->outputs[i]);
            pthread_mutex_unlock(&b->lock);
            free(held);
            continue;
        }
        w = (written){.index = i, .output = b->outputs[i], .image = out, .times = times, .held = held};
        filter_budget_hold(image_plane_bytes(&out) * image_plane_count(&out));
        if (pthread_create(&w.thread, NULL, write_image, &w) == 0) {
            w.running = 1;
        } else { /* no thread: written here */
            write_image(&w);
            w.running = 2;
        }
    }
    finish_writing(b, &w);
    image_set_allocator(NULL);
    pool_empty(&pool);
    return NULL;
}

/* Opens a context a device (every device of --device's list; else the one it names). The contexts
 * come before any message is held: a driver may bind its own streams to stderr as it is while it
 * loads (PoCL's libstdc++ did, and flushed a closed memory stream at exit). */
static int open_lanes(batch *b, lane *lanes)
{
    const filter_args *args = b->args;
    for (size_t k = 0; k < b->lanes; ++k) {
        lanes[k] = (lane){.b = b, .args = *args};
        if (args->devices.count) lanes[k].args.plan.device = args->devices.selectors[k];
        const int code = filter_session_open(&lanes[k].args.plan, &lanes[k].session);
        if (code != EXIT_OK_) return code;
    }
    return EXIT_OK_;
}

/* The lanes at work, the first on this thread, until every image is taken; then the others joined. */
static void run_lanes(batch *b, lane *lanes)
{
    filter_budget_share(b->lanes);
    for (size_t k = 1; k < b->lanes; ++k)
        lanes[k].started = pthread_create(&lanes[k].thread, NULL, lane_run, &lanes[k]) == 0;
    lane_run(&lanes[0]);
    for (size_t k = 1; k < b->lanes; ++k)
        if (lanes[k].started) pthread_join(lanes[k].thread, NULL);
    filter_budget_share(1);
}

int filter_batch_run(filter_args *args)
{
    const size_t n = args->input_count;
    char **outputs = calloc(n, sizeof *outputs);
    struct stat info;
    int code = EXIT_OK_;
    if (!outputs) {
        fprintf(stderr, "clstencil filter: out of memory\n");
        return EXIT_FAILURE_;
    }
    if (stat(args->output, &info) != 0 || !S_ISDIR(info.st_mode)) {
        fprintf(stderr, "clstencil filter: %s: cannot be written: %s (-o names the batch's output folder, which "
                        "must exist)\n", args->output, stat(args->output, &info) != 0 ? "no such folder" : "not a folder");
        code = EXIT_OUTPUT;
    }
    for (size_t i = 0; i < n && code == EXIT_OK_; ++i)
        if (!(outputs[i] = batch_output(args->output, args->inputs[i], args->format))) code = EXIT_USAGE;
        else if (stat(args->inputs[i], &info) != 0 || !S_ISDIR(info.st_mode)) /* a folder: refused when read (4) */
            code = filter_check_output(outputs[i], NULL);
    if (code == EXIT_OK_) code = check_batch_overlaps(args, outputs);
    batch b = {.args = args, .outputs = outputs, .count = n, .lanes = args->devices.count ? args->devices.count : 1,
               .progress = !args->plan.verbose && isatty(STDERR_FILENO), .first_failure = EXIT_OK_,
               .start = wall_ms(), .lock = PTHREAD_MUTEX_INITIALIZER};
    if (b.lanes > n && n) b.lanes = n; /* no lane without an image */
    lane lanes[FILTER_MAX_DEVICES] = {{0}};
    if (code == EXIT_OK_) {
        const int opened = open_lanes(&b, lanes);
        if (opened == EXIT_OK_) {
            run_lanes(&b, lanes);
        } else {
            b.failed = n;
            b.first_failure = opened;
        }
    }
    size_t builds = 0;
    for (size_t k = 0; k < b.lanes; ++k) builds += filter_session_builds(lanes[k].session);
    if (code == EXIT_OK_) {
        if (b.progress) fprintf(stderr, "\r\033[K");
        if (b.failed || b.progress || args->plan.verbose)
            fprintf(stderr, "clstencil filter: %zu of %zu images written, %zu failed%s (%.1f s, %zu pipeline build%s%s)\n",
                    n - b.failed, n, b.failed, b.failed ? " (the exit code is the first failure's)" : "",
                    (wall_ms() - b.start) / 1000.0, builds, builds == 1 ? "" : "s",
                    b.lanes > 1 ? ", over several devices" : "");
        code = b.first_failure;
    }
    for (size_t k = 0; k < b.lanes; ++k) filter_session_close(lanes[k].session);
    for (size_t i = 0; i < n; ++i) free(outputs[i]);
    free(outputs);
    return code;
}
