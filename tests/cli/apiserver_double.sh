# apiserver_double.sh: start the API-server double (tests/apiserver) on
# FILE (or, given "", empty) for a CLI test, with a kubeconfig at
# $T_TMP/kubeconfig. Sets
# $api (its pid) and $api_url; call stop_api before finish.
# shellcheck shell=sh
start_api() {
    python3 tests/apiserver/apiserver.py --verbose --port-file "$T_TMP/api.port" \
        ${1:+--load "$1"} >"$T_TMP/api.log" 2>&1 &
    api=$!
    for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
    api_url="http://127.0.0.1:$(cat "$T_TMP/api.port")"
    cat >"$T_TMP/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "$api_url"}
users:
- name: u
  user: {}
contexts:
- name: c
  context: {cluster: double, user: u, namespace: default}
current-context: c
KC
}

stop_api() {
    kill "$api" 2>/dev/null
    wait "$api" 2>/dev/null
}
