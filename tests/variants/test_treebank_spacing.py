"""treebank_spacing.detokenize is NLTK's TreebankWordDetokenizer, without importing nltk."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from importlib.metadata import version

import pytest

from swapbench.variants.treebank_spacing import detokenize

# Every token kind the detokenizer's rules read (brackets, quotes, clitics, contractions, marks), and words.
TOKENS = [
    "A",
    "dog",
    "runs",
    ".",
    ",",
    ":",
    ";",
    "?",
    "!",
    "...",
    "--",
    "'",
    "''",
    "``",
    '"',
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "$",
    "#",
    "%",
    "&",
    "'s",
    "'S",
    "n't",
    "N'T",
    "'ll",
    "'re",
    "'ve",
    "'m",
    "'d",
    "can",
    "not",
    "gon",
    "na",
    "wan",
    "got",
    "ta",
    "gim",
    "me",
    "lem",
    "more",
    "'n",
    "d",
    "'ye",
    "'t",
    "is",
    "was",
    "U.S.",
    "3.88",
    "o'clock",
    "-",
    "/",
]


@pytest.mark.skipif(not version("nltk").startswith("3.10"), reason="the rules are nltk 3.10's; other versions differ")
def test_every_pair_and_triple_of_tokens_is_written_as_nltk_writes_it():
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    nltk = TreebankWordDetokenizer()
    for tokens in itertools.chain(itertools.product(TOKENS, repeat=2), itertools.product(TOKENS[:30], repeat=3)):
        assert detokenize(list(tokens)) == nltk.detokenize(list(tokens)), tokens


def test_a_ptb_build_of_the_shuffles_imports_neither_nltk_nor_torch(tmp_path):
    # a second each: the build's fixed cost, paid on every run
    source = os.path.join(os.path.dirname(__file__), "..", "fixtures", "snli_1.0_test.jsonl")
    script = (
        "import sys\nfrom swapbench.commands.main import main\n"
        f"code = main(['build', '--source', {source!r}, '--parser', 'ptb', '--out', {str(tmp_path / 'out')!r}, "
        "'--variants', 'shuffle-3,shuffle-random'])\n"
        "print(code, 'nltk' in sys.modules, 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-3:] == ["0", "False", "False"], done.stdout + done.stderr
