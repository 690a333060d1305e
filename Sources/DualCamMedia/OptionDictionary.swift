import CFFmpeg

/// Owns an AVDictionary of options passed to avcodec_open2/avformat_write_header; what is
/// left in it afterwards is what the component did not recognise.
final class OptionDictionary {
    var pointer: OpaquePointer?

    init(_ entries: [(String, String)] = []) {
        for (key, value) in entries { set(key, value) }
    }

    deinit { av_dict_free(&pointer) }

    func set(_ key: String, _ value: String) {
        av_dict_set(&pointer, key, value, 0)
    }

    /// Keys the consumer left unused (av_dict iteration with an empty key matches all).
    var keys: [String] {
        var result: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result.append(String(cString: next.pointee.key))
            entry = next
        }
        return result
    }
}
