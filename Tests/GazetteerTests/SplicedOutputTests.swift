import Foundation
import Testing
@testable import GazetteerAMap

/// `reverse --batch` writes its lines as borrowed pieces and bytes of its own (`SplicedOutput`):
/// what reaches the file must be every piece, in order, however many there are.
@Suite(.tags(.fast)) struct SplicedOutputTests {
    /// Pieces borrowed from one kept buffer, between bytes of the output's own, as a batch makes them.
    func output(_ kept: UnsafeBufferPointer<UInt8>, points: Int) -> (SplicedOutput, [UInt8]) {
        var out = SplicedOutput(), expected: [UInt8] = []
        for i in 0..<points {
            let start = i % 50, count = i % 7 == 0 ? 0 : 1 + i % 40
            out.borrow(kept.baseAddress! + start, count: count)
            expected += kept[start..<(start + count)]
            let own = Array("\(i),\(i * 3)".utf8)
            out.bytes += own
            expected += own
            if i % 3 == 0 { out.borrow(kept.baseAddress! + 60, count: 5); expected += kept[60..<65] }
        }
        out.bytes.append(0x0A)
        expected.append(0x0A)
        return (out, expected)
    }

    @Test func piecesReachAFileInOrder() throws {
        let kept = Array((0..<100).map { UInt8(65 + $0 % 26) })
        try kept.withUnsafeBufferPointer { kept in
            // More pieces than one writev takes (1,024), and none at all.
            for points in [0, 1, 5, 3_000] {
                var (out, expected) = output(kept, points: points)
                #expect(out.joined == expected)
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("spliced-\(UUID().uuidString)").path
                defer { try? FileManager.default.removeItem(atPath: path) }
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                try #require(fd >= 0)
                #expect(out.write(to: fd) == 0)
                close(fd)
                #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected, "\(points) points")
                // Emptied for the next block, as the batch reuses it.
                out.removeAll()
                #expect(out.joined.isEmpty)
            }
        }
    }

    /// A batch answers its points in another order than its lines': each line's pieces, noted
    /// as a span between two marks, reach the file in the spans' order, from several outputs,
    /// whether held in the span (up to three pieces) or named by where they are (more).
    @Test func spansReachAFileInTheirOrder() throws {
        let kept = Array((0..<100).map { UInt8(48 + $0 % 40) })
        try kept.withUnsafeBufferPointer { kept in
            var outputs = [SplicedOutput(), SplicedOutput(), SplicedOutput()]
            var lines: [(span: SplicedOutput.Span, bytes: [UInt8])] = []
            for i in 0..<5_000 {
                let o = i % 3
                let first = outputs[o].mark()
                var bytes: [UInt8] = []
                for piece in 0..<(1 + i % 5) {
                    if piece % 2 == 0 {
                        let start = (i + piece) % 60, count = (i * 7 + piece) % 30
                        outputs[o].borrow(kept.baseAddress! + start, count: count)
                        bytes += kept[start..<(start + count)]
                    } else {
                        let own = Array("<\(i).\(piece)>".utf8)
                        outputs[o].bytes += own
                        bytes += own
                    }
                }
                let end = outputs[o].mark()
                lines.append((outputs[o].span(first, end, output: o), bytes))
            }
            lines.shuffle()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("spans-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            try #require(fd >= 0)
            let spans = lines.map(\.span)
            let status = outputs.withUnsafeMutableBufferPointer { outputs in
                spans.withUnsafeBufferPointer { SplicedOutput.write(outputs, spans: $0, to: fd) }
            }
            close(fd)
            #expect(status == 0)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == lines.flatMap(\.bytes))
        }
    }

    @Test func piecesReachAPipeInOrder() throws {
        // More than a pipe's buffer (64 KiB), so the writer waits for the reader between writes.
        let kept = Array((0..<100).map { UInt8(97 + $0 % 26) })
        try kept.withUnsafeBufferPointer { kept in
            var (out, expected) = output(kept, points: 40_000)
            let pipe = Pipe()
            nonisolated(unsafe) var read = Data()
            let group = DispatchGroup()
            group.enter()
            Thread { read = pipe.fileHandleForReading.readDataToEndOfFile(); group.leave() }.start()
            #expect(out.write(to: pipe.fileHandleForWriting.fileDescriptor) == 0)
            try pipe.fileHandleForWriting.close()
            #expect(group.wait(timeout: .now() + 30) == .success)
            #expect(Array(read) == expected)
        }
    }

    @Test func aFailedWriteGivesItsErrno() {
        let kept = [UInt8](repeating: 0x61, count: 100)
        kept.withUnsafeBufferPointer { kept in
            var (out, _) = output(kept, points: 3)
            let fd = open("/dev/full", O_WRONLY)
            guard fd >= 0 else { return }  // no /dev/full here (not Linux)
            defer { close(fd) }
            #expect(out.write(to: fd) == ENOSPC)
        }
    }
}
