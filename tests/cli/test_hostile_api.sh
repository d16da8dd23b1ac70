#!/bin/sh
# test_hostile_api.sh: the cheap part of the hostile API-server suite
# (issue 29): tests/hostile/hostile_api.py --quick runs its own API server
# on 127.0.0.1 and `serve` against it with an oversized list page, events
# it cannot read, and kubeconfigs carrying secrets; it prints the figures
# (peak RSS, requests per 10 s, log lines with a secret) and cmocka-style
# summary lines that tests/run.sh counts. `make hostile` runs every case
# at full size against `serve` and `schedule`.
. "$(dirname "$0")/lib.sh"
python3 tests/hostile/hostile_api.py --bin "$KPE_BIN" --quick --tmp "$T_TMP"
