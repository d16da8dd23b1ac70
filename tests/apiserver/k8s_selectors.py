"""Label and field selectors, parsed the way the Kubernetes API server does.

Label selectors: k=v, k==v, k!=v, k in (a,b), k notin (a,b), k, !k, k>N, k<N,
joined by commas (a comma inside parentheses belongs to the set).
Field selectors: k=v, k==v, k!=v joined by commas; a backslash escapes
',', '=', '!' and '\\' in values (fields.ParseSelector's rules).
Each parser returns a predicate, or raises SelectorError with the message the
real server puts into its 400 BadRequest Status.
"""


class SelectorError(Exception):
    pass


def _split_top(text):
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _label_req(term, whole):
    t = term.strip()
    if not t:
        raise SelectorError(
            "unable to parse requirement: found '', expected: identifier")
    if t.startswith("!"):
        key = t[1:].strip()
        return lambda labels: key not in labels
    for word, neg in ((" notin ", True), (" in ", False)):
        idx = t.find(word)
        if idx > 0:
            key = t[:idx].strip()
            rest = t[idx + len(word):].strip()
            if not (rest.startswith("(") and rest.endswith(")")):
                raise SelectorError(
                    "unable to parse requirement: found '%s', expected: '('"
                    % rest)
            vals = {v.strip() for v in rest[1:-1].split(",")}
            if neg:
                return lambda labels: labels.get(key) not in vals
            return lambda labels: key in labels and labels[key] in vals
    for op in ("!=", "==", "=", ">", "<"):
        idx = t.find(op)
        if idx > 0:
            key = t[:idx].strip()
            val = t[idx + len(op):].strip()
            if op == "!=":
                return lambda labels: labels.get(key) != val
            if op in ("=", "=="):
                return lambda labels: labels.get(key) == val
            try:
                num = int(val)
            except ValueError:
                raise SelectorError(
                    "unable to parse requirement: for 'Gt', 'Lt' operators,"
                    " the value must be an integer") from None
            return _int_cmp(key, num, op == ">")
    if any(c in t for c in " ()"):
        raise SelectorError("unable to parse requirement: found '%s'" % whole)
    return lambda labels: t in labels


def _int_cmp(key, num, greater):
    def pred(labels):
        try:
            v = int(labels[key])
        except (KeyError, ValueError):
            return False
        return v > num if greater else v < num
    return pred


def parse_label_selector(text):
    """Return a predicate over a labels dict; None for an empty selector."""
    if text is None or not text.strip():
        return None
    reqs = [_label_req(term, text) for term in _split_top(text)]
    return lambda labels: all(r(labels or {}) for r in reqs)


def _split_escaped(text, seps):
    """Split text at the first unescaped separator among seps (longest
    first); return (left, sep, right) with escapes kept."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        for sep in seps:
            if text.startswith(sep, i):
                return text[:i], sep, text[i + len(sep):]
        i += 1
    return text, None, ""


def _unescape(val):
    out, i = [], 0
    while i < len(val):
        if val[i] == "\\" and i + 1 < len(val):
            out.append(val[i + 1])
            i += 2
        else:
            out.append(val[i])
            i += 1
    return "".join(out)


def parse_field_selector(text, supported):
    """Return (predicate over a fields dict, list of keys used); None for an
    empty selector. supported is the set of field labels the resource
    allows; others fail the way the server's conversion func does."""
    if text is None or not text.strip():
        return None
    reqs = []
    rest = text
    while True:
        term, sep, rest = _split_escaped(rest, [","])
        key, op, val = _split_escaped(term, ["!=", "==", "="])
        if op is None:
            raise SelectorError(
                "invalid selector: '%s'; can't understand '%s'" % (text, term))
        key = key.strip()
        if key not in supported:
            raise SelectorError("field label not supported: %s" % key)
        reqs.append((key, op == "!=", _unescape(val)))
        if sep is None:
            break

    def pred(fields):
        for key, neg, val in reqs:
            got = fields.get(key, "")
            if (got == val) == neg:
                return False
        return True
    return pred
