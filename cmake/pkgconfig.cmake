# pkgconfig.cmake — the pkg-config file, relocatable: its prefix is found from the file's own
# folder (${pcfiledir}), so `cmake --install build --prefix /anywhere` gives a clstencil.pc
# that points at /anywhere. An absolute CMAKE_INSTALL_LIBDIR or INCLUDEDIR is written as is.
set(CLS_PC_DIRECTORY ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CLS_PC_DIRECTORY}")
  set(CLS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  # One ".." per folder between the prefix and the .pc file (lib/pkgconfig: two).
  string(REGEX REPLACE "[^/]+" ".." CLS_PC_UP "${CLS_PC_DIRECTORY}")
  set(CLS_PC_PREFIX "\${pcfiledir}/${CLS_PC_UP}")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(CLS_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(CLS_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/clstencil.pc.in ${PROJECT_BINARY_DIR}/clstencil.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/clstencil.pc DESTINATION ${CLS_PC_DIRECTORY})
