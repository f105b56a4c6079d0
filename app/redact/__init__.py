"""Secret redaction for everything ccarchive shows or serves.

Transcripts of a coding assistant leak secrets all the time: a Bash tool prints an
``.env`` file, a ``curl`` carries a bearer token, ``aws sts`` answers with session
credentials. Every text goes through here twice: when the indexer reads it (whole, before
it is capped: terms, stored fields, camelCase parts, titles and vectors are built from the
redacted text, so no query can find, count or rank by a secret), and when the TUI, the
MCP server or the CLI shows what they read back from the archive (``--no-redact`` turns
only this second one off).

API
---
``redact(text, cuts=()) -> str``
    Replace each secret with ``[REDACTED:<kind>]``. Only the secret value is replaced;
    the context that tells a reader what it was stays::

        Authorization: Bearer [REDACTED:bearer]
        API_KEY=[REDACTED:env]
        postgres://app:[REDACTED:url-password]@db/x
        -----BEGIN RSA PRIVATE KEY-----
        [REDACTED:private-key]
        -----END RSA PRIVATE KEY-----

    Idempotent: markers are never matched again, and detection is re-run on the output
    until nothing more is found (a second pass only when something was redacted).
``redact_window(text, start, end, cuts=(), highlights=()) -> Window``
    Cut a snippet or a page: the whole text is redacted first, then the window is taken
    from it, widened over any secret it touches (``Window.start``/``end`` say how far,
    in the original's characters). **Never redact a piece:** a rule does not match a
    secret cut in two, so ``redact(text[a:b])`` can show half of one.
``find_secrets(text, cuts=())`` / ``secret_spans(text, cuts=())``
    Sorted, non-overlapping ``(start, end, kind)`` spans (overlapping detections merged,
    the most specific kind wins); ``secret_spans`` are settled, as ``redact`` applies
    them. ``cuts`` are positions where the text was already cut when stored (`edges`).
``redact_name(name)``
    A branch, path, URL, slug or file name: only known token formats and URL passwords
    (a name holds no assignments; their rules would take names for values).
``redact_pieces(pieces)`` / ``redact_output(command, output)``
    Texts cut apart before they get here: the text blocks of one message (a secret can
    run from one into the next), and what a command that prints a secret printed
    (``prints_secret(command)``: ``printenv DB_PASS``, ``op read ...``).
``redact_value(obj)``
    Walk ``str`` / ``list`` / ``tuple`` / ``dict`` (values only) / pydantic models and
    return the same shape redacted; unchanged objects are returned as they are.

What is found, and where
------------------------
`token_table`
    Known formats, matched anywhere: Anthropic, OpenAI, AWS key ids, Google, GitHub,
    GitLab, Slack, Stripe, npm, PyPI, Docker, Hugging Face, JWTs and ~25 more, one row
    each (the rows are data; `rules` is the engine that runs them). Also passwords in
    URLs and after ``curl -u``, bearer tokens, cookies.
`pem`
    Private keys of every PEM and OpenSSH kind, PuTTY keys; also ``\\n``-escaped inside
    JSON, without an END line or without a BEGIN line; base64 of a PEM key.
`assignments`, `names`, `values`
    A value given to a secret's name in any spelling (``KEY=v``, ``"password": "v"``,
    ``--token v``, ``<password>v</password>``, ``Authorization: ...``). PASSWORD-like and
    SECRET-like names redact any literal that is not a placeholder; KEY/TOKEN/AUTH names
    only a random-looking one. This is the only place "high-entropy" values are
    redacted: a random-looking string outside such an assignment is left alone (it is
    far more often a hash, an id or base64 data).

`contexts`
    What names a secret in another way than ``NAME=value``: passwords on command lines
    (``mysql -pX``, ``sshpass -p``, ``redis-cli -a``, ``openssl -k``/``-pass pass:``),
    a name and its value apart (Kubernetes/ECS ``name``/``value``, ``define('DB_PASS',
    '..')``, YAML block scalars and lists, table rows), what secret-printing commands
    print (``printenv``, ``vault kv get -field``, ``op read``, ``aws configure`` and
    ``--output text``), .pgpass lines, presigned URL signatures, labels in other
    languages, an Edit of a secrets file, key lines wrapped by a terminal. They also read
    a text printed inside a JSON string (escapes decoded in place).
`encodings`
    Hex, base64 (lines joined) and URL-encodings of a text that holds a secret: the run
    is redacted whole.
Across pieces: a line continued by a backslash, a message's text blocks
(``redact_pieces``), a command and its output in two tool blocks (``redact_output``).

Measured with ``python -m tests.reliability.measure_secrets`` (generated classes, false
positives on the real transcripts, titles); the attack on the index is a test:
``tests/reliability/test_secrets_oracle.py``.

Never touched: git SHAs, sha256 digests, UUIDs, ``msg_``/``toolu_``/``req_`` ids, base64
image data, URLs without a password, paths, prose about passwords, public keys and
certificates, placeholders (``${VAR}``, ``<your-key>``, ``changeme``, ``xxxx``) and code
that names a variable (``token = get_token()``).

Speed (``python -m tests.benchmarks.bench_redact``): see that script's docstring for the
figures on the real transcripts; texts without any rule's literal cost a few ``in`` tests.
"""

from ccarchive.redact.contexts import prints_secret, secret_file
from ccarchive.redact.engine import (
    MARKER_RE,
    Window,
    find_secrets,
    marker,
    redact,
    redact_name,
    redact_output,
    redact_pieces,
    redact_value,
    redact_window,
    secret_spans,
)
from ccarchive.redact.values import MARKER_PREFIX

__all__ = [
    "MARKER_PREFIX",
    "MARKER_RE",
    "find_secrets",
    "marker",
    "redact",
    "prints_secret",
    "redact_name",
    "redact_output",
    "redact_pieces",
    "secret_file",
    "redact_value",
    "redact_window",
    "secret_spans",
    "Window",
]
