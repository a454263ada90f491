#!/usr/bin/env python3
"""Sanity checks of the generated seed/ directory.

    python3 Scripts/validate_seed.py seed
"""
import csv
import glob
import os
import sys
from collections import Counter

import shapely
from shapely import wkt
from shapely.geometry import Point

csv.field_size_limit(1 << 30)
LEVELS = {"province": 0, "city": 1, "district": 2, "town": 3}


def main(seed):
    errors = []
    with open(os.path.join(seed, "regions.csv"), encoding="utf-8") as fh:
        regions = list(csv.DictReader(fh))
    by = {}
    for r in regions:
        if r["code"] in by:
            errors.append("duplicate code " + r["code"])
        by[r["code"]] = r
    for r in regions:
        lv = r["level"]
        want = 12 if lv == "town" else 6
        if len(r["code"]) != want or not r["code"].isdigit():
            errors.append(f"bad code {r['code']} for {lv}")
        if lv == "province":
            if r["parent"]:
                errors.append("province with parent " + r["code"])
        else:
            p = by.get(r["parent"])
            if p is None:
                errors.append(f"{r['code']} parent {r['parent']} missing")
            elif LEVELS[p["level"]] >= LEVELS[lv]:
                errors.append(f"{r['code']} ({lv}) under {p['code']} ({p['level']})")
        if (r["lng"] == "") != (r["lat"] == ""):
            errors.append("half centre " + r["code"])
        if lv != "town" and r["lng"] == "":
            errors.append("no centre for " + r["code"])
        bb = [r[k] for k in ("min_lng", "min_lat", "max_lng", "max_lat")]
        if any(bb) and not all(bb):
            errors.append("partial bbox " + r["code"])
        if r["pinyin"] != r["pinyin"].lower():
            errors.append("pinyin case " + r["code"])
    # citycode: an area code (3-4 digits); no ordinary province has one (municipalities do); a
    # region below a city or municipality has its code (county-level units directly under a
    # province carry their own)
    for r in regions:
        cc, lv = r["citycode"], r["level"]
        if cc and not (cc.isdigit() and 3 <= len(cc) <= 4 and cc.startswith("0")):
            errors.append(f"citycode {cc!r} malformed for {r['code']}")
        if lv == "province" and cc and not r["name"].endswith("市"):
            errors.append("citycode for an ordinary province " + r["code"])
        p = by.get(r["parent"])
        if p and lv in ("district", "town") and (p["level"] != "province" or p["name"].endswith("市")) \
                and cc != p["citycode"]:
            errors.append(f"citycode of {r['code']} ({cc}) differs from its parent's ({p['citycode']})")
    counts = Counter(r["level"] for r in regions)
    print("citycode", dict(Counter(r["level"] for r in regions if r["citycode"])))
    print("regions", dict(counts), "town centres", sum(1 for r in regions if r["level"] == "town" and r["lng"]))
    geoms = {}
    for path in sorted(glob.glob(os.path.join(seed, "boundaries*.csv"))):
        with open(path, encoding="utf-8") as fh:
            rd = csv.DictReader(fh)
            assert rd.fieldnames == ["code", "geometry"], path
            for row in rd:
                c = row["code"]
                if c not in by:
                    errors.append("boundary for unknown region " + c)
                if c in geoms:
                    errors.append("duplicate boundary " + c)
                g = wkt.loads(row["geometry"])
                if g.geom_type not in ("Polygon", "MultiPolygon") or not g.is_valid or g.is_empty:
                    errors.append(f"invalid geometry {c}")
                for poly in getattr(g, "geoms", [g]):
                    for ring in [poly.exterior, *poly.interiors]:
                        cs = list(ring.coords)
                        if len(cs) < 4 or cs[0] != cs[-1]:
                            errors.append(f"bad ring in {c}")
                # textual closure check (first == last pair of each ring)
                geoms[c] = g
                b = g.bounds
                r = by.get(c)
                if r and [float(r[k]) for k in ("min_lng", "min_lat", "max_lng", "max_lat")] != [round(x, 5) for x in b]:
                    errors.append("bbox differs from boundary " + c)
        print(path, os.path.getsize(path), "bytes")
    for r in regions:
        if r["lng"] and r["center_approx"] == "0" and r["code"] in geoms:
            if not geoms[r["code"]].buffer(0.001).contains(Point(float(r["lng"]), float(r["lat"]))):
                errors.append("exact centre outside boundary " + r["code"])
    print("boundaries", Counter(by[c]["level"] for c in geoms))
    for (x, y), want in (((116.397477, 39.908692), "110101"), ((116.3107, 39.992591), "110108")):
        ok = want in geoms and geoms[want].contains(Point(x, y))
        print(f"spot check ({x},{y}) in {want} {by[want]['name']}: {ok}")
        if not ok:
            errors.append("spot check failed " + want)
    with open(os.path.join(seed, "pois.csv"), encoding="utf-8") as fh:
        pois = list(csv.DictReader(fh))
    ids = Counter(p["id"] for p in pois)
    errors += ["duplicate poi id " + i for i, n in ids.items() if n > 1]
    for p in pois:
        if not p["name"]:
            errors.append("poi without name " + p["id"])
        if p["adcode"] and p["adcode"] not in by:
            errors.append("poi adcode unknown " + p["id"])
        if p["towncode"] and (p["towncode"] not in by or by[p["towncode"]]["parent"] != p["adcode"]):
            errors.append("poi towncode inconsistent " + p["id"])
        if p["typecode"] and (len(p["typecode"]) != 6 or len(p["type"].split(";")) != 3):
            errors.append("poi type malformed " + p["id"])
    print("pois", len(pois), "with adcode", sum(1 for p in pois if p["adcode"]),
          "with towncode", sum(1 for p in pois if p["towncode"]))
    if errors:
        print(len(errors), "ERRORS")
        for e in errors[:50]:
            print(" ", e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "seed"))
