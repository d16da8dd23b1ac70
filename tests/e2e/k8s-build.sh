#!/usr/bin/env bash
# Build kube-apiserver and kube-scheduler v1.20.2 from Debian's source package
# `kubernetes` (the complete tree with vendor/) into a cache outside the clone,
# keyed by version; later runs on the same machine reuse it. Also installs what
# the build and the e2e suites need (golang-go, rsync, etcd-server, kubectl,
# haproxy).
#
#   tests/e2e/k8s-build.sh            prints the cache directory holding bin/
#
# KPE_E2E_CACHE overrides the cache root (default ~/.cache/kube-policy-extender).
set -euo pipefail

K8S_VERSION=1.20.2
DEB_VERSION_PREFIX=1.20.5+really1.20.2
CACHE_ROOT=${KPE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-policy-extender}
DIR=$CACHE_ROOT/k8s-v$K8S_VERSION
BIN=$DIR/bin

log() { echo "k8s-build: $*" >&2; }
die() { echo "k8s-build: error: $*" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; else SUDO=none; fi
apt_install() {
    [ "$SUDO" = none ] && die "need root or sudo to install: $*"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq || die "apt-get update failed"
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2 ||
        die "apt-get install $* failed"
}

# Runtime tools of the suites: etcd (the store), kubectl, and haproxy (the
# load balancer in front of two serve replicas, suite_replicas).
need=()
command -v etcd >/dev/null || need+=(etcd-server)
command -v haproxy >/dev/null || need+=(haproxy)
command -v kubectl >/dev/null || need+=(kubernetes-client)
command -v openssl >/dev/null || need+=(openssl)
command -v python3 >/dev/null || need+=(python3)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-scheduler" ] &&
    [ -f "$DIR/built.ok" ]; then
    echo "$DIR"
    exit 0
fi

need=()
command -v go >/dev/null || need+=(golang-go)
command -v rsync >/dev/null || need+=(rsync)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

mkdir -p "$DIR"
SRC=$DIR/src
if [ ! -f "$SRC/.unpacked" ]; then
    # The source package needs a deb-src entry for bookworm main; add one
    # (next to the system's own list) when none is configured.
    if ! apt-cache showsrc kubernetes 2>/dev/null | grep -q "^Version: $DEB_VERSION_PREFIX"; then
        if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
            ! grep -qs '^deb-src' /etc/apt/sources.list; then
            [ "$SUDO" = none ] && die "no deb-src entry and no root to add one"
            log "adding a deb-src entry for bookworm main"
            printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
                "Suites: bookworm" "Components: main" \
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
                $SUDO tee /etc/apt/sources.list.d/kpe-deb-src.sources >/dev/null
        fi
        $SUDO apt-get update -qq || die "apt-get update failed"
    fi
    dl=$DIR/download
    rm -rf "$dl" "$SRC"
    mkdir -p "$dl"
    log "downloading Debian source package kubernetes=$DEB_VERSION_PREFIX"
    (cd "$dl" && apt-get source --download-only -qq kubernetes) >&2 ||
        die "apt-get source kubernetes failed (is a deb-src entry for bookworm main configured?)"
    dsc=$(ls "$dl"/kubernetes_"$DEB_VERSION_PREFIX"*.dsc 2>/dev/null | head -1)
    [ -n "$dsc" ] || die "no kubernetes_$DEB_VERSION_PREFIX*.dsc downloaded in $dl (got: $(ls "$dl"))"
    # Unpack the upstream tree only; Debian's patches are not needed to build.
    (cd "$dl" && dpkg-source --skip-patches -x "$(basename "$dsc")" "$SRC") >&2 ||
        die "dpkg-source -x failed"
    [ -d "$SRC/vendor" ] || die "unpacked tree $SRC has no vendor/"
    touch "$SRC/.unpacked"
fi

log "building kube-apiserver and kube-scheduler (a few minutes on 2 cores)"
export CGO_ENABLED=0 GOFLAGS=-mod=vendor GOTOOLCHAIN=local
export KUBE_GIT_VERSION=v$K8S_VERSION KUBE_GIT_TREE_STATE=clean
(cd "$SRC" && make WHAT="cmd/kube-apiserver cmd/kube-scheduler") >"$DIR/build.log" 2>&1 || {
    tail -30 "$DIR/build.log" >&2
    die "build failed; full log in $DIR/build.log"
}
mkdir -p "$BIN"
for b in kube-apiserver kube-scheduler; do
    f=$(find "$SRC/_output" -type f -name "$b" -perm -u+x | head -1)
    [ -n "$f" ] || die "$b not found under $SRC/_output after the build"
    cp "$f" "$BIN/$b"
done
"$BIN/kube-scheduler" --version >&2 || die "built kube-scheduler does not run"
touch "$DIR/built.ok"
echo "$DIR"
