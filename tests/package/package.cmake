# package.cmake — what an install delivers besides the library's behaviour: only cls_* symbols
# exported with the soname docs/abi.md describes, modules that depend one way, a manual page that
# man renders without warnings, and a bash completion that loads and completes. Included by
# tests/CMakeLists.txt.
add_test(NAME package_exported_symbols
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/package/exported_symbols.sh $<TARGET_FILE:clstencil>
                 $<TARGET_SONAME_FILE_NAME:clstencil>)
add_test(NAME package_soname_is_abi_version
         COMMAND sh -c "test '$<TARGET_SONAME_FILE_NAME:clstencil>' = 'libclstencil.so.${CLS_ABI_VERSION}'")
set_tests_properties(package_exported_symbols package_soname_is_abi_version PROPERTIES LABELS "cli;package")
if(CLS_BUILD_TOOLS)
  # core <- generator <- device-db <- host by the symbols their objects use; the command only public ones.
  add_test(NAME package_module_layering
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/package/layering.sh ${PROJECT_BINARY_DIR}/CMakeFiles
                   $<TARGET_FILE:clstencil> ${PROJECT_BINARY_DIR}/tools/CMakeFiles/clstencil_cli.dir)
  set_tests_properties(package_module_layering PROPERTIES LABELS "cli;package")
  # Inside each module, no circle of more than two files by the symbols their objects use.
  add_test(NAME package_file_circles
           COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/package/file_circles.py ${PROJECT_BINARY_DIR}/CMakeFiles
                   ${PROJECT_BINARY_DIR}/tools/CMakeFiles/clstencil_cli.dir)
  set_tests_properties(package_file_circles PROPERTIES LABELS "cli;package")
  # man -l renders the page (its sections), and groff finds nothing to warn about.
  add_test(NAME package_man_page_renders
           COMMAND sh -c "MANWIDTH=80 man -l '${PROJECT_BINARY_DIR}/clstencil.1' | grep -q 'CONVENTIONS' &&
                          MANWIDTH=80 man -l '${PROJECT_BINARY_DIR}/clstencil.1' | grep -q 'EXIT STATUS' &&
                          test -z \"$(groff -man -ww -z '${PROJECT_BINARY_DIR}/clstencil.1' 2>&1)\"")
  add_test(NAME package_bash_completion
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/package/completion.sh ${PROJECT_BINARY_DIR}/clstencil.bash
                   $<TARGET_FILE:clstencil_cli>)
  set_tests_properties(package_man_page_renders package_bash_completion PROPERTIES LABELS "cli;package")
endif()
# The C blocks of README.md and docs/ compile as written (python3 is the build machine's).
add_test(NAME package_doc_c_snippets
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/package/doc_snippets.py ${PROJECT_SOURCE_DIR})
set_tests_properties(package_doc_c_snippets PROPERTIES LABELS "cli;package")
# What the README and docs/ cite exists: environment variables, the options of documented command
# lines, their operators.
add_test(NAME package_doc_claims
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/package/doc_claims.py ${PROJECT_SOURCE_DIR} $<TARGET_FILE:clstencil_cli>)
set_tests_properties(package_doc_claims PROPERTIES LABELS "cli;package")
# The README's comparison table is the one its measurement file renders.
add_test(NAME package_readme_table
         COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/readme_table.py
                 ${PROJECT_SOURCE_DIR}/docs/measurements/peers-h200-2026-11-30.json --check ${PROJECT_SOURCE_DIR}/README.md)
set_tests_properties(package_readme_table PROPERTIES LABELS "cli;package")
