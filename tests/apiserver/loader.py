"""Bulk load for --load: a `kubectl get -o json` List (or one object) read
item by item, so a 150,000-pod file never becomes one big tree. Loaded
objects keep their status, uid and creationTimestamp, get fresh
resourceVersions, and are not watch events (the history starts after the
load). Namespaces that loaded objects use are created when missing.
"""
import json

import kinds
import resources
from store import obj_key

_WS = " \t\r\n"


def _skip(text, i):
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _expect(text, i, ch, path):
    i = _skip(text, i)
    if i >= len(text) or text[i] != ch:
        raise ValueError("%s: expected %r at offset %d" % (path, ch, i))
    return i + 1


def iter_items(text, path):
    """Yield the objects of a List (its "items"), or the one object."""
    dec = json.JSONDecoder()
    i = _expect(text, 0, "{", path)
    start = i - 1
    saw_items = False
    while True:
        i = _skip(text, i)
        if text[i] == "}":
            break
        key, i = dec.raw_decode(text, i)
        i = _expect(text, i, ":", path)
        i = _skip(text, i)
        if key == "items":
            saw_items = True
            i = _expect(text, i, "[", path)
            while True:
                i = _skip(text, i)
                if text[i] == "]":
                    i += 1
                    break
                item, i = dec.raw_decode(text, i)
                yield item
                i = _skip(text, i)
                if text[i] == ",":
                    i += 1
        else:
            _, i = dec.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] == ",":
            i += 1
    if not saw_items:
        obj, _ = dec.raw_decode(text, start)
        yield obj


def load_file(store, path):
    """Load path into store; returns the number of objects loaded. Raises
    ValueError naming the file and item on anything it cannot place."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ns_res = resources.find("", "v1", "namespaces")
    n = 0
    for idx, obj in enumerate(iter_items(text, path)):
        if not isinstance(obj, dict):
            raise ValueError("%s: items[%d] is not an object" % (path, idx))
        res = resources.by_kind(obj.get("apiVersion"), obj.get("kind"))
        if res is None or res.plural == "bindings":
            raise ValueError("%s: items[%d]: no resource for apiVersion %r "
                             "kind %r" % (path, idx, obj.get("apiVersion"),
                                          obj.get("kind")))
        meta = obj.setdefault("metadata", {})
        ns = meta.get("namespace") or "default" if res.namespaced else ""
        if ns and obj_key(ns_res, "", ns) not in store.objs[ns_res.key]:
            store.create(ns_res, "", {"metadata": {"name": ns}},
                         kinds.namespace_create)
        # A loaded object replaces one the double made itself (the
        # namespaces it creates at startup), as a restore would.
        if obj_key(res, ns, meta.get("name", "")) in store.objs[res.key]:
            store.delete(res, ns, meta["name"])
        store.create(res, ns, obj, keep_meta=True)
        n += 1
    return n
