"""Render a `tlx-sim report` HTML page in headless Chromium and check it, as a person looking at it would.

Checks (exit 1 with a message on the first failure; exit 77 = skipped when no Chromium is installed):
  * the file references nothing outside itself: no <script>, <link>, <img>, <iframe>, src=, href=, url(, @import;
  * Chromium (driven over the DevTools protocol on a pipe, no network and no extra package) loads it with no
    console error, no uncaught exception, no error log entry, and requests nothing but the page itself;
  * the screenshot (PNG, kept at --screenshot) is not blank: it has many distinct colours and a good share of
    non-white pixels;
  * the page shows the sections a kernel author looks for (given with --expect TEXT, repeatable).

Usage: python3 check_report.py REPORT.html --screenshot OUT.png [--expect TEXT ...]
"""
import argparse
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib


def fail(message):
    print(f"check_report: FAIL: {message}")
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """The Chrome DevTools protocol over --remote-debugging-pipe (fd 3: commands in, fd 4: messages out)."""

    def __init__(self, chromium, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def child_fds():
            # Copy the ends to fresh descriptors first (they may already be 3 or 4), then onto 3 and 4;
            # dup2 leaves the targets inheritable across exec.
            r, w = os.dup(cmd_r), os.dup(res_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={profile}", "about:blank"]
        # preexec_fn runs before the child's fds are closed: keep them all (3 and 4 are the pipe ends).
        self.proc = subprocess.Popen(args, close_fds=False, preexec_fn=child_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(res_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                fail("Chromium did not answer in time")
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                fail("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, timeout=60):
        deadline = time.time() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def png_pixels(data):
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium writes): (width, height, channels, rows)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or color not in (2, 6) or interlace:
        fail(f"unexpected PNG format (depth {depth}, colour type {color}, interlace {interlace})")
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            upleft = prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + left) & 255
            elif filt == 2:
                line[i] = (line[i] + up) & 255
            elif filt == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif filt == 4:
                p = left + up - upleft
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upleft)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1800)
    args = parser.parse_args()

    html = open(args.report, encoding="utf-8").read()
    for pattern in (r"<script", r"<link", r"<img", r"<iframe", r"<object", r"<embed", r"\bsrc\s*=", r"\bhref\s*=",
                    r"url\(", r"@import"):
        match = re.search(pattern, html, re.IGNORECASE)
        if match:
            fail(f"the page references something outside itself: {html[max(0, match.start() - 40):match.end() + 40]!r}")
    for text in args.expect:
        if text not in html:
            fail(f"the page lacks {text!r}")

    chromium = find_chromium()
    if not chromium:
        print("check_report: SKIP: no chromium (apt-get install chromium)")
        sys.exit(77)
    url = "file://" + os.path.abspath(args.report)
    with tempfile.TemporaryDirectory(prefix="tlx-sim-chromium-") as profile:
        tools = DevTools(chromium, profile)
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                tools.send(f"{domain}.enable", session=session)
            tools.send("Emulation.setDeviceMetricsOverride",
                       {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False},
                       session=session)
            tools.send("Page.navigate", {"url": url}, session=session)
            tools.wait_event("Page.loadEventFired")
            tools.send("Runtime.evaluate", {"expression": "document.readyState"}, session=session)
            shot = tools.send("Page.captureScreenshot", {"format": "png"}, session=session)
        finally:
            tools.close()
    errors, requests = [], []
    for event in tools.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            requests.append(params["request"]["url"])
    if errors:
        fail("console errors: " + "; ".join(errors))
    others = [r for r in requests if r != url]
    if others:
        fail("the page requested " + ", ".join(others))
    png = base64.b64decode(shot["data"])
    os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
    with open(args.screenshot, "wb") as f:
        f.write(png)
    width, height, channels, rows = png_pixels(png)
    colours, inked = set(), 0
    for y in range(0, height, 2):
        row = rows[y]
        for x in range(0, width, 2):
            pixel = row[x * channels:x * channels + 3]
            colours.add(pixel)
            inked += pixel != b"\xff\xff\xff"
    share = inked / ((height + 1) // 2 * ((width + 1) // 2))
    print(f"screenshot {width}x{height}, {len(colours)} colours, {100 * share:.1f} % non-white")
    if len(colours) < 16 or share < 0.03:
        fail("the screenshot looks blank")
    print("check_report: OK")


if __name__ == "__main__":
    main()
