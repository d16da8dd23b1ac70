#!/usr/bin/env python3
"""kube-apiserver double for kube-policy-extender's tests.

Speaks the Kubernetes JSON wire format over HTTP/1.1 (optionally TLS) on a
loopback address: discovery, get/list/watch/create/update/patch/delete for
the resources in resources.py, pods/binding and */status, selectors,
pagination, watch bookmarks and 410 Expired, bearer-token and client-cert
auth, and admin endpoints under /_ for fault injection and state dumps.
Python 3 standard library only. See README.md beside this file.
"""
import argparse
import base64
import binascii
import collections
import io
import ipaddress
import json
import os
import select
import socket
import ssl
import sys
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kinds  # noqa: E402
import loader  # noqa: E402
import patch  # noqa: E402
import resources  # noqa: E402
import k8s_selectors as sel  # noqa: E402
from store import (ApiError, Store, bad_request, conflict, dumps,  # noqa
                   expired, invalid, now_rfc3339)

JSON = "application/json"
MAX_BODY = 64 << 20


def status_success(code, details=None):
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {},
         "status": "Success", "code": code}
    if details:
        s["details"] = details
    return s


def not_found_path():
    return ApiError(404, "NotFound",
                    "the server could not find the requested resource",
                    {})


def method_not_allowed():
    return ApiError(405, "MethodNotAllowed",
                    "the server does not allow this method on the requested"
                    " resource", {})


def internal(msg):
    return ApiError(500, "InternalError", "Internal error occurred: " + msg,
                    {"causes": [{"message": msg}]})


class Faults:
    """Fault-injection state, changed through POST /_fault."""

    def __init__(self):
        self.lock = threading.Lock()
        self.errors = []         # dicts: code, count, path, verb, message
        self.delays = []         # dicts: ms, count, path, verb
        self.expire_watches = 0
        self.expire_http = False
        self.drop_gen = 0
        self.drop_mode = "close"

    @staticmethod
    def _match(rule, path, verb):
        if rule.get("path") and not path.startswith(rule["path"]):
            return False
        if rule.get("verb") and rule["verb"] != verb:
            return False
        return True

    def _take(self, rules, path, verb):
        for r in rules:
            if self._match(r, path, verb):
                if r.get("count", 0) > 0:
                    r["count"] -= 1
                    if r["count"] == 0:
                        rules.remove(r)
                return r
        return None

    def take_error(self, path, verb):
        with self.lock:
            return self._take(self.errors, path, verb)

    def take_delay(self, path, verb):
        with self.lock:
            r = self._take(self.delays, path, verb)
            return r["ms"] / 1000.0 if r else 0

    def take_expire(self):
        with self.lock:
            if self.expire_watches > 0:
                self.expire_watches -= 1
                return True
            return False

    def snapshot(self):
        with self.lock:
            return {"errors": list(self.errors), "delays": list(self.delays),
                    "expireNextWatches": self.expire_watches,
                    "dropGeneration": self.drop_gen}


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.by_verb = collections.Counter()
        self.by_code = collections.Counter()
        self.total = 0
        self.open_watches = getattr(self, "open_watches", 0)

    def hit(self, what):
        with self.lock:
            self.total += 1
            self.by_verb[what] += 1

    def code(self, code):
        with self.lock:
            self.by_code[str(code)] += 1

    def watches(self, delta):
        with self.lock:
            self.open_watches += delta

    def snapshot(self):
        with self.lock:
            return {"total": self.total, "requests": dict(self.by_verb),
                    "codes": dict(self.by_code),
                    "openWatches": self.open_watches}


class Route:
    """A parsed resource path."""

    def __init__(self, res, ns, name, sub, watch_path):
        self.res = res
        self.ns = ns
        self.name = name
        self.sub = sub
        self.watch_path = watch_path


def parse_resource_path(parts):
    """parts after "api" or "apis": return a Route, or None."""
    if parts[0] == "api":
        group, rest = "", parts[1:]
    else:
        if len(parts) < 3:
            return None
        group, rest = parts[1], parts[2:]
    if not rest:
        return None
    version, rest = rest[0], rest[1:]
    watch_path = False
    if rest and rest[0] == "watch":
        watch_path, rest = True, rest[1:]
    if not rest:
        return None
    ns = ""
    if (rest[0] == "namespaces" and len(rest) >= 3):
        cand = resources.find(group, version, rest[2])
        if cand and cand.namespaced:
            ns, rest = rest[1], rest[2:]
    res = resources.find(group, version, rest[0])
    if res is None or (ns and not res.namespaced):
        return None
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if len(rest) > 3:
        return None
    return Route(res, ns, name, sub, watch_path)


def truthy(v):
    return v in ("true", "1", "True")


class Headers(dict):
    """Request headers by lower-case name (the first of repeated ones, as
    email.message.Message.get answers)."""

    def add(self, name, value):
        self.setdefault(name.strip().lower(), value)

    def get(self, name, default=None):
        return dict.get(self, name.lower(), default)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-apiserver-double"
    # Keep-alive clients wait for each answer: without TCP_NODELAY a
    # response written in two parts waits for the delayed ACK (40 ms).
    disable_nagle_algorithm = True

    # -- plumbing ----------------------------------------------------------
    def parse_request(self):
        """The request line and headers, as BaseHTTPRequestHandler reads
        them (HTTP/1.0 and 1.1, keep-alive, Connection: close, Expect:
        100-continue, 400/431/505 answers), with the headers in a plain
        case-insensitive map: the email package the standard parser uses
        costs more than the rest of a Binding."""
        self.command = None
        self.request_version = self.default_request_version
        self.close_connection = True
        line = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        self.requestline = line
        words = line.split()
        if len(words) != 3:
            self.send_error(400, "Bad request syntax (%r)" % line)
            return False
        self.command, self.path, version = words
        vnum = version[5:].split(".") if version.startswith("HTTP/") else []
        if len(vnum) != 2 or not all(v.isdigit() for v in vnum):
            self.send_error(400, "Bad request version (%r)" % version)
            return False
        self.request_version = version
        if int(vnum[0]) >= 2:
            self.send_error(505, "Invalid HTTP version (%s)" % version)
            return False
        if self.path.startswith("//"):
            self.path = "/" + self.path.lstrip("/")
        self.headers = Headers()
        while True:
            raw = self.rfile.readline(65537)
            if len(raw) > 65536:
                self.send_error(431, "Line too long")
                return False
            if raw in (b"\r\n", b"\n", b""):
                break
            if len(self.headers) >= 100:
                self.send_error(431, "Too many headers")
                return False
            k, _, v = str(raw, "iso-8859-1").partition(":")
            self.headers.add(k, v.strip())
        if (int(vnum[0]), int(vnum[1])) >= (1, 1):
            self.close_connection = False
        conn = self.headers.get("Connection", "").lower()
        if conn == "close":
            self.close_connection = True
        elif conn == "keep-alive":
            self.close_connection = False
        if (self.headers.get("Expect", "").lower() == "100-continue" and
                version != "HTTP/1.0"):
            return self.handle_expect_100()
        return True

    def log_message(self, fmt, *args):
        if self.server.opts.verbose:
            sys.stderr.write("apiserver: %s %s\n" % (self.address_string(),
                                                     fmt % args))

    def send_json(self, code, body, headers=None):
        raw = body if isinstance(body, bytes) else json.dumps(
            body, separators=(",", ":")).encode()
        self.server.counters.code(code)
        self.send_response(code)
        self.send_header("Content-Type", JSON)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        # end_headers() with the body in the same write: one send per answer.
        self._headers_buffer.append(b"\r\n")
        if self.command != "HEAD":
            self._headers_buffer.append(raw)
        self.flush_headers()

    def send_error_status(self, err):
        self.send_json(err.code, err.status, err.headers)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        self._drained = True
        if n > MAX_BODY:
            raise ApiError(413, "RequestEntityTooLarge",
                           "Request entity too large: limit is %d" % MAX_BODY)
        return self.rfile.read(n) if n else b""

    def read_json(self, any_type=False):
        raw = self.read_body()
        ctype = (self.headers.get("Content-Type") or JSON).split(";")[0]
        if not any_type and ctype.strip() not in (JSON, "application/json-patch+json",
                                 "application/merge-patch+json",
                                 "application/strategic-merge-patch+json"):
            raise ApiError(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format"
                           " - accepted media types include: "
                           "application/json")
        try:
            return json.loads(raw or b"null")
        except ValueError as e:
            raise bad_request("the server rejected our request due to an "
                              "error in our request: " + str(e)) from None

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # -- dispatch ----------------------------------------------------------
    def dispatch(self):
        srv = self.server
        url = urllib.parse.urlsplit(self.path)
        self.q = {k: v[-1] for k, v in urllib.parse.parse_qs(
            url.query, keep_blank_values=True).items()}
        path = url.path.rstrip("/") or "/"
        parts = [urllib.parse.unquote(p) for p in path.split("/") if p]
        try:
            if parts and parts[0].startswith("_"):
                srv.counters.hit("admin " + parts[0])
                return self.admin(parts)
            route = None
            if parts and parts[0] in ("api", "apis"):
                route = parse_resource_path(parts)
            verb = self.verb(route)
            srv.counters.hit(verb)
            delay = srv.faults.take_delay(path, verb.split(" ")[0])
            if delay:
                time.sleep(delay)
            rule = srv.faults.take_error(path, verb.split(" ")[0])
            if rule and rule["code"] == 0 and rule["after"]:
                # The request takes effect, then the connection ends
                # with no answer (a server going down mid-request).
                return self.lose_answer(parts, route)
            if rule and rule["code"] == 0:
                # An unreachable server: the connection ends, no answer.
                self.drain()
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if rule:
                raise self.injected(rule)
            self.authenticate()
            if route is not None:
                return self.resource(route)
            return self.nonresource(parts)
        except ApiError as e:
            self.drain()
            self.send_error_status(e)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a bug in the double: say so, loudly
            traceback.print_exc()
            self.send_error_status(internal(repr(e)))

    def lose_answer(self, parts, route):
        sent = self.wfile
        self.wfile = io.BytesIO()  # the answer, never sent
        try:
            self.authenticate()
            if route is not None:
                self.resource(route)
            else:
                self.nonresource(parts)
        except ApiError:
            pass
        finally:
            self.wfile = sent
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drain(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n and not getattr(self, "_drained", False):
            try:
                self.rfile.read(n)
            except OSError:
                pass
        self._drained = True

    def verb(self, r):
        m = self.command
        if r is None:
            return "%s %s" % (m, urllib.parse.urlsplit(self.path).path)
        what = r.res.key + ("/" + r.sub if r.sub else "")
        if m == "GET":
            if r.watch_path or truthy(self.q.get("watch")):
                v = "watch"
            else:
                v = "get" if r.name else "list"
        elif m == "POST":
            v = "create"
        elif m == "PUT":
            v = "update"
        elif m == "PATCH":
            v = "patch"
        elif m == "DELETE":
            v = "delete" if r.name else "deletecollection"
        else:
            v = m.lower()
        return "%s %s" % (v, what)

    def injected(self, rule):
        code = int(rule.get("code", 500))
        msg = rule.get("message")
        reasons = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden",
                   404: "NotFound", 409: "Conflict", 410: "Expired",
                   429: "TooManyRequests", 500: "InternalError",
                   503: "ServiceUnavailable", 504: "Timeout"}
        if code == 500:
            return internal(msg or "injected fault")
        if code == 401:
            return ApiError(401, "Unauthorized", msg or "Unauthorized")
        headers = {"Retry-After": "1"} if code in (429, 503) else None
        details = {"retryAfterSeconds": 1} if headers else None
        return ApiError(code, reasons.get(code, ""), msg or
                        "injected fault", details, headers)

    def authenticate(self):
        srv = self.server
        if not srv.tokens and not srv.opts.client_ca:
            return
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Bearer ") and auth[7:].strip() in srv.tokens:
            return
        if srv.opts.client_ca and isinstance(self.connection, ssl.SSLSocket):
            if self.connection.getpeercert():
                return
        raise ApiError(401, "Unauthorized", "Unauthorized")

    # -- non-resource paths ------------------------------------------------
    def nonresource(self, parts):
        if self.command not in ("GET", "HEAD"):
            raise method_not_allowed()
        p = "/".join(parts)
        srv = self.server
        if p == "version":
            return self.send_json(200, srv.version_info)
        if p in ("healthz", "livez", "readyz"):
            raw = b"ok"
            self.server.counters.code(200)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            return self.wfile.write(raw)
        if p == "api":
            return self.send_json(200, resources.api_versions(srv.addr))
        if p == "apis":
            return self.send_json(200, resources.api_group_list())
        if p == "api/v1":
            return self.send_json(200, resources.resource_list("", "v1"))
        if len(parts) == 2 and parts[0] == "apis":
            g = resources.api_group(parts[1])
            if g:
                g = dict(g, kind="APIGroup", apiVersion="v1")
                return self.send_json(200, g)
        if len(parts) == 3 and parts[0] == "apis":
            rl = resources.resource_list(parts[1], parts[2])
            if rl:
                return self.send_json(200, rl)
        if p == "openapi/v2":
            return self.openapi_v2()
        # no OpenAPI v3: kubectl falls back to v2
        raise not_found_path()

    def openapi_v2(self):
        """An OpenAPI v2 document without definitions (protobuf or JSON):
        kubectl's client-side validation skips kinds it has no schema for,
        and apply falls back to its built-in patch metadata."""
        v = self.server.version_info["gitVersion"]
        accept = self.headers.get("Accept") or ""
        if "protobuf" in accept:
            title = b"Kubernetes"
            info = (b"\x0a" + bytes([len(title)]) + title + b"\x12"
                    + bytes([len(v)]) + v.encode())
            raw = b"\x0a\x032.0\x12" + bytes([len(info)]) + info
            ctype = "application/com.github.proto-openapi.spec.v2.v1.0" \
                "+protobuf"
        else:
            raw = json.dumps({"swagger": "2.0", "info": {
                "title": "Kubernetes", "version": v}, "paths": {},
                "definitions": {}}).encode()
            ctype = JSON
        self.server.counters.code(200)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    # -- resources ---------------------------------------------------------
    def resource(self, r):
        m = self.command
        if r.res.plural == "bindings":
            if m != "POST" or r.name:
                raise method_not_allowed()
            return self.bind(r, self.read_json())
        if r.sub and r.sub not in ("status", "binding"):
            raise not_found_path()
        if r.sub == "binding" and (r.res.key != "pods" or m != "POST"):
            raise method_not_allowed() if r.res.key == "pods" else \
                not_found_path()
        if r.sub == "status" and (not r.res.status or m not in (
                "GET", "HEAD", "PUT", "PATCH")):
            raise method_not_allowed() if r.res.status else \
                not_found_path()
        if r.watch_path or (m == "GET" and truthy(self.q.get("watch"))):
            return self.watch(r)
        if m in ("GET", "HEAD"):
            if r.name:
                return self.get(r)
            return self.list(r)
        if m == "POST":
            if r.sub == "binding":
                return self.bind(r, self.read_json())
            if r.name:
                raise method_not_allowed()
            return self.create(r)
        if m == "PUT" and r.name:
            return self.update(r)
        if m == "PATCH" and r.name:
            return self.patch(r)
        if m == "DELETE":
            if r.name:
                return self.delete(r)
            return self.delete_collection(r)
        raise method_not_allowed()

    def check_ns(self, r):
        if r.res.namespaced and not r.ns:
            raise method_not_allowed()

    def respond_obj(self, code, raw, r):
        """Answer one object (JSON only: no server-side Table)."""
        return self.send_json(code, raw)

    def get(self, r):
        if not r.res.namespaced or r.ns:
            return self.respond_obj(200, self.server.store.get(
                r.res, r.ns, r.name), r)
        raise not_found_path()

    def selectors(self, r):
        try:
            lp = sel.parse_label_selector(self.q.get("labelSelector"))
            fp = sel.parse_field_selector(self.q.get("fieldSelector"),
                                                r.res.fields)
        except sel.SelectorError as e:
            raise bad_request(str(e)) from None
        return lp, fp

    def list(self, r):
        lp, fp = self.selectors(r)
        st = self.server.store
        limit = 0
        if self.q.get("limit"):
            try:
                limit = max(0, int(self.q["limit"]))
            except ValueError:
                raise bad_request("invalid limit %r" % self.q["limit"]) \
                    from None
        start, at_rv = "", None
        rv = self.q.get("resourceVersion", "")
        match = self.q.get("resourceVersionMatch", "")
        cont = self.q.get("continue", "")
        if cont:
            start, at_rv = decode_continue(cont, st)
        elif rv == "0" and match != "Exact":
            limit = 0     # served from the watch cache: no paging
        elif rv:
            try:
                want = int(rv)
            except ValueError:
                raise bad_request("invalid resource version %r" % rv) \
                    from None
            if match == "Exact":
                at_rv = want
            elif want > st.current_rv():
                self.wait_rv(want)
        items, list_rv, nxt, remaining = st.list(
            r.res, r.ns, lp, fp, limit, start, at_rv)
        meta = {"resourceVersion": str(list_rv)}
        if nxt is not None:
            meta["continue"] = encode_continue(list_rv, nxt)
            if remaining is not None:
                meta["remainingItemCount"] = remaining
        head = json.dumps({"kind": r.res.kind + "List",
                           "apiVersion": r.res.api_version,
                           "metadata": meta},
                          separators=(",", ":")).encode()
        body = b"".join([head[:-1], b',"items":[', b",".join(items), b"]}"])
        return self.send_json(200, body)

    def wait_rv(self, want):
        st = self.server.store
        deadline = time.time() + 3
        with st.cond:
            while st.rv < want and time.time() < deadline:
                st.cond.wait(deadline - time.time())
            if st.rv < want:
                raise ApiError(504, "Timeout", "Too large resource version: "
                               "%d, current: %d" % (want, st.rv),
                               {"causes": [{"reason":
                                            "ResourceVersionTooLarge",
                                            "message": "Too large resource "
                                            "version"}],
                                "retryAfterSeconds": 1})

    def create(self, r):
        self.check_ns(r)
        obj = self.read_json()
        if not isinstance(obj, dict):
            raise bad_request("Object 'Kind' is missing in 'null'")
        kind = obj.get("kind")
        if kind and kind != r.res.kind:
            raise bad_request("the API version in the data (%s) does not "
                              "match the expected API version (%s)"
                              % (obj.get("apiVersion"), r.res.api_version)
                              if obj.get("apiVersion") != r.res.api_version
                              else "Object kind %s does not match %s"
                              % (kind, r.res.kind))
        raw = self.server.store.create(r.res, r.ns, obj,
                                       kinds.CREATE.get(r.res.key))
        return self.respond_obj(201, raw, r)

    def update(self, r):
        self.check_ns(r)
        body = self.read_json()
        if not isinstance(body, dict):
            raise bad_request("Object 'Kind' is missing")

        def mutate(old):
            return kinds.apply_update(r.res, old, body, r.sub)
        raw = self.server.store.update(r.res, r.ns, r.name, mutate)
        return self.respond_obj(200, raw, r)

    def patch(self, r):
        self.check_ns(r)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0]
        ctype = ctype.strip()
        fns = {"application/json-patch+json": patch.json_patch,
               "application/merge-patch+json": patch.merge_patch,
               "application/strategic-merge-patch+json":
                   patch.strategic_merge}
        if ctype not in fns:
            self.drain()
            raise ApiError(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown "
                           "format - accepted media types include: "
                           "application/json-patch+json, "
                           "application/merge-patch+json, "
                           "application/strategic-merge-patch+json")
        body = self.read_json()
        fn = fns[ctype]

        def mutate(old):
            try:
                new = fn(old, body)
            except patch.PatchError as e:
                raise ApiError(422 if ctype.startswith(
                    "application/json-patch") else 400,
                    "Invalid" if ctype.startswith("application/json-patch")
                    else "BadRequest", str(e)) from None
            if not isinstance(new, dict):
                raise bad_request("patch result is not an object")
            if r.sub != "status" and new.get("metadata", {}).get(
                    "resourceVersion") == old["metadata"]["resourceVersion"]:
                new["metadata"].pop("resourceVersion", None)
            return kinds.apply_update(r.res, old, new, r.sub)
        raw = self.server.store.update(r.res, r.ns, r.name, mutate)
        return self.respond_obj(200, raw, r)

    def delete_options(self):
        try:
            body = self.read_json() if int(
                self.headers.get("Content-Length") or 0) else None
        except ApiError:
            body = None
        pre = (body or {}).get("preconditions") or {}
        return pre.get("uid"), pre.get("resourceVersion")

    def delete(self, r):
        if r.res.namespaced and not r.ns:
            raise not_found_path()
        uid, rv = self.delete_options()
        raw = self.server.store.delete(r.res, r.ns, r.name, uid, rv)
        return self.respond_obj(200, raw, r)

    def delete_collection(self, r):
        if "deletecollection" not in r.res.verbs:
            raise method_not_allowed()
        self.delete_options()
        lp, fp = self.selectors(r)
        st = self.server.store
        items, _, _, _ = st.list(r.res, r.ns, lp, fp)
        gone = []
        for raw in items:
            meta = json.loads(raw)["metadata"]
            try:
                gone.append(st.delete(r.res, meta.get("namespace", ""),
                                      meta["name"]))
            except ApiError:
                pass
        head = json.dumps({"kind": r.res.kind + "List",
                           "apiVersion": r.res.api_version,
                           "metadata": {"resourceVersion":
                                        str(st.current_rv())}},
                          separators=(",", ":")).encode()
        return self.send_json(200, b"".join(
            [head[:-1], b',"items":[', b",".join(gone), b"]}"]))

    def bind(self, r, b):
        """pods/binding and core/v1 bindings: set spec.nodeName once."""
        if not isinstance(b, dict):
            raise bad_request("Object 'Kind' is missing")
        pods = resources.find("", "v1", "pods")
        bres = resources.find("", "v1", "bindings")
        meta = b.get("metadata") or {}
        name = r.name or meta.get("name", "")
        if r.name and meta.get("name") and meta["name"] != r.name:
            raise bad_request("name in URL does not match name in Binding "
                              "object")
        if not r.ns:
            raise not_found_path()
        target = b.get("target") or {}
        if target.get("kind", "") not in ("", "Node"):
            raise invalid(bres, name, "target.kind", "Not supported",
                          "Invalid value: \"%s\": must be empty or 'Node'"
                          % target.get("kind"))
        node = target.get("name", "")
        if not node:
            raise invalid(bres, name, "target.name", "Required value",
                          "Required value")
        annotations = meta.get("annotations") or {}
        want_uid = meta.get("uid")

        def mutate(pod):
            pm = pod["metadata"]
            if want_uid and pm.get("uid") != want_uid:
                raise conflict(pods, name, "Precondition failed: UID in "
                               "precondition: %s, UID in object meta: %s"
                               % (want_uid, pm.get("uid")))
            spec = pod.setdefault("spec", {})
            if spec.get("nodeName"):
                err = conflict(pods, name, 'pod %s is already assigned to '
                               'node "%s"' % (name, spec["nodeName"]))
                err.status["message"] = err.status["message"].replace(
                    "on pods ", "on pods/binding ", 1)
                err.status["details"]["kind"] = "pods/binding"
                raise err
            spec["nodeName"] = node
            if annotations:
                pm.setdefault("annotations", {}).update(annotations)
            conds = pod.setdefault("status", {}).setdefault("conditions", [])
            for c in conds:
                if c.get("type") == "PodScheduled":
                    if c.get("status") != "True":
                        c["lastTransitionTime"] = now_rfc3339()
                    c["status"] = "True"
                    c.pop("reason", None)
                    c.pop("message", None)
                    break
            else:
                conds.append({"type": "PodScheduled", "status": "True",
                              "lastProbeTime": None,
                              "lastTransitionTime": now_rfc3339()})
            return pod
        self.server.store.update(pods, r.ns, name, mutate)
        return self.send_json(201, status_success(201))

    # -- watch -------------------------------------------------------------
    def watch(self, r):
        srv = self.server
        st = srv.store
        lp, fp = self.selectors(r)
        if r.name:
            name = r.name
            prev_fp = fp
            fp = (lambda f: f.get("metadata.name") == name and
                  (prev_fp is None or prev_fp(f)))
        rv = self.q.get("resourceVersion", "")
        timeout = 0
        if self.q.get("timeoutSeconds"):
            try:
                timeout = float(self.q["timeoutSeconds"])
            except ValueError:
                raise bad_request("invalid timeoutSeconds") from None
        if not timeout and srv.opts.watch_timeout:
            timeout = srv.opts.watch_timeout
        bookmarks = truthy(self.q.get("allowWatchBookmarks"))
        if rv not in ("", "0"):
            try:
                since = int(rv)
            except ValueError:
                raise bad_request("invalid resource version %r" % rv) \
                    from None
        else:
            since = None
        if srv.faults.take_expire():
            err = expired("too old resource version: %s (%d)"
                          % (rv or 0, st.current_rv()))
            if srv.faults.expire_http:
                raise err
            return self.watch_error(err)
        if since is not None and since < st.compacted:
            return self.watch_error(expired(
                "too old resource version: %d (%d)" % (since, st.compacted)))
        self.start_stream()
        srv.counters.watches(1)
        try:
            self.stream(r, st, lp, fp, since, timeout, bookmarks)
        finally:
            srv.counters.watches(-1)

    def start_stream(self):
        self.server.counters.code(200)
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def client_gone(self):
        """A watch client sends nothing after its request: a readable
        socket means it closed (or broke) the connection."""
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(r)

    def watch_error(self, err):
        """A watch that fails after the handshake: 200 and one ERROR event,
        as the real watch cache answers a too-old resourceVersion."""
        self.start_stream()
        self.chunk(b'{"type":"ERROR","object":%s}\n' % json.dumps(
            err.status, separators=(",", ":")).encode())
        self.end_stream()

    def stream(self, r, st, lp, fp, since, timeout, bookmarks):
        srv = self.server
        ns_prefix = r.ns + "/" if r.ns else ""

        def match(entry):
            if entry is None:
                return False
            if lp and not lp(entry.labels):
                return False
            return not fp or fp(entry.fields)

        if since is None:
            items, since, _, _ = st.list(r.res, r.ns, lp, fp)
            for raw in items:
                self.chunk(b'{"type":"ADDED","object":%s}\n' % raw)
        deadline = time.time() + timeout if timeout else None
        drop_gen = srv.faults.drop_gen
        next_bm = time.time() + srv.opts.bookmark_interval
        scanned = since
        while True:
            now = time.time()
            if deadline and now >= deadline:
                break
            if self.client_gone():
                self.close_connection = True
                return
            if srv.faults.drop_gen != drop_gen:
                if srv.faults.drop_mode == "reset":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                break
            wait = 0.25
            if deadline:
                wait = min(wait, deadline - now)
            try:
                evs, scanned = st.events_since(r.res, since, wait)
            except ApiError as e:
                self.chunk(b'{"type":"ERROR","object":%s}\n' % json.dumps(
                    e.status, separators=(",", ":")).encode())
                break
            for ev in evs:
                since = ev.rv
                if ns_prefix and not ev.key.startswith(ns_prefix):
                    continue
                typ = ev.type
                if typ == "ADDED":
                    ok = match(ev.new)
                elif typ == "DELETED":
                    ok = match(ev.prev)
                else:
                    was, now_m = match(ev.prev), match(ev.new)
                    ok = was or now_m
                    if not was:
                        typ = "ADDED"
                    elif not now_m:
                        typ = "DELETED"
                if ok:
                    self.chunk(b'{"type":"%s","object":%s}\n'
                               % (typ.encode(), ev.new.raw))
            if not evs:
                since = max(since, scanned)
            if bookmarks and time.time() >= next_bm:
                next_bm = time.time() + srv.opts.bookmark_interval
                bm = {"kind": r.res.kind, "apiVersion": r.res.api_version,
                      "metadata": {"resourceVersion": str(since),
                                   "creationTimestamp": None}}
                self.chunk(b'{"type":"BOOKMARK","object":%s}\n' % dumps(bm))
        self.end_stream()

    # -- admin endpoints ---------------------------------------------------
    def admin(self, parts):
        srv = self.server
        p = "/".join(parts)
        if p == "_state" and self.command == "GET":
            only = self.q.get("resource")
            return self.send_json(200, srv.store.state(
                set(only.split(",")) if only else None))
        if p == "_requests" and self.command == "GET":
            return self.send_json(200, srv.counters.snapshot())
        if p == "_requests" and self.command == "DELETE":
            with srv.counters.lock:
                srv.counters.reset()
            return self.send_json(200, {"ok": True})
        if p == "_fault" and self.command == "GET":
            return self.send_json(200, srv.faults.snapshot())
        if p == "_fault" and self.command == "POST":
            body = self.read_json(any_type=True)
            rules = body if isinstance(body, list) else [body]
            for rule in rules:
                apply_fault(srv, rule)
            return self.send_json(200, {"ok": True,
                                        "resourceVersion":
                                        str(srv.store.current_rv())})
        raise not_found_path()


def apply_fault(srv, rule):
    if not isinstance(rule, dict):
        raise bad_request("a fault is a JSON object")
    f = srv.faults
    act = rule.get("action")
    with f.lock:
        if act == "error":
            f.errors.append({"code": int(rule.get("code", 500)),
                             "count": int(rule.get("count", 1)),
                             "path": rule.get("path", ""),
                             "verb": rule.get("verb", ""),
                             "message": rule.get("message"),
                             "after": bool(rule.get("after", False))})
        elif act == "delay":
            f.delays.append({"ms": int(rule.get("ms", 100)),
                             "count": int(rule.get("count", 0)),
                             "path": rule.get("path", ""),
                             "verb": rule.get("verb", "")})
        elif act == "drop-watches":
            f.drop_mode = rule.get("mode", "close")
            f.drop_gen += 1
        elif act == "expire-next-watch":
            f.expire_watches += int(rule.get("count", 1))
            f.expire_http = bool(rule.get("http", False))
        elif act == "clear":
            f.errors.clear()
            f.delays.clear()
            f.expire_watches = 0
        elif act == "token":
            srv.tokens = set(rule.get("tokens") or [rule.get("token")])
        elif act == "compact":
            pass
        else:
            raise bad_request("unknown fault action %r" % act)
    if act == "compact":
        srv.store.compact()
    srv.store.wake_all()


def encode_continue(rv, start):
    tok = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start},
                     separators=(",", ":"))
    return base64.urlsafe_b64encode(tok.encode()).decode().rstrip("=")


def decode_continue(tok, st):
    try:
        pad = "=" * (-len(tok) % 4)
        d = json.loads(base64.urlsafe_b64decode(tok + pad))
        rv, start = int(d["rv"]), str(d["start"])
        if d.get("v") != "meta.k8s.io/v1":
            raise ValueError("unknown version")
    except (ValueError, KeyError, TypeError, binascii.Error) as e:
        raise bad_request("continue key is not valid: %s" % e) from None
    if rv < st.compacted:
        raise expired("The provided continue parameter is too old to "
                      "display a consistent list result. You can start a "
                      "new list without the continue parameter.")
    return start, rv


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, opts):
        self.opts = opts
        self.store = Store(opts.history)
        self.faults = Faults()
        self.counters = Counters()
        self.tokens = set(opts.token or [])
        self.version_info = version_info(opts.server_version)
        self.tls = None
        super().__init__((opts.host, opts.port), Handler)
        if opts.tls_cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(opts.tls_cert, opts.tls_key)
            if opts.client_ca:
                ctx.load_verify_locations(opts.client_ca)
                ctx.verify_mode = ssl.CERT_OPTIONAL
            self.tls = ctx
        host, port = self.server_address[:2]
        self.addr = "%s:%d" % (host, port)

    def get_request(self):
        sock, addr = self.socket.accept()
        if self.tls:
            sock = self.tls.wrap_socket(sock, server_side=True,
                                        do_handshake_on_connect=False)
        return sock, addr

    def finish_request(self, request, client_address):
        if self.tls:
            try:
                request.settimeout(10)
                request.do_handshake()
                request.settimeout(None)
            except (ssl.SSLError, OSError):
                return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, ssl.SSLError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def version_info(v):
    parts = v.lstrip("v").split(".")
    return {"major": parts[0], "minor": parts[1] if len(parts) > 1 else "0",
            "gitVersion": v, "gitCommit": "0" * 40,
            "gitTreeState": "clean", "buildDate": "2021-01-01T00:00:00Z",
            "goVersion": "go1.16", "compiler": "gc",
            "platform": "linux/amd64"}


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="kube-apiserver double for tests (loopback only)")
    p.add_argument("--host", default="127.0.0.1",
                   help="loopback address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0,
                   help="port (default 0: pick a free one)")
    p.add_argument("--port-file", help="write the bound port here")
    p.add_argument("--token", action="append",
                   help="require this bearer token (repeatable)")
    p.add_argument("--tls-cert", help="serve TLS with this certificate")
    p.add_argument("--tls-key", help="private key of --tls-cert")
    p.add_argument("--client-ca", help="accept client certificates "
                   "signed by this CA as authenticated")
    p.add_argument("--load", action="append", default=[],
                   help="bulk-load objects from a JSON List or object "
                   "file (repeatable)")
    p.add_argument("--history", type=int, default=10000,
                   help="watch events retained; older RVs get 410 Expired")
    p.add_argument("--bookmark-interval", type=float, default=5.0,
                   help="seconds between BOOKMARK events (default 5)")
    p.add_argument("--watch-timeout", type=float, default=0,
                   help="end watches without timeoutSeconds after this "
                   "many seconds (default: never)")
    p.add_argument("--server-version", default="v1.22.17",
                   help="gitVersion answered on /version")
    p.add_argument("--fault", action="append", default=[],
                   help="a fault rule (JSON, as POST /_fault) at startup")
    p.add_argument("--verbose", action="store_true",
                   help="log every request on stderr")
    opts = p.parse_args(argv)
    try:
        if not ipaddress.ip_address(opts.host).is_loopback:
            p.error("--host must be a loopback address, not %s" % opts.host)
    except ValueError:
        p.error("--host must be a loopback IP address, not %s" % opts.host)
    if bool(opts.tls_cert) != bool(opts.tls_key):
        p.error("--tls-cert and --tls-key go together")
    if opts.client_ca and not opts.tls_cert:
        p.error("--client-ca needs --tls-cert")
    return opts


def main(argv=None):
    opts = parse_args(argv if argv is not None else sys.argv[1:])
    srv = Server(opts)
    for ns in ("default", "kube-node-lease", "kube-public", "kube-system"):
        srv.store.create(resources.find("", "v1", "namespaces"), "",
                         {"metadata": {"name": ns}}, kinds.namespace_create)
    try:
        n = 0
        for path in opts.load:
            n += loader.load_file(srv.store, path)
    except (OSError, ValueError, ApiError) as e:
        sys.stderr.write("apiserver: --load: %s\n" % e)
        return 2
    srv.store.compact()
    for rule in opts.fault:
        try:
            apply_fault(srv, json.loads(rule))
        except (ValueError, ApiError) as e:
            sys.stderr.write("apiserver: --fault %s: %s\n" % (rule, e))
            return 2
    host, port = srv.server_address[:2]
    if opts.port_file:
        tmp = opts.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, opts.port_file)
    sys.stdout.write("listening on %s:%d (%s, %d objects loaded, rv %d)\n"
                     % (host, port, "https" if srv.tls else "http", n,
                        srv.store.current_rv()))
    sys.stdout.flush()
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
