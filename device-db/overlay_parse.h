/* overlay_parse.h — the device-database overlay parser on its own (internal): the text of one
 * overlay file checked into an empty database, as the fuzz harness drives it. */
#ifndef CLS_OVERLAY_PARSE_H
#define CLS_OVERLAY_PARSE_H

#include "clstencil_tuning.h"

/* Parses TEXT as an overlay of new records (LOCATION names it in messages) and discards the
 * result: CLS_OK, or CLS_ERR_PARSE with "LOCATION:LINE: reason" in cls_last_error(). */
cls_status cls_device_db_parse_overlay(const char *text, const char *location);

#endif
