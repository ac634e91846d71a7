"""The command line: one module per command (its arguments and what it prints), and main.py, which joins them."""
