"""Private keys: PEM blocks of every kind, OpenSSH and PuTTY key files.

The body between the BEGIN and END lines is replaced (the two lines stay as context).
It is found however the key was printed: as is, with ``\\n`` escapes inside JSON text
(a GCP service-account file), escaped again for each JSON nested in JSON, without an END
line (``head -5 key.pem``) or without a BEGIN line (``tail -5 key.pem``). Certificates
and public keys are not secret and stay.
"""

from __future__ import annotations

from ccarchive.redact.lazy import LazyPattern
from ccarchive.redact.rules import SPECIFIC, Span

BEGIN_GATE = "-----BEGIN "
END_GATE = "-----END "
PUTTY_GATE = "Private-Lines:"
_KIND = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?"
_BEGIN_RE = LazyPattern(rf"-----BEGIN ({_KIND})-----")
_END_RE = LazyPattern(rf"-----END ({_KIND})-----")
# what a key body is made of: base64, PEM headers (Proc-Type: 4,ENCRYPTED), line breaks
# as characters or as \n escaped once or more (JSON nested in JSON)
_OPEN_BODY_RE = LazyPattern(r"(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\{1,8}[rnt])*")
_LINE_BREAK_RE = LazyPattern(r"\r?\n|\\{1,8}[rn]")
_B64_LINE_RE = LazyPattern(r"[ \t]*[A-Za-z0-9+/=]*[ \t\r]*")
_BASE64_RUN_RE = LazyPattern(r"[A-Za-z0-9+/]{16,}")
# (its lines may be folded into one, as in a title)
_PUTTY_RE = LazyPattern(r"Private-Lines:[ \t]*([0-9]{1,3})(?:[ \t]*\r?\n|[ \t]*\\{1,8}n|[ \t]+)")
_PUTTY_LINE_RE = LazyPattern(r"[A-Za-z0-9+/=]+(?:\r?\n|\\{1,8}n|[ \t]+|\\{0,8}\Z)")
_MAX = 32768


def _trim_blank(body: str) -> tuple[int, int]:
    """Offsets of ``body`` without leading/trailing whitespace and ``\\n``-style escapes."""
    i, j = 0, len(body)
    while i < j:
        if body[i].isspace():
            i += 1
        elif body[i] == "\\":
            k = i
            while k < j and body[k] == "\\":
                k += 1
            if k < j and body[k] in "rnt" and k - i <= 8:
                i = k + 1
            else:
                break
        else:
            break
    while j > i:
        if body[j - 1].isspace():
            j -= 1
        elif body[j - 1] in "rnt" and j - 2 >= i and body[j - 2] == "\\":
            j -= 2
            while j > i and body[j - 1] == "\\":
                j -= 1
        else:
            break
    return i, j


def _base64_lines_before(text: str, lo: int, end: int) -> int:
    """Where the run of base64-only lines that ends at ``end`` starts."""
    starts = [lo] + [b.end() for b in _LINE_BREAK_RE.finditer(text, lo, end)]
    ends = [b.start() for b in _LINE_BREAK_RE.finditer(text, lo, end)] + [end]
    start = end
    for s, e in zip(reversed(starts), reversed(ends), strict=True):
        if not _B64_LINE_RE.fullmatch(text, s, e):
            break
        start = s
    return start


def _add(text: str, s: int, e: int, out: list[Span]) -> None:
    body = text[s:e]
    if not _BASE64_RUN_RE.search(body):
        return  # code that merely mentions the BEGIN/END lines
    lead, trail = _trim_blank(body)
    out.append((s + lead, s + trail, "private-key", SPECIFIC))


def pem_spans(text: str, out: list[Span]) -> None:
    """Append the bodies of the private keys in ``text``."""
    done = 0  # END lines up to here close a block that has its BEGIN
    if BEGIN_GATE in text:
        for m in _BEGIN_RE.finditer(text):
            s = m.end()
            # a key's body never contains another BEGIN line: it bounds every search
            limit = text.find(BEGIN_GATE, s, s + _MAX)
            limit = s + _MAX if limit < 0 else limit
            end_line = f"-----END {m.group(1)}-----"
            e = text.find(end_line, s, limit)
            if e < 0:  # truncated output (head -5 key.pem): the base64-looking run
                body = _OPEN_BODY_RE.match(text, s, limit)  # of `*`: always a match
                e = body.end() if body else s
                done = max(done, e)
            else:
                done = max(done, e + len(end_line))
            _add(text, s, e, out)
    if END_GATE in text:
        for m in _END_RE.finditer(text, done):
            if m.start() < done:
                continue
            # no BEGIN line before it (tail -5 key.pem): the base64 run that precedes it
            lo = max(done, m.start() - _MAX)
            _add(text, _base64_lines_before(text, lo, m.start()), m.start(), out)
            done = m.end()
    if PUTTY_GATE in text:
        for m in _PUTTY_RE.finditer(text):
            e = m.end()
            for _ in range(int(m.group(1))):
                line = _PUTTY_LINE_RE.match(text, e)
                if line is None:
                    break
                e = line.end()
            _add(text, m.end(), e, out)
