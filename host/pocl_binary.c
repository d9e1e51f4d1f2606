/* pocl_binary.c — gives a PoCL binary a directory of its own. A PoCL binary opens with the tag
 * "poclbin", the device's hash, the format's version, counts and flags, then the program's build
 * hash, which names the directory the binary is unpacked into (at byte 32 or 36, as the version
 * has it). A build without PoCL's cache names it "_UNCACHED_" and six random characters; only
 * such names are replaced, with six fresh characters. */
#include "pocl_binary.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum { TAG_BYTES = 8, NAME_FROM = 32, NAME_TO = 64, RANDOM_CHARS = 6 };
static const char UNCACHED[] = "_UNCACHED_";

/* Six characters no other live program's directory has: the kernel's randomness, else the
 * process, the time and a counter. */
static void fresh_characters(unsigned char *name)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char noise[8];
    if (getrandom(noise, sizeof noise, GRND_NONBLOCK) != (ssize_t)sizeof noise) {
        static _Atomic unsigned counter;
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        const uint64_t mixed = ((uint64_t)getpid() << 40) ^ ((uint64_t)t.tv_nsec << 8) ^ counter++;
        memcpy(noise, &mixed, sizeof noise);
    }
    for (int i = 0; i < RANDOM_CHARS; ++i) name[i] = (unsigned char)letters[noise[i] % (sizeof letters - 1)];
}

int cls_pocl_binary_make_private(unsigned char *binary, size_t size)
{
    const size_t name_bytes = sizeof UNCACHED - 1 + RANDOM_CHARS;
    if (size < NAME_TO + name_bytes + 1 || memcmp(binary, "poclbin", TAG_BYTES) != 0) return 0;
    for (size_t at = NAME_FROM; at < NAME_TO; at += 4)
        if (memcmp(binary + at, UNCACHED, sizeof UNCACHED - 1) == 0 && binary[at + name_bytes] == '\0') {
            fresh_characters(binary + at + sizeof UNCACHED - 1);
            return 1;
        }
    return 0;
}
