/// A value crossing into or out of SQLite. Keeping bindings to these five cases means a
/// caller can never hand SQLite a type it would silently coerce.
package enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByNilLiteral
{
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .real(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue {
    /// Optional Swift values map to NULL, so call sites need no `if let` ladders.
    package static func int<T: BinaryInteger>(_ v: T?) -> SQLiteValue { v.map { .integer(Int64($0)) } ?? .null }
    /// The usual cases without the generic: from another module it ran unspecialised (the
    /// importer binds two per row, at several hundred instructions each).
    package static func int(_ v: Int64?) -> SQLiteValue { v.map { .integer($0) } ?? .null }
    package static func int(_ v: Int?) -> SQLiteValue { v.map { .integer(Int64($0)) } ?? .null }
    package static func double(_ v: Double?) -> SQLiteValue { v.map { .real($0) } ?? .null }
    package static func string(_ v: String?) -> SQLiteValue { v.map { .text($0) } ?? .null }
}
