"""A tiny benepar model with random weights, in benepar's release format, built offline.

`benepar.Parser(path)` loads a release folder (ChartParser.from_trained) that holds:

- config.json: the pretrained transformer's config, with one extra key, `benepar`, holding the parser's
  `tag_vocab`, `label_vocab`, `char_vocab` and `hparams`;
- the transformer's tokenizer files;
- benepar_model.bin: the state dict of the whole ChartParser, transformer weights included.

The transformer is built from the folder's config.json (AutoModel.from_config), never downloaded, so a tiny
T5 (the architecture of benepar_en3) with a sentencepiece vocabulary trained on a few sentences will do.
Its trees are meaningless; they exercise the same code paths as the real model's.
"""

from __future__ import annotations

import io
from pathlib import Path

import sentencepiece
import torch
from benepar.nkutil import HParams
from benepar.parse_chart import ChartParser
from transformers import T5Config, T5TokenizerFast

CORPUS = [
    "A man plays a red guitar on the street.",
    "Two dogs run through the deep snow (quickly).",
    "A woman in a blue hat is reading a book, quietly.",
    "Children are smiling and waving at the camera!",
    "An older man sits on a bench near the water; he's eating bread.",
    '"Three people" stand outside a shop with 2 bikes.',
]

TAGS = [
    "''",
    ",",
    "-LRB-",
    "-RRB-",
    ".",
    ":",
    "CC",
    "CD",
    "DT",
    "IN",
    "JJ",
    "NN",
    "NNS",
    "POS",
    "PRP",
    "RB",
    "VBG",
    "VBP",
    "VBZ",
    "``",
]
# Index 0 is the empty label ("not a constituent"). "S::VP" is a unary chain, which benepar returns as
# nested nodes. WHNP, WHADJP, SINV and SQ make benepar guess that the model is English.
LABELS = ["", "ADJP", "ADVP", "NP", "PP", "S", "S::VP", "SBAR", "SINV", "SQ", "VP", "WHADJP", "WHNP"]

HPARAMS = dict(
    use_pretrained=True,
    pretrained_model="t5-large",  # what benepar_en3 names; a release folder never loads it
    use_chars_lstm=False,
    d_char_emb=8,
    char_lstm_input_dropout=0.2,
    use_encoder=True,
    d_model=32,
    num_layers=1,
    num_heads=2,
    d_kv=8,
    d_ff=32,
    encoder_max_len=128,
    morpho_emb_dropout=0.2,
    attention_dropout=0.2,
    relu_dropout=0.1,
    residual_dropout=0.2,
    d_label_hidden=16,
    predict_tags=True,
    d_tag_hidden=16,
    tag_loss_scale=5.0,
    force_root_constituent=True,
)


def build_tiny_model(folder: Path, seed: int = 0) -> Path:
    """Write a release-format benepar model with random weights into `folder` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)

    spiece = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS),
        model_writer=spiece,
        model_type="unigram",
        vocab_size=64,
        hard_vocab_limit=False,
        character_coverage=1.0,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        minloglevel=2,
    )
    (folder / "spiece.model").write_bytes(spiece.getvalue())
    tokenizer = T5TokenizerFast(vocab_file=str(folder / "spiece.model"), extra_ids=0, legacy=False)
    tokenizer.save_pretrained(folder)

    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    config.benepar = {
        "tag_vocab": {tag: i for i, tag in enumerate(TAGS)},
        "label_vocab": {label: i for i, label in enumerate(LABELS)},
        "char_vocab": None,
        "hparams": HPARAMS,
    }
    config.save_pretrained(folder)

    # The parser reads the config and tokenizer just written, as benepar.Parser will.
    parser = ChartParser(**{**config.benepar, "hparams": HParams(**HPARAMS)}, pretrained_model_path=str(folder))
    torch.save(parser.state_dict(), folder / "benepar_model.bin")
    return folder
