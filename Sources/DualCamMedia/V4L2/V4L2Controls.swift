import CV4L2
import DualCamCore
import Glibc

/// A camera's controls through its V4L2 node: what it offers (VIDIOC_QUERY_EXT_CTRL,
/// menus through VIDIOC_QUERYMENU) and their values (G/S_EXT_CTRLS). Opens its own
/// descriptor: V4L2 controls belong to the device, not to the descriptor that streams,
/// so they can be read and changed while another one records. Not thread-safe.
public final class V4L2Controls {
    public let path: String
    private let device: V4L2Device
    /// Control ID and type per stable name, from the last `list`.
    private var known: [String: (id: UInt32, type: UInt32)] = [:]

    public init(path: String) throws {
        device = try V4L2Device(path: path)
        self.path = path
    }

    /// Identifies the camera across replugs and node renumbering: card and bus.
    public func identity() throws -> (card: String, bus: String) {
        let cap = try device.capabilities()
        return (CText.string(cap.card), CText.string(cap.bus_info))
    }

    /// Every control the driver lists, in its order, with current values. Class headings
    /// and compound controls (arrays, codec structures) are left out: a camera setting is
    /// a number, a switch, a menu or a button.
    public func list() throws -> [CameraControl] {
        var controls: [CameraControl] = []
        var query = v4l2_query_ext_ctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        known = [:]
        var seen = Set<String>()
        // A driver lists a few dozen; the bound keeps a broken one from looping for ever.
        for _ in 0..<1024 {
            guard try device.enumerate(dc_vidioc_query_ext_ctrl(), "VIDIOC_QUERY_EXT_CTRL", &query) else { break }
            defer { query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) }
            guard let kind = Self.kind(query.type), query.flags & UInt32(V4L2_CTRL_FLAG_HAS_PAYLOAD) == 0 else { continue }
            var name = V4L2ControlNames.name(for: query.id) ?? CameraControl.stableName(fromLabel: CText.string(query.name))
            if name.isEmpty { name = "control_\(String(query.id, radix: 16))" }
            if seen.contains(name) { name = String("\(name)_\(String(query.id, radix: 16))".prefix(CameraControlNames.maxLength)) }
            seen.insert(name)
            known[name] = (query.id, query.type)
            let flags = Self.flags(query.flags)
            var value: Int64?
            if kind != .button && !flags.contains(.writeOnly) {
                value = try? read(id: query.id, type: query.type)
            }
            controls.append(CameraControl(
                name: name, label: CText.string(query.name), kind: kind,
                minimum: query.minimum, maximum: query.maximum, step: Int64(clamping: query.step),
                defaultValue: query.default_value, value: value,
                menu: kind == .menu || kind == .integerMenu ? menu(of: query) : [], flags: flags))
        }
        return controls
    }

    /// Sets one control (by a name `list` gave) and reads back what the driver made of it
    /// (drivers round to their step and clamp). The error carries the driver's errno:
    /// EBUSY while streaming, EACCES for a read-only one, ERANGE or EINVAL out of range.
    @discardableResult
    public func set(_ name: String, to value: Int64) throws -> Int64? {
        if known.isEmpty { _ = try list() }
        guard let control = known[name] else {
            throw V4L2Error(code: 0, call: "set \(name)", device: path, detail: "no such control")
        }
        let wide: Int32 = control.type == V4L2_CTRL_TYPE_INTEGER64.rawValue ? 1 : 0
        // A bitmask is 32 unsigned bits in the control's signed 32-bit member.
        let fits = control.type == V4L2_CTRL_TYPE_BITMASK.rawValue ? (0...Int64(UInt32.max)).contains(value)
            : wide == 1 || (Int64(Int32.min)...Int64(Int32.max)).contains(value)
        guard fits else {
            throw V4L2Error(code: ERANGE, call: "VIDIOC_S_EXT_CTRLS", device: path, detail: "\(name) \(value) does not fit 32 bits")
        }
        let raw = control.type == V4L2_CTRL_TYPE_BITMASK.rawValue ? Int64(Int32(truncatingIfNeeded: value)) : value
        guard dc_v4l2_set_control(device.fd, control.id, wide, raw) == 0 else {
            throw V4L2Error(code: errno, call: "VIDIOC_S_EXT_CTRLS", device: path, detail: "\(name)=\(value)")
        }
        if control.type == V4L2_CTRL_TYPE_BUTTON.rawValue { return nil }
        return try? read(id: control.id, type: control.type)
    }

    private func read(id: UInt32, type: UInt32) throws -> Int64 {
        var value: Int64 = 0
        let wide: Int32 = type == V4L2_CTRL_TYPE_INTEGER64.rawValue ? 1 : 0
        guard dc_v4l2_get_control(device.fd, id, wide, &value) == 0 else {
            throw V4L2Error(code: errno, call: "VIDIOC_G_EXT_CTRLS", device: path)
        }
        return type == V4L2_CTRL_TYPE_BITMASK.rawValue ? Int64(UInt32(truncatingIfNeeded: value)) : value
    }

    private func menu(of query: v4l2_query_ext_ctrl) -> [CameraControl.MenuEntry] {
        guard query.minimum >= 0, query.maximum >= query.minimum, query.maximum - query.minimum < 256 else { return [] }
        var entries: [CameraControl.MenuEntry] = []
        var name = [CChar](repeating: 0, count: 32)
        for index in query.minimum...query.maximum {
            var value: Int64 = 0
            // Menus may have holes: an index the driver skips answers EINVAL.
            guard dc_v4l2_query_menu(device.fd, query.id, UInt32(index), &name, &value) == 0 else { continue }
            let text = query.type == V4L2_CTRL_TYPE_INTEGER_MENU.rawValue
                ? String(value)
                : String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            entries.append(.init(index: index, name: text))
        }
        return entries
    }

    private static func kind(_ type: UInt32) -> CameraControl.Kind? {
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: .integer64
        case V4L2_CTRL_TYPE_BITMASK.rawValue: .bitmask
        default: nil  // class headings, strings, compound types
        }
    }

    private static func flags(_ raw: UInt32) -> CameraControl.Flags {
        var flags: CameraControl.Flags = []
        if raw & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0 { flags.insert(.inactive) }
        if raw & UInt32(V4L2_CTRL_FLAG_GRABBED) != 0 { flags.insert(.grabbed) }
        if raw & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0 { flags.insert(.readOnly) }
        if raw & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0 { flags.insert(.disabled) }
        if raw & UInt32(V4L2_CTRL_FLAG_VOLATILE) != 0 { flags.insert(.volatile) }
        if raw & UInt32(V4L2_CTRL_FLAG_WRITE_ONLY) != 0 { flags.insert(.writeOnly) }
        return flags
    }
}

/// The stable names of the standard controls, as the kernel's own table names them
/// (v4l2-ctrls-defs.c, the names v4l2-ctl prints), whatever label a driver gives them.
enum V4L2ControlNames {
    static func name(for id: UInt32) -> String? { table[id] }

    private static let table: [UInt32: String] = [
        0x0098_0900: "brightness", 0x0098_0901: "contrast", 0x0098_0902: "saturation", 0x0098_0903: "hue",
        0x0098_090c: "white_balance_automatic", 0x0098_0910: "gamma", 0x0098_0911: "exposure",
        0x0098_0912: "gain_automatic", 0x0098_0913: "gain", 0x0098_0914: "horizontal_flip", 0x0098_0915: "vertical_flip",
        0x0098_0918: "power_line_frequency", 0x0098_0919: "hue_automatic", 0x0098_091a: "white_balance_temperature",
        0x0098_091b: "sharpness", 0x0098_091c: "backlight_compensation",
        0x009a_0901: "auto_exposure", 0x009a_0902: "exposure_time_absolute", 0x009a_0903: "exposure_dynamic_framerate",
        0x009a_0904: "pan_relative", 0x009a_0905: "tilt_relative", 0x009a_0908: "pan_absolute",
        0x009a_0909: "tilt_absolute", 0x009a_090a: "focus_absolute", 0x009a_090b: "focus_relative",
        0x009a_090c: "focus_automatic_continuous", 0x009a_090d: "zoom_absolute", 0x009a_090e: "zoom_relative",
        0x009a_090f: "zoom_continuous", 0x009a_0913: "auto_exposure_bias", 0x009a_0914: "white_balance_auto_preset",
        0x009a_0917: "iso_sensitivity", 0x009a_0918: "iso_sensitivity_auto", 0x009a_091b: "3a_lock",
    ]
}
