"""The UserPromptSubmit hook, measured on both sides.

A hook that adds past work to every prompt must help when the archive knows the answer
and stay quiet when it does not. On a generated archive (`make_archive.py --needles`):

- *helped*: for each planted fact's question, whether the added context holds the fact
  (its made-up identifier, the one word no other session has);
- *noise*: for prompts that have nothing to do with any archive (cooking, travel, music,
  everyday questions), whether anything was added at all;
- *ordinary*: everyday coding prompts that ask for work now, not about the past, against
  the same archive (cloned from real transcripts): how many get anything added.

    .venv/bin/python -m tests.eval.hook_eval --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

from ccarchive.hooks.context import prompt_context
from tests.eval.harness import build_archive

UNRELATED = [
    "how long should I boil an egg for a runny yolk",
    "what's a good substitute for buttermilk in pancakes",
    "suggest a three day itinerary for Lisbon in spring",
    "which train goes from Zurich to Milan and how long does it take",
    "recommend some albums similar to Kind of Blue",
    "how do I tune a guitar to drop D",
    "what wine goes with grilled salmon",
    "tips for keeping basil alive on a windowsill",
    "how many calories are in a banana",
    "write a haiku about autumn rain",
    "what are the rules of cricket in simple terms",
    "plan a birthday party for a seven year old",
    "how do I remove a red wine stain from a carpet",
    "best way to learn to swim as an adult",
    "explain the offside rule in football",
    "what should I pack for a week of hiking in Scotland",
    "give me a recipe for vegetarian lasagna",
    "how do I get better sleep when travelling across time zones",
    "who composed the Four Seasons",
    "what is the capital of Australia and why not Sydney",
]


ORDINARY = [
    "rename the function foo to bar everywhere in utils.py",
    "add pagination to the list endpoint",
    "write a unit test for the date parser",
    "fix the typo in the README heading",
    "why does this regex not match across newlines",
    "refactor this function to use a dataclass",
    "add type hints to main.py",
    "bump the version to 1.2.0 and update the changelog",
    "run the linter and fix the warnings",
    "explain what this stack trace means",
    "make the button text bold on hover",
    "sort the results by date descending",
]


def fact_token(needle: dict) -> str:
    """The planted fact's own identifier: the backticked word of its phrase."""
    m = re.search(r"`([^`]+)`", needle.get("phrase", ""))
    return m.group(1) if m else needle.get("phrase", "")


def evaluate_seed(seed: int, workdir: Path) -> dict:
    from tests.conftest import build_index

    root, _manifest, answers = build_archive(seed, workdir / f"s{seed}")
    service = build_index(root, workdir / f"s{seed}" / "data")
    needles = [
        n for n in json.loads(answers.read_text())["needles"] if n.get("kind") == "transcript"
    ]
    helped = 0
    for n in needles:
        event = {
            "session_id": "00000000-0000-4000-8000-000000000000",
            "cwd": "/nowhere",
            "prompt": n["query"],
        }
        text = prompt_context(service, event, limit=3, max_chars=1500)
        helped += fact_token(n).lower() in text.lower()
    noisy = [
        p
        for p in UNRELATED
        if prompt_context(service, {"prompt": p, "session_id": ""}, limit=3, max_chars=1500)
    ]
    ordinary = [
        p
        for p in ORDINARY
        if prompt_context(service, {"prompt": p, "session_id": ""}, limit=3, max_chars=1500)
    ]
    return {
        "seed": seed,
        "needles": len(needles),
        "helped": helped,
        "unrelated": len(UNRELATED),
        "noisy": len(noisy),
        "noisy_prompts": noisy,
        "ordinary": len(ORDINARY),
        "ordinary_injected": len(ordinary),
        "ordinary_prompts": ordinary,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ccarchive-hook-eval-"))
    for seed in args.seeds:
        print(json.dumps(evaluate_seed(seed, workdir)))


if __name__ == "__main__":
    main()
