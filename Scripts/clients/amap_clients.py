"""Runs one PyPI AMap client against `gazetteer serve` and checks what it makes of the answers.

    python amap_clients.py CLIENT BASE_URL     # CLIENT: amap-cli, amap-python-sdk, amap-sdk, amap-mcp-server

Each client is pointed at BASE_URL (http://127.0.0.1:PORT) only through its own base-URL setting
(amap-cli: its config file; amap-python-sdk: Amap.BASE_URL; amap-sdk: amap.client.BASE_URL;
amap-mcp-server has its URLs hard-coded, so requests.get rewrites https://restapi.amap.com).
Prints one line per call, `ok` or `FAIL`, and exits 1 if any call failed. Run by serve_clients.sh,
in one venv per client (amap-python-sdk and amap-sdk both install a package named `amap`).
"""
import json, os, re, subprocess, sys, tempfile, time

CLIENT, BASE = sys.argv[1], sys.argv[2].rstrip("/")
TIANANMEN, LINGYIN = "116.397477,39.908692", "120.101608,30.240523"   # 东城区 北京市; 西湖区 杭州市
WULIN = "120.1551,30.2741"                                           # 杭州 武林广场
ADDRESS = "北京市朝阳区阜通东大街6号"
failed = 0


def check(call, fn):
    """Runs fn(); prints `ok CLIENT call detail` or `FAIL CLIENT call reason`."""
    global failed
    try:
        detail = fn()
        print(f"ok   {CLIENT:16} {call:34} {detail or ''}", flush=True)
    except Exception as e:  # noqa: BLE001 - any failure of the client or of an assertion is a FAIL
        failed += 1
        print(f"FAIL {CLIENT:16} {call:34} {type(e).__name__}: {str(e)[:300]}", flush=True)


def need(cond, what):
    if not cond:
        raise AssertionError(what)


def lnglat(s, near=None, km=5.0):
    """Asserts s is "lng,lat" inside China (and within km of near); returns (lng, lat)."""
    need(isinstance(s, str) and re.fullmatch(r"-?\d+(\.\d+)?,-?\d+(\.\d+)?", s), f"location {s!r} is not 'lng,lat'")
    lng, lat = map(float, s.split(","))
    need(73 < lng < 136 and 3 < lat < 54, f"location {s} is outside China")
    if near:
        n = [float(x) for x in near.split(",")]
        need(abs(lng - n[0]) * 96 < km and abs(lat - n[1]) * 111 < km, f"location {s} is not within {km} km of {near}")
    return lng, lat


def regeo_ok(rc, district, province):
    ac = rc["addressComponent"]
    need(ac["district"] == district, f"district {ac['district']!r} != {district!r}")
    need(ac["province"] == province, f"province {ac['province']!r} != {province!r}")
    need(re.fullmatch(r"\d{6}", ac["adcode"]), f"adcode {ac['adcode']!r}")
    need(district in rc["formatted_address"], f"formatted_address {rc['formatted_address']!r} lacks {district}")
    return ac


def geo_ok(d, n=1):
    need(int(d["count"]) >= n and len(d["geocodes"]) >= n, f"count {d['count']}, {len(d['geocodes'])} geocodes")
    g = d["geocodes"][0]
    need(g["district"] == "朝阳区" and g["adcode"] == "110105", f"geocode {g['district']!r} {g['adcode']!r}, not 朝阳区 110105")
    lnglat(g["location"], "116.48,39.99", 15)
    return g


def pois_ok(d, name=None, near=None, radius=None):
    pois = d["pois"]
    need(int(d["count"]) >= len(pois) > 0, f"count {d['count']}, {len(pois)} pois")
    for p in pois:
        lnglat(p["location"], near, (radius or 50000) / 1000 + 0.5)
        need(re.fullmatch(r"\d{6}(\|\d{6})*", p["typecode"]), f"typecode {p['typecode']!r}")
        if radius:
            need(0 <= int(p["distance"]) <= radius, f"distance {p['distance']!r} not in 0…{radius}")
    if name:
        need(any(p["name"] == name for p in pois), f"no POI named {name}: {[p['name'] for p in pois][:5]}")
    return f"{len(pois)} of {d['count']}: {pois[0]['name']}"


def district_ok(d, name, child=None, level=None):
    top = d["districts"][0]
    need(top["name"] == name, f"first district {top['name']!r} != {name!r}")
    lnglat(top["center"])
    kids = [k["name"] for k in top["districts"]]
    if child:
        need(child in kids, f"{child} not among the children of {name}: {kids[:8]}")
    if level:
        need(all(k["level"] == level for k in top["districts"]), f"children not all level {level}")
    return top, f"{name}: {len(kids)} children"


def tips_ok(d, word):
    tips = [t for t in d["tips"] if word in t["name"]]
    need(tips, f"no tip containing {word}: {[t['name'] for t in d['tips']][:5]}")
    for t in d["tips"]:
        if t.get("location"):
            lnglat(t["location"])
    return f"{len(d['tips'])} tips: {tips[0]['name']}"


def convert_ok(d, expect):
    got = d["locations"].split(";")
    need(len(got) == len(expect), f"{len(got)} points for {len(expect)}")
    for g, e in zip(got, expect):
        lnglat(g, e, 0.05)   # within 50 m of the textbook transform
    return d["locations"]


# --- the clients -----------------------------------------------------------------------------

def amap_cli():
    """amap-cli is a command-line tool: run it as one, configured by `amap-cli config set`."""
    env = dict(os.environ, XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="amap-cli-"))
    exe = os.path.join(os.path.dirname(sys.executable), "amap-cli")

    def cli(*args):
        out = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=60)
        res = json.loads(out.stdout)
        need(res["success"] and out.returncode == 0, f"exit {out.returncode}: {res.get('error')}")
        return res["data"]

    cli("config", "set", "--api-key", "k", "--base-url", BASE, "--request-sleep-seconds", "0")

    def geocode():
        g = cli("geocode", "--address", ADDRESS)["geocode"]
        lnglat("%f,%f" % tuple(g["location"]), "116.48,39.99", 15)
        need("朝阳区" in g.get("formattedAddress", ""), f"formattedAddress {g.get('formattedAddress')!r}")
        return f"{g['formattedAddress']} {g['location']}"

    def search(args, name=None, radius=None):
        d = cli("search-poi", *args)
        pois = d["pois"]
        need(d["total"] >= len(pois) > 0, f"total {d['total']}, {len(pois)} pois")
        for p in pois:
            need(p["location"] and len(p["location"]) == 2, f"{p['name']}: location not parsed")
            if radius:
                need(p["distance"] is not None and p["distance"] <= radius, f"{p['name']}: distance {p['distance']}")
        if name:
            need(any(p["name"] == name for p in pois), f"no {name}: {[p['name'] for p in pois]}")
        return f"{len(pois)} of {d['total']}: {pois[0]['name']} {pois[0]['location']}"

    check("geo (geocode)", geocode)
    check("place/text (search-poi --city)", lambda: search(["--keyword", "灵隐寺", "--city", "杭州"], "灵隐寺"))
    check("place/text '+' (北京 大学)", lambda: search(["--keyword", "北京 大学", "--city", "北京"], "北京大学"))
    check("place/around (search-poi --center)",
          lambda: search(["--keyword", "咖啡", "--center", WULIN, "--radius", "1000", "--pageSize", "5"], radius=1000))


def amap_python_sdk():
    import asyncio
    import amap.aio
    import amap.base
    from amap.amap import Amap
    from amap.exceptions import AmapAPIError

    amap.base.Amap.BASE_URL = BASE          # the class attribute Amap() reads
    a = Amap("k")
    pt = lambda s: tuple(s.split(","))      # noqa: E731

    def regeo_all():
        rc = a.georegeo.regeo(pt(TIANANMEN), extensions="all", radius=1000)["regeocode"]
        regeo_ok(rc, "东城区", "北京市")
        for p in rc["pois"]:
            lnglat(p["location"], TIANANMEN, 1.5)
        need(isinstance(rc["roads"], list) and isinstance(rc["aois"], list), "roads/aois not lists")
        return f"{rc['formatted_address']}, {len(rc['pois'])} pois"

    def regeo_batch():   # the SDK has no batch argument: its own HTTP client, with batch=true
        d = a.http.get("/v3/geocode/regeo", params={"location": f"{TIANANMEN}|{LINGYIN}", "batch": True})
        r = d["regeocodes"]
        need(len(r) == 2, f"{len(r)} regeocodes for 2 points")
        regeo_ok(r[0], "东城区", "北京市"), regeo_ok(r[1], "西湖区", "浙江省")
        return " | ".join(x["formatted_address"] for x in r)

    def geo_batch():
        d = a.http.get("/v3/geocode/geo", params={"address": f"{ADDRESS}|杭州市西湖区", "batch": True})
        geo_ok(d, 2)
        need(d["geocodes"][1]["adcode"] == "330106", f"second geocode {d['geocodes'][1]['adcode']!r} != 330106")
        return f"count {d['count']}"

    def bad_location():
        try:
            a.http.get("/v3/geocode/regeo", params={"location": "abc"})
        except AmapAPIError as e:
            need(str(e.infocode) == "20000", f"infocode {e.infocode}")
            return "AmapAPIError 20000"
        raise AssertionError("no AmapAPIError for location=abc")

    async def aio_regeo():   # aiohttp's response.json() insists on a JSON content type
        async with amap.aio.Amap("k") as b:
            return (await b.georegeo.regeo(pt(LINGYIN)))["regeocode"]

    check("regeo base", lambda: regeo_ok(a.georegeo.regeo(pt(TIANANMEN))["regeocode"], "东城区", "北京市")["township"])
    check("regeo extensions=all", regeo_all)
    check("regeo batch (http.get)", regeo_batch)
    check("regeo (aiohttp client)", lambda: regeo_ok(asyncio.run(aio_regeo()), "西湖区", "浙江省")["district"])
    check("geo", lambda: geo_ok(a.georegeo.geo(ADDRESS))["location"])
    check("geo city=杭州", lambda: lnglat(a.georegeo.geo("灵隐寺", city="杭州")["geocodes"][0]["location"], LINGYIN, 10))
    check("geo batch (http.get)", geo_batch)
    check("district subdistrict=1", lambda: district_ok(a.district.list("杭州市", level=1), "杭州市", "西湖区", "district")[1])
    check("district subdistrict=2 +adcode", lambda: district_ok(
        a.district.list("浙江省", level=2, adcode="330000"), "浙江省", "杭州市")[1])
    check("district extensions=all", lambda: lnglat(
        district_ok(a.district.list("西湖区", level=1, extensions="all"), "西湖区", "灵隐街道", "street")[0]["polyline"]
        .split("|")[0].split(";")[0]))
    check("inputtips", lambda: tips_ok(a.inputtips.query("灵隐", city="330100", citylimit=True), "灵隐"))
    check("coordinate/convert gps", lambda: convert_ok(
        a.coordinate.convert([pt(TIANANMEN), ("120.1", "30.2")], coordsys="gps"), ["116.403721,39.910095", "120.104803,30.197725"]))
    check("error: location=abc", bad_location)


def amap_sdk():
    import amap.client
    from amap import AmapAPIError, AmapClient

    amap.client.BASE_URL = BASE             # module global, read at each call
    c = AmapClient("k")

    def regeo_all():
        rc = c.geocoding.reverse_geocode(TIANANMEN, extensions="all", radius=1000)["regeocode"]
        regeo_ok(rc, "东城区", "北京市")
        for p in rc["pois"]:
            lnglat(p["location"], TIANANMEN, 1.5)
            need(p["direction"] and int(float(p["distance"])) <= 1000, f"poi {p['name']}: {p['direction']!r} {p['distance']!r}")
        return f"{len(rc['pois'])} pois"

    def regeo_batch():
        r = c._request("/v3/geocode/regeo", {"location": f"{LINGYIN}|{TIANANMEN}", "batch": "true"})["regeocodes"]
        need(len(r) == 2, f"{len(r)} regeocodes")
        regeo_ok(r[0], "西湖区", "浙江省"), regeo_ok(r[1], "东城区", "北京市")
        return " | ".join(x["formatted_address"] for x in r)

    def no_retry_on_error():   # amap-sdk retries HTTP >= 500 with back-off: an AMap error must be HTTP 200
        t = time.monotonic()
        try:
            c.geocoding.reverse_geocode("999,999")
        except AmapAPIError as e:
            need(e.infocode == "20000", f"infocode {e.infocode}")
            need(time.monotonic() - t < 0.4, "took long enough to have retried")
            return "AmapAPIError 20000, no retry"
        raise AssertionError("no AmapAPIError for 999,999")

    check("regeo base", lambda: regeo_ok(c.geocoding.reverse_geocode(LINGYIN)["regeocode"], "西湖区", "浙江省")["adcode"])
    check("regeo extensions=all", regeo_all)
    check("regeo batch (_request)", regeo_batch)
    check("geo", lambda: geo_ok(c.geocoding.geocode(ADDRESS, city="北京"))["formatted_address"])
    check("geo batch (_request)", lambda: geo_ok(c._request("/v3/geocode/geo", {"address": f"{ADDRESS}|{ADDRESS}", "batch": "true"}), 2)["location"])
    check("district subdistrict=1 filter", lambda: district_ok(
        c.district.query("北京市", subdistrict=1, filter="110000"), "北京市", "东城区", "district")[1])
    check("district extensions=all", lambda: district_ok(c.district.query("东城区", subdistrict=0, extensions="all"), "东城区")[0]["polyline"][:30])
    check("inputtips", lambda: tips_ok(c.inputtips.suggest("西湖", city="杭州", location=WULIN), "西湖"))
    check("inputtips type=141201", lambda: tips_ok(c.inputtips.suggest("大学", type="141201", city="0571", citylimit=True), "大学"))
    check("coordinate/convert baidu", lambda: convert_ok(c.coordinate.convert("116.404,39.915", coordsys="baidu"), ["116.397627,39.908656"]))
    check("coordinate/convert autonavi", lambda: convert_ok(c.coordinate.convert(TIANANMEN, coordsys="autonavi"), [TIANANMEN]))
    check("error: HTTP 200, no retry", no_retry_on_error)


def amap_mcp_server():
    import requests
    real_get = requests.get
    requests.get = lambda url, *a, **kw: real_get(url.replace("https://restapi.amap.com", BASE), *a, **kw)
    os.environ.setdefault("AMAP_MAPS_API_KEY", "k")
    from amap_mcp_server import server as s

    def ok(d):
        need("error" not in d, d.get("error"))
        return d

    def regeo():
        d = ok(s.maps_regeocode(TIANANMEN))
        need(d["district"] == "东城区" and d["province"] == "北京市", f"got {d}")
        return f"{d['province']} {d['city']!r} {d['district']}"

    def text():
        pois = ok(s.maps_text_search("灵隐寺", "杭州"))["pois"]
        need(any(p["name"] == "灵隐寺" and p["typecode"] for p in pois), f"no 灵隐寺: {pois[:3]}")
        return f"{len(pois)} pois"

    def around():
        pois = ok(s.maps_around_search(WULIN, "500"))["pois"]
        need(pois and all(p["id"] and p["name"] for p in pois), f"pois {pois[:3]}")
        return f"{len(pois)} pois: {pois[0]['name']}"

    check("regeo (maps_regeocode)", regeo)
    check("geo (maps_geo)", lambda: lnglat(ok(s.maps_geo(ADDRESS, "北京"))["return"][0]["location"], "116.48,39.99", 15))
    check("place/text (maps_text_search)", text)
    check("place/around (maps_around_search)", around)


{"amap-cli": amap_cli, "amap-python-sdk": amap_python_sdk, "amap-sdk": amap_sdk, "amap-mcp-server": amap_mcp_server}[CLIENT]()
sys.exit(1 if failed else 0)
