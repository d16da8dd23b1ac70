"""The object store of the API-server double: objects kept as serialised JSON
(so 150,000 pods stay small and lists are byte joins), one global
resourceVersion counter, and a bounded history of watch events that also
lets a paginated list read a consistent snapshot.

Every public method takes the store lock; ApiError carries the exact
Status body the real API server would send.
"""
import bisect
import collections
import datetime
import json
import random
import threading
import uuid

import resources

NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


class ApiError(Exception):
    """An error answered as a metav1.Status."""

    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        # metav1.Status field order: ..., reason, details, code
        self.status = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                       "status": "Failure", "message": message}
        if reason:
            self.status["reason"] = reason
        if details is not None:
            self.status["details"] = details
        self.status["code"] = code
        self.headers = headers or {}


def _details(res, name):
    d = {"name": name, "kind": res.plural}
    if res.group:
        d["group"] = res.group
    return d


def not_found(res, name):
    return ApiError(404, "NotFound", '%s "%s" not found'
                    % (res.qualified(), name), _details(res, name))


def already_exists(res, name):
    return ApiError(409, "AlreadyExists", '%s "%s" already exists'
                    % (res.qualified(), name), _details(res, name))


def conflict(res, name, why):
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s '
                    '"%s": %s' % (res.qualified(), name, why),
                    _details(res, name))


def invalid(res, name, field, why, detail):
    d = _details(res, name)
    d["kind"] = res.kind
    d["causes"] = [{"reason": "FieldValue" + why.split(":")[0].replace(
        " ", ""), "message": why, "field": field}]
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s: %s'
                    % (res.kind, name, field, detail), d)


def bad_request(msg):
    return ApiError(400, "BadRequest", msg)


def expired(msg):
    return ApiError(410, "Expired", msg)


STALE = ("the object has been modified; please apply your changes to the "
         "latest version and try again")


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid",
              "resourceVersion", "generation", "creationTimestamp",
              "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
              "annotations", "ownerReferences", "finalizers",
              "managedFields")


def _spec(obj):
    return {k: v for k, v in obj.items()
            if k not in ("metadata", "status", "kind", "apiVersion")}


def dumps(obj):
    """Serialise with kind, apiVersion, metadata first and metadata in Go
    field order, as the real server writes them."""
    head = {}
    for k in ("kind", "apiVersion"):
        if k in obj:
            head[k] = obj[k]
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        m = {k: meta[k] for k in META_ORDER if k in meta}
        m.update(meta)
        head["metadata"] = m
    for k, v in obj.items():
        if k not in head:
            head[k] = v
    return json.dumps(head, separators=(",", ":")).encode()


class Entry:
    __slots__ = ("raw", "rv", "labels", "fields")

    def __init__(self, raw, rv, labels, fields):
        self.raw = raw
        self.rv = rv
        self.labels = labels
        self.fields = fields


class Event:
    """One change: the object after it (for DELETED, the last state with the
    deletion's resourceVersion) and the state before it (None if ADDED)."""
    __slots__ = ("rv", "res", "type", "key", "new", "prev")

    def __init__(self, rv, res, typ, key, new, prev):
        self.rv = rv
        self.res = res
        self.type = typ
        self.key = key
        self.new = new
        self.prev = prev


def obj_key(res, ns, name):
    return ns + "/" + name if res.namespaced else name


class Store:
    def __init__(self, history_size=10000):
        lock = threading.RLock()
        self.cond = threading.Condition(lock)
        # Watches wait per resource, so a write wakes only its own kind's.
        self.wconds = {r.key: threading.Condition(lock)
                       for r in resources.RESOURCES}
        self.rv = 0
        self.compacted = 0      # watches from an older RV get 410
        self.history = collections.deque()
        self.history_size = max(1, history_size)
        self.objs = {r.key: {} for r in resources.RESOURCES}
        self.sorted = {}

    # -- helpers -----------------------------------------------------------
    def _entry(self, res, obj, rv):
        meta = obj["metadata"]
        meta["resourceVersion"] = str(rv)
        labels = meta.get("labels") or None
        return Entry(dumps(obj), rv, labels,
                     resources.field_values(res, obj))

    def _record(self, res, typ, key, new, prev):
        self.history.append(Event(self.rv, res.key, typ, key, new, prev))
        while len(self.history) > self.history_size:
            self.compacted = self.history.popleft().rv
        self.cond.notify_all()
        self.wconds[res.key].notify_all()

    def _put(self, res, key, entry):
        table = self.objs[res.key]
        if key not in table:
            self.sorted.pop(res.key, None)
        table[key] = entry

    def _keys(self, res):
        keys = self.sorted.get(res.key)
        if keys is None:
            keys = sorted(self.objs[res.key])
            self.sorted[res.key] = keys
        return keys

    def compact(self):
        """Forget all history: watches from any older RV get 410."""
        with self.cond:
            self.history.clear()
            self.compacted = self.rv
            self.wake_all()

    def wake_all(self):
        """Wake every waiter: rv waiters and the watches of every kind."""
        with self.cond:
            self.cond.notify_all()
            for c in self.wconds.values():
                c.notify_all()

    # -- reads -------------------------------------------------------------
    def get(self, res, ns, name):
        with self.cond:
            e = self.objs[res.key].get(obj_key(res, ns, name))
            if e is None:
                raise not_found(res, name)
            return e.raw

    def get_obj(self, res, ns, name):
        return json.loads(self.get(res, ns, name))

    def current_rv(self):
        with self.cond:
            return self.rv

    def _snapshot_changes(self, res, at_rv):
        """key -> Entry-or-None as of at_rv for objects changed since."""
        changes = {}
        for ev in reversed(self.history):
            if ev.rv <= at_rv:
                break
            if ev.res == res.key:
                changes[ev.key] = ev.prev   # the oldest one wins
        return changes

    def list(self, res, ns, label_pred, field_pred, limit=0, start="",
             at_rv=None):
        """Items (raw bytes) in key order from start, matching the
        predicates, at resourceVersion at_rv (None: now). Returns
        (items, list_rv, next_start or None, remaining or None)."""
        with self.cond:
            if at_rv is None or at_rv >= self.rv:
                at_rv = self.rv
                changes = {}
            else:
                if at_rv < self.compacted:
                    raise expired("too old resource version: %d (%d)"
                                  % (at_rv, self.compacted))
                changes = self._snapshot_changes(res, at_rv)
            table = self.objs[res.key]
            keys = self._keys(res)
            if changes:
                keys = sorted(set(keys) | set(changes))
            prefix = ns + "/" if (res.namespaced and ns) else ""
            lo = bisect.bisect_left(keys, max(prefix, start))
            # '0' follows '/', so this is the end of the namespace's keys
            end = (bisect.bisect_left(keys, prefix[:-1] + "0")
                   if prefix else len(keys))
            items = []
            i = lo
            while i < end:
                k = keys[i]
                i += 1
                e = changes[k] if k in changes else table.get(k)
                if e is None:
                    continue
                if label_pred and not label_pred(e.labels):
                    continue
                if field_pred and not field_pred(e.fields):
                    continue
                items.append(e.raw)
                if limit and len(items) >= limit:
                    break
            nxt = None
            remaining = None
            if limit and len(items) >= limit and i < end:
                nxt = keys[i - 1] + "\x00"
                if not label_pred and not field_pred:
                    remaining = end - i
                    if changes:
                        remaining = sum(
                            1 for k in keys[i:end]
                            if (changes[k] if k in changes
                                else table.get(k)))
            return items, at_rv, nxt, remaining

    # -- writes ------------------------------------------------------------
    def create(self, res, ns, obj, strategy=None, keep_meta=False):
        """Create obj (a dict, changed in place). strategy(obj) runs under
        the lock to apply per-kind defaults. keep_meta keeps a given uid
        and creationTimestamp (bulk load). Returns the raw stored object."""
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise bad_request("metadata must be an object")
        obj["kind"] = res.kind
        obj["apiVersion"] = res.api_version
        if res.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and ns and body_ns != ns:
                raise bad_request(
                    "the namespace of the provided object does not match "
                    "the namespace sent on the request")
            meta["namespace"] = ns or body_ns or "default"
            ns = meta["namespace"]
        else:
            meta.pop("namespace", None)
            ns = ""
        if not keep_meta and meta.get("resourceVersion"):
            raise ApiError(500, "", "resourceVersion should not be set on "
                           "objects to be created")
        with self.cond:
            if not meta.get("name"):
                if not meta.get("generateName"):
                    raise invalid(res, "", "metadata.name", "Required value",
                                  "Required value: name or generateName is "
                                  "required")
                while True:
                    meta["name"] = meta["generateName"] + "".join(
                        random.choice(NAME_CHARS) for _ in range(5))
                    if obj_key(res, ns, meta["name"]) not in \
                            self.objs[res.key]:
                        break
            name = meta["name"]
            key = obj_key(res, ns, name)
            if key in self.objs[res.key]:
                raise already_exists(res, name)
            if not keep_meta or not meta.get("uid"):
                meta["uid"] = str(uuid.uuid4())
            if not keep_meta or not meta.get("creationTimestamp"):
                meta["creationTimestamp"] = now_rfc3339()
            if not keep_meta:
                meta["generation"] = 1
            if strategy:
                strategy(obj)
            self.rv += 1
            entry = self._entry(res, obj, self.rv)
            self._put(res, key, entry)
            if not keep_meta:
                self._record(res, "ADDED", key, entry, None)
            return entry.raw

    def update(self, res, ns, name, mutate):
        """Read-modify-write: mutate(current_obj) returns the new object or
        raises ApiError; a new object whose resourceVersion is set and
        differs from the stored one is a 409 Conflict. Returns raw."""
        with self.cond:
            key = obj_key(res, ns, name)
            cur = self.objs[res.key].get(key)
            if cur is None:
                raise not_found(res, name)
            old = json.loads(cur.raw)
            new = mutate(json.loads(cur.raw))  # a copy: faster than deepcopy
            meta = new.setdefault("metadata", {})
            if meta.get("name", name) != name:
                raise bad_request("the name of the object (%s) does not "
                                  "match the name on the URL (%s)"
                                  % (meta.get("name"), name))
            if res.namespaced and meta.get("namespace", ns) != ns:
                raise bad_request(
                    "the namespace of the provided object does not match "
                    "the namespace sent on the request")
            want = meta.get("resourceVersion")
            if want and want != str(cur.rv):
                raise conflict(res, name, STALE)
            new["kind"] = res.kind
            new["apiVersion"] = res.api_version
            meta["name"] = name
            if res.namespaced:
                meta["namespace"] = ns
            for k in ("uid", "creationTimestamp"):
                meta[k] = old["metadata"].get(k)
            gen = old["metadata"].get("generation")
            if gen is None:
                meta.pop("generation", None)
            else:
                meta["generation"] = gen
                if res.gen and _spec(old) != _spec(new):
                    meta["generation"] = gen + 1
            old["metadata"]["resourceVersion"] = str(cur.rv)
            if new == old:
                return cur.raw     # a no-op write keeps the RV, as etcd
            self.rv += 1
            entry = self._entry(res, new, self.rv)
            self._put(res, key, entry)
            self._record(res, "MODIFIED", key, entry, cur)
            return entry.raw

    def delete(self, res, ns, name, precond_uid=None, precond_rv=None):
        """Delete at once; returns the raw object as it was stored."""
        with self.cond:
            key = obj_key(res, ns, name)
            cur = self.objs[res.key].get(key)
            if cur is None:
                raise not_found(res, name)
            if precond_uid or precond_rv:
                obj = json.loads(cur.raw)
                if precond_uid and obj["metadata"].get("uid") != precond_uid:
                    raise conflict(res, name, "Precondition failed: UID in "
                                   "precondition: %s, UID in object meta: %s"
                                   % (precond_uid,
                                      obj["metadata"].get("uid")))
                if precond_rv and precond_rv != str(cur.rv):
                    raise conflict(res, name, "Precondition failed: "
                                   "ResourceVersion in precondition: %s, "
                                   "ResourceVersion in object meta: %d"
                                   % (precond_rv, cur.rv))
            del self.objs[res.key][key]
            self.sorted.pop(res.key, None)
            self.rv += 1
            obj = json.loads(cur.raw)
            gone = self._entry(res, obj, self.rv)
            self._record(res, "DELETED", key, gone, cur)
            return cur.raw

    # -- watch -------------------------------------------------------------
    def events_since(self, res, since, timeout):
        """Wait up to timeout seconds for events of res after RV since.
        Returns (events, scanned_rv); raises ApiError 410 when since is
        older than the retained history."""
        with self.cond:
            while True:
                if since < self.compacted:
                    raise expired("too old resource version: %d (%d)"
                                  % (since, self.compacted))
                out = []
                for ev in reversed(self.history):
                    if ev.rv <= since:
                        break
                    if ev.res == res.key:
                        out.append(ev)
                if out or timeout <= 0:
                    out.reverse()
                    return out, self.rv
                self.wconds[res.key].wait(timeout)
                timeout = 0

    def state(self, only=None):
        """The full state as raw JSON bytes (for GET /_state)."""
        with self.cond:
            parts = [b'{"resourceVersion":"%d","compactedResourceVersion":'
                     b'"%d","historyLength":%d,"resources":{'
                     % (self.rv, self.compacted, len(self.history))]
            first = True
            for r in resources.RESOURCES:
                if r.plural == "bindings" or (only and r.key not in only):
                    continue
                table = self.objs[r.key]
                parts.append(b"%s%s:[" % (b"" if first else b",",
                                          json.dumps(r.key).encode()))
                parts.append(b",".join(table[k].raw for k in self._keys(r)))
                parts.append(b"]")
                first = False
            parts.append(b"}}")
            return b"".join(parts)

    def counts(self):
        with self.cond:
            return {k: len(v) for k, v in self.objs.items() if v}
