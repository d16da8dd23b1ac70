#!/usr/bin/env python3
"""check_rbac_calls.py: the RBAC rules our binary needs, read out of the C
source, against the roles deploy/ binds to its ServiceAccount.

    tests/deploy/check_rbac_calls.py [ROOT]

What the code calls, found by parsing it (no list kept by hand here):
  - kube/client/informer.c: every API path in its resource table is listed
    (`?limit=`) and watched (`watch=true`); both query forms must be in the
    file, or the check fails naming the one it could not find;
  - every other function under kube/client, server/scheduler and
    server/source that formats an API path (a string literal or a #define
    starting /api/ or /apis/) and passes an HTTP method literal to
    kube_client_request or write_json: POST -> create, PUT -> update,
    PATCH -> patch, DELETE -> delete, GET -> get on a named path (ending
    in /%s) and list otherwise.
The path gives the API group and resource (/apis/GROUP/VERSION/...,
/api/v1/... is the core group; namespaces/%s/ is skipped; a trailing
name/SUB makes RESOURCE/SUB). The shipped side is the union of the rules
of every Role and ClusterRole that a binding in SHIPPED grants to
ServiceAccount kube-policy-extender, and again the Helm chart rendered in
scheduler mode (release kube-policy-extender). Prints one "ok"/"not ok"
line per set and (group, resource, verb), and fails on anything missing or
extra.
"""
import os
import re
import sys

import yaml

SHIPPED = ["deploy/kubernetes/base/rbac.yaml", "deploy/kubernetes/bind/rbac.yaml",
           "deploy/scheduler/standalone/rbac.yaml"]
SA = ("kube-policy-extender", "kube-policy-extender")
CHART = "deploy/helm/kube-policy-extender"
SOURCES = ["kube/client", "server/scheduler", "server/source"]
VERB = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
CALLS = re.compile(r"\b(?:kube_client_request|write_json)\s*\([^;]*?\"(GET|POST|PUT|PATCH|DELETE)\"", re.S)
TERNARY = re.compile(r"\?\s*\"(GET|POST|PUT|PATCH|DELETE)\"\s*:\s*\"(GET|POST|PUT|PATCH|DELETE)\"")


def strip_comments(src):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", src, flags=re.S)


def defines(src):
    return {m.group(1): m.group(2) for m in
            re.finditer(r'(?m)^#define\s+(\w+)\s+"(/apis?/[^"]*)"', src)}


def functions(src):
    """(name, body) of each top-level function definition."""
    out = []
    for m in re.finditer(r"(?m)^(?:static\s+)?[\w\s\*]+?\b(\w+)\s*\([^;{]*\)\s*\{", src):
        depth, i = 1, m.end()
        while depth and i < len(src):
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        out.append((m.group(1), src[m.end():i]))
    return out


def paths_in(body, macros):
    """API path formats a function body builds: literals, and macros
    followed by literal tails (LEASES_PATH "/%s")."""
    out = []
    for m in re.finditer(r'\b([A-Z_]+)\s*"([^"]*)"', body):
        if m.group(1) in macros:
            out.append(macros[m.group(1)] + m.group(2))
    for m in re.finditer(r'(?<![A-Z_\s])\s*"(/apis?/[^"]*)"', body):
        out.append(m.group(1))
    return out


def resource_of(path):
    """(group, resource[/sub], named) of an API path format."""
    # "...leases%s%s": an optional "/" NAME after the collection (leader.c
    # posts to the collection and puts to the name with one format).
    p = re.sub(r"%s%s$", "", path.split("?")[0])
    parts = [x for x in p.split("/") if x]
    if parts[0] == "api":
        group, rest = "", parts[2:]
    else:
        group, rest = parts[1], parts[3:]
    if len(rest) >= 2 and rest[0] == "namespaces" and len(rest) > 2:
        rest = rest[2:]
    res = rest[0]
    named = len(rest) >= 2
    if len(rest) >= 3:
        res = f"{rest[0]}/{rest[2]}"
    return group, res, named


def informer_needs(root, problems):
    f = os.path.join(root, "kube/client/informer.c")
    src = strip_comments(open(f).read())
    table = re.search(r"resources\[\]\s*=\s*\{(.*?)\};", src, re.S)
    if not table:
        problems.append(f"{f}: no resources[] table")
        return set()
    for q in ("?limit=", "watch=true"):
        if q not in src:
            problems.append(f"{f}: no {q!r} query: the informers' verbs changed, update this check")
    out = set()
    for path in re.findall(r'"(/apis?/[^"]*)"', table.group(1)):
        g, r, _ = resource_of(path)
        out |= {(g, r, "list"), (g, r, "watch")}
    return out


def call_needs(root):
    out = {}
    for d in SOURCES:
        for name in sorted(os.listdir(os.path.join(root, d))):
            if not name.endswith(".c") or name == "informer.c":
                continue
            f = os.path.join(d, name)
            src = strip_comments(open(os.path.join(root, f)).read())
            macros = defines(src)
            for fn, body in functions(src):
                paths = paths_in(body, macros)
                methods = [m.group(1) for m in CALLS.finditer(body)]
                tern = TERNARY.search(body)
                if tern:
                    methods += [tern.group(1), tern.group(2)]
                if not paths or not methods:
                    continue
                for path in paths:
                    g, r, named = resource_of(path)
                    for meth in set(methods):
                        v = VERB.get(meth) or ("get" if named else "list")
                        out.setdefault((g, r, v), set()).add(f"{f}:{fn}")
    return out


def granted(docs):
    """(group, resource, verb) -> {"where:role"} of the rules that the
    bindings among docs [(where, object)] grant ServiceAccount SA."""
    roles = {}
    for f, d in docs:
        if d["kind"] in ("Role", "ClusterRole"):
            roles[(d["kind"], d["metadata"]["name"])] = (f, d)
    out = {}
    for f, d in docs:
        if d["kind"] not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        subs = {(s.get("namespace"), s.get("name")) for s in d.get("subjects", [])
                if s.get("kind") == "ServiceAccount"}
        if SA not in subs:
            continue
        key = (d["roleRef"]["kind"], d["roleRef"]["name"])
        rf, role = roles[key]
        for rule in role.get("rules", []):
            for g in rule.get("apiGroups", []):
                for r in rule.get("resources", []):
                    for v in rule.get("verbs", []):
                        out.setdefault((g, r, v), set()).add(f"{rf}:{key[1]}")
    return out


def shipped(root):
    docs = []
    for f in SHIPPED:
        with open(os.path.join(root, f)) as fh:
            docs += [(f, d) for d in yaml.safe_load_all(fh) if d]
    return granted(docs)


def helm_scheduler_mode(root):
    """The Helm chart's roles in scheduler mode (everything our binary
    calls), rendered by tests/deploy/helmlite.py."""
    sys.path.insert(0, os.path.join(root, "tests/deploy"))
    import helmlite
    rendered = helmlite.render_chart(os.path.join(root, CHART), {"mode": "scheduler"})
    docs = []
    for name, text in sorted(rendered.items()):
        docs += [(f"helm:{os.path.basename(name)}", d) for d in yaml.safe_load_all(text) if d]
    return granted(docs)


def compare(label, need, have):
    failed = 0
    for k in sorted(set(need) | set(have)):
        g, r, v = k
        what = f"{label} {g or 'core'}/{r} {v}"
        if k in need and k in have:
            print(f"ok RBAC {what}: called by {', '.join(sorted(need[k]))}; "
                  f"granted by {', '.join(sorted(have[k]))}")
        elif k in need:
            failed += 1
            print(f"not ok RBAC {what}: called by {', '.join(sorted(need[k]))} "
                  f"but no shipped role grants it")
        else:
            failed += 1
            print(f"not ok RBAC {what}: granted by {', '.join(sorted(have[k]))} "
                  f"but nothing in {', '.join(SOURCES)} calls it")
    return failed


def main(argv):
    root = argv[1] if len(argv) > 1 else os.getcwd()
    problems = []
    need = {k: {"kube/client/informer.c:resources"} for k in informer_needs(root, problems)}
    for k, v in call_needs(root).items():
        need.setdefault(k, set()).update(v)
    failed = 0
    for p in problems:
        print(f"not ok RBAC derivation: {p}")
        failed += 1
    failed += compare("deploy/", need, shipped(root))
    failed += compare("Helm (mode=scheduler)", need, helm_scheduler_mode(root))
    if len(need) < 10:
        failed += 1
        print(f"not ok RBAC derivation found only {len(need)} calls: the parser lost them")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
