/* emit.h — what the parts of the source emitter share (internal to generator/): the checks a
 * region applies per axis, the accessors through which taps read the input (global buffer,
 * image, local tile), and the text helpers. emit.c writes the kernel around them; emit_sum.c the
 * weighted sums; emit_stream.c the streaming loop; emit_stage.c the local-memory staging and the
 * separable row pass. */
#ifndef CLS_EMIT_H
#define CLS_EMIT_H

#include "generator.h"
#include "strbuf.h"

/* Which sides of one axis a region's code checks. */
/* CHECK_ONCE: either side, folding once (border_once): an index past one side by less than the
 * axis, or past the region's end in an output whose sum is discarded. CHECK_ANY: any index,
 * folding once where that suffices and fully only past that (border_any). */
typedef enum axis_check { CHECK_NONE, CHECK_LO, CHECK_HI, CHECK_BOTH, CHECK_ONCE, CHECK_ANY } axis_check;

typedef struct emitter {
    strbuf *out;
    const cls_kernel_config *config;
    strbuf *program; /* program-scope code written before the kernel (an operator body's functions) */
} emitter;

/* Where a tap's pixel comes from, and which checks its indices get. */
typedef enum access_kind {
    ACCESS_GLOBAL, /* input[row * input_pitch + column] */
    ACCESS_IMAGE,  /* read_image*(input, sampler, (int2)(column, row)).x */
    ACCESS_TILE    /* tile[row][column] in local memory: never checked */
} access_kind;

typedef struct access {
    access_kind kind;
    axis_check x, y;             /* the checks of a tap whose offset is known only at run time */
    const char *base_x, *base_y; /* the coordinates that offsets are added to: "x", "tx", ... */
    /* The sides the region touches when base_x, base_y is the work-item's first output pixel
     * (emit_region_direct); CHECK_NONE elsewhere. A tap at an offset known here checks only the
     * side it faces (access_at_column, access_at_row). */
    axis_check side_x, side_y;
} access;

/* Offsets are C text appended to a base: "" (none), " - 2", " + c - HALF_W". */

/* The access of the taps `offset` columns (rows) from base_x (base_y): the check that offset can
 * still need. */
access access_at_column(const access *a, int offset);
access access_at_row(const access *a, int offset);
/* Declares `row` (and `row`_inside where constant mode needs it) for input row base_y + dy. */
void access_row(emitter *e, const access *a, int indent, const char *row, const char *dy);
/* Appends the value (a float expression) of column base_x + dx of `row`. */
void access_load(emitter *e, const access *a, const char *row, const char *dx);
/* Appends the value of pixel (base_x + dx, base_y + dy) as one expression (no row variable). */
void access_pixel(emitter *e, const access *a, const char *dx, const char *dy);

/* The weighted sums of a region into sum (or sum[m][k][l]) through `a` (emit_sum.c). */
void emit_sums(emitter *e, int indent, const access *a);
/* The sums of a kernel whose regions share one unrolled copy (cls_kernel_shares_rows): window
 * row by row, the loads of the body (the int `border` clear), of a border group or of the
 * fallback (the int `fold_fully` set), then the multiply-adds. */
void emit_sums_shared(emitter *e, int indent);
/* The same sums as rolled loops over the program-scope array baked_mask or the buffer (a large
 * unrolled mask's border regions: see cls_kernel_rolls_borders). */
void emit_sums_rolled(emitter *e, int indent, const access *a);
/* One input row (base_y) of the streaming window: its pixels added into the MASK_H partial sums,
 * unrolled or (`rolled`) as loops over baked_mask or the buffer. */
void emit_stream_row_sums(emitter *e, int indent, const access *a, int rolled);
/* The pixels of input row base_y that the window uses, into the private array `name` (index:
 * window column), through the access's checks and vector loads. */
void emit_stream_row_load(emitter *e, int indent, const access *a, const char *name);
/* The baked multiply-adds of the row held in `name` into the window of partial sums. */
void emit_stream_baked_sums(emitter *e, int indent, const char *name);
/* Coefficient INDEX of a separable mask's row (COLUMN 0) or column vector in unrolled code: its
 * LITERAL, or its element of the buffer mask or of the argument coef (the row, then the column). */
void append_separable_coefficient(emitter *e, int column, unsigned index, float literal);
/* A separable mask's row sums of the row held in `name`, fed to the window through the column
 * vector (the single pass streaming in registers). */
void emit_stream_separable_sums(emitter *e, int indent, const char *name);
/* Output column L's row sum `row_sum` fed to its column sums (slot k through column tap
 * MASK_H - 1 - k), the literal coefficients times SCALE (1 where they are the buffer's or the
 * argument's). */
void emit_column_share(emitter *e, int indent, unsigned l, const char *row_sum, float scale);
/* The streaming window moved down one row (emit_stream.c). */
void emit_stream_shift(emitter *e, int indent);
/* A separable single pass whose group stages its input rows in local memory
 * (emit_staged_rows.c): its macros in the header, and the kernel's body after the signature. */
void emit_staged_rows_defines(emitter *e);
void emit_staged_rows(emitter *e);
/* A region's streaming loop (emit_stream.c): the window of sums walked down the strip through
 * the region's checks, each complete output row stored on the way. */
void emit_stream(emitter *e, int indent, const access *a, int rolled);
/* The stores of the sums (emit_store.c). Stores sum[m][k][l] of every mask (or the epilogue of
 * them) at output index `at`. */
void emit_store_outputs(emitter *e, int indent, const char *k, const char *at);
/* The functions the epilogue calls among those the generator offers (magnitude(a, b): hypot's
 * value with plain arithmetic), before the kernel. */
void emit_epilogue_functions(emitter *e);
/* Stores the work-item's COLS outputs of row `row` (sum[m][k][l]), as one vector where it can;
 * `unroll`: the one-by-one loop is marked for unrolling. */
void emit_row_store(emitter *e, int indent, const char *k, const char *row, int unroll);
/* The declaration of the sums. */
void emit_sum_declaration(emitter *e, int indent);
/* The name of sum m, k, l as text ("sum" when there is one). */
void append_sum(emitter *e, unsigned m, const char *k, const char *l);

/* Local memory (emit_stage.c): the tile declaration, staging it through a region's checks,
 * and the separable row pass into the row-sum tile. */
void emit_tile_declaration(emitter *e, int indent);
void emit_staging(emitter *e, int indent, axis_check x, axis_check y);
void emit_row_pass(emitter *e, int indent, axis_check x, axis_check y);
void emit_column_pass(emitter *e, int indent);

/* An operator body (emit_body.c): the macros it uses, and the call of its function for a region
 * reading through `a` (the function itself goes to e->program), which sets sum. */
void emit_body_helpers(emitter *e);
/* FAST_EXP2(x) for a body that names it: PTX's ex2.approx.ftz where the limits say the compiler
 * takes inline PTX and the body does not run in lanes, else exp2 (emit_body.c; volumes' bodies
 * too). */
void emit_fast_exp2(strbuf *out, const cls_kernel_config *config);
/* The number of the line that text appended to OUT next starts (a body's #line after it). */
unsigned emit_next_line(const strbuf *out);

/* A volume's user-written body (emit_volume_body.c): MASK, FOR_WINDOW and OUT in the header, the
 * window reader and the body's function at program scope, and the walk that calls it a voxel. */
void emit_volume_body_macros(strbuf *out, const cls_kernel_config *c);
void emit_volume_body_functions(strbuf *out, const cls_kernel_config *c);
void emit_volume_body_walk(strbuf *out, const cls_kernel_config *c);
/* A volume's walk with the slice's tile in local memory, COLUMNS outputs a work-item
 * (emit_volume_tile.c): its macros, and the kernel's body after the signature, of any mask or of
 * a separable one in a single pass (its vectors in the separable macros). */
void emit_volume_tile_macros(strbuf *out, const cls_kernel_config *c);
void emit_volume_tiled_walk(strbuf *out, const cls_kernel_config *c);
void emit_volume_separable_macros(strbuf *out, const cls_kernel_config *c);
void emit_volume_separable_walk(strbuf *out, const cls_kernel_config *c);
/* Whether a separable volume mask is a minimum's or maximum's whose vector along AXIS has no zero
 * (a rectangle along that axis: its windows may be joined in any grouping). */
int emit_volume_flat_extremum(const cls_kernel_config *c, cls_axis axis);
/* The separable walk's minimum or maximum along z by doubling (emit_volume_doubling.c): whether it
 * applies (a rectangle's extremum at least 3 deep), its levels' declaration before the walk, and
 * its step in the walk from the slice's column[COLUMNS] to the completed output slice's result[COLUMNS]. */
int emit_volume_doubles_z(const cls_kernel_config *c);
void emit_volume_doubling_levels(strbuf *out, const cls_kernel_config *c);
void emit_volume_doubling_step(strbuf *out, const cls_kernel_config *c);
/* A volume's separable single pass on the global input path, its halo columns handed between a
 * warp's lanes (emit_volume_lanes.c): its macros, and the kernel's body after the signature. */
void emit_volume_lanes_macros(strbuf *out, const cls_kernel_config *c);
void emit_volume_lanes_walk(strbuf *out, const cls_kernel_config *c);
/* The store of a walk's complete outputs (emit_volume_tile.c): column j of DONE[j] (with
 * cls_volume_block_rows above 1, DONE names row b's) where the output is in the region. */
void emit_volume_tile_store(strbuf *out, const cls_kernel_config *c, const char *done);
/* A volume's walk with COLUMNS adjacent outputs a work-item in explicit vectors, on the global
 * input path (emit_volume_vectors.c): its macros, and the kernel's body after the signature. */
void emit_volume_vector_macros(strbuf *out, const cls_kernel_config *c);
void emit_volume_vector_walk(strbuf *out, const cls_kernel_config *c);
/* What a volume's walks share (volume_window.c): the end of the work-item's block of slices
 * (z_end, after z_first) and its buffers moved to their offsets; the window's partial results'
 * start, and the statement that joins a tap's value into partial result SUM (a weighted sum, or
 * the minimum or maximum over the footprint: the taps whose COEFFICIENT is not 0). */
void emit_volume_block(strbuf *out);
/* The condition under which a tap at window row DY, column DX reads the input rather than
 * border_value: inside along each constant axis (slice_inside, row_inside[DY], column_inside[DX];
 * "" where no axis is constant). */
void emit_volume_inside(char *text, size_t size, const cls_spec *s, const char *dy, const char *dx);
/* `TARGET[n] = ...;` for each tap (dy, dx) of a slice of the window that MASK_SLICE (its
 * coefficients; NULL: every tap) does not zero, read at slice + row[dy] + column[dx] (the constant
 * border's value outside), at INDENT, numbered from N; returns the next number. */
unsigned emit_volume_slice_taps(strbuf *out, int indent, const cls_spec *s, const float *mask_slice, const char *target,
                                unsigned n);
/* One of them: window pixel (dx, dy) of the slice into TARGET[N]. */
void emit_volume_tap(strbuf *out, int indent, const cls_spec *s, unsigned dy, unsigned dx, const char *target, unsigned n);
/* A box's rank by sorted slices (emit_volume_rank.c): whether it applies (a rank whose footprint is
 * the whole box, more than one slice deep and one pixel a slice, up to 128 taps), and the walk's
 * code after the window's indices; 0 when out of memory (nothing written). */
int emit_volume_box_by_slices(const cls_kernel_config *c);
int emit_volume_sorted_slices(strbuf *out, const cls_kernel_config *c);
/* The rank networks' exchange NAME(v, a, b): the smaller of v[a] and v[b] into v[a], the larger
 * into v[b]; PRUNED adds LO and HI, which keep one of the two. By fmin and fmax where the record
 * says so (rank_minmax: GPUs), else by a comparison and selects; with no NaN the same values. */
void emit_rank_exchanges(strbuf *out, const cls_kernel_config *c, const char *name, int pruned);
const char *emit_volume_window_start(const cls_spec *s);
void emit_volume_join(char *text, size_t size, const cls_spec *s, const char *coefficient, const char *sum,
                      const char *value);
void emit_body_call(emitter *e, int indent, const access *a);
/* The kernel's code after the signature for a body in lanes (emit_body_lanes.c): the test of the
 * work-item's windows, the body's calls into the vectors sum[k] and their stores. */
void emit_body_lanes(emitter *e);
/* The baked coefficients of every mask as the program-scope array `name` (emit.c). */
void emit_baked_array(emitter *e, const char *name, const char *comment);

/* Text helpers (emit.c). */
void indent_line(strbuf *out, int indent);
/* The OpenCL C type of a pixel type: uchar, ushort, float, double. */
const char *emit_cl_type(cls_pixel_type type);
/* The type a weighted sum computes in: double for f64 pixels, else float. */
const char *emit_value_type(const cls_kernel_config *c);
/* A load of pointer[index] as a float (emit_format_load_as: as VALUE_TYPE), and a store of the
 * value `value` to pointer[index] (with its semicolon), in the pixel type's conversion: f16
 * through vload_half and vstore_half_rte, integers rounded and saturated. */
void emit_format_load(char *text, size_t size, cls_pixel_type type, const char *pointer, const char *index);
void emit_format_load_as(char *text, size_t size, cls_pixel_type type, const char *value_type, const char *pointer,
                         const char *index);
void emit_format_store(char *text, size_t size, cls_pixel_type type, const char *pointer, const char *index,
                       const char *value);
/* The same for LANES adjacent pixels from ADDRESS on, as one floatN (vloadN, vload_halfN, or
 * converted), and a store of the floatN VALUE to them (vstoreN, rounded and saturated as above). */
void emit_format_vector_load(char *text, size_t size, cls_pixel_type type, unsigned lanes, const char *address);
void emit_format_vector_store(char *text, size_t size, cls_pixel_type type, unsigned lanes, const char *value,
                              const char *address);
void append_float(strbuf *out, float value);
/* "", " + 2" or " - 2". */
void format_offset(char *text, size_t size, int offset);
/* The in-range index for `index` along the axis (of length width or height) under a check,
 * through the axis's border functions. */
void append_index(const emitter *e, strbuf *out, axis_check check, const char *index, cls_axis axis);
/* The predicate "index is inside" for a check other than CHECK_NONE. */
void append_inside(const emitter *e, strbuf *out, axis_check check, const char *index, cls_axis axis);
/* Whether constant mode is emitted with select() (not by the image sampler): on the axis, or on
 * any axis. */
int software_constant_on(const emitter *e, cls_axis axis);
int software_constant(const emitter *e);

/* Border code (border_code.c). The suffix of an axis's border functions: "" where every axis has
 * the same mode, else "_x", "_y" or "_z". */
const char *border_suffix(const cls_spec *spec, cls_axis axis);
/* The mode's template (cl-templates/border-*.cl), or one per axis with its suffix. */
void border_append_templates(strbuf *out, const cls_spec *spec);
/* `code` (helpers that call the border functions), as it is or once per axis, renamed. */
void border_append_per_axis(strbuf *out, const cls_spec *spec, const char *code);

#endif
