import CXCB
import Glibc

/// One top-level X11 window through xcb: titled, resizable, closed by the
/// window manager's close button, fullscreen through EWMH. The Vulkan
/// surface is made from `connectionHandle` and `windowHandle` in GPUKit,
/// which never sees an xcb type.
///
/// Thread-safety: one thread (the player's event loop) uses it; xcb itself
/// is thread-safe, so the Vulkan presentation on another thread may share
/// the connection.
public final class X11Window {
    /// libxcb's functions (dlopen'd: see the shim).
    private let xcb: pd_xcb_functions
    private let connection: OpaquePointer
    private let window: xcb_window_t
    private let root: xcb_window_t
    private let atoms: Atoms
    /// keysyms by keycode - minKeycode (the first column of the core mapping).
    private let keysyms: [UInt32]
    private let minKeycode: UInt8
    public private(set) var isFullscreen: Bool
    public let screenSize: (width: Int, height: Int)

    private struct Atoms {
        let protocols, deleteWindow, state, fullscreen, netName, utf8: xcb_atom_t
    }

    /// Opens `display` (the caller's `$DISPLAY`; nil or empty: not set) and
    /// maps the window; `size(screen)` picks its client size once the
    /// screen's is known.
    public init(
        title: String, display: String?, fullscreen: Bool,
        size: ((width: Int, height: Int)) -> (width: Int, height: Int)
    ) throws {
        guard let display, !display.isEmpty else {
            throw DisplayError.noDisplay("DISPLAY is not set")
        }
        xcb = try XCBLibrary.functions.get()
        let xcb = self.xcb
        var screenNumber: Int32 = 0
        guard let c = xcb.xcb_connect!(display, &screenNumber), xcb.xcb_connection_has_error!(c) == 0 else {
            throw DisplayError.noDisplay("cannot connect to the X server at DISPLAY=\(display)")
        }
        connection = c
        var screens = xcb.xcb_setup_roots_iterator!(xcb.xcb_get_setup!(c))
        for _ in 0..<screenNumber { xcb.xcb_screen_next!(&screens) }
        let screen = screens.data.pointee
        root = screen.root
        screenSize = (Int(screen.width_in_pixels), Int(screen.height_in_pixels))
        let clientSize = size(screenSize)
        func atom(_ name: String) -> xcb_atom_t {
            let cookie = xcb.xcb_intern_atom!(c, 0, UInt16(name.utf8.count), name)
            guard let reply = xcb.xcb_intern_atom_reply!(c, cookie, nil) else { return 0 }
            defer { free(reply) }
            return reply.pointee.atom
        }
        atoms = Atoms(
            protocols: atom("WM_PROTOCOLS"), deleteWindow: atom("WM_DELETE_WINDOW"), state: atom("_NET_WM_STATE"),
            fullscreen: atom("_NET_WM_STATE_FULLSCREEN"), netName: atom("_NET_WM_NAME"), utf8: atom("UTF8_STRING"))
        (minKeycode, keysyms) = Self.keyboardMapping(xcb, c)

        window = xcb.xcb_generate_id!(c)
        let events =
            XCB_EVENT_MASK_KEY_PRESS.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
            | XCB_EVENT_MASK_EXPOSURE.rawValue
        let values: [UInt32] = [screen.black_pixel, events]
        _ = xcb.xcb_create_window!(
            c, UInt8(XCB_COPY_FROM_PARENT), window, root, 0, 0, UInt16(clientSize.width), UInt16(clientSize.height), 0,
            UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
            XCB_CW_BACK_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue, values)
        var deleteWindow = atoms.deleteWindow
        _ = xcb.xcb_change_property!(
            c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atoms.protocols, XCB_ATOM_ATOM.rawValue, 32, 1,
            &deleteWindow)
        let windowClass = Array("prores-decode\0prores-decode\0".utf8)
        _ = xcb.xcb_change_property!(
            c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_STRING.rawValue, 8,
            UInt32(windowClass.count), windowClass)
        isFullscreen = fullscreen
        if fullscreen {
            // Before mapping, the state is a property the window manager reads.
            var state = atoms.fullscreen
            _ = xcb.xcb_change_property!(
                c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atoms.state, XCB_ATOM_ATOM.rawValue, 32, 1, &state)
        }
        setTitle(title)
        _ = xcb.xcb_map_window!(c, window)
        _ = xcb.xcb_flush!(c)
    }

    deinit {
        _ = xcb.xcb_destroy_window!(connection, window)
        xcb.xcb_disconnect!(connection)
    }

    /// The xcb_connection_t and xcb_window_t, for the Vulkan surface only.
    public var connectionHandle: UnsafeMutableRawPointer { UnsafeMutableRawPointer(connection) }
    public var windowHandle: UInt32 { window }

    /// WM_NAME and _NET_WM_NAME, both UTF-8: xdotool and window managers read one or the other.
    public func setTitle(_ title: String) {
        let utf8 = Array(title.utf8)
        _ = xcb.xcb_change_property!(
            connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_NAME.rawValue, atoms.utf8, 8,
            UInt32(utf8.count), utf8)
        _ = xcb.xcb_change_property!(
            connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atoms.netName, atoms.utf8, 8,
            UInt32(utf8.count), utf8)
        _ = xcb.xcb_flush!(connection)
    }

    /// Asks the window manager to toggle fullscreen (EWMH); without a
    /// window manager nothing changes on screen.
    public func toggleFullscreen() {
        isFullscreen.toggle()
        withUnsafePointer(to: xcb) {
            pd_xcb_request_state($0, connection, root, window, atoms.state, atoms.fullscreen, isFullscreen ? 1 : 0)
        }
        _ = xcb.xcb_flush!(connection)
    }

    /// The events waiting now, without blocking; a lost connection is `.displayLost`.
    public func pendingEvents() -> [WindowEvent] {
        let error = xcb.xcb_connection_has_error!(connection)
        guard error == 0 else { return [.displayLost(Self.connectionError(error))] }
        var events: [WindowEvent] = []
        while let event = xcb.xcb_poll_for_event!(connection) {
            defer { free(event) }
            switch Int32(pd_xcb_event_type(event)) {
            case XCB_KEY_PRESS:
                let code = event.withMemoryRebound(to: xcb_key_press_event_t.self, capacity: 1) { $0.pointee.detail }
                let index = Int(code) - Int(minKeycode)
                if keysyms.indices.contains(index), let key = Key(keysym: keysyms[index]) { events.append(.key(key)) }
            case XCB_CONFIGURE_NOTIFY:
                let size = event.withMemoryRebound(to: xcb_configure_notify_event_t.self, capacity: 1) {
                    ($0.pointee.width, $0.pointee.height)
                }
                events.append(.resized(width: Int(size.0), height: Int(size.1)))
            case XCB_EXPOSE:
                events.append(.exposed)
            case XCB_DESTROY_NOTIFY:
                // Destroyed by another client (xdotool windowclose, xkill's
                // gentler cousins): as good as closed.
                events.append(.close)
            case XCB_CLIENT_MESSAGE:
                let isDelete = event.withMemoryRebound(to: xcb_client_message_event_t.self, capacity: 1) {
                    pd_xcb_is_delete($0, atoms.protocols, atoms.deleteWindow) != 0
                }
                if isDelete { events.append(.close) }
            default:
                break
            }
        }
        return events
    }

    /// xcb's connection error codes (xcb.h, XCB_CONN_*) in words.
    static func connectionError(_ code: Int32) -> String {
        switch code {
        case 1:
            return "the connection to the X server was closed (the server stopped, or the window's client was killed)"
        case 2: return "the X server connection has no extension it needs"
        case 3: return "out of memory talking to the X server"
        case 4: return "a request exceeded the X server's maximum length"
        default: return "the connection to the X server failed (xcb error \(code))"
        }
    }

    /// The unshifted keysym of every keycode, read once.
    private static func keyboardMapping(_ xcb: pd_xcb_functions, _ c: OpaquePointer) -> (UInt8, [UInt32]) {
        let setup = xcb.xcb_get_setup!(c)!.pointee
        let count = UInt8(Int(setup.max_keycode) - Int(setup.min_keycode) + 1)
        guard
            let reply = xcb.xcb_get_keyboard_mapping_reply!(
                c, xcb.xcb_get_keyboard_mapping!(c, setup.min_keycode, count), nil)
        else {
            return (setup.min_keycode, [])
        }
        defer { free(reply) }
        let perKeycode = Int(reply.pointee.keysyms_per_keycode)
        let all = xcb.xcb_get_keyboard_mapping_keysyms!(reply)!
        let total = Int(xcb.xcb_get_keyboard_mapping_keysyms_length!(reply))
        let firstColumn = perKeycode == 0 ? [] : stride(from: 0, to: total, by: perKeycode).map { all[$0] }
        return (setup.min_keycode, firstColumn)
    }
}

/// libxcb, opened the first time a window is made: the tool must start
/// where it is not installed (a headless server), as it does without a
/// Vulkan loader. A missing library is "no display" to `play`.
private enum XCBLibrary {
    // Loaded once, by the lazy initialiser; a table of function pointers is Sendable.
    static let functions: Result<pd_xcb_functions, DisplayError> = {
        var table = pd_xcb_functions()
        if let failure = pd_xcb_load(&table) { return .failure(.noDisplay(String(cString: failure))) }
        return .success(table)
    }()
}
