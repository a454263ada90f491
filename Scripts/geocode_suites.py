#!/usr/bin/env python3
"""Accuracy per suite and level of our geocoder beside cpca, jionlp and addressparser, and speed.

Suites: Tests/GazetteerTests/Fixtures/GeocodeSuites/*.tsv (address, province, city, district,
town; empty = the source states none, that level is not scored for that case). Ours runs once,
as `gazetteer geocode --batch FILE` over every suite's addresses.

Correct: the answer's name equals the expected name, or equals it but for the level suffix
(上虞市 ~ 上虞区, 横峰镇 ~ 横峰街道: upgraded since the text was written), or the expected name
is a short form the answer starts with (义乌 ~ 义乌市: the annotated dataset gives text as written),
or the expected span ends with the answer (广元昭化区 ~ 昭化区). Before comparing,
the same rule is applied to the expected values and to every parser's answer: in a municipality
(北京/天津/上海/重庆) the city is the municipality (市辖区/县/重庆城区/… or empty → 北京市);
a county under the province (仙桃市, 省直辖县级行政区划) is its own city (city := district).
A level nobody answers counts wrong; a parser without that level shows "-".

district*: the district figure again, for every parser alike, with two more answers accepted,
since the labels predate 2021's changes: today's region of a renamed or merged district (江干区
→ 上城区, by the compiled-in former_names.tsv), and, where the case names a town that the
expected district no longer holds, the district of the same city that holds it today (余杭区
乔司镇: 乔司 is in 临平区 since 2021; by the seed's towns).

usage: geocode_suites.py [--gazetteer PATH] [--suites DIR] [--out DIR] [--only ours]
"""
import argparse, glob, json, os, resource, subprocess, sys, tempfile, time

MUNICIPALITIES = {"北京市", "天津市", "上海市", "重庆市"}
PLACEHOLDER_CITIES = {"", "市辖区", "县", "重庆城区", "重庆郊县", "省直辖县级行政区划", "自治区直辖县级行政区划",
                      "省直辖县", "直辖县级", None}
LEVELS = ("province", "city", "district", "town")


def canon(p, c, d, t, expected=False):
    """The one rule for expected values and every parser's answer; an expected empty name means
    the source states none (not scored), so it stays empty."""
    p, c, d, t = (x if isinstance(x, str) else "" for x in (p, c, d, t))
    if expected and not c:
        return {"province": p, "city": c, "district": d, "town": t}
    if p in MUNICIPALITIES and (c in PLACEHOLDER_CITIES or c == p):
        c = p
    elif c in PLACEHOLDER_CITIES and d and p:
        c = d  # a county under the province stands for its city
    return {"province": p, "city": c, "district": d, "town": t}


SUFFIXES = ("特别行政区", "维吾尔自治区", "壮族自治区", "回族自治区", "自治区", "自治州", "自治县", "自治旗",
            "办事处", "街道", "地区", "省", "市", "区", "县", "镇", "乡", "旗", "盟")


def stem(name):
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix)]
    return name


def matches(expected, got):
    """Same name, or the same name with another level suffix (上虞市 ~ 上虞区, 横峰镇 ~ 横峰街道:
    the text was written before the change), or the expected short form the answer starts with,
    or an expected span that ends with the answer (广元昭化区 ~ 昭化区: the annotated span took
    in the text before it)."""
    if not got:
        return False
    e, g = stem(expected), stem(got)
    return got == expected or e == g or (len(e) >= 2 and g.startswith(e)) or (len(g) >= 2 and e.endswith(g))


def load_renamed(root):
    """Former district names (the compiled-in former_names.tsv) → names of today's regions,
    from the seed's regions.csv: the dataset's answers predate 2021's renames and merges
    (江干区, 下城区 → 上城区, 拱墅区), which a geocoder of today's code list answers."""
    import csv
    names = {}
    with open(os.path.join(root, "seed", "regions.csv"), encoding="utf-8") as f:
        for row in csv.DictReader(f):
            names[row["code"]] = row["name"]
    today = {}
    with open(os.path.join(root, "Sources", "GazetteerCore", "Codes", "former_names.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and cols[2] in names and cols[1] != names[cols[2]]:
                today.setdefault(stem(cols[1]), set()).add(names[cols[2]])
    return today


def load_town_holders(root):
    """Town short forms → (district, city, province) names of the seed's towns so named today."""
    import csv
    rows = {r["code"]: r for r in csv.DictReader(open(os.path.join(root, "seed", "regions.csv"), encoding="utf-8"))}
    holders = {}
    for r in rows.values():
        if r["level"] == "town" and r["parent"] in rows:
            d = rows[r["parent"]]
            c = rows.get(d["parent"], {"name": "", "parent": ""})
            p = rows.get(c["parent"], c)  # a municipality's districts sit under the province
            holders.setdefault(stem(r["name"]), set()).add((d["name"], c["name"], p["name"]))
    return holders


def today_holders(expected, holders):
    """Districts of the expected province and city holding the expected town today, when the
    expected district holds none so named (the town moved, or the label is older than the
    change). Nothing when the case names no city."""
    if not expected["town"] or not expected["district"] or not expected["city"] or not expected["province"]:
        return ()
    found = [d for d, c, p in holders.get(stem(expected["town"]), ())
             if matches(expected["city"], c) and matches(expected["province"], p)]
    if any(matches(expected["district"], d) for d in found):
        return ()
    return found


def load_suites(d):
    suites = {}
    for path in sorted(glob.glob(os.path.join(d, "*.tsv"))):
        rows = []
        with open(path, encoding="utf-8") as f:
            next(f)
            for line in f:
                cols = line.rstrip("\n").split("\t")
                cols += [""] * (5 - len(cols))
                rows.append((cols[0], canon(*cols[1:5], expected=True)))
        suites[os.path.basename(path)[:-4]] = rows
    return suites


def s(v):
    return v if isinstance(v, str) else ""


def run_ours(binary, addresses, data_home):
    """One `geocode --batch` over all addresses, on a default database of our own (XDG_DATA_HOME):
    a binary whose bundled seed differs from the shared default database's would rebuild that
    file, inside the timing. The database is built by a first call, before the timed one."""
    env = {k: v for k, v in os.environ.items() if k != "GAZETTEER_DB"}
    env["XDG_DATA_HOME"] = data_home
    subprocess.run([binary, "geocode", "--json", "北京市"], env=env, capture_output=True, check=False)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(addresses) + "\n")
        name = f.name
    t0 = time.perf_counter()
    out = subprocess.run([binary, "geocode", "--batch", name], env=env, capture_output=True, check=False).stdout
    elapsed = time.perf_counter() - t0
    os.unlink(name)
    lines = out.decode("utf-8").splitlines()
    assert len(lines) == len(addresses), f"{binary}: {len(lines)} answers for {len(addresses)} addresses"
    answers = []
    for line in lines:
        j = json.loads(line)
        g = (j.get("geocodes") or [{}])[0] if j.get("count", "0") != "0" else {}
        answers.append((canon(s(g.get("province")), s(g.get("city")), s(g.get("district")), s(g.get("township"))),
                        g.get("formatted_address", ""), g.get("level", ""), s(g.get("unmatched")),
                        s(g.get("former_name"))))
    return answers, elapsed


def run_cpca(addresses):
    import cpca
    t0 = time.perf_counter()
    df = cpca.transform(addresses)
    elapsed = time.perf_counter() - t0
    return [canon(r["省"], r["市"], r["区"], "") for _, r in df.iterrows()], elapsed


def run_addressparser(addresses):
    import addressparser
    df = addressparser.transform(addresses)
    return [canon(r["省"], r["市"], r["区"], "") for _, r in df.iterrows()]


def run_jionlp(addresses):
    import jionlp
    out = []
    for a in addresses:
        try:
            r = jionlp.parse_location(a, town_village=True, change2new=True)
        except Exception:
            r = {}
        out.append(canon(r.get("province"), r.get("city"), r.get("county"), r.get("town")))
    return out


CPCA_TIMING = """
import sys, time
t0 = time.perf_counter()
import cpca
addresses = open(sys.argv[1], encoding="utf-8").read().splitlines()
t1 = time.perf_counter()
cpca.transform(addresses)
t2 = time.perf_counter()
cpca.transform(addresses)
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def speed_rounds(binary, addresses, data_home, rounds):
    """Each round: our whole `geocode --batch` command (wall and CPU), then cpca in a fresh
    process: its import, its first `transform` of all the addresses (the figure the accuracy run
    prints: cpca builds its matcher on that call) and a second, warm one."""
    n = len(addresses)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(addresses) + "\n")
        name = f.name
    env = {k: v for k, v in os.environ.items() if k != "GAZETTEER_DB"}
    env["XDG_DATA_HOME"] = data_home
    subprocess.run([binary, "geocode", "--json", "北京市"], env=env, capture_output=True, check=False)
    print(f"speed: {n} addresses, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'round':>5} {'ours wall s':>11} {'ours CPU s':>10} {'ours /s':>9} {'cpca import s':>13} "
          f"{'cpca 1st s':>10} {'cpca 1st /s':>11} {'cpca warm /s':>12} {'ours/1st':>8} {'ours/warm':>9}")
    for r in range(1, rounds + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([binary, "geocode", "--batch", name], env=env, stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = subprocess.run([sys.executable, "-c", CPCA_TIMING, name], capture_output=True, text=True, check=True).stdout
        imp, first, warm = map(float, out.split())
        print(f"{r:>5} {wall:>11.2f} {cpu:>10.2f} {n / wall:>9,.0f} {imp:>13.2f} {first:>10.2f} {n / first:>11,.0f} "
              f"{n / warm:>12,.0f} {first / wall:>7.2f}x {warm / wall:>8.2f}x")
    os.unlink(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gazetteer", default=".build/release/gazetteer")
    ap.add_argument("--suites", default="Tests/GazetteerTests/Fixtures/GeocodeSuites")
    ap.add_argument("--out", default="bench-out/geocode-suites")
    ap.add_argument("--only", choices=["ours"], help="skip the other parsers (and the speed line)")
    ap.add_argument("--speed", type=int, metavar="ROUNDS",
                    help="speed only: ROUNDS rounds, ours and cpca alternating, each round's figures and ratio")
    a = ap.parse_args()
    suites = load_suites(a.suites)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    renamed = load_renamed(root)
    holders = load_town_holders(root)
    addresses = [addr for rows in suites.values() for addr, _ in rows]
    os.makedirs(a.out, exist_ok=True)
    if a.speed:
        speed_rounds(a.gazetteer, addresses, os.path.abspath(os.path.join(a.out, "data-home")), a.speed)
        return
    ours, ours_s = run_ours(a.gazetteer, addresses, os.path.abspath(os.path.join(a.out, "data-home")))
    results = {"ours": [o[0] for o in ours]}
    has_town = {"ours": True, "cpca": False, "addressparser": False, "jionlp": True}
    if not a.only:
        results["cpca"], cpca_s = run_cpca(addresses)
        results["jionlp"] = run_jionlp(addresses)
        results["addressparser"] = run_addressparser(addresses)
    os.makedirs(a.out, exist_ok=True)
    names = list(results)
    print(f"{'suite':24} {'level':9} {'cases':>5}  " + "  ".join(f"{n:>13}" for n in names))
    i = 0
    for suite, rows in suites.items():
        idx = range(i, i + len(rows))
        i += len(rows)
        for level in LEVELS:
            scored = [k for k, (_, e) in zip(idx, rows) if e[level]]
            if not scored:
                continue
            cells = []
            for n in names:
                if not has_town[n] and level == "town":
                    cells.append(f"{'-':>13}")
                    continue
                ok = sum(matches(rows[k - idx.start][1][level], results[n][k][level]) for k in scored)
                cells.append(f"{100 * ok / len(scored):12.1f}%")
            print(f"{suite:24} {level:9} {len(scored):5}  " + "  ".join(cells))
            if level == "district":
                # The same cases, today's region of a renamed or merged district accepted too.
                cells = []
                for n in names:
                    ok = sum(matches(rows[k - idx.start][1][level], results[n][k][level])
                             or any(matches(t, results[n][k][level]) for t in renamed.get(stem(rows[k - idx.start][1][level]), ()))
                             or any(matches(t, results[n][k][level]) for t in today_holders(rows[k - idx.start][1], holders))
                             for k in scored)
                    cells.append(f"{100 * ok / len(scored):12.1f}%")
                print(f"{suite:24} {'district*':9} {len(scored):5}  " + "  ".join(cells))
        with open(os.path.join(a.out, f"{suite}-ours-failures.tsv"), "w", encoding="utf-8") as f:
            f.write("address\tlevel\texpected\tours\tours_formatted\tours_level\tours_unmatched\tours_former_name\n")
            for k, (addr, e) in zip(idx, rows):
                got, formatted, lvl, unmatched, former = ours[k]
                for level in LEVELS:
                    if e[level] and not matches(e[level], got[level]):
                        f.write("\t".join([addr, level, e[level], got[level], formatted, lvl, unmatched, former]) + "\n")
    n = len(addresses)
    line = f"speed: {n} addresses; ours (geocode --batch, whole command) {n / ours_s:,.0f}/s ({ours_s:.2f} s)"
    if not a.only:
        line += f"; cpca.transform (in-process, after import) {n / cpca_s:,.0f}/s ({cpca_s:.2f} s)"
    print(line)


if __name__ == "__main__":
    main()
