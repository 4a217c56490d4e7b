"""One turn's audio as every recogniser takes it (`assist.core.recognisers.Recogniser`): float32
mono samples, refused with the reason when they are not mono or hold NaN or infinite values.

numpy is imported when a turn is checked, not with this module: it is the recogniser
package's own dependency, and assist-core does not need it.
"""

from __future__ import annotations

from typing import Any


def turn_samples(samples: Any) -> Any:
    """`samples` as a 1-D float32 numpy array; ValueError saying what is wrong otherwise."""
    import numpy as np

    audio = np.asarray(samples, dtype=np.float32)
    if audio.ndim != 1:
        raise ValueError(f"expected mono samples (1-D), got an array of shape {audio.shape}")
    if not np.isfinite(audio).all():
        raise ValueError("the samples hold NaN or infinite values; pass the turn's audio")
    return audio
