/* test_volume_planner.c — the planner's choices for volumes without OpenCL or a device (the
 * fixture of support/planner_fixture.h): a volume's tuning result gives its group and slices for
 * its size class only; a small volume's walk takes fewer slices on a GPU, a tall and deep single
 * pass more; a 3x3x3 box's rank takes a pair of columns where the record says so. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support/planner_fixture.h"

/* A volume's tuning result, filed under the size class of its slices, gives the work-group shape
 * and the slices a work-item walks; the policy keeps the kernel's form (a Gaussian's single pass
 * from the slice's tile, its columns and input path). */
static void volume_takes_its_tuned_group_and_slices(void **state)
{
    fixture *f = *state;
    cls_operator *op = NULL;
    const cls_spec spec = operator_spec("gaussian3d:13,2", CLS_BORDER_REPEAT, 512, &op);
    cls_tuning choice = {CLS_TUNING_INIT};
    assert_false(plan_choice(&f->planner, &spec, &choice)); /* none shipped */
    char hash[17], text[512];
    assert_int_equal(cls_operator_hash(&spec, hash), CLS_OK);
    snprintf(text, sizeof text,
             "[sm_90 %s 9]\nkey = 2\npartition = isp-block\ninput = global\ngroup = 32x16\nrows = 64\ncols = 1\n"
             "size = 512x512x512\n", hash);
    assert_int_equal(cls_tuning_table_parse(&f->tuning, text, "tuning.ini"), CLS_OK);
    assert_true(plan_choice(&f->planner, &spec, &choice));
    assert_int_equal(choice.depth, 512);
    const cls_spec chosen = cls_plan_apply(&spec, &choice);
    assert_int_equal(chosen.group_width, 32);
    assert_int_equal(chosen.group_height, 16);
    assert_int_equal(chosen.rows_per_item, 64);
    assert_int_equal(chosen.input_path, CLS_INPUT_AUTO);
    assert_int_equal(chosen.cols_per_item, 0);
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &chosen, &config), CLS_OK);
    assert_int_equal(config.separable, CLS_SEPARABLE_SINGLE_PASS);
    assert_int_equal(config.input_path, CLS_INPUT_LOCAL);
    assert_int_equal(config.group_height, 16);
    assert_int_equal(config.rows, 64);
    cls_kernel_config_free(&config);
    /* a spec that names its group keeps it, and takes the slices */
    cls_spec pinned = spec;
    pinned.group_width = 64, pinned.group_height = 4;
    assert_true(plan_choice(&f->planner, &pinned, &choice));
    const cls_spec kept = cls_plan_apply(&pinned, &choice);
    assert_int_equal(kept.group_width, 64);
    assert_int_equal(kept.rows_per_item, 64);
    cls_operator_release(op);
    /* device-db/tuning/nvidia-sm90.ini: gaussian3d:19,3 in clamp, 32x16 groups walking 512 slices,
     * for volumes of about 512^3 voxels only (a 256^3 volume's class is another: the policy's) */
    cls_spec clamp = operator_spec("gaussian3d:19,3", CLS_BORDER_CLAMP, 512, &op);
    assert_true(plan_choice(&f->planner, &clamp, &choice));
    assert_int_equal(choice.group_height, 16);
    assert_int_equal(choice.rows_per_item, 512);
    clamp.expected_depth = 512;
    assert_true(plan_choice(&f->planner, &clamp, &choice));
    clamp.expected_depth = 64; /* 512x512x64: class 8 */
    assert_false(plan_choice(&f->planner, &clamp, &choice));
    clamp.expected_width = clamp.expected_height = 1024, clamp.expected_depth = 128; /* class 9 */
    assert_true(plan_choice(&f->planner, &clamp, &choice));
    clamp.expected_width = clamp.expected_height = 256, clamp.expected_depth = 0;
    assert_false(plan_choice(&f->planner, &clamp, &choice));
    clamp.expected_width = clamp.expected_height = 0;
    assert_false(plan_choice(&f->planner, &clamp, &choice));
    cls_operator_release(op);
}

/* The policy's kernel for a spec and an expected volume (a depth of 0: unknown). */
static cls_kernel_config planned(const fixture *f, cls_spec spec, unsigned width, unsigned height, unsigned depth)
{
    spec.expected_width = width, spec.expected_height = height, spec.expected_depth = depth;
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    return config;
}

/* The slices a volume's walk takes under the policy for an expected volume. */
static unsigned walk_slices(const fixture *f, cls_spec spec, unsigned width, unsigned height, unsigned depth)
{
    cls_kernel_config config = planned(f, spec, width, height, depth);
    const unsigned slices = config.rows;
    cls_kernel_config_free(&config);
    return slices;
}

/* On a GPU a small volume's walk takes fewer slices, so that its launch keeps a quarter of the
 * device's work-items (132 SMs x 2,048) busy: a 5x5x5 mask's walk of 128 slices in 32x4 groups of
 * 4 columns leaves a 128^3 volume 4,096 work-items, of 8 slices 65,536 (the shortest walk); a
 * 256^3 volume's 32 slices 131,072. A 512^3 volume, a volume of unknown depth, a spec that names
 * its slices and a CPU runtime keep the record's walk. A separable mask's single pass at least 9
 * deep and tall starts from the record's 512 slices (volume_pass_slices): 65,536 work-items at
 * 512^3, so 256; a 7x7x7 one walks 128. */
static void small_volume_walks_fewer_slices(void **state)
{
    fixture *f = *state;
    static float mask[125];
    for (unsigned i = 0; i < 125; ++i) mask[i] = (float)((i * 37) % 19) - 9.0f;
    cls_spec spec;
    cls_spec_init(&spec);
    spec.mask_width = spec.mask_height = spec.mask_depth = 5;
    spec.coefficients = mask;
    assert_int_equal(walk_slices(f, spec, 512, 512, 512), 128);
    assert_int_equal(walk_slices(f, spec, 128, 128, 0), 128);
    assert_int_equal(walk_slices(f, spec, 256, 256, 256), 32);
    assert_int_equal(walk_slices(f, spec, 128, 128, 128), 8);
    assert_int_equal(walk_slices(f, spec, 1024, 1024, 32), 128); /* 2,048 groups along x and y */
    cls_spec named = spec;
    named.rows_per_item = 64;
    assert_int_equal(walk_slices(f, named, 128, 128, 128), 64);
    cls_operator *op = NULL;
    const cls_spec box = operator_spec("box3d:3", CLS_BORDER_CLAMP, 128, &op);
    assert_int_equal(walk_slices(f, box, 128, 128, 128), 8);
    assert_int_equal(walk_slices(f, box, 256, 256, 256), 32);
    cls_operator_release(op);
    const cls_spec gaussian = operator_spec("gaussian3d:13,2", CLS_BORDER_CLAMP, 128, &op);
    assert_int_equal(walk_slices(f, gaussian, 512, 512, 512), 256);
    assert_int_equal(walk_slices(f, gaussian, 1024, 1024, 512), 512);
    assert_int_equal(walk_slices(f, gaussian, 512, 512, 0), 512);
    assert_int_equal(walk_slices(f, gaussian, 256, 256, 256), 32);
    cls_operator_release(op);
    const cls_spec seven = operator_spec("gaussian3d:7,1.5", CLS_BORDER_CLAMP, 128, &op);
    assert_int_equal(walk_slices(f, seven, 512, 512, 512), 128);
    cls_operator_release(op);
    f->record.type = CLS_DEVICE_CPU; /* no work-items to fill: the record's walk */
    assert_int_equal(walk_slices(f, spec, 128, 128, 128), 128);
}

/* The policy's kernel for an operator, asked to separate so (auto: as it likes), and an expected
 * cube (0: unknown). */
static cls_kernel_config cube_config(const fixture *f, const char *text, cls_separable separable, unsigned side)
{
    cls_operator *op = NULL;
    cls_spec spec = operator_spec(text, CLS_BORDER_CLAMP, 128, &op);
    spec.separable = separable;
    const cls_kernel_config config = planned(f, spec, side, side, side);
    cls_operator_release(op);
    return config;
}

/* A separable mask 15 to 17 deep runs its single pass in 16-row groups; one deeper than 19 (more
 * than 76 partial sums) in one pass too, in 8-row groups, unless a small volume's walk is shorter
 * than the halo of slices it re-reads (passes), or the spec asks for the single pass. */
static void deep_masks_in_one_pass_where_the_walk_is_long_enough(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *op;
        cls_separable asked;
        unsigned side, slices, group_height;
        cls_separable separable;
    } cases[] = {
        {"gaussian3d:15,2.5", CLS_SEPARABLE_AUTO, 512, 256, 16, CLS_SEPARABLE_SINGLE_PASS},
        {"gaussian3d:13,2", CLS_SEPARABLE_AUTO, 512, 256, 8, CLS_SEPARABLE_SINGLE_PASS},
        {"gaussian3d:31,5", CLS_SEPARABLE_AUTO, 512, 256, 8, CLS_SEPARABLE_SINGLE_PASS},
        {"gaussian3d:31,5", CLS_SEPARABLE_AUTO, 256, 32, 8, CLS_SEPARABLE_SINGLE_PASS}, /* a halo of 30 slices */
        {"gaussian3d:21,3.5", CLS_SEPARABLE_AUTO, 128, 0, 0, CLS_SEPARABLE_TWO_PASS},    /* 20 > 8 */
        {"gaussian3d:31,5", CLS_SEPARABLE_AUTO, 128, 0, 0, CLS_SEPARABLE_TWO_PASS},
        {"gaussian3d:31,5", CLS_SEPARABLE_SINGLE_PASS, 128, 8, 4, CLS_SEPARABLE_SINGLE_PASS}, /* asked: the record's group */
        {"gaussian3d:17,3", CLS_SEPARABLE_AUTO, 128, 8, 16, CLS_SEPARABLE_SINGLE_PASS}, /* 76 sums or fewer */
        {"gaussian3d:31,5", CLS_SEPARABLE_AUTO, 0, 512, 8, CLS_SEPARABLE_SINGLE_PASS},  /* unknown: the record's walk */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cls_kernel_config config = cube_config(f, cases[c].op, cases[c].asked, cases[c].side);
        if (config.separable != cases[c].separable || (cases[c].slices && config.rows != cases[c].slices) ||
            (cases[c].group_height && config.group_height != cases[c].group_height))
            fail_msg("%s at %u: separable %d, %u slices, %u rows a group", cases[c].op, cases[c].side, (int)config.separable,
                     config.rows, config.group_height);
        cls_kernel_config_free(&config);
    }
}

/* The output columns a volume's rank computes a work-item under the policy. */
static unsigned rank_columns(const fixture *f, const char *text, cls_partition partition)
{
    cls_operator *op = NULL;
    cls_spec spec = operator_spec(text, CLS_BORDER_CLAMP, 512, &op);
    spec.partition = partition;
    cls_kernel_config config;
    assert_int_equal(cls_plan_policy(&f->planner, &spec, &config), CLS_OK);
    const unsigned cols = config.cols;
    assert_int_equal(config.input_path, CLS_INPUT_GLOBAL);
    cls_kernel_config_free(&config);
    cls_operator_release(op);
    return cols;
}

/* On the H200's record (rank_columns = 2) a 3x3x3 box's rank by sorted slices takes a pair of
 * columns a work-item; a 5x5x5 box (its rings too large), the naive partition (the quick kernel's
 * selection) and a CPU record's one. */
static void volume_rank_takes_a_pair_of_columns(void **state)
{
    fixture *f = *state;
    assert_int_equal(rank_columns(f, "median3d:3", CLS_PARTITION_AUTO), 2);
    assert_int_equal(rank_columns(f, "percentile3d:30,3", CLS_PARTITION_AUTO), 2);
    assert_int_equal(rank_columns(f, "median3d:5", CLS_PARTITION_AUTO), 1);
    assert_int_equal(rank_columns(f, "median3d:3", CLS_PARTITION_NAIVE), 1);
    f->record.rank_columns = 0;
    assert_int_equal(rank_columns(f, "median3d:3", CLS_PARTITION_AUTO), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(volume_takes_its_tuned_group_and_slices, set_up, tear_down),
        cmocka_unit_test_setup_teardown(deep_masks_in_one_pass_where_the_walk_is_long_enough, set_up, tear_down),
        cmocka_unit_test_setup_teardown(small_volume_walks_fewer_slices, set_up, tear_down),
        cmocka_unit_test_setup_teardown(volume_rank_takes_a_pair_of_columns, set_up, tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
