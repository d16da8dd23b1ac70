"""suite_guide.py: the v1.19-v1.21 operator guide, run as written, on the
real control plane (issue 27, points 3 and 5).

Every ```sh block of docs/operators/v1.19-v1.21.md, in order, as one `sh -e`
script from the repository's root, with kube-policy-extender and
kube-scheduler v1.20.2 on PATH, KUBECONFIG the admin's, KPE_DIR a scratch
directory and KPE_PORT, MY_SCHEDULER_PORT free loopback ports (the guide's own
defaults: /etc/kubernetes/kube-policy-extender, 8888, 10251). The guide starts `serve`
over HTTPS requiring client certificates and my-scheduler calling it with
one, under Node,RBAC with ServiceAccount tokens. Then:
  - the guide's pod is on an RDMA node, my-scheduler holds its own Lease,
    the extender answered filter calls (its /metrics, read over HTTPS
    with the client certificate);
  - the extender refuses a TLS client presenting no certificate and one
    presenting a certificate another CA signed (a Python client), and a
    kube-scheduler configured either way gets no answer: its pod stays
    pending while the guide's scheduler, with the right certificate,
    binds the next one.
"""
import os
import re
import signal
import socket
import ssl
import subprocess
import time

import k8s

GUIDE = "docs/operators/v1.19-v1.21.md"
RDMA = {"node.kubernetes.io/rdma-enabled": "true"}


def sh_blocks(text):
    """The ```sh blocks of a Markdown text, in order."""
    return [b for lang, b in re.findall(r"(?ms)^```(\w*)\n(.*?)^```", text) if lang == "sh"]


def tls_client(port, ca, cert=None, key=None):
    """A TLS handshake and GET /healthz: the status line, or the error."""
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = s.recv(200)
                if not data:
                    return "closed without an answer"
                return data.split(b"\r\n")[0].decode()
    except (ssl.SSLError, OSError) as ex:
        return f"refused: {type(ex).__name__}: {ex}"


def other_ca_cert(d):
    """A client certificate signed by a CA the extender does not trust."""
    def run(*a):
        subprocess.run(a, cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
        "/CN=other-ca", "-keyout", "other-ca.key", "-out", "other-ca.crt")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=my-scheduler",
        "-keyout", "other.key", "-out", "other.csr")
    run("openssl", "x509", "-req", "-in", "other.csr", "-CA", "other-ca.crt", "-CAkey",
        "other-ca.key", "-CAcreateserial", "-days", "1", "-out", "other.crt")
    return os.path.join(d, "other.crt"), os.path.join(d, "other.key")


def curl_metrics(port, tls):
    r = subprocess.run(["curl", "-sf", "--cacert", f"{tls}/ca.crt", "--cert", f"{tls}/client.crt",
                        "--key", f"{tls}/client.key", f"https://127.0.0.1:{port}/metrics"],
                       capture_output=True, text=True, timeout=10)
    return r.stdout


def scenario_guide_v1_20_over_https(s):
    cp = s.cp
    for n in ("rdma-1", "rdma-2"):
        cp.create_node(n, labels=RDMA)
    for n in ("general-1", "general-2"):
        cp.create_node(n)
    with open(os.path.join(s.env.root, GUIDE)) as f:
        blocks = sh_blocks(f.read())
    s.require(len(blocks) >= 6, f"{GUIDE}: {len(blocks)} sh blocks to run")
    wd = os.path.join(s.env.workdir, "guide")
    os.makedirs(os.path.join(wd, "bin"), exist_ok=True)
    for name, target in (("kube-policy-extender", os.path.abspath(s.env.kpe)),
                         ("kube-scheduler", os.path.join(s.env.bindir, "kube-scheduler"))):
        link = os.path.join(wd, "bin", name)
        if not os.path.lexists(link):
            os.symlink(target, link)
    script = os.path.join(wd, "guide.sh")
    with open(script, "w") as f:
        f.write("set -e\n" + "\n".join(blocks))
    kpe_dir = os.path.join(wd, "etc")
    port = k8s.free_port()
    env = dict(os.environ, PATH=os.path.join(wd, "bin") + ":" + os.environ["PATH"],
               KUBECONFIG=cp.kubeconfig, KPE_DIR=kpe_dir, KPE_PORT=str(port),
               MY_SCHEDULER_PORT=str(k8s.free_port()))
    proc = s.spawn("guide", ["sh", "-x", script], env=env)
    # The guide leaves serve and kube-scheduler running in its process
    # group; they are stopped with it below.
    try:
        try:
            rc = proc.p.wait(180)
        except subprocess.TimeoutExpired:
            rc = None
        s.require(rc == 0, f"the guide's sh blocks ran as written (exit {rc}):\n{proc.tail(30)}")
        check_after_guide(s, port, kpe_dir)
    finally:
        try:
            os.killpg(proc.p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for name in ("serve.log", "my-scheduler.log"):
            p = os.path.join(kpe_dir, name)
            if s.failures and os.path.exists(p):
                with open(p, errors="replace") as f:
                    print(f"    [{name} tail]\n" + "".join(f.readlines()[-15:]))


def check_after_guide(s, port, kpe_dir):
    cp = s.cp
    tls = os.path.join(kpe_dir, "tls")
    pod = cp.get("/api/v1/namespaces/default/pods/kpe-try-high-comm")
    node = pod["spec"].get("nodeName")
    s.check(node in ("rdma-1", "rdma-2"), f"the guide's high-comm pod is on an RDMA node ({node})")
    le = cp.get(f"/apis/coordination.k8s.io/v1/namespaces/{k8s.KPE_NS}/leases/my-scheduler")
    s.check(bool(le["spec"].get("holderIdentity")),
            f"my-scheduler holds its own Lease {k8s.KPE_NS}/my-scheduler "
            f"({le['spec'].get('holderIdentity')})")
    try:
        cp.get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler")
        s.check(False, "my-scheduler left the default scheduler's Lease alone")
    except k8s.ApiError as ex:
        s.check(ex.status == 404, f"my-scheduler left kube-system/kube-scheduler alone ({ex.status})")
    m = curl_metrics(port, tls)
    calls = [l for l in m.splitlines() if l.startswith("kpe_filter_nodes_total")]
    s.check(calls, f"the extender answered kube-scheduler's filter calls over HTTPS ({calls[:1]})")

    ca = os.path.join(tls, "ca.crt")
    good = tls_client(port, ca, os.path.join(tls, "client.crt"), os.path.join(tls, "client.key"))
    s.check(good.startswith("HTTP/1.1 200"), f"a client with my-scheduler's certificate: {good}")
    none = tls_client(port, ca)
    s.check(not none.startswith("HTTP/"), f"a client presenting no certificate is refused: {none}")
    bad_cert, bad_key = other_ca_cert(tls)
    bad = tls_client(port, ca, bad_cert, bad_key)
    s.check(not bad.startswith("HTTP/"), f"a client whose certificate another CA signed is "
                                         f"refused: {bad}")

    # kube-scheduler itself, configured without a certificate and with the
    # wrong one: each its own profile name and no leader election.
    with open(os.path.join(kpe_dir, "my-scheduler.yaml")) as f:
        base = f.read()
    variants = {
        "no-cert": re.sub(r"(?m)^\s*(certFile|keyFile):.*\n", "", base),
        "wrong-cert": base.replace(os.path.join(tls, "client.crt"), bad_cert)
                          .replace(os.path.join(tls, "client.key"), bad_key),
    }
    for name, text in variants.items():
        sched = f"my-scheduler-{name}"
        text = text.replace("schedulerName: my-scheduler", f"schedulerName: {sched}")
        text = re.sub(r"(?m)^(\s*leaderElect:).*$", r"\1 false", text)
        text = re.sub(r"(?m)^((?:healthz|metrics)BindAddress:).*$",
                      rf"\1 127.0.0.1:{k8s.free_port()}", text)
        f = os.path.join(kpe_dir, f"{sched}.yaml")
        with open(f, "w") as fh:
            fh.write(text)
        ks = s.spawn(f"kube-scheduler-{name}", [os.path.join(s.env.bindir, "kube-scheduler"),
                                                "--config", f, "--secure-port", "0",
                                                "--v", "2"])
        cp.create_pod(f"tls-{name}", cpu="100m", scheduler=sched, labels={"high-comm": "true"})
        cp.create_pod(f"tls-ok-{name}", cpu="100m", scheduler="my-scheduler",
                      labels={"high-comm": "true"})
        k8s.wait_for("the guide's scheduler to bind the control pod",
                     lambda: cp.get(f"/api/v1/namespaces/default/pods/tls-ok-{name}")
                     ["spec"].get("nodeName"), timeout=30)

        def refused_logged():
            with open(ks.log_path, errors="replace") as fh:
                t = fh.read()
            # kube-scheduler's error for the extender call itself.
            return [l for l in re.findall(rf"[^\n]*127\.0\.0\.1:{port}/filter[^\n]*", t)
                    if re.search(r"(?i)tls|certificate|EOF|reset", l)]
        lines = k8s.wait_for(f"kube-scheduler ({name}) to log the refusal", refused_logged,
                             timeout=30)
        time.sleep(1.0)
        p = cp.get(f"/api/v1/namespaces/default/pods/tls-{name}")
        s.check(not p["spec"].get("nodeName"),
                f"kube-scheduler with {name}: its pod stays pending, the extender refused it "
                f"({lines[-1].strip()[:200]})")
        ks.stop()


SCENARIOS = [scenario_guide_v1_20_over_https]
