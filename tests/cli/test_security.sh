#!/bin/sh
# test_security.sh: the defaults SECURITY.md promises, checked on the
# process. TLS: 1.2 floor (a TLS 1.1 client is refused by the server),
# ECDHE+AEAD ciphers only, a client certificate required and verified
# with --tls-client-ca-file. Secrets: a bearer token used over TLS against
# the API-server double never shows in the logs (text and JSON, --v=10),
# /metrics, /readyz or bind answers, even when the API server starts
# refusing it; kubeconfig errors never print the token. Limits: 413 over
# --max-body-bytes, 400 over --max-header-bytes, stalled clients cut off
# after --read-timeout. /debug/cache exists only with --debug-endpoints.
# (Container and RBAC hardening: tests/deploy/check_deploy.py, run by
# test_deploy.sh.)
. "$(dirname "$0")/lib.sh"
D=deploy/demo
P="$D/policy.json"
C="$T_TMP/certs"
mkdir -p "$C"

EC="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# shellcheck disable=SC2086
mkca() {
    openssl req -x509 $EC -keyout "$C/$1.key" -out "$C/$1.crt" -subj "/CN=$1" \
        -days 1 -addext basicConstraints=critical,CA:TRUE 2>/dev/null
}
# shellcheck disable=SC2086
mkleaf() { # CA NAME EXT
    printf '%s\n' "$3" >"$C/$2.ext"
    openssl req $EC -keyout "$C/$2.key" -out "$C/$2.csr" -subj "/CN=$2" 2>/dev/null &&
        openssl x509 -req -in "$C/$2.csr" -CA "$C/$1.crt" -CAkey "$C/$1.key" \
            -CAcreateserial -days 1 -extfile "$C/$2.ext" -out "$C/$2.crt" 2>/dev/null
}
if mkca ca && mkca other &&
    mkleaf ca server "$(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth')" &&
    mkleaf ca client "extendedKeyUsage=clientAuth" &&
    mkleaf other stranger "extendedKeyUsage=clientAuth"; then
    ok "test CA and certificates made with openssl"
else
    not_ok "test CA and certificates made with openssl"
    finish
fi

# serve_bg LOG ARGS...: start serve in the background; sets srv and port.
serve_bg() {
    log=$1
    shift
    "$KPE_BIN" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
    srv=$!
    port=""
    for _ in $(seq 1 200); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -n 1)
        [ -n "$port" ] && break
        sleep 0.05
    done
}

# ---- TLS ------------------------------------------------------------------
serve_bg "$T_TMP/tls.log" --policy "$P" --cluster "$D/cluster.json" \
    --tls-cert-file "$C/server.crt" --tls-key-file "$C/server.key" \
    --tls-client-ca-file "$C/ca.crt"
H="https://127.0.0.1:$port"
CL="--cacert $C/ca.crt --cert $C/client.crt --key $C/client.key"
# shellcheck disable=SC2086
run "TLS 1.2 client with a certificate from the client CA" 0 \
    curl -sf $CL --tlsv1.2 --tls-max 1.2 "$H/healthz"
# shellcheck disable=SC2086
run "TLS 1.3 client with a certificate from the client CA" 0 \
    curl -sf $CL --tlsv1.3 "$H/healthz"
# refused NAME CURL-ARGS...: the handshake fails (curl 35, or 55/56 when
# TLS 1.3 delivers the server's alert after the handshake).
refused() {
    n=$1
    shift
    curl -sf "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    case $rc in
    35 | 55 | 56) ok "$n (curl exit $rc)" ;;
    *) not_ok "$n" "curl exit $rc: $(head -c 200 "$T_TMP/out")" ;;
    esac
}
refused "client without a certificate is refused" --cacert "$C/ca.crt" "$H/healthz"
refused "client with a certificate from another CA is refused" \
    --cacert "$C/ca.crt" --cert "$C/stranger.crt" --key "$C/stranger.key" \
    "$H/healthz"
run "plain HTTP to the TLS port gets 400, as Go answers" 0 \
    curl -s -o "$T_TMP/plain" -w "%{http_code}" "http://127.0.0.1:$port/healthz"
contains "the status is 400" out "400"
if grep -qx "Client sent an HTTP request to an HTTPS server." "$T_TMP/plain"; then
    ok "the answer says why"
else
    not_ok "the answer says why" "$(cat "$T_TMP/plain")"
fi

# s_client NAME WANT(ok|refused) OPENSSL-ARGS...: one handshake. "refused" needs the server's alert, so a client that
# could not even offer the protocol does not pass for a refusal.
s_client() {
    n=$1
    want=$2
    shift 2
    echo | openssl s_client -connect "127.0.0.1:$port" -CAfile "$C/ca.crt" \
        "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    # A completed handshake shows the verified chain and a real cipher; the
    # exit status is not used here, because the server may close first
    # (it answers the stray newline as a bad request), which s_client
    # reports as an unexpected EOF.
    if [ "$want" = ok ] && grep -q "Verify return code: 0" "$T_TMP/out" &&
        grep -q "Cipher is [A-Z]" "$T_TMP/out" &&
        ! grep -q "Cipher is (NONE)" "$T_TMP/out"; then
        ok "$n"
    elif [ "$want" = refused ] && [ "$rc" -ne 0 ] &&
        grep -E -q "alert (protocol version|handshake failure)|no shared cipher|sslv3 alert" "$T_TMP/err"; then
        ok "$n"
    else
        not_ok "$n" "exit $rc: $(grep -v '^depth\|^verify' "$T_TMP/err" | head -c 300)"
    fi
}
CC="-cert $C/client.crt -key $C/client.key"
# shellcheck disable=SC2086
s_client "TLS 1.2 handshake (ECDHE-ECDSA-AES128-GCM-SHA256)" ok $CC -tls1_2 \
    -cipher ECDHE-ECDSA-AES128-GCM-SHA256
# shellcheck disable=SC2086
s_client "TLS 1.1 client is refused by the server (1.2 floor)" refused $CC \
    -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0'
# shellcheck disable=SC2086
s_client "TLS 1.0 client is refused by the server" refused $CC \
    -tls1 -cipher 'DEFAULT:@SECLEVEL=0'
# shellcheck disable=SC2086
s_client "CBC-SHA1 cipher suite is refused" refused $CC -tls1_2 \
    -cipher 'ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0'
# shellcheck disable=SC2086
s_client "CBC-SHA256 cipher suite is refused" refused $CC -tls1_2 \
    -cipher 'ECDHE-ECDSA-AES128-SHA256'
s_client "TLS 1.2 without a client certificate is refused" refused -tls1_2
kill "$srv"
wait "$srv"

# ---- the bearer token stays secret -----------------------------------------
TOKEN="kpe-soak-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
ROTATED="kpe-rotated-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api.port" \
    --load "$D/cluster.json" --token "$TOKEN" --tls-cert "$C/server.crt" \
    --tls-key "$C/server.key" >"$T_TMP/api.log" 2>&1 &
api=$!
for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
api_url="https://127.0.0.1:$(cat "$T_TMP/api.port")"
cat >"$T_TMP/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "$api_url", certificate-authority: "$C/ca.crt"}
users:
- name: u
  user: {token: "$TOKEN"}
contexts:
- name: c
  context: {cluster: double, user: u}
current-context: c
KC

# leak_check NAME FILE...: neither token appears in any of the files.
leak_check() {
    n=$1
    shift
    if grep -l -F -e "$TOKEN" -e "$ROTATED" "$@" >"$T_TMP/leaks" 2>/dev/null; then
        not_ok "$n" "token found in $(cat "$T_TMP/leaks")"
    else
        ok "$n"
    fi
}

for fmt in text json; do
    rm -f "$T_TMP/api.port.unused"
    serve_bg "$T_TMP/tok-$fmt.log" --policy "$P" --kubeconfig "$T_TMP/kubeconfig" \
        --v=10 --log-format "$fmt" --debug-endpoints \
        --tls-cert-file "$C/server.crt" --tls-key-file "$C/server.key"
    H="https://127.0.0.1:$port"
    ready=""
    for _ in $(seq 1 100); do
        curl -sf --cacert "$C/ca.crt" "$H/readyz" >/dev/null && { ready=1; break; }
        sleep 0.1
    done
    if [ -n "$ready" ]; then ok "$fmt logs: synced over TLS with the bearer token"; else
        not_ok "$fmt logs: synced over TLS with the bearer token" "$(tail -n 3 "$T_TMP/tok-$fmt.log")"; fi
    python3 -c 'import json; print(json.dumps({"Pod": json.load(open("deploy/demo/pods/web.json")),
      "Nodes": None, "NodeNames": ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}))' >"$T_TMP/req.json"
    for v in filter prioritize; do
        curl -s --cacert "$C/ca.crt" -X POST "$H/$v" -d @"$T_TMP/req.json" >"$T_TMP/$fmt-$v.out"
    done
    curl -s --cacert "$C/ca.crt" -X POST "$H/bind" \
        -d '{"PodName":"web","PodNamespace":"default","PodUID":"","Node":"rdma-1"}' >"$T_TMP/$fmt-bind1.out"
    # The API server now refuses the token: every call fails with 401.
    curl -s --cacert "$C/ca.crt" -H "Authorization: Bearer $TOKEN" -X POST "$api_url/_fault" \
        -d "{\"action\":\"token\",\"token\":\"$ROTATED\"}" >/dev/null
    curl -s --cacert "$C/ca.crt" -X POST "$api_url/_fault" \
        -d '{"action":"drop-watches","mode":"close"}' >/dev/null
    curl -s --cacert "$C/ca.crt" -X POST "$H/bind" \
        -d '{"PodName":"web","PodNamespace":"default","PodUID":"","Node":"rdma-2"}' >"$T_TMP/$fmt-bind2.out"
    seen=""
    for _ in $(seq 1 50); do
        grep -q "401" "$T_TMP/tok-$fmt.log" && { seen=1; break; }
        sleep 0.1
    done
    if [ -n "$seen" ] && grep -q "401" "$T_TMP/$fmt-bind2.out"; then
        ok "$fmt logs: the refused token is reported (HTTP 401)"
    else
        not_ok "$fmt logs: the refused token is reported (HTTP 401)" "$(cat "$T_TMP/$fmt-bind2.out")"
    fi
    for r in metrics readyz policy debug/cache version; do
        curl -s --cacert "$C/ca.crt" "$H/$r" >"$T_TMP/$fmt-$(echo "$r" | tr / -).out"
    done
    kill "$srv"
    wait "$srv"
    # Put the original token back for the next round.
    curl -s --cacert "$C/ca.crt" -X POST "$api_url/_fault" \
        -d "{\"action\":\"token\",\"token\":\"$TOKEN\"}" >/dev/null
    leak_check "$fmt logs at --v=10: no token" "$T_TMP/tok-$fmt.log"
    leak_check "$fmt: no token in /metrics, /readyz, /policy, /debug/cache or answers" \
        "$T_TMP/$fmt"-*.out
done
kill "$api"
wait "$api" 2>/dev/null

# kubeconfig errors name the problem, never the token.
kc_case() { # NAME WANT-TEXT, kubeconfig on stdin
    cat >"$T_TMP/bad-kc"
    "$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$P" --kubeconfig "$T_TMP/bad-kc" \
        >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -F -q -- "$2" "$T_TMP/err"; then
        not_ok "kubeconfig error: $1" "exit $rc, want 1 and \"$2\": $(head -c 300 "$T_TMP/err")"
    elif grep -F -q -e "$TOKEN" "$T_TMP/err" "$T_TMP/out"; then
        not_ok "kubeconfig error: $1" "the token is printed: $(head -c 300 "$T_TMP/err")"
    else
        ok "kubeconfig error: $1 (no token in the message)"
    fi
}
HEAD='apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c'
printf '%s\nusers:\n- name: u\n  user:\n    token: %s\n    exec: {command: x}\n' "$HEAD" "$TOKEN" |
    kc_case "unsupported exec" "exec is not supported"
printf '%s\nusers:\n- name: u\n  user:\n    token: %s\n    password: %s\n' "$HEAD" "$TOKEN" "$TOKEN" |
    kc_case "unsupported password" "password is not supported"
printf '%s\nusers:\n- name: u\n  user:\n    token: "%s\n' "$HEAD" "$TOKEN" |
    kc_case "unterminated quote after the token" "invalid YAML"
printf '%s\nusers:\n- name: u\n  user:\n    token: %s: x: y\n' "$HEAD" "$TOKEN" |
    kc_case "YAML error on the token line" "invalid YAML"
printf '%s\nusers:\n- name: u\n  user:\n    token: %s\n    client-certificate-data: %s!\n    client-key-data: %s\n' \
    "$HEAD" "$TOKEN" "$TOKEN" "$TOKEN" | kc_case "token pasted as certificate data" "invalid base64"
printf '%s\nusers:\n- name: u\n  user:\n    token: %s\n' \
    "$(echo "$HEAD" | sed 's/^current-context: c$/current-context: nope/')" "$TOKEN" |
    kc_case "unknown context" 'context "nope" not found'
printf '%s\nusers:\n- name: other\n  user:\n    token: %s\n' "$HEAD" "$TOKEN" |
    kc_case "unknown user" 'user "u" not found'

# ---- limits ---------------------------------------------------------------
serve_bg "$T_TMP/lim.log" --policy "$P" --cluster "$D/cluster.json" \
    --max-body-bytes 4Ki --max-header-bytes 2Ki --read-timeout 1
H="http://127.0.0.1:$port"
head -c 5000 /dev/zero | tr '\0' ' ' >"$T_TMP/big"
run "body over --max-body-bytes" 0 curl -s -o /dev/null -w '%{http_code}' \
    -X POST --data-binary @"$T_TMP/big" "$H/filter"
contains "is answered 413" out "413"
run "headers over --max-header-bytes" 0 curl -s -o /dev/null -w '%{http_code}' \
    -H "X-Filler: $(head -c 3000 /dev/zero | tr '\0' a)" "$H/healthz"
contains "are answered 400" out "400"
run "a request line over --max-header-bytes" 0 curl -s -o /dev/null -w '%{http_code}' \
    "$H/healthz?$(head -c 3000 /dev/zero | tr '\0' a)"
contains "is answered 400" out "400"
run "an invalid Content-Length" 0 python3 - "$port" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}")
print(s.recv(200).split(b"\r\n")[0].decode())
PY
contains "is answered 400" out "400"
python3 - "$port" >"$T_TMP/out" <<'PY'
import socket, sys, time
for name, data in (("partial headers", b"POST /filter HTTP/1.1\r\nHost: x\r\n"),
                   ("partial body", b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    t = time.time()
    s.sendall(data)
    try:
        got = s.recv(100)
    except OSError:
        got = b""
    print("%s: closed after %.1f s, got %r" % (name, time.time() - t, got[:20]))
PY
for what in "partial headers" "partial body"; do
    dt=$(sed -n "s/^$what: closed after \([0-9.]*\) s.*/\1/p" "$T_TMP/out")
    if [ -n "$dt" ] && python3 -c "import sys; sys.exit(not 0.5 <= $dt <= 3.5)"; then
        ok "a stalled client ($what) is cut off after --read-timeout (${dt}s)"
    else
        not_ok "a stalled client ($what) is cut off after --read-timeout" "$(cat "$T_TMP/out")"
    fi
done
kill "$srv"
wait "$srv"

# A client that stops reading its answer is cut off after --read-timeout,
# and then does not hold SIGTERM for the whole --shutdown-grace (a reply
# never fully written used to count as in flight forever).
serve_bg "$T_TMP/slow.log" --policy "$P" --read-timeout 1 --shutdown-grace 30
python3 - "$port" <<'PY'
import json, socket, sys, time
pad = "x" * 1800
nodes = [{"metadata": {"name": "n%05d" % i, "labels": {"pad": pad}},
          "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
         for i in range(3000)]
body = json.dumps({"Pod": {"metadata": {"name": "p", "namespace": "d"},
                           "spec": {"containers": [{"name": "c"}]}},
                   "Nodes": {"items": nodes}, "NodeNames": None}).encode()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
          % len(body) + body)
time.sleep(3)   # the ~5.8 MB echo of the Nodes cannot all be written
s.close()
PY
t0=$(date +%s)
kill -TERM "$srv"
wait "$srv"
rc=$?
dt=$(($(date +%s) - t0))
if [ "$rc" -eq 0 ] && [ "$dt" -le 5 ]; then
    ok "a reader that stalled does not hold the shutdown (exit $rc after ${dt}s)"
else
    not_ok "a reader that stalled does not hold the shutdown" \
        "exit $rc after ${dt}s: $(grep 'in flight' "$T_TMP/slow.log")"
fi

serve_bg "$T_TMP/lim2.log" --policy "$P" --cluster "$D/cluster.json"
H="http://127.0.0.1:$port"
run "GET /debug/cache without --debug-endpoints" 0 curl -s -o /dev/null \
    -w '%{http_code}' "$H/debug/cache"
contains "is a 404" out "404"
kill "$srv"
wait "$srv"
serve_bg "$T_TMP/dbg.log" --policy "$P" --cluster "$D/cluster.json" --debug-endpoints
run "GET /debug/cache with --debug-endpoints" 0 curl -sf "http://127.0.0.1:$port/debug/cache"
contains "lists nodes with their pods" out '"name":"rdma-1","pods":["default/web-5f7d8c9b6-2xk4p","default/mpi-worker-0"]'
kill "$srv"
wait "$srv"
run "--debug-endpoints=false is accepted" 0 "$KPE_BIN" serve --debug-endpoints=false --help
run "--debug-endpoints=maybe is refused" 2 "$KPE_BIN" serve --debug-endpoints=maybe
contains "naming the flag" err '--debug-endpoints: invalid value "maybe": want true or false'
finish
