"""The schemas of what swapbench writes and reads back: the build record (build_info.json), the results file and
its predictions file; and where those files go."""
