#!/usr/bin/env python3
"""Traditional Chinese characters to simplified, as the geocoder folds an address (issue 13:
香港新界屯門區, 杭州西湖區 are the same places as 屯门区, 西湖区).

Writes Sources/GazetteerCore/Codes/traditional.tsv (traditional, simplified), compiled into the
library, from OpenCC's character table (TSCharacters.txt, Apache-2.0; in the PyPI wheel
opencc-python-reimplemented 0.1.7, licence in Sources/GazetteerCore/Codes/LICENSE.OpenCC):
one character to its first simplified form, kept only where
- both are single characters of the Basic Multilingual Plane and they differ;
- the traditional character is in no region name or short name of the seed (乾县 keeps its 乾,
  which the table would make 干), nor in a former or zone name compiled in.

    pip download --no-deps opencc-python-reimplemented && unzip the wheel
    python3 Scripts/build_traditional.py --opencc PATH/opencc/dictionary/TSCharacters.txt --seed seed
"""
import argparse, csv, os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODES = os.path.join(ROOT, "Sources", "GazetteerCore", "Codes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opencc", required=True, help="OpenCC's TSCharacters.txt")
    ap.add_argument("--seed", default=os.path.join(ROOT, "seed"))
    a = ap.parse_args()
    used = set()
    with open(os.path.join(a.seed, "regions.csv"), encoding="utf-8") as f:
        for row in csv.DictReader(f):
            used.update(row["name"])
            used.update(row["short_name"] or "")
    for name, column in (("former_names.tsv", 1), ("functional_zones.tsv", 2)):
        with open(os.path.join(CODES, name), encoding="utf-8") as f:
            next(f)
            for line in f:
                used.update(line.rstrip("\n").split("\t")[column])
    pairs = []
    with open(a.opencc, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2:
                continue
            t, s = parts[0], parts[1].split(" ")[0]
            if len(t) != 1 or len(s) != 1 or t == s or ord(t) > 0xFFFF or ord(s) > 0xFFFF or t in used:
                continue
            pairs.append((t, s))
    pairs.sort()
    with open(os.path.join(CODES, "traditional.tsv"), "w", encoding="utf-8") as f:
        f.write("traditional\tsimplified\n")
        for t, s in pairs:
            f.write(f"{t}\t{s}\n")
    print(f"{len(pairs)} characters; {len(used)} characters of region names kept as they are")


if __name__ == "__main__":
    main()
