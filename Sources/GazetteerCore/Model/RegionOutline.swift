/// A region as a map draws it: its boundary simplified for a zoom level and cut to the part
/// on screen (see `Repository.regionOutlines`).
public struct RegionOutline: Sendable, Hashable {
    public var region: Region
    /// The drawn boundary, GCJ-02: simplified, and clipped to the box asked for.
    public var shape: MultiPolygon

    public init(region: Region, shape: MultiPolygon) {
        self.region = region
        self.shape = shape
    }
}

/// The regions a map shows in a box (`Repository.regionOutlines`).
public struct RegionOutlines: Sendable, Hashable {
    /// By adcode.
    public var outlines: [RegionOutline]
    /// False when more regions met the box than the limit allowed: those nearest the middle
    /// of the box were kept.
    public var complete: Bool

    public init(outlines: [RegionOutline], complete: Bool) {
        self.outlines = outlines
        self.complete = complete
    }
}
