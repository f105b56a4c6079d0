"""Secrets in the shapes that no token format covers, generated: names, separators,
quotes, commands, languages, encodings and line breaks drawn at random from a seeded RNG.

Where `secret_shapes` plants the formats of known providers, these makers plant the
classes a token table cannot see: a password given to a name the rules must recognise by
its words (``MYSQL_PW``, ``db.pass``, ``RedisPasswd``) with any separator and quoting, a
password on a command line, a name and its value on two lines or in two keys, the output
of a command that prints a secret, file formats (.pgpass, presigned URLs, a JWT whose
JSON has spaces, URL-encoded, hex and base64 encodings of a .env file, a token continued
over a backslash line break, a key wrapped by the terminal) and labels in other
languages. Every part is drawn, so a fix for one example does not pass the test: each
class has thousands of spellings.

`GENERATED` maps a class name to its maker (a `Gen` -> `Planted`); they join `SHAPES`
in the adversarial archive.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from tests.support import secret_archive
from tests.support.secret_archive import PlantedArchive
from tests.support.secret_shapes import ALNUM, HEX, PASSWORD, URLSAFE, Gen, Planted

_PREFIXES = (
    "DB",
    "MYSQL",
    "PG",
    "POSTGRES",
    "REDIS",
    "SMTP",
    "LDAP",
    "ADMIN",
    "ROOT",
    "MAIL",
    "APP",
    "SERVICE",
    "RABBITMQ",
    "MONGO",
    "FTP",
    "KEYSTORE",
    "BACKUP",
    "WIFI",
)
_SECRET_WORDS = ("PASS", "PW", "PASSWD", "PASSWORD", "PWD", "SECRET", "PASSPHRASE", "CREDS")
_MIDDLE = ("", "", "USER", "ROOT", "PROD", "LOCAL")


def password(g: Gen) -> str:
    """A password as people choose them or generate them: letters, digits and symbols."""
    if g.rng.random() < 0.3:  # a word and a number ("Hunter25200", "Winter2024!")
        word = g.pick("Hunter", "Summer", "Dragon", "Monkey", "Letmein", "Welcome", "Sunshine")
        return f"{word}{g.rng.randrange(100, 99999)}{g.pick('', '!', '#', '.')}".replace("#", "")
    return g.s(g.rng.randrange(10, 25), PASSWORD)


def secret_name(g: Gen) -> str:
    """A secret's name in any case and separator: DB_PASS, mysql-pw, RedisPasswd, db.pass."""
    words = [g.pick(*_PREFIXES), g.pick(*_MIDDLE), g.pick(*_SECRET_WORDS)]
    words = [w for w in words if w]
    style = g.rng.randrange(5)
    if style == 0:
        return "_".join(words)
    if style == 1:
        return g.pick("_", "-", ".").join(w.lower() for w in words)
    if style == 2:
        return "".join(w.capitalize() for w in words)
    if style == 3:
        return words[0].lower() + "".join(w.capitalize() for w in words[1:])
    return g.pick("_", "-").join(words).upper()


def assignment(g: Gen) -> Planted:
    name, value = secret_name(g), password(g)
    form = g.rng.randrange(9)
    text = [
        f"{name}={value}",
        f"export {name}='{value}'",
        f"{name}: {value}",
        f"{name} = {value}",  # INI, properties
        f'{name} = "{value}"',
        f"[database]\nhost = db.internal\n{name} = {value}\nport = 5432",
        f"{name}:={value}",
        f'"{name}": "{value}"',
        f"set {name}={value}",
    ][form]
    return Planted("gen-assignment", text, (value,), ())


def command_line(g: Gen) -> Planted:
    pw = password(g)
    user, host = g.pick("root", "admin", "app", "deploy"), g.pick("db1", "localhost", "10.0.0.5")
    text = g.pick(
        f"mysql -u {user} -p{pw} -h {host} shop",
        f"mysqldump -u{user} -p{pw} --all-databases > dump.sql",
        f"sshpass -p '{pw}' ssh {user}@{host}",
        f"sshpass -p {pw} scp backup.tgz {user}@{host}:/tmp",
        f"redis-cli -h {host} -a {pw} ping",
        f"redis-cli -h {host} -a '{pw}' --no-auth-warning info",
        f"openssl enc -aes-256-cbc -k {pw} -in secrets.tar -out secrets.enc",
        f"openssl enc -d -aes-256-cbc -pass pass:{pw} -in backup.enc",
        f"openssl pkcs12 -export -passout pass:{pw} -in cert.pem -out cert.p12",
        f"docker login -u {user} -p {pw} registry.example.com",
        f"mongosh --username {user} --password {pw} {host}",
        f"sqlcmd -S {host} -U {user} -P '{pw}' -Q 'select 1'",
        f"htpasswd -b -c .htpasswd {user} {pw}",
    )
    return Planted("gen-command-line", text, (pw,), ())


def name_value(g: Gen) -> Planted:
    name, value = secret_name(g).upper().replace("-", "_").replace(".", "_"), password(g)
    ind = " " * g.pick(2, 4, 6)
    text = g.pick(
        f"env:\n{ind}- name: {name}\n{ind}  value: {value}\n"
        f"{ind}- name: LOG_LEVEL\n{ind}  value: info",
        f'env:\n{ind}- name: {name}\n{ind}  value: "{value}"',
        json.dumps(
            {"environment": [{"name": name, "value": value}, {"name": "PORT", "value": "80"}]}
        ),
        json.dumps({"environment": [{"name": name, "value": value}]}, indent=2),
        f"define('{name}', '{value}');",
        f'define("{name}", "{value}");',
        f"os.environ.setdefault('{name}', '{value}')",
        f"{name.lower()}: |\n{ind}{value}\n",
        f"{name.lower()}: >-\n{ind}{value}\nother: 1",
        f"{name.lower()}s:\n{ind}- {value}\n{ind}- {password(g)}",
        f'{name.lower()} = (\n{ind}"{value}"\n)',
    )
    secrets = (
        (value,)
        if "s:\n" not in text
        else tuple(
            line.strip()[2:] for line in text.splitlines()[1:] if line.strip().startswith("- ")
        )
    )
    return Planted("gen-name-value", text, secrets, ())


def command_output(g: Gen) -> Planted:
    value = password(g) if g.rng.random() < 0.5 else g.s(40, ALNUM + "/+")
    var = secret_name(g).upper().replace("-", "_").replace(".", "_")
    prompt = g.pick("$ ", "% ", "❯ ", "root@host:~# ")
    cmd = g.pick(
        f"printenv {var}",
        f"echo ${var}",
        f'echo "${{{var}}}"',
        f"vault kv get -field=password secret/{g.word()}",
        f"op read op://{g.word()}/db/password",
        "aws configure get aws_secret_access_key",
        f"kubectl get secret {g.word()} -o jsonpath='{{.data.password}}' | base64 -d",
        "gh auth token",
        "gcloud auth print-access-token",
        f"cat /run/secrets/{var.lower()}",
    )
    text = f"{prompt}{cmd}\n{value}\n{prompt}"
    form = g.rng.randrange(4)
    if form == 1:  # aws configure's prompts
        key_id = "AKIA" + g.s(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        value = g.s(40, ALNUM + "/+")
        text = (
            f"{prompt}aws configure\nAWS Access Key ID [None]: {key_id}\n"
            f"AWS Secret Access Key [None]: {value}\nDefault region name [None]: eu-west-1"
        )
        return Planted("gen-command-output", text, (key_id, value), ())
    if form == 2:  # aws ... --output text / table
        key_id = "ASIA" + g.s(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        value = g.s(40, ALNUM + "/+")
        token = g.s(200, ALNUM + "/+")
        if g.rng.random() < 0.5:
            text = (
                f"{prompt}aws sts get-session-token --output text\n"
                f"CREDENTIALS\t{key_id}\t2026-11-27T10:00:00Z\t{value}\t{token}"
            )
        else:
            text = (
                f"{prompt}aws iam create-access-key --output table\n"
                f"|  AccessKeyId      |  {key_id}  |\n"
                f"|  SecretAccessKey  |  {value}  |\n|  Status  |  Active  |"
            )
        return Planted(
            "gen-command-output", text, (key_id, value) + ((token,) if token in text else ()), ()
        )
    return Planted("gen-command-output", text, (value,), ())


def _env_file(g: Gen) -> tuple[str, tuple[str, ...]]:
    a, b = password(g), g.s(32, HEX)
    return (
        f"{secret_name(g).upper().replace('-', '_').replace('.', '_')}={a}\n"
        f"API_TOKEN={b}\nDEBUG=false\n"
    ), (a, b)


def formats(g: Gen) -> Planted:
    form = g.rng.randrange(9)
    if form == 0:
        pw = password(g)
        host = g.pick("db.internal", "localhost", "*", "10.1.2.3")
        text = f"cat ~/.pgpass\n{host}:5432:{g.pick('app', '*')}:{g.pick('app', 'postgres')}:{pw}"
        return Planted("gen-format", text, (pw,), ())
    if form == 1:
        sig = g.s(64, HEX)
        key = "AKIA" + g.s(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        text = (
            f"https://{g.word()}.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            f"&X-Amz-Credential={key}%2F20261127%2Fus-east-1%2Fs3%2Faws4_request"
            f"&X-Amz-Date=20261127T100000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
            f"&X-Amz-Signature={sig}"
        )
        return Planted("gen-format", text, (key, sig), ())
    if form == 2:
        sig = g.s(256, HEX)
        text = (
            f"https://storage.googleapis.com/{g.word()}/x.bin?X-Goog-Algorithm="
            f"GOOG4-RSA-SHA256&X-Goog-Credential=svc%40p.iam.gserviceaccount.com%2F20261127"
            f"&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={sig}"
        )
        return Planted("gen-format", text, (sig,), ())
    if form == 3:  # a JWT whose JSON was written with spaces ("{ "alg": ...")

        def seg(obj: dict) -> str:
            raw = json.dumps(obj, indent=g.pick(None, 1))
            raw = ("{ " + raw[1:]) if not raw.startswith("{\n") else raw
            return base64.urlsafe_b64encode(raw.encode()).rstrip(b"=").decode()

        tok = f"{seg({'alg': 'HS256', 'typ': 'JWT'})}.{seg({'sub': g.s(12)})}.{g.s(43, URLSAFE)}"
        return Planted("gen-format", f"token {tok} expired", tuple(tok.split(".")), ())
    if form == 4:  # URL-encoded JSON body
        pw = password(g)
        body = urllib.parse.quote(json.dumps({"username": "admin", "password": pw}))
        return Planted("gen-format", f"POST /login body={body}", (urllib.parse.quote(pw),), ())
    if form in (5, 6):  # hex or base64 of a .env file
        env, secrets = _env_file(g)
        enc = env.encode().hex() if form == 5 else base64.b64encode(env.encode()).decode()
        return Planted("gen-format", f"$ {g.pick('xxd -p', 'base64')} .env\n{enc}", (enc,), ())
    if form == 7:  # a bearer token continued over a backslash line break
        tok = g.s(48, URLSAFE)
        cut = g.rng.randrange(12, 36)
        text = (
            f"curl https://api.example.com/v1/items \\\n  -H 'Authorization: Bearer "
            f"{tok[:cut]}\\\n{tok[cut:]}'"
        )
        return Planted("gen-format", text, (tok[:cut], tok[cut:]), ())
    # a key wrapped by the terminal: only two of its three lines shown
    key = g.s(g.pick(64, 72, 80) * 3, ALNUM + "+/")
    w = len(key) // 3
    lines = [key[i : i + w] for i in range(0, len(key), w)]
    return Planted("gen-format", f"...\n{lines[1]}\n{lines[2]}\n", (lines[1], lines[2]), ())


_LABELS = (
    "пароль",
    "Пароль",
    "パスワード",
    "contraseña",
    "Contraseña",
    "mot de passe",
    "Mot de passe",
    "密码",
    "密碼",
    "口令",
    "токен",
    "секретный ключ",
    "clave",
    "clave secreta",
    "jeton",
    "秘密鍵",
    "トークン",
    "令牌",
    "密钥",
)


def labels(g: Gen) -> Planted:
    value = password(g)
    label = g.pick(*_LABELS)
    sep = g.pick(": ", "：", " : ", " = ", "： ", " - ")
    lead = g.pick("", "Ваш ", "新しい", "Nueva ", "Le ", "新的", "")
    return Planted("gen-language", f"{lead}{label}{sep}{value}", (value,), ())


GENERATED: dict[str, Callable[[Gen], Planted]] = {
    "gen-assignment": assignment,
    "gen-command-line": command_line,
    "gen-name-value": name_value,
    "gen-command-output": command_output,
    "gen-format": formats,
    "gen-language": labels,
}


ORACLE_TOKEN_SHAPES = (
    "anthropic",
    "aws-key-id",
    "github",
    "stripe",
    "random-hex",
    "random-b64",
    "dotenv",
    "password-assignment",
    "url-password",
    "slack",
    "jwt",
)
"""The known-format shapes the index oracle is probed with, beside every generated class."""
ORACLE_PLACES = (
    "prompt",
    "assistant",
    "tool_use",
    "tool_result",
    "history",
    "plan",
    "custom_title",
)
"""Where the oracle's secrets are planted: every place a term reaches the index from."""


def plant_oracle_archive(root: Path, seed: int) -> PlantedArchive:
    """An archive with the oracle's secrets planted (known formats and the generated
    classes) beside made-up words; the generated classes join the shape table only for
    the planting."""
    saved = dict(secret_archive.SHAPES)
    secret_archive.SHAPES.update(GENERATED)
    try:
        return secret_archive.plant_archive(
            root, seed, shapes=[*ORACLE_TOKEN_SHAPES, *GENERATED], places=ORACLE_PLACES
        )
    finally:
        secret_archive.SHAPES.clear()
        secret_archive.SHAPES.update(saved)
