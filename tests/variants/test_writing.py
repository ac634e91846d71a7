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
    assert (
        writing.write(["Kids", "(", "play", ")", "are", "two", "gon", "na", ",", "now", "."])
        == "Kids (play) are two gonna, now."
    )


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


# Tokens of every kind the detokenizer's rules tell apart: plain words and digits, the words its contraction rules
# name (in two cases), clitics, punctuation, brackets, quotes and currency.
KINDS = [
    "man",
    "Boat",
    "42",
    "x",
    "can",
    "Can",
    "not",
    "NOT",
    "gon",
    "na",
    "wan",
    "more",
    "d",
    "is",
    "was",
    "me",
    "ta",
    "got",
    "lem",
    "gim",
    "'s",
    "n't",
    "'ll",
    "'",
    "'n",
    "'ye",
    "'t",
    ".",
    ",",
    "!",
    "?",
    ";",
    ":",
    "...",
    "--",
    "(",
    ")",
    "[",
    "]",
    "``",
    "''",
    "$",
    "#",
    "%",
    "&",
    "-",
    "cannot",
    "dog's",
]


def test_spaced_reads_a_word_by_its_shape_exactly_as_the_detokenizer_reads_the_word():
    """spaced() computes a decision once per shape ("x" for any word its rules do not name): on every pair of
    kinds it agrees with the detokenizer run on the words themselves."""
    from swapbench.variants.treebank_spacing import detokenize
    from swapbench.variants.writing import _is_word

    for left in KINDS:
        for right in KINDS:
            expected = (_is_word(left) and _is_word(right)) or " " in detokenize([left, right])
            assert spaced(left, right) == expected, (left, right)


@pytest.mark.parametrize(
    "premise, hypothesis",
    [
        (
            (
                ["A", "man", "can", "not", "see", "a", "man", "on", "the", "boat", "."],
                "A man cannot see a man  on the boat.",
            ),
            (["A", "man", "is", "n't", "blind", "."], "A man isn't blind."),
        ),
        (
            (["Kids", "(", "two", ")", "are", "gon", "na", "play", ",", "now", "."], "Kids (two) are gonna play, now."),
            (["Kids", "play", "."], "Kids play."),
        ),
        (
            (["The", "dog", "'s", "owner", "does", "n't", "run", "."], "The dog's owner doesn't run."),
            (["The", "dog", "runs"], "The cat runs"),
        ),  # a hypothesis that does not align teaches nothing
        # two words fused once ("cannot") and apart elsewhere: a permutation may make the other pair neighbours
        (
            (["I", "can", "not", "go", "but", "can", "you", "not", "?"], "I cannot go but can you not?"),
            (["I", "go"], "I go"),
        ),
        # a fusion the hypothesis teaches, of two words apart in the premise
        (
            (["She", "can", "sing", "well", "or", "not", "."], "She can sing well or not."),
            (["She", "can", "not", "sing", "."], "She cannot sing."),
        ),
    ],
)
def test_writing_a_permutation_by_position_is_writing_its_tokens(premise, hypothesis):
    """write_order, which reads kept neighbours by position and two words made neighbours as spaced unless the
    text fused them, writes exactly what write() writes of the same tokens, for every order of a short sentence
    and random ones of a long one."""
    import itertools
    import random

    writing = pair_writing([premise, hypothesis])
    tokens = premise[0]
    positions = writing.positions(tokens)
    assert positions is not None
    orders = [list(order) for order in itertools.islice(itertools.permutations(range(len(tokens))), 5000)]
    generator = random.Random(0)
    orders += [generator.sample(range(len(tokens)), len(tokens)) for _ in range(2000)]
    for order in orders:
        assert writing.write_order(positions, order) == writing.write([tokens[k] for k in order]), order


def test_a_sentence_with_a_quote_or_a_spaced_token_is_not_written_by_position():
    """A quote is opening or closing by its place in the order, and write() splits a token holding white space."""
    writing = pair_writing([SENTENCES[2]])
    assert writing.positions(SENTENCES[2][0]) is None
    assert writing.positions(["New York", "."]) is None and writing.positions(["", "."]) is None
