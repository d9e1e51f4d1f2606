/* tiff_fixture.h — what the command's TIFF stack tests share (test_tiff_stack.c, test_tiff_volume.c):
 * a temporary folder a run, `clstencil filter` run in it with its log, the test stack (u16, gray,
 * W x H pages of a pattern, per-page tags) written and read back with libtiff, and the runner
 * that takes a case's name from the command line. */
#ifndef CLS_TEST_TIFF_FIXTURE_H
#define CLS_TEST_TIFF_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

enum { W = 37, H = 23, PAGES = 3, ICC_SIZE = 64 };

/* This run's folder, and the clstencil command it tests. */
const char *fixture_folder(void);
const char *fixture_command(void);
/* NAME in this run's folder (one of 8 rotating buffers). */
const char *path_of(const char *name);
/* Runs `clstencil filter ARGUMENTS` in the folder; returns its exit status (output in log.txt). */
int filter(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Whether the last run's log holds TEXT (printing the log when not). */
int logged(const char *text);
int exists(const char *name);
/* The test stack's sample at (x, y) of page PAGE. */
uint16_t pixel(int page, int x, int y);
/* Pages FIRST..LAST-1 of the test stack as one file in libtiff's open MODE ("w", "w8" BigTIFF),
 * every page described by DESCRIPTION or (NULL) by an ImageJ stack's text; the last page
 * WIDTH_OF_LAST wide where not 0. */
void write_described(const char *name, const char *mode, int first, int last, uint16_t compression,
                     int width_of_last, const char *description);
void write_stack_as(const char *name, const char *mode, int first, int last, uint16_t compression, int width_of_last);
void write_stack(const char *name, int first, int last, uint16_t compression, int width_of_last);
/* Every page of NAME (u16 gray W x H) into PIXELS[page][y][x]; returns the page count. */
int read_stack(const char *name, uint16_t pixels[][H][W], int max_pages);
/* Room for PAGES + 1 pages. */
uint16_t (*alloc_pages(void))[H][W];
int same_files(const char *a, const char *b);
/* An index of an axis of N under mirror (dcba|abcd) or repeat, any distance outside. */
int folded(int i, int n, int repeat);
/* The runner: PROGRAM PATH-TO-CLSTENCIL CASE runs the test NAMES[k] of ALL in a fresh folder. */
int tiff_cases_run(int argc, char **argv, const struct CMUnitTest *all, const char *const *names, size_t count);

#endif
