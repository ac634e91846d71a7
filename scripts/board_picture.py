"""The README's picture of the board: leaderboard/index.html as Chromium draws it in a 1,280 x 760 window, written to
docs/img/board.png. Run it after `swapbench leaderboard` when the page changes:

    python scripts/board_picture.py [--board leaderboard] [--out docs/img/board.png]

It drives the system Chromium through playwright (the test extra), as the board's browser tests do
($SWAPBENCH_CHROMIUM names another binary).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", type=Path, default=REPO / "leaderboard")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "board.png")
    args = parser.parse_args()
    page_file = args.board / "index.html"
    if not page_file.is_file():
        raise SystemExit(f"{page_file} is missing: run `swapbench leaderboard` first")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("SWAPBENCH_CHROMIUM", "/usr/bin/chromium"))
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.goto(page_file.resolve().as_uri())
        page.wait_for_load_state("load")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
        browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
