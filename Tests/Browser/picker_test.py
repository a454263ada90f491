#!/usr/bin/env python3
"""The location picker in a real browser: headless Chromium driven by Playwright.

Run by PickerBrowserTests (swift test), which starts `gazetteer serve` on the seed; by hand:

    .build/browser-venv/bin/python Tests/Browser/picker_test.py \
        --base http://127.0.0.1:8080 --chromium /usr/bin/chromium --screenshots .build/picker-screenshots

Each scenario does what a user does and checks what a user would see; every request the page
makes must go to the server under test (the page works with no network). Prints one line per
scenario and exits 1 if any failed.
"""
import argparse
import json
import math
import os
import re
import sys
import time
import traceback
from urllib.parse import quote, urlparse

from playwright.sync_api import expect, sync_playwright

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT = 30_000  # ms: a debug build on a busy machine is slow to answer the first map requests
# 留下街道's centre (GCJ-02, as config/district gives it), and 灵隐寺 as a phone there says it is
# (WGS-84, some 500 m from its GCJ-02 position).
LIUXIA_STREET = (120.057666, 30.243142)
LINGYIN_WGS = (120.09695, 30.24302)


def haversine(a, b):
    r = math.pi / 180
    h = math.sin((b[1] - a[1]) * r / 2) ** 2 + math.cos(a[1] * r) * math.cos(b[1] * r) * math.sin((b[0] - a[0]) * r / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1, math.sqrt(h)))


class Run:
    def __init__(self, args, browser):
        self.base = args.base.rstrip("/")
        self.shots = args.screenshots
        self.browser = browser
        self.host = urlparse(self.base).netloc
        self.offsite = []  # requests to anywhere but the server under test
        self.errors = []   # JavaScript errors in the page

    def context(self, viewport=PHONE, mobile=None, **options):
        mobile = viewport is PHONE if mobile is None else mobile
        ctx = self.browser.new_context(viewport=viewport, device_scale_factor=2 if viewport is PHONE else 1,
                                       is_mobile=mobile, has_touch=mobile, locale="zh-CN", **options)
        ctx.set_default_timeout(TIMEOUT)

        def guard(route):
            url = urlparse(route.request.url)
            if url.scheme in ("http", "https") and url.netloc != self.host:
                self.offsite.append(route.request.url)
                route.abort()
            else:
                route.continue_()
        ctx.route("**/*", guard)
        return ctx

    def page(self, ctx, path="/"):
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{path}: {e}"))
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{path}: console: {m.text}"))
        page.goto(self.base + path)
        return page

    def shot(self, page, name):
        if self.shots:
            path = os.path.join(self.shots, name + ".png")
            page.screenshot(path=path)
            print(f"    screenshot {path}")

    # What the user sees

    @staticmethod
    def centre(page):
        c = page.evaluate("() => { const c = gazetteerPicker.map.getCenter(); return [c.lng, c.lat]; }")
        return tuple(c)

    @staticmethod
    def wait_list(page):
        """Waits until the list has loaded (no spinner) and returns its rows' texts."""
        expect(page.locator("#list-state .spinner")).to_have_count(0)
        return page.locator("#list li").all_inner_texts()

    @staticmethod
    def wait_idle(page):
        """Waits until the address and the list have both loaded and the base map is drawn."""
        expect(page.locator("#here-title")).not_to_have_text(re.compile("正在"))
        expect(page.locator("#list-state .spinner")).to_have_count(0)
        expect(page.locator(".leaflet-overlay-pane path").first).to_be_attached()

    def looks_like_a_map(self, page):
        """Regions drawn (filled paths), names on them, and a marker for each POI listed."""
        paths = page.locator(".leaflet-overlay-pane path")
        assert paths.count() >= 1, "no region is drawn"
        fill = paths.first.get_attribute("fill")
        assert fill and fill != "none", f"regions are not filled: {fill}"
        labels = page.locator(".region-label span").all_inner_texts()
        assert labels, "no region names on the map"
        pois = page.locator("#list li:not(.centre)").count()
        markers = page.locator(".leaflet-marker-pane .poi-marker").count()
        assert markers == pois, f"{pois} POIs listed but {markers} markers on the map"
        return labels

    # Scenarios

    def opens_on_beijing(self):
        ctx = self.context()
        page = self.page(ctx)
        expect(page.locator("#here-title")).to_contain_text("东城区")
        self.wait_idle(page)
        c = self.centre(page)
        assert haversine(c, (116.397535, 39.909115)) < 5, f"not on Beijing: {c}"
        rows = self.wait_list(page)
        pois = rows[1:]
        assert len(pois) >= 3, f"too few POIs near 天安门: {rows}"
        assert all(re.search(r"\d+(\.\d+)?(米|公里)", r) for r in pois), f"POIs without a distance: {pois}"
        labels = self.looks_like_a_map(page)
        assert "东城区" in labels, f"东城区 not labelled on the map: {labels}"
        expect(page.locator("#submit")).to_be_enabled()
        self.shot(page, "phone-beijing")
        return ctx, page

    def drags_to_hangzhou(self):
        ctx, page = self.opens_on_beijing()
        before = page.locator("#list li").all_inner_texts()
        # A pan of 1,100 km is many drags; the map's own setView stands in for them, then a
        # real drag with the mouse from there.
        page.evaluate("() => gazetteerPicker.map.setView([30.2435, 120.1345], 15)")
        expect(page.locator("#here-title")).to_contain_text("西湖区")
        self.wait_idle(page)
        after = self.wait_list(page)
        assert after != before, "the list did not change"
        assert len(after) >= 11, f"fewer than 10 POIs around 西湖: {after}"
        start = self.centre(page)
        listed = "|".join(after)
        box = page.locator("#map").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for i in range(1, 11):
            page.mouse.move(x - 16 * i, y + 6 * i)
        page.mouse.up()
        # The list is made again once the map stops (after its inertia).
        page.wait_for_function("""(old) => [...document.querySelectorAll('#list li')].map(l => l.innerText).join('|') !== old
            && !document.querySelector('#list-state .spinner')""", arg=listed)
        self.wait_idle(page)
        moved = self.centre(page)
        assert haversine(start, moved) > 200, f"the drag did not move the map: {start} → {moved}"
        dragged = self.wait_list(page)
        assert dragged != after, "the list did not change after the drag"
        distances = [float(m.group(1)) * (1000 if m.group(2) == "公里" else 1)
                     for m in (re.search(r"(\d+(?:\.\d+)?)(米|公里)", r) for r in dragged[1:]) if m]
        assert len(distances) == len(dragged) - 1, f"POIs without a distance: {dragged}"
        assert distances == sorted(distances), f"not nearest first: {distances}"
        self.looks_like_a_map(page)
        self.shot(page, "phone-xihu")
        ctx.close()

    def suggests_and_searches(self):
        ctx, page = self.opens_on_beijing()
        before = self.centre(page)
        page.locator("#q").click()
        page.keyboard.type("灵隐", delay=80)
        tips = page.locator("#tips li:not(.note)")
        expect(tips.first).to_be_visible()
        texts = tips.all_inner_texts()
        assert any("灵隐" in t for t in texts), f"suggestions: {texts}"
        assert any("西湖区" in t for t in texts), f"suggestions say no district: {texts}"
        self.shot(page, "phone-tips")
        page.locator("#go").click()
        expect(page.locator("#tips")).to_be_hidden()
        expect(page.locator("#list-head")).to_contain_text("灵隐")
        expect(page.locator('#list li[aria-selected="true"]')).to_have_count(1)
        first = page.locator("#list li").first
        expect(first).to_have_attribute("aria-selected", "true")
        self.wait_idle(page)
        state = page.evaluate("() => gazetteerPicker.state.items.map(p => [p.name, p.location])")
        hit = tuple(float(v) for v in state[0][1].split(","))
        c = self.centre(page)
        assert haversine(c, hit) < 5, f"the map is not on the first hit {hit}: {c}"
        assert haversine(before, c) > 1_000_000, "the map did not move from Beijing"
        expect(page.locator("#here-title")).to_contain_text("杭州市")
        rows = page.locator("#list li").all_inner_texts()
        for (name, loc), row in list(zip(state, rows))[1:]:
            d = haversine(hit, tuple(float(v) for v in loc.split(",")))
            want = f"{round(d)}米" if d < 1000 else f"{d / 1000:.1f}公里" if d < 10000 else f"{round(d / 1000)}公里"
            assert want in row, f"{name}: distance from the first hit should read {want}: {row!r}"
        self.looks_like_a_map(page)
        self.shot(page, "phone-search")
        # A search with no hit says so, and leaves the map where it was.
        page.locator("#q").fill("不存在的地名甲乙丙")
        page.locator("#go").click()
        expect(page.locator("#list-state")).to_contain_text("没有找到")
        assert haversine(self.centre(page), c) < 5
        ctx.close()

    def opens_on_an_address(self):
        ctx = self.context()
        page = self.page(ctx, "/?address=" + quote("浙江省杭州市西湖区灵隐街道"))
        # The seed knows no centre for 灵隐街道: geo places it approximately, and the page says so.
        expect(page.locator("#list-head")).to_contain_text("已定位到“浙江省杭州市西湖区灵隐街道”")
        expect(page.locator("#here-title")).to_contain_text("浙江省杭州市西湖区")
        self.wait_idle(page)
        geo = page.evaluate("() => fetch('v3/geocode/geo?address=' + encodeURIComponent('浙江省杭州市西湖区灵隐街道')).then(r => r.json())")
        want = tuple(float(v) for v in geo["geocodes"][0]["location"].split(","))
        assert haversine(self.centre(page), want) < 5, f"not at the geocoded point {want}"
        if geo["geocodes"][0]["location_approximate"] == "true":
            expect(page.locator("#list-head")).to_contain_text("大致位置")
        assert len(self.wait_list(page)) >= 11, "fewer than 10 POIs listed"
        self.looks_like_a_map(page)
        self.shot(page, "phone-address")
        ctx.close()

    def opens_on_a_location_and_submits(self):
        """In an iframe: the parent gets the result by postMessage."""
        ctx = self.context(viewport={"width": 420, "height": 880}, mobile=False)
        parent = ctx.new_page()
        parent.on("pageerror", lambda e: self.errors.append(f"iframe parent: {e}"))
        parent.goto(self.base + "/health")  # any page of the server's origin as the parent
        location = f"{LIUXIA_STREET[0]},{LIUXIA_STREET[1]}"
        parent.evaluate("""(src) => {
            window.received = [];
            window.addEventListener('message', e => window.received.push(e.data));
            document.body.innerHTML = '';
            const f = document.createElement('iframe');
            f.src = src; f.width = 390; f.height = 844; f.style.border = '0';
            document.body.appendChild(f);
        }""", f"/?location={location}")
        frame = parent.frame_locator("iframe")
        expect(frame.locator("#here-title")).to_contain_text("西湖区")
        expect(frame.locator("#list-state .spinner")).to_have_count(0)
        picker = next(f for f in parent.frames if f != parent.main_frame)
        c = tuple(picker.evaluate("() => { const c = gazetteerPicker.map.getCenter(); return [c.lng, c.lat]; }"))
        assert haversine(c, LIUXIA_STREET) < 5, f"not opened at ?location: {c}"
        # The centre itself first: the town is 留下街道, whose centre it is.
        expect(frame.locator("#submit")).to_be_enabled()
        frame.locator("#submit").click()
        expect(frame.locator("#result")).to_be_visible()
        expect(frame.locator("#result-summary")).to_contain_text("留下街道")
        expect(frame.locator("#result-summary")).to_contain_text("330106013")
        parent.wait_for_function("() => window.received.length === 1")
        got = parent.evaluate("() => window.received[0]")
        self.check_result(picker, got, location, None)
        a = got["regeocode"]["addressComponent"]
        assert (a["township"], a["towncode"], a["towncode9"]) == ("留下街道", "330106013000", "330106013"), a
        frame.locator("#result-close").click()
        # Then a POI from the list.
        row = frame.locator("#list li:not(.centre)").nth(1)
        name = row.locator(".name").inner_text()
        row.click()
        expect(row).to_have_attribute("aria-selected", "true")
        expect(frame.locator("#chosen")).to_contain_text(name)
        expect(frame.locator("#submit")).to_be_enabled()
        poi = picker.evaluate("() => gazetteerPicker.state.items[gazetteerPicker.state.selected]")
        frame.locator("#submit").click()
        parent.wait_for_function("() => window.received.length === 2")
        got = parent.evaluate("() => window.received[1]")
        self.check_result(picker, got, poi["location"], name)
        assert got["poi"] == poi, f"posted POI {got['poi']} is not the one listed {poi}"

        self.shot(parent, "phone-submitted")
        ctx.close()

    def check_result(self, page, got, location, poi_name):
        """The posted JSON: the regeo answer at the chosen point, that point, and the POI chosen."""
        assert got["status"] == "1" and got["infocode"] == "10000", got
        assert got["location"] == location, f"result location {got['location']} != {location}"
        regeo = page.evaluate("(l) => fetch('v3/geocode/regeo?location=' + l).then(r => r.json())", location)
        assert got["regeocode"] == regeo["regeocode"], f"posted {got['regeocode']}, regeo says {regeo['regeocode']}"
        r = got["regeocode"]
        a = r["addressComponent"]
        assert a["province"] == "浙江省" and a["city"] == "杭州市" and a["district"] == "西湖区", a
        assert a["adcode"] == "330106", a
        assert a["citycode"] == "0571", a
        if a["township"]:
            assert a["township"].endswith(("街道", "镇", "乡")), a
            assert re.fullmatch(r"\d{12}", a["towncode"]) and a["towncode9"] == a["towncode"][:9], a
            assert a["towncode"].startswith("330106"), a
            assert a["township_status"] in ("approximate", "exact"), a
        else:
            # No town is named where none is likely right: said, never a guess.
            assert a["towncode"] == "" and a["towncode9"] == "" and a["township_status"] == "none", a
        assert r["formatted_address"].startswith("浙江省杭州市西湖区"), r["formatted_address"]
        if poi_name is None:
            assert got["poi"] is None, got["poi"]
        else:
            assert got["poi"]["name"] == poi_name, got["poi"]

    def posts_to_a_wkwebview(self):
        """As in WKWebView: window.webkit.messageHandlers.gazetteer gets the result."""
        ctx = self.context()
        ctx.add_init_script("""
            window.posted = [];
            window.webkit = { messageHandlers: { gazetteer: { postMessage: m => window.posted.push(m) } } };
        """)
        page = self.page(ctx, "/?keyword=" + quote("灵隐寺"))
        expect(page.locator("#list-head")).to_contain_text("灵隐寺")
        first = page.locator("#list li").first
        expect(first).to_have_attribute("aria-selected", "true")
        self.wait_idle(page)
        expect(page.locator("#submit")).to_be_enabled()
        name = first.locator(".name").inner_text()
        hit = page.evaluate("() => gazetteerPicker.state.items[0]")
        assert haversine(self.centre(page), tuple(float(v) for v in hit["location"].split(","))) < 5
        page.locator("#submit").click()
        page.wait_for_function("() => window.posted.length === 1")
        got = page.evaluate("() => window.posted[0]")
        self.check_result(page, got, hit["location"], name)
        assert got["poi"] == hit
        ctx.close()

    def locates_the_device(self):
        """Geolocation granted: it opens on the device's position, converted from WGS-84."""
        ctx = self.context(geolocation={"longitude": LINGYIN_WGS[0], "latitude": LINGYIN_WGS[1]}, permissions=["geolocation"])
        page = self.page(ctx)
        expect(page.locator("#here-title")).to_contain_text("西湖区")
        self.wait_idle(page)
        conv = page.evaluate(f"() => fetch('v3/assistant/coordinate/convert?coordsys=gps&locations={LINGYIN_WGS[0]},{LINGYIN_WGS[1]}').then(r => r.json())")
        want = tuple(float(v) for v in conv["locations"].split(","))
        c = self.centre(page)
        assert haversine(c, want) < 5, f"not at the converted position {want}: {c}"
        assert haversine(c, LINGYIN_WGS) > 100, "the WGS-84 position was used unconverted"
        # The locate button does it again after the map was moved away.
        page.evaluate("() => gazetteerPicker.map.setView([39.909115, 116.397535], 15)")
        expect(page.locator("#here-title")).to_contain_text("东城区")
        page.locator("#locate").click()
        expect(page.locator("#here-title")).to_contain_text("西湖区")
        assert haversine(self.centre(page), want) < 5
        ctx.close()

    def desktop_layout(self):
        ctx = self.context(viewport=DESKTOP)
        page = self.page(ctx, "/picker?location=120.1345,30.2435&zoom=13")
        expect(page.locator("#here-title")).to_contain_text("西湖区")
        self.wait_idle(page)
        labels = self.looks_like_a_map(page)
        assert "西湖区" in labels, labels
        map_box = page.locator("#map").bounding_box()
        panel_box = page.locator("#panel").bounding_box()
        assert map_box["width"] > 700 and panel_box["x"] >= map_box["x"] + map_box["width"] - 1, "not two columns"
        # Zoom out with the wheel to the provinces.
        page.mouse.move(map_box["x"] + map_box["width"] / 2, map_box["y"] + map_box["height"] / 2)
        for _ in range(30):
            if page.evaluate("() => gazetteerPicker.map.getZoom()") <= 5:
                break
            page.mouse.wheel(0, 300)
            page.wait_for_timeout(400)
        assert page.evaluate("() => gazetteerPicker.map.getZoom()") <= 5, "the wheel did not zoom out"
        expect(page.locator(".region-label.level-province span").first).to_be_visible()
        page.wait_for_function("() => document.querySelectorAll('.region-label.level-province span').length >= 8")
        provinces = page.locator(".region-label.level-province span").all_inner_texts()
        assert {"浙江省", "江苏省", "安徽省"} & set(provinces), f"provinces around Hangzhou not named: {provinces}"
        self.shot(page, "desktop-provinces")
        ctx.close()


SCENARIOS = ["opens_on_beijing", "drags_to_hangzhou", "suggests_and_searches", "opens_on_an_address",
             "opens_on_a_location_and_submits", "posts_to_a_wkwebview", "locates_the_device", "desktop_layout"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--screenshots")
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
    passed = failed = 0
    expect.set_options(timeout=TIMEOUT)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=["--no-sandbox"])
        run = Run(args, browser)
        for name in args.only or SCENARIOS:
            start = time.monotonic()
            errors_before = len(run.errors)
            try:
                result = getattr(run, name)()
                if isinstance(result, tuple):
                    result[0].close()
                new_errors = run.errors[errors_before:]
                assert not new_errors, f"JavaScript errors: {new_errors}"
                passed += 1
                print(f"ok    {name} ({time.monotonic() - start:.1f} s)", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL  {name} ({time.monotonic() - start:.1f} s)", flush=True)
                traceback.print_exc(file=sys.stdout)
        browser.close()
    if run.offsite:
        failed += 1
        print(f"FAIL  requests left the server under test: {sorted(set(run.offsite))}")
    print(f"picker: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
