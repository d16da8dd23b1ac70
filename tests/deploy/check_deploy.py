#!/usr/bin/env python3
"""check_deploy.py: structural checks of everything under deploy/.

Run from the repository root:
    python3 tests/deploy/check_deploy.py KPE_BIN [--install-root DIR]

Prints one line per check, "ok NAME" or "not ok NAME: why", for
tests/cli/test_deploy.sh to count. Each check_* function below is one
group; CHECKS lists them in order. Applying the manifests to the API-server
double (tests/apiserver/) will be one more function in CHECKS, taking the
same Ctx (ctx.kustomize(dir) and ctx.helm_docs give the objects to apply).

Python 3 standard library plus PyYAML (Debian's python3-yaml, installed by
scripts/deps.sh). No Docker, Helm or cluster is needed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helmlite  # noqa: E402

DEPLOY = "deploy"
CANONICAL_POLICY = "deploy/policy/policy.json"
CHART = "deploy/helm/kube-policy-extender"
OUR_IMAGE = "kube-policy-extender"
VERBS = {"filterVerb": "filter", "prioritizeVerb": "prioritize",
         "preemptVerb": "preempt", "bindVerb": "bind"}
RUNTIME_PKGS = {"libevent-2.1-7", "libevent-pthreads-2.1-7",
                "libevent-openssl-2.1-7", "libcjson1", "libinih1", "libcurl4",
                "libyaml-0-2", "ca-certificates", "libssl3"}

# RBAC: (apiGroup, resource) -> the verbs any of our roles may hold.
READ = {"get", "list", "watch"}
RBAC_ALLOWED = {
    ("", "nodes"): READ, ("", "pods"): READ, ("", "services"): READ,
    ("", "replicationcontrollers"): READ, ("", "persistentvolumes"): READ,
    ("", "persistentvolumeclaims"): READ, ("", "namespaces"): READ,
    ("apps", "replicasets"): READ, ("apps", "statefulsets"): READ,
    ("storage.k8s.io", "storageclasses"): READ,
    ("storage.k8s.io", "csinodes"): READ,
    ("", "pods/binding"): {"create"}, ("", "events"): {"create"},
    ("coordination.k8s.io", "leases"): {"get", "create", "update"},
    ("", "pods/status"): {"patch"},
}
# Write permissions only the scheduler mode (and a binding extender) has.
BIND_RULES = {("", "pods/binding"), ("", "events")}
SCHEDULER_ONLY = {("coordination.k8s.io", "leases"), ("", "pods/status")}
# Built-in roles a stock kube-scheduler (my-scheduler) may be bound to.
STOCK_SCHEDULER_ROLES = {"system:kube-scheduler", "system:volume-scheduler",
                         "extension-apiserver-authentication-reader"}

# Required fields per kind: dotted paths that must be present.
REQUIRED = {
    "Namespace": ["metadata.name"],
    "ServiceAccount": ["metadata.name", "metadata.namespace"],
    "ConfigMap": ["metadata.name", "metadata.namespace", "data"],
    "ClusterRole": ["metadata.name", "rules"],
    "Role": ["metadata.name", "metadata.namespace", "rules"],
    "ClusterRoleBinding": ["metadata.name", "roleRef.kind", "roleRef.name", "subjects"],
    "RoleBinding": ["metadata.name", "metadata.namespace", "roleRef.kind", "roleRef.name", "subjects"],
    "Deployment": ["metadata.name", "metadata.namespace", "spec.replicas",
                   "spec.selector.matchLabels", "spec.template.metadata.labels",
                   "spec.template.spec.containers"],
    "Service": ["metadata.name", "metadata.namespace", "spec.selector", "spec.ports"],
    "PodDisruptionBudget": ["metadata.name", "metadata.namespace", "spec.selector.matchLabels"],
    "Pod": ["metadata.name", "metadata.namespace", "spec.containers"],
    "KubeSchedulerConfiguration": [],
    "Kustomization": ["resources"],
    "Policy": [],
}
API_VERSIONS = {
    "Namespace": {"v1"}, "ServiceAccount": {"v1"}, "ConfigMap": {"v1"},
    "Service": {"v1"}, "Pod": {"v1"},
    "ClusterRole": {"rbac.authorization.k8s.io/v1"},
    "Role": {"rbac.authorization.k8s.io/v1"},
    "ClusterRoleBinding": {"rbac.authorization.k8s.io/v1"},
    "RoleBinding": {"rbac.authorization.k8s.io/v1"},
    "Deployment": {"apps/v1"}, "PodDisruptionBudget": {"policy/v1"},
    "KubeSchedulerConfiguration": {"kubescheduler.config.k8s.io/v1beta1",
                                   "kubescheduler.config.k8s.io/v1beta2",
                                   "kubescheduler.config.k8s.io/v1"},
    "Kustomization": {"kustomize.config.k8s.io/v1beta1"},
    "Policy": {"v1"},
}


class Ctx:
    """What every check shares: results, the binary, the server defaults."""

    def __init__(self, kpe_bin, install_root):
        self.kpe_bin = kpe_bin
        self.install_root = install_root
        self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="kpe-deploy.")
        self.defaults = server_defaults(kpe_bin)
        self.files = sorted(walk(DEPLOY))
        self.docs = {}  # path -> list of parsed documents (YAML or JSON)
        self.helm_docs = {}  # variant name -> rendered objects

    def report(self, name, problems):
        """One result line; problems is a list of strings (empty: ok)."""
        if problems:
            self.failed += 1
            print("not ok %s: %s" % (name, "; ".join(problems)[:600]))
        else:
            print("ok %s" % name)

    def kustomize(self, d):
        """The objects a kustomization directory builds (resources only)."""
        with open(os.path.join(d, "kustomization.yaml")) as f:
            k = yaml.safe_load(f)
        objs = []
        for r in k.get("resources", []):
            p = os.path.normpath(os.path.join(d, r))
            if os.path.isdir(p):
                objs += self.kustomize(p)
            else:
                objs += [x for x in self.docs.get(p, []) if isinstance(x, dict)]
        return objs


def walk(root):
    for d, _, names in os.walk(root):
        for n in names:
            yield os.path.join(d, n)


def get(obj, path, default=None):
    cur = obj
    for p in path.split("."):
        if not isinstance(cur, dict) or p not in cur:
            return default
        cur = cur[p]
    return cur


def server_defaults(kpe_bin):
    """Default port and option names from `serve --help`."""
    out = subprocess.run([kpe_bin, "serve", "--help"], capture_output=True,
                         text=True, check=False).stdout
    m = re.search(r"--listen HOST:PORT.*?\(default: [^)]*:(\d+)\)", out, re.S)
    opts = set(re.findall(r"^  --([a-z][a-z0-9-]*)", out, re.M))
    return {"port": int(m.group(1)) if m else None, "options": opts,
            "url_prefix_default_empty": "path before the verbs" in out}


def run_check(ctx, policy_text):
    """`KPE_BIN check` on a policy text; returns None or the error."""
    p = os.path.join(ctx.tmp, "policy.json")
    with open(p, "w") as f:
        f.write(policy_text)
    r = subprocess.run([ctx.kpe_bin, "check", p], capture_output=True,
                       text=True, check=False)
    return None if r.returncode == 0 else (r.stderr.strip() or "exit %d" % r.returncode)


# ---- Docker ----

def dockerfile_instructions(text):
    """(instruction, arguments) pairs, continuation lines joined."""
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def check_dockerfile(ctx):
    path = "deploy/docker/Dockerfile"
    problems = []
    ins = dockerfile_instructions(open(path).read())
    stages, cur = [], None
    for word, rest in ins:
        if word == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?$", rest, re.I)
            cur = {"image": m.group(1), "name": m.group(2), "ins": []}
            stages.append(cur)
        elif cur is not None:
            cur["ins"].append((word, rest))
    if len(stages) < 2:
        problems.append("want a build and a runtime stage, got %d" % len(stages))
    else:
        if not re.match(r"debian:(\$\{DEBIAN_RELEASE\}|bookworm)$", stages[0]["image"]):
            problems.append("build stage is %s, want debian:bookworm" % stages[0]["image"])
        if not re.match(r"debian:(\$\{DEBIAN_RELEASE\}|bookworm)-slim$", stages[-1]["image"]):
            problems.append("runtime stage is %s, want debian:bookworm-slim" % stages[-1]["image"])
    names = [s["name"] for s in stages]
    for i, s in enumerate(stages):
        for word, rest in s["ins"]:
            if word == "ADD":
                problems.append("ADD %s: use COPY (and never fetch URLs)" % rest)
            if word == "HEALTHCHECK":
                problems.append("HEALTHCHECK present: Kubernetes probes do it")
            if word == "COPY":
                args = rest.split()
                frm = [a for a in args if a.startswith("--from=")]
                srcs = [a for a in args if not a.startswith("--")][:-1]
                if frm:
                    ref = frm[0][len("--from="):]
                    if ref not in names[:i]:
                        problems.append("COPY --from=%s: no earlier stage of that name" % ref)
                    continue
                for src in srcs:
                    if not os.path.exists(src):
                        problems.append("COPY %s: not in the repository" % src)
    if stages:
        rt = stages[-1]["ins"]
        users = [r for w, r in rt if w == "USER"]
        if not users or users[-1].split(":")[0] in ("0", "root"):
            problems.append("runtime stage must end as a non-root USER, got %r" % users)
        elif users[-1].split(":")[0] != "65532":
            problems.append("runtime USER %s, want 65532" % users[-1])
        for w, r in rt:
            if w == "RUN" and "apt-get install" in r:
                pkgs = [p for p in r.split("apt-get install", 1)[1].split("&&")[0].split()
                        if not p.startswith("-")]
                extra = sorted(set(pkgs) - RUNTIME_PKGS)
                if extra:
                    problems.append("runtime stage installs %s" % extra)
                missing = sorted(RUNTIME_PKGS - {"libssl3"} - set(pkgs))
                if missing:
                    problems.append("runtime stage lacks %s" % missing)
        ep = [r for w, r in rt if w == "ENTRYPOINT"]
        try:
            argv = json.loads(ep[-1]) if ep else None
        except ValueError:
            argv = None
        if not argv:
            problems.append("runtime stage needs an exec-form ENTRYPOINT")
        else:
            if argv[1:2] != ["serve"]:
                problems.append("ENTRYPOINT %s does not run serve" % argv)
            if "--listen" not in argv or argv[argv.index("--listen") + 1] != "0.0.0.0:%d" % ctx.defaults["port"]:
                problems.append("ENTRYPOINT must --listen 0.0.0.0:%s" % ctx.defaults["port"])
            if "--policy" in argv:
                pol = argv[argv.index("--policy") + 1]
                if not pol.startswith("/usr/local/share/kube-policy-extender/"):
                    problems.append("ENTRYPOINT policy %s is not where make install puts it" % pol)
        if not any(w == "RUN" and "make install" in r for w, r in stages[0]["ins"]):
            problems.append("build stage does not use make install")
    ctx.report("Dockerfile: stages, non-root USER, no ADD/HEALTHCHECK, COPY sources exist, ENTRYPOINT serve", problems)


# ---- systemd ----

def parse_unit(text):
    sections, cur = {}, None
    for line in text.split("\n"):
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            cur = sections.setdefault(line[1:-1], {})
            continue
        k, _, v = line.partition("=")
        cur.setdefault(k.strip(), []).append(v.strip())
    return sections


def check_systemd(ctx):
    unit = parse_unit(open("deploy/systemd/kube-policy-extender.service").read())
    svc = unit.get("Service", {})
    problems = []
    for s in ("Unit", "Service", "Install"):
        if s not in unit:
            problems.append("no [%s] section" % s)
    want = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "Restart": "on-failure",
            "ProtectHome": "yes", "PrivateTmp": "yes"}
    for k, v in want.items():
        if svc.get(k, [None])[-1] != v:
            problems.append("%s=%s, want %s" % (k, svc.get(k, [None])[-1], v))
    if svc.get("DynamicUser", ["no"])[-1] != "yes" and svc.get("User", ["root"])[-1] in ("root", "0"):
        problems.append("needs DynamicUser=yes or a non-root User=")
    if svc.get("CapabilityBoundingSet", ["x"])[-1] != "":
        problems.append("CapabilityBoundingSet must be empty")
    reload_ = " ".join(svc.get("ExecReload", []))
    if "-HUP" not in reload_ or "$MAINPID" not in reload_:
        problems.append("ExecReload must send SIGHUP to $MAINPID, got %r" % reload_)
    start = svc.get("ExecStart", [""])[-1].split()
    if start[:2] != ["/usr/local/bin/kube-policy-extender", "serve"]:
        problems.append("ExecStart %r does not run /usr/local/bin/kube-policy-extender serve" % start)
    if "--config" not in start:
        problems.append("ExecStart has no --config")
    ctx.report("systemd unit: hardened, SIGHUP reload, Restart=on-failure, serve --config", problems)

    # The example config: known keys only, and the server accepts it.
    problems = []
    cfg = "deploy/systemd/config.ini"
    for n, line in enumerate(open(cfg), 1):
        line = line.strip()
        if not line or line[0] in ";#" or line.startswith("["):
            if line.startswith("[") and line != "[serve]":
                problems.append("%s:%d: section %s, want [serve]" % (cfg, n, line))
            continue
        key = line.split("=", 1)[0].strip()
        if key not in ctx.defaults["options"]:
            problems.append("%s:%d: unknown key %r" % (cfg, n, key))
    ctx.report("systemd config.ini: keys are serve options", problems)
    problems = serve_briefly(ctx, ["--config", cfg, "--policy", CANONICAL_POLICY,
                                   "--listen", "127.0.0.1:0"])
    ctx.report("systemd config.ini: serve starts with it", problems)

    # systemd's own parser, when the machine has it.
    sa = shutil.which("systemd-analyze")
    if sa:
        u = os.path.join(ctx.tmp, "kube-policy-extender.service")
        text = open("deploy/systemd/kube-policy-extender.service").read()
        with open(u, "w") as f:
            f.write(text.replace("/usr/local/bin/kube-policy-extender",
                                 os.path.abspath(ctx.kpe_bin)))
        r = subprocess.run([sa, "verify", u], capture_output=True, text=True, check=False)
        msgs = [l for l in (r.stdout + r.stderr).split("\n") if l.strip()]
        ctx.report("systemd unit: systemd-analyze verify is silent",
                   msgs if msgs or r.returncode else [])
    else:
        print("note systemd-analyze not installed: unit checked structurally only")


def serve_briefly(ctx, args):
    """Start serve with args, wait for "serving on", stop it with SIGTERM."""
    p = subprocess.Popen([ctx.kpe_bin, "serve"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in p.stdout:
            lines.append(line)
            if "serving on" in line:
                break
    finally:
        p.terminate()
        try:
            rest, _ = p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            rest, _ = p.communicate()
    lines.append(rest or "")
    out = "".join(lines)
    if "serving on" not in out:
        return ["serve %s: did not start: %s" % (" ".join(args), out.strip()[:300])]
    # 0 once the signal handlers are in place; a SIGTERM that arrives just
    # after "serving on" may still find the default action (-15).
    if p.returncode not in (0, -15):
        return ["serve exited %d after SIGTERM" % p.returncode]
    return []


# ---- parsing ----

def check_parse(ctx):
    """Every YAML and JSON file under deploy/ parses."""
    n = 0
    for path in ctx.files:
        if path.startswith(CHART + "/templates/"):
            continue  # templates are YAML only once rendered (check_helm)
        if path.endswith((".yaml", ".yml")):
            try:
                with open(path) as f:
                    ctx.docs[path] = [d for d in yaml.safe_load_all(f) if d is not None]
                n += 1
                ctx.report("parse %s" % path, [])
            except yaml.YAMLError as e:
                ctx.report("parse %s" % path, [str(e)])
        elif path.endswith(".json"):
            try:
                with open(path) as f:
                    ctx.docs[path] = [json.load(f)]
                n += 1
                ctx.report("parse %s" % path, [])
            except ValueError as e:
                ctx.report("parse %s" % path, [str(e)])
    ctx.report("deploy/ has YAML and JSON files", [] if n >= 20 else ["only %d" % n])


def kind_of(path, doc):
    if not isinstance(doc, dict):
        return None
    if os.path.basename(path) == "kustomization.yaml":
        return "Kustomization"
    return doc.get("kind")


def check_kinds(ctx):
    """apiVersion and required fields per kind, for every object."""
    for path, docs in sorted(ctx.docs.items()):
        if path.startswith("deploy/demo/") or path.startswith(CHART + "/"):
            continue
        problems = []
        for i, d in enumerate(docs):
            problems += object_problems(path, i, d)
        ctx.report("kinds and required fields in %s" % path, problems)


def object_problems(path, i, d):
    kind = kind_of(path, d)
    if kind is None:
        return ["document %d has no kind" % i]
    if kind not in REQUIRED:
        return ["document %d: unexpected kind %s" % (i, kind)]
    problems = []
    av = d.get("apiVersion")
    if av not in API_VERSIONS[kind]:
        problems.append("%s: apiVersion %s" % (kind, av))
    for f in REQUIRED[kind]:
        if get(d, f) in (None, "", [], {}) and f != "data":
            problems.append("%s %s: no %s" % (kind, get(d, "metadata.name"), f))
        elif f == "data" and get(d, f) is None:
            problems.append("%s: no data" % kind)
    return problems


# ---- kustomize ----

def check_kustomizations(ctx):
    kdirs = sorted(os.path.dirname(p) for p in ctx.docs if os.path.basename(p) == "kustomization.yaml")
    # Directories other kustomizations include are parts, not deployable
    # sets: their references resolve only in the including set.
    parts = {os.path.normpath(os.path.join(d, r)) for d in kdirs
             for r in ctx.docs[os.path.join(d, "kustomization.yaml")][0].get("resources", [])}
    for d in kdirs:
        problems = []
        k = ctx.docs[os.path.join(d, "kustomization.yaml")][0]
        listed = set()
        for r in k.get("resources", []):
            p = os.path.normpath(os.path.join(d, r))
            if not os.path.exists(p):
                problems.append("resource %s does not exist" % r)
            elif os.path.isdir(p) and not os.path.exists(os.path.join(p, "kustomization.yaml")):
                problems.append("resource %s is a directory without kustomization.yaml" % r)
            listed.add(p)
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if n.endswith(".yaml") and n != "kustomization.yaml" and p not in listed:
                problems.append("%s is not listed in resources" % n)
        objs = ctx.kustomize(d)
        seen = {}
        for o in objs:
            key = (o.get("kind"), get(o, "metadata.namespace"), get(o, "metadata.name"))
            if key in seen:
                problems.append("duplicate %s/%s" % (key[0], key[2]))
            seen[key] = o
        if d not in parts:
            problems += reference_problems(objs)
        ctx.report("kustomization %s: resources exist, all listed%s" % (
            d, "" if d in parts else ", references resolve"), problems)
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("note kubectl not installed: kustomize output not cross-checked")
        return
    for d in kdirs:
        r = subprocess.run([kubectl, "kustomize", d], capture_output=True, text=True, check=False)
        if r.returncode:
            ctx.report("kubectl kustomize %s" % d, [r.stderr.strip()[:300]])
            continue
        got = sorted((o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(r.stdout) if o)
        want = sorted((o["kind"], o["metadata"]["name"]) for o in ctx.kustomize(d))
        ctx.report("kubectl kustomize %s builds the same objects" % d,
                   [] if got == want else ["kubectl %s, ours %s" % (got, want)])


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def reference_problems(objs):
    """Names one object uses must exist in the same set."""
    problems = []
    have = {(o.get("kind"), get(o, "metadata.namespace"), get(o, "metadata.name")) for o in objs}
    deployments = [o for o in objs if o.get("kind") == "Deployment"]
    for o in objs:
        kind, ns = o.get("kind"), get(o, "metadata.namespace")
        if kind == "Deployment":
            spec = get(o, "spec.template.spec", {})
            sa = spec.get("serviceAccountName")
            if sa and ("ServiceAccount", ns, sa) not in have:
                problems.append("Deployment %s: no ServiceAccount %s" % (o["metadata"]["name"], sa))
            for v in spec.get("volumes", []):
                cm = get(v, "configMap.name")
                if cm and ("ConfigMap", ns, cm) not in have:
                    problems.append("Deployment %s: no ConfigMap %s" % (o["metadata"]["name"], cm))
        if kind in ("Service", "PodDisruptionBudget"):
            sel = get(o, "spec.selector") if kind == "Service" else get(o, "spec.selector.matchLabels")
            if not any(matches(sel, get(d, "spec.template.metadata.labels", {}))
                       and get(d, "metadata.namespace") == ns for d in deployments):
                problems.append("%s %s: selector %s matches no Deployment" % (kind, o["metadata"]["name"], sel))
        if kind in ("RoleBinding", "ClusterRoleBinding"):
            ref = o.get("roleRef", {})
            name = ref.get("name")
            if name not in STOCK_SCHEDULER_ROLES:
                rns = ns if ref.get("kind") == "Role" else None
                if (ref.get("kind"), rns, name) not in have:
                    problems.append("%s %s: no %s %s" % (kind, o["metadata"]["name"], ref.get("kind"), name))
            for s in o.get("subjects", []):
                if s.get("kind") == "ServiceAccount" and \
                        ("ServiceAccount", s.get("namespace"), s.get("name")) not in have:
                    problems.append("%s %s: no ServiceAccount %s/%s" % (
                        kind, o["metadata"]["name"], s.get("namespace"), s.get("name")))
    return problems


# ---- workloads ----

def listen_port(args):
    if "--listen" in args:
        v = args[args.index("--listen") + 1]
        return int(v.rsplit(":", 1)[1])
    return None


def workload_problems(o, where):
    """Deployment and Pod checks; returns a list of problems."""
    problems = []
    kind, name = o["kind"], o["metadata"]["name"]
    tag = "%s %s/%s" % (where, kind, name)
    if kind == "Deployment":
        pod = get(o, "spec.template", {})
        sel = get(o, "spec.selector.matchLabels", {})
        if not matches(sel, get(pod, "metadata.labels", {})):
            problems.append("%s: selector %s does not match the template labels" % (tag, sel))
        if get(o, "spec.replicas", 0) < 2:
            problems.append("%s: replicas %s, want 2 or more" % (tag, get(o, "spec.replicas")))
    else:
        pod = o
    spec = pod.get("spec", {})
    volumes = {v.get("name") for v in spec.get("volumes", [])}
    ours = False
    for c in spec.get("containers", []):
        cname = "%s container %s" % (tag, c.get("name"))
        for m in c.get("volumeMounts", []):
            if m.get("name") not in volumes:
                problems.append("%s: mounts unknown volume %s" % (cname, m.get("name")))
        if not get(c, "resources.requests"):
            problems.append("%s: no resource requests" % cname)
        if not (c.get("image") or "").split("/")[-1].startswith(OUR_IMAGE + ":"):
            continue
        ours = True
        args = (c.get("command") or []) + (c.get("args") or [])
        port = listen_port(args)
        ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
        if port is None:
            problems.append("%s: no --listen" % cname)
        elif port not in ports.values():
            problems.append("%s: --listen port %s is not a containerPort %s" % (cname, port, ports))
        for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            pr = c.get(probe)
            if not pr or "httpGet" not in pr:
                problems.append("%s: %s is not an httpGet on %s" % (cname, probe, path))
                continue
            if pr["httpGet"].get("path") != path:
                problems.append("%s: %s path %s, want %s" % (cname, probe, pr["httpGet"].get("path"), path))
            pp = pr["httpGet"].get("port")
            pp = ports.get(pp) if isinstance(pp, str) else pp
            if pp != port:
                problems.append("%s: %s port %s, server listens on %s" % (cname, probe, pp, port))
        sc = c.get("securityContext", {})
        if sc.get("readOnlyRootFilesystem") is not True:
            problems.append("%s: readOnlyRootFilesystem is not true" % cname)
        if sc.get("allowPrivilegeEscalation") is not False:
            problems.append("%s: allowPrivilegeEscalation is not false" % cname)
        if "ALL" not in get(sc, "capabilities.drop", []):
            problems.append("%s: capabilities not dropped" % cname)
        if kind == "Deployment":
            nonroot = sc.get("runAsNonRoot", get(spec, "securityContext.runAsNonRoot"))
            uid = sc.get("runAsUser", get(spec, "securityContext.runAsUser"))
            if nonroot is not True or uid in (None, 0):
                problems.append("%s: must runAsNonRoot with a non-zero runAsUser" % cname)
            if args[1:2] == ["serve"] and "--url-prefix" in args:
                pass  # checked against the extender configs
    if ours and kind == "Deployment":
        ann = get(pod, "metadata.annotations", {}) or {}
        if ann.get("prometheus.io/scrape") != "true":
            problems.append("%s: no prometheus.io/scrape annotation" % tag)
    return problems


def all_objects(ctx):
    for path, docs in sorted(ctx.docs.items()):
        if path.startswith("deploy/demo/") or path.startswith(CHART + "/"):
            continue
        for d in docs:
            if isinstance(d, dict) and d.get("kind") in ("Deployment", "Pod"):
                yield path, d


def check_workloads(ctx):
    for path, o in all_objects(ctx):
        ctx.report("workload %s %s: selector, probes, ports, security, requests" % (path, o["metadata"]["name"]),
                   workload_problems(o, path))


# ---- policy ----

def check_policies(ctx):
    canonical = json.load(open(CANONICAL_POLICY))
    err = run_check(ctx, open(CANONICAL_POLICY).read())
    ctx.report("%s loads with `check`" % CANONICAL_POLICY, [err] if err else [])
    for path, docs in sorted(ctx.docs.items()):
        for d in docs:
            if not (isinstance(d, dict) and d.get("kind") == "ConfigMap"):
                continue
            for key, text in (d.get("data") or {}).items():
                if not key.startswith("policy"):
                    continue
                problems = []
                err = run_check(ctx, text)
                if err:
                    problems.append(err)
                if json.loads(text) != canonical:
                    problems.append("differs from %s" % CANONICAL_POLICY)
                ctx.report("ConfigMap %s %s: policy loads and matches %s" % (path, key, CANONICAL_POLICY),
                           problems)
    vals = yaml.safe_load(open(os.path.join(CHART, "values.yaml")))
    problems = []
    err = run_check(ctx, vals.get("policy", ""))
    if err:
        problems.append(err)
    elif json.loads(vals["policy"]) != canonical:
        problems.append("differs from %s" % CANONICAL_POLICY)
    ctx.report("Helm values policy loads and matches %s" % CANONICAL_POLICY, problems)


# ---- extender declarations ----

def extender_sources(ctx):
    """(where, form, extender dict) for every extender under deploy/."""
    for path, docs in sorted(ctx.docs.items()):
        if path.startswith("deploy/demo/"):
            continue
        for d in docs:
            if not isinstance(d, dict):
                continue
            if d.get("kind") == "Policy":
                for e in d.get("extenders") or []:
                    yield path, "policy", e
            elif d.get("kind") == "KubeSchedulerConfiguration":
                for e in d.get("extenders") or []:
                    yield path, "config", e
            elif d.get("kind") == "ConfigMap":
                for key, text in (d.get("data") or {}).items():
                    if key.endswith((".yaml", ".yml")):
                        inner = yaml.safe_load(text)
                        if isinstance(inner, dict) and inner.get("kind") == "KubeSchedulerConfiguration":
                            for e in inner.get("extenders") or []:
                                yield "%s:%s" % (path, key), "config", e


def service_hosts(ctx):
    """Service DNS name -> ports, for the Services defined in deploy/."""
    hosts = {}
    for path, docs in ctx.docs.items():
        for d in docs:
            if isinstance(d, dict) and d.get("kind") == "Service":
                n, ns = d["metadata"]["name"], d["metadata"]["namespace"]
                ports = {p.get("port") for p in d["spec"]["ports"]}
                for h in ("%s.%s.svc" % (n, ns), "%s.%s.svc.cluster.local" % (n, ns)):
                    hosts[h] = ports
    return hosts


def url_prefixes(ctx):
    """--url-prefix values our serve containers use ("" when none)."""
    out = set()
    for _, o in all_objects(ctx):
        spec = get(o, "spec.template.spec") if o["kind"] == "Deployment" else o["spec"]
        for c in spec.get("containers", []):
            args = (c.get("command") or []) + (c.get("args") or [])
            if "serve" in args:
                out.add(args[args.index("--url-prefix") + 1] if "--url-prefix" in args else "")
    return out


def check_extenders(ctx):
    hosts = service_hosts(ctx)
    prefixes = url_prefixes(ctx)
    n = 0
    for where, form, e in extender_sources(ctx):
        n += 1
        problems = []
        url = urllib.parse.urlsplit(e.get("urlPrefix", ""))
        if url.scheme not in ("http", "https"):
            problems.append("urlPrefix %r has no http(s) scheme" % e.get("urlPrefix"))
        if url.port != ctx.defaults["port"]:
            problems.append("urlPrefix port %s, the server's default is %s" % (url.port, ctx.defaults["port"]))
        if url.hostname != "127.0.0.1":
            if url.hostname not in hosts:
                problems.append("urlPrefix host %s is neither 127.0.0.1 nor a Service in deploy/" % url.hostname)
            elif url.port not in hosts[url.hostname]:
                problems.append("Service %s does not expose port %s" % (url.hostname, url.port))
        if url.path.rstrip("/") not in prefixes:
            problems.append("urlPrefix path %r is not a --url-prefix the server uses %s" % (url.path, sorted(prefixes)))
        for k, verb in VERBS.items():
            v = e.get(k, "")
            if v not in ("", verb):
                problems.append("%s %r, the server serves %r" % (k, v, verb))
        if not e.get("filterVerb"):
            problems.append("no filterVerb")
        if e.get("prioritizeVerb") and not (isinstance(e.get("weight"), int) and e["weight"] > 0):
            problems.append("prioritizeVerb needs weight > 0")
        if e.get("nodeCacheCapable") is not True:
            problems.append("nodeCacheCapable is not true")
        t = e.get("httpTimeout")
        if form == "policy" and not (isinstance(t, int) and not isinstance(t, bool) and t >= 10 ** 8):
            problems.append("Policy httpTimeout %r: want an integer in nanoseconds" % (t,))
        if form == "config" and not (isinstance(t, str) and re.fullmatch(r"\d+(ms|s|m)", t)):
            problems.append("KubeSchedulerConfiguration httpTimeout %r: want a duration string" % (t,))
        https = e.get("enableHTTPS", e.get("enableHttps", False))
        if https != (url.scheme == "https"):
            problems.append("enableHTTPS %s with a %s urlPrefix" % (https, url.scheme))
        ctx.report("extender in %s: urlPrefix, verbs, port, timeout" % where, problems)
    ctx.report("extender declarations found", [] if n >= 5 else ["only %d" % n])


# ---- RBAC ----

def rule_problems(role):
    problems = []
    name = "%s %s" % (role["kind"], role["metadata"]["name"])
    groups_seen = set()
    for r in role.get("rules", []):
        verbs = set(r.get("verbs", []))
        if r.get("nonResourceURLs"):
            problems.append("%s: nonResourceURLs" % name)
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                allowed = RBAC_ALLOWED.get((g, res))
                if "*" in (g, res) or "*" in verbs:
                    problems.append("%s: wildcard in %s/%s %s" % (name, g, res, sorted(verbs)))
                elif allowed is None:
                    problems.append("%s: %s/%s is not something the server uses" % (name, g or "core", res))
                elif not verbs <= allowed:
                    problems.append("%s: %s/%s verbs %s beyond %s" % (name, g or "core", res,
                                                                      sorted(verbs), sorted(allowed)))
                groups_seen.add((g, res))
    if groups_seen & (BIND_RULES | SCHEDULER_ONLY) and groups_seen - (BIND_RULES | SCHEDULER_ONLY):
        problems.append("%s mixes read and write rules: keep the write role separate" % name)
    return problems


def write_rules(objs):
    return {(g, res) for o in objs if o.get("kind") in ("Role", "ClusterRole")
            for r in o.get("rules", []) for g in r.get("apiGroups", []) for res in r.get("resources", [])
            if (g, res) in BIND_RULES | SCHEDULER_ONLY}


def rbac_set_problems(objs, mode):
    """Rules of one deployable set; mode extender, scheduler or second."""
    problems = []
    for o in objs:
        if o.get("kind") in ("Role", "ClusterRole"):
            problems += rule_problems(o)
        if o.get("kind") in ("RoleBinding", "ClusterRoleBinding"):
            if get(o, "roleRef.name") in STOCK_SCHEDULER_ROLES:
                subs = {(s.get("kind"), s.get("name")) for s in o.get("subjects", [])}
                if subs != {("ServiceAccount", "my-scheduler")}:
                    problems.append("%s binds %s to %s" % (o["metadata"]["name"], get(o, "roleRef.name"), subs))
    w = write_rules(objs)
    if mode == "extender" and w:
        problems.append("extender mode grants writes %s" % sorted(w))
    if mode == "scheduler" and w != BIND_RULES | SCHEDULER_ONLY:
        problems.append("scheduler mode grants %s, want %s" % (sorted(w), sorted(BIND_RULES | SCHEDULER_ONLY)))
    return problems


def check_rbac(ctx):
    sets = {"deploy/kubernetes": "extender", "deploy/kubernetes/base": "extender",
            "deploy/scheduler/standalone": "scheduler", "deploy/scheduler/second-scheduler": "second"}
    for d, mode in sets.items():
        ctx.report("RBAC of %s (%s mode): least privilege" % (d, mode), rbac_set_problems(ctx.kustomize(d), mode))
    objs = [x for x in ctx.docs.get("deploy/kubernetes/bind/rbac.yaml", [])]
    ctx.report("RBAC of deploy/kubernetes/bind: pods/binding and events only",
               rule_problems(objs[0]) + ([] if write_rules(objs) == BIND_RULES else
                                         ["grants %s" % sorted(write_rules(objs))]))


# ---- Helm ----

HELM_VARIANTS = {
    "defaults": ({}, "extender"),
    "scheduler mode": ({"mode": "scheduler"}, "scheduler"),
    "bind": ({"bind": True}, "bind"),
    "TLS and url-prefix": ({"tls": {"enabled": True}, "urlPrefix": "/scheduler"}, "extender"),
}


def check_helm(ctx):
    chart = yaml.safe_load(open(os.path.join(CHART, "Chart.yaml")))
    problems = [k for k in ("apiVersion", "name", "version", "appVersion") if not chart.get(k)]
    if chart.get("apiVersion") != "v2":
        problems.append("Chart apiVersion %s, want v2" % chart.get("apiVersion"))
    vals = yaml.safe_load(open(os.path.join(CHART, "values.yaml")))
    for k in ("policy", "tls", "mode", "schedulerName", "replicas", "resources"):
        if k not in vals:
            problems.append("values.yaml has no %s" % k)
    ctx.report("Helm Chart.yaml and values.yaml", ["missing %s" % p for p in problems])
    for name, (over, mode) in HELM_VARIANTS.items():
        problems = []
        try:
            rendered = helmlite.render_chart(CHART, over)
            objs = [d for t in rendered.values() for d in yaml.safe_load_all(t) if d]
        except (helmlite.TemplateError, yaml.YAMLError) as e:
            ctx.report("Helm render (%s)" % name, [str(e)])
            continue
        ctx.helm_docs[name] = objs
        for i, o in enumerate(objs):
            problems += object_problems("helm", i, o)
            if o.get("kind") == "Deployment":
                problems += workload_problems(o, "helm")
                args = get(o, "spec.template.spec.containers")[0].get("args", [])
                want = "schedule" if mode == "scheduler" else "serve"
                if args[:1] != [want]:
                    problems.append("Deployment runs %s, want %s" % (args[:1], want))
                if mode == "scheduler" and args[1:3] != ["--scheduler-name", vals["schedulerName"]]:
                    problems.append("scheduler mode args %s" % args[:3])
            if o.get("kind") == "ConfigMap":
                err = run_check(ctx, o["data"]["policy.json"])
                if err:
                    problems.append("ConfigMap policy: %s" % err)
        problems += reference_problems(objs)
        kinds = {o["kind"] for o in objs}
        want = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment",
                "PodDisruptionBudget"} | ({"Service"} if mode != "scheduler" else set())
        if not want <= kinds:
            problems.append("renders no %s" % sorted(want - kinds))
        w = write_rules(objs)
        expect = {"extender": set(), "bind": BIND_RULES, "scheduler": BIND_RULES | SCHEDULER_ONLY}[mode]
        if w != expect:
            problems.append("write rules %s, want %s" % (sorted(w), sorted(expect)))
        problems += [p for o in objs if o.get("kind") in ("Role", "ClusterRole") for p in rule_problems(o)]
        ctx.report("Helm render (%s): objects, probes, RBAC, policy" % name, problems)
    try:
        helmlite.render_chart(CHART, {"mode": "extendr"})
        ctx.report("Helm render refuses mode extendr", ["rendered anyway"])
    except helmlite.TemplateFail:
        ctx.report("Helm render refuses mode extendr", [])
    except helmlite.TemplateError as e:
        ctx.report("Helm render refuses mode extendr", ["failed otherwise: %s" % e])


# ---- make install ----

def check_install(ctx):
    if not ctx.install_root:
        return
    root = ctx.install_root
    want = {"usr/local/bin/kube-policy-extender": 0o755,
            "usr/local/share/kube-policy-extender/policy.json": 0o644,
            "usr/local/share/kube-policy-extender/config.ini": 0o644,
            "usr/local/share/kube-policy-extender/kube-policy-extender.service": 0o644}
    problems = []
    for rel, mode in want.items():
        p = os.path.join(root, rel)
        if not os.path.isfile(p):
            problems.append("%s missing" % rel)
        elif os.stat(p).st_mode & 0o777 != mode:
            problems.append("%s mode %o, want %o" % (rel, os.stat(p).st_mode & 0o777, mode))
    extra = sorted(os.path.relpath(p, root) for p in walk(root))
    extra = [x for x in extra if x not in want]
    if extra:
        problems.append("unexpected files %s" % extra)
    ctx.report("make install: the layout the Dockerfile copies", problems)
    if problems:
        return
    binp = os.path.join(root, "usr/local/bin/kube-policy-extender")
    r = subprocess.run([binp, "--version"], capture_output=True, text=True, check=False)
    ctx.report("installed binary runs", [] if r.returncode == 0 else [r.stderr[:200]])
    share = os.path.join(root, "usr/local/share/kube-policy-extender")
    problems = [] if open(os.path.join(share, "policy.json")).read() == open(CANONICAL_POLICY).read() \
        else ["installed policy.json differs from %s" % CANONICAL_POLICY]
    ctx.report("installed policy.json is the default policy", problems)


CHECKS = [check_dockerfile, check_systemd, check_parse, check_kinds, check_kustomizations,
          check_workloads, check_policies, check_extenders, check_rbac, check_helm, check_install]


def main(argv):
    if len(argv) < 2:
        print("usage: check_deploy.py KPE_BIN [--install-root DIR]", file=sys.stderr)
        return 2
    install_root = argv[argv.index("--install-root") + 1] if "--install-root" in argv else None
    ctx = Ctx(argv[1], install_root)
    if ctx.defaults["port"] is None:
        print("not ok server defaults: cannot read the --listen default from serve --help")
        return 1
    try:
        for check in CHECKS:
            check(ctx)
    finally:
        shutil.rmtree(ctx.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
