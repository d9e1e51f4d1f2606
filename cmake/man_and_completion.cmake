# man_and_completion.cmake — the clstencil(1) manual page (roff, with the version filled in) and
# the bash completion (operator names read from the library's operator parser), built with the
# command and installed under the prefix's man1 and bash-completion folders.
configure_file(${PROJECT_SOURCE_DIR}/docs/man/clstencil.1.in ${PROJECT_BINARY_DIR}/clstencil.1 @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/clstencil.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(CLS_COMPLETION ${PROJECT_BINARY_DIR}/clstencil.bash)
set(operator_parsers ${PROJECT_SOURCE_DIR}/generator/operators.c ${PROJECT_SOURCE_DIR}/generator/morphology_operators.c
    ${PROJECT_SOURCE_DIR}/generator/volume_operators.c)
string(REPLACE ";" "|" operator_parsers_argument "${operator_parsers}") # a list in one argument
add_custom_command(
  OUTPUT ${CLS_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DTEMPLATE=${PROJECT_SOURCE_DIR}/tools/completion/clstencil.bash.in
          -DOPERATORS_SOURCES=${operator_parsers_argument} -DOUTPUT=${CLS_COMPLETION}
          -P ${PROJECT_SOURCE_DIR}/cmake/completion.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/tools/completion/clstencil.bash.in ${operator_parsers}
          ${PROJECT_SOURCE_DIR}/cmake/completion.cmake
  COMMENT "Writing the bash completion" VERBATIM)
add_custom_target(clstencil_completion ALL DEPENDS ${CLS_COMPLETION})
install(FILES ${CLS_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME clstencil)
