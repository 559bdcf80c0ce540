# Runs the layering checker on the fixture tree (tests/layering/fixture) and
# checks that it fails, and how:
#   cmake -DCHECKER=<tenferro_layering_check> -DFIXTURE=<dir> -DNM=<nm>
#         -DFIXTURE_LIB=<layering_fixture_lib> -P expect_violations.cmake
function(run_checker out_rc out_text)
  execute_process(COMMAND ${CHECKER} --root ${FIXTURE} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

function(expect text pattern what)
  string(FIND "${text}" "${pattern}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "layering check: expected ${what}:\n  ${pattern}\nin its output:\n${text}")
  endif()
endfunction()

# 1. No allowlist: every violation is reported at its file:line with the rule.
run_checker(rc text --links links.txt)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "layering check: exit status ${rc} on a tree with violations (want 1):\n${text}")
endif()
expect("${text}" "src/low/low.cpp:3: low includes tenferro/high/high.hpp (module high); the layer table lets low use no other module" "the forbidden include")
expect("${text}" "src/low/relative.cpp:2: low includes ../high/impl.hpp (module high)" "the forbidden relative include")
expect("${text}" "include/tenferro/low/low.hpp:3: public header includes <cblas.h>" "the BLAS header in a public header")
expect("${text}" "src/low/CMakeLists.txt:2: the target tenferro::low links tenferro::high" "the forbidden link")
expect("${text}" "src/orphan/orphan.cpp: src/orphan/orphan.cpp belongs to module orphan, which has no row" "the module without a row")
expect("${text}" "5 violation(s)" "exactly five violations (the commented include, allowed includes and links are not violations)")

# 2. All of them allowlisted: the check passes.
run_checker(rc text --links links.txt --allow allow_all.txt)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "layering check: exit status ${rc} with every violation allowlisted (want 0):\n${text}")
endif()

# 3. An allowlist entry that matches nothing fails (the list only shrinks).
run_checker(rc text --links links.txt --allow allow_stale.txt)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "layering check: exit status ${rc} with a stale allowlist entry (want 1):\n${text}")
endif()
expect("${text}" "allow_stale.txt:8: 'src/high/high.cpp -> tenferro/low/low.hpp' matches no violation any more" "the stale entry")

# 4. A table whose arrow points up is rejected.
run_checker(rc text --table docs/upward_table.md)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "layering check: exit status ${rc} on a table with an upward arrow (want 2):\n${text}")
endif()
expect("${text}" "upward_table.md:3: low may use tenferro::high, which is not a row above it" "the upward arrow")
# 5. A member function of low's class defined in high's library.
run_checker(rc text --links links.txt --nm ${NM} --lib high=${FIXTURE_LIB})
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "layering check: exit status ${rc} with a foreign member definition (want 1):\n${text}")
endif()
expect("${text}" "include/tenferro/low/low_class.hpp:3: class Low is declared in module low but 1 of its member functions are defined in tenferro::high" "the foreign member definition")
expect("${text}" "6 violation(s)" "the five include/link violations and the definition")
run_checker(rc text --links links.txt --allow allow_all.txt --nm ${NM} --lib high=${FIXTURE_LIB})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "layering check: exit status ${rc} with every violation allowlisted (want 0):\n${text}")
endif()
message(STATUS "layering check: fixture violations detected as expected")
