"""PATCH bodies: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386) and a
simplified strategic merge patch.

The strategic merge patch merges lists of objects by the merge keys of the
core types (containers by name, conditions by type, ...), honours
"$patch": "delete"/"replace" and "$deleteFromPrimitiveList/<field>", and
drops the "$setElementOrder/<field>" and "$retainKeys" directives (order is
kept as the patch leaves it). Lists without a merge key are replaced, which
is what the real server does for atomic lists.
"""
import copy


class PatchError(Exception):
    pass


# field name -> merge key, for lists of objects the core types merge.
MERGE_KEYS = {
    "containers": "name", "initContainers": "name",
    "ephemeralContainers": "name", "volumes": "name", "env": "name",
    "volumeMounts": "mountPath", "volumeDevices": "devicePath",
    "ports": "containerPort", "conditions": "type", "taints": "key",
    "imagePullSecrets": "name", "addresses": "type", "hostAliases": "ip",
    "ownerReferences": "uid", "topologySpreadConstraints": "topologyKey",
    "podIPs": "ip", "finalizers": None, "readinessGates": "conditionType",
}


def merge_patch(target, patch):
    """RFC 7386: returns a new value."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError("invalid JSON pointer %r" % path)
    return [p.replace("~1", "/").replace("~0", "~")
            for p in path[1:].split("/")]


def _walk(doc, parts):
    cur = doc
    for p in parts:
        if isinstance(cur, list):
            try:
                cur = cur[int(p)]
            except (ValueError, IndexError):
                raise PatchError("path not found: %s" % p) from None
        elif isinstance(cur, dict) and p in cur:
            cur = cur[p]
        else:
            raise PatchError("doc is missing path: %s" % p)
    return cur


def _remove(doc, parts):
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, list):
        try:
            return parent.pop(int(last))
        except (ValueError, IndexError):
            raise PatchError("unable to remove index %s" % last) from None
    if not isinstance(parent, dict) or last not in parent:
        raise PatchError("unable to remove nonexistent key: %s" % last)
    return parent.pop(last)


def _add(doc, parts, value):
    if not parts:
        return value
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, list):
        if last == "-":
            parent.append(value)
        else:
            try:
                idx = int(last)
            except ValueError:
                raise PatchError("invalid index %s" % last) from None
            if idx > len(parent):
                raise PatchError("index out of bounds %d" % idx)
            parent.insert(idx, value)
    elif isinstance(parent, dict):
        parent[last] = value
    else:
        raise PatchError("doc is missing path: %s" % "/".join(parts))
    return doc


def json_patch(doc, ops):
    """RFC 6902: returns a new document."""
    if not isinstance(ops, list):
        raise PatchError("json patch must be a list of operations")
    doc = copy.deepcopy(doc)
    for op in ops:
        kind = op.get("op")
        parts = _pointer(op.get("path", ""))
        if kind == "add":
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, parts)
        elif kind == "replace":
            _walk(doc, parts)
            if parts:
                _remove(doc, parts)
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind == "test":
            if _walk(doc, parts) != op.get("value"):
                raise PatchError("testing value %s failed" % op.get("path"))
        elif kind in ("move", "copy"):
            src = _pointer(op.get("from", ""))
            val = copy.deepcopy(_walk(doc, src))
            if kind == "move":
                _remove(doc, src)
            doc = _add(doc, parts, val)
        else:
            raise PatchError("Unexpected kind: %s" % kind)
    return doc


def _smp_list(field, target, patch):
    key = MERGE_KEYS.get(field)
    if not isinstance(target, list) or key is None or not all(
            isinstance(x, dict) for x in patch):
        return [x for x in patch
                if not (isinstance(x, dict) and "$patch" in x)]
    if any(isinstance(x, dict) and x.get("$patch") == "replace"
           for x in patch):
        return [x for x in patch if x.get("$patch") != "replace"]
    out = copy.deepcopy(target)
    for item in patch:
        idx = next((i for i, t in enumerate(out)
                    if isinstance(t, dict) and t.get(key) == item.get(key)),
                   None)
        if item.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
        elif idx is None:
            out.append(strategic_merge(None, item))
        else:
            out[idx] = strategic_merge(out[idx], item)
    return out


def strategic_merge(target, patch):
    """Simplified strategic merge patch: returns a new value."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: v for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$setElementOrder/") or k in ("$retainKeys",
                                                      "$patch"):
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            field = k.split("/", 1)[1]
            out[field] = [x for x in out.get(field) or [] if x not in v]
            continue
        if v is None:
            out.pop(k, None)
        elif isinstance(v, list):
            out[k] = _smp_list(k, out.get(k), v)
        elif isinstance(v, dict):
            merged = strategic_merge(out.get(k), v)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
        else:
            out[k] = v
    return out
