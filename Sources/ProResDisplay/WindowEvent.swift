/// What the player reacts to, from the window system.
public enum WindowEvent: Equatable, Sendable {
    case key(Key)
    /// The window manager's close button (WM_DELETE_WINDOW).
    case close
    /// The client area's new size in pixels.
    case resized(width: Int, height: Int)
    /// Part of the window was uncovered: show the frame again.
    case exposed
    /// The connection to the X server broke (the server died, or `xkill`
    /// killed this client): nothing can be shown any more. Not the user's
    /// quit: `play` ends with an error.
    case displayLost(String)
}

/// The keys `play` binds (docs/usage.md, "Playing a clip"); others are ignored.
public enum Key: Equatable, Sendable {
    case space, right, left, home, fullscreen, hud, quit
    /// m: mute or unmute the sound; 0 or Up: louder; 9 or Down: softer (mpv's keys).
    case mute, louder, softer

    /// The key for an X keysym (X11/keysymdef.h), if it is bound.
    init?(keysym: UInt32) {
        switch keysym {
        case 0x20: self = .space
        case 0xff53: self = .right
        case 0xff51: self = .left
        case 0xff50: self = .home
        case 0x66, 0x46: self = .fullscreen  // f F
        case 0x68, 0x48: self = .hud  // h H
        case 0x71, 0x51, 0xff1b: self = .quit  // q Q Escape
        case 0x6d, 0x4d: self = .mute  // m M
        case 0x30, 0xff52: self = .louder  // 0 Up
        case 0x39, 0xff54: self = .softer  // 9 Down
        default: return nil
        }
    }
}

/// Why there is no window.
public enum DisplayError: Error, Equatable {
    /// No X server to connect to (DISPLAY unset, or the server refused).
    case noDisplay(String)
    /// The display went away while frames were being shown.
    case lost(String)
}
