"""suite_manifests.py: what we ship under deploy/, validated by a real
kube-apiserver v1.20 (issue 14, point 6).

`kubectl apply --dry-run=server` sends every object through the real
server's decoding, defaulting, validation and admission without storing
it: an unknown apiVersion, a misspelt field (kubectl validates against the
server's OpenAPI) or a bad value is refused here even when our API-server
double took it. Each kustomization under deploy/ and each rendering of the
Helm chart is its own check; a refusal shows kubectl's message. The
namespaces the objects live in are created for real first (a dry run does
not create a Namespace that later objects could use).
"""
import os
import re
import subprocess
import sys

import yaml

import k8s

CHART = "deploy/helm/kube-policy-extender"

# Add-ons documented as needing a newer Kubernetes than this control plane
# (their kustomization.yaml says so): v1.20 must refuse them, for that
# reason, so the documentation stays true.
NEEDS_NEWER = {"deploy/kubernetes/pdb": (21, "policy/v1")}

# (name, value overrides) of the Helm renderings applied: the defaults
# (extender mode) and scheduler mode.
HELM_RENDERINGS = [
    ("defaults", {}),
    ("mode=scheduler", {"mode": "scheduler"}),
]


def kubectl(s, *args, input=None):
    return subprocess.run(["kubectl", "--kubeconfig", s.cp.kubeconfig, *args],
                          capture_output=True, text=True, input=input, timeout=120)


def one_line(text):
    return " | ".join(x for x in text.strip().splitlines() if x)


def kustomizations(root):
    """Every directory under deploy/ with a kustomization.yaml, sorted."""
    out = []
    for d, _, names in os.walk(os.path.join(root, "deploy")):
        if "kustomization.yaml" in names or "kustomization.yml" in names:
            out.append(os.path.relpath(d, root))
    return sorted(out)


def namespaces_of(docs):
    """The namespaces the objects are in or declare."""
    ns = set()
    for d in docs:
        if not isinstance(d, dict):
            continue
        md = d.get("metadata") or {}
        if d.get("kind") == "Namespace" and md.get("name"):
            ns.add(md["name"])
        if md.get("namespace"):
            ns.add(md["namespace"])
    return ns


def ensure_namespaces(s, names):
    """Create the namespaces for real (idempotent), as an admin would have
    before applying; kube-system and default exist already."""
    have = {n["metadata"]["name"] for n in s.cp.get("/api/v1/namespaces")["items"]}
    for n in sorted(set(names) - have):
        s.cp.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                         "metadata": {"name": n}})


def dry_run(s, what, argv, input=None):
    r = kubectl(s, "apply", "--dry-run=server", *argv, input=input)
    out = r.stdout.strip()
    # Objects kubectl accepted are listed as "... (server dry run)".
    accepted = out.count("(server dry run)")
    err = " | ".join(line for line in r.stderr.splitlines()
                     if not line.startswith("Warning: resource namespaces/"))
    ok = r.returncode == 0 and accepted > 0
    s.check(ok, f"{what}: accepted by kube-apiserver v1.20 ({accepted} objects)"
            + ("" if ok else f": kubectl exit {r.returncode}: {err.strip() or out}"))
    return ok


def scenario_dry_run_refuses_invalid(s):
    """The check below can fail: the real server refuses an object that
    parses as YAML but breaks the API (a Deployment whose selector does not
    match its template) and one with an apiVersion v1.20 does not serve."""
    bad = yaml.safe_dump_all([{
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "kpe-e2e-bad", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "a"}},
                 "template": {"metadata": {"labels": {"app": "b"}},
                              "spec": {"containers": [{"name": "c", "image": "x"}]}}}}])
    r = kubectl(s, "apply", "--dry-run=server", "-f", "-", input=bad)
    s.check(r.returncode != 0 and "selector" in r.stderr,
            f"a Deployment whose selector misses its labels is refused "
            f"(exit {r.returncode}: {one_line(r.stderr)[:200]})")
    bad = yaml.safe_dump({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                          "metadata": {"name": "kpe-e2e-bad", "namespace": "default"},
                          "spec": {"maxUnavailable": 1,
                                   "selector": {"matchLabels": {"app": "a"}}}})
    r = kubectl(s, "apply", "--dry-run=server", "-f", "-", input=bad)
    s.check(r.returncode != 0 and "policy/v1" in r.stderr,
            f"an apiVersion v1.20 does not serve (policy/v1 PodDisruptionBudget) is refused "
            f"(exit {r.returncode}: {one_line(r.stderr)[:200]})")


def scenario_kustomizations(s):
    dirs = kustomizations(s.env.root)
    s.require(len(dirs) >= 1, f"kustomizations found under deploy/: {', '.join(dirs)}")
    for d in dirs:
        path = os.path.join(s.env.root, d)
        r = kubectl(s, "kustomize", path)
        if not s.check(r.returncode == 0, f"{d}: kubectl kustomize builds it"
                       + ("" if r.returncode == 0 else f": {one_line(r.stderr)}")):
            continue
        ensure_namespaces(s, namespaces_of(yaml.safe_load_all(r.stdout)))
        if d in NEEDS_NEWER:
            minor, why = NEEDS_NEWER[d]
            with open(os.path.join(path, "kustomization.yaml")) as f:
                doc = f.read()
            r = kubectl(s, "apply", "--dry-run=server", "-k", path)
            s.check(f"1.{minor}" in doc and r.returncode != 0 and why in r.stderr,
                    f"{d}: documented as Kubernetes 1.{minor}+ and refused by v1.20 for "
                    f"{why} (exit {r.returncode}: {one_line(r.stderr)[:200]})")
            continue
        dry_run(s, f"kubectl apply -k {d} --dry-run=server", ["-k", path])


def served(s, api_version, kind):
    """Whether the server serves kind at api_version (discovery)."""
    path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    try:
        res = s.cp.get(path)["resources"]
    except k8s.ApiError as ex:
        if ex.status == 404:
            return False
        raise
    return any(r.get("kind") == kind for r in res)


def chart_min_minor(root):
    """The lowest Kubernetes 1.x minor Chart.yaml's kubeVersion admits
    (">=1.21.0-0" -> 21), or None without a lower bound."""
    with open(os.path.join(root, CHART, "Chart.yaml")) as f:
        kv = str(yaml.safe_load(f).get("kubeVersion") or "")
    m = re.match(r"\s*>=?\s*v?1\.(\d+)", kv)
    return (int(m.group(1)), kv) if m else (None, kv)


def scenario_helm_chart(s):
    """Helm refuses to install a chart whose kubeVersion excludes the
    cluster's; when Chart.yaml excludes v1.20, objects of an apiVersion
    v1.20 does not serve are left out (and named in the report), and every
    other object must still pass. Without such a kubeVersion nothing is
    left out."""
    sys.path.insert(0, os.path.join(s.env.root, "tests/deploy"))
    import helmlite
    min_minor, kube_version = chart_min_minor(s.env.root)
    for name, over in HELM_RENDERINGS:
        rendered = helmlite.render_chart(os.path.join(s.env.root, CHART), over)
        text = "\n---\n".join(rendered[k] for k in sorted(rendered))
        docs = [d for d in yaml.safe_load_all(text) if d]
        if not s.check(docs, f"Helm chart ({name}) renders objects ({len(docs)})"):
            continue
        if min_minor is not None and min_minor > 20:
            left = [d for d in docs if not served(s, d["apiVersion"], d["kind"])]
            if left:
                s.note(f"Helm chart ({name}): kubeVersion {kube_version!r} excludes "
                       f"v1.20, which does not serve "
                       + ", ".join(f"{d['apiVersion']} {d['kind']} {d['metadata']['name']}"
                                   for d in left) + "; left out of the dry run")
                docs = [d for d in docs if d not in left]
                text = yaml.safe_dump_all(docs)
        ensure_namespaces(s, namespaces_of(docs))
        dry_run(s, f"Helm chart ({name}) | kubectl apply -f - --dry-run=server",
                ["-f", "-"], input=text)


SCENARIOS = [scenario_dry_run_refuses_invalid, scenario_kustomizations,
             scenario_helm_chart]
