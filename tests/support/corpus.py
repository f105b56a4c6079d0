"""Text in bulk for the redaction tests and benchmarks."""

from __future__ import annotations

import json
import random
import string


def mixed_corpus(size: int, seed: int = 7) -> str:
    """Realistic mixed text: stdlib source, package READMEs (prose) and transcript JSONL."""
    import importlib.metadata
    import pathlib
    import sysconfig
    import uuid

    rng = random.Random(seed)
    stdlib = pathlib.Path(sysconfig.get_paths()["stdlib"])
    names = (
        "http/client.py urllib/request.py smtplib.py imaplib.py json/decoder.py argparse.py "
        "subprocess.py email/utils.py netrc.py getpass.py ftplib.py hmac.py secrets.py base64.py "
        "configparser.py"
    ).split()
    code = [(stdlib / n).read_text(errors="replace") for n in names if (stdlib / n).exists()]
    prose = [d.metadata.get_payload() or "" for d in importlib.metadata.distributions()]
    prose = [p for p in prose if len(p) > 2000] or code
    alphabet = string.ascii_letters + string.digits
    parts, total = [], 0
    while total < size:
        r = rng.random()
        if r < 0.35:
            src = rng.choice(code)
            i = rng.randrange(0, max(1, len(src) - 4000))
            chunk = src[i : i + rng.randrange(500, 4000)]
        elif r < 0.6:
            src = rng.choice(prose)
            i = rng.randrange(0, max(1, len(src) - 3000))
            chunk = src[i : i + rng.randrange(300, 3000)]
        else:
            src = rng.choice(code)
            i = rng.randrange(0, max(1, len(src) - 1500))
            ident = "".join(rng.choice(alphabet) for _ in range(22))
            chunk = json.dumps(
                {
                    "parentUuid": str(uuid.UUID(int=rng.getrandbits(128))),
                    "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                    "timestamp": "2025-06-01T12:00:00.000Z",
                    "type": "assistant",
                    "message": {
                        "id": "msg_01" + ident,
                        "model": "claude-sonnet-4-20250514",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"toolu_01{rng.getrandbits(88):022x}",
                                "name": "Bash",
                                "input": {
                                    "command": "git log -1 --format=%H && sha256sum dist/*.whl"
                                },
                            },
                            {"type": "text", "text": src[i : i + 1500]},
                        ],
                        "usage": {"input_tokens": rng.randrange(5000), "output_tokens": 321},
                    },
                    "requestId": f"req_011{rng.getrandbits(80):020x}",
                }
            )
        parts.append(chunk)
        total += len(chunk) + 1
    return "\n".join(parts)[:size]
