"""The README's two pictures from the committed default report (docs/reports/default-tournament,
`python scripts/regenerate_reports.py default-tournament` first): the verdict table as the page
shows it (headless Chromium through chromedriver, Debian's `chromium` and `chromium-driver`) and
the seat chart the report draws. usage: python scripts/readme_images.py"""

import shutil
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

DOCS = Path(__file__).resolve().parents[1] / "docs"
REPORT = DOCS / "reports" / "default-tournament"

options = Options()
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=2100,1000",
            "--hide-scrollbars"):  # fmt: skip
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get((REPORT / "report.html").as_uri())
    # the whole table, not the page's scrolling window onto it
    driver.execute_script("const w = document.querySelector('.verdicts-wrap');"
                          "w.style.width = 'auto'; w.style.left = '0';"
                          "w.style.transform = 'none'; w.style.overflow = 'visible';")
    table = driver.find_element(By.CSS_SELECTOR, "table.verdicts")
    driver.set_window_size(2100, table.size["height"] + 400)
    table.screenshot(str(DOCS / "readme-verdicts.png"))
finally:
    driver.quit()
shutil.copy(REPORT / "figures" / "verdict_seats.png", DOCS / "readme-seats.png")
