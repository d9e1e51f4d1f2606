/* cache_trust.h — whether the binary cache may be used (internal): the CLSTENCIL_CACHE switch and
 * the trust rule for the cache folder, which follows git's safe.directory and ssh's StrictModes:
 * a folder is trusted only when this user owns it and no one else may write to it. */
#ifndef CLS_CACHE_TRUST_H
#define CLS_CACHE_TRUST_H

#include <stddef.h>

/* 1 when CLSTENCIL_CACHE's value turns the cache off ("off", "0", "no", "false"), 0 for unset,
 * empty, "on", "1", "yes", "true" and anything else (which the command warns about). */
int cls_cache_mode_off(const char *value);
/* 1 when VALUE is unset, empty or one of the words above; 0 for anything else. */
int cls_cache_mode_known(const char *value);
/* 1 when FOLDER is trusted, or does not exist yet (it is then created owner-only); else 0 with
 * the reason in WHY (when not NULL): another owner, group or world write permission, not a
 * folder. */
int cls_cache_folder_trusted(const char *folder, char *why, size_t why_size);

#endif
