/// `list`: one line per session, oldest first, under a header.
public enum SessionListing {
    public static func lines(_ sessions: [SessionFolder]) -> [String] {
        let header = ["ID", "DATE", "DURATION", "SIZE", "LAYOUT", "STATUS"]
        let rows = sessions.map { s in
            [s.id, LibraryFormat.date(s.date), LibraryFormat.duration(s.durationSeconds),
             LibraryFormat.bytes(s.totalBytes), s.layoutText, s.status]
        }
        return LibraryFormat.table([header] + rows.map { $0.map(LibraryFormat.printable) })
    }
}
