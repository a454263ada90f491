import CPrefetch
import Dispatch
import Foundation
import Gazetteer
import GazetteerAMap
import GazetteerSupport

extension GazetteerCommand.Reverse {
    /// Lines in a block of a batch without POIs, and of one that lists them.
    static let blockLines = 131_072, listingBlockLines = 16_384

    /// Answers lines in blocks, each block's slices spread over all cores, written in input
    /// order. Two blocks are in flight: the next block's slices are queued before the
    /// current one's are written, so no core waits at a block's end for the slowest slice, nor
    /// while the answers are written and the next lines read.
    ///
    /// A block's points are answered in the order of a curve through the map (`BatchBlock.take`),
    /// each slice a stretch of it, so one thread meets the same cells, boundaries and addresses
    /// point after point: in input order, points spread over a country met a cache miss in each
    /// table for each point, and took twice the time.
    func runBatch(_ repository: Repository, path: String) throws -> Int {
        let input = try Self.openBatchInput(path)
        let system = query.coordsys
        let radius = radius, limit = limit
        // Without POIs to list, a point's line is its address's line with its location in it
        // (`Repository.placeBatch`, `RegeoLines`), kept per thread across blocks.
        let listsPOIs = radius > 0 && limit > 0
        let workers = BatchWorkers(system: system)
        // Its lines are named, not copied, by each block's output until it is written.
        defer { withExtendedLifetime(workers) {} }
        // The size of the file opened, not of the path: a symlink's own size (or stdin's
        // none) would leave the first blocks of a large batch to the slow path.
        var status = stat()
        let fileBytes = fstat(input.fileDescriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
        let reader = LineReader(handle: input)
        var failed = 0
        var lineNumber = 0
        // Large enough that a slice's stretch of the curve is a few districts across, when the
        // points spread over a country (at 16,384 the order bought nothing); smaller where POIs
        // are listed, as each such answer is kept whole (some 730 bytes) until its block is
        // written, where a line named by reference keeps only its location.
        let blockSize = listsPOIs ? Self.listingBlockLines : Self.blockLines
        let slicesPerBlock = ProcessInfo.processInfo.activeProcessorCount * 4
        // Their buffers are kept from block to block: fresh ones would cost their page faults again.
        let blocks = (0..<2).map { _ in BatchBlock(slices: slicesPerBlock) }
        var inFlight: [BatchBlock] = []
        let slices = DispatchGroup()
        // No slice outlives this call: each reads its block, and a write's failure ends the batch.
        defer { slices.wait() }

        /// Writes the oldest block in flight as its slices finish, in order.
        func writeOldest() throws {
            let block = inFlight.removeFirst()
            for i in 0..<block.sliceCount {
                block.done[i].wait()
                failed += block.results[i].failed
            }
            try WholeWrite.check(block.write(to: STDOUT_FILENO), what: "the answers")
        }

        var started = 0
        while true {
            let lines = reader.next(blockSize)
            if lines.isEmpty { break }
            if inFlight.count == blocks.count { try writeOldest() }
            let block = blocks[started % blocks.count]
            started += 1
            // The first block is parsed and ordered on another thread while the batch is readied.
            let takenAside = !listsPOIs && lineNumber == 0
            let taken = DispatchGroup()
            if takenAside {
                let (lines, buffer, first) = (lines, reader.buffer, lineNumber + 1)
                DispatchQueue.global().async(group: taken) { block.take(lines, from: buffer, firstLine: first) }
            }
            if !listsPOIs {
                // The first block of a file says about how many points the batch holds: enough
                // to build the cells before any point rather than after many.
                var expected = lines.count
                if lineNumber == 0, lines.count == blockSize, let fileBytes, let last = lines.last, last.upperBound > 0 {
                    expected = max(expected, Int(Double(fileBytes) / Double(last.upperBound + 1) * Double(lines.count)))
                }
                repository.prepareBatch(expected)
            }
            if !takenAside { block.take(lines, from: reader.buffer, firstLine: lineNumber + 1) }
            taken.wait()
            lineNumber += lines.count
            inFlight.append(block)
            for slice in 0..<block.sliceCount {
                DispatchQueue.global().async(group: slices) {
                    block.run(slice) { batch in
                        listsPOIs
                            ? batch.answer(repository: repository, system: system, radius: radius, limit: limit)
                            : batch.place(repository: repository, radius: radius, limit: limit, workers: workers)
                    }
                }
            }
        }
        while !inFlight.isEmpty { try writeOldest() }
        // The process ends with this batch: its threads' memos and lines, and the boundaries'
        // indexes the repository keeps, are left to the exit, not freed one by one (thousands
        // of allocations, some 10 ms on one core after the last line is written).
        _ = Unmanaged.passRetained(workers)
        repository.keepCachesUntilExit()
        return failed
    }
}

/// One block of a batch's lines: its bytes (copied from the reader, which reuses its buffer for
/// the next block while this one is answered), its points in the order they are answered, its
/// slices' answers, and a signal per slice when its answers are ready. Reused for a later block
/// once written.
private final class BatchBlock: @unchecked Sendable {
    private let slicesMost: Int
    private(set) var sliceCount = 0
    private var bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
    private var lines: [Range<Int>] = []
    private var firstLine = 0
    /// Per line, its point (NaN where it is not one), and why the lines that are not are not.
    private var parsed: [Coordinate] = []
    private var notPoints: [Int: String] = [:]
    /// The keys sorted (curve place and line) and the sort's other buffer, kept for their capacity.
    private var keyed: [UInt64] = [], sorting: [UInt64] = []
    /// The lines in the order answered: along the curve, lines that are not points last (its
    /// capacity kept, as the keys').
    private var order: [Int32] = []
    /// Per line, where its answer is in its slice's output: written by every slice at once,
    /// each its own lines, so a buffer rather than an array (whose every write is exclusive).
    private var spans = UnsafeMutableBufferPointer<SplicedOutput.Span>.allocate(capacity: 0)
    /// Each slice's JSON lines, and how many of them are failures.
    let results: UnsafeMutableBufferPointer<(text: SplicedOutput, failed: Int)>
    let done: [DispatchSemaphore]

    init(slices: Int) {
        slicesMost = slices
        results = .allocate(capacity: slices)
        results.initialize(repeating: (SplicedOutput(), 0))
        done = (0..<slices).map { _ in DispatchSemaphore(value: 0) }
    }

    deinit {
        _ = results.deinitialize()
        results.deallocate()
        bytes.deallocate()
        spans.deallocate()
    }

    /// Takes `lines` (ranges of `buffer`) as this block's, numbered from `firstLine`, parses
    /// them and orders the points along the curve.
    func take(_ lines: [Range<Int>], from buffer: [UInt8], firstLine: Int) {
        let end = lines.last?.upperBound ?? 0
        if end > bytes.count {
            bytes.deallocate()
            bytes = .allocate(capacity: end)
        }
        if end > 0 {
            buffer.withUnsafeBufferPointer { b in UnsafeMutableRawPointer(bytes.baseAddress!).copyMemory(from: b.baseAddress!, byteCount: end) }
        }
        self.lines = lines
        self.firstLine = firstLine
        sliceCount = max(1, min(slicesMost, lines.count))
        parsed.removeAll(keepingCapacity: true)
        notPoints.removeAll()
        keyed.removeAll(keepingCapacity: true)
        for (i, range) in lines.enumerated() {
            let line = UnsafeBufferPointer(rebasing: bytes[range])
            var point = Coordinate(parsingPlainUTF8: line)
            if point == nil {
                do {
                    point = try Coordinate(parsing: String(decoding: line, as: UTF8.self))
                } catch {
                    notPoints[i] = ErrorAdvice.message(for: error)
                }
            }
            parsed.append(point ?? Coordinate(longitude: .nan, latitude: .nan))
            keyed.append(UInt64(point.map(Self.curve) ?? .max) << 32 | UInt64(i))
        }
        Self.sortByKey(&keyed, using: &sorting)
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: keyed.lazy.map { Int32(truncatingIfNeeded: $0) })
        if spans.count < lines.count {
            spans.deallocate()
            // On huge pages: 8 MiB a block, each written at random.
            spans = HugePages.allocate(byteCount: lines.count * MemoryLayout<SplicedOutput.Span>.stride)
                .bindMemory(to: SplicedOutput.Span.self)
            spans.initialize(repeating: SplicedOutput.Span())
        }
    }

    /// Sorts `keyed` by the high halves (places on the curve), equal ones in the order given
    /// (the low halves, line numbers): a radix sort, byte by byte from the lowest, as a
    /// comparison sort of a block's keys cost the thread that reads and writes more than either.
    private static func sortByKey(_ keyed: inout [UInt64], using other: inout [UInt64]) {
        other.removeAll(keepingCapacity: true)
        other.append(contentsOf: keyed)
        for shift in stride(from: UInt64(32), to: 64, by: 8) {
            var starts = [Int](repeating: 0, count: 257)
            for k in keyed { starts[Int(truncatingIfNeeded: k >> shift & 0xFF) + 1] += 1 }
            for b in 0..<256 { starts[b + 1] += starts[b] }
            keyed.withUnsafeBufferPointer { from in
                other.withUnsafeMutableBufferPointer { to in
                    for k in from {
                        let b = Int(truncatingIfNeeded: k >> shift & 0xFF)
                        to[starts[b]] = k
                        starts[b] += 1
                    }
                }
            }
            swap(&keyed, &other)
        }
    }

    /// Where `p` is on a Z-order curve through the map (about 600 m steps), above every point's
    /// for what is not a point: points near on the curve are near on the map.
    private static func curve(_ p: Coordinate) -> UInt32 {
        guard p.longitude.isFinite, p.latitude.isFinite else { return .max }
        func step(_ v: Double, _ low: Double, _ span: Double) -> UInt32 {
            UInt32(max(0, min(65_535, (v - low) / span * 65_536)))
        }
        // Spreads a 16-bit value's bits to the even bits of 32.
        func spread(_ v: UInt32) -> UInt32 {
            var x = v & 0xFFFF
            x = (x | x << 8) & 0x00FF_00FF
            x = (x | x << 4) & 0x0F0F_0F0F
            x = (x | x << 2) & 0x3333_3333
            return (x | x << 1) & 0x5555_5555
        }
        return min(.max - 1, spread(step(p.longitude, -180, 360)) | spread(step(p.latitude, -90, 180)) << 1)
    }

    /// Answers slice `slice` (a stretch of `order`) with `answer` into its buffer (kept from
    /// the block before), then signals it done.
    func run(_ slice: Int, _ answer: (inout BatchSlice) -> (text: SplicedOutput, failed: Int)) {
        let range = (slice * lines.count / sliceCount)..<((slice + 1) * lines.count / sliceCount)
        var buffer = results[slice].text
        results[slice].text = SplicedOutput()
        buffer.removeAll()
        var batch = BatchSlice(slice: slice, firstLine: firstLine, spans: spans, into: consume buffer)
        order.withUnsafeBufferPointer { order in
            parsed.withUnsafeBufferPointer { parsed in batch.take(UnsafeBufferPointer(rebasing: order[range]), parsed: parsed, notPoints: notPoints) }
        }
        results[slice] = answer(&batch)
        done[slice].signal()
    }

    /// Writes the answers in line order, once every slice is done.
    func write(to fd: Int32) -> Int32 {
        var texts = (0..<sliceCount).map { results[$0].text }
        return texts.withUnsafeMutableBufferPointer { texts in
            SplicedOutput.write(texts, spans: UnsafeBufferPointer(rebasing: spans[..<lines.count]), to: fd)
        }
    }
}

/// What each batch thread keeps across blocks, handed to one slice at a time.
private final class BatchWorkers: @unchecked Sendable {
    private let system: CoordinateSystem
    private let lock = NSLock()
    private var free: [(places: ReverseBatchPlaces, lines: RegeoLines)] = []
    /// Every thread's lines, each made once for all of them.
    private let lines = SharedRegeoLines()

    init(system: CoordinateSystem) { self.system = system }

    func take() -> (places: ReverseBatchPlaces, lines: RegeoLines) {
        lock.withBriefLock { free.popLast() } ?? (ReverseBatchPlaces(system: system), RegeoLines(sharing: lines))
    }

    func give(_ worker: (places: ReverseBatchPlaces, lines: RegeoLines)) {
        lock.withBriefLock { free.append(worker) }
    }
}

/// One slice of a block: its points answered in the order given, each answer written as a JSON
/// line into its output, and where it is noted under its line (`BatchBlock.write`).
fileprivate struct BatchSlice {
    private let slice: Int
    private let firstLine: Int
    private var points: [Coordinate] = []
    /// The line (in the block) of each point.
    private var pointLine: [Int] = []
    /// The block's lines that are not points, and why.
    private var failures: [(line: Int, message: String)] = []
    private let spans: UnsafeMutableBufferPointer<SplicedOutput.Span>
    private var out: SplicedOutput
    private var failed = 0
    /// The piece where the next line's answer starts.
    private var nextPiece = 0
    /// Lines given to this slice, and lines noted: a line left out would be written from a
    /// span an earlier block left.
    private var given = 0, noted = 0

    /// - Parameter out: an empty buffer to write into, kept from an earlier slice for its capacity.
    init(slice: Int, firstLine: Int, spans: UnsafeMutableBufferPointer<SplicedOutput.Span>, into out: consuming SplicedOutput) {
        self.slice = slice
        self.firstLine = firstLine
        self.spans = spans
        self.out = out
    }

    /// Takes the block's lines `items`, in the order they are to be answered.
    mutating func take(_ items: UnsafeBufferPointer<Int32>, parsed: UnsafeBufferPointer<Coordinate>, notPoints: [Int: String]) {
        points.reserveCapacity(items.count)
        pointLine.reserveCapacity(items.count)
        // A point's line is mostly borrowed (`RegeoLines`): its own bytes are its location.
        out.reserve(bytes: items.count * 32, pieces: items.count * 3)
        given += items.count
        for item in items {
            let i = Int(item)
            if let message = notPoints.isEmpty ? nil : notPoints[i] {
                failures.append((i, message))
            } else {
                points.append(parsed[i])
                pointLine.append(i)
            }
        }
    }

    /// Points ahead whose line's span `prefetchSpan` asks for.
    private static let spanPrefetchDistance = 4

    /// Asks for the span of the line `spanPrefetchDistance` points after point `k`, so that
    /// noting that line finds it in the cache. The points are answered along the curve, so
    /// their lines' spans (64 bytes each, 8 MiB a block) are written at random: each such
    /// write missed the cache, and once a few were waiting every later store waited behind
    /// them (some 8 % of a batch over the box, seen as stalls on whatever stored next).
    @inline(__always)
    private func prefetchSpan(after k: Int) {
        let ahead = k + Self.spanPrefetchDistance
        if ahead < pointLine.count { gazetteer_prefetch_for_write(spans.baseAddress! + pointLine[ahead]) }
    }

    /// Notes the pieces written since the last line's as line `i`'s answer.
    private mutating func noteLine(_ i: Int) {
        let end = out.mark()
        spans[i] = out.span(nextPiece, end, output: slice)
        nextPiece = end
        noted += 1
    }

    private mutating func fail(_ i: Int, _ message: String) {
        JSON.failure("line \(firstLine + i): \(message)").write(into: &out.bytes)
        out.bytes.append(0x0A)
        failed += 1
        noteLine(i)
    }

    /// Writes point `k`'s answer or error.
    private mutating func write(_ k: Int, _ result: Result<ReverseGeocode, GazetteerError>) {
        let i = pointLine[k]
        switch result {
        case .success(let answer):
            AMapShape.writeRegeo(answer, all: true, into: &out.bytes)
            out.bytes.append(0x0A)
            noteLine(i)
        case .failure(let error):
            fail(i, ErrorAdvice.message(for: error))
        }
    }

    /// Writes the lines that are not points, and hands over the output.
    private mutating func finish() -> (text: SplicedOutput, failed: Int) {
        for (line, message) in failures { fail(line, message) }
        precondition(noted == given, "a batch slice answered \(noted) of its \(given) lines")
        return (out, failed)
    }

    /// Every point answered in one `Repository` batch.
    mutating func answer(repository: Repository, system: CoordinateSystem, radius: Double, limit: Int) -> (text: SplicedOutput, failed: Int) {
        repository.reverseGeocode(points, system: system, radius: radius, poiLimit: limit) { k, result in write(k, result) }
        return finish()
    }

    /// Every point answered without POIs: most as their address's line, named by reference (`placeBatch`, `RegeoLines`).
    mutating func place(repository: Repository, radius: Double, limit: Int, workers: BatchWorkers) -> (text: SplicedOutput, failed: Int) {
        let worker = workers.take()
        defer { workers.give(worker) }
        repository.placeBatch(points, radius: radius, poiLimit: limit, into: worker.places) { k, place in
            prefetchSpan(after: k)
            switch place {
            case .key(let key):
                worker.lines.write(key, at: points[k], places: worker.places, into: &out)
                noteLine(pointLine[k])
            case .answer(let result):
                write(k, result)
            }
        }
        return finish()
    }
}
