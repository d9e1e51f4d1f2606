/* tuning.h — the tuning database (internal): measured best configurations keyed by device
 * architecture, operator and image size class, as INI text. Records ship with the library
 * (the INI files of device-db/tuning, compiled in) and `clstencil tune` adds the user's own; `auto` consults
 * them before the policy defaults. Pure C: parsing, lookup and rendering of text. */
#ifndef CLS_TUNING_H
#define CLS_TUNING_H

#include "clstencil_tuning.h"
#include "strbuf.h"

/* The format of the operator descriptions that name tuning results (operator_key.c). A result
 * keyed in another format is stale: not used, and reported. */
#define CLS_TUNING_KEY_FORMAT 2

/* One section: [ARCH OPERATOR-HASH SIZE-CLASS]. */
typedef struct cls_tuning_entry {
    char arch[64];          /* "sm_90", or the record id where the device has no architecture key */
    char operator_hash[17]; /* XXH3-64 of cls_operator_description, 16 hex digits */
    unsigned key_format;    /* key = N; 1 when absent (results keyed by the kernel's cache key) */
    unsigned size_class;    /* cls_tuning_size_class of the tuned image or volume */
    char description[128];  /* what was tuned, for people ("gaussian:3,0.8 clamp") */
    cls_tuning tuning;
    int calibrated;         /* an ISP calibration (key isp_check): operator_hash is
                             * cls_isp_calibration_hash's, tuning the reference measured */
    double isp_check;       /* the check cost per loaded pixel it implies (models.h) */
} cls_tuning_entry;

/* The size class a result is filed under: cls_size_class of an image; of a volume (depth over 1),
 * log2 of the geometric mean of its three sides, rounded (512^3: 9, 1024x1024x64: 9, 256^3: 8),
 * so that a volume's result serves volumes of about its number of voxels. */
unsigned cls_tuning_size_class(size_t width, size_t height, size_t depth);

typedef struct cls_tuning_table {
    cls_tuning_entry *entries;
    size_t count, capacity;
    size_t stale;              /* results of another key format, which lookups skip */
    char stale_location[256];  /* the first file that had one */
} cls_tuning_table;

/* Whether an entry is keyed in another format than CLS_TUNING_KEY_FORMAT (calibrations are
 * filed under their border mode's name and never stale). */
int cls_tuning_entry_stale(const cls_tuning_entry *entry);

void cls_tuning_table_free(cls_tuning_table *table);
/* Adds the sections of one file's text; a section already in the table (same arch, operator and
 * class) is replaced, so later files override earlier ones. Malformed text is CLS_ERR_PARSE
 * naming location and line; the table keeps what it had. */
cls_status cls_tuning_table_parse(cls_tuning_table *table, const char *text, const char *location);
/* The entry for arch and operator in size class `size_class` (0: the largest class tuned), else
 * the nearest class (the larger on a tie); NULL when the operator was never tuned there.
 * *exact (may be NULL) says whether the class matched. */
const cls_tuning_entry *cls_tuning_table_find(const cls_tuning_table *table, const char *arch,
                                              const char *operator_hash, unsigned size_class, int *exact);
/* text with entry's section replaced (or appended when new); NULL when out of memory. */
char *cls_tuning_text_replace(const char *text, const cls_tuning_entry *entry);

/* The operator spec names: its key format, then everything but the knobs the tuner chooses
 * (partition, input path, work-group shape, rows and columns per work-item) field by field, e.g.
 * "operator-v2;mask=3x3;masks=1;border=clamp;in=f32;out=f32;separable=...;values=...". *out is
 * freed with free. CLS_ERR_* for an invalid spec. */
cls_status cls_operator_description(const cls_spec *spec, char **out);
/* The hash of that description, 16 hex digits: the section name of the operator's results. */
cls_status cls_operator_hash(const cls_spec *spec, char hash[17]);
/* The same for a spec already validated whose MASKS masks' values (-0 as +0) are VALUES: a
 * planner's request (plan/request.h), described without reading the spec again. */
cls_status cls_operator_hash_of(const cls_spec *valid, unsigned masks, const float *values, char hash[17]);
/* The name an ISP calibration of one border mode is filed under in place of an operator hash. */
void cls_isp_calibration_hash(cls_border border, char hash[17]);

#endif
