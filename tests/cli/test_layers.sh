#!/bin/sh
# test_layers.sh: tests/check_layers.py passes on the tree, and fails on
# a copy with one include that points up, one sideways between the plugin
# folders, and one from the HTTP framework into Kubernetes: each named
# with its file, line and reason.
. "$(dirname "$0")/lib.sh"

run "the tree's includes point down" 0 python3 tests/check_layers.py
contains "it says so" out "layers: ok"

W="$T_TMP/tree"
mkdir -p "$W"
copy_tree "$W"
printf '#include "server/cli/cli.h"\n' >>"$W/kube/base/arena.c"
printf '#include "priorities/priorities.h"\n' >>"$W/predicates/node_name.c"
printf '#include "kube/model/labels.h"\n' >>"$W/server/http/http.c"
run "a copy with three bad includes fails" 1 python3 tests/check_layers.py --root "$W"
contains "an include that points up" out "kube/base/arena.c:"
contains "named as pointing up" out "kube/base -> server/cli: points up"
contains "a sideways include" out "predicates -> priorities: sideways"
contains "the HTTP framework knows no Kubernetes" out "server/http -> kube/model: not allowed"
contains "all three counted" out "layers: 3 violation(s)"
finish
