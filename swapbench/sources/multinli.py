"""MultiNLI 1.0 (Williams et al., 2018): release files in SNLI's format, with promptID and genre; no test labels."""

from ..core.registry import SOURCES
from .declaration import Columns, Source

MULTINLI = Source(
    name="multinli",
    short_name="MultiNLI",
    pretty_name="Multi-Genre Natural Language Inference (MultiNLI) 1.0",
    citation="""@inproceedings{williams-etal-2018-broad,
    title = "A Broad-Coverage Challenge Corpus for Sentence Understanding through Inference",
    author = "Williams, Adina and Nangia, Nikita and Bowman, Samuel",
    booktitle = "Proceedings of the 2018 Conference of the North {A}merican Chapter of the Association for
                 Computational Linguistics: Human Language Technologies, Volume 1 (Long Papers)",
    year = "2018",
    address = "New Orleans, Louisiana",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/N18-1101",
    doi = "10.18653/v1/N18-1101",
    pages = "1112--1122"
}""",
    license="other",
    license_note="mixed: most genres come from the Open American National Corpus under its open licence; parts of "
    "the fiction genre are CC BY-SA 3.0 or CC BY 3.0 (see the corpus's data description)",
    homepage="https://cims.nyu.edu/~sbowman/multinli/",
    hub_id="nyu-mll/multi_nli",
    hub_revision="da70db2af9d09693783c3320c4249840212ee221",
    hub_columns=Columns(pair_id="pairID", premise_parse="premise_parse", hypothesis_parse="hypothesis_parse"),
    release="MultiNLI 1.0",
    archive_url="https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip",
    url_env="SWAPBENCH_MULTINLI_URL",
    dir_env="SWAPBENCH_MULTINLI_DIR",
    archive_folder="multinli_1.0",
    file_prefix="multinli_1.0_",
    checksums={},  # no copy of the release was at hand to record them from
    splits={"train": "train", "validation_matched": "dev_matched", "validation_mismatched": "dev_mismatched"},
    aliases={"dev_matched": "validation_matched", "dev_mismatched": "validation_mismatched"},
    split_pairs={"train": 392_702, "validation_matched": 9_815, "validation_mismatched": 9_832},
    extra_fields=(
        "promptID",
        "genre",
        "annotator_labels",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
    ),
    pair_ids="the release's pairID (promptID plus the label's initial), also on the Hub",
    has_trees=True,
)
SOURCES.add(
    MULTINLI.name,
    MULTINLI,
    help=f"MultiNLI 1.0 release files (matched and mismatched validation; ${MULTINLI.dir_env}: a folder of its files)",
)
