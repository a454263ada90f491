#!/usr/bin/env python3
"""Functional zones (开发区, 新区, 管理区 …) people write in addresses, and where they lie (issue 13).

Writes Sources/GazetteerCore/Codes/functional_zones.tsv, compiled into the library. The 2023
statistics list (admin/areas.csv) has ~120 zones with codes xx7x/xx9x beside the statutory
districts, and their towns (admin/streets.csv); AMap answers such an address with level 开发区.
A zone is placed in the statutory region that holds most of its towns today (towns found by
name in the seed under the zone's city: a district, or the city when they spread over several),
and located at the mean of those towns' approximate centres (else that region's centre).
Columns: code, name, names (the forms people write, |-separated: without the province or
"市", 高新区 for 高新技术产业开发区, 经开区 for 经济(技术)开发区), region, lng, lat, towns (found/all).

    python3 Scripts/build_functional_zones.py --data ../shared/data --seed seed
"""
import argparse, csv, os, re, sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROVINCES = ["内蒙古", "黑龙江", "河北", "山西", "吉林", "辽宁", "江苏", "浙江", "安徽", "福建", "江西", "山东", "河南", "湖北",
             "湖南", "广东", "广西", "海南", "四川", "贵州", "云南", "西藏", "陕西", "甘肃", "青海", "宁夏", "新疆"]
ABBREVIATIONS = [("高新技术产业开发区", "高新区"), ("高新技术开发区", "高新区"), ("高新技术产业园区", "高新区"),
                 ("火炬高技术产业开发区", "火炬高新区"), ("经济技术开发区", "经开区"), ("经济开发区", "经开区"), ("管理区管委会", "管理区")]
GENERIC_START = ("经济", "高新", "工业", "城乡", "现代", "市", "开发区", "新区", "管理区")


def forms(name, city_short):
    out = [name]
    base = name
    for p in PROVINCES:
        # 河北唐山海港… → 唐山海港…; but 吉林经济开发区 is the city 吉林's, not a bare 经济开发区.
        if base.startswith(p) and len(base) > len(p) + 3 and not base[len(p):].startswith(GENERIC_START):
            base = base[len(p):]
            break
    base = base.replace(city_short + "市", city_short, 1) if city_short and base.startswith(city_short + "市") else base
    out.append(base)
    for long, short in ABBREVIATIONS:
        for b in list(out):
            if long in b:
                out.append(b.replace(long, short))
    if city_short:
        for b in list(out):
            if b.startswith(city_short):
                rest = b[len(city_short):]
                if len(rest) >= 4 and not rest.startswith(GENERIC_START):
                    out.append(rest)
    if name.endswith("管理区管委会"):
        out.append(name[: -len("管委会")])
    seen = []
    for f in out:
        if f not in seen and len(f) >= 3:
            seen.append(f)
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", default=os.path.join(ROOT, "seed"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Sources/GazetteerCore/Codes/functional_zones.tsv"))
    args = ap.parse_args()
    regions = {r["code"]: r for r in csv.DictReader(open(os.path.join(args.seed, "regions.csv"), encoding="utf-8-sig"))}
    areas = list(csv.DictReader(open(os.path.join(args.data, "admin/areas.csv"), encoding="utf-8-sig")))
    streets = list(csv.DictReader(open(os.path.join(args.data, "admin/streets.csv"), encoding="utf-8-sig")))
    towns_of = {}
    for s in streets:
        towns_of.setdefault(s["areaCode"], []).append(s["name"])
    seed_towns = {}
    for c, r in regions.items():
        if r["level"] == "town":
            seed_towns.setdefault((c[:4], r["name"]), []).append(c)
    rows = []
    for a in areas:
        code, name = a["code"], a["name"]
        if int(code[4:6]) < 70 or code in regions:
            continue
        if not re.search("开发区|园区|管理区|新区|示范区|合作区|实验区|高新|新城", name):
            continue
        city = regions.get(code[:4] + "00")
        if city is None:
            continue
        found = []
        for t in towns_of.get(code, []):
            hits = seed_towns.get((code[:4], t), [])
            if len(hits) == 1:
                found.append(hits[0])
        parents = Counter(regions[t]["parent"] for t in found)
        if parents and parents.most_common(1)[0][1] >= 0.6 * len(found):
            region = parents.most_common(1)[0][0]
        else:
            region = city["code"]
        pts = [(float(regions[t]["lng"]), float(regions[t]["lat"])) for t in found if regions[t]["lng"]]
        if pts:
            lng, lat = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
        else:
            r = regions[region]
            lng, lat = (float(r["lng"]), float(r["lat"])) if r["lng"] else (None, None)
        rows.append((code, name, "|".join(forms(name, city["short_name"])), region,
                     f"{lng:.6f}" if lng is not None else "", f"{lat:.6f}" if lat is not None else "",
                     f"{len(found)}/{len(towns_of.get(code, []))}"))
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("code\tname\tnames\tregion\tlng\tlat\ttowns\n")
        for r in rows:
            fh.write("\t".join(r) + "\n")
    print(f"build_functional_zones: {len(rows)} zones -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
