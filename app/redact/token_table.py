"""The known credential formats, one row each: what a token looks like, no context needed.

Each row is a `Rule`: the kind named in the marker, the regex (starting with the token's
literal prefix, lookbehinds after it so that ``re`` can scan for the prefix), the group
that is the secret, and a check. Bodies are checked not to be masks (``ghp_xxxx...``);
formats whose prefix is also a common word part (``hf_``, ``npm_``) need a random body.
"""

from __future__ import annotations

import binascii
import re

from ccarchive.redact.rules import HEADER, Rule
from ccarchive.redact.values import is_placeholder, looks_random, not_a_mask

_W = "A-Za-z0-9"  # for character classes
_NB = rf"(?![{_W}])"  # not followed by a token character


def _body(m: re.Match) -> bool:
    return not_a_mask(m.group("body"))


def _random_body(m: re.Match) -> bool:
    body = m.group("body")
    return not_a_mask(body) and looks_random(body)


def _sk(m: re.Match) -> str | None:
    if m.group("ant") is not None:
        return "anthropic" if not_a_mask(m.group("ant")) else None
    body = m.group("oai") or m.group("oai2")
    return "openai" if not_a_mask(body) and looks_random(body) else None


def _curl_user(m: re.Match) -> bool:
    text = m.string
    lo = max(0, m.start() - 1000)
    nl = text.rfind("\n", lo, m.start())
    line = text[nl + 1 if nl >= 0 else lo : m.start()]
    return "curl" in line and not is_placeholder(m.group("body"))


def _url_password(m: re.Match) -> bool:
    s = m.start()
    if s == 0 or not m.string[s - 1].isalnum():
        return False  # "://" must follow a scheme
    body = m.group("body")
    return not body.isdigit() and not is_placeholder(body)


def _pem_in_base64(m: re.Match) -> bool:
    """``LS0tLS1CRUdJTi...`` is base64 of ``-----BEGIN``: a key only if it says so
    (a kubeconfig's client-key-data; its client-certificate-data stays)."""
    head = m.group(0)[:96]
    head = head[: len(head) // 4 * 4]
    try:
        return b"PRIVATE KEY" in binascii.a2b_base64(head)
    except (binascii.Error, ValueError):
        return False


# fmt: off
TOKEN_RULES: tuple[Rule, ...] = (
    # --- AI providers: "sk-ant-..." is Anthropic's, other "sk-..." OpenAI's (decided by _sk)
    Rule("openai",
         rf"sk-(?<![{_W}]sk-)(?:ant-(?P<ant>[{_W}_-]{{20,}})"
         rf"|(?:proj|svcacct|admin|None)-(?P<oai>[{_W}_-]{{20,}})"
         rf"|(?P<oai2>[{_W}]{{20,}}){_NB})", check=_sk),
    Rule("huggingface", rf"hf_(?<![{_W}_]hf_)(?P<body>[{_W}]{{30,}}){_NB}", check=_random_body),
    # --- clouds
    Rule("aws-access-key", rf"A[KS]IA(?<![{_W}]A[KS]IA)(?P<body>[A-Z0-9]{{16}}){_NB}",
         check=_body, gates=("AKIA", "ASIA")),
    Rule("google-api-key", rf"AIza(?<![{_W}]AIza)(?P<body>[{_W}_-]{{35}})(?![{_W}_-])",
         check=_body),
    Rule("google-oauth", rf"GOCSPX-(?<![{_W}]GOCSPX-)(?P<body>[{_W}_-]{{20,}})", check=_body),
    Rule("google-oauth", rf"ya29\.(?<![{_W}]ya29\.)(?P<body>[{_W}_-]{{20,}})", check=_body),
    Rule("gcp-key-id",  # a service-account file's key id (the key itself is a PEM block)
         r"private_key_id\\{0,7}[\"']?[ \t]*[:=][ \t]*\\{0,7}[\"']?"
         r"(?P<body>[0-9a-f]{40})(?![0-9a-f])",
         group="body"),
    Rule("azure-ad", rf"(?<![{_W}_~.-])[{_W}_~.]{{3}}[0-9]Q~[{_W}_~.-]{{31,34}}(?![{_W}_~.-])",
         gates=("Q~",)),
    Rule("azure-sas",  # the signature of a shared access signature URL
         r"sig=(?<=[?&;]sig=)(?P<body>(?:[A-Za-z0-9+/=]|%[0-9A-Fa-f]{2}){30,})",
         group="body", check=_body),
    Rule("digitalocean", r"do(?<![A-Za-z0-9]do)[opr]_v1_(?P<body>[a-f0-9]{64})", check=_body,
         gates=("_v1_",)),
    Rule("databricks", rf"dapi(?<![{_W}]dapi)(?P<body>[a-f0-9]{{32}})(?:-[0-9])?{_NB}",
         check=_body),
    Rule("supabase", rf"sbp_(?<![{_W}]sbp_)(?P<body>[a-f0-9]{{40}}){_NB}", check=_body),
    Rule("heroku", rf"HRKU-(?<![{_W}]HRKU-)(?P<body>[{_W}_-]{{20,}})", check=_body),
    Rule("vault", rf"hv(?<![{_W}]hv)[sbr]\.(?P<body>[{_W}_-]{{24,}})", check=_random_body),
    Rule("pulumi", rf"pul-(?<![{_W}]pul-)(?P<body>[a-f0-9]{{40}}){_NB}", check=_body),
    Rule("planetscale", rf"pscale_(?:tkn|pw|oauth)_(?P<body>[{_W}_.-]{{32,64}})", check=_body),
    Rule("doppler", rf"dp\.(?<![{_W}]dp\.)(?:st|pt|ct|sa|scim|audit)\.(?P<body>[{_W}_.-]{{40,}})",
         check=_body, gates=("dp.",)),
    Rule("fly", r"FlyV1 fm[12]_(?P<body>[A-Za-z0-9+/=_,-]{50,})", check=_body),
    # --- code hosting and packages
    Rule("github", rf"gh(?<![{_W}]gh)[pousr]_(?P<body>[{_W}]{{36,251}}){_NB}", check=_body),
    Rule("github", rf"github_pat_(?<![{_W}]github_pat_)(?P<body>[{_W}_]{{22,}})", check=_body),
    Rule("gitlab",
         rf"gl(?<![{_W}]gl)(?:pat|dt|rt|ptt|ft|soat|oas|cbt|imt|agent)-(?P<body>[{_W}_-]{{20,}})",
         check=_body),
    Rule("npm", rf"npm_(?<![{_W}]npm_)(?P<body>[{_W}]{{36}}){_NB}", check=_random_body),
    Rule("pypi", rf"pypi-AgE(?<![{_W}]pypi-AgE)[{_W}_-]{{50,}}"),
    Rule("docker", rf"dckr_pat_(?<![{_W}]dckr_pat_)(?P<body>[{_W}_-]{{20,}})", check=_body),
    Rule("atlassian", rf"ATATT3(?<![{_W}]ATATT3)(?P<body>[{_W}_=-]{{20,}})", check=_body),
    Rule("linear", rf"lin_api_(?<![{_W}]lin_api_)(?P<body>[{_W}]{{40}}){_NB}", check=_body),
    Rule("notion", rf"ntn_(?<![{_W}]ntn_)(?P<body>[{_W}]{{40,}}){_NB}", check=_random_body),
    Rule("notion", rf"secret_(?<![{_W}_]secret_)(?P<body>[{_W}]{{43}}){_NB}",
         check=_random_body),
    Rule("postman", r"PMAK-(?P<body>[a-f0-9]{24}-[a-f0-9]{34})", check=_body),
    Rule("sentry", rf"sntr(?<![{_W}]sntr)[ysu]_(?P<body>[{_W}+/=_-]{{30,}})", check=_body),
    Rule("grafana", rf"glsa_(?<![{_W}]glsa_)(?P<body>[{_W}]{{32}}_[A-Fa-f0-9]{{8}})",
         check=_body),
    Rule("grafana", rf"glc_(?<![{_W}]glc_)(?P<body>[{_W}+/]{{32,}}={{0,2}})", check=_body),
    Rule("newrelic", rf"NRAK-(?<![{_W}]NRAK-)(?P<body>[A-Z0-9]{{27}}){_NB}", check=_body),
    # --- chat, mail, payments
    Rule("slack", rf"x(?<![{_W}]x)(?:ox[abposre]|app)-(?P<body>[{_W}-]{{10,}})", check=_body),
    Rule("slack-webhook",
         r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<body>[A-Za-z0-9_/-]{16,})",
         group="body", check=_body),
    Rule("telegram", r"(?<![\w:])[0-9]{8,10}:(?P<body>AA[A-Za-z0-9_-]{33})(?![\w-])",
         group="body", gates=(":AA",)),
    Rule("twilio", rf"SK(?<![{_W}]SK)(?P<body>[0-9a-fA-F]{{32}}){_NB}", check=_random_body),
    Rule("mailgun", rf"key-(?<![{_W}]key-)(?P<body>[0-9a-f]{{32}}){_NB}", check=_random_body),
    Rule("sendgrid", rf"SG\.(?<![{_W}]SG\.)[{_W}_-]{{22}}\.[{_W}_-]{{43}}(?![{_W}_-])",
         gates=("SG.",)),
    Rule("stripe", rf"k_(?<=[sr]k_)(?<![{_W}][sr]k_)(?:live|test)_(?P<body>[{_W}]{{16,}})",
         check=_body, gates=("_live_", "_test_")),
    Rule("stripe", rf"whsec_(?<![{_W}]whsec_)(?P<body>[{_W}+/=]{{20,}})", check=_body),
    Rule("square", rf"sq0(?<![{_W}]sq0)(?:atp|csp)-(?P<body>[{_W}_-]{{22,43}})", check=_body),
    Rule("square", rf"EAAA(?<![{_W}]EAAA)(?P<body>[{_W}_-]{{60}})(?![{_W}_-])",
         check=_random_body),
    Rule("shopify", rf"shp(?<![{_W}]shp)(?:at|ss|ca|pa)_(?P<body>[a-fA-F0-9]{{32}}){_NB}",
         check=_body),
    Rule("age", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # a format also in detect-secrets' plugins (evaluated: the others are here already)
    Rule("artifactory", rf"AKC(?<![{_W}]AKC)p(?P<body>[{_W}]{{69}}){_NB}", check=_random_body),
    # --- tokens with a structure of their own
    # a JWT's header and payload are base64 of JSON: "{"" is eyJ, "{ "" eyA, "{\n" ewo
    *(Rule("jwt", rf"{lead}(?<![{_W}_-]{lead})[{_W}_-]{{8,}}\.e(?:yJ|yA|wo)"
           rf"(?P<body>[{_W}_-]{{8,}})\.[{_W}_-]*", check=_body)
      for lead in ("eyJ", "eyA", "ewo")),
    Rule("mapbox", rf"sk\.eyJ(?<![{_W}]sk\.eyJ)(?P<body>[{_W}_-]{{20,}}\.[{_W}_-]{{20,}})",
         check=_body, gates=("sk.eyJ",)),
    Rule("private-key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}", check=_pem_in_base64),
    # --- passwords in commands and URLs
    # curl -u user:password / --user user:password (only on a line that runs curl)
    Rule("password",
         r"-(?:u(?<![\w-]-u)|-user(?<![\w-]--user))[ \t]+[\"']?[^\s:\"'$]+:(?P<body>[^\s\"'\\]+)",
         group="body", check=_curl_user, gates=("curl",)),
    # scheme://user:password@host -- the password may contain '@' (the last one wins)
    Rule("url-password",
         r"://[^\s:/?#@\[\]\"'<>\\]{0,256}:(?P<body>[^\s/?#\"'<>\\]{1,512})@(?=[A-Za-z0-9\[_-])",
         group="body", check=_url_password),
    # --- HTTP headers anywhere: a bare "Bearer <random>", a cookie's values
    Rule("bearer",
         r"earer(?<=[Bb]earer)(?<![A-Za-z][Bb]earer)[ \t]+(?P<body>[A-Za-z0-9._~+/-]{16,}=*)",
         group="body", check=lambda m: looks_random(m.group("body")), priority=HEADER),
    Rule("cookie",
         r"ookie(?<=[Cc]ookie)(?:(?<![\w-][Cc]ookie)|(?<=[Ss]et-[Cc]ookie))"
         r"\\?[\"']?[ \t]*:[ \t]*\\?[\"']?"
         r"(?P<body>[A-Za-z0-9_.$!#%&*+^|~-]{1,256}=(?:\"[^\"\r\n]{0,4096}\"|[^\r\n\"'\\;]{0,4096})"
         r"(?:;[^\r\n\"'\\]{0,4096})?)",
         group="body", check=lambda m: "=" in m.group("body"), priority=HEADER),
)
# fmt: on
