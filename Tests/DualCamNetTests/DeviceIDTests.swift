import DualCamNet
import Testing

@Suite struct DeviceIDTests {
    @Test func groupedFormRoundTrips() {
        let id = DeviceID(certificateDER: Array("certificate".utf8))
        let text = id.description
        #expect(text.count == 63)
        #expect(text.split(separator: "-").count == 8)
        #expect(text.split(separator: "-").allSatisfy { $0.count == 7 })
        #expect(DeviceID(parsing: text) == id)
        #expect(DeviceID(parsing: text.lowercased().replacingOccurrences(of: "-", with: " ")) == id)
    }

    @Test func everySingleCharacterErrorIsCaught() {
        let id = DeviceID(certificateDER: [1, 2, 3])
        let chars = Array(id.description)
        for position in chars.indices where chars[position] != "-" {
            for replacement in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" where replacement != chars[position] {
                var mutated = chars
                mutated[position] = replacement
                #expect(DeviceID(parsing: String(mutated)) == nil, "error at \(position) not caught")
            }
        }
    }

    @Test func rejectsWrongLength() {
        #expect(DeviceID(parsing: "ABC") == nil)
        #expect(DeviceID(parsing: "") == nil)
    }
}
