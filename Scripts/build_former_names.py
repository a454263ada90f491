#!/usr/bin/env python3
"""Former names and codes of cities and counties, mapped to today's regions (issue 13).

Writes Sources/GazetteerCore/Codes/former_names.tsv, compiled into the library: addresses and
spreadsheets still say 襄樊, 下城区 or 宁波江东区 and carry pre-2021 adcodes. Columns:
old_code (6 digits, empty when only the name is known), old_name, code (today's 6-digit
adcode, present in the seed), year (of the change, 0 when unknown), source.

Sources, all in ../shared/data (licences in Sources/GazetteerCore/Codes/README.md):
  quhua   codes/quhua_admin_changes_1980_2020.json: change events of the GB/T 2260 code list
          (not 码位改派, a code handed to another unit), followed from the old code through later
          events to a code the seed has;
  jionlp  codes/jionlp_admin_renames.tsv: renames and transfers 2002-2020 by path, the new path
          looked up by name in the seed;
  cpca    admin/cpca_adcodes_centers.csv (codes before 2021): a code the seed no longer has, or
          has under another name, goes to the seed district whose boundary holds its centre.
A name is kept only where it differs from the name the code has today, and never a generic one
(郊区, 城区, 市辖区, 矿区) on its own.

It also writes changed_regions.tsv beside it (code, name, year, reason): today's cities and
districts whose code is new since 2000 or that took in a former unit since 2000 (the quhua and
jionlp rows above, and every cpca row, whose change came after cpca's list). A heuristic for
the geocoder, as there is no history of towns: it takes a town written under a district that no
longer holds it (余杭区乔司 → 临平区) only where one of the two is listed here.
    new      a code the seed has and cpca's list (before 2021) lacks, or a quhua 新设 event,
             unless the code only renamed a unit (玉环县 → 玉环市, same short form);
    gained   the target of another unit's former name or code, of the year 2000 or later (or
             from cpca's list): 江东区 → 鄞州区 in 2016; or the successor of a unit abolished
             (撤销) since 2000: 宣化县 → 宣化区 in 2016.

    python3 Scripts/build_former_names.py --data ../shared/data --seed seed
"""
import argparse, csv, json, os, sys
from collections import defaultdict

csv.field_size_limit(1 << 30)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERIC = {"郊区", "城区", "市辖区", "矿区", "市区", "县", "新区", "开发区", "林区", "工农区"}


def short_form(name):
    """襄樊市 → 襄樊, 玉环县 → 玉环: as FormerNames.shortForm."""
    for suffix in ("自治县", "自治州", "自治旗", "地区", "林区", "市", "县", "区", "盟", "旗"):
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", default=os.path.join(ROOT, "seed"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Sources/GazetteerCore/Codes/former_names.tsv"))
    args = ap.parse_args()
    import shapely, shapely.wkt
    regions = {r["code"]: r for r in csv.DictReader(open(os.path.join(args.seed, "regions.csv"), encoding="utf-8-sig"))
               if r["level"] in ("city", "district")}
    by_name = defaultdict(list)
    for c, r in regions.items():
        by_name[r["name"]].append(c)
    rows = {}  # (old_code, old_name, code) -> (year, source)

    def add(old_code, old_name, code, year, source):
        if not old_name or code not in regions or old_name in GENERIC:
            return
        if old_name == regions[code]["name"] and (not old_code or old_code == code):
            return
        key = (old_code or "", old_name, code)
        if key not in rows:
            rows[key] = (year, source)

    # quhua: follow each event's new code through later events to a code the seed has.
    ev = json.load(open(os.path.join(args.data, "codes/quhua_admin_changes_1980_2020.json")))["events"]
    later = defaultdict(list)
    # 码位改派: a code given to another unit, not a change of this one; 新设: nothing before.
    ev = [e for e in ev if e["type"] not in ("码位改派", "新设")]
    for e in ev:
        if e["old"]["code"] and e["new"]["code"]:
            later[e["old"]["code"][:6]].append(e)

    def resolve(code, name, year, depth=0):
        if depth > 12:
            return None
        nxt = sorted((e for e in later.get(code, []) if e["year"] > year or (e["year"] == year and e["new"]["code"][:6] != code)),
                     key=lambda e: e["year"])
        if nxt:
            e = nxt[0]
            return resolve(e["new"]["code"][:6], e["new"]["name"], e["year"], depth + 1)
        if code in regions:
            return code
        return None

    for e in ev:
        if e["level"] not in (2, 3) or not e["old"]["code"] or not e["new"]["code"]:
            continue
        target = resolve(e["new"]["code"][:6], e["new"]["name"], e["year"])
        if target:
            add(e["old"]["code"][:6], e["old"]["name"], target, e["year"], "quhua")

    # jionlp: old path => new path, by names.
    for line in open(os.path.join(args.data, "codes/jionlp_admin_renames.tsv"), encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 10:
            continue
        date, _, _, _, old_city, _, old_county, rest = parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7:]
        new_city, new_county = rest[-2], rest[-1]
        year = int(date[:4]) if date[:4].isdigit() else 0
        new_city_codes = [c for c in by_name.get(new_city, []) if regions[c]["level"] == "city"]
        targets = [c for c in by_name.get(new_county, []) if any(c[:4] == nc[:4] for nc in new_city_codes)] if new_county else []
        if old_county and len(targets) == 1:
            add("", old_county, targets[0], year, "jionlp")
        if old_city and old_city != new_city and len(new_city_codes) == 1:
            add("", old_city, new_city_codes[0], year, "jionlp")

    # cpca centres (codes before 2021): located in today's district boundaries.
    shapes = []
    for r in csv.DictReader(open(os.path.join(args.seed, "boundaries_district.csv"), encoding="utf-8-sig")):
        if r["code"] in regions:
            g = shapely.wkt.loads(r["geometry"])
            shapely.prepare(g)
            shapes.append((r["code"], g))
    for r in csv.DictReader(open(os.path.join(args.data, "admin/cpca_adcodes_centers.csv"), encoding="utf-8-sig")):
        code, name = r["adcode"][:6], r["name"]
        if code[4:] == "00" or code[4:] == "01" or not r["longitude"].strip():
            continue
        if code in regions and regions[code]["name"] == name:
            continue
        p = shapely.Point(float(r["longitude"]), float(r["latitude"]))
        hits = [c for c, g in shapes if g.contains(p)]
        if len(hits) == 1 and hits[0][:4] == code[:4]:
            add(code, name, hits[0], 0, "cpca")

    out = sorted(((k[1], k[0], k[2], v[0], v[1]) for k, v in rows.items()))
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("old_code\told_name\tcode\tyear\tsource\n")
        for name, old, code, year, src in out:
            fh.write(f"{old}\t{name}\t{code}\t{year}\t{src}\n")
    # Regions whose code or extent changed since 2000.
    changed = {}
    cpca_codes = {r["adcode"][:6] for r in csv.DictReader(open(os.path.join(args.data, "admin/cpca_adcodes_centers.csv"), encoding="utf-8-sig"))}
    # A unit renamed or made a city or district keeps its extent (玉环县 → 玉环市): its former
    # name has the same short form as today's.
    renamed = {code for name, old, code, year, src in out if short_form(name) == short_form(regions[code]["name"])}
    for c in regions:
        if c not in cpca_codes and c not in renamed:
            changed[c] = (0, "new")
    for e in json.load(open(os.path.join(args.data, "codes/quhua_admin_changes_1980_2020.json")))["events"]:
        code = (e["new"]["code"] or "")[:6]
        if e["type"] == "新设" and e["year"] >= 2000 and code in regions:
            changed[code] = (e["year"], "new")
    for name, old, code, year, src in out:
        if (year >= 2000 or src == "cpca") and code not in changed and short_form(name) != short_form(regions[code]["name"]):
            changed[code] = (year, "gained")
    # A unit abolished (撤销) since 2000 went to its successor, whatever the names: 宣化县 → 宣化区.
    for e in ev:
        if e["type"] == "撤销" and e["year"] >= 2000 and e["new"]["code"]:
            target = resolve(e["new"]["code"][:6], e["new"]["name"], e["year"])
            if target and target not in changed:
                changed[target] = (e["year"], "gained")
    changed_out = os.path.join(os.path.dirname(args.out), "changed_regions.tsv")
    with open(changed_out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("code\tname\tyear\treason\n")
        for code in sorted(changed):
            fh.write(f"{code}\t{regions[code]['name']}\t{changed[code][0]}\t{changed[code][1]}\n")
    print(f"build_former_names: {len(changed)} changed regions -> {changed_out}", file=sys.stderr)
    print(f"build_former_names: {len(out)} rows, {len({r[0] for r in out})} names -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
