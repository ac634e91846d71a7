"""The bottom layer, importing nothing above it: errors, the registries, atomic files and JSON lines, hashes,
text helpers, option models and argparse types, and what differs between transformers 4 and 5."""
