"""The pocketsphinx recogniser on real speech, through the shared conformance kit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assist.core.recognisers import Recogniser, RecogniserOptions
from assist.engine_kit.recognisers import RecogniserConformance
from assist.stt.pocketsphinx.engine import is_word
from assist.stt.pocketsphinx.plugin import build, ready_offline


class TestPocketsphinxConformance(RecogniserConformance):
    recogniser_name = "pocketsphinx"
    entry_point = "pocketsphinx"
    max_word_error_rate = 0.35
    """Looser: pocketsphinx's WER on these lines is 17 to 21 % (issue 11)."""
    exact_phrases = ("yes do it",)
    heavy_modules = ("numpy", "pocketsphinx")
    heavy_libraries = ("_pocketsphinx", "libpocketsphinx")

    @pytest.fixture(scope="class")
    @classmethod
    def recogniser(cls) -> Iterator[Recogniser]:
        recogniser = build(RecogniserOptions())
        yield recogniser
        recogniser.close()


def test_another_model_is_refused_with_what_to_do_instead():
    with pytest.raises(ValueError, match=r"one model, 'en-us'.*whisper"):
        build(RecogniserOptions(model="base.en"))
    assert not ready_offline(RecogniserOptions(model="base.en"))
    assert ready_offline(RecogniserOptions(model="en-us"))


@pytest.mark.parametrize(
    ("token", "word"),
    [("hello", True), ("the(2)", True), ("<s>", False), ("</s>", False), ("<sil>", False),
     ("[NOISE]", False), ("", False)],
)  # fmt: skip
def test_only_words_count_towards_the_confidence(token, word):
    assert is_word(token) is word
