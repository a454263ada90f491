// The library's public face: one `import Gazetteer` brings the model, the importer and the
// repository. The layers underneath are modules of their own so that the compiler, not
// convention, keeps import and queries apart (see Package.swift).
@_exported import GazetteerCore
@_exported import GazetteerImport
@_exported import GazetteerQuery
