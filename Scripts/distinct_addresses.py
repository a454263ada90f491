#!/usr/bin/env python3
"""Distinct addresses for timing batch geocoding (BENCHMARKS.md, geocoding seventh pass): the
geocode suites' addresses plus 20,000 made from the towns of a gazetteer database, province to
town in full, by short names, without province or city, with separators, with noise before, and
a POI's address and name; `sort -u`. Deterministic for the same database and seed.

    Scripts/distinct_addresses.py --db DB --out addresses.txt
"""
import argparse, glob, os, random, sqlite3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a gazetteer database (the seed imported)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    reg = {c: (p, l, n, s) for c, p, l, n, s in db.execute("SELECT code, parent, level, name, short_name FROM region")}
    towns = sorted(c for c, v in reg.items() if v[1] == 3)
    pois = list(db.execute("SELECT name, address FROM poi ORDER BY rowid"))
    roads = ["建设路", "人民路", "解放大道", "中山北路", "文三路", "光明街", "新华路"]

    def chain(c):
        out = []
        while c in reg:
            out.append(reg[c])
            c = reg[c][0]
        return out[::-1]

    out = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests/GazetteerTests/Fixtures/GeocodeSuites/*.tsv"))):
        with open(path, encoding="utf-8") as f:
            next(f)
            out.update(line.split("\t")[0] for line in f)
    for _ in range(args.count):
        style = rng.randrange(6)
        parts = []
        for (_, level, name, short) in chain(rng.choice(towns)):
            if style == 1 and level == 0:
                continue
            if style == 2 and short:
                parts.append(short)
            elif style == 3 and level < 2:
                continue
            else:
                parts.append(name)
        a = rng.choice(["", "", "", " ", "-", "/", "，"]).join(parts)
        if rng.random() < 0.6:
            a += rng.choice(roads) + str(rng.randrange(1, 999)) + "号"
        if style == 4:
            a = rng.choice(["我家的地址是", "收货人张三 13311111111 ", "地址："]) + a
        if style == 5 and pois:
            name, address = rng.choice(pois)
            a = (address or "") + name
        out.add(a)
    with open(args.out, "w", encoding="utf-8") as f:
        for a in sorted(out):
            f.write(a.replace("\n", " ") + "\n")
    print(f"{len(out)} addresses → {args.out}")


if __name__ == "__main__":
    main()
