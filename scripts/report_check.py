#!/usr/bin/python3
"""report_check.py -- the experiment pages in a real browser (`make report-check`).

    report_check.py PAGES_DIR OUT_DIR

For every PAGES_DIR/*.html (the pages `bloomlab report` wrote, and
index.html), a probe copy in OUT_DIR gets a small script that writes each
inline <svg>'s rendered size (and the size of what is drawn inside it) into
the DOM; headless chromium loads it, dumps the DOM and takes a screenshot
(OUT_DIR/NAME.png).  A page passes when every <svg> of the page is in the
dumped DOM with a non-zero size and a non-empty drawing, and chromium
printed no console message (the pages have no script of their own, so any
message -- a failed load, an error -- is a fault).  Prints one line per page
and exits 1 when any fails.  CHROMIUM names the browser (default chromium).
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

PROBE = """<script>
for (const s of document.querySelectorAll("svg")) {
  const r = s.getBoundingClientRect(), b = s.getBBox();
  s.setAttribute("data-rendered", r.width + "x" + r.height + ";" + b.width + "x" + b.height);
}
</script>"""


def chromium_flags(out_png):
    return ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
            "--window-size=1280,2400", "--dump-dom", "--screenshot=" + out_png]


def probe_copy(page, out_dir):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if "</body>" not in text:
        raise ValueError("no </body>")
    probe = os.path.join(out_dir, os.path.basename(page))
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>", 1))
    return text.count("<svg"), probe


def check(page, out_dir, browser):
    """(ok, one line) for one page."""
    name = os.path.basename(page)
    try:
        expected, probe = probe_copy(page, out_dir)
    except (OSError, ValueError) as e:
        return False, f"{name}: cannot make the probe copy: {e}"
    png = os.path.join(out_dir, name[:-len(".html")] + ".png")
    done = subprocess.run([browser] + chromium_flags(png) + ["file://" + os.path.abspath(probe)],
                          capture_output=True, text=True, timeout=180)
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    sizes = re.findall(r'data-rendered="([0-9.]+)x([0-9.]+);([0-9.]+)x([0-9.]+)"', done.stdout)
    drawn = [s for s in sizes if all(float(v) > 0 for v in s)]
    faults = []
    if done.returncode != 0:
        faults.append(f"chromium exited {done.returncode}")
    if len(sizes) != expected or len(drawn) != expected:
        faults.append(f"{len(drawn)} of {expected} figures rendered with a non-zero size "
                      f"({len(sizes)} found in the DOM)")
    if console:
        faults.append(f"{len(console)} console messages, the first: {console[0]}")
    if not os.path.isfile(png) or os.path.getsize(png) == 0:
        faults.append("no screenshot")
    if faults:
        return False, f"{name}: FAIL: " + "; ".join(faults)
    return True, f"{name}: ok: {expected} figures rendered, no console message, screenshot {png}"


def main(argv):
    if len(argv) != 2:
        print("usage: report_check.py PAGES_DIR OUT_DIR", file=sys.stderr)
        return 2
    pages_dir, out_dir = argv
    pages = sorted(glob.glob(os.path.join(pages_dir, "*.html")))
    if not pages:
        print(f"report_check: no pages in {pages_dir} (make pages)", file=sys.stderr)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    browser = os.environ.get("CHROMIUM", "chromium")
    # Two at a time: chromium is mostly waiting on its own processes.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: check(p, out_dir, browser), pages))
    for _, line in results:
        print(line)
    failed = sum(not ok for ok, _ in results)
    print(f"report_check: {len(pages) - failed} of {len(pages)} pages pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
