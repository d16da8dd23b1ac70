"""Per-kind behaviour of the double (the registry "strategies" of the real
server, cut down): defaults and status reset on create, which parts a PUT
on the main resource or on /status may change, and pod spec immutability.
"""
import copy

import store


def _image_pull_policy(image):
    tag = image.rsplit("/", 1)[-1]
    if "@" in tag:
        return "IfNotPresent"
    if ":" not in tag or tag.endswith(":latest"):
        return "Always"
    return "IfNotPresent"


def _default_container(c):
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    c.setdefault("imagePullPolicy", _image_pull_policy(c.get("image", "")))
    res = c.setdefault("resources", {})
    limits = res.get("limits") or {}
    if limits:
        # defaulting: a limit without a request is also the request
        req = res.setdefault("requests", {})
        for k, v in limits.items():
            req.setdefault(k, v)


def qos_class(spec):
    """Guaranteed / Burstable / BestEffort, from cpu and memory only."""
    conts = (spec.get("containers") or []) + (spec.get("initContainers")
                                              or [])
    any_set = False
    guaranteed = True
    for c in conts:
        res = c.get("resources") or {}
        req = res.get("requests") or {}
        lim = res.get("limits") or {}
        for r in ("cpu", "memory"):
            if r in req or r in lim:
                any_set = True
            if r not in lim or req.get(r, lim[r]) != lim[r]:
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def pod_defaults(obj):
    """Defaulting, which the real server applies to every decoded pod."""
    spec = obj.setdefault("spec", {})
    for c in (spec.get("containers") or []) + (spec.get("initContainers")
                                               or []):
        _default_container(c)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("priority", 0)


def pod_create(obj):
    pod_defaults(obj)
    # the pod strategy throws away any status sent with a create
    obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj["spec"])}


def namespace_create(obj):
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    obj["status"] = {"phase": "Active"}
    labels = obj["metadata"].setdefault("labels", {})
    labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]


CREATE = {"pods": pod_create, "namespaces": namespace_create}

POD_SPEC_MUTABLE = (
    "spec: Forbidden: pod updates may not change fields other than "
    "`spec.containers[*].image`, `spec.initContainers[*].image`, "
    "`spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to "
    "existing tolerations) or `spec.terminationGracePeriodSeconds` (allow "
    "it to be set to 1 if it was previously negative)")


def _pod_spec_core(spec):
    s = copy.deepcopy(spec or {})
    for k in ("activeDeadlineSeconds", "tolerations",
              "terminationGracePeriodSeconds"):
        s.pop(k, None)
    for k in ("containers", "initContainers"):
        for c in s.get(k) or []:
            c.pop("image", None)
    return s


def check_pod_update(res, old, new):
    if _pod_spec_core(old.get("spec")) != _pod_spec_core(new.get("spec")):
        name = old["metadata"]["name"]
        raise store.invalid(res, name, "spec", "Forbidden",
                            POD_SPEC_MUTABLE.split(": ", 1)[1])


def apply_update(res, old, new, subresource):
    """Merge a PUT/PATCH result into what the server keeps: a main-resource
    write keeps the old status (kinds with /status), a /status write keeps
    everything but the status."""
    if subresource == "status":
        out = copy.deepcopy(old)
        if "status" in new:
            out["status"] = new["status"]
        else:
            out.pop("status", None)
        want = new.get("metadata", {}).get("resourceVersion")
        if want:
            out["metadata"]["resourceVersion"] = want
        return out
    if res.status:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
    if res.plural == "pods" and not res.group:
        pod_defaults(new)
        check_pod_update(res, old, new)
    return new
