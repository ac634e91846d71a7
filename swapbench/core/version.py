"""The installed swapbench's version, which every file swapbench writes records."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("swapbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
