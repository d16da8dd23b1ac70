"""k8s.py: a real control plane for the e2e suites.

etcd (Debian's etcd-server) and kube-apiserver v1.20.2 (built by
k8s-build.sh) on free loopback ports under a real authorizer
(--authorization-mode=Node,RBAC), an admin kubeconfig for the suites
themselves, service-account kubeconfigs bound only to the roles shipped in
deploy/ for our binary and kube-scheduler (ServiceAccounts), a small REST
client, and helpers to start kube-scheduler and our own binary.
No kubelet: nodes are created with their status (Nodes accept status on
create) and the TaintNodesByCondition admission plugin is off, so they are
schedulable at once; pods are only ever bound, never run. The suites act as
the kubelet where one is needed (finishing the deletion of preempted pods).
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

TOKEN = "kpe-e2e-token"
KUBE_SCHEDULER_TOKEN = "kpe-e2e-kube-scheduler-token"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The RBAC an operator applies (deploy/), in order: the namespace and the
# ServiceAccounts first. Our binary (serve, schedule) runs as
# kube-policy-extender/kube-policy-extender and kube-scheduler as
# kube-policy-extender/my-scheduler, each with only what these grant.
SHIPPED_RBAC = [
    "deploy/kubernetes/base/namespace.yaml",
    "deploy/kubernetes/base/serviceaccount.yaml",
    "deploy/kubernetes/base/rbac.yaml",
    "deploy/kubernetes/bind/rbac.yaml",
    "deploy/scheduler/standalone/rbac.yaml",
    "deploy/scheduler/second-scheduler/base/rbac.yaml",
]
KPE_NS = "kube-policy-extender"
KPE_SA = "kube-policy-extender"
SCHEDULER_SA = "my-scheduler"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(what, fn, timeout=30.0, interval=0.1):
    """Poll fn until it returns a truthy value; raise TimeoutError naming what."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as ex:  # noqa: BLE001 - reported on time-out
            last = ex
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


class Proc:
    """A child process with its log in the work directory."""

    def __init__(self, name, argv, workdir, env=None):
        self.name = name
        self.argv = argv
        self.log_path = os.path.join(workdir, f"{name}.log")
        self.log = open(self.log_path, "ab")
        self.p = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, env=env,
                                  start_new_session=True)

    def alive(self):
        return self.p.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
        self.log.close()
        return self.p.returncode

    def kill(self):
        return self.stop(signal.SIGKILL)

    def tail(self, n=40):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""


class ControlPlane:
    """etcd + kube-apiserver on loopback; restartable apiserver."""

    def __init__(self, bindir, workdir):
        self.bindir = bindir
        self.dir = workdir
        self.etcd = None
        self.apiserver = None
        self.etcd_port = free_port()
        self.etcd_peer = free_port()
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    # -- lifecycle -------------------------------------------------------
    def start(self):
        d = self.dir
        etcd = shutil.which("etcd") or "/usr/bin/etcd"
        self.etcd = Proc("etcd", [
            etcd, "--data-dir", os.path.join(d, "etcd"), "--name", "e2e",
            "--listen-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--advertise-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--listen-peer-urls", f"http://127.0.0.1:{self.etcd_peer}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.etcd_peer}",
            "--initial-cluster", f"e2e=http://127.0.0.1:{self.etcd_peer}",
            "--log-level", "warn", "--quota-backend-bytes", str(2 << 30)], d)
        key = os.path.join(d, "sa.key")
        if not os.path.exists(key):
            subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(d, "tokens.csv"), "w") as f:
            f.write(f"{TOKEN},admin,admin,system:masters\n")
            # The identity of kubeadm's scheduler.conf (a client certificate
            # there): user system:kube-scheduler, no groups.
            f.write(f"{KUBE_SCHEDULER_TOKEN},system:kube-scheduler,system:kube-scheduler\n")
        self.write_kubeconfig(self.kubeconfig, "admin", TOKEN)
        self.start_apiserver()
        self.apply(*(os.path.join(ROOT, f) for f in SHIPPED_RBAC))
        self.kpe_kubeconfig = self.sa_kubeconfig(KPE_NS, KPE_SA)
        self.scheduler_kubeconfig = self.sa_kubeconfig(KPE_NS, SCHEDULER_SA)
        self.kube_scheduler_user_kubeconfig = os.path.join(d, "kubeconfig-system-kube-scheduler")
        self.write_kubeconfig(self.kube_scheduler_user_kubeconfig, "system:kube-scheduler",
                              KUBE_SCHEDULER_TOKEN)

    def start_apiserver(self):
        d = self.dir
        key = os.path.join(d, "sa.key")
        self.apiserver = Proc("kube-apiserver", [
            os.path.join(self.bindir, "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
            f"--secure-port={self.port}", "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--cert-dir={os.path.join(d, 'certs')}",
            f"--token-auth-file={os.path.join(d, 'tokens.csv')}",
            "--authorization-mode=Node,RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={key}",
            f"--service-account-signing-key-file={key}",
            "--api-audiences=https://kubernetes.default.svc",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            # Every node takes at most 110 pods by default; a burst fills
            # nodes through CPU, not this.
            "--max-requests-inflight=800", "--max-mutating-requests-inflight=400",
            "--watch-cache=true", "--v=1"], d)
        wait_for("kube-apiserver /readyz", self._ready, timeout=90)

    def _ready(self):
        if not self.apiserver.alive():
            raise RuntimeError("kube-apiserver exited:\n" + self.apiserver.tail())
        try:
            return self.request("GET", "/readyz", raw=True) == b"ok"
        except (OSError, ApiError):
            return False

    def restart_apiserver(self, down_seconds=1.0):
        self.apiserver.stop()
        time.sleep(down_seconds)
        self.start_apiserver()

    def stop(self):
        for p in (self.apiserver, self.etcd):
            if p:
                p.stop()

    def write_kubeconfig(self, path, user, token):
        with open(path, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: {self.url}
    insecure-skip-tls-verify: true
users:
- name: {user}
  user:
    token: {token}
contexts:
- name: e2e
  context: {{cluster: e2e, user: {user}}}
current-context: e2e
""")
        os.chmod(path, 0o600)

    def sa_token(self, ns, name, seconds=86400):
        """A bound service-account token from the TokenRequest API (what a
        pod's projected token is): the API server authenticates it as
        system:serviceaccount:NS:NAME, and RBAC grants it only what the
        bindings to that ServiceAccount grant."""
        r = self.post(f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token", {
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": ["https://kubernetes.default.svc"],
                     "expirationSeconds": seconds}})
        return r["status"]["token"]

    def sa_kubeconfig(self, ns, name):
        """A kubeconfig (cached per ServiceAccount) carrying its token."""
        path = os.path.join(self.dir, f"kubeconfig-{ns}-{name}")
        if not os.path.exists(path):
            self.write_kubeconfig(path, name, self.sa_token(ns, name))
        return path

    def apply(self, *files):
        """kubectl apply -f FILE... as the admin (the operator's step)."""
        args = []
        for f in files:
            args += ["-f", f]
        return self.kubectl("apply", *args)

    # -- REST ------------------------------------------------------------
    def request(self, method, path, body=None, raw=False, ctype=None, timeout=30):
        data = None
        headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = ctype or "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers=headers)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout) as r:
                out = r.read()
        except urllib.error.HTTPError as ex:
            raise ApiError(ex.code, ex.read().decode("utf-8", "replace")) from None
        return out if raw else json.loads(out or b"null")

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, obj):
        return self.request("POST", path, obj)

    def delete(self, path, grace=None):
        q = "" if grace is None else f"?gracePeriodSeconds={grace}"
        return self.request("DELETE", path + q)

    def patch(self, path, obj, kind="merge"):
        ctype = {"merge": "application/merge-patch+json",
                 "strategic": "application/strategic-merge-patch+json"}[kind]
        return self.request("PATCH", path, obj, ctype=ctype)

    def kubectl(self, *args, check=True, input=None):
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig, *args],
                           capture_output=True, text=True, input=input, timeout=120)
        if check and r.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {r.stderr.strip()}")
        return r

    # -- objects ---------------------------------------------------------
    def create_node(self, name, cpu="4", memory="16Gi", pods="110", labels=None,
                    taints=None, unschedulable=False):
        res = {"cpu": cpu, "memory": memory, "pods": pods,
               "ephemeral-storage": "100Gi"}
        node = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64", **(labels or {})}},
            "spec": {"unschedulable": unschedulable, "taints": taints or []},
            "status": {"capacity": res, "allocatable": res,
                       "conditions": [{"type": "Ready", "status": "True",
                                       "reason": "KubeletReady",
                                       "lastHeartbeatTime": None,
                                       "lastTransitionTime": None}],
                       "addresses": [{"type": "Hostname", "address": name}]},
        }
        self.post("/api/v1/nodes", node)
        return node

    def create_pod(self, name, ns="default", cpu="1", scheduler="default-scheduler",
                   labels=None, node_name=None, priority_class=None, extra=None,
                   memory=None):
        res = {"cpu": cpu, **({"memory": memory} if memory else {})}
        spec = {"schedulerName": scheduler,
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.2",
                                "resources": {"requests": res, "limits": dict(res)}}]}
        if node_name:
            spec["nodeName"] = node_name
        if priority_class:
            spec["priorityClassName"] = priority_class
        spec.update(extra or {})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
               "spec": spec}
        return self.post(f"/api/v1/namespaces/{ns}/pods", pod)

    def pods(self, ns="default"):
        return self.get(f"/api/v1/namespaces/{ns}/pods")["items"]

    def nodes(self):
        return self.get("/api/v1/nodes")["items"]

    def events(self, ns="default"):
        return self.get(f"/api/v1/namespaces/{ns}/events")["items"]

    def delete_all(self, ns="default"):
        """Remove every pod (at once, no kubelet), node, event and priority
        class the suites created, between scenarios."""
        self.request("DELETE", f"/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=0")
        self.request("DELETE", "/api/v1/nodes")
        self.request("DELETE", f"/api/v1/namespaces/{ns}/events")
        for pc in self.get("/apis/scheduling.k8s.io/v1/priorityclasses")["items"]:
            if not pc["metadata"]["name"].startswith("system-"):
                self.delete(f"/apis/scheduling.k8s.io/v1/priorityclasses/{pc['metadata']['name']}")
        wait_for("an empty cluster",
                 lambda: not self.pods(ns) and not self.nodes(), timeout=60)

    def finish_deletions(self, ns="default"):
        """The kubelet's part of a graceful deletion: pods marked for
        deletion (preemption victims) are removed for good."""
        n = 0
        for p in self.pods(ns):
            if p["metadata"].get("deletionTimestamp"):
                try:
                    self.delete(f"/api/v1/namespaces/{ns}/pods/{p['metadata']['name']}", grace=0)
                    n += 1
                except ApiError as ex:
                    if ex.status != 404:
                        raise
        return n


def bound(pods):
    return [p for p in pods if p["spec"].get("nodeName")]


def cpu_millis(q):
    q = str(q)
    if q.endswith("m"):
        return int(q[:-1])
    return int(float(q) * 1000)


def node_load(cp, ns="default"):
    """Requested CPU (millicores) and pod count per node, from the API."""
    load = {}
    for p in bound(cp.pods(ns)):
        n = p["spec"]["nodeName"]
        c = sum(cpu_millis(c.get("resources", {}).get("requests", {}).get("cpu", "0"))
                for c in p["spec"]["containers"])
        m, k = load.get(n, (0, 0))
        load[n] = (m + c, k + 1)
    return load


def make_workdir(prefix="kpe-e2e."):
    return tempfile.mkdtemp(prefix=prefix)
