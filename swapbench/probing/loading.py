"""Loading a model by Hub id, folder or GGUF file for the probe, and naming the exact weights it used."""

from __future__ import annotations

from ..core.errors import SwapbenchError
from ..core.fingerprint import model_revision as revision_of
from ..core.hub_access import cache_only, load_failure
from .errors import ProbeError


def load_model(name: str, revision: str | None = None, trust_remote_code: bool = False, gguf_file: str | None = None):
    """(model, tokenizer) with eager attention; the bare encoder of a classifier checkpoint is enough, but every
    weight of that encoder must load, and its config's positional encoding must be one the code runs. A GGUF file
    (`gguf_file` in the folder or Hub repository `name`) is dequantized to float32."""
    from transformers import AutoModel, AutoTokenizer

    from ..models.gguf import as_dense, checkpoint_name, gguf_arguments
    from ..models.loading import check_positional_support, check_weights, library_quiet, load_config, weight_problems

    try:
        config = load_config(name, revision, trust_remote_code, gguf_file)
    except SwapbenchError as err:
        raise ProbeError(str(err)) from err  # load_config's messages name the model already
    check_positional_support(name, config, trust_remote_code)
    local = cache_only(name)
    try:
        with library_quiet():
            tokenizer = AutoTokenizer.from_pretrained(
                name,
                revision=revision,
                trust_remote_code=trust_remote_code,
                local_files_only=local,
                **({"gguf_file": gguf_file} if gguf_file else {}),
            )
            model, info = AutoModel.from_pretrained(
                name,
                revision=revision,
                attn_implementation="eager",
                trust_remote_code=trust_remote_code,
                output_loading_info=True,
                local_files_only=local,
                **gguf_arguments(name, gguf_file, revision),
            )
    except (OSError, ValueError, KeyError) as err:
        raise ProbeError(load_failure(checkpoint_name(name, gguf_file), err)) from err
    # A classifier checkpoint's head is unused here, and the pooler (absent from some) takes no part in attention.
    weights = weight_problems(name, {**info, "unexpected_keys": ()}, may_be_new=lambda key: "pooler" in key)
    check_weights(name, weights, allow_missing=False)
    return as_dense(model), tokenizer


def model_revision(name: str, model, gguf_file: str | None = None) -> str | None:
    """The Hub commit, else the sha256 of a local folder's files (of a GGUF file alone): the one definition
    (fingerprint.model_revision), so that results.json and probe.json name a model alike."""
    return revision_of(name, model.config, gguf_file=gguf_file)
