"""`swapbench build`: a source's pairs, parsed and perturbed by every variant, written as a Hugging Face dataset
folder (Parquet per configuration, the dataset card, build_info.json), optionally pushed to the Hub; and the
hand curation of shuffle-sr's swaps."""
