"""Writes the request paths the service benchmark replays, one file per endpoint, from a
gazetteer database (so every request asks about real places of that database).

    python3 make_requests.py DB OUTDIR [--count N] [--seed S]

regeo       points near POIs and district centres (where people are), half extensions=all
around      the same points, a common category word or none, radius 1000, sortrule distance
text        the first two characters of POI names, half with the POI's city
geo         province + city + district + town names of random towns, written as people do
mix         all four interleaved (the memory run)
Deterministic: the same database, count and seed give the same files.
"""
import argparse, random, sqlite3, urllib.parse
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("db"); ap.add_argument("out")
ap.add_argument("--count", type=int, default=20000); ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rnd = random.Random(a.seed)
db = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
q = lambda s, args=(): db.execute(s, args).fetchall()  # noqa: E731

pois = q("SELECT name, lng, lat, adcode FROM poi")
centres = q("SELECT lng, lat FROM region WHERE level = 2 AND lng IS NOT NULL")
towns = q("""SELECT p.name, c.name, d.name, t.name FROM region t
             JOIN region d ON d.code = t.parent JOIN region c ON c.code = d.parent JOIN region p ON p.code = c.parent
             WHERE t.level = 3""")
words = ["", "餐厅", "银行", "酒店", "超市", "学校", "医院", "咖啡", "公园", "药店"]


def point():
    lng, lat = rnd.choice(pois)[1:3] if rnd.random() < 0.7 else rnd.choice(centres)
    return f"{lng + rnd.uniform(-0.01, 0.01):.6f},{lat + rnd.uniform(-0.01, 0.01):.6f}"


def path(endpoint, **params):
    return f"/v3/{endpoint}?key=bench&" + urllib.parse.urlencode({k: v for k, v in params.items() if v != ""})


made = {
    "regeo": [path("geocode/regeo", location=point(), extensions=rnd.choice(["base", "all"])) for _ in range(a.count)],
    "around": [path("place/around", location=point(), keywords=rnd.choice(words), radius=1000, sortrule="distance")
               for _ in range(a.count)],
    "text": [],
    "geo": [],
}
for _ in range(a.count):
    name, _, _, adcode = rnd.choice(pois)
    made["text"].append(path("place/text", keywords=name[:2], city=str(adcode)[:4] + "00" if rnd.random() < 0.5 else ""))
    p, c, d, t = rnd.choice(towns)
    c = "" if c in (p, "市辖区", "县", "省直辖县级行政区划") else c
    made["geo"].append(path("geocode/geo", address=f"{p}{c}{d}{t}"))
made["mix"] = [made[k][i] for i in range(a.count) for k in ("regeo", "around", "text", "geo")]
for k, v in made.items():
    (out / f"{k}.txt").write_text("\n".join(v) + "\n")
print(f"{len(pois)} POIs, {len(towns)} towns → {a.count} requests per endpoint in {out}")
