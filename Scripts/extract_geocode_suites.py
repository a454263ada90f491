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
