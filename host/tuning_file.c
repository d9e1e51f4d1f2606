/* tuning_file.c — the tuning database on disk and in a context: the results shipped with the
 * library (compiled in) and the user's file, loaded when a context is created; storing a result
 * rewrites the user's file atomically; looking one up serves `auto`. */
#include "host.h"

#include "embedded.h"
#include "error.h"
#include "files.h"
#include "generator.h"
#include "struct_size.h"
#include "text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cls_tuning_path(void)
{
    static _Thread_local char path[4096];
    if (cls_config_path(CLS_CONFIG_TUNING, path, sizeof path)) return path;
    const char *named = getenv("CLSTENCIL_TUNING_DB"), *config = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (named && *named) snprintf(path, sizeof path, "%s", named);
    else if (config && *config) snprintf(path, sizeof path, "%s/clstencil/tuning.ini", config);
    else if (home && *home) snprintf(path, sizeof path, "%s/.config/clstencil/tuning.ini", home);
    else path[0] = '\0';
    return path;
}

cls_status cls_tuning_load(cls_tuning_table *table)
{
    cls_status status = CLS_OK;
    for (size_t i = 0; status == CLS_OK && i < cls_embedded_tuning_count; ++i)
        status = cls_tuning_table_parse(table, cls_embedded_tuning[i].text, cls_embedded_tuning[i].name);
    const char *path = cls_tuning_path();
    char *text = status == CLS_OK && path[0] ? cls_read_text_file(path, "the tuning file", 1, &status) : NULL;
    if (text) status = cls_tuning_table_parse(table, text, path);
    free(text);
    return status;
}

static int names_every_choice(const cls_tuning *t)
{
    return t->partition != CLS_PARTITION_AUTO && t->input_path != CLS_INPUT_AUTO && t->group_width &&
           t->group_height && t->rows_per_item && t->cols_per_item && t->width && t->height;
}

/* Replaces or adds entry (arch and size class filled here) in the user's tuning file. */
static cls_status store_entry(const cls_context *context, cls_tuning_entry *entry, const char *description)
{
    entry->size_class = cls_tuning_size_class(entry->tuning.width, entry->tuning.height, entry->tuning.depth);
    const cls_planner planner = cls_context_lookup_planner(context);
    snprintf(entry->arch, sizeof entry->arch, "%s", cls_plan_arch(&planner));
    snprintf(entry->description, sizeof entry->description, "%s", description ? description : "");
    entry->description[strcspn(entry->description, "\n[]")] = '\0'; /* one line, no section syntax */
    cls_status status = CLS_OK;
    const char *path = cls_tuning_path();
    if (!path[0]) return cls_fail(CLS_ERR_IO, "no tuning file: set CLSTENCIL_TUNING_DB, XDG_CONFIG_HOME or HOME");
    char *old = cls_read_text_file(path, "the tuning file", 1, &status);
    if (status != CLS_OK) return status;
    cls_tuning_table check = {0};
    if (old) status = cls_tuning_table_parse(&check, old, path); /* never rewrite a file we cannot read */
    cls_tuning_table_free(&check);
    char *text = status == CLS_OK ? cls_tuning_text_replace(old, entry) : NULL;
    free(old);
    if (status != CLS_OK) return status;
    if (!text) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash && slash != folder) *slash = '\0';
    if ((slash && slash != folder && !cls_make_directory(folder)) || !cls_write_file_atomic(path, text, strlen(text)))
        status = cls_fail(CLS_ERR_IO, "%s: cannot write the tuning file: %s", path, strerror(errno));
    free(text);
    return status;
}

cls_status cls_tuning_store(const cls_context *context, const cls_spec *spec, const cls_tuning *tuning,
                            const char *description)
{
    if (!context || !spec || !tuning) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "context, spec or tuning is NULL");
    cls_spec spec_copy;
    cls_tuning_entry entry = {0};
    cls_status status = cls_spec_read(spec, &spec_copy);
    if (status == CLS_OK) status = cls_struct_read(&cls_tuning_layout, tuning, &entry.tuning);
    if (status != CLS_OK) return status;
    if (!names_every_choice(&entry.tuning))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a tuning result names every choice (no auto) and the image size");
    status = cls_operator_hash(&spec_copy, entry.operator_hash);
    return status == CLS_OK ? store_entry(context, &entry, description) : status;
}

cls_status cls_isp_calibration_store(const cls_context *context, cls_border border, const cls_tuning *measured,
                                     double check_per_load, const char *description)
{
    if (!names_every_choice(measured) || !(check_per_load >= 0.0))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "an ISP calibration names the reference's configuration and a "
                                                  "check cost of 0 or more");
    cls_tuning_entry entry = {.tuning = *measured, .calibrated = 1, .isp_check = check_per_load};
    cls_isp_calibration_hash(border, entry.operator_hash);
    return store_entry(context, &entry, description);
}

cls_status cls_tuning_lookup(const cls_context *context, const cls_spec *spec, unsigned width, unsigned height,
                             cls_tuning *tuning, int *found)
{
    if (!context || !spec || !tuning || !found) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "an argument is NULL");
    *found = 0;
    cls_spec spec_copy;
    cls_status status = cls_struct_check(&cls_tuning_layout, tuning);
    if (status == CLS_OK) status = cls_spec_read(spec, &spec_copy);
    if (status != CLS_OK) return status;
    const cls_planner planner = cls_context_lookup_planner(context);
    cls_tuning found_tuning;
    if (!cls_plan_tuned(&planner, &spec_copy, width, height, &found_tuning)) return CLS_OK;
    *found = 1;
    return cls_struct_write(&cls_tuning_layout, tuning, &found_tuning);
}
