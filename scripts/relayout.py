#!/usr/bin/env python3
"""relayout.py: move the sources into the folders-by-subsystem layout (issue 16).

Run once, from anywhere in the repository, on a clean tree:

    python3 scripts/relayout.py            # move and rewrite
    python3 scripts/relayout.py --dry-run  # print the plan, change nothing

What it does, in order:
  1. Every tracked .c/.h under kube/, server/, policy/, predicates/,
     priorities/, framework/ and engine/ gets a destination: the RENAMES
     table first (exact old path -> new path), else the first RULES row
     whose pattern matches the old path (-> that folder, same file name).
     A file that matches nothing, two files that would land on one path,
     or an untracked .c/.h in those folders stop the script (exit 2,
     listing them) before anything changes.
  2. `git mv` for each file whose destination differs.
  3. Include guards of moved headers follow the path (KUBE_ARENA_H ->
     KUBE_BASE_ARENA_H) when the guard was the old path's.
  4. Every reference to a path that no longer exists is rewritten when the
     same table maps it to a file that does: `#include "kube/arena.h"`,
     `kube/json_arena.[ch]` in a README, paths in scripts and docs. All
     tracked text files are read (.c/.h in tests/, bench/, tests/support/
     included). Renamed files' bare names (json_arena.c) follow too.
     Rewritten .c/.h files go through clang-format (a longer path in a
     comment reflows its paragraph).
  5. deploy/docker/Dockerfile copies every top-level source folder.

Idempotent: on a tree already in the new layout every file maps to where
it is, nothing moves, and step 4 only fixes stale references (a branch
merged after the move that still includes "kube/arena.h").
"""

import argparse
import os
import re
import subprocess
import sys

# Top-level folders whose .c/.h files are placed by this script.
SOURCE_ROOTS = ("kube", "server", "policy", "predicates", "priorities",
                "framework", "engine")

# Files whose names need reading, renamed on the way (old -> new). Keep it
# small: a rename here is also applied to every include, path and bare
# file name that mentions the old one.
RENAMES = {
    # a JSON parser (and pull reader) into arena-allocated cJSON nodes
    "kube/json_arena.c": "kube/base/json_parse.c",
    "kube/json_arena.h": "kube/base/json_parse.h",
    # implements compact.h, which the term index uses too
    "kube/cache_compact.c": "kube/cluster/compact.c",
    # the filter and score runners over a policy are the engine's loop
    "predicates/eval.c": "engine/pred_eval.c",
    "predicates/eval.h": "engine/pred_eval.h",
    "priorities/eval.c": "engine/prio_eval.c",
    "priorities/eval.h": "engine/prio_eval.h",
    # a table runner for the node-level filter plugins
    "tests/support/p1_fixtures.c": "tests/support/node_filter_fixtures.c",
    "tests/support/p1_fixtures.h": "tests/support/node_filter_fixtures.h",
}

# Ordered (pattern, folder) rows: the first pattern that matches the whole
# old path wins. Patterns are regular expressions on the repository path.
# The first rows keep files that are already placed where they are
# (idempotence); a new file in an unknown subfolder matches nothing.
_C = r"\.[ch]"
RULES = [
    # already placed
    (r"(kube/(base|model|parse|cluster|client)|"
     r"server/(common|http|source|extender|scheduler|cli)|"
     r"framework|engine|policy|predicates|priorities)/[^/]+" + _C, None),
    # kube/base: memory, errors, hashing, JSON and YAML reading/writing,
    # buffers
    (r"kube/(arena|err|hash\w*)" + _C, "kube/base"),
    (r"kube/(json|yaml)_\w+" + _C, "kube/base"),
    (r"kube/doc_format" + _C, "kube/base"),
    (r"kube/\w*buf\w*" + _C, "kube/base"),
    # kube/model: the object model and what is computed from one object
    (r"kube/(types|labels|selector|node_selector|toleration|taints?|"
     r"validation|resources|quantity)" + _C, "kube/model"),
    # kube/parse: Kubernetes JSON/YAML into the model
    (r"kube/parse\w*" + _C, "kube/parse"),
    # kube/cluster: the snapshot the plugins read
    (r"kube/(cluster|snapshot|node_tree|term_index|compact|topology)\w*" + _C,
     "kube/cluster"),
    # kube/client: the API server side: client, kubeconfig, informers and
    # the live cache they feed
    (r"kube/(client|kubeconfig|informer|cache|watch|lease)\w*" + _C,
     "kube/client"),
    # server/http: the HTTP server framework
    (r"server/(http\w*" + _C + r"|server\.h)", "server/http"),
    # server/common: process utilities the HTTP server and the apps share
    (r"server/(log|metrics|version|options|file_watch)\w*" + _C,
     "server/common"),
    # server/source: where a long-running app's cluster comes from
    (r"server/cluster_source\w*" + _C, "server/source"),
    # engine/: one pod through filter then score, selection, fit errors,
    # the published policy + cluster state, feature gates
    (r"server/(evaluate|engine_|state|feature_gates)\w*" + _C, "engine"),
    # server/cli: the binary's subcommands
    (r"server/(main\.c|cli\.h|serve\.c|cmd_\w+" + _C + ")", "server/cli"),
    # server/extender: the extender protocol and the app serving it
    (r"server/(extender|serve_|ext_)\w*" + _C, "server/extender"),
    # server/scheduler: the standalone scheduler, its queue, leader election
    (r"server/(sched_|scheduler|leader)\w*" + _C, "server/scheduler"),
]
_RULES = [(re.compile(p + r"\Z"), d) for p, d in RULES]

# Reference rewriting skips these (they spell old paths on purpose).
SELF = ("scripts/relayout.py",)
SKIP_PREFIXES = ("tests/fuzz/corpus/",)

DOCKERFILE = "deploy/docker/Dockerfile"


def die(msg, items=()):
    sys.stderr.write("relayout: %s\n" % msg)
    for it in items:
        sys.stderr.write("  %s\n" % it)
    sys.exit(2)


def git(*args, check=True):
    r = subprocess.run(("git",) + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        die("git %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def destination(path):
    """Where path belongs: a path, or None when no rule matches."""
    if path in RENAMES:
        return RENAMES[path]
    for rx, folder in _RULES:
        if rx.match(path):
            if folder is None:
                return path
            return folder + "/" + os.path.basename(path)
    return None


def in_roots(path):
    return path.split("/", 1)[0] in SOURCE_ROOTS


def is_source(path):
    return path.endswith((".c", ".h"))


def plan(tracked):
    """[(old, new)] for every source file; dies on unplaceable files."""
    unmatched, moves, seen = [], [], {}
    candidates = [p for p in tracked if is_source(p) and
                  (in_roots(p) or p in RENAMES)]
    for p in candidates:
        d = destination(p)
        if d is None:
            unmatched.append(p)
            continue
        moves.append((p, d))
        seen.setdefault(d, []).append(p)
    if unmatched:
        die("%d file(s) match no rule; add a row to RULES or RENAMES in "
            "scripts/relayout.py:" % len(unmatched), unmatched)
    clashes = ["%s <- %s" % (d, ", ".join(s)) for d, s in sorted(seen.items())
               if len(s) > 1]
    moving = {o for o, n in moves if o != n}
    taken = [n for o, n in moves if o != n and os.path.exists(n) and
             n not in moving]
    clashes += ["%s exists already" % n for n in taken]
    if clashes:
        die("destinations collide:", clashes)
    return [(o, n) for o, n in moves if o != n]


def guard_of(path):
    return re.sub(r"[^A-Za-z0-9]", "_", path).upper()


def fix_guard(old, new):
    """KUBE_ARENA_H -> KUBE_BASE_ARENA_H in the moved header itself."""
    if not new.endswith(".h"):
        return False
    g_old, g_new = guard_of(old), guard_of(new)
    with open(new, encoding="utf-8") as f:
        text = f.read()
    if not re.search(r"^#ifndef %s\b" % g_old, text, re.M):
        return False
    text = re.sub(r"\b%s\b" % g_old, g_new, text)
    with open(new, "w", encoding="utf-8") as f:
        f.write(text)
    return True


# A repository path to a C file, a header, or both (x.[ch], x.{c,h}),
# not preceded by another path character (so build/opt/server/main.o and
# deploy/policy/policy.json are left alone).
PATH_RX = re.compile(r"(?<![\w./-])((?:[\w-]+/)+[\w-]+)"
                     r"(\.c|\.h|\.\[ch\]|\.\{c,h\})(?![\w])")


def map_reference(stem, ext):
    """The new spelling of stem+ext, or None to leave it."""
    if ext in (".c", ".h"):
        old = stem + ext
        if os.path.exists(old):
            return None
        new = destination(old)
        if new and new != old and os.path.exists(new):
            return new
        return None
    # both files: only when both map to one new stem
    news = []
    for e in (".c", ".h"):
        old = stem + e
        if os.path.exists(old):
            return None
        new = destination(old)
        if not new or new == old or not os.path.exists(new):
            return None
        news.append(new[:-2])
    if news[0] != news[1]:
        return None
    return news[0] + ext


def bare_renames(tracked_after):
    """[(old bare name, new bare name, scope)] for renamed files. scope is
    None (every file) when the old name is unambiguous, else the renamed
    file and its .c/.h companion only (the two eval.c)."""
    names = {os.path.basename(p) for p in tracked_after}
    by_old = {}
    for old, new in RENAMES.items():
        by_old.setdefault(os.path.basename(old), []).append(new)
    out = []
    for base, news in sorted(by_old.items()):
        for new in news:
            nb = os.path.basename(new)
            if nb == base or not os.path.exists(new):
                continue
            scope = None
            if len(news) > 1 or base in names:
                scope = {new[:-2] + ".c", new[:-2] + ".h"}
            out.append((base, nb, scope))
    return out


def rewrite_text(path, text, bare):
    changed = [0]

    def sub_path(m):
        new = map_reference(m.group(1), m.group(2))
        if new is None:
            return m.group(0)
        changed[0] += 1
        return new

    text = PATH_RX.sub(sub_path, text)
    for base, nb, scope in bare:
        if scope is not None and path not in scope:
            continue
        rx = re.compile(r"(?<![\w./-])%s(?![\w])" % re.escape(base))
        text, n = rx.subn(nb, text)
        changed[0] += n
    return text, changed[0]


def is_text(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return False
    return b"\0" not in head


def rewrite_references(dry_run):
    tracked = git("ls-files", "-z").split("\0")
    tracked = [p for p in tracked if p and os.path.isfile(p)]
    bare = bare_renames(tracked)
    files, total = [], 0
    for p in tracked:
        if p in SELF or p.startswith(SKIP_PREFIXES) or not is_text(p):
            continue
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        new, n = rewrite_text(p, text, bare)
        if n and new != text:
            files.append((p, n))
            total += n
            if not dry_run:
                with open(p, "w", encoding="utf-8",
                          errors="surrogateescape") as f:
                    f.write(new)
    return files, total


def reformat(paths):
    """clang-format the rewritten C files: a longer path in a comment
    reflows the paragraph, as `make format` would."""
    if not paths:
        return
    try:
        subprocess.run(["clang-format", "-i"] + paths, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("relayout: clang-format failed (%s); run `make format`" % e)


def fix_dockerfile(dry_run):
    """COPY every top-level source folder that exists into the image."""
    if not os.path.isfile(DOCKERFILE):
        return []
    with open(DOCKERFILE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rx = re.compile(r"COPY (%s)/ \1/\s*\Z" % "|".join(SOURCE_ROOTS))
    have = [i for i, l in enumerate(lines) if rx.match(l)]
    if not have:
        return []
    copied = {rx.match(lines[i]).group(1) for i in have}
    missing = [r for r in SOURCE_ROOTS
               if r not in copied and os.path.isdir(r)]
    if missing and not dry_run:
        at = have[-1] + 1
        lines[at:at] = ["COPY %s/ %s/" % (r, r) for r in missing]
        with open(DOCKERFILE, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    return missing


def stale_references():
    """Paths under the source roots still named but absent (for a human)."""
    out = []
    tracked = [p for p in git("ls-files", "-z").split("\0") if p]
    for p in tracked:
        if p in SELF or p.startswith(SKIP_PREFIXES) or not is_text(p) \
                or not os.path.isfile(p):
            continue
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            for ln, line in enumerate(f, 1):
                for m in PATH_RX.finditer(line):
                    stem, ext = m.group(1), m.group(2)
                    if not in_roots(stem):
                        continue
                    names = [stem + ".c", stem + ".h"] if len(ext) > 2 \
                        else [stem + ext]
                    if not any(os.path.exists(n) for n in names):
                        out.append("%s:%d: %s%s" % (p, ln, stem, ext))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true",
                    help="print the moves and rewrites, change nothing")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run with uncommitted changes in the work tree")
    args = ap.parse_args()

    os.chdir(git("rev-parse", "--show-toplevel").strip())
    if not args.allow_dirty and not args.dry_run and \
            git("status", "--porcelain", "--untracked-files=no").strip():
        die("the work tree has uncommitted changes; commit them first "
            "(or --allow-dirty)")
    untracked = [p for p in git("ls-files", "-z", "--others",
                                "--exclude-standard").split("\0")
                 if p and is_source(p) and in_roots(p)]
    if untracked:
        die("untracked sources would be left behind; add or remove them:",
            untracked)

    tracked = [p for p in git("ls-files", "-z").split("\0") if p]
    moves = plan(tracked)
    for old, new in moves:
        print("  mv  %-40s -> %s" % (old, new))
    if args.dry_run:
        print("relayout: %d file(s) would move (dry run)" % len(moves))
        return 0

    for old, new in moves:
        os.makedirs(os.path.dirname(new), exist_ok=True)
        git("mv", old, new)
    guards = sum(fix_guard(o, n) for o, n in moves)
    files, total = rewrite_references(False)
    for p, n in files:
        print("  ref %-40s %d rewritten" % (p, n))
    reformat([p for p, _ in files if is_source(p)])
    docker = fix_dockerfile(False)
    for r in docker:
        print("  add COPY %s/ to %s" % (r, DOCKERFILE))

    print("relayout: %d file(s) moved, %d include guard(s) renamed, "
          "%d reference(s) rewritten in %d file(s)" %
          (len(moves), guards, total, len(files)))
    stale = stale_references()
    if stale:
        print("relayout: paths still named but absent (history, globs or "
              "removed files; check by hand):")
        for s in stale:
            print("  " + s)
    print("next: git status; git commit -a; make -j2 all test-opt; "
          "python3 tests/check_layers.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
