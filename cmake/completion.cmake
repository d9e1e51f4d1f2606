# completion.cmake — writes the bash completion (cmake -P): the template with the operator names
# the library's parser knows, read from its source, so that the list follows new operators.
# Variables: TEMPLATE (clstencil.bash.in), OPERATORS_SOURCE (generator/operators.c), OUTPUT.
file(READ ${OPERATORS_SOURCE} source)
string(REGEX MATCHALL "strcmp\\(name, \"[a-z0-9]+\"\\)" named "${source}")
string(REGEX MATCHALL "strncasecmp\\(text, \"[a-z0-9]+:\"" prefixed "${source}")
set(names night user:)
foreach(match IN LISTS named prefixed)
  string(REGEX REPLACE ".*\"([a-z0-9]+)(:?)\".*" "\\1:" name "${match}")
  list(APPEND names ${name})
endforeach()
# Operators whose arguments are optional complete without the colon too.
list(APPEND names laplace tonemap)
list(REMOVE_DUPLICATES names)
list(SORT names)
list(JOIN names " " CLS_OPERATORS)
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
