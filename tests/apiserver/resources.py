"""The resource table of the API-server double: one row per served resource,
as the real server's discovery documents describe them, plus the field
labels each resource accepts in a fieldSelector and the discovery documents
built from the rows.
"""

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch",
             "update", "watch"]
NO_COLLECTION = ["create", "delete", "get", "list", "patch", "update",
                 "watch"]
META_FIELDS = ("metadata.name", "metadata.namespace")


class Resource:
    """One served resource (a table row)."""

    def __init__(self, group, version, plural, singular, kind, namespaced,
                 short=(), verbs=None, status=False, fields=(), cats=(),
                 extra_sub=(), gen=False):
        self.group = group
        self.version = version
        self.plural = plural
        self.singular = singular
        self.kind = kind
        self.namespaced = namespaced
        self.short = list(short)
        self.verbs = verbs or ALL_VERBS
        self.status = status          # has a /status subresource
        self.fields = set(META_FIELDS if namespaced else META_FIELDS[:1])
        self.fields.update(fields)
        self.cats = list(cats)
        self.extra_sub = list(extra_sub)   # (name, kind, verbs)
        self.gen = gen      # spec changes bump metadata.generation
        self.api_version = version if not group else group + "/" + version
        # storage key: one store per (group, plural)
        self.key = plural if not group else plural + "." + group

    def qualified(self):
        """The "pods" / "statefulsets.apps" string of error messages."""
        return self.key


R = Resource
RESOURCES = [
    R("", "v1", "bindings", "binding", "Binding", True, verbs=["create"]),
    R("", "v1", "events", "event", "Event", True, short=["ev"],
      fields=("involvedObject.kind", "involvedObject.namespace",
              "involvedObject.name", "involvedObject.uid",
              "involvedObject.apiVersion", "involvedObject.resourceVersion",
              "involvedObject.fieldPath", "reason", "reportingComponent",
              "source", "type")),
    R("", "v1", "namespaces", "namespace", "Namespace", False, short=["ns"],
      verbs=NO_COLLECTION, status=True, fields=("status.phase",)),
    R("", "v1", "nodes", "node", "Node", False, short=["no"], status=True,
      fields=("spec.unschedulable",)),
    R("", "v1", "persistentvolumeclaims", "persistentvolumeclaim",
      "PersistentVolumeClaim", True, short=["pvc"], status=True),
    R("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume",
      False, short=["pv"], status=True),
    R("", "v1", "pods", "pod", "Pod", True, short=["po"], status=True,
      cats=["all"],
      fields=("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
              "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
              "status.podIP", "status.nominatedNodeName"),
      extra_sub=[("binding", "Binding", ["create"])]),
    R("", "v1", "replicationcontrollers", "replicationcontroller",
      "ReplicationController", True, short=["rc"], status=True,
      cats=["all"], fields=("status.replicas",), gen=True),
    R("", "v1", "services", "service", "Service", True, short=["svc"],
      status=True, cats=["all"]),
    # Stored without semantics, so deployment manifests can be applied.
    R("", "v1", "configmaps", "configmap", "ConfigMap", True, short=["cm"]),
    R("", "v1", "secrets", "secret", "Secret", True),
    R("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", True,
      short=["sa"]),
    R("apps", "v1", "deployments", "deployment", "Deployment", True,
      short=["deploy"], status=True, cats=["all"], gen=True),
    R("apps", "v1", "daemonsets", "daemonset", "DaemonSet", True,
      short=["ds"], status=True, cats=["all"], gen=True),
    R("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget",
      "PodDisruptionBudget", True, short=["pdb"], status=True, gen=True),
    # The same objects as v1beta1 (served up to v1.24): what schedule
    # watches, as v1.20's DefaultPreemption lists.
    R("policy", "v1beta1", "poddisruptionbudgets", "poddisruptionbudget",
      "PodDisruptionBudget", True, short=["pdb"], status=True, gen=True),
    R("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole",
      "ClusterRole", False),
    R("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
      "clusterrolebinding", "ClusterRoleBinding", False),
    R("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", True),
    R("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding",
      "RoleBinding", True),
    R("apps", "v1", "replicasets", "replicaset", "ReplicaSet", True,
      short=["rs"], status=True, cats=["all"], fields=("status.replicas",),
      gen=True),
    R("apps", "v1", "statefulsets", "statefulset", "StatefulSet", True,
      short=["sts"], status=True, cats=["all"], gen=True),
    R("coordination.k8s.io", "v1", "leases", "lease", "Lease", True),
    R("events.k8s.io", "v1", "events", "event", "Event", True, short=["ev"],
      fields=("regarding.kind", "regarding.namespace", "regarding.name",
              "regarding.uid", "reason", "reportingController", "type")),
    R("storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", False),
    R("storage.k8s.io", "v1", "storageclasses", "storageclass",
      "StorageClass", False, short=["sc"]),
]
del R

# Boolean fields read as "false" when absent, as the server's field sets do.
BOOL_FIELDS = {"spec.unschedulable", "spec.hostNetwork"}


def find(group, version, plural):
    for r in RESOURCES:
        if (r.group, r.version, r.plural) == (group, version, plural):
            return r
    return None


def by_kind(api_version, kind):
    for r in RESOURCES:
        if r.api_version == api_version and r.kind == kind:
            return r
    return None


def field_values(res, obj):
    """Field-selector values of obj for res: a dict of strings."""
    out = {}
    meta = obj.get("metadata") or {}
    for f in res.fields:
        if f == "source":
            v = (obj.get("source") or {}).get("component")
        else:
            v = obj
            for part in f.split("."):
                v = v.get(part) if isinstance(v, dict) else None
        if f in BOOL_FIELDS:
            v = "true" if v else "false"
        elif isinstance(v, bool):
            v = "true" if v else "false"
        elif v is None:
            v = ""
        out[f] = str(v)
    out["metadata.name"] = meta.get("name", "")
    if res.namespaced:
        out["metadata.namespace"] = meta.get("namespace", "")
    return out


def groups():
    """[(group, version)] in table order, core first."""
    seen = []
    for r in RESOURCES:
        gv = (r.group, r.version)
        if gv not in seen:
            seen.append(gv)
    return seen


def api_versions(addr):
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": addr}]}


def api_group(group):
    versions = [{"groupVersion": group + "/" + v, "version": v}
                for g, v in groups() if g == group]
    if not versions:
        return None
    return {"name": group, "versions": versions,
            "preferredVersion": versions[0]}


def api_group_list():
    names = []
    for g, _ in groups():
        if g and g not in names:
            names.append(g)
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [api_group(g) for g in names]}


def resource_list(group, version):
    """The APIResourceList of one group version, or None."""
    rows = []
    for r in RESOURCES:
        if (r.group, r.version) != (group, version):
            continue
        row = {"name": r.plural, "singularName": r.singular,
               "namespaced": r.namespaced, "kind": r.kind,
               "verbs": r.verbs}
        if r.short:
            row["shortNames"] = r.short
        if r.cats:
            row["categories"] = r.cats
        rows.append(row)
        for name, kind, verbs in r.extra_sub:
            rows.append({"name": r.plural + "/" + name, "singularName": "",
                         "namespaced": r.namespaced, "kind": kind,
                         "verbs": verbs})
        if r.status:
            rows.append({"name": r.plural + "/status", "singularName": "",
                         "namespaced": r.namespaced, "kind": r.kind,
                         "verbs": ["get", "patch", "update"]})
    if not rows:
        return None
    gv = version if not group else group + "/" + version
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": gv, "resources": rows}
