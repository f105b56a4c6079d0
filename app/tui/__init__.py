"""The Textual app.

Textual paints at most `TEXTUAL_FPS` frames a second (60 by default), so a change waits
up to a frame period before it is drawn; at 120 the wait halves and typing feels it
(keystroke -> results painted p50 40-44 ms -> 33 ms on a 1 GB archive). Textual reads
the setting when it is first imported, which is why it is set here, before any Textual
module loads; a user's own `TEXTUAL_FPS` wins. Frames are only drawn when something
changed, so an idle app costs the same.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "120")
