#!/usr/bin/env python3
"""Writes Tests/GazetteerTests/Fixtures/GeocodeSuites/*.tsv from other projects' own test cases.

Each source is read from a git checkout at a pinned commit (see README.md beside the suites);
only cases whose expected province/city/district/town the source states are kept, and the
expected names are written as the source gives them (its own answer), never from our data,
except akebe-address-parse whose source states a 6-digit code: that code is turned into names
with the seed database's region table (the statistics code list).

usage: extract_geocode_suites.py --mirror DIR [--db gazetteer.sqlite] [--out DIR]
  DIR holds owner+name/repo checkouts (git directories), as the project's fetch tool leaves them.
"""
import argparse, ast, json, os, re, sqlite3, subprocess, sys

SOURCES = {
    "nca-test": ("leodotnet/neural-chinese-address-parsing", "54cf6bde941a152cc096f54294254fc4ee288fa7"),
    "jionlp": ("dongrixinyu/JioNLP", "783abc5237e05f25aea2a11dcc2ae2e0e9f4cd23"),
    "cpca-addressparser": ("DQinYuan/chinese_province_city_area_mapper", "9bdfd6e8694b44ca3de0730bd9122c6df5916133"),
    "addressparser": ("shibing624/addressparser", "b998dbbbd731098fd0f2db2558f2c39971aee37d"),
    "zh-address-parse-java": ("daihy8759/zh-address-parse", "2ce74c815fdd4a940324c3cb8ba99d0d5a77506f"),
    "akebe-address-parse": ("akebe/address-parse", "bf3e5c4cf5a13c039dc8d76fe31bc0386cf5fc5a"),
    "go-addr": ("ThinkagentAi/go-addr", "6839d7d86638d335fb2e6285cfa232720df107ba"),
    "address-parse-china": ("ChrisMuir/address-parse-china", "8a441239077268899492ebc4c7a9a9a10c34c744"),
    "bitlap-geocoding": ("bitlap/geocoding", "887721ce590faf6d80a148f704dc8ff7e7fd80d8"),
}


def show(mirror, key, path):
    repo, commit = SOURCES[key]
    d = os.path.join(mirror, repo.replace("/", "+"), "repo")
    gd = os.path.join(d, ".git") if os.path.isdir(os.path.join(d, ".git")) else d
    return subprocess.run(["git", "--git-dir", gd, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def clean(s):
    """One line, tab-free: the TSV has one case a line."""
    return re.sub(r"[\t\r\n]+", " ", s or "").strip()


def nca(mirror, db, split="test"):
    """The annotated test split of Li et al. 2019 (NAACL), char/token per line with BIO labels.

    The dataset labels by the text's role: a county-level city written right after the province
    (浙江省余姚市) is labelled city. Such a span that is no prefecture-level name (full or short)
    in the code list is scored as the district it is, when no district is annotated, else dropped.
    """
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    prefectures = {n for row in con.execute("SELECT name, short_name FROM region WHERE level = 1") for n in row if n}
    moved = 0
    cases = []
    for block in show(mirror, "nca-test", f"data/{split}.txt").split("\n\n"):
        toks = [l.rsplit(" ", 1) for l in block.strip().split("\n") if l.strip()]
        if not toks:
            continue
        text = "".join(t for t, _ in toks)
        spans, cur = {}, None
        for t, lab in toks:
            if lab.startswith("B-"):
                cur = lab[2:]
                spans.setdefault(cur, []).append(t)
            elif lab.startswith("I-") and cur == lab[2:]:
                spans[cur][-1] += t
            else:
                cur = None
        first = lambda k: spans.get(k, [""])[0]
        city, district = first("city"), first("district")
        if city and city not in prefectures and city.rstrip("市") not in prefectures:
            city, district, moved = "", district or city, moved + 1
        cases.append((text, first("prov"), city, district, first("town")))
    print(f"nca-{split}: {moved} city spans that name no prefecture scored as district or dropped", file=sys.stderr)
    return cases


def jionlp(mirror):
    """test/test_location_parser.py: the cases run with change2new=True (today's names)."""
    tree = ast.parse(show(mirror, "jionlp", "test/test_location_parser.py"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "location_string_list":
            items = ast.literal_eval(node.value)
    out = []
    for addr, _town_village, change2new, exp in items:
        if change2new:
            out.append((addr, exp.get("province") or "", exp.get("city") or "", exp.get("county") or "",
                        exp.get("town") or ""))
    return out


def python_transform_tests(mirror, key, path):
    """test_transform's addr_list zipped with assert_addr's _assert_line(linenum, 省, 市, 区, …)."""
    tree = ast.parse(show(mirror, key, path))
    addrs, expected = None, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "addr_list" and addrs is None:
            addrs = [e.value if isinstance(e, ast.Constant) else None for e in node.value.elts]
        if isinstance(node, ast.FunctionDef) and node.name == "assert_addr":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "_assert_line":
                    args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
                    if not isinstance(args[0], int):
                        args = args[2:]  # cpca passes (addr_df, pos_sensitive, linenum, …)
                    expected[args[0]] = args[1:4]
    out = []
    for i, a in enumerate(addrs):
        if isinstance(a, str) and i in expected:
            p, c, d = (x or "" for x in expected[i])
            out.append((a, p, c, d, ""))
    return out


def zh_java(mirror):
    """java-zh-addres-parse/src/test/resources/addressParse.json + addressOnlyParse.json."""
    out = []
    for f in ("addressParse.json", "addressOnlyParse.json"):
        for case in json.loads(show(mirror, "zh-address-parse-java", "java-zh-addres-parse/src/test/resources/" + f)):
            r = case["result"]
            out.append((case["address"], r.get("provinceName", ""), r.get("cityName", ""), r.get("areaName", ""),
                        r.get("streetName", "")))
    return out


def akebe(mirror, db):
    """src/test.js: one-line cases whose expected result states a 6-digit code."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    def names(code):
        row = con.execute("SELECT name, level, parent FROM region WHERE code = ?", (int(code),)).fetchone()
        if row is None:
            return None
        chain = {}
        while row:
            name, level, parent = row
            chain[level] = name
            row = con.execute("SELECT name, level, parent FROM region WHERE code = ?", (parent,)).fetchone() if parent else None
        return chain
    out, skipped = [], []
    for line in show(mirror, "akebe-address-parse", "src/test.js").splitlines():
        m = re.match(r"\s*\['((?:[^'\\]|\\.)*)',\s*(?:'(\d{6})'|\{[^}]*code:\s*'(\d{6})'[^}]*\})\],?\s*$", line)
        if not m:
            continue
        addr, code = m.group(1), m.group(2) or m.group(3)
        chain = names(code)
        if chain is None:
            skipped.append((addr, code))
            continue
        out.append((addr.replace("\\n", " "), chain.get(0, ""), chain.get(1, ""), chain.get(2, ""), ""))
    for addr, code in skipped:
        print(f"akebe-address-parse: skipped {addr!r}: code {code} is not a region in the code list", file=sys.stderr)
    return out


GO_STRING = r'"((?:[^"\\]|\\.)*)"'


def go_unquote(s):
    return json.loads('"' + s + '"')


def go_addr(mirror):
    """ThinkagentAi/go-addr addr_test.go (Go): the cases whose Province, City and Region are asserted.

    A table case is `raw: "…", want: Address{Province: …, City: …, Region: …, Street: …}`; a single
    test calls Smart on a literal (or on `raw := "…"`) and asserts `got.Province != "…" ||
    got.City != "…" || got.Region != "…"`. Street is the rest of the text (it may begin with a
    town): no town is stated.
    """
    text = show(mirror, "go-addr", "addr_test.go")
    out = []
    for m in re.finditer(r'raw:\s*' + GO_STRING + r',\s*want:\s*Address\{([^}]*)\}', text):
        fields = dict((k, go_unquote(v)) for k, v in re.findall(r'(\w+):\s*' + GO_STRING, m.group(2)))
        out.append((go_unquote(m.group(1)), fields.get("Province", ""), fields.get("City", ""),
                    fields.get("Region", ""), ""))
    for body in re.split(r'\nfunc ', text)[1:]:
        cond = re.search(r'got\.Province != ' + GO_STRING + r' \|\| got\.City != ' + GO_STRING
                         + r' \|\| got\.Region != ' + GO_STRING, body)
        addr = re.search(r'Smart\(' + GO_STRING + r'\)', body) or re.search(r'raw := ' + GO_STRING, body)
        if cond and addr:
            out.append((go_unquote(addr.group(1)),) + tuple(go_unquote(x) for x in cond.groups()) + ("",))
    return out


def address_parse_china(mirror):
    """ChrisMuir/address-parse-china geoLocate_test.go (Go): TestGeoLocate's expected GeoLocation
    per input, as written (short names: 辽宁, 大连, 甘井子). Its 辖区 (the code list's filler 市辖区 for
    Beijing's city, short) names no city and is left unstated; the inputs expected to place nothing
    (我喜欢猫, I like cats, "") are left out, as the TSV cannot state "none"; a repeated input once."""
    text = show(mirror, "address-parse-china", "geoLocate_test.go")
    body = text.split("func TestGeoLocate(", 1)[1].split("\nfunc ", 1)[0]
    out, seen = [], set()
    pattern = (r'Address:\s*' + GO_STRING + r',\s*Province:\s*' + GO_STRING + r',\s*ProvinceCode:\s*\d+,\s*City:\s*'
               + GO_STRING + r',\s*CityCode:\s*\d+,\s*County:\s*' + GO_STRING)
    for m in re.finditer(pattern, body):
        addr, p, c, d = (go_unquote(x) for x in m.groups())
        if not (p or c or d) or addr in seen:
            continue
        seen.add(addr)
        out.append((addr, p, "" if c == "辖区" else c, d, ""))
    return out


def kotlin_args(text, start):
    """The literal arguments of the call whose '(' is at text[start]: strings, numbers, null."""
    args, depth, i, cur = [], 0, start, None
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur = json.loads(text[i:j + 1])
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(cur)
                return args
        elif ch == "," and depth == 1:
            args.append(cur)
            cur = None
        elif depth == 1 and not ch.isspace():
            m = re.match(r"null|\d+", text[i:])
            if m:
                cur = None if m.group(0) == "null" else int(m.group(0))
                i += len(m.group(0))
                continue
        i += 1
    raise ValueError(f"unclosed call at {start}")


def bitlap_geocoding(mirror):
    """bitlap/geocoding (Kotlin): `assertEquals(Geocoding.normalizing("…"), Address(provinceId, province,
    cityId, city, districtId, district, streetId, street, townId, town, villageId, village, road,
    roadNum, buildingNum, text))` in TestNormalizing.kt (the bundled region data), then the cases of
    TestNormalizingCustom.kt (its 2021 region data) whose address TestNormalizing lacks. Town is the
    street (街道) or town (乡镇) stated, both level 4 of the code list. Cases expected to place nothing
    (null) are left out, as the TSV cannot state "none"; TestNormalizingAddRegionEntry's invented
    regions (尼玛省) are not used."""
    out, seen = [], set()
    for path in ("src/test/java/org/bitlap/geocoding/TestNormalizing.kt",
                 "src/test/java/org/bitlap/geocoding/TestNormalizingCustom.kt"):
        text = show(mirror, "bitlap-geocoding", path)
        for m in re.finditer(r'[Gg]eocoding2?\.normalizing\(' + GO_STRING + r'\),\s*Address\(', text):
            addr = json.loads('"' + m.group(1) + '"')
            args = kotlin_args(text, m.end() - 1)
            if len(args) != 16:
                raise ValueError(f"{path}: Address with {len(args)} arguments for {addr!r}")
            if addr in seen:
                continue
            seen.add(addr)
            p, c, d, street, town = args[1], args[3], args[5], args[7], args[9]
            out.append((addr, p or "", c or "", d or "", street or town or ""))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--db", default=os.path.expanduser("~/.local/share/gazetteer/gazetteer.sqlite"))
    ap.add_argument("--out", default="Tests/GazetteerTests/Fixtures/GeocodeSuites")
    a = ap.parse_args()
    suites = {
        "nca-test": nca(a.mirror, a.db),
        "nca-dev": nca(a.mirror, a.db, "dev"),
        "jionlp": jionlp(a.mirror),
        "cpca-addressparser": python_transform_tests(a.mirror, "cpca-addressparser", "tests/test_cpca.py")
        + python_transform_tests(a.mirror, "addressparser", "tests/test_base.py"),
        "zh-address-parse-java": zh_java(a.mirror),
        "akebe-address-parse": akebe(a.mirror, a.db),
        "go-parsers": go_addr(a.mirror) + address_parse_china(a.mirror),
        "bitlap-geocoding": bitlap_geocoding(a.mirror),
    }
    os.makedirs(a.out, exist_ok=True)
    for name, cases in suites.items():
        with open(os.path.join(a.out, name + ".tsv"), "w", encoding="utf-8") as f:
            f.write("address\tprovince\tcity\tdistrict\ttown\n")
            for c in cases:
                if clean(c[0]):
                    f.write("\t".join(clean(x) for x in c) + "\n")
        print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
