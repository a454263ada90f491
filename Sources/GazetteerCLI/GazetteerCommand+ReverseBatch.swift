import Dispatch
import Foundation
import Gazetteer
import GazetteerAMap
import GazetteerSupport

extension GazetteerCommand.Reverse {
    /// Answers lines in blocks, each block's slices spread over all cores, written in input
    /// order. Two blocks are in flight: the next block's slices are queued before the
    /// current one's are written, so no core waits at a block's end for the slowest slice, nor
    /// while the answers are written and the next lines read.
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
        let blockSize = 16_384
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
                try WholeWrite.check(block.results[i].text.write(to: STDOUT_FILENO), what: "the answers")
            }
        }

        var started = 0
        while true {
            let lines = reader.next(blockSize)
            if lines.isEmpty { break }
            if inFlight.count == blocks.count { try writeOldest() }
            if !listsPOIs {
                // The first block of a file says about how many points the batch holds: enough
                // to build the cells before any point rather than after many.
                var expected = lines.count
                if lineNumber == 0, lines.count == blockSize, let fileBytes, let last = lines.last, last.upperBound > 0 {
                    expected = max(expected, Int(Double(fileBytes) / Double(last.upperBound + 1) * Double(lines.count)))
                }
                repository.prepareBatch(expected)
            }
            let block = blocks[started % blocks.count]
            started += 1
            block.take(lines, from: reader.buffer, firstLine: lineNumber + 1)
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
/// the next block while this one is answered), its slices' answers, and a signal per slice
/// when its answers are ready. Reused for a later block once written.
private final class BatchBlock: @unchecked Sendable {
    private let slicesMost: Int
    private(set) var sliceCount = 0
    private var bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
    private var lines: [Range<Int>] = []
    private var firstLine = 0
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
    }

    /// Takes `lines` (ranges of `buffer`) as this block's, numbered from `firstLine`.
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
    }

    /// Answers slice `slice` with `answer` into its buffer (kept from the block before), then signals it done.
    func run(_ slice: Int, _ answer: (inout BatchSlice) -> (text: SplicedOutput, failed: Int)) {
        let range = (slice * lines.count / sliceCount)..<((slice + 1) * lines.count / sliceCount)
        var buffer = results[slice].text
        results[slice].text = SplicedOutput()
        buffer.removeAll()
        var batch = BatchSlice(lines: lines[range], in: UnsafeBufferPointer(bytes), firstLine: firstLine, into: consume buffer)
        results[slice] = answer(&batch)
        done[slice].signal()
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

/// One slice of a block: its lines parsed, answered, and written as JSON lines in order.
fileprivate struct BatchSlice {
    private let lines: ArraySlice<Range<Int>>
    private let firstLine: Int
    private var points: [Coordinate] = []
    /// The index in `lines` of each point.
    private var pointLine: [Int] = []
    /// Index in `lines` → why it is not a point.
    private var failures: [Int: String] = [:]
    private var out: SplicedOutput
    private var failed = 0
    /// The first line not yet written.
    private var next: Int

    /// - Parameter out: an empty buffer to write into, kept from an earlier slice for its capacity.
    init(lines: ArraySlice<Range<Int>>, in bytes: UnsafeBufferPointer<UInt8>, firstLine: Int, into out: consuming SplicedOutput) {
        self.lines = lines
        self.firstLine = firstLine
        self.out = out
        next = lines.startIndex
        points.reserveCapacity(lines.count)
        pointLine.reserveCapacity(lines.count)
        // A point's line is mostly borrowed (`RegeoLines`): its own bytes are its location.
        out.reserve(bytes: lines.count * 32, pieces: lines.count * 3)
        for i in lines.indices {
            let line = UnsafeBufferPointer(rebasing: bytes[lines[i]])
            if let point = Coordinate(parsingPlainUTF8: line) {
                points.append(point)
                pointLine.append(i)
                continue
            }
            do {
                points.append(try Coordinate(parsing: String(decoding: line, as: UTF8.self)))
                pointLine.append(i)
            } catch {
                failures[i] = ErrorAdvice.message(for: error)
            }
        }
    }

    /// Writes the lines that are not points up to `end`, as failures.
    private mutating func catchUp(to end: Int) {
        while next < end {
            fail(next, failures[next]!)
            next += 1
        }
    }

    private mutating func fail(_ i: Int, _ message: String) {
        JSON.failure("line \(firstLine + i): \(message)").write(into: &out.bytes)
        out.bytes.append(0x0A)
        failed += 1
    }

    /// Writes point `k`'s answer or error, after the lines before it.
    private mutating func write(_ k: Int, _ result: Result<ReverseGeocode, GazetteerError>) {
        let i = pointLine[k]
        catchUp(to: i)
        switch result {
        case .success(let answer):
            AMapShape.writeRegeo(answer, all: true, into: &out.bytes)
            out.bytes.append(0x0A)
        case .failure(let error):
            fail(i, ErrorAdvice.message(for: error))
        }
        next = i + 1
    }

    private mutating func finish() -> (text: SplicedOutput, failed: Int) {
        catchUp(to: lines.endIndex)
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
            switch place {
            case .key(let key):
                let i = pointLine[k]
                catchUp(to: i)
                worker.lines.write(key, at: points[k], places: worker.places, into: &out)
                next = i + 1
            case .answer(let result):
                write(k, result)
            }
        }
        return finish()
    }
}
