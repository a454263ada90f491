import Foundation
import GazetteerAMap
import Testing

/// Keeps openapi.yaml true to the server: its paths are exactly `AMapService.paths` plus
/// /health and the picker's /picker/regions.geojson (the page itself, HTML, is not listed), each /v3 path documents GET and POST, and each documents (and marks required)
/// the parameters AMap requires. A small line reader, enough for this file's layout (paths at
/// two spaces, path-level `parameters:` lists of inline `- name:` entries or `- $ref:` to
/// components/parameters), so the tests need no YAML package.
@Suite struct OpenAPITests {
    /// AMap's required parameters per path (notes §4); place/text needs keywords or types, so
    /// only key is required there.
    static let required: [String: Set<String>] = [
        "/v3/geocode/regeo": ["key", "location"],
        "/v3/geocode/geo": ["key", "address"],
        "/v3/place/text": ["key"],
        "/v3/place/around": ["key", "location"],
        "/v3/config/district": ["key"],
        "/v3/assistant/inputtips": ["key", "keywords"],
        "/v3/assistant/coordinate/convert": ["key", "locations"],
    ]

    struct Parameter: Equatable { var name: String; var required: Bool }

    struct Spec {
        var paths: [String: (methods: Set<String>, parameters: [Parameter])] = [:]
    }

    static func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
    static func value(_ line: Substring, _ key: String) -> String? {
        let t = line.trimmingCharacters(in: .whitespaces)
        for prefix in ["- " + key + ":", key + ":"] where t.hasPrefix(prefix) {
            return t.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        }
        return nil
    }

    static func parse(_ text: String) throws -> Spec {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        // Top-level sections.
        func section(_ name: String) -> ArraySlice<Substring> {
            guard let start = lines.firstIndex(where: { $0 == name + ":" }) else { return [] }
            let end = lines[(start + 1)...].firstIndex { indent($0) == 0 } ?? lines.endIndex
            return lines[(start + 1)..<end]
        }
        // components/parameters: id → Parameter
        var components: [String: Parameter] = [:]
        let comp = section("components")
        if let start = comp.firstIndex(where: { $0 == "  parameters:" }) {
            var id: String?
            for line in comp[(start + 1)...] {
                if indent(line) <= 2 { break }
                if indent(line) == 4 { id = String(line.trimmingCharacters(in: .whitespaces).dropLast()); continue }
                guard let id else { continue }
                if let name = value(line, "name"), indent(line) == 6 { components[id, default: Parameter(name: name, required: false)].name = name }
                if value(line, "required") == "true", indent(line) == 6 { components[id, default: Parameter(name: "", required: true)].required = true }
            }
        }
        var spec = Spec()
        var path: String?
        var inParameters = false
        var current: Parameter?
        func flush() {
            if let p = current, let path { spec.paths[path]?.parameters.append(p) }
            current = nil
        }
        for line in section("paths") {
            let n = indent(line)
            let t = line.trimmingCharacters(in: .whitespaces)
            if n == 2 {
                flush()
                path = String(t.dropLast())
                spec.paths[path!] = ([], [])
                inParameters = false
                continue
            }
            guard let path else { continue }
            if n == 4 {
                flush()
                inParameters = t == "parameters:"
                if ["get:", "post:", "put:", "delete:", "options:", "head:", "patch:"].contains(t) {
                    spec.paths[path]?.methods.insert(String(t.dropLast()))
                }
                continue
            }
            guard inParameters else { continue }
            if n == 6, t.hasPrefix("- ") {
                flush()
                if let ref = value(line, "$ref") {
                    let id = String(ref.split(separator: "/").last ?? "")
                    guard let p = components[id] else { throw SpecError("unresolved \(ref) under \(path)") }
                    current = p
                } else if let name = value(line, "name") {
                    current = Parameter(name: name, required: false)
                }
            } else if n == 8, value(line, "required") == "true" {
                current?.required = true
            }
        }
        flush()
        return spec
    }

    struct SpecError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static func load() throws -> Spec {
        try parse(String(contentsOf: packageRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8))
    }

    @Test func pathsAreTheServiceHealthAndThePickersMap() throws {
        let spec = try Self.load()
        #expect(Set(spec.paths.keys) == Set(AMapService.paths + ["/health", "/picker/regions.geojson"]))
        #expect(Set(Self.required.keys) == Set(AMapService.paths), "update OpenAPITests.required for new paths")
        #expect(spec.paths["/health"]?.methods == ["get"])
        let map = try #require(spec.paths["/picker/regions.geojson"])
        #expect(map.methods == ["get"])
        #expect(map.parameters == [.init(name: "bbox", required: true), .init(name: "zoom", required: true)])
    }

    @Test(arguments: AMapService.paths)
    func eachPathDocumentsGetPostAndTheRequiredParameters(_ path: String) throws {
        let spec = try Self.load()
        let entry = try #require(spec.paths[path])
        #expect(entry.methods == ["get", "post"], "\(path)")
        let names = entry.parameters.map(\.name)
        #expect(Set(names).count == names.count, "\(path) documents a parameter twice: \(names)")
        let required = Set(entry.parameters.filter(\.required).map(\.name))
        #expect(required == Self.required[path], "\(path): marked required \(required)")
        for name in ["key", "callback", "output"] {
            #expect(names.contains(name), "\(path) lacks \(name)")
        }
    }

    @Test func theReaderSeesThroughThisLayout() throws {
        let spec = try Self.parse("""
            paths:
              /a:
                parameters:
                  - $ref: '#/components/parameters/key'
                  - name: x
                    in: query
                    required: true
                  - name: y
                    in: query
                get:
                  responses: {}
            components:
              parameters:
                key:
                  name: key
                  required: true
            """)
        #expect(spec.paths["/a"]?.methods == ["get"])
        #expect(spec.paths["/a"]?.parameters == [.init(name: "key", required: true), .init(name: "x", required: true), .init(name: "y", required: false)])
    }
}
