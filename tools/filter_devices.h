/* filter_devices.h — the devices `clstencil filter --device` names: one, or several ("1:0,1:1",
 * "gpus"), over which a batch spreads its images and a large image its bands, a context each. */
#ifndef CLS_TOOLS_FILTER_DEVICES_H
#define CLS_TOOLS_FILTER_DEVICES_H

#include <stddef.h>

enum { FILTER_MAX_DEVICES = 16 };

typedef struct filter_devices {
    size_t count;                               /* 0: one device, chosen by the selector as given */
    char selectors[FILTER_MAX_DEVICES][24];     /* "P:D" of each device, in the list's order */
} filter_devices;

/* Whether SELECTOR (NULL: CLSTENCIL_DEVICE) names several devices: a list or "gpus". */
int filter_devices_named(const char *selector);
/* Resolves a SELECTOR that names several devices into OUT; prints what is wrong and returns the
 * exit code (EXIT_NO_DEVICE when an item matches nothing, EXIT_USAGE for a malformed list). */
int filter_devices_resolve(const char *selector, filter_devices *out);

#endif
