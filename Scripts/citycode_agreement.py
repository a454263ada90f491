#!/usr/bin/env python3
"""How far the seed's `citycode` (telephone area codes from the open JioNLP tables) agrees with
AMap's own citycodes.

Usage (from the repository root):

    python3 Scripts/citycode_agreement.py --data ../shared/data --seed seed

AMap's table (`codes/amap_adcode_citycode_TEST_ONLY.csv`: name,adcode,citycode, about 2019-2020)
has no licence: it is test truth only and nothing of it goes into seed/. Regions are compared by
adcode where both sides have the adcode, per level:

  city      the seed's cities; and, counted apart, the county-level units directly under a
            province (仙桃, 济源, Hainan's counties, 兵团 cities), which AMap lists as cities
            with codes of their own
  district  every other district/county (municipalities' districts included)
  province  printed for completeness (AMap: only the municipalities, Taiwan, Hong Kong, Macau)

Every disagreement is listed (adcode, name, ours, AMap's); "-" means empty. The summary lines at
the end are the ones seed/SOURCES.md quotes (build_seed.py's CITYCODE_AGREEMENT); the script
says whether SOURCES.md still carries them (exit status 0 either way).
"""
from __future__ import annotations

import argparse
import csv
import os

AMAP = "codes/amap_adcode_citycode_TEST_ONLY.csv"


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="directory of the raw source data")
    ap.add_argument("--seed", required=True, help="the seed directory (regions.csv, SOURCES.md)")
    args = ap.parse_args()

    regions = {r["code"]: r for r in read_csv(os.path.join(args.seed, "regions.csv"))}
    with open(os.path.join(args.data, AMAP), encoding="utf-8-sig", newline="") as fh:
        amap_rows = [row for row in csv.reader(fh) if row]
    amap = {}
    for name, adcode, code in amap_rows:
        amap.setdefault(adcode.strip(), (name.strip(), code.strip()))

    def group(r):
        """city / county (directly under an ordinary province) / district / province / town"""
        if r["level"] == "district":
            p = regions.get(r["parent"])
            if p and p["level"] == "province" and not p["name"].endswith("市"):
                return "county"
        return r["level"]

    labels = {"city": "cities", "county": "county-level units directly under a province",
              "district": "districts and counties", "province": "provinces"}
    differs = {c for c, r in regions.items() if c in amap and r["citycode"] != amap[c][1]}
    summary = []
    for lvl in ("city", "county", "district", "province"):
        ours_codes = sorted(c for c, r in regions.items() if group(r) == lvl)
        compared = [c for c in ours_codes if c in amap]
        differ = [c for c in compared if regions[c]["citycode"] != amap[c][1]]
        empty = [c for c in differ if not regions[c]["citycode"]]
        agree = len(compared) - len(differ)
        head = {"city": "city level: ", "county": "city level: ", "district": "district level: ",
                "province": ""}[lvl]
        print(f"== {head}{labels[lvl]}")
        print(f"   {len(ours_codes)} in the seed, {len(compared)} compared (adcode also in AMap's table), "
              f"{agree} agree, {len(differ)} differ ({len(empty)} of them empty in the seed)")
        ours_only = [c for c in ours_codes if c not in amap]
        if ours_only and lvl != "district":
            print(f"   not in AMap's table ({len(ours_only)}): " +
                  ", ".join(f"{c} {regions[c]['name']}" for c in ours_only))
        elif ours_only:
            print(f"   not in AMap's table: {len(ours_only)} (Taiwan's, and codes created or changed after about 2020)")
        followers = 0
        if lvl == "district":
            for c in differ:
                u = regions[c]["parent"]
                if u in differs and regions[c]["citycode"] == regions[u]["citycode"] and amap[c][1] == amap.get(u, ("", ""))[1]:
                    followers += 1
            print(f"   {followers} of the {len(differ)} differences repeat their city's (same codes on both sides as the city)")
        if differ:
            print(f"   {'adcode':<8} {'ours':<6} {'AMap':<6} name (AMap's name if different)")
        for c in differ:
            r = regions[c]
            an = amap[c][0]
            extra = f" ({an})" if an != r["name"] else ""
            print(f"   {c:<8} {r['citycode'] or '-':<6} {amap[c][1] or '-':<6} {r['name']}{extra}")
        if lvl != "province":
            pct = 100.0 * agree / len(compared) if compared else 0.0
            line = (f"{head}{labels[lvl]}: {agree} of {len(compared)} compared adcodes agree ({pct:.1f} %), "
                    f"{len(differ)} differ")
            if empty:
                line += f" ({len(empty)} of them empty here)"
            if lvl == "district":
                line += f"; {followers} of the differences repeat their city's"
            summary.append(line)
        print()

    print("Summary (as quoted in seed/SOURCES.md):")
    for line in summary:
        print("  " + line)
    try:
        with open(os.path.join(args.seed, "SOURCES.md"), encoding="utf-8") as fh:
            sources = fh.read()
    except OSError:
        sources = ""
    stale = [line for line in summary if line not in sources]
    if stale:
        print("seed/SOURCES.md does NOT carry these figures: update CITYCODE_AGREEMENT in "
              "Scripts/build_seed.py and rebuild the seed.")
    else:
        print("seed/SOURCES.md carries these figures.")


if __name__ == "__main__":
    main()
