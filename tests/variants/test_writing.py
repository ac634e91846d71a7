"""Tokens written back as text: the unperturbed sentence is its text, a perturbed one is spaced as written text
is, and two words are never fused."""

from __future__ import annotations

import pytest

from swapbench.variants.writing import Writing, align, pair_writing, single_spaced, spaced

# Hand-written sentences with the tokens a Penn Treebank tree gives them.
SENTENCES = [
    (["A", "man", "can", "not", "see", "the", "boat", "."], "A man cannot see the  boat."),
    (["The", "dog", "'s", "owner", "does", "n't", "run", "."], "The dog's owner doesn't run."),
    (["She", "says", '"', "hello", '"', "to", "him", "."], "She says \u201chello\u201d to him."),
    (["Kids", "(", "two", ")", "are", "gon", "na", "play", ",", "now", "."], "Kids (two) are gonna play, now."),
    (["He", "holds", '"', "Stop", '"', "."], 'He holds "Stop".'),
]


@pytest.mark.parametrize("tokens, text", SENTENCES)
def test_the_unperturbed_tokens_are_written_as_their_text_white_space_squashed(tokens, text):
    writing = pair_writing([(tokens, text)])
    assert writing.write(tokens) == single_spaced(text)


def test_moved_punctuation_and_clitics_attach_as_in_written_text():
    tokens, text = SENTENCES[1]
    writing = pair_writing([(tokens, text)])
    # "'s" now follows "owner", "n't" follows "run": neighbours the text never had, spaced by the detokenizer
    assert writing.write(["The", "dog", "owner", "'s", "does", "run", "n't", "."]) == "The dog owner's does runn't."
    tokens, text = SENTENCES[3]
    writing = pair_writing([(tokens, text)])
    assert writing.write(["Kids", "(", "play", ")", "are", "two", "gon", "na", ",", "now", "."]) == \
        "Kids (play) are two gonna, now."


def test_two_words_made_neighbours_are_never_fused():
    tokens, text = SENTENCES[0]
    writing = pair_writing([(tokens, text)])
    # "can" and "not" were one written word; apart, or in the other order, they are two
    assert writing.write(["A", "man", "not", "can", "see", "the", "boat", "."]) == "A man not can see the boat."
    assert writing.write(["A", "can", "man", "not", "see", "the", "boat", "."]) == "A can man not see the boat."
    assert spaced("gon", "na") and spaced("can", "not")  # what the detokenizer alone would glue


def test_an_opening_and_a_closing_quote_keep_their_spellings_and_sides():
    tokens, text = SENTENCES[2]
    writing = pair_writing([(tokens, text)])
    assert writing.write(["She", "to", '"', "hello", '"', "says", "him", "."]) == "She to \u201chello\u201d says him."
    assert writing.write(["She", "says", '"', "to", '"', "hello", "him", "."]) == "She says \u201cto\u201d hello him."


def test_a_writing_learns_from_both_sentences_of_a_pair():
    premise = (["A", "man", "can", "not", "swim", "."], "A man cannot swim.")
    hypothesis = (["A", "person", "is", "n't", "swimming", "."], "A person isn't swimming.")
    writing = pair_writing([premise, hypothesis])
    assert writing.write(["A", "person", "can", "not", "swim", "."]) == "A person cannot swim."


def test_align_locates_tokens_or_says_they_do_not_spell_the_text():
    assert align(["A", "man", "'s", "hat", "."], "A man's  hat.") == [(0, 1), (2, 5), (5, 7), (9, 12), (12, 13)]
    assert align(['"', "Hi", '"'], "``Hi''") == [(0, 2), (2, 4), (4, 6)]
    assert align(["A", "man"], "A woman") is None
    assert align(["A", "man"], "A man runs") is None  # text left over
    assert align(["Aman"], "A man") is None  # a token never spans white space


def test_tokens_that_do_not_spell_the_text_teach_nothing_and_the_detokenizer_spaces_them():
    writing = Writing()
    assert not writing.learn(["A", "woman", "."], "A man.")
    assert writing.spelling == {} and writing.gaps == {}
    assert writing.write(["A", "woman", "'s", "hat", "."]) == "A woman's hat."
    assert writing.write([]) == ""
