"""What the reference implementation of all-MiniLM-L6-v2 computes for two sentences: every
encoder we run (numpy, onnxruntime) is checked against it."""

from __future__ import annotations

REFERENCE = {
    # The first dimensions of the model card's two example sentences as the reference
    # implementation (sentence-transformers, torch) computes them, as published by other
    # projects that check their ports of this model against it.
    "This is an example sentence": [
        0.06765693,
        0.06349593,
        0.04871314,
        0.07930495,
        0.03744806,
        0.00265273,
    ],
    "Each sentence is converted": [0.08643859],
}
