/* body_check.c — the rules for user-written operator bodies (see body_check.h): a small C
 * tokenizer (comments, strings, numbers, identifiers, punctuation) and one pass over its tokens. */
#include "body_check.h"

#include "error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TOKEN_END, TOKEN_NAME, TOKEN_NUMBER, TOKEN_STRING, TOKEN_PUNCT, TOKEN_HASH } token_kind;

typedef struct token {
    token_kind kind;
    const char *text;
    size_t length;
    unsigned line;
} token;

typedef struct lexer {
    const char *p;
    unsigned line;
    int line_start; /* only blanks since the last newline: a '#' starts a directive */
} lexer;

/* Skips blanks and comments; 0 for an unterminated comment. */
static int skip_blanks(lexer *l)
{
    for (;;) {
        if (*l->p == '\n') ++l->line, l->line_start = 1, ++l->p;
        else if (*l->p == ' ' || *l->p == '\t' || *l->p == '\r' || *l->p == '\f' || *l->p == '\v') ++l->p;
        else if (l->p[0] == '\\' && l->p[1] == '\n') l->p += 2, ++l->line;
        else if (l->p[0] == '/' && l->p[1] == '/') {
            while (*l->p && *l->p != '\n') ++l->p;
        } else if (l->p[0] == '/' && l->p[1] == '*') {
            const char *end = strstr(l->p + 2, "*/");
            if (!end) return 0;
            for (; l->p < end; ++l->p) l->line += *l->p == '\n';
            l->p = end + 2;
        } else return 1;
    }
}

/* The next token; a TOKEN_END with text NULL after an unterminated comment or string. */
static token next(lexer *l)
{
    token t = {TOKEN_END, NULL, 0, l->line};
    if (!skip_blanks(l)) return t;
    t.line = l->line;
    t.text = l->p;
    const char c = *l->p;
    if (!c) return t;
    const int at_line_start = l->line_start;
    l->line_start = 0;
    if (isalpha((unsigned char)c) || c == '_') {
        while (isalnum((unsigned char)*l->p) || *l->p == '_') ++l->p;
        t.kind = TOKEN_NAME;
    } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)l->p[1]))) {
        while (isalnum((unsigned char)*l->p) || *l->p == '.' || *l->p == '_' ||
               ((*l->p == '+' || *l->p == '-') && (l->p[-1] == 'e' || l->p[-1] == 'E' || l->p[-1] == 'p' || l->p[-1] == 'P')))
            ++l->p;
        t.kind = TOKEN_NUMBER;
    } else if (c == '"' || c == '\'') {
        for (++l->p; *l->p && *l->p != c && *l->p != '\n'; ++l->p)
            if (*l->p == '\\' && l->p[1]) ++l->p;
        if (*l->p != c) {
            t.text = NULL;
            return t;
        }
        ++l->p;
        t.kind = TOKEN_STRING;
    } else if (c == '#') {
        ++l->p;
        t.kind = at_line_start ? TOKEN_HASH : TOKEN_PUNCT;
    } else {
        ++l->p;
        t.kind = TOKEN_PUNCT;
    }
    t.length = (size_t)(l->p - t.text);
    return t;
}

static int is(const token *t, const char *text)
{
    return t->text && t->length == strlen(text) && memcmp(t->text, text, t->length) == 0;
}

static int one_of(const token *t, const char *const *names)
{
    for (; *names; ++names)
        if (is(t, *names)) return 1;
    return 0;
}

/* The generated kernel's own variables: never named by a body. */
static const char *const kernel_names[] = {"input", "output", "mask", "input_offset", "output_offset", "input_pitch",
                                           "output_pitch", "roi", "border_value", "group_bounds", "body_columns",
                                           "group_x", "group_y", "at_left", "at_right", "at_top", "at_bottom",
                                           "border_lo", "border_hi", "border_both", "input_t", "output_t", NULL};
/* Readable, never declared; all but sum never assigned (sum is what OUT names). */
static const char *const readable_names[] = {"x", "y", "width", "height", "sum", NULL};
static const char *const macro_names[] = {"IN", "OUT", "MASK", "FOR_WINDOW", "MASK_W", "MASK_H", "HALF_W", "HALF_H",
                                          "GROUP_W", "GROUP_H", "ROWS", "COLS", "MASKS", NULL};
/* Words that begin a declaration. */
static const char *const type_words[] = {"const", "volatile", "private", "__private", "unsigned", "signed", "char",
                                         "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
                                         "double", "half", "bool", "size_t", "float2", "float3", "float4", "float8",
                                         "float16", "int2", "int3", "int4", "int8", "int16", "uint2", "uint4", NULL};

static cls_status refuse(unsigned line, const char *format, const char *name, size_t length)
{
    char text[64];
    const size_t n = length < sizeof text - 1 ? length : sizeof text - 1;
    memcpy(text, name ? name : "", n);
    text[n] = '\0';
    char rule[256];
    snprintf(rule, sizeof rule, format, text);
    return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body, line %u: %s", line, rule);
}

/* An integer literal with an optional sign, as tokens from *i of T: its value, or 0 when the
 * argument is anything else. Advances *i past it. */
static int literal_argument(const token *t, size_t count, size_t *i, long *value)
{
    int negative = 0;
    size_t k = *i;
    while (k < count && t[k].kind == TOKEN_PUNCT && (is(&t[k], "-") || is(&t[k], "+"))) negative ^= is(&t[k++], "-");
    if (k >= count || t[k].kind != TOKEN_NUMBER) return 0;
    char digits[24];
    if (t[k].length >= sizeof digits) return 0;
    memcpy(digits, t[k].text, t[k].length);
    digits[t[k].length] = '\0';
    char *end;
    const long v = strtol(digits, &end, 0);
    if (*end && strspn(end, "uUlL") != strlen(end)) return 0;
    if (k + 1 >= count || !(is(&t[k + 1], ",") || is(&t[k + 1], ")"))) return 0;
    *value = negative ? -v : v;
    *i = k + 1;
    return 1;
}

/* Whether A is the punctuation C1 and B the punctuation C2 right after it ("+=", "++"). */
static int pair(const token *a, const token *b, char c1, char c2)
{
    return a->kind == TOKEN_PUNCT && b->kind == TOKEN_PUNCT && a->text[0] == c1 && b->text[0] == c2 &&
           b->text == a->text + 1;
}

/* Whether the name at T[I] is assigned: "=", "op=" or "++"/"--" after it, or "++"/"--" before. */
static int assigned_at(const token *t, size_t count, size_t i)
{
    if (i + 1 < count && t[i + 1].kind == TOKEN_PUNCT) {
        const token *a = &t[i + 1], *b = i + 2 < count ? &t[i + 2] : NULL;
        if (is(a, "=") && !(b && pair(a, b, '=', '='))) return 1;
        if (b && strchr("+-*/%&|^", a->text[0]) && pair(a, b, a->text[0], '=')) return 1;
        if (b && (pair(a, b, '+', '+') || pair(a, b, '-', '-'))) return 1;
    }
    return i >= 2 && (pair(&t[i - 2], &t[i - 1], '+', '+') || pair(&t[i - 2], &t[i - 1], '-', '-'));
}

static cls_status check_tokens(const token *t, size_t count, unsigned width, unsigned height)
{
    int depth = 0, assigns_out = 0, in_declaration = 0, declaration_depth = 0, operators_in_row = 0;
    for (size_t i = 0; i < count; ++i) {
        const token *k = &t[i];
        const token *before = i ? &t[i - 1] : NULL, *after = i + 1 < count ? &t[i + 1] : NULL;
        if (k->kind == TOKEN_PUNCT) {
            if (is(k, "(") || is(k, "[") || is(k, "{")) {
                if (++depth > CLS_BODY_MAX_DEPTH)
                    return refuse(k->line, "brackets nest deeper than 32", NULL, 0);
            } else if (is(k, ")") || is(k, "]") || is(k, "}")) {
                if (--depth < 0) return refuse(k->line, "'%s' closes a bracket the body did not open", k->text, 1);
            }
            if (is(k, ";") || is(k, "{") || is(k, "}")) in_declaration = 0;
            const int operand_follows = is(k, "(") || is(k, ")") || is(k, "[") || is(k, "]") || is(k, ";") ||
                                        is(k, ",") || is(k, "{") || is(k, "}");
            operators_in_row = operand_follows ? 0 : operators_in_row + 1;
            if (operators_in_row > CLS_BODY_MAX_UNARY)
                return refuse(k->line, "more than 16 operators in a row", NULL, 0);
            continue;
        }
        operators_in_row = 0;
        if (k->kind == TOKEN_HASH) {
            if (after && (is(after, "define") || is(after, "undef"))) {
                const token *name = i + 2 < count ? &t[i + 2] : NULL;
                if (name && (one_of(name, macro_names) || one_of(name, kernel_names) || one_of(name, readable_names)))
                    return refuse(k->line, "#define or #undef of '%s', a name the generated kernel uses", name->text,
                                  name->length);
            }
            if (after && is(after, "include")) return refuse(k->line, "#include is not allowed in a body", NULL, 0);
            continue;
        }
        if (k->kind != TOKEN_NAME) continue;
        if (one_of(k, type_words)) in_declaration = 1, declaration_depth = depth; /* or a cast: harmless */
        if (is(k, "return") || is(k, "goto"))
            return refuse(k->line, "'%s' would skip writing the output; assign OUT instead", k->text, k->length);
        if (one_of(k, kernel_names))
            return refuse(k->line, "'%s' is the generated kernel's own variable: read pixels with IN(dx, dy) and the "
                                   "mask with MASK(dx, dy)", k->text, k->length);
        const int declared = in_declaration && before && depth == declaration_depth &&
                             (one_of(before, type_words) || is(before, ",") || is(before, "*"));
        if (declared && (one_of(k, readable_names) || one_of(k, macro_names)))
            return refuse(k->line, "declares '%s', a name the generated kernel uses: choose another name", k->text,
                          k->length);
        const int assigned = assigned_at(t, count, i);
        if (assigned && one_of(k, readable_names) && !is(k, "sum"))
            return refuse(k->line, "assigns '%s', which the generated kernel owns", k->text, k->length);
        if ((is(k, "OUT") || is(k, "sum")) && assigned) assigns_out = 1;
        if (is(k, "IN") && after && is(after, "(")) {
            size_t j = i + 2;
            long dx, dy;
            if (literal_argument(t, count, &j, &dx) && j < count && is(&t[j], ",") && (++j, 1) &&
                literal_argument(t, count, &j, &dy) && j < count && is(&t[j], ")")) {
                const long hw = (long)width / 2, hh = (long)height / 2;
                if (dx < -hw || dx > hw || dy < -hh || dy > hh)
                    return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                                    "operator body, line %u: IN(%ld, %ld) reads outside the %ux%u window (|dx| <= %ld, "
                                    "|dy| <= %ld): declare a larger window (user:FILE,WxH)",
                                    k->line, dx, dy, width, height, hw, hh);
            }
        }
    }
    if (depth != 0) return refuse(count ? t[count - 1].line : 1, "a bracket is never closed", NULL, 0);
    if (!assigns_out) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body never assigns OUT (outside comments)");
    return CLS_OK;
}

cls_status cls_body_check(const char *body, unsigned width, unsigned height)
{
    if (!body) return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body is NULL");
    const size_t length = strlen(body);
    if (length > CLS_BODY_MAX_BYTES)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body is %zu bytes: at most %d are accepted", length,
                        CLS_BODY_MAX_BYTES);
    unsigned line = 1;
    for (const unsigned char *p = (const unsigned char *)body; *p; ++p) {
        line += *p == '\n';
        if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r' && *p != '\f' && *p != '\v')
            return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body, line %u: control byte 0x%02x (not text)", line, *p);
    }
    /* At most one token per byte. */
    token *tokens = malloc((length + 1) * sizeof *tokens);
    if (!tokens) return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory");
    lexer l = {body, 1, 1};
    size_t count = 0;
    cls_status status = CLS_OK;
    for (;;) {
        const token t = next(&l);
        if (t.kind == TOKEN_END) {
            if (!t.text) status = cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body, line %u: unterminated comment or string", t.line);
            break;
        }
        tokens[count++] = t;
    }
    if (status == CLS_OK) status = check_tokens(tokens, count, width, height);
    free(tokens);
    return status;
}
