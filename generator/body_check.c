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

/* The macros of the generated source: never declared, defined or undefined by a body. */
static const char *const macro_names[] = {"IN", "OUT", "OUT_AT", "MASK", "FOR_WINDOW", "MASK_W", "MASK_H", "MASK_D",
                                          "HALF_W", "HALF_H", "HALF_D", "GROUP_W", "GROUP_H", "ROWS", "COLS", "LANES", "MASKS", "SIMD_WIDTH", "TILE_W",
                                          "TILE_H", "SPAN_W", "REGISTER_CAP", NULL};
/* Words that begin a declaration. */
static const char *const type_words[] = {"const", "volatile", "private", "__private", "unsigned", "signed", "char",
                                         "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
                                         "double", "half", "bool", "size_t", "float2", "float3", "float4", "float8",
                                         "float16", "int2", "int3", "int4", "int8", "int16", "uint2", "uint4", "value_t", NULL};

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

/* Whether what ends at T[LAST] is assigned by what follows it: "=", "op=", "++" or "--". */
static int assigned_after(const token *t, size_t count, size_t last)
{
    if (last + 1 >= count || t[last + 1].kind != TOKEN_PUNCT) return 0;
    const token *a = &t[last + 1], *b = last + 2 < count ? &t[last + 2] : NULL;
    if (is(a, "=") && !(b && pair(a, b, '=', '='))) return 1;
    if (b && strchr("+-*/%&|^", a->text[0]) && pair(a, b, a->text[0], '=')) return 1;
    return b && (pair(a, b, '+', '+') || pair(a, b, '-', '-'));
}

/* Whether what starts at T[FIRST] is incremented or decremented before: "++" or "--". */
static int assigned_before(const token *t, size_t first)
{
    return first >= 2 && (pair(&t[first - 2], &t[first - 1], '+', '+') || pair(&t[first - 2], &t[first - 1], '-', '-'));
}

/* The bytes of one element of the type word T (a vector type's lanes included; 3 lanes take 4),
 * or 0 for a qualifier or a word that is no type. */
static unsigned element_bytes(const token *t)
{
    static const struct { const char *base; unsigned bytes; } bases[] = {
        {"char", 1}, {"uchar", 1}, {"bool", 1}, {"short", 2}, {"ushort", 2}, {"half", 2}, {"int", 4}, {"uint", 4},
        {"float", 4}, {"long", 8}, {"ulong", 8}, {"double", 8}, {"size_t", 8}, {"unsigned", 4}, {"signed", 4},
        {"value_t", 4 * CLS_BODY_MAX_LANES}};
    for (size_t k = 0; k < sizeof bases / sizeof bases[0]; ++k) {
        const size_t n = strlen(bases[k].base);
        if (t->length < n || memcmp(t->text, bases[k].base, n) != 0) continue;
        if (t->length == n) return bases[k].bytes;
        char lanes[4] = {0};
        if (t->length - n > 2) continue;
        memcpy(lanes, t->text + n, t->length - n);
        const unsigned count = (unsigned)atoi(lanes);
        if (count == 2 || count == 4 || count == 8 || count == 16) return bases[k].bytes * count;
        if (count == 3) return bases[k].bytes * 4;
    }
    return 0;
}

/* An object-like #define of the body: its name and the tokens of its value. */
typedef struct definition {
    const token *name;
    size_t first, end; /* value tokens [first, end) */
} definition;

enum { DEFINITIONS_MAX = 64, EVALUATION_DEPTH = 8 };
#define ARRAY_BYTES_CAP (1LL << 40) /* products saturate here: far above any limit */

/* The window a body reads: WIDTH x HEIGHT, and SLICES deep for a volume's body (0: 2-D). */
typedef struct window {
    unsigned width, height, slices;
} window;

/* A constant integer expression of the tokens [i, end): literals, MASK_W, MASK_H, HALF_W, HALF_H,
 * (a volume's) MASK_D and HALF_D, ROWS and the body's own object-like #defines of such
 * expressions, with + - * / % and brackets. */
typedef struct evaluation {
    const token *t;
    size_t i, end;
    const definition *definitions;
    size_t definition_count;
    window w;
    int depth, ok;
} evaluation;

static long long evaluate_sum(evaluation *v);

static long long saturate(long long value)
{
    return value > ARRAY_BYTES_CAP ? ARRAY_BYTES_CAP : value < -ARRAY_BYTES_CAP ? -ARRAY_BYTES_CAP : value;
}

static long long evaluate_name(evaluation *v, const token *name)
{
    if (is(name, "MASK_W")) return v->w.width;
    if (is(name, "MASK_H")) return v->w.height;
    if (is(name, "HALF_W")) return v->w.width / 2;
    if (is(name, "HALF_H")) return v->w.height / 2;
    if (v->w.slices && is(name, "MASK_D")) return v->w.slices;
    if (v->w.slices && is(name, "HALF_D")) return v->w.slices / 2;
    if (is(name, "ROWS")) return CLS_BODY_MAX_ROWS; /* the most a body gets */
    for (size_t k = v->definition_count; k-- > 0;) {
        const definition *d = &v->definitions[k];
        if (d->name->length != name->length || memcmp(d->name->text, name->text, name->length) != 0) continue;
        if (v->depth >= EVALUATION_DEPTH) break;
        evaluation inner = *v;
        inner.i = d->first, inner.end = d->end, inner.depth = v->depth + 1;
        const long long value = evaluate_sum(&inner);
        if (!inner.ok || inner.i != inner.end) break;
        return value;
    }
    v->ok = 0;
    return 0;
}

static long long evaluate_primary(evaluation *v)
{
    if (!v->ok || v->i >= v->end) return v->ok = 0;
    const token *t = &v->t[v->i++];
    if (is(t, "-")) return -evaluate_primary(v);
    if (is(t, "+")) return evaluate_primary(v);
    if (is(t, "(")) {
        const long long value = evaluate_sum(v);
        if (v->i >= v->end || !is(&v->t[v->i], ")")) return v->ok = 0;
        ++v->i;
        return value;
    }
    if (t->kind == TOKEN_NAME) return evaluate_name(v, t);
    if (t->kind != TOKEN_NUMBER || t->length >= 24) return v->ok = 0;
    char digits[24];
    memcpy(digits, t->text, t->length);
    digits[t->length] = '\0';
    char *end;
    const long long value = strtoll(digits, &end, 0);
    if (*end && strspn(end, "uUlL") != strlen(end)) return v->ok = 0;
    return saturate(value);
}

static long long evaluate_product(evaluation *v)
{
    long long value = evaluate_primary(v);
    while (v->ok && v->i < v->end && (is(&v->t[v->i], "*") || is(&v->t[v->i], "/") || is(&v->t[v->i], "%"))) {
        const char op = v->t[v->i++].text[0];
        const long long right = evaluate_primary(v);
        if (op == '*') value = saturate(right && llabs(value) > ARRAY_BYTES_CAP / llabs(right) ? ARRAY_BYTES_CAP : value * right);
        else if (right == 0) v->ok = 0;
        else value = op == '/' ? value / right : value % right;
    }
    return value;
}

static long long evaluate_sum(evaluation *v)
{
    long long value = evaluate_product(v);
    while (v->ok && v->i < v->end && (is(&v->t[v->i], "+") || is(&v->t[v->i], "-"))) {
        const int minus = is(&v->t[v->i++], "-");
        value = saturate(minus ? value - evaluate_product(v) : value + evaluate_product(v));
    }
    return value;
}

/* The index of the bracket closing the one at T[open], or COUNT. */
static size_t closing(const token *t, size_t count, size_t open)
{
    int depth = 0;
    for (size_t k = open; k < count; ++k) {
        if (t[k].kind != TOKEN_PUNCT) continue;
        if (is(&t[k], "(") || is(&t[k], "[") || is(&t[k], "{")) ++depth;
        else if ((is(&t[k], ")") || is(&t[k], "]") || is(&t[k], "}")) && --depth == 0) return k;
    }
    return count;
}

/* The elements of the initializer "= { a, b, ... }" starting at T[i], or 0 when there is none. */
static long long initializer_elements(const token *t, size_t count, size_t i)
{
    if (i + 1 >= count || !is(&t[i], "=") || !is(&t[i + 1], "{")) return 0;
    const size_t end = closing(t, count, i + 1);
    long long elements = 1;
    for (size_t k = i + 2; k < end; ++k) {
        if (is(&t[k], "(") || is(&t[k], "[") || is(&t[k], "{")) k = closing(t, count, k);
        else if (is(&t[k], ",") && k + 1 < end) ++elements;
    }
    return end == i + 2 ? 0 : elements;
}

/* The bytes of the array whose name is T[i] and whose first bracket is T[i + 1]: each dimension
 * evaluated (an empty one from the initializer). -1 when a size is no constant the checker can
 * evaluate. */
static long long array_bytes(const token *t, size_t count, size_t i, unsigned element, const definition *definitions,
                             size_t definition_count, window w)
{
    long long elements = 1;
    size_t k = i + 1;
    while (k < count && is(&t[k], "[")) {
        const size_t end = closing(t, count, k);
        long long size;
        if (end == k + 1) {
            size = initializer_elements(t, count, end + 1);
        } else {
            evaluation v = {t, k + 1, end, definitions, definition_count, w, 0, 1};
            size = evaluate_sum(&v);
            if (!v.ok || v.i != end) return -1;
        }
        if (size <= 0) return -1;
        elements = size > ARRAY_BYTES_CAP / elements ? ARRAY_BYTES_CAP : elements * size;
        k = end + 1;
    }
    return elements > ARRAY_BYTES_CAP / element ? ARRAY_BYTES_CAP : elements * element;
}

/* Whether T is a name with the prefix reserved for the generated code. */
static int reserved(const token *t)
{
    return t->kind == TOKEN_NAME && t->length >= 4 &&
           (memcmp(t->text, "cls_", 4) == 0 || memcmp(t->text, "CLS_", 4) == 0);
}

/* IN(dx, dy) (a volume's IN(dx, dy, dz)) at T[i] with literal offsets outside the window: refused. */
static cls_status check_window_read(const token *t, size_t count, size_t i, window w)
{
    size_t j = i + 2;
    long d[3] = {0, 0, 0};
    const int axes = w.slices ? 3 : 2;
    for (int a = 0; a < axes; ++a) {
        if (a && !(j < count && is(&t[j], ",") && (++j, 1))) return CLS_OK;
        if (!literal_argument(t, count, &j, &d[a])) return CLS_OK;
    }
    if (!(j < count && is(&t[j], ")"))) return CLS_OK;
    const long hw = (long)w.width / 2, hh = (long)w.height / 2, hd = (long)w.slices / 2;
    if (d[0] >= -hw && d[0] <= hw && d[1] >= -hh && d[1] <= hh && d[2] >= -hd && d[2] <= hd) return CLS_OK;
    if (w.slices)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                        "operator body, line %u: IN(%ld, %ld, %ld) reads outside the %ux%ux%u window (|dx| <= %ld, "
                        "|dy| <= %ld, |dz| <= %ld): declare a larger window (user:FILE,WxHxD)",
                        t[i].line, d[0], d[1], d[2], w.width, w.height, w.slices, hw, hh, hd);
    return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                    "operator body, line %u: IN(%ld, %ld) reads outside the %ux%u window (|dx| <= %ld, |dy| <= %ld): "
                    "declare a larger window (user:FILE,WxH)",
                    t[i].line, d[0], d[1], w.width, w.height, hw, hh);
}

static cls_status check_tokens(const token *t, size_t count, window w)
{
    int depth = 0, in_declaration = 0, declaration_depth = 0, operators_in_row = 0;
    int uses_out = 0, assigns_out = 0, rows = 0, assigns_rows = 0; /* OUT and OUT_AT */
    unsigned element = 4;             /* the bytes of an element of the declaration's type */
    long long private_bytes = 0;      /* of every array the body declares */
    definition definitions[DEFINITIONS_MAX];
    size_t definition_count = 0;
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
            const token *name = i + 2 < count ? &t[i + 2] : NULL;
            if (after && (is(after, "define") || is(after, "undef")) && name &&
                (one_of(name, macro_names) || reserved(name)))
                return refuse(k->line, "#define or #undef of '%s', a name of the generated code", name->text,
                              name->length);
            if (after && is(after, "include")) return refuse(k->line, "#include is not allowed in a body", NULL, 0);
            if (after && is(after, "define") && name && name->kind == TOKEN_NAME &&
                definition_count < DEFINITIONS_MAX) { /* object-like: no '(' right after the name */
                size_t end = i + 3;
                while (end < count && t[end].line == name->line) ++end;
                if (!(i + 3 < end && is(&t[i + 3], "(") && t[i + 3].text == name->text + name->length))
                    definitions[definition_count++] = (definition){name, i + 3, end};
            }
            continue;
        }
        if (k->kind != TOKEN_NAME) continue;
        if (reserved(k))
            return refuse(k->line, "'%s': names starting with cls_ are reserved for the generated code", k->text,
                          k->length);
        if (one_of(k, type_words)) {
            if (!in_declaration) element = 4;
            if (element_bytes(k)) element = element_bytes(k);
            in_declaration = 1, declaration_depth = depth; /* or a cast: harmless */
        }
        if (is(k, "return") || is(k, "goto"))
            return refuse(k->line, "'%s' would skip writing the output; assign OUT instead", k->text, k->length);
        const int declared = in_declaration && before && depth == declaration_depth &&
                             (one_of(before, type_words) || is(before, ",") || is(before, "*"));
        if (declared && one_of(k, macro_names))
            return refuse(k->line, "declares '%s', a macro of the generated code: choose another name", k->text,
                          k->length);
        if (declared && after && is(after, "[")) {
            const long long bytes = array_bytes(t, count, i, element, definitions, definition_count, w);
            if (bytes < 0)
                return refuse(k->line, "the size of array '%s' is not a constant of integer literals, MASK_W, "
                                       "MASK_H, ROWS and the body's own #defines", k->text, k->length);
            private_bytes += bytes;
            if (private_bytes > CLS_BODY_MAX_PRIVATE_BYTES)
                return cls_fail(CLS_ERR_INVALID_ARGUMENT,
                                "operator body, line %u: its arrays take %lld bytes of private memory per pixel "
                                "(this one %lld): at most %d are accepted",
                                k->line, private_bytes, bytes, CLS_BODY_MAX_PRIVATE_BYTES);
        }
        if (is(k, "OUT")) uses_out = 1, assigns_out |= assigned_before(t, i) || assigned_after(t, count, i);
        if (is(k, "OUT_AT") && after && is(after, "("))
            assigns_rows |= assigned_before(t, i) || assigned_after(t, count, closing(t, count, i + 1));
        rows |= is(k, "OUT_AT");
        if (is(k, "IN") && after && is(after, "(")) {
            const cls_status status = check_window_read(t, count, i, w);
            if (status != CLS_OK) return status;
        }
    }
    if (depth != 0) return refuse(count ? t[count - 1].line : 1, "a bracket is never closed", NULL, 0);
    if (rows && w.slices)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "a volume's operator body writes one output, OUT: not OUT_AT(k)");
    if (rows && uses_out)
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body uses both OUT (one output) and OUT_AT(k) (a column "
                                                  "of ROWS outputs): write one of them");
    if (!(rows ? assigns_rows : assigns_out))
        return cls_fail(CLS_ERR_INVALID_ARGUMENT, "operator body never assigns %s (outside comments)",
                        rows ? "OUT_AT(k)" : "OUT");
    return CLS_OK;
}

int cls_body_writes_rows(const char *body)
{
    lexer l = {body, 1, 1};
    for (token t = next(&l); t.kind != TOKEN_END; t = next(&l))
        if (t.kind == TOKEN_NAME && is(&t, "OUT_AT")) return 1;
    return 0;
}

/* Names after which a body's text would not compile, or not mean the same, with value_t a vector:
 * scalar types, the output column (one per lane), and functions whose result on a vector is a
 * vector of integers. */
static const char *const scalar_words[] = {"float", "double", "half", "x", "isnan", "isinf", "isfinite", "signbit",
                                           "as_uint", "as_int", NULL};

/* Whether the directive at T (after its '#') opens a conditional (1), closes one (-1), is an #else
 * or #elif (2), or is "#if ROWS > 1" (3); 0 for any other. */
static int conditional(const token *t, lexer *l)
{
    if (is(t, "if")) {
        lexer ahead = *l;
        const token rows = next(&ahead), greater = next(&ahead), one = next(&ahead);
        return is(&rows, "ROWS") && is(&greater, ">") && is(&one, "1") ? 3 : 1;
    }
    if (is(t, "ifdef") || is(t, "ifndef")) return 1;
    if (is(t, "endif")) return -1;
    return is(t, "else") || is(t, "elif") ? 2 : 0;
}

int cls_body_in_lanes(const char *body)
{
    lexer l = {body, 1, 1};
    int names_value_t = 0, scalar = 0, scalar_beyond_one_row = 0;
    int depth = 0, rows_depth = 0; /* conditionals open; the depth of an open "#if ROWS > 1" (0: none) */
    for (token t = next(&l); t.kind != TOKEN_END; t = next(&l)) {
        if (t.kind == TOKEN_HASH) {
            const token directive = next(&l);
            const int kind = conditional(&directive, &l);
            if (kind == 1 || kind == 3) ++depth;
            if (kind == 3 && !rows_depth) rows_depth = depth;
            if ((kind == 2 || kind == -1) && depth == rows_depth) rows_depth = 0;
            if (kind == -1) --depth;
            continue;
        }
        if (t.kind != TOKEN_NAME) continue;
        if (one_of(&t, scalar_words)) *(rows_depth ? &scalar_beyond_one_row : &scalar) = 1;
        names_value_t |= is(&t, "value_t");
    }
    return !names_value_t || scalar ? 0 : scalar_beyond_one_row ? 1 : 2;
}

int cls_body_row_lanes(const char *body)
{
    lexer l = {body, 1, 1};
    for (token t = next(&l); t.kind != TOKEN_END; t = next(&l)) {
        if (t.kind != TOKEN_HASH) continue;
        const token directive = next(&l);
        if (!is(&directive, "if") && !is(&directive, "elif")) continue;
        lexer ahead = l; /* the directive's line, read ahead; l goes on from its name */
        token w[4];
        for (int k = 0; k < 4; ++k) w[k] = next(&ahead);
        for (; w[3].kind != TOKEN_END && w[3].line == directive.line; w[0] = w[1], w[1] = w[2], w[2] = w[3], w[3] = next(&ahead))
            if (is(&w[0], "LANES") && is(&w[1], "=") && is(&w[2], "=") && (is(&w[3], "2") || is(&w[3], "4") || is(&w[3], "8")))
                return w[3].text[0] - '0';
    }
    return 0;
}

static cls_status check_body(const char *body, window w)
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
    if (status == CLS_OK) status = check_tokens(tokens, count, w);
    free(tokens);
    return status;
}

cls_status cls_body_check(const char *body, unsigned width, unsigned height)
{
    return check_body(body, (window){width, height, 0});
}

cls_status cls_body_check_volume(const char *body, unsigned width, unsigned height, unsigned depth)
{
    return check_body(body, (window){width, height, depth});
}
