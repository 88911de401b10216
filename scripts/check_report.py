"""Opens a neardup report page in headless Chromium, from disk with the network off, and
checks what a reader would: no console errors, every chart drawn, the figures equal the
run's --stats, documents shown as text (a <script> in a document does not run).

    python scripts/check_report.py PAGE.html STATS.json [TEXT_THAT_MUST_SHOW ...]

Needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)
and selenium. Exit 0 when every check passes; each failure is printed.
"""

import json
import pathlib
import sys

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main() -> int:
    page, stats_path, *must_show = sys.argv[1:]
    stats = json.loads(pathlib.Path(stats_path).read_text())
    failures = []
    driver = browser()
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
        )
        driver.get(pathlib.Path(page).resolve().as_uri())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            failures.append(f"console errors: {errors}")
        fetched = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
        if fetched:
            failures.append(f"the page fetched {fetched}")
        if driver.execute_script("return document.scripts.length"):
            failures.append("the page has a script element")
        try:
            driver.switch_to.alert
            failures.append("an alert ran")
        except NoAlertPresentException:
            pass
        charts = driver.find_elements(By.CSS_SELECTOR, "figure[data-chart]")
        # A filter's page has four charts; a graph command's three (no pairs below T).
        if len(charts) < 3:
            failures.append(f"{len(charts)} charts, not 3 or 4")
        for chart in charts:
            name = chart.get_attribute("data-chart")
            drawn = driver.execute_script(
                "const s = arguments[0].querySelector('svg');"
                "if (!s) return null;"
                "const b = s.getBoundingClientRect();"
                "return [b.width, b.height, s.querySelectorAll('rect,polyline,polygon,circle,path').length];",
                chart,
            )
            if not drawn or drawn[0] < 100 or drawn[1] < 50 or drawn[2] < 3:
                failures.append(f"chart {name} not drawn: {drawn}")
            # No two of a chart's labels (axis ticks, titles, legends) overlap as drawn.
            overlaps = driver.execute_script(
                "const boxes = [...arguments[0].querySelectorAll('svg text')]"
                "  .filter(t => t.textContent.trim())"
                "  .map(t => [t.textContent.trim(), t.getBoundingClientRect()]);"
                "const hits = [];"
                "for (let i = 0; i < boxes.length; i++)"
                "  for (let j = i + 1; j < boxes.length; j++) {"
                "    const [a, p] = boxes[i], [b, q] = boxes[j];"
                "    const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);"
                "    const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);"
                "    if (x > 0.5 && y > 0.5) hits.push(a + ' / ' + b);"
                "  }"
                "return hits;",
                chart,
            )
            if overlaps:
                failures.append(f"chart {name}: labels overlap: {overlaps[:5]}")
        # A figure in bytes shows binary units; its exact value is in data-value.
        shown = {
            td.get_attribute("data-stat"): td.get_attribute("data-value") or td.text
            for td in driver.find_elements(By.CSS_SELECTOR, "td[data-stat]")
        }
        if len(shown) < 6:
            failures.append(f"only {len(shown)} figures shown")
        for key, text in shown.items():
            value = stats
            for part in key.split("."):  # graph.edges: a member of an object
                value = value.get(part) if isinstance(value, dict) else None
            if json.dumps(value) != text:
                failures.append(f"{key}: the page shows {text}, --stats says {value}")
        dropped = driver.find_element(By.CSS_SELECTOR, "figure[data-chart=dropped]")
        if "graph" in stats or "groups" in stats:
            pass  # a graph command's histogram counts documents with a pair: not in --stats
        elif int(dropped.get_attribute("data-count")) != stats["dropped"]:
            failures.append(
                f"the dropped histogram counts {dropped.get_attribute('data-count')}, "
                f"--stats says {stats['dropped']}"
            )
        body = driver.find_element(By.TAG_NAME, "body").text
        for text in must_show:
            if text not in body:
                failures.append(f"{text!r} is not shown as text")
        print(
            f"{page}: {len(charts)} charts, {len(shown)} figures, "
            f"{len(driver.find_elements(By.CSS_SELECTOR, '.pair'))} examples, "
            f"{len(driver.find_elements(By.CSS_SELECTOR, '.group'))} groups; "
            f"{pathlib.Path(page).stat().st_size:,} bytes"
        )
    finally:
        driver.quit()
    for f in failures:
        print(f"FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
