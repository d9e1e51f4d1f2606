/* pocl_isolated.c — the sanitized suite's OpenCL driver: PoCL (ISOLATED_ICD, the library that the
 * system's PoCL .icd file names) loaded into a link-map namespace of its own (dlmopen), so that
 * PoCL's compiler, which runs in each test's process, allocates through that namespace's C library
 * and not through AddressSanitizer's allocator, under which the kernels' builds took most of the
 * suite's time. The ICD loader asks a driver library only for clGetExtensionFunctionAddress (and
 * through it for clIcdGetPlatformIDsKHR); every other call goes through the dispatch table of
 * PoCL's own objects, so that is the one function forwarded. clstencil's code stays under the
 * sanitizer; PoCL's copies of the caller's host memory do not. Built without sanitizers: clinfo,
 * which a test runs, loads it too.
 *
 * The namespace's first object is a second copy of this library, so that its character-class
 * functions (ctype.h) come before the namespace's C library for PoCL and LLVM: that C library sets
 * a thread's tables when its own pthread_create starts the thread, which it never does for the
 * threads that the program's C library starts (a tiered build's, a test's eight), and the copies
 * below set them first where they are missing. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

typedef void *(*address_function)(const char *name);

static address_function pocl_address;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load_pocl(void)
{
    Dl_info self;
    Lmid_t namespace;
    void *copy = dladdr((void *)load_pocl, &self) ? dlmopen(LM_ID_NEWLM, self.dli_fname, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *pocl = copy && dlinfo(copy, RTLD_DI_LMID, &namespace) == 0
                     ? dlmopen(namespace, ISOLATED_ICD, RTLD_NOW | RTLD_LOCAL)
                     : NULL;
    if (!pocl) {
        fprintf(stderr, "pocl_isolated: %s\n", dlerror());
        return;
    }
    pocl_address = (address_function)dlsym(pocl, "clGetExtensionFunctionAddress");
}

CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
    pthread_once(&loaded, load_pocl);
    return pocl_address ? pocl_address(name) : NULL;
}

/* The calling thread's character-class tables, set by the C library's own __ctype_init where its
 * pthread_create did not. */
static const unsigned short **(*c_library_b_loc)(void);

static void tables_for_this_thread(void)
{
    static void (*ctype_init)(void);
    if (!c_library_b_loc) c_library_b_loc = (const unsigned short **(*)(void))dlsym(RTLD_NEXT, "__ctype_b_loc");
    if (*c_library_b_loc()) return;
    if (!ctype_init) ctype_init = (void (*)(void))dlsym(RTLD_NEXT, "__ctype_init");
    ctype_init();
}

const unsigned short **(__ctype_b_loc)(void)
{
    tables_for_this_thread();
    return c_library_b_loc();
}

/* NAME of the C library, after the thread's tables. */
#define CASE_TABLE(name)                                                                           \
    const int32_t **(name)(void)                                                                   \
    {                                                                                              \
        static const int32_t **(*c_library)(void);                                                 \
        tables_for_this_thread();                                                                  \
        if (!c_library) c_library = (const int32_t **(*)(void))dlsym(RTLD_NEXT, #name);            \
        return c_library();                                                                        \
    }
#define CLASSIFIER(name)                                                                           \
    int(name)(int c)                                                                               \
    {                                                                                              \
        static int (*c_library)(int);                                                              \
        tables_for_this_thread();                                                                  \
        if (!c_library) c_library = (int (*)(int))dlsym(RTLD_NEXT, #name);                         \
        return c_library(c);                                                                       \
    }

CASE_TABLE(__ctype_tolower_loc)
CASE_TABLE(__ctype_toupper_loc)
CLASSIFIER(isalnum)
CLASSIFIER(isalpha)
CLASSIFIER(isblank)
CLASSIFIER(iscntrl)
CLASSIFIER(isdigit)
CLASSIFIER(isgraph)
CLASSIFIER(islower)
CLASSIFIER(isprint)
CLASSIFIER(ispunct)
CLASSIFIER(isspace)
CLASSIFIER(isupper)
CLASSIFIER(isxdigit)
CLASSIFIER(tolower)
CLASSIFIER(toupper)
