#!/usr/bin/env python3
"""Write the data files of the border-accuracy tests (Tests/GazetteerTests/Fixtures/).

Usage (from the repository root):

    pip install -r Scripts/requirements.txt
    python3 Scripts/make_test_fixtures.py --data ../shared/data

Outputs (deterministic: fixed random seed, sorted rows, 6 decimals):

  border_points.csv       lng,lat,adcode,band  (GCJ-02)
      Points drawn inside the FULL-resolution district polygons (cnmaps, ~2021), each
      labelled with the 2026 adcode the seed reconciled its polygon to (the reconciliation
      of Scripts/build_seed.py is run as is, see `reconcile`). `band` is the distance of
      the point to its polygon's border: `300+` (>= 300 m inside; drawn uniformly inside
      every district) or `100-300` (drawn along the border and offset inward; mostly
      borders shared with another district, some coast and national border). Points that
      also lie in a different full-resolution polygon (overlaps in the source) are dropped.
      Polygons included: every district-level region with a polygon, the cities without
      districts (东莞, 中山, 儋州, 嘉峪关; labelled with the city's code); Hong Kong's and
      Macau's districts are districts like any other (810115 屯门区). Skipped: 两江新区 500157, whose polygon
      is an approximate union of old districts (7 of old 渝北区's towns went elsewhere),
      and polygons the seed does not use (Taiwan has no district polygons).

  baidu_universities.csv  name,province,city,district,lng_bd09,lat_bd09
      Universities with the province/city/district Baidu gives them (BD-09). For tests
      only: no licence is stated, never put it into seed/.

Distances are metres in a local equirectangular projection centred at the point
(x = dlng * 111320 * cos(lat), y = dlat * 110574).
"""
from __future__ import annotations

import argparse
import csv
import inspect
import io
import math
import os
import sys
import tempfile
from collections import Counter

import numpy as np
import shapely
from shapely.strtree import STRtree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no Scripts/__pycache__
sys.path.insert(0, HERE)
import build_seed  # noqa: E402

SEED = 20260401
PER_BAND = 6000
FX, FY = 111320.0, 110574.0
SKIP = {"500157": "approximate polygon (union of old 江北区+渝北区)"}
NEAR_BAND = (100.0, 300.0)
FAR_MIN = 300.0
# fraction of 100-300 candidates kept when the border there is not shared with
# another district (coast, national border): those are the easy cases.
UNSHARED_KEEP = 0.2


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def reconcile(data_dir):
    """Run build_seed.main() up to (not including) the simplification step and return its
    locals: `regions`, `kids`, `src`, `poly_of`, `match_how`, `merged`, `full`. This is the
    reconciliation the seed was built with, not a copy of it."""
    source = inspect.getsource(build_seed.main)
    marker = "    # ---- simplified boundaries"
    if marker not in source:
        sys.exit(f"build_seed.main() no longer contains {marker.strip()!r}: update reconcile()")
    body = source[: source.index(marker)] + "    return locals()\n"
    ns = dict(vars(build_seed))
    exec(compile(body, build_seed.__file__, "exec"), ns)
    argv = sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        sys.argv = ["build_seed.py", "--data", data_dir, "--out", tmp]
        try:
            return ns["main"]()
        finally:
            sys.argv = argv


def area_layer(L):
    """code -> (expected adcode, full-resolution geometry) of the district-level layer."""
    regions, kids, full = L["regions"], L["kids"], L["full"]
    layer = {}
    for c in sorted(full):
        r = regions[c]
        if r["level"] == "district":
            layer[c] = (c, full[c])
        elif r["level"] == "city" and not any(regions[k]["level"] == "district" for k in kids[c]):
            layer[c] = (c, full[c])
    return layer


def parts(g):
    return list(g.geoms) if g.geom_type == "MultiPolygon" else [g]


def point_distance(boundary, lng, lat, hint):
    """Metres from (lng, lat) to `boundary`, projected at the point. `hint` is a rough
    distance (metres) used to clip the boundary around the point."""
    k = math.cos(math.radians(lat))
    r = hint * 1.25 + 300.0
    dlng, dlat = r / (FX * k), r / FY
    piece = shapely.clip_by_rect(boundary, lng - dlng, lat - dlat, lng + dlng, lat + dlat)
    if piece.is_empty:
        return float("inf")
    m = shapely.transform(piece, lambda a: (a - np.array([lng, lat])) * np.array([FX * k, FY]))
    return shapely.distance(m, shapely.Point(0.0, 0.0))


class Poly:
    def __init__(self, code, adcode, geom):
        self.code, self.adcode, self.geom = code, adcode, geom
        shapely.prepare(geom)
        b = geom.bounds
        self.lng0, self.lat0 = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        self.k = np.array([FX * math.cos(math.radians(self.lat0)), FY])
        self.o = np.array([self.lng0, self.lat0])
        self.boundary = geom.boundary
        self.mgeom = shapely.transform(geom, lambda a: (a - self.o) * self.k)
        self.mboundary = self.mgeom.boundary
        shapely.prepare(self.mboundary)

    def to_m(self, lng, lat):
        return (lng - self.lng0) * self.k[0], (lat - self.lat0) * self.k[1]

    def to_deg(self, x, y):
        return x / self.k[0] + self.lng0, y / self.k[1] + self.lat0

    def distances(self, lng, lat):
        """Accurate metres to the border for arrays of points inside the polygon."""
        x, y = self.to_m(lng, lat)
        d0 = shapely.distance(self.mboundary, shapely.points(x, y))
        out = np.empty_like(d0)
        for i, (a, b, h) in enumerate(zip(lng, lat, d0)):
            # the mid-latitude projection is off by a few % in very tall polygons
            out[i] = point_distance(self.boundary, a, b, h) if h < 3000 else h
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="directory of the raw source data")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "GazetteerTests", "Fixtures"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(SEED)

    L = reconcile(args.data)
    layer = area_layer(L)
    log("layer", len(layer), "polygons;", Counter(L["regions"][c]["level"] for c in layer))
    codes = sorted(layer)
    polys = {c: Poly(c, *layer[c]) for c in codes}
    tree = STRtree([polys[c].geom for c in codes])

    def in_other(code, lng, lat):
        """Mask of points that lie in a polygon of the layer other than `code`."""
        pts = shapely.points(lng, lat)
        ip, it = tree.query(pts, predicate="within")
        bad = np.zeros(len(lng), dtype=bool)
        for i, j in zip(ip, it):
            if codes[j] != code:
                bad[i] = True
        return bad

    def shared_border(code, lng, lat, metres=1000.0):
        """Mask of points with another polygon of the layer within `metres`."""
        pts = shapely.points(lng, lat)
        deg = metres / FY / max(0.2, math.cos(math.radians(float(np.mean(lat)))))
        ip, it = tree.query(pts, predicate="dwithin", distance=deg)
        out = np.zeros(len(lng), dtype=bool)
        for i, j in zip(ip, it):
            if codes[j] != code:
                out[i] = True
        return out

    sample_codes = [c for c in codes if c not in SKIP]
    stats = Counter()

    # ---- band 300+: uniform inside each polygon
    def far_points(p, n):
        ps = parts(p.geom)
        areas = np.array([q.area for q in ps])
        got_lng, got_lat = [], []
        for _ in range(40):
            if len(got_lng) >= n:
                break
            m = max(8, 4 * (n - len(got_lng)))
            which = rng.choice(len(ps), size=m, p=areas / areas.sum())
            lng = np.empty(m)
            lat = np.empty(m)
            for i, w in enumerate(which):
                b = ps[w].bounds
                lng[i] = rng.uniform(b[0], b[2])
                lat[i] = rng.uniform(b[1], b[3])
            ok = shapely.contains_xy(p.geom, lng, lat)
            lng, lat = lng[ok], lat[ok]
            if not len(lng):
                continue
            d = p.distances(lng, lat)
            ok = (d >= FAR_MIN + 0.5) & ~in_other(p.code, lng, lat)
            stats["far rejected (near border or overlap)"] += int((~ok).sum())
            got_lng += list(lng[ok])
            got_lat += list(lat[ok])
        return list(zip(got_lng, got_lat))[:n]

    # ---- band 100-300: along the border, offset inward
    def near_points(p, n):
        rings = []
        for q in parts(p.mgeom):
            rings.append(q.exterior)
            rings.extend(q.interiors)
        lengths = np.array([r.length for r in rings])
        got = []
        for _ in range(40):
            if len(got) >= n:
                break
            m = max(8, 6 * (n - len(got)))
            which = rng.choice(len(rings), size=m, p=lengths / lengths.sum())
            s = rng.uniform(0, 1, size=m)
            off = rng.uniform(NEAR_BAND[0] + 10, NEAR_BAND[1] - 10, size=m)
            xs, ys = [], []
            for w, t, o in zip(which, s, off):
                ring = rings[w]
                pos = t * ring.length
                a = ring.interpolate(max(0.0, pos - 1.0))
                b = ring.interpolate(min(ring.length, pos + 1.0))
                c = ring.interpolate(pos)
                tx, ty = b.x - a.x, b.y - a.y
                norm = math.hypot(tx, ty)
                if norm == 0:
                    continue
                nx, ny = -ty / norm, tx / norm
                cands = [(c.x + nx * o, c.y + ny * o), (c.x - nx * o, c.y - ny * o)]
                inside = [q for q in cands if p.mgeom.contains(shapely.Point(q))]
                if len(inside) == 1:
                    xs.append(inside[0][0])
                    ys.append(inside[0][1])
            if not xs:
                continue
            lng, lat = p.to_deg(np.array(xs), np.array(ys))
            d = p.distances(lng, lat)
            ok = (d >= NEAR_BAND[0] + 0.5) & (d < NEAR_BAND[1] - 0.5) & ~in_other(p.code, lng, lat)
            stats["near rejected (distance out of band or overlap)"] += int((~ok).sum())
            lng, lat = lng[ok], lat[ok]
            if not len(lng):
                continue
            shared = shared_border(p.code, lng, lat)
            keep = shared | (rng.uniform(0, 1, size=len(lng)) < UNSHARED_KEEP)
            stats["near: shared border"] += int((shared & keep).sum())
            stats["near: coast / national border"] += int((~shared & keep).sum())
            got += list(zip(lng[keep], lat[keep]))
        return got[:n]

    rows = []
    for band, fn in (("300+", far_points), ("100-300", near_points)):
        base, extra = divmod(PER_BAND, len(sample_codes))
        quota = {c: base for c in sample_codes}
        for c in rng.choice(sample_codes, size=extra, replace=False):
            quota[c] += 1
        got = {}
        for i, c in enumerate(sample_codes):
            got[c] = fn(polys[c], quota[c])
            if i % 500 == 0:
                log(band, i, "/", len(sample_codes))
        # districts that could not give their quota (tiny ones): fill from the others
        missing = PER_BAND - sum(len(v) for v in got.values())
        short_codes = [c for c in sample_codes if len(got[c]) < quota[c]]
        stats[f"{band}: districts short of quota"] = len(short_codes)
        while missing > 0:
            for c in rng.choice(sample_codes, size=missing, replace=False):
                more = fn(polys[c], 1)
                got[c] += more
                missing -= len(more)
        for c in sample_codes:
            for lng, lat in got[c]:
                rows.append((band, polys[c].adcode, f"{lng:.6f}", f"{lat:.6f}"))
        stats[f"{band}: districts with points"] = sum(1 for c in sample_codes if got[c])

    # (rounding to 6 decimals moves a point <= 0.08 m; the bands keep 0.5 m of margin)
    final = sorted(set(rows))
    final.sort(key=lambda r: (r[0] != "300+", r[1], r[2], r[3]))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lng", "lat", "adcode", "band"])
    for band, adcode, slng, slat in final:
        w.writerow([slng, slat, adcode, band])
    path = os.path.join(args.out, "border_points.csv")
    with open(path, "wb") as fh:
        fh.write(buf.getvalue().encode("utf-8"))
    log("border_points.csv", len(final), "rows", os.path.getsize(path), "bytes;", Counter(r[0] for r in final))
    for k, v in sorted(stats.items()):
        log(f"  {k}: {v}")

    # ---- Baidu universities (tests only)
    src_rows = build_seed.read_csv(os.path.join(args.data, "poi/universities_baidu_bd09.csv"))
    keep = ["name", "province", "city", "district", "lng_bd09", "lat_bd09"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(keep)
    for r in sorted(src_rows, key=lambda r: (r["name"], r["lng_bd09"], r["lat_bd09"])):
        w.writerow([r[k].strip() for k in keep])
    path = os.path.join(args.out, "baidu_universities.csv")
    with open(path, "wb") as fh:
        fh.write(buf.getvalue().encode("utf-8"))
    log("baidu_universities.csv", len(src_rows), "rows", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
