import Foundation

/// The cameras of the newest take in a library: the nodes `start` does not leave out
/// without asking, since a rig that recorded with them is expected to again.
public enum LastTake {
    /// Device IDs of the newest session's cameras that its manifest lists; nil when the
    /// folders hold no session with a readable manifest (no take yet).
    public static func deviceIDs(in directories: [String]) -> Set<String>? {
        let newest = SessionLibrary(directories: directories).sessions().last { $0.manifest != nil }
        return newest?.manifest.map { Set($0.cameras.map(\.deviceID)) }
    }
}
