"""Where training and validation pairs come from: the options `swapbench eval` and `swapbench zoo train|run`
share, and that the scorers read to refuse those their mode would not use.

Apart from evaluation/options.py, which imports the scorers to list them in --mode's help: the scorers import these
options from here, so that no scorer imports the options that import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.command_options import CommandOptions, option
from ..sources.options import source_help, split_names

if TYPE_CHECKING:  # it imports torch: the options are read by `--help`, which must not
    from .finetune import DataChoice

TRAINING_DATA = "training data"


class TrainingDataOptions(CommandOptions):
    """Where training and validation pairs come from; shared by `swapbench eval` and `swapbench zoo train|run`."""

    train_source: str | None = option(
        None,
        group=TRAINING_DATA,
        help=lambda: (
            source_help("$SWAPBENCH_SNLI_DIR, else the SNLI 1.0 release archive") + "; also the pool of "
            "--shots examples"
        ),
    )
    train_split: str = option(
        "train",
        group=TRAINING_DATA,
        choices=split_names,
        help="split of the training source; dev and validation name the same split",
    )
    train_limit: int | None = option(None, ge=1, group=TRAINING_DATA, help="use only the first N training pairs")
    val_source: str | None = option(None, group=TRAINING_DATA, help="validation source (default: the training source)")
    val_split: str = option(
        "validation",
        group=TRAINING_DATA,
        choices=split_names,
        help="validation split; dev and validation name the same split",
    )
    val_limit: int | None = option(None, ge=1, group=TRAINING_DATA, help="use only the first N validation pairs")
    val_holdout: int | None = option(
        None,
        ge=1,
        group=TRAINING_DATA,
        metavar="N",
        help="hold N training pairs out as validation instead of reading a validation split",
    )

    @property
    def training(self) -> DataChoice:
        from .finetune import DataChoice

        return DataChoice(
            train_source=self.train_source,
            train_split=self.train_split,
            train_limit=self.train_limit,
            val_source=self.val_source,
            val_split=self.val_split,
            val_limit=self.val_limit,
            val_holdout=self.val_holdout,
        )
