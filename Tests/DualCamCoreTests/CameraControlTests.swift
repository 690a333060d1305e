import Testing
@testable import DualCamCore

@Suite struct CameraControlTests {
    static func control(_ name: String, _ kind: CameraControl.Kind = .integer, _ range: ClosedRange<Int64> = 0...255,
                        value: Int64? = 100, menu: [CameraControl.MenuEntry] = [], flags: CameraControl.Flags = []) -> CameraControl {
        CameraControl(name: name, label: name, kind: kind, minimum: range.lowerBound, maximum: range.upperBound, step: 1,
                      defaultValue: range.lowerBound, value: value, menu: menu, flags: flags)
    }

    static let autoExposure = control("auto_exposure", .menu, 0...3, value: 3,
                                      menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")])

    @Test func namesAreMadeAsV4L2CtlMakesThem() {
        #expect(CameraControl.stableName(fromLabel: "Exposure Time, Absolute") == "exposure_time_absolute")
        #expect(CameraControl.stableName(fromLabel: "  White Balance (Auto) ") == "white_balance_auto")
        #expect(CameraControl.stableName(fromLabel: "Integer 32 Bits") == "integer_32_bits")
        #expect(CameraControl.stableName(fromLabel: "Ünïcode ☃") == "n_code")
        #expect(CameraControlNames.isValid("brightness") && !CameraControlNames.isValid("../x") && !CameraControlNames.isValid(""))
    }

    @Test func valuesAreReadAsAPersonTypesThem() {
        #expect(ControlValueCheck.parse("manual_mode", for: Self.autoExposure) == 1)
        #expect(ControlValueCheck.parse("Aperture Priority Mode", for: Self.autoExposure) == 3)
        #expect(ControlValueCheck.parse("off", for: Self.control("gain_automatic", .boolean, 0...1)) == 0)
        #expect(ControlValueCheck.parse(" 140 ", for: Self.control("brightness")) == 140)
        #expect(ControlValueCheck.parse("bright", for: Self.control("brightness")) == nil)
    }

    @Test func aRefusalSaysTheRangeTheEntriesOrWhy() {
        #expect(ControlValueCheck.problem(300, for: Self.control("brightness")) == "brightness 300 is out of range: 0…255")
        #expect(ControlValueCheck.problem(2, for: Self.autoExposure)?.contains("one of: 1 (Manual Mode), 3 (Aperture Priority Mode)") == true)
        let focus = Self.control("focus_absolute", flags: .inactive)
        #expect(ControlValueCheck.problem(10, for: focus, inactiveBecause: "turn focus_automatic_continuous off first")
                == "focus_absolute has no effect now (the driver marks it inactive); turn focus_automatic_continuous off first")
        #expect(ControlValueCheck.problem(10, for: Self.control("x", flags: .readOnly))?.contains("read-only") == true)
        #expect(ControlValueCheck.problem(128, for: Self.control("brightness")) == nil)
        #expect(ControlValueCheck.unknown("focs", among: [Self.control("brightness"), Self.control("contrast")])
                == "this camera has no control focs; it has: brightness, contrast")
    }

    @Test func aLockPinsWhatTheAutomaticModeChoseThenSwitchesItOff() throws {
        let controls = [Self.autoExposure, Self.control("exposure_time_absolute", value: 156),
                        Self.control("gain_automatic", .boolean, 0...1, value: 1), Self.control("gain", value: 41)]
        let plan = try ControlLock.exposure.plan(controls).get()
        #expect(plan.steps == [.init(name: "auto_exposure", value: 1), .init(name: "gain_automatic", value: 0),
                               .init(name: "exposure_time_absolute", value: 156), .init(name: "gain", value: 41)])
        #expect(plan.previous == ["auto_exposure": 3, "gain_automatic": 1])
        #expect(ControlLock.exposure.release(controls, previous: plan.previous)
                == [.init(name: "auto_exposure", value: 3), .init(name: "gain_automatic", value: 1)])
        // A camera with no automatic focus has nothing to lock, and says so.
        guard case .failure(let problem) = ControlLock.focus.plan(controls) else {
            Issue.record("a focus lock without autofocus")
            return
        }
        #expect(problem.description.contains("no automatic focus"))
    }

    @Test func matchCopiesWhatTheOtherCameraOffersAndListsTheRest() {
        let host = [Self.autoExposure, Self.control("exposure_time_absolute", .integer, 1...5000, value: 300),
                    Self.control("gain", value: 60), Self.control("white_balance_temperature", .integer, 2800...6500, value: 4600)]
        let guest = [Self.autoExposure, Self.control("exposure_time_absolute", .integer, 1...250, value: 100),
                     Self.control("white_balance_automatic", .boolean, 0...1, value: 1),
                     Self.control("white_balance_temperature", .integer, 2800...6500, value: 5000)]
        let plan = ControlMatch.plan(from: host, sourceName: "host", to: guest)
        #expect(plan.settings == [.init(name: "white_balance_automatic", value: 0),
                                  .init(name: "white_balance_temperature", value: 4600)])
        #expect(plan.unmatched == ["exposure_time_absolute: host's 300 is outside this camera's 1…250",
                                   "gain: this camera has no such control"])
    }
}
