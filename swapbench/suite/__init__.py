"""`swapbench suite`: a declared list of models scored in one command, resumable, each into its results file."""
