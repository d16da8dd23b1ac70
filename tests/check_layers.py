#!/usr/bin/env python3
"""check_layers.py: every #include in the sources points down the layers.

Reads each `#include "..."` of every .c/.h under the source folders (not
tests/ or bench/) and fails, listing file:line, when the included file's
folder is not allowed for the including file's folder by LAYERS below:

  - a folder may include itself and any folder of a strictly lower tier;
  - siblings (one tier) may not include each other ("sideways");
  - a higher tier is never included ("points up");
  - a folder with an ONLY list may include only itself and those folders;
  - every source sits in a folder of the table, every include names an
    existing file.

docs/ARCHITECTURE.md describes the same table; the check fails when its
folder picture misses a folder or its layer order differs.

    python3 tests/check_layers.py           # check, exit 1 on violations
    python3 tests/check_layers.py --table   # print the layer table
    python3 tests/check_layers.py --root DIR  # check another tree
"""

import os
import re
import sys

# Lowest first. Each tier is a list of sibling folders; a folder may
# include its own folder and those of lower tiers only.
LAYERS = [
    ["kube/base", "include/kube-policy-extender"],  # arena, err, ...; the
                          # installed plugin ABI header (includes nothing)
    ["kube/model"],       # types.h, labels, selectors, resources, quantity
    ["kube/parse"],       # Kubernetes JSON/YAML into the model
    ["kube/cluster"],     # the snapshot plugins read, from files too
    ["kube/client"],      # API client, kubeconfig, informers, live cache
    ["framework"],        # the plugin vocabulary: descriptors, arguments
    ["predicates", "priorities"],  # one file per plugin
    ["policy"],           # Policy documents: read, resolve, write
    ["engine"],           # one pod: filter, score, select; published state
    ["whatif"],           # read-only questions: inputs, placement, diff
    ["server/common"],    # log, metrics, version, options, file watch
    ["server/http"],      # the HTTP server framework
    ["server/source"],    # where an app's cluster comes from
    ["server/extender", "server/scheduler"],  # the two long-running apps
    ["server/cli"],       # main() and the subcommands
]

# Folders that may include only these (besides themselves), whatever
# lies below them: the HTTP framework and its utilities know no
# Kubernetes and no policy.
ONLY = {
    "server/common": ["kube/base"],
    "server/http": ["kube/base", "server/common"],
}

SOURCE_ROOTS = ("include", "kube", "framework", "predicates", "priorities", "policy",
                "engine", "whatif", "server")

DOC = "docs/ARCHITECTURE.md"

INCLUDE_RX = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def tiers():
    return {f: i for i, tier in enumerate(LAYERS) for f in tier}


def sources(root):
    out = []
    for top in SOURCE_ROOTS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def verdict(src, dst, rank):
    """None when src folder may include dst folder, else the reason."""
    if src == dst:
        return None
    if dst not in rank:
        return "not a layer folder"
    if rank[dst] > rank[src]:
        return "points up"
    if rank[dst] == rank[src]:
        return "sideways"
    if src in ONLY and dst not in ONLY[src]:
        return "not allowed (%s may include only %s)" % (
            src, ", ".join(ONLY[src]))
    return None


def check(root):
    rank = tiers()
    problems, n_inc = [], 0
    files = sources(root)
    for path in files:
        folder = os.path.dirname(path)
        if folder not in rank:
            problems.append("%s: in %s/, which is not in the layer table" %
                            (path, folder))
            continue
        with open(os.path.join(root, path), encoding="utf-8",
                  errors="replace") as f:
            for ln, line in enumerate(f, 1):
                m = INCLUDE_RX.match(line)
                if not m:
                    continue
                n_inc += 1
                inc = m.group(1)
                if not os.path.isfile(os.path.join(root, inc)):
                    problems.append("%s:%d: includes \"%s\": no such file "
                                    "(includes are repository paths)" %
                                    (path, ln, inc))
                    continue
                dst = os.path.dirname(inc)
                why = verdict(folder, dst, rank)
                if why:
                    problems.append("%s:%d: %s -> %s: %s (\"%s\")" %
                                    (path, ln, folder, dst, why, inc))
    return files, n_inc, problems


def check_doc(root):
    """docs/ARCHITECTURE.md shows the same folders and layer order."""
    path = os.path.join(root, DOC)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return ["%s: missing (it describes this table)" % DOC]
    blocks = re.findall(r"^```\n(.*?)^```", text, re.M | re.S)
    if len(blocks) < 2:
        return ["%s: want the folder picture and the layer order, two "
                "``` blocks" % DOC]
    problems = []
    pictured = {l.split()[0].rstrip("/") for l in blocks[0].splitlines()
                if l.strip()}
    for f in sorted({f for tier in LAYERS for f in tier} - pictured):
        problems.append("%s: no line for %s/ in the folder picture" %
                        (DOC, f))
    want = []
    for tier in LAYERS:
        only = [ONLY[f] for f in tier if f in ONLY]
        want.append((tier, only[0] if only else None))
    got = []
    for l in blocks[1].splitlines():
        m = re.match(r"\s*\d+\s+([^(]+?)\s*(?:\((.*)\))?\s*$", l)
        if not m:
            continue
        tier = [f.strip() for f in m.group(1).split("|")]
        only = None
        if m.group(2) and m.group(2).startswith("only "):
            only = [f.strip() for f in m.group(2)[5:].split(",")]
        got.append((tier, only))
    if got != want:
        problems.append("%s: the layer order differs from LAYERS in "
                        "tests/check_layers.py (--table prints it)" % DOC)
    return problems


def print_table():
    for i, tier in enumerate(LAYERS):
        extra = ""
        for f in tier:
            if f in ONLY:
                extra = "   (only %s)" % ", ".join(ONLY[f])
        print("%2d  %s%s" % (i, " | ".join(tier), extra))


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--table" in argv[1:]:
        print_table()
        return 0
    if "--root" in argv[1:]:
        root = argv[argv.index("--root") + 1]
    files, n_inc, problems = check(root)
    problems += check_doc(root)
    for p in problems:
        print(p)
    if problems:
        print("layers: %d violation(s) in %d files (table: "
              "tests/check_layers.py, docs/ARCHITECTURE.md)" %
              (len(problems), len(files)))
        return 1
    print("layers: ok (%d files, %d includes, %d tiers)" %
          (len(files), n_inc, len(LAYERS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
