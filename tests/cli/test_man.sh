#!/bin/sh
# test_man.sh: the man page kube-policy-extender(1) documents every flag
# (issue 27, point 1). It is rendered from the option tables
# (`--help-man`, server/cli/cli_man.c); this test fails when an option a
# command accepts is missing from its --help or from its section of the
# page, and, grepping the parsers, when an option is parsed outside the
# tables. `make install` installs the page.
. "$(dirname "$0")/lib.sh"

run "--help-man" 0 "$KPE_BIN" --help-man
cp "$T_TMP/out" "$T_TMP/kpe.1"
run "groff reads the page without a warning" 0 groff -man -ww -z "$T_TMP/kpe.1"
if [ -s "$T_TMP/err" ]; then
    not_ok "groff is silent" "$(head -c 300 "$T_TMP/err")"
else
    ok "groff is silent"
fi
# The page as a reader sees it, one line per line, wide enough that no
# option name is hyphenated.
MANWIDTH=200 man -l "$T_TMP/kpe.1" 2>/dev/null | col -b >"$T_TMP/man.txt"
if grep -q "kube-policy-extender" "$T_TMP/man.txt"; then
    ok "man renders the page"
else
    not_ok "man renders the page"
fi

# section CMD: the rendered lines of CMD's section (from "   CMD" to the
# next section), into $T_TMP/sec.
section() {
    awk -v c="   $1" '$0 == c { on = 1; next }
        on && /^   [a-z]+$/ { exit }
        on && /^[A-Z]/ { exit }
        on { print }' "$T_TMP/man.txt" >"$T_TMP/sec"
}

# Every option a command's --help lists is in its section of the page.
for cmd in serve schedule check convert explain simulate diff list; do
    "$KPE_BIN" $cmd --help >"$T_TMP/help" 2>&1
    grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$T_TMP/help" |
        sed -E 's/.*(--[a-z0-9-]+)$/\1/' | sort -u >"$T_TMP/opts"
    n=$(wc -l <"$T_TMP/opts")
    if [ "$n" -ge 2 ]; then ok "$cmd --help lists its options ($n)"
    else not_ok "$cmd --help lists its options" "found $n"; fi
    section "$cmd"
    missing=""
    while read -r o; do
        [ "$o" = "--help" ] && continue
        grep -qE -- "(^| )$o([ =[,]|$)" "$T_TMP/sec" || missing="$missing $o"
    done <"$T_TMP/opts"
    if [ -z "$missing" ]; then ok "the page documents every option of $cmd"
    else not_ok "the page documents every option of $cmd" "missing:$missing"; fi
done

# Options the parsers compare by name: each must be an option a --help
# lists and the page documents. Catches a flag parsed outside the tables.
grep -ohE 'strn?cmp\([a-z_]+(\[[0-9]\])?, "--?[a-zA-Z][a-z0-9-]*=?"' \
    server/cli/*.c server/common/*.c whatif/inputs.c |
    sed -E 's/.*"(.*)"$/\1/; s/=$//' | sort -u >"$T_TMP/parsed"
n=$(wc -l <"$T_TMP/parsed")
if [ "$n" -ge 20 ]; then ok "the parsers name their options ($n)"
else not_ok "the parsers name their options" "found $n"; fi
missing=""
while read -r o; do
    grep -qE -- "(^| )$o([ =[,]|$)" "$T_TMP/man.txt" || missing="$missing $o"
done <"$T_TMP/parsed"
if [ -z "$missing" ]; then ok "every option the parsers compare is in the page"
else not_ok "every option the parsers compare is in the page" "missing:$missing"; fi

# Required options say so, and show no default.
section explain
if grep -q -- "--policy FILE" "$T_TMP/sec" &&
    grep -A1 -- "--policy FILE" "$T_TMP/sec" | grep -q "(required)"; then
    ok "explain --policy is marked required in the page"
else
    not_ok "explain --policy is marked required in the page"
fi
section serve
if grep -A2 -- "--policy FILE" "$T_TMP/sec" | grep -q "default: none"; then
    not_ok "serve --policy shows no default"
else
    ok "serve --policy shows no default"
fi

# make install puts the page in share/man/man1.
run "make install DESTDIR" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make -s install DESTDIR="$T_TMP/root" PREFIX=/usr BIN="$KPE_BIN"
if cmp -s "$T_TMP/root/usr/share/man/man1/kube-policy-extender.1" "$T_TMP/kpe.1"; then
    ok "make install installs kube-policy-extender.1"
else
    not_ok "make install installs kube-policy-extender.1"
fi

finish
