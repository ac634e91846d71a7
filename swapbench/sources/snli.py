"""SNLI 1.0 (Bowman et al., 2015): the release archive by default, with its constituency trees and pairIDs."""

from ..core.registry import SOURCES
from .declaration import Columns, Source

SNLI = Source(
    name="snli",
    short_name="SNLI",
    pretty_name="Stanford Natural Language Inference (SNLI) 1.0",
    citation="""@inproceedings{bowman-etal-2015-large,
    title = "A large annotated corpus for learning natural language inference",
    author = "Bowman, Samuel R. and Angeli, Gabor and Potts, Christopher and Manning, Christopher D.",
    booktitle = "Proceedings of the 2015 Conference on Empirical Methods in Natural Language Processing",
    year = "2015",
    address = "Lisbon, Portugal",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/D15-1075",
    doi = "10.18653/v1/D15-1075",
    pages = "632--642"
}""",
    license="cc-by-sa-4.0",
    license_note="SNLI is licensed under a Creative Commons Attribution-ShareAlike 4.0 International License; its "
    "premises are Flickr30k image captions.",
    homepage="https://nlp.stanford.edu/projects/snli/",
    hub_id="stanfordnlp/snli",
    hub_revision="cdb5c3d5eed6ead6e5a341c8e56e669bb666725b",
    hub_columns=Columns(),
    release="SNLI 1.0",
    archive_url="https://nlp.stanford.edu/projects/snli/snli_1.0.zip",
    url_env="SWAPBENCH_SNLI_URL",
    dir_env="SWAPBENCH_SNLI_DIR",
    archive_folder="snli_1.0",
    file_prefix="snli_1.0_",
    checksums={  # the extracted release files' sha256 (the train file's is not recorded)
        "snli_1.0_test.jsonl": "1147550151ca8b16ddb31d8dc0e739a670a65f7c3e64aac5951eaeff103fb220",
        "snli_1.0_dev.jsonl": "9c03faff70182ef086ebfeed2cffbabb5fcc6a84a8b3314decbbb5b01f07f4bf",
    },
    splits={"train": "train", "validation": "dev", "test": "test"},
    aliases={"dev": "validation"},
    split_pairs={"train": 549_367, "validation": 9_842, "test": 9_824},  # of 550,152 and 10,000 rows
    extra_fields=(
        "captionID",
        "annotator_labels",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
    ),
    pair_ids="the release's pairID (captionID#rN plus the label's initial); the Hub copy has none: "
    "snli-<split>-<row index>",
    has_trees=True,
)
SOURCES.add(
    SNLI.name,
    SNLI,
    help="SNLI 1.0, the release archive from the Stanford NLP site (default; "
    f"${SNLI.dir_env}: a folder of its files, ${SNLI.url_env}: another URL)",
)
