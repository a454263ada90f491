#!/usr/bin/env bash
# answers_snapshot.sh GAZETTEER_BINARY OUT_DIR
#
# Records what a `gazetteer` binary answers to a fixed set of a few thousand queries (reverse,
# reverse --batch, nearby, search, geocode, district, info, check, errors and --help), so that
# two builds can be compared byte for byte, for instance before and after a refactoring:
#
#   Scripts/answers_snapshot.sh /path/to/old/gazetteer /tmp/answers-before
#   Scripts/answers_snapshot.sh .build/release/gazetteer  /tmp/answers-after
#   diff -r -x seed.sqlite /tmp/answers-before /tmp/answers-after
#
# The queries are generated from seed/*.csv with a fixed random seed, so every run asks the
# same questions; they are kept in OUT_DIR/queries/. The database is private: OUT_DIR/seed.sqlite,
# imported from seed/ by the binary itself on the first run and reused afterwards (delete it,
# or OUT_DIR/import.txt, to rebuild). Answers go to one file per verb and mode (reverse.txt,
# reverse.json, search.txt, search.json, …), each query preceded by a header line
#   ### search 0012 ["search","西湖","--city","杭州市"]
# and each line of its output prefixed by its id: `search 0012 | ` for stdout, `search 0012 ! `
# for stderr, then `search 0012 = exit N`. A changed line in `diff -r` therefore names its query.
# The database path is written as $OUT_DIR and import timings are dropped, so the files depend
# on the binary's answers only.
#
# Environment: JOBS (parallel single-query processes, default 2).
set -euo pipefail

usage() { echo "usage: $0 GAZETTEER_BINARY OUT_DIR" >&2; exit 2; }
die() { echo "answers_snapshot: $*" >&2; exit 1; }
[ $# -eq 2 ] || usage

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN_ARG="$1"
[ -x "$BIN_ARG" ] && [ -f "$BIN_ARG" ] || die "not an executable file: $BIN_ARG"
BIN="$(cd "$(dirname "$BIN_ARG")" && pwd)/$(basename "$BIN_ARG")"
mkdir -p "$2"
OUT="$(cd "$2" && pwd)"
[ -d "$ROOT/seed" ] || die "no seed/ folder in $ROOT"
command -v python3 >/dev/null || die "python3 is needed"

# Nothing from the caller's environment may steer the binary.
unset GAZETTEER_DB GAZETTEER_SEED COLUMNS LINES   # COLUMNS would rewrap --help and usage text
export LC_ALL=C.UTF-8 TZ=UTC
export XDG_DATA_HOME="$OUT/.xdg-unused"   # the default database is never wanted here

started=$SECONDS
cd "$ROOT"

# The private database: imported once, reused while import.txt (written last) says it is whole.
DB="$OUT/seed.sqlite"
if [ -f "$DB" ] && [ -f "$OUT/import.txt" ]; then
    echo "reusing $DB" >&2
else
    rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal" "$OUT/import.txt"
    echo "importing seed/ into $DB …" >&2
    "$BIN" import --db "$DB" seed/ >"$OUT/import.tmp" 2>"$OUT/import.err" \
        || { cat "$OUT/import.err" >&2; die "import failed"; }
    # Keep the counts, not the path or the time taken.
    sed -e "s|$DB|\$OUT_DIR/seed.sqlite|g" -e 's/ in [0-9.]* s$/ in N s/' "$OUT/import.tmp" >"$OUT/import.txt.tmp"
    rm -f "$OUT/import.tmp" "$OUT/import.err"
    mv "$OUT/import.txt.tmp" "$OUT/import.txt"
fi
rm -rf "$OUT/.xdg-unused"

export SNAP_BIN="$BIN" SNAP_OUT="$OUT" SNAP_ROOT="$ROOT" SNAP_JOBS="${JOBS:-2}"
python3 - <<'PYTHON'
import concurrent.futures, csv, json, math, os, random, subprocess, sys

BIN, OUT, ROOT = os.environ["SNAP_BIN"], os.environ["SNAP_OUT"], os.environ["SNAP_ROOT"]
JOBS = int(os.environ["SNAP_JOBS"])
DB = os.path.join(OUT, "seed.sqlite")
QDIR = os.path.join(OUT, "queries")
os.makedirs(QDIR, exist_ok=True)

# ---------------------------------------------------------------------------------------------
# The seed, read in file order.
def read_csv(name):
    with open(os.path.join(ROOT, "seed", name), encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))

regions = read_csv("regions.csv")
pois = read_csv("pois.csv")
by_code = {r["code"]: r for r in regions}
with_centre = [r for r in regions if r["lng"] and r["lat"]]
by_level = {lvl: [r for r in regions if r["level"] == lvl] for lvl in ("province", "city", "district", "town")}
centred_by_level = {lvl: [r for r in rs if r["lng"]] for lvl, rs in by_level.items()}
hz_pois = [p for p in pois if p["id"].startswith("osm:")]      # OSM amenities around Hangzhou
campus_pois = [p for p in pois if p["id"].startswith("campus:")]
addr_pois = [p for p in pois if p["address"]]

def chain(r):
    """The region and its parents, top first."""
    out = []
    while r is not None:
        out.insert(0, r)
        r = by_code.get(r["parent"]) if r["parent"] else None
    return out

def f6(x):
    return f"{x:.6f}"

def pt(lng, lat):
    return f"{f6(lng)},{f6(lat)}"

# ---------------------------------------------------------------------------------------------
# Query sets. One Random per set, each with its own fixed seed, so that changing one set does not
# shift the others.

def reverse_points():
    rnd = random.Random(1001)
    pts = []
    for _ in range(640):                       # near region centres, closer for smaller regions
        r = rnd.choice(with_centre)
        s = {"province": 0.5, "city": 0.2, "district": 0.05, "town": 0.02}[r["level"]]
        pts.append(pt(float(r["lng"]) + rnd.gauss(0, s), float(r["lat"]) + rnd.gauss(0, s)))
    for _ in range(260):                       # around Hangzhou's POIs (dense)
        p = rnd.choice(hz_pois)
        pts.append(pt(float(p["lng"]) + rnd.gauss(0, 0.004), float(p["lat"]) + rnd.gauss(0, 0.004)))
    for _ in range(160):                       # around campuses (nationwide)
        p = rnd.choice(campus_pois)
        pts.append(pt(float(p["lng"]) + rnd.gauss(0, 0.006), float(p["lat"]) + rnd.gauss(0, 0.006)))
    for _ in range(60):                        # exactly on a POI or a centre
        x = rnd.choice(pois) if rnd.random() < 0.5 else rnd.choice(with_centre)
        pts.append(f"{x['lng']},{x['lat']}")
    for _ in range(220):                       # anywhere in China's box: borders, deserts, sea
        pts.append(pt(rnd.uniform(73.5, 135.0), rnd.uniform(18.0, 53.5)))
    for _ in range(60):                        # anywhere on earth
        pts.append(pt(rnd.uniform(-180, 180), rnd.uniform(-90, 90)))
    global N_RANDOM
    N_RANDOM = len(pts)
    pts += [                                   # at sea, abroad, borders and edges
        "125.000000,30.000000", "123.5,25.5", "119.0,20.0", "112.0,15.0", "130.0,40.0",
        "139.691706,35.689487", "126.978,37.566", "100.5018,13.7563", "105.8342,21.0278", "77.209,28.6139",
        "-70.1,40", "-122.4194,37.7749", "2.3522,48.8566", "0,0", "-0,-0", "180,90", "-180,-90", "180,-90",
        "-180,90", "0.000001,0.000001", "114.171203,22.277468", "113.5439,22.1987", "121.509062,25.044332",
        "124.5,25.9", "87.6168,43.8256", "91.1322,29.6604", "73.6,39.2", "135.08,48.45", "109.5,18.2",
        "116.397477,39.908692", "121.4737,31.2304", "120.1551,30.2741", "113.7518,23.0205", "116.3107,39.992591",
        "116.39747712345678,39.90869212345678", "1.16397477e2,3.9908692e1", "116.4,+39.9", "+116.4,39.9",
        " 116.4,39.9", "116.4 ,39.9", "116.4, 39.9", "116.4,39.9 ", "116.400000000,39.900000000",
    ]
    global N_VALID
    N_VALID = len(pts)
    pts += [                                   # not points
        "", " ", "abc", "116.4", "116.4,", ",39.9", ",", "116.4,39.9,0", "116.4;39.9", "116.4 39.9",
        "116.4\t39.9", "200,10", "10,100", "-181,0", "0,-91", "39.9,116.4", "nan,nan", "inf,1", "1,-inf",
        "0x10,20", "１１６.４,３９.９", "116,4,39,9", "116.4,39.9x", "x116.4,39.9", "116..4,39.9", "--116,39",
        "1e400,1", "116.4,39.9e", "北京", "116.4，39.9", "\"116.4,39.9\"", "116.4,39.9\u200b", "\u00a0116.4,39.9",
        "9" * 400 + ",1", "116.4,39.9 # comment", "null", "[116.4,39.9]",
    ]
    return pts

REVERSE_POINTS = reverse_points()

def reverse_queries():
    rnd = random.Random(1002)
    chosen = rnd.sample(REVERSE_POINTS[:N_RANDOM], 180) + REVERSE_POINTS[N_RANDOM:N_VALID][::3] + [
        "abc", "", "200,10", "10,100", "116.4", "nan,nan", "39.9,116.4", "１１６.４,３９.９",
    ]
    qs = []
    for i, p in enumerate(chosen):
        a = ["reverse", f"--location={p}"]
        if i % 10 == 3: a += ["--coordsys", "wgs84"]
        if i % 10 == 7: a += ["--coordsys", "bd09"]
        if i % 6 == 1: a += ["--radius", rnd.choice(["0", "50", "300", "3000", "10000", "50000", "1.5"])]
        if i % 8 == 2: a += ["--limit", rnd.choice(["0", "1", "5", "100"])]
        qs.append(a)
    qs.append(["reverse", "--location", "116.397477,39.908692"])          # value as a separate word
    qs.append(["reverse", "--location", "120.1551,30.2741", "--radius", "500", "--limit", "3"])
    return qs

def nearby_queries():
    rnd = random.Random(1003)
    kw = ["银行", "大学", "学院", "酒店", "医院", "超市", "咖啡", "公交", "站", "杭州", "学", "中", "Coffee", "KFC",
          "星巴克", "肯德基", "麦当劳", "幼儿园", "小学", "自行车", "浙江", "a", "的", "%", "_", "'", "\"", "*"]
    types = ["餐饮", "餐饮服务", "050000", "050100", "141201", "141200", "高等院校", "金融保险服务", "银行",
             "餐饮|银行", "150000|141201", "交通设施服务", "150700", "科教文化服务", "学校", "xyz", "999999", "05",
             "咖啡厅", "|", "050000|", "餐饮;中餐厅"]
    qs = []
    for i in range(300):
        u = rnd.random()
        if u < 0.55:
            p = rnd.choice(hz_pois)
            lng, lat = float(p["lng"]) + rnd.gauss(0, 0.01), float(p["lat"]) + rnd.gauss(0, 0.01)
        elif u < 0.8:
            p = rnd.choice(campus_pois)
            lng, lat = float(p["lng"]) + rnd.gauss(0, 0.01), float(p["lat"]) + rnd.gauss(0, 0.01)
        elif u < 0.93:
            r = rnd.choice(centred_by_level["district"])
            lng, lat = float(r["lng"]), float(r["lat"])
        else:
            lng, lat = rnd.uniform(73.5, 135.0), rnd.uniform(18.0, 53.5)
        a = ["nearby", f"--location={pt(lng, lat)}"]
        r = rnd.random()
        if r < 0.8: a += ["--radius", rnd.choice(["100", "500", "1000", "2000", "5000", "10000", "50000", "0.5", "1234.5"])]
        if rnd.random() < 0.3:
            if rnd.random() < 0.4 and hz_pois:
                name = rnd.choice(hz_pois)["name"]
                k = rnd.randrange(0, max(1, len(name) - 1))
                a += ["--keywords", name[k:k + rnd.choice([1, 2, 3])]]
            else:
                a += ["--keywords", rnd.choice(kw)]
        if rnd.random() < 0.3: a += ["--types", rnd.choice(types)]
        if rnd.random() < 0.35: a += ["--limit", rnd.choice(["1", "3", "10", "50", "100"])]
        if rnd.random() < 0.25: a += ["--page", rnd.choice(["2", "3", "5", "50"])]
        if i % 25 == 4: a += ["--coordsys", rnd.choice(["wgs84", "bd09"])]
        qs.append(a)
    qs.append(["nearby", "--location", "120.1551,30.2741", "--radius", "500", "--limit", "3"])
    qs.append(["nearby", "--location", "120.1551,30.2741", "--radius", "1000", "--types", "餐饮"])
    qs.append(["nearby", "--location", "120.1551,30.2741", "--keywords", "银行", "--page", "2"])
    return qs

HOSTILE = ['"', "'", "*", "西湖*", "*西湖", "NEAR(", "NEAR(西湖 灵隐)", "NEAR(a b, 2)", '"西湖"', '西湖"',
           "a OR b", "西湖 OR 灵隐", "AND", "NOT 西湖", "西湖 AND", "(", ")", "()", "^", "^西湖", ":", "col:西湖",
           "-", "-西湖", "+", "{a b}", "[", "\\", "%", "_", "%西湖%", "西_湖", "'; DROP TABLE region; --",
           "SELECT * FROM region", "😀", "杭州😀", "😀西湖", "👨‍👩‍👧", "\u200b", "西\u200b湖", "ＸＩＨＵ",
           "西湖\t", "\t", " ", "  西湖  ", "西 湖", "\u3000西湖", "西湖\x1b[31m", "\x07", "é", "ß", "İ",
           "a" * 300, "西" * 120, "0", "00", "330106", "330106003000", "1", "..", "/", "?", "NULL", "null"]

def search_queries():
    rnd = random.Random(1004)
    ones = ["西", "东", "南", "北", "中", "山", "湖", "河", "京", "海", "大", "学", "院", "银", "杭", "州", "区", "县",
            "镇", "乡", "街", "道", "路", "门", "口", "一", "新", "江", "龙", "阳"]
    twos = ["西湖", "鼓楼", "灵隐", "朝阳", "大学", "银行", "中山", "人民", "解放", "新华", "长安", "城关", "和平",
            "开发", "学院", "医院", "公交", "浙江", "杭州", "北京", "上海", "南京", "武汉", "成都", "天安", "紫金",
            "滨江", "余杭", "萧山", "拱墅"]
    latin = ["xihu", "hangzhou", "hz", "bj", "beijing", "bei jing", "xi hu", "lingyin", "shanghai", "nanjing", "zj",
             "gulou", "Xihu", "XIHU", "chaoyang", "zhongshan", "coffee", "Starbucks", "KFC", "university", "x", "zz"]
    cities = ["杭州市", "杭州", "330100", "南京市", "南京", "北京", "北京市", "110000", "上海", "东莞", "441900",
              "鼓楼", "西湖区", "330106", "不存在市", "xx", "浙江省", "330000"]
    types = ["餐饮", "141201", "高等院校", "银行", "050000|141201", "xyz", "交通设施服务"]
    texts = []
    texts += rnd.sample(ones, 24) + rnd.sample(twos, 26) + latin
    texts += [rnd.choice(pois)["name"] for _ in range(60)]
    for _ in range(70):
        n = rnd.choice(pois)["name"]
        k = rnd.randrange(0, max(1, len(n) - 1))
        texts.append(n[k:k + rnd.choice([2, 3, 4])])
    for lvl, k in (("province", 12), ("city", 25), ("district", 40), ("town", 40)):
        for r in rnd.sample(by_level[lvl], k):
            texts.append(r["name"] if rnd.random() < 0.5 else (r["short_name"] or r["name"]))
    for r in rnd.sample(regions, 12):
        if r["pinyin"]:
            py = r["pinyin"]
            texts.append(rnd.choice([py.replace(" ", ""), py, "".join(s[0] for s in py.split())]))
    texts += HOSTILE
    qs = []
    for i, t in enumerate(texts):
        a = ["search", t]
        if i % 5 == 1:
            a += ["--city", rnd.choice(cities)]
            if rnd.random() < 0.5: a += ["--citylimit"]
        if i % 7 == 2:
            p = rnd.choice(hz_pois) if rnd.random() < 0.5 else rnd.choice(with_centre)
            a += [f"--location={pt(float(p['lng']), float(p['lat']))}"]
        if i % 11 == 3: a += ["--types", rnd.choice(types)]
        if i % 6 == 5: a += ["--limit", rnd.choice(["1", "5", "50", "200"])]
        if i % 9 == 4: a += ["--page", rnd.choice(["2", "3", "10", "1000"])]
        if i % 23 == 6: a += ["--coordsys", rnd.choice(["wgs84", "bd09"]), "--location=120.1551,30.2741"]
        qs.append(a)
    qs += [["search", "灵隐", "--limit", "3"], ["search", "xihu", "--city", "杭州市"],
           ["search", "西湖", "--city", "330100", "--citylimit"], ["search", "银行", "--location", "120.1551,30.2741"]]
    return qs

def geocode_queries():
    rnd = random.Random(1005)
    streets = ["", "", "", "中山路", "解放路12号", "人民大道1号", "文三路478号", "xx路", "幸福里3栋2单元", "88号", "村委会旁"]
    cities = ["杭州市", "杭州", "330100", "南京", "南昌", "110000", "北京市", "鼓楼", "不存在", "东莞市"]
    qs = []
    def add(text, city=None):
        a = ["geocode", text]
        if city is not None: a += ["--city", city]
        qs.append(a)
    for _ in range(110):                        # full chains down to a town, with a street or not
        t = rnd.choice(by_level["town"])
        c = chain(t)
        names = [r["name"] for r in c]
        if rnd.random() < 0.3: names = [r["short_name"] or r["name"] for r in c]
        add("".join(names) + rnd.choice(streets))
    for _ in range(70):                         # POIs with their region chain
        p = rnd.choice(pois)
        d = by_code.get(p["adcode"])
        c = [r["name"] for r in chain(d)] if d else []
        drop = rnd.random()
        if drop < 0.3 and c: c = c[1:]
        elif drop < 0.5 and len(c) > 1: c = c[-1:]
        add("".join(c) + p["name"] + (p["address"] if rnd.random() < 0.2 else ""))
    for _ in range(30):                         # POI names alone
        add(rnd.choice(pois)["name"])
    for p in rnd.sample(addr_pois, 15):         # POI street addresses, alone or after their district
        d = by_code.get(p["adcode"])
        add(d["name"] + p["address"] if d and rnd.random() < 0.5 else p["address"])
    for _ in range(80):                         # partial: city+district, district, town, short names
        r = rnd.choice(by_level[rnd.choice(["city", "district", "district", "town"])])
        c = chain(r)
        k = rnd.randrange(0, len(c))
        part = c[k:]
        names = [x["short_name"] or x["name"] if rnd.random() < 0.4 else x["name"] for x in part]
        add("".join(names))
    for _ in range(50):                         # noise around a real address
        t = rnd.choice(by_level["district"])
        s = "".join(r["name"] for r in chain(t))
        kind = rnd.randrange(7)
        if kind == 0: s = "中国" + s
        elif kind == 1: s = " ".join(s)
        elif kind == 2: s = s.replace("省", "省，").replace("市", "市,")
        elif kind == 3: s = s + "１２３号"
        elif kind == 4 and len(s) > 3:
            k = rnd.randrange(1, len(s) - 1); s = s[:k] + s[k + 1:]
        elif kind == 5: s = s + s
        else: s = "地址：" + s + "（近地铁站）"
        add(s)
    for t in ["浙江省杭州市西湖区灵隐街道法云弄16号", "浙江大学紫金港校区", "西湖区", "鼓楼区", "朝阳区", "中山",
              "北京", "北京市", "上海市浦东新区", "东莞市南城街道", "香港中西区", "台湾省台北市", "abc", "123",
              "116.4,39.9", "杭州西湖", "江苏省南京市鼓楼区", "福建省鼓楼区", "市", "区", "省", "中华人民共和国"]:
        add(t)
    for t in HOSTILE[:30]:
        add(t)
    # the same texts again with --city
    base = [q[1] for q in qs]
    for t in rnd.sample(base[:330], 45) + ["西湖区", "鼓楼区", "鼓楼", "朝阳区", "中山路", "人民路", "城关镇"]:
        add(t, rnd.choice(cities))
    for i in range(0, len(qs), 37):
        qs[i] = qs[i] + ["--coordsys", "wgs84" if i % 2 else "bd09"]
    return qs

def district_queries():
    rnd = random.Random(1006)
    qs = []
    def add(args, sub=None, polygon=False):
        a = ["district"] + args
        if sub is not None: a += ["--subdistrict", str(sub)]
        if polygon: a += ["--polygon"]
        qs.append(a)
    add([]); add([], 0); add([], 2); add(["100000"], 1); add(["中国"], 0); add(["中华人民共和国"]); add([""], 0)
    for r in rnd.sample(by_level["province"], 10): add([r["name"]], rnd.choice([0, 1, 2]))
    for r in rnd.sample(by_level["province"], 2): add([r["code"]], 3)
    for r in rnd.sample(by_level["city"], 30):
        add([rnd.choice([r["name"], r["short_name"] or r["name"], r["code"]])], rnd.choice([None, 0, 1, 2, 3]))
    for r in rnd.sample(by_level["district"], 45):
        add([rnd.choice([r["name"], r["short_name"] or r["name"], r["code"]])], rnd.choice([None, 0, 1, 2, 3]))
    for r in rnd.sample(by_level["town"], 45):
        add([rnd.choice([r["name"], r["short_name"] or r["name"], r["code"], r["code"][:9]])], rnd.choice([None, 0, 1]))
    for n in ["鼓楼", "鼓楼区", "朝阳", "中山", "西湖", "城关镇", "新华街道", "人民", "东城区", "东莞", "441900",
              "810000", "810101", "810101000000", "香港", "澳门", "台湾", "710000", "429004", "仙桃", "北京", "110101"]:
        add([n], rnd.choice([0, 1]))
    for code in ["330106", "330100", "110101", "441900", "810101000000", "330106003000", "820000"]:
        add([code], 0, polygon=True)
    add(["浙江省"], 0, polygon=True); add(["西湖区"], 1, polygon=True)
    for n in ["999999", "123456789012", "33010", "3301060", "abc", "xx区", "😀", "*", "NEAR(", '"', "'", "%"]:
        add([n])
    return qs

def error_queries():
    """Bad input of every verb: each runs in text and --json mode."""
    q = []
    for a in [[], ["--location=abc"], ["--location=200,10"], ["--location=-200,10"], ["--location="],
              ["--location", "-70.1,40"], ["--location=116.4,39.9", "--radius", "-1"],
              ["--location=116.4,39.9", "--radius", "60000"], ["--location=116.4,39.9", "--radius", "nan"],
              ["--location=116.4,39.9", "--radius", "abc"], ["--location=116.4,39.9", "--limit", "101"],
              ["--location=116.4,39.9", "--limit", "-1"], ["--location=116.4,39.9", "--batch", "-"],
              ["--location=116.4,39.9", "--coordsys", "foo"], ["--location=116.4,39.9", "--bogus"],
              ["--batch", "no-such-file.txt"], ["--batch", "queries"], ["--batch", ""],
              ["--location=116.4,39.9", "extra"]]:
        q.append(["reverse"] + a)
    for a in [[], ["--location=abc"], ["--location=116.4,39.9", "--radius", "0"],
              ["--location=116.4,39.9", "--radius", "50001"], ["--location=116.4,39.9", "--limit", "0"],
              ["--location=116.4,39.9", "--limit", "101"], ["--location=116.4,39.9", "--page", "0"],
              ["--location=116.4,39.9", "--page", "x"], ["--location=116.4,39.9", "--types", ""],
              ["--location=116.4,39.9", "--keywords", ""], ["--location=1000,1000"]]:
        q.append(["nearby"] + a)
    for a in [[], [""], [" "], ["西湖", "--limit", "0"], ["西湖", "--limit", "201"], ["西湖", "--page", "0"],
              ["西湖", "--citylimit"], ["西湖", "--location=abc"], ["西湖", "--city", ""], ["西湖", "--types", ""],
              ["西湖", "--coordsys", "wgs"], ["西湖", "灵隐"]]:
        q.append(["search"] + a)
    for a in [[], [""], [" "], ["西湖区", "--city", ""], ["西湖区", "--coordsys", "gcj"], ["西湖区", "--bogus"],
              ["西湖区", "灵隐"]]:
        q.append(["geocode"] + a)
    for a in [["--subdistrict", "4"], ["--subdistrict", "-1"], ["--subdistrict=-1"], ["--subdistrict", "x"],
              ["杭州", "西湖"], ["--coordsys", "wgs84"]]:
        q.append(["district"] + a)
    for a in [["bogus-verb"], ["reverse", "--db", ""], ["info", "--bogus"]]:
        q.append(a)
    # databases that are not there or are not databases (query verbs never create one)
    for db in ("no-such.sqlite", "queries", "queries/reverse-batch-input.txt"):
        q += [["reverse", "--db", db, "--location=116.4,39.9"], ["nearby", "--db", db, "--location=120.1551,30.2741"],
              ["search", "--db", db, "西湖"], ["geocode", "--db", db, "西湖区"], ["district", "--db", db, "西湖区"]]
    q.append(["reverse", "--db", "no-such.sqlite", "--batch", "queries/reverse-batch-input.txt"])
    return q

# ---------------------------------------------------------------------------------------------
# Running. Each query is one process, JOBS at a time; answers are written in query order.

ENV = dict(os.environ)
for k in [k for k in ENV if k.startswith("SNAP_")]: del ENV[k]

DB_VERBS = ("reverse", "nearby", "search", "geocode", "district", "info", "check")

def with_db(args):
    """args with `--db seed.sqlite` after the verb, for the verbs that read a database."""
    if not args or args[0] not in DB_VERBS or "--db" in args or "--help" in args: return args
    return [args[0], "--db", "seed.sqlite"] + args[1:]

def run(args, stdin=None):
    p = subprocess.run([BIN] + args, cwd=OUT, env=ENV, input=stdin, capture_output=True, timeout=600)
    return p.returncode, p.stdout, p.stderr

def clean(b):
    s = b.decode("utf-8", errors="backslashreplace")
    return s.replace(OUT, "$OUT_DIR").replace(BIN, "$GAZETTEER_BINARY")

def record(f, qid, args, result):
    code, out, err = result
    f.write(f"### {qid} {json.dumps(args, ensure_ascii=False)}\n")
    for name, mark in ((out, "|"), (err, "!")):
        if not name: continue
        s = clean(name)
        lines = s.split("\n")
        if lines[-1] == "": lines.pop()
        else: lines.append("\\ no newline at end")
        for line in lines: f.write(f"{qid} {mark} {line}\n")
    f.write(f"{qid} = exit {code}\n")

def run_set(verb, queries, modes=("txt", "json"), name=None, workers=JOBS):
    name = name or verb
    with open(os.path.join(QDIR, f"{name}.jsonl"), "w", encoding="utf-8") as f:
        for q in queries: f.write(json.dumps(q, ensure_ascii=False) + "\n")
    jobs = []
    for mode in modes:
        for i, q in enumerate(queries):
            jobs.append((mode, i, with_db(q + (["--json"] if mode == "json" else []))))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda j: run(j[2]), jobs))
    files = {m: open(os.path.join(OUT, f"{name}.{m}"), "w", encoding="utf-8") for m in modes}
    for (mode, i, args), res in zip(jobs, results):
        record(files[mode], f"{name} {i:04d}", args, res)
    for f in files.values(): f.close()
    return len(jobs)

counts = {}

def batch(name, points, extra, via_stdin):
    """reverse --batch over `points`: the raw output in NAME.jsonl, and NAME.txt pairing each input
    line with its answer."""
    inp = "".join(p + "\n" for p in points).encode()
    path = os.path.join(QDIR, f"{name}-input.txt")
    with open(path, "wb") as f: f.write(inp)
    args = with_db(["reverse", "--batch", "-" if via_stdin else f"queries/{name}-input.txt"] + extra)
    code, out, err = run(args, stdin=inp if via_stdin else b"")
    with open(os.path.join(OUT, f"{name}.jsonl"), "wb") as f: f.write(out)
    answers = out.decode("utf-8", errors="backslashreplace").split("\n")
    if answers and answers[-1] == "": answers.pop()
    with open(os.path.join(OUT, f"{name}.txt"), "w", encoding="utf-8") as f:
        f.write(f"### {name} {json.dumps(args, ensure_ascii=False)}  ({len(points)} lines in, {len(answers)} out)\n")
        for k in range(max(len(points), len(answers))):
            p = points[k] if k < len(points) else "(no input line)"
            a = answers[k] if k < len(answers) else "(no answer line)"
            f.write(f"{name} {k + 1:04d} {json.dumps(p, ensure_ascii=False)} => {a}\n")
        for line in clean(err).splitlines(): f.write(f"{name} ! {line}\n")
        f.write(f"{name} = exit {code}\n")
    return len(points)

def progress(msg):
    print(msg, file=sys.stderr, flush=True)

progress(f"reverse --batch: {len(REVERSE_POINTS)} points")
n = batch("reverse-batch", REVERSE_POINTS, [], via_stdin=False)
n += batch("reverse-batch-r0", REVERSE_POINTS, ["--radius", "0"], via_stdin=True)
n += batch("reverse-batch-wgs84", REVERSE_POINTS[::5], ["--coordsys", "wgs84", "--radius", "300", "--limit", "3"], via_stdin=True)
n += batch("reverse-batch-bd09", REVERSE_POINTS[1::5], ["--coordsys", "bd09", "--radius", "2000", "--limit", "100"], via_stdin=False)
counts["reverse --batch (points)"] = n

sets = [("reverse", reverse_queries()), ("nearby", nearby_queries()), ("search", search_queries()),
        ("geocode", geocode_queries()), ("district", district_queries()), ("errors", error_queries())]
for verb, qs in sets:
    progress(f"{verb}: {len(qs)} queries, text and --json")
    counts[verb] = run_set(verb, qs)

progress("info, check, help")
# One at a time: check's FTS5 integrity-check writes (rolled back), and two at once would make
# one skip it ("database is locked"). `info` creates a missing --db, so its missing one is in a
# folder that does not exist.
misc = [["info"], ["info", "--json"], ["check"], ["check", "--json"], ["--version"],
        ["info", "--db", "no-such-folder/no-such.sqlite"], ["info", "--db", "queries"],
        ["check", "--db", "no-such.sqlite"], ["check", "--db", "queries/reverse-batch-input.txt"]]
counts["info/check"] = run_set("info", misc, modes=("txt",), workers=1)
helps = [["--help"], ["help"]] + [[v, "--help"] for v in
        ("reverse", "nearby", "search", "geocode", "district", "import", "info", "check")] + [["help", "search"]]
counts["help"] = run_set("help", helps, modes=("txt",))

total = sum(counts.values())
with open(os.path.join(OUT, "counts.txt"), "w") as f:
    for k, v in counts.items(): f.write(f"{k}: {v}\n")
    f.write(f"total: {total}\n")
print("queries: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; total {total}")
PYTHON

# Read-only readers leave an empty -wal and its -shm beside the database; with nothing running
# they hold nothing, and removing them keeps `diff -r -x seed.sqlite` to the answers.
if [ -f "$DB-wal" ] && [ ! -s "$DB-wal" ]; then rm -f "$DB-wal" "$DB-shm"; fi
[ ! -e "$DB-wal" ] || echo "note: $DB-wal is not empty; left in place" >&2
echo "answers in $OUT ($(( SECONDS - started )) s)"
