# conventions.cmake — the command line's conventions, shared by every subcommand (tools/cli.c):
# -h/--help, --name=value and --name value, short options, abbreviations, `--`, and the errors,
# which name the option and what it accepts and exit 1. Included by tests/CMakeLists.txt after
# cls_cli_test, EXPECT and CLI. Each test takes milliseconds (gen needs no device).

# -h and --help everywhere, exit 0 on stdout.
cls_cli_test(help_short 0 "usage: clstencil COMMAND" ${CLI} -h)
cls_cli_test(help_long 0 "usage: clstencil COMMAND" ${CLI} --help)
cls_cli_test(help_command 0 "usage: clstencil gen" ${CLI} help gen)
cls_cli_test(help_unknown_command 1 "unknown command 'frobnicate'" ${CLI} help frobnicate)
foreach(command devices gen bench tune cache filter)
  cls_cli_test(${command}_help_short 0 "usage: clstencil ${command}" ${CLI} ${command} -h)
  cls_cli_test(${command}_help_long 0 "usage: clstencil ${command}" ${CLI} ${command} --help)
endforeach()
cls_cli_test(bench_help_after_options 0 "usage: clstencil bench" ${CLI} bench --op box:3 -h)

# --version: the library's version and the OpenCL headers'.
cls_cli_test(version_opencl_headers 0 "OpenCL headers: CL_TARGET_OPENCL_VERSION [0-9]+ \\(OpenCL [0-9]+[.][0-9]+\\)"
             ${CLI} --version)
cls_cli_test(version_short 0 "^clstencil [0-9]+[.][0-9]+[.][0-9]+" ${CLI} -V)

# The forms of an option with a value: --name=value, --name value, -x value, -xvalue, an
# abbreviation of the long name.
set(mask5 "Local operator 5x5")
cls_cli_test(form_equals 0 "${mask5}" ${CLI} gen --mask=5x5)
cls_cli_test(form_separate 0 "${mask5}" ${CLI} gen --mask 5x5)
cls_cli_test(form_short 0 "${mask5}" ${CLI} gen -m 5x5)
cls_cli_test(form_short_attached 0 "${mask5}" ${CLI} gen -m5x5)
cls_cli_test(form_abbreviated 0 "partition isp-warp" ${CLI} gen --partit isp-warp)
cls_cli_test(form_short_options 0 "border mirror, partition isp-warp"
             ${CLI} gen -b mirror -p isp-warp -t u8 --wg=32x8)
cls_cli_test(form_flag 0 "coefficients baked as literals" ${CLI} gen --bake)
cls_cli_test(form_negative_value 0 "constant" ${CLI} gen --border constant --value -1.5)
cls_cli_test(form_output_file 0 "^__kernel|[1-9][0-9]*$"
             sh -c "$<TARGET_FILE:clstencil_cli> gen -o gen-output.cl && grep -c __kernel gen-output.cl")
cls_cli_test(form_devices_all_short 0 "device 0:0" ${CLI} devices -a)
cls_cli_test(form_filter_output_option 0 "stage 1: +box:3"
             ${CLI} filter ${SAMPLE} -o conventions-out.pgm --op=box:3 -b mirror -t u8 -v)
cls_cli_test(form_filter_options_first 0 "stage 1: +box:3"
             ${CLI} filter --op box:3 -v ${SAMPLE} conventions-out.pgm)
# `--` ends the options: what follows is positional, even when it starts with a dash.
cls_cli_test(double_dash_positional 4 "-missing.pgm: does not exist"
             ${CLI} filter --op box:3 -- -missing.pgm out.pgm)
cls_cli_test(double_dash_gen 1 "unexpected argument '--mask'" ${CLI} gen -- --mask 5x5)

# Errors: the option named, what it accepts, exit 1.
cls_cli_test(error_unknown_long 1 "clstencil gen: unknown option '--colour' \\(clstencil gen --help lists the options\\)"
             ${CLI} gen --colour)
cls_cli_test(error_unknown_long_with_value 1 "unknown option '--colour' " ${CLI} gen --colour=red)
cls_cli_test(error_unknown_short 1 "clstencil filter: unknown option '-x'" ${CLI} filter -x)
cls_cli_test(error_unknown_global 1 "clstencil: unknown option '--frobnicate'" ${CLI} --frobnicate)
cls_cli_test(error_missing_value_long 1 "--mask needs a value \\(WxH with odd sides from 1 to 63\\)" ${CLI} gen --mask)
cls_cli_test(error_missing_value_short 1 "-d needs a value \\(P:D, gpu, cpu, accelerator, a part of a name, a list P:D,P:D or gpus\\)"
             ${CLI} filter in.pgm out.pgm --op box:3 -d)
cls_cli_test(error_flag_with_value 1 "--bake takes no value \\(not 'yes'\\)" ${CLI} gen --bake=yes)
cls_cli_test(error_ambiguous 1 "ambiguous option '--b' \\(it could be --border, --body, --bake, --body-apart-regions\\)" ${CLI} gen --b x)
cls_cli_test(error_bad_value_lists 1 "bad value 'opencv' for --suite \\(--suite wants isp, hipacc or filters\\)"
             ${CLI} bench --suite=opencv)
cls_cli_test(error_bad_list_item 1 "bad value 'clamp,bounce' for --borders \\(--borders wants a comma-separated list of undefined, clamp"
             ${CLI} bench --op box:3 --borders clamp,bounce)
cls_cli_test(error_library_value_lists 1 "--border bounce: unknown border mode 'bounce' \\(expected one of: undefined, clamp"
             ${CLI} gen --border=bounce)
cls_cli_test(error_bad_number 1 "bad value 'abc' for --value \\(a finite number\\)" ${CLI} gen --value abc)
cls_cli_test(error_build_goal 1 "--build wants auto, first-result, fastest-kernel or tiered, not 'soon'"
             ${CLI} filter in.pgm out.pgm --op box:3 --build=soon)
cls_cli_test(error_unexpected_argument 1 "clstencil devices: unexpected argument 'all'" ${CLI} devices all)
cls_cli_test(error_two_outputs 1 "two outputs: 'a.pgm' and 'b.pgm'" ${CLI} filter in.pgm a.pgm -o b.pgm --op box:3)
cls_cli_test(error_quiet_is_tune_s 1 "--quiet is an option of clstencil tune" ${CLI} bench --op box:3 -q)
cls_cli_test(error_gen_output 7 "/nonexistent/gen.cl: cannot create a file in its folder" ${CLI} gen -o /nonexistent/gen.cl)
# A --device that matches nothing is named as the option, not as CLSTENCIL_DEVICE.
cls_cli_test(error_device_option 2 "no OpenCL device matches --device 'no-such-device'"
             ${CLI} bench --op box:3 --size 32x32 -d no-such-device)
# tune -q: the one configuration measured, no progress lines.
cls_cli_test(tune_quiet 0 "^quiet: no progress$"
             sh -c "$<TARGET_FILE:clstencil_cli> tune -q --no-store --op box:3 -s 32x32 --partition naive --input global --rows 1 --cols 1 --wg 16x1 -r 20 --warmup 0 2>&1 | grep -q measured || echo 'quiet: no progress'")
