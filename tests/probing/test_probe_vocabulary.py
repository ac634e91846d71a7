"""Drawing whole words from WordPiece, SentencePiece and byte-level BPE vocabularies."""

from __future__ import annotations

import pytest
from transformers import BertTokenizer, DebertaV2Tokenizer, RobertaTokenizer
from word_tokenizer import bert_tokenizer as make_bert_tokenizer
from word_tokenizer import in_memory_vocabularies

from swapbench.probing import ProbeError
from swapbench.probing.vocabulary import (
    BYTE_LEVEL,
    SENTENCEPIECE,
    WORDPIECE,
    candidate_words,
    sample_words,
    word_start_convention,
    word_text,
)

SP = "\u2581"  # SentencePiece word start
BL = "\u0120"  # byte-level BPE word start (an encoded space)


def bert_tokenizer(words) -> BertTokenizer:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return make_bert_tokenizer(specials + list(words))


def test_conventions_are_told_apart_by_their_markers():
    assert word_start_convention(["the", "cat", "##s", "##nd", "a"]) == WORDPIECE
    assert word_start_convention([f"{SP}the", f"{SP}cat", "s", "nd"]) == SENTENCEPIECE
    assert word_start_convention([f"{BL}the", f"{BL}cat", "s", "nd", "##"]) == BYTE_LEVEL
    with pytest.raises(ProbeError, match="word starts"):
        word_start_convention(["the", "cat"])


def test_a_wordpiece_backend_needs_no_continuation_pieces():
    tokenizer = bert_tokenizer(["the", "cat"])
    assert word_start_convention(tokenizer.get_vocab(), tokenizer.backend_tokenizer) == WORDPIECE


def test_word_text_keeps_word_starts_and_drops_pieces():
    assert word_text("dog", WORDPIECE) == "dog"
    assert word_text("##nd", WORDPIECE) is None
    assert word_text(f"{SP}dog", SENTENCEPIECE) == "dog"
    assert word_text("nd", SENTENCEPIECE) is None
    assert word_text(f"{BL}dog", BYTE_LEVEL) == "dog"
    assert word_text("dog", BYTE_LEVEL) is None
    # Byte-level tokens spell UTF-8 bytes: "Ã©" is the two bytes of "é"; a lone "Ã" is half a character.
    assert word_text(f"{BL}caf\u00c3\u00a9", BYTE_LEVEL) == "café"
    assert word_text(f"{BL}caf\u00c3", BYTE_LEVEL) is None


def test_wordpiece_candidates_skip_pieces_single_characters_and_specials():
    tokenizer = bert_tokenizer(["the", "cat", "##s", "##nd", "a", "x", "[unused1]", "42", "dog", "..."])
    convention, words = candidate_words(tokenizer)
    assert convention == WORDPIECE
    assert [w.text for w in words] == ["the", "cat", "dog"]
    assert [tokenizer.convert_ids_to_tokens(w.token_id) for w in words] == ["the", "cat", "dog"]


@in_memory_vocabularies
def test_sentencepiece_candidates_need_the_word_start_marker():
    vocab = [
        ("[PAD]", 0.0),
        ("[UNK]", 0.0),
        ("[CLS]", 0.0),
        ("[SEP]", 0.0),
        ("[MASK]", 0.0),
        (SP, -2.0),
        (f"{SP}the", -1.0),
        (f"{SP}cat", -1.0),
        ("nd", -1.5),
        ("ing", -1.5),
        (f"{SP}a", -1.0),
        (f"{SP}dog", -1.0),
        ("s", -3.0),
    ]
    convention, words = candidate_words(DebertaV2Tokenizer(vocab=vocab))
    assert convention == SENTENCEPIECE
    assert [w.text for w in words] == ["the", "cat", "dog"]


@in_memory_vocabularies
def test_byte_level_candidates_need_the_word_start_marker():
    vocab = {
        "<s>": 0,
        "<pad>": 1,
        "</s>": 2,
        "<unk>": 3,
        "<mask>": 4,
        BL: 5,
        "t": 6,
        "h": 7,
        "e": 8,
        f"{BL}t": 9,
        f"{BL}th": 10,
        f"{BL}the": 11,
        "the": 12,
        f"{BL}a": 13,
        f"{BL}dog": 14,
    }
    merges = [(BL, "t"), (f"{BL}t", "h"), (f"{BL}th", "e")]
    convention, words = candidate_words(RobertaTokenizer(vocab=vocab, merges=merges))
    assert convention == BYTE_LEVEL
    # "Ġth" starts a word too (as in "th" of "thing"); the bare "the" is a piece inside a word.
    assert [w.text for w in words] == ["th", "the", "dog"]


def test_added_tokens_are_not_words():
    tokenizer = bert_tokenizer(["the", "cat", "dog"])
    tokenizer.add_tokens(["newword"])
    assert "newword" in tokenizer.get_vocab()
    _, words = candidate_words(tokenizer)
    assert "newword" not in [w.text for w in words]


def test_sampling_is_seeded_and_draws_distinct_words():
    tokenizer = bert_tokenizer([f"word{chr(97 + i)}{chr(97 + j)}" for i in range(26) for j in range(26)])
    _, first = sample_words(tokenizer, 50, seed=3)
    _, again = sample_words(tokenizer, 50, seed=3)
    _, other = sample_words(tokenizer, 50, seed=4)
    assert first == again
    assert first != other
    assert len({w.token_id for w in first}) == 50


def test_sampling_more_words_than_the_vocabulary_has_is_an_error():
    with pytest.raises(ProbeError, match="only 3 whole words"):
        sample_words(bert_tokenizer(["the", "cat", "dog", "##s"]), 4, seed=0)
