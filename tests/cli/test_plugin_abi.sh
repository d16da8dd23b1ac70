#!/bin/sh
# test_plugin_abi.sh: the plugin ABI grows without breaking what is built
# (issue 26; PostgreSQL's PG_MODULE_MAGIC, the Redis module API).
# tests/data/plugins/abi-1.0/ holds plugin.h as it was at ABI 1.0, frozen
# before an accessor was appended; the two example plugins built against
# it load into this server (a newer minor) and decide exactly as the same
# sources built against the current header.
. "$(dirname "$0")/lib.sh"
D=deploy/demo
POL=tests/data/plugins/policy.json
OLD=tests/data/plugins/abi-1.0
CC=${CC_PLUGIN:-cc}

ver() { # HEADER MAJOR|MINOR
    sed -n "s/^#define KPE_PLUGIN_API_$2 \\([0-9]*\\)\$/\\1/p" "$1"
}
old_major=$(ver "$OLD/kube-policy-extender/plugin.h" MAJOR)
old_minor=$(ver "$OLD/kube-policy-extender/plugin.h" MINOR)
new_major=$(ver include/kube-policy-extender/plugin.h MAJOR)
new_minor=$(ver include/kube-policy-extender/plugin.h MINOR)
if [ "$old_major.$old_minor" = "1.0" ] && [ "$new_major" = 1 ] &&
    [ "$new_minor" -gt 0 ]; then
    ok "the frozen header is 1.0, the server's $new_major.$new_minor is newer"
else
    not_ok "frozen 1.0 below the server" "frozen $old_major.$old_minor, server $new_major.$new_minor"
fi

mkdir -m 0755 "$T_TMP/old" "$T_TMP/new"
for f in rdma_filter rdma_score; do
    run "build $f against the frozen 1.0 header" 0 $CC -shared -fPIC -O2 \
        -Wall -Wextra -Werror -I"$OLD" -o "$T_TMP/old/$f.so" \
        examples/plugins/$f.c
    run "build $f against the current header" 0 $CC -shared -fPIC -O2 \
        -Wall -Wextra -Werror -Iinclude -o "$T_TMP/new/$f.so" \
        examples/plugins/$f.c
done
# The frozen header really predates the accessors of 1.1.
printf '#include <kube-policy-extender/plugin.h>\nint f(const struct kpe_plugin_host *h);\nint f(const struct kpe_plugin_host *h) { return h->pod_priority != 0; }\n' >"$T_TMP/uses11.c"
run "1.0 has no pod_priority (added in 1.1)" 1 $CC -fsyntax-only -I"$OLD" "$T_TMP/uses11.c"
run "1.1 has it" 0 $CC -fsyntax-only -Iinclude "$T_TMP/uses11.c"

OP="--plugin $T_TMP/old/rdma_filter.so --plugin $T_TMP/old/rdma_score.so"
NP="--plugin $T_TMP/new/rdma_filter.so --plugin $T_TMP/new/rdma_score.so"
run "the server loads plugins built for 1.0" 0 "$KPE_BIN" list $OP
contains "list shows the 1.0 predicate" out "RdmaAware [ours plugin]"
for pod in high-comm web; do
    run "explain a $pod pod with the 1.0 plugins" 0 "$KPE_BIN" explain $OP \
        --policy "$POL" --cluster "$D/cluster.json" --pod "$D/pods/$pod.json"
    cp "$T_TMP/out" "$T_TMP/old.out"
    run "explain a $pod pod with the current plugins" 0 "$KPE_BIN" explain \
        $NP --policy "$POL" --cluster "$D/cluster.json" \
        --pod "$D/pods/$pod.json"
    if cmp -s "$T_TMP/out" "$T_TMP/old.out"; then
        ok "$pod: the 1.0 build decides as the current one"
    else
        not_ok "$pod: the 1.0 build decides as the current one" \
            "$(diff "$T_TMP/old.out" "$T_TMP/out" | head -c 400)"
    fi
done
contains "the plugin filter ran" out "Selected: general-1"
finish
