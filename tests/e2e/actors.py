"""actors.py: our binary (serve, schedule) and a real kube-scheduler, started
for a scenario from the files we ship, with only the URL, kubeconfig and
scheduler name changed. Each runs with its ServiceAccount's kubeconfig
(k8s.ControlPlane: bound only to the roles shipped in deploy/)."""
import json
import os
import re
import urllib.request

import k8s

SCHEDULER_NAME = "my-scheduler"


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def http_post(url, body, timeout=30):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


class Serve:
    """`kube-policy-extender serve` against the control plane."""

    def __init__(self, s, policy, *extra, name="serve"):
        self.port = k8s.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = s.spawn(name, [
            s.env.kpe, "serve", "--listen", f"127.0.0.1:{self.port}",
            "--kubeconfig", s.cp.kpe_kubeconfig, "--policy", policy,
            "--debug-endpoints", "--v", "2", *extra])
        k8s.wait_for(f"{name} /readyz", self._ready, timeout=30)

    def _ready(self):
        if not self.proc.alive():
            raise RuntimeError(f"serve exited:\n{self.proc.tail()}")
        try:
            return http_get(self.url + "/readyz").startswith(b"ok")
        except OSError:
            return False

    def cache(self):
        return json.loads(http_get(self.url + "/debug/cache"))

    def metrics(self):
        return http_get(self.url + "/metrics").decode()


class Schedule:
    """`kube-policy-extender schedule` (the standalone scheduler)."""

    def __init__(self, s, policy, *extra, name="schedule", kpe=None):
        self.port = k8s.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = s.spawn(name, [
            kpe or s.env.kpe, "schedule", "--scheduler-name", SCHEDULER_NAME,
            "--policy", policy, "--kubeconfig", s.cp.kpe_kubeconfig,
            "--listen", f"127.0.0.1:{self.port}", *extra])


def scheduler_files(s, shape, url, workdir):
    """The kube-scheduler files of one shipped shape, for a v1.20 scheduler:
    (argv, description). shape: 'policy' (deploy/scheduler/
    policy-config-file.json) or 'v1beta1' (deploy/scheduler/
    kube-scheduler-config.v1beta1.yaml). Only the extender URL, the kubeconfig path and whatever
    `overrides` names are changed."""
    root = s.env.root
    if shape == "policy":
        with open(os.path.join(root, "deploy/scheduler/policy-config-file.json")) as f:
            pol = json.load(f)
        for x in pol.get("extenders", []):
            x["urlPrefix"] = url
        path = os.path.join(workdir, f"policy-{k8s.free_port()}.json")
        with open(path, "w") as f:
            json.dump(pol, f)
        return pol, path
    with open(os.path.join(root, "deploy/scheduler/kube-scheduler-config.v1beta1.yaml")) as f:
        text = f.read()
    text = re.sub(r"(?m)^(\s*kubeconfig:).*$", rf"\1 {s.cp.scheduler_kubeconfig}", text)
    text = re.sub(r"(?m)^(\s*-?\s*urlPrefix:).*$", rf"\1 {url}", text)
    # One scheduler after another on the same control plane: the lease of
    # the previous one would hold the next back for its whole duration.
    if "leaderElection:" in text:
        text = re.sub(r"(?m)^(\s*leaderElect:).*$", r"\1 false", text)
    else:
        text += "leaderElection:\n  leaderElect: false\n"
    # With --config, v1.20 ignores --port and cannot turn the insecure port
    # off (default 0.0.0.0:10251): a free loopback port instead.
    hp = k8s.free_port()
    text += f"healthzBindAddress: 127.0.0.1:{hp}\nmetricsBindAddress: 127.0.0.1:{hp}\n"
    path = os.path.join(workdir, f"ksc-{k8s.free_port()}.yaml")
    with open(path, "w") as f:
        f.write(text)
    return text, path


class KubeScheduler:
    """A real kube-scheduler v1.20.2, configured by a Policy file or a
    KubeSchedulerConfiguration."""

    def __init__(self, s, policy_file=None, config_file=None, name="kube-scheduler",
                 v=2, extra=()):
        argv = [os.path.join(s.env.bindir, "kube-scheduler"),
                "--leader-elect=false", "--secure-port=0", "--port=0", f"--v={v}", *extra]
        if config_file:
            argv += ["--config", config_file]
        else:
            argv += ["--kubeconfig", s.cp.scheduler_kubeconfig,
                     "--policy-config-file", policy_file,
                     "--scheduler-name", SCHEDULER_NAME]
        self.proc = s.spawn(name, argv)
        k8s.wait_for("kube-scheduler to start", self._started, timeout=30)

    def _started(self):
        if not self.proc.alive():
            raise RuntimeError(f"kube-scheduler exited:\n{self.proc.tail()}")
        # It has synced its informers once it logs that it serves.
        with open(self.proc.log_path, "rb") as f:
            t = f.read()
        return b"Attempting to acquire leader lease" in t or b"Starting Kubernetes Scheduler" in t
