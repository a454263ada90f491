import json
d = json.load(open('/tmp/geo-gen/border.json'))
rings = [p[0] for p in d]   # outer rings only: the union's holes are sea gaps, not exclaves
n = sum(len(r) for r in rings)
out = []
out.append(f"    /// {len(rings)} outer rings, {n} points, flattened as `lng, lat, lng, lat, …` (GCJ-02, 3 decimals).")
out.append("    static let rings: [[Double]] = [")
for r in rings:
    vals = []
    for x, y in r:
        vals.append(f"{x:g}, {y:g}")
    lines = []
    for i in range(0, len(vals), 6):
        lines.append("            " + ", ".join(vals[i:i+6]))
    out.append("        [\n" + ",\n".join(lines) + ",\n        ],")
out.append("    ]")
open('/tmp/geo-gen/border_literal.swift', 'w').write("\n".join(out) + "\n")
print(n)
