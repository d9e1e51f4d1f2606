# completion.cmake — writes the bash completion (cmake -P): the template with the operator names
# the library's parsers know, read from their sources, so that the list follows new operators.
# Variables: TEMPLATE (clstencil.bash.in), OPERATORS_SOURCES (the parsers' files, |-separated:
# generator/operators.c, morphology_operators.c, volume_operators.c), OUTPUT.
string(REPLACE "|" ";" sources "${OPERATORS_SOURCES}")
set(names night user:)
foreach(file IN LISTS sources)
  file(READ ${file} source)
  # a name compared with the operator's (gaussian, median3d, gaussian_d), a prefix (convolve:),
  # and the morphology tables' entries ({"opening", "grey opening: ..."} and the list of names)
  string(REGEX MATCHALL "strcmp\\(name, \"[a-z0-9_]+\"\\)" named "${source}")
  string(REGEX MATCHALL "strncasecmp\\(text, \"[a-z0-9_]+:\"" prefixed "${source}")
  string(REGEX MATCHALL "{\"[a-z]+\", \"(grey|white|black) [a-z-]+" composed "${source}")
  string(REGEX MATCH "morphology_names\\[\\] = {[^}]*}" listed "${source}")
  string(REGEX MATCHALL "\"[a-z]+\"" listed "${listed}")
  foreach(match IN LISTS named prefixed composed listed)
    string(REGEX REPLACE "^[^\"]*\"([a-z0-9_]+)(:?)\".*" "\\1:" name "${match}")
    list(APPEND names ${name})
  endforeach()
endforeach()
# Operators whose arguments are optional complete without the colon too.
list(APPEND names laplace tonemap)
list(REMOVE_DUPLICATES names)
list(SORT names)
list(JOIN names " " CLS_OPERATORS)
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
