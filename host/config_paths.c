/* config_paths.c — the configuration files a context reads, the device-database overlay and the
 * tuning file: where the host set them (cls_set_config_paths), else the environment's and the
 * XDG folders' defaults. */
#include "host.h"

#include "error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t paths_lock = PTHREAD_MUTEX_INITIALIZER;
static char *paths[2]; /* CLS_CONFIG_DEVICE_DB, CLS_CONFIG_TUNING: NULL unless the host set one */

cls_status cls_set_config_paths(const char *device_db, const char *tuning)
{
    char *copies[2] = {device_db ? strdup(device_db) : NULL, tuning ? strdup(tuning) : NULL};
    if ((device_db && !copies[0]) || (tuning && !copies[1])) {
        free(copies[0]);
        free(copies[1]);
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    }
    pthread_mutex_lock(&paths_lock);
    for (int k = 0; k < 2; ++k) {
        free(paths[k]);
        paths[k] = copies[k];
    }
    pthread_mutex_unlock(&paths_lock);
    return CLS_OK;
}

int cls_config_path(cls_config_file which, char *out, size_t size)
{
    pthread_mutex_lock(&paths_lock);
    const char *set = paths[which];
    if (set) snprintf(out, size, "%s", set);
    pthread_mutex_unlock(&paths_lock);
    return set != NULL;
}
