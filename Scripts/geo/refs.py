import coordTransform.coordTransform as ct, eviltransform as ev
pts = [("Beijing",116.397428,39.90923),("Shanghai",121.473701,31.230416),("Guangzhou",113.264385,23.129112),
("Shenzhen",114.057868,22.543099),("Chengdu",104.065735,30.659462),("Urumqi",87.617733,43.792818),
("Kashgar",75.989755,39.470400),("Lhasa",91.132212,29.660361),("Harbin",126.642464,45.756967),
("Sanya",109.511909,18.252847),("Hangzhou",120.15507,30.274084),("Xi'an",108.948024,34.263161),
("Kunming",102.712251,25.040609),("Hohhot",111.670801,40.818311),("Mohe",122.536256,52.972074),
("Hong Kong",114.169361,22.319304),("Macau",113.54909,22.198951),("Taipei",121.565418,25.032969),
("Xisha",112.338695,16.831839),("Dongxing",107.97017,21.541172)]
def inv(lng, lat):
    w = [lng, lat]
    for _ in range(50):
        g = ct.wgs84_to_gcj02(*w)
        w = [w[0] - (g[0] - lng), w[1] - (g[1] - lat)]
    return w
mx = 0
for name, lng, lat in pts:
    g = ct.wgs84_to_gcj02(lng, lat); w = inv(lng, lat); b = ct.gcj02_to_bd09(lng, lat); bg = ct.bd09_to_gcj02(lng, lat)
    # cross-check with eviltransform (lat, lng order; earthR 6378137 -> ~1e-7 deg apart)
    eg = ev.wgs2gcj(lat, lng); ew = ev.gcj2wgs_exact(lat, lng); eb = ev.gcj2bd(lat, lng); ebg = ev.bd2gcj(lat, lng)
    mx = max(mx, abs(eg[1]-g[0]), abs(eg[0]-g[1]), abs(ew[1]-w[0]), abs(ew[0]-w[1]), abs(eb[1]-b[0]), abs(eb[0]-b[1]), abs(ebg[1]-bg[0]), abs(ebg[0]-bg[1]))
    f = lambda p: f"({p[0]!r}, {p[1]!r})"
    print(f'    .init("{name}", ({lng!r}, {lat!r}), wgsToGCJ: {f(g)}, gcjToWGS: {f(w)}, gcjToBD: {f(b)}, bdToGCJ: {f(bg)}),')
import sys; print("max diff vs eviltransform", mx, file=sys.stderr)
