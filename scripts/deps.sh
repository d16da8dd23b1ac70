#!/bin/sh
# Install the Debian packages the build needs, only those that are missing.
# Runs apt-get directly as root, through sudo otherwise. A no-op when all
# pkg-config modules (and the tools) are already present.
set -eu

# pkg-config module -> Debian package providing it
MODULES="libevent:libevent-dev libevent_pthreads:libevent-dev
libevent_openssl:libevent-dev libcjson:libcjson-dev inih:libinih-dev
libcurl:libcurl4-openssl-dev yaml-0.1:libyaml-dev cmocka:libcmocka-dev
openssl:libssl-dev"
TOOLS="pkg-config:pkg-config cc:gcc make:make curl:curl python3:python3
kubectl:kubectl openssl:openssl clang-format:clang-format clang:clang
valgrind:valgrind chromium:chromium groff:groff-base man:man-db
col:bsdextrautils go:golang-go"
# python3 module -> Debian package (tests/deploy reads YAML)
PYMODULES="yaml:python3-yaml"
# libFuzzer runtime (make fuzz, and the fuzz smoke run by make test)
FUZZER_PKG=libclang-rt-14-dev

missing=""
for tool in $TOOLS; do
    cmd=${tool%%:*}
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
for pm in $PYMODULES; do
    if ! command -v python3 >/dev/null 2>&1 ||
        ! python3 -c "import ${pm%%:*}" 2>/dev/null; then
        missing="$missing ${pm#*:}"
    fi
done
for m in $MODULES; do
    mod=${m%%:*}
    if ! command -v pkg-config >/dev/null 2>&1 ||
        ! pkg-config --exists "$mod" 2>/dev/null; then
        missing="$missing ${m#*:}"
    fi
done
if ! command -v clang >/dev/null 2>&1 ||
    ! [ -f "$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a")" ]; then
    missing="$missing $FUZZER_PKG"
fi

if [ -z "$missing" ]; then
    echo "deps: all build dependencies are installed"
    exit 0
fi

pkgs=$(printf '%s\n' $missing | sort -u | tr '\n' ' ')
echo "deps: installing:$pkgs"
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "deps: need root or sudo to install:$pkgs" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# kubectl (tests/cli/test_apiserver_kubectl.sh): Debian ships it as
# kubernetes-client; a package named kubectl exists only where another
# repository provides it.
case " $pkgs " in
*" kubectl "*)
    if ! apt-cache show kubectl >/dev/null 2>&1; then
        pkgs=$(printf '%s\n' $pkgs | sed 's/^kubectl$/kubernetes-client/' |
            tr '\n' ' ')
    fi
    ;;
esac
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs
