#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import GazetteerCore
#endif

/// A streaming RFC 4180 reader: reads a megabyte at a time, so memory stays flat however
/// large the file. Handles a UTF-8 BOM, LF and CRLF, quoted commas, quotes and newlines, and
/// reports every problem with the line it starts on.
final class CSVReader {
    /// One record and the line (1-based) on which it starts.
    struct Record {
        var fields: [String]
        var line: Int
    }

    let path: String
    private let source: ByteSource
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// The most fields a record had so far: room made for the next one's at once.
    private var fieldsSeen = 0
    private var line = 1
    private var first = true

    /// Bytes consumed from the file so far, for progress reports.
    var bytesRead: Int { source.bytesRead }
    /// Size of the file, when known.
    let fileSize: Int

    init(path: String, encoding: TextEncoding = .utf8) throws(ImportError) {
        self.path = path
        let raw = try FileByteSource(path: path)
        fileSize = raw.size
        switch encoding {
        case .utf8: source = raw
        case .gb18030: source = try IconvByteSource(source: raw, from: "GB18030", path: path)
        }
    }

    private func fill() throws(ImportError) -> Bool {
        if atEnd { return false }
        if position < buffer.count { return true }
        buffer = try source.read(maxCount: 1 << 20)
        position = 0
        if buffer.isEmpty { atEnd = true; return false }
        return true
    }

    @inline(__always)
    private func peek() throws(ImportError) -> UInt8? {
        if position < buffer.count { return buffer[position] }
        return try fill() ? buffer[position] : nil
    }

    /// The next record, or nil at the end of the file. Blank lines are skipped.
    func next() throws(ImportError) -> Record? {
        if first {
            first = false
            // Skip a UTF-8 byte-order mark. The first chunk is the whole file or a megabyte of
            // it, so a mark is all in it; never step back over a refill (a file of just 0xEF
            // used to: the refill emptied the buffer and the position went to -1).
            if try fill(), buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
                position = 3
            }
        }
        while true {
            guard let b = try peek() else { return nil }
            if b == 0x0A { position += 1; line += 1; continue }
            if b == 0x0D {
                // A lone CR (classic Mac line end) is a line too, or later lines are misnumbered.
                position += 1
                if try peek() != 0x0A { line += 1 }
                continue
            }
            break
        }
        let startLine = line
        var fields: [String] = []
        fields.reserveCapacity(fieldsSeen)
        defer { fieldsSeen = Swift.max(fieldsSeen, fields.count) }
        var field: [UInt8] = []
        field.reserveCapacity(64)
        var quoted = false
        var fieldStartLine = line

        func finishField() throws(ImportError) {
            guard let text = field.withUnsafeBufferPointer({ Self.text($0) }) else {
                throw ImportError(
                    file: path, line: fieldStartLine, column: nil,
                    problem: .notUTF8(field: fields.count + 1))
            }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
        }

        while true {
            if !quoted && field.isEmpty && position < buffer.count {
                // Fast path: an unquoted field that ends inside the buffer becomes a String
                // straight from the buffer's bytes. Anything else (a quote, a NUL, the end of
                // the buffer) goes on byte by byte below, from the first such byte.
                let start = position
                let (end, stop, text) = buffer.withUnsafeBufferPointer { p -> (Int, UInt8, String?) in
                    var i = start
                    while i < p.count {
                        let c = p[i]
                        if c == 0x2C || c == 0x0A || c == 0x0D || c == 0x22 || c == 0 { break }
                        i += 1
                    }
                    let stop = i < p.count ? p[i] : 0
                    guard stop == 0x2C || stop == 0x0A || stop == 0x0D else { return (i, stop, nil) }
                    return (i, stop, Self.text(UnsafeBufferPointer(rebasing: p[start..<i])))
                }
                if stop == 0x2C || stop == 0x0A || stop == 0x0D {
                    guard let text else {
                        throw ImportError(file: path, line: fieldStartLine, column: nil, problem: .notUTF8(field: fields.count + 1))
                    }
                    fields.append(text)
                    position = end + 1
                    if stop == 0x2C { fieldStartLine = line; continue }
                    if stop == 0x0D, try peek() == 0x0A { position += 1 }
                    line += 1
                    return Record(fields: fields, line: startLine)
                }
                field.append(contentsOf: buffer[start..<end])
                position = end
            }
            guard let b = try peek() else {
                if quoted {
                    throw ImportError(file: path, line: fieldStartLine, column: nil, problem: .unterminatedQuote)
                }
                try finishField()
                return Record(fields: fields, line: startLine)
            }
            position += 1
            if b == 0 {
                throw ImportError(file: path, line: line, column: nil, problem: .nulByte)
            }
            if quoted {
                if b == 0x22 {
                    if try peek() == 0x22 {
                        position += 1
                        field.append(0x22)
                    } else {
                        quoted = false
                        // After a closing quote only a separator or the end of the line may follow.
                        if let n = try peek(), n != 0x2C, n != 0x0A, n != 0x0D {
                            throw ImportError(file: path, line: line, column: nil, problem: .textAfterClosingQuote)
                        }
                    }
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                continue
            }
            switch b {
            case 0x2C:
                try finishField()
                fieldStartLine = line
            case 0x0A:
                line += 1
                try finishField()
                return Record(fields: fields, line: startLine)
            case 0x0D:
                if try peek() == 0x0A { continue }
                line += 1
                try finishField()
                return Record(fields: fields, line: startLine)
            case 0x22 where field.isEmpty:
                quoted = true
            default:
                field.append(b)
            }
        }
    }

    /// The field's text, nil when its bytes are not well-formed UTF-8: what
    /// `String(validating:as:)` gives, which ran unspecialised here (generic metadata looked
    /// up per field: a third of the reading thread's work on a big import). `String(decoding:)`
    /// checks the bytes itself and replaces what is ill-formed with U+FFFD, so its text is the
    /// same bytes exactly when they were well-formed: one check of each byte, not two.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var text = String(decoding: bytes, as: UTF8.self)
        let same = text.withUTF8 { t in
            t.count == bytes.count && (t.isEmpty || memcmp(t.baseAddress!, bytes.baseAddress!, t.count) == 0)
        }
        return same ? text : nil
    }
}

/// The text encodings the importer accepts.
public enum TextEncoding: String, Sendable, CaseIterable {
    case utf8
    /// GB18030, a superset of GBK and GB2312: what Chinese spreadsheets usually save.
    case gb18030

    /// Accepts `utf8`/`utf-8` and `gbk`/`gb2312`/`gb18030` (all read as GB18030).
    public init?(name: String) {
        switch name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "") {
        case "utf8": self = .utf8
        case "gbk", "gb2312", "gb18030", "cp936": self = .gb18030
        default: return nil
        }
    }
}

/// Bytes of a file, in chunks.
protocol ByteSource: AnyObject {
    var bytesRead: Int { get }
    func read(maxCount: Int) throws(ImportError) -> [UInt8]
}

final class FileByteSource: ByteSource {
    private let file: UnsafeMutablePointer<FILE>
    let path: String
    let size: Int
    private(set) var bytesRead = 0

    init(path: String) throws(ImportError) {
        self.path = path
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead(String(cString: strerror(errno))))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead("is a directory"))
        }
        guard let f = fopen(path, "rb") else {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead(String(cString: strerror(errno))))
        }
        file = f
        size = Int(st.st_size)
    }

    deinit { fclose(file) }

    func read(maxCount: Int) throws(ImportError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: maxCount)
        let n = out.withUnsafeMutableBytes { fread($0.baseAddress, 1, maxCount, file) }
        if n < maxCount && ferror(file) != 0 {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead(String(cString: strerror(errno))))
        }
        out.removeSubrange(n...)
        bytesRead += n
        return out
    }
}

/// Converts another encoding to UTF-8 as it streams, with the C library's iconv; a multibyte
/// character split across two chunks is carried over to the next one.
final class IconvByteSource: ByteSource {
    private let source: FileByteSource
    private let cd: iconv_t
    private let path: String
    private var pending: [UInt8] = []
    private var sourceDone = false
    var bytesRead: Int { source.bytesRead }

    init(source: FileByteSource, from encoding: String, path: String) throws(ImportError) {
        self.source = source
        self.path = path
        let cd = iconv_open("UTF-8", encoding)
        guard cd != iconv_t(bitPattern: -1) else {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotRead("this system cannot convert from \(encoding)"))
        }
        self.cd = cd!
    }

    deinit { iconv_close(cd) }

    func read(maxCount: Int) throws(ImportError) -> [UInt8] {
        while true {
            if !sourceDone {
                let chunk = try source.read(maxCount: maxCount)
                if chunk.isEmpty { sourceDone = true } else { pending += chunk }
            }
            if pending.isEmpty { return [] }
            var output = [UInt8](repeating: 0, count: pending.count * 2 + 16)
            var inLeft = pending.count
            var outLeft = output.count
            let consumed: Int
            let failure: Int32
            (consumed, failure) = pending.withUnsafeMutableBytes { inRaw in
                output.withUnsafeMutableBytes { outRaw in
                    var inPtr: UnsafeMutablePointer<CChar>? = inRaw.baseAddress!.assumingMemoryBound(to: CChar.self)
                    var outPtr: UnsafeMutablePointer<CChar>? = outRaw.baseAddress!.assumingMemoryBound(to: CChar.self)
                    let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    return (inRaw.count - inLeft, r == -1 ? errno : 0)
                }
            }
            output.removeSubrange((output.count - outLeft)...)
            pending.removeSubrange(0..<consumed)
            if failure == EILSEQ {
                throw ImportError(file: path, line: nil, column: nil, problem: .badEncoding("GB18030", offset: source.bytesRead - pending.count))
            }
            if failure == EINVAL && sourceDone {
                throw ImportError(file: path, line: nil, column: nil, problem: .badEncoding("GB18030", offset: source.bytesRead - pending.count))
            }
            if !output.isEmpty || sourceDone { return output }
        }
    }
}
