"""Function words a plain query leaves out of its ranking.

A question typed in plain words ("what did we decide about the job queue") is mostly
words that every session holds; where every word counts, they drown the two that say what
the question is about. Words here are dropped from plain queries (kept when nothing else is
left, and always when quoted or required with `+`). The list is English function words and
question words, plus the few words people use to talk *about* their archive ("find the
session where..."); domain words such as "session", "test" or "build" are not on it.
"""

from __future__ import annotations

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are aren as at
be because been before being below between both but by
can cannot could couldn
did didn do does doesn doing don done down during
each either else ever every
few for from further
get got had hadn has hasn have haven having he her here hers herself him himself his how
i if in into is isn it its itself
just
let lets ll
may me might more most much must mustn my myself
need no nor not now
of off on once only or other ought our ours ourselves out over own
please re really
s same shall shan she should shouldn so some such
t than that thats the their theirs them themselves then there these they this those
through to too
under until up upon us
ve very
was wasn we were weren what whats when where which while who whom whose why will with
won would wouldn
you your yours yourself yourselves
find remember recall tell ago earlier
""".split()
)
"""Lower-cased; compared with a query word's lower-cased text."""


def is_stopword(word: str) -> bool:
    """Whether a plain query word is a function word (`The` and `the` alike)."""
    return word.lower().strip("'?!.,") in STOPWORDS
