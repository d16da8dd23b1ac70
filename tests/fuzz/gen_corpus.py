#!/usr/bin/env python3
"""Rebuild the seed corpora in tests/fuzz/corpus/<target>/ from the
repository's real objects (deploy/demo, tests/data, tests/policies) and,
when it is available, a small payload from /work/shared/bench/gen_payload.py.

    python3 tests/fuzz/gen_corpus.py [--payload-dir DIR]

Output is deterministic; each corpus stays under 50 files and 2 MB.
Standard library only.
"""

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
GEN_PAYLOAD = "/work/shared/bench/gen_payload.py"
MAX_FILES = 50
MAX_BYTES = 2 * 1024 * 1024
OPS = {"In": "0", "NotIn": "1", "Exists": "2", "DoesNotExist": "3",
       "Gt": "4", "Lt": "5"}


def rel(*p):
    return os.path.join(ROOT, *p)


def load(path):
    with open(path, "rb") as f:
        return f.read()


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), sort_keys=False).encode()


class Corpus:
    def __init__(self, target):
        self.dir = os.path.join(OUT, target)
        self.files = {}

    def add(self, name, data):
        if isinstance(data, str):
            data = data.encode()
        if data in self.files.values():
            return
        self.files[name] = data

    def write(self):
        if len(self.files) > MAX_FILES:
            sys.exit("%s: %d files (max %d)" % (self.dir, len(self.files), MAX_FILES))
        total = sum(len(d) for d in self.files.values())
        if total > MAX_BYTES:
            sys.exit("%s: %d bytes (max %d)" % (self.dir, total, MAX_BYTES))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        for name, data in sorted(self.files.items()):
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(data)
        print("%-14s %3d files %8d bytes" % (os.path.basename(self.dir),
                                              len(self.files), total))


def demo_items():
    return json.loads(load(rel("deploy", "demo", "cluster.json")))["items"]


def demo_pods():
    return [(os.path.basename(p)[:-5], json.loads(load(p)))
            for p in sorted(glob.glob(rel("deploy", "demo", "pods", "*.json")))]


def strip_type(obj):
    """Objects inside ExtenderArgs carry no kind/apiVersion."""
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


def payload(dir_):
    """Small gen_payload.py output, or {} when the generator is missing."""
    def read(d):
        return {os.path.basename(p): load(p)
                for p in glob.glob(os.path.join(d, "*.json"))}

    if dir_:
        return read(dir_)
    if not os.path.exists(GEN_PAYLOAD):
        return {}
    with tempfile.TemporaryDirectory(prefix="kpe-fuzz-payload.") as d:
        subprocess.run([sys.executable, GEN_PAYLOAD, "--nodes", "3",
                        "--pods-per-node", "2", "--seed", "1", "--out", d],
                       check=True, stdout=subprocess.DEVNULL)
        return read(d)


def corpus_parse(pl):
    c = Corpus("fuzz_parse")
    items = demo_items()
    for i, obj in enumerate(items):
        c.add("demo-%02d-%s-%s.json" % (i, obj["kind"].lower(),
                                          obj["metadata"]["name"]),
              json.dumps(obj, indent=1))
    for name, pod in demo_pods():
        c.add("pod-%s.json" % name, json.dumps(pod, indent=1))
    for p in sorted(glob.glob(rel("tests", "data", "*.json"))):
        c.add("data-" + os.path.basename(p), load(p))
    nodes = [o for o in items if o["kind"] == "Node"][:2]
    c.add("nodelist.json", compact({"kind": "NodeList", "apiVersion": "v1",
                                     "items": [strip_type(n) for n in nodes]}))
    c.add("list-mixed.json", compact({"kind": "List", "apiVersion": "v1",
                                      "items": items[:3] + items[-3:]}))
    if "pod.json" in pl:
        c.add("payload-pod.json", pl["pod.json"])
    c.write()


def quantities(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("requests", "limits", "capacity", "allocatable",
                     "overhead") and isinstance(v, dict):
                out.update(x for x in v.values() if isinstance(x, str))
            else:
                quantities(v, out)
    elif isinstance(obj, list):
        for v in obj:
            quantities(v, out)


def corpus_quantity():
    c = Corpus("fuzz_quantity")
    found = set()
    quantities(demo_items(), found)
    for _, pod in demo_pods():
        quantities(pod, found)
    quantities(json.loads(load(rel("tests", "data", "pod_full.json"))), found)
    # Grammar corners from apimachinery's quantity_test.go.
    extra = ["0", "-0", "+1", ".5", "1.", "1e3", "1E-3", "12e+6", "1.5Gi",
             "100m", "1n", "1u", "5Ei", "9223372036854775807",
             "0.000000001", "1e-18", "1Pi", "-1.5Ki", "7e2147483648"]
    for q in sorted(found)[:MAX_FILES - len(extra)] + extra:
        c.add("q-" + hashlib.sha1(q.encode()).hexdigest()[:10], q)
    c.write()


def sel_req(tag, r):
    line = tag + OPS.get(r["operator"], "9") + r["key"]
    if r.get("values") is not None:
        line += "=" + ",".join(r["values"])
    return line + "\n"


def node_lines(node):
    out = "N%s\n" % node["metadata"]["name"]
    for k, v in sorted(node["metadata"].get("labels", {}).items()):
        out += "L%s=%s\n" % (k, v)
    return out


def corpus_selector():
    c = Corpus("fuzz_selector")
    nodes = [o for o in demo_items() if o["kind"] == "Node"]
    pod = json.loads(load(rel("tests", "data", "pod_full.json")))
    aff = pod["spec"]["affinity"]
    terms = aff["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    text = ""
    for i, t in enumerate(terms):
        text += "T\n" if i else ""
        text += "".join(sel_req("E", r) for r in t.get("matchExpressions", []))
        text += "".join(sel_req("F", r) for r in t.get("matchFields", []))
    pref = aff["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
    pref_text = "".join(sel_req("E", r) for r in pref["preference"]["matchExpressions"])
    pod_terms = []
    for kind in ("podAffinity", "podAntiAffinity"):
        for t in aff[kind].get("requiredDuringSchedulingIgnoredDuringExecution", []):
            sel = t["labelSelector"]
            s = "".join(sel_req("E", r) for r in sel.get("matchExpressions", []))
            s += "".join("E0%s=%s\n" % kv for kv in sorted(sel.get("matchLabels", {}).items()))
            pod_terms.append(s)
    for n in nodes:
        name = n["metadata"]["name"]
        c.add("required-%s" % name, text + node_lines(n))
        c.add("preferred-%s" % name, pref_text + node_lines(n))
        host = "E0kubernetes.io/hostname=%s\nF1metadata.name=%s\n" % (name, name)
        c.add("hostname-%s" % name, host + node_lines(n))
    labels = "Lapp=web\nLtier=backend\nLapp=cache\nLreplicas=3\n"
    for i, s in enumerate(pod_terms):
        c.add("pod-term-%d" % i, s + labels)
    c.add("gt-lt", "E4replicas=2\nE5replicas=10\nT\nE4replicas=x\n" + labels)
    c.add("exists", "E2app\nE3missing\nT\nE2app=x\n" + labels)
    c.write()


def corpus_policy():
    c = Corpus("fuzz_policy")
    for p in sorted(glob.glob(rel("tests", "policies", "*.json")) +
                    glob.glob(rel("tests", "policies", "*.ini"))):
        c.add(os.path.basename(p), load(p))
    for p in sorted(glob.glob(rel("tests", "policies", "legacy", "*.json"))):
        c.add("legacy-" + os.path.basename(p), load(p))
    c.add("demo-policy.json", load(rel("deploy", "demo", "policy.json")))
    for p in sorted(glob.glob(rel("tests", "data", "extender", "*.json"))):
        c.add("extender-" + os.path.basename(p), load(p))
    c.write()


def corpus_json(pl):
    c = Corpus("fuzz_json")
    for p in sorted(glob.glob(rel("tests", "data", "*.json"))):
        c.add(os.path.basename(p), load(p))
    for name, pod in demo_pods():
        c.add("pod-%s.json" % name, load(rel("deploy", "demo", "pods", name + ".json")))
    c.add("demo-policy.json", load(rel("deploy", "demo", "policy.json")))
    for i, obj in enumerate(demo_items()[:8]):
        c.add("demo-item-%d.json" % i, compact(obj))
    snippets = {
        "escapes": r'{"a\"b":"\\\/\b\f\n\r\t","u":"\u00e9\ud83d\ude00\ud800x"}',
        "numbers": '[0,-0,1.5e300,-1E-400,12345678901234567890,1e+2,0.1]',
        "nested": "[" * 40 + "{}" + "]" * 40,
        "literals": ' [true , false,null ]\r\n',
        "dupkeys": '{"k":1,"K":2,"k":3}',
        "utf8": '"caf\xc3\xa9 \xff\xfe"'.encode("latin-1"),
        "bad-trailing": '{"a":1,}',
        "bad-leading-zero": '[01]',
    }
    for name, text in snippets.items():
        c.add("snippet-" + name, text)
    if "filter-names.upstream.json" in pl:
        c.add("payload-filter-names.json", pl["filter-names.upstream.json"])
    c.write()


def corpus_extender(pl):
    c = Corpus("fuzz_extender")
    items = demo_items()
    nodes = [strip_type(o) for o in items if o["kind"] == "Node"]
    names = [n["metadata"]["name"] for n in nodes]
    running = {o["metadata"]["name"]: o for o in items if o["kind"] == "Pod"}
    for name, pod in demo_pods():
        p = strip_type(pod)
        c.add("filter-names-%s.json" % name,
              compact({"Pod": p, "Nodes": None, "NodeNames": names + ["ghost"]}))
        c.add("filter-full-%s.json" % name,
              compact({"pod": p, "nodes": {"metadata": {}, "items": nodes[:3]}}))
        c.add("prioritize-%s.json" % name,
              compact({"Pod": p, "NodeNames": names[:3], "Nodes": None}))
    pod = strip_type(demo_pods()[0][1])
    victims = {}
    meta = {}
    for o in running.values():
        n = o["spec"]["nodeName"]
        victims.setdefault(n, {"Pods": [], "NumPDBViolations": 0})["Pods"].append(
            {"metadata": {"uid": o["metadata"]["uid"], "name": o["metadata"]["name"],
                          "namespace": o["metadata"].get("namespace", "default")}})
        meta.setdefault(n, {"Pods": [], "NumPDBViolations": 1})["Pods"].append(
            {"UID": o["metadata"]["uid"]})
    c.add("preempt-victims.json", compact({"Pod": pod, "NodeNameToVictims": victims,
                                           "NodeNameToMetaVictims": None}))
    c.add("preempt-meta.json", compact({"Pod": pod, "NodeNameToVictims": None,
                                        "NodeNameToMetaVictims": meta}))
    c.add("bad-quantity.json",
          '{"Pod":{"metadata":{"name":"x"},"spec":{"containers":[{"name":"c",'
          '"resources":{"requests":{"cpu":"1.5.3"}}}]}},"NodeNames":["a"]}')
    c.add("bad-names.json", '{"Pod":{"metadata":{"name":"p"}},"NodeNames":[1]}')
    for k in ("filter-full.upstream.json", "filter-names.upstream.json"):
        if k in pl:
            c.add("payload-" + k, pl[k])
    c.write()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--payload-dir", help="use an existing gen_payload.py output")
    args = ap.parse_args()
    pl = payload(args.payload_dir)
    corpus_parse(pl)
    corpus_quantity()
    corpus_selector()
    corpus_policy()
    corpus_json(pl)
    corpus_extender(pl)


if __name__ == "__main__":
    main()
