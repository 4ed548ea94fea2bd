"""The README's picture of the studio (docs/studio.png): BIRD & WEATHER at 4 players in a fresh
versions folder, one change (the reversal off) measured until it stops, the top of the page at
1280 wide: the published verdict, the controls and the change's verdict.  Needs Debian's chromium and Playwright (the test extras).

    .venv/bin/python tools/studio_screenshot.py [--out docs/studio.png]
"""
from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from balance.studio.app import make_app
    from balance.studio.live import Studio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "studio.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        studio = Studio("bird-weather", 4, seed=1, folder=Path(folder) / "versions")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(make_app(studio), host="127.0.0.1", port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=[
                    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync"])
                page = browser.new_page(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector('[data-testid="published-verdict"][data-status="done"]', timeout=600_000)
                page.click('.control[data-key="reversal"] input')
                page.wait_for_function("""() => ['settled', 'cap'].includes(
                    document.querySelector('[data-testid="verdict"]').dataset.status)""", timeout=600_000)
                page.screenshot(path=str(args.out), clip={"x": 0, "y": 0, "width": 1280, "height": 1480},
                                full_page=True)
                browser.close()
        finally:
            server.should_exit = True
            studio.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
