import Foundation
import Gazetteer

/// The library's errors as the CLI prints them. The library says what is wrong in its own terms
/// (an app has no --db); here the advice names the CLI's flags and verbs instead. Errors that
/// need no advice keep the library's text.
enum ErrorAdvice {
    /// `error` as the CLI prints it.
    static func message(for error: any Error) -> String {
        advised(error) ?? "\(error)"
    }

    /// `error`, or a `CLIError` with its CLI text when that differs from the library's, for
    /// ArgumentParser to print.
    static func wrapping(_ error: Error) -> Error {
        advised(error).map(CLIError.init) ?? error
    }

    /// The CLI's text for a library error whose advice names CLI flags or verbs; nil otherwise.
    static func advised(_ error: Error) -> String? {
        switch error {
        case let error as GazetteerError: return advice(for: error)
        case let error as ImportError: return advice(for: error)
        case let error as ImportFailure: return advice(for: error)
        default: return nil
        }
    }

    static func advice(for error: GazetteerError) -> String? {
        switch error {
        case .notADatabase(let path):
            // Never "delete it": the user may have named the wrong file.
            return "\(path) is not a SQLite database. Check that --db names the right file; "
                + "if this is the gazetteer database, it is damaged: rebuild it with `gazetteer import` into a new file."
        case .damaged(let path, let reason):
            return "\(path) is a damaged SQLite database: \(reason). Check that --db names the right file; "
                + "if this is the gazetteer database, rebuild it with `gazetteer import` into a new file "
                + "(`gazetteer check --db \(path)` lists what is wrong)."
        case .notAGazetteerDatabase(let path):
            return "\(path) is a SQLite database but not a gazetteer database (it has no gazetteer schema). "
                + "Name a gazetteer database with --db, or a new file to create one."
        case .schemaVersionMismatch(let path, let found, let expected) where found < expected:
            return "\(path) was made by an older gazetteer (schema version \(found); this one reads version \(expected)). "
                + "Rebuild it with `gazetteer import` into a new file (the default database is rebuilt from the seed automatically)."
        case .cannotOpen(let path, let reason):
            // The library's reason ends with advice for an app; the CLI's names its flags.
            for (library, cli) in openAdvice(path) where reason.hasSuffix(library) {
                return "cannot open database \(path): " + reason.dropLast(library.count) + cli
            }
            return nil
        default:
            return nil
        }
    }

    /// The endings of `GazetteerError.cannotOpen` reasons (Schema.swift) and the CLI's instead.
    static func openAdvice(_ path: String) -> [(library: String, cli: String)] {
        [
            ("Create it by importing data into it.", "Create it with `gazetteer import --db \(path) FILES…`."),
            ("otherwise check it with Repository.check().", "otherwise run `gazetteer check --db \(path)`."),
            ("Name the database file itself, e.g. \((path as NSString).appendingPathComponent("gazetteer.sqlite")).",
             "Name the database file itself, e.g. --db \((path as NSString).appendingPathComponent("gazetteer.sqlite"))."),
            ("or create the database by importing data into it.", "or create the database with `gazetteer import --db \(path) FILES…`."),
        ]
    }

    static func advice(for error: ImportError) -> String? {
        let reason: String
        switch error.problem {
        case .notUTF8(let field):
            reason = "field \(field) is not valid UTF-8. If the file was saved as GBK/GB18030 "
                + "(usual for Chinese spreadsheets), import it with --encoding gbk, or save it as UTF-8"
        case .badEncoding(let encoding, let offset):
            reason = "the bytes at offset \(offset) are not valid \(encoding); check the file's encoding (--encoding utf8 or gbk)"
        default:
            return nil
        }
        // The library's description is where the problem is, then its reason.
        return String(error.description.dropLast(error.reason.count)) + reason
    }

    static func advice(for failure: ImportFailure) -> String {
        var text = failure.description
        for error in failure.errors {
            if let advised = advice(for: error) { text = text.replacingOccurrences(of: error.description, with: advised) }
        }
        let library = "or set ImportOptions.skipInvalid to import the valid rows and write the rejects to a file."
        if text.hasSuffix(library) {
            text = text.dropLast(library.count) + "or pass --skip-invalid to import the valid rows and write the rejects to a file."
        }
        return text
    }
}
