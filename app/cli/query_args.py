"""The search command's parsing: query words may start with `-` and stand anywhere.

A search query is free text in the search language, where `-flaky` means "not flaky" and
people search for flags (`--no-verify`); click would take those for options it does not
know, and `-hash` for `-h`. `QueryCommand` leaves click only the command's own options.
"""

from __future__ import annotations

import click


class QueryCommand(click.Command):
    """A command whose free words are a search query, wherever they stand and even when
    they start with `-` (`ccarchive search --no-verify`, `search retry -flaky --json`).

    Only the command's own option names are options; every other word is moved behind a
    `--` before click parses, so click never reads it as an unknown option (or `-hash`
    as `-h`). Words after a `--` of the reader's are query words too.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value: dict[str, bool] = {}
        for p in self.get_params(ctx):
            if isinstance(p, click.Option):
                for name in (*p.opts, *p.secondary_opts):
                    takes_value[name] = not p.is_flag and not p.count
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                words.extend(rest)
                break
            name = arg.split("=", 1)[0]
            if name in takes_value:
                options.append(arg)
                if takes_value[name] and "=" not in arg:
                    value = next(rest, None)
                    if value is not None:
                        options.append(value)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words])
