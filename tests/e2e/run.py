#!/usr/bin/env python3
"""run.py: the e2e suites against a real control plane.

    tests/e2e/run.py BINDIR [SUITE ...]

BINDIR holds kube-apiserver and kube-scheduler (tests/e2e/k8s-build.sh
prints its parent). Starts etcd and kube-apiserver on free loopback ports,
runs every suite_*.py here (or the named ones), stops everything it started
and ends with "N passed, M failed". A scenario passes when all its checks
hold and it raises nothing; an exception (a time-out, a process that died)
fails it with the cause, never skips it.
"""
import importlib
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))

# Suites run only when named (E2E_SUITES=...), each with why. None today:
# issue 25's differential test (suite_semantics) is part of the default run.
OPT_IN = {}
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import k8s  # noqa: E402


class Failed(Exception):
    pass


class Scenario:
    """What a scenario function gets: the control plane, paths, checks."""

    def __init__(self, env, name):
        self.env = env
        self.cp = env.cp
        self.name = name
        self.failures = []
        self.procs = []
        self.notes = []

    def check(self, cond, what):
        if cond:
            print(f"    ok   {what}", flush=True)
        else:
            print(f"    FAIL {what}", flush=True)
            self.failures.append(what)
        return cond

    def require(self, cond, what):
        if not self.check(cond, what):
            raise Failed(what)

    def note(self, text):
        print(f"    note {text}", flush=True)
        self.env.report.append(f"{self.name}: {text}")

    def spawn(self, name, argv, env=None):
        p = k8s.Proc(name, argv, self.env.workdir, env=env)
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in reversed(self.procs):
            p.stop()
        self.procs.clear()


class Env:
    def __init__(self, bindir, workdir):
        self.bindir = bindir
        self.workdir = workdir
        self.root = ROOT
        self.kpe = os.environ.get("KPE_BIN", os.path.join(ROOT, "bin/kube-policy-extender"))
        self.cp = k8s.ControlPlane(bindir, workdir)
        self.report = []


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bindir = argv[1]
    for b in ("kube-apiserver", "kube-scheduler"):
        if not os.access(os.path.join(bindir, b), os.X_OK):
            print(f"e2e: error: {bindir}/{b} missing (run tests/e2e/k8s-build.sh)",
                  file=sys.stderr)
            print("0 passed, 1 failed")
            return 1
    # SUITE or SUITE:SCENARIO[,SCENARIO...]
    wanted = [w.split(":")[0] for w in argv[2:]]
    only = {}
    for w in argv[2:]:
        if ":" in w:
            only.setdefault(w.split(":")[0], set()).update(w.split(":")[1].split(","))
    names = sorted(f[:-3] for f in os.listdir(HERE)
                   if f.startswith("suite_") and f.endswith(".py"))
    if wanted:
        unknown = [w for w in wanted if w not in names]
        if unknown:
            print(f"e2e: error: no such suite: {', '.join(unknown)} (have: {', '.join(names)})",
                  file=sys.stderr)
            return 2
        names = list(dict.fromkeys(wanted))
    else:
        for name in OPT_IN:
            if name in names:
                names.remove(name)
                print(f"e2e: {name} not in the default run: {OPT_IN[name]}")
    workdir = k8s.make_workdir()
    env = Env(bindir, workdir)
    passed = failed = 0
    failures = []
    t0 = time.monotonic()
    try:
        env.cp.start()
    except Exception as ex:  # noqa: BLE001
        print(f"e2e: error: the control plane did not start: {ex}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    print(f"e2e: control plane up at {env.cp.url} in {time.monotonic() - t0:.1f}s "
          f"(work dir {workdir})", flush=True)
    try:
        for name in names:
            mod = importlib.import_module(name)
            for fn in mod.SCENARIOS:
                if name in only and fn.__name__ not in only[name]:
                    continue
                sname = f"{name[6:]}/{fn.__name__}"
                print(f"--- {sname}", flush=True)
                s = Scenario(env, sname)
                t1 = time.monotonic()
                try:
                    env.cp.delete_all()
                    fn(s)
                except Failed:
                    pass
                except Exception as ex:  # noqa: BLE001
                    s.failures.append(f"{type(ex).__name__}: {ex}")
                    traceback.print_exc()
                finally:
                    if s.failures:
                        for p in s.procs:
                            print(f"    [{p.name} log tail]\n{p.tail(25)}")
                    s.stop_all()
                dt = time.monotonic() - t1
                if s.failures:
                    failed += 1
                    failures.append(sname)
                    print(f"FAIL {sname} ({dt:.1f}s): {s.failures[0]}", flush=True)
                else:
                    passed += 1
                    print(f"ok   {sname} ({dt:.1f}s)", flush=True)
    finally:
        env.cp.stop()
    if env.report:
        print("\nReport:")
        for line in env.report:
            print(f"  {line}")
    if failures:
        print("failed scenarios: " + " ".join(failures))
        print(f"logs kept in {workdir}")
    else:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"e2e: {time.monotonic() - t0:.0f}s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
