/* elementwise.c — a pipeline's element-wise stages (see elementwise.h): the expression's check
 * and the kernel that evaluates it pixel by pixel. */
#include "elementwise.h"

#include "emit.h"
#include "error.h"
#include "strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words an image may not be named: OpenCL C's keywords, qualifiers and scalar types. */
static const char *const keywords[] = {
    "auto", "bool", "break", "case", "char", "const", "constant", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "global", "goto", "half", "if", "inline", "int", "kernel", "local", "long",
    "private", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "uchar", "uint", "ulong", "union", "unsigned", "ushort", "void", "volatile", "while", "size_t",
    NULL};
/* Constants an expression may use besides the images. */
static const char *const constants[] = {"M_PI_F", "M_E_F", "M_SQRT2_F", "M_LN2_F", "INFINITY", "NAN", "MAXFLOAT",
                                        "FLT_MAX", "FLT_MIN", "FLT_EPSILON", NULL};

static int listed(const char *word, size_t length, const char *const *list)
{
    for (; *list; ++list)
        if (strlen(*list) == length && memcmp(*list, word, length) == 0) return 1;
    return 0;
}

cls_status cls_image_name_check(const char *name)
{
    if (!name || !*name) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "an image's name is empty");
    const size_t length = strlen(name);
    int identifier = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (size_t k = 1; k < length; ++k) identifier &= isalnum((unsigned char)name[k]) || name[k] == '_';
    if (!identifier)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "'%.40s' is no name for an image: letters, digits and _, not "
                                                  "starting with a digit", name);
    if (length >= CLS_IMAGE_NAME_MAX)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the image name '%.40s...' is longer than %d characters", name,
                        CLS_IMAGE_NAME_MAX - 1);
    if (listed(name, length, keywords) || listed(name, length, constants))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "'%s' is a word of OpenCL C: choose another name for the image",
                        name);
    if (strncmp(name, "cls_", 4) == 0 || strncmp(name, "CLS_", 4) == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "'%s': names starting with cls_ are reserved", name);
    return CLS_OK;
}

/* The characters and the brackets: one expression that cannot end the statement it is put in. */
static cls_status check_text(const char *expression)
{
    const size_t length = strlen(expression);
    if (length == 0) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression is empty");
    if (length > CLS_ELEMENTWISE_MAX_BYTES)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression is %zu bytes: at most %d are accepted",
                        length, CLS_ELEMENTWISE_MAX_BYTES);
    int depth = 0;
    for (size_t k = 0; k < length; ++k) {
        const unsigned char c = (unsigned char)expression[k];
        if (c < 0x20 || c > 0x7e)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression must be printable ASCII (byte %u "
                                                      "at %zu)", c, k);
        if (strchr(";{}#\"'\\[]", c) || (c == '/' && (expression[k + 1] == '*' || expression[k + 1] == '/')))
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' is one expression of images: "
                                                      "no ; { } [ ] # quotes, backslashes or comments", expression);
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (depth < 0 || depth > 32)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' has unbalanced or too deep "
                                                      "brackets", expression);
    }
    if (depth) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' leaves a bracket open", expression);
    return CLS_OK;
}

cls_status cls_elementwise_check(const char *expression, const char *const *known, size_t count, size_t *operands,
                                 size_t *operand_count)
{
    *operand_count = 0;
    if (!expression) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression is NULL");
    cls_status status = check_text(expression);
    if (status != CLS_OK) return status;
    for (const char *p = expression; *p;) {
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) { /* a number, suffix included */
            while (isalnum((unsigned char)*p) || *p == '.' ||
                   ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
                ++p;
            continue;
        }
        if (!isalpha((unsigned char)*p) && *p != '_') {
            ++p;
            continue;
        }
        const char *word = p;
        while (isalnum((unsigned char)*p) || *p == '_') ++p;
        const size_t length = (size_t)(p - word);
        const char *next = p;
        while (*next == ' ') ++next;
        if (*next == '(' || listed(word, length, constants)) continue; /* a function or a constant */
        size_t index = count;
        for (size_t k = 0; k < count; ++k)
            if (strlen(known[k]) == length && memcmp(known[k], word, length) == 0) index = k;
        if (index == count)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' reads '%.*s', which is no "
                                                      "image of the pipeline before it", expression, (int)length, word);
        int seen = 0;
        for (size_t k = 0; k < *operand_count; ++k) seen |= operands[k] == index;
        if (seen) continue;
        if (*operand_count == CLS_ELEMENTWISE_OPERANDS_MAX)
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' reads more than %d images",
                            expression, CLS_ELEMENTWISE_OPERANDS_MAX);
        operands[(*operand_count)++] = index;
    }
    if (*operand_count == 0)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "the element-wise expression '%s' reads no image", expression);
    return CLS_OK;
}

char *cls_elementwise_source(const char *expression, const char *const *names, const cls_pixel_type *types,
                             size_t count, cls_pixel_type output_type)
{
    strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out, "/* clstencil: an element-wise stage, pixel by pixel over the region computed:\n"
                        " *     %s */\n\n", expression);
    strbuf_append(&out, "/* The expression sees its images' pixels and nothing else. */\nfloat cls_expression(");
    for (size_t k = 0; k < count; ++k) strbuf_printf(&out, "%sconst float %s", k ? ", " : "", names[k]);
    strbuf_printf(&out, ")\n{\n    return %s;\n}\n\n", expression);
    strbuf_append(&out, "__kernel void " CLS_ELEMENTWISE_KERNEL_NAME "(");
    for (size_t k = 0; k < count; ++k)
        strbuf_printf(&out, "__global const %s *operand%zu, const int offset%zu, const int pitch%zu,\n    ",
                      emit_cl_type(types[k]), k, k, k);
    strbuf_printf(&out, "__global %s *output, const int output_offset, const int output_pitch, const int4 roi)\n{\n",
                  emit_cl_type(output_type));
    strbuf_append(&out, "    const int x = roi.s0 + (int)get_global_id(0), y = roi.s1 + (int)get_global_id(1);\n"
                        "    if (x >= roi.s2 || y >= roi.s3) return;\n");
    char index[96], text[160];
    for (size_t k = 0; k < count; ++k) {
        snprintf(index, sizeof index, "offset%zu + (long)y * pitch%zu + x", k, k);
        char pointer[32];
        snprintf(pointer, sizeof pointer, "operand%zu", k);
        emit_format_load(text, sizeof text, types[k], pointer, index);
        strbuf_printf(&out, "    const float value%zu = %s;\n", k, text);
    }
    strbuf_append(&out, "    const float result = cls_expression(");
    for (size_t k = 0; k < count; ++k) strbuf_printf(&out, "%svalue%zu", k ? ", " : "", k);
    strbuf_append(&out, ");\n");
    emit_format_store(text, sizeof text, output_type, "output", "output_offset + (long)y * output_pitch + x", "result");
    strbuf_printf(&out, "    %s\n}\n", text);
    return strbuf_take(&out);
}
