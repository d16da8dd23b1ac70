"""helmlite: render a Helm chart's templates without Helm, for tests.

Helm is not packaged by Debian, so tests/deploy renders the chart in
deploy/helm/ with this small subset of Go templates and Sprig:

  {{ .Values.a.b }}  {{ .Release.Name }}  {{ .Release.Namespace }}
  {{ .Chart.AppVersion }} (Chart.yaml keys, first letter upper-cased)
  {{- ... -}}        whitespace trimming
  {{ if X }} / {{ else if X }} / {{ else }} / {{ end }}
  pipelines X | f a b, parentheses, string and integer literals
  functions: eq ne not and or default quote toYaml nindent indent
             sha256sum fail

Anything else (range, with, define, include, tpl, lookup, ...) raises
TemplateError, so the chart has to stay within what is checked here. A
value path that does not exist is an error too (Helm would print
nothing), which catches misspelt values.
"""

import hashlib
import os
import re

import yaml


class TemplateError(Exception):
    pass


class TemplateFail(TemplateError):
    """The template called `fail`."""


ACTION = re.compile(r"\{\{(-?)(.*?)(-?)\}\}", re.S)
TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?\d+)'
    r"|(?P<path>\.[A-Za-z0-9_.]*)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<punct>[()|]))"
)


def _tokens(src):
    out, pos = [], 0
    src = src.strip()
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise TemplateError("cannot parse %r at %r" % (src, src[pos:]))
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
        while pos < len(src) and src[pos].isspace():
            pos += 1
    return out


def _parse(tokens):
    """Tokens -> a pipeline: list of commands, each a list of operands."""
    pos = 0

    def pipeline(stop):
        nonlocal pos
        cmds, cmd = [], []
        while pos < len(tokens):
            kind, val = tokens[pos]
            if kind == "punct" and val == ")":
                if stop != ")":
                    raise TemplateError("unbalanced )")
                break
            pos += 1
            if kind == "punct" and val == "|":
                cmds.append(cmd)
                cmd = []
            elif kind == "punct" and val == "(":
                cmd.append(("pipe", pipeline(")")))
                pos += 1
            else:
                cmd.append((kind, val))
        if stop == ")" and pos >= len(tokens):
            raise TemplateError("unbalanced (")
        cmds.append(cmd)
        if any(not c for c in cmds):
            raise TemplateError("empty command in pipeline")
        return cmds

    return pipeline(None)


def truthy(v):
    if v is None or v is False:
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v != 0
    if isinstance(v, (str, list, dict)):
        return len(v) > 0
    return True


def to_text(v):
    if v is None:
        raise TemplateError("nil value printed")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        raise TemplateError("map or list printed without toYaml: %r" % (v,))
    return str(v)


def _indent(n, s):
    pad = " " * int(n)
    return "\n".join(pad + line for line in to_text(s).split("\n"))


def _fail(msg):
    raise TemplateFail(msg)


FUNCS = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "not": lambda a: not truthy(a),
    "and": lambda *a: next((x for x in a if not truthy(x)), a[-1]),
    "or": lambda *a: next((x for x in a if truthy(x)), a[-1]),
    "default": lambda d, v=None: v if truthy(v) else d,
    "quote": lambda v: '"%s"' % to_text(v).replace("\\", "\\\\").replace('"', '\\"'),
    "toYaml": lambda v: yaml.safe_dump(v, default_flow_style=False, sort_keys=True).rstrip("\n"),
    "nindent": lambda n, s: "\n" + _indent(n, s),
    "indent": _indent,
    "sha256sum": lambda s: hashlib.sha256(to_text(s).encode()).hexdigest(),
    "fail": _fail,
}


class Renderer:
    def __init__(self, chart_dir, values, release="kube-policy-extender", namespace="kube-policy-extender"):
        with open(os.path.join(chart_dir, "Chart.yaml")) as f:
            chart = yaml.safe_load(f)
        self.root = {
            "Values": values,
            "Release": {"Name": release, "Namespace": namespace, "Service": "Helm"},
            "Chart": {k[:1].upper() + k[1:]: v for k, v in chart.items()},
        }

    def _path(self, p):
        cur = self.root
        for part in [x for x in p.split(".") if x]:
            if not isinstance(cur, dict) or part not in cur:
                raise TemplateError("no value at %s" % p)
            cur = cur[part]
        return cur

    def _operand(self, op):
        kind, val = op
        if kind == "str":
            return bytes(val[1:-1], "utf-8").decode("unicode_escape")
        if kind == "num":
            return int(val)
        if kind == "path":
            return self._path(val)
        if kind == "pipe":
            return self._pipeline(val)
        if kind == "ident" and val in ("true", "false"):
            return val == "true"
        if kind == "ident" and val == "nil":
            return None
        raise TemplateError("unexpected %r" % (val,))

    def _command(self, cmd, piped=None, has_piped=False):
        head = cmd[0]
        if head[0] == "ident" and head[1] in FUNCS:
            args = [self._operand(o) for o in cmd[1:]]
            if has_piped:
                args.append(piped)
            try:
                return FUNCS[head[1]](*args)
            except TypeError as e:
                raise TemplateError("%s: %s" % (head[1], e))
        if head[0] == "ident" and head[1] not in ("true", "false", "nil"):
            raise TemplateError("unsupported function %r" % head[1])
        if len(cmd) != 1 or has_piped:
            raise TemplateError("value %r cannot take arguments" % (head[1],))
        return self._operand(head)

    def _pipeline(self, cmds):
        v = self._command(cmds[0])
        for c in cmds[1:]:
            v = self._command(c, v, True)
        return v

    def _eval(self, src):
        return self._pipeline(_parse(_tokens(src)))

    def render(self, text):
        """Render one template's text; returns the output string."""
        # Split into text and actions, applying the trim markers.
        parts = []
        pos = 0
        for m in ACTION.finditer(text):
            chunk = text[pos:m.start()]
            if m.group(1) == "-":
                chunk = chunk.rstrip(" \t\r\n")
            parts.append(("text", chunk))
            parts.append(("act", m.group(2).strip()))
            pos = m.end()
            if m.group(3) == "-":
                while pos < len(text) and text[pos] in " \t\r\n":
                    pos += 1
        parts.append(("text", text[pos:]))
        out, _ = self._block(parts, 0, True)
        return out

    def _block(self, parts, i, emit):
        """Render parts from i to a closing else/end; returns (text, index)."""
        out = []
        while i < len(parts):
            kind, val = parts[i]
            if kind == "text":
                if emit:
                    out.append(val)
                i += 1
                continue
            if val.startswith("/*"):
                i += 1
                continue
            word = val.split(None, 1)[0] if val else ""
            if word in ("end", "else"):
                return "".join(out), i
            if word == "if":
                text, i = self._if(parts, i, emit)
                out.append(text)
                continue
            if word in ("range", "with", "define", "template", "block", "include", "tpl"):
                raise TemplateError("unsupported action {{ %s }}" % val)
            if emit:
                out.append(to_text(self._eval(val)))
            i += 1
        return "".join(out), i

    def _if(self, parts, i, emit):
        cond = parts[i][1][2:].strip()
        taken = False
        out = ""
        i += 1
        while True:
            ok = emit and not taken and truthy(self._eval(cond)) if cond is not None else emit and not taken
            text, i = self._block(parts, i, ok)
            if ok:
                out, taken = text, True
            if i >= len(parts):
                raise TemplateError("{{ if }} without {{ end }}")
            val = parts[i][1]
            i += 1
            if val == "end":
                return out, i
            if val == "else":
                cond = None
            elif val.startswith("else if "):
                cond = val[len("else if "):]
            else:
                raise TemplateError("unexpected {{ %s }}" % val)


def render_chart(chart_dir, overrides=None):
    """Render every templates/*.yaml with values.yaml plus overrides (a
    dict merged key by key). Returns {template name: rendered text}."""
    with open(os.path.join(chart_dir, "values.yaml")) as f:
        values = yaml.safe_load(f)

    def merge(dst, src):
        for k, v in (src or {}).items():
            if isinstance(v, dict) and isinstance(dst.get(k), dict):
                merge(dst[k], v)
            else:
                dst[k] = v

    merge(values, overrides)
    r = Renderer(chart_dir, values)
    out = {}
    tdir = os.path.join(chart_dir, "templates")
    for name in sorted(os.listdir(tdir)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(tdir, name)) as f:
                out[name] = r.render(f.read())
    return out
