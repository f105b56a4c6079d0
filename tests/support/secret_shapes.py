"""Fake credentials of every common shape, in the contexts people paste them in.

A shape makes one `Planted`: a piece of text as it would appear in a transcript (a line
of a .env file, a curl command, the JSON that ``aws sts`` prints, a PEM file, a
kubeconfig...) and the secret values in it that must never be readable. Bodies are
random, of the alphabet and length of the real thing, from the caller's seeded RNG;
nothing here is a real credential, and no literal that looks like one is in the file.

`SHAPES` maps a shape's name to its maker; each maker takes a `Gen`.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
LOWER_DIGITS = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
PASSWORD = ALNUM + "-_.~!%^*+="
"""Password characters that need no quoting anywhere (URLs, .env, YAML, JSON)."""
PASSWORD_QUOTED = PASSWORD + "#@&$"


@dataclass(frozen=True)
class Planted:
    shape: str
    text: str
    secrets: tuple[str, ...]
    words: tuple[str, ...] = ()
    """Words beside the secret that a person would search for (a snippet centres on them)."""


class Gen:
    """Random parts of fake credentials, from one seeded RNG."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.bare = False
        """Write the next value bare where its shape allows it (no name beside it), so
        that only its own format can tell it is a secret: a smaller draw sets it for
        each shape's first planting, whose format rule it would otherwise miss most
        times (a named value is redacted for its name)."""

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        """``n`` random characters; a body of 12+ alphanumerics gets 2+ digits and 2+
        letters, as real keys do (a digit-free body reads as a word, and is left as one)."""
        while True:
            out = "".join(self.rng.choice(alphabet) for _ in range(n))
            alnum = [c for c in out if c.isalnum()]
            mixed = set(alphabet) & set(string.digits) and set(alphabet) & set(string.ascii_letters)
            if (
                n < 12
                or not mixed
                or (
                    sum(c.isdigit() for c in alnum) >= 2
                    and sum(c.isalpha() for c in alnum) >= 2
                    and _two_digit_groups(out)
                )
            ):
                return out

    def pick(self, *options):
        return self.rng.choice(options)

    def word(self) -> str:
        return self.pick("deploy", "staging", "billing", "worker", "gateway", "ingest", "audit")


def _two_digit_groups(s: str) -> bool:
    groups, prev = 0, False
    for c in s:
        d = c.isdigit()
        groups += d and not prev
        prev = d
    return groups >= 2


# ---- contexts: how a value is written next to its name ---------------------------------


def in_context(
    g: Gen, value: str, name: str, *, bare: bool = True, header: bool = False, query: bool = False
) -> tuple[str, tuple[str, ...]]:
    """``value`` written the way a person would meet it, with the words around it."""
    low = name.lower()
    options = [
        (f"{name}={value}", (name,)),
        (f'export {name}="{value}"', ("export", name)),
        (json.dumps({low: value, "region": "eu-west-1"}), (low,)),
        (f"{low}: {value}", (low,)),
        (f'{low} = "{value}"', (low,)),
        (f"docker run -e {name}={value} app:latest", ("docker", name)),
    ]
    if bare:
        alone = [
            (f"I used {value} for the {g.word()} call and it worked", ("worked",)),
            (f"Error: 401 Unauthorized for key {value}", ("Unauthorized",)),
        ]
        if g.bare:
            return g.rng.choice(alone)
        options += alone
    if header:
        options.append(
            (
                f'curl -s -H "Authorization: Bearer {value}" https://api.example.com/v1',
                ("Authorization", "curl"),
            )
        )
    if query:
        options.append(
            (f"GET https://api.example.com/v2/export?access_token={value}&page=2", ("export",))
        )
    return g.rng.choice(options)


def _token(
    shape: str,
    make: Callable[[Gen], str],
    *names: str,
    bare: bool = True,
    header: bool = False,
    query: bool = False,
) -> Callable[[Gen], Planted]:
    def maker(g: Gen) -> Planted:
        value = make(g)
        text, words = in_context(
            g, value, g.rng.choice(names), bare=bare, header=header, query=query
        )
        return Planted(shape, text, (value,), words)

    return maker


def _jwt(g: Gen, prefix: str = "") -> str:
    def seg(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    head = seg({"alg": g.pick("RS256", "HS256", "ES256"), "typ": "JWT", "kid": g.s(12)})
    body = seg({"sub": g.s(16), "iat": 1717000000 + g.rng.randrange(10**6), "scope": "repo"})
    return f"{prefix}{head}.{body}.{g.s(86, URLSAFE)}"


_TOKENS: dict[str, Callable[[Gen], Planted]] = {
    "anthropic": _token(
        "anthropic",
        lambda g: f"sk-ant-api03-{g.s(93, URLSAFE)}AA",
        "ANTHROPIC_API_KEY",
        header=True,
    ),
    "anthropic-admin": _token(
        "anthropic-admin", lambda g: f"sk-ant-admin01-{g.s(93, URLSAFE)}AA", "ANTHROPIC_ADMIN_KEY"
    ),
    "anthropic-oauth": _token(
        "anthropic-oauth", lambda g: f"sk-ant-oat01-{g.s(93, URLSAFE)}AA", "CLAUDE_CODE_OAUTH_TOKEN"
    ),
    "openai": _token(
        "openai",
        lambda g: "sk-proj-" + g.s(74, URLSAFE) + "T3BlbkFJ" + g.s(74, URLSAFE),
        "OPENAI_API_KEY",
        header=True,
    ),
    "openai-legacy": _token(
        "openai-legacy", lambda g: f"sk-{g.s(20)}T3BlbkFJ{g.s(20)}", "OPENAI_KEY"
    ),
    "aws-key-id": _token(
        "aws-key-id", lambda g: g.pick("AKIA", "ASIA") + g.s(16, UPPER_DIGITS), "AWS_ACCESS_KEY_ID"
    ),
    "github": _token(
        "github",
        lambda g: g.pick("ghp_", "gho_", "ghs_", "ghu_", "ghr_") + g.s(36),
        "GITHUB_TOKEN",
        "GH_TOKEN",
        header=True,
        query=True,
    ),
    "github-fine": _token(
        "github-fine", lambda g: f"github_pat_{g.s(22)}_{g.s(59)}", "GH_FINE_GRAINED_TOKEN"
    ),
    "gitlab": _token(
        "gitlab", lambda g: "glpat-" + g.s(20, URLSAFE), "GITLAB_TOKEN", "CI_JOB_TOKEN"
    ),
    "slack": _token(
        "slack",
        lambda g: (
            g.pick("xoxb-", "xoxp-")
            + g.s(12, "0123456789")
            + "-"
            + g.s(13, "0123456789")
            + "-"
            + g.s(24)
        ),
        "SLACK_BOT_TOKEN",
    ),
    "stripe": _token(
        "stripe",
        lambda g: g.pick("sk_live_", "rk_live_", "sk_test_") + g.s(99),
        "STRIPE_SECRET_KEY",
    ),
    "stripe-webhook": _token(
        "stripe-webhook", lambda g: "whsec_" + g.s(32), "STRIPE_WEBHOOK_SECRET"
    ),
    "google-api": _token(
        "google-api", lambda g: "AIza" + g.s(35, URLSAFE), "GOOGLE_API_KEY", query=True
    ),
    "google-oauth": _token(
        "google-oauth", lambda g: "GOCSPX-" + g.s(28, URLSAFE), "GOOGLE_CLIENT_SECRET"
    ),
    "google-access": _token(
        "google-access", lambda g: "ya29." + g.s(150, URLSAFE), "GOOGLE_ACCESS_TOKEN", header=True
    ),
    "npm": _token("npm", lambda g: "npm_" + g.s(36), "NPM_TOKEN"),
    "pypi": _token(
        "pypi", lambda g: "pypi-AgEIcHlwaS5vcmc" + g.s(120, URLSAFE), "TWINE_PASSWORD", "PYPI_TOKEN"
    ),
    "docker": _token("docker", lambda g: "dckr_pat_" + g.s(27, URLSAFE), "DOCKER_TOKEN"),
    "huggingface": _token("huggingface", lambda g: "hf_" + g.s(34), "HF_TOKEN"),
    "jwt": _token("jwt", _jwt, "ACCESS_TOKEN", "ID_TOKEN", header=True, query=True),
    "sendgrid": _token(
        "sendgrid", lambda g: f"SG.{g.s(22, URLSAFE)}.{g.s(43, URLSAFE)}", "SENDGRID_API_KEY"
    ),
    "shopify": _token(
        "shopify", lambda g: g.pick("shpat_", "shpss_") + g.s(32, HEX), "SHOPIFY_ACCESS_TOKEN"
    ),
    "digitalocean": _token(
        "digitalocean", lambda g: "dop_v1_" + g.s(64, HEX), "DIGITALOCEAN_TOKEN"
    ),
    "twilio": _token("twilio", lambda g: "SK" + g.s(32, HEX), "TWILIO_API_KEY"),
    "mailgun": _token("mailgun", lambda g: "key-" + g.s(32, HEX), "MAILGUN_API_KEY"),
    "vault": _token("vault", lambda g: "hvs." + g.s(90, URLSAFE), "VAULT_TOKEN"),
    "linear": _token("linear", lambda g: "lin_api_" + g.s(40), "LINEAR_API_KEY"),
    "notion": _token("notion", lambda g: "ntn_" + g.s(46), "NOTION_TOKEN"),
    "atlassian": _token(
        "atlassian",
        lambda g: "ATATT3xFfGF0" + g.s(180, URLSAFE) + "=" + g.s(8, "0123456789ABCDEF"),
        "JIRA_API_TOKEN",
    ),
    "age": _token(
        "age",
        lambda g: "AGE-SECRET-KEY-1" + g.s(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
        "SOPS_AGE_KEY",
    ),
    "postman": _token(
        "postman", lambda g: f"PMAK-{g.s(24, HEX)}-{g.s(34, HEX)}", "POSTMAN_API_KEY"
    ),
    "grafana": _token("grafana", lambda g: f"glsa_{g.s(32)}_{g.s(8, HEX)}", "GRAFANA_TOKEN"),
    "databricks": _token("databricks", lambda g: "dapi" + g.s(32, HEX), "DATABRICKS_TOKEN"),
    "supabase": _token("supabase", lambda g: "sbp_" + g.s(40, HEX), "SUPABASE_ACCESS_TOKEN"),
    "newrelic": _token("newrelic", lambda g: "NRAK-" + g.s(27, UPPER_DIGITS), "NEW_RELIC_API_KEY"),
    "square": _token("square", lambda g: "EAAA" + g.s(60, URLSAFE), "SQUARE_ACCESS_TOKEN"),
    "azure-ad": _token(
        "azure-ad",
        lambda g: g.s(3, ALNUM) + g.s(1, "0123456789") + "Q~" + g.s(34, ALNUM + "_~."),
        "AZURE_CLIENT_SECRET",
    ),
    "heroku": _token("heroku", lambda g: "HRKU-" + g.s(60, URLSAFE), "HEROKU_API_KEY"),
    "vault-batch": _token("vault-batch", lambda g: "hvb." + g.s(120, URLSAFE), "VAULT_TOKEN"),
    "random-hex": _token(
        "random-hex",
        lambda g: g.s(g.pick(32, 40, 64), HEX),
        "WEBHOOK_SECRET",
        "SIGNING_KEY",
        "ENCRYPTION_KEY",
        "API_TOKEN",
        "session_secret",
        "jwtSecret",
        "masterKey",
        bare=False,
    ),
    "random-b64": _token(
        "random-b64",
        lambda g: g.s(43, B64) + "=",
        "APP_SECRET",
        "client_secret",
        "private_token",
        "refresh_token",
        "apiKey",
        bare=False,
        header=True,
    ),
}


# ---- shapes with a structure: files and outputs that hold several secrets ---------------


def _pw(g: Gen, quoted: bool = False) -> str:
    return g.s(g.rng.randrange(12, 25), PASSWORD_QUOTED if quoted else PASSWORD)


def aws_files(g: Gen) -> Planted:
    kid, secret = "ASIA" + g.s(16, UPPER_DIGITS), g.s(40, B64)
    token = "IQoJb3JpZ2luX2VjE" + g.s(g.rng.randrange(300, 700), B64)
    creds = {
        "AccessKeyId": kid,
        "SecretAccessKey": secret,
        "SessionToken": token,
        "Expiration": "2026-06-01T13:00:00Z",
    }
    text = g.pick(
        json.dumps(
            {
                "Credentials": creds,
                "AssumedRoleUser": {"Arn": "arn:aws:sts::123456789012:assumed-role/dev/cli"},
            },
            indent=4,
        ),
        json.dumps({"Version": 1, **creds}, indent=2),
        f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {secret}\n"
        f"aws_session_token = {token}\nregion = eu-west-1\n",
        f"export AWS_ACCESS_KEY_ID={kid}\nexport AWS_SECRET_ACCESS_KEY={secret}\n"
        f"export AWS_SESSION_TOKEN={token}\n",
    )
    return Planted("aws-credentials", text, (kid, secret, token), ("AccessKeyId", "aws"))


def pem_body(g: Gen, lines: int) -> list[str]:
    return [g.s(64, B64) for _ in range(lines)] + [g.s(g.rng.randrange(8, 60), B64) + "=="]


_PEM_KINDS = (
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "DSA PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
)


def pem(g: Gen) -> Planted:
    kind = g.rng.choice(_PEM_KINDS)
    body = pem_body(g, g.rng.randrange(3, 26))
    block = f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----\n"
    how = g.pick("file", "file", "json", "json2", "head", "tail")
    if how == "json":  # a JSON document holding it: \n escapes
        text = json.dumps({"name": "deploy", "key": block})
    elif how == "json2":  # JSON inside a JSON string: \\n
        text = json.dumps(json.dumps({"ssh_key": block}))
    elif how == "head":  # head -n: no END line
        body = body[: max(1, len(body) // 2)]
        text = f"$ head -{len(body) + 1} id_deploy\n-----BEGIN {kind}-----\n" + "\n".join(body)
    elif how == "tail":  # tail -n: no BEGIN line
        body = body[len(body) // 2 :]
        text = f"$ tail -{len(body) + 1} id_deploy\n" + "\n".join(body) + f"\n-----END {kind}-----"
    else:
        text = f"$ cat ~/.ssh/id_deploy\n{block}"
    return Planted("private-key", text, tuple(body), ("BEGIN", "PRIVATE", "id_deploy"))


def gcp_service_account(g: Gen) -> Planted:
    key_id = g.s(40, HEX)
    body = pem_body(g, 25)
    doc = {
        "type": "service_account",
        "project_id": f"{g.word()}-prod",
        "private_key_id": key_id,
        "private_key": "-----BEGIN PRIVATE KEY-----\n"
        + "\n".join(body)
        + "\n-----END PRIVATE KEY-----\n",
        "client_email": "svc@demo.iam.gserviceaccount.com",
        "client_id": "1" + g.s(20, HEX[:10]),
    }
    return Planted(
        "gcp-service-account",
        json.dumps(doc, indent=2),
        (key_id, *body),
        ("service_account", "private_key"),
    )


def azure(g: Gen) -> Planted:
    key = g.s(86, B64) + "=="
    text, words = g.pick(
        (
            f"DefaultEndpointsProtocol=https;AccountName={g.word()}store;AccountKey={key};"
            "EndpointSuffix=core.windows.net",
            ("AccountName",),
        ),
        (
            f"Endpoint=sb://{g.word()}.servicebus.windows.net/;SharedAccessKeyName="
            f"RootManageSharedAccessKey;SharedAccessKey={key}",
            ("servicebus",),
        ),
        (
            f'az storage blob upload --connection-string "AccountName=x;AccountKey={key}"',
            ("storage",),
        ),
    )
    return Planted("azure-connection", text, (key,), words)


def azure_sas(g: Gen) -> Planted:
    sig = g.s(43, ALNUM) + "%3D"
    text = (
        f"https://{g.word()}.blob.core.windows.net/backups/db.dump?sv=2022-11-02&ss=b"
        f"&srt=co&sp=rl&se=2026-01-01T00:00:00Z&sig={sig}"
    )
    return Planted("azure-sas", text, (sig[:-3],), ("backups",))


def kubeconfig(g: Gen) -> Planted:
    key = base64.b64encode(
        (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + "\n".join(pem_body(g, 12))
            + "\n-----END RSA PRIVATE KEY-----\n"
        ).encode()
    ).decode()
    token = _jwt(g)
    text = (
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n"
        f"    client-key-data: {key}\n    token: {token}\n"
    )
    return Planted("kubeconfig", text, (key, token), ("kubeconfig", "client-key-data", "Config"))


def dotenv(g: Gen) -> Planted:
    values = {
        "DB_PASSWORD": _pw(g),
        "SECRET_KEY": g.s(50, PASSWORD),
        "JWT_SECRET": g.s(64, HEX),
        "API_TOKEN": g.s(40),
        "REDIS_PASSWORD": _pw(g),
        "SESSION_SECRET": g.s(32, B64),
    }
    keys = g.rng.sample(sorted(values), 4)
    lines = ["APP_ENV=production", "DB_HOST=db.internal", "LOG_LEVEL=info"]
    lines += [f"{k}={values[k]}" for k in keys]
    g.rng.shuffle(lines)
    return Planted(
        "dotenv",
        "$ cat .env\n" + "\n".join(lines) + "\n",
        tuple(values[k] for k in keys),
        ("production", "LOG_LEVEL"),
    )


def url_password(g: Gen) -> Planted:
    pw = g.s(g.rng.randrange(12, 30), ALNUM + "-_.~!*+")
    user = g.pick("app", "admin", "postgres", "deploy", "")
    host = g.pick(
        "db.internal:5432/app",
        "cluster0.ab1cd.mongodb.net/?retryWrites=true",
        "cache:6379/0",
        "mq.internal:5672/%2f",
        "github.com/acme/infra.git",
    )
    scheme = g.pick("postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp", "https")
    url = f"{scheme}://{user}:{pw}@{host}"
    text = g.pick(
        f"DATABASE_URL={url}",
        f"connecting to {url} failed: timeout",
        f'engine = create_engine("{url}")',
        f"git clone {url}",
    )
    return Planted("url-password", text, (pw,), ("failed", "engine", "DATABASE_URL", "clone"))


def dsn(g: Gen) -> Planted:
    pw = _pw(g)
    text, words = g.pick(
        (
            f'conn = psycopg2.connect("host=db dbname=app user=app password={pw} sslmode=require")',
            ("psycopg2",),
        ),
        (
            f"Server=tcp:{g.word()}.database.windows.net,1433;Database=app;User ID=sa;"
            f"Password={pw};Encrypt=True;",
            ("Database",),
        ),
        (f"jdbc:mysql://db.internal:3306/app?user=root&password={pw}&useSSL=true", ("jdbc",)),
        (f"mysql -h db -u root --password={pw} app < dump.sql", ("mysql", "dump")),
        (f"docker login -u ci --password {pw} registry.example.com", ("docker", "login")),
        (f"curl -u admin:{pw} https://jenkins.internal/api/json", ("jenkins", "curl")),
        (f"machine api.heroku.com\n  login dev@example.com\n  password {pw}\n", ("machine",)),
    )
    return Planted("dsn-password", text, (pw,), words)


def structured_password(g: Gen) -> Planted:
    pw, pw_bare = _pw(g, quoted=True), _pw(g)
    name = g.pick(
        "password",
        "db_password",
        "admin_password",
        "passphrase",
        "secret",
        "client_secret",
        "smtp_password",
    )
    text, words = g.pick(
        (
            json.dumps({"database": {"host": "db", "user": "app", name: pw}}, indent=2),
            ("database",),
        ),
        (f'{name}: "{pw}"\nhost: db.internal\nport: 5432\n', ("host",)),
        (
            f"<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <{name}>{pw_bare}</{name}>"
            "\n</server>",
            ("nexus", "server"),
        ),
        (
            f"spring.datasource.{name}={pw_bare}\nspring.datasource.url=jdbc:postgresql://db/app",
            ("spring",),
        ),
        (f'config = {{"user": "admin", "{name}": "{pw}"}}', ("config",)),
    )
    return Planted("password-assignment", text, (pw if pw in text else pw_bare,), words)


def credentials_table(g: Gen) -> Planted:
    """A Markdown table of accounts: the passwords in a column of their own, under a header
    that names them, or a row that pairs the name with its value among other cells."""
    pws = [_pw(g) for _ in range(g.rng.randrange(1, 4))]
    bar = g.pick("|", "")  # the outer bars are optional
    tick = g.pick("", "`")

    def row(*cells: str) -> str:
        return f"{bar} " + " | ".join(cells) + f" {bar}".rstrip()

    if g.rng.random() < 0.7:
        head = g.pick("Password", "password", "DB password", "Passwd", "Secret", "Admin Pass")
        lines = [row("Service", "User", head), row(":---", "---", "---:")]
        lines += [row(g.word(), g.pick("admin", "ci", "root"), f"{tick}{pw}{tick}") for pw in pws]
        text = "\n".join(lines) + "\n"
    else:
        name = g.pick("password", "db_password", "secret", "client_secret")
        text = "\n".join(
            row(g.word(), "user", "admin", name, f"{tick}{pw}{tick}", "port", "5432") for pw in pws
        )
    eol = g.pick("\n", "\r\n")
    return Planted("credentials-table", text.replace("\n", eol), tuple(pws), ("Service", "admin"))


def auth_header(g: Gen) -> Planted:
    basic = base64.b64encode(f"deploy:{_pw(g)}".encode()).decode()
    opaque = g.s(g.rng.randrange(32, 80), URLSAFE + ".~")
    cookie = g.s(48, URLSAFE)
    text, secret, words = g.pick(
        (f"curl -H 'Authorization: Basic {basic}' https://ci.example.com/api", basic, ("ci",)),
        (
            f"> GET /me HTTP/2\n> Host: api.example.com\n> authorization: Bearer {opaque}\n"
            "> accept: */*",
            opaque,
            ("Host",),
        ),
        (
            json.dumps(
                {
                    "headers": {
                        "Authorization": f"Bearer {opaque}",
                        "Content-Type": "application/json",
                    }
                }
            ),
            opaque,
            ("headers",),
        ),
        (
            f"< HTTP/1.1 302 Found\n< Set-Cookie: sessionid={cookie}; Path=/; HttpOnly",
            cookie,
            ("Found", "HttpOnly"),
        ),
        (f'headers = {{"X-API-Key": "{opaque}"}}', opaque, ("headers",)),
        (f"//registry.npmjs.org/:_authToken={opaque}", opaque, ("registry",)),
        (json.dumps({"auths": {"ghcr.io": {"auth": basic}}}), basic, ("auths",)),
    )
    return Planted("auth-header", text, (secret,), words)


def telegram(g: Gen) -> Planted:
    secret = "AA" + g.s(33, URLSAFE)
    text, words = in_context(g, g.s(10, "0123456789") + ":" + secret, "TELEGRAM_BOT_TOKEN")
    return Planted("telegram", text, (secret,), words)


def slack_webhook(g: Gen) -> Planted:
    path = f"T{g.s(10, UPPER_DIGITS)}/B{g.s(10, UPPER_DIGITS)}/{g.s(24)}"
    text = f'curl -X POST -d \'{{"text":"deploy done"}}\' https://hooks.slack.com/services/{path}'
    return Planted("slack-webhook", text, (path,), ("hooks", "deploy"))


def putty(g: Gen) -> Planted:
    body = pem_body(g, 13)
    text = (
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
        f"AAAAB3NzaC1yc2EAAAADAQAB\nAQC{g.s(30, B64)}\nPrivate-Lines: {len(body)}\n"
        + "\n".join(body)
        + f"\nPrivate-MAC: {g.s(64, HEX)}\n"
    )
    return Planted("putty-key", text, tuple(body), ("PuTTY", "Encryption"))


SHAPES: dict[str, Callable[[Gen], Planted]] = {
    **_TOKENS,
    "aws-credentials": aws_files,
    "private-key": pem,
    "gcp-service-account": gcp_service_account,
    "azure-connection": azure,
    "azure-sas": azure_sas,
    "kubeconfig": kubeconfig,
    "dotenv": dotenv,
    "url-password": url_password,
    "dsn-password": dsn,
    "password-assignment": structured_password,
    "credentials-table": credentials_table,
    "auth-header": auth_header,
    "slack-webhook": slack_webhook,
    "telegram": telegram,
    "putty-key": putty,
}
"""Every shape by name: token formats (each in a random context) and structured ones."""
