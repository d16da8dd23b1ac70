#!/usr/bin/env python3
"""report_dom.py DOM.html JSON [EXPLAIN.json]: compare the numbers of a
--report page, as the browser's DOM holds them, with the command's
--output json (and the scores table with explain's JSON of that pod).
Prints one problem per line; exit 1 when there is any."""
import json
import sys
from html.parser import HTMLParser


class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = {"node": [], "placement": [], "score": []}
        self.cur = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            cls = (a.get("class") or "").split()
            kind = next((c for c in cls if c in self.rows), None)
            self.cur = None
            if kind:
                self.cur = dict(a, _prio={})
                self.rows[kind].append(self.cur)
        elif tag == "td" and self.cur is not None and "data-priority" in a:
            self.cur["_prio"][a["data-priority"]] = None
            self.cur["_last"] = a["data-priority"]

    def handle_data(self, data):
        c = self.cur
        if c is not None and c.get("_last") and c["_prio"][c["_last"]] is None:
            c["_prio"][c["_last"]] = data.strip()


def main():
    dom = Rows()
    dom.feed(open(sys.argv[1]).read())
    want = json.load(open(sys.argv[2]))
    bad = []
    nodes = {n["name"]: n for n in want["nodes"]}
    if len(dom.rows["node"]) != len(nodes):
        bad.append("%d node rows, JSON has %d" % (len(dom.rows["node"]), len(nodes)))
    for r in dom.rows["node"]:
        n = nodes.get(r["data-node"])
        if not n:
            bad.append("node %s not in the JSON" % r["data-node"])
            continue
        for state, v in n.items():
            if not isinstance(v, dict):
                continue
            for k in ("cpu", "memory", "pods"):
                got = r.get("data-%s-%s" % (state, k))
                if got != str(v[k]):
                    bad.append("%s %s %s: DOM %s, JSON %s" % (n["name"], state, k, got, v[k]))
    if "differences" in want:  # diff: the moved pods, under a and b
        moved = [p for p in want["placements"] if p["differs"]]
        cols = ("a", "b")
    else:
        moved = want["placements"]
        cols = ("node",)
    if len(dom.rows["placement"]) != len(moved):
        bad.append("%d placement rows, JSON has %d" % (len(dom.rows["placement"]), len(moved)))
    for r, p in zip(dom.rows["placement"], moved):
        if r["data-pod"] != p["pod"]:
            bad.append("placement %s, JSON %s" % (r["data-pod"], p["pod"]))
        for c in cols:
            if r["data-" + c] != (p[c] or ""):
                bad.append("%s %s: DOM %r, JSON %r" % (p["pod"], c, r["data-" + c], p[c]))
    if len(sys.argv) > 3:
        ex = json.load(open(sys.argv[3]))
        exn = {n["name"]: n for n in ex["nodes"]}
        if len(dom.rows["score"]) != len(exn):
            bad.append("%d score rows, explain has %d" % (len(dom.rows["score"]), len(exn)))
        for r in dom.rows["score"]:
            n = exn[r["data-node"]]
            if r["data-total"] != str(n["total"]):
                bad.append("%s total: DOM %s, explain %s" % (n["name"], r["data-total"], n["total"]))
            if r["data-feasible"] != ("true" if n["feasible"] else "false"):
                bad.append("%s feasible differs" % n["name"])
            for k, v in n["scores"].items():
                if r["_prio"].get(k) != str(v):
                    bad.append("%s %s: DOM %s, explain %s" % (n["name"], k, r["_prio"].get(k), v))
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
