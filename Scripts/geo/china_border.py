# Derives the coarse China border used by CoordinateTransform.isInChina.
import gzip, json, sys
from shapely.geometry import shape, MultiPolygon, Polygon
from shapely.ops import unary_union
BUF = float(sys.argv[1]) if len(sys.argv) > 1 else 0.15   # degrees (~11-17 km)
SIMP = float(sys.argv[2]) if len(sys.argv) > 2 else 0.045  # degrees (~5 km)
d = json.load(gzip.open('/work/shared/data/boundaries/cn_province_gcj02.geojson.gz'))
geoms = [shape(f['geometry']).buffer(0).simplify(0.005) for f in d['features']]
u = unary_union(geoms).buffer(BUF, join_style='round', quad_segs=4).simplify(SIMP)
polys = list(u.geoms) if isinstance(u, MultiPolygon) else [u]
polys.sort(key=lambda p: -p.area)
total = 0
out = []
for p in polys:
    rings = [p.exterior] + list(p.interiors)
    rr = []
    for r in rings:
        cs = [(round(x, 3), round(y, 3)) for x, y in r.coords]
        rr.append(cs); total += len(cs)
    out.append(rr)
print(len(polys), 'polygons', total, 'points', sum(len(p.interiors) for p in polys), 'holes', file=sys.stderr)
json.dump(out, open('/tmp/geo-gen/border.json', 'w'))
