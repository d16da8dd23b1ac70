#!/bin/sh
# test_run_sh.sh: tests/run.sh counts what a test binary reports. A binary
# that ends without cmocka's summary line fails even with exit status 0
# (a main that runs no group is not "ok (0 tests)"); a binary with a
# summary is counted by it.
. "$(dirname "$0")/lib.sh"

# run.sh names a binary after its grandparent folder (the build flavour).
mkdir -p "$T_TMP/flavour/tests"
printf '#!/bin/sh\necho "no summary here"\nexit 0\n' >"$T_TMP/flavour/tests/t_silent"
printf '#!/bin/sh\necho "[  PASSED  ] 2 test(s)."\nexit 0\n' >"$T_TMP/flavour/tests/t_two"
chmod +x "$T_TMP/flavour/tests/t_silent" "$T_TMP/flavour/tests/t_two"

run "a binary without a summary fails the run" 1 env KPE_BIN= \
    sh tests/run.sh "$T_TMP/flavour/tests/t_silent" "$T_TMP/flavour/tests/t_two"
contains "it is named, with why" out \
    "FAIL flavour/t_silent (exit 0, no cmocka summary line)"
contains "the other is counted" out "ok   flavour/t_two (2 tests)"
contains "the closing line counts it as one failure" out "2 passed, 1 failed"

run "a binary with a summary passes" 0 env KPE_BIN= \
    sh tests/run.sh "$T_TMP/flavour/tests/t_two"
contains "closing line" out "2 passed, 0 failed"
finish
