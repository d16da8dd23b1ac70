#!/bin/sh
# test_hostile.sh: the cheap half of the hostile-client suite (issue 19):
# tests/hostile/hostile.py --quick starts its own servers on 127.0.0.1,
# runs each attack at a small size for a few seconds, prints the figures
# and cmocka-style summary lines that tests/run.sh counts. `make hostile`
# runs the full sizes.
. "$(dirname "$0")/lib.sh"
python3 tests/hostile/hostile.py --bin "$KPE_BIN" --quick --tmp "$T_TMP" \
    --only fd,memory,pipeline,bigbody
