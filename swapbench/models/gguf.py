"""GGUF checkpoints (llama.cpp's one-file format: config, tokenizer and quantized weights): named by a folder or Hub
id and --gguf-file, or by the .gguf file's path itself, and read by transformers (`from_pretrained(folder,
gguf_file=name)`), which dequantizes every weight to the dtype asked as it loads them. The file's quantization is
read from its own metadata (with the `gguf` package) for the results.

Dequantizing costs SmolLM2-135M's Q4_1 file about 27 s of CPU on every load, so the dense model is kept in
swapbench's cache folder (core/paths.py) after the first load, as an ordinary checkpoint folder (config and
safetensors) keyed by the GGUF file's sha256, the dtype, the model class and the transformers release; a later
load reads it in a second or two. It is written beside its place and renamed in, its weights file's sha256 beside
it, and checked against that sha256 before it is read: a cache that does not match is deleted and made again,
never served. What happened is logged (logger `swapbench.models.gguf`, INFO).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import model_validator

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError

if TYPE_CHECKING:  # the results schema (pydantic models, numpy) is imported where a record is made: GGUFOptions is
    from ..results.schema import GGUFWeights  # read by every --help that loads a model, and must stay light

SUFFIX = ".gguf"
INSTALL = "pip install 'swapbench[gguf]'; make setup-main installs it"


def split_gguf_path(model: str, gguf_file: str | None) -> tuple[str, str | None]:
    """(folder or Hub id, GGUF file name): a model named by a .gguf file's path is its folder and the file's name."""
    if not model.lower().endswith(SUFFIX) or Path(model).expanduser().is_dir():
        return model, gguf_file
    path = Path(model).expanduser()
    if gguf_file is not None and gguf_file != path.name:
        raise ValueError(f"MODEL {model} is a GGUF file and --gguf-file names another ({gguf_file}): give one")
    return str(path.parent), path.name


class GGUFOptions(CommandOptions):
    """--gguf-file, and MODEL given as a .gguf file's path: shared by `swapbench eval` and `swapbench probe`."""

    gguf_file: str | None = option(
        None,
        metavar="NAME",
        help="the GGUF file in MODEL's folder or Hub repository to load (transformers dequantizes its weights to "
        "--dtype's type; the results record its quantization). A MODEL that is a .gguf file's path names "
        "both at once",
    )

    @model_validator(mode="after")
    def _model_as_gguf_file(self):
        self.model, self.gguf_file = split_gguf_path(self.model, self.gguf_file)
        return self


def checkpoint_path(name_or_path: str, gguf_file: str | None) -> str:
    """The model's folder or Hub id as given; a GGUF file in a local folder by its path."""
    folder = Path(name_or_path).expanduser()
    return str(folder / gguf_file) if gguf_file and folder.is_dir() else name_or_path


def checkpoint_name(name_or_path: str, gguf_file: str | None) -> str:
    """How a message names the checkpoint: checkpoint_path, a GGUF file on the Hub by its name and repository."""
    if gguf_file is None or Path(name_or_path).expanduser().is_dir():
        return checkpoint_path(name_or_path, gguf_file)
    return f"{gguf_file} of the Hub repository {name_or_path}"


def check_gguf(name_or_path: str, gguf_file: str | None) -> None:
    """Refuse at once a GGUF checkpoint that cannot load: the `gguf` package missing, or a local file that is not
    there."""
    from importlib.util import find_spec

    if gguf_file is None:
        return
    if find_spec("gguf") is None:
        raise SwapbenchError(
            f"cannot load {checkpoint_name(name_or_path, gguf_file)}: transformers reads GGUF files "
            f"with the gguf package, which is not installed ({INSTALL})"
        )
    folder = Path(name_or_path).expanduser()
    if folder.is_dir() and not (folder / gguf_file).is_file():
        found = sorted(p.name for p in folder.glob(f"*{SUFFIX}"))
        there = f"the GGUF files there: {', '.join(found)}" if found else "it holds no .gguf file"
        raise SwapbenchError(f"cannot load GGUF file {folder / gguf_file}: no such file ({there})")


def gguf_arguments(name_or_path: str, gguf_file: str | None, revision: str | None = None) -> dict:
    """from_pretrained's keywords for a GGUF checkpoint (none for any other). A transformers release that can keep
    GGUF blocks packed (GgufConfig) is told to dequantize them all, so that the model scored is the dense one, in
    the dtype asked, on every release. A file with no output layer ties it to the embeddings, as llama.cpp reads
    it: transformers 4 leaves the language-modelling head of such a file (SmolLM2's) untied and new."""
    if gguf_file is None:
        return {}
    arguments = {"gguf_file": gguf_file}
    if read_gguf(gguf_file_path(name_or_path, gguf_file, revision)).tied_output:
        arguments["tie_word_embeddings"] = True
    try:
        from transformers import GgufConfig
    except ImportError:  # transformers 4 always dequantizes
        return arguments
    return {**arguments, "quantization_config": GgufConfig(dequantize=True)}


def as_dense(model):
    """A model dequantized from GGUF as an ordinary one: transformers 5 marks it quantized all the same (its GGUF
    quantizer stays attached, and config.quantization_config), and then neither trains it nor saves it. Refused when
    a weight was kept packed after all: the model would not be the dense one the results describe."""
    if getattr(model, "hf_quantizer", None) is None:
        return model
    packed = sorted({type(m).__name__ for m in model.modules() if type(m).__name__.startswith("Gguf")})
    if packed:
        raise SwapbenchError(
            f"transformers kept some GGUF weights packed ({', '.join(packed)}) though asked to dequantize them all"
        )
    model.hf_quantizer = None
    for owner, name in ((model.config, "quantization_config"), (model, "quantization_method")):
        if name in vars(owner):
            delattr(owner, name)
    return model


def gguf_file_path(name_or_path: str, gguf_file: str, revision: str | None = None) -> Path:
    """The file on this machine: in the local folder, or where huggingface_hub keeps the Hub's copy."""
    folder = Path(name_or_path).expanduser()
    if folder.is_dir():
        return folder / gguf_file
    from huggingface_hub import hf_hub_download

    from ..core.hub_access import cache_only

    return Path(hf_hub_download(name_or_path, gguf_file, revision=revision, local_files_only=cache_only(name_or_path)))


class GGUFContents(NamedTuple):
    quantization: str  # general.file_type as llama.cpp names it (Q4_1), else the commonest quantized tensor type
    tensor_types: dict[str, int]  # the file's tensors counted by type
    tied_output: bool  # embeddings and no output layer: llama.cpp reads the embeddings as the output layer


def read_gguf(path: Path) -> GGUFContents:
    """What the file's metadata say of its weights (read once per version of the file)."""
    try:
        stat = path.stat()
    except OSError as err:
        raise SwapbenchError(f"cannot read GGUF file {path}: {err.strerror}") from err
    return _read_gguf(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_gguf(path: Path, size: int, modified: int) -> GGUFContents:
    """_parse_gguf's answer, once per version of the file in a process (the gguf package reads every metadata
    field, SmolLM2's 49,152-entry vocabulary included). It is not kept on disk: what the results record of the
    file is read from the file itself."""
    return _parse_gguf(path)


def _parse_gguf(path: Path) -> GGUFContents:
    """The quantization is general.file_type as llama.cpp names it (MOSTLY_Q4_1 is Q4_1, ALL_F32 is F32); where
    the file does not say, its most common type of tensor other than F32 and F16 (which keep norms and biases),
    else its most common type."""
    try:
        from gguf import GGUFReader, LlamaFileType
    except ImportError as err:
        raise SwapbenchError(f"cannot read {path}: the gguf package is not installed ({INSTALL})") from err
    try:
        reader = GGUFReader(path)
    except (OSError, ValueError) as err:
        raise SwapbenchError(f"cannot read {path} as a GGUF file: {err}") from err
    types = dict(Counter(tensor.tensor_type.name for tensor in reader.tensors))
    names = {tensor.name for tensor in reader.tensors}
    tied = "token_embd.weight" in names and "output.weight" not in names
    field = reader.fields.get("general.file_type")
    if field is not None:
        try:
            kind, _, name = LlamaFileType(int(field.parts[field.data[0]][0])).name.partition("_")
        except ValueError:  # a file type this gguf release does not know
            kind = name = ""
        if kind in ("MOSTLY", "ALL") and name:
            return GGUFContents(name, types, tied)
    packed = Counter({name: n for name, n in types.items() if name not in ("F32", "F16")})
    return GGUFContents((packed or Counter(types)).most_common(1)[0][0] if types else "unknown", types, tied)


def gguf_record(name_or_path: str, gguf_file: str | None, dtype, revision: str | None = None) -> GGUFWeights | None:
    """What the results say of a GGUF checkpoint dequantized to `dtype` (a torch.dtype) as it loaded; None for any
    other checkpoint."""
    from ..results.schema import GGUFWeights

    if gguf_file is None:
        return None
    contents = read_gguf(gguf_file_path(name_or_path, gguf_file, revision))
    return GGUFWeights(
        file=gguf_file,
        quantization=contents.quantization,
        tensor_types=contents.tensor_types,
        dequantized_to=str(dtype).removeprefix("torch."),
    )


# ---- the dequantized weights, cached -----------------------------------------------------------------------------

LOG = logging.getLogger(__name__)
DENSE_FORMAT = "swapbench-dense-gguf-1"  # bump when what the cache holds changes
WEIGHTS = "model.safetensors"
CHECKSUM = ".sha256"  # in each cached folder: folder_fingerprint of the rest


@functools.lru_cache(maxsize=4)
def _file_sha256(path: Path, size: int, modified: int) -> str:
    from ..core.fingerprint import file_sha256

    return file_sha256(path)


def gguf_sha256(path: Path) -> str:
    """The file's sha256, computed once per version of the file (its size and modification time)."""
    stat = path.stat()
    return _file_sha256(path, stat.st_size, stat.st_mtime_ns)


def dense_cache_folder(gguf_path: Path, dtype, model_class: str, cache_dir: Path | None = None) -> Path:
    """Where the dense model dequantized from `gguf_path` to `dtype` as `model_class` is kept (dtype None: the
    file's config or tokenizer, `model_class` naming which)."""
    from ..core.compat import TRANSFORMERS
    from ..core.paths import default_cache_dir

    dtype_name = "" if dtype is None else f"-{str(dtype).removeprefix('torch.')}"
    name = f"{gguf_sha256(gguf_path)[:32]}{dtype_name}-{model_class}-tf{TRANSFORMERS[0]}.{TRANSFORMERS[1]}"
    return (cache_dir or default_cache_dir()) / "gguf-dense" / DENSE_FORMAT / name


def _verified(folder: Path) -> bool:
    """Whether a cached folder is there whole: the sha256 of its files is the one written beside them. One that
    is not (cut short, altered, its checksum missing) is deleted, so that it is made again."""
    from ..core.fingerprint import folder_fingerprint

    if not folder.is_dir():
        return False
    try:
        expected = (folder / CHECKSUM).read_text(encoding="ascii").strip()
        whole = bool(expected) and folder_fingerprint(folder) == expected
    except OSError:
        whole = False
    if not whole:
        LOG.warning("the dequantized-weights cache %s does not match its sha256: deleted, to be made again", folder)
        shutil.rmtree(folder, ignore_errors=True)
    return whole


def _write_cached(saved, folder: Path) -> None:
    """`saved` (a model, config or tokenizer) saved under a staging name, the sha256 of its files beside them
    (folder_fingerprint, which leaves out the hidden checksum file), then renamed into place: a reader sees the
    whole folder or none."""
    from ..core.files import staging_path
    from ..core.fingerprint import folder_fingerprint

    staging = staging_path(folder)
    try:
        saved.save_pretrained(staging)
        (staging / CHECKSUM).write_text(folder_fingerprint(staging) + "\n", encoding="ascii")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def cached_part(
    kind: str,
    name_or_path: str,
    gguf_file: str,
    revision: str | None,
    load: Callable[[], object],
    reload: Callable[[Path], object],
    cache_dir: Path | None = None,
):
    """A GGUF file's config or tokenizer (`kind`), which transformers reads from the file's metadata each time
    (its whole vocabulary: seconds): kept beside the dense weights, read back by `reload(folder)`."""
    path = gguf_file_path(name_or_path, gguf_file, revision)
    folder = dense_cache_folder(path, None, kind, cache_dir)
    if _verified(folder):
        return reload(folder)
    made = load()
    try:
        _write_cached(made, folder)
    except OSError as err:
        LOG.warning("could not cache the %s of %s at %s: %s", kind, path.name, folder, err)
    return made


@contextlib.contextmanager
def quiet_dequantization():
    """transformers' GGUF reader draws a tqdm bar of the file's tensors (272 steps for SmolLM2) straight to
    stderr, past its own logging and progress settings: held back while swapbench loads (loading.library_quiet,
    around every load), as its other loading chatter is."""
    try:
        import transformers.modeling_gguf_pytorch_utils as reader
    except ImportError:
        yield
        return
    drawn = getattr(reader, "tqdm", None)
    if drawn is None:
        yield
        return
    reader.tqdm = functools.partial(drawn, disable=True)
    try:
        yield
    finally:
        reader.tqdm = drawn


def load_dense(
    auto_class,
    name_or_path: str,
    gguf_file: str,
    revision: str | None,
    dtype,
    dequantize: Callable[[], tuple[object, dict]],
    reload: Callable[[Path], tuple[object, dict]],
    cacheable: bool = True,
    cache_dir: Path | None = None,
) -> tuple[object, dict]:
    """(model, loading info) of a GGUF checkpoint: read back from the dense cache where a whole one is there
    (`reload(folder)`: from_pretrained of the folder), else dequantized (`dequantize()`) and, when every
    weight came from the file and the model is whole on its device (`cacheable`: not spread by a device map),
    cached for the next load. A cache that cannot be written costs nothing but the
    next load's time."""
    path = gguf_file_path(name_or_path, gguf_file, revision)
    folder = dense_cache_folder(path, dtype, auto_class.__name__, cache_dir)
    if _verified(folder):
        LOG.info("read the dequantized weights of %s from the cache %s", path.name, folder)
        return reload(folder)
    model, info = dequantize()  # inside loading.library_quiet, which holds the reader's bar back
    model = as_dense(model)
    # a new head (missing from the file) is not the file's: such a model is not cached
    if cacheable and not any(info.get(kind) for kind in ("missing_keys", "mismatched_keys")):
        try:
            _write_cached(model, folder)
            LOG.info("dequantized %s and cached its weights at %s", path.name, folder)
        except OSError as err:
            LOG.warning("could not cache the dequantized weights of %s at %s: %s", path.name, folder, err)
    return model, info
