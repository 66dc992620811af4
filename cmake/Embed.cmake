# smemu_embed(OUTPUT file.cpp FILES f1 f2 ... BASE dir)
# Generates a C++ source that defines smemu::EmbeddedFiles(): every file's bytes keyed by its path
# relative to BASE. The bytes are written as a hex array, so any content (quotes, NULs) is safe.
function(smemu_embed)
  cmake_parse_arguments(ARG "" "OUTPUT;BASE" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DBASE=${ARG_BASE} "-DFILES=${ARG_FILES}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake
    COMMENT "Embedding API models, schema migrations and the dashboard"
    VERBATIM)
endfunction()
