/* templates.c — looks up the cl-templates/ files that the build embedded (embedded_templates.c). */
#include "generator.h"

#include "embedded.h"

#include <string.h>

const char *cls_template(const char *name)
{
    for (size_t i = 0; i < cls_embedded_templates_count; ++i)
        if (strcmp(cls_embedded_templates[i].name, name) == 0) return cls_embedded_templates[i].text;
    return "";
}
