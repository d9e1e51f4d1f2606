/* test_build_smoke.c — placeholder while the suite is assembled. */
#include <clstencil.h>
int main(void) { return cls_version()[0] == '0' ? 0 : 1; }
